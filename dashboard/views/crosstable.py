"""Cross-table of an event (chess-results style): player × round with the table, the
points, the place at the table and the event rank after each round; sortable, with the
standings after any round, and CSV/XLSX downloads (pipeline/standings/crosstable.py)."""

import polars as pl
import streamlit as st

from dashboard import profile_batches, ui
from dashboard.i18n import t
from pipeline.standings import crosstable

EVENT_KEY = "event"
AFTER_KEY = "after"


def render() -> None:
    st.title(t("ct.title"))
    d = ui.event_batch(profile_batches.cross, EVENT_KEY, t("lb.event"))
    if d is None:
        return
    show(d["long"], d["event"])


def wide_labels(rounds: list[str]) -> dict[str, str]:
    """Headers of the wide cross-table in the session's language."""
    out = {"total": t("pf.col.total"), "rank": t("pf.col.event_rank")}
    for rd in rounds:
        out |= {
            f"{rd} table": t("ct.col.table", round=rd),
            f"{rd} points": t("ct.col.points", round=rd),
            f"{rd} place": t("ct.col.place", round=rd),
            f"{rd} rank": t("ct.col.rank", round=rd),
        }
    return out


def show(long: pl.DataFrame, event: str) -> None:
    rounds = long.select("round", "round_no").unique().sort("round_no")["round"].to_list()
    if not rounds:
        st.info(t("ct.none"))
        return
    st.caption(t("ct.explain"))
    wide = crosstable.wide(long)
    ui.table(
        wide,
        key="ct_wide",
        columns=[c for c in wide.columns if c != "player_key"],
        labels=wide_labels(rounds),
        links=True,
        event=event,
    )
    ui.downloads(ui.public_columns(wide), f"{event}_crosstable", t("ct.what"), key="ct_dl")
    gone = ui.settle(AFTER_KEY, rounds, rounds[-1], event)
    after = st.selectbox(t("ct.after"), rounds, key=AFTER_KEY, bind="query-params")
    ui.not_there_note(t("ct.after"), gone, rounds, rounds[-1])
    step = (
        long.filter(pl.col("round") == after)
        .select("event_rank", "player", "total", "player_key")
        .rename({"event_rank": "rank", "total": "points"})
        .sort("rank", "player")
    )
    ui.table(step, key="ct_after", columns=["rank", "player", "points"], links=True, event=event)
