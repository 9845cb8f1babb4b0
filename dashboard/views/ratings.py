"""Rating leaderboard: one ladder per ruleset, filtered by event level, period and group;
provisional ratings marked (pipeline/standings/profile.py's rating_board)."""

from datetime import date

import polars as pl
import streamlit as st

from dashboard import data, profile_batches, ui
from dashboard.i18n import t
from pipeline import settings

RULESET_KEY = "ladder"
LEVEL_KEY = "level"
GROUP_KEY = "kg"
PERIOD_KEY = "period"
ANY = ""
#: The period picker's width in pixels: ``yyyy-mm-dd – yyyy-mm-dd`` whole.
PERIOD_WIDTH = 250


def columns_labels() -> dict[str, str]:
    return {
        "ordinal": t("rt.col.ordinal"),
        "mu": t("rt.col.mu"),
        "sigma": t("rt.col.sigma"),
        "matches": t("rt.col.matches"),
        "provisional": t("rt.col.provisional"),
        "last_played": t("rt.col.last_played"),
    }


def render() -> None:
    st.title(t("rt.title"))
    res = data.read(profile_batches.rating_filters)
    if ui.stale_note(res):
        return
    f: dict[str, list[str]] = res.value
    if not f["ladders"]:
        st.info(t("rt.none"))
        return
    ladders, any_level, any_group = f["ladders"], [ANY, *f["levels"]], [ANY, *f["groups"]]
    gone = [
        ui.settle(RULESET_KEY, ladders, ladders[0]),
        ui.settle(LEVEL_KEY, any_level, ANY),
        ui.settle(GROUP_KEY, any_group, ANY),
    ]
    with st.container(horizontal=True, wrap=True):
        ladder = st.selectbox(t("rt.ruleset"), ladders, key=RULESET_KEY, bind="query-params")
        level = _choice(t("rt.level"), any_level, LEVEL_KEY)
        group = _choice(t("rt.group"), any_group, GROUP_KEY)
        # wide enough for its placeholder (a start and an end date) on a phone
        period = st.date_input(
            t("rt.period"), value=[], key=PERIOD_KEY, format="YYYY-MM-DD", width=PERIOD_WIDTH
        )
    # a link's ladder, level or group that is not there: said, not quietly widened
    for label, asked, options, shown in zip(
        ("rt.ruleset", "rt.level", "rt.group"),
        gone,
        (ladders, f["levels"], f["groups"]),
        (ladders[0], t("rt.any"), t("rt.any")),
        strict=True,
    ):
        ui.not_there_note(t(label), asked, options, shown)
    since, until = _period(period)
    board = data.read(profile_batches.rating_board, ladder, level, since, until, group)
    if ui.stale_note(board):
        return
    show(board.value, ladder)


def _choice(label: str, options: list[str], key: str) -> str | None:
    value = st.selectbox(
        label,
        options,
        key=key,
        format_func=lambda v: v or t("rt.any"),
        bind="query-params",
    )
    return value or None


def _period(value: object) -> tuple[date | None, date | None]:
    """The date input's range: nothing chosen, one day, or a start and an end."""
    days = [d for d in (value if isinstance(value, tuple | list) else (value,)) if d]
    if not days:
        return None, None
    return days[0], days[-1]


def show(board: pl.DataFrame, ladder: str) -> None:
    st.caption(t("rt.explain", n=int(settings.get("provisional_matches"))))
    if board.height == 0:
        st.info(t("rt.empty_filter"))
        return
    shown = board.with_columns(
        pl.col("last_played").cast(pl.String),
        pl.when(pl.col("provisional")).then(pl.lit("◔")).otherwise(pl.lit("")).alias("provisional"),
    )
    ui.table(
        shown,
        key="rt_board",
        columns=[
            "rank",
            "player",
            "ordinal",
            "provisional",
            "matches",
            "group",
            "last_played",
            "mu",
            "sigma",
        ],
        labels=columns_labels(),
        links=True,
        decimals=dict.fromkeys(("ordinal", "mu", "sigma"), 2),
    )
    ui.downloads(ui.public_columns(board), f"ratings_{ladder}", t("rt.what"), key="rt_dl")
