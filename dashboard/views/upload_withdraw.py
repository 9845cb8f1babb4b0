"""The upload page's "withdraw a match loaded by mistake", for the jury and admins.

A table loaded under a mistyped event, the wrong round or table, or never played: picked
event, round and table, a reason, a tick that says what will happen, and one button
(:func:`pipeline.ingest.withdraw.withdraw_as`, which reads the rights again). A
coordinator does not see it: their mistake goes to the jury.
"""

import streamlit as st

from dashboard import access, data, ui
from dashboard.i18n import t
from pipeline import auth
from pipeline.ingest.withdraw import WithdrawRefused, withdraw_as, withdrawable
from pipeline.store.db import DatabaseBusy

#: who sees the section (their role as signed in; the write checks it again)
ROLES = (auth.JURY, auth.ADMIN)


def render(ident: auth.Identity, done_key: str) -> None:
    """The section, closed until opened; a withdrawal done leaves its sentence under
    ``done_key`` for the page to show after the rerun."""
    if access.role() not in ROLES:
        return
    with st.expander(t("wd.title")):
        st.caption(t("wd.why"))
        try:
            allowed = data.uncached(lambda con: auth.user_events(con, ident.name))
            events = data.uncached(withdrawable, allowed).get("events", [])
        except DatabaseBusy:
            st.caption(t("busy"))
            return
        if not events:
            st.caption(t("wd.none"))
            return
        event = st.selectbox(t("wd.event"), events, format_func=data.title, key="wd_event")
        try:
            rounds = data.uncached(withdrawable, allowed, event)
        except DatabaseBusy:
            st.caption(t("busy"))
            return
        c1, c2 = st.columns(2)
        rnd = c1.selectbox(t("wd.round"), list(rounds), key="wd_round")
        table = c2.selectbox(t("wd.table"), rounds.get(rnd or "", []), key="wd_table")
        reason = st.text_input(t("wd.reason"), key="wd_reason", max_chars=500).strip()
        sure = st.checkbox(
            t("wd.sure", event=data.title(event), round=rnd, table=table), key="wd_sure"
        )
        if not st.button(t("wd.go"), disabled=not (reason and sure and table), key="wd_go"):
            return
        ran, _ = ui.attempt(
            lambda: data.write(withdraw_as, ident, event, rnd, table, reason),
            refused=(WithdrawRefused, auth.NotAllowed),
        )
        if not ran:
            return
        for key in ("wd_reason", "wd_sure"):
            st.session_state.pop(key, None)
        st.session_state[done_key] = t("wd.done", event=data.title(event), round=rnd, table=table)
        st.rerun()
