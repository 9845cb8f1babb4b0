"""Whether the current draws of an event still follow its roster and its results.

A draw is stored once (``domino draw``) and the data under it may change after: a roster
set again after its round was drawn, a correction of an unhas table that changes who
qualifies after the next round was drawn, a withdrawal of such a table. None of these
changes the draw (it is the record of who was told to sit where; the organiser draws the
round again, or the jury decides): each is said, with the players concerned, where it
happens (:func:`withdrawn_ahead`; the load's ``next_round_drawn`` warning in
:mod:`pipeline.ingest.drawcheck`) and, until the round is drawn again or played, by
``domino event show`` and the Organiser page (:func:`stale_draws`).
"""

import duckdb
import polars as pl

from pipeline import messages, problems, rulesets
from pipeline.draws import service as draws
from pipeline.ingest.drawcheck import drawn_seats
from pipeline.ingest.match import MATCH
from pipeline.standings import queries
from pipeline.store.db import for_events, frame


def knockout_event(con: duckdb.DuckDBPyConnection, event: str) -> bool | None:
    """Whether ``event`` plays a knockout ruleset (unhas: a round after the first is drawn
    from the qualifiers of the one before it); None for an event that does not exist."""
    found = con.execute("SELECT ruleset FROM events WHERE event = ?", [event]).fetchall()
    return draws.knockout(rulesets.load(str(found[0][0]))) if found else None


#: The sentence's parameters of a table :func:`not_following` returns.
MOVED_PARAMS: dict[str, pl.Expr | str | int] = {
    "round": pl.col("round"),
    "table": pl.col("table"),
    "next": pl.col("_next"),
    "seated": pl.col("_seated"),
    "qualified": pl.col("_qualified"),
}


def drawn_next(con: duckdb.DuckDBPyConnection, keys: pl.DataFrame) -> pl.DataFrame:
    """``event, round, _next`` of the ``event, round`` pairs in ``keys`` whose next round in
    the event's order has a current draw (none when no event of them draws)."""
    empty = pl.DataFrame(schema={"event": pl.String, "round": pl.String, "_next": pl.String})
    if keys.height == 0:
        return empty
    drawn = for_events(
        con,
        "SELECT DISTINCT event, round FROM draws_t WHERE current "
        "AND event IN (SELECT event FROM _events)",
        keys.get_column("event").unique().to_list(),
    )
    if drawn.height == 0:
        return empty
    current = set(drawn.select("event", "round").iter_rows())
    nexts = []
    for event, rnd in keys.join(drawn.select("event"), on="event", how="semi").iter_rows():
        order = draws.order_with(con, event, rnd)
        after = order[order.index(rnd) + 1 :]
        if after and (event, after[0]) in current:
            nexts.append((event, rnd, after[0]))
    return pl.DataFrame(nexts, schema=empty.schema, orient="row") if nexts else empty


def next_seats(con: duckdb.DuckDBPyConnection, pairs: pl.DataFrame) -> pl.DataFrame:
    """``event, round, _next, player_key, player``: each player the current draw of the
    next round (``pairs``: ``event, round, _next``, :func:`drawn_next`) seats, once."""
    seats = drawn_seats(
        con,
        pairs.select("event", pl.col("_next").alias("round")),
        pairs.get_column("event").unique().to_list(),
    )
    return (
        seats.select("event", pl.col("round").alias("_next"), "player_key", "player")
        .unique(["event", "_next", "player_key"])
        .join(pairs, on=["event", "_next"])
    )


def not_following(
    standings: pl.DataFrame, pairs: pl.DataFrame, ahead: pl.DataFrame
) -> pl.DataFrame:
    """Of the tables in ``standings`` (``event, round, table, player_key, player,
    qualified, needs_tiebreak``: every player of each), those whose players seated in the
    current draw of the next round (``pairs``: ``event, round, _next``; ``ahead``: its
    seats, :func:`next_seats`) are not the ones who qualify from it: ``event, round,
    table, _next, _seated, _qualified`` (names, in name order) and ``_tie`` (a tie-break
    decides who qualifies)."""
    seated = ahead.select("event", "round", "player_key", pl.lit(value=True).alias("_in"))
    return (
        standings.join(pairs, on=["event", "round"])
        .join(seated, on=["event", "round", "player_key"], how="left")
        .with_columns(pl.col("_in").fill_null(value=False))
        .sort("player")
        .group_by(MATCH)
        .agg(
            pl.col("_next").first(),
            pl.col("player").filter(pl.col("_in")).alias("_seated"),
            pl.col("player").filter(pl.col("qualified")).alias("_qualified"),
            pl.col("needs_tiebreak").any().alias("_tie"),
            (pl.col("_in") != pl.col("qualified")).any().alias("_moved"),
        )
        .filter(pl.col("_moved"))
        .drop("_moved")
    )


def stale_draws(con: duckdb.DuckDBPyConnection, event: str, lang: str = "en") -> list[str]:
    """What ``domino event show`` and the Organiser page say of ``event``'s current draws
    until each is drawn again: a round drawn from the roster as it was
    (:func:`roster_stale`), then each table whose players a knockout's next round seats
    are not the ones who qualify from it now (a correction or withdrawal after the draw),
    in round and table order."""
    knockout = knockout_event(con, event)  # the ruleset read once for both
    if knockout is None:
        return []
    return roster_stale(con, event, lang, knockout=knockout) + (
        _results_stale(con, event, lang) if knockout else []
    )


def _results_stale(con: duckdb.DuckDBPyConnection, event: str, lang: str) -> list[str]:
    """The second part of :func:`stale_draws` (a knockout event's): draws that no longer
    follow the results."""
    played = frame(
        con.sql(
            'SELECT event, round, "table", player_key, player, qualified, needs_tiebreak '
            "FROM table_standings WHERE event = ?",
            params=[event],
        )
    )
    pairs = drawn_next(con, played.select("event", "round").unique())
    if pairs.height == 0:
        return []
    ahead = next_seats(con, pairs)
    moved = not_following(played, pairs, ahead)
    # a table withdrawn after the draw: players it seats from the round before have no
    # result in that round now
    gone = ahead.join(played, on=["event", "round", "player_key"], how="anti")
    order = {r: i for i, r in enumerate(queries.rounds(con, event))}
    lines = [
        messages.render(
            messages.message_id("next_round_drawn", "tiebreak" if r["_tie"] else "now"),
            {
                "round": r["round"],
                "table": r["table"],
                "next": r["_next"],
                "seated": r["_seated"],
                "qualified": r["_qualified"],
            },
            lang,
        )
        for r in moved.sort(
            pl.col("round").replace_strict(order, default=len(order)), "table"
        ).iter_rows(named=True)
    ]
    for (before, after), group in gone.sort("player").group_by(["round", "_next"]):
        lines.append(
            messages.render(
                "next_round_drawn.unplaced",
                {"next": after, "round": before, "players": group.get_column("player").to_list()},
                lang,
            )
        )
    return lines


def roster_stale(
    con: duckdb.DuckDBPyConnection, event: str, lang: str = "en", *, knockout: bool | None = None
) -> list[str]:
    """A sentence for each round of ``event`` drawn from its roster (a knockout's first
    round, every session of a series) with nothing of it loaded yet, whose draw seats
    others than the roster now would (a roster set again after the draw): who is seated
    but no longer on it, who is on it but not seated. ``knockout``: the event's
    :func:`knockout_event`, where the caller has it."""
    current = draws.drawn_rounds(con, event)
    if knockout is None:
        knockout = knockout_event(con, event)
    if not current or knockout is None:
        return []
    loaded = {
        str(r[0])
        for r in con.execute(
            "SELECT DISTINCT round FROM match_versions WHERE event = ? AND current "
            "AND kind <> 'withdrawn'",
            [event],
        ).fetchall()
    }
    order = queries.rounds(con, event)
    if knockout:
        from_roster = [order[0]] if order and order[0] in current else []
    else:
        from_roster = [r for r in order if r in current]
    rounds = [r for r in from_roster if r not in loaded]
    if not rounds:
        return []
    roster = draws.to_seat(con, event)
    seats = drawn_seats(con, pl.DataFrame({"event": event, "round": rounds}), [event])
    lines = []
    for rnd in rounds:
        seated = (
            seats.filter(pl.col("round") == rnd).select("player_key", "player").unique("player_key")
        )
        gone = seated.join(roster, on="player_key", how="anti").get_column("player").sort()
        new = roster.join(seated, on="player_key", how="anti").get_column("player").sort()
        if gone.len() == 0 and new.len() == 0:
            continue
        variant = "both" if gone.len() and new.len() else "gone" if gone.len() else "new"
        lines.append(
            messages.render(
                messages.message_id("stale_roster", variant),
                {"round": rnd, "gone": gone.to_list(), "new": new.to_list()},
                lang,
            )
        )
    return lines


def withdrawn_ahead(
    con: duckdb.DuckDBPyConnection, event: str, round_: str, table: str, file: str
) -> pl.DataFrame:
    """``next_round_drawn.withdrawn`` (a warning): the match about to be withdrawn is of a
    knockout ruleset, and the next round's current draw seats players of it, whose
    qualification no longer counts once it is withdrawn."""
    if not knockout_event(con, event):
        return problems.empty()
    pairs = drawn_next(con, pl.DataFrame({"event": [event], "round": [round_]}))
    if pairs.height == 0:
        return problems.empty()
    players = frame(
        con.sql(
            'SELECT player_key FROM table_standings_t WHERE event = ? AND round = ? AND "table" = ?',
            params=[event, round_, table],
        )
    )
    seated = sorted(next_seats(con, pairs).join(players, on="player_key")["player"])
    if not seated:
        return problems.empty()
    params = {"next": pairs["_next"].item(), "seated": seated, "round": round_, "table": table}
    said = problems.warning(file, "next_round_drawn", params, variant="withdrawn")
    return problems.frame(
        [said | {"column": "table", "event": event, "round": round_, "table": table}]
    )
