"""A league: its events, levels that feed each other, eligibility and substitutes.

``domino advance`` puts the qualifiers of finished events into the roster (entrants) of
the next level's event, with the rule kept in ``advancements``. Eligibility (RULES.md,
pepet: age and citizenship on the event's date) comes from the ruleset's
``[eligibility]`` table and only ever warns. Substitutes (rule 23) are registered reserves
(``league_players.reserve_for``); a hand log names whom they replace in the optional
columns ``replaces_a`` … ``replaces_d``, kept with the hand's other extra columns.
"""

import shlex
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from pipeline import messages, rulesets
from pipeline.events import roster as events_roster
from pipeline.events import round_status as events_round_status
from pipeline.events import unknown as events_unknown
from pipeline.ingest.match import seats_long
from pipeline.players import alias_map, has_registry, player_key
from pipeline.standings import queries
from pipeline.store.db import frame, insert_frame, register

if TYPE_CHECKING:
    from pipeline.ingest.outcome import Plan

LEVELS = ("group", "kabupaten", "kota", "provinsi", "nasional")


class Refused(messages.Refused):
    """A league command refused with one sentence (exit 1); nothing was changed."""

    def __init__(self, mid: str, **params: object) -> None:
        super().__init__(mid, params)


def _say(mid: str, lang: str = "en", **params: object) -> str:
    return messages.render(mid, params, lang)


# --- leagues ------------------------------------------------------------------------------


def leagues(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every league: those with a registry, those holding an event, and ``default``."""
    rows = con.execute(
        "SELECT league FROM league_players UNION SELECT coalesce(league, 'default') FROM events"
    ).fetchall()
    return sorted({"default", *(r[0] for r in rows)})


def set_league(con: duckdb.DuckDBPyConnection, events: list[str], league: str) -> None:
    """Put ``events`` (which must exist) in ``league``: they are checked against its registry."""
    missing = events_unknown(con, events)
    if missing:
        raise Refused("advance.unknown_event", event=missing[0])
    con.execute("UPDATE events SET league = ? WHERE event IN (SELECT unnest(?))", [league, events])


def create_events(
    con: duckdb.DuckDBPyConnection, events: dict[str, str], league: str, by: str
) -> None:
    """Create the rows of ``events`` (event → ruleset) not there yet, in ``league``."""
    now = datetime.now()
    for event in events_unknown(con, events):
        rs = events[event]
        book = rulesets.load(rs)
        con.execute(
            "INSERT INTO events (event, ruleset, params_hash, created_at, created_by, models, league) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [event, rs, book.hash, now, by, book.models, league],
        )


def _event_info(con: duckdb.DuckDBPyConnection, event: str) -> tuple[str, str, date]:
    """``ruleset, league, date`` of an event (its date: event_date, else the day created)."""
    row = con.execute(
        "SELECT ruleset, coalesce(league, 'default'), coalesce(event_date, CAST(created_at AS DATE)) "
        "FROM events WHERE event = ?",
        [event],
    ).fetchall()
    if not row:
        raise Refused("advance.unknown_event", event=event)
    return row[0][0], row[0][1], row[0][2]


def outside_events(con: duckdb.DuckDBPyConnection, league: str) -> list[str]:
    """The events of a rulebook with group (KG) standings that players of ``league``'s
    registry played, in a league without a registry (so without groups): most often a
    registry imported into a league its events were never put in."""
    return [
        r[0]
        for r in con.execute(
            "SELECT e.event FROM events e WHERE coalesce(e.league, 'default') <> ? "
            "AND e.ruleset IN (SELECT unnest(?)) AND NOT EXISTS (SELECT 1 FROM league_players lp "
            "WHERE lp.league = coalesce(e.league, 'default')) AND EXISTS (SELECT 1 FROM "
            "table_standings_t t JOIN league_players lp ON lp.player_key = t.player_key "
            "AND lp.league = ? WHERE t.event = e.event) ORDER BY e.event",
            [league, rulesets.with_groups(), league],
        ).fetchall()
    ]


def outside(con: duckdb.DuckDBPyConnection, league: str, lang: str = "en") -> str | None:
    """:func:`outside_events` as one sentence with the command that puts them in
    ``league``; None when there are none (nearly always)."""
    found = outside_events(con, league)
    if not found:
        return None
    return _say(
        "groups.outside",
        lang,
        n=len(found),
        events=", ".join(found),
        league=shlex.quote(league),
        ids=" ".join(map(shlex.quote, found)),
    )


def no_groups(con: duckdb.DuckDBPyConnection, event: str, lang: str = "en") -> str:
    """Why no player of ``event`` is in a group (KG), one sentence: its league has no
    registry, or none of its players has a membership in force on its date; and where
    another league's registry holds its players (an import into a league the event is not
    in), which league, and the command that puts the event there."""
    _, league, day = _event_info(con, event)
    held = con.execute(
        "SELECT league, count(*) FROM league_players WHERE player_key IN ("
        "SELECT player_key FROM table_standings_t WHERE event = ? "
        "UNION SELECT player_key FROM entrants WHERE event = ?) "
        "GROUP BY league ORDER BY 2 DESC, 1",
        [event, event],
    ).fetchall()
    why = _say(
        "groups.none" if has_registry(con, league) else "groups.none.no_registry",
        lang,
        event=event,
        league=league,
        date=day,
    )
    other = next(((lg, n) for lg, n in held if lg != league), None)
    if other is None:
        return why
    return _say("groups.elsewhere", lang, why=why, n=other[1], other=other[0], event=event)


# --- eligibility --------------------------------------------------------------------------


def eligibility(
    con: duckdb.DuckDBPyConnection, event: str, keys: list[str] | None = None
) -> list[str]:
    """Warnings, one sentence naming the player each, for the entrants and players of
    ``event`` (or only ``keys``) the ruleset's ``[eligibility]`` does not admit on the
    event's date; unknown birth dates or citizenship pass."""
    _event_info(con, event)  # an unknown event is refused
    return eligibility_of(con, [event], keys)


def roster_warnings(con: duckdb.DuckDBPyConnection, event: str, lang: str = "en") -> list[str]:
    """What an organiser is told once ``event``'s roster is set (`domino event roster`, the
    Organiser page): a round drawn from the roster as it was, with nothing of it loaded
    (draw it again); then one sentence naming the player each: entrants the ruleset's
    eligibility does not admit on the event's date, then, for a rulebook with group (KG)
    standings, entrants the roster puts in another group than the league's registry does
    on that date (the group standings follow the registry; the roster's group only
    decides whom the draw keeps apart)."""
    from pipeline.draws.followed import roster_stale

    ruleset, league, day = _event_info(con, event)
    entrants = events_roster(con, event)
    # a round drawn from the roster before it was set again, nothing of it loaded yet
    found = roster_stale(con, event, lang)
    found += eligibility_of(con, [event], entrants["player_key"].to_list(), lang)
    if ruleset not in rulesets.with_groups():
        return found
    # a roster without a group shows the registry's: only a group it wrote can differ
    differ = entrants.filter(
        pl.col("group").str.to_lowercase() != pl.col("registered").str.to_lowercase()
    ).sort("player")
    return found + [
        _say(
            "roster.group_differs",
            lang,
            player=r["player"],
            event=event,
            group=r["group"],
            league=league,
            registered=r["registered"],
            date=day,
        )
        for r in differ.iter_rows(named=True)
    ]


#: The events asked about whose ruleset has eligibility rules, with their date and league.
_ELIGIBILITY_EVENTS = (
    "SELECT event, ruleset, coalesce(league, 'default') AS league, "
    "coalesce(event_date, CAST(created_at AS DATE)) AS on_date "
    "FROM events WHERE event IN (SELECT unnest(?)) AND ruleset IN (SELECT unnest(?))"
)
#: The registry's entries for the entrants and players of each of those events, and the
#: players of the matches a load would write (``_elig_planned``; empty after a load).
_ELIGIBILITY_PEOPLE = (
    "WITH who AS ("
    "SELECT event, player_key FROM entrants WHERE event IN (SELECT event FROM _elig_events) "
    "UNION SELECT event, player_key FROM table_standings_t "
    "WHERE event IN (SELECT event FROM _elig_events) "
    "UNION SELECT event, player_key FROM _elig_planned) "
    "SELECT x.event, x.ruleset, x.on_date, lp.player_key, lp.player, lp.birth_date, "
    "lp.citizenship FROM who JOIN _elig_events x USING (event) "
    "JOIN league_players lp ON lp.league = x.league AND lp.player_key = who.player_key"
)


def eligibility_of(
    con: duckdb.DuckDBPyConnection,
    events: list[str],
    keys: list[str] | None = None,
    lang: str = "en",
    *,
    planned: pl.DataFrame | None = None,
    new_events: dict[str, str] | None = None,
) -> list[str]:
    """:func:`eligibility` of several events (a load's) in a few queries, not a few per
    event: event by event in name order, each event's age warnings, then its citizenship
    warnings, each by player; sentences in ``lang``.

    Before a load is written (a dry run, an upload's preview), ``planned`` holds
    ``event, player_key`` of the matches it would write, and ``new_events`` the events it
    would create (event → ruleset), which would play on today's date: the warnings are
    then those the load will give once written (:func:`eligibility_planned`)."""
    rules = {}
    for rs in rulesets.names():
        flat = rulesets.load(rs).flat
        min_age = flat.get("eligibility_min_age")
        allowed = [str(c).lower() for c in flat.get("eligibility_citizenship") or []]
        if min_age is not None or allowed:
            rules[rs] = (min_age, allowed, ", ".join(flat.get("eligibility_citizenship") or []))
    if not events or not rules:
        return []
    asked = frame(con.sql(_ELIGIBILITY_EVENTS, params=[sorted(set(events)), sorted(rules)]))
    created = {e: rs for e, rs in (new_events or {}).items() if rs in rules and e in events}
    if created:  # not stored yet: the default league, played the day it is created
        asked = pl.concat(
            [
                asked,
                pl.DataFrame(
                    {
                        "event": list(created),
                        "ruleset": list(created.values()),
                        "league": ["default"] * len(created),
                        "on_date": [datetime.now().date()] * len(created),
                    },
                    schema=asked.schema,
                ),
            ]
        ).unique("event", keep="first", maintain_order=True)
    if asked.height == 0:
        return []
    if planned is None:
        planned = pl.DataFrame(schema={"event": pl.String, "player_key": pl.String})
    register(con, "_elig_events", asked)
    try:
        register(con, "_elig_planned", planned.select("event", "player_key"))
        people = frame(con.sql(_ELIGIBILITY_PEOPLE))
    finally:
        con.unregister("_elig_events")
        con.unregister("_elig_planned")
    if keys is not None:
        people = people.filter(pl.col("player_key").is_in(keys))
    b, on = pl.col("birth_date"), pl.col("on_date")
    age = (
        on.dt.year()
        - b.dt.year()
        - (
            (b.dt.month() > on.dt.month())
            | ((b.dt.month() == on.dt.month()) & (b.dt.day() > on.dt.day()))
        ).cast(pl.Int32)
    )
    people = people.with_columns(age.alias("age"))
    found: list[tuple[str, int, str, str]] = []  # event, kind, player, sentence
    for (rs,), part in people.group_by("ruleset"):
        min_age, allowed, said = rules[str(rs)]
        if min_age is not None:
            for r in part.filter(pl.col("age") < int(min_age)).iter_rows(named=True):
                sentence = _say(
                    "eligibility.age",
                    lang,
                    player=r["player"],
                    age=r["age"],
                    date=r["on_date"],
                    born=r["birth_date"],
                    event=r["event"],
                    min_age=min_age,
                )
                found.append((r["event"], 0, r["player"], sentence))
        if allowed:
            bad = part.filter(
                pl.col("citizenship").is_not_null()
                & ~pl.col("citizenship").str.to_lowercase().is_in(allowed)
            )
            for r in bad.iter_rows(named=True):
                sentence = _say(
                    "eligibility.citizenship",
                    lang,
                    player=r["player"],
                    citizenship=r["citizenship"],
                    event=r["event"],
                    allowed=said,
                )
                found.append((r["event"], 1, r["player"], sentence))
    return [sentence for *_, sentence in sorted(found)]


def eligibility_planned(
    con: duckdb.DuckDBPyConnection, plan: "Plan", lang: str = "en"
) -> list[str]:
    """The eligibility warnings a load will give once written (:func:`eligibility_of`
    after it), said before it is: ``plan`` is a planned load that is not written
    (:class:`pipeline.ingest.outcome.Plan`), for a dry run or an upload's preview. Its
    ``table_standings`` are the rows the save writes, so their players are the planned."""
    return eligibility_of(
        con,
        plan.written_events,
        lang=lang,
        planned=plan.table_standings.select("event", "player_key").unique(),
        new_events=plan.new_events,
    )


# --- levels: domino advance ------------------------------------------------------------------


@dataclass
class Advanced:
    """What ``domino advance`` put in: the qualifiers and the ties at the cut."""

    target: str
    qualifiers: pl.DataFrame  # from_event, player_key, player, group, rank
    ties: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    already: int = 0  # qualifiers who were entrants of the target before
    entrants: int = 0  # the target's entrants after, those from before included


def unfinished(con: duckdb.DuckDBPyConnection, event: str) -> str | None:
    """Why ``event`` is not finished (None when it is). Finished: it has results, every
    loaded table is complete, every session has the ruleset's number of tables, every
    round drawn or listed in its order has results, and every table of a round's current
    draw is loaded."""
    rs, _, _ = _event_info(con, event)
    want = rulesets.load(rs).flat.get("session_tables")
    tables = frame(
        con.sql(
            'SELECT round, count(DISTINCT "table") AS tables, bool_and(complete) AS complete '
            "FROM table_standings_t WHERE event = ? GROUP BY round ORDER BY round",
            params=[event],
        )
    )
    if tables.height == 0:
        return _say("advance.no_results", event=event)
    for r in tables.iter_rows(named=True):
        if not r["complete"]:
            return _say("advance.in_progress", round=r["round"], event=event)
        if want and r["tables"] < int(want):
            return _say(
                "advance.tables", round=r["round"], event=event, tables=r["tables"], want=want
            )
    status = events_round_status(con, event)  # the tables each round's current draw has
    drawn_tables = dict(zip(status["round"], status["tables_drawn"], strict=True))
    for r in tables.iter_rows(named=True):
        want_drawn = int(drawn_tables.get(r["round"], 0))
        if r["tables"] < want_drawn:  # a drawn table not loaded yet: its players still play
            return _say(
                "advance.tables", round=r["round"], event=event, tables=r["tables"], want=want_drawn
            )
    # a round drawn, or listed in the organiser's order, with no result: still to come
    to_come = queries.rounds_to_come(con, event)
    if to_come:
        drawn = int(drawn_tables.get(to_come[0], 0)) > 0
        return _say("advance.drawn" if drawn else "advance.listed", round=to_come[0], event=event)
    return None


def advance(
    con: duckdb.DuckDBPyConnection,
    sources: list[str],
    target: str,
    top: int,
    *,
    per_group: bool = False,
    by: str | None = None,
) -> Advanced:
    """Put the top ``top`` of each source event (of each group with ``per_group``) into
    ``target``'s entrants; every player tied at the cut goes in. One transaction.

    Raises :class:`Refused` (one sentence) for an unknown event, an unfinished source or a
    ``top`` below 1.
    """
    if top < 1:
        raise ValueError(f"top must be 1 or more, not {top}")
    target_rs, target_league, _ = _event_info(con, target)
    where = {}
    for ev in sources:
        where[ev] = _event_info(con, ev)[1:]
        why = unfinished(con, ev)
        if why:
            raise Refused("advance.unfinished", why=why)
    register(con, "_sources", pl.DataFrame({"event": sources}, schema={"event": pl.String}))
    try:
        ranked = frame(
            con.sql(
                'SELECT s.event AS from_event, s.player_key, s.player, m."group", s.rank, '
                'rank() OVER (PARTITION BY s.event, m."group" ORDER BY s.rank) AS group_rank '
                "FROM event_standings s LEFT JOIN event_members m "
                "ON m.event = s.event AND m.player_key = s.player_key "
                "WHERE s.event IN (SELECT event FROM _sources)"
            )
        )
    finally:
        con.unregister("_sources")
    cut = "group_rank" if per_group else "rank"
    left_out = []
    if per_group:
        # a player in no group cannot be among the top of one: said, never dropped unheard
        for ev in sources:
            league, day = where[ev]
            mine = ranked.filter(pl.col("from_event") == ev)
            none = mine.filter(pl.col("group").is_null()).sort("rank", "player")
            if none.height == mine.height:
                raise Refused("advance.no_groups", why=no_groups(con, ev))
            if none.height:
                left_out.append(
                    _say(
                        "advance.ungrouped",
                        event=ev,
                        n=none.height,
                        league=league,
                        date=day,
                        players=", ".join(none.get_column("player")),
                    )
                )
        ranked = ranked.filter(pl.col("group").is_not_null())
    chosen = ranked.filter(pl.col(cut) <= top).sort("from_event", "group", cut, "player")
    over = [*(["from_event", "group"] if per_group else ["from_event"])]
    counts = chosen.group_by(over).agg(pl.len().alias("n"), pl.col("player"), pl.col(cut).max())
    ties = [
        _say(
            "advance.tie",
            source=r["from_event"] + (f", {r['group']}" if per_group else ""),
            n=r["n"],
            top=top,
            rank=r[cut],
            players=", ".join(r["player"]),
        )
        for r in counts.filter(pl.col("n") > top).sort(over).iter_rows(named=True)
    ]
    now = datetime.now()
    source = "advance from " + ", ".join(sources)
    new = chosen.unique("player_key", keep="first", maintain_order=True).select(
        pl.lit(target).alias("event"),
        "player_key",
        "player",
        "group",
        pl.lit(source).alias("source"),
        pl.lit(now).alias("added_at"),
    )
    con.execute("BEGIN TRANSACTION")
    try:
        before = {
            r[0]
            for r in con.execute(
                "SELECT player_key FROM entrants WHERE event = ?", [target]
            ).fetchall()
        }
        insert_frame(
            con,
            "entrants",
            new,
            'event, player_key, player, "group", source, added_at',
            on_conflict="ON CONFLICT DO NOTHING",
        )
        for ev in sources:
            n = chosen.filter(pl.col("from_event") == ev).height
            con.execute(
                'INSERT INTO advancements (from_event, to_event, "top", per_group, advanced_at, advanced_by, players) '
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [ev, target, top, per_group, now, by, n],
            )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    keys = new.get_column("player_key").to_list()
    # a target in another league than its sources reads its groups from that league's
    # registry: a next level without groups, most often, unless it was meant
    theirs = sorted({where[ev][0] for ev in sources} - {target_league})
    if theirs and target_rs in rulesets.with_groups():
        left_out.append(
            _say(
                "advance.other_league",
                target=target,
                league=target_league,
                theirs=", ".join(theirs),
                first=shlex.quote(theirs[0]),
                quoted=shlex.quote(target),
            )
        )
    warnings = left_out + eligibility(con, target, keys)
    already = sum(1 for k in keys if k in before)
    return Advanced(target, chosen, ties, warnings, already, len(before | set(keys)))


def advancements(con: duckdb.DuckDBPyConnection, event: str) -> pl.DataFrame:
    """The advance rules that feed ``event`` or that it feeds, newest first:
    ``from_event, to_event, top, per_group, players, advanced_at, advanced_by``."""
    return frame(
        con.sql(
            'SELECT from_event, to_event, "top", per_group, players, advanced_at, advanced_by '
            "FROM advancements WHERE from_event = ? OR to_event = ? ORDER BY advanced_at DESC, from_event",
            params=[event, event],
        )
    )


# --- substitutes (rule 23) -------------------------------------------------------------------


def substitutes(
    con: duckdb.DuckDBPyConnection, event: str | None = None, player_key: str | None = None
) -> pl.DataFrame:
    """``event, round, table, player_key, player, reserve_for, replaces, title`` — every
    reserve who played (of ``event``, or only ``player_key``), the group they are a reserve
    of, whom the hand log says they replaced (where it says nobody, the event's roster), and
    the event's title (its id where it has none)."""
    reserves = frame(
        con.sql(
            'SELECT DISTINCT m.event, t.round, t."table", m.player_key, p.player, m."group" AS reserve_for, '
            "coalesce(e.title, m.event) AS title "
            "FROM event_members m JOIN table_standings_t t ON t.event = m.event AND t.player_key = m.player_key "
            "JOIN players p ON p.player_key = m.player_key JOIN events e ON e.event = m.event "
            "WHERE m.role = 'reserve' AND (CAST(? AS VARCHAR) IS NULL OR m.event = ?) "
            "AND (CAST(? AS VARCHAR) IS NULL OR m.player_key = ?)",
            params=[event, event, player_key, player_key],
        )
    )
    named = _replaces(con, reserves)
    out = reserves.join(named, on=["event", "round", "table", "player_key"], how="left")
    # where the sheet names nobody, the roster's record (domino event roster: replaces)
    roster = frame(
        con.sql(
            "SELECT e.event, e.player_key, coalesce(r.player, e.replaces) AS on_roster "
            "FROM entrants e LEFT JOIN registry r ON r.player_key = e.replaces "
            "WHERE e.replaces IS NOT NULL AND (CAST(? AS VARCHAR) IS NULL OR e.event = ?) "
            "AND (CAST(? AS VARCHAR) IS NULL OR e.player_key = ?)",
            params=[event, event, player_key, player_key],
        )
    )
    out = (
        out.join(roster, on=["event", "player_key"], how="left")
        .with_columns(pl.coalesce("replaces", "on_roster").alias("replaces"))
        .drop("on_roster")
    )
    return out.sort("event", "round", "table", "player")


def _replaces(con: duckdb.DuckDBPyConnection, reserves: pl.DataFrame) -> pl.DataFrame:
    """Whom each seated reserve replaced, from the hand log's ``replaces_x`` columns of the
    current versions of the reserves' matches (the first such cell of a match)."""
    keys = ["event", "round", "table"]
    schema = {**dict.fromkeys(keys, pl.String), "player_key": pl.String, "replaces": pl.String}
    if reserves.height == 0:
        return pl.DataFrame(schema=schema)
    register(con, "_reserve_matches", reserves.select(keys).unique())
    try:
        rows = frame(
            con.sql(
                'SELECT h.event, h.round, h."table", h.hand, h.player_a, h.player_b, h.player_c, '
                "h.player_d, h.key_a, h.key_b, h.key_c, h.key_d, h.extra FROM hands h "
                'JOIN match_versions v USING (event, round, "table", version) '
                'JOIN _reserve_matches m USING (event, round, "table") '
                "WHERE v.current AND h.extra IS NOT NULL"
            )
        )
    finally:
        con.unregister("_reserve_matches")
    # a cell written as none (empty, a dash) names nobody, as the load's check reads it
    found = seats_long(rows, [*keys, "hand"], replaces=True).drop_nulls("replaces")
    # the member as the registry spells them (a sheet may write "hadi" or an alias), as
    # the roster's record is named in substitutes()
    registered = frame(con.sql("SELECT player_key AS _rk, player AS _as FROM registry"))
    return (
        found.sort("hand")
        .unique([*keys, "player_key"], keep="first", maintain_order=True)
        .with_columns(player_key(pl.col("replaces"), alias_map(con)).alias("_rk"))
        .join(registered, on="_rk", how="left")
        .with_columns(pl.coalesce("_as", "replaces").alias("replaces"))
        .select(list(schema))
        .cast(pl.Schema(schema))
    )


def reserve_of(con: duckdb.DuckDBPyConnection, key: str) -> str | None:
    """The group a player is a registered reserve of (any league), for the player page."""
    rows = con.execute(
        "SELECT min(reserve_for) FROM league_players WHERE player_key = ?", [key]
    ).fetchall()
    return rows[0][0] if rows else None
