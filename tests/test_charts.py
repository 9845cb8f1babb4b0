"""The dashboard's charts as Vega-Lite specs (dashboard/charts.py): what they draw, in
which order, with which axes and legends. Altair checks each spec against Vega-Lite's
schema when it is built, so a spec these tests get is a valid one."""

import json
from datetime import date

import polars as pl

from dashboard import charts


def rows(spec: dict) -> list[dict]:
    return spec["datasets"][spec["data"]["name"]]


def test_horizontal_bars_keep_the_frames_order_top_first_with_whole_number_ticks():
    df = pl.DataFrame({"category": ["biasa", "balak", "kartu mati"], "hands": [12, 7, 1]})
    spec = charts.hbar_spec(df, "category", "hands", labels={"hands": "Kocokan"})
    bars, written = spec["layer"]
    assert bars["mark"]["type"] == "bar"
    ahead, behind = written["layer"]
    enc = bars["encoding"]
    # first row at the top, labels written in full
    assert enc["y"]["sort"] == ["biasa", "balak", "kartu mati"]
    assert enc["y"]["axis"]["labelLimit"] == 0
    # a count of hands has no ticks between whole numbers; each bar has its value
    assert enc["x"]["title"] == "Kocokan"
    assert enc["x"]["axis"] == {"format": "d", "tickMinStep": 1}
    assert ahead["encoding"]["text"]["field"] == "hands"
    assert (ahead["mark"]["align"], behind["mark"]["align"]) == ("left", "right")
    # one colour and no legend
    assert "color" not in enc
    assert [(r["category"], r["hands"]) for r in rows(spec)] == list(df.iter_rows())
    # one bar's room per row
    assert spec["height"] == {"step": 30}


def test_bars_of_two_rulesets_stand_side_by_side_with_a_legend_below():
    df = pl.DataFrame(
        {
            "category": ["biasa", "biasa", "balak"],
            "hands": [4, 2, 1],
            "ruleset": ["unhas", "pepet", "unhas"],
        }
    )
    spec = charts.hbar_spec(df, "category", "hands", color="ruleset")
    enc = spec["layer"][0]["encoding"]
    assert enc["color"]["field"] == "ruleset" and enc["yOffset"]["field"] == "ruleset"
    assert enc["color"]["legend"]["orient"] == "bottom"
    assert spec["height"] == {"step": 60}  # a row holds two bars
    # a single ruleset draws no legend
    one = charts.hbar_spec(
        df.filter(pl.col("ruleset") == "unhas"), "category", "hands", color="ruleset"
    )
    assert "color" not in one["layer"][0]["encoding"]


def test_a_histogram_of_whole_numbers_bins_by_whole_steps():
    df = pl.DataFrame({"points": [-5, 0, 3, 3, 12, 20]})
    spec = charts.histogram_spec(df, "points", count_title="Pemain", bins=20)
    enc = spec["encoding"]
    assert enc["x"]["bin"] == {"maxbins": 20, "minstep": 1}
    assert enc["y"]["aggregate"] == "count" and enc["y"]["title"] == "Pemain"
    assert enc["y"]["axis"]["format"] == "d"
    assert sorted(r["points"] for r in rows(spec)) == [-5, 0, 3, 3, 12, 20]
    # a measure that is not a count may fall between whole numbers
    frac = charts.histogram_spec(df.cast(pl.Float64), "points", count_title="n")
    assert "minstep" not in frac["encoding"]["x"]["bin"]


def test_a_line_carries_its_tooltip_on_points_hidden_when_there_are_many():
    df = pl.DataFrame(
        {
            "n": [1, 2, 3],
            "ordinal": [10.5, 11.25, 9.0],
            "ruleset": ["unhas"] * 3,
            "played_on": [date(2026, 11, 1), date(2026, 11, 8), date(2026, 11, 15)],
        }
    )
    spec = charts.line_spec(
        df, "n", "ordinal", tooltip=["played_on"], color="ruleset", points=False
    )
    line, dots = spec["layer"]
    assert line["mark"]["type"] == "line" and "tooltip" not in line.get("encoding", {})
    assert dots["mark"]["opacity"] == 0  # there to hover, not drawn
    assert [t["field"] for t in dots["encoding"]["tooltip"]] == ["played_on", "ordinal"]
    # a table's number: whole ticks, written whole (not 3.0)
    assert line["encoding"]["x"]["axis"]["tickMinStep"] == 1
    assert line["encoding"]["x"]["axis"]["format"] == "d"
    floats = charts.line_spec(df.with_columns(pl.col("n") * 0.5), "n", "ordinal", tooltip=[])
    assert "format" not in floats["layer"][0]["encoding"]["x"]["axis"]
    assert line["encoding"]["y"]["scale"] == {"zero": False}
    # one ruleset: one line, no legend
    assert "color" not in line["encoding"] and line["encoding"]["detail"]["field"] == "ruleset"
    # dates travel as text: the spec is plain JSON
    assert [r["played_on"] for r in rows(spec)] == ["2026-11-01", "2026-11-08", "2026-11-15"]
    json.dumps(spec)


def test_a_bars_value_is_written_beyond_its_end_on_the_side_it_points_to():
    df = pl.DataFrame({"chair": ["B", "D"], "points_per_hand": [-1.33, 0.75]})
    spec = charts.bars_spec(df, "chair", "points_per_hand", text=True)
    bars, written = spec["layer"]
    above, below = written["layer"]
    # a positive bar's value above its top, a negative one's below its bottom
    assert above["transform"] == [{"filter": "(datum['points_per_hand'] >= 0)"}]
    assert (above["mark"]["baseline"], above["mark"]["dy"]) == ("bottom", -3)
    assert below["transform"] == [{"filter": "(!(datum['points_per_hand'] >= 0))"}]
    assert (below["mark"]["baseline"], below["mark"]["dy"]) == ("top", 3)
    # points per hand are not whole numbers: the axis keeps two decimals at most
    assert bars["encoding"]["y"]["axis"] == {"format": ".2~f"}
