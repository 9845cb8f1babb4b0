"""Who sits where before play: the leaderboard (and its big screen) lists the seats of a
drawn round's tables that have nothing loaded yet, and a table leaves the list with its
first result. On both stores; the page through AppTest."""

import random

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import batches, data
from dashboard.batches import seating_round
from pipeline import draws
from pipeline.ingest import ingest
from pipeline.store.db import connect
from simulator.events import record, unhas_match
from tests.browser.support import APP
from tests.draw_fixture import create_event, seat_round

EV = "piala-2026"
R1 = {
    "1": {"A": "Wulan Sari", "B": "Budi Bakri", "C": "Citra Daeng", "D": "Dewi Hamzah"},
    "2": {"A": "Andi Amir", "B": "Fajar Ilyas", "C": "Gilang Kadir"},  # D empty: 3 players
}
R2 = {"1": {"A": "Wulan Sari", "B": "Andi Amir", "C": "Budi Bakri", "D": "Fajar Ilyas"}}


def _seats(tables: dict[str, dict[str, str]]) -> list[tuple[str, str, str]]:
    return [(t, c, p) for t, chairs in tables.items() for c, p in sorted(chairs.items())]


def _play(con, tmp_path, table: str, hands: int = 10) -> None:
    """``table`` of R1 played as drawn (``hands`` of them) and loaded."""
    played = unhas_match(random.Random(3), "R1", table, R1[table])
    log = tmp_path / f"r1-{table}.csv"
    record(played, "unhas", EV, random.Random(4)).filter(pl.col("hand") <= hands).write_csv(log)
    plan = ingest(con, [log])
    assert plan.errors.height == 0, plan.problems.to_dicts()


def test_the_seating_round_follows_the_draws():
    rounds = ["R1", "R2", "R3"]
    # nothing played: the drawn first round
    assert seating_round(rounds[:1], [], {"R1"}, None, picked=False) == "R1"
    # R1 under way: its tables not started
    assert seating_round(rounds[:1], ["R1"], {"R1"}, "R1", picked=False) == "R1"
    # R1 over and R2 drawn: R2, while the tables shown stay R1's results
    assert seating_round(rounds[:2], ["R1"], {"R1", "R2"}, "R1", picked=False) == "R2"
    # R2 under way: R2 is the round shown, and its waiting tables with it
    assert seating_round(rounds[:2], ["R1", "R2"], {"R1", "R2"}, "R2", picked=False) == "R2"
    # no draw at all (results loaded from sheets made elsewhere): nothing to list
    assert seating_round(rounds[:1], ["R1"], set(), "R1", picked=False) is None
    # a round picked by hand: that round's, if it is drawn
    assert seating_round(rounds[:2], ["R1"], {"R1", "R2"}, "R1", picked=True) == "R1"
    assert seating_round(rounds[:2], ["R1"], {"R2"}, "R1", picked=True) is None
    # a league's sessions drawn in advance: the next one, not the last drawn (before any
    # result the big screen listed the seats of S3 while the players looked for S1's)
    sessions, every = ["S1", "S2", "S3"], {"S1", "S2", "S3"}
    assert seating_round(sessions, [], every, None, picked=False) == "S1"
    assert seating_round(sessions, ["S1"], every, "S1", picked=False) == "S2"
    assert seating_round(sessions, ["S1", "S2"], every, "S2", picked=False) == "S3"


def test_a_table_leaves_the_seating_with_its_first_result(store, con, tmp_path):
    create_event(con, EV, "unhas", title="Piala Dies Natalis 2026")
    seat_round(con, EV, "R1", R1)
    board = batches.leaderboard(con, EV, None)
    assert board["round"] is None and board["seating_round"] == "R1"
    assert board["seating"].rows() == _seats(R1)
    # table 2's first hands, entered at the table: it is under way, table 1 still waits
    _play(con, tmp_path, "2", hands=3)
    assert draws.waiting(con, EV, "R1").rows() == _seats({"1": R1["1"]})
    board = batches.leaderboard(con, EV, None)
    assert board["round"] == "R1" and board["seating"].rows() == _seats({"1": R1["1"]})
    _play(con, tmp_path, "1")
    _play(con, tmp_path, "2")
    assert draws.waiting(con, EV, "R1").height == 0
    assert batches.leaderboard(con, EV, None)["seating_round"] == "R1"
    assert batches.leaderboard(con, EV, None)["seating"].height == 0
    # R2 drawn: the board keeps R1's results and lists R2's seats
    seat_round(con, EV, "R2", R2)
    board = batches.leaderboard(con, EV, None)
    assert board["round"] == "R1" and board["seating_round"] == "R2"
    assert board["seating"].rows() == _seats(R2)
    # R1 picked by hand: its tables, all started, list nobody
    assert batches.leaderboard(con, EV, "R1")["seating"].height == 0


@pytest.fixture
def drawn_only(db_path):
    with connect(db_path) as con:
        create_event(con, EV, "unhas", title="Piala Dies Natalis 2026")
        seat_round(con, EV, "R1", R1)
    data.clear()
    yield db_path
    data.clear()


def test_the_leaderboard_lists_the_seats_before_play(drawn_only):
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["lang"] = "en"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [s.value for s in at.subheader][-1] == "Seating, round R1"
    cards = "".join(str(e.body) for e in at.get("html") if "table-card" in str(e.body))
    assert cards.count('class="table-card"') == 2
    for _table, chair, player in _seats(R1):
        assert f"<td>{chair}</td><td>{player}</td>" in cards
    assert "not started" in cards
    # nothing played yet: no "no tables" sentence under the seats
    assert not at.info


def test_the_big_screen_lists_the_waiting_seats_by_name(drawn_only):
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["lang"] = "en"
    at.session_state["big"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    body = next(str(e.body) for e in at.get("html") if "<table" in str(e.body))
    assert "Piala Dies Natalis 2026 · R1" in body
    assert "Seating, round R1 · tables not started" in body
    # by name, not by table: Andi (table 2) first, Wulan (table 1, chair A) last
    names = sorted(p for _t, _c, p in _seats(R1))
    assert names[0] == "Andi Amir" and names[-1] == "Wulan Sari"
    positions = [body.index(f"<td>{p}</td>") for p in names]
    assert positions == sorted(positions)
    assert "<td>Andi Amir</td><td>2</td><td>A</td>" in body


@pytest.mark.parametrize(
    ("script", "said"),
    [
        ("event_stats", "its statistics appear once its first match is saved."),
        ("crosstable", "its cross-table appears once its first match is saved."),
    ],
)
def test_a_page_of_an_event_not_played_yet_says_so(drawn_only, script, said):
    """Not a row of zeros and empty tables: one sentence, in the page's language."""
    at = AppTest.from_file(str(APP.parent / f"page_scripts/{script}.py"), default_timeout=60)
    at.session_state["lang"] = "en"
    at.query_params["event"] = EV
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [i.value for i in at.info] == [f"No results for this event yet: {said}"]
    assert not at.metric and not at.tabs


def test_a_league_drawn_in_advance_shows_the_next_session_and_names_it(db_path):
    """A league's three sessions drawn before play: the screen listed S3's seats under
    "Newest (S3)" while the players looked for their S1 tables."""
    tables = {"1": {"A": "Ani", "B": "Budi", "C": "Cici", "D": "Dedi"}}
    with connect(db_path) as con:
        create_event(con, "liga", "pepet", title="Liga KG")
        for label in ("S1", "S2", "S3"):
            seat_round(con, "liga", label, tables, per_hand=None)
        board = batches.leaderboard(con, "liga", None)
        assert (board["newest"], board["seating_round"]) == ("S1", "S1")
    data.clear()
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["lang"] = "en"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [s.value for s in at.subheader][-1] == "Seating, round S1"
    assert at.selectbox(key="round").options[0] == "Newest (S1)"
    data.clear()
