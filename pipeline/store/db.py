"""Opening the database: migrations on open, lock conflicts retried, views kept current.

DuckDB lets one process hold a database file for writing, and an open connection in
another process (even a read-only one) blocks it. Every caller therefore opens late and
closes early (:func:`connect` is a context manager), and waits, up to
``lock_timeout`` seconds, for the other process to finish instead of failing at once.

A file that cannot serve as the database (not a DuckDB file, a SQLite file, read-only
for a writer) is refused before DuckDB touches it, with :class:`StoreError`: one
sentence naming the file and what to do. Database files and their write-ahead logs are
created readable by their owner only (0600): they hold the sign-in password hashes.
"""

import contextlib
import hashlib
import os
import random
import re
import sys
import threading
import time
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any, cast

import duckdb

from pipeline import messages, settings

_MIGRATIONS = resources.files("pipeline.store") / "migrations"
_VIEWS = resources.files("pipeline.sql") / "views"


class DatabaseBusy(Exception):
    """Another process held the database for longer than the lock timeout."""


class StoreError(messages.Refused):
    """The database file cannot be used as it is: one sentence naming the file and what to
    do (exit 2 in the CLI; the page's language on the dashboard). Nothing was changed.

    ``code`` says which case (``not_duckdb``, ``sqlite``, ``read_only``,
    ``read_only_folder``, ``unreadable``, ``damaged``, ``cannot_open``, ``bad_url``) and ``file``
    which file, for tests to key on; the message id is ``store.<code>`` (``.<variant>``
    where one case has several sentences).
    """

    def __init__(
        self,
        code: str,
        file: Path | str,
        params: dict[str, Any] | None = None,
        variant: str = "",
    ) -> None:
        self.code = code
        self.file = file
        mid = messages.message_id(f"store.{code}", variant or None)
        super().__init__(mid, {"db": str(file), **(params or {})})


#: The first bytes of a SQLite file. DuckDB would try to load (download) its SQLite
#: extension to open one, so such a file is refused before DuckDB sees it.
SQLITE_MAGIC = b"SQLite format 3\x00"
#: DuckDB's own mark, 8 bytes into every database file it writes.
DUCKDB_MAGIC = b"DUCK"


def check_target(db: Path) -> None:
    """Refuse a ``--db`` meant as a PostgreSQL URL that is not one (``postgresql:/host/db``,
    ``postgres:host``): taken as a file's path, a writer would make a folder named
    ``postgresql:`` and a database in it, and every reader would find an empty league."""
    if re.match(r"postgres(ql)?:", str(db), re.IGNORECASE):
        raise StoreError("bad_url", db)


def check_file(db: Path, *, write: bool) -> None:
    """Refuse, with a :class:`StoreError`, a database file that DuckDB could not use.

    Checked: the file (when it exists) starts like a DuckDB database, and for a writer
    the file and its folder are writable. A missing file is fine: a writer creates it.
    """
    check_target(db)
    if db.exists():
        if db.is_dir():
            raise StoreError("not_duckdb", db, variant="folder")
        try:
            with open(db, "rb") as f:
                head = f.read(16)
        except OSError as exc:
            raise StoreError("unreadable", db, {"why": str(exc.strerror or exc)}) from exc
        if head.startswith(SQLITE_MAGIC):
            raise StoreError("sqlite", db)
        # Shorter than a header: a writer leaves it to DuckDB, as another writer may be
        # creating the file this instant (DuckDB then waits for its lock; a file that
        # stays short is refused by DuckDB, and that error becomes a StoreError too).
        if (len(head) >= 12 or not write) and head[8:12] != DUCKDB_MAGIC:
            raise StoreError("not_duckdb", db)
        if write and not os.access(db, os.W_OK):
            raise StoreError("read_only", db)
    if write:
        folder = db.parent if db.parent.exists() else _existing_parent(db)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise StoreError("read_only_folder", db, {"folder": str(folder), "name": db.name})


def _existing_parent(db: Path) -> Path:
    folder = db.parent.absolute()
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _open_error(db: Path, exc: Exception) -> StoreError:
    """DuckDB's (or the file system's) refusal to open ``db``, as one sentence."""
    text = str(exc)
    low = text.lower()
    if "permission denied" in low or "read-only file system" in low:
        return StoreError("read_only", db, variant="denied")
    if "not a valid duckdb database" in low:
        return StoreError("not_duckdb", db)
    first = text.strip().splitlines()[0][:200] if text.strip() else type(exc).__name__
    if damaged(exc):
        from pipeline.store.backup import newest_copy

        copy = newest_copy(db)
        if copy:
            return StoreError("damaged", db, {"why": first, "copy": str(copy)}, variant="copy")
        return StoreError("damaged", db, {"why": first})
    return StoreError("cannot_open", db, {"why": first})


#: How DuckDB says that a database file or its write-ahead log does not read back as it
#: was written (a block's checksum, its metadata).
_DAMAGE = ("corrupt", "checksum", "metadatareader", "metadata pointer")


def damaged(exc: Exception) -> bool:
    low = str(exc).lower()
    return isinstance(exc, duckdb.Error) and any(word in low for word in _DAMAGE)


_umask_lock = threading.Lock()
_umask_users = 0
_umask_saved = 0


@contextlib.contextmanager
def _private_files() -> Iterator[None]:
    """New files of this process are readable by their owner only while a writer is open.

    DuckDB creates the database file and, at each first write after a checkpoint, its
    write-ahead log with the process's umask; both hold password hashes. The umask is
    the process's, so it is counted: the last writer to close puts the old one back.
    """
    global _umask_users, _umask_saved
    with _umask_lock:
        if _umask_users == 0:
            _umask_saved = os.umask(0o077)
            os.umask(_umask_saved | 0o077)
        _umask_users += 1
    try:
        yield
    finally:
        with _umask_lock:
            _umask_users -= 1
            if _umask_users == 0:
                os.umask(_umask_saved)


def upgrade(path: Path) -> str:
    """Bring an existing, writable database file up to this version's migrations and views
    (``domino serve`` does it before the pages, which only read). Returns ``"done"``,
    ``"current"`` (nothing to do, or a file that is missing) or ``"busy"``; a read-only
    file that is behind is refused (:class:`StoreError`): read as it is, it would stop a
    page or a command on a table or column it lacks."""
    if not path.exists():
        return "current"
    with connect(path, read_only=True) as con:
        try:
            done = {r[0] for r in con.execute("SELECT version FROM schema_migrations").fetchall()}
            have = con.execute("SELECT value FROM schema_meta WHERE key = 'views_hash'").fetchall()
        except duckdb.Error:
            done, have = set(), []
    if done >= {v for v, _n, _s in _migrations()} and have == [(views_hash(),)]:
        return "current"
    if not os.access(path, os.W_OK):
        # read as it is, a page or a command would stop on a table or column it lacks
        raise StoreError("read_only", path, variant="outdated")
    try:
        with connect(path, timeout=5):
            return "done"
    except DatabaseBusy:
        return "busy"


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
    """Another process holds the file's lock, or another connection of this process has
    it attached for a moment (the dashboard's change watcher attaches it read-only twice
    a second): both pass, so both are waited out."""
    text = str(exc).lower()
    return ("lock" in text and ("conflict" in text or "could not set" in text)) or (
        "unique file handle conflict" in text
    )


def open_connection(
    path: str | Path | None = None, *, read_only: bool = False, timeout: float | None = None
) -> duckdb.DuckDBPyConnection:
    """Open (and for writers migrate) the database, retrying while another process holds it.

    A ``postgresql://`` URL opens the PostgreSQL store (:mod:`pipeline.store.postgres`),
    whose connection offers the same surface.
    """
    target = settings.db_target(path)
    wait = float(settings.get("lock_timeout")) if timeout is None else timeout
    if isinstance(target, str):
        from pipeline.store import postgres

        return cast(
            duckdb.DuckDBPyConnection,
            postgres.open_connection(target, read_only=read_only, timeout=wait),
        )
    db = target
    check_target(db)
    if read_only and not db.exists():
        # Nothing loaded yet: an empty, fully migrated in-memory database reads the same.
        con = duckdb.connect(":memory:")
        migrate(con)
        return con
    check_file(db, write=not read_only)
    if not read_only:
        try:
            db.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                "read_only_folder",
                db,
                {"folder": str(db.parent), "why": str(exc.strerror or exc)},
                variant="create",
            ) from exc
    deadline = time.monotonic() + wait
    delay = 0.02
    while True:
        try:
            con = quiet(duckdb.connect(str(db), read_only=read_only, config=duckdb_config()))
            break
        except duckdb.Error as exc:
            if not _is_lock_error(exc):
                if isinstance(exc, duckdb.IOException) or damaged(exc):
                    raise _open_error(db, exc) from exc
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
    """``with connect(db) as con:`` — open late, close early, whatever happens inside.

    Raises :class:`StoreError` for a file that cannot be the database (see
    :func:`check_file`), :class:`DatabaseBusy` when another process holds it too long.
    """
    with contextlib.ExitStack() as stack:
        if not read_only:
            stack.enter_context(_private_files())
        con = open_connection(path, read_only=read_only, timeout=timeout)
        try:
            target = settings.db_target(path)
            with _said_damaged(None if isinstance(target, str) else target):
                yield con
        finally:
            con.close()


@contextlib.contextmanager
def _said_damaged(db: Path | None) -> Iterator[None]:
    """A block of the file ``db`` found damaged while reading or writing (DuckDB checks
    every block it reads) becomes the :class:`StoreError` that says so and what to do."""
    try:
        yield
    except duckdb.Error as exc:
        if db is not None and damaged(exc):
            raise _open_error(db, exc) from exc
        raise


@contextlib.contextmanager
def sibling(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """A second connection to the store ``con`` is open on, for work in another thread
    (a connection serves one thread at a time): a cursor of the same DuckDB database, or
    a new session of the same PostgreSQL database. Closed at the end of the block."""
    other: duckdb.DuckDBPyConnection
    if is_postgres(con):
        from pipeline.store import postgres

        other = cast(duckdb.DuckDBPyConnection, postgres.another(cast(Any, con)))
    else:
        other = con.cursor()
    try:
        yield other
    finally:
        other.close()


_host: duckdb.DuckDBPyConnection | None = None
_host_lock = threading.Lock()


@contextlib.contextmanager
def read(
    path: str | Path | None = None, *, timeout: float | None = None
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Read-only access for a long-lived process (the dashboard), cheap enough per refresh.

    Starting a DuckDB instance costs tens of milliseconds, so one in-memory instance lives
    for the whole process and the database file is ATTACHed read-only for each block and
    DETACHed at its end: between blocks the file is free for ``domino ingest`` in another
    process. Blocks are serialised by a lock; do not keep the connection past the block.

    Never use it while this same process holds a write connection to the file: DuckDB's
    lock is a POSIX lock, which a process loses when it closes *any* handle to the file,
    and the DETACH closes one (see docs/reliability.md).
    """
    target = settings.db_target(path)
    if isinstance(target, str):
        from pipeline.store import postgres

        wait = float(settings.get("lock_timeout")) if timeout is None else timeout
        with postgres.read(target, timeout=wait) as pcon:
            yield cast(duckdb.DuckDBPyConnection, pcon)
        return
    db = target
    if not db.exists():
        with connect(path, read_only=True) as con:
            yield con
        return
    check_file(db, write=False)
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
                    if isinstance(exc, duckdb.IOException) or damaged(exc):
                        raise _open_error(db, exc) from exc
                    raise
                if time.monotonic() >= deadline:
                    raise DatabaseBusy(
                        f"the database {db} is in use by another process; try again in a moment"
                    ) from exc
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.5)
        try:
            host.execute("USE domino_db")
            with _said_damaged(db):
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
            con.execute("INSERT OR REPLACE INTO schema_meta VALUES ('views_hash', ?)", [want])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise


def insert_frame(
    con: duckdb.DuckDBPyConnection,
    table: str,
    frame: object,
    columns: str = "*",
    *,
    on_conflict: str = "",
) -> None:
    """``INSERT INTO table SELECT columns FROM frame`` for a polars frame.

    ``table``, ``columns`` and ``on_conflict`` are fixed identifiers and clauses from our
    own code, never user text; the frame is passed by reference, not by value.
    """
    if is_postgres(con):
        from pipeline.store import postgres

        postgres.copy_frame(cast(Any, con), table, frame, columns, on_conflict=on_conflict)
        return
    name = f"_frame_{id(frame)}"
    target = table if columns == "*" else f"{table} ({columns})"
    register(con, name, frame)
    try:
        con.execute(f"INSERT INTO {target} SELECT {columns} FROM {name} {on_conflict}")
    finally:
        con.unregister(name)


#: A result of at most this many rows is read as Python rows (see :func:`frame`).
SMALL_RESULT = 4096


class _Stream:
    """A polars frame offered to DuckDB through the Arrow C stream interface alone: DuckDB
    then scans it without converting it by pyarrow, whose import (with numpy's) is about
    0.15 s of a one-table ``domino ingest``. Each scan takes a new stream."""

    __slots__ = ("frame",)

    def __init__(self, frame: Any) -> None:
        self.frame = frame

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self.frame.__arrow_c_stream__(requested_schema)


def register(con: duckdb.DuckDBPyConnection, name: str, frame: Any) -> None:
    """``con.register(name, frame)`` for a polars frame. On DuckDB a frame of at most
    :data:`SMALL_RESULT` rows goes by the Arrow C stream while this process has not
    imported pyarrow; a bigger one by pyarrow, whose scan is parallel (a stream is read
    on one thread, again for every scan: scoring a 500,000-hand batch so took 2 s more).
    The pyarrow table keeps polars' own string layout (Arrow's string views, which DuckDB
    reads): DuckDB's default for a polars frame, ``to_arrow()``, copies every text column
    into Arrow's older layout first (a 500,000-hand batch's hands and hand points were
    each written 0.06-0.09 s sooner without the copy)."""
    small = getattr(frame, "height", SMALL_RESULT + 1) <= SMALL_RESULT
    if is_postgres(con):
        con.register(name, frame)
    elif small and "pyarrow" not in sys.modules:
        con.register(name, _Stream(frame))
    elif hasattr(frame, "to_arrow"):
        import polars as pl

        con.register(name, frame.to_arrow(compat_level=pl.CompatLevel.newest()))
    else:
        con.register(name, frame)


_SIMPLE_TYPES = {
    "VARCHAR": "String",
    "JSON": "String",
    "BOOLEAN": "Boolean",
    "TINYINT": "Int8",
    "SMALLINT": "Int16",
    "INTEGER": "Int32",
    "BIGINT": "Int64",
    "UTINYINT": "UInt8",
    "USMALLINT": "UInt16",
    "UINTEGER": "UInt32",
    "UBIGINT": "UInt64",
    "FLOAT": "Float32",
    "DOUBLE": "Float64",
    "DATE": "Date",
}


def _polars_type(duck: str) -> Any:
    """The polars type DuckDB's ``.pl()`` gives a column of type ``duck``; None for a type
    left to ``.pl()`` itself."""
    import polars as pl

    if duck in _SIMPLE_TYPES:
        return getattr(pl, _SIMPLE_TYPES[duck])
    if duck == "TIMESTAMP":
        return pl.Datetime("us")
    m = re.fullmatch(r"DECIMAL\((\d+),(\d+)\)", duck)
    return pl.Decimal(int(m.group(1)), int(m.group(2))) if m else None


def frame(rel: Any, *, small: bool = True) -> Any:
    """A relation's rows as a polars frame, the frame DuckDB's ``.pl()`` gives.

    ``.pl()`` goes by pyarrow, whose import (with numpy's) is about 0.15 s of a one-table
    ``domino ingest``. Until this process has imported it, a result of at most
    :data:`SMALL_RESULT` rows of plain types is built from its rows instead; a bigger one
    is read again by ``.pl()``, which imports pyarrow once for every read that follows.
    A caller that expects many rows (a batch of a bulk load) says ``small=False`` and is
    read by ``.pl()`` at once, not twice.
    (DuckDB's Arrow C stream would avoid both, but a process that used it prints a
    report of leaked objects when it exits.)
    """
    if not small or not isinstance(rel, duckdb.DuckDBPyRelation) or "pyarrow" in sys.modules:
        return rel.pl()
    import polars as pl

    types = [_polars_type(str(t)) for t in rel.types]
    if any(t is None for t in types):
        return rel.pl()
    rows = rel.limit(SMALL_RESULT + 1).fetchall()
    if len(rows) > SMALL_RESULT:
        return rel.pl()
    return pl.DataFrame(rows, schema=list(zip(rel.columns, types, strict=True)), orient="row")


def for_events(con: duckdb.DuckDBPyConnection, sql: str, events: list[str]) -> Any:
    """The rows of ``sql``, which reads the events asked about from the table ``_events``
    (one column ``event``; a rebuild's batch asks about thousands: one query, not one per
    event), as a polars frame."""
    import polars as pl

    register(con, "_events", pl.DataFrame({"event": events}, schema={"event": pl.String}))
    try:
        return frame(con.sql(sql))
    finally:
        con.unregister("_events")


def is_postgres(con: object) -> bool:
    """Whether ``con`` is a connection to the PostgreSQL store."""
    return type(con).__name__ == "PgConnection"


def schema_version(con: duckdb.DuckDBPyConnection) -> int:
    return int(
        con.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchall()[0][0]
    )
