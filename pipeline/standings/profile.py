"""A player's profile across events: ratings and their history, recent form, results per
round, achievements; and the rating leaderboard with its filters.

Read side only: the ratings themselves are kept by :mod:`pipeline.ratings`. Each
achievement is one SQL file in ``pipeline/sql/achievements/`` (its name is its code),
all returning ``player_key, season, event, round, table, hand, played_on, count``.
"""

from datetime import date
from importlib import resources

import duckdb
import polars as pl

from pipeline import settings
from pipeline.standings import crosstable
from pipeline.store.db import frame

_SQL = resources.files("pipeline.sql")
ACHIEVEMENTS = tuple(
    sorted(
        p.name.removesuffix(".sql")
        for p in (_SQL / "achievements").iterdir()
        if p.name.endswith(".sql")
    )
)
_FAR_PAST, _FAR_FUTURE = date(1, 1, 1), date(9999, 12, 31)


def ratings(con: duckdb.DuckDBPyConnection, key: str) -> pl.DataFrame:
    """The player's current rating on each ladder, with ``provisional``."""
    n = int(settings.get("provisional_matches"))
    return (
        con.sql(
            "SELECT ruleset, ordinal, mu, sigma, matches, last_played FROM ratings "
            "WHERE player_key = ? ORDER BY matches DESC, ruleset",
            params=[key],
        )
        .pl()
        .with_columns((pl.col("matches") < n).alias("provisional"))
    )


def rating_history(con: duckdb.DuckDBPyConnection, key: str) -> pl.DataFrame:
    """The player's rating after each rated table, in play order, per ladder."""
    return frame(
        con.sql(
            'SELECT ruleset, seq, played_on, event, round, "table", rank, ordinal, mu, sigma, '
            "change, matches FROM rating_history WHERE player_key = ? ORDER BY ruleset, seq",
            params=[key],
        )
    )


def form(con: duckdb.DuckDBPyConnection, key: str, n: int | None = None) -> pl.DataFrame:
    """The player's last ``n`` tables (setting ``form_matches``), newest first: place,
    players at the table, points and the rating change that table brought."""
    n = int(settings.get("form_matches")) if n is None else n
    return con.sql(
        "WITH mine AS ("
        '  SELECT t.event, t.round, t."table", t.rank, t.points, t.walkover, r.round_no, '
        "         coalesce(e.event_date, CAST(e.created_at AS DATE)) AS played_on, e.ruleset "
        "  FROM table_standings_t t JOIN events e ON e.event = t.event "
        "  JOIN rounds r ON r.event = t.event AND r.round = t.round WHERE t.player_key = ?), "
        'seated AS (SELECT t.event, t.round, t."table", count(*) AS players '
        "  FROM table_standings_t t JOIN mine m ON m.event = t.event AND m.round = t.round "
        '  AND m."table" = t."table" GROUP BY t.event, t.round, t."table") '
        'SELECT m.played_on, m.event, m.round, m."table", m.rank, '
        "CAST(s.players AS INTEGER) AS players, m.points, h.change "
        "FROM mine m JOIN seated s ON s.event = m.event AND s.round = m.round "
        'AND s."table" = m."table" '
        "LEFT JOIN rating_history h ON h.player_key = ? AND h.ruleset = m.ruleset "
        'AND h.event = m.event AND h.round = m.round AND h."table" = m."table" '
        'ORDER BY m.played_on DESC, m.event DESC, m.round_no DESC, m."table" DESC LIMIT ?',
        params=[key, key, n],
    ).pl()


def rounds_of(con: duckdb.DuckDBPyConnection, key: str, event: str) -> pl.DataFrame:
    """The player's line of the event's cross-table: each round's table, points, place at
    the table, total so far and event rank after the round."""
    return crosstable.long(con, event).filter(pl.col("player_key") == key)


def achievements(con: duckdb.DuckDBPyConnection, key: str) -> pl.DataFrame:
    """Every achievement the player holds: one row per time it was earned, ``code`` first."""
    frames = [
        con.sql((_SQL / "achievements" / f"{code}.sql").read_text(), params={"player": key})
        .pl()
        .with_columns(pl.lit(code).alias("code"))
        for code in ACHIEVEMENTS
    ]
    held = [f for f in frames if f.height]
    if not held:
        return pl.DataFrame(schema={"code": pl.String, "event": pl.String, "count": pl.Int32})
    out = pl.concat(held, how="vertical_relaxed")
    return out.select("code", pl.exclude("code")).sort("code", "played_on", nulls_last=True)


def rating_board(
    con: duckdb.DuckDBPyConnection,
    ruleset: str,
    *,
    level: str | None = None,
    since: date | None = None,
    until: date | None = None,
    group: str | None = None,
) -> pl.DataFrame:
    """The ladder's ratings as they stood at the end of the period, of the players who
    played a rated table in it (at events of ``level``, members of ``group``), best first;
    ``provisional`` below the setting ``provisional_matches``."""
    n = int(settings.get("provisional_matches"))
    return (
        con.sql(
            (_SQL / "reports" / "rating_board.sql").read_text(),
            params={
                "ruleset": ruleset,
                "level": level,
                "since": since or _FAR_PAST,
                "until": until or _FAR_FUTURE,
                "grp": group,
            },
        )
        .pl()
        .with_columns((pl.col("matches") < n).alias("provisional"))
    )


def ladders(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [
        r for (r,) in con.execute("SELECT DISTINCT ruleset FROM ratings_t ORDER BY 1").fetchall()
    ]


def levels(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = con.execute("SELECT DISTINCT level FROM events WHERE level IS NOT NULL ORDER BY 1")
    return [r for (r,) in rows.fetchall()]


def groups(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = con.execute('SELECT DISTINCT "group" FROM players WHERE "group" IS NOT NULL ORDER BY 1')
    return [r for (r,) in rows.fetchall()]
