"""A sheet against the current draw of its round (``domino draw``; view ``seatings``).

Only rounds with a draw are checked. Errors (the match stays out), each named by file,
line and column:

- ``draw_table``: a table label the draw does not have (once per match, column table);
- ``draw_round`` (a warning, the match loads): a round with no draw, first loaded, in an
  event that has drawn others (once per match, column round);
- ``draw_player``: a player the draw does not seat at that table (once per player);
- ``draw_chair``: a drawn player in another chair than the draw gives them in that hand
  (the first such hand per player). Hands the draw does not list (tie-break hands 11, 12 …)
  are not compared; a pepet draw's chairs hold for every hand. A rulebook whose points do
  not depend on chairs (``[draw] chairs = "warn"``: pepet) loads the match with a warning.

The draw already follows the ruleset's swap schedule, so for a match refused by
``draw_chair`` the ``swap_schedule`` warning would say the same thing a second time, more
weakly: :func:`without_echoes` leaves it out.

And one warning before a draw of the match's own event exists:

- ``draw_elsewhere`` (a warning, the match loads): a match of an event this load creates
  whose players are exactly those the current draw of another event seats at a table not
  loaded yet (once per match, column event): the event's id mistyped (``cupp`` for
  ``cup``) would put the table into a new event and leave the drawn one waiting. The
  upload page shows it before anything is saved.

And one after scoring, :func:`next_round_drawn`: a knockout table whose next round is
drawn with others than those who qualify from it in this version (a correction after the
next draw; :mod:`pipeline.draws.followed` says the same of the event until it is redrawn).

A drawn table missing from the upload is no problem: uploads may be partial, and the
next round's draw waits for every table anyway.
"""

from collections.abc import Collection
from typing import Any

import duckdb
import polars as pl

from pipeline import problems, rulesets
from pipeline.ingest.match import MATCH, seats_long
from pipeline.players import alias_map, player_key
from pipeline.store.db import for_events, frame, register

_SEATS = (
    's.event, s.round, s."table", s.hand, s.chair, s.player_key, s.player '
    "FROM draw_seats s JOIN draws_t d ON d.event = s.event AND d.round = s.round "
    "AND d.draw_no = s.draw_no"
)


def drawn_events(con: duckdb.DuckDBPyConnection, events: list[str]) -> list[str]:
    """The events of ``events`` that have a current draw, in one query (a rebuild's batch
    holds thousands of events, and most leagues draw few of them)."""
    if not events:
        return []
    found = for_events(
        con,
        "SELECT DISTINCT event FROM draws_t WHERE current "
        "AND event IN (SELECT event FROM _events) ORDER BY 1",
        events,
    )
    return [str(e) for e in found.get_column("event")]


def drawn_seats(
    con: duckdb.DuckDBPyConnection, keys: pl.DataFrame, events: list[str]
) -> pl.DataFrame:
    """Seats of the current draws of the ``event, round`` pairs in ``keys`` (one query per
    event of ``events``, those of ``keys`` that have a draw: :func:`drawn_events`)."""
    found = [
        frame(con.sql(f"SELECT {_SEATS} WHERE d.current AND s.event = ?", params=[event]))
        for event in events
    ]
    if not found:
        return pl.DataFrame()
    return pl.concat(found, how="vertical_relaxed").join(keys, on=["event", "round"], how="semi")


def against_draw(con: duckdb.DuckDBPyConnection, typed: pl.DataFrame) -> pl.DataFrame:
    """Problems of the rows whose round has a current draw, and a warning for a round not
    drawn in an event that draws its rounds."""
    rows = typed.filter(pl.all_horizontal(pl.col(c).is_not_null() for c in MATCH))
    if rows.height == 0:
        return problems.empty()
    keys = rows.select(pl.col("event").cast(pl.String), pl.col("round").cast(pl.String)).unique()
    events = drawn_events(con, keys.get_column("event").unique().to_list())
    if not events:  # nearly every load
        return problems.empty()
    undrawn = _undrawn_rounds(con, rows, events)
    drawn = drawn_seats(con, keys, events)
    if drawn.height == 0:
        return undrawn
    rows = rows.join(drawn.select("event", "round").unique(), on=["event", "round"], how="semi")
    tables = drawn.group_by("event", "round").agg(pl.col("table").unique().sort().alias("_tables"))
    stray = (
        rows.join(drawn.select(MATCH).unique(), on=MATCH, how="anti")
        .unique(MATCH, keep="first", maintain_order=True)
        .join(tables, on=["event", "round"])
    )
    found = [
        problems.from_rows(
            stray,
            column="table",
            code="draw_table",
            params={
                "table": pl.col("table"),
                "round": pl.col("round"),
                "tables": pl.col("_tables"),
            },
        )
    ]
    rows = rows.join(drawn.select(MATCH).unique(), on=MATCH, how="semi")
    at_table = drawn.group_by(MATCH).agg(
        pl.col("player_key").unique().alias("_keys"),
        pl.col("player").unique().sort().alias("_drawn"),
    )
    seats = _standing_for(con, rows, at_table)
    # a reserve is told how to record whom they play for, where the rulebook has reserves
    reserve = pl.when(pl.col("rs").is_in(rulesets.with_groups())).then(pl.lit("reserve"))
    wrong_player = (
        seats.join(at_table, on=MATCH)
        .filter(~pl.col("_for").is_in(pl.col("_keys")))
        .sort("_line", "_col")
        .unique([*MATCH, "player_key"], keep="first", maintain_order=True)
    )
    found.append(
        problems.from_rows(
            wrong_player,
            column=pl.col("_col"),
            code="draw_player",
            params={
                "player": pl.col("player"),
                "table": pl.col("table"),
                "round": pl.col("round"),
                "drawn": pl.col("_drawn"),
                "letter": pl.col("_chair").str.to_lowercase(),
            },
            variant=reserve,
        )
    )
    chairs = drawn.select(
        *MATCH,
        pl.col("player_key").alias("_for"),
        pl.col("player").alias("_member"),
        pl.col("hand").alias("_hand"),
        pl.col("chair").alias("_drawn_chair"),
    )
    wrong_chair = (
        seats.join(chairs, on=[*MATCH, "_for"])
        .filter(pl.col("_hand").is_null() | (pl.col("_hand") == pl.col("hand")))
        .filter(pl.col("_chair") != pl.col("_drawn_chair"))
        .sort("_line", "_col")
        .unique([*MATCH, "player_key"], keep="first", maintain_order=True)
    )
    params: dict[str, pl.Expr | str | int] = {
        "player": pl.col("player"),
        "chair": pl.col("_chair"),
        "hand": pl.col("hand"),
        "drawn": pl.col("_drawn_chair"),
        "member": pl.col("_member"),
    }
    # a rulebook whose points do not depend on chairs loads them as written ([draw] chairs)
    warned = pl.col("rs").is_in(rulesets.chairs_warned())
    found.append(
        problems.from_rows(
            wrong_chair.filter(~warned),
            column=pl.col("_col"),
            code="draw_chair",
            params=params,
            variant=pl.when(pl.col("_for") != pl.col("player_key")).then(pl.lit("reserve")),
        )
    )
    found.append(
        problems.from_rows(
            wrong_chair.filter(warned),
            column=pl.col("_col"),
            code="draw_chair",
            params=params,
            variant="warn",
            severity=problems.WARNING,
        )
    )
    return problems.concat([undrawn, *found])


def _standing_for(
    con: duckdb.DuckDBPyConnection, rows: pl.DataFrame, at_table: pl.DataFrame
) -> pl.DataFrame:
    """Each seat of ``rows`` with ``_chair`` and ``_for``: the drawn player the seat stands
    for. That is the seated player, except a reserve's seat (rule 23) in a rulebook with
    reserves: a player the draw does not seat at the table, whose chair's ``replaces_x``
    cell names a player it does seat there, stands for that member (and takes the chair
    the draw gives them)."""
    seats = seats_long(rows, [*MATCH, "hand", "_file", "_line", "rs"], replaces=True)
    seats = seats.with_columns(
        pl.col("_col").str.slice(-1).str.to_uppercase().alias("_chair"),
        pl.col("player_key").alias("_for"),
    )
    named = pl.col("replaces").is_not_null() & pl.col("rs").is_in(rulesets.with_groups())
    if not seats.select(named.any()).item():  # nearly every load: no reserve is written
        return seats.drop("replaces")
    replaced = player_key(pl.col("replaces"), alias_map(con))
    stands_in = (
        named & ~pl.col("player_key").is_in(pl.col("_keys")) & replaced.is_in(pl.col("_keys"))
    )
    return (
        seats.join(at_table.select(*MATCH, "_keys"), on=MATCH, how="left")
        .with_columns(pl.when(stands_in).then(replaced).otherwise(pl.col("_for")).alias("_for"))
        .drop("replaces", "_keys")
    )


def drawn_elsewhere(
    con: duckdb.DuckDBPyConnection, typed: pl.DataFrame, new: Collection[str]
) -> pl.DataFrame:
    """``draw_elsewhere`` (a warning, once per match, on its first row): a match of one of
    ``new`` (the events this load creates) seats exactly the players that the current draw
    of another event seats at one table, and that table is not loaded yet."""
    if not new:  # nearly every load
        return problems.empty()
    if not con.execute("SELECT 1 FROM draws_t WHERE current LIMIT 1").fetchall():
        return problems.empty()  # a store that draws nothing (a rebuild's first batch)
    rows = typed.filter(
        pl.col("event").is_in(list(new)) & pl.all_horizontal(pl.col(c).is_not_null() for c in MATCH)
    )
    if rows.height == 0:
        return problems.empty()
    seats = seats_long(rows, MATCH)
    register(con, "_keys", seats.select(pl.col("player_key").unique()))
    try:
        drawn = frame(con.sql(_DRAWN_WITH))
    finally:
        con.unregister("_keys")
    if drawn.height == 0:
        return problems.empty()

    def players(df: pl.DataFrame, by: list[str]) -> pl.DataFrame:
        return df.group_by(by).agg(
            pl.col("player_key").unique().sort().str.join("\x1f").alias("_players")
        )

    tables = players(drawn, ["event", "round", "table"]).select(
        "_players",
        pl.col("event").alias("_drawn_event"),
        pl.col("round").alias("_drawn_round"),
        pl.col("table").alias("_drawn_table"),
    )
    meant = (
        players(seats, MATCH)
        .join(tables, on="_players")
        .sort("_drawn_event", "_drawn_round", "_drawn_table")
        .unique(MATCH, keep="first")
    )
    return _warn_once_per_match(
        rows,
        meant,
        column="event",
        code="draw_elsewhere",
        params={
            "event": pl.col("event"),
            "drawn_event": pl.col("_drawn_event"),
            "round": pl.col("_drawn_round"),
            "table": pl.col("_drawn_table"),
        },
    )


#: Every player of the current draws' tables that seat one of ``_keys`` and that are not
#: loaded (or loaded and withdrawn): a whole table's players, to compare as a set.
_DRAWN_WITH = """
WITH cur AS (
    SELECT s.event, s.round, s."table", s.player_key
    FROM draw_seats s JOIN draws_t d
    ON d.event = s.event AND d.round = s.round AND d.draw_no = s.draw_no
    WHERE d.current
),
hit AS (
    SELECT DISTINCT event, round, "table" FROM cur
    WHERE player_key IN (SELECT player_key FROM _keys)
    AND NOT EXISTS (
        SELECT 1 FROM match_versions m
        WHERE m.event = cur.event AND m.round = cur.round AND m."table" = cur."table"
        AND m.current AND m.kind <> 'withdrawn'
    )
)
SELECT DISTINCT c.event, c.round, c."table", c.player_key
FROM cur c JOIN hit h ON h.event = c.event AND h.round = c.round AND h."table" = c."table"
"""


def next_round_drawn(
    con: duckdb.DuckDBPyConnection, candidates: pl.DataFrame, standings: pl.DataFrame
) -> pl.DataFrame:
    """``next_round_drawn`` (a warning, once per match, on its first row): a match of a
    knockout ruleset (unhas) whose next round is drawn already, and whose players seated in
    that draw are not the ones who qualify from it in this version (a correction made
    after the next round was drawn). The draw is not changed: it is said, so the jury
    sees it before a correction is saved or approved."""
    from pipeline.draws import followed
    from pipeline.draws import service as draws

    if candidates.height == 0:
        return problems.empty()
    knockout = [
        rs
        for rs in candidates.get_column("rs").unique().to_list()
        if draws.knockout(rulesets.load(rs))
    ]
    keys = candidates.filter(pl.col("rs").is_in(knockout)).select("event", "round").unique()
    pairs = followed.drawn_next(con, keys)
    if pairs.height == 0:  # nearly every load: its event draws nothing, or nothing yet
        return problems.empty()
    names = seats_long(candidates.join(pairs, on=["event", "round"], how="semi"), MATCH).unique(
        [*MATCH, "player_key"], keep="first", maintain_order=True
    )
    played = standings.join(candidates.select(MATCH).unique(), on=MATCH, how="semi").join(
        names.select(*MATCH, "player_key", "player"), on=[*MATCH, "player_key"], how="left"
    )
    moved = followed.not_following(played, pairs, followed.next_seats(con, pairs))
    return _warn_once_per_match(
        candidates,
        moved,
        column="table",
        code="next_round_drawn",
        params=followed.MOVED_PARAMS,
        variant=pl.when(pl.col("_tie")).then(pl.lit("tiebreak")),
    )


def _warn_once_per_match(rows: pl.DataFrame, found: pl.DataFrame, **problem: Any) -> pl.DataFrame:
    """A warning (:func:`pipeline.problems.from_rows`, ``problem`` its column, code,
    params and variant) on the first row in ``rows`` of each match in ``found``, whose
    columns the params may read."""
    first = rows.unique(MATCH, keep="first", maintain_order=True).join(found, on=MATCH)
    return problems.from_rows(first, severity=problems.WARNING, **problem)


def _undrawn_rounds(
    con: duckdb.DuckDBPyConnection, rows: pl.DataFrame, events: list[str]
) -> pl.DataFrame:
    """``draw_round`` (a warning, once per match): a round first loaded with no current
    draw in one of ``events`` (those that have drawn a round), most often a drawn round
    mistyped (``R2`` for ``R1``); a round seated by hand loads as it is."""
    known = pl.concat(
        [
            frame(
                con.sql(
                    "SELECT event, round, bool_or(drawn) AS drawn FROM ("
                    "SELECT event, round, true AS drawn FROM draws_t WHERE current AND event = ? "
                    "UNION ALL SELECT event, round, false FROM match_versions WHERE event = ? "
                    "GROUP BY event, round, \"table\" HAVING bool_or(current AND kind <> 'withdrawn')"
                    ") AS known GROUP BY event, round ORDER BY event, round",
                    params=[event, event],
                )
            )
            for event in events
        ],
        how="vertical_relaxed",
    )
    drawn = (
        known.filter(pl.col("drawn")).group_by("event").agg(pl.col("round").sort().alias("_drawn"))
    )
    stray = (
        rows.join(drawn, on="event")
        .join(known.select("event", "round"), on=["event", "round"], how="anti")
        .unique(MATCH, keep="first", maintain_order=True)
    )
    return problems.from_rows(
        stray,
        column="round",
        code="draw_round",
        severity=problems.WARNING,
        params={"round": pl.col("round"), "drawn": pl.col("_drawn")},
    )


def without_echoes(found: list[pl.DataFrame]) -> list[pl.DataFrame]:
    """``found`` without the ``swap_schedule`` warnings of the matches that ``draw_chair``
    or ``seating_changed`` refuses (each is the stronger statement of the same seating)."""
    every = problems.concat(found)
    if every.height == 0:
        return found
    refused = (
        every.filter(pl.col("code").is_in(["draw_chair", "seating_changed"])).select(MATCH).unique()
    )
    if refused.height == 0:
        return found
    every = every.with_row_index("_i")
    echoes = (
        every.filter(pl.col("code") == "swap_schedule")
        .join(refused, on=MATCH, how="semi")
        .get_column("_i")
    )
    return [every.filter(~pl.col("_i").is_in(echoes.implode())).drop("_i")]
