"""The query batches behind each page: one read-only connection each (see dashboard.data).

A batch only calls :mod:`pipeline.standings.queries` and :mod:`pipeline.standings.stats`; it returns plain
frames and values that the page shows. Arguments are hashable (they are cache keys).
"""

from collections import Counter
from typing import Any

import duckdb
import polars as pl

from pipeline import draws, league, rulesets, settings
from pipeline.events import find as find_events
from pipeline.standings import bracket, queries, stats

AUTO = "__auto__"  # "follow the newest round" on the leaderboard


def events(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    return queries.events(con)


def event_choice(
    con: duckdb.DuckDBPyConnection, evs: pl.DataFrame, wanted: str | None
) -> dict[str, Any]:
    """The event a page shows (``event``) and what its picker lists (``events``).

    ``wanted`` is an event's id (a choice, or the address), else text typed into the
    picker: then the newest event whose id or title contains it, and ``search`` says
    what was looked for, how many events matched and the first ``picker_events`` of them
    (the picker lists them while the event found is shown). Otherwise the newest event with
    results: one created for next week does not blank the screens. The picker lists
    the newest ``picker_events`` events and the one shown: in a list of thousands named
    alike every keystroke matches and sorts them all (150 ms a key at 3,126 in Chromium)."""
    names = evs.get_column("event").to_list()
    out: dict[str, Any] = {}
    if wanted in names:
        ev: str | None = wanted
    else:
        found = find_events(con, wanted) if wanted else []
        if wanted:
            out["search"] = (wanted, len(found), newest(found))
        played = evs.filter(pl.col("matches") > 0).get_column("event").to_list()
        ev = found[0] if found else played[0] if played else (names[0] if names else None)
    listed = newest(names)
    # the event shown goes last: the first is the picker's default, which the address omits
    out.update(events=listed if ev is None or ev in listed else [*listed, ev], event=ev)
    return out


def newest(events: list[str]) -> list[str]:
    """The first ``picker_events`` of ``events`` (newest first), or all when it is 0: what
    an event picker lists."""
    limit = int(settings.get("picker_events"))
    return events[:limit] if limit > 0 else events


def player_index(people: pl.DataFrame) -> dict[str, Any]:
    """What a player picker needs of ``people`` (:func:`player_list`, in name order),
    made once per value of it: each key's ``labels`` (:func:`shown_names`), the key of
    each label (``by_label``) and the ``picker_players`` who played most (``listed``, in
    name order; all of them when the setting is 0), and each key's ``groups``."""
    labels = shown_names(people)
    limit = int(settings.get("picker_players"))
    listed = people.get_column("player_key")
    if limit > 0:
        most = people.sort(["hands", "player_key"], descending=[True, False]).head(limit)
        listed = listed.filter(listed.is_in(most.get_column("player_key").implode()))
    return {
        "people": people,
        "labels": labels,
        "by_label": {v: k for k, v in labels.items()},
        "groups": dict(
            zip(people.get_column("player_key"), people.get_column("group"), strict=True)
        ),
        "listed": listed.to_list(),
        "limit": limit,
    }


def player_choice(
    index: dict[str, Any], wanted: str | None, *, without: str | None = None, optional: bool = False
) -> dict[str, Any]:
    """The player a picker shows (``player``; "" for nobody when ``optional``) and what it
    lists (``players``), from a :func:`player_index`, never ``without``.

    ``wanted`` is a player's key or the name the picker shows (a shared address), else
    text typed into the picker: then the first player :func:`stats.find_players` finds,
    and ``search`` says what was looked for, how many players matched and the first
    ``picker_players`` of them. The picker lists the ``picker_players`` who played most,
    by name, and the one shown: a list of thousands costs the browser on every visit (two
    pickers of 2,491 players made a player page 0.4 s slower to show in Chromium)."""
    labels, limit = index["labels"], index["limit"]
    listed = [k for k in index["listed"] if k != without]
    default = "" if optional else (listed[0] if listed else None)
    out: dict[str, Any] = {}
    if wanted in labels and wanted != without:
        shown: str | None = wanted
    elif wanted in index["by_label"] and index["by_label"][wanted] != without:
        shown = index["by_label"][wanted]
    elif wanted and wanted != without:
        found = [k for k in stats.find_players(index["people"], wanted) if k != without]
        out["search"] = (wanted, len(found), found[:limit] if limit > 0 else found)
        shown = found[0] if found else default
    else:
        shown = default
    head = [""] if optional else []
    # the player shown goes last: the first is the picker's default, which the address omits
    players = [
        *head,
        *listed,
        *([shown] if shown is not None and shown not in head + listed else []),
    ]
    out.update(players=players, player=shown)
    return out


def shown_names(people: pl.DataFrame) -> dict[str, str]:
    """Each player key's name as a picker shows it, and its address carries it
    (``?player=Name``); a name two players share gets its key after it."""
    names = people.get_column("player").to_list()
    keys = people.get_column("player_key").to_list()
    shared = {n for n, c in Counter(names).items() if c > 1}
    return {k: (f"{n} · {k}" if n in shared else n) for k, n in zip(keys, names, strict=True)}


def leaderboard(
    con: duckdb.DuckDBPyConnection, event: str | None, round: str | None
) -> dict[str, Any]:
    """Everything the live leaderboard shows for one event and round (AUTO: the newest)."""
    out = event_choice(con, queries.events(con), event)
    ev = out["event"]
    if ev is None:
        return out
    rs = queries.ruleset_of(con, ev)
    rounds = queries.rounds(con, ev)
    all_tables = queries.standings(con, ev, "table")
    played = [r for r in rounds if r in set(all_tables.get_column("round").to_list())]
    # AUTO follows the newest round with results (a round drawn and not yet played waits)
    rnd = round if round in rounds else (played[-1] if played else None)
    params = rulesets.load(rs).flat
    out.update(
        ruleset=rs,
        rounds=rounds,
        round=rnd,
        auto=round not in rounds,
        qualifiers=int(params.get("qualifiers_per_table", 0) or 0),
        regular_hands=int(params.get("regular_hands", 0) or 0),
        tables=queries.standings(con, ev, "table", rnd) if rnd else pl.DataFrame(),
        session=queries.standings(con, ev, "round", rnd)
        if rnd and "round" in rulesets.load(rs).levels
        else None,
        # the round picker applies to every tab: a round picked by hand shows the event
        # (and group) standings after that round; following the newest, the whole event
        event_standings=bracket.event_after(con, ev, rnd)
        if rnd and round == rnd
        else queries.standings(con, ev, "event"),
        all_tables=all_tables,
        groups=(
            bracket.groups_after(con, ev, rnd)
            if rnd and round == rnd
            else queries.standings(con, ev, "group")
        )
        if "group" in rulesets.load(rs).levels
        else None,
        advancements=league.advancements(con, ev).to_dicts(),
    )
    # the final table's marks are places, not qualification (bracket.final_round)
    out["final"] = rnd is not None and bracket.final_round(con, ev) == rnd
    drawn = draws.drawn_rounds(con, ev)
    seat = seating_round(rounds, played, drawn, rnd, picked=round in rounds)
    out.update(
        # what "Newest" names, whatever is picked: the newest round with results (sessions
        # drawn in advance are not played), else the drawn one whose seating it lists
        newest=played[-1] if played else seating_round(rounds, played, drawn, None, picked=False),
        seating_round=seat,
        # a session still missing tables is in progress: "2 of 3 tables in" (pepet)
        tables_in=queries.tables_in(con, ev, rnd) if rnd else None,
        seating=draws.waiting(con, ev, seat) if seat else pl.DataFrame(),
    )
    return out


def seating_round(
    rounds: list[str], played: list[str], drawn: set[str], shown: str | None, *, picked: bool
) -> str | None:
    """The round whose waiting tables the leaderboard lists (who sits where, before play):
    the round picked by hand; following the newest, the first drawn round after the newest
    round with results (R2 drawn once R1 is over; S2 of sessions drawn in advance once S1
    has results, S1 before any), else that round itself (its tables not started yet).
    None when it has no draw."""
    if picked:
        return shown if shown in drawn else None
    after = rounds[rounds.index(shown) + 1 :] if shown in rounds else rounds
    later = [r for r in after if r in drawn and r not in played]
    if later:
        return later[0]
    return shown if shown in drawn else None


def road(con: duckdb.DuckDBPyConnection, event: str | None) -> dict[str, Any]:
    """The road to the final of one event: every table of every round, and the podium."""
    out = event_choice(con, queries.events(con), event)
    ev = out["event"]
    if ev is None:
        return out
    played = queries.rounds(con, ev)
    final, why = bracket.final_state(con, ev, played)
    out.update(
        road=bracket.road(con, ev, final=final),
        podium=bracket.podium(con, ev, final=final),
        why_no_final=why,
        last_round=played[-1] if played else None,
        qualification=rulesets.load(queries.ruleset_of(con, ev)).shows("qualification"),
    )
    return out


def player_list(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    return stats.players(con)


def player(con: duckdb.DuckDBPyConnection, key: str) -> dict[str, Any]:
    reserve_for = league.reserve_of(con, key)
    return {
        "events": stats.player_events(con, key),
        "matches": stats.player_matches(con, key),
        "categories": stats.player_categories(con, key),
        "fed": stats.player_fed(con, key),
        "chairs": stats.player_chairs(con, key),
        "timeline": stats.player_timeline(con, key),
        "reserve_for": reserve_for,
        # the matches played as a reserve, and whom for (rule 23); a reserve's only
        "replaced": league.substitutes(con, player_key=key) if reserve_for else None,
    }


def event_stats(con: duckdb.DuckDBPyConnection, event: str | None) -> dict[str, Any]:
    out = event_choice(con, queries.events(con), event)
    ev = out["event"]
    if ev is None:
        return out
    rs = queries.ruleset_of(con, ev)
    points, default = stats.point_table(rs)
    out.update(
        ruleset=rs,
        endings=stats.endings(con, ev),
        categories=stats.categories(con, ev),
        pips=stats.pips_left(con, ev),
        hand_spread=stats.hand_points_spread(con, ev),
        match_points=stats.match_points(con, ev),
        tables=stats.table_summary(con, ev),
        rounds=stats.round_summary(con, ev),
        groups=queries.standings(con, ev, "group") if "group" in rulesets.load(rs).levels else None,
        point_table=points,
        points_are_default=default,
    )
    return out


def ingest_log(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    return queries.ingest_log(con, 100)
