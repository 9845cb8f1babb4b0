"""Golden tests for ruleset ``pepet`` (RULES.md, seed 001): one per category and per
decision, expected categories and points worked out by hand in the comments.

The point table is the project's default (`pipeline/rulesets/pepet.toml`): jawara1 3,
gaple 3, jawara2 2, jawara3 1, ambyar 0, ambyar1 -5, ambyar2 -2, kado 2. Unless a test
says otherwise the seating is Ana (A), Budi (B), Cici (C), Dedi (D).
"""

import re
from pathlib import Path

import polars as pl
import pytest

from pipeline import problems
from pipeline.players import import_registry, read_registry
from pipeline.scoring.rescore import rescore, stale_events
from tests.rules_helpers import hand, hand_rows, load, modified, statuses, table_rows

OTHERS = ("Eko", "Fitri", "Gita", "Hadi")


def ph(n, by, ending, **kw):
    """A pepet hand of session S1, table 1 unless said otherwise."""
    kw.setdefault("round", "S1")
    return hand(n, by, ending, ruleset="pepet", **kw)


def one_hand(con, tmp_path, row) -> dict[str, tuple[str, int]]:
    plan = load(con, tmp_path, [row])
    assert plan.errors.height == 0, plan.errors.to_dicts()
    return hand_rows(con, row["hand"], round=row["round"], table=row["table"])


def values(con, n: int = 1) -> dict[str, int]:
    rows = con.execute("SELECT player, value FROM hand_points WHERE hand = ?", [n]).fetchall()
    return dict(rows)


def with_registry(con, tmp_path: Path, text: str) -> None:
    path = tmp_path / "players.csv"
    path.write_text(text, encoding="utf-8")
    import_registry(con, read_registry(path))
    rescore(con)


# --- categories after an out ---------------------------------------------------------------


@pytest.mark.parametrize("ending", ["out", "habis"])
def test_out_went_out_jawara1_then_by_value_ascending(con, tmp_path, ending):
    # Ana plays her last tile: jawara1 3. Then by value: Cici 5 jawara2 2, Budi 10
    # jawara3 1, Dedi 20 (highest) ambyar 0.
    got = one_hand(con, tmp_path, ph(1, "A", ending, pips=(None, 10, 5, 20)))
    assert got == {
        "Ana": ("jawara1", 3),
        "Cici": ("jawara2", 2),
        "Budi": ("jawara3", 1),
        "Dedi": ("ambyar", 0),
    }


def test_values_from_tiles_count_dead_tiles(con, tmp_path):
    # Budi 6-5 4-3* = 11 + 7 = 18; Cici 2-1 = 3; Dedi 5-5* 1-0 = 10 + 1 = 11.
    row = ph(1, "A", "out", tiles={"B": "6-5 4-3*", "C": "2-1", "D": "5-5* 1-0"})
    got = one_hand(con, tmp_path, row)
    assert got == {
        "Ana": ("jawara1", 3),
        "Cici": ("jawara2", 2),
        "Dedi": ("jawara3", 1),
        "Budi": ("ambyar", 0),
    }
    assert values(con) == {"Ana": 0, "Budi": 18, "Cici": 3, "Dedi": 11}


@pytest.mark.parametrize("tiles", ["0-0", "0-0*", "00"])
def test_zero_zero_alone_counts_13(con, tmp_path, tiles):
    # Budi holds only 0-0 (dead or not): 13, between Cici 12 and Dedi 14.
    got = one_hand(con, tmp_path, ph(1, "A", "out", pips={"C": 12, "D": 14}, tiles={"B": tiles}))
    assert got == {
        "Ana": ("jawara1", 3),
        "Cici": ("jawara2", 2),
        "Budi": ("jawara3", 1),
        "Dedi": ("ambyar", 0),
    }
    assert values(con)["Budi"] == 13


@pytest.mark.parametrize("tiles", ["0-0 4-0", "0-0 0-4*", "0-0* 4|0"])
def test_zero_zero_with_a_blank_partner_counts_0(con, tmp_path, tiles):
    # Budi 0-0 + 4-0 (the partner may be a dead tile, or the 0-0 itself): 0 + 4 = 4,
    # between Cici 3 and Dedi 5.
    got = one_hand(con, tmp_path, ph(1, "A", "out", pips={"C": 3, "D": 5}, tiles={"B": tiles}))
    assert got == {
        "Ana": ("jawara1", 3),
        "Cici": ("jawara2", 2),
        "Budi": ("jawara3", 1),
        "Dedi": ("ambyar", 0),
    }
    assert values(con)["Budi"] == 4


def test_zero_zero_with_a_partner_without_blank_still_counts_13(con, tmp_path):
    # 3-2 has no blank end, so it is no partner: 13 + 5 = 18, between 17 and 19.
    row = ph(1, "A", "out", pips={"C": 17, "D": 19}, tiles={"B": "0-0 3-2"})
    got = one_hand(con, tmp_path, row)
    assert got["Budi"] == ("jawara3", 1)
    assert values(con)["Budi"] == 18


def test_pips_and_tiles_that_agree_load(con, tmp_path):
    rows = [
        # h1: Budi pips 13 with tiles 0-0 (alone: 13) agree; Cici 4, Dedi 9
        ph(1, "A", "out", pips=(None, 13, 4, 9), tiles={"B": "0-0"}),
        # h2: Budi pips 4 with 0-0 4-0* (0 + 4) agree; Cici pips 12 with 6-6* agree; Dedi 9
        ph(2, "A", "out", pips=(None, 4, 12, 9), tiles={"B": "0-0 4-0*", "C": "6-6*"}),
    ]
    assert load(con, tmp_path, rows).errors.height == 0
    # h1: Cici 4 jawara2, Dedi 9 jawara3, Budi 13 ambyar
    assert hand_rows(con, 1, round="S1") == {
        "Ana": ("jawara1", 3),
        "Cici": ("jawara2", 2),
        "Dedi": ("jawara3", 1),
        "Budi": ("ambyar", 0),
    }
    # h2: Budi 4 jawara2, Dedi 9 jawara3, Cici 12 ambyar
    assert hand_rows(con, 2, round="S1") == {
        "Ana": ("jawara1", 3),
        "Budi": ("jawara2", 2),
        "Dedi": ("jawara3", 1),
        "Cici": ("ambyar", 0),
    }


# --- ties: the better category shared (standard competition ranking) ------------------------


@pytest.mark.parametrize(
    ("by", "ending", "pips", "expected"),
    [
        # out; 10, 10, 20: positions 2, 2, 4 -> jawara2, jawara2, ambyar (RULES.md's example)
        ("A", "out", (None, 10, 10, 20), "jawara1 jawara2 jawara2 ambyar"),
        # out; 10, 20, 20: positions 2, 3, 3 -> jawara2, jawara3, jawara3
        ("A", "out", (None, 10, 20, 20), "jawara1 jawara2 jawara3 jawara3"),
        # out; 7, 7, 7: all position 2
        ("A", "out", (None, 7, 7, 7), "jawara1 jawara2 jawara2 jawara2"),
        # locked by Ana (9): Budi 5, Cici 5 share position 1 -> gaple, gaple; Ana position 3
        # but the locker -> ambyar1; Dedi 12 position 4 -> ambyar
        ("A", "locked", (9, 5, 5, 12), "ambyar1 gaple gaple ambyar"),
        # locked by Ana, lowest (4): gaple; the others 8, 8, 8 share position 2 -> jawara2
        ("A", "locked", (4, 8, 8, 8), "gaple jawara2 jawara2 jawara2"),
        # locked by Dedi (12): Ana 3 gaple; Budi 6, Cici 6 share position 2 -> jawara2;
        # Dedi position 4 -> ambyar1 (locker)
        ("D", "locked", (3, 6, 6, 12), "gaple jawara2 jawara2 ambyar1"),
    ],
    ids=[
        "out-10-10-20",
        "out-10-20-20",
        "out-7-7-7",
        "locked-tie-lowest",
        "locked-tie-2nd",
        "locked-locker-last",
    ],
)
def test_ties_share_the_better_category(con, tmp_path, by, ending, pips, expected):
    points = {"jawara1": 3, "gaple": 3, "jawara2": 2, "jawara3": 1, "ambyar": 0, "ambyar1": -5}
    got = one_hand(con, tmp_path, ph(1, by, ending, pips=pips))
    want = {
        p: (c, points[c])
        for p, c in zip(("Ana", "Budi", "Cici", "Dedi"), expected.split(), strict=True)
    }
    assert got == want


# --- locked: the locker ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("penalty", "pips", "expected"),
    [
        # Budi locks and is lowest (3): gaple 3 unless_lowest; Ana 8 jawara2, Cici 10 jawara3,
        # Dedi 12 ambyar
        ("unless_lowest", (8, 3, 10, 12), {"Budi": ("gaple", 3), "Ana": ("jawara2", 2)}),
        # always: Budi ambyar1 -5 all the same; his position still counts: Ana stays jawara2
        ("always", (8, 3, 10, 12), {"Budi": ("ambyar1", -5), "Ana": ("jawara2", 2)}),
        # Budi locks and loses (10): Ana 3 gaple, Cici 8 jawara2, Budi ambyar1 -5, Dedi ambyar
        (
            "unless_lowest",
            (3, 10, 8, 12),
            {"Budi": ("ambyar1", -5), "Ana": ("gaple", 3), "Cici": ("jawara2", 2)},
        ),
        (
            "always",
            (3, 10, 8, 12),
            {"Budi": ("ambyar1", -5), "Ana": ("gaple", 3), "Cici": ("jawara2", 2)},
        ),
        # Budi locks tied for lowest with Ana (3, 3): both position 1 -> both gaple ...
        (
            "unless_lowest",
            (3, 3, 8, 12),
            {"Budi": ("gaple", 3), "Ana": ("gaple", 3), "Cici": ("jawara3", 1)},
        ),
        # ... unless always: Budi ambyar1; Ana gaple; Cici position 3 jawara3
        (
            "always",
            (3, 3, 8, 12),
            {"Budi": ("ambyar1", -5), "Ana": ("gaple", 3), "Cici": ("jawara3", 1)},
        ),
    ],
    ids=[
        "lowest-unless",
        "lowest-always",
        "losing-unless",
        "losing-always",
        "tied-unless",
        "tied-always",
    ],
)
def test_locker_penalty(con, tmp_path, ruleset_override, penalty, pips, expected):
    ruleset_override("pepet", modified("pepet", locker_penalty=penalty))
    got = one_hand(con, tmp_path, ph(1, "B", "kunci", pips=pips))
    assert {p: got[p] for p in expected} == expected
    assert got["Dedi"] == ("ambyar", 0)  # 12, the highest, in every case


def test_tutup_causer_ambyar2_others_kado(con, tmp_path):
    # Cici withheld a playable tile: ambyar2 -2; every other player kado +2. No values needed.
    got = one_hand(con, tmp_path, ph(1, "C", "tutup"))
    assert got == {
        "Cici": ("ambyar2", -2),
        "Ana": ("kado", 2),
        "Budi": ("kado", 2),
        "Dedi": ("kado", 2),
    }


# --- session, event and group standings --------------------------------------------------------


def test_stars_tied_session_and_event_order_by_jawara_gaple(con, tmp_path):
    rows = [
        # h1 out by Ana: Ana jawara1 3, Budi 5 jawara2 2, Cici 10 jawara3 1, Dedi 20 ambyar 0
        ph(1, "A", "out", pips=(None, 5, 10, 20)),
        # h2 locked by Dedi, lowest (2): gaple 3; Cici 5 jawara2 2, Budi 8 jawara3 1, Ana 12 ambyar 0
        ph(2, "D", "locked", pips=(12, 8, 5, 2)),
    ]
    plan = load(con, tmp_path, rows)
    assert statuses(plan) == {"1": "new"}
    # session: Ana 3 + 0, Budi 2 + 1, Cici 1 + 2, Dedi 0 + 3: all 3, all rank 1, all a star
    rs = con.execute("SELECT player, points, rank, star FROM round_standings").fetchall()
    assert sorted(rs) == [
        ("Ana", 3, 1, True),
        ("Budi", 3, 1, True),
        ("Cici", 3, 1, True),
        ("Dedi", 3, 1, True),
    ]
    # event: equal points (3) and stars (1); jawara1 + gaple: Ana 1, Dedi 1 (the gaple),
    # Budi 0, Cici 0 -> Ana and Dedi share 1, Budi and Cici share 3
    ev = con.execute(
        "SELECT player, points, rank, stars, jawara_gaple FROM event_standings"
    ).fetchall()
    assert sorted(ev) == [
        ("Ana", 3, 1, 1, 1),
        ("Budi", 3, 3, 1, 0),
        ("Cici", 3, 3, 1, 0),
        ("Dedi", 3, 1, 1, 1),
    ]
    # the table of a session never qualifies anybody and never needs a tie-break
    assert {
        (r["rank"], r["qualified"], r["needs_tiebreak"])
        for r in table_rows(con, round="S1").values()
    } == {(1, False, False)}


def test_event_order_points_then_stars_then_jawara_gaple(con, tmp_path):
    rows = [
        # S1 h1 out by Ana: Ana 3, Budi 5 -> 2, Cici 10 -> 1, Dedi 20 -> 0
        ph(1, "A", "out", pips=(None, 5, 10, 20)),
        # S1 h2 out by Ana: Ana 3, Dedi 5 -> 2, Budi 10 -> 1, Cici 20 -> 0
        ph(2, "A", "out", pips=(None, 10, 20, 5)),
        # S2 h1 out by Ana: Ana 3, Cici 5 -> 2, Budi 10 -> 1, Dedi 20 -> 0
        ph(1, "A", "out", pips=(None, 10, 5, 20), round="S2"),
        # S2 h2 out by Dedi: Dedi 3, Cici 5 -> 2, Budi 10 -> 1, Ana 20 -> 0
        ph(2, "D", "out", pips=(20, 10, 5, None), round="S2"),
    ]
    assert load(con, tmp_path, rows).errors.height == 0
    # S1: Ana 6 (star), Budi 3, Cici 1, Dedi 2.  S2: Ana 3, Budi 2, Cici 4 (star), Dedi 3.
    rs = con.execute("SELECT round, player, points, star FROM round_standings").fetchall()
    assert sorted(rs) == [
        ("S1", "Ana", 6, True), ("S1", "Budi", 3, False), ("S1", "Cici", 1, False), ("S1", "Dedi", 2, False),
        ("S2", "Ana", 3, False), ("S2", "Budi", 2, False), ("S2", "Cici", 4, True), ("S2", "Dedi", 3, False),
    ]  # fmt: skip
    # Event: Ana 9 (1 star, 3 jawara1); Budi 3+2 = 5 (0 stars, 0 jawara1);
    # Cici 1+4 = 5 (1 star, 0 jawara1); Dedi 2+3 = 5 (0 stars, 1 jawara1).
    # Points first (Ana), then stars (Cici before Dedi though Dedi has more jawara1),
    # then jawara1 + gaple (Dedi before Budi).
    ev = con.execute(
        "SELECT player, rank, points, stars, jawara_gaple FROM event_standings"
    ).fetchall()
    assert sorted(ev, key=lambda r: r[1]) == [
        ("Ana", 1, 9, 1, 3),
        ("Cici", 2, 5, 1, 0),
        ("Dedi", 3, 5, 0, 1),
        ("Budi", 4, 5, 0, 0),
    ]


REGISTRY = """player,group,city,aliases
Ana,KG Alpha,Makassar,
Budi,KG Alpha,Makassar,Budhi;Budi S
Cici,KG Beta,Gowa,
Dedi,KG Beta,Gowa,
Fitri,KG Beta,Gowa,
Eko,KG Gamma,Maros,
"""


def test_group_standings_sum_members_and_merge_aliases(con, tmp_path):
    with_registry(con, tmp_path, REGISTRY)
    budhi = ("Ana", "BUDHI", "Cici", "Dedi")  # an alias spelling of Budi, in odd case
    rows = [
        # h1 out by Ana: Ana 3, Budi 5 -> 2, Cici 10 -> 1, Dedi 20 -> 0
        ph(1, "A", "out", pips=(None, 5, 10, 20)),
        # h2 tutup by Cici: Cici -2; Ana, Budi (as "BUDHI"), Dedi kado +2
        ph(2, "C", "tutup", seats=budhi),
    ]
    plan = load(con, tmp_path, rows)
    assert statuses(plan) == {"1": "new"}
    # one player Budi, shown with the registry's spelling: 2 + 2 = 4 over 2 hands
    assert {p: r["points"] for p, r in table_rows(con, round="S1").items()} == {
        "Ana": 3 + 2,
        "Budi": 2 + 2,
        "Cici": 1 - 2,
        "Dedi": 0 + 2,
    }
    gs = con.execute('SELECT "group", points, hands, players, rank FROM group_standings').fetchall()
    # KG Alpha: Ana 5 + Budi 4 = 9, 2 + 2 hands, 2 players. KG Beta: Cici -1 + Dedi 2 = 1,
    # 4 hands, 2 players (Fitri never played). KG Gamma (Eko never played): no row.
    assert sorted(gs) == [("KG Alpha", 9, 4, 2, 1), ("KG Beta", 1, 4, 2, 2)]


def test_registry_after_the_results_merges_spellings_and_outsiders_have_no_group(con, tmp_path):
    rows = [
        # S1 h1 out by Ana: Ana 3, "Budi S" 5 -> 2, Cici 10 -> 1, Zaki 20 -> 0
        ph(1, "A", "out", pips=(None, 5, 10, 20), seats=("Ana", "Budi S", "Cici", "Zaki")),
        # S2 h1 tutup by Zaki: Zaki -2; Ana, Budi, Cici kado +2 (one spelling per table:
        # two spellings at one table are five players at four chairs, refused)
        ph(1, "D", "tutup", seats=("Ana", "Budi", "Cici", "Zaki"), round="S2"),
    ]
    load(con, tmp_path, rows)

    def event_points() -> dict[str, int]:
        return dict(con.execute("SELECT player, points FROM event_standings").fetchall())

    # no registry yet: "Budi S" and "Budi" are two players
    assert len(event_points()) == 5
    with_registry(con, tmp_path, REGISTRY)
    # the registry's alias makes them one (2 + 2 = 4); Zaki is in no group
    assert event_points() == {"Ana": 3 + 2, "Budi": 2 + 2, "Cici": 1 + 2, "Zaki": 0 - 2}
    gs = con.execute('SELECT "group", points, hands, players, rank FROM group_standings').fetchall()
    # KG Alpha: Ana 5 + Budi 4 = 9 over 4 hands; KG Beta: Cici 3 over 2 hands (Dedi and
    # Fitri never played)
    assert sorted(gs) == [("KG Alpha", 9, 4, 2, 1), ("KG Beta", 3, 2, 1, 2)]


def test_name_outside_the_registry_is_an_error_suggesting_close_names(con, tmp_path):
    with_registry(con, tmp_path, REGISTRY + "Gita,KG Gamma,Maros,\nHadi,KG Gamma,Maros,\n")
    rows = [
        ph(1, "A", "tutup", seats=("Eko", "Fitri", "Gita", "Hadi")),  # table 1, line 2
        ph(1, "A", "tutup", seats=("Anna", "budi", "Cici", "Dedi"), table="2"),  # line 3
    ]
    plan = load(con, tmp_path, rows)
    assert statuses(plan) == {"1": "new", "2": "rejected"}
    (e,) = plan.errors.to_dicts()
    assert (e["code"], e["line"], e["column"]) == ("unregistered_player", 3, "player_a")
    assert problems.describe(e).startswith(
        "hands.csv:3 player_a: Anna is not in the player registry"
    )
    assert "closest registered names: Ana" in e["message"]
    assert con.execute('SELECT DISTINCT "table" FROM table_standings').fetchall() == [("1",)]
    # the registry binds pepet only: an unhas event with unregistered names loads
    unhas = hand(1, "A", "biasa", seats=("Xena", "Yusuf", "Zaki", None), event="u1")
    assert statuses(load(con, tmp_path, [unhas], name="u.csv")) == {"1": "new"}


def test_session_shape_warning(con, tmp_path):
    """RULES.md, session shape: a load warns when a session has more than 3 tables or a
    table other than 4 players; a session still missing tables is in progress, not warned."""
    names = [f"P{i}" for i in range(20)]

    def table(t, seats=None, rnd="S1"):
        return ph(
            1,
            "A",
            "tutup",
            seats=seats or tuple(names[4 * t : 4 * t + 4]),
            round=rnd,
            table=str(t + 1),
        )

    # S1 loaded table by table: 1 of 3, then 2 of 3 -> in progress, no warning
    plan = load(con, tmp_path, [table(0)], name="t1.csv")
    assert statuses(plan) == {"1": "new"} and plan.problems.height == 0
    plan = load(con, tmp_path, [table(1)], name="t2.csv")
    assert statuses(plan) == {"2": "new"} and plan.problems.height == 0
    # the third table: 12 players on 3 tables, no warning
    plan = load(con, tmp_path, [table(2)], name="t3.csv")
    assert plan.problems.height == 0
    # a fourth table: warned (on its first line), and it loads
    plan = load(con, tmp_path, [table(3)], name="t4.csv")
    assert statuses(plan) == {"4": "new"}
    (w,) = plan.warnings.to_dicts()
    assert (w["code"], w["severity"], w["file"], w["line"], w["column"]) == (
        "session_shape",
        "warning",
        "t4.csv",
        2,
        "round",
    )
    assert (
        "session S1 has 4 tables" in w["message"] and "12 players on 3 tables of 4" in w["message"]
    )
    # S2: a table whose players change between hands is not another shape of session but
    # two matches under one label: an error that keeps it out (no shape warning)
    rows = [
        ph(1, "A", "tutup", seats=("Q1", "Q2", "Q3", "Q4"), round="S2", table="1"),
        ph(2, "A", "tutup", seats=("Q1", "Q2", "Q3", "Q5"), round="S2", table="1"),
    ]
    plan = load(con, tmp_path, rows, name="s2.csv")
    assert statuses(plan) == {"1": "rejected"}
    assert plan.errors.get_column("code").to_list() == ["seating_changed"]
    assert plan.warnings.filter(pl.col("code") == "session_shape").height == 0
    # S3 in one file, its tables written 4, 3, 2, 1: warned once, on the session's first
    # line in the file (table 4's), the same line in every run
    for k in range(3):
        rows = [table(t, rnd=f"S3-{k}") for t in (3, 2, 1, 0)]
        plan = load(con, tmp_path, rows, name=f"s3-{k}.csv")
        shapes = plan.warnings.filter(pl.col("code") == "session_shape").to_dicts()
        assert [(w["line"], w["column"], w["table"]) for w in shapes] == [(2, "round", "4")]


# --- ruleset-specific validation -----------------------------------------------------------------

GOOD = [ph(1, "A", "out", pips=(None, 10, 5, 20))]  # table 1, line 2


def t2(n, by, ending, **kw):
    return ph(n, by, ending, seats=kw.pop("seats", OTHERS), table="2", **kw)


BAD_CASES = {
    # id: (table 2 rows from line 3, code, line, column, words in the message)
    "locked-missing-value": (
        [t2(1, "A", "locked", pips={"A": 3, "B": 5, "D": 9})], "missing_pips", 3, "pips_c", ["chair C (Gita)"],
    ),
    "out-missing-value": (
        [t2(1, "A", "out", pips={"C": 3, "D": 9})], "missing_pips", 3, "pips_b", ["chair B (Fitri)"],
    ),
    "pips-vs-zero-zero-alone": (
        [t2(1, "A", "out", pips=(None, 0, 4, 9), tiles={"B": "0-0"})], "pips_tiles_disagree", 3, "pips_b", ["13"],
    ),
    "pips-vs-zero-zero-partnered": (
        [t2(1, "A", "out", pips=(None, 17, 4, 9), tiles={"B": "0-0 4-0*"})], "pips_tiles_disagree", 3, "pips_b", ["17", "4"],
    ),
    "went-out-with-tiles": (
        [t2(1, "A", "out", pips=(None, 1, 4, 9), tiles={"A": "1-0"})], "ender_has_pips", 3, "pips_a", ["went out"],
    ),
    "three-players": (
        [t2(1, "A", "tutup", seats=("Eko", "Fitri", "Gita", None))], "too_few_players", 3, "player_a", ["4"],
    ),
    "pips-over-74": ([t2(1, "A", "out", pips=(None, 75, 4, 9))], "pips_too_high", 3, "pips_b", ["75", "74"]),
    "tile-held-twice": (
        [t2(1, "A", "out", tiles={"B": "3-2", "C": "2-3*", "D": "6-6"})], "tile_twice", 3, "tiles_b", ["3-2"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(BAD_CASES))
def test_rejected_match_stays_out_while_the_other_loads(con, tmp_path, case):
    bad_rows, code, line, column, words = BAD_CASES[case]
    plan = load(con, tmp_path, [*GOOD, *bad_rows])
    assert statuses(plan) == {"1": "new", "2": "rejected"}
    errs = plan.errors.filter(plan.errors["code"] == code).to_dicts()
    assert [(e["file"], e["line"], e["column"]) for e in errs] == [("hands.csv", line, column)], (
        plan.errors.to_dicts()
    )
    assert problems.describe(errs[0]).startswith(f"hands.csv:{line} {column}: ")
    for w in words:
        assert w in errs[0]["message"], errs[0]["message"]
    assert set(plan.errors["table"].to_list()) == {"2"}
    assert con.execute('SELECT DISTINCT "table" FROM hand_points').fetchall() == [("1",)]
    assert con.execute('SELECT DISTINCT "table" FROM table_standings').fetchall() == [("1",)]


# --- parameters ------------------------------------------------------------------------------


def test_point_table_is_data_changing_it_changes_the_standings(con, tmp_path, ruleset_override):
    # h1 out by Ana: 3, 2 (Cici 5), 1 (Budi 10), 0 (Dedi 20). h2 tutup by Dedi: -2, others +2.
    load(con, tmp_path, [ph(1, "A", "out", pips=(None, 10, 5, 20)), ph(2, "D", "tutup")])
    # an unhas event beside it, which the pepet table does not make stale
    load(con, tmp_path, [hand(1, "A", "biasa", event="u1")], name="u1.csv")
    pts = {p: r["points"] for p, r in table_rows(con, round="S1").items()}
    assert pts == {"Ana": 3 + 2, "Budi": 1 + 2, "Cici": 2 + 2, "Dedi": 0 - 2}
    assert stale_events(con) == []
    # an organiser's own table: jawara1 10, kado 0, ambyar2 -7
    ruleset_override(
        "pepet", modified("pepet", **{"points.jawara1": 10, "points.kado": 0, "points.ambyar2": -7})
    )
    assert stale_events(con) == ["ev"]
    assert stale_events(con, "ev") == ["ev"] and stale_events(con, "u1") == []
    rescore(con)
    assert stale_events(con) == []
    pts = {p: r["points"] for p, r in table_rows(con, round="S1").items()}
    assert pts == {"Ana": 10 + 0, "Budi": 1 + 0, "Cici": 2 + 0, "Dedi": 0 - 7}
    # Ana 10 alone on top; the star and the event order follow
    assert con.execute("SELECT player FROM round_standings WHERE star").fetchall() == [("Ana",)]
    assert con.execute(
        "SELECT player, points FROM event_standings WHERE event = 'ev' AND rank = 4"
    ).fetchall() == [("Dedi", -7)]


def test_docs_cite_every_rules_test_and_only_real_ones():
    # docs/rules-pepet.md names the test that pins each rule: no rule without a test, no
    # test name that no longer exists
    from tests import test_examples, test_scoring_properties

    doc = (Path(__file__).resolve().parents[1] / "docs" / "rules-pepet.md").read_text()
    cited = set(re.findall(r"\b(test_[a-z0-9_]+)\b(?!\.py)", doc))
    here = {n for n in globals() if n.startswith("test_")}
    real = here | {
        n for m in (test_examples, test_scoring_properties) for n in dir(m) if n.startswith("test_")
    }
    # a rule pinned in another test file (round order, the registry) is cited by name too
    for other in Path(__file__).resolve().parent.glob("test_*.py"):
        real |= set(re.findall(r"^def (test_[a-z0-9_]+)", other.read_text(), re.M))
    assert cited - real == set(), "cited but not a test"
    assert here - cited - {"test_docs_cite_every_rules_test_and_only_real_ones"} == set(), (
        "not in the doc"
    )
