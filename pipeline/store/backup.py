"""Backups and restores of the database file (``domino backup`` / ``domino restore``).

A result sheet is the only record of a match, so a copy must be whole: both take the
write lock through :func:`pipeline.store.db.connect` (a load in progress finishes first;
a load that starts meanwhile waits), ``CHECKPOINT`` so the file holds every committed
row and no write-ahead log is needed, then copy. Copies are written beside their target
under a temporary name, flushed to disk and renamed into place, so a crash leaves the
old file or the new one, never half of one.

A restore checks the source first (it must open as a DuckDB database with our tables),
saves the current database aside, and only then replaces it.
"""

import contextlib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import click
import duckdb

from pipeline import settings
from pipeline.store.db import connect, migrate, schema_version

#: Tables a database must have to be restored (those of the first migration).
REQUIRED_TABLES = (
    "schema_migrations", "events", "ingests", "match_versions", "hands",
    "hand_points_t", "table_standings_t", "player_names", "registry", "aliases",
)


class BackupError(click.ClickException):
    """A backup or restore that cannot be done; the message says why (exit 1 in the CLI)."""


def backup_dir(db: Path) -> Path:
    """``DOMINO_BACKUP_DIR``/``backup_dir`` for the default database, else ``backups/`` beside it.

    The same rule as the automatic backup before a correction, so every copy of one
    database lands in one place.
    """
    if db.resolve().parent == settings.db_path().resolve().parent:
        return Path(str(settings.get("backup_dir")))
    return db.parent / "backups"


def stamp() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-%f")


def backup(db: str | os.PathLike[str] | None = None, dest: str | os.PathLike[str] | None = None) -> Path:
    """Copy the database consistently to ``dest`` (a file, or a folder); returns the copy.

    Without ``dest`` the copy goes to :func:`backup_dir` as ``<name>-<time>.duckdb``.
    """
    path = settings.db_path(db)
    if not path.exists():
        raise BackupError(f"there is no database at {path} to back up")
    target = _target(path, dest)
    if target.resolve() == path.resolve():
        raise BackupError("a backup cannot overwrite the database itself; choose another file")
    with connect(path) as con:
        con.execute("CHECKPOINT")
        copy_atomically(path, target)
    return target


AUTOMATIC = "before-correction"  # the name part of the copies taken before a correction


def automatic_name(db: Path) -> str:
    # Microseconds in the name: two corrections in one second keep two copies, and the
    # names sort in the order they were taken.
    return f"{db.stem}-{stamp()}-{AUTOMATIC}.duckdb"


def prune_automatic(db: Path, keep: int | None = None) -> list[Path]:
    """Delete the automatic copies of ``db`` taken before corrections, all but the newest
    ``keep`` (setting ``backup_keep``; 0 keeps all); returns what was deleted.

    A copy of a 10-million-hand league is about a gigabyte and every correction takes
    one, so without a limit a season of corrections fills the disk. Only copies named
    by :func:`automatic_name` are touched: ``domino backup`` copies and the database a
    restore saved aside are the organiser's to delete.
    """
    keep = int(settings.get("backup_keep")) if keep is None else keep
    if keep <= 0:
        return []
    folder = backup_dir(db)
    pattern = re.compile(rf"{re.escape(db.stem)}-\d{{8}}-\d{{6}}-\d{{6}}-{AUTOMATIC}\.duckdb")
    copies = sorted(p for p in folder.glob(f"{glob.escape(db.stem)}-*-{AUTOMATIC}.duckdb") if pattern.fullmatch(p.name))
    gone = copies[: max(0, len(copies) - keep)]
    for old in gone:
        with contextlib.suppress(FileNotFoundError):
            old.unlink()
    return gone


def _target(db: Path, dest: str | os.PathLike[str] | None) -> Path:
    name = f"{db.stem}-{stamp()}.duckdb"
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
    saved to :func:`backup_dir` as ``<name>-<time>-before-restore.duckdb``.
    """
    src = Path(source)
    path = settings.db_path(db)
    if not src.is_file():
        raise BackupError(f"the backup {src} does not exist")
    if path.exists() and src.resolve() == path.resolve():
        raise BackupError("the backup is the database itself; nothing to restore")
    path.parent.mkdir(parents=True, exist_ok=True)
    with _staged(src, path.parent) as staged:
        _check_restorable(staged, src)
        with connect(path) as con:
            con.execute("CHECKPOINT")
            saved = backup_dir(path) / f"{path.stem}-{stamp()}-before-restore.duckdb"
            copy_atomically(path, saved)
            wal = Path(f"{path}.wal")
            if wal.exists() and wal.stat().st_size:
                raise BackupError(f"{wal} still holds unsaved changes; stop the other program and try again")
            os.replace(staged, path)
            _fsync_dir(path.parent)
    return saved


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
        raise BackupError(f"{src.name} is not a DuckDB database ({_first_line(exc)})") from exc
    try:
        tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'").fetchall()}
        missing = [t for t in REQUIRED_TABLES if t not in tables]
        if missing:
            raise BackupError(f"{src.name} is a DuckDB database but not a domino results database (no table {missing[0]})")
        have = schema_version(con)
        ours = _our_schema_version()
        if have > ours:
            raise BackupError(f"{src.name} was written by a newer version of this program (schema {have}, this one knows {ours})")
        # Read every row: DuckDB checks each block it reads, so a damaged or cut-short
        # copy fails here rather than after it has replaced the database.
        for table in REQUIRED_TABLES:
            con.execute(f'SELECT count(*), bit_xor(hash(t)) FROM "{table}" AS t').fetchall()
        migrate(con)
        con.execute("CHECKPOINT")
    except duckdb.Error as exc:
        raise BackupError(f"{src.name} cannot be read as a results database ({_first_line(exc)})") from exc
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
fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(dest) + ".", suffix=".part", dir=os.path.dirname(dest))
try:
    with os.fdopen(fd, "wb") as out, open(src, "rb") as inp:
        shutil.copyfileobj(inp, out, 1 << 20)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, dest)
except BaseException:
    os.unlink(tmp)
    raise
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
    dest.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", _COPY, str(src), str(dest)], capture_output=True, text=True
    )
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise BackupError(f"could not copy {src} to {dest}: {why}")
    _fsync_dir(dest.parent)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
