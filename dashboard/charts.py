"""Charts in Streamlit's own Vega-Lite (``st.vega_lite_chart``), laid out to read on a
phone: horizontal bars with their labels written across (never rotated or cut), heights
from the number of bars, legends below, a tooltip on every bar and point.

Each chart is a Vega-Lite spec built with Altair (which checks it against the schema)
once per value :func:`dashboard.data.read` returned and language (:func:`draw`), then
shared by every session. Vega-Lite instead of plotly: a page with charts shows 0.7 to 1 s
sooner in the browser (docs/performance.md, 2 December, afternoon)."""

from collections.abc import Callable, Iterable
from typing import Any

import altair as alt
import polars as pl
import streamlit as st

from dashboard import data, i18n

Spec = dict[str, Any]
_ROW_PX = 30  # height per bar of a horizontal bar chart: a label's line and some air


def draw(key: str, build: Callable[[], Spec], source: Any = None) -> None:
    """The chart ``key``, across the page's width. Its spec is ``build()``, made once per
    value :func:`dashboard.data.read` returned (``source``) and language, and shared by
    every session (:func:`dashboard.data.derived`): checking a spec against Vega-Lite's
    schema takes tens of milliseconds. Without ``source``, built each time."""
    spec = build() if source is None else data.derived(source, key, build, i18n.language())
    st.vega_lite_chart(spec, key=key, width="stretch")


def hbar(
    df: pl.DataFrame,
    label: str,
    value: str,
    *,
    key: str,
    labels: dict[str, str] | None = None,
    color: str | None = None,
    source: Any = None,
) -> None:
    """One horizontal bar per row of ``df`` (in its order, first at the top), its value
    written at its end; with ``color``, one bar per colour side by side."""
    if df.height == 0:
        return
    draw(key, lambda: hbar_spec(df, label, value, labels=labels, color=color), source)


def hbar_spec(
    df: pl.DataFrame,
    label: str,
    value: str,
    *,
    labels: dict[str, str] | None = None,
    color: str | None = None,
) -> Spec:
    title = _titles(labels)
    order = df.get_column(label).unique(maintain_order=True).to_list()
    colours = df.get_column(color).n_unique() if color else 1
    shown = [label, value] + ([color] if color else [])
    enc: dict[str, Any] = {
        "y": alt.Y(f"{label}:N", sort=order, title=None, axis=alt.Axis(labelLimit=0)),
        "x": alt.X(f"{value}:Q", title=title(value), axis=_axis(df, value)),
        "tooltip": _tooltip(df, shown, title),
    }
    if color and colours > 1:
        enc["color"] = alt.Color(f"{color}:N", title=title(color), legend=_legend())
        enc["yOffset"] = alt.YOffset(f"{color}:N")
    base = alt.Chart(_data(df, shown)).encode(**enc)
    chart = (base.mark_bar() + _written(base, value, upright=False)).properties(
        height=alt.Step(_ROW_PX * max(1, colours))
    )
    return _spec(chart)


def bars_spec(
    df: pl.DataFrame,
    x: str,
    y: str,
    *,
    labels: dict[str, str] | None = None,
    text: bool = False,
    height: int = 260,
) -> Spec:
    """Upright bars over ``x``'s values in their order (chairs, points), optionally with
    each bar's value written above it."""
    title = _titles(labels)
    shown = list(dict.fromkeys([x, y, *df.columns]))
    base = alt.Chart(_data(df, shown)).encode(
        x=alt.X(f"{x}:O", title=title(x), axis=alt.Axis(labelAngle=0, labelOverlap=True)),
        y=alt.Y(f"{y}:Q", title=title(y), axis=_axis(df, y)),
        tooltip=_tooltip(df, shown, title),
    )
    chart = base.mark_bar()
    if text:
        chart = chart + _written(base, y, upright=True)
    return _spec(chart.properties(height=height))


def histogram_spec(
    df: pl.DataFrame,
    x: str,
    *,
    count_title: str,
    labels: dict[str, str] | None = None,
    color: str | None = None,
    bins: int = 20,
    height: int = 260,
) -> Spec:
    """How many rows fall in each bin of ``x`` (at most ``bins``), stacked by ``color``."""
    title = _titles(labels)
    shown = [x] + ([color] if color else [])
    whole = df.schema[x].is_integer()
    # whole numbers binned by whole steps: no bin from 2.5 to 3 of a count of points
    binned = alt.Bin(maxbins=bins, minstep=1) if whole else alt.Bin(maxbins=bins)
    enc: dict[str, Any] = {
        "x": alt.X(f"{x}:Q", bin=binned, title=title(x), axis=_axis(df, x)),
        "y": alt.Y("count():Q", title=count_title, axis=alt.Axis(tickMinStep=1, format="d")),
        "tooltip": [
            alt.Tooltip(f"{x}:Q", bin=binned, title=title(x)),
            alt.Tooltip("count():Q", title=count_title),
            *([alt.Tooltip(f"{color}:N", title=title(color))] if color else []),
        ],
    }
    if color:
        enc["color"] = alt.Color(f"{color}:N", title=title(color), legend=_legend())
    chart = alt.Chart(_data(df, shown)).mark_bar().encode(**enc).properties(height=height)
    return _spec(chart)


def line_spec(
    df: pl.DataFrame,
    x: str,
    y: str,
    *,
    tooltip: Iterable[str],
    labels: dict[str, str] | None = None,
    color: str | None = None,
    detail: str | None = None,
    points: bool = True,
    height: int = 300,
) -> Spec:
    """A line over ``x`` (one per ``color``, or per ``detail`` in one colour: the line
    breaks between them). Its points carry the tooltip; drawn when ``points``, else there
    to hover only. An ``x`` of whole numbers (a table's or a hand's number) has whole
    ticks written as such (Vega wrote a hand's number as 3.0)."""
    title = _titles(labels)
    hover = list(dict.fromkeys([*tooltip, y]))
    shown = list(dict.fromkeys([x, y, *hover] + [c for c in (color, detail) if c]))
    whole = df.schema[x].is_integer()
    axis = alt.Axis(labelAngle=0, tickMinStep=1, format="d") if whole else alt.Axis(labelAngle=0)
    enc: dict[str, Any] = {
        "x": alt.X(f"{x}:Q", title=title(x), axis=axis),
        "y": alt.Y(f"{y}:Q", title=title(y), scale=alt.Scale(zero=False), axis=_axis(df, y)),
    }
    if color and df.get_column(color).n_unique() > 1:
        enc["color"] = alt.Color(f"{color}:N", title=title(color), legend=_legend())
    elif color or detail:
        enc["detail"] = alt.Detail(f"{color or detail}:N")
    base = alt.Chart(_data(df, shown)).encode(**enc)
    dots = base.mark_point(filled=True, size=36 if points else 64, opacity=1 if points else 0)
    chart = base.mark_line() + dots.encode(tooltip=_tooltip(df, hover, title))
    return _spec(chart.properties(height=height))


def _written(base: Any, value: str, *, upright: bool) -> Any:
    """Each bar's value written just beyond its end: above or below an upright bar, right
    or left of one on its side, as the value is positive or negative (written inside a
    bar, dark on blue, it could not be read)."""
    text = alt.Text(f"{value}:Q")
    ahead = alt.datum[value] >= 0
    if upright:
        up = base.transform_filter(ahead).mark_text(baseline="bottom", dy=-3)
        down = base.transform_filter(~ahead).mark_text(baseline="top", dy=3)
    else:
        up = base.transform_filter(ahead).mark_text(align="left", baseline="middle", dx=3)
        down = base.transform_filter(~ahead).mark_text(align="right", baseline="middle", dx=-3)
    return up.encode(text=text) + down.encode(text=text)


def _spec(chart: Any) -> Spec:
    """The chart as Vega-Lite (checked against the schema), widths left to Streamlit."""
    spec: Spec = chart.to_dict()
    spec.pop("$schema", None)
    spec.pop("config", None)  # Streamlit's theme styles it
    return spec


def _data(df: pl.DataFrame, columns: Iterable[str]) -> Any:
    """The columns a chart reads, as inline JSON values (dates as text)."""
    used = df.select(list(dict.fromkeys(columns))).with_columns(
        pl.col(pl.Date, pl.Datetime, pl.Time, pl.Duration).cast(pl.String),
        pl.col(pl.Decimal).cast(pl.Float64),
    )
    return alt.InlineData(values=used.to_dicts())


def _titles(labels: dict[str, str] | None) -> Callable[[str], str]:
    """A column's title on an axis, a legend or a tooltip: ``labels``, else the column's
    translated header."""
    return lambda name: (labels or {}).get(name) or i18n.column(name)


def _tooltip(df: pl.DataFrame, columns: Iterable[str], title: Callable[[str], str]) -> list:
    return [
        alt.Tooltip(f"{c}:{'Q' if df.schema[c].is_numeric() else 'N'}", title=title(c))
        for c in columns
    ]


def _axis(df: pl.DataFrame, column: str) -> Any:
    """A value axis: whole numbers only for a count or a total (no 0.2 of a hand), else at
    most two decimals (a rating history of one table showed -3.290000)."""
    if df.schema[column].is_integer():
        return alt.Axis(tickMinStep=1, format="d")
    return alt.Axis(format=".2~f")


def _legend() -> Any:
    # two to a row: a row of eight categories ran off a phone's screen
    return alt.Legend(orient="bottom", columns=2, labelLimit=0)
