"""Who is signed in, server-side.

The identity lives in ``st.session_state`` (kept on the server, per browser session)
under a key no widget uses, as a :class:`pipeline.auth.Identity` issued by
:func:`pipeline.auth.sign_in`; :func:`current` re-validates it on every call. Nothing
from query parameters or cookies is ever read as an identity, and rights are read from
the database again when an upload is committed.
"""

import streamlit as st

from dashboard import data
from dashboard.i18n import t
from pipeline import auth

IDENTITY_KEY = "_domino_identity"  # never a widget key


def current() -> auth.Identity | None:
    ident = auth.identity_ok(st.session_state.get(IDENTITY_KEY))
    if ident is None and IDENTITY_KEY in st.session_state:
        del st.session_state[IDENTITY_KEY]  # whatever it was, it is not a sign-in
    return ident


def sign_out() -> None:
    auth.sign_out(st.session_state.get(IDENTITY_KEY))
    st.session_state.pop(IDENTITY_KEY, None)


def _client() -> str:
    """The client's address for the sign-in limit (see :func:`pipeline.auth.client_address`)."""
    try:
        peer = st.context.ip_address
        forwarded = st.context.headers.get("X-Forwarded-For")
    except Exception:  # outside a browser session (tests): the same machine
        peer, forwarded = None, None
    return auth.client_address(peer, forwarded)


def sign_in_form() -> auth.Identity | None:
    """The coordinator sign-in form; returns the identity once signed in."""
    st.subheader(t("up.signin.title"))
    st.caption(t("up.signin.why"))
    with st.form("signin_form", clear_on_submit=True, enter_to_submit=True):
        name = st.text_input(
            t("up.signin.name"), key="signin_name", max_chars=auth.MAX_NAME, autocomplete="username"
        )
        password = st.text_input(
            t("up.signin.password"),
            key="signin_password",
            type="password",
            max_chars=256,
            autocomplete="current-password",
        )
        submitted = st.form_submit_button(t("up.signin.submit"), type="primary")
    if not submitted:
        return None
    try:
        result = data.uncached(lambda con: auth.sign_in(con, name, password, client=_client()))
    except Exception as exc:
        if data.is_lock_error(exc):
            st.warning(t("busy.nodata"))
            return None
        raise
    if result.retry_after > 0:
        st.error(t("up.signin.locked", seconds=int(result.retry_after) + 1))
        return None
    if not result.ok:
        st.error(t("up.signin.bad"))
        return None
    st.session_state[IDENTITY_KEY] = result.identity
    st.rerun()
    return result.identity  # pragma: no cover - st.rerun() does not return
