"""Re-derive every score of loaded events from their stored hands.

Needed when what scores depend on changes: the ruleset file's values (organisers edit
``pipeline/rulesets/*.toml``) or the player registry (aliases merge spellings). Write
commands call :func:`rescore_stale` so a changed ruleset file takes effect by itself.
"""

import duckdb
import polars as pl

from pipeline import ratings, ratings_due, rulesets, settings
from pipeline.ingest.columns import CHAIRS
from pipeline.players import alias_map, first_spellings, player_key
from pipeline.rulesets import stale_events
from pipeline.scoring.models import score
from pipeline.store.db import frame, insert_frame, register

__all__ = ["event_sizes", "rescore", "rescore_within", "stale_events"]


def rescore(con: duckdb.DuckDBPyConnection, events: list[str] | None = None) -> int:
    """Rescore ``events`` (all when None) in one transaction; returns the hands scored.

    Events are scored together, in chunks of about ``batch_rows`` hands per ruleset, so
    a league of thousands of events costs a scan of the hands per chunk, not per event.
    """
    sizes = event_sizes(con)
    if events is not None:
        sizes = sizes.filter(pl.col("event").is_in(events))
    moved = sorted(set(sizes["ruleset"].to_list()))
    # the new scores owe their ladders a recompute until it has run (a process that dies
    # between the two commits leaves the mark for the next rating update); a ladder
    # rebuilt whole owes nothing
    with ratings_due.moving(
        con, moved, follow=lambda _owner: ratings.recompute(con, None if events is None else moved)
    ):
        total = rescore_within(con, sizes)
    return total


def event_sizes(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """``event, ruleset, hands`` of every event (hands of the current versions)."""
    return frame(
        con.sql(
            "SELECT e.event, e.ruleset, coalesce(sum(v.hands), 0)::BIGINT AS hands FROM events e "
            "LEFT JOIN match_versions v ON v.event = e.event AND v.current GROUP BY ALL ORDER BY e.event"
        )
    )


def rescore_within(con: duckdb.DuckDBPyConnection, sizes: pl.DataFrame) -> int:
    """Rescore the events of ``sizes`` inside the caller's transaction (a registry import
    tries its changes this way and rolls them back to show what would move)."""
    limit = int(settings.get("batch_rows"))
    aliases = alias_map(con)
    total = 0
    for rs in rulesets.names():
        part = sizes.filter(pl.col("ruleset") == rs)
        # a chunk closes when adding the next event would pass the limit
        chunk_no = ((pl.col("hands").cum_sum() - pl.col("hands")) // max(1, limit)).alias("_chunk")
        for chunk in part.with_columns(chunk_no).partition_by("_chunk", maintain_order=True):
            total += _rescore_chunk(con, chunk.select("event"), rs, aliases)
    return total


def _rescore_chunk(
    con: duckdb.DuckDBPyConnection, events: pl.DataFrame, rs: str, aliases: dict[str, str]
) -> int:
    register(con, "_rescore_events", events)
    try:
        hands = frame(
            con.sql(
                'SELECT h.* FROM hands h JOIN match_versions v USING (event, round, "table", version) '
                "JOIN _rescore_events r ON r.event = h.event WHERE v.current"
            ),
            small=False,
        )
        hands = hands.with_columns(
            player_key(pl.col(f"player_{c}"), aliases).alias(f"key_{c}") for c in CHAIRS
        )
        hp, ts = score(hands, rs)
        con.execute("DELETE FROM hand_points_t WHERE event IN (SELECT event FROM _rescore_events)")
        con.execute(
            "DELETE FROM table_standings_t WHERE event IN (SELECT event FROM _rescore_events)"
        )
        insert_frame(con, "hand_points_t", hp)
        insert_frame(con, "table_standings_t", ts)
        insert_frame(
            con,
            "player_names",
            first_spellings(hands),
            "player_key, player",
            on_conflict="ON CONFLICT DO NOTHING",
        )
        con.execute(
            "UPDATE events SET params_hash = ?, models = ? WHERE event IN (SELECT event FROM _rescore_events)",
            [rulesets.load(rs).hash, rulesets.load(rs).models],
        )
    finally:
        con.unregister("_rescore_events")
    return hands.height


def rescore_stale(con: duckdb.DuckDBPyConnection) -> list[str]:
    stale = stale_events(con)
    if stale:
        rescore(con, stale)
    return stale
