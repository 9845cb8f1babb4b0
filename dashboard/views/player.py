"""Player: one player across all events (queries in pipeline/standings/stats.py)."""

from typing import Any

import polars as pl
import streamlit as st

from dashboard import batches, charts, data, profile_batches, ui
from dashboard.i18n import category, column, t
from dashboard.views import profile_parts

PLAYER_KEY = "player"
EVENT_KEY = "event"
VS_KEY = "vs"


def render() -> None:
    """The page of one player: its address carries ``?player=KEY`` (and optionally
    ``&event=E`` for the rounds of one event, ``&vs=KEY`` for a comparison), so a link
    shared on WhatsApp opens it as it was."""
    st.title(t("pl.title"))
    res = data.read(batches.player_list)
    if ui.stale_note(res):
        return
    people: pl.DataFrame = res.value
    if people.height == 0:
        st.info(t("pl.none"))
        return
    keys = people.get_column("player_key").to_list()
    labels = shown_names(people)
    groups = dict(zip(keys, people.get_column("group").to_list(), strict=True))
    wanted = ui.bound_value(PLAYER_KEY)
    if wanted not in labels and wanted not in labels.values():
        st.session_state[PLAYER_KEY] = keys[0]
    key = st.selectbox(
        t("pl.choose"),
        keys,
        key=PLAYER_KEY,
        format_func=lambda k: labels.get(k, str(k)),
        bind="query-params",
    )
    full = data.read(profile_batches.player, key)
    if ui.stale_note(full):
        return
    d: dict[str, Any] = dict(full.value)
    events = d["events"].get_column("event").to_list()
    event = _choose(EVENT_KEY, ["", *events], t("pf.event"), lambda e: e or t("pf.all_events"))
    others = ["", *(k for k in keys if k != key)]
    vs = _choose(VS_KEY, others, t("pf.vs"), lambda k: labels.get(k, t("pf.nobody")))
    if event:
        line = data.read(profile_batches.rounds, key, event)
        d["rounds"] = None if line.value is None else line.value
    show(d, labels.get(key, key), groups.get(key), key=key, event=event or None, source=full.value)
    if vs:
        cmp = data.read(profile_batches.compare, key, vs)
        if not ui.stale_note(cmp):
            profile_parts.compare(cmp.value, labels.get(key, key), labels.get(vs, vs))


def shown_names(people: pl.DataFrame) -> dict[str, str]:
    """Each player key's name as the page's choice shows it, and its address carries it
    (``?player=Name``); a name two players share gets its key after it."""
    names = people.get_column("player").to_list()
    keys = people.get_column("player_key").to_list()
    shared = {n for n in names if names.count(n) > 1} if len(set(names)) < len(names) else set()
    return {k: (f"{n} · {k}" if n in shared else n) for k, n in zip(keys, names, strict=True)}


def _choose(key: str, options: list[str], label: str, fmt: Any) -> str:
    """A choice bound to the address; a value the data does not have falls back to none."""
    wanted = ui.bound_value(key, "")
    if wanted not in options and wanted not in [fmt(o) for o in options]:
        st.session_state[key] = ""
    return str(st.selectbox(label, options, key=key, format_func=fmt, bind="query-params"))


def show(
    d: dict[str, Any],
    name: str,
    group: str | None,
    *,
    key: str = "",
    event: str | None = None,
    source: Any = None,
) -> None:
    st.subheader(ui.md(name))
    if group:
        st.caption(t("pl.group", group=ui.md(group)))
    if d.get("reserve_for"):
        st.caption(t("lg.reserve_for", group=ui.md(d["reserve_for"])))
    url = ui.profile_url(name, event=event)
    st.markdown(t("pf.share", label=ui.md(name), url=url))
    ev: pl.DataFrame = d["events"]
    hands = int(ev.get_column("hands").sum() or 0)
    points = int(ev.get_column("points").sum() or 0)
    ui.metrics(
        [
            *profile_parts.rating_metrics(d.get("ratings", pl.DataFrame())),
            (t("pl.m.events"), ev.height),
            (t("pl.m.matches"), int(ev.get_column("matches").sum() or 0)),
            (t("pl.m.hands"), hands),
            (t("pl.m.points"), points),
            (t("pl.m.pph"), f"{points / hands:.2f}" if hands else "–"),
            (t("pl.m.wins"), int(ev.get_column("wins").sum() or 0)),
        ]
    )
    if "history" in d:
        profile_parts.history(d["history"], source)
        profile_parts.form(d["form"])
        profile_parts.rounds(d.get("rounds"), event)
    _events(ev)
    left, right = st.columns(2)
    with left:
        profile_parts.wins(d["categories"], source)
    with right:
        if "achievements" in d:
            profile_parts.achievements(d["achievements"])
    _categories(d["categories"], source)
    _chairs(d["chairs"], source)
    _fed(d["fed"])
    _timeline(d["timeline"], source)
    _matches(d["matches"])


def _events(ev: pl.DataFrame) -> None:
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
    )


def _categories(categories: pl.DataFrame, source: Any = None) -> None:
    st.markdown(f"#### {t('pl.categories')}")
    cats: pl.DataFrame = categories.with_columns(
        pl.col("category").map_elements(category, return_dtype=pl.String).alias("category")
    )
    charts.hbar(
        cats,
        "category",
        "hands",
        key="pl_cat_chart",
        color="ruleset",
        labels={"category": column("category"), "hands": column("hands")},
        source=source,
    )
    ui.table(cats, key="pl_categories", columns=["ruleset", "category", "hands", "points"])


def _chairs(chairs: pl.DataFrame, source: Any = None) -> None:
    st.markdown(f"#### {t('pl.chairs')}")
    if chairs.height:
        charts.draw(
            "pl_chair_chart",
            lambda: charts.bars_spec(chairs, "chair", "points_per_hand", text=True, height=260),
            source,
        )
    ui.table(
        chairs, key="pl_chairs", columns=["chair", "hands", "wins", "points", "points_per_hand"]
    )


def _fed(fed: pl.DataFrame) -> None:
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
        ui.table(fed, key="pl_fed", columns=["winner", "times", "points_lost", "categories"])
    else:
        st.caption(t("pl.fed.none"))


def _timeline(tl: pl.DataFrame, source: Any = None) -> None:
    st.markdown(f"#### {t('pl.timeline')}")
    if tl.height:
        titles = data.event_titles()
        charts.draw("pl_timeline", lambda: timeline_spec(tl, titles), source)


def timeline_spec(tl: pl.DataFrame, titles: dict[str, str]) -> charts.Spec:
    """The running total over every hand the player played: one line in one colour,
    broken between events (each event's total starts again at 0), each hand's event named
    by its title. A line and a legend entry per event named 40 to 60 events for a busy
    player, unreadable on a phone."""
    return charts.line_spec(
        tl.sort("n").with_columns(pl.col("event").replace(titles)),
        "n",
        "cumulative",
        tooltip=["event", "round", "table", "hand", "category", "points"],
        labels={"n": t("pl.timeline.x"), "cumulative": t("pl.timeline.y")},
        detail="event",
        points=tl.height <= 60,
        height=300,
    )


def _matches(matches: pl.DataFrame) -> None:
    st.markdown(f"#### {t('pl.matches')}")
    ui.table(
        matches,
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
    )
