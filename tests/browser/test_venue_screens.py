"""What only a browser shows (issue 13, 16-20): the big screen fits every row to the
projector's height, the leaderboard and the upload preview are usable on a phone, and a
correction's reason box stands by its confirm button. Screenshots go to tests/artifacts/.
"""

import re

import pytest

from pipeline.demo import load_samples
from tests.browser.support import (
    ARTIFACTS,
    PEPET,
    ROOT,
    UNHAS,
    add_coordinator,
    build_samples,
    dashboard,
)
from tests.browser.test_dashboard_e2e import REFRESH, confirm_button, sign_in, upload, wait_idle

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("venue")
    db = tmp / "samples.duckdb"
    build_samples(db)
    add_coordinator(db, "rina", [], role="admin")  # her corrections apply at once
    with dashboard(db, tmp, refresh=REFRESH, bigscreen=3) as srv:
        yield srv, tmp


def _slide(page, sub: str, rows: int) -> float:
    """Wait until the big-screen slide titled ``sub`` shows ``rows`` rows; the bottom edge
    of its lowest row (header included), measured in that same frame."""
    handle = page.wait_for_function(
        """([sub, rows]) => {
            const head = document.querySelector('.big-sub');
            const body = document.querySelectorAll('table.big tbody tr');
            if (!head || !head.textContent.includes(sub) || body.length !== rows) return null;
            const all = Array.from(document.querySelectorAll('table.big tr'));
            return Math.max(...all.map((r) => r.getBoundingClientRect().bottom));
        }""",
        arg=[sub, rows],
        timeout=60_000,
    )
    return float(handle.json_value())


@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1366, 900)])
def test_bigscreen_shows_every_row_of_a_12_player_session_and_the_event_top_10(
    server, new_page, width, height
):
    srv, _ = server
    page = new_page(width, height)
    page.goto(f"{srv.url}/?big=true&event={PEPET}&round=S2")
    # slides follow the clock: wait (on a condition) for each slide with its rows, and
    # measure it in the same frame, so a slide changing meanwhile cannot fool the test
    bottom = _slide(page, "Klasemen sesi", 12)
    page.screenshot(path=str(ARTIFACTS / f"venue-big-session-{width}x{height}.png"))
    assert bottom <= height, f"a row is below the screen: {bottom} > {height}"
    assert _slide(page, "Klasemen acara", 10) <= height
    page.screenshot(path=str(ARTIFACTS / f"venue-big-event-{width}x{height}.png"))


def test_on_a_phone_every_leaderboard_tab_can_be_tapped_and_the_tables_come_early(server, new_page):
    srv, _ = server
    page = new_page(390, 844)
    page.goto(f"{srv.url}/?event={PEPET}&round=S2")
    page.get_by_text("Meja 1", exact=True).first.wait_for()
    wait_idle(page)
    from playwright.sync_api import expect

    tabs = page.get_by_role("tab")
    expect(tabs).to_have_count(4)  # waits: a rerun may be drawing the page again
    # every tab inside the phone's width, and the tab bar in the first 40% of the screen
    # (title and controls are compact), measured in one frame. The live refresh reruns
    # the page on its own clock, and while a rerun draws, the elements of the run before
    # stay on screen below the new ones: wait for a frame where the page stands alone.
    layout = """() => {
        const tabs = Array.from(document.querySelectorAll('[role="tab"]'))
            .filter((t) => t.offsetParent !== null)
            .map((t) => t.getBoundingClientRect());
        const stale = document.querySelector('[data-stale="true"]');
        return {n: tabs.length, stale: stale !== null,
                left: Math.min(...tabs.map((b) => b.left)),
                right: Math.max(...tabs.map((b) => b.right)),
                top: tabs.length ? tabs[0].top : null};
    }"""
    fits = f"""() => {{
        const m = ({layout})();
        return !m.stale && m.n === 4 && m.left >= 0 && m.right <= 390 && m.top < {0.4 * 844};
    }}"""
    try:
        page.wait_for_function(fits, timeout=30_000)
    except Exception as exc:  # say what the page looked like, not only that it timed out
        page.screenshot(path=str(ARTIFACTS / "venue-leaderboard-390x844-failed.png"))
        raise AssertionError(
            f"the phone leaderboard's tabs never fit: {page.evaluate(layout)}"
        ) from exc
    page.screenshot(path=str(ARTIFACTS / "venue-leaderboard-390x844.png"))
    tabs.nth(3).click()  # groups: a plain table, no grid toolbar over the tab bar
    page.get_by_role("tab", name=re.compile("Kelompok"), selected=True).wait_for()
    wait_idle(page)
    panel = page.locator('[role="tabpanel"]:visible')
    # wait for the tab's table itself (the panel renders after the tab is selected)
    panel.locator("table.plain-table:visible").first.wait_for()
    assert panel.locator('[data-testid="stDataFrame"]').count() == 0
    tabs.nth(2).click()  # event standings: every column reachable (a plain table)
    page.get_by_role("tab", name=re.compile("Klasemen acara"), selected=True).wait_for()
    wait_idle(page)
    panel.locator("table.plain-table:visible").first.wait_for()
    assert panel.locator('[data-testid="stDataFrame"]').count() == 0


def _correction(tmp) -> object:
    from tests.browser.support import sample_file

    src = sample_file("unhas", "unhas-2024-e1_R1_meja3.csv").read_bytes().decode("utf-8-sig")
    lines = src.splitlines()
    header = lines[0].split(";")
    row = lines[2].split(";")
    by = header.index("oleh")
    row[by] = "B" if row[by] != "B" else "C"
    fixed = tmp / "unhas-2024-e1_R1_meja3.csv"
    fixed.write_text(
        "\n".join([lines[0], lines[1], ";".join(row), *lines[3:]]) + "\n", encoding="utf-8"
    )
    return fixed


@pytest.mark.parametrize(("width", "height"), [(1366, 900), (390, 844)])
def test_a_correction_has_its_reason_box_by_the_button_and_readable_problems(
    server, new_page, width, height
):
    srv, tmp = server
    page = new_page(width, height)
    sign_in(page, srv.url, "rina")
    # Streamlit's own English uploader words are hidden; the page says them in Indonesian
    wait_idle(page)
    assert not page.get_by_text("Drag and drop", exact=False).is_visible()
    assert not page.get_by_text("per file", exact=False).is_visible()
    page.get_by_text("paling besar", exact=False).wait_for()
    button = page.locator('[data-testid="stFileUploaderDropzone"] button').first
    assert button.evaluate("b => getComputedStyle(b, '::after').content") == '"Pilih berkas"'
    english = button.evaluate(
        "b => [...b.querySelectorAll('*')].filter(e => e.children.length === 0"
        " && e.textContent.trim() === 'Upload').map(e => getComputedStyle(e).fontSize)"
    )
    assert english and all(size == "0px" for size in english), english
    page.screenshot(path=str(ARTIFACTS / f"venue-uploader-{width}x{height}.png"))
    upload(page, _correction(tmp))
    page.get_by_text("Perbedaan dengan versi yang dimuat").wait_for()
    assert page.get_by_text("--reason").count() == 0
    warning = page.get_by_text("Tulis alasannya", exact=False).first.bounding_box()
    reason = page.get_by_role("textbox", name="Alasan koreksi").bounding_box()
    button = confirm_button(page).bounding_box()
    assert warning and reason and button
    assert warning["y"] < reason["y"] < button["y"] and button["y"] - reason["y"] < 250
    # each player's points before → after
    assert page.get_by_text(re.compile(r"^-?\d+ → -?\d+")).count() >= 3
    page.screenshot(path=str(ARTIFACTS / f"venue-correction-{width}x{height}.png"), full_page=True)


def test_on_a_phone_a_problem_message_is_not_a_word_per_line(server, new_page):
    srv, tmp = server
    from tests.browser.support import sample_file

    src = sample_file("unhas", "unhas-2024-e1_R1_meja3.csv").read_bytes().decode("utf-8-sig")
    lines = src.splitlines()
    header = lines[0].split(";")
    row = lines[4].split(";")
    row[header.index("akhir")] = "menang"
    row[header.index("meja")] = "77"
    bad = tmp / "meja77.csv"
    bad.write_text(lines[0] + "\n" + ";".join(row) + "\n", encoding="utf-8")
    page = new_page(390, 844)
    sign_in(page, srv.url, "rina")
    upload(page, bad)
    cell = page.locator(".st-key-up_problems_box tbody tr td:nth-child(3)").first
    cell.wait_for()
    box = cell.bounding_box()
    assert box is not None and box["width"] >= 200, box
    # the whole sentence is on the screen: no end of it pushed off to the right, no
    # table to swipe sideways; each short cell says what it is
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    wrap = page.locator(".st-key-up_problems_box .plain-table-wrap").first
    assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth"), "the problem list scrolls sideways"
    label = page.locator(".st-key-up_problems_box tbody tr td:nth-child(1)").first.evaluate(
        "td => getComputedStyle(td, '::before').content"
    )
    assert label == '"Baris "', label
    page.locator(".st-key-up_problems_box").screenshot(
        path=str(ARTIFACTS / "venue-problems-390x844.png")
    )
    # wide, it is a table with its header row, the sentence in a column of its own
    wide = new_page(1366, 900)
    sign_in(wide, srv.url, "rina")
    upload(wide, bad)
    head = wide.locator(".st-key-up_problems_box thead").first
    head.wait_for()
    wide.locator(".st-key-up_problems_box").screenshot(
        path=str(ARTIFACTS / "venue-problems-1366x900.png")
    )
    sentence = wide.locator(".st-key-up_problems_box tbody tr td:nth-child(3)").first
    assert (sentence.bounding_box() or {}).get("width", 0) >= 256  # 16rem
    assert wide.locator(".st-key-up_problems_box tbody tr td:nth-child(1)").first.evaluate(
        "td => getComputedStyle(td, '::before').content"
    ) in ("none", "normal")
    assert UNHAS  # the sample event the file belongs to


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory):
    """The bundled sample events (data/samples, what ``make demo`` loads): their players
    have the long names of a real venue's sheets."""
    tmp = tmp_path_factory.mktemp("venue_demo")
    db = tmp / "demo.duckdb"
    load_samples(db, ROOT / "data" / "samples")
    with dashboard(db, tmp, refresh=REFRESH) as srv:
        yield srv


def test_the_road_to_the_final_fits_three_tables_a_row_beside_the_sidebar(demo_server, new_page):
    """A round's tables stand three a row on a laptop's 1366 px beside the sidebar; a
    table that played a tie-break has a column more, and its card must still hold it
    without scrolling sideways (it did not: the arrow's column was cut at the card's edge)."""
    page = new_page(1366, 900)
    page.goto(f"{demo_server.url}/bracket")
    page.locator(".table-card th", has_text="TB").first.wait_for(timeout=60_000)
    wait_idle(page)
    wide = page.evaluate(
        "() => [...document.querySelectorAll('.table-card')]"
        ".filter(c => c.scrollWidth > c.clientWidth)"
        ".map(c => c.querySelector('.table-card-title').textContent)"
    )
    page.screenshot(path=str(ARTIFACTS / "venue-bracket-1366x900.png"))
    assert wide == [], f"these tables scroll sideways in their cards: {wide}"
