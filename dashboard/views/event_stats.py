"""Event statistics: how hands ended, pips left, points, per-table and per-round, groups.

Every count of hands on the page is the same number: the hands played, tie-break hands
included; a walkover is not a hand played (it is counted as a WO). Endings, categories and
point-table rows are shown in the rulebook's words (:func:`dashboard.i18n.category`),
never as the ruleset's codes; no file path is shown to a visitor.
"""

from typing import Any

import polars as pl
import streamlit as st

from dashboard import batches, charts, data, ui
from dashboard.i18n import category, column, t
from pipeline import rulesets

EVENT_KEY = "event"


def render() -> None:
    st.title(t("st.title"))
    d = ui.event_batch(batches.event_stats, EVENT_KEY, t("lb.event"))
    if d is None:
        return
    st.subheader(ui.md(data.title(d["event"])), anchor=False)
    if d["tables"].height == 0:  # created or drawn, nothing played: no zeros and empty tables
        st.info(t("st.none"))
        return
    show(d)


def labelled(df: pl.DataFrame, *names: str) -> pl.DataFrame:
    """``df`` with the code columns ``names`` (ending, category) in the rulebook's words."""
    return df.with_columns(
        pl.col(c).map_elements(category, return_dtype=pl.String).alias(c)
        for c in names
        if c in df.columns
    )


def hands_played(d: dict[str, Any]) -> int:
    """The page's one count of hands: hands played, tie-break hands included, walkovers
    not — the sum of the per-round summary, which is also the endings table's total."""
    rounds: pl.DataFrame = d["rounds"]
    return int(rounds.get_column("hands").sum() or 0) if rounds.height else 0


def show(d: dict[str, Any]) -> None:
    tables: pl.DataFrame = d["tables"]
    walkovers = int(tables.get_column("walkover").sum() or 0) if tables.height else 0
    ui.metrics(
        [
            (t("st.m.rounds"), d["rounds"].height),
            (t("st.m.matches"), tables.height),
            (t("st.m.hands"), hands_played(d)),
            (t("st.m.walkovers"), walkovers),
        ]
    )
    st.caption(t("st.m.hands.help"))
    book = rulesets.load(d["ruleset"])
    names = ["st.tab.hands", "st.tab.points", "st.tab.rounds"]
    if "group" in book.levels:
        names.append("st.tab.groups")
    tabs = ui.sections(names)
    if tabs[0].open:
        with tabs[0]:
            _endings_and_categories(d)
            _pips(d)
    if tabs[1].open:
        with tabs[1]:
            _points(d)
            _point_table(d, book)
    if tabs[2].open:
        with tabs[2]:
            _summaries(d)
    if len(tabs) > 3 and tabs[3].open:
        with tabs[3]:
            _groups(d)


def _endings_and_categories(d: dict[str, Any]) -> None:
    left, right = st.columns(2)
    with left:
        st.markdown(f"#### {t('st.endings')}")
        endings = labelled(d["endings"], "ending")
        charts.hbar(
            endings,
            "ending",
            "hands",
            key="st_endings_chart",
            labels={"ending": column("ending"), "hands": column("hands")},
            source=d,
        )
        ui.table(
            endings.with_columns((pl.col("share") * 100).round(1).alias("share")),
            key="st_endings",
            columns=["ending", "hands", "share"],
            static=True,
        )
    with right:
        st.markdown(f"#### {t('st.categories')}")
        cats = labelled(d["categories"], "category").with_columns(
            (pl.col("share") * 100).round(1).alias("share")
        )
        charts.hbar(
            cats,
            "category",
            "seats",
            key="st_categories_chart",
            labels={"category": column("category"), "seats": column("seats")},
            source=d,
        )
        ui.table(
            cats, key="st_categories", columns=["category", "seats", "share", "points"], static=True
        )


def _pips(d: dict[str, Any]) -> None:
    st.markdown(f"#### {t('st.pips')}")
    pips: pl.DataFrame = d["pips"]
    if not pips.height:
        st.caption(t("st.pips.none"))
        return
    charts.draw(
        "st_pips_chart",
        lambda: charts.histogram_chart(
            labelled(pips, "category"),
            "value",
            count_title=column("seats"),
            labels={"value": t("st.pips.x")},
            color="category",
            bins=min(40, max(5, pips.get_column("value").n_unique())),
            height=360,  # the legend below takes its part
        ),
        d,
    )


def _points(d: dict[str, Any]) -> None:
    st.markdown(f"#### {t('st.points')}")
    left, right = st.columns(2)
    with left:
        st.caption(t("st.points.hand"))
        spread: pl.DataFrame = d["hand_spread"]
        if spread.height:
            charts.draw(
                "st_hand_points_chart", lambda: charts.bars_chart(spread, "points", "seats"), d
            )
    with right:
        st.caption(t("st.points.match"))
        mp: pl.DataFrame = d["match_points"]
        if mp.height:
            charts.draw(
                "st_match_points_chart",
                lambda: charts.histogram_chart(mp, "points", count_title=column("players")),
                d,
            )


def _summaries(d: dict[str, Any]) -> None:
    st.markdown(f"#### {t('st.rounds')}")
    ui.table(
        labelled(d["rounds"], "common_ending"),
        key="st_rounds",
        columns=["round", "tables", "players", "hands", "complete", "walkovers", "common_ending"],
    )
    st.markdown(f"#### {t('st.tables')}")
    ui.table(
        d["tables"],
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


def _groups(d: dict[str, Any]) -> None:
    st.markdown(f"#### {t('st.groups')}")
    groups = d["groups"]
    if groups is None or not groups.height:
        st.caption(t("st.groups.none"))
        return
    charts.hbar(
        groups,
        "group",
        "points",
        key="st_groups_chart",
        labels={"group": column("group"), "points": column("points")},
        source=d,
    )
    ui.table(groups, key="st_groups", columns=["rank", "group", "points", "hands", "players"])
    ui.downloads(
        ui.public_columns(groups),
        f"{d['event']}_groups",
        t("lb.what.groups"),
        key="st_dl_groups",
    )


def _point_table(d: dict[str, Any], book: rulesets.Ruleset) -> None:
    st.markdown(f"#### {t('st.point_table', ruleset=d['ruleset'])}")
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
        st.caption(t("st.point_table.rulebook", title=ui.md(book.title)))
    ui.table(labelled(d["point_table"], "category"), key="st_point_table")
