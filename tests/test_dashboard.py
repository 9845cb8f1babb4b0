"""The dashboard's pages through streamlit.testing.v1.AppTest: they render on the sample
events and on an empty database, show what the issue asks, and keep the access rules."""

import ast
import logging
import re
import shutil
from datetime import date
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from dashboard import data, ui
from dashboard.i18n import column
from pipeline import auth, events, rulesets
from pipeline.standings import queries
from pipeline.store.db import DatabaseBusy, connect
from tests.browser.support import (
    APP,
    PASSWORD,
    PEPET,
    UNHAS,
    add_coordinator,
    build_samples,
    sample_file,
)
from tests.chart_marks import charts_of
from tests.conftest import ROOT

PAGES = [
    "page_scripts/leaderboard.py",
    "page_scripts/player.py",
    "page_scripts/event_stats.py",
    "page_scripts/upload.py",
]
TIMEOUT = 60


@pytest.fixture
def loaded(db_path, samples_db) -> Path:
    shutil.copyfile(samples_db, db_path)
    return db_path


@pytest.fixture(autouse=True)
def _fresh_state(monkeypatch):
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)  # these tests change the database between runs
    data.clear()
    auth.LIMITER.reset(list(auth.LIMITER._fails))
    yield
    data.clear()


def app(page: str | None = None, **state) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    if page and page != PAGES[0]:
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    """Every piece of text on the page (markdown, captions, titles, alerts, html)."""
    parts = []
    for kind in (
        "title",
        "header",
        "subheader",
        "markdown",
        "caption",
        "info",
        "warning",
        "error",
        "success",
        "text",
    ):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [str(getattr(e, "body", "")) for e in at.get("html")]
    parts += [str(getattr(e.proto, "label", "")) for e in at.get("tab")]
    return "\n".join(parts)


class _HtmlTables(HTMLParser):
    """The tables of an ``st.html`` body as the reader sees them: headers and cells as
    text (a link as its text), each cell's link address kept beside it."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict[str, list]] = []
        self.links: list[str] = []
        self._cell: list[str] | None = None
        self._row: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"head": [], "rows": []})
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "a":
            self.links.append(dict(attrs).get("href") or "")

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self.tables:
            t = self.tables[-1]
            if t["head"]:
                t["rows"].append(self._row)
            else:
                t["head"] = self._row


def html_tables(at: AppTest) -> _HtmlTables:
    """Every table of the page's ``st.html`` elements (the leaderboard's cards…)."""
    parser = _HtmlTables()
    for e in at.get("html"):
        parser.feed(str(getattr(e, "body", "")))
    return parser


def frames(at: AppTest) -> list:
    """Every table shown (st.dataframe and the tables of st.html) as a pandas frame; an
    st.html table's cells are its text, its numbers read as numbers."""
    assert not at.table, "plain tables are one HTML table each (ui.table(static=True))"
    out = []
    for e in at.dataframe:
        # an empty cell shows empty, not Streamlit's default word "None"
        assert e.proto.HasField("placeholder") and e.proto.placeholder == ui.BLANK
        out.append(e.value)
    for t in html_tables(at).tables:
        out.append(_numbers(pd.DataFrame(t["rows"], columns=t["head"])))
    return out


def _numbers(df: pd.DataFrame) -> pd.DataFrame:
    """An HTML table's columns of numbers read as numbers (a blank cell as missing), as
    the reader reads them (``12,5`` on an Indonesian page is twelve and a half); every
    other column stays text."""
    for c in df.columns:
        cells = [None if v == "" else v.replace(",", ".") for v in df[c]]
        try:
            nums = [None if v is None else float(v) for v in cells]
        except (TypeError, ValueError):
            continue
        whole = all(v is None or v.is_integer() for v in nums)
        df[c] = pd.Series(
            [v if v is None or not whole else int(v) for v in nums],
            dtype="Int64" if whole else "Float64",
        )
    return df


# --- every page renders ---------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_on_the_sample_events(loaded, page):
    at = app(page)
    assert at.title, "every page has a title"


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_on_an_empty_database(db_path, page):
    assert not db_path.exists()
    at = app(page)
    assert not db_path.exists(), "reading must not create the database"
    if page in ("page_scripts/leaderboard.py", "page_scripts/event_stats.py"):
        assert "Belum ada hasil" in texts(at)


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_in_english(loaded, page):
    at = app(page, lang="en")
    title = at.title[-1].value
    assert title in {"Live leaderboard", "Player", "Event statistics", "Upload results"}


# --- leaderboard ---------------------------------------------------------------------------


def _table_players(at: AppTest) -> set[str]:
    out: set[str] = set()
    for df in frames(at):
        if "Pemain" in df.columns:
            out |= set(df["Pemain"])
    return out


def test_leaderboard_shows_every_table_of_the_newest_round(loaded):
    at = app()
    with connect(loaded, read_only=True) as con:
        rounds = queries.rounds(con, UNHAS)
        tables = queries.standings(con, UNHAS, "table", rounds[-1])
        newest = queries.events(con).get_column("event")[0]
    # the newest event is shown by default: the one loaded last
    assert at.selectbox(key="event").value == newest
    other = PEPET if newest == UNHAS else UNHAS
    at.selectbox(key="event").set_value(other).run()
    assert not at.exception
    assert at.selectbox(key="event").value == other
    at.selectbox(key="event").set_value(UNHAS).run()
    assert not at.exception
    text = texts(at)
    for label in tables.get_column("table").unique().to_list():
        assert f"Meja {label}" in text
    # hands played of each match, e.g. 4/10
    for row in tables.unique("table").iter_rows(named=True):
        assert f"{row['match_hands']}/10 kocokan" in text
    assert set(tables.get_column("player")) <= _table_players(at)
    assert "Zona lolos: 2 teratas" in text


def test_a_language_the_dashboard_does_not_have_is_said_once(loaded):
    """Before: ``?lang=fr`` started in the default language without a word."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["lang"] = "fr"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [w.value for w in at.warning] == [
        f"Bahasa “fr” tidak ada (pilihannya: {ui.md('id (Bahasa Indonesia)')}, "
        f"{ui.md('en (English)')}); yang ditampilkan: Bahasa Indonesia."
    ]
    at.run()  # said once
    assert not at.warning
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["lang"] = "en"
    at.run()
    assert not at.warning and "Live leaderboard" in texts(at)


def test_a_round_the_event_does_not_have_is_said_while_the_newest_stands_in(loaded):
    """Before: ``?round=R9`` (a mistyped or old link) showed the newest round without a
    word, as if it were the one asked for."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["event"] = UNHAS
    at.query_params["round"] = "R9"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    with connect(loaded, read_only=True) as con:
        rounds = queries.rounds(con, UNHAS)
    said = [w.value for w in at.warning]
    assert said == [
        f"{ui.md(data.title(UNHAS))} tidak punya babak “R9” (babaknya: {', '.join(rounds)}); "
        f"yang ditampilkan: Terbaru ({rounds[-1]})."
    ], said
    at.run()  # the live part reruns: the note stays while the newest stands in
    assert len(at.warning) == 1
    at.selectbox(key="round").set_value(rounds[0]).run()
    assert not at.exception and not at.warning
    # a round picked in one event and gone in the next is let go without a note
    at.selectbox(key="round").set_value(rounds[-1]).run()
    at.selectbox(key="event").set_value(PEPET).run()
    assert rounds[-1] not in at.selectbox(key="round").options
    assert not at.exception and not at.warning
    # a round the event has: no note
    fresh = app(event=UNHAS, round=rounds[0])
    assert not fresh.warning


def test_leaderboard_marks_qualification_and_tiebreaks(loaded):
    at = app(event=UNHAS, round="R2")
    with connect(loaded, read_only=True) as con:
        tables = queries.standings(con, UNHAS, "table", "R2")
    zone = [df for df in frames(at) if "Zona" in df.columns]
    assert len(zone) == tables.get_column("table").n_unique()
    shown = {r["Pemain"]: r["Zona"] for df in zone for r in df.to_dict("records")}
    for r in tables.iter_rows(named=True):
        if r["needs_tiebreak"]:
            assert "tie-break" in shown[r["player"]]
        elif r["qualified"]:
            assert "lolos" in shown[r["player"]]
        else:
            assert shown[r["player"]] == ""


def test_leaderboard_walkover_is_shown(loaded):
    at = app(event=UNHAS, round="R1")
    with connect(loaded, read_only=True) as con:
        wo = queries.standings(con, UNHAS, "table", "R1").filter(pl.col("walkover"))
    assert wo.height, "the samples hold a walkover table"
    assert "WO (walkover)" in texts(at)


def test_leaderboard_pepet_session_has_stars_and_groups(loaded):
    at = app(event=PEPET, round="S2")
    with connect(loaded, read_only=True) as con:
        session = queries.standings(con, PEPET, "round", "S2")
    text = texts(at)
    assert "Sesi S2 ★" in text and "Kelompok (KG)" in text
    stars = [
        df
        for df in frames(at)
        if "★" in df.columns and set(df["★"]) <= {"★", ""} and len(df) == session.height
    ]
    assert stars, "a session standings table"
    starred = {r["Pemain"] for r in stars[0].to_dict("records") if r["★"] == "★"}
    assert starred == set(session.filter(pl.col("star")).get_column("player"))


def test_leaderboard_offers_csv_and_xlsx_of_every_standings_table(loaded):
    at = app(event=PEPET, round="S1")
    keys = {b.key for b in at.get("download_button")}
    for k in ("dl_tables", "dl_session", "dl_event", "dl_groups", "dl_all_tables"):
        assert {f"{k}_csv", f"{k}_xlsx"} <= keys
    # Excel in an Indonesian locale opens a comma-separated file in one column: the CSV
    # button says what it is for, and sends Excel users to the workbook
    helps = {b.key: b.proto.help for b in at.get("download_button")}
    assert "untuk Excel pilih XLSX" in helps["dl_event_csv"]
    assert "XLSX" not in helps["dl_event_xlsx"]


def test_bigscreen_cycles_tables_and_escapes_names(db_path, tmp_path, monkeypatch):
    hostile = "<img src=x onerror=alert(1)>"
    rows = [
        "event,ruleset,round,table,hand,player_a,player_b,player_c,player_d,ended_by,ending,last_tile"
    ]
    for h in range(1, 4):
        rows.append(f"esc-1,unhas,R1,1,{h},{hostile},Budi,Citra,Dedi,A,biasa,5-3")
    f = tmp_path / "esc.csv"
    f.write_text("\n".join(rows) + "\n")
    from pipeline.ingest import ingest

    with connect(db_path) as con:
        p = ingest(con, [f], by="test")
    assert p.count("new") == 1
    from dashboard.views import bigscreen

    clock = {"now": 0.0}
    monkeypatch.setattr(bigscreen.time, "time", lambda: clock["now"])
    monkeypatch.setenv("DOMINO_BIGSCREEN_SECONDS", "15")

    def slide() -> str:
        bodies = [str(e.body) for e in at.get("html") if "<table" in str(e.body)]
        assert bodies, "big-screen mode renders the table"
        return bodies[-1]

    at = app(big=True)
    body = slide()
    assert "&lt;img src=x onerror=alert(1)&gt;" in body
    assert "<img" not in body
    assert "Meja 1 · 1 dari 1" in body
    clock["now"] = 15.0  # one slide later: the event standings
    at.run()
    body = slide()
    assert "Klasemen acara (10 besar)" in body and "<img" not in body
    clock["now"] = 30.0  # and round again
    at.run()
    assert "Meja 1 · 1 dari 1" in slide()


def test_leaderboard_shows_last_data_when_the_database_is_busy(loaded, monkeypatch):
    at = app(event=UNHAS)
    before = _table_players(at)
    assert before

    def busy(*a, **k):
        raise DatabaseBusy("the database is in use by another process")

    monkeypatch.setattr(data, "attach", busy)
    at.run()
    assert not at.exception
    assert "memperbarui" in texts(at)
    assert _table_players(at) == before


def test_busy_with_nothing_read_yet_says_so(loaded, monkeypatch):
    monkeypatch.setattr(data, "attach", lambda *a, **k: (_ for _ in ()).throw(DatabaseBusy("busy")))
    at = app()
    assert "Basis data sedang dipakai" in texts(at)


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def server_log():
    """What the dashboard writes to the server's log about unexpected errors."""
    handler = _Records()
    log = logging.getLogger("dashboard.failures")  # Streamlit's loggers do not propagate
    log.addHandler(handler)
    yield handler.records
    log.removeHandler(handler)


def _broken(*_a, **_k):
    raise ZeroDivisionError("a bug")


def test_a_bug_in_a_live_part_is_one_sentence_and_the_rest_of_the_page_stays(
    loaded, monkeypatch, server_log
):
    """The leaderboard's live part (a fragment, which also reruns on its own) fails: the
    reader gets one sentence in the page's language naming the error, not Streamlit's box;
    the page's title and the sidebar stay, and the traceback goes to the server's log."""
    from dashboard.views import leaderboard

    monkeypatch.delenv("DOMINO_DEBUG")
    monkeypatch.setattr(leaderboard, "_load", _broken)
    at = app(event=UNHAS)
    said = [e.value for e in at.error]
    assert len(said) == 1 and said[0].startswith("Halaman ini berhenti karena kesalahan yang")
    assert "(ZeroDivisionError)" in said[0] and "log server" in said[0]
    assert "Traceback" not in texts(at) and "a bug" not in texts(at)
    assert at.title[0].value == "Klasemen langsung"
    assert at.sidebar.get("button_group") or at.sidebar.get("segmented_control")
    assert [r.exc_info[0] for r in server_log] == [ZeroDivisionError]
    assert "_live_body" in server_log[0].getMessage()


def test_a_busy_database_no_page_caught_is_said_as_busy(loaded, monkeypatch, server_log):
    """A load began writing between two of a page's reads: it said the page stopped on an
    error it does not know (DatabaseBusy), as if a bug; now that the database is busy and
    nothing was saved, and the server's log stays clean."""
    from dashboard.views import player
    from pipeline.store.db import DatabaseBusy

    def busy(*_a, **_k):
        raise DatabaseBusy("a load is writing")

    monkeypatch.delenv("DOMINO_DEBUG")
    at = app(lang="en")
    monkeypatch.setattr(player, "render", busy)
    at.switch_page("page_scripts/player.py").run()
    assert not at.exception and not at.error
    assert [w.value for w in at.warning] == [
        "The database is busy (e.g. `domino ingest`). Try again in a moment; nothing was saved."
    ]
    assert server_log == []


def test_a_bug_on_a_page_is_one_sentence_in_its_language(loaded, monkeypatch, server_log):
    from dashboard.views import player

    monkeypatch.delenv("DOMINO_DEBUG")
    at = app(lang="en")
    monkeypatch.setattr(player, "render", _broken)
    at.switch_page("page_scripts/player.py").run()
    assert not at.exception
    said = [e.value for e in at.error]
    assert len(said) == 1 and said[0].startswith("This page stopped on an error it does not know")
    assert "(ZeroDivisionError)" in said[0]
    assert "'player'" in server_log[0].getMessage()


@pytest.mark.parametrize(
    ("var", "value", "said"),
    [
        (
            "DOMINO_LIVE_SECONDS",
            "satu",
            'DOMINO_LIVE_SECONDS berisi "satu", bukan angka 0 atau lebih; isi dengan angka '
            "(bawaannya 1.0) atau hapus pengaturannya",
        ),
        (
            "DOMINO_LANGUAGE",
            "fr",
            'DOMINO_LANGUAGE berisi "fr", bukan salah satu dari id atau en; isi dengan '
            "salah satunya (bawaannya id) atau hapus pengaturannya",
        ),
    ],
)
def test_a_setting_of_the_wrong_kind_is_its_sentence_on_the_page(
    loaded, monkeypatch, var, value, said
):
    """A server started without `domino serve`'s check (python -m dashboard, or a setting
    changed under it): the page names the setting instead of stopping. A language
    setting the dashboard does not have was taken as Indonesian without a word."""
    monkeypatch.setenv(var, value)
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.session_state["event"] = UNHAS
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == [said]


def test_with_domino_debug_a_bug_goes_through_to_streamlit(loaded, monkeypatch):
    """The page tests run with DOMINO_DEBUG set (tests/conftest.py): a crash fails them."""
    from dashboard.views import leaderboard

    monkeypatch.setattr(leaderboard, "_load", _broken)
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.session_state["event"] = UNHAS
    at.run()
    assert [e.message for e in at.exception] == ["a bug"]
    assert not at.error


# --- player and statistics ------------------------------------------------------------------


def test_player_page_shows_categories_and_whom_they_fed(loaded):
    with connect(loaded, read_only=True) as con:
        key = con.execute(
            "SELECT player_key FROM hand_points_t WHERE category = 'above' GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1"
        ).fetchall()[0][0]
        above = con.execute(
            "SELECT count(*) FROM hand_points_t WHERE category = 'above' AND player_key = ?", [key]
        ).fetchall()[0][0]
    at = app("page_scripts/player.py", player=key, tab="Kocokan")
    text = texts(at)
    assert f"{above} kali menjadi pemain di atas pemenang" in text
    assert any("Kursi" in df.columns for df in frames(at))
    # the tab's charts: wins, categories, chairs; no other tab's
    drawn = charts_of(at)
    assert set(drawn) == {"pf_wins_chart", "pl_cat_chart", "pl_chair_chart"}
    assert "Riwayat rating" not in text and "Poin dari waktu ke waktu" not in text
    # the chair chart draws the chair table's rows
    table = next(df for df in frames(at) if "Kursi" in df.columns)
    chairs = dict(drawn["pl_chair_chart"].rows())
    assert chairs == dict(zip(table["Kursi"], table[column("points_per_hand")], strict=True))


def test_player_page_draws_only_its_open_tab(loaded):
    """Each tab's sections, and nothing of a closed tab: a closed tab's charts and tables
    are not sent to the browser at all (what makes a long page quick to show)."""
    with connect(loaded, read_only=True) as con:
        key = con.execute(
            "SELECT player_key FROM ratings WHERE ruleset = 'unhas' ORDER BY ordinal DESC LIMIT 1"
        ).fetchall()[0][0]
    sections = {
        "Ringkasan": ("Riwayat rating", "Acara yang diikuti", "Prestasi"),
        "Kocokan": ("Kemenangan per kategori", "Hasil per kategori", "Hasil per kursi"),
        "Pertandingan": ("Poin dari waktu ke waktu", "#### Pertandingan"),
    }
    shown = {}
    for tab, heads in sections.items():
        at = app("page_scripts/player.py", player=key, tab=tab)
        text = texts(at)
        for head in heads:
            assert head in text, (tab, head)
        shown[tab] = text
    for tab, text in shown.items():
        for other, heads in sections.items():
            if other != tab:
                assert not any(h in text for h in heads), (tab, other)
    # no tab in the address opens the first, a label no tab has too
    assert "Riwayat rating" in texts(app("page_scripts/player.py", player=key))
    assert "Riwayat rating" in texts(app("page_scripts/player.py", player=key, tab="Nope"))
    # a tab named in the other language (a link from someone reading it) opens that tab
    at = app("page_scripts/player.py", player=key, tab="Hands")
    assert "Hasil per kursi" in texts(at) and at.session_state["tab"] == "Kocokan"
    at = app("page_scripts/player.py", player=key, tab="Kocokan", lang="en")
    assert "Results by chair" in texts(at) and at.session_state["tab"] == "Hands"
    # and a switch of language keeps the tab open
    at.session_state["lang"] = "id"
    at.run()
    assert "Hasil per kursi" in texts(at) and at.session_state["tab"] == "Kocokan"


def test_event_stats_show_the_pepet_point_table_as_the_organisers_setting(loaded):
    at = app("page_scripts/event_stats.py", event=PEPET, tab="Poin")
    text = texts(at)
    assert "pengaturan penyelenggara" in text and "belum mengubah nilai bawaan" in text
    assert "pepet.toml" not in text, "no file path for a visitor"
    tables = [df for df in frames(at) if list(df.columns) == ["Kategori", "Poin"]]
    assert tables
    from dashboard.i18n import category

    assert dict(zip(tables[0]["Kategori"], tables[0]["Poin"], strict=True)) == {
        category(k, "id"): v for k, v in rulesets.load("pepet").params["points"].items()
    }


def test_event_stats_unhas_has_endings_and_per_round_summary(loaded):
    at = app("page_scripts/event_stats.py", event=UNHAS)
    endings = [df for df in frames(at) if "Akhir" in df.columns]
    assert endings and {"Apollo", "Ceki", "Menang biasa", "Kandang"} <= set(endings[0]["Akhir"])
    assert abs(sum(endings[0]["Porsi"]) - 100) < 0.5
    # a share is written with the page's decimal mark: a comma in Indonesian
    shares = [r[-1] for t in html_tables(at).tables if "Porsi" in t["head"] for r in t["rows"]]
    assert any("," in v for v in shares) and not any("." in v for v in shares)
    at_en = app("page_scripts/event_stats.py", event=UNHAS, lang="en")
    shares = [r[-1] for t in html_tables(at_en).tables if "Share" in t["head"] for r in t["rows"]]
    assert any("." in v for v in shares) and not any("," in v for v in shares)
    assert not any("Akhir tersering" in df.columns for df in frames(at)), "a closed tab"
    at = app("page_scripts/event_stats.py", event=UNHAS, tab="Babak & meja")
    assert any("Akhir tersering" in df.columns for df in frames(at))
    assert not any("Akhir" in df.columns for df in frames(at)), "a closed tab"


# --- access ---------------------------------------------------------------------------------


def _sign_in(at: AppTest, name: str, password: str) -> AppTest:
    at.text_input(key="signin_name").input(name)
    at.text_input(key="signin_password").input(password)
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_anonymous_visitor_gets_the_sign_in_form_not_the_uploader(loaded):
    at = app("page_scripts/upload.py")
    assert not at.get("file_uploader")
    assert "Masuk koordinator" in texts(at)


@pytest.mark.parametrize(
    "forged",
    [
        "rina",
        {"name": "rina"},
        auth.Identity(name="rina", nonce="guessed", signed_in_at=0.0),
    ],
)
def test_a_forged_session_value_is_not_a_sign_in(loaded, forged):
    add_coordinator(loaded, "rina", ["*"])
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.session_state["_domino_identity"] = forged
    at.query_params["user"] = "rina"
    at.run()
    at.switch_page("page_scripts/upload.py").run()
    assert not at.exception
    assert not at.get("file_uploader")
    assert "Masuk koordinator" in texts(at)


def test_wrong_password_is_refused_and_failures_are_rate_limited(loaded, monkeypatch):
    monkeypatch.setenv("DOMINO_LOGIN_ATTEMPTS", "2")
    add_coordinator(loaded, "rina", ["*"])
    at = app("page_scripts/upload.py")
    _sign_in(at, "rina", "nope-nope")
    assert "Nama atau kata sandi salah" in texts(at)
    _sign_in(at, "rina", "nope-again")
    _sign_in(at, "rina", PASSWORD)  # right password, but locked out now
    assert "Terlalu banyak percobaan" in texts(at)
    assert not at.get("file_uploader")


def _signed_in(
    db: Path, events: list[str], name: str = "rina", role: str = "coordinator"
) -> AppTest:
    add_coordinator(db, name, events, role=role)
    at = app("page_scripts/upload.py")
    _sign_in(at, name, PASSWORD)
    assert at.get("file_uploader"), texts(at)
    return at


def _upload(at: AppTest, *paths: Path) -> AppTest:
    at.get("file_uploader")[0].set_value(
        [(p.name, p.read_bytes(), "text/csv") for p in paths]
    ).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _confirm_button(at: AppTest):
    return at.button(key="up_confirm")


def test_a_zip_of_sheets_uploads_and_many_refused_files_are_counted(db_path):
    """A .zip of hand logs previews and saves like its files; a dozen of them refused
    whole show ten boxes and a count (a zip of 2,000 empty files showed 2,000)."""
    import io
    import zipfile

    at = _signed_in(db_path, ["*"])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.write(sample_file("unhas", "unhas-2024-e1_R1_meja3.csv"), "R1/meja3.csv")
        for i in range(12):
            zf.writestr(f"R1/kosong{i:02}.csv", b"")
    at.get("file_uploader")[0].set_value([("R1.zip", buf.getvalue(), "application/zip")]).run()
    assert not at.exception, [e.value for e in at.exception]
    boxes = [e.value for e in at.error]
    assert boxes[:2] == [f"✗ R1.zip/R1/kosong{i:02}.csv: berkas kosong" for i in (0, 1)]
    assert len(boxes) == 11 and boxes[-1] == (
        "✗ dan 2 berkas lain ditolak utuh: lihat Masalah di bawah."
    ), boxes
    assert "Masalah (12 galat, 0 peringatan)" in texts(at)
    _confirm_button(at).click().run()
    assert "Tersimpan: 1 pertandingan" in texts(at)
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT DISTINCT file FROM hands").fetchall() == [
            ("R1.zip/R1/meja3.csv",)
        ]


def test_an_event_typed_for_rows_that_all_name_theirs_is_said(db_path):
    at = _signed_in(db_path, ["*"])
    _upload(at, sample_file("unhas", "unhas-2024-e1_R1_meja3.csv"))
    assert not at.warning
    at.text_input(key="up_event").input("piala-baru").run()
    assert [w.value for w in at.warning] == [
        f"Acara “{ui.md('piala-baru')}” tidak dipakai untuk baris mana pun: setiap baris berkas ini "
        "sudah menyebut acaranya."
    ]


def test_upload_previews_then_saves(db_path):
    build_samples(db_path, only="pepet")
    at = _signed_in(db_path, ["*"])
    f = sample_file("unhas", "unhas-2024-e1_R1_meja3.csv")
    _upload(at, f)
    text = texts(at)
    assert "Pratinjau" in text
    with connect(db_path, read_only=True) as con:
        assert UNHAS not in queries.events(con).get_column("event").to_list(), (
            "nothing written before confirming"
        )
    points = [df for df in frames(at) if "Poin" in df.columns and "Meja" in df.columns]
    assert points and len(points[0]) == 4
    # the event the save would create is named before anything is saved
    assert [i.value for i in at.info if "acara baru" in i.value] == [
        f"Menyimpan ini membuat 1 acara baru: {ui.md(UNHAS)} (unhas). Jika salah satunya acara "
        "yang sudah ada dengan id salah ketik, perbaiki kolom acara di berkasnya sebelum menyimpan."
    ]
    btn = _confirm_button(at)
    assert not btn.disabled
    btn.click().run()
    assert not at.exception
    assert "Tersimpan: 1 pertandingan" in texts(at)
    # the event it created has no date: the ratings count it as played today, and the
    # page says where to set the day
    with connect(db_path, read_only=True) as con:
        day = con.execute(
            "SELECT CAST(created_at AS DATE) FROM events WHERE event = ?", [UNHAS]
        ).fetchall()[0][0]
    assert [i.value for i in at.info if "tanpa tanggal" in i.value] == [
        f"Acara {ui.md(UNHAS)} dibuat oleh unggahan ini tanpa tanggal, jadi rating menghitung "
        f"mejanya sebagai dimainkan pada {day}. Bila dimainkan pada hari lain, "
        "isi tanggalnya di halaman Penyelenggara."
    ]
    # the upload history says what happened in the reader's language
    statuses = [
        v
        for df in frames(at)
        if "Status" in df.columns and "Pesan" not in df.columns
        for v in df["Status"].astype(str)
    ]
    assert "selesai" in statuses and "done" not in statuses
    with connect(db_path, read_only=True) as con:
        ts = queries.standings(con, UNHAS, "table")
        log = queries.ingest_log(con)
    assert ts.height == 4
    assert log.get_column("loaded_by")[0] == "rina"
    # the preview's points are the points that were saved
    shown = dict(zip(points[0]["Pemain"], points[0]["Poin"], strict=True))
    assert shown == dict(zip(ts.get_column("player"), ts.get_column("points"), strict=True))


def test_a_save_says_which_players_the_eligibility_does_not_admit(db_path, tmp_path):
    """As ``domino ingest`` prints them: in the preview, what the save will warn of, and
    after the save, each player the ruleset's eligibility does not admit on the event's
    date, in the reader's language, the match saved all the same. Worked by hand
    (RULES.md; pepet: 17 or older, Indonesian): on 2026-05-01 Ana (born 2009-05-02) is
    16; Cici is Malaysian; Budi and Dedi pass."""
    from pipeline.players import import_registry, read_registry
    from tests.rules_helpers import csv_text, hand

    reg = tmp_path / "players.csv"
    reg.write_text(
        "player,group,birth_date,citizenship\nAna,KG Alpha,2009-05-02,Indonesia\n"
        "Budi,KG Alpha,2009-05-01,\nCici,KG Beta,,Malaysia\nDedi,KG Beta,,WNI\n",
        encoding="utf-8",
    )
    with connect(db_path) as con:
        import_registry(con, read_registry(reg), "default")
        events.save(con, "kg", "pepet", event_date=date(2026, 5, 1))
    log = tmp_path / "kg.csv"
    row = hand(1, "A", "out", pips=(None, 5, 10, 20), seats=("Ana", "Budi", "Cici", "Dedi"))
    log.write_text(csv_text([{**row, "event": "kg", "ruleset": "pepet", "round": "S1"}]), "utf-8")
    said = [
        "Ana berusia 16 pada 2026-05-01 (lahir 2009-05-02); acara kg menerima pemain berusia "
        "17 tahun ke atas.",
        "Kewarganegaraan Cici adalah Malaysia; acara kg menerima warga Indonesia, Indonesian, WNI.",
    ]
    listed = "\n".join(f"- {ui.md(line)}" for line in said)
    at = _signed_in(db_path, ["*"])
    _upload(at, log)
    assert [w.value for w in at.warning if "kelayakan" in w.value] == [
        f"Peringatan kelayakan bila disimpan (tidak ada yang akan ditolak karenanya):\n\n{listed}"
    ], "the preview says it before the save"
    assert not _confirm_button(at).disabled, "nothing is refused for it"
    _confirm_button(at).click().run()
    assert not at.exception
    assert "Tersimpan: 1 pertandingan" in texts(at)
    assert [w.value for w in at.warning if "kelayakan" in w.value] == [
        f"Peringatan kelayakan (tidak ada yang ditolak karenanya):\n\n{listed}"
    ]
    at.run()  # said once, after the save
    assert all("kelayakan" not in w.value for w in at.warning)


def test_a_bad_file_shows_its_problems_and_changes_nothing(loaded, tmp_path):
    at = _signed_in(loaded, ["*"])
    src = (
        sample_file("unhas", "unhas-2024-e1_R1_meja3.csv")
        .read_bytes()
        .decode("utf-8-sig")
        .splitlines()
    )
    header = src[0].split(";")
    row = src[3].split(";")
    row[header.index("akhir")] = "menang"  # not an ending
    row[header.index("meja")] = "99"
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join([src[0], ";".join(row)]) + "\n", encoding="utf-8")
    with connect(loaded, read_only=True) as con:
        before = queries.data_version(con)
    _upload(at, bad)
    problems = [df for df in frames(at) if "Pesan" in df.columns and "Kolom" in df.columns]
    assert problems
    p = problems[0]
    # the column as the file spelled its header, the contract's name beside it
    assert (p["Kolom"] == "akhir (ending)").any() and (p["Baris"] == 2).any()
    # the referee reads the problem in Indonesian (pipeline/messages/id.toml)
    assert "menang bukan akhir kocokan dalam aturan unhas; gunakan apollo" in " ".join(
        p["Pesan"].astype(str)
    )
    assert any(
        "masalah:" in m
        for df in frames(at)
        if "Pesan" in df.columns
        for m in df["Pesan"].astype(str)
    )
    assert _confirm_button(at).disabled
    with connect(loaded, read_only=True) as con:
        assert queries.data_version(con) == before


def test_a_coordinator_writes_only_to_their_events(loaded):
    at = _signed_in(loaded, [PEPET], name="pak basri")
    f = sample_file("unhas", "unhas-2024-e1_R1_meja3.csv")
    _upload(at, f)
    text = texts(at)
    assert "Unggahan ditolak seluruhnya" in text and UNHAS in text
    assert _confirm_button(at).disabled


def test_rights_are_checked_against_the_database_at_commit(db_path):
    at = _signed_in(db_path, ["*"])
    _upload(at, sample_file("unhas", "unhas-2024-e1_R1_meja3.csv"))
    btn = _confirm_button(at)
    assert not btn.disabled
    # the coordinator's rights are narrowed after the preview
    add_coordinator(db_path, "rina", ["some-other-event"])
    btn.click().run()
    assert "Tidak diizinkan" in texts(at)
    with connect(db_path, read_only=True) as con:
        assert queries.events(con).height == 0


def test_a_correction_shows_its_difference_and_needs_a_reason(loaded, tmp_path):
    """The jury's path: a jury member corrects directly with a reason (a coordinator's
    correction becomes a change request: tests/test_dashboard_requests.py)."""
    at = _signed_in(loaded, [UNHAS], role="jury")
    src = (
        sample_file("unhas", "unhas-2024-e1_R1_meja3.csv")
        .read_bytes()
        .decode("utf-8-sig")
        .splitlines()
    )
    header = src[0].split(";")
    row = src[2].split(";")  # hand 2
    old_tile = row[header.index("kartu_terakhir")]
    row[header.index("kartu_terakhir")] = "4-2" if old_tile != "4-2" else "5-1"
    fixed = tmp_path / "unhas-2024-e1_R1_meja3.csv"
    fixed.write_text("\n".join([src[0], src[1], ";".join(row), *src[3:]]) + "\n", encoding="utf-8")
    _upload(at, fixed)
    text = texts(at)
    assert "Perbedaan dengan versi yang dimuat" in text
    diffs = [df for df in frames(at) if list(df.columns) == ["Kocokan", "Kolom", "Dimuat", "Baru"]]
    assert diffs
    d = diffs[0].to_dict("records")
    assert {(r["Kocokan"], r["Kolom"]) for r in d} == {(2, "last_tile")}
    assert "tulis alasannya" in text.lower()
    assert _confirm_button(at).disabled
    at.text_area(key="up_reason").input("wasit salah tulis kartu terakhir").run()
    btn = _confirm_button(at)
    assert not btn.disabled
    btn.click().run()
    assert "1 koreksi" in texts(at)
    with connect(loaded, read_only=True) as con:
        hist = queries.history(con, UNHAS, "R1", "3")
    assert hist.height == 2 and hist.get_column("reason")[1] == "wasit salah tulis kartu terakhir"


def test_signing_out_returns_to_the_sign_in_form(loaded):
    at = _signed_in(loaded, ["*"])
    assert "Masuk sebagai" in texts(at)
    at.button(key="sign_out").click().run()
    assert not at.exception
    assert not at.get("file_uploader")
    assert "Masuk koordinator" in texts(at)


def test_the_language_switch_changes_every_label(loaded):
    at = app()
    assert at.title[-1].value == "Klasemen langsung"
    at.segmented_control(key="lang").set_value("en").run()
    assert not at.exception
    assert at.title[-1].value == "Live leaderboard"
    text = texts(at)
    assert "Live: each result shows" in text and "Langsung: setiap hasil" not in text
    assert any("Player" in df.columns for df in frames(at))


def test_every_string_exists_in_both_languages_with_the_same_placeholders():
    from string import Formatter

    from dashboard import i18n

    def fields(s: str) -> set[str]:
        return {f for _, f, _, _ in Formatter().parse(s) if f}

    for table in (i18n.STRINGS, i18n.COLUMNS, i18n.CATEGORIES):
        for key, entry in table.items():
            assert set(entry) == set(i18n.LANGUAGES), key
            assert all(v.strip() for v in entry.values()), key
            assert fields(entry["id"]) == fields(entry["en"]), key
    # rulebook terms are not translated
    for term in ("Bintang", "Jawara", "Gaple"):
        assert term in i18n.column("stars", "en") + i18n.column("jawara_gaple", "en")


def test_every_key_the_pages_use_is_in_the_table():
    from dashboard import i18n

    used = set()
    for path in (APP.parent).rglob("*.py"):
        used |= set(re.findall(r"""\bt\(\s*f?["']([a-z_.]+)["']""", path.read_text()))
    used = {k for k in used if not k.endswith(".")}
    assert used, "the pages use t()"
    assert used <= set(i18n.STRINGS), sorted(used - set(i18n.STRINGS))


def test_names_are_inert_in_tables_and_markdown(db_path, tmp_path):
    names = ["**Bold** Budi", "[link](http://evil.example)", ":red[Citra]", "<b>Eko</b>"]
    rows = [
        "event,ruleset,round,table,hand,player_a,player_b,player_c,player_d,ended_by,ending,last_tile"
    ]
    for h in range(1, 3):
        rows.append(
            f'md-1,unhas,R1,1,{h},"{names[0]}","{names[1]}","{names[2]}","{names[3]}",A,biasa,5-3'
        )
    f = tmp_path / "md.csv"
    f.write_text("\n".join(rows) + "\n")
    from pipeline.ingest import ingest

    with connect(db_path) as con:
        assert ingest(con, [f], by="test").count("new") == 1
    at = app()
    assert not at.table, "the leaderboard's tables are plain HTML"
    # each name is its cells' text, as written (its table card and the event standings),
    # and links to its page; nothing of it is read as markdown or HTML
    tables = html_tables(at)
    cells = [c for t in tables.tables for r in t["rows"] for c in r]
    for n in names:
        assert cells.count(n) >= 2, n
        assert ui.profile_url(n, "md-1") in tables.links, n
    bodies = " ".join(str(e.body) for e in at.get("html"))
    assert "<strong>" not in bodies and 'href="http://evil' not in bodies
    assert "<b>Eko</b>" not in bodies and "&lt;b&gt;Eko&lt;/b&gt;" in bodies


# --- venue fixes (issue 13: 16-21) ---------------------------------------------------------------


def _load_rows(db_path, tmp_path, name: str, rows: list[str]) -> None:
    from pipeline.ingest import ingest

    f = tmp_path / name
    head = "event,ruleset,round,table,hand,player_a,player_b,player_c,player_d,ended_by,ending,last_tile"
    f.write_text("\n".join([head, *rows]) + "\n")
    with connect(db_path) as con:
        assert ingest(con, [f], by="test").count("new") == 1


def test_a_tie_in_a_match_in_progress_is_a_tie_not_a_tiebreak(db_path, tmp_path, monkeypatch):
    # 4 of 10 hands, each player won one: all four tied on points
    _load_rows(
        db_path,
        tmp_path,
        "tie.csv",
        [
            f"tie-1,unhas,R1,1,{h},Ani,Budi,Citra,Dedi,{w},biasa,5-3"
            for h, w in enumerate("ABCD", 1)
        ],
    )
    with connect(db_path, read_only=True) as con:
        rows = queries.standings(con, "tie-1", "table")
    assert rows.get_column("needs_tiebreak").all() and not rows.get_column("complete").any()
    at = app(event="tie-1")
    text = texts(at)
    assert "4/10 kocokan" in text and "sedang berlangsung" in text
    assert "perlu kocokan tie-break" not in text and "ada yang seri" in text
    zone = [df for df in frames(at) if "Zona" in df.columns]
    assert zone and set(zone[0]["Zona"]) == {"= seri"}
    from dashboard.views import bigscreen

    # the first slide (the table), whatever the time of day: slides follow the clock
    monkeypatch.setattr(bigscreen.time, "time", lambda: 0.0)
    monkeypatch.setenv("DOMINO_BIGSCREEN_SECONDS", "15")
    at = app(big=True, event="tie-1")
    body = [str(e.body) for e in at.get("html") if "<table" in str(e.body)][-1]
    assert "tie-break" not in body and 'class="tie"' not in body and "= seri" in body


def test_a_tie_in_a_complete_match_asks_for_a_tiebreak():
    from dashboard.views import leaderboard

    row = {"rank": 2, "qualified": False, "needs_tiebreak": True, "complete": True}
    assert leaderboard.mark(row, "unhas", 2).startswith("⚖")
    assert leaderboard.mark({**row, "complete": False}, "unhas", 2) == "= seri"
    assert leaderboard.mark_class("= seri") == "" and leaderboard.mark_class("⚖ tie-break") == "tie"


def test_the_final_tables_marks_are_places_not_qualification():
    """At the final table nobody goes on: a finished player's place, a tie for first still
    asks for its tie-break hand, nothing while the final is played."""
    from dashboard.views import leaderboard

    done = {"rank": 2, "qualified": True, "needs_tiebreak": False, "complete": True}
    assert leaderboard.mark(done, "unhas", 2) == "✓ lolos"
    assert leaderboard.mark(done, "unhas", 2, final=True) == "◆ Peringkat 2"
    assert leaderboard.mark({**done, "complete": False}, "unhas", 2, final=True) == ""
    tie = {**done, "rank": 1, "needs_tiebreak": True}
    assert leaderboard.mark(tie, "unhas", 2, final=True).startswith("⚖")
    assert leaderboard.mark_class("◆ Peringkat 2") == "place"


@pytest.mark.parametrize(
    ("lang", "reached", "place"),
    [("id", "Babak terjauh", "Peringkat di meja"), ("en", "Round reached", "Place at table")],
)
def test_unhas_event_ranking_shows_round_reached_and_table_rank(
    loaded, monkeypatch, lang, reached, place
):
    from dashboard.views import bigscreen

    at = app(event=UNHAS, lang=lang)
    event = [df for df in frames(at) if reached in df.columns]
    assert event, "the event standings show the round reached"
    cols = list(event[0].columns)
    assert (
        cols.index(reached) < cols.index(place) < cols.index("Poin" if lang == "id" else "Points")
    )
    clock = {"now": 0.0}
    monkeypatch.setattr(bigscreen.time, "time", lambda: clock["now"])
    monkeypatch.setenv("DOMINO_BIGSCREEN_SECONDS", "15")
    at = app(big=True, event=UNHAS, lang=lang)
    for _ in range(12):  # to the event slide
        bodies = [str(e.body) for e in at.get("html") if "<table" in str(e.body)]
        if "10" in bodies[-1] and ("acara" in bodies[-1] or "Event standings" in bodies[-1]):
            break
        clock["now"] += 15.0
        at.run()
    body = bodies[-1]
    assert f">{reached}</th>" in body and f">{place}</th>" in body
    assert body.index(reached) < body.index(place)


def test_bigscreen_type_fits_the_rows_to_the_height():
    from dashboard.views import bigscreen

    html12 = bigscreen.big_table_html([{"rank": i} for i in range(12)], [("rank", "#")])
    html4 = bigscreen.big_table_html([{"rank": i} for i in range(4)], [("rank", "#")])
    assert "100vh" in html12 and bigscreen.big_font(12) in html12
    assert bigscreen.big_font(12) != bigscreen.big_font(4) and bigscreen.big_font(4) in html4
    d = {
        "round": "S1",
        "tables": pl.DataFrame({"table": ["1"]}),
        "session": pl.DataFrame({"x": range(40)}),
        "event_standings": None,
    }
    assert bigscreen.slides(d) == [
        ("table", "1"),
        ("session", "0"),
        ("session", "1"),
        ("session", "2"),
    ]


def test_integers_with_blanks_show_as_integers():
    import polars as pl

    from dashboard import ui

    shown = ui.display(pl.DataFrame({"line": [4, None], "version": [1, None]}))
    assert str(shown["Baris"].dtype) == "Int64" and shown["Baris"].tolist()[0] == 4
    assert str(shown["Versi"].dtype) == "Int64"
    assert "4.0" not in shown.to_string() and "1.0" not in shown.to_string()


def _correction_file(tmp_path) -> Path:
    src = (
        sample_file("unhas", "unhas-2024-e1_R1_meja3.csv")
        .read_bytes()
        .decode("utf-8-sig")
        .splitlines()
    )
    header = src[0].split(";")
    row = src[2].split(";")  # hand 2: another chair ended it
    by = header.index("oleh")
    row[by] = "B" if row[by] != "B" else "C"
    fixed = tmp_path / "unhas-2024-e1_R1_meja3.csv"
    fixed.write_text("\n".join([src[0], src[1], ";".join(row), *src[3:]]) + "\n", encoding="utf-8")
    return fixed


def test_a_correction_asks_for_its_reason_in_the_pages_words_and_shows_points_before_and_after(
    loaded, tmp_path
):
    with connect(loaded, read_only=True) as con:
        before = queries.standings(con, UNHAS, "table", "R1", "3")
    at = _signed_in(loaded, [UNHAS], role="jury")
    _upload(at, _correction_file(tmp_path))
    text = texts(at)
    cells = " ".join(str(v) for df in frames(at) for col in df.columns for v in df[col])
    assert "--reason" not in text + cells, "no command-line flag on the page"
    statuses = [v for df in frames(at) if "Status" in df.columns for v in df["Status"]]
    assert "koreksi — perlu alasan" in statuses and "ditolak" not in statuses
    # the reason box comes with the correction, by the confirm button (not at the top)
    assert [w.key for w in at.text_area] == ["up_reason"]
    changes = [df for df in frames(at) if "Peringkat" in df.columns and "→" in " ".join(df["Poin"])]
    assert changes, "each player's points before → after"
    shown = {r["Pemain"]: r["Poin"] for r in changes[0].to_dict("records")}
    assert set(shown) == set(before.get_column("player"))
    for r in before.iter_rows(named=True):
        assert shown[r["player"]].startswith(f"{r['points']} → ")
    at.text_area(key="up_reason").input("wasit salah tulis").run()
    assert not _confirm_button(at).disabled
    _confirm_button(at).click().run()
    assert "1 koreksi" in texts(at)
    with connect(loaded, read_only=True) as con:
        after = queries.standings(con, UNHAS, "table", "R1", "3")
    for r in after.iter_rows(named=True):
        assert shown[r["player"]].split(" → ")[1].split(" ")[0] == str(r["points"])


def test_a_new_file_has_no_reason_box(db_path):
    build_samples(db_path, only="pepet")
    at = _signed_in(db_path, ["*"])
    _upload(at, sample_file("unhas", "unhas-2024-e1_R1_meja3.csv"))
    assert not at.text_area
    assert "Pilih berkas" in texts(at) or any("Pilih berkas" in str(e.body) for e in at.get("html"))


@pytest.mark.parametrize("lang", ["id", "en"])
@pytest.mark.parametrize("event", [UNHAS, PEPET])
def test_event_stats_speak_the_rulebooks_words_agree_on_hands_and_show_no_paths(
    loaded, event, lang
):
    from pipeline.standings import stats

    at = app("page_scripts/event_stats.py", event=event, lang=lang)
    text = texts(at)
    cells = {str(v) for df in frames(at) for col in df.columns for v in df[col]}
    for code in (
        "all_doubles",
        "wo",
        "tangkap_lower",
        "tangkap_equal",
        "jawara1",
        "ambyar1",
        "out",
        "locked",
        "biasa",
        "-",
    ):
        assert code not in cells, f"internal code {code!r} shown"
    for leak in ("pipeline/", ".toml", "points_are_default", "rulesets"):
        assert leak not in text and not any(leak in c for c in cells)
    played = [m.value for m in at.metric if m.label in ("Kocokan dimainkan", "Hands played")]
    with connect(loaded, read_only=True) as con:
        total = int(stats.endings(con, event).get_column("hands").sum())
    assert played == [str(total)] or played == [total]
    endings = [df for df in frames(at) if {"Akhir", "Ending"} & set(df.columns)]
    assert endings and int(endings[0].iloc[:, 1].sum()) == total


def test_hand_entry_offers_events_by_their_titles(loaded):
    with connect(loaded) as con:
        events.save(con, UNHAS, "unhas", title="Turnamen Domino Dies Natalis LXIV")
    add_coordinator(loaded, "rina", ["*"])
    at = app("page_scripts/entry.py")
    _sign_in(at, "rina", PASSWORD)
    (pills,) = [p for p in at.get("button_group") if p.proto.label == "Acara"]
    shown = {o.content for o in pills.proto.options}
    assert "Turnamen Domino Dies Natalis LXIV" in shown and UNHAS not in shown
    assert PEPET in shown  # an event without a title goes by its id


def test_an_uploads_rows_show_the_files_own_headers_with_the_bad_cell_marked(db_path, tmp_path):
    """A file written with Indonesian headers and ``;`` (Excel in an Indonesian locale) is
    shown with its own headers, not the contract's names the uploader never wrote; the
    cell with the problem is the one painted, under the header the file gave it."""
    build_samples(db_path, only="pepet")
    at = _signed_in(db_path, ["*"])
    head = (
        "acara;aturan;babak;meja;kocokan;kursi_a;kursi_b;kursi_c;kursi_d;oleh;akhir;"
        "kartu_terakhir;biji_a;biji_b;biji_c;biji_d"
    )
    rows = [
        f"baru-2026;unhas;R1;1;{h};Ana;Budi;Cici;Dedi;A;biasa;5-3;0;{'x' if h == 2 else 4};6;7"
        for h in range(1, 4)
    ]
    f = tmp_path / "meja_id.csv"
    f.write_text("\n".join([head, *rows]) + "\n", encoding="utf-8")
    _upload(at, f)
    (grid,) = [e for e in at.dataframe if "kocokan" in e.value.columns]
    assert list(grid.value.columns)[:6] == ["Baris", "acara", "aturan", "babak", "meja", "kocokan"]
    assert "biji_b" in grid.value.columns and "pips_b" not in grid.value.columns
    # the cells painted, under the headers the file gave them: "x" in biji_b on line 3
    # (the grid's second row), and on line 4 kursi_a (unhas swaps chairs after hand 2,
    # RULES.md; this file seats everyone as in hand 1)
    cols = list(grid.value.columns)
    painted = re.findall(r"row(\d+)_col(\d+)", grid.proto.arrow_data.styler.styles)
    assert {(int(r), int(c)) for r, c in painted} == {
        (1, cols.index("biji_b")),
        (2, cols.index("kursi_a")),
    }


@pytest.mark.parametrize(
    ("script", "who"),
    [
        ("upload.py", "Uploading and correcting results is for registered coordinators"),
        ("entry.py", "Entering hands at the table is for the event's registered users"),
        ("organiser.py", "Running an event, drawing its tables and printing its sheets"),
        ("registry.py", "Importing the players' registry is for users of every event"),
        (
            "requests.py",
            "Correction and withdrawal requests are for the coordinators who send them",
        ),
        ("admin.py", "The users page is for admins"),
    ],
)
def test_each_sign_in_form_says_who_may_use_its_page(loaded, script, who):
    """A juror opening the change requests, or an admin the users page, is not told that
    the page is for uploading results."""
    # the admin and request pages are listed only once signed in: opened by themselves
    at = AppTest.from_file(str(APP.parent / "page_scripts" / script), default_timeout=TIMEOUT)
    at.session_state["lang"] = "en"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = texts(at)
    assert "Coordinator sign-in" in shown and who in shown
    if script != "upload.py":
        assert "Uploading and correcting results" not in shown


def test_every_fragment_of_the_dashboard_is_guarded():
    """A fragment reruns on its own, outside the page's guard: each is made with
    ``failures.fragment`` (an ``st.dialog``, also a fragment, would need the same)."""
    raw = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted((ROOT / "dashboard").rglob("*.py"))
        if path.name != "failures.py"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute)
        and node.attr in ("fragment", "dialog")
        and isinstance(node.value, ast.Name)
        and node.value.id == "st"
    ]
    assert raw == []


def test_a_session_missing_tables_is_said_in_progress(db_path, tmp_path, monkeypatch):
    """RULES, decided: a session still missing tables is shown as in progress ("2 of 3
    tables in"). The leaderboard and the big screen showed its standings so far as if the
    session were over."""
    from dashboard.views import bigscreen
    from tests.test_results_notice import _two_tables_of_a_session

    with connect(db_path) as con:
        _two_tables_of_a_session(con, tmp_path)
    data.clear()
    said = "Session S1 is in progress: 2 of 3 tables in, standings so far."
    at = app(lang="en")
    assert [i.value for i in at.info] == [said]
    # the big screen's session slide (the third: tables 1 and 2, then the session)
    monkeypatch.setattr(bigscreen.time, "time", lambda: 30.0)
    monkeypatch.setenv("DOMINO_BIGSCREEN_SECONDS", "15")
    at = app(lang="en", big=True)
    body = [str(e.body) for e in at.get("html") if "<table" in str(e.body)][-1]
    assert f"Session S1 standings · {said}" in body
    data.clear()
