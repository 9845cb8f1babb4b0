"""Moving a league between stores, and backups of a PostgreSQL store.

:func:`copy_store` copies every stored table from one store to another — a DuckDB file
or a PostgreSQL database, either way — reading the source in one snapshot and writing
the target in one transaction, so the target holds the whole league or is unchanged.
On it stand ``domino migrate-store --to`` (the target must hold no league yet; every
public view is compared afterwards) and, for a PostgreSQL store, ``domino backup`` and
``domino restore``: a backup of a PostgreSQL store is a DuckDB database file (written
under a temporary name and renamed when whole), which ``domino`` opens as it is and which
``domino restore`` puts back — after saving the current contents aside the same way.
"""

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from pipeline import settings
from pipeline.store.backup import BackupError
from pipeline.store.db import connect, is_postgres, register

#: Kept by each store's own migrations, never copied.
_SCHEMA = ("schema_migrations", "schema_meta")


class TransferError(BackupError):
    """A move, backup or restore that cannot be done; one sentence (exit 1 in the CLI)."""


def stored_tables(con: Any) -> list[str]:
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
        "AND table_type = 'BASE TABLE' ORDER BY table_name"
    ).fetchall()
    return [r[0] for r in rows if r[0] not in _SCHEMA]


def _columns(con: Any, table: str) -> list[str]:
    rows = con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = ? ORDER BY ordinal_position",
        [table],
    ).fetchall()
    return [r[0] for r in rows]


def holds_league(con: Any) -> bool:
    return bool(con.execute("SELECT count(*) FROM events").fetchall()[0][0]) or bool(
        con.execute("SELECT count(*) FROM match_versions").fetchall()[0][0]
    )


def _begin_snapshot(con: Any) -> None:
    if is_postgres(con):
        con.raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    else:
        con.execute("BEGIN TRANSACTION")


def copy_store(src: Any, dst: Any, *, replace: bool = False) -> dict[str, int]:
    """Every stored table of ``src`` into ``dst`` (both migrated); rows per table.

    Without ``replace`` a target that already holds a league is refused; with it, its
    rows are replaced in the same transaction.
    """
    if not replace and holds_league(dst):
        raise TransferError(
            "the target already holds a league; move into an empty database, or restore instead"
        )
    have = set(stored_tables(src))
    counts: dict[str, int] = {}
    _begin_snapshot(src)
    dst.execute("BEGIN TRANSACTION")
    try:
        for table in stored_tables(dst):
            dst.execute(f'DELETE FROM "{table}"')
            if table not in have:
                continue
            cols = [c for c in _columns(dst, table) if c in set(_columns(src, table))]
            quoted = ", ".join(f'"{c}"' for c in cols)
            frame = src.sql(f'SELECT {quoted} FROM "{table}"').pl()
            if frame.height:
                _insert_rows(dst, table, frame, quoted)
            counts[table] = frame.height
        _set_sequence(
            dst,
            int(src.execute("SELECT coalesce(max(ingest_id), 0) FROM ingests").fetchall()[0][0]),
        )
        dst.execute("COMMIT")
    except BaseException:
        dst.execute("ROLLBACK")
        raise
    finally:
        src.execute("COMMIT")
    return counts


def _insert_rows(con: Any, table: str, frame: pl.DataFrame, quoted: str) -> None:
    """A table's rows into the same-named table (names from the stores' catalogues)."""
    if is_postgres(con):
        from pipeline.store.postgres import copy_frame

        copy_frame(con, table, frame, quoted)
        return
    register(con, "_rows", frame)
    try:
        con.execute(f'INSERT INTO "{table}" ({quoted}) SELECT {quoted} FROM _rows')
    finally:
        con.unregister("_rows")


def _set_sequence(con: Any, last: int) -> None:
    if is_postgres(con):
        con.raw.execute("SELECT setval('ingest_seq', %s, %s)", [max(last, 1), last > 0])
    else:  # DuckDB has no setval: the sequence starts again after the last ingest
        con.execute("DROP SEQUENCE ingest_seq")
        con.execute(f"CREATE SEQUENCE ingest_seq START {last + 1}")


def view_rows(con: Any, view: str) -> pl.DataFrame:
    """A view's rows in one order, timestamps as text (to compare stores)."""
    df = con.sql(f'SELECT * FROM "{view}"').pl()
    df = df.with_columns(pl.col(pl.Datetime).cast(pl.String), pl.col(pl.Date).cast(pl.String))
    return df.sort(df.columns, nulls_last=True) if df.width else df


def view_differences(a: Any, b: Any, views: Sequence[str] | None = None) -> list[str]:
    """The public views whose rows differ between two stores (empty: identical)."""
    from pipeline.store.pgmigrate import view_names

    out = []
    for view in views or view_names():
        x, y = view_rows(a, view), view_rows(b, view)
        if x.columns != y.columns:
            out.append(f"{view}: columns {x.columns} against {y.columns}")
        elif x.height != y.height or not y.cast(x.schema, strict=False).equals(x):
            out.append(f"{view}: {x.height} rows against {y.height}, not the same")
    return out


def migrate_store(source: str | Path | None, target: str | Path) -> dict[str, int]:
    """``domino migrate-store --to TARGET``: the league of ``source`` into an empty
    ``target``; every view is compared afterwards (a difference raises)."""
    if str(target) == str(settings.db_target(source)):
        raise TransferError("the target is the database itself; name another with --to")
    with connect(source) as src, connect(target) as dst:
        counts = copy_store(src, dst)
        diffs = view_differences(src, dst)
    if diffs:
        raise TransferError(
            f"the moved league differs from the original ({diffs[0]}); the original is unchanged"
        )
    return counts


def backup_postgres(url: str, dest: str | os.PathLike[str] | None) -> Path:
    """A PostgreSQL store's consistent copy as a DuckDB file (renamed into place whole)."""
    from pipeline.store.backup import backup_dir_for, stamp

    folder_or_file = Path(dest) if dest else backup_dir_for(url)
    name = f"{_url_name(url)}-{stamp()}.duckdb"
    target = folder_or_file / name if (dest is None or folder_or_file.is_dir()) else folder_or_file
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(f".{target.name}.part")
    part.unlink(missing_ok=True)
    try:
        with connect(url) as src, connect(part) as dst:
            copy_store(src, dst)
        os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)
        Path(f"{part}.wal").unlink(missing_ok=True)
    return target


def restore_postgres(source: str | os.PathLike[str], url: str) -> Path:
    """Replace a PostgreSQL store's league with the backup ``source`` (a DuckDB file);
    the current contents are saved aside first; returns where."""
    src_path = Path(source)
    if not src_path.is_file():
        raise TransferError(f"the backup {src_path} does not exist")
    from pipeline.store.backup import _check_restorable, _staged, backup_dir_for

    folder = backup_dir_for(url)
    folder.mkdir(parents=True, exist_ok=True)
    with _staged(src_path, folder) as staged:
        _check_restorable(staged, src_path)
        saved = backup_postgres(url, backup_dir_for(url))
        final = saved.with_name(saved.name.replace(".duckdb", "-before-restore.duckdb"))
        os.replace(saved, final)
        with connect(staged, read_only=True) as src, connect(url) as dst:
            copy_store(src, dst, replace=True)
    return final


def _url_name(url: str) -> str:
    from pipeline.store.postgres import redact

    clean = redact(url).split("://", 1)[1]
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in clean).strip("-")
