"""User records: names, salted password hashes, roles, and the events each may write to.

The roles and what they may do are described in :mod:`pipeline.auth`; this module only
keeps the rows (``users``, ``user_events``, ``user_groups``) and answers who may write
where. ``pipeline.auth`` re-exports every public name here.
"""

import functools
import secrets
from collections.abc import Iterable
from datetime import datetime
from importlib import resources

import duckdb
import polars as pl
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from pipeline import messages

ALL_EVENTS = "*"
#: The league of an event or registry that names none (as ``events.league`` defaults)
DEFAULT_LEAGUE = "default"
_GROUP_EVENTS = resources.files("pipeline.sql") / "reports" / "group_events.sql"
ROLES = ("coordinator", "jury", "admin")
COORDINATOR, JURY, ADMIN = ROLES
MIN_PASSWORD = 8
MAX_NAME = 64

_hasher = PasswordHasher()


class UserRefused(messages.Refused, ValueError):
    """A user, a password or a role that cannot be stored, in one sentence."""


class NoSuchUser(messages.Refused, LookupError):
    """A change to a user who does not exist."""


# Verified against when the name is unknown, so a wrong name costs as long as a wrong
# password and the response time does not tell which names exist.
@functools.cache
def dummy_hash() -> str:
    """Made on the first sign-in (every sign-in asks for it first), not on import: a load
    from the command line never hashes."""
    return _hasher.hash(secrets.token_urlsafe(16))


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


def _check_name(name: str) -> str:
    key = normalize_name(name)
    if not key:
        raise UserRefused("user.no_name")
    if len(key) > MAX_NAME or not key.isprintable():
        raise UserRefused("user.long_name", {"max": MAX_NAME})
    return key


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise UserRefused("user.short_password", {"min": MIN_PASSWORD})


def _clean(values: Iterable[str]) -> list[str]:
    """Each value once, its white space collapsed (as the registry writes its groups)."""
    return sorted({" ".join(v.split()) for v in values if v and v.strip()})


def check_scope(role: str, events: list[str], groups: list[str]) -> None:
    """What each role needs: a coordinator events or groups, a jury events, an admin neither."""
    if role not in ROLES:
        raise UserRefused("user.role", {"roles": list(ROLES), "role": repr(role)})
    if role == COORDINATOR and not events and not groups:
        raise UserRefused("user.coordinator_scope")
    if role == JURY and not events:
        raise UserRefused("user.jury_scope")
    if role == JURY and groups:
        raise UserRefused("user.jury_groups")
    if role == ADMIN and (events or groups):
        raise UserRefused("user.admin_scope")


def not_there(
    con: duckdb.DuckDBPyConnection, events: Iterable[str], rights: Iterable[tuple[str, str]]
) -> tuple[list[str], list[tuple[str, str]]]:
    """The events of a user's scope not loaded yet, and the group rights (league, group)
    no player of that league's registry is in. Such a right is kept (a coordinator's first
    upload may create the event), but the CLI and the admin page name them: a typo would
    otherwise grant nothing unseen."""
    from pipeline.events import unknown  # it reads registries: not needed to sign in

    wanted = sorted(set(rights))
    held = set(_league_groups(con)) if wanted else set()
    return (
        unknown(con, [e for e in _clean(events) if e != ALL_EVENTS]),
        [r for r in wanted if r not in held],
    )


def _league_groups(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """Every (league, group) a registry holds: its members' groups and the groups its
    reserves are registered for."""
    rows = con.execute(
        'SELECT DISTINCT league, "group" FROM memberships UNION '
        "SELECT DISTINCT league, reserve_for FROM league_players WHERE reserve_for IS NOT NULL"
    ).fetchall()
    return [(str(league), str(group)) for league, group in rows]


def group_rights(
    con: duckdb.DuckDBPyConnection, groups: Iterable[str], league: str | None = None
) -> list[tuple[str, str]]:
    """The rights (league, group) that ``groups`` grant, each group as its league's
    registry writes it where only the capitals differ (``kg tallo`` is ``KG Tallo``: a right
    is matched as written, so the other spelling would grant nothing; of two spellings
    held, the first in sort order). Without ``league``, each group's league is the one
    whose registry has it; a group in several leagues' registries is refused (a right to
    ``KG 1`` of every city would reach players it is not meant for), one in none is the
    league 'default''s."""
    grs = _clean(groups)
    if not grs:
        return []
    where: dict[str, dict[str, str]] = {}  # a group in lower case -> league -> its spelling
    for lg, g in sorted(_league_groups(con), reverse=True):
        where.setdefault(g.lower(), {})[lg] = g
    if league is not None and league.strip():
        league = " ".join(league.split())
        return sorted({(league, where.get(g.lower(), {}).get(league, g)) for g in grs})
    rights = []
    for g in grs:
        leagues = where.get(g.lower(), {})
        if len(leagues) > 1:
            raise UserRefused("user.group_leagues", {"group": g, "leagues": sorted(leagues)})
        rights += [(lg, spelled) for lg, spelled in leagues.items()] or [(DEFAULT_LEAGUE, g)]
    return sorted(set(rights))


def add_user(
    con: duckdb.DuckDBPyConnection,
    name: str,
    password: str,
    events: Iterable[str],
    *,
    role: str = COORDINATOR,
    groups: Iterable[str] = (),
    league: str | None = None,
) -> None:
    """Create or update a user: store only the hash, replace their role, events and groups
    (of ``league``, else each of the league whose registry has it: :func:`group_rights`)."""
    key = _check_name(name)
    _check_password(password)
    evs, grs = _clean(events), _clean(groups)
    check_scope(role, evs, grs)
    rights = group_rights(con, grs, league)
    digest = hash_password(password)
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(
            "INSERT INTO users (name, password_hash, created_at, role) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET password_hash = excluded.password_hash, "
            "role = excluded.role",
            [key, digest, datetime.now(), role],
        )
        _set_scope(con, key, evs, rights)
        revoke_sign_ins(con, key)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def revoke_sign_ins(con: duckdb.DuckDBPyConnection, key: str) -> None:
    """End every lasting sign-in of the user ``key`` (a normalised name)."""
    con.execute(
        "UPDATE sign_ins SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
        [datetime.now(), key],
    )


def _set_scope(
    con: duckdb.DuckDBPyConnection, key: str, evs: list[str], rights: list[tuple[str, str]]
) -> None:
    con.execute("DELETE FROM user_events WHERE name = ?", [key])
    con.execute("DELETE FROM user_groups WHERE name = ?", [key])
    if evs:
        con.executemany(
            "INSERT INTO user_events (name, event) VALUES (?, ?)", [[key, e] for e in evs]
        )
    if rights:
        con.executemany(
            'INSERT INTO user_groups (name, league, "group") VALUES (?, ?, ?)',
            [[key, lg, g] for lg, g in rights],
        )


def set_role(
    con: duckdb.DuckDBPyConnection,
    name: str,
    role: str,
    events: Iterable[str],
    groups: Iterable[str] = (),
    league: str | None = None,
) -> None:
    """Change a user's role, events and groups (of ``league``, as :func:`add_user`); the
    password stays."""
    key = normalize_name(name)
    evs, grs = _clean(events), _clean(groups)
    check_scope(role, evs, grs)
    rights = group_rights(con, grs, league)
    con.execute("BEGIN TRANSACTION")
    try:
        if not con.execute("SELECT 1 FROM users WHERE name = ?", [key]).fetchall():
            raise NoSuchUser("user.unknown", {"name": repr(name)})
        con.execute("UPDATE users SET role = ? WHERE name = ?", [role, key])
        _set_scope(con, key, evs, rights)
        revoke_sign_ins(con, key)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def set_password(con: duckdb.DuckDBPyConnection, name: str, password: str) -> None:
    """A new password (an admin's reset); every lasting sign-in of the user ends."""
    key = normalize_name(name)
    _check_password(password)
    digest = hash_password(password)
    if not con.execute("SELECT 1 FROM users WHERE name = ?", [key]).fetchall():
        raise NoSuchUser("user.unknown", {"name": repr(name)})
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute("UPDATE users SET password_hash = ? WHERE name = ?", [digest, key])
        revoke_sign_ins(con, key)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def remove_user(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Remove a user, their events, groups and sign-ins; False when there was none."""
    key = normalize_name(name)
    con.execute("BEGIN TRANSACTION")
    try:
        found = bool(con.execute("SELECT 1 FROM users WHERE name = ?", [key]).fetchall())
        for table in ("user_events", "user_groups", "sign_ins", "users"):
            con.execute(f"DELETE FROM {table} WHERE name = ?", [key])
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return found


def user_role(con: duckdb.DuckDBPyConnection, name: str) -> str | None:
    """The user's role, None when there is no such user."""
    rows = con.execute(
        "SELECT coalesce(role, 'coordinator') FROM users WHERE name = ?", [normalize_name(name)]
    ).fetchall()
    return str(rows[0][0]) if rows else None


def group_events(con: duckdb.DuckDBPyConnection, rights: list[tuple[str, str]]) -> set[str]:
    """Events of its league the players of each right's group play in: on the roster (by
    its group or the league registry's on the event's date), or loaded; a group's
    registered reserves count for it (rule 23). ``pipeline/sql/reports/group_events.sql``."""
    if not rights:
        return set()
    rows = con.sql(
        _GROUP_EVENTS.read_text(),
        params={"leagues": [lg for lg, _ in rights], "groups": [g for _, g in rights]},
    ).fetchall()
    return {r[0] for r in rows}


def user_groups(con: duckdb.DuckDBPyConnection, name: str) -> list[str]:
    """The groups ``name`` looks after, each once (of whichever league)."""
    return sorted({g for _, g in user_rights(con, name)})


_LISTING = (
    "SELECT u.name, coalesce(u.role, 'coordinator') AS role, "
    "(SELECT string_agg(e.event, ', ' ORDER BY e.event) FROM user_events e "
    "WHERE e.name = u.name) AS events, "
    '(SELECT string_agg(DISTINCT g."group", \', \' ORDER BY g."group") FROM user_groups g '
    "WHERE g.name = u.name) AS groups, "
    "(SELECT string_agg(DISTINCT g.league, ', ' ORDER BY g.league) FROM user_groups g "
    "WHERE g.name = u.name) AS league, "
    "u.created_at FROM users u ORDER BY u.name"
)


def listing(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """``name, role, events, groups, league, created_at`` of every user (never a password):
    `domino users list` and the admin page."""
    return con.sql(_LISTING).pl()


def user_rights(con: duckdb.DuckDBPyConnection, name: str) -> list[tuple[str, str]]:
    """The group rights of ``name``: (league, group), sorted."""
    rows = con.execute(
        'SELECT league, "group" FROM user_groups WHERE name = ? ORDER BY league, "group"',
        [normalize_name(name)],
    ).fetchall()
    return [(str(lg), str(g)) for lg, g in rows]


def user_events(con: duckdb.DuckDBPyConnection, name: str) -> set[str] | None:
    """The events ``name`` may write to (``{'*'}`` for all); None when there is no such user.

    An admin's are every event; a coordinator's are their events and their groups' events."""
    key = normalize_name(name)
    role = user_role(con, key)
    if role is None:
        return None
    if role == ADMIN:
        return {ALL_EVENTS}
    rows = con.execute("SELECT event FROM user_events WHERE name = ?", [key]).fetchall()
    events = {r[0] for r in rows}
    if role == COORDINATOR:
        events |= group_events(con, user_rights(con, key))
    return events


def may_write(allowed: set[str] | None, event: str) -> bool:
    return allowed is not None and (ALL_EVENTS in allowed or event in allowed)


def forbidden_events(allowed: set[str] | None, events: Iterable[str]) -> list[str]:
    """The events of ``events`` the coordinator may not write to, sorted."""
    return sorted({e for e in events if e is not None and not may_write(allowed, e)})
