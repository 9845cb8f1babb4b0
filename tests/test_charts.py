"""The dashboard's charts, drawn on the server as HTML and SVG (dashboard/charts.py): what
they draw, in which order, where, with which ticks, legends and tooltips, and that
nothing from the data can act in the page. Expected positions are worked out by hand."""

import re
from datetime import date

import polars as pl
import pytest

from dashboard import charts, i18n
from tests.chart_marks import Drawn, read


def one(html: str) -> Drawn:
    drawn = read(html)
    assert len(drawn) == 1
    return drawn[0]


def style(mark: dict, prop: str) -> float:
    """A percentage of a mark's inline style (``left:12.50%`` -> 12.5)."""
    m = re.search(rf"(?:^|;){prop}:(-?[\d.]+)%", mark["style"])
    assert m, (prop, mark["style"])
    return float(m.group(1))


def test_horizontal_bars_keep_the_frames_order_top_first_with_their_values_written():
    df = pl.DataFrame({"category": ["biasa", "balak", "kartu mati"], "hands": [12, 7, 1]})
    d = one(charts.hbar_chart(df, "category", "hands", labels={"hands": "Kocokan"}))
    assert d.kind == "dc-hbar"
    assert d.rows() == [("biasa", 12), ("balak", 7), ("kartu mati", 1)]
    assert d.written == ["12", "7", "1"]
    # all positive: bars start at 0 on the left; 18% kept on the right for the values,
    # so 12 spans 82% of the track, 7 is 7/12 of that and 1 is 1/12
    lefts = [style(m, "left") for m in d.marks]
    widths = [style(m, "width") for m in d.marks]
    assert lefts == [0, 0, 0]
    assert widths == pytest.approx([82.0, 82 * 7 / 12, 82 / 12], abs=0.01)
    # each bar names itself on hover; one colour, no legend
    assert d.titles == ["biasa\nKocokan: 12", "balak\nKocokan: 7", "kartu mati\nKocokan: 1"]
    assert d.legend == []


def test_a_negative_bar_reaches_left_of_zero_with_its_value_written_on_its_left():
    df = pl.DataFrame({"group": ["KG Satu", "KG Dua"], "points": [30, -10]})
    html = charts.hbar_chart(df, "group", "points")
    d = one(html)
    # room of 18% on both sides; the 40 points between -10 and 30 span the 64% between:
    # zero at 18 + 64 * 10/40 = 34%
    assert html.count('class="dc-z" style="left:34.00%') == 2
    up, down = d.marks
    assert (style(up, "left"), style(up, "width")) == (34.0, 48.0)
    assert (style(down, "left"), style(down, "width")) == (18.0, 16.0)
    # 30's value just after its end, -10's just before its start
    assert "left:calc(82.00% + 4px)" in html and "right:calc(82.00% + 4px)" in html


def test_bars_of_two_rulesets_share_a_row_with_a_legend_below():
    df = pl.DataFrame(
        {
            "category": ["biasa", "biasa", "balak"],
            "hands": [4, 2, 1],
            "ruleset": ["unhas", "pepet", "unhas"],
        }
    )
    d = one(charts.hbar_chart(df, "category", "hands", color="ruleset"))
    assert [(m["data-x"], m["data-s"], m["data-y"]) for m in d.marks] == [
        ("biasa", "unhas", "4"),
        ("biasa", "pepet", "2"),
        ("balak", "unhas", "1"),
    ]
    # each ruleset keeps its place in a row (the top half, the bottom half) and colour
    tops = [style(m, "top") for m in d.marks]
    assert tops == [6.0, 56.0, 6.0]
    colours = [m["style"].rsplit("background:", 1)[1] for m in d.marks]
    assert colours == [charts.PALETTE[0], charts.PALETTE[1], charts.PALETTE[0]]
    assert {"unhas", "pepet"} <= set(d.legend)
    assert d.titles[0].endswith("unhas: Kocokan: 4\npepet: Kocokan: 2")
    # a single ruleset draws no legend
    alone = one(
        charts.hbar_chart(
            df.filter(pl.col("ruleset") == "unhas"), "category", "hands", color="ruleset"
        )
    )
    assert alone.legend == []


def test_a_histogram_of_whole_numbers_bins_by_round_whole_steps():
    df = pl.DataFrame({"points": [-5, 0, 3, 3, 12, 20]})
    d = one(charts.histogram_chart(df, "points", count_title="Pemain", bins=20))
    # 25 points wide in at most 20 bins: a step of 2 (1.25 rounded up to 1, 2, 5 x 10^k),
    # from -6: 14 bins, -5 in the first, 0 in the fourth, both 3s in the fifth
    assert len(d.marks) == 14
    counts = {m["data-x"]: int(m["data-y"]) for m in d.marks}
    assert {k: v for k, v in counts.items() if v} == {"-6": 1, "0": 1, "2": 2, "12": 1, "20": 1}
    assert sum(counts.values()) == df.height
    # a bin of whole numbers names both its ends
    assert "Poin: 2–3\nPemain: 2" in d.titles
    # a measure that is not a count bins in steps of its own
    frac = one(charts.histogram_chart(pl.DataFrame({"v": [0.1, 0.25, 0.4]}), "v", count_title="n"))
    assert [m["data-x"] for m in frac.marks] == [
        "0.1",
        "0.12",
        "0.14",
        "0.16",
        "0.18",
        "0.2",
        "0.22",
        "0.24",
        "0.26",
        "0.28",
        "0.3",
        "0.32",
        "0.34",
        "0.36",
        "0.38",
        "0.4",
    ]


def test_a_stacked_histogram_keeps_each_colour_in_its_bin_and_names_the_total():
    df = pl.DataFrame({"v": [1, 1, 2, 2, 2], "c": ["a", "b", "a", "a", "b"]})
    d = one(charts.histogram_chart(df, "v", count_title="Kursi", color="c"))
    assert [(m["data-x"], m["data-s"], m["data-y"]) for m in d.marks] == [
        ("1", "a", "1"),
        ("1", "b", "1"),
        ("2", "a", "2"),
        ("2", "b", "1"),
    ]
    # the second part stands on the first: axis 0 to 3 (whole ticks), a count of 1 a third
    first, second = d.marks[2:]
    assert (style(first, "bottom"), style(first, "height")) == pytest.approx((0, 66.67), abs=0.01)
    assert style(second, "bottom") == pytest.approx(66.67, abs=0.01)
    assert "v: 2\nKursi: 3\na: 2\nb: 1" in d.titles
    assert {"a", "b"} <= set(d.legend)


def test_a_line_carries_its_tooltip_on_points_hidden_when_there_are_many(monkeypatch):
    df = pl.DataFrame(
        {
            "n": [1, 2, 3],
            "ordinal": [10.5, 11.25, 9.0],
            "ruleset": ["unhas"] * 3,
            "played_on": [date(2026, 11, 1), date(2026, 11, 8), date(2026, 11, 15)],
        }
    )
    html = charts.line_chart(
        df, "n", "ordinal", tooltip=["played_on"], color="ruleset", points=False
    )
    d = one(html)
    assert d.kind == "dc-line" and d.lines == 1
    assert d.rows() == [(1, 10.5), (2, 11.25), (3, 9)]
    assert all("dc-hide" in m["class"] for m in d.marks)  # there to hover, not drawn
    # the reader's decimal mark (Indonesian by default: a comma); the data keeps its point
    assert d.titles[0] == "played_on: 2026-11-01\nordinal: 10,5"
    # whole ticks for a table's number (1 2 3, never 1.5); the value axis need not start at
    # 0: 9 to 11.25 in steps of 0.5 (2.25 / 5 = 0.45, nearest round step)
    assert re.findall(r'<span style="left:[\d.]+%">([^<]+)</span>', html) == ["1", "2", "3"]
    assert "11,5</span>" in html and ">9</span>" in html and ">0</span>" not in html
    monkeypatch.setattr(i18n, "language", lambda: "en")
    html = charts.line_chart(
        df, "n", "ordinal", tooltip=["played_on"], color="ruleset", points=False
    )
    assert one(html).titles[0] == "played_on: 2026-11-01\nordinal: 10.5"
    assert "11.5</span>" in html and "11,5" not in html
    # one ruleset: no legend
    assert d.legend == []


def test_a_long_line_keeps_a_few_hundred_points_to_hover_each_parts_last_among_them():
    n = 1000
    df = pl.DataFrame(
        {
            "n": range(1, n + 1),
            "total": [i % 37 for i in range(n)],
            "event": ["a"] * 600 + ["b"] * 400,
        }
    )
    d = one(charts.line_chart(df, "n", "total", tooltip=["event"], detail="event", points=False))
    assert d.lines == 2  # broken between events, in one colour
    xs = [m["data-x"] for m in d.marks]
    assert 200 <= len(xs) <= 242 and {"1", "600", "1000"} <= set(xs)
    assert {m["data-s"] for m in d.marks} == {""}


def test_two_rulesets_draw_two_coloured_lines_with_a_legend():
    df = pl.DataFrame(
        {
            "n": [1, 2, 1, 2],
            "ordinal": [1.0, 2.0, 0.5, -1.0],
            "ruleset": ["unhas"] * 2 + ["pepet"] * 2,
        }
    )
    d = one(charts.line_chart(df, "n", "ordinal", tooltip=[], color="ruleset"))
    assert d.lines == 2 and {"unhas", "pepet"} <= set(d.legend)
    assert [m["data-s"] for m in d.marks] == ["unhas", "unhas", "pepet", "pepet"]
    assert d.titles[2] == "Aturan: pepet\nordinal: 0,5"  # the column's header, translated


def test_an_upright_bars_value_is_written_beyond_its_end_on_the_side_it_points_to():
    df = pl.DataFrame({"chair": ["B", "D"], "points_per_hand": [-1.33, 0.75]})
    html = charts.bars_chart(df, "chair", "points_per_hand", text=True)
    d = one(html)
    assert d.rows(number=False) == [("B", "-1.33"), ("D", "0.75")]
    assert d.written == ["-1,33", "0,75"]  # as an Indonesian page writes them
    # ticks of 0.5 from -1.5 to 1 (2.5 / 5), and 12% more room each way for the values:
    # -1.8 to 1.3; zero at 1.8 / 3.1 of the height from the bottom
    zero = 1.8 / 3.1 * 100
    b, dd = d.marks
    assert style(b, "bottom") == pytest.approx((1.8 - 1.33) / 3.1 * 100, abs=0.01)
    assert style(dd, "bottom") == pytest.approx(zero, abs=0.01)
    # a positive bar's value just above its top, a negative one's just below its bottom
    top_of_d = (1.8 + 0.75) / 3.1 * 100
    assert f"bottom:calc({top_of_d:.2f}% + 2px)" in html
    assert f"top:calc({100 - (1.8 - 1.33) / 3.1 * 100:.2f}% + 2px)" in html


def test_nothing_from_the_data_acts_in_the_page():
    hostile = '<img src=x onerror="alert(1)"> **bold** :smile: $x$ [a](b) _i_'
    df = pl.DataFrame({"name": [hostile], "n": [1], "who": [hostile]})
    for html in (
        charts.hbar_chart(df, "name", "n", color="who"),
        charts.bars_chart(df, "name", "n", text=True),
        charts.line_chart(df, "n", "n", tooltip=["name"], color="who"),
        charts.histogram_chart(df, "n", count_title=hostile, color="who"),
    ):
        body = html.removeprefix(charts.CSS)
        assert "<img" not in body and "&lt;img" in body
        for ch in "*_$[:`~":
            assert ch not in re.sub(r'(style|class)="[^"]*"', "", body).replace("http", ""), ch
        # one line: a blank line would end Markdown's HTML block
        assert "\n" not in html
        # and the browser shows the text as it was
        d = one(html)
        assert any(hostile in t for t in d.titles)


def test_an_empty_frame_draws_nothing():
    empty = pl.DataFrame({"v": []}, schema={"v": pl.Int64})
    assert charts.histogram_chart(empty, "v", count_title="n") == ""
    assert charts.line_chart(empty.with_columns(w=pl.col("v")), "v", "w", tooltip=[]) == ""


def test_a_tap_or_a_key_shows_a_marks_tooltip_anchored_inside_the_chart():
    """A phone has no hover: each mark with a tooltip can take focus (a tap, a key), and
    the page's CSS shows its aria-label above it, anchored to the chart's side near an
    edge so that it is not cut off by the screen."""
    df = pl.DataFrame({"points": list(range(8)), "seats": [3, 1, 4, 1, 5, 9, 2, 6]})
    d = one(charts.bars_chart(df, "points", "seats"))
    assert all(t["tabindex"] == "0" for t in d.tips) and len(d.tips) == 8
    sides = [t["class"].split()[-1] for t in d.tips]
    # columns at 6.25, 18.75 % (left), 31.25 … 68.75 % (centred), 81.25, 93.75 % (right)
    assert sides == ["dc-tl", "dc-tl", "dc-tip", "dc-tip", "dc-tip", "dc-tip", "dc-tr", "dc-tr"]
    assert ".dc-tip:focus::after" in charts.CSS and "content:attr(aria-label)" in charts.CSS
    # points only there to hover are not painted, but keep their tooltips
    line = pl.DataFrame({"n": [1, 2, 3], "v": [1.0, 2.0, 3.0]})
    hidden = one(charts.line_chart(line, "n", "v", tooltip=[], points=False))
    assert all("background" not in m["style"] for m in hidden.marks)
    assert len(hidden.tips) == 3
    # a chart of many marks keeps them out of the Tab order (a tap still focuses them)
    many = one(charts.bars_chart(pl.DataFrame({"p": range(30), "n": range(30)}), "p", "n"))
    assert {t["tabindex"] for t in many.tips} == {"-1"}
