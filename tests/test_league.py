"""Leagues (issue 15): a registry per league with dated memberships, the import's diff and
``--apply --reason``, substitutes (rule 23), eligibility warnings and ``domino advance``.

Expected values are worked out by hand from RULES.md (pepet points: jawara1 3, jawara2 2,
jawara3 1, ambyar 0; a group is the sum of its members; membership on the event's date).
"""

from pathlib import Path

import pytest
from click.testing import CliRunner

from pipeline.cli import cli
from pipeline.demo import load_samples
from pipeline.league import Refused, advance, advancements, create_events, eligibility, substitutes
from pipeline.players import import_registry, read_registry
from pipeline.registry import apply_import, plan_import
from pipeline.scoring.rescore import rescore
from pipeline.store.db import connect
from tests.rules_helpers import csv_text, hand, load, statuses

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"
EXAMPLE_REGISTRY = Path("/work/shared/examples/pepet/players.csv")
EXAMPLE_TEXT = """player,group,city,aliases
Oki Saputra,KG Tamalate,Makassar,
Sitti Rauf,KG Tamalate,Makassar,
Eko Hamzah,KG Biringkanaya,Makassar,Eko H.;E. Hamzah
"""


def ph(n, by, ending, **kw):
    kw.setdefault("round", "S1")
    return hand(n, by, ending, ruleset="pepet", **kw)


def registry(con, tmp_path, text: str, league: str = "default", name="players.csv") -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    import_registry(con, read_registry(path), league)
    rescore(con)


def groups(con, event: str) -> list[tuple]:
    return sorted(
        con.execute(
            'SELECT "group", points, hands, players, rank, reserves FROM group_standings WHERE event = ?',
            [event],
        ).fetchall()
    )


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# --- the report: the worked example's registry into the demo database ----------------


@pytest.fixture
def demo_db(tmp_path):
    db = tmp_path / "demo.duckdb"
    load_samples(db, SAMPLES)
    return db


def test_example_registry_into_the_demo_league_changes_nothing_without_apply(demo_db, tmp_path):
    reg = tmp_path / "players.csv"
    reg.write_text(
        EXAMPLE_REGISTRY.read_text() if EXAMPLE_REGISTRY.exists() else EXAMPLE_TEXT, "utf-8"
    )
    ev = "pepet-liga-makassar"
    with connect(demo_db, read_only=True) as c:
        before = groups(c, ev)
        oki = c.execute(
            "SELECT points FROM event_standings WHERE event = ? AND player = 'Oki Saputra'", [ev]
        ).fetchone()[0]
    # the report: KG Panakkukang has 113 points, Oki Saputra (18 of them) is its member
    assert [g[:2] for g in before if g[0] == "KG Panakkukang"] == [("KG Panakkukang", 113)]
    assert oki == 113 - 95
    res = run("players", "import", str(reg), "--league", "demo", "--db", str(demo_db))
    assert res.exit_code == 1
    lines = [ln.strip() for ln in res.stdout.splitlines()[1:]]
    assert lines == [
        f"Oki Saputra moves from KG Panakkukang to KG Tamalate in event {ev}",
        f"event {ev}, group standings, KG Panakkukang: 113 points, rank 1 -> 95 points, rank 1",
        f"event {ev}, group standings, KG Tamalate: no row -> {oki} points, rank 5",
    ]
    with connect(demo_db, read_only=True) as c:
        assert groups(c, ev) == before
        assert c.execute("SELECT count(*) FROM registry_history").fetchone()[0] == 0
    none = run("league", "history", "--db", str(demo_db))
    assert none.exit_code == 0 and none.stdout == ""
    assert none.stderr == "no registry imports yet: import one with domino players import\n"
    # confirmed with a reason: applied, and the history keeps the reason and the diff
    res = run(
        "players",
        "import",
        str(reg),
        "--league",
        "demo",
        "--apply",
        "--reason",
        "KG moved",
        "--db",
        str(demo_db),
    )
    assert res.exit_code == 0, res.output
    with connect(demo_db, read_only=True) as c:
        after = dict((g[0], g[1]) for g in groups(c, ev))
        assert after["KG Panakkukang"] == 95 and after["KG Tamalate"] == oki
        (reason, changes) = c.execute(
            "SELECT reason, changes FROM registry_history WHERE league = 'demo'"
        ).fetchone()
    assert reason == "KG moved" and "113 points, rank 1 -> 95 points" in changes
    # `domino league history` tells the same: the import, then what it changed, indented
    told = run("league", "history", "--db", str(demo_db))
    assert told.exit_code == 0 and told.stderr == ""
    first, *diff = told.stdout.splitlines()
    assert first.startswith("#1 ") and " league demo players.csv by " in first, first
    assert first.endswith("players; reason: KG moved"), first
    assert f"    Oki Saputra moves from KG Panakkukang to KG Tamalate in event {ev}" in diff


def test_the_example_registry_in_another_league_applies_at_once(demo_db, tmp_path):
    reg = tmp_path / "players.csv"
    reg.write_text(EXAMPLE_TEXT, "utf-8")
    with connect(demo_db, read_only=True) as c:
        before = groups(c, "pepet-liga-makassar")
    res = run("players", "import", str(reg), "--db", str(demo_db))
    assert res.exit_code == 0, res.output
    with connect(demo_db, read_only=True) as c:
        assert groups(c, "pepet-liga-makassar") == before


def test_a_generated_pepet_event_after_the_demo_is_not_rejected(demo_db, tmp_path):
    out = tmp_path / "gen"
    assert run("generate", "--ruleset", "pepet", "--seed", "7", "--out", str(out)).exit_code == 0
    res = run("ingest", *map(str, sorted(out.iterdir())), "--db", str(demo_db))
    assert res.exit_code == 0, res.output
    assert "unregistered" not in res.output and " 0 rejected" in res.output


# --- membership on the event's date ------------------------------------------------------------

DATED = """player,group,member_since
Ana,KG Alpha,
Ana,KG Beta,2026-06-01
Budi,KG Alpha,
Cici,KG Beta,
Dedi,KG Beta,
"""
# h1 out by Ana: Ana 3 (jawara1); Budi 5 -> jawara2 2; Cici 10 -> jawara3 1; Dedi 20 -> 0
ONE_HAND = [ph(1, "A", "out", pips=(None, 5, 10, 20), seats=("Ana", "Budi", "Cici", "Dedi"))]


def dated_events(con, tmp_path) -> None:
    for ev, day in (("e-may", "2026-05-01"), ("e-jun", "2026-06-15")):
        plan = load(con, tmp_path, [{**r, "event": ev} for r in ONE_HAND], name=f"{ev}.csv")
        assert plan.errors.height == 0, plan.errors.to_dicts()
        con.execute("UPDATE events SET event_date = ? WHERE event = ?", [day, ev])


def test_group_is_the_membership_in_force_on_the_event_date(store, con, tmp_path):
    registry(con, tmp_path, DATED)
    dated_events(con, tmp_path)
    # May: Ana still in KG Alpha: Alpha 3 + 2 = 5 (2 players), Beta 1 + 0 = 1
    assert groups(con, "e-may") == [("KG Alpha", 5, 2, 2, 1, 0), ("KG Beta", 1, 2, 2, 2, 0)]
    # June: Ana in KG Beta from June 1: Alpha 2 (Budi), Beta 3 + 1 + 0 = 4
    assert groups(con, "e-jun") == [("KG Alpha", 2, 1, 1, 2, 0), ("KG Beta", 4, 3, 3, 1, 0)]


def test_a_later_membership_keeps_finished_events_and_applies_at_once(store, con, tmp_path):
    registry(con, tmp_path, DATED)
    dated_events(con, tmp_path)
    before = {ev: groups(con, ev) for ev in ("e-may", "e-jun")}
    later = tmp_path / "later.csv"
    later.write_text("player,group,member_since\nBudi,KG Beta,2026-07-01\n", "utf-8")
    plan = plan_import(con, read_registry(later))
    assert not plan.needs_reason and plan.lines() == []
    apply_import(con, read_registry(later))
    assert {ev: groups(con, ev) for ev in ("e-may", "e-jun")} == before
    # the same move without a date rewrites history: both events' rows named, nothing changed
    always = tmp_path / "always.csv"
    always.write_text("player,group\nBudi,KG Beta\n", "utf-8")
    plan = plan_import(con, read_registry(always))
    assert plan.needs_reason
    assert [ln for ln in plan.lines() if "standings" in ln] == [
        "event e-jun, group standings, KG Alpha: 2 points, rank 2 -> no row",
        "event e-jun, group standings, KG Beta: 4 points, rank 1 -> 6 points, rank 1",
        "event e-may, group standings, KG Alpha: 5 points, rank 1 -> 3 points, rank 1",
        "event e-may, group standings, KG Beta: 1 points, rank 2 -> 3 points, rank 1",
    ]
    assert {ev: groups(con, ev) for ev in ("e-may", "e-jun")} == before


# --- substitutes (rule 23) ---------------------------------------------------------------------


def test_a_reserve_plays_for_the_group_with_their_own_points(con, tmp_path):
    registry(
        con,
        tmp_path,
        "player,group,reserve_for\nAna,KG Alpha,\nBudi,KG Alpha,\n"
        "Cici,KG Beta,\nDedi,KG Beta,\nRudi,,KG Alpha\n",
    )
    rows = [ph(1, "A", "out", pips=(None, 5, 10, 20), seats=("Ana", "Rudi", "Cici", "Dedi"))]
    text = csv_text(rows).splitlines()
    path = tmp_path / "sub.csv"
    path.write_text("\n".join([text[0] + ",ganti_b", text[1] + ",Budi"]) + "\n", "utf-8")
    from pipeline.ingest import ingest

    assert statuses(ingest(con, [path])) == {"1": "new"}
    # Rudi (chair B, 5) is jawara2: 2 points, his own, counted for KG Alpha: 3 + 2 = 5,
    # 2 players of whom 1 reserve; KG Beta 1 + 0 = 1
    assert con.execute("SELECT points FROM event_standings WHERE player = 'Rudi'").fetchone() == (
        2,
    )
    assert groups(con, "ev") == [("KG Alpha", 5, 2, 2, 1, 1), ("KG Beta", 1, 2, 2, 2, 0)]
    subs = substitutes(con, "ev").select("player", "reserve_for", "replaces").to_dicts()
    assert subs == [{"player": "Rudi", "reserve_for": "KG Alpha", "replaces": "Budi"}]


# --- eligibility -----------------------------------------------------------------------------------

#: Ana turns 17 on 2026-05-02, Budi on 2026-05-01; Cici is Malaysian, Dedi WNI.
BORN = (
    "player,group,birth_date,citizenship\n"
    "Ana,KG Alpha,2009-05-02,Indonesia\nBudi,KG Alpha,2009-05-01,\n"
    "Cici,KG Beta,,Malaysia\nDedi,KG Beta,,WNI\n"
)


def test_eligibility_warns_naming_the_player(con, tmp_path):
    registry(con, tmp_path, BORN)
    dated_events(con, tmp_path)
    # on 2026-05-01 Ana is 16 (17 the next day), Budi 17 that day; Cici is not Indonesian
    assert eligibility(con, "e-may") == [
        "Ana is 16 on 2026-05-01 (born 2009-05-02); event e-may admits players of 17 or older.",
        "Cici's citizenship is Malaysia; event e-may admits Indonesia, Indonesian, WNI citizens.",
    ]
    assert len(eligibility(con, "e-jun")) == 1  # Ana is 17 by June


def test_the_eligibility_of_a_loads_events_is_asked_at_once(store, con, tmp_path, monkeypatch):
    """A load's warnings come from one set of queries for all its events (a season's
    rebuild asked three per event): by event name, each event's ages then citizenships.
    Worked by hand as above: in May Ana is 16 and Cici Malaysian; in June Ana is 17."""
    from pipeline import league

    registry(con, tmp_path, BORN)
    dated_events(con, tmp_path)
    monkeypatch.setattr(league, "_event_info", None)  # never asked event by event
    assert league.eligibility_of(con, ["e-may", "e-jun", "no-such-event"]) == [
        "Cici's citizenship is Malaysia; event e-jun admits Indonesia, Indonesian, WNI citizens.",
        "Ana is 16 on 2026-05-01 (born 2009-05-02); event e-may admits players of 17 or older.",
        "Cici's citizenship is Malaysia; event e-may admits Indonesia, Indonesian, WNI citizens.",
    ]
    assert league.eligibility_of(con, []) == []


def test_a_loads_eligibility_is_said_before_it_is_written(store, con, tmp_path):
    """A dry run and an upload's preview say what the load will warn of once written: the
    players of the matches it would write, on the event's date; an event it would create
    plays on the day it is created. Worked by hand (pepet: 17 or older, Indonesian): on
    2026-05-01 Ana (born 2009-05-02) is 16 and Cici is Malaysian; today (after
    2026-05-02) Ana is 17 or older, so a new event warns of Cici only."""
    from datetime import date

    from pipeline import events, league
    from pipeline.ingest import preview
    from tests.rules_helpers import write_log

    registry(con, tmp_path, BORN)
    events.save(con, "e-dated", "pepet", event_date=date(2026, 5, 1))
    said = {}
    for ev in ("e-dated", "e-new"):
        rows = [{**r, "event": ev} for r in ONE_HAND]
        plan = preview(con, [write_log(tmp_path, rows, f"{ev}.csv")]).plan
        assert plan.written_events == [ev] and list(plan.new_events) == [ev] * (ev == "e-new")
        said[ev] = league.eligibility_planned(con, plan)
        assert league.eligibility_of(con, [ev]) == []  # nothing of it is stored yet
        assert load(con, tmp_path, rows, name=f"{ev}.csv").errors.height == 0
        assert league.eligibility_of(con, [ev]) == said[ev], "the save says what the preview said"
    assert said == {
        "e-dated": [
            "Ana is 16 on 2026-05-01 (born 2009-05-02); event e-dated admits players of 17 or "
            "older.",
            "Cici's citizenship is Malaysia; event e-dated admits Indonesia, Indonesian, WNI "
            "citizens.",
        ],
        "e-new": [
            "Cici's citizenship is Malaysia; event e-new admits Indonesia, Indonesian, WNI "
            "citizens."
        ],
    }
    # the same file again writes nothing, so it warns of nothing, before or after
    again = preview(con, [tmp_path / "e-dated.csv"]).plan
    assert again.written_events == [] and league.eligibility_planned(con, again) == []


# --- levels: domino advance --------------------------------------------------------------------------


def session(event: str, tables: int = 3) -> list[dict]:
    """S1 of ``event``: table t seats Pt1..Pt4; each one hand out by chair A with pips 5, 10, 20:
    Pt1 3, Pt2 2, Pt3 1, Pt4 0."""
    return [
        ph(
            1,
            "A",
            "out",
            pips=(None, 5, 10, 20),
            seats=tuple(f"P{t}{i}" for i in range(1, 5)),
            table=str(t),
            event=event,
        )
        for t in range(1, tables + 1)
    ]


def test_advance_top_n_with_ties_and_per_group(con, tmp_path):
    load(con, tmp_path, session("kg1"), name="kg1.csv")
    create_events(con, {"kota": "pepet"}, "default", "test")
    # event ranks: P11, P21, P31 3 points and a star each: rank 1; P12, P22, P32 rank 4 …
    done = advance(con, ["kg1"], "kota", 2, by="jury")
    assert sorted(done.qualifiers.get_column("player")) == ["P11", "P21", "P31"]
    assert done.ties == ["kg1: 3 players for 2 places, tied at rank 1 (P11, P21, P31); all go in"]
    entrants = con.execute(
        "SELECT player, source FROM entrants WHERE event = 'kota' ORDER BY 1"
    ).fetchall()
    assert entrants == [(p, "advance from kg1") for p in ("P11", "P21", "P31")]
    rule = advancements(con, "kg1").select("from_event", "to_event", "top", "per_group", "players")
    assert rule.to_dicts() == [
        {"from_event": "kg1", "to_event": "kota", "top": 2, "per_group": False, "players": 3}
    ]
    assert advancements(con, "kota").height == 1  # shown on both events
    # per group: tables' second places form KG B; the top 1 of each group
    registry(
        con,
        tmp_path,
        "player,group\n"
        + "".join(
            f"P{t}{i},{'KG B' if i == 2 else 'KG A'}\n" for t in (1, 2, 3) for i in (1, 2, 3, 4)
        ),
    )
    create_events(con, {"kota2": "pepet"}, "default", "test")
    done = advance(con, ["kg1"], "kota2", 1, per_group=True)
    assert sorted(done.qualifiers.get_column("player")) == [
        "P11",
        "P12",
        "P21",
        "P22",
        "P31",
        "P32",
    ]


def test_advance_refusals(con, tmp_path):
    load(con, tmp_path, session("kg1", tables=2), name="kg1.csv")
    with pytest.raises(Refused, match="event nowhere does not exist"):
        advance(con, ["kg1"], "nowhere", 2)
    create_events(con, {"kota": "pepet"}, "default", "test")
    with pytest.raises(Refused, match="round S1 of event kg1 has 2 of 3 tables in"):
        advance(con, ["kg1"], "kota", 2)


def _said(text: str) -> str:
    return " ".join(text.split())


def test_a_registry_in_another_league_is_named_wherever_groups_are_wanted(store, tmp_path):
    """Before: a registry imported with ``--league mks`` left kg1 (in the league
    ``default``) without a group, unheard: ``advance --per-group`` put "0 players" into the
    next level's event, exit 0; ``standings --level group`` was an empty table; no load said
    why. Now the load warns once, the advance refuses and the standings say why, each naming
    the league that holds the players and the command that puts the event there."""
    rows = "".join(
        f"P{t}{i},{'' if (t, i) in ((1, 4), (2, 4)) else 'KG B' if i == 2 else 'KG A'}\n"
        for t in (1, 2, 3)
        for i in (1, 2, 3, 4)
    )
    with connect(store) as c:
        registry(c, tmp_path, "player,group\n" + rows, league="mks")
        plan = load(c, tmp_path, session("kg1"), name="kg1.csv")
        create_events(c, {"kota": "pepet"}, "mks", "test")
        day = c.execute(
            "SELECT CAST(created_at AS DATE) FROM events WHERE event = 'kg1'"
        ).fetchall()
    assert statuses(plan) == {"1": "new", "2": "new", "3": "new"}  # a warning: it loads
    assert [
        (p["file"], p["line"], p["column"], p["severity"], p["message"])
        for p in plan.problems.iter_rows(named=True)
    ] == [
        (
            "kg1.csv",
            2,
            "event",
            "warning",
            "event kg1 is in league default, which has no player registry, while 12 of the "
            "players it seats are registered in league mks: its groups (KG), reserves and "
            "registry checks follow its own league only; domino league set mks kg1 (or the Player "
            "registry page) puts it there",
        )
    ]
    db = store
    why = (
        "event kg1 is in league default, which has no player registry, so none of its players "
        "is in a group; 12 of its players are registered in league mks: domino league set mks "
        "kg1 puts the event there"
    )
    res = run("advance", "--from", "kg1", "--to", "kota", "--top", "1", "--per-group", "--db", db)
    assert (res.exit_code, _said(res.stderr)) == (
        1,
        f"✗ {why}; --per-group has no group to take the top of (or advance without it).",
    )
    res = run("standings", "--event", "kg1", "--level", "group", "--db", db)
    assert res.exit_code == 0 and f"note: {why}." in _said(res.stderr)
    with connect(store, read_only=True) as c:
        assert c.execute("SELECT count(*) FROM advancements").fetchall() == [(0,)]
    # the move changes kg1's standings (its players gain groups): shown, then confirmed
    res = run("league", "set", "mks", "kg1", "--db", db)
    assert res.exit_code == 1 and "Nothing was changed" in res.stderr
    said = res.stdout.splitlines()
    assert said[:3] == [
        "Putting these events in league mks would change loaded standings:",
        "  event kg1 moves from league default to league mks",
        "  P11 moves from no group to KG A in event kg1",
    ]
    assert said[-2:] == [
        "  event kg1, group standings, KG A: no row -> 12 points, rank 1",
        "  event kg1, group standings, KG B: no row -> 6 points, rank 2",
    ]
    res = run(
        "league",
        "set",
        "mks",
        "kg1",
        "--apply",
        "--reason",
        "its registry",
        "--by",
        "ana",
        "--db",
        db,
    )
    assert res.exit_code == 0 and res.stdout.splitlines() == [*said[1:], "1 event(s) in league mks"]
    with connect(store, read_only=True) as c:
        kept = c.execute("SELECT league, reason, players, changes FROM registry_history").fetchall()
    assert kept[-1] == ("mks", "its registry", 0, "\n".join(x.strip() for x in said[1:]))
    told = run("league", "history", "--db", db).stdout.splitlines()
    assert told[-len(said)].endswith(
        "league mks by ana: events moved into it; reason: its registry"
    )
    # its players in a group advance; the two in none are named, not dropped unheard
    res = run("advance", "--from", "kg1", "--to", "kota", "--top", "1", "--per-group", "--db", db)
    assert res.exit_code == 0, res.output
    assert _said(res.stderr) == (
        f"warning: kg1: 2 player(s) in no group of league mks on {day[0][0]} cannot advance "
        "per group (P14, P24)"
    )
    assert "6 players advance to kota (top 1 per group of kg1)" in res.stdout
    # a next level left in the league default would have no groups: said
    res = run("event", "create", "kota2", "--ruleset", "pepet", "--db", db)
    res = run("advance", "--from", "kg1", "--to", "kota2", "--top", "1", "--db", db)
    assert res.exit_code == 0, res.output
    assert _said(res.stderr) == (
        "warning: kota2 is in league default, its sources in league mks: its groups (KG) are "
        "read from league default's registry; if it belongs with them, domino league set mks kota2"
    )
    # a loaded event changes league only through league set, which shows the diff first
    res = run("event", "create", "kg1", "--ruleset", "pepet", "--league", "default", "--db", db)
    assert (res.exit_code, _said(res.stderr)) == (
        1,
        "✗ event kg1 has loaded results in league mks: move it with domino league set default "
        "kg1, which shows what its standings would change first.",
    )
    # an event created in the league (event create --league) loads without the warning
    res = run("event", "create", "kg2", "--ruleset", "pepet", "--league", "mks", "--db", db)
    assert (res.exit_code, res.stdout.strip()) == (0, "event kg2 created (pepet; league mks)")
    assert run("event", "show", "kg2", "--db", db).stdout.splitlines()[1] == (
        "pepet · league mks · 0 entrant(s)"
    )
    with connect(store) as c:
        plan = load(c, tmp_path, session("kg2"), name="kg2.csv")
        assert plan.problems.height == 0
        # KG A: P11, P21, P31 3 each, P13, P23, P33 1 each, P34 0; KG B: P12, P22, P32 2 each
        assert [g[:2] for g in groups(c, "kg2")] == [("KG A", 12), ("KG B", 6)]


def test_a_registry_import_names_the_events_its_players_played_outside_any_registry(
    store, tmp_path
):
    """The moment the mismatch is made: a registry imported into league mks whose players
    played kg1, a pepet event of a league without a registry, says so with the command
    that puts kg1 in mks; an unhas event (no groups) is not named, and once kg1 is in the
    league the import says nothing more."""
    with connect(store) as c:
        load(c, tmp_path, session("kg1"), name="kg1.csv")
        load(c, tmp_path, [hand(1, "A", "biasa", seats=("P11", "P12", "P13", "P14"), event="cup")])
    reg = tmp_path / "reg.csv"
    reg.write_text("player,group\n" + "".join(f"P{t}1,KG A\n" for t in (1, 2, 3)), "utf-8")
    db = store
    res = run("players", "import", str(reg), "--league", "mks", "--db", db)
    assert res.exit_code == 0, res.output
    assert _said(res.stderr) == (
        "note: 1 event(s) these players played are in a league without a registry, so without "
        "groups (KG): kg1; domino league set mks kg1 puts them in league mks"
    )
    res = run("league", "set", "mks", "kg1", "--apply", "--reason", "its registry", "--db", db)
    assert res.exit_code == 0, res.output
    res = run("players", "import", str(reg), "--league", "mks", "--db", db)
    assert (res.exit_code, res.stderr) == (0, "")


def test_advance_command_says_ties_and_refuses_in_one_sentence(db_path, tmp_path):
    with connect(db_path) as c:
        load(c, tmp_path, session("kg1"), name="kg1.csv")
        load(c, tmp_path, session("kg2", tables=2), name="kg2.csv")
        create_events(c, {"kota": "pepet"}, "default", "test")
    db = str(db_path)
    res = run("advance", "--from", "kg1", "--to", "kota", "--top", "2", "--db", db)
    assert res.exit_code == 0, res.output
    assert "tie at the cut: kg1: 3 players for 2 places, tied at rank 1" in res.stdout
    assert "3 players advance to kota (top 2 of kg1)" in res.stdout
    assert "now has" not in res.stdout  # a first advance says nothing more
    res = run("advance", "--from", "kg2", "--to", "kota", "--top", "2", "--db", db)
    assert (res.exit_code, res.stderr.strip()) == (
        1,
        "✗ round S1 of event kg2 has 2 of 3 tables in: advance from a finished event only.",
    )
    res = run("advance", "--from", "kg1", "--to", "nasional", "--top", "2", "--db", db)
    assert res.exit_code == 1 and "event nasional does not exist" in res.stderr
    with connect(db_path, read_only=True) as c:
        assert c.execute("SELECT count(*) FROM advancements").fetchall() == [(1,)]
    # a second advance adds, and says what the roster holds
    res = run("advance", "--from", "kg1", "--to", "kota", "--top", "1", "--db", db)
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[-1] == (
        "kota now has 3 entrant(s); 3 of the qualifiers were entered already"
    )


def test_an_event_with_a_drawn_table_still_to_load_is_not_finished(db_path, tmp_path):
    """Before: an unhas round drawn on two tables with one loaded counted as finished, so
    ``advance`` took its top 2 from half the round (exit 0); a player among the top of two
    sources was counted twice in "N players advance"."""
    from tests.test_events_draw_cli import play, setup_event, start_of

    setup_event(tmp_path)  # ev: eight entrants, R1 drawn on two tables
    with connect(db_path) as c:
        first, second = start_of(c, "ev", "R1", "1"), start_of(c, "ev", "R1", "2")
        load(c, tmp_path, play(first), name="meja1.csv")
        create_events(c, {"kota": "unhas"}, "default", "test")
        with pytest.raises(Refused, match="round R1 of event ev has 1 of 2 tables in"):
            advance(c, ["ev"], "kota", 2)
        load(c, tmp_path, play(second, table="2"), name="meja2.csv")
        # ev2: one table of the same players as ev's table 1, loaded without a draw
        load(c, tmp_path, play(first, event="ev2"), name="ev2.csv", ruleset="unhas")
    db = str(db_path)
    res = run("advance", "--from", "ev", "--from", "ev2", "--to", "kota", "--top", "2", "--db", db)
    assert res.exit_code == 0, res.output
    # ev's top 2: each table's winner (6 hands of 10, the same points: rank 1 shared);
    # ev2's: its winner and second, the winner being ev's table 1 winner again
    assert (
        "3 players advance to kota (top 2 of ev, ev2); 1 of them qualified from more than one "
        "event" in res.stdout
    ), res.stdout


def test_a_league_with_a_listed_session_still_to_play_is_not_finished(db_path):
    """Before: a league whose order lists a session not drawn nor played yet (S4 after
    S1-S3) counted as finished, so ``advance`` took its top from three sessions of four."""
    from pipeline.rounds import set_order
    from tests.test_examples import IN_REPO, load_example

    with connect(db_path) as c:
        assert load_example(c, IN_REPO / "pepet") == []
        create_events(c, {"kota": "pepet"}, "default", "test")
        set_order(c, "pepet-2024-e1", ["S1", "S2", "S3", "S4"])
        with pytest.raises(
            Refused, match="round S4 of event pepet-2024-e1 is in its round order but has no res"
        ):
            advance(c, ["pepet-2024-e1"], "kota", 4)
        set_order(c, "pepet-2024-e1", ["S1", "S2", "S3"])
        assert advance(c, ["pepet-2024-e1"], "kota", 4).entrants >= 4


def test_a_second_advance_with_a_smaller_top_says_the_first_ones_players_stay(db_path, tmp_path):
    """Before: "1 players advance to kota (top 1 of kg1)" with the roster still holding the
    first advance's four, as if the cut had been made again."""
    with connect(db_path) as c:
        load(c, tmp_path, session("kg1"), name="kg1.csv")
        create_events(c, {"kota": "pepet"}, "default", "test")
        first = advance(c, ["kg1"], "kota", 4)
        assert (first.already, first.entrants) == (0, first.qualifiers.height)
    res = run("advance", "--from", "kg1", "--to", "kota", "--top", "1", "--db", str(db_path))
    assert res.exit_code == 0, res.output
    n = first.entrants
    assert res.stdout.splitlines()[-1] == (
        f"kota now has {n} entrant(s); 3 of the qualifiers were entered already; its entrants "
        "from before stay (domino event roster kota --clear starts its roster again)"
    )


def test_eligibility_warning_on_load_names_the_player_and_loads(db_path, tmp_path):
    with connect(db_path) as c:
        registry(
            c,
            tmp_path,
            "player,group,birth_date\nAna,KG A,2015-01-01\nBudi,KG A,\nCici,KG B,\nDedi,KG B,\n",
        )
    log = tmp_path / "h.csv"
    log.write_text(csv_text(ONE_HAND), "utf-8")
    # a dry run says it before anything is written
    res = run("ingest", str(log), "--dry-run", "--db", str(db_path))
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("would load "), "each match says what would happen"
    assert "warning: Ana is " in res.stderr and "admits players of 17 or older" in res.stderr
    with connect(db_path, read_only=True) as c:
        assert c.execute("SELECT count(*) FROM match_versions").fetchall() == [(0,)]
    dry = res.stderr
    res = run("ingest", str(log), "--db", str(db_path))
    assert res.exit_code == 0, res.output
    assert "warning: Ana is " in res.stderr and "admits players of 17 or older" in res.stderr
    assert [x for x in dry.splitlines() if "warning:" in x] == [
        x for x in res.stderr.splitlines() if "warning: Ana" in x
    ]


def test_league_set_scopes_the_registry(db_path, tmp_path):
    with connect(db_path) as c:
        load(c, tmp_path, ONE_HAND, name="a.csv")
        registry(c, tmp_path, "player,group\nZed,KG Z\n", league="other")
    res = run("league", "set", "other", "ev", "--db", str(db_path))
    assert res.exit_code == 0 and res.stderr == "", res.output
    # ev is now checked against league other's registry: a new match with Ana is refused
    log = tmp_path / "b.csv"
    log.write_text(csv_text([{**ONE_HAND[0], "table": "2"}]), "utf-8")
    res = run("ingest", str(log), "--db", str(db_path))
    assert res.exit_code == 1 and "Ana is not in the player registry" in res.output
    assert run("league", "set", "other", "nope", "--db", str(db_path)).exit_code == 1
    # a league without a registry (a typo, "otehr") checks against none: kept, and said
    res = run("league", "set", "otehr", "ev", "--db", str(db_path))
    assert res.exit_code == 0 and res.stdout == "1 event(s) in league otehr\n"
    assert " ".join(res.stderr.split()) == (
        "note: league otehr has no registry yet, so its events are checked against none "
        "(every name is accepted); import one with domino players import FILE --league otehr"
    )


def test_a_league_name_is_read_without_the_spaces_around_it(db_path, tmp_path):
    """`` mks`` and ``mks`` made two leagues that never meet (an import into one, events
    in the other); an empty name made a league called nothing."""
    reg = tmp_path / "reg.csv"
    reg.write_text("player,group\nAna,KG A\n", "utf-8")
    db = str(db_path)
    assert run("players", "import", str(reg), "--league", " mks ", "--db", db).exit_code == 0
    res = run("event", "create", "ev", "--ruleset", "pepet", "--league", "mks  ", "--db", db)
    assert res.stdout.strip() == "event ev created (pepet; league mks)"
    for args in (
        ("league", "set", "  ", "ev"),
        ("event", "create", "e2", "--ruleset", "pepet", "--league", ""),
    ):
        res = CliRunner().invoke(cli, [*args, "--db", db])
        assert res.exit_code == 2 and "a league needs a name" in res.output
    with connect(db_path, read_only=True) as c:
        assert c.execute("SELECT DISTINCT league FROM league_players").fetchall() == [("mks",)]
        assert c.execute("SELECT event, league FROM events").fetchall() == [("ev", "mks")]


def test_open_screens_see_what_an_organiser_changes_without_a_load(store, tmp_path):
    """The dashboard's cache is keyed on a data stamp; a league move (groups change), a new
    event date (the membership in force, the play order of the ratings), level or venue,
    a round order, a roster and an advance changed what pages show without changing the
    stamp, so open screens, the big one too, kept the old standings until the next load."""
    from pipeline.standings import stats

    roster = tmp_path / "roster.csv"
    roster.write_text("player\nP11\nP12\nP13\nP14\n", "utf-8")
    with connect(store) as c:
        load(c, tmp_path, session("kg1"), name="kg1.csv")
        registry(
            c,
            tmp_path,
            "player,group\n" + "".join(f"P{t}{i},KG A\n" for t in (1, 2, 3) for i in (1, 2, 3, 4)),
            league="mks",
        )
        create_events(c, {"kota": "pepet"}, "mks", "test")
    steps = [
        ("league", "set", "mks", "kg1", "--apply", "--reason", "its registry"),
        ("event", "create", "kg1", "--ruleset", "pepet", "--date", "2026-03-01"),
        ("event", "create", "kg1", "--ruleset", "pepet", "--level", "group"),
        ("event", "create", "kg1", "--ruleset", "pepet", "--venue", "Tallo"),
        ("event", "rounds", "kg1", "S1", "S2"),
        ("event", "rounds", "kg1", "S2", "S1"),
        ("event", "rounds", "kg1", "S1"),  # S2 no more: kg1 is finished for advance
        ("advance", "--from", "kg1", "--to", "kota", "--top", "1"),
        ("event", "roster", "kota", str(roster)),
    ]
    for step in steps:
        with connect(store, read_only=True) as c:
            before = stats.data_stamp(c)
        res = run(*step, "--db", store)
        assert res.exit_code == 0, (step, res.output)
        with connect(store, read_only=True) as c:
            assert stats.data_stamp(c) != before, step


def test_an_entrant_outside_the_leagues_registry_is_refused_before_anyone_plays(store, tmp_path):
    """Before: a pepet roster in a league with a registry took a name outside it without a
    word; the draw seated them, their sheet was printed and played, and the load then
    rejected their table's whole result (``unregistered_player``). Now the roster is
    refused naming file, line and column (nothing of it is stored), and a draw refuses an
    entrant left outside by a registry imported after the roster."""
    db = store
    reg = tmp_path / "reg.csv"
    reg.write_text("Nama Pemain;Kelompok\n" + "".join(f"P{i:02d};KG A\n" for i in range(1, 12)))
    assert run("players", "import", str(reg), "--league", "mks", "--db", db).exit_code == 0
    assert run("event", "create", "kg1", "--ruleset", "pepet", "--league", "mks", "--db", db)
    roster = tmp_path / "peserta.csv"
    roster.write_text("Nama\n" + "".join(f"P{i:02d}\n" for i in range(1, 12)) + "Xeno\n")
    res = run("event", "roster", "kg1", str(roster), "--db", db)
    assert (res.exit_code, _said(res.stderr)) == (
        1,
        "✗ peserta.csv, line 13, column Nama (player): Xeno is not in league mks's player "
        "registry (closest registered names: -), and a result seating them would be rejected "
        "on load; register them first (domino players import, or the Player registry page) or "
        "write the name as registered",
    )
    with connect(store, read_only=True) as c:
        assert c.execute("SELECT count(*) FROM entrants").fetchall() == [(0,)]
    # in a league without a registry (nobody is checked) the same roster is taken ...
    assert run("event", "create", "kg2", "--ruleset", "pepet", "--db", db).exit_code == 0
    assert run("event", "roster", "kg2", str(roster), "--db", db).exit_code == 0
    # ... and when the event then moves into mks, the draw refuses to seat Xeno
    assert run("league", "set", "mks", "kg2", "--db", db).exit_code == 0
    res = run("draw", "--event", "kg2", "--round", "1", "--seed", "1", "--db", db)
    assert (res.exit_code, _said(res.stderr)) == (
        1,
        "✗ the roster of event kg2 holds 1 player(s) not in league mks's player registry "
        "(Xeno), and a result seating them would be rejected on load; register them (domino "
        "players import, or the Player registry page) or take them off the roster (domino "
        "event roster)",
    )
    # a roster of which nobody is registered there is refused too
    outsiders = tmp_path / "luar.csv"
    outsiders.write_text("player\nQ1\nQ2\nQ3\nQ4\n")
    assert run("event", "create", "kg3", "--ruleset", "pepet", "--db", db).exit_code == 0
    assert run("event", "roster", "kg3", str(outsiders), "--db", db).exit_code == 0
    assert run("league", "set", "mks", "kg3", "--db", db).exit_code == 0
    res = run("draw", "--event", "kg3", "--round", "1", "--db", db)
    assert res.exit_code == 1 and "holds 4 player(s) not in league mks's" in _said(res.stderr)
    # registered, Xeno is drawn
    with reg.open("a") as f:
        f.write("Xeno;KG B\n")
    assert run("players", "import", str(reg), "--league", "mks", "--db", db).exit_code == 0
    res = run("draw", "--event", "kg2", "--round", "1", "--seed", "1", "--db", db)
    assert res.exit_code == 0, res.output
    assert run("event", "roster", "kg1", str(roster), "--db", db).exit_code == 0


def test_a_rosters_groups_are_the_leagues_on_the_event_date(store, tmp_path):
    """Before: an entrant without a group on the roster was stored with the newest group of
    any league's registry (a membership from next year, another city's registry), and the
    draw kept groups apart by it, while the group standings read the event's league on its
    date; a registry imported after the roster changed nothing of it. Now the roster keeps
    its own groups, the rest is read from the event's league on its date when asked, and a
    roster that names another group than the registry is warned of."""
    from pipeline.events import roster as entrants

    db = store
    mks, other = tmp_path / "mks.csv", tmp_path / "other.csv"
    mks.write_text("player,group,member_since\nP1,KG A,\nP1,KG B,2027-01-01\nP2,KG B,\n")
    other.write_text("player,group\nP2,KG Z\n")
    for path, lg in ((mks, "mks"), (other, "other")):
        assert run("players", "import", str(path), "--league", lg, "--db", db).exit_code == 0
    assert run(
        "event", "create", "ev", "--ruleset", "pepet", "--league", "mks", "--date", "2026-12-01",
        "--db", db,
    ).exit_code == 0  # fmt: skip

    def shown() -> list[tuple]:
        with connect(store, read_only=True) as c:
            return list(entrants(c, "ev").select("player", "group").iter_rows())

    roster = tmp_path / "roster.csv"
    roster.write_text("player\nP1\nP2\n")
    res = run("event", "roster", "ev", str(roster), "--db", db)
    assert (res.exit_code, res.stderr) == (0, "")
    assert shown() == [("P1", "KG A"), ("P2", "KG B")]
    # P2 moves to KG C from June: the roster set before shows it at once
    mks.write_text("player,group,member_since\nP2,KG C,2026-06-01\n")
    assert run("players", "import", str(mks), "--league", "mks", "--db", db).exit_code == 0
    assert shown() == [("P1", "KG A"), ("P2", "KG C")]
    roster.write_text("player,group\nP1,KG B\nP2,kg c\n")
    res = run("event", "roster", "ev", str(roster), "--db", db)
    assert shown() == [("P1", "KG B"), ("P2", "KG C")]  # kg c is the registry's KG C
    assert (res.exit_code, _said(res.stderr)) == (
        0,
        "warning: P1 is on the roster of ev for KG B, but league mks's registry has them in "
        "KG A on 2026-12-01: the group (KG) standings count them for KG A; the roster's group "
        "only decides whom the draw keeps apart",
    )


def test_players_list_says_each_leagues_registry(store, tmp_path):
    """Before: `domino players list` merged every league's registry into one list of
    "newest groups" without a word of which league holds a player; a federation with
    two leagues could not tell them apart, nor list one."""
    db = store
    for lg, text in (
        ("mks", "player,group\nAna,KG A\nBudi,KG A\n"),
        ("gowa", "player,group\nAna,KG Z\n"),
    ):
        path = tmp_path / f"{lg}.csv"
        path.write_text(text)
        assert run("players", "import", str(path), "--league", lg, "--db", db).exit_code == 0
    res = run("players", "list", "--format", "csv", "--db", db)
    assert res.stdout.splitlines() == [
        "player,group,city,reserve_for,league",
        "Ana,KG Z,,,gowa",
        "Ana,KG A,,,mks",
        "Budi,KG A,,,mks",
    ]
    res = run("players", "list", "--league", "gowa", "--format", "csv", "--db", db)
    assert res.stdout.splitlines()[1:] == ["Ana,KG Z,,,gowa"]
    res = run("players", "list", "--league", "bone", "--db", db)
    assert res.exit_code == 0
    assert _said(res.stderr) == (
        "note: league bone has no player registry (domino players import --league bone)"
    )
