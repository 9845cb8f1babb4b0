"""Who is signed in, server-side, and a sign-in that lasts across reloads and tabs.

The identity lives in ``st.session_state`` (kept on the server, per browser session)
under a key no widget uses, as a :class:`pipeline.auth.Identity` issued by
:func:`pipeline.auth.sign_in`; :func:`current` re-validates it on every call.

A reload or a new tab is a new Streamlit session. To keep the coordinator signed in,
signing in also records a lasting sign-in in the database (:mod:`pipeline.sessions`)
and puts its signed token in a browser cookie; a new session with that cookie is signed
in again only after :func:`pipeline.sessions.resume` checks the signature, the expiry
and the database row. The cookie is written by the page's script, because Streamlit
cannot answer with a ``Set-Cookie`` header: it is ``SameSite=Strict`` (and ``Secure``
over HTTPS) but not HttpOnly; the server-side row is what makes it worth anything, and
signing out revokes every row of the user at once. Rights are read from the database
again when anything is written.
"""

import json

import streamlit as st

from dashboard import data
from dashboard.i18n import t
from pipeline import auth, sessions

IDENTITY_KEY = "_domino_identity"  # never a widget key
ROLE_KEY = "_domino_role"
_CHECKED = "_domino_cookie_checked"  # the cookie value this session already tried
_COOKIE_JS = "_domino_cookie_js"  # a cookie to write on the next run (after st.rerun)
_SIGNIN_ERROR = "_domino_signin_error"
_CLEAR_PASSWORD = "_domino_clear_password"


def _cookie(name: str) -> str | None:
    try:
        value = st.context.cookies.get(name)
    except Exception:  # outside a browser session (tests)
        return None
    return str(value) if value else None


def current() -> auth.Identity | None:
    ident = auth.identity_ok(st.session_state.get(IDENTITY_KEY))
    if ident is None and IDENTITY_KEY in st.session_state:
        del st.session_state[IDENTITY_KEY]  # whatever it was, it is not a sign-in
        st.session_state.pop(ROLE_KEY, None)
    if ident is None:
        ident = _resume()
    return ident


def _resume() -> auth.Identity | None:
    """A new session (a reload, a new tab) with a valid lasting sign-in's cookie."""
    token = _cookie(sessions.COOKIE)
    if not token or st.session_state.get(_CHECKED) == token:
        return None
    st.session_state[_CHECKED] = token
    try:
        found = data.uncached(lambda con: _resume_on(con, token))
    except Exception as exc:
        if data.is_lock_error(exc):
            st.session_state.pop(_CHECKED, None)  # try again on the next run
            return None
        raise
    if found is None:
        return None
    name, sid, role = found
    ident = auth.issue_identity(name, session=sid)
    st.session_state[IDENTITY_KEY] = ident
    st.session_state[ROLE_KEY] = role
    return ident


def _resume_on(con, token: str) -> tuple[str, str, str | None] | None:
    found = sessions.resume(con, token)
    return None if found is None else (*found, auth.user_role(con, found[0]))


def role() -> str | None:
    """The signed-in user's role as it was when they signed in (pages that act re-read it)."""
    return st.session_state.get(ROLE_KEY) if current() is not None else None


def sign_out() -> None:
    """End this user's sign-ins everywhere: every session of this server, every lasting
    sign-in in the database; and forget the cookie in this browser."""
    ident = auth.identity_ok(st.session_state.get(IDENTITY_KEY))
    if ident is not None:
        try:
            data.write(sessions.revoke, ident.name)
        except Exception as exc:
            if not data.is_lock_error(exc):
                raise
    auth.sign_out(st.session_state.get(IDENTITY_KEY))
    st.session_state.pop(IDENTITY_KEY, None)
    st.session_state.pop(ROLE_KEY, None)
    st.session_state[_CHECKED] = _cookie(sessions.COOKIE)  # never resume from it again
    st.session_state[_COOKIE_JS] = (sessions.COOKIE, "", 0)


def set_cookie(name: str, value: str, max_age: int) -> None:
    """Write a cookie from the page (``max_age`` 0 deletes it)."""
    script = (
        "<script>document.cookie = "
        f"{json.dumps(name)} + '=' + {json.dumps(value)} + '; Max-Age={int(max_age)}; Path=/; "
        "SameSite=Strict' + (location.protocol === 'https:' ? '; Secure' : '');</script>"
    )
    st.html(script, unsafe_allow_javascript=True)


def write_pending_cookie() -> None:
    """The cookie a sign-in or sign-out left to write (called on every run, in the sidebar)."""
    pending = st.session_state.pop(_COOKIE_JS, None)
    if pending:
        set_cookie(*pending)


def _client() -> str:
    """The client's address for the sign-in limit (see :func:`pipeline.auth.client_address`)."""
    try:
        peer = st.context.ip_address
        forwarded = st.context.headers.get("X-Forwarded-For")
    except Exception:  # outside a browser session (tests): the same machine
        peer, forwarded = None, None
    return auth.client_address(peer, forwarded)


def sign_in_form(why: str = "up.signin.why") -> auth.Identity | None:
    """The sign-in form; returns the identity once signed in. ``why`` is the key of the
    page's sentence on who may use it (``signin.why.*``). After a wrong password the name
    stays and only the password is emptied."""
    st.subheader(t("up.signin.title"))
    st.caption(t(why))
    if st.session_state.pop(_CLEAR_PASSWORD, False):
        st.session_state["signin_password"] = ""
    with st.form("signin_form", clear_on_submit=False, enter_to_submit=True):
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
    said = st.session_state.pop(_SIGNIN_ERROR, None)
    if said and not submitted:
        st.error(said)
    if not submitted:
        return None
    try:
        result = data.uncached(lambda con: auth.sign_in(con, name, password, client=_client()))
    except Exception as exc:
        if data.is_lock_error(exc):
            st.warning(t("busy.nodata"))
            return None
        raise
    if not result.ok:
        st.session_state[_SIGNIN_ERROR] = (
            t("up.signin.locked", seconds=int(result.retry_after) + 1)
            if result.retry_after > 0
            else t("up.signin.bad")
        )
        st.session_state[_CLEAR_PASSWORD] = True
        st.rerun()
    ident = result.identity
    assert ident is not None
    try:
        token, user_role = data.write(
            lambda con: (sessions.issue(con, ident.name), auth.user_role(con, ident.name))
        )
        st.session_state[_COOKIE_JS] = (
            sessions.COOKIE,
            token,
            int(sessions.lifetime().total_seconds()),
        )
    except Exception as exc:  # busy: signed in for this tab only
        if not data.is_lock_error(exc):
            raise
        user_role = data.uncached(lambda con: auth.user_role(con, ident.name))
    st.session_state[IDENTITY_KEY] = ident
    st.session_state[ROLE_KEY] = user_role
    st.session_state[_CLEAR_PASSWORD] = True
    st.rerun()
    return ident  # pragma: no cover - st.rerun() does not return
