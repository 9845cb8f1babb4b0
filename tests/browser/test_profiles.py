"""Profiles and the cross-table in headless Chromium, opened from shared links (an
address with query parameters), at desktop (1366×900) and phone (390×844) width;
screenshots saved under tests/artifacts/ (profile-*.png, crosstable-*.png)."""

from urllib.parse import quote

import pytest

from bench.browser import CHART
from pipeline import events
from pipeline.store.db import connect
from tests.browser.support import PEPET, UNHAS, build_samples, dashboard
from tests.browser.test_dashboard_e2e import SIZES, shot, wait_idle

pytestmark = pytest.mark.browser

TITLE = "Turnamen Domino Dies Natalis LXIV"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("profiles")
    db = tmp / "domino.duckdb"
    build_samples(db)
    with connect(db) as con:  # an event named as organisers name theirs
        events.save(con, UNHAS, "unhas", title=TITLE)
    with connect(db, read_only=True) as con:
        best = con.execute(
            "SELECT player FROM ratings WHERE ruleset = 'unhas' ORDER BY ordinal DESC LIMIT 1"
        ).fetchall()[0][0]
    with dashboard(db, tmp) as srv:
        yield srv, best


def drawn(page) -> None:
    """Until the page's charts are in it (drawn on the server, they come whole), the whole
    page in view for its screenshot."""
    page.set_viewport_size({"width": page.viewport_size["width"], "height": 8000})
    page.locator(CHART).first.wait_for()


@pytest.mark.parametrize("size", list(SIZES))
def test_profile_opens_from_a_shared_link(server, new_page, size):
    srv, name = server
    page = new_page(*SIZES[size])
    page.goto(f"{srv.url}/player?player={quote(name)}&event={UNHAS}")
    page.get_by_role("heading", name="Riwayat rating").wait_for()
    page.get_by_role("heading", name=f"Hasil per babak: {TITLE}").wait_for()
    wait_idle(page)
    # the page is the player the link named, and the address still says so
    page.get_by_role("heading", name=name, exact=True).wait_for()
    assert page.evaluate("() => new URLSearchParams(location.search).get('player')") == name
    drawn(page)
    shot(page, "profile", size)


@pytest.mark.parametrize("size", list(SIZES))
def test_crosstable_opens_from_a_shared_link(server, new_page, size):
    srv, _ = server
    page = new_page(*SIZES[size])
    page.goto(f"{srv.url}/crosstable?event={PEPET}&after=S2")
    page.get_by_role("heading", name="Tabel silang").wait_for()
    grid = page.locator('[data-testid="stDataFrame"]')
    grid.first.wait_for()
    wait_idle(page)
    assert grid.count() == 2  # the cross-table and the standings after S2
    assert "after=S2" in page.url
    shot(page, "crosstable", size)


def test_leaderboard_names_link_to_their_profiles(server, new_page):
    srv, _ = server
    page = new_page(*SIZES["desktop"])
    page.goto(f"{srv.url}/?event={UNHAS}")
    link = page.locator('.table-card a[href*="player?player="]').first
    link.wait_for()
    name = link.inner_text()
    link.click()  # the player's page, in this tab
    page.get_by_role("heading", name=name).wait_for()
    page.get_by_role("heading", name=f"Hasil per babak: {TITLE}").wait_for()
    assert _event_in_address(page) in (UNHAS, TITLE)


def _event_in_address(page) -> str | None:
    return page.evaluate("() => new URLSearchParams(location.search).get('event')")


def _event_box(page):
    return page.locator('[data-testid="stSelectbox"]').nth(1)


def test_the_player_pages_event_picker_names_events_by_title_and_keeps_the_link(server, new_page):
    """A link names the event by its id; the picker shows its title, the page its rounds,
    and the address keeps the event through a reload and a pick of another."""
    srv, name = server
    page = new_page(*SIZES["desktop"])
    page.goto(f"{srv.url}/player?player={quote(name)}&event={UNHAS}")
    rounds = page.get_by_role("heading", name=f"Hasil per babak: {TITLE}")
    rounds.wait_for()
    wait_idle(page)
    assert _event_box(page).locator("input").input_value() == TITLE
    held = _event_in_address(page)
    assert held in (UNHAS, TITLE)
    page.reload()
    rounds.wait_for()
    wait_idle(page)
    assert _event_box(page).locator("input").input_value() == TITLE
    assert _event_in_address(page) == held
    # all events: the rounds go, and so does the event from the address
    _event_box(page).click()
    options = page.get_by_role("option")
    assert TITLE in options.all_inner_texts() and UNHAS not in options.all_inner_texts()
    options.filter(has_text="Semua acara").click()
    rounds.wait_for(state="detached")
    page.wait_for_function("() => !new URLSearchParams(location.search).has('event')")
    # and back, by title
    _event_box(page).click()
    page.get_by_role("option").filter(has_text=TITLE).click()
    rounds.wait_for()
    page.wait_for_function(
        "t => new URLSearchParams(location.search).get('event') === t", arg=TITLE
    )
    page.reload()
    rounds.wait_for()


def test_a_tap_on_a_charts_point_shows_what_it_stands_for_on_a_phone(server, new_page):
    """A phone has no hover: a tap focuses a chart's mark, and its tooltip (the mark's
    aria-label, drawn by the chart's CSS) shows inside the screen, over the other marks."""
    srv, name = server
    page = new_page(*SIZES["phone"])
    page.goto(f"{srv.url}/player?player={quote(name)}&event={UNHAS}")
    drawn(page)
    for dot in (page.locator(".dc-dot").first, page.locator(".dc-dot").last):
        dot.click()
        assert dot.evaluate("e => e === document.activeElement")
        label = dot.get_attribute("aria-label")
        assert label and "Rating" in label
        tip = dot.evaluate(
            "e => { const s = getComputedStyle(e, '::after'); const r = e.getBoundingClientRect();"
            " return {content: s.content, width: parseFloat(s.width), left: r.left,"
            " right: r.right, z: getComputedStyle(e).zIndex}; }"
        )
        # CSS gives the text back quoted, its line breaks escaped
        assert label.splitlines()[0] in tip["content"], tip
        assert tip["z"] == "30", tip  # above the other points
        # anchored to the chart's side near an edge: within the screen's 390 pixels
        width = page.viewport_size["width"]
        if "dc-tl" in (dot.get_attribute("class") or ""):
            assert tip["left"] + tip["width"] <= width, tip
        if "dc-tr" in (dot.get_attribute("class") or ""):
            assert tip["right"] - tip["width"] >= 0, tip
