"""Statistics for the dashboard's Player and Event pages: parameterised SQL on the public views.

Conventions: only the current version of each match counts (the views already hold only
current versions; the ``hands`` table is joined to ``match_versions`` where it is read).
Points totals leave tie-break hands out, as standings do; category counts include them
(a hand won is a hand won).
"""

from typing import Any

import duckdb
import polars as pl

from pipeline import rulesets
from pipeline.ingest.match import written
from pipeline.store.db import frame, register

#: Categories that win a hand (unhas: the catcher wins too; pepet: first place).
WINNING = ("apollo", "ceki", "kandang", "biasa", "tangkap", "jawara1", "gaple")


def category_order(ruleset: str) -> list[str]:
    """A ruleset's hand categories in the order its rulebook lists them."""
    return rulesets.load(ruleset).categories


def ending_order(ruleset: str) -> list[str]:
    """A ruleset's endings in the order its rulebook lists them."""
    return rulesets.load(ruleset).endings


_WIN_LIST = "(" + ", ".join(f"'{c}'" for c in WINNING) + ")"

_CURRENT_HANDS = 'SELECT h.* FROM hands h JOIN match_versions v USING (event, round, "table", version) WHERE v.current'


def data_stamp(con: duckdb.DuckDBPyConnection) -> tuple[Any, ...]:
    """What the dashboard's cache is keyed on: the ingest counter (``data_version``) plus
    what changes scores without an ingest — a registry import, a rescore with changed
    ruleset values, an event moved into another league (its groups) or given another
    date (the membership in force, the ratings' play order) — and what an organiser
    changes that pages show (an event's title, level and venue, a draw, the round order,
    a roster, an advance). One cheap query."""
    # each part a one-row table joined to the others: as scalar subqueries of one SELECT
    # the optimiser's work grew with every part (4 ms for 7 parts, 23 ms for 11)
    return tuple(
        con.execute(
            "SELECT i.newest, i.done, e.said, d.n, r.n, r.newest, a.n, o.said, en.n, en.newest, ad.n FROM "
            "(SELECT coalesce(max(ingest_id), 0) AS newest, count(finished_at) AS done FROM ingests) i, "
            "(SELECT coalesce(string_agg(event || ':' || params_hash || ':' || coalesce(title, '') "
            "|| ':' || coalesce(league, '') || ':' || coalesce(CAST(event_date AS VARCHAR), '') "
            "|| ':' || coalesce(level, '') || ':' || coalesce(venue, ''), ',' ORDER BY event), '') "
            "AS said FROM events) e, "
            "(SELECT count(*) + count(cancelled_at) AS n FROM draws_t) d, "
            "(SELECT count(*) AS n, max(imported_at) AS newest FROM registry) r, "
            "(SELECT count(*) AS n FROM aliases) a, "
            "(SELECT coalesce(string_agg(event || ':' || round || ':' || CAST(position AS VARCHAR), "
            "',' ORDER BY event, position), '') AS said FROM event_rounds) o, "
            "(SELECT count(*) AS n, max(added_at) AS newest FROM entrants) en, "
            "(SELECT count(*) AS n FROM advancements) ad"
        ).fetchall()[0]
    )


# --- players ---------------------------------------------------------------------------------


def players(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every player who has played, with their group and how much they played."""
    return frame(
        con.sql(
            'SELECT p.player_key, p.player, p."group", p.city, '
            "count(DISTINCT t.event)::INTEGER AS events, coalesce(sum(t.hands), 0)::INTEGER AS hands "
            "FROM players p JOIN table_standings_t t USING (player_key) "
            'GROUP BY p.player_key, p.player, p."group", p.city ORDER BY lower(p.player), p.player_key'
        )
    )


def find_players(people: pl.DataFrame, text: str) -> list[str]:
    """Of ``people`` (:func:`players`), the keys of those whose name or key contains
    ``text`` in any case: a whole name first (an address carries a player's name), then
    those who played most, then by name. What a person typed to find a player."""
    needle = text.strip().lower()
    if not needle:
        return []
    name = pl.col("player").str.to_lowercase()
    key = pl.col("player_key").str.to_lowercase()
    return (
        people.filter(
            name.str.contains(needle, literal=True) | key.str.contains(needle, literal=True)
        )
        .sort(
            [(name == needle) | (key == needle), "hands", name, "player_key"],
            descending=[True, True, False, False],
        )
        .get_column("player_key")
        .to_list()
    )


def player_events(con: duckdb.DuckDBPyConnection, key: str) -> pl.DataFrame:
    """Per event: matches, hands, points, points per hand, rank in the event."""
    return frame(
        con.sql(
            "WITH m AS ("
            "  SELECT t.event, count(*)::INTEGER AS matches, sum(t.hands)::INTEGER AS hands, "
            "         sum(t.points)::INTEGER AS points, sum(t.wins)::INTEGER AS wins "
            "  FROM table_standings_t t WHERE t.player_key = ? GROUP BY ALL) "
            "SELECT m.event, e.ruleset, m.matches, m.hands, m.points, "
            "       round(m.points / nullif(m.hands, 0), 2)::DOUBLE AS points_per_hand, m.wins, s.rank "
            "FROM m JOIN events e USING (event) "
            "LEFT JOIN event_standings s ON s.event = m.event AND s.player_key = ? "
            "ORDER BY e.created_at, m.event",
            params=[key, key],
        )
    )


def player_matches(con: duckdb.DuckDBPyConnection, key: str) -> pl.DataFrame:
    """Every match the player played: round, table, points, rank, qualified, walkover."""
    return frame(
        con.sql(
            'SELECT t.event, t.round, t."table", t.points, t.rank, t.qualified, t.needs_tiebreak, '
            "t.hands, t.wins, t.walkover "
            "FROM table_standings_t t JOIN events e USING (event) JOIN rounds r USING (event, round) "
            'WHERE t.player_key = ? ORDER BY e.created_at, t.event, r.round_no, t."table"',
            params=[key],
        )
    )


def player_categories(con: duckdb.DuckDBPyConnection, key: str) -> pl.DataFrame:
    """Hands per category (every hand, tie-breaks included) and the points they brought."""
    return frame(
        con.sql(
            "SELECT e.ruleset, h.category, count(*)::INTEGER AS hands, "
            "sum(h.points) FILTER (WHERE NOT h.tiebreak)::INTEGER AS points "
            "FROM hand_points_t h JOIN events e USING (event) WHERE h.player_key = ? "
            "GROUP BY ALL ORDER BY e.ruleset, hands DESC, h.category",
            params=[key],
        )
    )


def player_fed(con: duckdb.DuckDBPyConnection, key: str) -> pl.DataFrame:
    """Whom the player fed: hands where they were the player above a winner ('above'),
    per winner, with the points it cost them (unhas)."""
    return frame(
        con.sql(
            "SELECT w.player_key AS winner_key, p.player AS winner, count(*)::INTEGER AS times, "
            "sum(a.points)::INTEGER AS points_lost, "
            "string_agg(DISTINCT w.category, ', ' ORDER BY w.category) AS categories "
            "FROM hand_points_t a "
            'JOIN hand_points_t w ON w.event = a.event AND w.round = a.round AND w."table" = a."table" '
            f"  AND w.hand = a.hand AND w.category IN {_WIN_LIST} AND w.player_key <> a.player_key "
            "JOIN players p ON p.player_key = w.player_key "
            "WHERE a.player_key = ? AND a.category = 'above' "
            "GROUP BY ALL ORDER BY times DESC, points_lost, winner",
            params=[key],
        )
    )


def player_chairs(con: duckdb.DuckDBPyConnection, key: str) -> pl.DataFrame:
    """Results by chair: hands, hands won, points, points per hand (regular hands)."""
    return frame(
        con.sql(
            "SELECT upper(h.chair) AS chair, count(*)::INTEGER AS hands, "
            f"count(*) FILTER (WHERE h.category IN {_WIN_LIST})::INTEGER AS wins, "
            "sum(h.points)::INTEGER AS points, round(avg(h.points), 2)::DOUBLE AS points_per_hand "
            "FROM hand_points_t h WHERE h.player_key = ? AND NOT h.tiebreak "
            "GROUP BY ALL ORDER BY chair",
            params=[key],
        )
    )


def player_timeline(con: duckdb.DuckDBPyConnection, key: str) -> pl.DataFrame:
    """Points hand by hand in playing order (event, round, hand), with the running total
    per event; ``n`` numbers the player's hands across all events."""
    return frame(
        con.sql(
            'SELECT h.event, h.round, h."table", h.hand, h.category, h.points, '
            "sum(h.points) OVER (PARTITION BY h.event ORDER BY r.round_no, h.hand "
            "  ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)::INTEGER AS cumulative, "
            "row_number() OVER (ORDER BY e.created_at, h.event, r.round_no, h.hand)::INTEGER AS n "
            "FROM hand_points_t h JOIN events e USING (event) JOIN rounds r USING (event, round) "
            "WHERE h.player_key = ? AND NOT h.tiebreak ORDER BY n",
            params=[key],
        )
    )


# --- events ----------------------------------------------------------------------------------


def endings(con: duckdb.DuckDBPyConnection, event: str) -> pl.DataFrame:
    """How the hands of an event ended: hands played per ending and their share. A
    walkover is not a hand played (its row has no hand number): it is counted apart, as
    the summaries' ``walkover(s)``. Tie-break hands are hands played. The total is the
    summaries' ``hands``."""
    return frame(
        con.sql(
            f"WITH h AS ({_CURRENT_HANDS} AND h.event = ? AND h.hand IS NOT NULL) "
            "SELECT ending, count(*)::INTEGER AS hands, "
            "round(count(*) / sum(count(*)) OVER (), 4)::DOUBLE AS share "
            "FROM h GROUP BY ending ORDER BY hands DESC, ending",
            params=[event],
        )
    )


def categories(con: duckdb.DuckDBPyConnection, event: str) -> pl.DataFrame:
    """Seats per category: how often each category was given, its share of seated hands,
    and the points it carried."""
    return frame(
        con.sql(
            "SELECT category, count(*)::INTEGER AS seats, "
            "round(count(*) / sum(count(*)) OVER (), 4)::DOUBLE AS share, "
            "sum(points)::INTEGER AS points "
            "FROM hand_points_t WHERE event = ? GROUP BY category ORDER BY seats DESC, category",
            params=[event],
        )
    )


def pips_left(con: duckdb.DuckDBPyConnection, event: str) -> pl.DataFrame:
    """Value left in each seated hand where it was recorded (0 for the player who went out)."""
    return frame(
        con.sql(
            'SELECT round, "table", hand, chair, category, value FROM hand_points_t '
            'WHERE event = ? AND value IS NOT NULL ORDER BY round, "table", hand, chair',
            params=[event],
        )
    )


def hand_points_spread(con: duckdb.DuckDBPyConnection, event: str) -> pl.DataFrame:
    """How many seated hands earned each number of points: every hand played, tie-break
    hands included, so the chart counts the same seats as the categories table."""
    return frame(
        con.sql(
            "SELECT points, count(*)::INTEGER AS seats FROM hand_points_t "
            "WHERE event = ? GROUP BY points ORDER BY points",
            params=[event],
        )
    )


def match_points(con: duckdb.DuckDBPyConnection, event: str) -> pl.DataFrame:
    """Each player's total in each match (for the distribution of match totals)."""
    return frame(
        con.sql(
            'SELECT round, "table", player_key, points FROM table_standings_t '
            'WHERE event = ? AND NOT walkover ORDER BY round, "table", points DESC',
            params=[event],
        )
    )


def table_summary(con: duckdb.DuckDBPyConnection, event: str) -> pl.DataFrame:
    """One row per match: players, hands played (tie-break hands included, a walkover
    none), complete, walkover, tie-break needed, the leader."""
    return con.sql(
        f'WITH n AS (SELECT round, "table", count(*) AS hands FROM ({_CURRENT_HANDS} AND h.event = ? '
        'AND h.hand IS NOT NULL) GROUP BY round, "table") '
        'SELECT t.round, t."table", count(*)::INTEGER AS players, coalesce(any_value(n.hands), 0)::INTEGER AS hands, '
        "bool_and(t.complete) AS complete, bool_or(t.walkover) AS walkover, "
        "bool_or(t.needs_tiebreak) AS needs_tiebreak, "
        "string_agg(p.player, ', ' ORDER BY p.player) FILTER (WHERE t.rank = 1) AS leader, "
        "max(t.points)::INTEGER AS top_points, min(t.points)::INTEGER AS bottom_points, "
        "v.version, v.loaded_at "
        "FROM table_standings_t t JOIN players p USING (player_key) "
        'JOIN match_versions v ON v.event = t.event AND v.round = t.round AND v."table" = t."table" AND v.current '
        "JOIN rounds r ON r.event = t.event AND r.round = t.round "
        'LEFT JOIN n ON n.round = t.round AND n."table" = t."table" '
        'WHERE t.event = ? GROUP BY t.round, t."table", v.version, v.loaded_at, r.round_no '
        'ORDER BY r.round_no, try_cast(t."table" AS INTEGER) NULLS LAST, t."table"',
        params=[event, event],
    ).pl()


def round_summary(con: duckdb.DuckDBPyConnection, event: str) -> pl.DataFrame:
    """One row per round (session): tables, players, hands played (tie-break hands
    included, walkovers not), complete tables, walkovers, and the most frequent ending."""
    return frame(
        con.sql(
            'WITH m AS (SELECT round, "table", max(match_hands) AS hands, bool_and(complete) AS complete, '
            "  bool_or(walkover) AS walkover, count(*) AS players FROM table_standings_t WHERE event = ? GROUP BY ALL), "
            f"h AS ({_CURRENT_HANDS} AND h.event = ? AND h.hand IS NOT NULL), "
            "e AS (SELECT round, ending AS common_ending, row_number() OVER (PARTITION BY round ORDER BY count(*) DESC, ending) AS k "
            "  FROM h GROUP BY round, ending), "
            "n AS (SELECT round, count(*) AS hands FROM h GROUP BY round) "
            "SELECT m.round, count(*)::INTEGER AS tables, sum(m.players)::INTEGER AS players, "
            "coalesce(any_value(n.hands), 0)::INTEGER AS hands, count(*) FILTER (WHERE m.complete)::INTEGER AS complete, "
            "count(*) FILTER (WHERE m.walkover)::INTEGER AS walkovers, any_value(e.common_ending) AS common_ending "
            "FROM m JOIN rounds r ON r.event = ? AND r.round = m.round LEFT JOIN e ON e.round = m.round AND e.k = 1 "
            "LEFT JOIN n ON n.round = m.round "
            "GROUP BY m.round, r.round_no ORDER BY r.round_no",
            params=[event, event, event],
        )
    )


def point_table(ruleset: str) -> tuple[pl.DataFrame, bool]:
    """The ruleset's point table as the organiser's file sets it, and whether those values
    are still the project's defaults (``points_are_default``, pepet)."""
    rs = rulesets.load(ruleset)
    pts = rs.params.get("points", {})
    rows: list[dict[str, Any]] = []
    for cat, v in pts.items():
        if isinstance(v, dict):
            rows.append({"category": cat, "winner": v.get("winner"), "loser": v.get("loser")})
        else:
            rows.append({"category": cat, "points": v})
    return pl.DataFrame(rows), bool(rs.params.get("points_are_default", False))


# --- uploads ---------------------------------------------------------------------------------

#: The fields of a hand a correction can change, as a referee wrote them.
DIFF_FIELDS = [
    *[f"player_{c}" for c in "abcd"],
    "ended_by",
    "ending",
    "last_tile",
    *[f"pips_{c}" for c in "abcd"],
    *[f"tiles_{c}" for c in "abcd"],
    *[f"sanctions_{c}" for c in "abcd"],
    "note",
]
DROPPED = "(dropped)"
ADDED = "(added)"


#: Extra columns a change of which is a change of the match (whom a reserve replaced)
WRITTEN_FIELDS = [f"replaces_{c}" for c in "abcd"]


def _long(hands: pl.DataFrame, side: str) -> pl.DataFrame:
    cols = [c for c in DIFF_FIELDS if c in hands.columns]
    said = [written(c).alias(f"replaces_{c}") for c in "abcd"] if "extra" in hands.columns else []
    return hands.select(
        pl.col("hand").cast(pl.Int64), *[pl.col(c).cast(pl.String) for c in cols], *said
    ).unpivot(
        index="hand",
        on=cols + (WRITTEN_FIELDS if said else []),
        variable_name="field",
        value_name=side,
    )


def hand_diff(loaded: pl.DataFrame, new: pl.DataFrame) -> pl.DataFrame:
    """The difference between the loaded version of one match and a new one, hand by hand:
    ``hand, field, loaded, new`` for every field that differs; a hand only in the loaded
    version is one row with field ``(dropped)``, a hand only in the new one ``(added)``.
    (A walkover row has no hand number; it compares as hand 0.)"""
    schema = {"hand": pl.Int64, "field": pl.String, "loaded": pl.String, "new": pl.String}
    if loaded.height == 0 and new.height == 0:
        return pl.DataFrame(schema=schema)
    loaded = loaded.with_columns(pl.col("hand").fill_null(0))
    new = new.with_columns(pl.col("hand").fill_null(0))
    old_hands = set(loaded.get_column("hand").to_list())
    new_hands = set(new.get_column("hand").to_list())
    order = {f: i for i, f in enumerate(DIFF_FIELDS + WRITTEN_FIELDS)}
    both = (
        _long(loaded.filter(pl.col("hand").is_in(list(new_hands))), "loaded")
        .join(
            _long(new.filter(pl.col("hand").is_in(list(old_hands))), "new"),
            on=["hand", "field"],
            how="full",
            coalesce=True,
        )
        .filter(
            pl.col("loaded").ne_missing(pl.col("new"))
            # names match case-insensitively (as the loader keys them)
            & ~(
                pl.col("field").str.starts_with("player_")
                & pl.col("loaded").str.to_lowercase().eq_missing(pl.col("new").str.to_lowercase())
            )
        )
        .with_columns(pl.col("field").replace_strict(order, default=len(order)).alias("_o"))
    )
    gone = pl.DataFrame(
        {"hand": sorted(old_hands - new_hands)}, schema={"hand": pl.Int64}
    ).with_columns(
        pl.lit(DROPPED).alias("field"),
        pl.lit(None, dtype=pl.String).alias("loaded"),
        pl.lit(None, dtype=pl.String).alias("new"),
        pl.lit(-1).alias("_o"),
    )
    came = pl.DataFrame(
        {"hand": sorted(new_hands - old_hands)}, schema={"hand": pl.Int64}
    ).with_columns(
        pl.lit(ADDED).alias("field"),
        pl.lit(None, dtype=pl.String).alias("loaded"),
        pl.lit(None, dtype=pl.String).alias("new"),
        pl.lit(-1).alias("_o"),
    )
    return (
        pl.concat(
            [both.cast({"_o": pl.Int64}), gone.cast({"_o": pl.Int64}), came.cast({"_o": pl.Int64})],
            how="vertical_relaxed",
        )
        .sort("hand", "_o")
        .select(list(schema))
    )


def points_change(
    con: duckdb.DuckDBPyConnection,
    event: str,
    round: str,
    table: str,
    new: pl.DataFrame,
    names: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Each player's points in one match before and after a correction:
    ``player_key, player, rank_before, before, rank_after, after`` — the loaded table
    standings (``table_standings_t``) beside ``new`` (the correction's table standings of
    that match: ``player_key, points, rank``). A player only on one side has nulls on the
    other. A player new to the match (a substitute, or every player of a withdrawn match
    brought back) is shown as ``names`` says (the upload's :func:`display_names`), not by
    a bare key."""
    old = frame(
        con.sql(
            "SELECT t.player_key, p.player, t.rank AS rank_before, t.points AS before "
            "FROM table_standings_t t LEFT JOIN players p USING (player_key) "
            'WHERE t.event = ? AND t.round = ? AND t."table" = ?',
            params=[event, round, table],
        )
    )
    after = new.select(
        pl.col("player_key"),
        pl.col("rank").cast(pl.Int32).alias("rank_after"),
        pl.col("points").cast(pl.Int32).alias("after"),
    )
    both = old.with_columns(
        pl.col("rank_before").cast(pl.Int32), pl.col("before").cast(pl.Int32)
    ).join(after, on="player_key", how="full", coalesce=True)
    if names is not None:
        shown = names.select("player_key", pl.col("player").alias("_shown"))
        both = both.join(shown, on="player_key", how="left").with_columns(
            pl.col("player").fill_null(pl.col("_shown"))
        )
    return (
        both.with_columns(pl.col("player").fill_null(pl.col("player_key")))
        .sort(pl.coalesce("rank_after", "rank_before"), "player")
        .select("player_key", "player", "rank_before", "before", "rank_after", "after")
    )


def display_names(con: duckdb.DuckDBPyConnection, names: pl.DataFrame) -> pl.DataFrame:
    """``player_key, player`` for an upload preview: how each player is already shown
    (registry spelling, else the first spelling loaded), else the spelling in the file."""
    if names.height == 0:
        return names
    register(con, "_preview_names", names.select("player_key", "player"))
    try:
        return frame(
            con.sql(
                "SELECT n.player_key, coalesce(p.player, n.player) AS player "
                "FROM _preview_names n LEFT JOIN players p USING (player_key)"
            )
        )
    finally:
        con.unregister("_preview_names")
