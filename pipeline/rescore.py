"""Re-derive every score of loaded events from their stored hands.

Needed when what scores depend on changes: the ruleset file's values (organisers edit
``pipeline/rulesets/*.toml``) or the player registry (aliases merge spellings). Write
commands call :func:`rescore_stale` so a changed ruleset file takes effect by itself.
"""

import duckdb
import polars as pl

from pipeline import rulesets
from pipeline.io.columns import CHAIRS
from pipeline.load import alias_map, first_spellings, player_key
from pipeline.score import score
from pipeline.store.db import insert_frame


def stale_events(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = con.execute("SELECT event, ruleset, params_hash FROM events").fetchall()
    return [e for e, rs, h in rows if rulesets.load(rs).hash != h]


def rescore(con: duckdb.DuckDBPyConnection, events: list[str] | None = None) -> int:
    """Rescore ``events`` (all when None); returns the number of hands scored."""
    rows = con.execute("SELECT event, ruleset FROM events").fetchall()
    targets = [(e, rs) for e, rs in rows if events is None or e in events]
    aliases = alias_map(con)
    total = 0
    con.execute("BEGIN TRANSACTION")
    try:
        for event, rs in targets:
            hands = con.sql(
                'SELECT h.* FROM hands h JOIN match_versions v USING (event, round, "table", version) '
                "WHERE v.current AND h.event = ?",
                params=[event],
            ).pl()
            hands = hands.with_columns(
                player_key(pl.col(f"player_{c}"), aliases).alias(f"key_{c}") for c in CHAIRS
            )
            hp, ts = score(hands, rs)
            con.execute("DELETE FROM hand_points_t WHERE event = ?", [event])
            con.execute("DELETE FROM table_standings_t WHERE event = ?", [event])
            insert_frame(con, "hand_points_t", hp)
            insert_frame(con, "table_standings_t", ts)
            insert_frame(con, "player_names", first_spellings(hands), "player_key, player", on_conflict="ON CONFLICT DO NOTHING")
            con.execute(
                "UPDATE events SET params_hash = ? WHERE event = ?", [rulesets.load(rs).hash, event]
            )
            total += hands.height
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return total


def rescore_stale(con: duckdb.DuckDBPyConnection) -> list[str]:
    stale = stale_events(con)
    if stale:
        rescore(con, stale)
    return stale
