"""Big-screen mode of the live leaderboard: one table at a time in large type for a venue
projector, then the session (pepet) a page at a time and the event's top 10, cycling every
``bigscreen_seconds``; the data is re-read every ``refresh_seconds`` as on the page.
"""

import html
import math
import time
from typing import Any

import polars as pl
import streamlit as st

from dashboard import data, failures, live, ui
from dashboard.i18n import column, t
from dashboard.views.leaderboard import (
    _controls,
    _load,
    _with_marks,
    event_columns,
    mark_class,
    refresh_seconds,
    session_partial,
    table_caption,
)
from pipeline import rulesets, settings


def bigscreen_seconds() -> float:
    return max(2.0, float(settings.get("bigscreen_seconds")))


def show() -> None:
    """The big-screen body: its static CSS, then a fragment that reruns itself often
    enough to change slides on time."""
    _bigscreen_css()
    tick, _ = _big_tick()
    failures.fragment(_big_body, run_every=tick)()
    live.follow("bigscreen")  # a save shows at once, not at the next slide


def _big_tick() -> tuple[float, int]:
    """A rerun interval that divides the slide time and is no longer than the refresh
    interval, and how many ticks make one slide."""
    big, refresh = bigscreen_seconds(), refresh_seconds()
    ticks = max(1, math.ceil(big / refresh))
    return big / ticks, ticks


BIG_PAGE_ROWS = 16  # a longer session standings pages through slides of this many rows
BIG_EVENT_ROWS = 10  # the event slide: the top 10
#: Height the big screen keeps for everything but the table's rows: the switch, the
#: title, the subtitle (two lines when it wraps), the dots, the page's padding.
BIG_RESERVED = "17rem"
BIG_ROW_EM = 1.75  # one row's height in ems of its font (line, padding, border)


def slides(d: dict[str, Any]) -> list[tuple[str, str | None]]:
    """What big-screen mode cycles through: the seats of the drawn tables not started yet
    (by name), every table, the session (pepet) — each a page of at most
    :data:`BIG_PAGE_ROWS` rows per slide — and the event's top 10."""
    out: list[tuple[str, str | None]] = []
    if d.get("seating") is not None and d["seating"].height:
        # who sits where before play: every waiting seat, by name, a page a slide
        pages = math.ceil(d["seating"].height / BIG_PAGE_ROWS)
        out += [("seat", str(p)) for p in range(pages)]
    if d.get("round") is not None and d["tables"].height:
        out += [
            ("table", str(x))
            for x in d["tables"].get_column("table").unique(maintain_order=True).to_list()
        ]
    if d.get("session") is not None and d["session"].height:
        pages = math.ceil(d["session"].height / BIG_PAGE_ROWS)
        out += [("session", str(p)) for p in range(pages)]
    if d.get("event_standings") is not None and d["event_standings"].height:
        out.append(("event", None))
    return out


def _bigscreen_css() -> None:
    # Static CSS only: no value from the data is ever part of it.
    st.html(
        """<style>
        [data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], header[data-testid="stHeader"] {display: none;}
        .block-container {padding-top: 1rem; max-width: 100%;}
        .big-head {font-size: clamp(1.2rem, min(3.2vw, 5vh), 3rem); font-weight: 700; margin: 0 0 .2em 0; line-height: 1.2;}
        .big-sub {font-size: clamp(.9rem, min(2.2vw, 3.4vh), 2rem); opacity: .8; margin-bottom: .3em; line-height: 1.2;}
        table.big {width: 100%; border-collapse: collapse; font-size: clamp(1.1rem, 3.4vw, 3.2rem);}
        table.big th {text-align: left; opacity: .7; font-weight: 600; border-bottom: 3px solid rgba(128,128,128,.5); padding: .15em .4em;}
        table.big td {padding: .18em .4em; border-bottom: 1px solid rgba(128,128,128,.3);}
        table.big td.num {text-align: right; font-variant-numeric: tabular-nums;}
        table.big tr.zone td {background: rgba(46,160,67,.22);}
        table.big tr.tie td {background: rgba(255,193,7,.28);}
        table.big tr.place td {background: rgba(212,160,23,.2);}
        table.big :is(td, th) {line-height: 1.2;}
        .big-dots {font-size: clamp(.8rem, min(2vw, 3vh), 1.8rem); letter-spacing: .3em; opacity: .7;}
        </style>"""
    )


def big_font(rows: int) -> str:
    """The big table's font size, so that its header and ``rows`` rows fit the screen's
    height (``vh``) as well as its width (``vw``): every row reaches the projector."""
    per_row = f"calc((100vh - {BIG_RESERVED}) / {(int(rows) + 1) * BIG_ROW_EM:.2f})"
    return f"clamp(.8rem, min(3.4vw, {per_row}), 3.2rem)"


def big_table_html(
    rows: list[dict[str, Any]], columns: list[tuple[str, str]], classes: list[str] | None = None
) -> str:
    """An HTML table for the projector (:func:`dashboard.ui.html_table`), its type sized
    to the number of rows (:func:`big_font`)."""
    return ui.html_table(
        rows, columns, css_class="big", classes=classes, style=f"font-size: {big_font(len(rows))}"
    )


def _page(rows: pl.DataFrame, label: str | None, sub: str) -> tuple[list[dict[str, Any]], str]:
    """Slide ``label`` (a page number) of ``rows``, :data:`BIG_PAGE_ROWS` a slide, and its
    subtitle ``sub`` saying which rows it shows when there is more than one page."""
    page, n = int(label or 0), rows.height
    first = page * BIG_PAGE_ROWS
    if n > BIG_PAGE_ROWS:
        last = min(n, first + BIG_PAGE_ROWS)
        sub += " · " + t("lb.big.rows", first=first + 1, last=last, n=n)
    return rows.slice(first, BIG_PAGE_ROWS).to_dicts(), sub


def _big_body() -> None:
    live.mark("bigscreen")
    res = _load()
    if ui.stale_note(res):
        return
    d: dict[str, Any] = res.value
    if d["event"] is None:
        st.info(t("no_events"))
        return
    show = slides(d)
    if not show:
        st.info(t("lb.no_tables"))
        return
    i = int(time.time() // bigscreen_seconds()) % len(show)
    kind, label = show[i]
    title = f"{data.title(d['event'])} · {d['seating_round'] if kind == 'seat' else d['round']}"
    if kind == "seat":
        by_name = d["seating"].sort(pl.col("player").str.to_lowercase(), "player")
        dicts, sub = _page(by_name, label, t("lb.big.seating", round=d["seating_round"]))
        cols = [
            ("player", column("player")),
            ("table", column("table")),
            ("chair", column("chair")),
        ]
        classes = None
    elif kind == "table":
        rows = _with_marks(
            d["tables"].filter(pl.col("table") == label),
            d["ruleset"],
            d["qualifiers"],
            final=bool(d.get("final")),
        )
        tables = [s for s in show if s[0] == "table"]
        sub = (
            t("lb.big.table_of", table=label, i=tables.index((kind, label)) + 1, n=len(tables))
            + " · "
            + table_caption(rows, d["ruleset"], d["regular_hands"])
        )
        cols = [
            ("rank", "#"),
            ("player", column("player")),
            ("points", column("points")),
            ("hands", column("hands")),
        ]
        if rulesets.load(d["ruleset"]).shows("qualification"):
            cols.append(("mark", column("mark")))
        dicts = rows.to_dicts()
        classes = [mark_class(r["mark"]) for r in dicts]
    elif kind == "session":
        starred = d["session"].with_columns(
            pl.when(pl.col("star")).then(pl.lit("★")).otherwise(pl.lit("")).alias("star")
        )
        dicts, sub = _page(starred, label, t("lb.big.session", round=d["round"]))
        if (partial := session_partial(d)) is not None:
            sub = f"{sub} · {partial}"
        cols = [
            ("rank", "#"),
            ("player", column("player")),
            ("points", column("points")),
            ("star", column("star")),
        ]
        classes = None
    else:
        sub = t("lb.big.event")
        dicts = d["event_standings"].head(BIG_EVENT_ROWS).to_dicts()
        # the columns of the event tab, less the booleans (qualified) and counts (hands):
        # in a cup the round reached and the table rank, before the points
        shown = [c for c in event_columns(d["ruleset"]) if c not in ("qualified", "hands")]
        cols = [(c, "#" if c == "rank" else column(c)) for c in shown]
        classes = None
    dots = "".join("●" if j == i else "○" for j in range(len(show)))
    st.html(
        f'<div class="big-head">{html.escape(title)}</div>'
        f'<div class="big-sub">{html.escape(sub)}</div>'
        + big_table_html(dicts, cols, classes)
        + f'<div class="big-dots">{dots}</div>'
    )
    if res.stale:
        st.caption(t("busy"))
    with st.expander(f"⚙ {t('lb.event')} / {t('lb.round')}", expanded=False):
        _controls(d)
