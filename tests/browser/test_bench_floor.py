"""The benchmark's framework floor (``bench/floor.py``) runs in the suite, once per page,
so it cannot rot. Nothing here is timed."""

from bench.floor import MARKERS, floor_timings


def test_the_floor_pages_all_show_for_new_and_returning_visitors(browser):
    res = floor_timings(repeats=1, browser=browser)
    assert "floor_error" not in res, res
    for what in MARKERS:
        for visitor in ("new", "returning"):
            figure = res[f"{what}_{visitor}"]
            assert isinstance(figure, dict) and figure["n"] == 1, (what, visitor, figure)
