"""The upload page's "withdraw a match loaded by mistake", for the jury and admins.

A table loaded under a mistyped event, the wrong round or table, or never played: picked
event, round and table, a reason, a tick that says what will happen, and one button
(:func:`pipeline.ingest.withdraw.withdraw_as`, which reads the rights again). Below it, a
withdrawn match is brought back from the rows the database kept, with a reason
(:func:`pipeline.ingest.withdraw.reinstate_as`): the wrong table picked on a phone is not
lost. A coordinator asks instead (pepet rule 24): the same pickers and a reason send a
withdrawal request to the event's jury (:func:`pipeline.change_requests.ask_withdrawal`),
decided on the requests page; nothing changes until a jury member approves it.
"""

from collections.abc import Callable
from typing import Any

import streamlit as st

from dashboard import access, data, ui
from dashboard.i18n import language, t
from dashboard.messages import warnings
from pipeline import auth
from pipeline import change_requests as cr
from pipeline.ingest.withdraw import (
    WithdrawRefused,
    reinstate_as,
    withdraw_as,
    withdrawable,
    withdrawn,
)
from pipeline.store.db import DatabaseBusy

#: who withdraws (their role as signed in; the write checks it again); a coordinator asks
ROLES = (auth.JURY, auth.ADMIN)


def render(ident: auth.Identity, done_key: str) -> None:
    """The section, closed until opened; what was done leaves its sentence under
    ``done_key`` for the page to show after the rerun."""
    jury = access.role() in ROLES
    with st.expander(t("wd.title" if jury else "wd.ask.title")):
        st.caption(t("wd.why" if jury else "wd.ask.why"))
        try:  # one short connection for the three questions
            allowed, events, gone = data.uncached(_offered, ident.name)
        except DatabaseBusy:
            st.caption(t("busy"))
            return
        if events:
            _withdraw(ident, allowed, events, done_key, jury=jury)
        else:
            st.caption(t("wd.none"))
        if gone:
            _bring_back(ident, gone, done_key, jury=jury)


def _offered(con: Any, name: str) -> tuple[Any, list[str], list[tuple[str, str, str, str, str]]]:
    """The user's events, those with a match they may withdraw, and the withdrawn matches
    they may bring back."""
    allowed = auth.user_events(con, name)
    return allowed, withdrawable(con, allowed).get("events", []), withdrawn(con, allowed)


def _withdraw(
    ident: auth.Identity, allowed: Any, events: list[str], done_key: str, *, jury: bool
) -> None:
    event = st.selectbox(t("wd.event"), events, format_func=data.title, key="wd_event")
    ran, rounds = ui.attempt(lambda: data.uncached(withdrawable, allowed, event))
    if not ran:
        return
    c1, c2 = st.columns(2)
    rnd = c1.selectbox(t("wd.round"), list(rounds), key="wd_round")
    table = c2.selectbox(t("wd.table"), rounds.get(rnd or "", []), key="wd_table")
    reason = st.text_input(
        t("wd.reason" if jury else "wd.ask.reason"), key="wd_reason", max_chars=500
    ).strip()
    shown = {"event": ui.md(data.title(event)), "round": ui.md(rnd), "table": ui.md(table)}
    if not jury:  # nothing changes until the jury approves: no tick to say what happens
        if st.button(t("wd.ask.go"), disabled=not (reason and table), key="wd_ask"):
            _ask(ident, (event, rnd, table), reason, done_key)
        return
    sure = st.checkbox(t("wd.sure", **shown), key="wd_sure")
    if st.button(t("wd.go"), disabled=not (reason and sure and table), key="wd_go"):
        _act(withdraw_as, ident, (event, rnd, table), reason, "wd.done", done_key)


def _bring_back(
    ident: auth.Identity,
    gone: list[tuple[str, str, str, str, str]],
    done_key: str,
    *,
    jury: bool,
) -> None:
    st.markdown(f"**{t('wd.back.title' if jury else 'wd.ask.back.title')}**")
    match = st.selectbox(
        t("wd.back.match"),
        [m[:3] for m in gone],
        format_func=lambda m: t("wd.match", event=data.title(m[0]), round=m[1], table=m[2]),
        key="wd_back_match",
    )
    if match is not None:  # who withdrew it and why: the jury sees what it would undo
        by, why = next(g[3:] for g in gone if g[:3] == match)
        st.caption(t("wd.back.was", by=ui.md(by), reason=ui.md(why)))  # text as typed
    reason = st.text_input(t("wd.back.reason"), key="wd_back_reason", max_chars=500).strip()
    if not jury:  # the rows kept go to the jury as a correction request
        if st.button(t("wd.ask.go"), disabled=not (reason and match), key="wd_ask_back"):
            _ask(ident, match, reason, done_key, back=True)
        return
    if st.button(t("wd.back.go"), disabled=not (reason and match), key="wd_back_go"):
        _act(reinstate_as, ident, match, reason, "wd.back.done", done_key)


def _ask(
    ident: auth.Identity,
    match: tuple[str, str, str],
    reason: str,
    done_key: str,
    *,
    back: bool = False,
) -> None:
    """Send a withdrawal request (``back``: a request to bring a withdrawn match back) to
    the jury; its number said after the rerun."""
    ask = cr.ask_reinstatement if back else cr.ask_withdrawal
    ran, rid = ui.attempt(
        lambda: data.write(ask, ident, *match, reason=reason),
        refused=(WithdrawRefused, cr.RequestRefused, auth.NotAllowed),
    )
    if ran:
        forget = ("wd_back_reason",) if back else ("wd_reason",)
        _done(done_key, "wd.ask.back.sent" if back else "wd.ask.sent", match, forget, id=rid)


def _act(
    act: Callable[..., Any],
    ident: auth.Identity,
    match: tuple[str, str, str],
    reason: str,
    said: str,
    done_key: str,
) -> None:
    """Withdraw or bring back ``match``; a refusal is said on the page, what was done after
    the rerun."""
    ran, plan = ui.attempt(
        lambda: data.write(act, ident, *match, reason), refused=(WithdrawRefused, auth.NotAllowed)
    )
    if not ran:
        return
    if plan.exit_code:  # brought back, but refused as an upload is (a clash with a table)
        st.error(plan.outcomes[0].render(language()) if plan.outcomes else t("wd.refused"))
        return
    # its players seated in the next round's draw, say: shown under what was done
    st.session_state[warnings_key(done_key)] = warnings(plan.problems, language())
    _done(done_key, said, match, ("wd_reason", "wd_sure", "wd_back_reason"))


def warnings_key(done_key: str) -> str:
    """Where the warnings of what was done wait for the rerun, beside ``done_key``."""
    return f"{done_key}_warnings"


def _done(
    done_key: str, said: str, match: tuple[str, str, str], forget: tuple[str, ...], **more: Any
) -> None:
    """Forget the fields just used and rerun, leaving ``said`` (about ``match``) for the
    page to show."""
    for key in forget:
        st.session_state.pop(key, None)
    event, rnd, table = match
    st.session_state[done_key] = t(
        said, event=ui.md(data.title(event)), round=ui.md(rnd), table=ui.md(table), **more
    )
    st.rerun()
