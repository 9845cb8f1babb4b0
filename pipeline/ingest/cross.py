"""Checks across matches: a player at two tables, rows without a match, tie-break seating, session shape."""

import duckdb
import polars as pl

from pipeline import problems, rulesets
from pipeline.ingest.columns import CHAIRS
from pipeline.ingest.match import FEW, MATCH, SEAT_COLUMNS, match_filter, seats_long
from pipeline.store.db import frame, register


def two_tables(con: duckdb.DuckDBPyConnection, typed: pl.DataFrame) -> pl.DataFrame:
    """One player at two tables of one round: both matches out (in one batch), or the new one."""
    # only the columns used here are copied (the typed rows have about sixty)
    rows = typed.select(*MATCH, "_file", "_line", *SEAT_COLUMNS).filter(
        pl.col("event").is_not_null()
        & pl.col("round").is_not_null()
        & pl.col("table").is_not_null()
    )
    if rows.height == 0:
        return problems.empty()
    who = ["event", "round", "player_key"]
    loaded = loaded_seats(con, rows.select("event", "round").unique())
    if loaded.height:
        batch_tables = rows.select(MATCH).unique()
        loaded = loaded.join(
            batch_tables.rename({"table": "loaded_table"}),
            on=["event", "round", "loaded_table"],
            how="anti",
        )
    # Nearly always nobody sits at two tables: the players who do are found by counting
    # each one's distinct tables (one grouping of the chairs' keys, no seat rows built),
    # and each match's first seat is looked for only for them and for the players of
    # loaded tables of these rounds (a whole batch's seats, kept in order for the first
    # one, cost 0.45 s per 500,000 rows; building them at all, 0.1 s).
    twice = (
        pl.concat(
            [rows.lazy().select(*MATCH, pl.col(f"key_{c}").alias("player_key")) for c in CHAIRS]
        )
        .drop_nulls("player_key")
        .group_by(who)
        .agg(pl.col("table").n_unique().alias("_tables"))
        .filter(pl.col("_tables") > 1)
        .select(who)
        .collect()
    )
    wanted = pl.concat([twice, loaded.select(who)]).unique()
    if wanted.height == 0:
        return problems.empty()
    seats = seats_long(rows, [*MATCH, "_file", "_line"])
    seats = seats.join(wanted, on=who, how="semi", maintain_order="left")
    first = seats.unique([*MATCH, "player_key"], keep="first", maintain_order=True)
    tables = first.group_by(who).agg(pl.col("table").unique().sort().alias("tables"))
    clash = first.join(tables.filter(pl.col("tables").list.len() > 1), on=who)
    found = [
        problems.from_rows(
            clash,
            column=pl.col("_col"),
            code="player_two_tables",
            params={
                "player": pl.col("player"),
                "tables": pl.col("tables"),
                "round": pl.col("round"),
            },
            variant="upload",
        )
    ]
    if loaded.height:
        clash2 = first.join(loaded, on=who).filter(pl.col("table") != pl.col("loaded_table"))
        found.append(
            problems.from_rows(
                clash2,
                column=pl.col("_col"),
                code="player_two_tables",
                params={
                    "player": pl.col("player"),
                    "table": pl.col("loaded_table"),
                    "round": pl.col("round"),
                },
                variant="loaded",
            )
        )
    return problems.concat(found)


def keyless_rows(typed: pl.DataFrame) -> pl.DataFrame:
    """A row that does not say its event, round or table may be a hand of any match of its
    file that agrees on the rest: those matches stay out too, so none loads without it."""
    has = [pl.col(c).is_not_null() for c in MATCH]
    orphans = typed.filter(~pl.all_horizontal(has))
    if orphans.height == 0:
        return problems.empty()
    keyed = typed.filter(pl.all_horizontal(has)).select("_file", *MATCH).unique()
    hits = (
        orphans.select("_file", "_line", *[pl.col(c).alias(f"_{c}") for c in MATCH])
        .join(keyed, on="_file")
        .filter(
            pl.all_horizontal(
                pl.col(f"_{c}").is_null() | (pl.col(f"_{c}") == pl.col(c)) for c in MATCH
            )
        )
    )
    missing = (
        pl.when(pl.col("_event").is_null())
        .then(pl.lit("event"))
        .when(pl.col("_round").is_null())
        .then(pl.lit("round"))
        .otherwise(pl.lit("table"))
    )
    return problems.from_rows(
        hits,
        column=missing,
        code="row_without_match",
        params={"line": pl.col("_line"), "round": pl.col("round"), "table": pl.col("table")},
        variant=missing,
    )


def loaded_seats(con: duckdb.DuckDBPyConnection, keys: pl.DataFrame) -> pl.DataFrame:
    if keys.height <= FEW:
        where, params = match_filter(keys.rows(named=True), ["event", "round"])
        return frame(
            con.sql(
                'SELECT event, round, "table" AS loaded_table, player_key '
                f"FROM table_standings_t WHERE {where or 'false'}",
                params=params,
            )
        )
    register(con, "_keys", keys)
    try:
        return frame(
            con.sql(
                'SELECT t.event, t.round, t."table" AS loaded_table, t.player_key '
                "FROM table_standings_t t JOIN _keys k ON t.event = k.event AND t.round = k.round"
            )
        )
    finally:
        con.unregister("_keys")


def tiebreak_matches(part: pl.DataFrame, book: rulesets.Ruleset) -> pl.DataFrame:
    """The matches of ``part`` with hands after the regular ones (``MATCH`` columns)."""
    return part.filter(pl.col("hand") > int(book["regular_hands"])).select(MATCH).unique()


def regular_totals(hp: pl.DataFrame) -> pl.DataFrame:
    """Each player's points over a match's regular hands (+ all sanctions), before any
    tie-break game points: ``MATCH, player_key, points``. Tied on the regular hands only:
    a tie-break hand's own points or sanctions must not untie the players it was played
    between."""
    return (
        hp.filter(~pl.col("tiebreak")).group_by([*MATCH, "player_key"]).agg(pl.col("points").sum())
    )


def tiebreak_check(
    part: pl.DataFrame, totals: pl.DataFrame, book: rulesets.Ruleset
) -> pl.DataFrame:
    """Hands after the regular ones may seat only players tied on their regular totals
    (``totals``, :func:`regular_totals` of at least the matches that have such hands)."""
    regular = int(book["regular_hands"])
    extra = part.filter(pl.col("hand") > regular)
    if extra.height == 0:
        return problems.empty()
    groups = totals.with_columns(pl.len().over([*MATCH, "points"]).alias("tied"))
    seats = seats_long(extra, [*MATCH, "hand", "_file", "_line"]).join(
        groups, on=[*MATCH, "player_key"], how="left"
    )
    per_hand = seats.group_by([*MATCH, "hand", "_file", "_line"]).agg(
        (pl.col("tied").fill_null(1) > 1).all().alias("all_tied"),
        pl.col("points").n_unique().alias("groups"),
        pl.col("player").str.join(", ").alias("players"),
        pl.col("tied").max().alias("max_tied"),
    )
    regular_count = (
        part.filter(pl.col("hand") <= regular).group_by(MATCH).agg(pl.len().alias("n_regular"))
    )
    per_hand = per_hand.join(regular_count, on=MATCH, how="left")
    bad = per_hand.filter(~pl.col("all_tied") | (pl.col("groups") > 1))
    return problems.from_rows(
        bad,
        column="hand",
        code="tiebreak_not_tied",
        params={"regular": regular, "hand": pl.col("hand"), "players": pl.col("players")},
        variant=pl.when(pl.col("max_tied").fill_null(1) <= 1).then(pl.lit("regular")),
    )


def session_shape(
    con: duckdb.DuckDBPyConnection, part: pl.DataFrame, book: rulesets.Ruleset
) -> pl.DataFrame:
    """Warn when a session has more tables than ``session_tables`` or a table seats other
    than ``players_per_table`` players (RULES.md, session shape). A session still missing
    tables is not warned about: it is in progress."""
    if part.height == 0:
        return problems.empty()
    want_p, want_t = int(book["session_players"]), int(book["session_tables"])
    per_table = int(book["players_per_table"])
    seats = seats_long(part, MATCH).select(*MATCH, "player_key")
    keys = part.select("event", "round").unique()
    loaded = loaded_seats(con, keys).rename({"loaded_table": "table"}).select(*MATCH, "player_key")
    loaded = loaded.join(part.select(MATCH).unique(), on=MATCH, how="anti")
    tables = (
        pl.concat([seats, loaded])
        .group_by(MATCH)
        .agg(pl.col("player_key").n_unique().alias("players"))
    )
    sessions = tables.group_by("event", "round").agg(pl.len().alias("tables"))
    # each table's and each session's first row in the files' order: the line a warning
    # names is the same in every run
    first = part.select(*MATCH, "_file", "_line").unique(MATCH, keep="first", maintain_order=True)
    shape = {"want_p": want_p, "want_t": want_t, "per_table": per_table}
    too_many = first.unique(["event", "round"], keep="first", maintain_order=True).join(
        sessions.filter(pl.col("tables") > want_t), on=["event", "round"]
    )
    odd = first.join(tables.filter(pl.col("players") != per_table), on=MATCH)
    return problems.concat(
        [
            problems.from_rows(
                too_many,
                column="round",
                code="session_shape",
                severity=problems.WARNING,
                params={"round": pl.col("round"), "tables": pl.col("tables"), **shape},
                variant="tables",
            ),
            problems.from_rows(
                odd,
                column="table",
                code="session_shape",
                severity=problems.WARNING,
                params={
                    "table": pl.col("table"),
                    "round": pl.col("round"),
                    "players": pl.col("players"),
                    **shape,
                },
                variant="players",
            ),
        ]
    )
