"""The player page's pickers with many players: they list the ``picker_players`` who
played most and the player shown; text typed into them finds any other player by part of
their name."""

from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import batches
from pipeline.standings import stats
from pipeline.store.db import connect
from tests.browser.support import APP, UNHAS
from tests.test_event_picker import _texts, _type_into

PEOPLE = pl.DataFrame(
    {
        "player_key": ["ani", "ani rauf", "budi", "dewi", "eko rauf", "fajar", "ani 2"],
        "player": ["Ani", "Ani Rauf", "Budi", "Dewi", "Eko Rauf", "Fajar", "Ani"],
        "group": ["A", "A", "B", None, "B", None, "C"],
        "hands": [10, 50, 40, 30, 60, 5, 1],
    }
).sort(pl.col("player").str.to_lowercase(), "player_key")  # as stats.players orders them


@pytest.fixture
def index(monkeypatch) -> dict:
    monkeypatch.setenv("DOMINO_PICKER_PLAYERS", "3")
    return batches.player_index(PEOPLE)


def test_the_picker_lists_those_who_played_most_in_name_order(index):
    assert index["listed"] == ["ani rauf", "budi", "eko rauf"]
    first = batches.player_choice(index, None)
    assert first == {"players": ["ani rauf", "budi", "eko rauf"], "player": "ani rauf"}
    # a name two players share carries its key, in the picker and the address
    assert index["labels"]["ani"] == "Ani · ani" and index["labels"]["budi"] == "Budi"


def test_all_players_are_listed_with_picker_players_0(monkeypatch):
    monkeypatch.setenv("DOMINO_PICKER_PLAYERS", "0")
    assert batches.player_index(PEOPLE)["listed"] == PEOPLE.get_column("player_key").to_list()


def test_a_player_not_listed_asked_by_key_or_name_is_shown_and_listed_last(index):
    for wanted in ("dewi", "Dewi"):
        got = batches.player_choice(index, wanted)
        assert got["player"] == "dewi" and got["players"][-1] == "dewi"
        assert "search" not in got
    assert batches.player_choice(index, "Ani · ani 2")["player"] == "ani 2"


@pytest.mark.parametrize(
    ("typed", "shown", "found"),
    [
        ("RAUF", "eko rauf", ["eko rauf", "ani rauf"]),  # who played most first
        ("ANI", "ani", ["ani", "ani 2", "ani rauf"]),  # a whole name before more play
        ("  fajar ", "fajar", ["fajar"]),  # spaces around typed text
    ],
)
def test_typed_text_finds_a_player_by_part_of_their_name(index, typed, shown, found):
    assert stats.find_players(PEOPLE, typed) == found
    got = batches.player_choice(index, typed)
    assert got["player"] == shown
    assert got["search"] == (typed, len(found), found[:3])
    assert got["players"][-1] == shown or shown in index["listed"]


def test_text_that_matches_nobody_shows_the_default_and_says_so(index):
    got = batches.player_choice(index, "zz 100%_")
    assert got["player"] == "ani rauf" and got["search"] == ("zz 100%_", 0, [])
    vs = batches.player_choice(index, "zz", without="budi", optional=True)
    assert vs["player"] == "" and vs["search"] == ("zz", 0, [])


def test_the_comparison_picker_never_offers_the_page_s_own_player(index):
    vs = batches.player_choice(index, None, without="eko rauf", optional=True)
    assert vs == {"players": ["", "ani rauf", "budi"], "player": ""}
    for wanted in ("eko rauf", "Eko Rauf"):
        assert batches.player_choice(index, wanted, without="eko rauf", optional=True)[
            "player"
        ] in ("", "ani rauf")
    typed = batches.player_choice(index, "rauf", without="eko rauf", optional=True)
    assert typed["player"] == "ani rauf" and typed["search"] == ("rauf", 1, ["ani rauf"])


# --- the page ------------------------------------------------------------------------------


@pytest.fixture
def db(loaded, monkeypatch) -> Path:
    monkeypatch.setenv("DOMINO_PICKER_PLAYERS", "3")
    return loaded


def _people(db: Path) -> pl.DataFrame:
    with connect(db, read_only=True) as con:
        return batches.player_list(con)


def _open(**params: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("page_scripts/player.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_page_lists_three_players_and_opens_any_by_typed_text(db):
    people = _people(db)
    most = people.sort(["hands", "player_key"], descending=[True, False]).head(3)
    at = _open()
    box = at.selectbox(key="player")
    assert sorted(box.options) == sorted(most.get_column("player"))
    # the address carries what the picker sends: typed text finds a player not listed
    rauf = people.filter(pl.col("player").str.contains("Rauf"))
    hidden = rauf.filter(~pl.col("player_key").is_in(most.get_column("player_key").implode()))
    assert hidden.height
    want = stats.find_players(people, "RAUF")
    at = _open(player="RAUF")
    assert at.selectbox(key="player").value == want[0]
    assert f"{rauf.height} pemain cocok dengan “RAUF”" in _texts(at)
    # while it is shown, the picker lists the first three it found too
    labels = batches.shown_names(people)
    assert set(at.selectbox(key="player").options) >= {labels[k] for k in want[:3]}
    # a name the list does not hold, as a shared link carries it
    name = hidden.row(0, named=True)
    at = _open(player=name["player"])
    assert at.selectbox(key="player").value == name["player_key"]
    assert at.subheader[0].value == name["player"] and "cocok" not in _texts(at)
    at = _open(player="zzz none")
    assert "Tidak ada pemain yang cocok dengan “zzz none”" in _texts(at)


def test_text_typed_into_the_comparison_picker_compares_with_that_player(db):
    people = _people(db)
    at = _open()
    me = at.selectbox(key="player").value
    other = people.filter(pl.col("player_key") != me).sort("hands").row(0, named=True)
    _type_into(at, "vs", other["player"].upper())
    assert at.selectbox(key="vs").value == other["player_key"]
    assert any(other["player"] in str(m.value) for m in at.markdown)
    # the page's own player cannot be compared with themself
    _type_into(at, "vs", people.filter(pl.col("player_key") == me).row(0, named=True)["player"])
    assert at.selectbox(key="vs").value != me


def test_the_event_picker_opens_an_event_by_id_or_typed_text_and_no_other(db):
    """``&event=`` names one of the player's events by id (a link), by part of its title
    (typed); another event's id, carried over from an event page, is not text to look
    for, even when one of this player's event ids begins with it."""
    from pipeline import events
    from tests.test_dashboard import texts

    with connect(db) as con:
        events.save(con, UNHAS, "unhas", title="Turnamen Domino Dies Natalis LXIV")
        events.save(con, UNHAS[:-1], "unhas")  # an event whose id begins this one's
    people = _people(db)
    with connect(db, read_only=True) as con:
        played = set(
            con.sql("SELECT player_key FROM table_standings WHERE event = ?", params=[UNHAS]).pl()[
                "player_key"
            ]
        )
    key = people.filter(pl.col("player_key").is_in(list(played))).row(0, named=True)["player_key"]
    for wanted, shown in (
        (UNHAS, UNHAS),
        ("natalis", UNHAS),
        (UNHAS[:-1], ""),
        ("zzz", ""),
    ):
        # the page alone, as a shared link opens it (the home page would take ``event``)
        at = AppTest.from_file(str(APP.parent / "page_scripts/player.py"), default_timeout=60)
        at.query_params.update(player=key, event=wanted)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.selectbox(key="event").value == shown, wanted
        heading = "Hasil per babak: Turnamen Domino Dies Natalis LXIV"
        assert (heading in texts(at)) == (shown == UNHAS), wanted
