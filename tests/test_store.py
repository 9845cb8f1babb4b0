"""The database: migrations on open, and readers that never block a writer for long."""

import subprocess
import sys

from pipeline.ingest import ingest
from pipeline.standings import queries
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


def _report(con, file):
    import json

    return json.loads(con.execute("SELECT report FROM ingests WHERE file = ? ORDER BY ingest_id DESC LIMIT 1", [file]).fetchall()[0][0])


def test_the_ingest_report_keeps_problems_and_the_matches_not_written(db_path, tmp_path):
    lines = BASE.read_text().splitlines()
    # table 2's hand 2 names an unknown ending: that match stays out, table 1 loads
    bad = [lines[0], *lines[1:11], *[ln.replace(",biasa,", ",nonsense,", 1) if i == 1 else ln for i, ln in enumerate(lines[11:21])]]
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
        assert con.execute("SELECT \"table\" FROM match_versions WHERE ingest_id = ?", [ingest_id]).fetchall() == [("1",)]


def test_migration_002_slims_reports_written_before_it(db_path):
    import json

    from pipeline.store.db import _migrations

    with connect(db_path) as con:
        ingest(con, [BASE])
        old = {
            "problems": [{"code": "swap_schedule"}],
            "matches": [{"table": "1", "status": "new"}, {"table": "2", "status": "unchanged"}, {"table": "3", "status": "rejected"}],
        }
        con.execute("INSERT INTO ingests (ingest_id, file, started_at, status, matches_unchanged, matches_rejected, report) VALUES (900, 'old.csv', now(), 'done', 1, 1, ?)", [json.dumps(old)])
        big = {"problems": [], "matches": [{"table": str(i), "status": "new"} for i in range(1000)]}
        con.execute("INSERT INTO ingests (ingest_id, file, started_at, status, matches_unchanged, matches_rejected, report) VALUES (901, 'big.csv', now(), 'done', 0, 0, ?)", [json.dumps(big)])
        sql = dict((name, text) for _v, name, text in _migrations())["002_slim_ingest_reports.sql"]
        con.execute(sql)
        assert _report(con, "old.csv") == {"problems": [{"code": "swap_schedule"}], "matches": [{"table": "2", "status": "unchanged"}, {"table": "3", "status": "rejected"}]}
        assert _report(con, "big.csv") == {"problems": [], "matches": []}


def test_the_event_index_exists_and_serves_standings(db_path, tmp_path):
    """Leaderboards stay fast in a big database: the event's rows come from the index on
    table_standings_t (migration 003), not from a scan of every event."""
    out = tmp_path / "profile.json"
    with connect(db_path) as con:
        ingest(con, [BASE])
        assert con.execute("SELECT count(*) FROM duckdb_indexes() WHERE index_name = 'table_standings_event'").fetchall() == [(1,)]
        con.execute("PRAGMA enable_profiling = 'json'")
        con.execute(f"PRAGMA profiling_output = '{out}'")  # a pytest tmp path, no quotes in it
        rows = queries.standings(con, "unhas-2024-e1", "table", "R1")
        con.execute("PRAGMA disable_profiling")
    assert rows.height > 0
    assert "Index Scan" in out.read_text()
