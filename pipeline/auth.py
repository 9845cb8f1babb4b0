"""Users and roles: salted password hashes, rate-limited sign-in, and who may write where.

Reading results is public (the viewer needs no account); loading and correcting them is
not. A user is a row of ``users`` (argon2id hash, never the password) with one role:

- **coordinator** — uploads results of their events (``user_events``) or of the events
  their groups play in (``user_groups``); a correction of a loaded match becomes a change
  request (:mod:`pipeline.change_requests`) that the jury approves;
- **jury** — of their events: approves or rejects change requests, and corrects directly;
- **admin** — every event; manages users (``domino users``, the dashboard's admin page).

``domino users add`` creates them; users made before roles existed are coordinators.

Three rules the dashboard relies on:

- **Failures are rate-limited** per name and per client: after ``login_attempts``
  failures within ``login_window_seconds`` further attempts are refused without
  checking the password, until the window has passed.
- **A signed-in identity is a server-side object**: :func:`sign_in` returns a
  :class:`Identity` registered in this process; :func:`identity_ok` accepts only such
  an object, so a name written into the session by any other path (a widget value, a
  query parameter, a cookie) is not a sign-in.
- **Rights are checked against the database at commit time**
  (:func:`check_rights` on the write connection): a coordinator removed, or whose
  events changed, since signing in cannot write with the old rights.
"""

import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import duckdb

from pipeline import messages, settings
from pipeline.users import (
    ADMIN,
    ALL_EVENTS,
    COORDINATOR,
    DEFAULT_LEAGUE,
    JURY,
    MAX_NAME,
    MIN_PASSWORD,
    ROLES,
    add_user,
    check_scope,
    dummy_hash,
    forbidden_events,
    group_events,
    group_rights,
    hash_password,
    listing,
    may_write,
    new_token,
    normalize_name,
    not_there,
    remove_user,
    set_password,
    set_role,
    user_events,
    user_groups,
    user_rights,
    user_role,
    verify_password,
)

# the user records live in pipeline/users.py; callers keep using pipeline.auth
__all__ = [
    "ADMIN",
    "ALL_EVENTS",
    "COORDINATOR",
    "DEFAULT_LEAGUE",
    "JURY",
    "MAX_NAME",
    "MIN_PASSWORD",
    "ROLES",
    "add_user",
    "check_scope",
    "forbidden_events",
    "group_events",
    "group_rights",
    "hash_password",
    "listing",
    "may_write",
    "new_token",
    "normalize_name",
    "not_there",
    "remove_user",
    "set_password",
    "set_role",
    "user_events",
    "user_groups",
    "user_rights",
    "user_role",
    "verify_password",
    "RateLimiter",
    "LIMITER",
    "Identity",
    "SignInResult",
    "sign_in",
    "issue_identity",
    "identity_ok",
    "sign_out",
    "LOOPBACK",
    "client_address",
    "NotAllowed",
    "check_may_correct",
    "check_rights",
]


# --- rate limiting --------------------------------------------------------------------------


@dataclass
class RateLimiter:
    """Failures per key within a sliding window; thread-safe (one per server process).

    Kept in memory: the dashboard is one process, and a restart forgetting failures
    is acceptable (see docs/dashboard.md).
    """

    attempts: int | None = None
    window: float | None = None
    clock: Callable[[], float] = time.monotonic
    _fails: dict[str, deque[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _limits(self) -> tuple[int, float]:
        attempts = (
            self.attempts if self.attempts is not None else int(settings.get("login_attempts"))
        )
        window = (
            self.window if self.window is not None else float(settings.get("login_window_seconds"))
        )
        return attempts, window

    def _recent(self, key: str, now: float, window: float) -> deque[float]:
        q = self._fails.setdefault(key, deque())
        while q and q[0] <= now - window:
            q.popleft()
        return q

    def retry_after(self, keys: Iterable[str]) -> float:
        """Seconds until any of ``keys`` may try again (0 when none is locked out)."""
        attempts, window = self._limits()
        now = self.clock()
        wait = 0.0
        with self._lock:
            for k in keys:
                q = self._recent(k, now, window)
                if len(q) >= attempts:
                    wait = max(wait, q[len(q) - attempts] + window - now)
        return wait

    def fail(self, keys: Iterable[str]) -> None:
        _, window = self._limits()
        now = self.clock()
        with self._lock:
            for k in keys:
                self._recent(k, now, window).append(now)

    def reset(self, keys: Iterable[str]) -> None:
        with self._lock:
            for k in keys:
                self._fails.pop(k, None)


LIMITER = RateLimiter()


# --- identities -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    """A signed-in coordinator. Only :func:`sign_in` makes ones that :func:`identity_ok` accepts."""

    name: str
    nonce: str
    signed_in_at: float
    session: str | None = None  # the lasting sign-in (pipeline/sessions.py) it came from


_LIVE: dict[str, str] = {}  # nonce -> name, for identities issued by this process
_LIVE_LOCK = threading.Lock()


@dataclass(frozen=True)
class SignInResult:
    identity: Identity | None
    retry_after: float = 0.0  # > 0: locked out, nothing was checked

    @property
    def ok(self) -> bool:
        return self.identity is not None


def sign_in(
    con: duckdb.DuckDBPyConnection,
    name: str,
    password: str,
    *,
    client: str | None = None,
    limiter: RateLimiter | None = None,
) -> SignInResult:
    """Check a name and password; count failures; on success issue an :class:`Identity`."""
    limiter = limiter or LIMITER
    dummy = dummy_hash()
    key = normalize_name(name)
    keys = [f"user:{key}"] + ([f"client:{client}"] if client else [])
    wait = limiter.retry_after(keys)
    if wait > 0:
        return SignInResult(None, retry_after=wait)
    rows = (
        con.execute("SELECT password_hash FROM users WHERE name = ?", [key]).fetchall()
        if key
        else []
    )
    good = verify_password(rows[0][0] if rows else dummy, password or "") and bool(rows)
    if not good:
        limiter.fail(keys)
        return SignInResult(None, retry_after=0.0)
    limiter.reset([f"user:{key}"])
    return SignInResult(issue_identity(key))


def issue_identity(name: str, session: str | None = None) -> Identity:
    """A live identity for ``name``: after a password check, or a lasting sign-in that
    :func:`pipeline.sessions.resume` found valid. Nothing else may call this."""
    ident = Identity(
        name=normalize_name(name),
        nonce=secrets.token_urlsafe(24),
        signed_in_at=time.time(),
        session=session,
    )
    with _LIVE_LOCK:
        _LIVE[ident.nonce] = ident.name
    return ident


def identity_ok(value: object) -> Identity | None:
    """``value`` if it is an identity this process issued and has not signed out, else None."""
    if not isinstance(value, Identity):
        return None
    with _LIVE_LOCK:
        return value if _LIVE.get(value.nonce) == value.name else None


def sign_out(value: object) -> None:
    """End every identity of that user this process issued (every tab, every browser);
    the lasting sign-ins in the database are revoked by :func:`pipeline.sessions.revoke`."""
    if isinstance(value, Identity):
        with _LIVE_LOCK:
            for nonce in [n for n, who in _LIVE.items() if who == value.name]:
                _LIVE.pop(nonce, None)


LOOPBACK = "127.0.0.1"


def client_address(peer: str | None, forwarded_for: str | None, trusted: str | None = None) -> str:
    """The address a sign-in is rate-limited by.

    ``peer`` is the address the connection came from (None: the same machine, as
    Streamlit reports it). A request from a trusted proxy (``trusted``: comma-separated
    addresses, the ``trusted_proxies`` setting) names its client in ``X-Forwarded-For``:
    the right-most address there that is not itself a trusted proxy. From anyone else
    the header is ignored, since any client can send it.
    """
    peer = (peer or LOOPBACK).strip()
    proxies = {
        a.strip()
        for a in (trusted if trusted is not None else str(settings.get("trusted_proxies"))).split(
            ","
        )
        if a.strip()
    }
    if peer not in proxies or not forwarded_for:
        return peer
    for hop in reversed([h.strip() for h in forwarded_for.split(",") if h.strip()]):
        if hop not in proxies:
            return hop
    return peer


class NotAllowed(messages.Refused, PermissionError):
    """The coordinator may not write (some of) what they tried to load. ``str()`` is the
    English sentence; :meth:`render` says it in another language (pipeline/messages)."""

    def __init__(
        self,
        code: str,
        params: dict[str, object] | None = None,
        events: list[str] | None = None,
        *,
        variant: str | None = None,
    ):
        self.code = code
        self.events = events or []
        super().__init__(messages.message_id(code, variant), params)


def check_may_correct(
    con: duckdb.DuckDBPyConnection, ident: Identity, events: Iterable[str]
) -> None:
    """A coordinator's correction of a loaded match is a change request, not a load
    (RULES.md, pepet rule 24): raise :class:`NotAllowed` when ``events`` (those of the
    corrections in a plan) is not empty and the user is a coordinator."""
    corrected = sorted({e for e in events if e})
    if corrected and user_role(con, ident.name) == COORDINATOR:
        raise NotAllowed(
            "correction_needs_request", {"name": ident.name, "events": ", ".join(corrected)}
        )


def check_rights(con: duckdb.DuckDBPyConnection, ident: object, events: Iterable[str]) -> Identity:
    """Raise :class:`NotAllowed` unless ``ident`` is a live identity whose user, *as the
    database says now*, may write to every one of ``events``. Returns the identity."""
    good = identity_ok(ident)
    if good is None:
        raise NotAllowed("not_signed_in")
    allowed = user_events(con, good.name)
    if allowed is None:
        raise NotAllowed("coordinator_gone", {"name": repr(good.name)})
    bad = forbidden_events(allowed, events)
    if bad:
        raise NotAllowed(
            "not_allowed",
            {"name": good.name, "events": ", ".join(bad), "allowed": ", ".join(sorted(allowed))},
            bad,
            variant=None if allowed else "none",
        )
    return good
