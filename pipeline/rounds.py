"""The order of an event's rounds (RULES.md, "Decided (round order)").

The event's own order where the organiser set one (table ``event_rounds``, set with
``domino event rounds EVENT R1 R2 …``); rounds it does not list, and every round of an
event without one, follow the default rule: the natural order of the labels (``R2`` before
``R10``), except that a label containing ``final`` (any case) comes after every label
without it — quarter-finals (``perempat``, ``quarter``, ``1/4``), then semi-finals
(``semi``, ``1/2``), then the rest (``Final``, ``Grand Final``).

The database orders rounds in one place, the ``rounds`` view (pipeline/sql/views/
01_rounds.sql, its ``round_no``); everything that reads the database sorts by it.
:func:`round_key` and :func:`sort_exprs` are the same default rule for labels not (yet)
in a database — a load's report, an upload's preview — and tests/test_rounds.py checks
that the three agree. "Any case" is ASCII case (``FINAL``, ``Final``), the same in SQL,
Python and polars; digits are ASCII digits.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

import duckdb

from pipeline import messages, ratings_due

if TYPE_CHECKING:
    import polars as pl

_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = _UPPER.lower()
_FOLD = str.maketrans(_UPPER, _LOWER)
_DIGITS = re.compile(r"[0-9]+")
#: A round number longer than this is not read as a number (it would not fit a BIGINT).
MAX_DIGITS = 18

QUARTER = ("perempat", "quarter", "1/4")
SEMI = ("semi", "1/2")


def stage(label: str) -> int:
    """0 an ordinary round, 1 a quarter-final, 2 a semi-final, 3 any other final."""
    low = label.translate(_FOLD)
    if "final" not in low:
        return 0
    if any(w in low for w in QUARTER):
        return 1
    if any(w in low for w in SEMI):
        return 2
    return 3


@functools.lru_cache(maxsize=65536)  # a batch holds few distinct labels
def round_key(label: str) -> tuple[int, str, int, str]:
    """Sort key of a round label under the default rule: ``sorted(labels, key=round_key)``.

    (stage, the label without its digits in lower case, its first number or -1, the label).
    """
    low = label.translate(_FOLD)
    m = _DIGITS.search(label)
    number = int(m.group()) if m and len(m.group()) <= MAX_DIGITS else -1
    return (stage(label), _DIGITS.sub("", low), number, label)


def sort_exprs(column: str = "round") -> list[pl.Expr]:
    """:func:`round_key` as polars expressions: ``df.sort(sort_exprs("round"))``."""
    import polars as pl

    c = pl.col(column)
    low = c.str.replace_many(list(_UPPER), list(_LOWER))
    first = c.str.extract(r"([0-9]+)")

    def has(words: tuple[str, ...]) -> pl.Expr:
        return pl.any_horizontal([low.str.contains(w, literal=True) for w in words])

    stage_expr = (
        pl.when(~low.str.contains("final", literal=True))
        .then(0)
        .when(has(QUARTER))
        .then(1)
        .when(has(SEMI))
        .then(2)
        .otherwise(3)
    )
    number = (
        pl.when(first.str.len_chars() <= MAX_DIGITS)
        .then(first.cast(pl.Int64, strict=False))
        .otherwise(None)
        .fill_null(-1)
    )
    return [stage_expr, low.str.replace_all(r"[0-9]+", ""), number, c]


def in_order(labels: list[str]) -> list[str]:
    return sorted(labels, key=round_key)


# --- the organiser's order -----------------------------------------------------------------


def _squash(label: str) -> str:
    """How two spellings of one round compare: case, spaces and leading zeros aside."""
    low = re.sub(r"\s+", "", label.translate(_FOLD))
    return _DIGITS.sub(lambda m: str(int(m.group())), low)


class OrderRefused(messages.Refused, ValueError):
    """A round order that cannot be stored, in one sentence."""


def set_order(
    con: duckdb.DuckDBPyConnection, event: str, labels: list[str]
) -> dict[str, list[str]]:
    """Store ``labels`` as ``event``'s round order (an empty list removes it).

    A label that is a loaded round of the event spelled differently (``r1`` for ``R1``)
    is stored as the loaded spelling. Returns ``order`` (as stored) and ``not_loaded``
    (listed rounds the event has no results for yet). Raises :class:`OrderRefused` (a
    ``ValueError``) for an empty label or one listed twice and
    :class:`pipeline.standings.queries.NotFound` for an unknown event.
    """
    from pipeline.standings.queries import NotFound

    found = con.execute("SELECT ruleset FROM events WHERE event = ?", [event]).fetchall()
    if not found:
        raise NotFound(f"no event {event!r} is loaded")
    loaded = [
        r[0]
        for r in con.execute(
            "SELECT DISTINCT round FROM table_standings_t WHERE event = ?", [event]
        ).fetchall()
    ]
    by_squash: dict[str, str] = {}
    for r in loaded:
        by_squash.setdefault(_squash(r), r)
    order: list[str] = []
    for raw in labels:
        label = raw.strip()
        if not label:
            raise OrderRefused("round_order.empty")
        stored = label if label in loaded else by_squash.get(_squash(label), label)
        if stored in order:
            raise OrderRefused("round_order.twice", {"round": repr(label)})
        order.append(stored)
    # the rated tables of the event follow its new round order
    with ratings_due.moving(con, [found[0][0]] if loaded else []):
        con.execute("DELETE FROM event_rounds WHERE event = ?", [event])
        if order:
            con.executemany(
                "INSERT INTO event_rounds VALUES (?, ?, ?)",
                [[event, r, i] for i, r in enumerate(order, start=1)],
            )
    return {"order": order, "not_loaded": [r for r in order if r not in loaded]}


def organiser_order(con: duckdb.DuckDBPyConnection, event: str) -> list[str]:
    """The order the organiser set for ``event`` (empty: none set)."""
    return [
        r[0]
        for r in con.execute(
            "SELECT round FROM event_rounds WHERE event = ? ORDER BY position", [event]
        ).fetchall()
    ]
