"""A database file made by an older version is brought up to date before the dashboard
reads it: its new tables and views, and the ratings of the results it already holds."""

import duckdb

from pipeline import ratings
from pipeline.ingest import ingest
from pipeline.store import db
from pipeline.store.db import connect
from tests.conftest import DATA


def _as_before_ratings(path):
    """Take the file back to before migration 007: no rating tables, no ratings view."""
    con = duckdb.connect(str(path))
    for view in ("ratings", "rating_history"):
        con.execute(f"DROP VIEW IF EXISTS {view}")
    for table in ("rating_tables", "rating_history_t", "ratings_t"):
        con.execute(f"DROP TABLE IF EXISTS {table}")
    con.execute("DELETE FROM schema_migrations WHERE version = 7")
    con.execute("UPDATE schema_meta SET value = 'older' WHERE key = 'views_hash'")
    con.close()


def test_serve_brings_an_older_file_up_to_date_and_rates_its_results(tmp_path):
    path = tmp_path / "league.duckdb"
    with connect(path) as con:
        ingest(con, sorted((DATA / "examples" / "unhas" / "logs").glob("*")))
        before = con.sql("SELECT count(*) FROM ratings").fetchall()[0][0]
    assert before > 0
    _as_before_ratings(path)

    assert db.upgrade(path) == "done"
    with connect(path) as con:
        assert con.sql("SELECT count(*) FROM ratings").fetchall()[0][0] == 0
        assert ratings.backfill(con) > 0
        assert con.sql("SELECT count(*) FROM ratings").fetchall()[0][0] == before
        assert ratings.backfill(con) == 0  # rated already: nothing to do
    assert db.upgrade(path) == "current"


def test_a_missing_file_is_left_alone(tmp_path):
    assert db.upgrade(tmp_path / "none.duckdb") == "current"
    assert not (tmp_path / "none.duckdb").exists()


def test_a_reading_command_brings_an_older_file_up_to_date_first(tmp_path):
    """`domino requests list` on a file from before migrations 017 and 018 read a column
    the file did not have yet and stopped on an internal error; a reading command now
    brings the file up to date first, as `domino serve` does."""
    from click.testing import CliRunner

    from pipeline.cli import cli

    path = tmp_path / "league.duckdb"
    with connect(path):
        pass
    con = duckdb.connect(str(path))
    con.execute("ALTER TABLE change_requests DROP COLUMN seen_at")
    for column in ("cancelled_at", "cancelled_by", "cancel_reason"):
        con.execute(f"ALTER TABLE draws_t DROP COLUMN {column}")
    con.execute("DELETE FROM schema_migrations WHERE version IN (17, 18)")
    con.close()

    r = CliRunner().invoke(cli, ["requests", "list", "--db", str(path), "--format", "csv"])
    assert r.exit_code == 0, r.output
    assert "seen_at" in r.output.splitlines()[0]
    assert db.upgrade(path) == "current"


def test_a_read_only_older_file_is_refused_in_a_sentence(tmp_path, monkeypatch):
    """Read as it is, a read-only file from an older version would stop a command on a
    column it lacks: it is refused with a sentence saying what to do (exit 2). A read-only
    file that is up to date reads as ever. (Root may write any file, so the test makes
    the store see the file as read-only.)"""
    from click.testing import CliRunner

    from pipeline.cli import cli

    path = tmp_path / "league.duckdb"
    with connect(path):
        pass
    real = db.os.access
    monkeypatch.setattr(
        db.os, "access", lambda p, mode: False if mode == db.os.W_OK else real(p, mode)
    )
    assert db.upgrade(path) == "current"
    con = duckdb.connect(str(path))
    con.execute("DELETE FROM schema_migrations WHERE version = 18")
    con.close()
    r = CliRunner().invoke(cli, ["requests", "list", "--db", str(path)])
    assert r.exit_code == 2, r.output
    said = " ".join(r.output.split())
    assert f"the database {path} was made by an older version and is read-only" in said, said
    assert "Traceback" not in said


def test_group_rights_stored_before_leagues_keep_what_they_reached(tmp_path):
    """Migration 019 gives each right to a group stored before it the leagues whose
    registries hold that group (what the right reached then), or the league 'default'."""
    from pipeline import auth, players

    path = tmp_path / "league.duckdb"
    with connect(path) as con:
        for lg, rows in (("makassar", "Ana,KG 1\nBudi,KG 2"), ("gowa", "Cici,KG 1")):
            reg = tmp_path / f"{lg}.csv"
            reg.write_text(f"player,group\n{rows}\n")
            players.import_registry(con, players.read_registry(reg), league=lg)
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE user_groups")
    con.execute(
        'CREATE TABLE user_groups (name VARCHAR NOT NULL, "group" VARCHAR NOT NULL, '
        'PRIMARY KEY (name, "group"))'
    )
    con.execute("INSERT INTO user_groups VALUES ('kg', 'KG 1'), ('kg', 'KG 2'), ('kg', 'KG 9')")
    con.execute("DELETE FROM schema_migrations WHERE version = 19")
    con.close()
    assert db.upgrade(path) == "done"
    with connect(path) as con:
        assert auth.user_rights(con, "kg") == [
            ("default", "KG 9"),
            ("gowa", "KG 1"),
            ("makassar", "KG 1"),
            ("makassar", "KG 2"),
        ]
