"""A draw written straight into the tables behind ``seatings`` (draws_t, draw_seats), for
tests that need a drawn round without the draw command."""

from datetime import datetime

import duckdb

from pipeline import rulesets
from pipeline.entry import scheduled


def create_event(con: duckdb.DuckDBPyConnection, event: str, ruleset: str) -> None:
    """An event as a record, before any result (what ``domino event create`` writes)."""
    book = rulesets.load(ruleset)
    con.execute(
        "INSERT INTO events (event, ruleset, params_hash, created_at, models, title) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        [event, ruleset, book.hash, datetime.now(), book.models, event.upper()],
    )


def insert_draw(
    con: duckdb.DuckDBPyConnection,
    event: str,
    round: str,
    tables: dict[str, dict[str, str]],
    *,
    ruleset: str = "unhas",
    seed: int = 1,
) -> None:
    """Seat ``tables`` (table -> chair a-d -> player, the seating of hand 1) as the current
    draw of ``round``: unhas one row per chair per hand 1-10 after the swap schedule,
    pepet one row per chair with hand NULL."""
    create_event(con, event, ruleset)
    book = rulesets.load(ruleset)
    n = con.execute(
        "SELECT coalesce(max(draw_no), 0) + 1 FROM draws_t WHERE event = ? AND round = ?",
        [event, round],
    ).fetchall()[0][0]
    con.execute("UPDATE draws_t SET current = false WHERE event = ? AND round = ?", [event, round])
    con.execute(
        "INSERT INTO draws_t (event, round, draw_no, seed, drawn_at, drawn_by, reason, current) "
        "VALUES (?, ?, ?, ?, ?, 'test', NULL, true)",
        [event, round, n, seed, datetime.now()],
    )
    regular = book.flat.get("regular_hands")
    hands: list[int | None] = list(range(1, int(regular) + 1)) if regular else [None]
    rows = []
    for table, seats in tables.items():
        for hand in hands:
            moved = scheduled(seats, 1, hand, book) if hand else seats
            for chair, player in moved.items():
                rows.append([event, round, n, table, hand, chair.upper(), player.lower(), player])
    con.executemany("INSERT INTO draw_seats VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
