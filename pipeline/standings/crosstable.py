"""Cross-table of an event (chess-results style): player × round, and the standings
after every round.

``long`` has one row per player per round reached so far: the table played in that round
(empty when the player sat it out), the points and the place at that table, the total
over rounds 1..N and the event rank after round N (the same rules as ``event_standings``;
after the last round it is that view's rank). ``wide`` pivots it for display and export:
one row per player: rank and name, four columns per round, then the total.
"""

from importlib import resources

import duckdb
import polars as pl

from pipeline.store.db import frame

_SQL = resources.files("pipeline.sql") / "reports"

#: the columns each round brings to the wide cross-table, in order
PER_ROUND = ("table", "points", "table_rank", "event_rank")


def long(con: duckdb.DuckDBPyConnection, event: str) -> pl.DataFrame:
    """Every player's place after every round of ``event``."""
    return frame(con.sql((_SQL / "crosstable.sql").read_text(), params={"event": event}))


def standings_after(con: duckdb.DuckDBPyConnection, event: str, round_: str) -> pl.DataFrame:
    """The event's standings as they stood after ``round_``: player, total, rank."""
    rows = long(con, event).filter(pl.col("round") == round_)
    return rows.select("player", "total", "event_rank", "player_key").sort("event_rank", "player")


def wide(rows: pl.DataFrame) -> pl.DataFrame:
    """One row per player: ``rank`` (after the last round) and ``player``, then
    ``<round> table``, ``<round> points``, ``<round> place``, ``<round> rank`` for every
    round, then ``total`` (a phone shows the rank and the name before it scrolls)."""
    if rows.height == 0:
        return pl.DataFrame(
            {"player": [], "total": [], "rank": []},
            schema={"player": pl.String, "total": pl.Int64, "rank": pl.Int64},
        )
    order = rows.select("round", "round_no").unique().sort("round_no")["round"].to_list()
    last = rows.filter(pl.col("round_no") == rows["round_no"].max())
    out = last.select("player_key", "player", pl.col("total"), pl.col("event_rank").alias("rank"))
    for rd in order:
        part = rows.filter(pl.col("round") == rd).select(
            "player_key",
            pl.col("table").alias(f"{rd} table"),
            pl.col("points").alias(f"{rd} points"),
            pl.col("table_rank").alias(f"{rd} place"),
            pl.col("event_rank").alias(f"{rd} rank"),
        )
        out = out.join(part, on="player_key", how="left")
    cols = [c for c in out.columns if c not in ("player_key", "player", "total", "rank")]
    return out.select("rank", "player", *cols, "total", "player_key").sort("rank", "player")
