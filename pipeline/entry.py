"""Hand entry at the table: a referee enters each hand of a match as it ends.

There is no second way in. Each saved hand is written, with the hands of the match
already loaded, as one hand-log CSV of the contract (docs/handlog.md) and loaded through
the one ingest service (:func:`pipeline.ingest.service.load`), which checks the
referee's rights, validates every row exactly as a file row and commits the match whole
or not at all. The first hand makes version 1 of the match; each later hand adds a
version of kind ``update``, so the standings move hand by hand.

A match entered here is *open* (a row of ``match_entry``, migration 010) until the
referee closes it. While it is open a wrong hand is fixed by saving it again: the new
version changes that hand without a reason (:func:`pipeline.ingest.versions.classify`
reads the open matches). Once closed — and for every match loaded from a file, which
was never opened here — a change to a loaded hand is a correction and needs a reason.
A match closes only when its table standings say it is complete and no tie-break hand
is still owed (the ruleset's scoring models decide both).
"""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import duckdb
import polars as pl

from pipeline import auth, events, messages, players, rulesets
from pipeline.draws import seating
from pipeline.ingest import service
from pipeline.ingest.columns import CANONICAL, CHAIRS
from pipeline.ingest.match import hand_log
from pipeline.ingest.normalize import SANCTION_CODES
from pipeline.ingest.outcome import Plan
from pipeline.problems import ERROR
from pipeline.standings import queries
from pipeline.store.db import frame

FIRST_LINE = 2  # the CSV's header is line 1: hand rows start on line 2

Seats = dict[str, str]  # chair letter (a-d) -> player


class EntryRefused(messages.Refused, ValueError):
    """A hand or a close the entry refuses before anything is loaded; ``str()`` is the
    English sentence, :meth:`render` says it in another language."""


@dataclass(frozen=True)
class Hand:
    """One hand as the referee enters it. Chairs are lower-case letters ``a``-``d``."""

    hand: int
    ending: str
    ended_by: str | None = None
    last_tile: str | None = None
    pips: Mapping[str, int | None] = field(default_factory=dict)
    sanctions: Mapping[str, Sequence[str]] = field(default_factory=dict)
    note: str | None = None


@dataclass
class MatchState:
    """What the entry page needs to know about one match."""

    event: str
    round: str
    table: str
    ruleset: str
    drawn: dict[int | None, Seats]  # the draw's seats per hand (pepet: key None); {} undrawn
    hands: pl.DataFrame  # the current version's rows, in the contract's columns
    standings: pl.DataFrame  # table_standings rows of the match
    status: str  # new | open | closed | withdrawn
    withdrawn: tuple[str, str] | None = None  # who withdrew it and why, when it is
    version: int = 0  # the current version read (0: none yet)

    def withdrawn_refusal(self) -> "EntryRefused | None":
        """Why no hand is taken (who withdrew the match and why), when it is withdrawn."""
        if self.withdrawn is None:
            return None
        by, why = self.withdrawn
        return EntryRefused(
            "entry_withdrawn", {"table": self.table, "round": self.round, "by": by, "reason": why}
        )

    def moved_refusal(self) -> "EntryRefused":
        """Another device saved the table since the page showed it: nothing was written."""
        return EntryRefused("entry_moved", {"table": self.table, "round": self.round})

    @property
    def book(self) -> rulesets.Ruleset:
        return rulesets.load(self.ruleset)

    @property
    def regular_hands(self) -> int | None:
        n = self.book.flat.get("regular_hands")
        return int(n) if n else None

    @property
    def next_hand(self) -> int:
        return self.hands.height + 1

    @property
    def complete(self) -> bool:
        s = self.standings
        return bool(s.height) and bool(s.get_column("complete").all())

    @property
    def needs_tiebreak(self) -> bool:
        s = self.standings
        return bool(s.height) and bool(s.get_column("needs_tiebreak").any())

    @property
    def can_close(self) -> bool:
        return self.status == "open" and self.complete and not self.needs_tiebreak

    @property
    def stand_ins(self) -> dict[str, tuple[str, str]]:
        """``chair -> (reserve, member)``: the reserves the match's first hand seats in a
        drawn member's chair, the member named in the chair's ``replaces_x`` (rule 23; the
        draw check lets nothing else in). A drawn pepet chair holds for every hand."""
        if not self.drawn or None not in self.drawn or not self.hands.height:
            return {}
        first = self.hands.row(0, named=True)
        written = json.loads(first.get("extra") or "{}")
        drawn = self.drawn[None]
        return {
            c: (str(first[f"player_{c}"]), str(written[f"replaces_{c}"]))
            for c in CHAIRS
            if written.get(f"replaces_{c}")
            and first[f"player_{c}"]
            and name_key(first[f"player_{c}"]) != name_key(drawn.get(c) or "")
        }

    def seats(self, hand: int, start: Seats | None = None) -> Seats:
        """Who sits where in ``hand``: the draw's seats; else the match's first hand (or
        ``start``, typed once) moved by the swap schedule. A tie-break hand seats only the
        tied players, in their chairs of the last regular hand."""
        last = self.regular_hands
        if last is not None and hand > last:
            tied = set(
                self.standings.filter(pl.col("needs_tiebreak")).get_column("player_key").to_list()
            )
            return {c: p for c, p in self.seats(last, start).items() if name_key(p) in tied}
        if self.drawn:
            drawn = dict(self.drawn.get(hand) or self.drawn.get(None) or {})
            return drawn | {c: reserve for c, (reserve, _) in self.stand_ins.items()}
        if self.hands.height:
            first = self.hands.row(0, named=True)
            start = {c: first[f"player_{c}"] for c in CHAIRS if first[f"player_{c}"]}
            start = scheduled(start, int(first["hand"]), 1, self.book, reverse=True)
        return scheduled(start or {}, 1, hand, self.book)


def name_key(name: str) -> str:
    """A name's player key as the engine spells it (aliases aside)."""
    frame = pl.DataFrame({"n": [name]}, schema={"n": pl.String})
    return str(frame.select(players.key_expr(pl.col("n"))).item())


def scheduled(
    seats: Seats, from_hand: int, to_hand: int, book: rulesets.Ruleset, *, reverse: bool = False
) -> Seats:
    """``seats`` of ``from_hand`` moved to ``to_hand`` by the ruleset's swap schedule
    (``[draw] swaps``, the one the draw uses: RULES.md Art. 1.14-1.15 for unhas); a
    ruleset without one keeps the chairs. ``reverse`` only documents intent: moving from
    a later hand back to hand 1 is the same call."""
    del reverse
    return seating.moved(seats, seating.swap_schedule(book.params), from_hand, to_hand)


# --- reading a match ------------------------------------------------------------------------


def drawn_seats(con: duckdb.DuckDBPyConnection, event: str, round: str, table: str) -> dict:
    """The current draw's seats of a table, per hand (``None`` for a pepet session)."""
    rows = con.execute(
        'SELECT hand, chair, player FROM seatings WHERE event = ? AND round = ? AND "table" = ?',
        [event, round, table],
    ).fetchall()
    out: dict[int | None, Seats] = {}
    for hand, chair, player in rows:
        out.setdefault(hand, {})[str(chair).lower()] = player
    return out


def state(con: duckdb.DuckDBPyConnection, event: str, round: str, table: str) -> MatchState:
    """The match as loaded now: its hands, standings, draw, and whether it is open."""
    ruleset = queries.ruleset_of(con, event)
    # every contract column and the extra ones: a hand entered here writes the match again,
    # and the tiles a file gave its other hands stay (an entered hand has pips only)
    cols = ", ".join(f'h."{c}"' for c in [*CANONICAL, "extra"] if c not in ("event", "ruleset"))
    hands = frame(
        con.sql(
            f"SELECT {cols} FROM hands h JOIN match_versions v "
            'USING (event, round, "table", version) '
            'WHERE v.current AND h.event = ? AND h.round = ? AND h."table" = ? '
            "ORDER BY h.hand",
            params=[event, round, table],
        )
    )
    standings = frame(
        con.sql(
            "SELECT player, points, rank, qualified, needs_tiebreak, complete, player_key "
            "FROM table_standings "
            'WHERE event = ? AND round = ? AND "table" = ? ORDER BY rank, player',
            params=[event, round, table],
        )
    )
    flag = con.execute(
        'SELECT closed_at IS NULL FROM match_entry WHERE event = ? AND round = ? AND "table" = ?',
        [event, round, table],
    ).fetchall()
    if flag:
        status = "open" if flag[0][0] else "closed"
    else:
        status = "closed" if hands.height else "new"
    # the current version (0: none yet); withdrawn by the jury (pipeline/ingest/withdraw.py):
    # no hands are taken any more, it comes back only as the jury brings it back
    current = con.execute(
        "SELECT version, kind = 'withdrawn', coalesce(loaded_by, ''), coalesce(reason, '') "
        'FROM match_versions WHERE current AND event = ? AND round = ? AND "table" = ?',
        [event, round, table],
    ).fetchall()
    version, withdrawn, by, why = current[0] if current else (0, False, "", "")
    if withdrawn:
        status = "withdrawn"
    return MatchState(
        event=event,
        round=round,
        table=table,
        ruleset=ruleset,
        drawn=drawn_seats(con, event, round, table),
        hands=hands,
        standings=standings,
        status=status,
        withdrawn=(str(by), str(why)) if withdrawn else None,
        version=int(version),
    )


def open_entries(con: duckdb.DuckDBPyConnection, event: str, round: str | None = None) -> int:
    """How many tables of ``event`` (of its ``round``) are open for hand entry. A table
    the jury withdrew takes no hands: its entry, which nobody can save or close any more,
    holds nothing (a draw to cancel, an event to delete)."""
    return int(
        con.execute(
            "SELECT count(*) FROM match_entry e WHERE e.closed_at IS NULL AND e.event = ? "
            "AND (CAST(? AS VARCHAR) IS NULL OR e.round = ?) AND NOT EXISTS ("
            "SELECT 1 FROM match_versions v WHERE v.current AND v.kind = 'withdrawn' "
            'AND v.event = e.event AND v.round = e.round AND v."table" = e."table")',
            [event, round, round],
        ).fetchall()[0][0]
    )


# --- saving a hand ----------------------------------------------------------------------------


def reserves_at(con: duckdb.DuckDBPyConnection, st: MatchState) -> dict[str, list[str]]:
    """``chair -> reserves``: for a drawn session table with no hand yet, the registered
    reserves who may play for the member drawn in each chair (rule 23), those of the group
    the member belongs to on the event's date, by name. Empty where the rulebook has no
    reserves, the table is not a drawn session's, or a hand is in (a reserve plays the
    whole session: the first hand says who sits)."""
    drawn = st.drawn.get(None)
    if not drawn or st.hands.height or st.ruleset not in rulesets.with_groups():
        return {}
    registry = events.event_groups(con, st.event)
    groups = dict(zip(registry["player_key"], registry["group"], strict=True))
    out = {}
    for chair, member in sorted(drawn.items()):
        group = groups.get(name_key(member))
        if group is None:  # a member of no group (or no registry): nobody plays for them
            continue
        names = registry.filter(pl.col("reserve_for") == group).get_column("player")
        if names.len():
            out[chair] = sorted(names.to_list(), key=str.casefold)
    return out


def hand_row(st: MatchState, hand: Hand, seats: Seats) -> dict[str, Any]:
    """One hand as a row of the contract (text cells, as a referee's file would hold)."""
    row: dict[str, Any] = {
        "event": st.event,
        "ruleset": st.ruleset,
        "round": st.round,
        "table": st.table,
        "hand": hand.hand,
        "ended_by": (hand.ended_by or "").upper() or None,
        "ending": hand.ending,
        "last_tile": hand.last_tile,
        "note": hand.note,
    }
    for c in CHAIRS:
        row[f"player_{c}"] = seats.get(c)
        row[f"pips_{c}"] = hand.pips.get(c)
        codes = list(hand.sanctions.get(c) or [])
        row[f"sanctions_{c}"] = ";".join(codes) or None
    return row


def sheet(rows: list[dict[str, Any]]) -> bytes:
    """Rows of the contract (and their ``extra``) as a CSV hand log (header on line 1):
    :func:`pipeline.ingest.match.hand_log`, so that a hand entered or corrected here drops
    nothing a file gave the match's other hands (their tiles, their extra columns)."""
    return hand_log(pl.from_dicts(rows, infer_schema_length=None))


def _tiles_kept(hands: pl.DataFrame, hand: Hand) -> dict[str, str]:
    """A corrected hand keeps the tiles its file gave a chair whose pips are left empty
    here (the entry form takes pips; the file's tiles stand for them) or left as they were;
    a chair whose pips are changed here loses them (they would disagree)."""
    same = hands.filter(pl.col("hand") == hand.hand)
    if same.height == 0:
        return {}
    old = same.row(0, named=True)
    return {
        f"tiles_{c}": old[f"tiles_{c}"]
        for c in CHAIRS
        if hand.pips.get(c) in (None, old[f"pips_{c}"]) and old.get(f"tiles_{c}")
    }


def _extra_kept(hands: pl.DataFrame, hand: int, replacing: Mapping[str, str]) -> str | None:
    """The extra columns of a hand saved here: a corrected hand keeps its own; a new hand
    takes whom each reserve replaces from the hand before it (nobody changes chairs within
    a pepet session), and nothing else of it (a referee's remark is that hand's own); the
    first hand of a drawn table, whom ``replacing`` says (:func:`_replacing`)."""
    if "extra" not in hands.columns or hands.height == 0:
        return json.dumps(dict(replacing)) if replacing else None
    same = hands.filter(pl.col("hand") == hand)
    if same.height:
        return same.get_column("extra")[0]
    before = hands.filter(pl.col("hand") < hand).sort("hand").get_column("extra")
    last = json.loads(before[-1]) if before.len() and before[-1] else {}
    kept = {k: v for k, v in last.items() if k.startswith("replaces_") and v}
    return json.dumps(kept) if kept else None


def _replacing(st: MatchState, seats: Seats) -> dict[str, str]:
    """``replaces_x -> member`` for each chair of a drawn session that ``seats`` gives
    another player than the draw (a reserve for an absent member, rule 23): the record the
    draw check wants, written once the referee seats the reserve."""
    drawn = st.drawn.get(None) or {}
    return {
        f"replaces_{c}": drawn[c]
        for c in CHAIRS
        if drawn.get(c) and seats.get(c) and name_key(seats[c]) != name_key(drawn[c])
    }


def file_name(event: str, round: str, table: str) -> str:
    return f"entry {event} {round} {table}.csv"


@dataclass
class Saved:
    """What saving a hand did: the plan, and its problems tied to hands and columns."""

    plan: Plan
    problems: pl.DataFrame  # hand, column, code, severity, message_id, params, message

    @property
    def ok(self) -> bool:
        return not self.problems.filter(pl.col("severity") == ERROR).height

    def sentences(self, lang: str = "en") -> list[dict[str, Any]]:
        """Each problem as ``hand, column, severity, message`` in ``lang``."""
        said = self.problems.with_columns(
            messages.render_frame(self.problems, lang).fill_null(pl.col("message")).alias("message")
        )
        return said.select("hand", "column", "severity", "message").to_dicts()


def save_hand(
    con: duckdb.DuckDBPyConnection,
    event: str,
    round: str,
    table: str,
    hand: Hand,
    seats: Seats,
    *,
    identity: object,
    reason: str | None = None,
    seen: int | None = None,
) -> Saved:
    """Add or replace one hand of a match and load the whole match through the ingest
    service. A closed match is changed only with a ``reason`` (a correction).

    ``seen`` is the version the referee's page showed (:attr:`MatchState.version`): when
    another device saved the table since, nothing is written (``entry_moved``), so a hand
    entered on an older page never replaces one saved after it. The rows are built on
    the version read here, and the load refuses them if the match moves on before they
    are committed (another dashboard on a shared PostgreSQL store)."""
    st = state(con, event, round, table)
    if (refused := st.withdrawn_refusal()) is not None:
        raise refused
    if seen is not None and seen != st.version:
        raise st.moved_refusal()
    if st.status == "closed" and not reason:
        raise EntryRefused("entry_closed", {"table": table, "round": round})
    if hand.hand < 1 or hand.hand > st.next_hand:
        raise EntryRefused("entry_hand_gap", {"hand": hand.hand, "next": st.next_hand})
    if hand.ending not in st.book.endings:
        raise EntryRefused(
            "entry_ending", {"ending": hand.ending, "endings": ", ".join(st.book.endings)}
        )
    old = [
        {"event": event, "ruleset": st.ruleset, "round": round, "table": table, **r}
        for r in st.hands.iter_rows(named=True)
        if r["hand"] != hand.hand
    ]
    row = hand_row(st, hand, seats) | {
        "extra": _extra_kept(st.hands, hand.hand, _replacing(st, seats))
    }
    row |= _tiles_kept(st.hands, hand)
    rows = sorted([*old, row], key=lambda r: int(r["hand"]))
    try:
        plan = service.load(
            con,
            [(file_name(event, round, table), sheet(rows))],
            reason=reason or None,
            identity=identity,
            base={(event, round, table): st.version},
        )
    except service.PlanChanged:
        raise st.moved_refusal() from None
    saved = Saved(plan=plan, problems=_by_hand(plan.problems, [int(r["hand"]) for r in rows]))
    if saved.ok and st.status == "new":
        who = auth.identity_ok(identity)
        con.execute(
            'INSERT INTO match_entry (event, round, "table", opened_by, opened_at) '
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [event, round, table, who.name if who else None, datetime.now()],
        )
    return saved


def _by_hand(found: pl.DataFrame, hands: list[int]) -> pl.DataFrame:
    """The plan's problems with the hand of their line (line 2 is the first hand)."""
    lines = pl.DataFrame(
        {"line": list(range(FIRST_LINE, FIRST_LINE + len(hands))), "hand": hands},
        schema={"line": found.schema.get("line", pl.Int64), "hand": pl.Int64},
    )
    return found.join(lines, on="line", how="left").select(
        "hand", "column", "code", "severity", "message_id", "params", "message"
    )


# --- closing a match --------------------------------------------------------------------------


def close(
    con: duckdb.DuckDBPyConnection, event: str, round: str, table: str, *, identity: object
) -> MatchState:
    """Close an open match: from now on a change to a loaded hand needs a reason."""
    who = auth.check_rights(con, identity, [event])
    st = state(con, event, round, table)
    if (refused := st.withdrawn_refusal()) is not None:
        raise refused
    if st.status == "closed":
        raise EntryRefused("entry_closed", {"table": table, "round": round})
    if not st.hands.height:
        raise EntryRefused("entry_no_hands", {"table": table})
    if st.needs_tiebreak and st.complete:
        raise EntryRefused("entry_tiebreak_owed", {"table": table})
    if not st.complete:
        raise EntryRefused(
            "entry_incomplete",
            {"table": table, "done": st.hands.height, "total": st.regular_hands or 0},
        )
    con.execute(
        "UPDATE match_entry SET closed_at = ?, closed_by = ? "
        'WHERE event = ? AND round = ? AND "table" = ?',
        [datetime.now(), who.name, event, round, table],
    )
    return state(con, event, round, table)


def sanction_codes(ruleset: str) -> list[str]:
    """The sanction codes a hand may carry under ``ruleset`` (none where it shows none)."""
    return list(SANCTION_CODES) if rulesets.load(ruleset).shows("sanctions") else []
