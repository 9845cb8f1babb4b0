"""Player: one player across all events (queries in pipeline/standings/stats.py)."""

from typing import Any

import polars as pl
import streamlit as st

from dashboard import batches, data, ui
from dashboard.i18n import category, column, t
from dashboard.views.event_stats import chart

PLAYER_KEY = "player"


def render() -> None:
    st.title(t("pl.title"))
    res = data.read(batches.player_list)
    if ui.stale_note(res):
        return
    people: pl.DataFrame = res.value
    if people.height == 0:
        st.info(t("pl.none"))
        return
    keys = people.get_column("player_key").to_list()
    labels = dict(zip(keys, people.get_column("player").to_list(), strict=True))
    groups = dict(zip(keys, people.get_column("group").to_list(), strict=True))
    if ui.bound_value(PLAYER_KEY) not in labels:
        st.session_state[PLAYER_KEY] = keys[0]
    key = st.selectbox(
        t("pl.choose"),
        keys,
        key=PLAYER_KEY,
        format_func=lambda k: labels.get(k, str(k)) + (f" · {groups[k]}" if groups.get(k) else ""),
        bind="query-params",
    )
    pres = data.read(batches.player, key)
    if ui.stale_note(pres):
        return
    show(pres.value, labels.get(key, key), groups.get(key))


def show(d: dict[str, Any], name: str, group: str | None) -> None:
    st.subheader(ui.md(name))
    if group:
        st.caption(t("pl.group", group=ui.md(group)))
    if d.get("reserve_for"):
        st.caption(t("lg.reserve_for", group=ui.md(d["reserve_for"])))
    ev: pl.DataFrame = d["events"]
    hands = int(ev.get_column("hands").sum() or 0)
    points = int(ev.get_column("points").sum() or 0)
    ui.metrics(
        [
            (t("pl.m.events"), ev.height),
            (t("pl.m.matches"), int(ev.get_column("matches").sum() or 0)),
            (t("pl.m.hands"), hands),
            (t("pl.m.points"), points),
            (t("pl.m.pph"), f"{points / hands:.2f}" if hands else "–"),
            (t("pl.m.wins"), int(ev.get_column("wins").sum() or 0)),
        ]
    )

    _events(d)
    left, right = st.columns(2)
    with left:
        _categories(d)
    with right:
        _chairs(d)
    _fed(d)
    _timeline(d)
    _matches(d)


def _events(d: dict[str, Any]) -> None:
    ev: pl.DataFrame = d["events"]
    st.markdown(f"#### {t('pl.events')}")
    titles = data.event_titles()
    ui.table(
        ev.with_columns(pl.col("event").replace(titles)),
        key="pl_events",
        columns=[
            "event",
            "ruleset",
            "rank",
            "matches",
            "hands",
            "points",
            "points_per_hand",
            "wins",
        ],
        source=d,
    )


def _categories(d: dict[str, Any]) -> None:
    st.markdown(f"#### {t('pl.categories')}")
    cats: pl.DataFrame = d["categories"].with_columns(
        pl.col("category").map_elements(category, return_dtype=pl.String).alias("category")
    )
    if cats.height:
        chart(d, "pl_cat_chart", lambda: _categories_bar(cats))
    ui.table(
        cats, key="pl_categories", columns=["ruleset", "category", "hands", "points"], source=d
    )


def _categories_bar(cats: pl.DataFrame) -> Any:
    import plotly.express as px

    fig = px.bar(
        cats.to_pandas(),
        x="category",
        y="hands",
        color="ruleset",
        text="hands",
        labels={
            "category": column("category"),
            "hands": column("hands"),
            "ruleset": column("ruleset"),
        },
    )
    fig.update_layout(
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        height=300,
        showlegend=cats.get_column("ruleset").n_unique() > 1,
    )
    return fig


def _chairs(d: dict[str, Any]) -> None:
    st.markdown(f"#### {t('pl.chairs')}")
    chairs: pl.DataFrame = d["chairs"]
    if chairs.height:
        chart(d, "pl_chair_chart", lambda: _chairs_bar(chairs))
    ui.table(
        chairs,
        key="pl_chairs",
        columns=["chair", "hands", "wins", "points", "points_per_hand"],
        source=d,
    )


def _chairs_bar(chairs: pl.DataFrame) -> Any:
    import plotly.express as px

    fig = px.bar(
        chairs.to_pandas(),
        x="chair",
        y="points_per_hand",
        text="points_per_hand",
        labels={"chair": column("chair"), "points_per_hand": column("points_per_hand")},
    )
    fig.update_layout(margin={"l": 10, "r": 10, "t": 10, "b": 10}, height=300)
    return fig


def _fed(d: dict[str, Any]) -> None:
    fed: pl.DataFrame = d["fed"]
    st.markdown(f"#### {t('pl.fed')}")
    if fed.height:
        top = fed.row(0, named=True)
        st.markdown(
            t(
                "pl.fed.summary",
                times=int(fed.get_column("times").sum()),
                points=abs(int(fed.get_column("points_lost").sum())),
                winner=ui.md(top["winner"]),
                n=top["times"],
            )
        )
        ui.table(
            fed,
            key="pl_fed",
            columns=["winner", "times", "points_lost", "categories"],
            source=d,
        )
    else:
        st.caption(t("pl.fed.none"))


def _timeline(d: dict[str, Any]) -> None:
    st.markdown(f"#### {t('pl.timeline')}")
    tl: pl.DataFrame = d["timeline"]
    if tl.height:
        chart(d, "pl_timeline", lambda: _timeline_lines(tl))


def _timeline_lines(tl: pl.DataFrame) -> Any:
    import plotly.express as px

    fig = px.line(
        tl.to_pandas(),
        x="n",
        y="cumulative",
        color="event",
        markers=tl.height <= 60,
        hover_data=["round", "table", "hand", "category", "points"],
        labels={
            "n": t("pl.timeline.x"),
            "cumulative": t("pl.timeline.y"),
            "event": column("event"),
        },
    )
    fig.update_layout(
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        height=320,
        legend={"orientation": "h", "y": -0.25},
    )
    return fig


def _matches(d: dict[str, Any]) -> None:
    st.markdown(f"#### {t('pl.matches')}")
    ui.table(
        d["matches"],
        key="pl_matches",
        columns=[
            "event",
            "round",
            "table",
            "rank",
            "points",
            "hands",
            "wins",
            "qualified",
            "walkover",
        ],
        source=d,
    )
