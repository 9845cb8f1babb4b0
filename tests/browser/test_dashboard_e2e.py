"""End to end in headless Chromium against a real ``domino serve``.

Each test starts the dashboard on a free port with its own database (``DOMINO_DB``) and a
2-second refresh (``DOMINO_REFRESH_SECONDS``). Screenshots of every page at desktop
(1366×900) and phone (390×844) width are saved under tests/artifacts/.
"""

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from bench.browser import CHART
from pipeline.standings import queries
from pipeline.store.db import connect
from tests.browser.support import (
    ARTIFACTS,
    PASSWORD,
    PEPET,
    UNHAS,
    add_coordinator,
    build_samples,
    dashboard,
    sample_file,
)
from tests.conftest import DATA, as_excel_text

pytestmark = pytest.mark.browser

REFRESH = 2  # seconds, DOMINO_REFRESH_SECONDS of every server here
SLACK = 15  # seconds on top of one refresh: a loaded 2-core machine renders slowly
SIZES = {"desktop": (1366, 900), "phone": (390, 844)}


def expect():
    from playwright.sync_api import expect as _expect

    return _expect


def wait_idle(page, timeout: float = 60) -> None:
    """Until the script run has finished (the fragment reruns briefly every refresh)."""
    page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for(
        timeout=timeout * 1000
    )


def shot(page, name: str, size: str) -> Path:
    """A screenshot of the whole page (Streamlit scrolls inside its main block, so the
    viewport is stretched to the content for the picture)."""
    width, height = SIZES[size]
    page.wait_for_timeout(600)
    full = page.evaluate(
        "() => { const m = document.querySelector('[data-testid=\"stMain\"]'); return m ? m.scrollHeight : document.body.scrollHeight }"
    )
    page.set_viewport_size({"width": width, "height": max(height, min(int(full) + 40, 8000))})
    page.wait_for_timeout(400)
    path = ARTIFACTS / f"{name}-{size}.png"
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": width, "height": height})
    assert path.stat().st_size > 10_000
    return path


def sign_in(page, url: str, name: str, password: str = PASSWORD) -> None:
    page.goto(f"{url}/upload")
    page.get_by_label("Nama").fill(name)
    page.get_by_label("Kata sandi atau token").fill(password)
    page.get_by_role("button", name="Masuk").click()
    page.get_by_text("Berkas log kocokan").first.wait_for()


def upload(page, *paths: Path) -> None:
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        [str(p) for p in paths]
    )
    page.get_by_text("Pratinjau — belum ada yang disimpan").wait_for()
    wait_idle(page)


def confirm_button(page):
    return page.get_by_role("button", name=re.compile(r"^Simpan \d+ pertandingan"))


def table_card_players(page, table: str) -> list[str]:
    """The player column of the card of table ``table`` on the leaderboard."""
    card = page.locator(".table-card").filter(has=page.get_by_text(f"Meja {table}", exact=True))
    grid = card.locator("table")
    grid.first.wait_for()
    return [c.strip() for c in grid.locator("tbody tr td:nth-child(2)").all_inner_texts()]


# --- a visitor ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("e2e_samples")
    db = tmp / "samples.duckdb"
    build_samples(db, exclude=("unhas-2024-e1_R3_meja2.csv",))  # left for the upload preview
    add_coordinator(db, "rina", ["*"])
    with dashboard(db, tmp, refresh=REFRESH) as srv:
        yield srv, db


def test_visitor_sees_the_leaderboard(sample_server, new_page):
    srv, db = sample_server
    with connect(db, read_only=True) as con:
        r2 = queries.standings(con, UNHAS, "table", "R2")
    page = new_page()
    page.goto(f"{srv.url}/?event={UNHAS}&round=R2")
    page.get_by_role("heading", name="Klasemen langsung").wait_for()
    for table in r2.get_column("table").unique().to_list():
        page.get_by_text(f"Meja {table}", exact=True).wait_for()
        want = r2.filter(pl.col("table") == table).get_column("player").to_list()
        assert table_card_players(page, table) == want
    expect()(page.get_by_text("10/10 kocokan").first).to_be_visible()
    assert page.get_by_role("link", name="Unggah hasil").count() == 1
    # the tab's icon is the page's own picture, not an address that serves a web page
    icon = page.locator('link[rel="shortcut icon"], link[rel="icon"]').first
    expect()(icon).to_have_attribute("href", re.compile(r"^data:image/svg\+xml"))


def test_the_server_does_not_watch_its_source_files(sample_server, new_page):
    """``domino serve`` (what ``make demo`` starts) watches no files: Streamlit's watcher
    would cost every new session a walk over every imported module on the server's event
    loop. A watcher holds an inotify descriptor once a session has started."""
    srv, _ = sample_server
    page = new_page()
    page.goto(f"{srv.url}/?event={UNHAS}")
    page.get_by_text("Meja 1", exact=True).first.wait_for()
    fds = Path(f"/proc/{srv.proc.pid}/fd")
    if not fds.is_dir():
        pytest.skip("needs Linux's /proc to see the server's open files")
    links = []
    for fd in fds.iterdir():
        with contextlib.suppress(OSError):  # a descriptor closed while listed
            links.append(os.readlink(fd))
    assert links, "the server's open files could not be read"
    assert not [x for x in links if "inotify" in x], links


def connections(page, url: str, heading: str) -> list[str]:
    """The addresses of the health checks the page at ``url`` made until ``heading``
    showed: where Streamlit's frontend looked for its server."""
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(url)
    page.get_by_role("heading", name=heading).wait_for()
    return [u.split("?")[0] for u in asked if "/_stcore/health" in u]


def test_every_page_connects_to_the_server_at_once(sample_server, new_page):
    """A page opened at its own address connects at the server's root straight away.
    Streamlit's frontend alone would first try the page's address as the root, get a 404,
    and wait 100 ms before it tried the root (dashboard/server.py)."""
    srv, _ = sample_server
    health = connections(new_page(), f"{srv.url}/player", "Riwayat rating")
    assert health and set(health) == {f"{srv.url}/_stcore/health"}, health
    health = connections(new_page(), f"{srv.url}/?event={UNHAS}", "Klasemen langsung")
    assert health and set(health) == {f"{srv.url}/_stcore/health"}, health


def test_under_a_base_path_every_page_connects_at_once(tmp_path, new_page):
    """Served under a path of its own (``server.baseUrlPath``, as behind a proxy), the
    pages' addresses are under it, and each connects at it straight away."""
    db = tmp_path / "samples.duckdb"
    build_samples(db, only="unhas")
    with dashboard(db, tmp_path, base="domino") as srv:
        assert srv.url.endswith("/domino")
        page = new_page()
        health = connections(page, f"{srv.url}/player", "Riwayat rating")
        assert health and set(health) == {f"{srv.url}/_stcore/health"}, health
        page.get_by_role("link", name=re.compile("Klasemen")).first.click()
        page.get_by_role("heading", name="Klasemen langsung").wait_for()
        assert page.url.split("?")[0] in (srv.url, srv.url + "/")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_stop_signal_ends_the_server_quietly(tmp_path, new_page, sig):
    """Ctrl+C (what stops ``make demo``) and SIGTERM (what a service manager sends) end
    the server with status 0 and no "Aborted!", traceback or leaked objects, after a
    visitor's session was open."""
    db = tmp_path / "samples.duckdb"
    build_samples(db, only="unhas")
    with dashboard(db, tmp_path) as srv:
        page = new_page()
        page.goto(f"{srv.url}/player")
        page.get_by_role("heading", name="Riwayat rating").wait_for()
        srv.proc.send_signal(sig)
        assert srv.proc.wait(timeout=60) == 0
        log = srv.log.read_text()
        assert "Stopping..." in log
        for word in ("Aborted", "Traceback", "leaked"):
            assert word not in log, log[-2000:]


def test_screenshots_of_every_page(sample_server, new_page):
    srv, _ = sample_server
    for size, (w, h) in SIZES.items():
        page = new_page(w, h)
        page.goto(f"{srv.url}/?event={UNHAS}&round=R1")
        page.get_by_text("Meja 6", exact=True).wait_for()
        wait_idle(page)
        shot(page, "leaderboard", size)
        page.goto(f"{srv.url}/?event={PEPET}&round=S2")
        page.get_by_text("Meja 3", exact=True).wait_for()
        page.get_by_role("tab", name=re.compile("Sesi S2")).click()
        wait_idle(page)
        shot(page, "leaderboard-pepet-session", size)
        page.goto(f"{srv.url}/?big=true&event={UNHAS}")
        page.locator("table.big").wait_for()
        shot(page, "leaderboard-bigscreen", size)
        page.goto(f"{srv.url}/player")
        page.get_by_role("heading", name="Riwayat rating").wait_for()
        page.locator(CHART).first.wait_for()
        wait_idle(page)
        shot(page, "player", size)
        # another tab: drawn when opened, and named in the address for a shared link
        page.get_by_role("tab", name="Kocokan").click()
        page.get_by_text("Hasil per kursi").wait_for()
        page.locator(CHART).first.wait_for()
        assert "tab=Kocokan" in page.url
        assert page.get_by_role("heading", name="Riwayat rating").count() == 0
        wait_idle(page)
        shot(page, "player-hands", size)
        page.goto(f"{srv.url}/stats?event={PEPET}")
        page.get_by_text("Bagaimana kocokan berakhir").wait_for()
        page.locator(CHART).first.wait_for()
        # shares as they are (68,5 with the Indonesian decimal comma), not as a plain table
        # writes floats (68.5000)
        shares = page.locator("table.plain-table").first.inner_text()
        assert re.search(r"\d,\d\b", shares) and not re.search(r"[.,]\d{4}", shares)
        wait_idle(page)
        shot(page, "event-stats", size)
        page.goto(f"{srv.url}/stats?event={PEPET}&tab=Poin")
        page.get_by_text("pengaturan penyelenggara").wait_for()
        page.locator(CHART).first.wait_for()
        wait_idle(page)
        shot(page, "event-stats-points", size)
        page.goto(f"{srv.url}/upload")
        page.get_by_text("Masuk koordinator").wait_for()
        shot(page, "upload-sign-in", size)
        sign_in(page, srv.url, "rina")
        upload(page, sample_file("unhas", "unhas-2024-e1_R3_meja2.csv"))
        expect()(page.get_by_text("Poin yang akan didapat")).to_be_visible()
        shot(page, "upload-preview", size)
    for name in (
        "leaderboard",
        "leaderboard-pepet-session",
        "leaderboard-bigscreen",
        "player",
        "player-hands",
        "event-stats",
        "event-stats-points",
        "upload-sign-in",
        "upload-preview",
    ):
        for size in SIZES:
            assert (ARTIFACTS / f"{name}-{size}.png").exists()


def test_anonymous_visitor_cannot_reach_upload(sample_server, new_page):
    srv, db = sample_server
    page = new_page()
    for url in (f"{srv.url}/upload", f"{srv.url}/upload?user=rina&_domino_identity=rina"):
        page.goto(url)
        page.get_by_text("Masuk koordinator").wait_for()
        wait_idle(page)
        assert page.locator('[data-testid="stFileUploader"]').count() == 0
    page.get_by_label("Nama").fill("rina")
    page.get_by_label("Kata sandi atau token").fill("not the password")
    page.get_by_role("button", name="Masuk").click()
    page.get_by_text("Nama atau kata sandi salah").wait_for()
    assert page.locator('[data-testid="stFileUploader"]').count() == 0


# --- a coordinator -------------------------------------------------------------------------------


def test_coordinator_uploads_and_the_leaderboard_changes_within_one_refresh(tmp_path, new_page):
    db = tmp_path / "d.duckdb"
    build_samples(db, only="unhas", exclude=("unhas-2024-e1_R3_meja2.csv",))
    add_coordinator(db, "rina", [UNHAS])
    with dashboard(db, tmp_path, refresh=REFRESH) as srv:
        screen = new_page()  # the venue screen: never touched again after opening
        screen.goto(srv.url)
        screen.get_by_text("Meja 1", exact=True).wait_for()
        assert screen.get_by_text("Meja 2", exact=True).count() == 0
        coord = new_page()
        sign_in(coord, srv.url, "rina")
        upload(coord, sample_file("unhas", "unhas-2024-e1_R3_meja2.csv"))
        expect()(coord.get_by_text("Poin yang akan didapat")).to_be_visible()
        assert screen.get_by_text("Meja 2", exact=True).count() == 0, (
            "nothing written before confirming"
        )
        confirm_button(coord).click()
        coord.get_by_text("Tersimpan: 1 pertandingan").wait_for()
        t0 = time.monotonic()
        screen.get_by_text("Meja 2", exact=True).wait_for(timeout=(REFRESH + SLACK) * 1000)
        assert time.monotonic() - t0 <= REFRESH + SLACK
        with connect(db, read_only=True) as con:
            want = queries.standings(con, UNHAS, "table", "R3", "2").get_column("player").to_list()
        assert table_card_players(screen, "2") == want


def test_a_workbook_saved_by_libreoffice_as_ods_and_excel_text_upload_and_save(tmp_path, new_page):
    """LibreOffice Calc saves .ods unless told otherwise, and Excel's "Text (Tab delimited)"
    saves .txt: the page takes both (Streamlit's uploader refuses any extension it was not
    given), and a .zip of sheets; it previews every sheet and saves."""
    import zipfile

    db = tmp_path / "d.duckdb"  # a new league: the workbook's event is not loaded yet
    add_coordinator(db, "rina", ["*"])
    ods = DATA / "read" / "meja.ods"
    txt = tmp_path / "hasil.txt"  # Excel's "Unicode Text"
    txt.write_bytes(as_excel_text(DATA / "read" / "good.csv", unicode=True))
    archive = tmp_path / "R1.zip"  # a sheet of another event, sent in a .zip
    other = (
        (DATA / "read" / "good.csv").read_text(encoding="utf-8").replace("read-2024", "zip-2024")
    )
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("R1/meja1.csv", other)
    with dashboard(db, tmp_path, refresh=REFRESH) as srv:
        page = new_page()
        sign_in(page, srv.url, "rina")
        expect()(page.get_by_text("CSV, TXT, TSV, XLSX, XLSM, ODS atau ZIP").first).to_be_visible()
        upload(page, ods, txt, archive)
        confirm_button(page).click()
        page.get_by_text("Tersimpan: 5 pertandingan").wait_for()
    with connect(db, read_only=True) as con:
        files = con.execute("SELECT DISTINCT file FROM hands").fetchall()
    assert sorted(f for (f,) in files) == [
        "R1.zip/R1/meja1.csv",
        "hasil.txt",
        "meja.ods [Meja 1]",
        "meja.ods [Meja 2]",
        "meja.ods [Meja 3]",
    ]


def test_a_workbook_with_a_stray_far_cell_is_refused_and_the_server_lives_on(tmp_path, new_page):
    """One cell at XFD1048576 of a 5 KB workbook made the workbook reader ask for 512 GB
    and abort the process reading it: the dashboard's server, for every screen at once."""
    import xlsxwriter

    db = tmp_path / "d.duckdb"
    build_samples(db, only="unhas")
    add_coordinator(db, "rina", ["*"])
    stray = tmp_path / "jarang.xlsx"
    wb = xlsxwriter.Workbook(stray)
    ws = wb.add_worksheet("hands")
    lines = sample_file("unhas", "unhas-2024-e1_R3_meja2.csv").read_text("utf-8-sig").splitlines()
    for i, line in enumerate(lines):
        ws.write_row(i, 0, line.split(";"))
    ws.write(1_048_575, 16_383, "x")
    wb.close()
    assert stray.stat().st_size < 10_000
    with dashboard(db, tmp_path, refresh=REFRESH) as srv:
        page = new_page()
        sign_in(page, srv.url, "rina")
        upload(page, stray)
        page.get_by_text(re.compile("sampai ke baris 1.048.576 dan kolom 16.384")).first.wait_for()
        expect()(confirm_button(page)).to_be_disabled()
        other = new_page()  # the server still serves every screen
        other.goto(srv.url)
        other.get_by_text("Meja 1", exact=True).first.wait_for()


def test_a_bad_file_shows_its_problems_and_changes_nothing(tmp_path, new_page):
    db = tmp_path / "d.duckdb"
    build_samples(db, only="unhas")
    add_coordinator(db, "rina", ["*"])
    src = (
        sample_file("unhas", "unhas-2024-e1_R1_meja3.csv")
        .read_bytes()
        .decode("utf-8-sig")
        .splitlines()
    )
    header = src[0].split(";")
    row = src[4].split(";")
    row[header.index("meja")] = "77"
    row[header.index("akhir")] = "menang"
    bad = tmp_path / "meja77.csv"
    bad.write_text(src[0] + "\n" + ";".join(row) + "\n", encoding="utf-8")
    with connect(db, read_only=True) as con:
        before = queries.data_version(con)
    with dashboard(db, tmp_path, refresh=REFRESH) as srv:
        page = new_page()
        sign_in(page, srv.url, "rina")
        upload(page, bad)
        page.get_by_text(re.compile(r"Masalah \([1-9]\d* galat")).wait_for()
        expect()(page.get_by_text("Sel merah: galat")).to_be_visible()
        expect()(confirm_button(page)).to_be_disabled()
        shot(page, "upload-bad-file", "desktop")
        shot(page, "upload-bad-file", "phone")
    with connect(db, read_only=True) as con:
        assert queries.data_version(con) == before
        assert "77" not in queries.standings(con, UNHAS, "table").get_column("table").to_list()


def test_a_correction_shows_its_difference_and_needs_a_reason(tmp_path, new_page):
    db = tmp_path / "d.duckdb"
    build_samples(db, only="unhas")
    # a jury member's correction applies at once (a coordinator's becomes a change request,
    # tests/browser/test_change_requests_e2e.py)
    add_coordinator(db, "rina", [UNHAS], role="jury")
    src = (
        sample_file("unhas", "unhas-2024-e1_R1_meja3.csv")
        .read_bytes()
        .decode("utf-8-sig")
        .splitlines()
    )
    header = src[0].split(";")
    row = src[2].split(";")  # hand 2: the referee wrote the wrong last tile
    tile = header.index("kartu_terakhir")
    row[tile] = "4-2" if row[tile] != "4-2" else "5-1"
    fixed = tmp_path / "unhas-2024-e1_R1_meja3.csv"
    fixed.write_text("\n".join([src[0], src[1], ";".join(row), *src[3:]]) + "\n", encoding="utf-8")
    with dashboard(db, tmp_path, refresh=REFRESH) as srv:
        page = new_page()
        sign_in(page, srv.url, "rina")  # the very first request of this server is /upload
        # ... and still goes through the app: its navigation and language switch are there
        expect()(page.get_by_role("link", name="Klasemen langsung")).to_be_visible()
        expect()(page.get_by_text("EN · English")).to_be_visible()
        upload(page, fixed)
        page.get_by_text("Perbedaan dengan versi yang dimuat").wait_for()
        expect()(page.get_by_text("Tulis alasannya", exact=False)).to_be_visible()
        expect()(confirm_button(page)).to_be_disabled()
        shot(page, "upload-correction", "desktop")
        page.get_by_role("textbox", name="Alasan koreksi").fill("wasit salah tulis")
        page.get_by_role("textbox", name="Alasan koreksi").press("Control+Enter")
        expect()(confirm_button(page)).to_be_enabled(timeout=30_000)
        confirm_button(page).click()
        page.get_by_text("1 koreksi").wait_for()
    with connect(db, read_only=True) as con:
        hist = queries.history(con, UNHAS, "R1", "3")
    assert hist.get_column("kind").to_list() == ["new", "correction"]
    assert hist.get_column("reason")[-1] == "wasit salah tulis"
    assert hist.get_column("loaded_by")[-1] == "rina"


# --- the CLI at the same time --------------------------------------------------------------------


def test_a_file_loaded_by_the_cli_appears_while_the_dashboard_runs(tmp_path, new_page):
    db = tmp_path / "d.duckdb"
    build_samples(db, only="unhas", exclude=("unhas-2024-e1_R3_meja1.csv",))
    with dashboard(db, tmp_path, refresh=REFRESH) as srv:
        screen = new_page()
        screen.goto(srv.url)
        screen.get_by_text("Meja 2", exact=True).wait_for()
        assert screen.get_by_text("Meja 1", exact=True).count() == 0
        screen.wait_for_timeout(REFRESH * 1000)  # the screen is polling the database now
        domino = shutil.which("domino", path=str(Path(sys.executable).parent))
        assert domino
        done = subprocess.run(
            [
                domino,
                "ingest",
                str(sample_file("unhas", "unhas-2024-e1_R3_meja1.csv")),
                "--db",
                str(db),
                "--by",
                "cli",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        t0 = time.monotonic()
        screen.get_by_text("Meja 1", exact=True).wait_for(timeout=(REFRESH + SLACK) * 1000)
        assert time.monotonic() - t0 <= REFRESH + SLACK
        expect()(screen.get_by_text("Meja 2", exact=True)).to_be_visible()
