"""Head-to-head: what two players' shared tables say about them.

The tables they shared (who finished ahead, points for and against) and who fed whom:
hands where one sat above the other as the other won (the `above` rows of
``hand_points``; RULES.md, unhas: the player above the winner pays). Pepet has no
`above` category, so its tables feed nobody.
"""

from dataclasses import dataclass
from importlib import resources

import duckdb
import polars as pl

from pipeline.standings.stats import WINNING
from pipeline.store.db import frame

_SQL = resources.files("pipeline.sql") / "reports"
# fixed category names from our own code, never user text
_WINNING = ", ".join(f"'{c}'" for c in WINNING)


@dataclass(frozen=True)
class HeadToHead:
    """Two players' record against each other (``a`` and ``b`` are player keys)."""

    a: str
    b: str
    tables: pl.DataFrame
    fed: pl.DataFrame

    def summary(self) -> dict[str, int]:
        """Counts: tables shared, ahead a / b / level, points for a and b, fed hands and points."""
        t, f = self.tables, self.fed
        fed_a = f.filter(pl.col("feeder") == "a")
        fed_b = f.filter(pl.col("feeder") == "b")
        return {
            "tables": t.height,
            "ahead_a": t.filter(pl.col("ahead") == "a").height,
            "ahead_b": t.filter(pl.col("ahead") == "b").height,
            "level": t.filter(pl.col("ahead") == "level").height,
            "points_a": int(t["points_a"].sum() or 0),
            "points_b": int(t["points_b"].sum() or 0),
            "a_fed_b": fed_a.height,
            "a_fed_b_points": int(fed_a["feeder_points"].sum() or 0),
            "b_fed_a": fed_b.height,
            "b_fed_a_points": int(fed_b["feeder_points"].sum() or 0),
        }


def shared_tables(con: duckdb.DuckDBPyConnection, a: str, b: str) -> pl.DataFrame:
    """The tables players ``a`` and ``b`` (keys) sat at together, in play order."""
    return frame(con.sql((_SQL / "h2h_tables.sql").read_text(), params={"a": a, "b": b}))


def fed(con: duckdb.DuckDBPyConnection, a: str, b: str) -> pl.DataFrame:
    """Hands where one of ``a`` and ``b`` was the `above` of the other's win."""
    sql = (_SQL / "h2h_fed.sql").read_text().replace("{winning}", _WINNING)
    return frame(con.sql(sql, params={"a": a, "b": b}))


def head_to_head(con: duckdb.DuckDBPyConnection, a: str, b: str) -> HeadToHead:
    return HeadToHead(a, b, shared_tables(con, a, b), fed(con, a, b))
