"""Charts drawn on the server as HTML (bars) and SVG (lines), shown with ``st.markdown``:
no chart library for the browser to fetch and start, so a page with charts shows as soon
as one with tables (docs/performance.md, 5 December, third session).

Laid out to read on a phone and on a big screen without a pointer: every bar has its
value written at its end, labels are written across in full (never rotated or cut), a
chart's height follows its number of bars, legends sit below. Widths are percentages of
the page's, so a chart fits any screen and its text stays the page's size. A bar, a
column or a point shows what it stands for on hover, on a tap or on the Tab key (its
``aria-label``, shown by the page's CSS: :func:`_tip`), and carries its values as
``data-x`` / ``data-y`` / ``data-s`` attributes (what the tests read).

Each chart is made once per value :func:`dashboard.data.read` returned and language
(:func:`draw`), then shared by every session. Everything from the data is escaped."""

import html
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import polars as pl
import streamlit as st

from dashboard import data, i18n

Chart = str  # a chart's HTML, for st.markdown
#: Streamlit's own colours for categories, in its order (its charts' palette)
PALETTE = (
    "#0068c9",
    "#83c9ff",
    "#ff2b2b",
    "#ffabab",
    "#29b09d",
    "#7defa1",
    "#ff8700",
    "#ffd16a",
    "#6d3fc0",
    "#d5dae5",
)
_MAX_X_LABELS = 12  # upright bars: a label under every k-th bar beyond that
_MAX_DOTS = 240  # a line's points to hover, at most (evenly spread, each series' last kept)
_KEYED = 24  # a chart of at most this many marks has them in the Tab order

CSS = (
    "<style>"
    ".dc{font-size:.875rem;margin:.25rem 0 1rem 0;line-height:1.25;}"
    ".dc-cap{opacity:.7;font-size:.8rem;margin-bottom:.25rem;}"
    ".dc-axis{opacity:.7;font-size:.8rem;text-align:center;margin-top:.25rem;}"
    ".dc-rows{display:grid;grid-template-columns:fit-content(40%) minmax(0,1fr);"
    "column-gap:.5rem;row-gap:.25rem;align-items:center;}"
    ".dc-l{text-align:right;overflow-wrap:anywhere;}"
    ".dc-t{position:relative;min-height:1.5rem;}"
    ".dc-b{position:absolute;border-radius:2px;}"
    ".dc-v{position:absolute;white-space:nowrap;font-variant-numeric:tabular-nums;}"
    ".dc-z{position:absolute;background:rgba(128,128,128,.55);}"
    ".dc-g{position:absolute;left:0;right:0;height:0;border-top:1px solid rgba(128,128,128,.2);}"
    ".dc-frame{display:grid;grid-template-columns:max-content minmax(0,1fr);column-gap:.4rem;"
    "margin:.6rem .9rem 0 0;}"
    ".dc-yt{position:relative;font-size:.75rem;opacity:.7;text-align:right;min-width:1.5rem;}"
    ".dc-yt span{position:absolute;right:0;transform:translateY(50%);white-space:nowrap;}"
    ".dc-p{position:relative;}"
    ".dc-cols{position:absolute;inset:0;display:flex;}"
    ".dc-col{position:relative;flex:1 1 0;min-width:0;}"
    ".dc-col .dc-b{left:12%;right:12%;}"
    ".dc-col .dc-v{left:50%;transform:translateX(-50%);font-size:.75rem;}"
    ".dc-xl{display:flex;font-size:.75rem;opacity:.8;pointer-events:none;}"
    ".dc-xl span{flex:1 1 0;min-width:0;text-align:center;overflow:visible;white-space:nowrap;}"
    ".dc-xs{position:relative;height:1.1rem;font-size:.75rem;opacity:.8;pointer-events:none;}"
    ".dc-xs span{position:absolute;transform:translateX(-50%);white-space:nowrap;}"
    ".dc-svg{position:absolute;inset:0;width:100%;height:100%;overflow:visible;}"
    ".dc-dot{position:absolute;z-index:1;width:.55rem;height:.55rem;border-radius:50%;"
    "transform:translate(-50%,-50%);}"
    ".dc-dot.dc-hide{width:.9rem;height:.9rem;}"
    # a tooltip of the page's own, on hover and on a tap or a key (a phone has no hover):
    # the mark's aria-label, above it; at the chart's edges anchored to its side
    ".dc-tip{outline:none;}"
    ".dc-tip:hover,.dc-tip:focus{z-index:30;}"  # its tip over the other marks
    ".dc-tip:hover::after,.dc-tip:focus::after{content:attr(aria-label);position:absolute;"
    "z-index:20;bottom:calc(100% + 6px);left:50%;transform:translateX(-50%);white-space:pre;"
    "background:rgba(38,39,48,.94);color:#fff;font-size:.75rem;line-height:1.35;"
    "padding:.3rem .5rem;border-radius:.3rem;pointer-events:none;text-align:left;}"
    ".dc-tip.dc-tl:hover::after,.dc-tip.dc-tl:focus::after{left:0;transform:none;}"
    ".dc-tip.dc-tr:hover::after,.dc-tip.dc-tr:focus::after{left:auto;right:0;transform:none;}"
    ".dc-col.dc-tip::after{bottom:auto !important;top:0;}"  # a column's tip inside the plot
    ".dc-tip:focus{box-shadow:0 0 0 1px rgba(128,128,128,.45);}"
    ".dc-legend{display:flex;flex-wrap:wrap;gap:.2rem 1.25rem;justify-content:center;"
    "margin-top:.4rem;}"
    ".dc-legend .dc-lt{opacity:.7;}"
    ".dc-key{display:inline-block;width:.75rem;height:.75rem;border-radius:2px;"
    "margin-right:.35rem;vertical-align:-.1rem;}"
    "</style>"
)


def draw(key: str, build: Callable[[], Chart], source: Any = None) -> None:
    """The chart ``key``, across the page's width. Its HTML is ``build()``, made once per
    value :func:`dashboard.data.read` returned (``source``) and language, and shared by
    every session (:func:`dashboard.data.derived`). Without ``source``, built each time."""

    def keyed() -> Chart:  # the chart's root names its key (what the tests find it by)
        return build().replace('class="dc ', f'data-chart="{key}" class="dc ', 1)

    chart = keyed() if source is None else data.derived(source, key, keyed, i18n.language())
    if chart:
        st.markdown(chart, unsafe_allow_html=True)


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
    written at its end; with ``color``, one bar per colour under each other."""
    if df.height == 0:
        return
    draw(key, lambda: hbar_chart(df, label, value, labels=labels, color=color), source)


def hbar_chart(
    df: pl.DataFrame,
    label: str,
    value: str,
    *,
    labels: dict[str, str] | None = None,
    color: str | None = None,
) -> Chart:
    title = _titles(labels)
    whole = df.schema[value].is_integer()
    series = _series(df, color)
    colours = _colours(series)
    values = [float(v) for v in df.get_column(value).fill_null(0).to_list()]
    lo, hi = min(0.0, *values), max(0.0, *values)
    # room beyond each end for the values written there
    left_room = 18.0 if lo < 0 else 0.0
    right_room = 18.0 if hi > 0 or lo == hi else 0.0

    def at(v: float) -> float:
        span = (hi - lo) or 1.0
        return left_room + (v - lo) / span * (100.0 - left_room - right_room)

    zero = at(0.0)
    rows: dict[str, list[dict[str, Any]]] = {}
    for r in df.iter_rows(named=True):
        rows.setdefault(str(r[label]), []).append(r)
    out = [f'<div class="dc dc-hbar" role="figure" aria-label="{_esc(title(value))}">']
    out.append('<div class="dc-rows">')
    n = len(series) if color else 1  # a row's bars, one slot per colour
    for name, group in rows.items():
        tip = [name] + [
            (f"{r[color]}: " if color and len(series) > 1 else "")
            + f"{title(value)}: {_shown(r[value], whole=whole)}"
            for r in group
        ]
        out.append(f'<div class="dc-l">{_esc(name)}</div>')
        classes, attrs = _tip(tip, 0, keyed=len(rows) <= _KEYED)
        out.append(f'<div class="dc-t {classes}" {attrs} style="height:{1.5 * n:g}rem">')
        out.append(f'<div class="dc-z" style="left:{zero:.2f}%;top:0;bottom:0;width:1px"></div>')
        for r in group if color else group[:1]:
            v = float(r[value] or 0)
            start, end = sorted((zero, at(v)))
            s = str(r[color]) if color else ""
            slot = series.index(s)
            top, height = (slot / n) * 100 + 12 / n, 76 / n
            fill = colours.get(s, PALETTE[0])
            out.append(
                f'<div class="dc-b" data-x="{_esc(name)}" data-y="{_esc(_num(r[value], whole=whole))}"'
                f' data-s="{_esc(s)}" style="left:{start:.2f}%;width:{max(end - start, 0.3):.2f}%;'
                f'top:{top:.2f}%;height:{height:.2f}%;background:{fill}"></div>'
            )
            middle = f"top:{top + height / 2:.2f}%;transform:translateY(-50%)"
            place = (
                f"left:calc({end:.2f}% + 4px)"
                if v >= 0
                else f"right:calc({100 - start:.2f}% + 4px)"
            )
            out.append(
                f'<span class="dc-v" style="{place};{middle}">{_esc(_shown(r[value], whole=whole))}</span>'
            )
        out.append("</div>")
    out.append("</div>")
    out.append(f'<div class="dc-axis">{_esc(title(value))}</div>')
    if len(series) > 1 and color:
        out.append(_legend(title(color), colours))
    out.append("</div>")
    return CSS + "".join(out)


def bars_chart(
    df: pl.DataFrame,
    x: str,
    y: str,
    *,
    labels: dict[str, str] | None = None,
    text: bool = False,
    height: int = 260,
) -> Chart:
    """Upright bars over ``x``'s values in their order (chairs, points), optionally with
    each bar's value written above it (below a negative one)."""
    title = _titles(labels)
    whole = df.schema[y].is_integer()
    others = [c for c in df.columns if c not in (x, y)]
    columns = []
    for r in df.iter_rows(named=True):
        tip = [f"{title(c)}: {_cell(df, r, c)}" for c in [x, y, *others]]
        columns.append((_num(r[x], whole=df.schema[x].is_integer()), [("", r[y])], tip))
    return _upright(columns, title(x), title(y), whole=whole, text=text, height=height)


def histogram_chart(
    df: pl.DataFrame,
    x: str,
    *,
    count_title: str,
    labels: dict[str, str] | None = None,
    color: str | None = None,
    bins: int = 20,
    height: int = 260,
) -> Chart:
    """How many rows fall in each bin of ``x`` (at most ``bins``, of a 1, 2 or 5 times a
    power of ten wide; whole numbers in whole steps), stacked by ``color``."""
    title = _titles(labels)
    whole = df.schema[x].is_integer()
    if df.get_column(x).null_count() == df.height:
        return ""
    lo, hi = _extent(df.get_column(x))
    step = _bin_step(lo, hi, bins, whole=whole)
    start = math.floor(lo / step) * step
    count = int(math.floor((hi - start) / step)) + 1
    series = _series(df, color)
    colours = _colours(series)
    binned = (
        df.filter(pl.col(x).is_not_null())
        .with_columns(
            ((pl.col(x).cast(pl.Float64) - start) / step).floor().cast(pl.Int64).alias("_bin")
        )
        .group_by(["_bin", *([color] if color else [])])
        .len()
    )
    counts: dict[tuple[int, str], int] = {
        (int(r["_bin"]), str(r[color]) if color else ""): int(r["len"])
        for r in binned.iter_rows(named=True)
    }
    columns = []
    for b in range(count):
        a = start + b * step
        if whole and step == 1:
            name = _num(a, whole=True)
        elif whole:
            name = f"{_num(a, whole=True)}–{_num(a + step - 1, whole=True)}"
        else:
            name = f"{_num(a, whole=False)}–{_num(a + step, whole=False)}"
        parts = [(s, counts.get((b, s), 0)) for s in (series if color else [""])]
        tip = [f"{title(x)}: {name}"] + [
            (f"{s}: " if color and len(series) > 1 else f"{count_title}: ") + str(n)
            for s, n in parts
        ]
        if color and len(series) > 1:
            tip.insert(1, f"{count_title}: {sum(n for _, n in parts)}")
        columns.append((_num(a, whole=whole), parts, tip))
    return _upright(
        columns,
        title(x),
        count_title,
        whole=True,
        text=False,
        height=height,
        colours=colours if color else None,
        legend=_legend(title(color), colours) if color and len(series) > 1 else "",
    )


def line_chart(
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
) -> Chart:
    """A line over ``x`` (one per ``color``, or per ``detail`` in one colour: the line
    breaks between them), on a value axis that need not start at 0. Its points carry the
    tooltip; drawn when ``points``, else there to hover only (at most a few hundred,
    evenly spread). An ``x`` of whole numbers has whole ticks."""
    title = _titles(labels)
    hover = list(dict.fromkeys([*tooltip, y]))
    df = df.filter(pl.col(x).is_not_null() & pl.col(y).is_not_null())
    if df.height == 0:
        return ""
    x_whole, y_whole = df.schema[x].is_integer(), df.schema[y].is_integer()
    x_dom, x_ticks = _nice(*_extent(df.get_column(x)), 6, whole=x_whole, zero=False)
    y_dom, y_ticks = _nice(*_extent(df.get_column(y)), 5, whole=y_whole, zero=False)

    def px(v: float) -> float:  # percent across
        return (v - x_dom[0]) / ((x_dom[1] - x_dom[0]) or 1.0) * 100

    def py(v: float) -> float:  # percent from the top
        return 100 - (v - y_dom[0]) / ((y_dom[1] - y_dom[0]) or 1.0) * 100

    coloured = color is not None and df.get_column(color).n_unique() > 1
    series = _series(df, color) if coloured else [""]
    colours = _colours(series)
    parts = [c for c in (color, detail) if c]
    groups = df.partition_by(parts, maintain_order=True) if parts else [df]
    lines, dots = [], []
    keep = _spread(df.height, _MAX_DOTS) if not points else None
    row_no = 0
    for g in groups:
        s = str(g.get_column(color)[0]) if coloured and color else ""
        fill = colours.get(s, PALETTE[0])
        g_xs, g_ys = g.get_column(x).cast(pl.Float64), g.get_column(y).cast(pl.Float64)
        pts = " ".join(
            f"{px(a) * 10:.1f},{py(b) * 10:.1f}"
            for a, b in zip(g_xs.to_list(), g_ys.to_list(), strict=True)
        )
        lines.append(
            f'<polyline points="{pts}" fill="none" stroke="{fill}" stroke-width="2"'
            ' vector-effect="non-scaling-stroke" stroke-linejoin="round"/>'
        )
        for i, r in enumerate(g.iter_rows(named=True)):
            last = i == g.height - 1
            if keep is not None and row_no not in keep and not last:
                row_no += 1
                continue
            row_no += 1
            tip = [f"{title(c)}: {_cell(df, r, c)}" for c in hover]
            if coloured and color:
                tip.insert(0, f"{title(color)}: {r[color]}")
            across = px(float(r[x]))
            shown = f";background:{fill}" if points else ""
            classes, attrs = _tip(tip, across, keyed=df.height <= _KEYED)
            dots.append(
                f'<span class="dc-dot{"" if points else " dc-hide"} {classes}" {attrs}'
                f' data-x="{_esc(_num(r[x], whole=x_whole))}"'
                f' data-y="{_esc(_num(r[y], whole=y_whole))}" data-s="{_esc(s)}"'
                f' style="left:{across:.2f}%;top:{py(float(r[y])):.2f}%{shown}"></span>'
            )
    svg = f'<svg class="dc-svg" viewBox="0 0 1000 1000" preserveAspectRatio="none">{"".join(lines)}</svg>'
    x_labels = "".join(
        f'<span style="left:{px(t):.2f}%">{_esc(_shown(t, whole=x_whole))}</span>' for t in x_ticks
    )
    return _framed(
        "dc-line",
        svg + "".join(dots),
        f'<div class="dc-xs">{x_labels}</div>',
        (title(x), title(y)),
        y_ticks,
        py,
        whole=y_whole,
        height=height,
        legend=_legend(title(color), colours) if coloured and color else "",
    )


def _upright(
    columns: Sequence[tuple[str, Sequence[tuple[str, Any]], Sequence[str]]],
    x_title: str,
    y_title: str,
    *,
    whole: bool,
    text: bool,
    height: int,
    colours: dict[str, str] | None = None,
    legend: str = "",
) -> Chart:
    """Upright columns, each (its label, its stacked parts (series, value), its tooltip's
    lines), on a value axis from 0 with a few round ticks."""
    highs = [sum(max(float(v or 0), 0) for _, v in parts) for _, parts, _ in columns]
    lows = [sum(min(float(v or 0), 0) for _, v in parts) for _, parts, _ in columns]
    lo, hi = min(0.0, *lows), max(0.0, *highs)
    (d_lo, d_hi), ticks = _nice(lo, hi, 5, whole=whole, zero=True)
    # room above (and below) for the values written there
    if text:
        span = d_hi - d_lo
        d_hi += span * 0.12 if hi > 0 else 0
        d_lo -= span * 0.12 if lo < 0 else 0

    def up(v: float) -> float:  # percent from the bottom
        return (v - d_lo) / ((d_hi - d_lo) or 1.0) * 100

    zero = up(0.0)
    every = math.ceil(len(columns) / _MAX_X_LABELS)
    cols, names = [], []
    for i, (name, parts, tip) in enumerate(columns):
        cells, base_up, base_down = [], 0.0, 0.0
        for s, v in parts:
            v = float(v or 0)
            if v >= 0:
                bottom, top = base_up, base_up + v
                base_up = top
            else:
                top, bottom = base_down, base_down + v
                base_down = bottom
            fill = (colours or {}).get(s, PALETTE[0])
            cells.append(
                f'<div class="dc-b" data-x="{_esc(name)}" data-y="{_esc(_num(v, whole=whole))}"'
                f' data-s="{_esc(s)}" style="bottom:{up(bottom):.2f}%;'
                f'height:{max(up(top) - up(bottom), 0):.2f}%;background:{fill}"></div>'
            )
        if text:
            total = sum(float(v or 0) for _, v in parts)
            place = (
                f"bottom:calc({up(total):.2f}% + 2px)"
                if total >= 0
                else f"top:calc({100 - up(total):.2f}% + 2px)"
            )
            cells.append(
                f'<span class="dc-v" style="{place}">{_esc(_shown(total, whole=whole))}</span>'
            )
        across = (i + 0.5) / len(columns) * 100
        classes, attrs = _tip(tip, across, keyed=len(columns) <= _KEYED)
        cols.append(f'<div class="dc-col {classes}" {attrs}>{"".join(cells)}</div>')
        shown = name if i % every == 0 else ""
        names.append(f"<span>{_esc(shown)}</span>")
    zero_line = f'<div class="dc-z" style="left:0;right:0;bottom:{zero:.2f}%;height:1px"></div>'
    return _framed(
        "dc-bars",
        f'{zero_line}<div class="dc-cols">{"".join(cols)}</div>',
        f'<div class="dc-xl">{"".join(names)}</div>',
        (x_title, y_title),
        ticks,
        lambda t: 100 - up(t),
        whole=whole,
        height=height,
        legend=legend,
    )


def _framed(
    kind: str,
    plot: str,
    x_labels: str,
    titles: tuple[str, str],
    ticks: Sequence[float],
    top: Callable[[float], float],
    *,
    whole: bool,
    height: int,
    legend: str,
) -> Chart:
    """A chart of kind ``kind`` on a value axis: its title (``titles``: the x axis's and the
    value axis's) above, ``ticks`` written beside the plot, each with its grid line
    (``top``: a value's place in percent from the top of the plot), ``plot`` over them,
    ``x_labels`` under it, the x axis's title and the ``legend`` below."""
    x_title, y_title = titles
    grid = "".join(f'<div class="dc-g" style="top:{top(t):.2f}%"></div>' for t in ticks)
    spans = "".join(
        f'<span style="bottom:{100 - top(t):.2f}%">{_esc(_shown(t, whole=whole))}</span>'
        for t in ticks
    )
    return CSS + "".join(
        [
            f'<div class="dc {kind}" role="figure" aria-label="{_esc(y_title)}">',
            f'<div class="dc-cap">{_esc(y_title)}</div>',
            '<div class="dc-frame">',
            f'<div class="dc-yt" style="height:{height}px">{spans}</div>',
            f'<div class="dc-p" style="height:{height}px">{grid}{plot}</div>',
            f"<div></div>{x_labels}</div>",
            f'<div class="dc-axis">{_esc(x_title)}</div>',
            legend,
            "</div>",
        ]
    )


def _nice(
    lo: float, hi: float, count: int, *, whole: bool, zero: bool
) -> tuple[tuple[float, float], list[float]]:
    """A domain from ``lo`` to ``hi`` widened to round ticks (a step of 1, 2 or 5 times a
    power of ten, whole for whole numbers), and those ticks: about ``count`` of them."""
    if zero:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    if hi == lo:
        lo, hi = (lo - 1, hi + 1) if lo else (0.0, 1.0)
    raw = (hi - lo) / count
    power = 10 ** math.floor(math.log10(raw))
    error = raw / power  # as d3's ticks: the round step nearest the raw one
    step = power * (10 if error >= 7.07 else 5 if error >= 3.16 else 2 if error >= 1.41 else 1)
    if whole:
        step = max(1.0, round(step))
    a, b = math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step
    ticks = [a + i * step for i in range(round((b - a) / step) + 1)]
    return (a, b), ticks


def _step(raw: float) -> float:
    """The smallest of 1, 2 or 5 times a power of ten at least ``raw``."""
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw - 1e-12:
            return m * power
    return 10 * power


def _bin_step(lo: float, hi: float, bins: int, *, whole: bool) -> float:
    """A histogram's bin width: the smallest round step giving at most ``bins`` bins."""
    span = hi - lo
    if span <= 0:
        return 1.0
    step = _step(span / bins)
    if whole:
        step = max(1.0, round(step))
    while math.floor(hi / step) - math.floor(lo / step) + 1 > bins:
        step = _step(step * 1.01)
    return step


def _extent(values: pl.Series) -> tuple[float, float]:
    """The least and the greatest of ``values`` (nulls left out), as floats."""
    vals: list[float] = values.cast(pl.Float64).drop_nulls().to_list()
    return min(vals), max(vals)


def _spread(n: int, most: int) -> set[int]:
    """At most ``most`` of ``n`` row numbers, evenly spread, the first and last among them."""
    if n <= most:
        return set(range(n))
    return {round(i * (n - 1) / (most - 1)) for i in range(most)}


def _series(df: pl.DataFrame, color: str | None) -> list[str]:
    if not color:
        return [""]
    return [str(s) for s in df.get_column(color).unique(maintain_order=True).to_list()]


def _tip(lines: Sequence[str], across: float, *, keyed: bool) -> tuple[str, str]:
    """A mark's tooltip: its classes, and its attributes: the text in its ``aria-label``
    (read aloud too), focusable so that a tap shows it. ``across``: the mark's place
    across the chart in percent, by which the tip is anchored. ``keyed``: in the Tab
    order too (a chart of a few marks; a timeline's 240 points would stand between the
    keyboard and the rest of the page)."""
    side = " dc-tl" if across < 25 else " dc-tr" if across > 75 else ""
    order = "0" if keyed else "-1"
    return f"dc-tip{side}", f'tabindex="{order}" aria-label="{_esc(chr(10).join(lines))}"'


def _colours(series: Sequence[str]) -> dict[str, str]:
    """Each series' colour, in the palette's order."""
    return {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(series)}


def _cell(df: pl.DataFrame, row: dict[str, Any], column: str) -> str:
    """A row's value of ``column`` as written for the reader (:func:`_shown`)."""
    return _shown(row[column], whole=df.schema[column].is_integer())


def _legend(name: str, colours: dict[str, str]) -> str:
    keys = "".join(
        f'<span><span class="dc-key" style="background:{c}"></span>{_esc(s)}</span>'
        for s, c in colours.items()
    )
    return f'<div class="dc-legend"><span class="dc-lt">{_esc(name)}</span>{keys}</div>'


def _num(value: Any, *, whole: bool) -> str:
    """A value as written on a chart: whole numbers whole, others with at most two
    decimals (a rating of -3.290000 is written -3.29), dates as ISO text."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if whole or float(value).is_integer():
        return str(int(round(value)))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _shown(value: Any, *, whole: bool) -> str:
    """:func:`_num` as the reader sees it (a value, a tick, a tooltip): a number with the
    session's decimal mark (``-3,29`` in Indonesian); the ``data-`` attributes keep
    :func:`_num`'s."""
    text = _num(value, whole=whole)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return i18n.decimal(text) if number else text


def _titles(labels: dict[str, str] | None) -> Callable[[str], str]:
    """A column's title on an axis, a legend or a tooltip: ``labels``, else the column's
    translated header."""
    return lambda name: (labels or {}).get(name) or i18n.column(name)


def _esc(value: object) -> str:
    """Text from the data made inert in the page, in an element or an attribute: escaped,
    a line break kept (a tooltip's), and no character left that Markdown or Streamlit's
    own markup would read (the chart is one HTML block of ``st.markdown``)."""
    s = html.escape(str(value), quote=True)
    return (
        s.replace("\n", "&#10;")
        .replace("*", "&#42;")
        .replace("_", "&#95;")
        .replace("`", "&#96;")
        .replace("$", "&#36;")
        .replace(":", "&#58;")
        .replace("[", "&#91;")
        .replace("~", "&#126;")
    )
