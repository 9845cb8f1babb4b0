"""The database: migrations on open, and readers that never block a writer for long."""

import subprocess
import sys

from pipeline import queries
from pipeline.load import ingest
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
        assert con.execute("SELECT count(*) FROM schema_migrations").fetchall()[0][0] == v


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
    r = subprocess.run([*INGEST, str(DATA / "errors" / "swap_schedule_warning.csv"), "--reason", "seating fixed"], capture_output=True, text=True, check=False)
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
        r = subprocess.run([*INGEST, str(DATA / "errors" / "swap_schedule_warning.csv"), "--reason", "x"], capture_output=True, text=True, check=False)
    # told clearly to retry, nothing written
    assert r.returncode == 2
    assert "in use by another process" in r.stderr
    with read(db_path) as con:
        assert queries.history(con, "unhas-2024-e1", "R1", "1")["version"].to_list() == [1]
