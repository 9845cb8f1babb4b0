"""An organiser signs in on the organiser page and draws R2 of an event whose R1 is
complete (prepared with the engine before the server starts: event, 12 entrants, the real
R1 draw, R1 played by the simulator and loaded); the page shows the new draw's tables.
On a laptop (1366x900) and a phone (390x844). Every wait is on a condition on the page,
never a fixed sleep. Screenshots go to tests/artifacts/."""

import random
import zipfile
from pathlib import Path

import polars as pl
import pytest
from playwright.sync_api import expect

from pipeline import draws, events, sheets
from pipeline.ingest import ingest
from pipeline.sheets.workbook import table_csv
from pipeline.store.db import connect
from simulator.events import record, unhas_match
from tests.browser.support import ARTIFACTS, PASSWORD, add_coordinator, dashboard
from tests.browser.test_dashboard_e2e import wait_idle
from tests.draw_fixture import set_roster
from tests.test_draw_round_trip import PLAYERS

pytestmark = pytest.mark.browser

EV = "piala-2026"
TITLE = "Piala Dies Natalis 2026"
SLOW = 180_000  # ms: a draw on a loaded 2-core machine


def prepare(db, tmp) -> None:
    """R1 drawn (seed 11) and played whole, through the engine the CLI uses."""
    with connect(db) as con:
        events.save(con, EV, "unhas", title=TITLE)
        set_roster(con, EV, PLAYERS)
        draws.draw_round(con, EV, "R1", seed=11)
        seats = draws.current(con, EV, "R1")  # table, chair, player: the roster's spelling
        rng = random.Random(21)
        hands = []
        for table in ("1", "2", "3"):
            start = dict(seats.filter(pl.col("table") == table).select("chair", "player").rows())
            hands += unhas_match(rng, "R1", table, start)
        log = tmp / "r1.csv"
        record(hands, "unhas", EV, random.Random(22)).write_csv(log)
        plan = ingest(con, [log])
        assert plan.errors.height == 0 and plan.count("new") == 3, plan.problems.to_dicts()
    add_coordinator(db, "panitia", [EV])


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("organiser")
    db = tmp / "organiser.duckdb"
    prepare(db, tmp)
    with dashboard(db, tmp) as srv:
        yield srv, db


def sign_in(page, url: str) -> None:
    page.goto(f"{url}/organiser")
    page.get_by_label("Nama").fill("panitia")
    page.get_by_label("Kata sandi atau token").fill(PASSWORD)
    page.get_by_role("button", name="Masuk").click()
    page.get_by_role("heading", name="Undian meja").wait_for()
    wait_idle(page)


def download(page, button: str, name: str) -> Path:
    """Click the download ``button``; the file it gives, which must be called ``name``."""
    with page.expect_download(timeout=SLOW) as got:
        page.get_by_role("button", name=button).click()
    assert got.value.suggested_filename == name
    return Path(got.value.path())


def pdf_text(path) -> list[str]:
    """A downloaded PDF's lines, as the core font writes them (``->`` for an arrow)."""
    import pypdf

    from pipeline.sheets.printable import latin1

    pages = pypdf.PdfReader(path).pages
    return [latin1(line) for page in pages for line in page.extract_text().splitlines()]


def seats_table(page):
    """The current draw's seats (the page's plain table with a chair column; the event's
    round-by-round status comes before it)."""
    chair = page.locator("th", has_text="Kursi")
    return page.locator("table.plain-table").filter(has=chair).first


def r2_tables(db) -> dict[str, list[str]]:
    with connect(db, read_only=True) as con:
        seats = draws.current(con, EV, "R2")
    return {
        str(t): seats.filter(pl.col("table") == t)["player"].to_list()
        for t in seats["table"].unique().sort()
    }


def test_drawing_r2_from_the_completed_r1_shows_its_tables(server, new_page):
    srv, db = server
    page = new_page(1366, 900)
    sign_in(page, srv.url)
    expect(page.get_by_label("Nama acara")).to_have_value(TITLE)
    page.get_by_label("Babak yang diundi").fill("R2")
    page.get_by_label("Seed (kosongkan untuk acak)").fill("5")
    page.get_by_role("button", name="Undi babak ini").click()
    page.get_by_text("Babak R2 diundi dengan seed 5.").wait_for(timeout=SLOW)
    page.get_by_text("Babak R2 · seed 5").wait_for()
    wait_idle(page)
    tables = r2_tables(db)
    # 6 qualifiers (the top 2 of R1's three tables) on two tables of 3
    assert sorted(len(p) for p in tables.values()) == [3, 3]
    shown = seats_table(page)
    for table, players in tables.items():
        for player in players:
            row = shown.locator("tbody tr").filter(has_text=player)
            row.first.wait_for()
            cells = [c.strip() for c in row.first.locator("td, th").all_inner_texts()]
            assert row.count() == 1 and cells[0] == table and player in cells
    shown.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "organiser-draw-r2-1366x900.png"))
    # the round's sheets, downloaded from the page: the files `domino sheets` writes
    with connect(db, read_only=True) as con:
        drawn = sheets.drawn_round(con, EV, "R2")
    with zipfile.ZipFile(download(page, "Lembar isian (.zip)", f"{EV}_R2.zip")) as zf:
        names = zf.namelist()
        assert names == [name for name, _ in sheets.round_files(drawn)]
        assert zf.read(f"{EV}_R2_meja1.csv") == table_csv(drawn, "1")
        assert zf.read(f"{EV}_R2.pdf").startswith(b"%PDF-")
    record = download(page, "PDF untuk dicetak", f"{EV}_R2.pdf")
    assert record.read_bytes().startswith(b"%PDF-")
    # the notice board's two PDFs: R2's seating list by name, R1's results naming the R2
    # table each qualifier goes to
    listed = pdf_text(download(page, "Daftar meja (PDF)", f"{EV}_R2_daftar_meja.pdf"))
    for table, players in tables.items():
        for player in players:
            assert any(line.startswith(f"{player} {table} ") for line in listed), player
    # R1 is the latest round with results: the round offered first
    expect(page.get_by_label("Hasil babak")).to_be_visible()
    notice = pdf_text(download(page, "Hasil untuk papan pengumuman (PDF)", f"{EV}_R1_hasil.pdf"))
    for table, players in tables.items():
        for player in players:
            to = f"lolos / through -> R2 meja {table}"
            assert any(f" {player} " in line and line.endswith(to) for line in notice), player

    # the venue's screen: R1's results stay, and R2's seats are listed above them
    screen = new_page(1920, 1080)
    screen.goto(f"{srv.url}/?event={EV}")
    screen.get_by_role("heading", name="Tempat duduk babak R2").wait_for(timeout=SLOW)
    seats = screen.locator(".table-card").filter(has_text="belum dimulai")
    seats.first.wait_for()
    wait_idle(screen)
    assert seats.count() == len(tables)
    for players in tables.values():
        for player in players:
            assert seats.get_by_text(player, exact=True).count() == 1
    screen.get_by_role("tab", name="Meja · R1").wait_for()

    phone = new_page(390, 844)
    sign_in(phone, srv.url)
    phone.get_by_text("Babak R2 · seed 5").wait_for()
    on_phone = seats_table(phone)
    on_phone.locator("tbody tr").filter(has_text=tables["1"][0]).first.wait_for()
    wait_idle(phone)
    on_phone.scroll_into_view_if_needed()
    width = phone.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width  # nothing wider than the phone
    phone.screenshot(path=str(ARTIFACTS / "organiser-draw-r2-390x844.png"))
