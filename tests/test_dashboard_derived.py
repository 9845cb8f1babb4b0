"""What the dashboard makes from a cached batch value is made once per value and
language (``data.derived``), and the leaderboard's zone colours are one stylesheet."""

import polars as pl

from dashboard import data
from dashboard.views.leaderboard import ZONE_PAINT, zone_css


def test_derived_is_built_once_per_value_and_extra():
    data.clear()
    calls: list[str] = []
    value = {"rows": pl.DataFrame({"a": [1, 2]})}

    def build(tag: str):
        def make():
            calls.append(tag)
            return f"figure-{tag}"

        return make

    assert data.derived(value, "chart", build("id"), "id") == "figure-id"
    assert data.derived(value, "chart", build("id"), "id") == "figure-id"
    assert calls == ["id"], "a second session reuses the first one's figure"
    assert data.derived(value, "chart", build("en"), "en") == "figure-en"
    assert calls == ["id", "en"], "another language is another figure"
    newer = {"rows": pl.DataFrame({"a": [1, 2, 3]})}  # what a new stamp reads
    data.derived(newer, "chart", build("new"), "id")
    assert calls == ["id", "en", "new"], "a new data value is never served the old figure"
    data.clear()
    data.derived(value, "chart", build("after-clear"), "id")
    assert calls[-1] == "after-clear"


def test_zone_css_paints_rows_by_their_mark():
    css = zone_css([["Lolos", "Zona", "", ""], ["⚖ tie-break", "= seri", ""]])
    assert (
        f".st-key-lb_card_0 tbody tr:nth-child(1) td {{background-color: {ZONE_PAINT['zone']};}}"
        in css
    )
    assert ".st-key-lb_card_0 tbody tr:nth-child(2) td" in css
    assert ".st-key-lb_card_0 tbody tr:nth-child(3)" not in css
    assert (
        f".st-key-lb_card_1 tbody tr:nth-child(1) td {{background-color: {ZONE_PAINT['tie']};}}"
        in css
    )
    assert ".st-key-lb_card_1 tbody tr:nth-child(2)" not in css, (
        "a tie while playing is not painted"
    )
    assert css.count("background-color") == 3
    assert zone_css([["", ""], []]) == ""
