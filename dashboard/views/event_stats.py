"""Event statistics: how hands ended, pips left, points, per-table and per-round, groups."""

from typing import Any

import plotly.express as px
import polars as pl
import streamlit as st

from dashboard import batches, data, ui
from dashboard.i18n import category, column, t
from pipeline import rulesets

EVENT_KEY = "event"
CHART_CONFIG = {"displayModeBar": False, "responsive": True}
_MARGIN = {"l": 10, "r": 10, "t": 10, "b": 10}


def render() -> None:
    st.title(t("st.title"))
    res = data.read(batches.event_stats, ui.bound_value(EVENT_KEY))
    if ui.stale_note(res):
        return
    d: dict[str, Any] = res.value
    if d["event"] is None:
        st.info(t("no_events"))
        return
    if ui.bound_value(EVENT_KEY) != d["event"]:
        st.session_state[EVENT_KEY] = d["event"]
    st.selectbox(t("lb.event"), d["events"], key=EVENT_KEY, bind="query-params")
    show(d)


def show(d: dict[str, Any]) -> None:
    rs = d["ruleset"]
    tables: pl.DataFrame = d["tables"]
    ui.metrics(
        [
            (t("st.m.rounds"), d["rounds"].height),
            (t("st.m.matches"), tables.height),
            (
                t("st.m.hands"),
                int(d["rounds"].get_column("hands").sum() or 0) if d["rounds"].height else 0,
            ),
        ]
    )

    left, right = st.columns(2)
    with left:
        st.markdown(f"#### {t('st.endings')}")
        endings: pl.DataFrame = d["endings"]
        if endings.height:
            fig = px.pie(endings.to_pandas(), names="ending", values="hands", hole=0.45)
            fig.update_traces(textinfo="label+percent")
            fig.update_layout(margin=_MARGIN, height=300, showlegend=False)
            st.plotly_chart(fig, key="st_endings_chart", config=CHART_CONFIG)
        ui.table(
            endings.with_columns((pl.col("share") * 100).round(1).alias("share")),
            key="st_endings",
            columns=["ending", "hands", "share"],
        )
    with right:
        st.markdown(f"#### {t('st.categories')}")
        cats: pl.DataFrame = d["categories"].with_columns(
            pl.col("category").map_elements(category, return_dtype=pl.String).alias("category"),
            (pl.col("share") * 100).round(1).alias("share"),
        )
        if cats.height:
            fig = px.bar(
                cats.to_pandas(),
                x="category",
                y="seats",
                text="share",
                labels={"category": column("category"), "seats": column("seats")},
            )
            fig.update_traces(texttemplate="%{text}%")
            fig.update_layout(margin=_MARGIN, height=300)
            st.plotly_chart(fig, key="st_categories_chart", config=CHART_CONFIG)
        ui.table(cats, key="st_categories", columns=["category", "seats", "share", "points"])

    st.markdown(f"#### {t('st.pips')}")
    pips: pl.DataFrame = d["pips"]
    if pips.height:
        fig = px.histogram(
            pips.with_columns(
                pl.col("category").map_elements(category, return_dtype=pl.String)
            ).to_pandas(),
            x="value",
            color="category",
            nbins=min(40, max(5, pips.get_column("value").n_unique())),
            labels={"value": t("st.pips.x"), "category": column("category")},
        )
        fig.update_layout(
            margin=_MARGIN,
            height=300,
            bargap=0.05,
            legend={"orientation": "h", "y": -0.3},
            yaxis_title=column("seats"),
        )
        st.plotly_chart(fig, key="st_pips_chart", config=CHART_CONFIG)
    else:
        st.caption(t("st.pips.none"))

    st.markdown(f"#### {t('st.points')}")
    left, right = st.columns(2)
    with left:
        st.caption(t("st.points.hand"))
        spread: pl.DataFrame = d["hand_spread"]
        if spread.height:
            fig = px.bar(
                spread.to_pandas(),
                x="points",
                y="seats",
                labels={"points": column("points"), "seats": column("seats")},
            )
            fig.update_layout(margin=_MARGIN, height=260)
            st.plotly_chart(fig, key="st_hand_points_chart", config=CHART_CONFIG)
    with right:
        st.caption(t("st.points.match"))
        mp: pl.DataFrame = d["match_points"]
        if mp.height:
            fig = px.histogram(mp.to_pandas(), x="points", labels={"points": column("points")})
            fig.update_layout(
                margin=_MARGIN, height=260, bargap=0.05, yaxis_title=column("players")
            )
            st.plotly_chart(fig, key="st_match_points_chart", config=CHART_CONFIG)

    st.markdown(f"#### {t('st.rounds')}")
    ui.table(
        d["rounds"],
        key="st_rounds",
        columns=["round", "tables", "players", "hands", "complete", "walkovers", "common_ending"],
    )
    st.markdown(f"#### {t('st.tables')}")
    ui.table(
        tables,
        key="st_tables",
        columns=[
            "round",
            "table",
            "players",
            "hands",
            "complete",
            "walkover",
            "needs_tiebreak",
            "leader",
            "top_points",
            "bottom_points",
            "version",
        ],
    )

    book = rulesets.load(rs)
    if "group" in book.levels:
        st.markdown(f"#### {t('st.groups')}")
        groups = d["groups"]
        if groups is not None and groups.height:
            fig = px.bar(
                groups.to_pandas(),
                x="group",
                y="points",
                text="points",
                labels={"group": column("group"), "points": column("points")},
            )
            fig.update_layout(margin=_MARGIN, height=280)
            st.plotly_chart(fig, key="st_groups_chart", config=CHART_CONFIG)
            ui.table(
                groups, key="st_groups", columns=["rank", "group", "points", "hands", "players"]
            )
            ui.downloads(
                ui.public_columns(groups),
                f"{d['event']}_groups",
                t("lb.what.groups"),
                key="st_dl_groups",
            )
        else:
            st.caption(t("st.groups.none"))

    st.markdown(f"#### {t('st.point_table', ruleset=rs)}")
    if "points_are_default" in book.params:
        st.info(
            t("st.point_table.organiser")
            + "\n\n"
            + (
                t("st.point_table.default")
                if d["points_are_default"]
                else t("st.point_table.custom")
            )
        )
    else:
        st.caption(t("st.point_table.rulebook", title=book.title))
    ui.table(d["point_table"], key="st_point_table")
