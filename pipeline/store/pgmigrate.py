"""Migrations and views on a PostgreSQL store, from the same files as the DuckDB store.

Each migration not yet applied runs in its own transaction (PostgreSQL's DDL is
transactional), under an advisory lock so that several processes opening a new database
at once apply it once. The views are dropped and re-created together whenever the hash of
``pipeline/sql/views/*.sql`` differs from the one stored (``schema_meta.views_hash``) —
the same hash as the file store's.
"""

from typing import TYPE_CHECKING

import sqlglot
from sqlglot import exp

from pipeline.store import db as filedb
from pipeline.store.pgsql import migration_text, to_postgres

if TYPE_CHECKING:
    from pipeline.store.pgconn import PgConnection

_LOCK = 0x646F6D696E6F  # "domino": the migration lock of every domino database


def view_names() -> list[str]:
    """The views the view files create, in file order."""
    names = []
    for _file, sql in filedb._views():
        for tree in sqlglot.parse(sql, read="duckdb"):
            if isinstance(tree, exp.Create) and str(tree.args.get("kind")).upper() == "VIEW":
                names.append(
                    tree.this.name if isinstance(tree.this, exp.Table) else tree.this.this.name
                )
    return names


def migrate(con: "PgConnection") -> None:
    raw = con.raw
    have = raw.execute(
        "SELECT to_regclass('schema_migrations') IS NOT NULL AND to_regclass('schema_meta') IS NOT NULL"
    ).fetchone()
    want = filedb.views_hash()
    if have and have[0]:
        done = {r[0] for r in raw.execute("SELECT version FROM schema_migrations").fetchall()}
        stamp = raw.execute("SELECT value FROM schema_meta WHERE key = 'views_hash'").fetchall()
        if all(v in done for v, _n, _s in filedb._migrations()) and stamp and stamp[0][0] == want:
            return  # the common case: one round trip on open
    with raw.transaction():
        raw.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK])
        raw.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(version INTEGER PRIMARY KEY, name VARCHAR, applied_at TIMESTAMP)"
        )
        raw.execute(
            "CREATE TABLE IF NOT EXISTS schema_meta (key VARCHAR PRIMARY KEY, value VARCHAR)"
        )
        done = {r[0] for r in raw.execute("SELECT version FROM schema_migrations").fetchall()}
        for version, name, sql in filedb._migrations():
            if version in done:
                continue
            for stmt in _statements(migration_text(name, sql)):
                raw.execute(stmt.encode())
            raw.execute("INSERT INTO schema_migrations VALUES (%s, %s, now())", [version, name])
        stamp = raw.execute("SELECT value FROM schema_meta WHERE key = 'views_hash'").fetchall()
        if not stamp or stamp[0][0] != want:
            for view in reversed(view_names()):
                raw.execute(f'DROP VIEW IF EXISTS "{view}" CASCADE'.encode())
            for _file, sql in filedb._views():
                for stmt in _statements(to_postgres(sql)):
                    raw.execute(stmt.encode())
            raw.execute(
                "INSERT INTO schema_meta VALUES ('views_hash', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [want],
            )
    con._columns.clear()


def _statements(text: str) -> list[str]:
    return [s for s in text.split(";\n") if s.strip()]
