"""Pickers in Chromium that list fewer than are loaded: the leaderboard's events
(``picker_events``) and the player page's players (``picker_players``). Typing part of an
unlisted one's name and pressing Enter opens it."""

import polars as pl
import pytest

from dashboard import batches
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


def test_a_player_the_picker_does_not_list_opens_by_typing_part_of_their_name(
    tmp_path, new_page, monkeypatch
):
    db = tmp_path / "domino.duckdb"
    build_samples(db)
    with connect(db, read_only=True) as con:
        people = batches.player_list(con)
    listed = people.sort(["hands", "player_key"], descending=[True, False]).head(2)
    other = people.filter(~pl.col("player_key").is_in(listed.get_column("player_key").implode()))
    # a name unlike any other player's, and part of it in another case
    name = next(
        n
        for n in other.get_column("player")
        if people.filter(pl.col("player").str.contains(n.split()[-1])).height == 1
    )
    typed = name.split()[-1].upper()
    monkeypatch.setenv("DOMINO_PICKER_PLAYERS", "2")
    with dashboard(db, tmp_path) as srv:
        page = new_page()
        page.goto(f"{srv.url}/player")
        page.get_by_role("heading", name="Riwayat rating").wait_for()
        page.locator('[data-testid="stSelectbox"]').first.click()
        assert sorted(page.get_by_role("option").all_inner_texts()) == sorted(
            listed.get_column("player")
        )
        page.keyboard.type(typed)
        page.keyboard.press("Enter")
        page.get_by_role("heading", name=name, exact=True).wait_for()
        page.wait_for_function(
            "n => new URLSearchParams(location.search).get('player') === n", arg=name
        )
        box = page.locator('[data-testid="stSelectbox"]').first
        assert box.locator("input").input_value() == name
