"""Drawing a round (``domino draw`` and the organiser page): what the database says about
the event, the seating from :mod:`pipeline.draws.seating`, and the stored draw.

How to seat is the ruleset's ``[draw]`` table (docs/rulesets.md): ``method = "knockout"``
(a first round from the roster, later rounds from the qualifiers of the round before) or
``"series"`` (every session from the roster, opponents rotated); ``table_size``;
``small_tables`` (tables of one fewer where the count demands); ``swaps`` (who sits in
each chair in each regular hand). A refusal is a :class:`DrawRefused`: a message code and
its parameters (pipeline/messages).
"""

import random
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import duckdb
import polars as pl

from pipeline import events, messages, rulesets
from pipeline import rounds as round_order
from pipeline.draws import seating
from pipeline.store.db import frame, insert_frame


class DrawRefused(messages.Refused):
    """A round that cannot be drawn now (message id ``draw_<code>``), in one sentence."""

    def __init__(self, code: str, params: dict[str, Any] | None = None) -> None:
        self.code = code
        super().__init__(f"draw_{code}", params)


@dataclass
class Draw:
    event: str
    round: str
    draw_no: int
    seed: int
    seats: pl.DataFrame  # table, hand, chair, player_key, player
    tables: list[dict[str, str]] = field(default_factory=list)  # chair → player, per table


def _rules(book: rulesets.Ruleset) -> dict[str, Any]:
    rules = dict(book.params.get("draw", {}))
    rules.setdefault("method", "knockout")
    rules.setdefault("table_size", 4)
    rules.setdefault("small_tables", True)
    rules.setdefault("swaps", [])
    return rules


def knockout(book: rulesets.Ruleset) -> bool:
    """Whether the ruleset draws a round after the first from the qualifiers of the round
    before it (unhas), not from the roster (a pepet series)."""
    return _rules(book)["method"] == "knockout"


def schedule(book: rulesets.Ruleset) -> list[tuple[int, int, str]]:
    """The ruleset's swap schedule as ``(first hand, last hand, chairs)``."""
    return seating.swap_schedule(book.params)


def order_with(con: duckdb.DuckDBPyConnection, event: str, label: str) -> list[str]:
    """The event's rounds in order, ``label`` placed among them if it is new."""
    known = [
        r[0]
        for r in con.execute(
            "SELECT round FROM rounds WHERE event = ? ORDER BY round_no", [event]
        ).fetchall()
    ]
    if label in known:
        return known
    own = round_order.organiser_order(con, event)
    rest = round_order.in_order([r for r in known if r not in own] + [label])
    return [r for r in own if r in known] + rest


def draw_round(
    con: duckdb.DuckDBPyConnection,
    event: str,
    label: str,
    *,
    seed: int | None = None,
    reason: str | None = None,
    by: str | None = None,
) -> Draw:
    """Draw ``label`` of ``event`` and store it as the round's current draw."""
    # every row fetched: a result left open would refuse the connection's next ``sql()``
    found = con.execute("SELECT ruleset FROM events WHERE event = ?", [event]).fetchall()
    if not found:
        raise DrawRefused("no_event", {"event": event})
    book = rulesets.load(str(found[0][0]))
    rules = _rules(book)
    label = label.strip()
    if not label:  # it would be drawn as a round without a name, in every round picker
        raise DrawRefused("no_round", {"event": event})
    if _loaded(con, event, label):
        raise DrawRefused("has_results", {"round": label})
    before = con.execute(
        "SELECT coalesce(max(draw_no), 0), count(*) FILTER (WHERE current) FROM draws_t "
        "WHERE event = ? AND round = ?",
        [event, label],
    ).fetchall()[0]
    draw_no = int(before[0]) + 1
    if before[1] and not (reason or "").strip():  # a cancelled draw is not redrawn
        raise DrawRefused("needs_reason", {"round": label})
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    rng = random.Random(seed)
    order = order_with(con, event, label)
    previous = order[: order.index(label)]
    # the registry of the event's league on its date, for the players on its roster
    registry = events.event_groups(con, event, entrants=True)
    groups = _groups(con, event, registry)
    met = seating.met_pairs(_earlier_tables(con, event, [r for r in order if r != label]))
    size, small = int(rules["table_size"]), bool(rules["small_tables"])
    try:
        if rules["method"] == "knockout" and previous:
            quals = _qualifiers(con, event, previous[-1])
            tables = seating.next_round(quals, groups, met, rng, size=size)
        else:
            players = _entrants(con, event)
            _refuse_unregistered(con, event, players, registry)
            if rules["method"] == "series":
                tables = seating.session(players, groups, met, rng, size=size, small=small)
            else:
                tables = seating.first_round(players, groups, rng, size=size, small=small)
    except seating.CannotSeat as exc:
        # a rulebook of tables of 4 only (pepet) seats a multiple of 4, not 1, 2 or 5 short
        code = "cannot_seat" if small or rules["method"] == "knockout" else "cannot_seat.fours"
        raise DrawRefused(code, {"count": exc.count, "round": label}) from exc
    seated = seating.chairs_by_lot(tables, rng)
    seats = _seat_rows(con, seated, schedule(book))
    _store(con, event, label, draw_no, seed, reason, by, seats)
    return Draw(event, label, draw_no, seed, seats, seated)


def to_seat(con: duckdb.DuckDBPyConnection, event: str) -> pl.DataFrame:
    """``player_key, player`` of the entrants a draw from the roster seats, in key order:
    the roster, but a member a reserve of the roster plays for (its ``replaces``, rule 23)
    sits out, the reserve in their place."""
    return frame(
        con.sql(
            "SELECT player_key, player FROM entrants WHERE event = ? AND player_key NOT IN ("
            "SELECT replaces FROM entrants WHERE event = ? AND replaces IS NOT NULL) "
            "ORDER BY player_key",
            params=[event, event],
        )
    )


def _entrants(con: duckdb.DuckDBPyConnection, event: str) -> list[str]:
    """The keys of :func:`to_seat`; refused when the roster is empty."""
    keys = to_seat(con, event).get_column("player_key").to_list()
    if not keys:
        raise DrawRefused("no_roster", {"event": event})
    return [str(k) for k in keys]


def _refuse_unregistered(
    con: duckdb.DuckDBPyConnection, event: str, keys: list[str], registry: pl.DataFrame
) -> None:
    """Entrants outside the registry of a league whose loads reject such names (a registry
    imported after the roster without them, the event moved to another league): seated,
    their table's result would be rejected after it was played."""
    league = events.checked_league(con, event)
    if league is None:
        return
    keyed = pl.DataFrame({"player_key": keys}, schema={"player_key": pl.String})
    outside = events.unregistered(keyed, registry)
    if outside.height:
        shown = dict(
            con.execute(
                "SELECT player_key, player FROM entrants WHERE event = ?", [event]
            ).fetchall()
        )
        names = sorted(str(shown.get(k, k)) for k in outside.get_column("player_key"))
        raise DrawRefused(
            "unregistered",
            {"event": event, "league": league, "n": len(names), "player_list": names},
        )


def _groups(
    con: duckdb.DuckDBPyConnection, event: str, registry: pl.DataFrame
) -> dict[str, str | None]:
    """Each player's group: the roster's, else the one in force on the event's date in its
    league's registry, else for a registered reserve the group they are a reserve of (rule
    23: they play for it); another league's registry, or a later membership, is not read."""
    groups: dict[str, str | None] = {}
    for column in ("reserve_for", "group"):
        known = registry.filter(pl.col(column).is_not_null())
        groups.update(zip(known["player_key"].to_list(), known[column].to_list(), strict=True))
    rows = con.execute(
        'SELECT player_key, "group" FROM entrants WHERE event = ? AND "group" IS NOT NULL',
        [event],
    ).fetchall()
    groups.update({str(k): str(g) for k, g in rows})
    # one group however its name is written (``KG Tallo``, ``kg  tallo``): kept apart as
    # one, under the first spelling met (the registry's before a roster's)
    spelling: dict[str, str] = {}
    for g in groups.values():
        if g:
            spelling.setdefault(" ".join(g.casefold().split()), g)
    return {k: spelling[" ".join(g.casefold().split())] if g else g for k, g in groups.items()}


def _earlier_tables(
    con: duckdb.DuckDBPyConnection, event: str, others: list[str]
) -> list[list[str]]:
    """The tables of the event's other rounds: as drawn where a round has a current draw,
    else as played."""
    drawn = con.execute(
        'SELECT s.round, s."table", s.player_key FROM draw_seats s JOIN draws_t d '
        "ON d.event = s.event AND d.round = s.round AND d.draw_no = s.draw_no "
        "WHERE d.current AND s.event = ?",
        [event],
    ).fetchall()
    played = con.execute(
        'SELECT round, "table", player_key FROM table_standings_t WHERE event = ?', [event]
    ).fetchall()
    by_table: dict[tuple[str, str], set[str]] = {}
    drawn_rounds = {r for r, _, _ in drawn}
    for r, t, k in drawn:
        if r in others:
            by_table.setdefault((r, t), set()).add(k)
    for r, t, k in played:
        if r in others and r not in drawn_rounds:
            by_table.setdefault((r, t), set()).add(k)
    return [sorted(v) for _, v in sorted(by_table.items())]


def _qualifiers(con: duckdb.DuckDBPyConnection, event: str, prev: str) -> list[list[str]]:
    """The qualifiers of each table of round ``prev``, table by table; refused while a
    table is incomplete, missing from the draw, or a tie-break decides who qualifies, and
    after a round of one table (the final: no round follows it)."""
    rows = frame(
        con.sql(
            'SELECT "table", player_key, complete, walkover, qualified, needs_tiebreak '
            "FROM table_standings_t WHERE event = ? AND round = ?",
            params=[event, prev],
        )
    )
    if rows.height == 0:
        raise DrawRefused("no_results", {"round": prev})
    drawn = set(drawn_tables(con, event, prev))
    # every table that holds the next round up is named, in table order
    missing = drawn - set(rows.get_column("table").to_list())
    open_ = set(rows.filter(~pl.col("complete") & ~pl.col("walkover")).get_column("table"))
    if missing or open_:
        raise DrawRefused("incomplete", {"round": prev, "table": _listed(missing | open_)})
    if len(drawn or set(rows.get_column("table"))) == 1:  # RULES: 4 or fewer left: the final
        raise DrawRefused("after_final", {"round": prev})
    tie = set(rows.filter(pl.col("needs_tiebreak") & ~pl.col("qualified")).get_column("table"))
    if tie:
        raise DrawRefused("tiebreak", {"round": prev, "table": _listed(tie)})
    quals = rows.filter(pl.col("qualified")).sort("player_key")
    tables = sorted(set(quals.get_column("table").to_list()), key=_natural)
    return [quals.filter(pl.col("table") == t).get_column("player_key").to_list() for t in tables]


def _listed(tables: set[str]) -> str:
    return ", ".join(sorted(tables, key=_natural))


def _natural(label: str) -> tuple[int, str]:
    digits = "".join(ch for ch in label if ch.isdigit())
    return (int(digits) if digits and len(digits) < 18 else -1, label)


def _seat_rows(
    con: duckdb.DuckDBPyConnection,
    seated: list[dict[str, str]],
    swaps: list[tuple[int, int, str]],
) -> pl.DataFrame:
    names = dict(
        con.execute(
            "SELECT player_key, player FROM players UNION ALL "
            "SELECT player_key, player FROM entrants WHERE player_key NOT IN "
            "(SELECT player_key FROM players)"
        ).fetchall()
    )
    rows = [
        {
            "table": str(i),
            "hand": hand,
            "chair": chair,
            "player_key": key,
            "player": names.get(key, key),
        }
        for i, start in enumerate(seated, start=1)
        for hand, chair, key in seating.per_hand(start, swaps)
    ]
    return pl.DataFrame(
        rows,
        schema={
            "table": pl.String,
            "hand": pl.Int32,
            "chair": pl.String,
            "player_key": pl.String,
            "player": pl.String,
        },
    )


def _store(
    con: duckdb.DuckDBPyConnection,
    event: str,
    label: str,
    draw_no: int,
    seed: int,
    reason: str | None,
    by: str | None,
    seats: pl.DataFrame,
) -> None:
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(
            "UPDATE draws_t SET current = false WHERE event = ? AND round = ?", [event, label]
        )
        con.execute(
            "INSERT INTO draws_t (event, round, draw_no, seed, drawn_at, drawn_by, reason, current) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, true)",
            [event, label, draw_no, seed, datetime.now(), by, (reason or "").strip() or None],
        )
        frame = seats.with_columns(
            pl.lit(event).alias("event"),
            pl.lit(label).alias("round"),
            pl.lit(draw_no).alias("draw_no"),
        )
        insert_frame(
            con,
            "draw_seats",
            frame,
            'event, round, draw_no, "table", hand, chair, player_key, player',
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def _loaded(con: duckdb.DuckDBPyConnection, event: str, label: str) -> int:
    """How many matches of the round count (loaded and not withdrawn)."""
    return int(
        con.execute(
            "SELECT count(*) FROM match_versions WHERE event = ? AND round = ? AND current "
            "AND kind <> 'withdrawn'",
            [event, label],
        ).fetchall()[0][0]
    )


def cancel(
    con: duckdb.DuckDBPyConnection, event: str, label: str, *, reason: str, by: str | None = None
) -> int:
    """Cancel the current draw of ``label`` (made for the wrong event, or under a mistyped
    round): it stays in the history, no longer current, with who, when and why, and the
    round has no seating until it is drawn again. Returns the cancelled draw's number.

    Refused (:class:`DrawRefused`) without a reason, for a round with no current draw, and
    once anything of the round is loaded or open for hand entry (its seating is in use)."""
    label = label.strip()
    if not con.execute("SELECT 1 FROM events WHERE event = ?", [event]).fetchall():
        raise DrawRefused("no_event", {"event": event})
    if not reason.strip():
        raise DrawRefused("cancel_reason", {"round": label})
    con.execute("BEGIN TRANSACTION")
    try:
        drawn = con.execute(
            "SELECT draw_no FROM draws_t WHERE event = ? AND round = ? AND current",
            [event, label],
        ).fetchall()
        if not drawn:
            raise DrawRefused("not_drawn", {"round": label, "event": event})
        from pipeline.entry import open_entries  # it imports the draws

        if open_entries(con, event, label) or _loaded(con, event, label):
            raise DrawRefused("cancel_in_use", {"round": label})
        con.execute(
            "UPDATE draws_t SET current = false, cancelled_at = ?, cancelled_by = ?, "
            "cancel_reason = ? WHERE event = ? AND round = ? AND current",
            [datetime.now(), by, reason.strip(), event, label],
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return int(drawn[0][0])


# --- reading draws ---------------------------------------------------------------------------


def current(con: duckdb.DuckDBPyConnection, event: str, label: str) -> pl.DataFrame:
    """``table, chair, player`` of the current draw's starting seating (or its one seating)."""
    return frame(
        con.sql(
            'SELECT s."table", s.chair, s.player FROM draw_seats s JOIN draws_t d '
            "ON d.event = s.event AND d.round = s.round AND d.draw_no = s.draw_no "
            "WHERE d.current AND s.event = ? AND s.round = ? "
            "AND (s.hand IS NULL OR s.hand = (SELECT min(hand) FROM draw_seats x WHERE "
            "x.event = s.event AND x.round = s.round AND x.draw_no = s.draw_no)) "
            'ORDER BY length(s."table"), s."table", s.chair',
            params=[event, label],
        )
    )


def drawn_rounds(con: duckdb.DuckDBPyConnection, event: str) -> set[str]:
    """The rounds of ``event`` that have a current draw."""
    return {
        r[0]
        for r in con.execute(
            "SELECT DISTINCT round FROM draws_t WHERE event = ? AND current", [event]
        ).fetchall()
    }


def waiting_rounds(con: duckdb.DuckDBPyConnection, event: str) -> set[str]:
    """The rounds of ``event`` whose current draw has a table with nothing loaded yet (the
    tables :func:`waiting` lists)."""
    return {
        r[0]
        for r in con.execute(
            "SELECT DISTINCT s.round FROM seatings s WHERE s.event = ? AND NOT EXISTS ("
            "SELECT 1 FROM table_standings_t t WHERE t.event = s.event AND t.round = s.round "
            'AND t."table" = s."table")',
            [event],
        ).fetchall()
    }


def next_to_play(con: duckdb.DuckDBPyConnection, event: str) -> str | None:
    """The drawn round a referee or an organiser is at: the first of the event's order
    whose current draw has a table with nothing loaded (sessions drawn in advance: S1
    before S2 and S3), else the last drawn; None without a draw."""
    from pipeline.standings.queries import rounds

    drawn = drawn_rounds(con, event)
    current = [r for r in rounds(con, event) if r in drawn]
    waiting = waiting_rounds(con, event) if current else set()
    ahead = [r for r in current if r in waiting]
    return ahead[0] if ahead else (current[-1] if current else None)


def drawn_tables(con: duckdb.DuckDBPyConnection, event: str, label: str) -> list[str]:
    """The tables of a round's current draw, in natural order (none when not drawn)."""
    rows = con.execute(
        'SELECT DISTINCT "table" FROM seatings WHERE event = ? AND round = ?', [event, label]
    ).fetchall()
    return sorted((str(r[0]) for r in rows), key=lambda t: (len(t), t))


def waiting(con: duckdb.DuckDBPyConnection, event: str, label: str) -> pl.DataFrame:
    """``table, chair, player`` of the round's drawn tables with nothing loaded yet: the
    seats players look for before they sit down (a table leaves this list with its first
    hand, entered at the table or uploaded)."""
    seats = current(con, event, label)
    if seats.height == 0:
        return seats
    started = [
        r[0]
        for r in con.execute(
            'SELECT DISTINCT "table" FROM table_standings_t WHERE event = ? AND round = ?',
            [event, label],
        ).fetchall()
    ]
    return seats.filter(~pl.col("table").is_in(started))


def history(con: duckdb.DuckDBPyConnection, event: str, label: str | None = None) -> pl.DataFrame:
    """Every draw of the event (or of one round): ``round, draw_no, seed, drawn_at,
    drawn_by, reason, current, cancelled_at, cancelled_by, cancel_reason``, newest first."""
    every = frame(
        con.sql(
            "SELECT round, draw_no, seed, drawn_at, drawn_by, reason, current, cancelled_at, "
            "cancelled_by, cancel_reason FROM draws_t "
            "WHERE event = ? ORDER BY drawn_at DESC, draw_no DESC",
            params=[event],
        )
    )
    return every if label is None else every.filter(pl.col("round") == label)
