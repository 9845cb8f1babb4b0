"""Draws written straight into the store (``draws_t``, ``draw_seats``), as ``domino draw``
would leave them, for tests of what reads a draw.

The per-hand seats of an unhas table follow RULES.md Art. 1.14–1.15 as decided there,
worked out here independently of the simulator: hands 1–2 the drawn seating S, hands 3–6
S with A↔C, hands 7–10 S with A↔C and B↔D. A pepet session's chairs do not change: one
row per chair with ``hand`` NULL.
"""

from datetime import date, datetime

import duckdb

from pipeline import rulesets


def create_event(
    con: duckdb.DuckDBPyConnection,
    event: str,
    ruleset: str,
    *,
    title: str | None = None,
    on: date | None = None,
    venue: str | None = None,
    level: str | None = None,
) -> None:
    book = rulesets.load(ruleset)
    con.execute(
        "INSERT INTO events (event, ruleset, params_hash, created_at, models, title, event_date, "
        "venue, level) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [event, ruleset, book.hash, datetime(2026, 6, 1), book.models, title, on, venue, level],
    )


def swapped(start: dict[str, str], hand: int) -> dict[str, str]:
    """Art. 1.14–1.15: who sits in each chair in ``hand`` (empty chairs absent)."""
    s = {c: start.get(c) for c in "ABCD"}
    if 3 <= hand:
        s["A"], s["C"] = s["C"], s["A"]
    if 7 <= hand:
        s["B"], s["D"] = s["D"], s["B"]
    return {c: p for c, p in s.items() if p}


def seat_round(
    con: duckdb.DuckDBPyConnection,
    event: str,
    round_: str,
    tables: dict[str, dict[str, str]],
    *,
    per_hand: int | None = 10,
    seed: int = 7,
    draw_no: int = 1,
) -> None:
    """A current draw of ``round_``: ``tables`` maps a table label to its chairs (chair →
    player). ``per_hand``: the regular hands of an unhas match (seats after the swap
    schedule); None: chairs fixed for the session (pepet)."""
    con.execute("UPDATE draws_t SET current = false WHERE event = ? AND round = ?", [event, round_])
    con.execute(
        "INSERT INTO draws_t (event, round, draw_no, seed, drawn_at, drawn_by, reason, current) "
        "VALUES (?, ?, ?, ?, ?, 'test', ?, true)",
        [event, round_, draw_no, seed, datetime(2026, 6, 1, 9), None if draw_no == 1 else "redraw"],
    )
    rows = []
    for table, start in tables.items():
        hands = (
            [(h, swapped(start, h)) for h in range(1, per_hand + 1)]
            if per_hand
            else [(None, {c: p for c, p in start.items() if p})]
        )
        for hand, seats in hands:
            for chair, player in seats.items():
                rows.append((event, round_, draw_no, table, hand, chair, player.lower(), player))
    con.executemany(
        'INSERT INTO draw_seats (event, round, draw_no, "table", hand, chair, player_key, player) '
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )


def set_roster(con: duckdb.DuckDBPyConnection, event: str, players: list[str]) -> None:
    """``players`` as the event's entrants (no groups), as a roster file of one column
    would set them (``domino event roster``)."""
    import polars as pl

    from pipeline import events

    roster = pl.DataFrame(
        {
            "player": players,
            "group": [None] * len(players),
            "_file": ["roster.csv"] * len(players),
            "_line": list(range(2, 2 + len(players))),
        },
        schema={"player": pl.String, "group": pl.String, "_file": pl.String, "_line": pl.Int64},
    )
    events.set_roster(con, event, roster, source="roster.csv")
