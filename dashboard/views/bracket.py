"""The road to the final: every round's tables, who went where, who left where, the podium.

Read only, for everyone. The rows come from :func:`pipeline.standings.bracket.road` and
:func:`pipeline.standings.bracket.podium` (through ``dashboard.batches.road``); the page
only lays them out: round by round, each table in a box with its players, their points,
and where they went next (or that they went out there).
"""

from typing import Any

import polars as pl
import streamlit as st

from dashboard import batches, ui
from dashboard.i18n import column, t
from pipeline.standings import bracket

PER_ROW = 3  # tables side by side on a wide screen (a phone stacks them)
NBSP = "\u00a0"
EVENT_KEY = "event"  # the address's event, as on every event page (``/bracket?event=E``)
OLD_KEY = "br_event"  # how links made before named it


def render() -> None:
    st.title(t("br.title"))
    ui.cards_css()
    # where a player goes next may take two lines in a narrow card (see where_next); cells
    # a little closer than elsewhere, so a table with its tie-break column still fits its
    # card three a row beside the sidebar (1366 px) without scrolling sideways
    st.html(
        "<style>.br-table td:last-child {white-space: normal;}"
        " .table-card .br-table :is(td, th) {padding-left: .3rem; padding-right: .3rem;}</style>"
    )
    old = st.query_params.get(OLD_KEY)
    if old is not None:  # a link from before: the same event, under today's name
        del st.query_params[OLD_KEY]
        if EVENT_KEY not in st.query_params:
            st.session_state[EVENT_KEY] = old
    d = ui.event_batch(batches.road, EVENT_KEY, t("br.event"))
    if d is None:
        return
    road: pl.DataFrame = d["road"]
    if road.height == 0:
        st.info(t("br.empty"))
        return
    _podium(d)
    follow = st.selectbox(
        t("br.follow"),
        [None, *sorted(road.get_column("player").unique().to_list())],
        format_func=lambda p: t("br.follow.none") if p is None else p,
        key="br_follow",
    )
    for rnd in road.get_column("round").unique(maintain_order=True).to_list():
        _round(road.filter(pl.col("round") == rnd), rnd, follow)


def _podium(d: dict[str, Any]) -> None:
    podium: pl.DataFrame = d["podium"]
    st.subheader(t("br.podium"))
    if podium.height == 0:
        # why there is none: several tables, or one so far that nothing says stays alone
        grows = d.get("why_no_final") == bracket.MAY_GROW
        st.caption(t("br.podium.open", round=d["last_round"]) if grows else t("br.podium.none"))
        return
    if not podium.get_column("final").all():
        cup = d["qualification"]  # a cup's final table, or a league not over
        st.caption(t("br.podium.provisional" if cup else "br.podium.provisional.league"))
    word = "br.place.cup" if d["qualification"] else "br.place.league"
    shown = podium.with_columns(
        pl.col("place").map_elements(lambda n: t(word, n=n), return_dtype=pl.String)
    )
    ui.table(
        shown,
        key="br_podium",
        columns=["place", "player", "points"],
        static=True,
        labels={"place": "#"},
    )


def where_next(row: dict[str, Any]) -> str:
    """``lolos → R2 meja 1``, ``gugur``, ``masih main``, ``Peringkat 1`` (at the final
    table) … for one player at one table. In a narrow card it breaks after the outcome,
    never inside ``→ R2 meja 1``."""
    if row["outcome"] == "placed":  # at the final table
        return t("br.place.cup", n=row["rank"])
    outcome = t(f"br.outcome.{row['outcome']}")
    if row.get("next_table") is not None:
        to = t("br.to", round=row["next_round"], table=row["next_table"])
        return f"{outcome} {to.replace(' ', NBSP)}".strip()
    return outcome


def _columns(table: pl.DataFrame) -> list[tuple[str, str]]:
    """A table's columns, its tie-break points among them when it played a tie-break."""
    tiebreak = ui.played_tiebreak(table)
    return [
        ("rank", "#"),
        ("player", column("player")),
        ("points", column("points")),
        *([("tiebreak_points", t("br.tb"))] if tiebreak else []),
        ("next", "→"),
    ]


def _round(rows: pl.DataFrame, rnd: str, follow: str | None) -> None:
    st.subheader(t("br.round", round=rnd))
    rows = rows.with_columns(
        pl.Series("next", [where_next(r) for r in rows.iter_rows(named=True)], dtype=pl.String)
    )
    labels = rows.get_column("table").unique(maintain_order=True).to_list()
    if follow is not None:
        mine = rows.filter(pl.col("player") == follow).get_column("table").to_list()
        labels = [x for x in labels if x in mine]
    tables = [rows.filter(pl.col("table") == label) for label in labels]
    cards = [
        ui.card_html(
            t("br.table", table=label),
            ui.html_table(table.to_dicts(), _columns(table), css_class="br-table"),
        )
        for label, table in zip(labels, tables, strict=True)
    ]
    st.html(ui.cards_html(cards, per_row=PER_ROW))
    if any(ui.played_tiebreak(table) for table in tables):
        st.caption(t("br.tb.note"))
