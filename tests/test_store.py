"""The database: migrations on open, and readers that never block a writer for long."""

import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.ingest import ingest
from pipeline.standings import queries
from pipeline.store import db
from pipeline.store.db import connect, read, schema_version
from tests.conftest import DATA

BASE = DATA / "errors" / "base_unhas.csv"
INGEST = [sys.executable, "-m", "pipeline", "ingest"]


def test_migrations_apply_once(db_path):
    with connect(db_path) as con:
        v = schema_version(con)
        assert v >= 1
    with connect(db_path) as con:
        assert schema_version(con) == v
        files = list((Path(db.__file__).parent / "migrations").glob("[0-9]*.sql"))
        assert con.execute("SELECT count(*) FROM schema_migrations").fetchall()[0][0] == len(files)
        assert v == max(int(f.name[:3]) for f in files)


def test_a_missing_database_reads_as_empty(tmp_path):
    with connect(tmp_path / "nothing-here.duckdb", read_only=True) as con:
        assert queries.events(con).height == 0
    assert not (tmp_path / "nothing-here.duckdb").exists()


def test_reader_between_blocks_does_not_block_a_writer_process(db_path):
    with connect(db_path) as con:
        ingest(con, [BASE])
    with read(db_path) as con:
        assert queries.events(con)["event"].to_list() == ["unhas-2024-e1"]
    # outside the block the file is free: another process loads a correction
    r = subprocess.run(
        [*INGEST, str(DATA / "errors" / "swap_schedule_warning.csv"), "--reason", "seating fixed"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    # and the next block sees it
    with read(db_path) as con:
        hist = queries.history(con, "unhas-2024-e1", "R1", "1")
    assert hist["version"].to_list() == [1, 2]


def test_a_writer_waits_for_a_reader_inside_a_block(db_path, monkeypatch):
    with connect(db_path) as con:
        ingest(con, [BASE])
    monkeypatch.setenv("DOMINO_LOCK_TIMEOUT", "0.5")
    with read(db_path):
        r = subprocess.run(
            [*INGEST, str(DATA / "errors" / "swap_schedule_warning.csv"), "--reason", "x"],
            capture_output=True,
            text=True,
            check=False,
        )
    # told clearly to retry, nothing written
    assert r.returncode == 2
    assert "in use by another process" in r.stderr
    with read(db_path) as con:
        assert queries.history(con, "unhas-2024-e1", "R1", "1")["version"].to_list() == [1]


def _report(con, file):
    import json

    return json.loads(
        con.execute(
            "SELECT report FROM ingests WHERE file = ? ORDER BY ingest_id DESC LIMIT 1", [file]
        ).fetchall()[0][0]
    )


def test_the_ingest_report_keeps_problems_and_the_matches_not_written(db_path, tmp_path):
    lines = BASE.read_text().splitlines()
    # table 2's hand 2 names an unknown ending: that match stays out, table 1 loads
    bad = [
        lines[0],
        *lines[1:11],
        *[
            ln.replace(",biasa,", ",nonsense,", 1) if i == 1 else ln
            for i, ln in enumerate(lines[11:21])
        ],
    ]
    f = tmp_path / "mixed.csv"
    f.write_text("\n".join(bad) + "\n")
    with connect(db_path) as con:
        p = ingest(con, [f])
        assert [o.status for o in p.outcomes] == ["new", "rejected"]
        report = _report(con, "mixed.csv")
        # the written match is in match_versions with this ingest; the report has the rest
        assert [(m["table"], m["status"]) for m in report["matches"]] == [("2", "rejected")]
        assert {q["code"] for q in report["problems"]} == {"unknown_ending"}
        ingest_id = con.execute("SELECT max(ingest_id) FROM ingests").fetchall()[0][0]
        assert con.execute(
            'SELECT "table" FROM match_versions WHERE ingest_id = ?', [ingest_id]
        ).fetchall() == [("1",)]


def test_migration_002_slims_reports_written_before_it(db_path):
    import json

    from pipeline.store.db import _migrations

    with connect(db_path) as con:
        ingest(con, [BASE])
        old = {
            "problems": [{"code": "swap_schedule"}],
            "matches": [
                {"table": "1", "status": "new"},
                {"table": "2", "status": "unchanged"},
                {"table": "3", "status": "rejected"},
            ],
        }
        con.execute(
            "INSERT INTO ingests (ingest_id, file, started_at, status, matches_unchanged, matches_rejected, report) VALUES (900, 'old.csv', now(), 'done', 1, 1, ?)",
            [json.dumps(old)],
        )
        big = {"problems": [], "matches": [{"table": str(i), "status": "new"} for i in range(1000)]}
        con.execute(
            "INSERT INTO ingests (ingest_id, file, started_at, status, matches_unchanged, matches_rejected, report) VALUES (901, 'big.csv', now(), 'done', 0, 0, ?)",
            [json.dumps(big)],
        )
        sql = dict((name, text) for _v, name, text in _migrations())["002_slim_ingest_reports.sql"]
        con.execute(sql)
        assert _report(con, "old.csv") == {
            "problems": [{"code": "swap_schedule"}],
            "matches": [
                {"table": "2", "status": "unchanged"},
                {"table": "3", "status": "rejected"},
            ],
        }
        assert _report(con, "big.csv") == {"problems": [], "matches": []}


def test_the_event_index_exists_and_serves_standings(db_path, tmp_path):
    """Leaderboards stay fast in a big database: the event's rows come from the index on
    table_standings_t (migration 003), not from a scan of every event."""
    out = tmp_path / "profile.json"
    with connect(db_path) as con:
        ingest(con, [BASE])
        assert con.execute(
            "SELECT count(*) FROM duckdb_indexes() WHERE index_name = 'table_standings_event'"
        ).fetchall() == [(1,)]
        con.execute("PRAGMA enable_profiling = 'json'")
        con.execute(f"PRAGMA profiling_output = '{out}'")  # a pytest tmp path, no quotes in it
        rows = queries.standings(con, "unhas-2024-e1", "table", "R1")
        con.execute("PRAGMA disable_profiling")
    assert rows.height > 0
    assert "Index Scan" in out.read_text()


# --- files that cannot be the database: one sentence, exit 2, nothing changed (issue 13) ---


def _sha(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def _not_a_database(path, kind: str) -> None:
    import os
    import sqlite3

    if kind == "random":
        path.write_bytes(b"\x00" * 8 + os.urandom(50_000))
    elif kind == "text":
        path.write_text("event,round,table\nunhas,R1,1\n")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "sqlite":
        lite = sqlite3.connect(path)
        lite.execute("CREATE TABLE users (name TEXT, hash TEXT)")
        lite.commit()
        lite.close()


def _domino(*args, db, timeout: float = 120, **env):
    import os

    return subprocess.run(
        [sys.executable, "-m", "pipeline", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=db.parent,
        env={**os.environ, "DOMINO_DB": str(db), **env},
    )


@pytest.mark.parametrize("kind", ["random", "text", "empty", "sqlite"])
def test_a_file_that_is_not_a_duckdb_database_gets_one_sentence_and_exit_2(tmp_path, kind):
    """Not a traceback, and for a SQLite file no attempt to fetch DuckDB's SQLite
    extension (there is no network at a venue): the file is refused before DuckDB opens it."""
    db = tmp_path / "domino.duckdb"
    _not_a_database(db, kind)
    before = _sha(db)
    for args in (
        ("standings", "--event", "x"),
        ("ingest", BASE),
        ("backup",),
        ("serve", "--port", "1"),
    ):
        r = _domino(*args, db=db, DOMINO_BACKUP_DIR=str(tmp_path / "backups"))
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr, (args, r.stderr)
        assert str(db) in lines[0] and "DuckDB database" in lines[0], lines[0]
        assert ("SQLite file" in lines[0]) == (kind == "sqlite")
        assert "extension" not in r.stderr
    assert _sha(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["domino.duckdb"], (
        "nothing written beside it"
    )


def test_the_library_raises_store_error_for_such_a_file(tmp_path):
    from pipeline.store.db import StoreError

    db = tmp_path / "results.duckdb"
    _not_a_database(db, "sqlite")
    for read_only in (True, False):
        with (
            pytest.raises(StoreError, match="is a SQLite file") as caught,
            connect(db, read_only=read_only),
        ):
            pass
        assert (caught.value.code, caught.value.file) == ("sqlite", db)
    with pytest.raises(StoreError, match="is a SQLite file"), read(db):
        pass
    _not_a_database(db, "random")
    with pytest.raises(StoreError) as caught, connect(db):
        pass
    assert caught.value.code == "not_duckdb"


def _without_root_override() -> list[str]:
    """A command prefix under which file permissions hold: as root, drop the capabilities
    that let root write anyone's files (setpriv); as anyone else, nothing."""
    import os
    import shutil as sh

    if os.geteuid() != 0:
        return []
    if not sh.which("setpriv"):
        pytest.skip("running as root without setpriv: a read-only file is writable to root")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


@pytest.mark.parametrize("where", ["file", "folder", "new_in_folder"])
def test_a_read_only_database_gets_one_sentence_and_exit_2_for_a_write(tmp_path, where):
    import os

    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "domino.duckdb"
    with connect(db) as con:
        ingest(con, [BASE])
    before = _sha(db)
    if where == "file":
        db.chmod(0o444)
    else:
        folder.chmod(0o555)
    target = folder / "new.duckdb" if where == "new_in_folder" else db
    prefix = _without_root_override()
    try:
        write = subprocess.run(
            [
                *prefix,
                sys.executable,
                "-m",
                "pipeline",
                "ingest",
                "--db",
                str(target),
                str(DATA / "errors" / "swap_schedule_warning.csv"),
                "--reason",
                "x",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env={**os.environ},
        )
        readonly = subprocess.run(
            [
                *prefix,
                sys.executable,
                "-m",
                "pipeline",
                "standings",
                "--db",
                str(db),
                "--event",
                "unhas-2024-e1",
                "--format",
                "csv",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
            env={**os.environ},
        )
    finally:
        folder.chmod(0o755)
        db.chmod(0o600)
    assert write.returncode == 2, write.stdout + write.stderr
    lines = write.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in write.stderr, write.stderr
    assert "read-only" in lines[0] and (str(target) in lines[0] or str(folder) in lines[0]), lines[
        0
    ]
    assert _sha(db) == before and not (folder / "new.duckdb").exists()
    assert not Path(f"{db}.wal").exists()
    # reading a read-only database is fine
    assert readonly.returncode == 0, readonly.stderr
    assert "unhas-2024-e1" in readonly.stdout


# --- database files hold password hashes: owner-only (issue 13) ---------------------------


def test_database_and_its_log_are_created_readable_by_their_owner_only(tmp_path):
    import os
    import stat

    db = tmp_path / "new" / "domino.duckdb"
    mask = os.umask(0o022)
    try:
        with connect(db) as con:
            con.execute("CREATE TABLE probe (x INTEGER)")
            con.execute("INSERT INTO probe VALUES (1)")
            wal = Path(f"{db}.wal")
            assert wal.exists()
            assert stat.S_IMODE(wal.stat().st_mode) == 0o600
            # a checkpoint drops the log; the next write makes a new one, owner-only too
            con.execute("CHECKPOINT")
            con.execute("INSERT INTO probe VALUES (2)")
            assert stat.S_IMODE(wal.stat().st_mode) == 0o600
        assert stat.S_IMODE(db.stat().st_mode) == 0o600
        # the process's own umask is back once no writer is open
        assert os.umask(0o022) == 0o022
        other = tmp_path / "other.txt"
        other.write_text("x")
        assert stat.S_IMODE(other.stat().st_mode) == 0o644
    finally:
        os.umask(mask)


def test_the_cli_creates_the_database_owner_only(tmp_path):
    import stat

    db = tmp_path / "domino.duckdb"
    r = _domino("ingest", BASE, db=db)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(db.stat().st_mode) == 0o600


def test_the_dashboard_shows_the_sentence_instead_of_an_error_page(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from dashboard import data
    from tests.browser.support import APP

    db = tmp_path / "domino.duckdb"
    _not_a_database(db, "sqlite")
    monkeypatch.setenv("DOMINO_DB", str(db))
    data.clear()
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(
        # in the page's language (Indonesian unless asked otherwise)
        "adalah berkas SQLite, bukan basis data DuckDB" in e.value and str(db) in e.value
        for e in at.error
    )


@pytest.mark.parametrize("url", ["postgresql:/db.example/liga", "postgres:liga", "POSTGRESQL:x"])
@pytest.mark.parametrize("command", ["ingest", "standings", "backup", "restore", "serve"])
def test_a_mistyped_postgresql_url_is_refused_not_taken_for_a_file(
    tmp_path, monkeypatch, url, command
):
    """``postgresql:/host/db`` (one slash) is no URL: taken as a path, a load would make a
    folder ``postgresql:`` with a database in it and the league would look empty."""
    from click.testing import CliRunner

    from pipeline.cli import cli
    from tests.conftest import DATA

    monkeypatch.chdir(tmp_path)
    args = {
        "ingest": ["ingest", str(DATA / "errors" / "base_unhas.csv")],
        "standings": ["standings", "--event", "x"],
        "backup": ["backup"],
        "restore": ["restore", "--yes", str(DATA / "errors" / "base_unhas.csv")],
        "serve": ["serve", "--port", "8599"],
    }[command]
    r = CliRunner().invoke(cli, [*args, "--db", url])
    assert r.exit_code == 2, r.output
    assert r.output.strip() == (
        f"Error: {Path(url)} is not a PostgreSQL URL; write "
        "postgresql://USER@HOST:PORT/DATABASE in --db or DOMINO_DB"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql://domino:s3cret@db.example:5433/liga",
            "postgresql://domino@db.example:5433/liga",
        ),
        # before: "postgresql://@nohost:1/db", an empty user's "@"
        ("postgresql://nohost:1/db", "postgresql://nohost:1/db"),
        ("postgres://db.example/liga", "postgresql://db.example:5432/liga"),
        ("postgresql:///liga?host=/run/pg", "postgresql:///liga?host=/run/pg"),
        ("postgresql://u:s3cret@h/liga?password=s3cret", "postgresql://u@h:5432/liga"),
        # one libpq cannot parse: still without the password (an "@" in it too)
        ("postgresql://u:p@s3cret@h:1/liga?foo=s3cret", "postgresql://u@h:1/liga"),
    ],
)
def test_a_postgresql_url_is_shown_without_its_password(url, shown):
    from pipeline.store.postgres import redact

    assert redact(url) == shown


def test_a_postgresql_url_libpq_cannot_read_is_one_sentence(tmp_path, monkeypatch):
    """Before: "internal error ... (ProgrammingError: invalid URI query parameter)" (exit 70)
    from the CLI, and the same on every page of the dashboard."""
    from click.testing import CliRunner
    from streamlit.testing.v1 import AppTest

    from dashboard import data
    from pipeline.cli import cli
    from tests.browser.support import APP

    url = "postgresql://domino:s3cret@127.0.0.1:1/liga?sslmod=require"
    monkeypatch.delenv("DOMINO_DEBUG")
    r = CliRunner().invoke(cli, ["standings", "--event", "x", "--db", url])
    assert r.exit_code == 2, r.output
    assert " ".join(r.output.split()) == (
        "Error: postgresql://domino@127.0.0.1:1/liga is not a PostgreSQL URL that can be read "
        '(invalid URI query parameter: "sslmod"); write postgresql://USER@HOST:PORT/DATABASE '
        "in --db or DOMINO_DB"
    )
    monkeypatch.setenv("DOMINO_DEBUG", "1")
    monkeypatch.setenv("DOMINO_DB", url)
    data.clear()
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    said = " ".join(e.value for e in at.error)
    assert "bukan URL PostgreSQL yang bisa dibaca" in said and "s3cret" not in said, said


def test_a_big_frame_is_inserted_exactly_as_polars_holds_it(tmp_path):
    """A frame over SMALL_RESULT rows goes to DuckDB in polars' own string layout (Arrow
    string views): short and long text, nulls, other scripts and every other column type
    the pipeline registers arrive unchanged."""
    import datetime

    import polars as pl

    n = db.SMALL_RESULT * 3
    texts = ["R1", None, "a name longer than twelve bytes", "Meja ½ — ŋ", ""]
    frame = pl.DataFrame(
        {
            "text": [texts[i % 5] for i in range(n)],
            "number": list(range(n)),
            "flag": [i % 3 == 0 for i in range(n)],
            "day": [datetime.date(2026, 12, 1 + i % 5) for i in range(n)],
            "hands": [[i, i + 1] if i % 4 else None for i in range(n)],
        }
    )
    with connect(tmp_path / "d.duckdb") as con:
        con.execute(
            "CREATE TABLE t (text VARCHAR, number BIGINT, flag BOOLEAN, day DATE, hands BIGINT[])"
        )
        db.insert_frame(con, "t", frame)
        back = con.sql("SELECT * FROM t ORDER BY number").pl()
    assert back.equals(frame)

    class Registered:  # what DuckDB is handed
        def register(self, name: str, obj: object) -> None:
            self.obj = obj

    seen = Registered()
    db.register(seen, "_t", frame)
    assert str(seen.obj.schema.field("text").type) == "string_view"
