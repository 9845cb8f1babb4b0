"""mypy guards the engine and the dashboard: ``make test`` runs it first (``make typecheck``),
with no blanket ignores, and every ``# type: ignore`` left in the code names its error code."""

import re
import tomllib

from tests.conftest import ROOT

CHECKED = ("pipeline", "dashboard")


def _mypy() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]


def test_mypy_checks_the_engine_and_the_dashboard_without_blanket_ignores():
    conf = _mypy()
    assert conf["files"] == list(CHECKED)
    assert conf["warn_unused_ignores"] and conf["check_untyped_defs"]
    assert "ignore_errors" not in conf and "ignore_missing_imports" not in conf
    for override in conf.get("overrides", []):
        # only third-party packages without types may be imported untyped
        assert set(override) == {"module", "ignore_missing_imports"}, override
        assert not [m for m in override["module"] if m.split(".")[0] in CHECKED], override


def test_make_test_runs_mypy_before_the_suite():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^typecheck:.*\n\t\$\(BIN\)/mypy$", makefile, re.M)
    assert re.search(r"^test: [^#\n]*\btypecheck\b", makefile, re.M)


def test_every_type_ignore_names_its_error_code():
    bare = [
        f"{path.relative_to(ROOT)}:{n}"
        for package in CHECKED
        for path in sorted((ROOT / package).rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if re.search(r"#\s*type:\s*ignore(?!\[)", line)
    ]
    assert not bare, bare


def test_make_test_checks_the_format_with_ruff():
    """Issue 12: ``ruff format --check`` runs in ``make test`` (through ``make lint``)."""
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^test: [^#\n]*\blint\b", makefile, re.M)
    assert re.search(r"^lint:.*\n(\t.*\n)*\t\$\(BIN\)/ruff format --check ", makefile, re.M)
