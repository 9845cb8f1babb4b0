"""The ratings, profile and cross-table pages through AppTest, on the sample events: a
profile opened from its address (query parameters), names linking to profiles, the
rating leaderboard's filters, the cross-table, no internal category codes on screen."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import ui
from dashboard.i18n import CATEGORIES
from pipeline import events
from pipeline.standings import h2h, profile, queries
from pipeline.store.db import connect
from tests.browser.support import APP, PEPET, UNHAS
from tests.chart_marks import charts_of
from tests.test_dashboard import frames, html_tables, texts

TIMEOUT = 60


def open_page(page: str, lang: str = "id", **params: str) -> AppTest:
    """``page`` opened from an address carrying ``params``, as a shared link's first load
    (the page script itself: within the app a page switch starts without parameters;
    tests/browser/test_profiles.py opens the whole app from such a link)."""
    at = AppTest.from_file(str(APP.parent / page), default_timeout=TIMEOUT)
    at.session_state["lang"] = lang
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def best_player(db: Path, ruleset: str) -> tuple[str, str]:
    with connect(db, read_only=True) as con:
        row = con.execute(
            "SELECT player_key, player FROM ratings WHERE ruleset = ? ORDER BY ordinal DESC LIMIT 1",
            [ruleset],
        ).fetchall()[0]
    return row[0], row[1]


def test_profile_opens_from_a_shared_address(loaded):
    key, name = best_player(loaded, "unhas")
    at = open_page("page_scripts/player.py", player=name, event=UNHAS)
    assert at.selectbox(key="player").value == key
    assert at.selectbox(key="event").value == UNHAS
    text = texts(at)
    assert name in text
    assert "Riwayat rating" in text and "Hasil per babak" in text and "Prestasi" in text
    assert ui.profile_url(name, event=UNHAS) in text  # the link to share
    # the rating written as the rating leaderboard writes it: two decimals
    with connect(loaded, read_only=True) as con:
        (ordinal,) = con.execute(
            "SELECT ordinal FROM ratings WHERE ruleset = 'unhas' AND player_key = ?", [key]
        ).fetchall()[0]
    (rating,) = [m.value for m in at.metric if m.label == "Rating (unhas)"]
    # two decimals, with the Indonesian decimal comma
    assert rating.split()[0] == f"{ordinal:.2f}".replace(".", ",")
    # the player's rounds: one line per round they reached
    line = [f for f in frames(at) if "Peringkat acara" in f.columns]
    assert line and len(line[0]) >= 1


def test_profile_compares_two_players_side_by_side(loaded):
    with connect(loaded, read_only=True) as con:
        a, b, name_a, name_b = con.execute(
            "SELECT a.player_key, b.player_key, a.player, b.player FROM table_standings a "
            'JOIN table_standings b USING (event, round, "table") '
            "WHERE a.player_key < b.player_key LIMIT 1"
        ).fetchall()[0]
    at = open_page("page_scripts/player.py", lang="en", player=name_a, vs=name_b)
    assert at.selectbox(key="player").value == a
    assert at.selectbox(key="vs").value == b
    text = texts(at)
    with connect(loaded, read_only=True) as con:
        shared = h2h.head_to_head(con, a, b).summary()["tables"]
    assert shared >= 1
    assert "Side by side" in text and f"Shared a table {shared} times" in text


def test_a_profile_names_events_by_their_titles(loaded):
    """Every table of a player's page (recent tables, events, matches, two players side
    by side) and the rating history's tooltips name an event by its title, not its id."""
    title = "Turnamen Domino Dies Natalis LXIV"
    with connect(loaded) as con:
        events.save(con, UNHAS, "unhas", title=title)
        pairs = con.execute(
            "SELECT a.player_key, b.player_key, a.player, b.player FROM table_standings a "
            'JOIN table_standings b USING (event, round, "table") '
            "WHERE a.event = ? AND a.player_key < b.player_key ORDER BY 1, 2",
            [UNHAS],
        ).fetchall()
        # the first player with an achievement of this event (they name where it was won)
        a, b, name_a, name_b = next(
            p for p in pairs if UNHAS in profile.achievements(con, p[0])["event"].to_list()
        )
    shown = []
    for tab in ("Ringkasan", "Pertandingan"):
        at = open_page("page_scripts/player.py", player=name_a, vs=name_b, tab=tab)
        cells = [str(v) for f in frames(at) if "Acara" in f.columns for v in f["Acara"]]
        assert cells and UNHAS not in cells and title in cells, (tab, cells)
        shown += cells
        tips = [tip for c in charts_of(at).values() for tip in c.titles]
        assert tips and not any(UNHAS in tip for tip in tips), tab
        if tab == "Ringkasan":  # the achievements ("Apollo pertama: <event>, babak …")
            # as the reader sees it: Markdown's escapes taken out
            said = [str(m.value).replace("\\", "") for m in at.markdown if "babak" in str(m.value)]
            assert said and not any(UNHAS in m for m in said), said
            assert any(title in m for m in said), said
    assert len(shown) >= 4  # recent tables, events, side by side, matches


@pytest.mark.parametrize("lang", ["id", "en"])
def test_no_internal_category_code_on_a_profile(loaded, lang):
    with connect(loaded, read_only=True) as con:
        names = [
            n
            for (n,) in con.execute(
                "SELECT DISTINCT player FROM hand_points WHERE category IN "
                "('tangkap', 'caught', 'ambyar1', 'jawara1') LIMIT 2"
            ).fetchall()
        ]
    for name in names:
        at = open_page("page_scripts/player.py", lang=lang, player=name)
        shown = " ".join(str(v) for f in frames(at) for v in f.to_numpy().ravel())
        for code, words in CATEGORIES.items():
            if code != words[lang] and len(code) > 3 and "_" in code or code in ("jawara1",):
                assert code not in shown, code


def test_leaderboard_names_link_to_profiles(loaded):
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.session_state["event"] = UNHAS
    at.run()
    links = [a for a in html_tables(at).links if a.startswith("player?player=")]
    with connect(loaded, read_only=True) as con:
        rnd = queries.rounds(con, UNHAS)[-1]
        n = queries.standings(con, UNHAS, "table", rnd).height
    assert len(links) >= n
    assert any(f"&event={UNHAS}" in c for c in links)


def test_rating_leaderboard_lists_the_ladder_and_marks_provisional(loaded):
    at = open_page("page_scripts/ratings.py", ladder="pepet")
    board = at.dataframe[0].value
    with connect(loaded, read_only=True) as con:
        n = con.execute("SELECT count(*) FROM ratings WHERE ruleset = 'pepet'").fetchall()[0][0]
    assert len(board) == n
    assert set(board["Sementara"]) == {"◔"}  # three sessions, fewer than five tables
    assert all(str(u).startswith("player?player=") for u in board["Pemain"])
    with connect(loaded, read_only=True) as con:
        best = con.execute(
            "SELECT player FROM ratings WHERE ruleset = 'pepet' ORDER BY ordinal DESC LIMIT 1"
        ).fetchall()[0][0]
    assert board["Pemain"][0] == ui.profile_url(best)
    ratings = list(board["Rating"])
    assert ratings == sorted(ratings, reverse=True)
    # every rating written with two decimals (7.70 above 5.89), still sorted as numbers
    shown = json.loads(at.dataframe[0].proto.columns)
    for col in ("Rating", "μ", "σ"):
        assert shown[col]["type_config"] == {"type": "number", "format": "%.2f"}
    # a group filter keeps only that group's members
    groups = at.selectbox(key="kg").options[1:]  # after "Semua" (all)
    at.selectbox(key="kg").set_value(groups[0]).run()
    narrowed = at.dataframe[0].value
    assert 0 < len(narrowed) < n and set(narrowed["Kelompok"]) == {groups[0]}


def test_crosstable_page_shows_every_player_once(loaded):
    at = open_page("page_scripts/crosstable.py", lang="en", event=PEPET)
    assert at.selectbox(key="event").value == PEPET
    wide = at.dataframe[0].value
    with connect(loaded, read_only=True) as con:
        ev = queries.standings(con, PEPET, "event")
    assert len(wide) == ev.height
    assert list(wide["Event rank"]) == sorted(ev["rank"].to_list())
    assert {"S1 table", "S1 points", "S1 place", "S1 rank"} <= set(wide.columns)
    at.selectbox(key="after").set_value("S1").run()
    after = at.dataframe[1].value
    assert len(after) == 12  # the players of the first session


def test_a_links_ladder_level_or_group_that_is_not_there_is_said(loaded):
    """Before: ``?kg=KG-9`` (a group that is no group) showed every group's players without
    a word, as if they were that group's; a ladder not there showed another ladder."""
    at = open_page("page_scripts/ratings.py", ladder="catur", kg="KG-9")
    groups = at.selectbox(key="kg").options[1:]
    ladders = at.selectbox(key="ladder").options
    said = [w.value for w in at.warning]
    assert said == [
        f"Aturan “catur” tidak ada (pilihannya: {', '.join(ladders)}); yang ditampilkan: "
        f"{ladders[0]}.",
        f"Kelompok “KG\\-9” tidak ada (pilihannya: {', '.join(ui.md(g) for g in groups)}); "
        "yang ditampilkan: Semua.",
    ], said
    with connect(loaded, read_only=True) as con:
        n = con.execute("SELECT count(*) FROM ratings WHERE ruleset = ?", [ladders[0]]).fetchall()
    assert len(at.dataframe[0].value) == n[0][0]
    at.run()  # another run (a widget elsewhere): the notes stay while the stand-ins do
    assert len(at.warning) == 2
    at.selectbox(key="kg").set_value(groups[0]).run()
    assert [w.value for w in at.warning] == said[:1]
    # a link that names what is there: no note
    assert not open_page("page_scripts/ratings.py", ladder="pepet", kg=groups[0]).warning


def test_a_links_round_the_crosstable_does_not_have_is_said(loaded):
    at = open_page("page_scripts/crosstable.py", lang="en", event=PEPET, after="S9")
    rounds = at.selectbox(key="after").options
    assert [w.value for w in at.warning] == [
        f"Standings after round “S9” is not there (the choices: {', '.join(rounds)}); "
        f"showing {rounds[-1]}."
    ]
    assert at.selectbox(key="after").value == rounds[-1]
    at.selectbox(key="after").set_value(rounds[0]).run()
    assert not at.warning


@pytest.mark.parametrize(
    "page", ["page_scripts/ratings.py", "page_scripts/crosstable.py", "page_scripts/player.py"]
)
def test_new_pages_render_on_an_empty_database(db_path, page):
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not db_path.exists(), "reading must not create the database"
