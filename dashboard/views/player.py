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
    ``&event=E`` for the rounds of one event, ``&vs=KEY`` for a comparison, ``&tab=T``
    for a tab other than the first), so a link shared on WhatsApp opens it as it was."""
    st.title(t("pl.title"))
    res = data.read(batches.player_list)
    if ui.stale_note(res):
        return
    people: pl.DataFrame = res.value
    if people.height == 0:
        st.info(t("pl.none"))
        return
    index = data.derived(res.value, "player_index", lambda: batches.player_index(people))
    labels: dict[str, str] = index["labels"]
    key = _player_picker(PLAYER_KEY, index, t("pl.choose"))
    if key is None:
        return
    full = data.read(profile_batches.player, key)
    if ui.stale_note(full):
        return
    d: dict[str, Any] = dict(full.value)
    events = d["events"].get_column("event").to_list()
    event = _event_picker(events)
    vs = _player_picker(VS_KEY, index, t("pf.vs"), without=key)
    if event:
        line = data.read(profile_batches.rounds, key, event)
        d["rounds"] = None if line.value is None else line.value
    compared = None
    if vs:
        cmp = data.read(profile_batches.compare, key, vs)
        if not ui.stale_note(cmp):
            compared = (cmp.value, labels.get(key, key), labels.get(vs, vs))
    show(
        d,
        labels.get(key, key),
        index["groups"].get(key),
        event=event or None,
        source=full.value,
        compared=compared,
    )


def _player_picker(
    key: str, index: dict[str, Any], label: str, *, without: str | None = None
) -> str | None:
    """A player picker bound to the address's ``key``: the players who played most, the
    one shown, and any other by typing part of their name (:func:`batches.player_choice`).
    With ``without`` (the player whose page it is) it may show nobody ("")."""
    labels = index["labels"]
    optional = without is not None
    choice = batches.player_choice(index, ui.bound_value(key), without=without, optional=optional)
    nobody = t("pf.nobody")
    ui.picker(
        st,
        key,
        label,
        choice["players"],
        choice["player"],
        choice.get("search"),
        format_func=lambda k: labels.get(k, nobody if k == "" else str(k)),
        help=t("pl.search.help"),
    )
    ui.search_note(choice["player"], key, lambda k: labels.get(k, nobody), what="pl")
    return choice["player"]


def _event_picker(events: list[str]) -> str:
    """The player's events, each by its title, bound to the address's ``event``: a link
    names the event by its id (or, once picked here, by its title), typed text picks the
    first of them whose id or title holds it; anything else, such as an event this player
    did not play, shows all events ("")."""
    titles = data.event_titles()
    wanted = str(ui.bound_value(EVENT_KEY, "") or "")
    # another event's id (carried over from an event page) is not text to look for
    text = "" if wanted in titles else wanted.casefold()
    found = [e for e in events if text and any(text in n.casefold() for n in (e, titles.get(e, e)))]
    shown = wanted if wanted in events else (found[0] if found else "")
    ui.picker(
        st,
        EVENT_KEY,
        t("pf.event"),
        ["", *events],
        shown,
        None,
        format_func=lambda e: titles.get(e, e) if e else t("pf.all_events"),
        help=t("pf.event.help"),
    )
    return shown


def _replaced(subs: pl.DataFrame | None) -> None:
    """Each match played as a reserve and whom for (the sheet's or the roster's record)."""
    if subs is None or subs.height == 0:
        return
    lines = [
        t(
            "lg.replaced" if r["replaces"] else "lg.replaced.nobody",
            member=ui.md(r["replaces"] or ""),
            event=ui.md(r["title"]),
            round=ui.md(r["round"]),
            table=ui.md(r["table"]),
        )
        for r in subs.iter_rows(named=True)
    ]
    st.caption("  \n".join(lines))


def show(
    d: dict[str, Any],
    name: str,
    group: str | None,
    *,
    event: str | None = None,
    source: Any = None,
    compared: tuple[dict[str, Any], str, str] | None = None,
) -> None:
    """The player's headline and totals, the comparison when one is chosen, then three
    tabs of which only the open one is drawn: an overview (ratings, form, events,
    achievements), their hands (wins, categories, chairs, whom they fed) and their
    matches (the running total and every match)."""
    st.subheader(ui.md(name))
    if group:
        st.caption(t("pl.group", group=ui.md(group)))
    if d.get("reserve_for"):
        st.caption(t("lg.reserve_for", group=ui.md(d["reserve_for"])))
        _replaced(d.get("replaced"))
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
            (t("pl.m.pph"), ui.decimal(points / hands, 2) if hands else "–"),
            (t("pl.m.wins"), int(ev.get_column("wins").sum() or 0)),
        ]
    )
    if compared is not None:
        profile_parts.compare(*compared)
    overview, hands_tab, matches = ui.sections(
        ["pl.tab.overview", "pl.tab.hands", "pl.tab.matches"]
    )
    if overview.open:
        with overview:
            if "history" in d:
                profile_parts.history(d["history"], source)
                profile_parts.form(d["form"])
                profile_parts.rounds(d.get("rounds"), event)
            _events(ev)
            if "achievements" in d:
                profile_parts.achievements(d["achievements"])
    if hands_tab.open:
        with hands_tab:
            profile_parts.wins(d["categories"], source)
            _categories(d["categories"], source)
            _chairs(d["chairs"], source)
            _fed(d["fed"])
    if matches.open:
        with matches:
            _timeline(d["timeline"], source)
            _matches(d["matches"])


def _events(ev: pl.DataFrame) -> None:
    st.markdown(f"#### {t('pl.events')}")
    ui.table(
        ev.with_columns(data.titled()),
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
        static=True,
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
            lambda: charts.bars_chart(chairs, "chair", "points_per_hand", text=True, height=260),
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
        charts.draw("pl_timeline", lambda: timeline_chart(tl, titles), source)


def timeline_chart(tl: pl.DataFrame, titles: dict[str, str]) -> charts.Chart:
    """The running total over every hand the player played: one line in one colour,
    broken between events (each event's total starts again at 0), each hand's event named
    by its title and its category in the rulebook's words. A line and a legend entry per
    event named 40 to 60 events for a busy player, unreadable on a phone."""
    words = {c: category(c) for c in tl.get_column("category").unique().to_list() if c}
    return charts.line_chart(
        tl.sort("n").with_columns(
            pl.col("event").replace(titles), pl.col("category").replace(words)
        ),
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
        matches.with_columns(data.titled()),
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
