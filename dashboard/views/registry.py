"""Registry import (a coordinator of every event): the same diff as ``domino players
import``, and a confirm button that needs a reason. Both steps call :mod:`pipeline.registry`
(the diff is tried on a write connection inside a transaction that is rolled back)."""

import tempfile
from pathlib import Path

import polars as pl
import streamlit as st

from dashboard import access, data, ui
from dashboard.i18n import language, t
from pipeline import auth
from pipeline.ingest.read import SAID_ONLY_KINDS, UPLOAD_KINDS
from pipeline.league import outside
from pipeline.players import RegistryConflict, read_registry
from pipeline.problems import FileRejected
from pipeline.registry import (
    DEFAULT_LEAGUE,
    DiffChanged,
    ImportPlan,
    apply_import,
    plan_import,
)

_PLAN = "_registry_plan"
_DONE = "_registry_done"


def render() -> None:
    st.title(t("reg.title"))
    ident = access.current()
    if ident is None:
        access.sign_in_form("signin.why.registry")
        return
    allowed = data.uncached(lambda con: auth.user_events(con, ident.name))
    if auth.ALL_EVENTS not in (allowed or set()):
        st.info(t("reg.no_rights"))
        return
    done = st.session_state.pop(_DONE, None)
    if done:
        said, elsewhere = done
        st.success(said)
        if elsewhere:
            # events of its players left in a league without a registry have no groups
            st.info(ui.md(elsewhere))
    st.caption(t("reg.intro"))
    # spaces around or doubled inside would make a second league, as the CLI's --league
    league = " ".join(
        st.text_input(t("reg.league"), value=DEFAULT_LEAGUE, key="reg_league").split()
    )
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
    held = st.session_state.get(_PLAN)
    if not held or held[:2] != (up.name, league):
        return
    _show(held[2], reg, league, ident.name)


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
        st.session_state.pop(_PLAN, None)
        elsewhere = data.uncached(lambda con: outside(con, league, language()))
        st.session_state[_DONE] = (t("reg.done", league=league, **counts), elsewhere)
        data.clear()
        st.rerun()
