"""Substitutes (RULES.md, pepet rule 23) as a sheet records them: warnings, never a refusal.

A registered reserve (``league_players.reserve_for``) may play for an absent member of
the group they are a reserve of, and the match record names whom they replace: the
optional columns ``replaces_a`` … ``replaces_d`` (``ganti_a`` …), kept with the hand's
extra columns. The points are the reserve's own and count for their group whatever the
cell says, so nothing here changes a result; what a wrong record would hide is said, once
per match and chair, at the first row that shows it (file, line, column):

- ``replaces.unknown``: the replaced member is no registered player (closest names given);
- ``replaces.not_reserve``: the player in the chair is not a registered reserve;
- ``replaces.other_group``: the replaced player is not a member of the reserve's group
  on the event's date (the registry over time, as ``event_members`` reads it);
- ``replaces.playing``: the replaced player plays in the same round (this load or loaded
  before), so was not absent;
- ``replaces.missing``: a registered reserve plays and neither the sheet nor the event's
  roster (``entrants.replaces``, ``domino event roster``) says whom for.

Only events whose rulebook has group standings (``levels`` holding ``group``) are
checked, and only against their league's registry. A load with no ``replaces`` cell and
a registry without reserves costs one small query.
"""

from datetime import date

import duckdb
import polars as pl

from pipeline import problems, rulesets
from pipeline.ingest.columns import CHAIRS
from pipeline.ingest.match import MATCH, seats_long
from pipeline.ingest.resolve import event_leagues, league_column
from pipeline.players import alias_map, player_key, registered_like
from pipeline.store.db import for_events, frame, register

_SEAT = ["_file", "_line", *MATCH, "_league", "_chair", "player", "player_key", "replaces"]


def check(con: duckdb.DuckDBPyConnection, typed: pl.DataFrame) -> pl.DataFrame:
    """The substitute warnings of ``typed`` (hand rows with ``key_a`` … ``key_d``)."""
    grouped = rulesets.with_groups()
    rows = typed.filter(pl.col("rs").is_in(grouped) & pl.col("event").is_not_null())
    if rows.height == 0:
        return problems.empty()
    says = pl.col("extra").str.contains("replaces_", literal=True).fill_null(value=False)
    writes = bool(rows.select(says.any()).item())
    # a reserve who is also a member of a group may play in their own right: not asked
    # whom they replace (event_members counts them as the member)
    reserves = frame(
        con.sql(
            "SELECT lp.league AS _league, lp.player_key, lp.reserve_for FROM league_players lp "
            "WHERE lp.reserve_for IS NOT NULL AND NOT EXISTS (SELECT 1 FROM memberships m "
            "WHERE m.league = lp.league AND m.player_key = lp.player_key)"
        )
    )
    if not writes and reserves.height == 0:  # nearly every load
        return problems.empty()
    # only the rows that seat a reserve or write a replaces cell are looked at
    keys = reserves.get_column("player_key").unique().implode()
    seated = rows  # every seat of the load, for who plays in a round
    rows = rows.filter(pl.any_horizontal(pl.col(f"key_{c}").is_in(keys) for c in CHAIRS) | says)
    if rows.height == 0:
        return problems.empty()
    events = rows.get_column("event").unique().sort().to_list()
    leagues = event_leagues(con, events)
    seats = _seats(rows.with_columns(league_column(leagues)))
    found = [_missing(con, seats, reserves, events)]
    named = seats.filter(pl.col("replaces").is_not_null())
    if named.height:
        registry = frame(
            con.sql("SELECT league AS _league, player_key, player FROM league_players")
        )
        aliases = alias_map(con)
        named = named.with_columns(
            player_key(pl.col("replaces"), aliases).alias("replaced_key")
        ).unique(["_file", *MATCH, "_chair"], keep="first", maintain_order=True)
        registered = registry.select("_league", pl.col("player_key").alias("replaced_key"))
        known = named.join(registered, on=["_league", "replaced_key"], how="semi")
        unknown = named.join(registered, on=["_league", "replaced_key"], how="anti")
        found.append(_unknown(unknown, registry))
        found.append(_not_reserve(known, reserves))
        found.append(_other_group(con, known, reserves, events))
        found.append(_playing(con, known, seated))
    return problems.concat(found)


def _seats(rows: pl.DataFrame) -> pl.DataFrame:
    """One row per seated chair per hand row, with the chair's ``replaces`` cell (null where
    none is written; a dash is none, as in a contract column): :data:`_SEAT`."""
    base = [c for c in _SEAT if c not in ("_chair", "player", "player_key", "replaces")]
    return seats_long(rows, base, replaces=True).select(
        *base,
        pl.col("_col").str.slice(-1).str.to_uppercase().alias("_chair"),
        "player",
        "player_key",
        "replaces",
    )


def _first(seats: pl.DataFrame) -> pl.DataFrame:
    """The first row of each match's chair and player (a pepet player keeps a chair)."""
    return seats.sort("_file", "_line").unique(
        ["_file", *MATCH, "_chair", "player_key"], keep="first", maintain_order=True
    )


def _warn(
    rows: pl.DataFrame,
    column: pl.Expr,
    kind: str,
    params: dict[str, pl.Expr],
    none: pl.Expr | None = None,
) -> pl.DataFrame:
    """Problems of code ``replaces``, variant ``kind`` (``kind.none`` where ``none``)."""
    variant = pl.lit(kind)
    if none is not None:
        variant = pl.when(none).then(pl.lit(f"{kind}.none")).otherwise(variant)
    return problems.from_rows(
        rows,
        column=column,
        code="replaces",
        params={"player": pl.col("player"), "chair": pl.col("_chair"), **params},
        variant=variant,
        severity=problems.WARNING,
    )


_REPLACES_COLUMN = pl.format("replaces_{}", pl.col("_chair").str.to_lowercase())
_PLAYER_COLUMN = pl.format("player_{}", pl.col("_chair").str.to_lowercase())


def _on_roster(con: duckdb.DuckDBPyConnection, events: list[str]) -> pl.DataFrame:
    """``event, player_key`` of the reserves whose roster row names whom they replace."""
    return for_events(
        con,
        "SELECT event, player_key FROM entrants WHERE replaces IS NOT NULL "
        "AND event IN (SELECT event FROM _events)",
        events,
    )


def _missing(
    con: duckdb.DuckDBPyConnection, seats: pl.DataFrame, reserves: pl.DataFrame, events: list[str]
) -> pl.DataFrame:
    """A registered reserve seated in a match with no ``replaces`` cell for their chair,
    and no roster row saying whom they play for."""
    if reserves.height == 0:
        return problems.empty()
    on_roster = _on_roster(con, events)
    said = seats.filter(pl.col("replaces").is_not_null()).select(
        "_file", *MATCH, "_chair", "player_key"
    )
    silent = (
        _first(seats.join(reserves, on=["_league", "player_key"], how="semi"))
        .join(said, on=["_file", *MATCH, "_chair", "player_key"], how="anti")
        .join(on_roster, on=["event", "player_key"], how="anti")
        .join(reserves, on=["_league", "player_key"], how="left")
    )
    return _warn(
        silent,
        _PLAYER_COLUMN,
        "missing",
        {"group": pl.col("reserve_for"), "letter": pl.col("_chair").str.to_lowercase()},
    )


def _unknown(named: pl.DataFrame, registry: pl.DataFrame) -> pl.DataFrame:
    if named.height == 0:
        return problems.empty()
    names = registry.get_column("player").unique().sort().to_list()
    close = registered_like(named.get_column("replaces"), names, cutoff=0.6)
    named = named.with_columns(close.alias("_close"))
    return _warn(
        named,
        _REPLACES_COLUMN,
        "unknown",
        {"name": pl.col("replaces"), "names": pl.col("_close")},
        pl.col("_close") == "",
    )


def _not_reserve(known: pl.DataFrame, reserves: pl.DataFrame) -> pl.DataFrame:
    rows = known.join(reserves, on=["_league", "player_key"], how="anti")
    return _warn(rows, _REPLACES_COLUMN, "not_reserve", {"name": pl.col("replaces")})


def _other_group(
    con: duckdb.DuckDBPyConnection,
    known: pl.DataFrame,
    reserves: pl.DataFrame,
    events: list[str],
) -> pl.DataFrame:
    """The replaced player's group on the event's date is not the reserve's."""
    rows = known.join(reserves, on=["_league", "player_key"], how="inner")
    if rows.height == 0:
        return problems.empty()
    dates = _event_dates(con, events)
    asked = (
        rows.select("_league", pl.col("replaced_key").alias("player_key"), "event")
        .unique()
        .join(dates, on="event", how="left")
        .with_columns(pl.col("on_date").fill_null(date.today()))
    )
    register(con, "_subs_asked", asked)
    try:
        # the membership in force on the event's date, as the view event_members reads it
        groups = frame(
            con.sql(
                'SELECT a.event, a.player_key AS replaced_key, m."group" AS member_of, '
                "row_number() OVER (PARTITION BY a.event, a.player_key "
                "ORDER BY m.valid_from DESC NULLS LAST) AS pick "
                "FROM _subs_asked a JOIN memberships m ON m.league = a._league "
                "AND m.player_key = a.player_key "
                "WHERE m.valid_from IS NULL OR m.valid_from <= a.on_date"
            )
        ).filter(pl.col("pick") == 1)
    finally:
        con.unregister("_subs_asked")
    wrong = rows.join(groups.drop("pick"), on=["event", "replaced_key"], how="left").filter(
        pl.col("member_of").is_null() | (pl.col("member_of") != pl.col("reserve_for"))
    )
    return _warn(
        wrong,
        _REPLACES_COLUMN,
        "other_group",
        {
            "name": pl.col("replaces"),
            "group": pl.col("reserve_for"),
            "other": pl.col("member_of").fill_null("-"),
        },
        pl.col("member_of").is_null(),
    )


def _event_dates(con: duckdb.DuckDBPyConnection, events: list[str]) -> pl.DataFrame:
    """``event, on_date``: the day each event is played (the day it was created where it
    has no date), as the view ``event_members`` reads it."""
    return for_events(
        con,
        "SELECT event, coalesce(event_date, CAST(created_at AS DATE)) AS on_date "
        "FROM events WHERE event IN (SELECT event FROM _events)",
        events,
    ).cast({"on_date": pl.Date})


def _playing(
    con: duckdb.DuckDBPyConnection, known: pl.DataFrame, rows: pl.DataFrame
) -> pl.DataFrame:
    """The replaced player plays in the same round: at a table of this load, or at
    another table loaded before (a table this load writes again is read from the load)."""
    asked = known.select("event", "round", pl.col("replaced_key").alias("player_key")).unique()
    here_cols = ["event", "round", "table"]
    here = (
        pl.concat([rows.select(*here_cols, pl.col(f"key_{c}").alias("player_key")) for c in CHAIRS])
        .drop_nulls("player_key")
        .unique()
    )
    register(con, "_subs_asked", asked)
    try:
        before = frame(
            con.sql(
                'SELECT t.event, t.round, t."table", t.player_key FROM table_standings_t t '
                "JOIN _subs_asked a ON a.event = t.event AND a.round = t.round "
                "AND a.player_key = t.player_key"
            )
        )
    finally:
        con.unregister("_subs_asked")
    reloaded = rows.select(here_cols).unique()
    before = before.join(reloaded, on=here_cols, how="anti")
    where = (
        pl.concat([here, before.select(here.columns)], how="vertical_relaxed")
        .join(asked, on=["event", "round", "player_key"], how="semi")
        .group_by("event", "round", pl.col("player_key").alias("replaced_key"))
        .agg(pl.col("table").unique().sort().str.join(", ").alias("at"))
    )
    hit = known.join(where, on=["event", "round", "replaced_key"], how="inner")
    return _warn(hit, _REPLACES_COLUMN, "playing", {"name": pl.col("replaces"), "at": pl.col("at")})
