"""A group-level pepet event of 600 registered entrants, all in one KG, drawn on the
organiser page on a phone: the seating search takes seconds (every table holds members of
the group, so only its bound of a million swaps ends it), and the page says it is drawing
under the button until the tables are drawn. Before, the page only faded what was below
the form, for half a minute (600 entrants of one group took 15-30 s to seat). Every wait
is on a condition on the page, never a fixed sleep."""

import polars as pl
import pytest
from playwright.sync_api import expect

from pipeline import events, players
from pipeline.store.db import connect
from tests.browser.support import ARTIFACTS, PASSWORD, add_coordinator, dashboard
from tests.browser.test_dashboard_e2e import wait_idle

pytestmark = pytest.mark.browser

EV = "kg-besar-2026"
SLOW = 180_000  # ms: a draw on a loaded 2-core machine


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("big_draw")
    db = tmp / "big.duckdb"
    names = [f"Anggota {i:03d}" for i in range(600)]
    reg = tmp / "anggota.csv"
    pl.DataFrame({"player": names, "group": ["KG Besar"] * 600}).write_csv(reg)
    roster = tmp / "peserta.csv"
    pl.DataFrame({"player": names}).write_csv(roster)
    with connect(db) as con:
        players.import_registry(con, players.read_registry(reg))
        events.save(con, EV, "pepet", title="Seleksi KG Besar 2026", level="group")
        events.set_roster(con, EV, events.read_roster(roster), source=roster.name)
    add_coordinator(db, "panitia", [EV])
    with dashboard(db, tmp) as srv:
        yield srv, db


def test_a_large_draw_says_it_is_drawing_under_the_button(server, new_page):
    srv, db = server
    page = new_page(390, 844)
    page.goto(f"{srv.url}/organiser")
    page.get_by_label("Nama").fill("panitia")
    page.get_by_label("Kata sandi atau token").fill(PASSWORD)
    page.get_by_role("button", name="Masuk").click()
    page.get_by_role("heading", name="Undian meja").wait_for(timeout=SLOW)
    wait_idle(page)
    page.get_by_label("Babak yang diundi").fill("S1")
    page.get_by_label("Seed (kosongkan untuk acak)").fill("5")
    page.get_by_role("button", name="Undi babak ini").click()
    drawing = page.get_by_text("Mengundi meja…")
    expect(drawing).to_be_visible(timeout=SLOW)
    page.screenshot(path=str(ARTIFACTS / "organiser-big-draw-390x844.png"))
    page.get_by_text("Babak S1 diundi dengan seed 5.").wait_for(timeout=SLOW)
    expect(drawing).to_have_count(0)
    with connect(db, read_only=True) as con:
        seats = con.execute(
            'SELECT count(*), count(DISTINCT "table") FROM seatings WHERE event = ?', [EV]
        ).fetchall()
    assert seats == [(600, 150)]
