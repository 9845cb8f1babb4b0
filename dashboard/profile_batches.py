"""The query batches behind the ratings, profile and cross-table pages (see
dashboard/batches.py: one read-only connection each, plain frames back, hashable
arguments)."""

from datetime import date
from typing import Any

import duckdb
import polars as pl

from dashboard.batches import event_choice
from dashboard.batches import player as player_stats
from pipeline.standings import crosstable, h2h, profile, queries


def rating_filters(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    return {
        "ladders": profile.ladders(con),
        "levels": profile.levels(con),
        "groups": profile.groups(con),
    }


def rating_board(
    con: duckdb.DuckDBPyConnection,
    ruleset: str,
    level: str | None,
    since: date | None,
    until: date | None,
    group: str | None,
) -> pl.DataFrame:
    return profile.rating_board(con, ruleset, level=level, since=since, until=until, group=group)


def player(con: duckdb.DuckDBPyConnection, key: str) -> dict[str, Any]:
    """Everything a player's page shows across events."""
    out = player_stats(con, key)
    out.update(
        ratings=profile.ratings(con, key),
        history=profile.rating_history(con, key),
        form=profile.form(con, key),
        achievements=profile.achievements(con, key),
    )
    return out


def rounds(con: duckdb.DuckDBPyConnection, key: str, event: str) -> pl.DataFrame:
    """The player's line of one event's cross-table."""
    return profile.rounds_of(con, key, event)


def compare(con: duckdb.DuckDBPyConnection, a: str, b: str) -> dict[str, Any]:
    """Two players side by side: each one's ratings, and their head-to-head."""
    x = h2h.head_to_head(con, a, b)
    return {
        "ratings_a": profile.ratings(con, a),
        "ratings_b": profile.ratings(con, b),
        "summary": x.summary(),
        "tables": x.tables,
    }


def cross(con: duckdb.DuckDBPyConnection, event: str | None) -> dict[str, Any]:
    out = event_choice(con, queries.events(con), event)
    ev = out["event"]
    if ev is not None:
        out["long"] = crosstable.long(con, ev)
    return out
