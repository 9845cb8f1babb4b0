"""Opening the database: migrations on open, lock conflicts retried, views kept current.

DuckDB lets one process hold a database file for writing, and an open connection in
another process (even a read-only one) blocks it. Every caller therefore opens late and
closes early (:func:`connect` is a context manager), and waits, up to
``lock_timeout`` seconds, for the other process to finish instead of failing at once.
"""

import contextlib
import hashlib
import random
import threading
import time
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import duckdb

from pipeline import settings

_MIGRATIONS = resources.files("pipeline.store") / "migrations"
_VIEWS = resources.files("pipeline.sql") / "views"


class DatabaseBusy(Exception):
    """Another process held the database for longer than the lock timeout."""


def _migrations() -> list[tuple[int, str, str]]:
    out = []
    for f in sorted(_MIGRATIONS.iterdir(), key=lambda p: p.name):
        if f.name.endswith(".sql"):
            out.append((int(f.name.split("_", 1)[0]), f.name, f.read_text()))
    return out


def _views() -> list[tuple[str, str]]:
    return sorted((f.name, f.read_text()) for f in _VIEWS.iterdir() if f.name.endswith(".sql"))


def views_hash() -> str:
    h = hashlib.sha256()
    for name, text in _views():
        h.update(name.encode() + text.encode())
    return h.hexdigest()[:16]


def duckdb_config() -> dict[str, str | bool | int | float | list[str]]:
    """Settings for every DuckDB instance we start.

    Besides the memory limit, DuckDB's allocator is asked to hand freed memory back to the
    system (background purging, a lower flush threshold): a bulk load frees hundreds of
    megabytes per batch, and without this the process keeps them, batch after batch.
    """
    return {
        "memory_limit": str(settings.get("memory_limit")),
        "allocator_background_threads": True,
        "allocator_flush_threshold": "32MB",
    }


def quiet(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """No progress bar on this connection: a command's output is its own."""
    con.execute("SET enable_progress_bar = false")
    return con


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text and ("conflict" in text or "could not set" in text)


def open_connection(
    path: str | Path | None = None, *, read_only: bool = False, timeout: float | None = None
) -> duckdb.DuckDBPyConnection:
    """Open (and for writers migrate) the database, retrying while another process holds it."""
    db = settings.db_path(path)
    wait = float(settings.get("lock_timeout")) if timeout is None else timeout
    if read_only and not db.exists():
        # Nothing loaded yet: an empty, fully migrated in-memory database reads the same.
        con = duckdb.connect(":memory:")
        migrate(con)
        return con
    if not read_only:
        db.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + wait
    delay = 0.02
    while True:
        try:
            con = quiet(duckdb.connect(str(db), read_only=read_only, config=duckdb_config()))
            break
        except duckdb.Error as exc:
            if not _is_lock_error(exc):
                raise
            if time.monotonic() >= deadline:
                raise DatabaseBusy(
                    f"the database {db} is in use by another process; try again in a moment"
                ) from exc
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.5)
    if not read_only:
        try:
            migrate(con)
        except BaseException:
            con.close()
            raise
    return con


@contextlib.contextmanager
def connect(
    path: str | Path | None = None, *, read_only: bool = False, timeout: float | None = None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """``with connect(db) as con:`` — open late, close early, whatever happens inside."""
    con = open_connection(path, read_only=read_only, timeout=timeout)
    try:
        yield con
    finally:
        con.close()


_host: duckdb.DuckDBPyConnection | None = None
_host_lock = threading.Lock()


@contextlib.contextmanager
def read(path: str | Path | None = None, *, timeout: float | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """Read-only access for a long-lived process (the dashboard), cheap enough per refresh.

    Starting a DuckDB instance costs tens of milliseconds, so one in-memory instance lives
    for the whole process and the database file is ATTACHed read-only for each block and
    DETACHed at its end: between blocks the file is free for ``domino ingest`` in another
    process. Blocks are serialised by a lock; do not keep the connection past the block.

    Never use it while this same process holds a write connection to the file: DuckDB's
    lock is a POSIX lock, which a process loses when it closes *any* handle to the file,
    and the DETACH closes one (see docs/reliability.md).
    """
    db = settings.db_path(path)
    if not db.exists():
        with connect(path, read_only=True) as con:
            yield con
        return
    global _host
    wait = float(settings.get("lock_timeout")) if timeout is None else timeout
    with _host_lock:
        if _host is None:
            _host = quiet(duckdb.connect(":memory:", config=duckdb_config()))
        host = _host
        deadline = time.monotonic() + wait
        delay = 0.02
        while True:
            try:
                host.execute("ATTACH ? AS domino_db (READ_ONLY)", [str(db)])
                break
            except duckdb.Error as exc:
                if not _is_lock_error(exc):
                    raise
                if time.monotonic() >= deadline:
                    raise DatabaseBusy(f"the database {db} is in use by another process; try again in a moment") from exc
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.5)
        try:
            host.execute("USE domino_db")
            yield host
        finally:
            host.execute("USE memory")
            host.execute("DETACH domino_db")


def migrate(con: duckdb.DuckDBPyConnection) -> None:
    """Apply the migrations not yet applied, then (re)create the public views if changed."""
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR, applied_at TIMESTAMP)"
    )
    con.execute("CREATE TABLE IF NOT EXISTS schema_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    done = {r[0] for r in con.execute("SELECT version FROM schema_migrations").fetchall()}
    for version, name, sql in _migrations():
        if version in done:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(sql)
            con.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, current_timestamp)", [version, name]
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    want = views_hash()
    have = con.execute("SELECT value FROM schema_meta WHERE key = 'views_hash'").fetchall()
    if not have or have[0][0] != want:
        con.execute("BEGIN TRANSACTION")
        try:
            for _name, sql in _views():
                con.execute(sql)
            con.execute(
                "INSERT OR REPLACE INTO schema_meta VALUES ('views_hash', ?)", [want]
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise


def insert_frame(con: duckdb.DuckDBPyConnection, table: str, frame: object, columns: str = "*", *, on_conflict: str = "") -> None:
    """``INSERT INTO table SELECT columns FROM frame`` for a polars frame.

    ``table``, ``columns`` and ``on_conflict`` are fixed identifiers and clauses from our
    own code, never user text; the frame is passed by reference, not by value.
    """
    name = f"_frame_{id(frame)}"
    con.register(name, frame)
    try:
        con.execute(f"INSERT INTO {table} SELECT {columns} FROM {name} {on_conflict}")
    finally:
        con.unregister(name)


def schema_version(con: duckdb.DuckDBPyConnection) -> int:
    return int(con.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchall()[0][0])
