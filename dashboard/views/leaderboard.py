"""Live leaderboard (home): every table of a round, the session (pepet) and the event.

The body is an ``st.fragment``; a venue screen stays current untouched because
:mod:`dashboard.live` reruns the page when the server's one watcher sees a save (within
about a second, and without this session asking the database). Big-screen mode
(:mod:`dashboard.views.bigscreen`) shows one table at a time in large type, cycling
every ``bigscreen_seconds``.
"""

from datetime import datetime
from typing import Any, cast

import polars as pl
import streamlit as st

from dashboard import batches, data, failures, i18n, live, ui
from dashboard.batches import AUTO
from dashboard.i18n import t
from pipeline import rulesets, settings

_AUTO_SHOWN = "_lb_auto_label"  # the "Newest (R3)" label the browser shows

BIG_KEY = "big"
RANK_LABEL = {"rank": "#"}


def refresh_seconds() -> float:
    return max(1.0, float(settings.get("refresh_seconds")))


def render() -> None:
    head, switch = st.columns([5, 2], vertical_alignment="bottom")
    big = switch.toggle(
        t("lb.bigscreen"), key=BIG_KEY, help=t("lb.bigscreen.help"), bind="query-params"
    )
    if big:
        # imported here: big-screen mode builds on this page's helpers
        from dashboard.views import bigscreen

        bigscreen.show()
    else:
        head.title(t("lb.title"))
        _phone_css()
        ui.cards_css()
        _zone_css()
        failures.fragment(_live_body)()
        live.follow("leaderboard")


def _phone_css() -> None:
    """Static CSS (no data in it) for a phone: the tab bar wraps onto a second line
    instead of hiding its last tab behind a scroll arrow; the title, the switch and the
    controls take a third of the first screen, not most of it."""
    st.html(
        """<style>
        [data-testid="stTabs"] [role="tablist"] {flex-wrap: wrap; row-gap: .25rem; overflow: visible;}
        [data-testid="stTabs"] [role="tablist"] button[role="tab"] {flex: 0 0 auto;}
        @media (max-width: 640px) {
          [data-testid="stMainBlockContainer"] {padding-top: 4rem; padding-left: .75rem; padding-right: .75rem;}
          [data-testid="stMainBlockContainer"] h1 {font-size: 1.6rem; padding: 0 0 .2rem 0;}
          [data-testid="stMainBlockContainer"] [data-testid="stVerticalBlock"] {gap: .5rem;}
          .st-key-lb_controls [data-testid="stWidgetLabel"] {min-height: 0; margin-bottom: 0;}
        }
        </style>"""
    )


# --- normal mode ------------------------------------------------------------------------------


def _load() -> data.Result:
    return data.read(batches.leaderboard, ui.bound_value("event"), ui.bound_value("round", AUTO))


def _live_body() -> None:
    live.mark("leaderboard")
    res = _load()
    if ui.stale_note(res):
        return
    d: dict[str, Any] = res.value
    if d["event"] is None:
        st.info(t("no_events"))
        return
    _controls(d)
    st.subheader(ui.md(data.title(d["event"])), anchor=False)
    st.caption(t("lb.live", time=datetime.now().strftime("%H:%M:%S")))
    for rule in d.get("advancements") or []:
        st.caption(t("lg.advance", rule=ui.md(advancement(rule))))
    if (partial := session_partial(d)) is not None:
        st.info(partial)
    seating = d["seating"].height > 0
    if seating:
        _seating(d)
    if d["round"] is None:
        if not seating:
            st.info(t("lb.no_tables"))
        return
    names = [t("lb.tab.tables", round=d["round"])]
    if d["session"] is not None:
        names.append(t("lb.tab.session", round=d["round"]))
    names.append(t("lb.tab.event"))
    if d["groups"] is not None and d["groups"].height:
        names.append(t("lb.tab.groups"))
    tabs = iter(st.tabs(names))
    with next(tabs):
        _tables(d)
    if d["session"] is not None:
        with next(tabs):
            _session(d)
    with next(tabs):
        _event(d)
    if d["groups"] is not None and d["groups"].height:
        with next(tabs):
            _after_note(d)
            ui.table(
                ui.public_columns(d["groups"]),
                key="lb_groups",
                source=d,
                columns=["rank", "group", "points", "hands", "players"],
                static=True,
                labels=RANK_LABEL,
            )
            ui.downloads(
                ui.public_columns(d["groups"]),
                f"{d['event']}_groups",
                t("lb.what.groups"),
                key="dl_groups",
            )


def session_partial(d: dict[str, Any]) -> str | None:
    """ "Session S2: 2 of 3 tables in", while the session shown is missing tables (RULES,
    decided: such a session is in progress); None otherwise."""
    done, total = d.get("tables_in") or (0, 0)
    if done >= total:
        return None
    return t("lb.session.partial", round=d["round"], done=done, total=total)


def _controls(d: dict[str, Any]) -> None:
    options = [AUTO, *d["rounds"]]
    not_there = ui.settle("round", options, AUTO, d["event"])
    newest = d.get("newest") or "–"  # dashboard.batches.leaderboard
    auto_label = t("lb.round.auto", round=newest)
    if st.session_state.get(_AUTO_SHOWN, auto_label) != auto_label and (
        st.session_state.get("round") == AUTO
    ):
        # a newer round (or the other language) changed the label under the same value:
        # the browser redraws a picker's label only when the page sets its value again
        st.session_state["round"] = AUTO
    st.session_state[_AUTO_SHOWN] = auto_label
    # side by side on a phone too (st.columns would stack them)
    box = st.container(horizontal=True, wrap=False, key="lb_controls")
    ui.event_picker(box, d, "event", t("lb.event"))
    box.selectbox(
        t("lb.round"),
        options,
        key="round",
        format_func=lambda r: auto_label if r == AUTO else r,
        bind="query-params",
    )
    ui.search_note(d["event"], "event")
    if not_there is not None:
        # the live part reruns: the note stays until another round or event is picked
        st.warning(
            t(
                "lb.round.unknown",
                round=ui.md(not_there),
                event=ui.md(data.title(d["event"])),
                rounds=", ".join(ui.md(r) for r in d["rounds"]) or "–",
                shown=t("lb.round.auto", round=ui.md(newest)),
            )
        )


def advancement(rule: dict[str, Any]) -> str:
    """One rule of ``domino advance`` in the page's language, the events by their titles:
    ``4 teratas tiap kelompok dari Liga KG → Kota 2026 (8 pemain)``."""
    key = "lg.advance.rule.per_group" if rule["per_group"] else "lg.advance.rule"
    return t(
        key,
        top=rule["top"],
        source=data.title(rule["from_event"]),
        target=data.title(rule["to_event"]),
        n=rule["players"],
    )


def mark(row: dict[str, Any], ruleset: str, qualifiers: int, *, final: bool = False) -> str:
    """The zone column of a table row (unhas): qualified, in the zone, tied (match still
    being played), tie-break needed (match complete). At the final table nobody goes
    on: a finished player's place instead (◆ and the rank), nothing while it is played."""
    if not rulesets.load(ruleset).shows("qualification"):
        return ""
    if row.get("walkover"):
        return t("lb.mark.walkover")
    if row.get("needs_tiebreak"):
        # a tie-break hand is asked for only once the match is complete; until then a
        # tie is just a tie (the next hand may break it)
        return t("lb.mark.tiebreak") if row.get("complete") else t("lb.mark.tied")
    if final:
        return t("lb.mark.place", n=row["rank"]) if row.get("complete") else ""
    if row.get("qualified"):
        return t("lb.mark.qualified")
    if qualifiers and row.get("rank") is not None and row["rank"] <= qualifiers:
        return t("lb.mark.zone")
    return ""


def _with_marks(
    df: pl.DataFrame, ruleset: str, qualifiers: int, *, final: bool = False
) -> pl.DataFrame:
    marks = [
        mark(r, ruleset, qualifiers, final=final)
        for r in df.select(
            "rank",
            "qualified",
            "needs_tiebreak",
            *(c for c in ("complete", "walkover") if c in df.columns),
        ).iter_rows(named=True)
    ]
    return df.with_columns(pl.Series("mark", marks, dtype=pl.String))


def table_caption(rows: pl.DataFrame, ruleset: str, regular_hands: int) -> str:
    """``7/10 hands · in progress · ⚖ tie-break hand needed`` for one match."""
    first = rows.row(0, named=True)
    if first.get("walkover"):
        return t("lb.walkover")
    parts = []
    if rulesets.load(ruleset).shows("qualification"):
        done = int(first.get("match_hands") or 0)
        parts.append(t("lb.hands_of", done=done, total=regular_hands))
        parts.append(t("lb.complete") if first.get("complete") else t("lb.in_progress"))
        if rows.get_column("needs_tiebreak").any():
            parts.append(t("lb.tiebreak_needed") if first.get("complete") else t("lb.tied"))
    else:
        # "hands" is an integer column: its max is an int, or None when every value is null
        parts.append(t("lb.hands", done=int(cast(int | None, rows.get_column("hands").max()) or 0)))
    return " · ".join(parts)


def mark_class(m: str) -> str:
    """How a mark is coloured: ``tie`` (yellow: a tie-break hand is needed), ``zone``
    (green: qualified or in the zone), or nothing (a tie while the match is played)."""
    if m.startswith("⚖"):
        return "tie"
    if m.startswith("◆"):
        return "place"
    if m and not m.startswith("="):
        return "zone"
    return ""


ZONE_PAINT = {
    "tie": "rgba(255, 193, 7, 0.25)",
    "zone": "rgba(46, 160, 67, 0.18)",
    "place": "rgba(212, 160, 23, 0.16)",
}


def _zone_css() -> None:
    """Static CSS (no data in it): a card's row painted by its mark's class
    (:func:`mark_class`)."""
    st.html(
        "<style>"
        + " ".join(
            f".table-card tr.{k} td {{background-color: {paint};}}"
            for k, paint in ZONE_PAINT.items()
        )
        + "</style>"
    )


def _tables(d: dict[str, Any]) -> None:
    tables: pl.DataFrame = d["tables"]
    if tables.height == 0:
        st.info(t("lb.no_tables"))
        return
    qualification = rulesets.load(d["ruleset"]).shows("qualification")
    if qualification:
        final = d.get("final")
        st.caption(t("lb.final.legend") if final else t("lb.zone.legend", n=d["qualifiers"]))
    st.html(
        data.derived(
            d, "lb_cards", lambda: cards_html(d, qualification=qualification), i18n.language()
        )
    )
    ui.downloads(
        ui.public_columns(d["tables"]),
        f"{d['event']}_{d['round']}_tables",
        t("lb.what.tables", round=d["round"]),
        key="dl_tables",
    )


def _seating(d: dict[str, Any]) -> None:
    """The drawn tables not started yet, each a card of its chairs: where to sit."""
    st.subheader(t("lb.seating", round=d["seating_round"]), anchor=False)
    st.caption(t("lb.seating.note"))
    st.html(data.derived(d, "lb_seating", lambda: seating_html(d), i18n.language()))


def seating_html(d: dict[str, Any]) -> str:
    """Each waiting table of :func:`dashboard.batches.seating_round` as a card: chair and
    player (not linked: an entrant may have no results to show yet)."""
    columns = [("chair", i18n.column("chair")), ("player", i18n.column("player"))]
    cards = [
        ui.card_html(
            t("lb.table", table=label),
            ui.html_table(
                rows.select("chair", "player").to_dicts(),
                columns,
                css_class="lb-table",
            ),
            t("lb.seating.waiting"),
        )
        for (label,), rows in d["seating"].group_by("table", maintain_order=True)
    ]
    return ui.cards_html(cards, per_row=3)


def cards_html(d: dict[str, Any], *, qualification: bool) -> str:
    """Each table of the round as a card (:func:`dashboard.ui.cards_html`): its label,
    caption and standings, the rows classed by their zone mark and the names linked to
    the players' pages (everything from the data escaped)."""
    rs, q, event = d["ruleset"], d["qualifiers"], d["event"]
    tables = _with_marks(d["tables"], rs, q, final=bool(d.get("final")))
    cards = []
    for (label,), rows in tables.group_by("table", maintain_order=True):
        columns = ["rank", "player", "points"]
        if qualification and ui.played_tiebreak(rows):
            columns.append("tiebreak_points")
        columns += ["mark"] if qualification else ["wins"]
        marks = rows.get_column("mark").to_list()
        table = ui.html_table(
            rows.select(columns).to_dicts(),
            [(c, "#" if c == "rank" else i18n.column(c)) for c in columns],
            css_class="lb-table",
            classes=[mark_class(m) for m in marks],
            link=lambda name: ui.profile_url(name, event),
        )
        caption = table_caption(rows, rs, d["regular_hands"])
        cards.append(ui.card_html(t("lb.table", table=label), table, caption))
    return ui.cards_html(cards, per_row=2)


def _session(d: dict[str, Any]) -> None:
    st.caption(t("lb.star.legend"))
    df: pl.DataFrame = d["session"].with_columns(
        pl.when(pl.col("star")).then(pl.lit("★")).otherwise(pl.lit("")).alias("star")
    )
    ui.table(
        df,
        key="lb_session",
        source=d,
        columns=["rank", "player", "points", "star", "hands", "wins"],
        static=True,
        labels={**RANK_LABEL, "star": "★"},
        links=True,
        event=d["event"],
    )
    ui.downloads(
        ui.public_columns(d["session"]),
        f"{d['event']}_{d['round']}_session",
        t("lb.what.session", round=d["round"]),
        key="dl_session",
    )


def event_columns(ruleset: str) -> list[str]:
    """The event standings' columns: the contract's and the ruleset's own. In a cup
    (unhas) the rank follows the round reached, then the rank at the table in that round,
    and only then points, so those two stand right after the player, before the points:
    a spectator sees why 11 points rank above 40."""
    book = rulesets.load(ruleset)
    own = book.columns("event")
    if book.shows("qualification"):
        return ["rank", "player", *own, "points"]
    return ["rank", "player", "points", *own]


def _after_note(d: dict[str, Any]) -> None:
    """The round picker applies to every tab: say when a tab shows "after round N"."""
    if not d["auto"]:
        st.caption(t("lb.after", round=d["round"]))


STATIC_ROWS = 100  # up to this many rows: a plain table (a phone scrolls it sideways)


def _event(d: dict[str, Any]) -> None:
    ev: pl.DataFrame = d["event_standings"]
    _after_note(d)
    if rulesets.load(d["ruleset"]).shows("qualification"):
        st.caption(t("lb.event.order"))
    ui.table(
        ev,
        key="lb_event",
        source=d,
        columns=event_columns(d["ruleset"]),
        static=ev.height <= STATIC_ROWS,
        labels=RANK_LABEL,
        links=True,
        event=d["event"],
    )
    ui.downloads(ui.public_columns(ev), f"{d['event']}_event", t("lb.what.event"), key="dl_event")
    st.caption(t("lb.all_tables"))
    ui.downloads(
        ui.public_columns(d["all_tables"]),
        f"{d['event']}_all_tables",
        t("lb.what.all_tables"),
        key="dl_all_tables",
    )
