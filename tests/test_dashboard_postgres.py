"""Every dashboard page on a league stored in PostgreSQL, through AppTest, signed out and
signed in as an admin: the page tests elsewhere run on the file only. (A save seen by the
change watcher on both stores: tests/test_live.py; served by ``domino serve --db URL``
in a browser: tests/browser/test_live.py.)"""

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import data
from dashboard.shell import PAGES
from pipeline import auth
from tests.browser.support import APP, PASSWORD, add_coordinator, build_samples
from tests.test_dashboard import _sign_in, texts

TIMEOUT = 60
#: what the pages say on an empty league (results, players, ratings)
EMPTY = ("Belum ada hasil yang dimuat", "Belum ada pemain", "Belum ada rating")
PUBLIC = ["page_scripts/leaderboard.py"] + [
    f"page_scripts/{script}" for _path, script, _key, _icon, who in PAGES if who == "all"
]
SIGNED_IN = [f"page_scripts/{script}" for _path, script, _key, _icon, _who in PAGES]


@pytest.fixture
def league(pg_url, monkeypatch) -> str:
    """The sample league (both rulesets) in a PostgreSQL database of this test's own;
    DOMINO_DB names it, as ``domino serve`` sets it."""
    build_samples(pg_url)
    add_coordinator(pg_url, "boss", [], role="admin")
    monkeypatch.setenv("DOMINO_DB", pg_url)
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    data.clear()
    auth.LIMITER.reset(list(auth.LIMITER._fails))
    yield pg_url
    data.clear()


def _open(page: str, at: AppTest | None = None) -> AppTest:
    if at is None:
        at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
        at.run()
    if page != "page_scripts/leaderboard.py":
        at.switch_page(page).run()
    assert not at.exception, (page, [e.value for e in at.exception])
    assert not at.error, (page, [e.value for e in at.error])
    return at


def test_every_public_page_reads_the_league(league):
    assert len(PUBLIC) >= 8
    for page in PUBLIC:
        at = _open(page)
        said = texts(at)
        assert not [e for e in EMPTY if e in said], page
    board = texts(_open("page_scripts/leaderboard.py"))
    assert "Meja 1" in board


def test_every_page_opens_for_a_signed_in_admin(league):
    at = _open("page_scripts/upload.py")
    _sign_in(at, "boss", PASSWORD)
    assert at.get("file_uploader"), texts(at)
    for page in SIGNED_IN:
        _open(page, at)
    assert "boss" in texts(_open("page_scripts/admin.py", at))


def test_a_drawn_round_shows_its_seats_and_its_sheets(league):
    """A round drawn and not played, on PostgreSQL: the leaderboard lists its seats, and
    the organiser page offers its sheets, made from the store's draw."""
    from pipeline import draws, events, sheets
    from pipeline.store.db import connect
    from tests.draw_fixture import set_roster

    players = ["Ana", "Budi", "Cici", "Dedi", "Eko", "Fani", "Gita", "Hadi"]
    with connect(league) as con:
        events.save(con, "piala-pg", "unhas", title="Piala PG")
        set_roster(con, "piala-pg", players)
        draws.draw_round(con, "piala-pg", "R1", seed=3)
        drawn = sheets.drawn_round(con, "piala-pg", "R1")
    assert sorted(name for name, _ in sheets.round_files(drawn)) == sorted(
        [f"piala-pg_R1_meja{t}.{x}" for t in ("1", "2") for x in ("csv", "xlsx")]
        + ["piala-pg_R1.pdf", "piala-pg_R1_daftar_meja.pdf"]
    )
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["event"] = "piala-pg"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    board = texts(at)
    assert "Tempat duduk babak R1" in board and "Belum ada meja" not in board
    cards = "".join(str(e.body) for e in at.get("html") if "table-card" in str(e.body))
    assert all(f"<td>{p}</td>" in cards for p in players)
    at = _open("page_scripts/organiser.py")
    _sign_in(at, "boss", PASSWORD)
    at.selectbox(key="org_event").set_value("piala-pg").run()
    assert not at.exception, [e.value for e in at.exception]
    offered = [b.proto.label for b in at.get("download_button")]
    assert offered == ["⬇ PDF untuk dicetak", "⬇ Daftar meja (PDF)", "⬇ Lembar isian (.zip)"], (
        offered
    )


def _board(at: AppTest | None = None) -> AppTest:
    at = at or AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_server_restart_does_not_fail_the_next_page(league, pg_cluster):
    """The PostgreSQL server restarted (every session of the league's database ended)
    while the dashboard kept its reading connections: the next page is read on a live
    connection instead of failing on a dead one."""
    assert "Meja 1" in texts(_board())
    dbname = league.rsplit("/", 1)[1]
    pg_cluster.admin(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        f"WHERE datname = '{dbname}' AND pid <> pg_backend_pid()"
    )
    at = _board()
    assert not at.error, [e.value for e in at.error]
    assert "Meja 1" in texts(at)


def test_a_store_that_cannot_be_reached_is_said_in_the_pages_language(monkeypatch):
    """The league's PostgreSQL server is down: the page says so in its language, that
    nothing saved is lost and what to do, not "an error it does not know … report it"."""
    monkeypatch.setenv("DOMINO_DB", "postgresql://juri:rahasia@127.0.0.1:1/liga")
    data.clear()
    at = _board()
    said = " ".join(e.value for e in at.error)
    assert said.startswith(
        "Basis data PostgreSQL postgresql://juri@127.0.0.1:1/liga tidak dapat dihubungi ("
    ), said
    assert "tidak ada yang tersimpan yang hilang" in said and "tidak dikenal" not in said
    assert "rahasia" not in said


def test_a_connection_lost_in_the_middle_of_a_page_is_said_as_the_server_gone(league, monkeypatch):
    """The server stopped while a page read (psycopg's own error, not the store's): the
    same sentence as a server that cannot be reached."""
    import psycopg

    from pipeline.standings import stats

    def gone(*_a, **_k):
        raise psycopg.errors.AdminShutdown("terminating connection due to administrator command")

    monkeypatch.setattr(stats, "data_stamp", gone)
    at = _board()
    said = " ".join(e.value for e in at.error)
    assert "tidak dapat dihubungi (terminating connection due to administrator command)" in said
    assert "tidak dikenal" not in said
