"""Rulebooks are plug-ins described by data: one ``<name>.toml`` each.

A ruleset file holds the point table and options an organiser edits, and declares what
the rest of the product asks of a rulebook: its endings, the categories its hands
score, the checks a hand log must pass, the standings levels it has, the extra columns
of each view and what the dashboard shows. Code asks the ruleset (:class:`Ruleset`);
it never tests a ruleset's name.

Rulesets are found in this folder and in every folder named by ``DOMINO_RULESETS``
(``:``-separated). A file may say ``extends = "unhas"`` and override only what differs;
tables merge key by key. :func:`load` reads one (cached on the files' modification
times, so an edit is picked up); :func:`params_frame` flattens the parameters into one
row of typed columns that the scoring SQL joins on (``points.apollo.winner`` →
``points_apollo_winner``).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl


HERE = Path(__file__).resolve().parent
#: The SQL scoring models live in ``pipeline/sql/models/<models>/``.
MODELS = HERE.parent / "sql" / "models"


class UnknownRuleset(ValueError):
    pass


class BadRuleset(ValueError):
    """A ruleset file that cannot be used; the message names the file and the key."""


#: Options with a fixed set of values: a typo in a ruleset file must not silently score.
CHOICES = {
    "catcher_split": ("halve", "even"),
    "locker_penalty": ("unless_lowest", "always"),
    "ties": ("share",),
    "tile_value": ("plain", "zero_zero_alone"),
    "draw_chairs": ("refuse", "warn"),
}

#: Options of a known type: a quoted number or a misspelt true must not silently score.
TYPES: dict[str, type] = {
    "regular_hands": int,
    "min_players": int,
    "max_pips": int,
    "qualifiers_per_table": int,
    "players_per_table": int,
    "session_players": int,
    "session_tables": int,
    "zero_zero_alone": int,
    "tiebreak_points_count": bool,
    "check_swap_schedule": bool,
    "require_registered": bool,
    "points_are_default": bool,
    "title": str,
    "models": str,
    "walkover": str,
}

#: Every check a ruleset may ask for (implemented in :mod:`pipeline.ingest.checks` and
#: :mod:`pipeline.ingest.cross`).
CHECKS = (
    "regular_hands",
    "players_per_table",
    "walkover",
    "last_tile_double",
    "swap_schedule",
    "tiebreak_seating",
    "session_shape",
)
LEVELS = ("table", "round", "event", "group")
IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")
#: Declarations every ruleset must make (directly or through ``extends``).
REQUIRED = ("name", "title", "models", "endings", "went_out", "categories", "levels", "checks")


@dataclass(frozen=True)
class Ruleset:
    name: str
    params: dict[str, Any]
    path: str = ""
    _flat: dict[str, Any] = field(init=False, repr=False, compare=False)
    _hash: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # computed once: the loading path asks for parameters and the hash many times
        object.__setattr__(self, "_flat", _flatten(self.params))
        digest = hashlib.sha256(json.dumps(self.params, sort_keys=True).encode()).hexdigest()[:16]
        object.__setattr__(self, "_hash", digest)

    @property
    def flat(self) -> dict[str, Any]:
        return self._flat

    @property
    def hash(self) -> str:
        return self._hash

    def __getitem__(self, key: str) -> Any:
        return self.flat[key]

    # --- what the rest of the product asks a rulebook -----------------------------------

    @property
    def title(self) -> str:
        return str(self.params.get("title", self.name))

    @property
    def models(self) -> str:
        """The folder of SQL scoring models (``pipeline/sql/models/<models>/``)."""
        return str(self.params["models"])

    @property
    def endings(self) -> list[str]:
        return list(self.params["endings"])

    @property
    def went_out(self) -> list[str]:
        """Endings where the ``ended_by`` chair went out (its value is 0)."""
        return list(self.params["went_out"])

    @property
    def walkover(self) -> str | None:
        """The ending that records a walkover (the whole record of a table), if any."""
        return self.params.get("walkover") or None

    @property
    def categories(self) -> list[str]:
        return list(self.params["categories"])

    @property
    def levels(self) -> list[str]:
        return list(self.params["levels"])

    @property
    def checks(self) -> list[str]:
        return list(self.params["checks"])

    def has(self, check: str) -> bool:
        return check in self.params["checks"]

    @property
    def pips_needed(self) -> dict[str, str]:
        """``ending → all | all_but_ender``: which chairs must give their pips."""
        return dict(self.params.get("pips_needed", {}))

    @property
    def zero_zero_alone(self) -> bool:
        """Tile values follow pepet rule 6 (``0-0`` without a partner counts 13)."""
        return self.params.get("tile_value", "plain") == "zero_zero_alone"

    @property
    def sheet_columns(self) -> list[str] | None:
        """Columns of a blank sheet for this rulebook (None: every contract column): the
        contract's but those ``[sheet] skip_prefixes`` leaves out, with the optional
        ``[sheet] extra_columns`` before the note."""
        sheet = self.params.get("sheet", {})
        skip = sheet.get("skip_prefixes", [])
        extra = list(sheet.get("extra_columns", []))
        if not skip and not extra:
            return None
        from pipeline.ingest.columns import CANONICAL

        kept = [c for c in CANONICAL if c != "note" and not any(c.startswith(p) for p in skip)]
        return [*kept, *extra, "note"]

    def columns(self, view: str) -> list[str]:
        """Ruleset-specific columns of ``view`` (``table``, ``event``, ``hand_points`` …)."""
        return list(self.params.get("columns", {}).get(view, []))

    def shows(self, feature: str) -> bool:
        """What the dashboard shows for this rulebook (``[dashboard]`` in the file)."""
        return bool(self.params.get("dashboard", {}).get(feature, False))


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "_"))
        else:
            out[key] = v
    return out


def _merge(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """Tables merge key by key; any other value in ``child`` replaces the parent's."""
    out = copy.deepcopy(parent)
    for k, v in child.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


_overrides: dict[str, dict[str, Any]] = {}
# files: name → path; parsed: path → (mtime, raw table)
_parsed: dict[Path, tuple[int, dict[str, Any]]] = {}
_resolved: dict[str, tuple[tuple[tuple[str, int], ...], Ruleset]] = {}


def folders() -> list[Path]:
    """This folder, then every folder of ``DOMINO_RULESETS`` (``:``-separated)."""
    extra = [Path(p) for p in os.environ.get("DOMINO_RULESETS", "").split(os.pathsep) if p.strip()]
    return [HERE, *extra]


def _raw(path: Path) -> dict[str, Any]:
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as exc:
        raise BadRuleset(
            f"{path}: cannot be read ({exc.strerror}); check the file or DOMINO_RULESETS"
        ) from exc
    cached = _parsed.get(path)
    if cached is None or cached[0] != stamp:
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise BadRuleset(
                f"{path}: is not a valid TOML file ({exc}); fix the file or restore it from the repository"
            ) from exc
        cached = (stamp, raw)
        _parsed[path] = cached
    return cached[1]


def _files() -> dict[str, Path]:
    """``name → file`` of every ruleset found; a later folder's file wins a name."""
    found: dict[str, Path] = {}
    for folder in folders():
        if not folder.is_dir():
            if folder != HERE:
                raise BadRuleset(
                    f"DOMINO_RULESETS names {folder}, which is not a folder; fix the setting"
                )
            continue
        for path in sorted(folder.glob("*.toml")):
            name = str(_raw(path).get("name") or path.stem).strip().lower()
            found[name] = path
    return found


def names() -> tuple[str, ...]:
    """Every ruleset that can be used, built-in ones first."""
    return tuple(_files())


def chairs_warned() -> list[str]:
    """The rulesets whose loads take a seating in other chairs than drawn with a warning
    (``[draw] chairs = "warn"``: their points do not depend on chairs), not a refusal."""
    return [rs for rs in names() if load(rs).flat.get("draw_chairs") == "warn"]


def with_groups() -> list[str]:
    """The rulesets whose events have group (KG) standings: their registry gives groups."""
    return [rs for rs in names() if "group" in load(rs).levels]


def registered_only() -> list[str]:
    """The rulesets whose loads reject a name outside the event's league's registry (where
    it has one): ``require_registered``."""
    return [rs for rs in names() if load(rs).flat.get("require_registered")]


def load(name: str) -> Ruleset:
    """The ruleset ``name`` as its file says (or as a test overrode it)."""
    if name in _overrides:
        return Ruleset(name, _overrides[name])
    files = _files()
    if name not in files:
        raise UnknownRuleset(f"unknown ruleset {name!r}; use one of {', '.join(files)}")
    # resolved once per state of the files (an edit, or a file added, is picked up)
    stamp = tuple((str(p), _parsed[p][0]) for p in files.values())
    cached = _resolved.get(name)
    if cached is None or cached[0] != stamp:
        cached = (stamp, Ruleset(name, _resolve(name, files, []), str(files[name])))
        _resolved[name] = cached
    return cached[1]


def _resolve(name: str, files: dict[str, Path], chain: list[str]) -> dict[str, Any]:
    path = files[name]
    raw = _raw(path)
    parent = raw.get("extends")
    if parent is None:
        params = copy.deepcopy(raw)
    else:
        parent = str(parent).strip().lower()
        if parent in chain or parent == name:
            raise BadRuleset(
                f"{path}: extends {parent!r}, which extends it back; a ruleset cannot extend itself"
            )
        if parent not in files:
            raise BadRuleset(
                f"{path}: extends {parent!r}, which is not a ruleset; use one of {', '.join(files)}"
            )
        params = _merge(
            _resolve(parent, files, [*chain, name]),
            {k: v for k, v in raw.items() if k != "extends"},
        )
    params["name"] = name
    check(str(path), params)
    return params


def check(where: str, params: dict[str, Any]) -> None:
    """Refuse a ruleset whose options hold unknown values, whose points are not whole
    numbers, or that leaves out a declaration the product needs."""
    label = where if where.endswith(".toml") else f"{where}.toml"
    for key in REQUIRED:
        if key not in params:
            raise BadRuleset(f"{label}: the key {key} is missing; add it (see docs/rulesets.md)")
    flat = _flatten(params)
    for key, allowed in CHOICES.items():
        if key in flat and flat[key] not in allowed:
            raise BadRuleset(f"{label}: {key} = {flat[key]!r}; use one of {', '.join(allowed)}")
    for key, kind in TYPES.items():
        value = params.get(key)
        if value is not None and (
            not isinstance(value, kind) or (kind is int and isinstance(value, bool))
        ):
            raise BadRuleset(f"{label}: {key} = {value!r} must be {_KIND[kind]}")
    for table in ("points", "sanctions"):
        for key, value in _flatten(params.get(table, {}), f"{table}_").items():
            if not isinstance(value, int) or isinstance(value, bool):
                raise BadRuleset(f"{label}: {key} = {value!r} must be a whole number")
    unknown = [c for c in params["checks"] if c not in CHECKS]
    if unknown:
        raise BadRuleset(
            f"{label}: checks names {', '.join(map(repr, unknown))}; use any of {', '.join(CHECKS)}"
        )
    bad_levels = [lv for lv in params["levels"] if lv not in LEVELS]
    if bad_levels:
        raise BadRuleset(
            f"{label}: levels names {', '.join(map(repr, bad_levels))}; use any of {', '.join(LEVELS)}"
        )
    from pipeline.ingest.columns import REPLACES

    extra = params.get("sheet", {}).get("extra_columns", [])
    if not isinstance(extra, list) or any(c not in REPLACES for c in extra):
        raise BadRuleset(
            f"{label}: sheet.extra_columns = {extra!r}; a sheet's extra columns are any of "
            f"{', '.join(REPLACES)}"
        )
    for view, cols in params.get("columns", {}).items():
        bad = [c for c in cols if not isinstance(c, str) or not IDENTIFIER.fullmatch(c)]
        if bad:
            raise BadRuleset(
                f"{label}: columns.{view} names {', '.join(map(repr, bad))}; a column is a plain name (letters, digits, _)"
            )
    if (
        not IDENTIFIER.fullmatch(str(params["models"]))
        or not (MODELS / str(params["models"])).is_dir()
    ):
        raise BadRuleset(
            f"{label}: models = {params['models']!r} names no folder of scoring models in pipeline/sql/models"
        )


_KIND = {int: "a whole number", bool: "true or false", str: "text in quotes"}


def override(name: str, params: dict[str, Any] | None) -> None:
    """Use ``params`` instead of the file (tests); None restores it."""
    if params is None:
        _overrides.pop(name, None)
    else:
        check(name, params)
        _overrides[name] = params


def clear_overrides() -> None:
    _overrides.clear()


def params_frame(events: dict[str, str]) -> pl.DataFrame:
    """One row per event with its ruleset's flattened parameters (for the scoring SQL)."""
    import polars as pl

    flat = {
        rs: {
            k: v
            for k, v in load(rs).flat.items()
            if not isinstance(v, (list, dict))
            and not k.startswith(("dashboard_", "sheet_", "columns_", "draw_"))
        }
        for rs in set(events.values())
    }
    return pl.DataFrame([{"event": event, **flat[rs]} for event, rs in events.items()])


def stale_events(con: Any, event: str | None = None) -> list[str]:
    """Events (``event`` alone, or all) scored with other values than their ruleset file holds now."""
    if event is not None:
        rows = con.execute(
            "SELECT event, ruleset, params_hash FROM events WHERE event = ?", [event]
        ).fetchall()
        return [e for e, rs, h in rows if load(rs).hash != h]
    # a league has tens of thousands of events and a handful of rulesets and values: each
    # pair is asked once (every load asks, and fetching every event took 60 ms at ten
    # million hands), the events themselves only when a pair is out of date
    pairs = con.execute("SELECT DISTINCT ruleset, params_hash FROM events").fetchall()
    stale = {(rs, h) for rs, h in pairs if load(rs).hash != h}
    if not stale:
        return []
    rows = con.execute("SELECT event, ruleset, params_hash FROM events").fetchall()
    return [e for e, rs, h in rows if (rs, h) in stale]
