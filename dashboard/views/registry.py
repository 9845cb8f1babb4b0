"""Registry import (a coordinator of every event): the same diff as ``domino players
import``, and a confirm button that needs a reason. Both steps call :mod:`pipeline.registry`
(the diff is tried on a write connection inside a transaction that is rolled back)."""

import tempfile
from pathlib import Path
from typing import Any

import polars as pl
import streamlit as st

from dashboard import access, data, ui
from dashboard.i18n import language, t
from pipeline import auth, events
from pipeline.ingest.read import SAID_ONLY_KINDS, UPLOAD_KINDS
from pipeline.league import outside_events
from pipeline.players import RegistryConflict, read_registry
from pipeline.problems import FileRejected
from pipeline.registry import (
    DEFAULT_LEAGUE,
    DiffChanged,
    ImportPlan,
    apply_import,
    apply_move,
    plan_import,
    plan_move,
)
from pipeline.store.db import DatabaseBusy

_PLAN = "_registry_plan"
_DONE = "_registry_done"
_MOVE = "_registry_move"  # (events, league, plan) of the move last checked
_OFFERED = "_registry_offered"  # (league, events) the page last offered to move


def render() -> None:
    st.title(t("reg.title"))
    ident = access.current()
    if ident is None:
        access.sign_in_form("signin.why.registry")
        return
    ran, allowed = ui.attempt(
        lambda: data.uncached(lambda con: auth.user_events(con, ident.name)), busy="busy.nodata"
    )
    if not ran:
        return
    if auth.ALL_EVENTS not in (allowed or set()):
        st.info(t("reg.no_rights"))
        return
    done = st.session_state.pop(_DONE, None)
    if done:
        st.success(done)
    st.caption(t("reg.intro"))
    # spaces around or doubled inside would make a second league, as the CLI's --league
    league = " ".join(
        st.text_input(t("reg.league"), value=DEFAULT_LEAGUE, key="reg_league").split()
    )
    _import(league, ident.name)
    if league:
        _move(league, ident.name)


def _import(league: str, by: str) -> None:
    up = ui.file_uploader(
        t("reg.file"), UPLOAD_KINDS, ui.upload_mb(), SAID_ONLY_KINDS, key="reg_file"
    )
    if up is None or not league:
        st.session_state.pop(_PLAN, None)
        return
    reg = _read(up.name, up.getvalue())
    if reg is None:
        return
    if st.button(t("reg.check"), key="reg_check"):
        try:
            st.session_state[_PLAN] = (up.name, league, data.write(plan_import, reg, league))
        except RegistryConflict as exc:
            _conflicts(exc)
            return
        except DatabaseBusy:  # a load is writing: nothing was checked
            st.warning(t("up.busy"))
            return
    held = st.session_state.get(_PLAN)
    if not held or held[:2] != (up.name, league):
        return
    _show(held[2], reg, league, by)


def _conflicts(exc: RegistryConflict) -> None:
    """The import refused whole: each conflict, naming the file's rows, in the page's language."""
    lines = exc.lines(language())
    st.error(t("reg.refused") + "\n\n" + "\n".join(f"- {ui.md(r)}" for r in lines))


def _read(name: str, body: bytes) -> pl.DataFrame | None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / Path(name).name
        path.write_bytes(body)
        try:
            return read_registry(path)
        except FileRejected as exc:
            st.error(t("reg.unreadable", why=ui.md(exc.render(language()))))
            return None


def _show(plan: ImportPlan, reg: pl.DataFrame, league: str, by: str) -> None:
    st.caption(t("reg.added", n=len(plan.added)))
    reason = ""
    if plan.needs_reason:
        st.warning(t("reg.changes"))
        st.markdown("\n".join(f"- {ui.md(line)}" for line in plan.lines(language())))
        reason = st.text_input(t("reg.reason"), key="reg_reason").strip()
        label = t("reg.confirm")
    else:
        st.caption(t("reg.nothing"))
        label = t("reg.apply")
    if st.button(label, key="reg_apply", disabled=plan.needs_reason and not reason):
        try:
            counts = data.write(
                apply_import,
                reg,
                league,
                plan=plan,
                reason=reason or None,
                by=by,
                shown=plan.lines(),
            )
        except DiffChanged as exc:
            st.session_state[_PLAN] = (st.session_state[_PLAN][0], league, exc.plan)
            st.warning(t("reg.changed"))
            return
        except RegistryConflict as exc:
            _conflicts(exc)
            return
        except DatabaseBusy:
            st.warning(t("up.busy"))
            return
        st.session_state.pop(_PLAN, None)
        st.session_state[_DONE] = t("reg.done", league=league, **counts)
        data.clear()
        st.rerun()


# --- moving events into the league ---------------------------------------------------------


def _move(league: str, by: str) -> None:
    """Events into ``league`` (their groups are then read from its registry), shown first
    as ``domino league set`` shows them: a move that changes loaded standings needs a
    reason. The events its players played in a league without a registry are offered."""
    ran, found = ui.attempt(
        lambda: data.uncached(lambda con: (outside_events(con, league), _elsewhere(con, league))),
        busy="busy.nodata",
    )
    if not ran:
        return
    offered, others = found
    if offered:
        # they have no groups (KG) now: the usual slip, a registry imported into a league
        # its events were never put in
        st.info(t("reg.outside", n=len(offered), events=ui.md(", ".join(offered))))
    key = f"reg_move_{league}"
    if st.session_state.get(_OFFERED) != (league, offered):
        # newly outside (an import just made): chosen for the move, as the notice says
        st.session_state[_OFFERED] = (league, offered)
        st.session_state[key] = [e for e in offered if e in others]
    with st.expander(t("reg.move", league=ui.md(league)), expanded=bool(offered)):
        chosen = st.multiselect(
            t("reg.move.events"), others, key=key, placeholder=t("reg.move.placeholder")
        )
        if not chosen:
            st.session_state.pop(_MOVE, None)
            return
        if st.button(t("reg.check"), key="reg_move_check"):
            ran, checked = ui.attempt(lambda: data.write(plan_move, chosen, league), busy="up.busy")
            if not ran:
                return
            st.session_state[_MOVE] = (chosen, league, checked)
        held = st.session_state.get(_MOVE)
        if not held or held[:2] != (chosen, league):
            return
        plan: ImportPlan = held[2]
        reason = ""
        if plan.needs_reason:
            st.warning(t("reg.move.changes"))
            st.markdown("\n".join(f"- {ui.md(line)}" for line in plan.lines(language())))
            reason = st.text_input(t("reg.reason"), key="reg_move_reason").strip()
        else:
            st.caption(t("reg.move.nothing"))
        if st.button(
            t("reg.move.apply", n=len(chosen)),
            key="reg_move_apply",
            disabled=plan.needs_reason and not reason,
        ):
            try:
                data.write(
                    apply_move, chosen, league, reason=reason or None, by=by, shown=plan.lines()
                )
            except DiffChanged as exc:
                st.session_state[_MOVE] = (chosen, league, exc.plan)
                st.warning(t("reg.changed"))
                return
            except DatabaseBusy:
                st.warning(t("up.busy"))
                return
            st.session_state.pop(_MOVE, None)
            st.session_state[_DONE] = t("reg.move.done", n=len(chosen), league=league)
            data.clear()
            st.rerun()


def _elsewhere(con: Any, league: str) -> list[str]:
    """The events not in ``league``, newest first (those a move may take)."""
    return [e.event for e in events.all_events(con) if e.league != league]
