"""Coordinators: salted password hashes, rate-limited sign-in, and who may write where.

Reading results is public; loading and correcting them is not. A coordinator is a row of
``users`` (argon2id hash, never the password) with the events they may write to in
``user_events`` (``'*'`` = every event). ``domino users add`` creates them.

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

import functools
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

import duckdb
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from pipeline import messages, settings

ALL_EVENTS = "*"
MIN_PASSWORD = 8
MAX_NAME = 64

_hasher = PasswordHasher()


@functools.cache
def _dummy_hash() -> str:
    """Verified against when the name is unknown, so a wrong name costs as long as a wrong
    password and the response time does not tell which names exist. Made on the first
    sign-in (every sign-in asks for it first), not when the module is imported: a load
    from the command line never hashes."""
    return _hasher.hash(secrets.token_urlsafe(16))


# --- hashing and users ----------------------------------------------------------------------


def hash_password(password: str) -> str:
    """An argon2id hash with its own random salt (the salt is part of the string)."""
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def new_token() -> str:
    """A random sign-in token (32 bytes of randomness, URL-safe), shown once."""
    return secrets.token_urlsafe(32)


def normalize_name(name: str) -> str:
    """Names compare trimmed and case-insensitively, inner white space collapsed."""
    return " ".join(str(name).split()).lower()


def add_user(
    con: duckdb.DuckDBPyConnection, name: str, password: str, events: Iterable[str]
) -> None:
    """Create or update a coordinator: store only the hash, replace their event list."""
    key = normalize_name(name)
    if not key:
        raise ValueError("a coordinator needs a name")
    if len(key) > MAX_NAME or not key.isprintable():
        raise ValueError(f"a coordinator name is at most {MAX_NAME} printable characters")
    if len(password) < MIN_PASSWORD:
        raise ValueError(f"the password must be at least {MIN_PASSWORD} characters")
    evs = sorted({e.strip() for e in events if e and e.strip()})
    if not evs:
        raise ValueError("give at least one event (--event E, or --event '*' for every event)")
    digest = hash_password(password)
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(
            "INSERT INTO users VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash",
            [key, digest, datetime.now()],
        )
        con.execute("DELETE FROM user_events WHERE name = ?", [key])
        con.executemany("INSERT INTO user_events VALUES (?, ?)", [[key, e] for e in evs])
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def user_events(con: duckdb.DuckDBPyConnection, name: str) -> set[str] | None:
    """The events ``name`` may write to (``{'*'}`` for all); None when there is no such user."""
    key = normalize_name(name)
    if not con.execute("SELECT 1 FROM users WHERE name = ?", [key]).fetchall():
        return None
    rows = con.execute("SELECT event FROM user_events WHERE name = ?", [key]).fetchall()
    return {r[0] for r in rows}


def may_write(allowed: set[str] | None, event: str) -> bool:
    return allowed is not None and (ALL_EVENTS in allowed or event in allowed)


def forbidden_events(allowed: set[str] | None, events: Iterable[str]) -> list[str]:
    """The events of ``events`` the coordinator may not write to, sorted."""
    return sorted({e for e in events if e is not None and not may_write(allowed, e)})


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
    dummy = _dummy_hash()
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
    ident = Identity(name=key, nonce=secrets.token_urlsafe(24), signed_in_at=time.time())
    with _LIVE_LOCK:
        _LIVE[ident.nonce] = key
    return SignInResult(ident)


def identity_ok(value: object) -> Identity | None:
    """``value`` if it is an identity this process issued and has not signed out, else None."""
    if not isinstance(value, Identity):
        return None
    with _LIVE_LOCK:
        return value if _LIVE.get(value.nonce) == value.name else None


def sign_out(value: object) -> None:
    if isinstance(value, Identity):
        with _LIVE_LOCK:
            _LIVE.pop(value.nonce, None)


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


class NotAllowed(PermissionError):
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
        self.message_id = messages.message_id(code, variant)
        self.params = params or {}
        self.events = events or []
        super().__init__(messages.render(self.message_id, self.params))

    def render(self, lang: str = "en") -> str:
        return messages.render(self.message_id, self.params, lang)


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
