"""Helpers for the rulebook tests: tiny hand logs as text, loaded through the product.

The golden tests write a handful of hand rows to a CSV in ``tmp_path``, load it with
:func:`pipeline.ingest.ingest` into a fresh DuckDB file and read the public views back.
The hypothesis strategies at the bottom build *valid* hand rows (a seating, an ending
that fits it, pips where the rulebook needs them) for the property tests; they are
deliberately independent of ``simulator/``.
"""

import contextlib
import copy
import csv
import io
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
from hypothesis import strategies as st

from pipeline import rulesets
from pipeline.ingest import Plan, ingest
from pipeline.ingest.columns import CANONICAL
from pipeline.store.db import connect

CHAIRS = "ABCD"
COLUMNS = list(CANONICAL)
SEATS = ("Ana", "Budi", "Cici", "Dedi")


# --- building hand logs ---------------------------------------------------------------------


def _per_chair(value: Any) -> dict[str, Any]:
    """``{"A": 3}`` or a 4-sequence (None = nothing) → ``{"A": …, "B": …, …}``."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return {k.upper(): v for k, v in value.items()}
    return {c: v for c, v in zip(CHAIRS, value, strict=True) if v is not None}


def hand(
    n: int | None,
    by: str | None,
    ending: str,
    *,
    seats: Sequence[str | None] = SEATS,
    last: str | None = None,
    pips: Any = None,
    tiles: Any = None,
    sanctions: Any = None,
    event: str = "ev",
    ruleset: str | None = "unhas",
    round: str = "R1",
    table: str = "1",
) -> dict[str, Any]:
    """One hand-log row. ``seats`` lists chairs A–D (None = empty chair)."""
    row: dict[str, Any] = {c: None for c in COLUMNS}
    row.update(
        event=event,
        ruleset=ruleset,
        round=round,
        table=table,
        hand=n,
        ended_by=by,
        ending=ending,
        last_tile=last,
    )
    for c, name in zip("abcd", seats, strict=True):
        row[f"player_{c}"] = name
    for prefix, value in (("pips", pips), ("tiles", tiles), ("sanctions", sanctions)):
        for chair, v in _per_chair(value).items():
            row[f"{prefix}_{chair.lower()}"] = v
    return row


def csv_text(rows: Sequence[dict[str, Any]]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in rows:
        w.writerow(["" if r.get(c) is None else r[c] for c in COLUMNS])
    return out.getvalue()


def write_log(directory: Path, rows: Sequence[dict[str, Any]], name: str = "hands.csv") -> Path:
    path = directory / name
    path.write_text(csv_text(rows), encoding="utf-8")
    return path


def load(
    con: duckdb.DuckDBPyConnection,
    directory: Path,
    rows: Sequence[dict[str, Any]],
    name: str = "hands.csv",
    **kw: Any,
) -> Plan:
    """Write ``rows`` as ``name`` in ``directory`` and ingest it."""
    return ingest(con, [write_log(directory, rows, name)], **kw)


def scheduled(start: Sequence[str | None], n: int) -> tuple[str | None, ...]:
    """The seating of hand ``n`` under Art. 1.14-1.15 (cumulative swaps) from ``start``."""
    a, b, c, d = start
    if n >= 3:
        a, c = c, a
    if 7 <= n <= 10:
        b, d = d, b
    return (a, b, c, d)


def biasa_match(
    winners: Sequence[str], start: Sequence[str | None] = SEATS, **where: Any
) -> list[dict[str, Any]]:
    """Hands 1, 2, … seated by the swap schedule, hand ``n`` won "biasa" by ``winners[n-1]``
    (a player's name: the helper finds the chair that player sits in that hand)."""
    rows = []
    for n, winner in enumerate(winners, start=1):
        seats = scheduled(start, n)
        rows.append(hand(n, CHAIRS[list(seats).index(winner)], "biasa", seats=seats, **where))
    return rows


@contextlib.contextmanager
def fresh_db(directory: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    with connect(directory / "t.duckdb") as con:
        yield con


# --- reading results -----------------------------------------------------------------------


def hand_rows(
    con: duckdb.DuckDBPyConnection,
    hand_no: int,
    *,
    event: str = "ev",
    round: str = "R1",
    table: str = "1",
) -> dict[str, tuple[str, int]]:
    """``{player: (category, points)}`` of one hand, from the public ``hand_points`` view."""
    df = con.sql(
        "SELECT player, category, points FROM hand_points WHERE event = ? AND round = ? "
        'AND "table" = ? AND hand = ?',
        params=[event, round, table, hand_no],
    ).pl()
    return {r["player"]: (r["category"], r["points"]) for r in df.iter_rows(named=True)}


def table_rows(
    con: duckdb.DuckDBPyConnection, *, event: str = "ev", round: str = "R1", table: str = "1"
) -> dict[str, dict[str, Any]]:
    """``{player: {points, rank, qualified, needs_tiebreak, tiebreak_points}}`` of one match."""
    df = con.sql(
        "SELECT player, points, rank, qualified, needs_tiebreak, tiebreak_points "
        'FROM table_standings WHERE event = ? AND round = ? AND "table" = ?',
        params=[event, round, table],
    ).pl()
    return {r.pop("player"): r for r in df.iter_rows(named=True)}


def view(
    con: duckdb.DuckDBPyConnection, name: str, event: str, columns: Sequence[str]
) -> pl.DataFrame:
    """Rows of a public view for one event, sorted on every column (for comparisons)."""
    cols = ", ".join(f'"{c}"' for c in columns)
    return (
        con.sql(f"SELECT {cols} FROM {name} WHERE event = ?", params=[event])
        .pl()
        .sort(list(columns))
    )


def statuses(plan: Plan) -> dict[str, str]:
    """``{table: status}`` of a plan's match outcomes."""
    return {o.table: o.status for o in plan.outcomes}


# --- rulesets --------------------------------------------------------------------------------


def modified(name: str, **changes: Any) -> dict[str, Any]:
    """A copy of ruleset ``name``'s parameters with dotted keys changed
    (``modified("unhas", **{"points.apollo.winner": 10})``)."""
    params = copy.deepcopy(rulesets.load(name).params)
    for dotted, value in changes.items():
        d = params
        *path, last = dotted.split(".")
        for p in path:
            d = d[p]
        assert last in d, f"{dotted} is not a parameter of {name}"
        d[last] = value
    return params


# --- hypothesis strategies: valid hands ------------------------------------------------------

DOUBLES = [f"{i}-{i}" for i in range(7)]
NON_DOUBLES = [f"{i}-{j}" for i in range(7) for j in range(i)]
ALL_TILES = [(i, j) for i in range(7) for j in range(i + 1)]


@st.composite
def unhas_hand(
    draw: st.DrawFn, n: int, seats: Sequence[str | None], *, sanctions: bool = False, **where: Any
) -> dict[str, Any]:
    """A valid regular unhas hand for the seating ``seats`` (3 or 4 seated chairs)."""
    seated = [c for c, s in zip(CHAIRS, seats, strict=True) if s is not None]
    # kandang weighs more: it has the most cases (won, lower, equal, several catchers)
    ending = draw(st.sampled_from(["apollo", "ceki", "biasa", "all_doubles", *["kandang"] * 4]))
    by = draw(st.sampled_from(seated))
    last = None
    pips: dict[str, int] = {}
    if ending == "apollo":
        last = draw(st.none() | st.sampled_from(DOUBLES))
    elif ending in ("ceki", "biasa"):
        last = draw(st.none() | st.sampled_from(NON_DOUBLES))
    elif ending == "kandang":
        # small pips make ties (equal catches, several catchers) common
        pips = {c: draw(st.integers(0, 4)) for c in seated}
    sanc: dict[str, str] = {}
    if sanctions:
        for c in seated:
            codes = draw(st.lists(st.sampled_from(["warn", "show", "wrong"]), max_size=2))
            if codes:
                sanc[c] = ";".join(codes)
    return hand(
        n, by, ending, seats=seats, last=last, pips=pips or None, sanctions=sanc or None, **where
    )


@st.composite
def unhas_match(
    draw: st.DrawFn,
    players: Sequence[str],
    *,
    min_hands: int = 1,
    sanctions: bool = False,
    **where: Any,
) -> list[dict[str, Any]]:
    """Hands 1..n (n ≤ 10) of one match, seated by the swap schedule; a 4-player table
    or, sometimes, a 3-player one (one chair empty)."""
    start: list[str | None] = list(players[:4])
    if draw(st.booleans()) and draw(st.booleans()):
        start[draw(st.integers(0, 3))] = None
    n = draw(st.integers(min_hands, 10))
    return [
        draw(unhas_hand(h, scheduled(start, h), sanctions=sanctions, **where))
        for h in range(1, n + 1)
    ]


def pepet_value(tiles: Sequence[tuple[int, int, bool]]) -> int:
    """The rulebook's value of tiles left (dead ones included): pips summed; ``0-0``
    counts 13 unless another tile with a blank end is among them (RULES.md rule 6)."""
    total = sum(hi + lo for hi, lo, _dead in tiles)
    has00 = any(hi == 0 and lo == 0 for hi, lo, _ in tiles)
    partner = any(lo == 0 and hi > 0 for hi, lo, _ in tiles)
    return total + (13 if has00 and not partner else 0)


def tiles_text(tiles: Sequence[tuple[int, int, bool]]) -> str:
    return " ".join(f"{hi}-{lo}{'*' if dead else ''}" for hi, lo, dead in tiles)


@st.composite
def pepet_hand(
    draw: st.DrawFn, n: int, seats: Sequence[str], **where: Any
) -> tuple[dict[str, Any], dict[str, int]]:
    """A valid pepet hand and the value of each chair by the rulebook (the test's oracle).

    Chairs that need a value get either pips or the tiles they hold (some dead), drawn
    without repeats from the set, so ``0-0`` with and without a blank partner turns up.
    """
    ending = draw(st.sampled_from(["out", "locked", "tutup"]))
    by = draw(st.sampled_from(list(CHAIRS)))
    pool = list(ALL_TILES)
    order = draw(st.permutations(range(len(pool))))
    pool = [pool[i] for i in order]
    pips: dict[str, int] = {}
    tiles: dict[str, str] = {}
    values: dict[str, int] = {}
    for c in CHAIRS:
        if ending == "tutup" or (ending == "out" and c == by):
            continue
        if draw(st.booleans()):
            k = draw(st.integers(1, 4))
            held = [(hi, lo, draw(st.booleans())) for hi, lo in pool[:k]]
            pool = pool[k:]
            tiles[c] = tiles_text(held)
            values[c] = pepet_value(held)
        else:
            values[c] = pips[c] = draw(st.integers(0, 25))
    if ending == "out":
        values[by] = 0
    row = hand(
        n, by, ending, seats=seats, pips=pips or None, tiles=tiles or None, ruleset="pepet", **where
    )
    return row, values
