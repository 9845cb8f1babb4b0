"""Sign-ins that last: across a reload and into a new tab of the same browser.

After a password check the dashboard calls :func:`issue` (a row of ``sign_ins``) and
keeps the returned token in a browser cookie. The token is ``id.expiry.signature``: the
signature is an HMAC-SHA256 of the id and expiry with a secret generated once and kept
in the database (``auth_secret``), so a made-up or altered cookie is refused without a
look-up. :func:`resume` accepts a token only when its signature is right, it has not
expired, its row exists and is not revoked, and its user still exists. :func:`revoke`
(sign-out) ends every sign-in of the user, in every browser; a password reset, a change
of role and removing the user do too.

The cookie is set by the page's own script (Streamlit offers no way to answer with a
``Set-Cookie`` header), so it cannot be HttpOnly: a script on the page can read it. That
is why it is worth nothing by itself: the server keeps the sign-in, a sign-out revokes
it at once, and it expires (``sign_in_days``). See docs/dashboard.md.
"""

import base64
import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

import duckdb

from pipeline import settings
from pipeline.users import normalize_name, revoke_sign_ins

COOKIE = "domino_session"


def _secret(con: duckdb.DuckDBPyConnection, *, create: bool) -> bytes | None:
    rows = con.execute("SELECT secret FROM auth_secret WHERE id = 1").fetchall()
    if rows:
        return base64.urlsafe_b64decode(str(rows[0][0]))
    if not create:
        return None
    value = base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()
    con.execute(
        "INSERT INTO auth_secret (id, secret, created_at) VALUES (1, ?, ?) ON CONFLICT DO NOTHING",
        [value, datetime.now()],
    )
    return _secret(con, create=False)


def _sign(key: bytes, body: str) -> str:
    mac = hmac.new(key, body.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def lifetime() -> timedelta:
    return timedelta(days=float(settings.get("sign_in_days")))


def issue(con: duckdb.DuckDBPyConnection, name: str, *, now: datetime | None = None) -> str:
    """A new lasting sign-in for ``name`` (already checked): its token for the cookie."""
    now = now or datetime.now()
    key = _secret(con, create=True)
    assert key is not None
    sid = secrets.token_urlsafe(24)
    expires = now + lifetime()
    con.execute(
        "INSERT INTO sign_ins (session_id, name, created_at, expires_at) VALUES (?, ?, ?, ?)",
        [sid, normalize_name(name), now, expires],
    )
    body = f"{sid}.{int(expires.timestamp())}"
    return f"{body}.{_sign(key, body)}"


def resume(
    con: duckdb.DuckDBPyConnection, token: str | None, *, now: datetime | None = None
) -> tuple[str, str] | None:
    """``(name, session id)`` of a valid, unexpired, unrevoked sign-in, else None."""
    if not token or len(token) > 200:
        return None
    parts = token.split(".")
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    sid, expiry, sig = parts
    key = _secret(con, create=False)
    if key is None or not hmac.compare_digest(_sign(key, f"{sid}.{expiry}"), sig):
        return None
    now = now or datetime.now()
    if int(expiry) <= now.timestamp():
        return None
    rows = con.execute(
        "SELECT s.name FROM sign_ins s JOIN users u ON u.name = s.name "
        "WHERE s.session_id = ? AND s.revoked_at IS NULL AND s.expires_at > ?",
        [sid, now],
    ).fetchall()
    return (str(rows[0][0]), sid) if rows else None


def revoke(con: duckdb.DuckDBPyConnection, name: str) -> int:
    """End every lasting sign-in of ``name`` (sign-out ends it everywhere)."""
    key = normalize_name(name)
    n = con.execute(
        "SELECT count(*) FROM sign_ins WHERE name = ? AND revoked_at IS NULL", [key]
    ).fetchall()[0][0]
    revoke_sign_ins(con, key)
    return int(n)
