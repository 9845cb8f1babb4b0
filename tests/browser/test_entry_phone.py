"""A referee enters a whole 10-hand unhas match on the entry page of a phone (390x844),
and a leaderboard open in another browser moves after each hand. Every wait is on a
condition on the page, never a fixed sleep. Screenshots go to tests/artifacts/."""

import pytest
from playwright.sync_api import expect

from pipeline.standings import queries
from pipeline.store.db import connect
from tests.browser.support import ARTIFACTS, add_coordinator, dashboard
from tests.browser.test_dashboard_e2e import REFRESH, wait_idle
from tests.draw_fixture_entry import insert_draw

pytestmark = pytest.mark.browser

EV, RND, TBL = "cup-2026", "R1", "1"
START = {"a": "Ani", "b": "Budi", "c": "Cici", "d": "Dedi"}
SLOW = 180_000  # ms: a save on a loaded 2-core machine, with another browser refreshing


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("entry")
    db = tmp / "entry.duckdb"
    with connect(db) as con:
        insert_draw(con, EV, RND, {TBL: START})
    add_coordinator(db, "wasit", [EV])
    with dashboard(db, tmp, refresh=REFRESH) as srv:
        yield srv, db


def sign_in(page, url: str) -> None:
    page.goto(f"{url}/entry")
    page.get_by_label("Nama").fill("wasit")
    page.get_by_label("Kata sandi atau token").fill("correct horse battery")
    page.get_by_role("button", name="Masuk").click()
    page.get_by_role("heading", name="Input kocokan di meja").wait_for()
    # the round just drawn is preselected: the referee picks the table only
    expect(
        page.locator(".st-key-en_round").get_by_role("radio", name=RND, exact=True)
    ).to_be_checked()


def pick(page, key: str, label: str) -> None:
    # pills and segmented controls are groups of radio buttons
    page.locator(f".st-key-{key}").get_by_role("radio", name=label, exact=True).click()
    wait_idle(page)


def tap(page, key_prefix: str, label: str) -> None:
    page.locator(f'[class*="st-key-{key_prefix}"]').get_by_role(
        "radio", name=label, exact=True
    ).click()
    wait_idle(page)


def fits(page, width: int) -> None:
    """Every control of the hand form lies within the screen's width, thumb-sized."""
    buttons = page.locator(".st-key-en_form button:visible")
    assert buttons.count() >= 7 + 7 + 5 + 4 + 1  # both tile ends, endings, chairs, save
    for i in range(buttons.count()):
        box = buttons.nth(i).bounding_box()
        assert box is not None
        if box["width"] == 0:  # a tooltip's hidden trigger
            continue
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, box
        assert box["height"] >= 40, box


def test_a_whole_match_entered_on_a_phone_moves_the_leaderboard_hand_by_hand(server, new_page):
    srv, db = server
    phone = new_page(390, 844)
    sign_in(phone, srv.url)
    pick(phone, "en_table", TBL)
    board = new_page(1366, 900)
    board.goto(f"{srv.url}/?event={EV}")
    board.get_by_role("heading", name="Klasemen langsung").wait_for()
    for hand in range(1, 11):
        phone.get_by_text(f"Kocokan {hand} (berikutnya)").wait_for(timeout=SLOW)
        tap(phone, "en_ending_", "Menang biasa")
        # chair A goes out every hand (whoever sits there after the swaps)
        phone.locator('[class*="st-key-en_who_"]').get_by_role("radio").first.click()
        wait_idle(phone)
        tap(phone, "en_hi_", "1")
        tap(phone, "en_lo_", "2")
        if hand == 1:
            fits(phone, 390)
            phone.screenshot(path=str(ARTIFACTS / "entry-hand-390x844.png"))
        phone.get_by_role("button", name=f"Simpan kocokan {hand}").click()
        phone.get_by_text(f"Kocokan {hand} tersimpan").wait_for(timeout=SLOW)
        with connect(db, read_only=True) as con:
            s = queries.standings(con, EV, "table", RND, TBL)
        leader = s.row(0, named=True)
        # the other browser's leaderboard shows this hand without being touched
        board.get_by_text(f"{hand}/10 kocokan").first.wait_for(timeout=SLOW)
        card = board.locator(".table-card table").first
        row = card.locator("tbody tr").filter(has_text=leader["player"]).first
        row.get_by_text(str(leader["points"]), exact=True).wait_for()
    # chair A won all ten: Ani in hands 1-2, Cici (A<->C) in 3-10 -> Cici 16 on top
    assert (leader["player"], leader["points"]) == ("Cici", 16)
    phone.get_by_role("button", name="Tutup pertandingan").click()
    phone.get_by_text(f"Pertandingan meja {TBL} ditutup").wait_for()
    phone.get_by_text("Ditutup · 10 kocokan tercatat").wait_for()
    wait_idle(phone)
    phone.screenshot(path=str(ARTIFACTS / "entry-closed-390x844.png"), full_page=True)
    board.screenshot(path=str(ARTIFACTS / "entry-leaderboard-1366x900.png"))


def test_the_entry_page_and_the_road_fit_a_laptop_and_a_phone(server, new_page):
    srv, _ = server
    wide = new_page(1366, 900)
    sign_in(wide, srv.url)
    pick(wide, "en_table", TBL)
    # the table's chairs (from the draw), whatever state the match is in
    wide.get_by_text("Ani", exact=False).first.wait_for()
    wait_idle(wide)
    wide.screenshot(path=str(ARTIFACTS / "entry-1366x900.png"))
    for width, height in ((390, 844), (1366, 900)):
        page = new_page(width, height)
        page.goto(f"{srv.url}/bracket?event={EV}")
        page.get_by_role("heading", name="Babak R1").wait_for()
        page.locator(".table-card table").first.wait_for()
        wait_idle(page)
        for table in page.locator(".table-card").all():
            box = table.bounding_box()
            assert box is not None and box["x"] + box["width"] <= width + 0.5, box
        page.screenshot(path=str(ARTIFACTS / f"bracket-{width}x{height}.png"))
