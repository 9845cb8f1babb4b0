"""The road to the final and "standings after round N" (pipeline/standings/bracket.py).

Golden values: the worked unhas example (tests/data/examples, read off its logs and its
expected table standings by hand), and a small two-round event worked by hand below.
"""

import polars as pl
import pytest

from pipeline.ingest import ingest
from pipeline.standings import bracket, queries
from tests.draw_fixture_entry import create_event, insert_draw
from tests.test_examples import IN_REPO, load_example

EV = "mini-cup"
HEADER = (
    "event,ruleset,round,table,hand,player_a,player_b,player_c,player_d,ended_by,ending,last_tile"
)
T1 = {"a": "Ani", "b": "Budi", "c": "Cici", "d": "Dedi"}
T2 = {"a": "Eka", "b": "Fajar", "c": "Gita", "d": "Hadi"}
FINAL = {"a": "Eka", "b": "Budi", "c": "Gita", "d": "Ani"}


def seats(start: dict[str, str], hand: int) -> dict[str, str]:
    """Art. 1.14-1.15 by hand: A<->C from hand 3, B<->D as well from hand 7."""
    s = dict(start)
    if hand >= 3:
        s["a"], s["c"] = start["c"], start["a"]
    if hand >= 7:
        s["b"], s["d"] = start["d"], start["b"]
    return s


def match(round: str, table: str, start: dict[str, str], winners: list[str]) -> list[str]:
    """Ten `biasa` hands, hand i won by the player winners[i-1] (in whatever chair)."""
    rows = []
    for hand, who in enumerate(winners, start=1):
        s = seats(start, hand)
        chair = next(c for c, p in s.items() if p == who).upper()
        rows.append(
            f"{EV},unhas,{round},{table},{hand},{s['a']},{s['b']},{s['c']},{s['d']},{chair},biasa,1-2"
        )
    return rows


R1 = [
    *match("R1", "1", T1, ["Ani"] * 5 + ["Budi"] * 5),
    *match("R1", "2", T2, ["Eka"] * 10),
]
R2 = match("Final", "1", FINAL, ["Gita"] * 10)


@pytest.fixture
def mini(con, tmp_path):
    f = tmp_path / "r1.csv"
    f.write_text("\n".join([HEADER, *R1]) + "\n")
    assert ingest(con, [f]).exit_code == 0
    return tmp_path


def load_final(con, tmp_path):
    f = tmp_path / "final.csv"
    f.write_text("\n".join([HEADER, *R2]) + "\n")
    assert ingest(con, [f]).exit_code == 0


def ranked(df: pl.DataFrame) -> list[tuple[str, int, int]]:
    return [(r["player"], r["points"], r["rank"]) for r in df.sort("rank", "player").to_dicts()]


def test_hand_worked_points_of_the_small_event(con, mini):
    # table 1: Ani wins hands 1-5 (+2 each; above her: Dedi in hands 1-2, Budi in 3-5),
    # Budi wins 6-10 (above him: Cici in hand 6, Ani in 7-10) -> Budi 7, Ani 6, Cici -1, Dedi -2
    t = queries.standings(con, EV, "table", "R1")
    got = {r["player"]: (r["points"], r["rank"], r["qualified"]) for r in t.to_dicts()}
    assert got["Budi"] == (7, 1, True) and got["Ani"] == (6, 2, True)
    assert got["Cici"] == (-1, 3, False) and got["Dedi"] == (-2, 4, False)
    # table 2: Eka wins all ten: Hadi above in 1-2 and 7-10, Fajar in 3-6
    assert got["Eka"] == (20, 1, True) and got["Gita"] == (0, 2, True)
    assert got["Fajar"] == (-4, 3, False) and got["Hadi"] == (-6, 4, False)


def test_standings_after_round_one_and_after_the_final(con, mini):
    load_final(con, mini)
    # after R1 every player reached R1: table rank first, then points
    after1 = bracket.event_after(con, EV, "R1")
    assert ranked(after1) == [
        ("Eka", 20, 1),
        ("Budi", 7, 2),
        ("Ani", 6, 3),
        ("Gita", 0, 4),
        ("Cici", -1, 5),
        ("Fajar", -4, 6),
        ("Dedi", -2, 7),
        ("Hadi", -6, 8),
    ]
    assert set(after1["round_reached"]) == {"R1"}
    # after the Final (round order: Final after R1): the finalists first, by their rank
    # at the final table (Gita 20, Eka 0, Ani -4, Budi -6), points over both rounds
    after2 = bracket.event_after(con, EV, "Final")
    assert ranked(after2) == [
        ("Gita", 20, 1),
        ("Eka", 20, 2),
        ("Ani", 2, 3),
        ("Budi", 1, 4),
        ("Cici", -1, 5),
        ("Fajar", -4, 6),
        ("Dedi", -2, 7),
        ("Hadi", -6, 8),
    ]
    # after the last round it is the event standings themselves
    whole = queries.standings(con, EV, "event")
    assert after2.sort("player").equals(whole.sort("player"))
    assert after1.columns == whole.columns


def test_standings_after_a_round_that_does_not_exist_name_the_rounds(con, mini):
    with pytest.raises(queries.NotFound, match="R1"):
        bracket.event_after(con, EV, "R9")


def test_the_road_of_the_small_event_and_its_podium(con, mini):
    insert_draw(con, EV, "Final", {"1": FINAL})
    road = bracket.road(con, EV)
    drawn = road.filter(pl.col("round") == "Final")
    assert set(drawn["outcome"]) == {"drawn"} and drawn.height == 4
    r1 = {
        r["player"]: (r["outcome"], r["next_table"])
        for r in road.filter(pl.col("round") == "R1").to_dicts()
    }
    assert r1["Budi"] == ("advanced", "1") and r1["Gita"] == ("advanced", "1")
    assert r1["Cici"] == ("eliminated", None) and r1["Hadi"] == ("eliminated", None)
    assert bracket.podium(con, EV).height == 0  # the final is drawn, not played
    assert bracket.final_round(con, EV) is None  # R1 has two tables: no final yet
    load_final(con, mini)
    # the Final is one table: nobody goes on from it, each finished player has a place
    assert bracket.final_round(con, EV) == "Final"
    final = bracket.road(con, EV).filter(pl.col("round") == "Final")
    assert final.select("player", "rank", "outcome").rows() == [
        ("Gita", 1, "placed"),
        ("Eka", 2, "placed"),
        ("Ani", 3, "placed"),
        ("Budi", 4, "placed"),
    ]
    podium = bracket.podium(con, EV)
    assert podium.select("place", "player", "points").rows() == [
        (1, "Gita", 20),
        (2, "Eka", 0),
        (3, "Ani", -4),
        (4, "Budi", -6),
    ]
    assert podium["final"].all()


#: R1 table 1 again, with a tie for the second place. By hand (above A is D, above C is B;
#: biasa +2 to the winner, -1 to the player above): hands 1-2 Ani in A (Dedi above): Ani +4,
#: Dedi -2; hand 3 Ani in C (Budi above): Ani +2, Budi -1; hands 4-5 Budi in B (Cici
#: above): Budi +4, Cici -2; hand 6 Cici in A (Dedi above): Cici +2, Dedi -1; hands 7-8
#: Budi in D (Ani above): Budi +4, Ani -2; hands 9-10 Cici in A (Budi above): Cici +4,
#: Budi -2. Budi 5, Ani 4, Cici 4, Dedi -3: Ani and Cici tie across the line.
TIED = match("R1", "1", T1, ["Ani"] * 3 + ["Budi"] * 2 + ["Cici"] + ["Budi"] * 2 + ["Cici"] * 2)
#: Hand 11, Ani and Cici only, in their hand-10 chairs (C and A): Cici wins; above A the
#: empty D and then C: Ani. Cici +2, Ani -1 in tie-break points; totals unchanged.
TIEBREAK = f"{EV},unhas,R1,1,11,Cici,,Ani,,A,biasa,1-2"


def test_the_road_shows_which_tie_break_put_a_player_through(con, tmp_path):
    f = tmp_path / "tied.csv"
    f.write_text("\n".join([HEADER, *TIED]) + "\n")
    assert ingest(con, [f]).exit_code == 0
    at = {r["player"]: r for r in bracket.road(con, EV).to_dicts()}
    assert {p: (r["points"], r["rank"]) for p, r in at.items()} == {
        "Budi": (5, 1),
        "Ani": (4, 2),
        "Cici": (4, 2),
        "Dedi": (-3, 4),
    }
    assert at["Ani"]["outcome"] == at["Cici"]["outcome"] == "playing"
    # one table of a first round, no draw, no roster: more tables may come, no final yet
    assert bracket.final_round(con, EV) is None
    assert bracket.final_state(con, EV) == (None, bracket.MAY_GROW)
    f.write_text("\n".join([HEADER, *TIED, TIEBREAK]) + "\n")
    assert ingest(con, [f]).exit_code == 0
    at = {r["player"]: r for r in bracket.road(con, EV).to_dicts()}
    got = {p: (r["points"], r["tiebreak_points"], r["rank"], r["outcome"]) for p, r in at.items()}
    assert got == {
        "Budi": (5, 0, 1, "qualified"),
        "Cici": (4, 2, 2, "qualified"),
        "Ani": (4, -1, 3, "eliminated"),
        "Dedi": (-3, 0, 4, "eliminated"),
    }


def test_the_road_of_the_worked_unhas_example(con):
    assert load_example(con, IN_REPO / "unhas") == []
    road = bracket.road(con, "unhas-2024-e1")
    at = {(r["round"], r["player"]): r for r in road.to_dicts()}
    # R1 table 1 (log R1_multi): Bayu Rauf and Wahyu Nugroho qualify and meet again at R2 table 1
    assert (at[("R1", "Bayu Rauf")]["table"], at[("R1", "Bayu Rauf")]["next_table"]) == ("1", "1")
    assert at[("R1", "Wahyu Nugroho")]["outcome"] == "advanced"
    assert at[("R1", "Arif Pallawa")]["outcome"] == "eliminated"
    # R1 table 6 is a walkover: both listed players go on, to R2 table 3 (log R2_meja3)
    for p in ("Rusdi Yunus", "Nining Sudirman"):
        assert (at[("R1", p)]["walkover"], at[("R1", p)]["next_table"]) == (True, "3")
    # R2 table 2: Hasan Rauf and Sitti Santoso tie on 8 for first, both qualify, and
    # go to different tables of R3 (logs R3_meja1, R3_meja2)
    assert at[("R2", "Hasan Rauf")]["next_table"] == "1"
    assert at[("R2", "Sitti Santoso")]["next_table"] == "2"
    # R3 table 1 is still being played: nobody is out or through yet
    r3t1 = road.filter((pl.col("round") == "R3") & (pl.col("table") == "1"))
    assert set(r3t1["outcome"]) == {"playing"}
    # eliminated: R1 two at tables 1, 3, 4, 5 and one at the 3-player table 2 (9); R2 two at
    # each of its three tables (6); R3 Sitti Santoso at table 2 (1)
    out = road.filter(pl.col("outcome") == "eliminated").group_by("round").len().sort("round")
    assert out.rows() == [("R1", 9), ("R2", 6), ("R3", 1)]
    # R3 has two tables: no final table yet, so no podium
    assert bracket.podium(con, "unhas-2024-e1").height == 0
    assert bracket.final_state(con, "unhas-2024-e1") == (None, bracket.SEVERAL_TABLES)


def test_the_podium_of_the_worked_pepet_example_is_juara_one_to_four(con):
    assert load_example(con, IN_REPO / "pepet") == []
    expected = [
        (r["player"], int(r["points"]), int(r["rank"]))
        for r in pl.read_csv(IN_REPO / "pepet" / "expected" / "event_standings.csv")
        .filter(pl.col("rank") <= 4)
        .to_dicts()
    ]
    podium = bracket.podium(con, "pepet-2024-e1")
    assert sorted((r["player"], r["points"], r["place"]) for r in podium.to_dicts()) == sorted(
        expected
    )
    assert bracket.final_state(con, "pepet-2024-e1") == (None, bracket.NO_FINAL)
    # a league moves players between tables; nobody is eliminated
    assert set(bracket.road(con, "pepet-2024-e1")["outcome"]) <= {"moved", "played"}


def test_a_leagues_podium_is_provisional_until_the_event_is_over(con):
    """The road to the final named a league's "Juara 1" after its first session, as if the
    league were over: its podium is the standings so far until every session of its order
    has results and the event is finished (pipeline.league.unfinished)."""
    from pipeline.rounds import set_order

    assert load_example(con, IN_REPO / "pepet") == []
    assert bracket.podium(con, "pepet-2024-e1").get_column("final").all()
    set_order(con, "pepet-2024-e1", ["S1", "S2", "S3", "S4"])  # one session still to come
    assert not bracket.podium(con, "pepet-2024-e1").get_column("final").any()


def test_a_drawn_table_not_loaded_yet_stays_on_the_road(con, tmp_path):
    # R1 drawn as two tables; table 1's log is in, table 2's not yet
    insert_draw(con, EV, "R1", {"1": T1, "2": T2})
    f = tmp_path / "t1.csv"
    f.write_text("\n".join([HEADER, *R1[:10]]) + "\n")
    assert ingest(con, [f]).exit_code == 0
    road = bracket.road(con, EV)
    at = {r["player"]: r for r in road.to_dicts()}
    assert {p: at[p]["outcome"] for p in T2.values()} == dict.fromkeys(T2.values(), "drawn")
    assert {at[p]["table"] for p in T2.values()} == {"2"}
    assert at["Budi"]["outcome"] == "qualified" and at["Dedi"]["outcome"] == "eliminated"
    # the final drawn while table 2 is still to come: Budi's seat there is on the road
    insert_draw(con, EV, "Final", {"1": FINAL})
    at = {r["player"]: r for r in bracket.road(con, EV).filter(pl.col("round") == "R1").to_dicts()}
    assert (at["Budi"]["outcome"], at["Budi"]["next_table"]) == ("advanced", "1")


def test_a_first_round_drawn_before_any_result_is_on_the_road(store, con):
    # entrants nobody has loaded a hand of yet: the draw's names stand on the road
    from pipeline import draws
    from tests.draw_fixture import set_roster

    create_event(con, "new-cup", "unhas")
    eight = ["Ani", "Budi", "Cici", "Dedi", "Eka", "Fajar", "Gita", "Hadi"]
    set_roster(con, "new-cup", eight)
    draws.draw_round(con, "new-cup", "R1", seed=3)
    road = bracket.road(con, "new-cup")
    assert sorted(road.get_column("player")) == eight
    assert set(road.get_column("outcome")) == {"drawn"}
    assert road.group_by("table").len().sort("table").rows() == [("1", 4), ("2", 4)]


def _same(a: pl.DataFrame, b: pl.DataFrame, keys: list[str]) -> None:
    assert a.columns == b.columns
    assert a.sort(keys).equals(b.sort(keys)), (a.sort(keys), b.sort(keys))


def _after_the_last_round_is_the_views(con) -> None:
    events = [r[0] for r in con.execute("SELECT event FROM events ORDER BY event").fetchall()]
    assert len(events) >= 2
    for ev in events:
        last = queries.rounds(con, ev)[-1]
        _same(bracket.event_after(con, ev, last), queries.standings(con, ev, "event"), ["player"])
        if queries.ruleset_of(con, ev) == "pepet":
            groups = queries.standings(con, ev, "group")
            assert groups.height
            _same(bracket.groups_after(con, ev, last).select(groups.columns), groups, ["group"])


def test_after_the_last_round_the_round_picker_agrees_with_the_views(con):
    """The round picker's standings (after_round.sql, groups_after_round.sql) and the
    public views (event_standings, group_standings) write the same rules twice; after an
    event's last round they must be the same rows, for both rulebooks (the worked
    examples)."""
    for rs in ("unhas", "pepet"):
        assert load_example(con, IN_REPO / rs) == []
    _after_the_last_round_is_the_views(con)


def test_after_the_last_round_the_round_picker_agrees_with_the_views_on_the_demo(db_path):
    """The same on the demo's sample league: its registry's groups, a reserve, stars."""
    from pathlib import Path

    from pipeline.demo import load_samples
    from pipeline.store.db import connect

    load_samples(db_path, Path(__file__).parent.parent / "data" / "samples")
    with connect(db_path, read_only=True) as con:
        _after_the_last_round_is_the_views(con)
