"""Two writers at once (issue #7), on both stores (issue #17).

Two uploads at the same moment — two ``domino ingest`` processes, or the CLI and a Python
``ingest`` in another process — both land, or (on a file, which admits one writing
process) one is told to retry (exit 2, a 'busy' message) and writes nothing. On
PostgreSQL writers of different matches never wait for each other's whole load and are
never told 'busy'. A correction racing another version of the same match ends as one
whole version or the other, and the history says which came when. Never a lost row,
never a mixed match, versions in order.

The tests taking ``store`` run once on a file and once on a PostgreSQL database of their
own (tests/pg.py); without PostgreSQL only those runs are skipped, saying so.
"""

import random
import subprocess
import sys
import time

import duckdb
import pytest

from pipeline.ingest import commit, ingest, plan, read_all
from pipeline.standings import queries
from pipeline.store.db import connect
from simulator.stress import FUZZ, check_consistent, current_matches, domino
from simulator.stress.races import (
    check_landed,
    correction_race,
    live_and_fixed,
    race,
    random_race,
    two_files,
)
from simulator.stress.runs import is_url


def test_two_cli_loads_of_different_tables_both_land(store, tmp_path):
    a, b = two_files(tmp_path, 1500)
    ra, rb = race(store, (["ingest", a], {}), (["ingest", b], {}), work=tmp_path)
    tally = check_landed(store, {a: ra, b: rb})
    assert tally == {"landed": 2, "busy": 0}, (ra, rb)


def test_a_writer_that_cannot_get_the_lock_is_told_to_retry(tmp_path):
    """Another process holds the database: the load waits ``lock_timeout``, exits 2 with a
    'busy' message, writes nothing, and lands when run again.

    File only, by nature: it holds the DuckDB file's lock from another process. A
    PostgreSQL store has no such lock (writers wait per match, never 'busy')."""
    db = tmp_path / "domino.duckdb"
    src = FUZZ / "unhas-2024-e1_R1_meja3.csv"
    with connect(db):
        pass
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, sys; c = duckdb.connect({str(db)!r}); print('held', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        t = time.monotonic()
        r = domino("ingest", src, db=db, DOMINO_LOCK_TIMEOUT="1.5")
        waited = time.monotonic() - t
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
        holder.stdout.close()
    assert r.returncode == 2, r.stdout + r.stderr
    assert "busy" in r.stderr and "try again" in r.stderr and "Traceback" not in r.stderr
    assert waited >= 1.5
    with connect(db, read_only=True) as con:
        assert current_matches(con) == {}
        assert con.execute("SELECT count(*) FROM ingests").fetchall() == [(0,)]
    again = domino("ingest", src, db=db)
    assert again.returncode == 0, again.stderr
    assert check_landed(db, {src: (0, again.stdout, again.stderr)}) == {"landed": 1, "busy": 0}


def test_the_cli_and_a_python_ingest_at_the_same_moment(store, tmp_path):
    a, b = two_files(tmp_path, 1500)
    ra, rb = race(store, (["ingest", a], {}), (["python", b], {}), work=tmp_path)
    assert check_landed(store, {a: ra, b: rb}) == {"landed": 2, "busy": 0}, (ra, rb)


@pytest.mark.slow
def test_many_races_lose_nothing(store, tmp_path, request):
    """Seeded rounds of two or three writers with staggered starts and short or long
    patience: every upload lands whole or (on a file) is told 'busy' and leaves nothing.
    On PostgreSQL every upload lands, whatever the patience."""
    rng = random.Random(77)
    totals = {"landed": 0, "busy": 0}
    for rnd in range(5):
        work = tmp_path / f"round{rnd}"
        work.mkdir()
        fresh = request.getfixturevalue("pg_cluster").new_database() if is_url(store) else None
        db, outcomes, patience = random_race(work, rng, fresh)
        tally = check_landed(db, outcomes)
        for k in totals:
            totals[k] += tally[k]
        if patience == "30" or is_url(store):
            assert tally["busy"] == 0, "with 30 s of patience every writer must land"
    assert totals["landed"] >= 5


def test_a_correction_racing_an_update_of_the_same_match(store, tmp_path):
    assert correction_race(tmp_path, random.Random(3), store)


@pytest.mark.slow
def test_many_correction_races(store, tmp_path, request):
    rng = random.Random(11)
    seen = set()
    for i in range(6):
        work = tmp_path / f"r{i}"
        work.mkdir()
        fresh = request.getfixturevalue("pg_cluster").new_database() if is_url(store) else None
        seen.add(correction_race(work, rng, fresh))
    assert seen  # which orders happened depends on the scheduler; every one was checked


def test_a_plan_made_stale_by_another_writer_cannot_commit(store, tmp_path):
    """A plan is only valid on the data it was made on. Committing it after another writer
    loaded the same match fails as a whole (on the file the version it would write already
    exists; on PostgreSQL the match's version is checked under its lock): nothing is
    mixed, the other writer's version stays."""
    from pipeline.store.postgres import MatchesChanged

    first, _update, fixed = live_and_fixed(tmp_path)
    with connect(store) as con:
        sheets, infos = read_all([first])
        stale = plan(con, sheets, infos)
        ingest(con, [fixed], by="other writer")
        before = current_matches(con)
        with pytest.raises(MatchesChanged if store.startswith("postgresql") else duckdb.Error):
            commit(con, stale)
        check_consistent(con)
        assert current_matches(con) == before


def test_a_load_that_keeps_losing_the_race_is_told_busy_not_a_traceback(
    pg_url, tmp_path, monkeypatch
):
    """On PostgreSQL a load that lost the race for its match plans again; when it has lost
    every time it may (here: no second try, and another writer corrects the match just
    before each commit) ``domino ingest`` exits 2 with one 'busy' sentence, writes nothing,
    and the other writer's version stays whole."""
    from click.testing import CliRunner

    from pipeline.cli import cli
    from pipeline.ingest import service

    first, update, fixed = live_and_fixed(tmp_path)
    with connect(pg_url) as con:
        ingest(con, [first])
    real_commit = service.commit_beside
    racing: list[bool] = []

    def another_writer_first(con, p):
        if not racing:  # the other writer's own commit is the real one
            racing.append(True)
            with connect(pg_url) as other:
                ingest(other, [fixed], reason="salah tulis hand 2", by="other venue")
        return real_commit(con, p)

    monkeypatch.setattr(service, "RACE_RETRIES", 0)
    monkeypatch.setattr(service, "commit_beside", another_writer_first)
    r = CliRunner().invoke(cli, ["ingest", str(update), "--db", pg_url])
    assert r.exit_code == 2, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    said = " ".join(r.output.split())
    assert "busy" in said and "R1 table 3" in said and "try again" in said, said
    with connect(pg_url, read_only=True) as con:
        check_consistent(con)
        assert con.execute(
            "SELECT version, kind, file, current FROM match_versions ORDER BY version"
        ).fetchall() == [
            (1, "new", "meja3_live.csv", False),
            (2, "correction", "meja3_fixed.csv", True),
        ]
        # the refused load is logged as refused (nothing loaded), not as interrupted
        log = queries.ingest_log(con).select("file", "status", "matches_loaded").rows()
    assert ("meja3_full.csv", "rejected", 0) in log, log


def test_a_confirmed_upload_that_lost_the_race_is_logged_as_refused(pg_url, tmp_path, monkeypatch):
    """The dashboard's path: a previewed upload whose match another upload wrote between
    the preview and the commit is refused ("the plan changed"), writes nothing, and the
    ingest log says rejected, not interrupted."""
    from pipeline.ingest import service

    first, update, fixed = live_and_fixed(tmp_path)
    with connect(pg_url) as con:
        ingest(con, [first])
        expected = service.signature(service.plan(con, *read_all([update])))
    real_commit = service.commit_beside
    racing: list[bool] = []

    def another_writer_first(con, p):
        if not racing:
            racing.append(True)
            with connect(pg_url) as other:
                ingest(other, [fixed], reason="salah tulis hand 2", by="other venue")
        return real_commit(con, p)

    monkeypatch.setattr(service, "commit_beside", another_writer_first)
    with connect(pg_url) as con:
        with pytest.raises(service.PlanChanged):
            service.load(con, [update], expected=expected)
        check_consistent(con)
        assert [v for (v, *_rest) in current_matches(con).values()] == [2]
        log = queries.ingest_log(con).select("file", "status", "matches_loaded").rows()
    assert ("meja3_full.csv", "rejected", 0) in log, log
