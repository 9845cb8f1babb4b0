"""Hand entry at the table (referees and coordinators), made for a phone.

The referee picks the event, round and table; the chairs come from the round's draw (the
``seatings`` view), else they are typed once. Each hand is entered as it ends and saved
through :func:`pipeline.entry.save_hand`, which loads the whole match through the one
ingest service (rights checked, every row validated as a file row, the match written
whole or not at all). The page only asks and shows: thumb-sized pills and buttons, no
score computed here.
"""

from collections.abc import Callable
from typing import Any

import polars as pl
import streamlit as st

from dashboard import access, data, ui
from dashboard.i18n import category, language, t
from pipeline import auth, draws, entry, rulesets
from pipeline.draws import seating
from pipeline.entry import EntryRefused, Hand, MatchState
from pipeline.ingest.columns import CHAIRS
from pipeline.messages import join_list
from pipeline.standings import queries
from pipeline.store.db import DatabaseBusy

_FORM = "_entry_form"  # a counter: a new value gives the hand form fresh widgets
_DONE = "_entry_done"
_SHOWN = "_entry_shown"  # the match (event, round, table, version) the last run showed
_AUTO = "_entry_round_for"  # the events whose round this page has preselected once
_OTHER = "…"
ENDS = list(range(7))


def render() -> None:
    st.title(t("en.title"))
    _phone_css()
    ident = access.current()
    if ident is None:
        access.sign_in_form("signin.why.entry")
        return
    chosen = (
        st.session_state.get("en_event"),
        _chosen("en_round"),
        _chosen("en_table"),
    )
    # the round being drawn is preselected once per event (the one a referee is at); a
    # referee who clears it, or picks another, keeps their choice
    preselected = frozenset(st.session_state.get(_AUTO, ()))
    ask = st.session_state.get("en_round") is None
    try:
        d = data.uncached(_page_data, ident.name, *chosen, None if not ask else preselected)
    except DatabaseBusy:
        st.warning(t("busy"))
        return
    if not d["events"]:
        st.info(t("en.no_events"))
        return
    titles = data.event_titles()
    event = _pills("en.event", d["events"], "en_event", lambda e: titles.get(e, e))
    if event is None:
        return
    if d["preselect"]:
        st.session_state["en_round"] = d["preselect"]
        st.session_state[_AUTO] = preselected | {event}
    round_ = _pick_or_type("en.round", d["rounds"], "en_round")
    if not round_:
        st.caption(t("en.pick"))
        return
    table = _pick_or_type("en.table", d["tables"], "en_table")
    if not table:
        st.caption(t("en.pick"))
        return
    if d["match"] is None or (d["match"].round, d["match"].table) != (round_, table):
        st.rerun()  # the choices changed while this run read the database
    m: MatchState = d["match"]
    moved = _moved(m)
    if moved:  # another device saved the table after this page showed it
        st.session_state.pop(_DONE, None)
        st.warning(m.moved_refusal().sentence(language()))
    # what the last save or close said stays until the next one: a rerun of the page (a
    # cookie written, the language switched) must not take "hand 9 saved" off the screen
    done = st.session_state.get(_DONE)
    if done and done[0] == (event, round_, table):
        st.success(done[1])
        ui.warning_list(t("en.warnings"), done[2])  # what the save was warned of, said once
    _match(m, d.get("reserves") or {}, moved=moved)
    st.session_state[_SHOWN] = (m.event, m.round, m.table, m.version)


def _moved(m: MatchState) -> bool:
    """Whether this run is a press of *Save hand N* on a form shown for a version of the
    match older than the stored one: another device saved the table in between. The form
    then belongs to a match that is no more (its next hand may be the one the other device
    saved); nothing is saved, and the reader is told, instead of the press doing nothing
    under the last "hand saved"."""
    pressed = bool(st.session_state.get(f"en_save_{st.session_state.get(_FORM, 0)}"))
    shown = st.session_state.get(_SHOWN)
    return (
        pressed
        and shown is not None
        and shown[:3] == (m.event, m.round, m.table)
        and shown[3] != m.version
    )


def _chosen(key: str) -> str:
    """A pill's value as it stands before the widget is drawn (the typed one for "…")."""
    value = st.session_state.get(key)
    if value == _OTHER:
        return str(st.session_state.get(f"{key}_typed") or "").strip()
    return str(value or "")


def _page_data(
    con: Any,
    name: str,
    event: str | None,
    round_: str,
    table: str,
    preselected: frozenset[str] | None,
) -> dict[str, Any]:
    """Everything the page reads, on one short read-only connection. With no round
    chosen, the last drawn round of an event not in ``preselected`` is the one to
    preselect (``preselect``), and its tables are read."""
    allowed = auth.user_events(con, name)
    evs = queries.events(con).get_column("event").to_list()
    mine = [e for e in evs if auth.may_write(allowed, e)]
    event = event if event in mine else (mine[0] if len(mine) == 1 else None)
    out: dict[str, Any] = {
        "events": mine,
        "rounds": [],
        "tables": [],
        "match": None,
        "preselect": None,
    }
    if event is None:
        return out
    out["rounds"] = queries.rounds(con, event)
    if preselected is not None and event not in preselected:
        # sessions may be drawn in advance: S1 before S2 and S3
        if (at := draws.next_to_play(con, event)) is not None:
            round_ = out["preselect"] = at
    if round_:
        out["tables"] = _tables(con, event, round_)
    if round_ and table:
        out["match"] = entry.state(con, event, round_, table)
        out["reserves"] = entry.reserves_at(con, out["match"])
    return out


def _tables(con: Any, event: str, round_: str) -> list[str]:
    drawn = draws.drawn_tables(con, event, round_)
    played = con.execute(
        'SELECT DISTINCT "table" FROM match_versions WHERE event = ? AND round = ? '
        "AND current AND kind <> 'withdrawn'",
        [event, round_],
    ).fetchall()
    both = set(drawn) | {r[0] for r in played}
    return sorted(both, key=lambda x: (len(x), x))


def _phone_css() -> None:
    """Static CSS: pills and buttons large enough for a thumb; no side padding wasted."""
    st.html(
        """<style>
        .st-key-en_form button, [class*="st-key-en_"] [data-testid="stButtonGroup"] button
          {min-height: 2.75rem; min-width: 2.75rem; font-size: 1rem;}
        [class*="st-key-en_save"] button, [class*="st-key-en_close"] button {min-height: 3.25rem;}
        @media (max-width: 640px) {
          [data-testid="stMainBlockContainer"] {padding-top: 3.5rem; padding-left: .75rem; padding-right: .75rem;}
          [data-testid="stMainBlockContainer"] h1 {font-size: 1.5rem;}
          [data-testid="stMainBlockContainer"] h3 {font-size: 1.2rem;}
        }
        </style>"""
    )


def _pills(
    label: str, options: list[str], key: str, shown: Callable[[str], str] = str
) -> str | None:
    if len(options) == 1 and st.session_state.get(key) is None:
        st.session_state[key] = options[0]
    return st.pills(t(label), options, key=key, selection_mode="single", format_func=shown)


def _pick_or_type(label: str, options: list[str], key: str) -> str:
    """Pills of the known values and one to type another (an undrawn round or table)."""
    chosen = st.pills(t(label), [*options, _OTHER], key=key, selection_mode="single")
    if chosen == _OTHER or (not options and chosen is None):
        return str(st.text_input(t(f"{label}.other"), key=f"{key}_typed", max_chars=40)).strip()
    return chosen or ""


# --- one match --------------------------------------------------------------------------------


def _match(m: MatchState, reserves: dict[str, list[str]], *, moved: bool) -> None:
    if (gone := m.withdrawn_refusal()) is not None:  # the jury took it out: say who and why
        st.warning(gone.sentence(language()))
        return
    status = t(f"en.status.{m.status}")
    st.caption(t("en.summary", status=status, done=m.hands.height))
    start = None if m.drawn or m.hands.height else _typed_chairs()
    if start is not None and len(start) < 3:
        return
    if m.hands.height:
        _recorded(m)
    hand_no = _pick_hand(m)
    seats = _stand_in(m, m.seats(hand_no, start), reserves)
    _show_seats(m, seats)
    if m.needs_tiebreak and m.complete and hand_no > (m.regular_hands or 0):
        st.info(t("en.tiebreak"))
    _hand_form(m, hand_no, seats, moved=moved)
    if m.can_close:
        _close_button(m)


def _typed_chairs() -> dict[str, str]:
    st.caption(t("en.chairs.type"))
    seats = {}
    cols = st.columns(2)
    for i, c in enumerate(CHAIRS):
        name = cols[i % 2].text_input(
            t("en.chair", chair=c.upper()), key=f"en_typed_{c}", max_chars=80
        )
        if str(name).strip():
            seats[c] = str(name).strip()
    return seats


def _stand_in(
    m: MatchState, seats: dict[str, str], reserves: dict[str, list[str]]
) -> dict[str, str]:
    """Before a drawn session's first hand: a registered reserve in the chair of a drawn
    member who is absent (rule 23). The save records whom they replace; the hands after it
    seat them from the first (:attr:`MatchState.stand_ins`)."""
    if not reserves:
        return seats
    key = f"en_absent_{m.event}_{m.round}_{m.table}"
    with st.expander(t("en.reserve"), expanded=bool(st.session_state.get(key))):
        chair = st.selectbox(
            t("en.reserve.absent"),
            [None, *reserves],
            format_func=lambda c: (
                t("en.reserve.nobody") if c is None else f"{c.upper()} · {seats[c]}"
            ),
            key=key,
        )
        if chair is None:
            return seats
        who = st.selectbox(
            t("en.reserve.who", member=seats[chair]), reserves[chair], key=f"{key}_who"
        )
    return seats | {chair: str(who)}


def _show_seats(m: MatchState, seats: dict[str, str]) -> None:
    if m.drawn:
        # the hands where the rulebook's swap schedule moves chairs (unhas: 3 and 7); a
        # rulebook without one (pepet, rule 22) keeps them the whole round
        moves = [str(h) for h in seating.swap_hands(seating.swap_schedule(m.book.params))]
        if moves:
            st.caption(t("en.chairs.drawn", hands=join_list(moves, "chairs", language())))
        else:
            st.caption(t("en.chairs.drawn.fixed"))
    drawn = m.drawn.get(None) or {}
    lines = []
    for c, p in sorted(seats.items()):
        member = drawn.get(c)
        for_whom = t("en.reserve.for", member=member) if member and member != p else ""
        lines.append(
            f"**{c.upper()}** · {ui.md(p)}" + (f" · _{ui.md(for_whom)}_" if for_whom else "")
        )
    st.markdown("  \n".join(lines))


def _recorded(m: MatchState) -> None:
    with st.expander(t("en.hands"), expanded=False):
        shown = m.hands.select(
            "hand",
            pl.col("ending").map_elements(category, return_dtype=pl.String),
            "ended_by",
            "last_tile",
        )
        ui.table(
            shown, key="en_hands", columns=["hand", "ending", "ended_by", "last_tile"], static=True
        )
    ui.table(m.standings, key="en_standing", columns=["rank", "player", "points"], static=True)


def _pick_hand(m: MatchState) -> int:
    """The next hand, or an entered one to fix (pills of hand numbers)."""
    options = list(range(1, m.next_hand + 1))
    if m.status == "closed" and m.hands.height:
        options = options[:-1]  # a closed match: only a correction of an entered hand
    key = f"en_hand_{m.event}_{m.round}_{m.table}_{m.hands.height}"
    if st.session_state.get(key) not in options:
        st.session_state[key] = options[-1]
    picked = st.pills(t("en.hand"), options, key=key, selection_mode="single")
    return int(picked or options[-1])


def _hand_form(m: MatchState, hand_no: int, seats: dict[str, str], *, moved: bool) -> None:
    book = m.book
    editing = hand_no <= m.hands.height
    old = m.hands.row(hand_no - 1, named=True) if editing else {}
    last = m.regular_hands
    title = (
        t("en.hand.edit", hand=hand_no)
        if editing
        else t("en.hand.tiebreak", hand=hand_no)
        if last is not None and hand_no > last
        else t("en.hand.next", hand=hand_no)
    )
    n = st.session_state.get(_FORM, 0)
    with st.container(border=True, key="en_form"):
        st.markdown(f"**{title}**")
        endings = [e for e in book.endings if e != book.walkover]
        ending = st.segmented_control(
            t("en.ending"),
            endings,
            format_func=category,
            default=old.get("ending"),
            key=f"en_ending_{n}_{hand_no}",
        )
        chairs = sorted(seats)
        who = st.segmented_control(
            t("en.who"),
            chairs,
            format_func=lambda c: f"{c.upper()} · {seats[c]}",
            default=(old.get("ended_by") or "").lower() or None,
            key=f"en_who_{n}_{hand_no}",
        )
        tile = _tile_picker(old.get("last_tile"), f"{n}_{hand_no}")
        pips = _pips(book, ending, who, chairs, seats, old, f"{n}_{hand_no}")
        sanctions = _sanctions(m.ruleset, chairs, seats, old, f"{n}_{hand_no}")
        reason = ""
        if m.status == "closed":
            reason = st.text_input(
                t("en.reason"), key=f"en_reason_{n}", help=t("en.reason.help"), max_chars=300
            ).strip()
        clicked = st.button(
            t("en.save", hand=hand_no),
            key=f"en_save_{n}",
            type="primary",
            width="stretch",
            disabled=not ending or (m.status == "closed" and not reason),
        )
    if clicked and ending and not moved:  # a press on a form the match has moved past
        hand = Hand(
            hand=hand_no,
            ending=str(ending),
            ended_by=who,
            last_tile=tile,
            pips=pips,
            sanctions=sanctions,
        )
        _save(m, hand, seats, reason)


def _tile_picker(old: str | None, key: str) -> str | None:
    ends = [int(x) for x in old.split("-")] if old and "-" in old else [None, None]
    st.caption(t("en.last_tile"), help=t("en.last_tile.help"))
    hi = st.segmented_control(
        t("en.last_tile"), ENDS, default=ends[0], key=f"en_hi_{key}", label_visibility="collapsed"
    )
    lo = st.segmented_control(
        t("en.last_tile"), ENDS, default=ends[1], key=f"en_lo_{key}", label_visibility="collapsed"
    )
    if hi is None or lo is None:
        return None
    return f"{hi}-{lo}"


def _pips(
    book: rulesets.Ruleset,
    ending: str | None,
    who: str | None,
    chairs: list[str],
    seats: dict[str, str],
    old: dict[str, Any],
    key: str,
) -> dict[str, int | None]:
    """Pips of the chairs the ruleset needs for this ending (none for most endings)."""
    need = book.pips_needed.get(ending or "")
    if not need:
        return {}
    asked = [c for c in chairs if need == "all" or c != who]
    st.caption(t("en.pips"))
    cols = st.columns(2)
    out: dict[str, int | None] = {}
    for i, c in enumerate(asked):
        v = cols[i % 2].number_input(
            f"{c.upper()} · {seats[c]}",
            min_value=0,
            max_value=99,
            step=1,
            value=old.get(f"pips_{c}"),
            key=f"en_pips_{c}_{key}",
        )
        out[c] = int(v) if v is not None else None
    return out


def _sanctions(
    ruleset: str, chairs: list[str], seats: dict[str, str], old: dict[str, Any], key: str
) -> dict[str, list[str]]:
    codes = entry.sanction_codes(ruleset)
    if not codes:
        return {}
    out: dict[str, list[str]] = {}
    with st.expander(t("en.sanctions")):
        for c in chairs:
            before = [x for x in (old.get(f"sanctions_{c}") or "").split(";") if x]
            got = st.pills(
                f"{c.upper()} · {seats[c]}",
                codes,
                selection_mode="multi",
                format_func=lambda code: t(f"en.sanction.{code}"),
                default=before,
                key=f"en_sanction_{c}_{key}",
            )
            if got:
                out[c] = list(got)
    return out


def _save(m: MatchState, hand: Hand, seats: dict[str, str], reason: str) -> None:
    st.session_state.pop(_DONE, None)
    ran, saved = ui.attempt(
        lambda: data.write(
            entry.save_hand,
            m.event,
            m.round,
            m.table,
            hand,
            seats,
            identity=st.session_state.get(access.IDENTITY_KEY),
            reason=reason or None,
            seen=m.version,
        ),
        refused=(EntryRefused, auth.NotAllowed),
        busy="en.busy",
    )
    if not ran:
        return
    if not saved.ok:
        _problems(hand.hand, saved)
        return
    version = max((o.version or 0) for o in saved.plan.outcomes) if saved.plan.outcomes else 0
    same = bool(saved.plan.outcomes) and all(o.status == "unchanged" for o in saved.plan.outcomes)
    # saved all the same, with what it was warned of (a next round drawn from this table
    # with other qualifiers, a round its event did not draw)
    warned = [p["message"] for p in saved.sentences(language()) if p["severity"] == "warning"]
    st.session_state[_DONE] = (
        (m.event, m.round, m.table),
        t("en.unchanged" if same else "en.saved", hand=hand.hand, version=version),
        warned,
    )
    st.session_state[_FORM] = st.session_state.get(_FORM, 0) + 1
    st.rerun()


def column_label(column: str | None) -> str:
    """A hand-log column in the page's language (``pips_c`` -> "pips of chair C")."""
    if not column:
        return ""
    base, _, chair = column.rpartition("_")
    if base in ("pips", "sanctions", "player", "tiles") and chair in CHAIRS:
        key = "pips" if base == "tiles" else base
        return t(f"en.col.{key}", chair=chair.upper())
    return t(f"en.col.{column}") if f"en.col.{column}" in _known() else column


def _known() -> set[str]:
    from dashboard.strings.entry import STRINGS

    return set(STRINGS)


def _problems(hand_no: int, saved: entry.Saved) -> None:
    lines = []
    for p in saved.sentences(language()):
        if p["severity"] != "error":
            continue
        label = column_label(p["column"])
        if p["hand"] is not None:
            lines.append(t("en.problem", hand=p["hand"], column=label, message=p["message"]))
        else:
            lines.append(t("en.problem.match", column=label, message=p["message"]))
    st.error(t("en.refused", hand=hand_no) + "\n\n" + "\n\n".join(f"- {ui.md(x)}" for x in lines))


def _close_button(m: MatchState) -> None:
    if st.button(
        t("en.close"), key="en_close", help=t("en.close.help"), width="stretch", type="secondary"
    ):
        try:
            data.write(
                entry.close,
                m.event,
                m.round,
                m.table,
                identity=st.session_state.get(access.IDENTITY_KEY),
            )
        except (EntryRefused, auth.NotAllowed) as exc:
            st.error(exc.sentence(language()))
            return
        except DatabaseBusy:
            st.warning(t("en.busy"))
            return
        st.session_state[_DONE] = ((m.event, m.round, m.table), t("en.closed", table=m.table), [])
        st.rerun()
