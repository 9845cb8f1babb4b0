"""Strings of the pages added feature by feature: one module per feature, each with a
``STRINGS`` table shaped like ``dashboard.i18n.STRINGS`` (key -> {"id": …, "en": …}).

``collect()`` merges them; a key defined twice is an error (tests/test_dashboard.py).
"""

import importlib
import pkgutil


def collect() -> dict[str, dict[str, str]]:
    merged: dict[str, dict[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        table = importlib.import_module(f"{__name__}.{info.name}").STRINGS
        twice = merged.keys() & table.keys()
        if twice:
            raise KeyError(f"dashboard/strings/{info.name}.py repeats {sorted(twice)}")
        merged.update(table)
    return merged
