"""Backups and restores of the database file (``domino backup`` / ``domino restore``).

A result sheet is the only record of a match, so a copy must be whole: both take the
write lock through :func:`pipeline.store.db.connect` (a load in progress finishes first;
a load that starts meanwhile waits), ``CHECKPOINT`` so the file holds every committed
row and no write-ahead log is needed, then copy. Copies are written beside their target
under a temporary name, flushed to disk and renamed into place, so a crash leaves the
old file or the new one, never half of one.

A restore checks the source first (it must open as a DuckDB database with our tables),
saves the current database aside, and only then replaces it.

Where copies go: one rule for every way of naming a database (``--db`` or
``DOMINO_DB``, a relative or absolute path, a symbolic link). The database is taken by
its resolved path; its copies go to ``backups/`` beside that file, or to the folder
``backup_dir`` names, and every copy's name starts with the database's name and a short
hash of its resolved path (:func:`copy_prefix`), so two databases that share a name or a
backup folder never share — or prune — each other's copies.
"""

import contextlib
import fcntl
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import duckdb

from pipeline import messages, settings
from pipeline.store.db import StoreError, check_target, connect, migrate, schema_version

#: Tables a database must have to be restored (those of the first migration).
REQUIRED_TABLES = (
    "schema_migrations",
    "events",
    "ingests",
    "match_versions",
    "hands",
    "hand_points_t",
    "table_standings_t",
    "player_names",
    "registry",
    "aliases",
)


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why (exit 1 in the CLI)."""


class CopyFailed(messages.Refused, BackupError):
    """A copy of the database that could not be written (``backup.not_copied``): a
    refusal said in the page's language on the dashboard."""

    def __init__(self, src: Path, dest: Path, why: str, variant: str = "") -> None:
        params = {"src": str(src), "dest": str(dest), "why": why}
        super().__init__(messages.message_id("backup.not_copied", variant or None), params)

    def before_correction(self) -> "CopyFailed":
        """The same failure said of the copy a change to loaded results (a correction, a
        withdrawal, an event's deletion) takes first."""
        p = self.params
        return CopyFailed(Path(p["src"]), Path(p["dest"]), p["why"], variant="correction")


def identity(db: str | os.PathLike[str]) -> Path:
    """The database's full identity: its absolute path with symbolic links resolved."""
    return Path(db).expanduser().resolve()


def copy_prefix(db: str | os.PathLike[str]) -> str:
    """``<name>-<hash>``: how every copy of ``db`` begins; the hash is of its resolved path.

    Two databases named ``domino.duckdb`` in two folders get two prefixes, so a shared
    backup folder keeps them apart and pruning one never deletes the other's copies.
    """
    path = identity(db)
    return f"{path.stem}-{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"


def backup_dir(db: str | os.PathLike[str]) -> Path:
    """Where copies of ``db`` go: ``backup_dir`` (``DOMINO_BACKUP_DIR``) when set, else
    ``backups/`` beside the database file (its resolved path).

    The same folder for ``domino backup``, the copy taken before a correction and the
    database a restore saves aside, however the database was named.
    """
    explicit = str(settings.get("backup_dir") or "")
    if explicit:
        return Path(explicit).expanduser()
    return identity(db).parent / "backups"


def backup_dir_for(target: str | os.PathLike[str]) -> Path:
    """:func:`backup_dir` for a file or a PostgreSQL URL (whose copies go to
    ``backup_dir``, else ``backups/`` in the current folder)."""
    if str(target).startswith(("postgresql://", "postgres://")):
        explicit = str(settings.get("backup_dir") or "")
        return Path(explicit).expanduser() if explicit else Path("backups").absolute()
    return backup_dir(target)


def newest_copy(db: str | os.PathLike[str]) -> Path | None:
    """The newest copy of ``db`` in :func:`backup_dir` (taken by ``domino backup``, before
    a correction or before a restore), or None."""
    folder = backup_dir(db)
    copies = [p for p in folder.glob(f"{glob.escape(copy_prefix(db))}-*.duckdb") if p.is_file()]
    return max(copies, key=lambda p: p.stat().st_mtime_ns) if copies else None


def stamp() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-%f")


def backup(
    db: str | os.PathLike[str] | None = None, dest: str | os.PathLike[str] | None = None
) -> Path:
    """Copy the database consistently to ``dest`` (a file, or a folder); returns the copy.

    Without ``dest`` the copy goes to :func:`backup_dir` as ``<name>-<hash>-<time>.duckdb``.
    A PostgreSQL store's copy is a DuckDB file too (:mod:`pipeline.store.transfer`).
    """
    where = settings.db_target(db)
    if isinstance(where, str):
        from pipeline.store.transfer import backup_postgres

        return backup_postgres(where, dest)
    path = settings.db_path(db)
    check_target(path)
    if not path.exists():
        raise BackupError(f"there is no database at {path} to back up")
    try:
        target = _target(path, dest)
        same = target.resolve() == path.resolve()
    except OSError as exc:  # a name the system refuses, a folder that cannot be read
        raise _not_copied(path, Path(str(dest)), exc.strerror or type(exc).__name__) from exc
    if same:
        raise BackupError("a backup cannot overwrite the database itself; choose another file")
    with connect(path) as con:
        con.execute("CHECKPOINT")
        copy_atomically(path, target)
    return target


AUTOMATIC = "before-correction"  # the name part of the copies taken before a correction


def automatic_name(db: Path) -> str:
    # Microseconds in the name: two corrections in one second keep two copies, and the
    # names sort in the order they were taken.
    return f"{copy_prefix(db)}-{stamp()}-{AUTOMATIC}.duckdb"


def automatic_backup(src: Path) -> Path:
    """The copy of ``src`` taken before a correction, then older ones pruned; returns it.

    The caller holds the write lock and has checkpointed. The copy is renamed into place
    only when whole, so a crash never leaves half a backup; older automatic copies of
    this database beyond ``backup_keep`` go only after the new one is in.
    """
    dest = backup_dir(src) / automatic_name(src)
    try:
        copy_atomically(src, dest)
    except CopyFailed as exc:
        raise exc.before_correction() from exc
    prune_automatic(src)
    return dest


def prune_automatic(db: Path, keep: int | None = None) -> list[Path]:
    """Delete the automatic copies of ``db`` taken before corrections, all but the newest
    ``keep`` (setting ``backup_keep``; 0 keeps all); returns what was deleted.

    A copy of a 10-million-hand league is about a gigabyte and every correction takes
    one, so without a limit a season of corrections fills the disk. Only copies named
    by :func:`automatic_name` for this very database (its :func:`copy_prefix`) are
    touched: ``domino backup`` copies, the database a restore saved aside and every
    other database's copies are the organiser's to delete.
    """
    keep = int(settings.get("backup_keep")) if keep is None else keep
    if keep <= 0:
        return []
    folder = backup_dir(db)
    prefix = copy_prefix(db)
    pattern = re.compile(rf"{re.escape(prefix)}-\d{{8}}-\d{{6}}-\d{{6}}-{AUTOMATIC}\.duckdb")
    copies = sorted(
        p
        for p in folder.glob(f"{glob.escape(prefix)}-*-{AUTOMATIC}.duckdb")
        if pattern.fullmatch(p.name)
    )
    gone = copies[: max(0, len(copies) - keep)]
    for old in gone:
        with contextlib.suppress(FileNotFoundError):
            old.unlink()
    return gone


def _target(db: Path, dest: str | os.PathLike[str] | None) -> Path:
    name = f"{copy_prefix(db)}-{stamp()}.duckdb"
    if dest is None:
        return backup_dir(db) / name
    dest = Path(dest)
    if dest.is_dir():
        return dest / name
    return dest


def restore(source: str | os.PathLike[str], db: str | os.PathLike[str] | None = None) -> Path:
    """Replace the database with the backup ``source``; returns where the old one was saved.

    ``source`` is never modified. It is copied beside the database, checked there (it
    must open, hold our tables and a schema no newer than this program's), and renamed
    over the database while the write lock is held, after the current database has been
    saved to :func:`backup_dir` as ``<name>-<hash>-<time>-before-restore.duckdb``.

    A damaged database (DuckDB cannot open it) is replaced too, which is when a restore
    is needed most: under DuckDB's own file lock, taken without DuckDB, it is copied
    aside as it is, and its write-ahead log moved beside the copy (replayed onto the
    backup, it would write the damaged database's changes into it).
    """
    src = Path(source)
    where = settings.db_target(db)
    if isinstance(where, str):
        from pipeline.store.transfer import restore_postgres

        return restore_postgres(source, where)
    path = settings.db_path(db)
    check_target(path)
    if not src.is_file():
        raise BackupError(f"the backup {src} does not exist")
    if path.exists() and src.resolve() == path.resolve():
        raise BackupError("the backup is the database itself; nothing to restore")
    path.parent.mkdir(parents=True, exist_ok=True)
    with _staged(src, path.parent) as staged:
        _check_restorable(staged, src)
        saved = backup_dir(path) / f"{copy_prefix(path)}-{stamp()}-before-restore.duckdb"
        try:
            with connect(path) as con:
                con.execute("CHECKPOINT")
                _swap(staged, path, saved, damaged=False)
        except StoreError as exc:
            if exc.code != "damaged":
                raise
            with _locked(path):
                _swap(staged, path, saved, damaged=True)
    return saved


def _swap(staged: Path, path: Path, saved: Path, *, damaged: bool) -> None:
    """Save the database aside as ``saved``, then put ``staged`` in its place (the caller
    holds the write lock). A whole database's log must be empty after its checkpoint; a
    damaged one's goes beside the saved copy."""
    copy_atomically(path, saved)
    wal = Path(f"{path}.wal")
    if damaged and wal.exists():
        os.replace(wal, f"{saved}.wal")
    elif wal.exists() and wal.stat().st_size:
        raise BackupError(
            f"{wal} still holds unsaved changes; stop the other program and try again"
        )
    os.replace(staged, path)
    _fsync_dir(path.parent)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """DuckDB's write lock on ``path`` (a POSIX record lock over the whole file), taken
    without DuckDB, for a file DuckDB cannot open: no other program may have it open
    while it is replaced. Released when the descriptor closes."""
    fd = os.open(path, os.O_RDWR)
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            raise BackupError(
                f"the database {path} is in use by another program; stop it and try again"
            ) from exc
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def _staged(src: Path, folder: Path) -> Iterator[Path]:
    """A private copy of ``src`` (and of its write-ahead log, if any) in ``folder``."""
    fd, name = tempfile.mkstemp(prefix=".restore-", suffix=".duckdb", dir=folder)
    os.close(fd)
    staged = Path(name)
    try:
        shutil.copyfile(src, staged)
        if Path(f"{src}.wal").exists():
            shutil.copyfile(f"{src}.wal", f"{staged}.wal")
        yield staged
    finally:
        for leftover in (staged, Path(f"{staged}.wal")):
            leftover.unlink(missing_ok=True)


def _check_restorable(staged: Path, src: Path) -> None:
    """Open the staged copy, fold in its log, and check that it is one of our databases."""
    try:
        con = duckdb.connect(str(staged))
    except duckdb.Error as exc:
        raise BackupError(
            f"{src.name} is not a DuckDB database: restore a file written by domino backup"
        ) from exc
    try:
        tables = {
            r[0]
            for r in con.execute(
                "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'"
            ).fetchall()
        }
        missing = [t for t in REQUIRED_TABLES if t not in tables]
        if missing:
            raise BackupError(
                f"{src.name} is a DuckDB database but not a domino results database "
                f"(no table {missing[0]}): restore a file written by domino backup"
            )
        have = schema_version(con)
        ours = _our_schema_version()
        if have > ours:
            raise BackupError(
                f"{src.name} was written by a newer version of this program (schema {have}, this one knows {ours})"
            )
        # Read every row: DuckDB checks each block it reads, so a damaged or cut-short
        # copy fails here rather than after it has replaced the database.
        for table in REQUIRED_TABLES:
            con.execute(f'SELECT count(*), bit_xor(hash(t)) FROM "{table}" AS t').fetchall()
        migrate(con)
        con.execute("CHECKPOINT")
    except duckdb.Error as exc:
        raise BackupError(
            f"{src.name} is damaged and cannot be read as a results database "
            f"({_first_line(exc).replace(str(staged), src.name)}): restore another backup"
        ) from exc
    finally:
        con.close()
    if Path(f"{staged}.wal").exists() and Path(f"{staged}.wal").stat().st_size:
        raise BackupError(f"{src.name} could not be made self-contained")


def _our_schema_version() -> int:
    fresh = duckdb.connect(":memory:")
    try:
        migrate(fresh)
        return schema_version(fresh)
    finally:
        fresh.close()


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__


#: Run by :func:`copy_atomically` in a child process (see there for why).
_COPY = """
import os, shutil, sys, tempfile
src, dest = sys.argv[1], sys.argv[2]
tmp = None
try:
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(dest) + ".", suffix=".part", dir=os.path.dirname(dest))
    with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
        shutil.copyfileobj(inp, out, 1 << 20)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, dest)
    tmp = None
except OSError as exc:  # one line for the parent's message: no path of the temporary copy
    print(exc.strerror or type(exc).__name__, file=sys.stderr)
    sys.exit(1)
finally:
    if tmp is not None:
        try:
            os.unlink(tmp)
        except OSError:
            pass
"""


def copy_atomically(src: Path, dest: Path) -> None:
    """Copy to a temporary name beside ``dest``, flush it to disk, rename it into place.

    The copy runs in a child process. DuckDB holds its database with a POSIX record
    lock, and such locks belong to the process: closing *any* descriptor of the file in
    this process releases it. Copying the database from here while we hold it would
    let another writer open it while we still write to it (two versions of a match both
    numbered 2, one of them lost) — the child's opens and closes do not touch our lock.
    """
    dest = Path(dest)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _not_copied(src, dest, exc.strerror or type(exc).__name__) from exc
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", _COPY, str(src), str(dest)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise _not_copied(src, dest, (done.stderr.strip().splitlines() or ["unknown error"])[-1])
    _fsync_dir(dest.parent)


def _not_copied(src: Path, dest: Path, why: str) -> CopyFailed:
    return CopyFailed(src, dest, why)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
