"""The PostgreSQL store: a league's database on a PostgreSQL server.

``--db postgresql://USER@HOST:PORT/DB`` (or ``DOMINO_DB``) selects it. The engine speaks
to both stores through the same small surface a DuckDB connection offers it —
``execute`` / ``sql`` with ``?`` parameters, ``fetchall`` / ``fetchone`` / ``pl``,
``executemany``, ``register`` of a polars frame, ``close`` — so :class:`PgConnection`
offers exactly that over a psycopg connection: each statement is DuckDB SQL transpiled
once (:mod:`pipeline.store.pgsql`), a registered frame becomes a temporary table filled
by ``COPY``, and :func:`copy_frame` writes straight into a table with ``COPY``.
Reading, validation and scoring stay in DuckDB (the models run in an in-memory DuckDB
per upload); what reaches PostgreSQL is the commit, serialised per match
(:func:`claim_matches`).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
from collections.abc import Iterator
from typing import Any

import polars as pl
import psycopg
from psycopg_pool import ConnectionPool

from pipeline import messages
from pipeline.store.pgconn import PgConnection, configure

SCHEMES = ("postgresql://", "postgres://")


class StoreUnavailable(messages.Refused, ConnectionError):
    """The PostgreSQL server cannot be reached or refuses the connection (one sentence,
    ``store.unreachable``; the CLI exits 2 with it, a page says it in its language)."""

    def __init__(self, url: str, exc: Exception) -> None:
        super().__init__("store.unreachable", {"db": redact(url), "why": _first_line(exc)})


class MatchesChanged(RuntimeError):
    """Another upload wrote one of these matches since this one was planned."""

    def __init__(self, matches: list[tuple[str, str, str]]) -> None:
        names = ", ".join(f"{e} {r} table {t}" for e, r, t in matches[:5])
        super().__init__(f"another upload changed {names} meanwhile; plan again")
        self.matches = matches


def is_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(SCHEMES)


def redact(url: str) -> str:
    """The URL without a password (or anything else after the database's name), for
    messages; a URL that does not parse loses what stands between ``:`` and ``@``."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error:
        return re.sub(r"^(\w+://[^:/@]*):[^/]*@", r"\1@", url.split("?", 1)[0])
    user = f"{info['user']}@" if info.get("user") else ""
    host = str(info.get("host", ""))
    at = f"{host}:{info.get('port', '5432')}" if host and not host.startswith("/") else ""
    socket = f"?host={host}" if host.startswith("/") else ""
    return f"postgresql://{user}{at}/{info.get('dbname', '')}{socket}"


def check_url(url: str) -> None:
    """Refuse, before any connection or pool is made, a URL libpq cannot parse (an
    unknown ``?option``, a port that is no number): one sentence, not an internal error."""
    try:
        psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error as exc:
        from pipeline.store.db import StoreError

        raise StoreError("bad_url", redact(url), {"why": _first_line(exc)}, "invalid") from exc


def copy_frame(
    con: PgConnection, table: str, frame: Any, columns: str = "*", *, on_conflict: str = ""
) -> None:
    """:func:`pipeline.store.db.insert_frame` on PostgreSQL: ``COPY`` straight into the
    table, or through a temporary table when rows may conflict."""
    df = frame if isinstance(frame, pl.DataFrame) else pl.from_arrow(frame)
    assert isinstance(df, pl.DataFrame)
    target = (
        con.table_columns(table)[: df.width]
        if columns == "*"
        else [c.strip().strip('"') for c in columns.split(",")]
    )
    if not on_conflict:
        # named columns are taken by name (as DuckDB's SELECT of them does), * by position
        named = columns != "*" and all(c in df.columns for c in target)
        con.copy_in(table, df.select(target if named else df.columns[: len(target)]), target)
        return
    name = f"_frame_{id(df)}"
    con.register(name, df)
    try:
        cols = ", ".join(f'"{c}"' for c in target)
        sel = "*" if columns == "*" else columns
        con.execute(f"INSERT INTO {table} ({cols}) SELECT {sel} FROM {name} {on_conflict}")
    finally:
        con.unregister(name)


# Advisory locks live in PostgreSQL's shared lock table (max_locks_per_transaction ×
# max_connections slots, 6,400 by default): a first load of 100,000 matches cannot hold one
# lock per match. Matches are locked by bucket instead (a hash of event, round and table):
# one match is always the same bucket, an upload takes at most LOCK_BUCKETS locks, and two
# venues' single tables share a bucket (and wait a few milliseconds) once in 1,024.
LOCK_BUCKETS = 1024
_LOCK_CLASS = 0x646F6D69  # the first of the two int4 keys: this application's matches


def match_key(event: str, round_: str, table: str) -> int:
    """The advisory lock bucket of one match (0 .. LOCK_BUCKETS - 1)."""
    digest = hashlib.sha256("\x1f".join((event, round_, table)).encode()).digest()
    return int.from_bytes(digest[:8], "big") % LOCK_BUCKETS


def claim_matches(con: PgConnection, writes: list[tuple[str, str, str, int]]) -> None:
    """Inside the commit's transaction: lock each match written (by bucket, in one order,
    so two uploads never wait on each other in a circle) and check that its loaded version
    is still the one this plan replaces; else :class:`MatchesChanged`, nothing written.

    A bulk load (:data:`BULK_MATCHES` matches or more) takes every bucket without hashing
    each match (which would leave out about one bucket in 55), and reads the loaded
    versions of its events rather than looking up each match."""
    if not writes:
        return
    bulk = len(writes) >= BULK_MATCHES
    keys = (
        list(range(LOCK_BUCKETS))
        if bulk
        else sorted({match_key(e, r, t) for e, r, t, _v in writes})
    )
    con.raw.execute(
        "SELECT count(pg_advisory_xact_lock(%s::int, k)) "
        "FROM (SELECT unnest(%s::int[]) AS k ORDER BY 1) s",
        [_LOCK_CLASS, keys],
    )
    if bulk:
        rows = con.raw.execute(_LOADED_OF_EVENTS, [sorted({w[0] for w in writes})]).fetchall()
    else:
        rows = con.raw.execute(
            _LOADED_OF_MATCHES,
            [[w[0] for w in writes], [w[1] for w in writes], [w[2] for w in writes]],
        ).fetchall()
    loaded = {(e, r, t): int(v) for e, r, t, v in rows}
    changed = [(e, r, t) for e, r, t, v in writes if loaded.get((e, r, t), 0) != v - 1]
    if changed:
        raise MatchesChanged(changed)


#: Matches in one load from which it locks every bucket (4 × LOCK_BUCKETS: a bucket is
#: left out with probability e^-4).
BULK_MATCHES = 4 * LOCK_BUCKETS
_LOADED_OF_MATCHES = (
    'SELECT event, round, "table", max(version) FROM match_versions '
    'WHERE (event, round, "table") IN (SELECT * FROM unnest(%s::text[], %s::text[], %s::text[])) '
    'GROUP BY event, round, "table"'
)
_LOADED_OF_EVENTS = (
    'SELECT event, round, "table", max(version) FROM match_versions '
    'WHERE event = ANY(%s::text[]) GROUP BY event, round, "table"'
)


@contextlib.contextmanager
def analysing(con: PgConnection, statement: str) -> Iterator[None]:
    """``statement`` (an ``ANALYZE``) on a connection of its own while the block runs
    (the rating update after a bulk load: the client replays the ladder while the server
    samples the tables); waits for it at the end. ANALYZE only refreshes the planner's
    statistics, so its failing (a server gone away is met by the next statement anyway)
    loses nothing."""

    def run() -> None:
        with contextlib.suppress(psycopg.Error, StoreUnavailable):
            with _raw(con.url, 10.0) as other:
                other.execute(statement.encode())

    worker = threading.Thread(target=run, name="domino-analyze", daemon=True)
    worker.start()
    try:
        yield
    finally:
        worker.join()


# --- connections --------------------------------------------------------------------

_pools: dict[str, ConnectionPool[Any]] = {}
_pools_lock = threading.Lock()
_migrated: set[str] = set()


def _raw(url: str, timeout: float) -> psycopg.Connection[Any]:
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(timeout)))
    except psycopg.OperationalError as exc:
        raise StoreUnavailable(url, exc) from exc
    configure(conn)
    return conn


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:160] if text else type(exc).__name__


def open_connection(url: str, *, read_only: bool = False, timeout: float = 10.0) -> PgConnection:
    """A new connection; a writer (and the first reader of the process) migrates."""
    check_url(url)
    con = PgConnection(_raw(url, timeout), url)
    if not read_only or url not in _migrated:
        try:
            from pipeline.store.pgmigrate import migrate

            migrate(con)
            _migrated.add(url)
        except BaseException:
            con.close()
            raise
    return con


def another(con: PgConnection, timeout: float = 10.0) -> PgConnection:
    """A second session to the database of ``con``, which migrated it already (for work
    in another thread: :func:`pipeline.store.db.sibling`)."""
    return PgConnection(_raw(con.url, timeout), con.url)


@contextlib.contextmanager
def connect(url: str, *, read_only: bool = False, timeout: float = 10.0) -> Iterator[PgConnection]:
    con = open_connection(url, read_only=read_only, timeout=timeout)
    try:
        yield con
    finally:
        con.close()


def pool(url: str) -> ConnectionPool[Any]:
    """The process's small pool of reading connections to ``url``. Each is checked as it
    is lent (one empty round trip): after the server restarted, or a network dropped an
    idle connection, a page gets a live one instead of failing on a dead one."""
    from pipeline import settings

    with _pools_lock:
        if url not in _pools:
            with connect(url):  # migrated once before the pool's connections read
                pass
            p: ConnectionPool[Any] = ConnectionPool(
                url,
                min_size=1,
                max_size=int(settings.get("pg_pool_size")),
                kwargs={"autocommit": True},
                configure=configure,
                check=ConnectionPool.check_connection,
                open=False,
                name="domino-read",
            )
            p.open(wait=True, timeout=10)
            _pools[url] = p
        return _pools[url]


@contextlib.contextmanager
def read(url: str, *, timeout: float = 10.0) -> Iterator[PgConnection]:
    """A pooled connection for one batch of reads (the dashboard). The URL is checked
    once, when the pool is made (:func:`pool` opens it first)."""
    try:
        cm = pool(url).connection(timeout=timeout)
        raw = cm.__enter__()
    except psycopg.OperationalError as exc:
        raise StoreUnavailable(url, exc) from exc
    con = PgConnection(raw, url)
    try:
        yield con
    finally:
        for name in list(con._frames):
            con.unregister(name)
        cm.__exit__(None, None, None)


def close_pools() -> None:
    with _pools_lock:
        for p in _pools.values():
            p.close()
        _pools.clear()
