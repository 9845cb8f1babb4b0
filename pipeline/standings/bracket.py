"""The road to the final: every round's tables, who went where, who left where, the podium.

Read side only (the dashboard's bracket page); the SQL is in ``bracket.sql`` and
``after_round.sql`` beside this module. Whether a table qualifies players, and so whether
the podium is the final table's ranks (a cup, unhas) or the event standings' first four
(a league, pepet: *Juara 1-4*), is the ruleset's ``[dashboard] qualification``.
"""

from functools import cache
from importlib import resources
from types import EllipsisType

import duckdb
import polars as pl

from pipeline import draws, rulesets
from pipeline.standings import queries
from pipeline.store.db import frame, register

PODIUM = 4  # places shown: 1-4 (RULES.md: unhas final table; pepet Juara 1-4)


@cache
def _sql(name: str) -> str:
    return (resources.files("pipeline.standings") / name).read_text(encoding="utf-8")


def road(
    con: duckdb.DuckDBPyConnection, event: str, *, final: str | None | EllipsisType = ...
) -> pl.DataFrame:
    """One row per player per table per round: ``round, round_no, table, player, points,
    tiebreak_points, rank, qualified, needs_tiebreak, complete, walkover, next_round,
    next_table, outcome, player_key``. ``outcome``: ``advanced`` (qualified and seated in
    the next round), ``qualified`` (next round not drawn yet), ``eliminated``, ``placed``
    (at the final table, :func:`final_round`: the match over, the place is the rank),
    ``playing`` (match in progress or a tie-break owed), ``drawn`` (seated, not played
    yet); a league without qualification: ``moved`` / ``played``. ``final``: the final
    round when the caller has worked it out already (:func:`final_state`)."""
    book = rulesets.load(queries.ruleset_of(con, event))
    order = queries.rounds(con, event)
    round_nos = pl.DataFrame(
        {"round": order, "round_no": list(range(1, len(order) + 1))},
        schema={"round": pl.String, "round_no": pl.Int32},
    )
    register(con, "_order", round_nos)
    try:
        df = frame(con.sql(_sql("bracket.sql"), params=[event, event, book.shows("qualification")]))
    finally:
        con.unregister("_order")
    # at the final table nobody goes on: a finished player has a place (its rank)
    if final is ...:
        final = final_round(con, event)
    if final is not None:
        df = df.with_columns(
            pl.when(
                (pl.col("round") == final) & pl.col("outcome").is_in(["qualified", "eliminated"])
            )
            .then(pl.lit("placed"))
            .otherwise(pl.col("outcome"))
            .alias("outcome")
        )
    number = pl.col("table").str.extract(r"(\d+)").cast(pl.Int64, strict=False)
    return df.sort(
        [pl.col("round_no"), number, pl.col("table"), pl.col("rank"), pl.col("player")],
        nulls_last=True,
    )


def podium(
    con: duckdb.DuckDBPyConnection, event: str, *, final: str | None | EllipsisType = ...
) -> pl.DataFrame:
    """``place, player, points, final``: places 1-4. A cup: the ranks at the final table
    (the last round, once it is a single table; ``final`` when that match is complete with
    no tie-break owed). A league: the event standings' first four, ``final`` once the
    event is finished (:func:`pipeline.league.unfinished`: every round of its order has
    results, among others); before, the standings so far. ``final`` as for :func:`road`."""
    book = rulesets.load(queries.ruleset_of(con, event))
    schema = {"place": pl.Int32, "player": pl.String, "points": pl.Int32, "final": pl.Boolean}
    if not book.shows("qualification"):
        from pipeline.league import unfinished

        ev = queries.standings(con, event, "event")
        over = unfinished(con, event) is None
        return ev.filter(pl.col("rank") <= PODIUM).select(
            pl.col("rank").cast(pl.Int32).alias("place"),
            "player",
            pl.col("points").cast(pl.Int32),
            pl.lit(value=over).alias("final"),
        )
    if final is ...:
        final = final_round(con, event)
    if not isinstance(final, str):
        return pl.DataFrame(schema=schema)
    last = queries.standings(con, event, "table", final)
    done = bool(last.get_column("complete").all()) and not last.get_column("needs_tiebreak").any()
    return last.filter(pl.col("rank") <= PODIUM).select(
        pl.col("rank").cast(pl.Int32).alias("place"),
        "player",
        pl.col("points").cast(pl.Int32),
        pl.lit(done).alias("final"),
    )


def played_tiebreak(table: pl.DataFrame) -> bool:
    """Whether a table's standings hold a tie-break hand's points: the road, the
    leaderboard and the results notice then show them, the points that put one of two
    players level on points ahead."""
    return bool(table.get_column("tiebreak_points").fill_null(0).abs().sum() > 0)


#: Why an event has no final table (:func:`final_state`): its last round has several
#: tables; it has one so far, but nothing says it stays the only one; not a cup, or no
#: round played.
SEVERAL_TABLES, MAY_GROW, NO_FINAL = "several_tables", "may_grow", "none"


def final_round(con: duckdb.DuckDBPyConnection, event: str) -> str | None:
    """The final of a cup (a rulebook that qualifies players from a table): its last round
    with results, once that round is one table and is known to stay one: its draw seats
    one table, else the round before it qualified at most one table's players (the
    rulebook's ``[draw] table_size``), else (a first round without a draw) its roster
    holds no more. A round with one table loaded so far may still get others (uploads
    come in table by table): None then, as for a league or a cup still on its way."""
    return final_state(con, event)[0]


def final_state(
    con: duckdb.DuckDBPyConnection, event: str, played: list[str] | None = None
) -> tuple[str | None, str]:
    """:func:`final_round`, and why there is none: ``(round, "final")``, or ``(None, why)``
    with ``why`` one of :data:`SEVERAL_TABLES`, :data:`MAY_GROW` (the last round has one
    table so far, and no draw, earlier round or roster says it stays one) and
    :data:`NO_FINAL` (a league, or nothing played). ``played``: the event's rounds with
    results (:func:`pipeline.standings.queries.rounds`), when the caller has them."""
    book = rulesets.load(queries.ruleset_of(con, event))
    if not book.shows("qualification"):
        return None, NO_FINAL
    if played is None:
        played = queries.rounds(con, event)
    if not played:
        return None, NO_FINAL
    seats = int(book.params.get("draw", {}).get("table_size", 4))  # one table's players
    last = played[-1]
    tables, before, entrants = con.execute(
        'SELECT (SELECT count(DISTINCT "table") FROM table_standings_t WHERE event = $e '
        "AND round = $r), "
        "(SELECT count(*) FROM table_standings_t WHERE event = $e AND round = $p AND qualified), "
        "(SELECT count(*) FROM entrants WHERE event = $e)",
        {"e": event, "r": last, "p": played[-2] if len(played) > 1 else None},
    ).fetchall()[0]
    if tables != 1:
        return None, SEVERAL_TABLES
    drawn = len(draws.drawn_tables(con, event, last))
    if drawn:
        one = drawn == 1
    elif len(played) > 1:
        one = 0 < before <= seats
    else:
        one = 0 < entrants <= seats
    return (last, "final") if one else (None, SEVERAL_TABLES if drawn else MAY_GROW)


def event_after(con: duckdb.DuckDBPyConnection, event: str, round: str) -> pl.DataFrame:
    """Event standings after ``round``: computed only over the rounds up to it in round
    order (``after_round.sql``), with the event standings' columns (the contract's, then
    the ruleset's own)."""
    book = rulesets.load(queries.ruleset_of(con, event))
    upto = _round_no(con, event, round)
    df = frame(con.sql(_sql("after_round.sql"), params=[event, upto]))
    return df.select(queries.CONTRACT["event"] + book.columns("event"))


def groups_after(con: duckdb.DuckDBPyConnection, event: str, round: str) -> pl.DataFrame:
    """Group (KG) standings after ``round`` (``groups_after_round.sql``)."""
    upto = _round_no(con, event, round)
    return frame(con.sql(_sql("groups_after_round.sql"), params=[event, upto]))


def _round_no(con: duckdb.DuckDBPyConnection, event: str, round: str) -> int:
    known = queries.rounds(con, event)
    if round not in known:
        raise queries.NotFound(
            f"event {event} has no round {round!r}; its rounds are {', '.join(known) or 'none yet'}"
        )
    return known.index(round) + 1
