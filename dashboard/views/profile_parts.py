"""The sections of a player's page that follow them across events: ratings and their
history, recent form, results per round, wins by category, achievements, and two players
side by side (queries in pipeline/standings/profile.py and h2h.py)."""

from typing import Any

import polars as pl
import streamlit as st

from dashboard import charts, data, ui
from dashboard.i18n import category, column, t
from pipeline import settings
from pipeline.standings.stats import WINNING


def rating_metrics(ratings: pl.DataFrame) -> list[tuple[str, Any]]:
    """One metric per ladder the player is rated on: the ordinal, provisional marked."""
    need = int(settings.get("provisional_matches"))
    out = []
    for r in ratings.iter_rows(named=True):
        # two decimals, as the rating leaderboard writes it
        value = ui.decimal(r["ordinal"], 2) + (" ◔" if r["provisional"] else "")
        out.append((t("pf.m.rating", ruleset=r["ruleset"]), value))
    if ratings.height and ratings["provisional"].any():
        fewest = ratings.filter(pl.col("provisional"))["matches"].cast(pl.Int64).min()
        st.caption(t("pf.provisional", n=fewest, need=need))
    return out


def history(hist: pl.DataFrame, source: Any = None) -> None:
    st.markdown(f"#### {t('pf.history')}")
    if hist.height == 0:
        st.caption(t("pf.history.none"))
        return
    charts.draw(
        "pf_history",
        lambda: charts.line_chart(
            hist.with_columns(
                pl.int_range(1, pl.len() + 1).over("ruleset").alias("n"),
                pl.col("ordinal").round(2),
                data.titled(),
            ),
            "n",
            "ordinal",
            tooltip=["played_on", "event", "round", "table", "rank"],
            labels={"n": t("pf.history.x"), "ordinal": t("rt.col.ordinal")},
            color="ruleset",
            points=hist.height <= 80,
            height=260,
        ),
        source,
    )


def form(rows: pl.DataFrame) -> None:
    st.markdown(f"#### {t('pf.form', n=int(settings.get('form_matches')))}")
    if rows.height == 0:
        return
    places = " · ".join(f"{r}/{p}" for r, p in zip(rows["rank"], rows["players"], strict=True))
    st.markdown(t("pf.form.line", places=places))
    ui.table(
        rows.with_columns(
            pl.format("{}/{}", "rank", "players").alias("place"),
            pl.col("played_on").cast(pl.String),
            data.titled(),
        ),
        key="pf_form",
        columns=["played_on", "event", "round", "table", "place", "points", "change"],
        labels={
            "place": t("pf.col.place"),
            "change": t("rt.col.change"),
            "played_on": t("rt.col.last_played"),
        },
        static=True,
        decimals={"change": 2},
    )


def rounds(line: pl.DataFrame | None, event: str | None) -> None:
    if line is None or event is None:
        return
    st.markdown(f"#### {t('pf.rounds', event=ui.md(data.title(event)))}")
    ui.table(
        line,
        key="pf_rounds",
        columns=["round", "table", "points", "table_rank", "total", "event_rank"],
        labels={"total": t("pf.col.total"), "event_rank": t("pf.col.event_rank")},
        static=True,
    )


def wins(categories: pl.DataFrame, source: Any = None) -> None:
    """Hands won per category, in the rulebook's words."""
    st.markdown(f"#### {t('pf.wins')}")
    won = categories.filter(pl.col("category").is_in(list(WINNING))).with_columns(
        pl.col("category").map_elements(category, return_dtype=pl.String)
    )
    if won.height == 0:
        st.caption(t("pf.wins.none"))
        return
    charts.hbar(
        won.sort("hands", descending=True),
        "category",
        "hands",
        key="pf_wins_chart",
        color="ruleset",
        labels={"category": column("category"), "hands": column("hands")},
        source=source,
    )


def achievements(held: pl.DataFrame) -> None:
    st.markdown(f"#### {t('pf.achievements')}")
    if held.height == 0:
        st.caption(t("pf.achievements.none"))
        return
    lines = []
    for a in held.with_columns(data.titled()).iter_rows(named=True):
        values = {k: ("" if v is None else ui.md(v)) for k, v in a.items()}
        lines.append(f"- {t('pf.ach.' + a['code'], **values)}")
    st.markdown("\n".join(lines))


def compare(d: dict[str, Any], name_a: str, name_b: str) -> None:
    """Two players side by side: their ratings, then their head-to-head."""
    st.markdown(f"#### {t('pf.compare', a=ui.md(name_a), b=ui.md(name_b))}")
    left, right = st.columns(2)
    for col, name, ratings in ((left, name_a, d["ratings_a"]), (right, name_b, d["ratings_b"])):
        with col:
            st.markdown(f"**{ui.md(name)}**")
            ui.metrics(rating_metrics(ratings) or [(t("rt.col.ordinal"), "–")])
    s = d["summary"]
    if s["tables"] == 0:
        st.caption(t("pf.h2h.none"))
        return
    a, b = ui.md(name_a), ui.md(name_b)
    st.markdown(
        t(
            "pf.h2h",
            tables=s["tables"],
            a=a,
            b=b,
            wa=s["ahead_a"],
            wb=s["ahead_b"],
            level=s["level"],
            pa=s["points_a"],
            pb=s["points_b"],
        )
    )
    st.markdown(
        t("pf.h2h.fed", a=a, b=b, n=s["a_fed_b"], p=s["a_fed_b_points"])
        + "  \n"
        + t("pf.h2h.fed", a=b, b=a, n=s["b_fed_a"], p=s["b_fed_a_points"])
    )
    shared: pl.DataFrame = d["tables"].with_columns(
        pl.col("ahead").replace({"a": name_a, "b": name_b, "level": "="}),
        data.titled(),
    )
    ui.table(
        shared,
        key="pf_h2h",
        columns=["event", "round", "table", "rank_a", "rank_b", "points_a", "points_b", "ahead"],
        labels={
            "rank_a": f"{column('rank')} · {name_a}",
            "rank_b": f"{column('rank')} · {name_b}",
            "points_a": f"{column('points')} · {name_a}",
            "points_b": f"{column('points')} · {name_b}",
            "ahead": t("pf.col.ahead"),
        },
    )
