"""Organiser (signed-in coordinators): create or edit an event, set its round order,
upload its roster, draw a round and see the draw with its seed and history.

The page only asks and shows: every change goes through the engine the ``domino``
command uses (:mod:`pipeline.events`, :mod:`pipeline.rounds`, :mod:`pipeline.draws`) on a
short write connection, after the coordinator's rights are read from the database again.
A new event needs the right to every event (``*``); the rest needs the right to that event.
"""

import re
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import streamlit as st

from dashboard import access, data, ui
from dashboard.batches import newest
from dashboard.i18n import language, t
from pipeline import auth, demo, draws, events, league, messages, rulesets, sheets
from pipeline import rounds as round_order
from pipeline.draws import followed
from pipeline.ingest.read import SAID_ONLY_KINDS, UPLOAD_KINDS, display_name
from pipeline.problems import FileRejected
from pipeline.standings import queries
from pipeline.store.db import DatabaseBusy

NEW = "\x00new"  # the picker's "new event" choice (no event id can hold a NUL)
#: The last change's success, ``(where, sentence)``: said in the section it was made in
#: (:func:`_said_here`), where the organiser is, not at the top of a long page
_DONE = "_org_done"
_WARNED = "_org_warned"  # what the last roster saved gave to hear (eligibility, groups)
_SELECT = "_org_select"


def render() -> None:
    st.title(t("org.title"))
    ident = access.current()
    if ident is None:
        access.sign_in_form("signin.why.organiser")
        return
    st.caption(t("org.why"))
    _said_here("top")
    try:
        state = data.uncached(_state, ident.name)
    except DatabaseBusy:
        st.warning(t("busy.nodata"))
        return
    writable = [e.event for e in state["events"] if auth.may_write(state["allowed"], e.event)]
    new_ok = auth.ALL_EVENTS in (state["allowed"] or set())
    if not writable and not new_ok:
        st.info(t("org.none"))
        return
    # labels made now, in this session's language (a widget may format its value later)
    labels = {e.event: e.shown for e in state["events"]} | {NEW: t("org.new")}
    if st.session_state.get(_SELECT) in [*writable, NEW]:
        st.session_state["org_event"] = st.session_state.pop(_SELECT)
    found = ui.live_search("org_event", st.session_state.get("org_event"))
    picked = st.selectbox(
        t("org.event"),
        _listed(writable, st.session_state.get("org_event"), found, new_ok=new_ok),
        key="org_event",
        format_func=lambda e: labels.get(e, e),
        accept_new_options=True,
        help=t("ev.search.help"),
    )
    if picked != NEW and picked not in writable:
        # typed text: the newest event it names that this account runs
        _search(str(picked), set(writable), writable[0] if writable else NEW)
    ui.search_note(picked, "org_event", labels.__getitem__)
    info = next((e for e in state["events"] if e.event == picked), None)
    _details(info, ident, state["leagues"])
    if info is None:
        return
    _round_order(info, ident)
    _roster(info, ident)
    _status(info)
    _draw(info, ident)
    _current(info, ident)
    if new_ok:  # who may create an event may delete one made by mistake
        _delete(info, ident)


def _status(info: events.EventInfo) -> None:
    """Where the event stands, round by round (:func:`pipeline.events.round_status`):
    what an organiser checks before drawing the next round."""
    lang = language()
    rounds, stale = data.uncached(
        lambda con: (
            events.round_status(con, info.event),
            followed.stale_draws(con, info.event, lang),
        )
    )
    if rounds.height == 0:
        return
    st.subheader(t("org.status"), anchor=False, help=t("org.status.help"))
    ui.table(rounds, key="org_status", static=True, labels=_labels(rounds))
    # a draw made before a correction or a withdrawal of the round before it
    ui.warning_list(t("org.stale"), stale)
    _results(info, rounds)


def _results(info: events.EventInfo, rounds: pl.DataFrame) -> None:
    """A round's results for the notice board (the PDF ``domino results`` writes), for
    any round with a table loaded; the latest is offered first."""
    played = rounds.filter(pl.col("tables_loaded") > 0).get_column("round").to_list()
    if not played:
        return
    if st.session_state.get("org_results_round") not in played:
        st.session_state["org_results_round"] = played[-1]
    row = st.container(horizontal=True, vertical_alignment="bottom", key="org_results")
    label = row.selectbox(t("org.results.round"), played, key="org_results_round", width=240)
    row.download_button(
        f"⬇ {t('org.results.pdf')}",
        data=lambda: data.uncached(_results_pdf, info.event, label),
        file_name=f"{sheets.file_stem(info.event, label, 'hasil')}.pdf",
        mime="application/pdf",
        key="org_results_pdf",
        on_click="ignore",
        help=t("org.results.pdf.help"),
    )


def _results_pdf(con: duckdb.DuckDBPyConnection, event: str, label: str) -> bytes:
    from pipeline.sheets.results import results_pdf, round_results  # fpdf2, for a download

    return results_pdf(round_results(con, event, label))


def _listed(writable: list[str], shown: str | None, found: Any, *, new_ok: bool) -> list[str]:
    """The picker's choices: the newest ``picker_events`` events this account runs (an
    admin may run thousands, and every keystroke in a long list costs the browser), the
    one shown, the other events its search found, and a new event for those who may."""
    extra = [shown] if shown in writable else []
    new = [NEW] if new_ok else []
    return list(dict.fromkeys([*newest(writable), *extra, *(found[2] if found else []), *new]))


def _search(text: str, writable: set[str], fallback: str) -> None:
    """Show the newest event this account runs whose id or title holds ``text``; with
    none, say so and go back to ``fallback``."""
    hits = [e for e in data.uncached(events.find, text) if e in writable]
    shown = hits[0] if hits else fallback
    # kept as the event pages keep theirs (ui.live_search, ui.search_note)
    st.session_state["org_event_search"] = (text, len(hits), newest(hits), shown)
    st.session_state[_SELECT] = shown
    st.rerun()


def _state(con: duckdb.DuckDBPyConnection, name: str) -> dict[str, Any]:
    return {
        "events": events.all_events(con),
        "allowed": auth.user_events(con, name),
        "leagues": league.leagues(con),
    }


def _write(ident: auth.Identity, event: str | None, fn: Any) -> Any:
    """``fn(con)`` on a write connection once the database says ``ident`` may write to
    ``event`` (None: a new event, which needs the right to every event)."""

    def run(con: duckdb.DuckDBPyConnection) -> Any:
        auth.check_rights(con, ident, [event if event is not None else auth.ALL_EVENTS])
        return fn(con)

    return data.write(run)


def _refusal(exc: Exception) -> str:
    """A refusal's sentence in the reader's language."""
    if isinstance(exc, FileRejected):
        return f"{exc.file}: {exc.render(language())}"
    if isinstance(exc, messages.Refused):
        return exc.sentence(language())
    return str(exc)


def _said_here(where: str) -> None:
    """The last change's success (and a roster's warnings) if it was made in the section
    ``where``. Its box is drawn whether or not there is one, so that the page keeps its
    shape across the rerun: an open section stays open, showing what it did."""
    box = st.container()
    done = st.session_state.get(_DONE)
    if not done or done[0] != where:
        return
    del st.session_state[_DONE]
    box.success(done[1])
    with box:
        ui.warning_list(t("org.roster.warned"), st.session_state.pop(_WARNED, []))


def _act(
    ident: auth.Identity,
    event: str | None,
    fn: Any,
    success: str,
    *,
    where: str = "top",
    select: str | None = None,
    warns: bool = False,
) -> None:
    """Write ``fn`` for ``event``; said as ``success`` in the section ``where`` (after
    the rerun), or as the refusal in one sentence here. With ``warns``, ``fn`` returns
    sentences to be heard after it (shown with the success)."""
    try:
        said = _write(ident, event, fn)
    except (messages.Refused, FileRejected, ValueError) as exc:
        st.error(_refusal(exc))
        return
    except DatabaseBusy:
        st.warning(t("up.busy"))
        return
    st.session_state[_DONE] = (where, success)
    if warns:
        st.session_state[_WARNED] = said
    if select is not None:
        st.session_state[_SELECT] = select  # the picker takes it before it is drawn
    st.rerun()


# --- event details --------------------------------------------------------------------------


def _details(info: events.EventInfo | None, ident: auth.Identity, known: list[str]) -> None:
    levels = ["", *events.LEVELS]
    names = list(rulesets.names())
    # an event with results changes league with domino league set, which shows the diff
    fixed = info is not None and bool(data.uncached(events.has_results, info.event))
    samples = [] if info else data.uncached(demo.sample_events)
    with st.form(f"org_details_{info.event if info else 'new'}"):
        st.subheader(t("org.details"), anchor=False)
        if samples:  # `make demo` loaded them: a new event here is rated beside them
            said = messages.render("demo.beside", {"events": samples}, language())
            st.warning(messages.on_its_own(said, "demo.beside", language()), icon="⚠️")
        event_id = (
            info.event
            if info
            else st.text_input(t("org.id"), key="org_new_id", max_chars=100).strip()
        )
        ruleset = st.selectbox(
            t("org.ruleset"), names, index=names.index(info.ruleset) if info else 0
        )
        title = st.text_input(t("org.title_field"), value=(info.title or "") if info else "")
        when = st.date_input(
            t("org.date"), value=info.event_date if info else None, format="YYYY-MM-DD"
        )
        venue = st.text_input(t("org.venue"), value=(info.venue or "") if info else "")
        unset = t("org.level.none")
        level = st.selectbox(
            t("org.level"),
            levels,
            index=levels.index(info.level) if info and info.level in levels else 0,
            format_func=lambda lv: lv or unset,
        )
        current = info.league if info else "default"
        options = sorted({*known, current})
        in_league = st.selectbox(
            t("org.league"),
            options,
            index=options.index(current),
            disabled=fixed,
            help=t("org.league.fixed" if fixed else "org.league.help"),
        )
        saved = st.form_submit_button(t("org.save"), type="primary", width="stretch")
    if not saved:
        return
    if not event_id or re.search(r"\s", event_id):
        st.error(t("org.no_id"))
        return
    day = when if isinstance(when, date) else None
    _act(
        ident,
        info.event if info else None,
        lambda con: events.save(
            con,
            event_id,
            ruleset,
            title=title.strip() or None,
            event_date=day,
            venue=venue.strip() or None,
            level=level or None,
            league=None if fixed else in_league,
            by=ident.name,
        ),
        t("org.saved", event=event_id),
        select=event_id,
    )


# --- round order and roster -------------------------------------------------------------------


def _round_order(info: events.EventInfo, ident: auth.Identity) -> None:
    with st.expander(t("org.rounds")):
        own = data.uncached(round_order.organiser_order, info.event)
        text = st.text_input(
            t("org.rounds.help"), value=", ".join(own), key=f"org_rounds_{info.event}"
        )
        clicked = st.button(t("org.rounds.save"), key="org_rounds_save", width="stretch")
        _said_here("rounds")  # under the button pressed
        if clicked:
            labels = [r.strip() for r in text.split(",") if r.strip()]
            _act(
                ident,
                info.event,
                lambda con: round_order.set_order(con, info.event, labels),
                t("org.rounds.saved"),
                where="rounds",
            )


def _roster(info: events.EventInfo, ident: auth.Identity) -> None:
    with st.expander(t("org.roster")):
        current = data.uncached(events.roster, info.event)
        st.caption(t("org.roster.count", n=current.height))
        if current.height:
            # whom a reserve plays for, and the member's consent, where the roster says so
            said = [c for c in ("replaces", "consent") if current.get_column(c).is_not_null().any()]
            ui.table(current.select("player", "group", *said), key="org_roster_table", height=240)
            sure = st.checkbox(t("org.roster.clear.sure"), key=f"org_roster_sure_{info.event}")
            if st.button(
                t("org.roster.clear"), key="org_roster_clear", disabled=not sure, width="stretch"
            ):
                _act(
                    ident,
                    info.event,
                    lambda con: events.clear_roster(con, info.event),
                    t("org.roster.cleared", n=current.height),
                    where="roster",
                )
        upload = ui.file_uploader(
            t("org.roster.file"),
            UPLOAD_KINDS,
            ui.upload_mb(),
            SAID_ONLY_KINDS,
            key=f"org_roster_{info.event}",
        )
        clicked = upload is not None and st.button(
            t("org.roster.save"), key="org_roster_save", type="primary", width="stretch"
        )
        _said_here("roster")  # under the button pressed
        if not clicked:
            return
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / display_name(upload.name)
            path.write_bytes(upload.getvalue())
            try:
                rows = events.read_roster(path)
            except (FileRejected, events.EventRefused) as exc:
                st.error(_refusal(exc))
                return

        def save(con: duckdb.DuckDBPyConnection) -> list[str]:
            events.set_roster(con, info.event, rows, source=path.name)
            return league.roster_warnings(con, info.event, language())

        _act(
            ident,
            info.event,
            save,
            t("org.roster.saved", n=rows.height),
            where="roster",
            warns=True,
        )


# --- draws ------------------------------------------------------------------------------------


def _draw(info: events.EventInfo, ident: auth.Identity) -> None:
    with st.form(f"org_draw_{info.event}"):
        st.subheader(t("org.draw"), anchor=False)
        label = st.text_input(t("org.draw.round"), key="org_draw_round", max_chars=60).strip()
        seed_text = st.text_input(t("org.draw.seed"), key="org_draw_seed", max_chars=19).strip()
        reason = st.text_input(t("org.draw.reason"), key="org_draw_reason", max_chars=200)
        go = st.form_submit_button(t("org.draw.button"), type="primary", width="stretch")
    _said_here("draw")
    if not go:  # a round without a label is refused below, in a sentence
        return
    if seed_text and not seed_text.isdigit():
        st.error(t("org.draw.bad_seed"))
        return
    seed = int(seed_text) if seed_text else None

    def run(con: duckdb.DuckDBPyConnection) -> draws.Draw:
        return draws.draw_round(
            con, info.event, label, seed=seed, reason=reason.strip() or None, by=ident.name
        )

    try:
        # a roster of hundreds takes seconds to seat: said where the button was pressed
        with st.spinner(t("org.draw.running")):
            drawn = _write(ident, info.event, run)
    except messages.Refused as exc:
        st.error(_refusal(exc))
        return
    except DatabaseBusy:
        st.warning(t("up.busy"))
        return
    st.session_state[_DONE] = ("draw", t("org.draw.done", round=drawn.round, seed=drawn.seed))
    st.session_state["org_show_round"] = drawn.round
    st.rerun()


def _current(info: events.EventInfo, ident: auth.Identity) -> None:
    st.subheader(t("org.current"), anchor=False)
    hist: pl.DataFrame = data.uncached(draws.history, info.event)
    drawn_rounds = list(dict.fromkeys(hist.filter(pl.col("current")).get_column("round")))
    if not drawn_rounds:
        st.info(t("org.current.none"))
    else:
        # in the event's order, opening on the round to play next (sessions drawn at once)
        order = data.uncached(queries.rounds, info.event)
        drawn_rounds.sort(key=lambda r: order.index(r) if r in order else len(order))
        if st.session_state.get("org_show_round") not in drawn_rounds:
            at = data.uncached(draws.next_to_play, info.event)
            st.session_state["org_show_round"] = at if at in drawn_rounds else drawn_rounds[0]
        label = st.selectbox(t("org.col.round"), drawn_rounds, key="org_show_round")
        now = hist.filter((pl.col("round") == label) & pl.col("current")).row(0, named=True)
        st.caption(
            t(
                "org.current.seed",
                round=label,
                seed=now["seed"],
                at=now["drawn_at"].strftime("%Y-%m-%d %H:%M"),
            )
        )
        seats, drawn = data.uncached(_drawn, info.event, label)
        _sheets(drawn)
        ui.table(seats, key="org_seats", static=True, labels=_labels(seats))
        _cancel(info, ident, label)
    if hist.height == 0:
        return
    with st.expander(t("org.history")):
        cancelled = pl.concat_str(
            pl.col("cancelled_at").dt.strftime("%Y-%m-%d %H:%M"),
            pl.lit(" · "),
            pl.col("cancelled_by").fill_null("-"),
            pl.lit(": "),
            pl.col("cancel_reason").fill_null(""),
        )
        # what the draw is now first: on a phone the table scrolls sideways
        shown = hist.select(
            "round",
            "seed",
            pl.when(pl.col("current")).then(pl.lit("✓")).otherwise(pl.lit("")).alias("current"),
            cancelled.fill_null("").alias("cancelled"),
            pl.col("drawn_at").dt.strftime("%Y-%m-%d %H:%M"),
            pl.col("reason").fill_null(""),
        )
        ui.table(shown, key="org_history", static=True, labels=_labels(shown))


def _cancel(info: events.EventInfo, ident: auth.Identity, label: str) -> None:
    """Cancel a round's draw made by mistake (the wrong event picked, a mistyped round):
    refused by the engine, in one sentence, once anything of the round is loaded."""
    with st.expander(t("org.cancel", round=label)):
        st.caption(t("org.cancel.why"))
        key = f"{info.event}_{label}"
        reason = st.text_input(
            t("org.cancel.reason"), key=f"org_cancel_reason_{key}", max_chars=500
        ).strip()
        sure = st.checkbox(t("org.cancel.sure", round=label), key=f"org_cancel_sure_{key}")
        if st.button(
            t("org.cancel.button"),
            key="org_cancel",
            disabled=not (reason and sure),
            width="stretch",
        ):
            _act(
                ident,
                info.event,
                lambda con: draws.cancel(con, info.event, label, reason=reason, by=ident.name),
                t("org.cancel.done", round=label),
                where="draw",  # the round's section goes with its draw
            )


def _delete(info: events.EventInfo, ident: auth.Identity) -> None:
    """Delete an event made by mistake (a mistyped id): refused by the engine, in one
    sentence, while anything of it counts or was prepared."""
    with st.expander(t("org.delete")):
        st.caption(t("org.delete.why"))
        reason = st.text_input(
            t("org.delete.reason"), key=f"org_delete_reason_{info.event}", max_chars=500
        ).strip()
        sure = st.checkbox(
            t("org.delete.sure", event=ui.md(info.event)), key=f"org_delete_sure_{info.event}"
        )
        if st.button(t("org.delete.go"), key="org_delete", disabled=not (reason and sure)):
            _act(
                ident,
                None,  # as creating one: the right to every event
                lambda con: events.delete(con, info.event, reason=reason, by=ident.name),
                t("org.delete.done", event=info.event),
                select=NEW,
            )


def _drawn(
    con: duckdb.DuckDBPyConnection, event: str, label: str
) -> tuple[pl.DataFrame, sheets.DrawnRound]:
    """The round's current draw, as its seats (table, chair, player) and as the rows of
    its sheets, in one read."""
    return draws.current(con, event, label), sheets.drawn_round(con, event, label)


def _sheets(drawn: sheets.DrawnRound) -> None:
    """The round's printable PDF, its seating list and its pre-filled sheets, made when a
    button is clicked (the files ``domino sheets`` writes)."""
    stem = sheets.file_stem(drawn.event, drawn.round)
    row = st.container(horizontal=True, key="org_sheets")
    row.download_button(
        f"⬇ {t('org.sheets.pdf')}",
        data=lambda: _pdf(drawn),
        file_name=f"{stem}.pdf",
        mime="application/pdf",
        key="org_sheets_pdf",
        on_click="ignore",
        help=t("org.sheets.pdf.help"),
    )
    row.download_button(
        f"⬇ {t('org.sheets.seating')}",
        data=lambda: _seating(drawn),
        file_name=sheets.seating_name(drawn),
        mime="application/pdf",
        key="org_sheets_seating",
        on_click="ignore",
        help=t("org.sheets.seating.help"),
    )
    row.download_button(
        f"⬇ {t('org.sheets.zip')}",
        data=lambda: sheets.sheets_zip(drawn),
        file_name=f"{stem}.zip",
        mime="application/zip",
        key="org_sheets_zip",
        on_click="ignore",
        help=t("org.sheets.zip.help"),
    )


def _seating(drawn: sheets.DrawnRound) -> bytes:
    from pipeline.sheets.seating import seating_pdf  # fpdf2, loaded only for a download

    return seating_pdf(drawn)


def _pdf(drawn: sheets.DrawnRound) -> bytes:
    from pipeline.sheets.printable import round_pdf  # fpdf2, loaded only for a download

    return round_pdf(drawn)


def _labels(df: pl.DataFrame) -> dict[str, str]:
    return {c: t(f"org.col.{c}") for c in df.columns}
