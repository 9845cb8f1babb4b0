"""The browser benchmark (``bench/browser.py``) runs in the suite, once per figure, on the
sample events, so it cannot rot: every page, switch and save it times still shows. Nothing
here is timed."""

import pytest

from bench.browser import browser_timings
from tests.browser.support import build_samples

FIGURES = {
    "page_leaderboard",
    "page_player",
    "page_stats",
    "page_upload",
    "page_leaderboard_returning",
    "page_player_returning",
    "page_stats_returning",
    "page_upload_returning",
    "switch_page",
    "switch_tab",
    "switch_event",
    "switch_event_enter",
    "switch_round",
    "save_to_visible",
    "save_to_visible_from_ingest_start",
}

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_every_figure_of_the_browser_bench_is_measured(tmp_path, browser):
    db = tmp_path / "samples.duckdb"
    build_samples(db, only="unhas")
    work = tmp_path / "work"
    work.mkdir()
    res = browser_timings(db, repeats=1, work=work, browser=browser)
    assert set(res) == FIGURES, res
    for name, figure in res.items():
        assert figure["n"] >= 1 and figure["median_s"] > 0, (name, figure)
    # the event switch's answer to Enter is a part of the whole switch
    assert res["switch_event_enter"]["median_s"] < res["switch_event"]["median_s"]
