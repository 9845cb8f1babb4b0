"""The leaderboard's event picker in Chromium when it lists fewer events than are loaded
(``picker_events``): typing part of an unlisted event's name and pressing Enter opens it."""

import pytest

from pipeline import events
from pipeline.standings import queries
from pipeline.store.db import connect
from tests.browser.support import build_samples, dashboard

pytestmark = pytest.mark.browser


def test_an_event_the_picker_does_not_list_opens_by_typing_part_of_its_name(
    tmp_path, new_page, monkeypatch
):
    db = tmp_path / "domino.duckdb"
    build_samples(db)
    with connect(db, read_only=True) as con:
        newest, older = queries.events(con).get_column("event").to_list()
        titles = events.titles(con)
    typed = older.split("-")[0].upper()  # part of its id, in another case
    assert typed.lower() not in newest.lower() and typed.lower() not in titles[newest].lower()
    monkeypatch.setenv("DOMINO_PICKER_EVENTS", "1")
    with dashboard(db, tmp_path) as srv:
        page = new_page()
        page.goto(srv.url)
        page.get_by_role("heading", name=titles[newest]).wait_for()
        page.locator('[data-testid="stSelectbox"]').first.click()
        assert page.get_by_role("option").all_inner_texts() == [titles[newest]]
        page.keyboard.type(typed)
        page.keyboard.press("Enter")
        page.get_by_role("heading", name=titles[older]).wait_for()
        page.locator(".table-card table").first.wait_for()
        page.wait_for_function(
            "e => new URLSearchParams(location.search).get('event') === e", arg=older
        )
        box = page.locator('[data-testid="stSelectbox"]').first
        assert box.locator("input").input_value() == titles[older]
        # text that names no event: the page says so and shows the newest with results
        box.click()
        page.keyboard.type("zzz")
        page.keyboard.press("Enter")
        page.get_by_text("Tidak ada acara yang cocok dengan “zzz”").wait_for()
