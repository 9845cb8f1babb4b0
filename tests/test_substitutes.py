"""Substitutes as a sheet records them (RULES.md, pepet rule 23; pipeline/ingest/substitutes.py).

A registered reserve plays for an absent member of their own group, and the record names
whom. Every check is a warning with file, line and column: the match loads, and the points
are the reserve's own whatever the cell says. Before, every case below loaded without a
word: a misspelt member, a member of another group, a member seated in the same round,
a player who is no reserve, and a reserve for nobody.
"""

import copy
import json
from datetime import date

import polars as pl
import pytest
from click.testing import CliRunner

from pipeline import rulesets
from pipeline.cli import cli
from pipeline.events import EventRefused, read_roster, save, set_roster
from pipeline.ingest import ingest
from pipeline.league import substitutes
from pipeline.players import import_registry, read_registry
from tests.rules_helpers import csv_text, hand, statuses

#: KG Alpha: Ana, Budi, Hadi; KG Beta: Cici, Dedi, Eka, Fani, Gita, Ika; Rudi a reserve of
#: KG Alpha; Joko registered in no group; Omar a member of KG Beta and a reserve of KG Alpha.
#: Hadi moves to KG Beta on 2026-07-01.
REGISTRY = (
    "player,group,reserve_for,member_since\n"
    "Ana,KG Alpha,,\nBudi,KG Alpha,,\nHadi,KG Alpha,,\nHadi,KG Beta,,2026-07-01\n"
    "Cici,KG Beta,,\nDedi,KG Beta,,\nEka,KG Beta,,\nFani,KG Beta,,\nGita,KG Beta,,\n"
    "Ika,KG Beta,,\nRudi,,KG Alpha,\nJoko,,,\nOmar,KG Beta,KG Alpha,\n"
)
TABLE_1 = ("Ana", "Rudi", "Cici", "Dedi")
TABLE_2 = ("Budi", "Eka", "Fani", "Gita")


@pytest.fixture
def league(con, tmp_path):
    path = tmp_path / "players.csv"
    path.write_text(REGISTRY, encoding="utf-8")
    import_registry(con, read_registry(path), "default")
    save(con, "ev", "pepet", title="Liga KG", event_date=date(2026, 6, 1))
    return con


def sheet(tmp_path, name: str, table: str, seats, replaces=None, round_="S1"):
    """One hand of S1 at ``table`` (out by chair A; pips 5, 10, 20) with the columns
    ``ganti_x`` of ``replaces`` (chair letter -> name) as a referee adds them."""
    rows = [
        hand(1, "A", "out", pips=(None, 5, 10, 20), seats=seats, ruleset="pepet", round=round_)
        | {"table": table}
    ]
    lines = csv_text(rows).splitlines()
    extra = sorted((replaces or {}).items())
    header = lines[0] + "".join(f",ganti_{c}" for c, _ in extra)
    body = [line + "".join(f",{v}" for _, v in extra) for line in lines[1:]]
    path = tmp_path / name
    path.write_text("\n".join([header, *body]) + "\n", encoding="utf-8")
    return path


def said(plan) -> list[tuple]:
    return [
        (p["line"], p["column"], p["spelled"], p["message_id"], p["message"])
        for p in plan.problems.sort("message_id").iter_rows(named=True)
    ]


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("Hadi", []),  # a member of KG Alpha on 2026-06-01, absent from S1: as it should be
        (
            "Hadu",
            [
                "replaces.unknown: Hadu, whom Rudi in chair B replaces, is not in the player "
                "registry (closest registered names: Hadi); write the member's name as registered"
            ],
        ),
        (
            "Ika",  # KG Beta, not playing
            [
                "replaces.other_group: Rudi is a reserve of KG Alpha, but Ika, whom they "
                "replace, is a member of KG Beta on the event's date; a reserve plays for a "
                "member of their own group (rule 23): check whom they replaced"
            ],
        ),
        (
            "Budi",  # KG Alpha, but seated at table 2 of the same session
            [
                "replaces.playing: Budi, whom Rudi in chair B replaces, plays in this round at "
                "table 2; a reserve replaces an absent member (rule 23): check whom they replaced"
            ],
        ),
        ("fani", ["replaces.other_group", "replaces.playing"]),  # both; any case is the player
        (
            "Zulkarnaen",
            [
                "replaces.unknown.none: Zulkarnaen, whom Rudi in chair B replaces, is not in the "
                "player registry; write the member's name as registered"
            ],
        ),
        (
            "Joko",
            [
                "replaces.other_group.none: Rudi is a reserve of KG Alpha, but Joko, whom they "
                "replace, is a member of no group on the event's date; a reserve plays for a "
                "member of their own group (rule 23): check whom they replaced"
            ],
        ),
    ],
    ids=["member", "misspelt", "other-group", "playing", "both", "nobody-close", "no-group"],
)
def test_whom_a_reserve_replaces_is_checked_and_the_match_loads(
    league, tmp_path, written, expected
):
    t2 = sheet(tmp_path, "meja2.csv", "2", TABLE_2)
    plan = ingest(league, [sheet(tmp_path, "meja1.csv", "1", TABLE_1, {"b": written}), t2])
    assert statuses(plan) == {"1": "new", "2": "new"}
    found = said(plan)
    assert len(found) == len(expected)
    # each expected entry is "id" or "id: the sentence"
    shown = [f"{m}: {text}" for *_, m, text in found]
    assert [
        a if ": " in e else a.split(":")[0].removesuffix(".none")
        for a, e in zip(shown, expected, strict=True)
    ] == (expected)
    for line, column, spelled, _, _ in found:  # file, line and column of the cell
        assert (line, column, spelled) == (2, "replaces_b", "ganti_b")
    assert plan.problems.get_column("severity").unique().to_list() in ([], ["warning"])
    assert plan.problems.get_column("code").unique().to_list() in ([], ["replaces"])
    # the points are Rudi's own (chair B, 5: jawara2, 2) whatever the cell says
    assert league.execute(
        "SELECT points FROM event_standings WHERE player = 'Rudi'"
    ).fetchall() == [(2,)]


def test_a_replaced_member_loaded_before_in_the_round_is_found(store, league, tmp_path):
    assert statuses(ingest(league, [sheet(tmp_path, "meja2.csv", "2", TABLE_2)])) == {"2": "new"}
    plan = ingest(league, [sheet(tmp_path, "meja1.csv", "1", TABLE_1, {"b": "Gita"})])
    assert statuses(plan) == {"1": "new"}
    assert sorted(plan.problems.get_column("message_id")) == [
        "replaces.other_group",
        "replaces.playing",
    ]
    # table 2 loaded again in the same load without Gita (Hadi for her): she is not seated
    again = sheet(tmp_path, "meja2b.csv", "2", ("Budi", "Eka", "Fani", "Ika"))
    plan = ingest(
        league, [sheet(tmp_path, "meja1b.csv", "1", TABLE_1, {"b": "Gita"}), again], reason="fix"
    )
    assert sorted(plan.problems.get_column("message_id")) == ["replaces.other_group"]


def test_the_group_is_the_one_in_force_on_the_events_date(store, league, tmp_path):
    """Hadi is in KG Alpha until 2026-06-30 and in KG Beta from 2026-07-01."""
    save(league, "ev", "pepet", event_date=date(2026, 8, 1))
    plan = ingest(league, [sheet(tmp_path, "meja1.csv", "1", TABLE_1, {"b": "Hadi"})])
    assert statuses(plan) == {"1": "new"}
    assert said(plan)[0][3:] == (
        "replaces.other_group",
        "Rudi is a reserve of KG Alpha, but Hadi, whom they replace, is a member of KG Beta on "
        "the event's date; a reserve plays for a member of their own group (rule 23): check "
        "whom they replaced",
    )


def test_a_player_who_is_no_reserve_and_a_reserve_for_nobody_are_said(league, tmp_path):
    plan = ingest(league, [sheet(tmp_path, "meja1.csv", "1", TABLE_1, {"b": "—", "c": "Hadi"})])
    assert statuses(plan) == {"1": "new"}
    # the dash names nobody on the player page either (it showed "Replaced —")
    assert substitutes(league, "ev")["replaces"].to_list() == [None]
    assert said(plan) == [
        (
            2,
            "player_b",
            None,
            "replaces.missing",
            "Rudi is a reserve of KG Alpha and plays in chair B without a record of whom they "
            "replace; write the absent member's name in a column replaces_b (ganti_b) of the "
            "sheet, or in the column replaces of the event's roster (rule 23)",
        ),
        (
            2,
            "replaces_c",
            "ganti_c",
            "replaces.not_reserve",
            "Cici in chair C is written as replacing Hadi, but is not a registered reserve "
            "(RULES rule 23: a reserve of the member's group plays for them); register Cici as "
            "a reserve of that group (reserve_for), or leave the cell empty if Cici plays in "
            "their own right",
        ),
    ]


def test_a_reserve_who_is_a_member_plays_in_their_own_right_without_a_word(league, tmp_path):
    """Omar is a member of KG Beta and a reserve of KG Alpha: seated without a ganti cell
    he plays for KG Beta (event_members), and is not asked whom he replaces."""
    plan = ingest(league, [sheet(tmp_path, "meja1.csv", "1", ("Ana", "Omar", "Cici", "Dedi"))])
    assert statuses(plan) == {"1": "new"} and plan.problems.height == 0


def test_the_roster_records_whom_a_reserve_plays_for(store, league, tmp_path):
    roster = tmp_path / "peserta.csv"
    roster.write_text("pemain;ganti;persetujuan\nRudi;hadi;lisan, di depan wasit\nAna;;\n", "utf-8")
    set_roster(league, "ev", read_roster(roster), source="peserta.csv")
    assert league.execute(
        "SELECT player_key, replaces, consent FROM entrants ORDER BY 1"
    ).fetchall() == [("ana", None, None), ("rudi", "hadi", "lisan, di depan wasit")]
    # the consent is a sentence: as long as a note may be
    said_so = "lisan di depan wasit dan koordinator KG Alpha, " * 4
    roster.write_text(f"pemain;ganti;persetujuan\nRudi;Hadi;{said_so}\n", "utf-8")
    assert read_roster(roster)["consent"].to_list() == [said_so.strip()]
    plan = ingest(league, [sheet(tmp_path, "meja1.csv", "1", TABLE_1)])
    assert statuses(plan) == {"1": "new"} and plan.problems.height == 0
    subs = substitutes(league, "ev").select("player", "reserve_for", "replaces").to_dicts()
    assert subs == [{"player": "Rudi", "reserve_for": "KG Alpha", "replaces": "Hadi"}]
    # a misspelt member on the roster is refused with its file, line and column
    roster.write_text("pemain;ganti;persetujuan\nRudi;hadi;lisan, di depan wasit\nAna;;\n", "utf-8")
    set_roster(league, "ev", read_roster(roster), source="peserta.csv")
    roster.write_text("pemain,ganti\nAna,\nRudi,Hadu\n", "utf-8")
    with pytest.raises(EventRefused) as refused:
        set_roster(league, "ev", read_roster(roster), source="peserta.csv")
    assert str(refused.value) == (
        "peserta.csv, line 3, column ganti (replaces): Hadu, whom Rudi plays for, is not in the player "
        "registry (closest registered names: Hadi); write the member's name as registered"
    )
    assert league.execute("SELECT count(*) FROM entrants").fetchall() == [(2,)]  # unchanged
    roster.write_text("pemain,ganti\nRUDI,rudi\n", "utf-8")  # a cell on the wrong row
    with pytest.raises(EventRefused) as refused:
        set_roster(league, "ev", read_roster(roster), source="peserta.csv")
    assert str(refused.value).startswith(
        "peserta.csv, line 2, column ganti (replaces): RUDI is written as replacing themselves"
    )


def test_a_rulebook_without_groups_is_not_checked(league, tmp_path):
    rows = [hand(1, "A", "biasa", seats=TABLE_1, event="cup")]
    lines = csv_text(rows).splitlines()
    path = tmp_path / "cup.csv"
    path.write_text(f"{lines[0]},ganti_b\n{lines[1]},Hadu\n", encoding="utf-8")
    plan = ingest(league, [path])
    assert statuses(plan) == {"1": "new"}
    assert plan.problems.height == 0


def test_the_command_line_says_it_and_exits_0(db_path, tmp_path):
    (tmp_path / "players.csv").write_text(REGISTRY, encoding="utf-8")
    r = CliRunner().invoke(cli, ["players", "import", str(tmp_path / "players.csv")])
    assert r.exit_code == 0, r.output
    # the registry lists who is a reserve of which group (it said nothing of it)
    r = CliRunner().invoke(cli, ["players", "list", "--format", "csv"])
    assert "Rudi,,,KG Alpha,default" in r.stdout.splitlines() and r.stdout.startswith(
        "player,group,city,reserve_for,league"
    )
    path = sheet(tmp_path, "meja1.csv", "1", TABLE_1, {"b": "Hadu"})
    r = CliRunner().invoke(cli, ["ingest", str(path)])
    assert r.exit_code == 0, r.output
    assert "warning meja1.csv:2 ganti_b (replaces_b): Hadu, whom Rudi" in " ".join(r.output.split())


def test_the_player_page_says_whom_a_reserve_replaced(db_path, tmp_path, monkeypatch):
    """A reserve's page listed "Reserve for KG Alpha" only: the record of whom they
    played for (RULES: the match record names whom the reserve replaced) was shown nowhere."""
    from dashboard import data
    from pipeline.store.db import connect
    from tests.test_dashboard import app, texts

    with connect(db_path) as con:
        path = tmp_path / "players.csv"
        path.write_text(REGISTRY, encoding="utf-8")
        import_registry(con, read_registry(path), "default")
        save(con, "ev", "pepet", title="Liga KG", event_date=date(2026, 6, 1))
        ingest(con, [sheet(tmp_path, "meja1.csv", "1", TABLE_1, {"b": "Hadi"})])
        ingest(con, [sheet(tmp_path, "s2.csv", "1", TABLE_1, round_="S2")])
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    data.clear()
    shown = texts(app("page_scripts/player.py", player="rudi"))
    assert "Pemain cadangan untuk KG Alpha" in shown
    assert "Menggantikan Hadi: Liga KG, S1 meja 1" in shown
    assert (
        "Bermain sebagai cadangan (tanpa catatan siapa yang digantikan): Liga KG, S2 meja 1"
        in shown
    )


def test_group_standings_after_a_round_are_the_views_own(store, league, tmp_path):
    """The leaderboard's group standings after a chosen round read the registry's newest
    group and left reserves out: KG Alpha after S1 was Ana 3 + Budi 3 = 6, where the event's
    group standings say 8. Worked by hand (pepet: 3, 2, 1, 0 by pips 0, 5, 10, 20): table 1
    Ana 3, Rudi 2 (reserve of KG Alpha), Cici 1, Dedi 0; table 2 Budi 3, Eka 2, Fani 1,
    Hadi 0 (KG Alpha on the event's date, 2026-06-01; KG Beta only from 2026-07-01)."""
    from pipeline.standings import bracket

    t2 = sheet(tmp_path, "meja2.csv", "2", ("Budi", "Eka", "Fani", "Hadi"))
    ingest(league, [sheet(tmp_path, "meja1.csv", "1", TABLE_1, {"b": "Ika"}), t2])
    after = bracket.groups_after(league, "ev", "S1")
    rows = after.select("group", "points", "hands", "players", "rank", "reserves").rows()
    assert rows == [("KG Alpha", 8, 4, 4, 1, 1), ("KG Beta", 4, 4, 4, 2, 0)]
    view = league.execute(
        'SELECT "group", points, hands, players, rank, reserves FROM group_standings '
        "WHERE event = 'ev' ORDER BY rank"
    ).fetchall()
    assert rows == view


def test_a_hand_entered_at_the_table_keeps_whom_the_reserve_replaces(store, league, tmp_path):
    """A hand corrected or added on the hand-entry page wrote the match again from the
    contract's columns only: the sheet's ``ganti_b`` (and any other extra column, such as
    ``wasit``) was dropped from the new version, and the record of whom the reserve
    replaced went with it."""
    from pipeline import auth, entry

    rows = [
        hand(n, "A", "out", pips=(None, 5, 10, 20), seats=TABLE_1, ruleset="pepet", round="S1")
        for n in (1, 2)
    ]
    lines = csv_text(rows).splitlines()
    path = tmp_path / "meja1.csv"
    path.write_text(
        "\n".join([lines[0] + ",ganti_b,wasit", *(f"{x},Hadi,Pak Basri" for x in lines[1:])])
        + "\n",
        encoding="utf-8",
    )
    assert statuses(ingest(league, [path])) == {"1": "new"}
    auth.add_user(league, "Pak Basri", "a long password", ["ev"], role="jury")
    who = auth.sign_in(league, "Pak Basri", "a long password").identity

    def enter(n: int, by: str, **kw):
        st = entry.state(league, "ev", "S1", "1")
        done = entry.Hand(hand=n, ending="out", ended_by=by, pips=kw.pop("pips"))
        saved = entry.save_hand(league, "ev", "S1", "1", done, st.seats(n), identity=who, **kw)
        assert saved.ok, saved.sentences()

    enter(2, "b", pips={"a": 5, "c": 10, "d": 20}, reason="chair B went out, not A")
    enter(3, "a", pips={"b": 5, "c": 10, "d": 20}, reason="hand 3 was missing")
    kept = league.execute(
        "SELECT h.hand, h.extra FROM hands h JOIN match_versions v "
        'USING (event, round, "table", version) WHERE v.current ORDER BY h.hand'
    ).fetchall()
    assert [(n, json.loads(x)) for n, x in kept] == [
        (1, {"replaces_b": "Hadi", "wasit": "Pak Basri"}),
        (2, {"replaces_b": "Hadi", "wasit": "Pak Basri"}),  # corrected: its own kept
        (3, {"replaces_b": "Hadi", "wasit": None}),  # new: whom the reserve replaces only
    ]
    subs = substitutes(league, "ev").select("player", "replaces").to_dicts()
    assert subs == [{"player": "Rudi", "replaces": "Hadi"}]


def test_a_corrected_record_of_whom_a_reserve_replaced_is_a_change(store, league, tmp_path):
    """Only the contract's columns were compared: a sheet loaded again with its ``ganti_b``
    corrected was "unchanged ... nothing changed", and the record stayed wrong."""
    first = sheet(tmp_path, "meja1.csv", "1", TABLE_1, {"b": "Budi"})
    assert statuses(ingest(league, [first])) == {"1": "new"}
    assert statuses(ingest(league, [first])) == {"1": "unchanged"}
    fixed = sheet(tmp_path, "meja1-benar.csv", "1", TABLE_1, {"b": "Hadi"})
    plan = ingest(league, [fixed])
    assert statuses(plan) == {"1": "rejected"}  # a change of a loaded match needs a reason
    assert "changes hand(s) 1 of the loaded version 1" in " ".join(plan.errors["message"])
    # the upload page's preview shows what changes: the record, hand by hand
    from pipeline.ingest import service

    (diff,) = [d["diff"] for d in service.preview(league, [fixed]).diffs]
    assert diff.rows() == [(1, "replaces_b", "Budi", "Hadi")]
    assert statuses(ingest(league, [fixed], reason="Hadi was absent, not Budi")) == {
        "1": "correction"
    }
    assert substitutes(league, "ev")["replaces"].to_list() == ["Hadi"]
    # a sheet without the column: the record is taken away, which is a change too
    plan = ingest(league, [sheet(tmp_path, "meja1-tanpa.csv", "1", TABLE_1)], reason="x")
    assert statuses(plan) == {"1": "correction"}


def test_a_reserve_of_a_group_nobody_belongs_to_is_refused_with_its_line(league, tmp_path):
    """``reserve_for`` misspelt (``KG Alfa``) was imported without a word: a group of its
    own in the group standings, holding the reserve alone."""
    from pipeline.players import RegistryConflict
    from pipeline.registry import check

    path = tmp_path / "cadangan.csv"
    path.write_text("player,group,reserve_for\nBudi Baru,,KG Alfa\nJoni,,kg alpha\n", "utf-8")
    with pytest.raises(RegistryConflict) as refused:
        check(league, read_registry(path))
    assert refused.value.lines() == [
        "cadangan.csv:2 makes Budi Baru a reserve of KG Alfa, a group no player of the registry "
        "or the file belongs to (closest: KG Alpha); write the group as its members' rows do.",
        "cadangan.csv:3 makes Joni a reserve of kg alpha, a group no player of the registry or "
        "the file belongs to (closest: KG Alpha); write the group as its members' rows do.",
    ]
    # a group of the file itself is one
    path.write_text("player,group,reserve_for\nAdi,KG Gamma,\nBudi Baru,,KG Gamma\n", "utf-8")
    check(league, read_registry(path))


def test_a_session_draw_seats_the_reserve_in_the_replaced_members_place(league, tmp_path):
    """A roster naming whom a reserve plays for (Rudi for Hadi) was drawn with both seated:
    the absent member at a table, and then every sheet of it refused or warned. The member
    sits out; the reserve is drawn as a member of the group they are a reserve of (kept
    apart from it as its members are)."""
    from pipeline import draws
    from pipeline.draws.service import _groups
    from pipeline.events import event_groups

    roster = tmp_path / "peserta.csv"
    seated = ["Ana", "Rudi", "Cici", "Dedi", "Eka", "Fani", "Gita", "Ika"]
    rows = [f"{p},{'Hadi' if p == 'Rudi' else ''}" for p in seated]
    roster.write_text("\n".join(["pemain,ganti", *rows, "Hadi,"]) + "\n", "utf-8")
    set_roster(league, "ev", read_roster(roster), source="peserta.csv")
    drawn = draws.draw_round(league, "ev", "S1", seed=7)
    players = sorted(drawn.seats.get_column("player_key").unique().to_list())
    assert players == sorted(p.lower() for p in seated)  # Hadi sits out
    assert _groups(league, "ev", event_groups(league, "ev"))["rudi"] == "KG Alpha"
    # KG Alpha's two (Ana and the reserve Rudi) at two tables: groups apart first
    tables = drawn.seats.group_by("table").agg(pl.col("player_key").unique())
    assert all(len({"ana", "rudi"} & set(t)) == 1 for t in tables.get_column("player_key"))


def test_a_groups_coordinator_may_write_to_an_event_its_reserve_played(league, tmp_path):
    """Rule 23: a reserve's points count for the group they are a reserve of, so the
    group's coordinator keeps its results; before, only members brought an event into a
    KG coordinator's rights, and Rudi (a reserve of KG Alpha) playing among KG Beta did not."""
    from pipeline import auth

    ingest(league, [sheet(tmp_path, "s1.csv", "1", ("Rudi", "Cici", "Dedi", "Eka"))])
    auth.add_user(league, "alpha", "a long enough password", [], groups=["KG Alpha"])
    auth.add_user(league, "beta", "a long enough password", [], groups=["KG Beta"])
    auth.add_user(league, "gamma", "a long enough password", [], groups=["KG Gamma"])
    assert auth.user_events(league, "alpha") == {"ev"}
    assert auth.user_events(league, "beta") == {"ev"}
    assert auth.user_events(league, "gamma") == set()


def hadi_drawn(con, tmp_path) -> tuple[pl.DataFrame, str, str]:
    """Session S1 drawn (seed 7) for eight entrants, Hadi among them: the draw's seats,
    and Hadi's table and chair (lower case)."""
    from pipeline import draws

    roster = tmp_path / "peserta.csv"
    roster.write_text("pemain\nAna\nHadi\nCici\nDedi\nEka\nFani\nGita\nIka\n", "utf-8")
    set_roster(con, "ev", read_roster(roster), source="peserta.csv")
    seats = draws.draw_round(con, "ev", "S1", seed=7).seats.with_columns(
        pl.col("table").cast(pl.String)
    )
    at = seats.filter(pl.col("player") == "Hadi").row(0, named=True)
    return seats, str(at["table"]), str(at["chair"]).lower()


def test_a_reserve_plays_in_a_drawn_session_for_the_absent_member(store, league, tmp_path):
    """Rule 23 on a drawn session: Hadi is drawn, is absent on the day, and the reserve Rudi
    plays in his chair. Before, the sheet was refused whatever it recorded (``Rudi is not
    drawn at table …; write the players as drawn, or redraw the round``), and a session
    whose other tables were loaded could not be redrawn: the table's result had no way in.
    The record of whom Rudi replaces lets him stand in Hadi's drawn chair."""
    seats, table, chair = hadi_drawn(league, tmp_path)
    drawn = {
        str(r["chair"]).lower(): r["player"]
        for r in seats.filter(pl.col("table") == table).iter_rows(named=True)
    }
    with_rudi = tuple("Rudi" if c == chair else drawn[c] for c in "abcd")

    # the reserve without a record: refused, the sheet told how to write it
    plan = ingest(league, [sheet(tmp_path, "tanpa.csv", table, with_rudi)])
    assert statuses(plan) == {table: "rejected"}
    (refused,) = plan.errors.to_dicts()
    assert (refused["file"], refused["line"], refused["column"]) == (
        "tanpa.csv",
        2,
        f"player_{chair}",
    )
    assert refused["message_id"] == "draw_player.reserve"
    assert (
        f"sits in that member's chair, with the member's name in the column replaces_{chair} "
        f"(ganti_{chair}); or redraw the round"
    ) in refused["message"]

    # in another chair than the member's: pepet's points do not depend on chairs, so the
    # preview says it and would load it ([draw] chairs = "warn"); a rulebook whose draw
    # binds the chairs refuses it, naming both
    other = next(c for c in "abcd" if c != chair)
    moved = list(with_rudi)
    moved["abcd".index(chair)], moved["abcd".index(other)] = drawn[other], "Rudi"
    moved_sheet = sheet(tmp_path, "pindah.csv", table, tuple(moved), {other: "hadi"})
    from pipeline.ingest import service

    warned = service.preview(league, [moved_sheet]).plan.problems
    assert warned.filter(pl.col("code") == "draw_chair")["severity"].unique().to_list() == [
        "warning"
    ]
    assert (
        f"Rudi sits in chair {other.upper()} in hand 1, but the draw gives Hadi chair "
        f"{chair.upper()}: loaded as written"
    ) in " ".join(warned["message"])
    params = copy.deepcopy(rulesets.load("pepet").params)
    params["draw"]["chairs"] = "refuse"
    rulesets.override("pepet", params)
    plan = ingest(league, [moved_sheet])
    rulesets.override("pepet", None)
    assert statuses(plan) == {table: "rejected"}
    said_chairs = plan.errors.filter(pl.col("message_id") == "draw_chair.reserve")
    assert said_chairs["message"].to_list() == [
        f"Rudi, playing for Hadi, sits in chair {other.upper()} in hand 1, but the draw seats "
        f"Hadi in chair {chair.upper()}; a reserve takes the chair of the member they replace: "
        "write the seating as drawn"
    ]

    # in the member's chair, the member named (as any spelling of the registry): loads
    plan = ingest(league, [sheet(tmp_path, "ganti.csv", table, with_rudi, {chair: "hadi"})])
    assert statuses(plan) == {table: "new"}
    assert plan.problems.height == 0
    assert substitutes(league, "ev").select("player", "replaces").to_dicts() == [
        {"player": "Rudi", "replaces": "Hadi"}  # as the registry spells the member
    ]
    # a name the draw does not seat at the table stands for nobody
    other_table = seats.filter(pl.col("table") != table).row(0, named=True)
    bad = sheet(tmp_path, "salah.csv", table, with_rudi, {chair: other_table["player"]})
    assert ingest(league, [bad], reason="x").errors["message_id"].to_list() == [
        "draw_player.reserve"
    ]


def test_a_reserve_entered_at_a_drawn_table_plays_the_session_in_the_members_chair(
    store, league, tmp_path
):
    """The hand-entry page seated a drawn session's table from the draw alone: with a
    member absent, the referee had no way to seat the reserve who played for them (rule
    23). Before the first hand the registered reserves of each drawn member's group are
    offered; the first hand saved with one records whom they replace, and every hand after
    it seats them there."""
    from pipeline import auth, entry

    _, table, chair = hadi_drawn(league, tmp_path)
    auth.add_user(league, "Pak Basri", "a long password", ["ev"], role="jury")
    who = auth.sign_in(league, "Pak Basri", "a long password").identity

    st = entry.state(league, "ev", "S1", table)
    offered = entry.reserves_at(league, st)
    # Hadi (KG Alpha): Rudi and Omar (a member of KG Beta, a reserve of KG Alpha); the
    # others at the table are of KG Beta, which has no reserve
    assert offered == {chair: ["Omar", "Rudi"]}
    ender = next(c for c in "abcd" if c != chair)
    pips = {c: 5 for c in "abcd" if c != ender}
    first = st.seats(1) | {chair: "Rudi"}
    saved = entry.save_hand(
        league, "ev", "S1", table, entry.Hand(1, "out", ender, pips=pips), first, identity=who
    )
    assert saved.ok and saved.problems.height == 0, saved.sentences()
    st = entry.state(league, "ev", "S1", table)
    assert st.stand_ins == {chair: ("Rudi", "Hadi")}
    assert st.seats(2) == first and entry.reserves_at(league, st) == {}
    saved = entry.save_hand(
        league, "ev", "S1", table, entry.Hand(2, "out", ender, pips=pips), st.seats(2), identity=who
    )
    assert saved.ok and saved.problems.height == 0, saved.sentences()
    extra = league.execute(
        "SELECT h.hand, h.extra FROM hands h JOIN match_versions v "
        'USING (event, round, "table", version) WHERE v.current ORDER BY h.hand'
    ).fetchall()
    assert [(n, json.loads(x)) for n, x in extra] == [
        (1, {f"replaces_{chair}": "Hadi"}),
        (2, {f"replaces_{chair}": "Hadi"}),
    ]
    assert substitutes(league, "ev").select("player", "replaces").to_dicts() == [
        {"player": "Rudi", "replaces": "Hadi"}
    ]
