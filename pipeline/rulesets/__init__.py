"""Rulesets are data: point tables and options live in ``<name>.toml`` beside this file.

:func:`load` reads one; :func:`params_frame` flattens it into one row of typed columns
that the scoring SQL joins on (``points.apollo.winner`` → ``points_apollo_winner``).
"""

import hashlib
import json
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import polars as pl

NAMES = ("unhas", "pepet")


class UnknownRuleset(ValueError):
    pass


@dataclass(frozen=True)
class Ruleset:
    name: str
    params: dict[str, Any]

    @property
    def flat(self) -> dict[str, Any]:
        return _flatten(self.params)

    @property
    def hash(self) -> str:
        return hashlib.sha256(json.dumps(self.params, sort_keys=True).encode()).hexdigest()[:16]

    def __getitem__(self, key: str) -> Any:
        return self.flat[key]


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "_"))
        else:
            out[key] = v
    return out


_overrides: dict[str, dict[str, Any]] = {}
_cache: dict[str, tuple[int, "Ruleset"]] = {}  # name → (file mtime, ruleset): edits are picked up

#: Options with a fixed set of values: a typo in a ruleset file must not silently score.
CHOICES = {
    "catcher_split": ("halve", "even"),
    "locker_penalty": ("unless_lowest", "always"),
    "ties": ("share",),
}


class BadRuleset(ValueError):
    pass


def check(name: str, params: dict[str, Any]) -> None:
    """Refuse a ruleset whose options hold unknown values or whose points are not integers."""
    flat = _flatten(params)
    for key, allowed in CHOICES.items():
        if key in flat and flat[key] not in allowed:
            raise BadRuleset(f"{name}.toml: {key} = {flat[key]!r}; use one of {', '.join(allowed)}")
    for table in ("points", "sanctions"):
        for key, value in _flatten(params.get(table, {}), f"{table}_").items():
            if not isinstance(value, int) or isinstance(value, bool):
                raise BadRuleset(f"{name}.toml: {key} = {value!r} must be a whole number")


def load(name: str) -> Ruleset:
    """The ruleset ``name`` as its TOML file says (or as a test overrode it)."""
    if name not in NAMES:
        raise UnknownRuleset(f"unknown ruleset {name!r}; use one of {', '.join(NAMES)}")
    if name in _overrides:
        return Ruleset(name, _overrides[name])
    path = resources.files("pipeline.rulesets") / f"{name}.toml"
    stamp = Path(str(path)).stat().st_mtime_ns
    cached = _cache.get(name)
    if cached is None or cached[0] != stamp:
        params = tomllib.loads(path.read_text())
        check(name, params)
        cached = (stamp, Ruleset(name, params))
        _cache[name] = cached
    return cached[1]


def override(name: str, params: dict[str, Any] | None) -> None:
    """Use ``params`` instead of the file (tests and ``--ruleset-file``); None restores it."""
    if params is None:
        _overrides.pop(name, None)
    else:
        check(name, params)
        _overrides[name] = params


def params_frame(events: dict[str, str]) -> pl.DataFrame:
    """One row per event with its ruleset's flattened parameters (for the scoring SQL)."""
    flat = {rs: {k: v for k, v in load(rs).flat.items() if not isinstance(v, list)} for rs in set(events.values())}
    return pl.DataFrame([{"event": event, **flat[rs]} for event, rs in events.items()])
