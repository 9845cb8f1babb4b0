"""The PostgreSQL store beside the file: the same views, rows, versions and refusals.

Tests taking the ``store`` fixture run once on a DuckDB file and once on a PostgreSQL
database of their own (tests/pg.py starts a throwaway cluster once per session; without
PostgreSQL binaries only the PostgreSQL runs are skipped, saying so).
"""

import random
import signal
import subprocess
import sys
import threading
import time
from datetime import date

import duckdb
import polars as pl
import pytest

from pipeline.auth import NotAllowed, add_user, sign_in
from pipeline.ingest import ingest, service
from pipeline.ingest.planner import plan
from pipeline.ingest.read import read_sheets
from pipeline.ingest.writer import begin_ingest, commit
from pipeline.standings import queries, stats
from pipeline.store import pgsql
from pipeline.store.db import connect
from pipeline.store.pgmigrate import view_names
from simulator.stress.checks import check_consistent, current_matches
from simulator.stress.runs import correct_frame, replicated_frame, write_csv
from tests.conftest import DATA
from tests.test_examples import CASES, compare, load_example

BASE = DATA / "errors" / "base_unhas.csv"
LINES = BASE.read_text().splitlines()
HEADER, TABLE1, TABLE2 = LINES[0], LINES[1:11], LINES[11:21]


def write(tmp_path, name, rows):
    f = tmp_path / name
    f.write_text("\n".join([HEADER, *rows]) + "\n")
    return f


def corrected(tmp_path, name, note):
    """Table 1 with hand 1's note changed: a correction of the loaded match."""
    cells = TABLE1[0].split(",")
    cells[HEADER.split(",").index("catatan")] = note
    return write(tmp_path, name, [",".join(cells), *TABLE1[1:]])


# --- SQL carried over (no server needed) -------------------------------------------------


@pytest.mark.parametrize(
    ("duck", "want"),
    [
        ("SELECT a, b, count(*) AS n FROM t GROUP BY ALL", "GROUP BY a, b"),
        (
            "SELECT arg_max(x, y) FROM t",
            "(ARRAY_AGG(x ORDER BY y DESC) FILTER(WHERE (y) IS NOT NULL))[1]",
        ),
        (
            "SELECT arg_min(x, y) FROM t",
            "(ARRAY_AGG(x ORDER BY y ASC) FILTER(WHERE (y) IS NOT NULL))[1]",
        ),
        ("SELECT contains(a, 'final') FROM t", "STRPOS(a, 'final') > 0"),
        ("SELECT round(avg(x), 2) FROM t", "ROUND(CAST(AVG(x) AS DECIMAL), 2)"),
        ("SELECT any_value(x) FROM t", "(ARRAY_AGG(x) FILTER(WHERE (x) IS NOT NULL))[1]"),
        (
            "SELECT regexp_extract(a, '[0-9]+') FROM t",
            "COALESCE(SUBSTRING((a) FROM ('[0-9]+')), '')",
        ),
        ("SELECT a FROM (SELECT 1 AS a)", "FROM (SELECT 1 AS a) AS _sub"),
        ("SELECT sum(x) AS s FROM t GROUP BY g HAVING s > 1", "HAVING SUM(x) > 1"),
        ("create or replace view v as select 1 as a", "CREATE VIEW v AS SELECT 1 AS a"),
        ("SELECT a FROM t WHERE a LIKE '%x' AND b = ?", "a LIKE '%%x' AND b = %s"),
        ("SELECT a FROM t WHERE a LIKE '%x'", "a LIKE '%x'"),
        (
            "SELECT a FROM t WHERE r = $ruleset AND s = $ruleset AND a LIKE '%x'",
            "r = %(ruleset)s AND s = %(ruleset)s AND a LIKE '%%x'",
        ),
    ],
)
def test_duckdb_sql_is_carried_over_with_its_meaning(duck, want):
    assert want in pgsql.to_postgres(duck)


def test_insert_or_replace_is_refused_with_the_portable_form_named():
    with pytest.raises(pgsql.NotPortable, match="ON CONFLICT"):
        pgsql.to_postgres("INSERT OR REPLACE INTO t VALUES (1)")


def test_every_view_file_creates_a_view_on_postgres():
    names = view_names()
    assert {"hand_points", "table_standings", "round_standings", "event_standings"} <= set(names)


# --- both stores ----------------------------------------------------------------------------


def _columns(con, view):
    return con.sql(f"SELECT * FROM {view} LIMIT 0").pl().columns


def test_every_view_has_the_same_columns_on_both_stores(pg_url, tmp_path):
    with connect(tmp_path / "f.duckdb") as fcon, connect(pg_url) as pcon:
        for view in view_names():
            assert _columns(pcon, view) == _columns(fcon, view), view


@pytest.mark.parametrize(
    ("source", "root", "ruleset"), CASES, ids=[f"{s}-{rs}" for s, _, rs in CASES]
)
def test_worked_examples_give_the_expected_rows_on_both_stores(store, source, root, ruleset):
    folder = root / ruleset
    with connect(store) as con:
        assert load_example(con, folder) == []
        diffs = [d for p in sorted((folder / "expected").glob("*.csv")) for d in compare(con, p)]
    assert diffs == [], "\n".join(diffs[:15])


def _view_rows(con, view):
    df = con.sql(f"SELECT * FROM {view}").pl()
    return df.sort(df.columns).with_columns(pl.col(pl.Datetime).cast(pl.String))


def test_worked_examples_give_identical_rows_in_every_view(pg_url, tmp_path):
    folder = CASES[0][1]
    with connect(tmp_path / "f.duckdb") as fcon, connect(pg_url) as pcon:
        for ruleset in ("unhas", "pepet"):
            assert load_example(fcon, folder / ruleset) == []
            assert load_example(pcon, folder / ruleset) == []
        for view in view_names():
            f, p = _view_rows(fcon, view), _view_rows(pcon, view)
            assert p.height == f.height, view
            assert p.cast(f.schema).equals(f), view


def test_a_correction_becomes_version_two_on_both_stores(store, tmp_path):
    with connect(store) as con:
        ingest(con, [BASE])
        fix = ingest(con, [corrected(tmp_path, "fix.csv", "dikoreksi")], reason="salah tulis")
        assert [(o.status, o.version) for o in fix.outcomes] == [("correction", 2)]
        again = ingest(con, [corrected(tmp_path, "fix.csv", "dikoreksi")], reason="salah tulis")
        assert [o.status for o in again.outcomes] == ["unchanged"]
        hist = queries.history(con, "unhas-2024-e1", "R1", "1")
        assert hist["version"].to_list() == [1, 2] and hist["current"].to_list() == [False, True]
        check_consistent(con)


def test_a_correction_without_reason_stays_out_whole_on_both_stores(store, tmp_path):
    with connect(store) as con:
        ingest(con, [BASE])
        fix = ingest(con, [corrected(tmp_path, "fix.csv", "x")])
        assert fix.exit_code == 1
        assert "correction_needs_reason" in fix.problems["code"].to_list()
        assert con.execute("SELECT count(*) FROM match_versions").fetchall()[0][0] == 2


def test_rights_are_checked_at_commit_on_both_stores(store):
    with connect(store) as con:
        add_user(con, "budi", "rahasia-panjang-1", ["lain-event"])
        ident = sign_in(con, "budi", "rahasia-panjang-1").identity
        assert ident is not None
        with pytest.raises(NotAllowed):
            service.load(con, [BASE], identity=ident)
        assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] == 0


def test_a_lost_race_is_refused_and_nothing_is_doubled(pg_url, tmp_path):
    from pipeline.store.postgres import MatchesChanged

    with connect(pg_url) as con:
        ingest(con, [BASE])
    plans = []
    for k in (1, 2):
        with connect(pg_url) as con:
            sheets = read_sheets(corrected(tmp_path, f"fix{k}.csv", f"koreksi {k}"))
            plans.append(plan(con, sheets, None, reason="koreksi"))
    with connect(pg_url) as a, connect(pg_url) as b:
        begin_ingest(a, plans[0])
        commit(a, plans[0])
        begin_ingest(b, plans[1])
        with pytest.raises(MatchesChanged, match="R1 table 1"):
            commit(b, plans[1])
        assert b.execute(
            "SELECT version FROM match_versions WHERE \"table\" = '1' ORDER BY version"
        ).fetchall() == [(1,), (2,)]
        check_consistent(b)


@pytest.mark.parametrize("bulk", [False, True])
def test_a_match_loaded_meanwhile_is_found_by_either_version_check(pg_url, bulk):
    """The commit's check that each match is still at the version its plan replaces: a
    small load looks each match up, a bulk load reads its events' versions; both find
    a match another upload loaded in the meantime, and nothing is written."""
    from pipeline.store.postgres import BULK_MATCHES, MatchesChanged, claim_matches

    with connect(pg_url) as con:
        ingest(con, [BASE])
        loaded = con.execute(
            'SELECT event, round, "table" FROM match_versions ORDER BY 1, 2, 3'
        ).fetchall()
        others = BULK_MATCHES if bulk else 3
        writes = [(e, r, t, 1) for e, r, t in loaded[:1]]  # planned as new: it is not
        writes += [(loaded[0][0], "R99", str(k), 1) for k in range(others)]
        writes += [(e, r, t, 2) for e, r, t in loaded[1:]]  # corrections, as planned
        con.execute("BEGIN TRANSACTION")
        with pytest.raises(MatchesChanged) as err:
            claim_matches(con, writes)
        con.execute("ROLLBACK")
    assert err.value.matches == [loaded[0]]


def test_statistics_are_refreshed_beside_other_work(pg_url):
    """After a bulk load, ANALYZE runs on a connection of its own while the rating update
    goes on; the block waits for it. A server that cannot be reached for it loses
    nothing: ANALYZE only refreshes the planner's statistics."""
    from pipeline.store.postgres import analysing

    with connect(pg_url) as con:
        con.execute("CREATE TABLE fresh (n INTEGER)")
        con.execute("INSERT INTO fresh SELECT * FROM generate_series(1, 5000)")
        with analysing(con, "ANALYZE fresh"):
            seen = con.execute("SELECT count(*) FROM fresh").fetchall()[0][0]
        stats = con.execute("SELECT reltuples FROM pg_class WHERE relname = 'fresh'").fetchall()[0][
            0
        ]
        assert (seen, stats) == (5000, 5000)
        con.url = "postgresql://nobody@127.0.0.1:1/none"  # unreachable: nothing raised
        with analysing(con, "ANALYZE fresh"):
            pass


def test_a_bulk_load_leaves_the_rating_historys_position_index_summarised(
    pg_url, tmp_path, monkeypatch
):
    """After a bulk load the rating history's BRIN index covers the new pages (autovacuum
    would get to them later): a replay's delete from a position on reads that position's
    pages, not every page the load wrote."""
    import simulator
    from pipeline.ingest import writer

    monkeypatch.setattr(writer, "ANALYZE_MATCHES", 1)  # this small load counts as bulk
    path = tmp_path / "bulk.csv"
    simulator.generate_frame("unhas", 3, 600, event="bulk").write_csv(path)
    with connect(pg_url) as con:
        # a range per page, so that this small load fills several ranges
        con.execute("DROP INDEX rating_history_seq")
        con.execute(
            "CREATE INDEX rating_history_seq ON rating_history_t USING brin (seq) "
            "WITH (pages_per_range = 1)"
        )
        service.load(con, [path])
        assert con.execute("SELECT count(*) FROM rating_history_t").fetchall()[0][0] > 0
        left = con.execute("SELECT brin_summarize_new_values('rating_history_seq')")
        assert left.fetchall() == [(0,)]


def test_two_corrections_at_once_become_versions_two_and_three(pg_url, tmp_path):
    with connect(pg_url) as con:
        ingest(con, [BASE])
    files = [corrected(tmp_path, f"fix{k}.csv", f"koreksi {k}") for k in (1, 2)]
    results: list[object] = []

    def upload(f):
        with connect(pg_url) as con:
            results.append(service.load(con, [f], reason="koreksi"))

    threads = [threading.Thread(target=upload, args=(f,)) for f in files]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(results) == 2
    with connect(pg_url) as con:
        rows = con.execute(
            "SELECT version, current FROM match_versions WHERE \"table\" = '1' ORDER BY version"
        ).fetchall()
        assert rows == [(1, False), (2, False), (3, True)]
        check_consistent(con)


def test_different_matches_load_at_once_and_both_land(pg_url, tmp_path):
    files = [write(tmp_path, "t1.csv", TABLE1), write(tmp_path, "t2.csv", TABLE2)]
    errors: list[BaseException] = []

    def upload(f):
        try:
            with connect(pg_url) as con:
                service.load(con, [f])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=upload, args=(f,)) for f in files]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    with connect(pg_url) as con:
        assert sorted(current_matches(con)) == [
            ("unhas-2024-e1", "R1", "1"),
            ("unhas-2024-e1", "R1", "2"),
        ]
        assert con.execute("SELECT count(*) FROM events").fetchall() == [(1,)]


def test_kill_9_mid_commit_leaves_every_match_whole(pg_url, tmp_path):
    frame = replicated_frame(3000, tag="k")
    big, fix = (
        write_csv(frame, tmp_path / "big.csv"),
        write_csv(correct_frame(frame), tmp_path / "fix.csv"),
    )
    rng = random.Random(7)
    cmd = [sys.executable, "-m", "pipeline", "ingest", "--db", pg_url, "--reason", "koreksi"]
    for k in range(4):
        proc = subprocess.Popen([*cmd, str(big if k % 2 == 0 else fix)], stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.5, 4.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait(60)
        with connect(pg_url) as con:
            check_consistent(con)
    done = subprocess.run([*cmd, str(big)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with connect(pg_url) as con:
        check_consistent(con)
        assert len(current_matches(con)) == frame.select("event", "round", "table").n_unique()


def test_an_unreachable_server_is_one_sentence_and_exit_2(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipeline",
            "standings",
            "--event",
            "x",
            "--db",
            "postgresql://nobody@127.0.0.1:1/none",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "postgresql://nobody@127.0.0.1:1/none cannot be reached" in done.stderr


def test_the_file_store_is_unchanged_by_the_postgres_code(tmp_path):
    with connect(tmp_path / "f.duckdb") as con:
        assert isinstance(con, duckdb.DuckDBPyConnection)


# --- moving, backing up, restoring -----------------------------------------------------------


def _league(con):
    folder = CASES[0][1]
    for ruleset in ("unhas", "pepet"):
        assert load_example(con, folder / ruleset) == []


def test_a_league_moves_to_postgres_and_back_with_every_view_identical(pg_url, tmp_path):
    from pipeline.store.transfer import migrate_store, view_differences

    first, back = tmp_path / "first.duckdb", tmp_path / "back.duckdb"
    with connect(first) as con:
        _league(con)
    counts = migrate_store(str(first), pg_url)
    assert counts["hands"] > 0 and counts["match_versions"] > 0
    migrate_store(pg_url, str(back))
    with connect(first) as a, connect(back) as b, connect(pg_url) as p:
        assert view_differences(a, b) == []
        assert view_differences(a, p) == []
        check_consistent(p)
        # the log goes on after the moved ingests: no id is handed out twice
        nxt = p.execute("SELECT nextval('ingest_seq')").fetchall()[0][0]
        assert nxt > a.execute("SELECT max(ingest_id) FROM ingests").fetchall()[0][0]


def test_moving_into_a_store_that_holds_a_league_is_refused_and_changes_nothing(pg_url, tmp_path):
    from pipeline.store.transfer import TransferError, migrate_store

    src = tmp_path / "src.duckdb"
    with connect(src) as con:
        ingest(con, [BASE])
    with connect(pg_url) as con:
        ingest(con, [write(tmp_path, "t2.csv", TABLE2)])
    with pytest.raises(TransferError, match="already holds a league"):
        migrate_store(str(src), pg_url)
    with connect(pg_url) as con:
        assert sorted(current_matches(con)) == [("unhas-2024-e1", "R1", "2")]


def test_backup_and_restore_of_a_postgres_store(pg_url, tmp_path, monkeypatch):
    from pipeline.store.backup import backup, restore
    from pipeline.store.transfer import view_differences

    monkeypatch.setenv("DOMINO_BACKUP_DIR", str(tmp_path / "backups"))
    with connect(pg_url) as con:
        ingest(con, [BASE])
    copy = backup(pg_url, tmp_path / "copy.duckdb")
    with connect(pg_url) as con:
        ingest(con, [corrected(tmp_path, "fix.csv", "koreksi")], reason="salah")
    saved = restore(copy, pg_url)
    assert saved.exists() and saved.name.endswith("-before-restore.duckdb")
    with connect(copy, read_only=True) as c, connect(pg_url) as p, connect(saved) as s:
        assert view_differences(c, p) == []
        assert s.execute("SELECT max(version) FROM match_versions").fetchall() == [(2,)]
        assert p.execute("SELECT max(version) FROM match_versions").fetchall() == [(1,)]
        check_consistent(p)


# --- the dashboard's reads ---------------------------------------------------------------------


def test_the_dashboard_reads_every_page_batch_from_postgres_through_its_pool(
    pg_url, monkeypatch, tmp_path
):
    from dashboard import batches, data
    from pipeline.store import postgres

    monkeypatch.setenv("DOMINO_DB", pg_url)
    data.clear()
    t1, t2 = write(tmp_path, "t1.csv", TABLE1), write(tmp_path, "t2.csv", TABLE2)
    with connect(pg_url) as con, connect(tmp_path / "f.duckdb") as fcon:
        ingest(con, [t1])
        ingest(fcon, [t1])
        want = batches.leaderboard(fcon, "unhas-2024-e1", None)
    assert data.read(batches.events).value["event"].to_list() == ["unhas-2024-e1"]
    board = data.read(batches.leaderboard, "unhas-2024-e1", None).value
    assert board["round"] == want["round"] == "R1"
    for part in ("tables", "event_standings"):
        assert board[part].equals(want[part]), part
    assert data.read(batches.event_stats, "unhas-2024-e1").value is not None
    # text typed into an event picker is looked up on the store too
    typed = data.read(batches.leaderboard, "UNHAS-2024", None).value
    assert typed["event"] == "unhas-2024-e1" and typed["search"][:2] == ("UNHAS-2024", 1)
    players = data.read(batches.player_list).value
    assert players.height == want["tables"].height
    assert data.read(batches.player, players["player_key"][0]).value is not None
    assert pg_url in postgres._pools  # one small pool per process and store
    with connect(pg_url) as con:
        stamp = stats.data_stamp(con)
        ingest(con, [t2])
        assert stats.data_stamp(con) != stamp  # the live stamp sees the new upload
    data.clear()
    later = data.read(batches.leaderboard, "unhas-2024-e1", None).value
    assert set(later["tables"]["table"]) == {"1", "2"}


# --- what the newer features send through the connection ---------------------------------------


def test_a_frame_is_copied_by_column_name_and_an_empty_key_list_is_text(pg_url):
    from pipeline.store.db import insert_frame

    with connect(pg_url) as con:
        con.execute("CREATE TABLE t (a VARCHAR, n INTEGER, b VARCHAR)")
        # the frame's columns in another order than the table's: taken by name, as DuckDB does
        frame = pl.DataFrame({"b": ["y"], "a": ["x"], "n": [3]})
        insert_frame(con, "t", frame, "a, n, b")
        assert con.execute("SELECT a, n, b FROM t").fetchall() == [("x", 3, "y")]
        # an empty list of keys is an empty text[] (not an unknown-typed array)
        gone = con.execute("DELETE FROM t WHERE a IN (SELECT unnest(?))", [[]])
        assert gone.execute("SELECT count(*) FROM t").fetchall() == [(1,)]


def _advisory_locks_held(con) -> int:
    return con.execute(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
    ).fetchall()[0][0]


def test_a_first_load_of_many_matches_holds_a_bounded_number_of_locks(pg_url):
    from pipeline.store.postgres import BULK_MATCHES, LOCK_BUCKETS, claim_matches, match_key

    # 20,000 new matches: one lock each would overflow PostgreSQL's shared lock table
    writes = [("ev", f"R{k // 100}", str(k % 100), 1) for k in range(20_000)]
    assert len(writes) >= BULK_MATCHES
    with connect(pg_url) as con:
        con.execute("BEGIN TRANSACTION")
        claim_matches(con, writes)
        held = _advisory_locks_held(con)
        con.execute("ROLLBACK")
    assert held == LOCK_BUCKETS  # 20,000 matches fill every bucket, and no more
    # below the bulk size, the buckets of the matches written and no others
    few = writes[: BULK_MATCHES // 8]
    with connect(pg_url) as con:
        con.execute("BEGIN TRANSACTION")
        claim_matches(con, few)
        held = _advisory_locks_held(con)
        con.execute("ROLLBACK")
    assert held == len({match_key(e, r, t) for e, r, t, _v in few}) < LOCK_BUCKETS
    # one match is always the same bucket: two writers of it serialise
    assert match_key("ev", "R1", "1") == match_key("ev", "R1", "1")
    assert 0 <= match_key("ev", "R1", "1") < LOCK_BUCKETS


def test_a_big_copy_goes_in_slices_and_every_value_arrives(pg_url, monkeypatch):
    """A frame over ``COPY_SLICE`` rows is sent slice by slice through the queued writer:
    the rows read back are the rows written, quotes, separators, line breaks, blanks,
    nulls and timestamps included, in every slice and across the slices' edges."""
    from datetime import datetime, timedelta

    from pipeline.store import pgconn

    monkeypatch.setattr(pgconn, "COPY_SLICE", 7)
    texts = ["plain", "with, comma", 'with "quotes"', "line\nbreak", "", None, "semi;colon"]
    start = datetime(2026, 12, 1, 9, 30, 0, 123456)
    frame = pl.DataFrame(
        {
            "player_key": [f"k{i:03d}" for i in range(60)],
            "player": [f"Pemain {i}" for i in range(60)],
            "group": [texts[i % len(texts)] for i in range(60)],
            "city": [texts[(i + 3) % len(texts)] for i in range(60)],
            "imported_at": [start + timedelta(seconds=i) for i in range(60)],
        }
    )
    columns = ["player_key", "player", "group", "city", "imported_at"]
    with connect(pg_url) as con:
        con.copy_in("registry", frame, columns)
        back = con.sql(
            'SELECT player_key, player, "group", city, imported_at FROM registry ORDER BY 1'
        ).pl()
    assert back.cast(frame.schema).equals(frame)


def test_the_ratings_of_two_writers_take_turns_on_the_ladder(pg_url, tmp_path):
    """On PostgreSQL an upload's rating update waits for the ladders' lock: while another
    writer's rating transaction holds it, the upload's match lands and its rating waits;
    once released, its table is appended at a position of its own."""
    import psycopg

    from pipeline import ratings

    with connect(pg_url) as con:
        service.load(con, [write(tmp_path, "t1.csv", TABLE1)])
    holder = psycopg.connect(pg_url)  # a transaction of its own, holding the lock
    holder.execute("SELECT pg_advisory_xact_lock(%s::int, %s::int)", list(ratings.LADDER_LOCK))
    errors: list[BaseException] = []

    def upload():
        try:
            with connect(pg_url) as con:
                service.load(con, [write(tmp_path, "t2.csv", TABLE2)])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    thread = threading.Thread(target=upload)
    thread.start()
    waiting = 0
    deadline = time.monotonic() + 60
    while not waiting and time.monotonic() < deadline:  # the upload's ratings queue up
        (waiting,) = holder.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
            "AND classid = %s AND objid = %s AND objsubid = 2",
            list(ratings.LADDER_LOCK),
        ).fetchone()
        time.sleep(0.05)
    try:
        assert waiting == 1
        with connect(pg_url) as con:
            assert len(current_matches(con)) == 2  # the match is in; its rating waits
            assert con.execute("SELECT count(*) FROM rating_tables").fetchall() == [(1,)]
    finally:
        holder.commit()
        holder.close()
        thread.join(120)
    assert errors == []
    with connect(pg_url) as con:
        seqs = con.execute("SELECT seq FROM rating_tables ORDER BY seq").fetchall()
    assert seqs == [(1,), (2,)]


def test_the_last_rated_table_is_read_from_the_ladders_index(pg_url):
    """An upload's rating update asks for the last rated table of the ladder. On
    PostgreSQL that is one entry of the (ruleset, seq) index, not a sort of the whole
    ladder (which grows with every table ever rated: 30 ms per upload at a million
    hands, ten times that at ten million)."""
    from pipeline import ratings

    n = 20_000
    ladder = pl.DataFrame(
        {
            "ruleset": ["unhas"] * n,
            "seq": list(range(1, n + 1)),
            "event": ["e"] * n,
            "round": ["R1"] * n,
            "table": [str(i) for i in range(n)],
            "version": [1] * n,
            "played_on": [date(2026, 1, 1)] * n,
            "fingerprint": ["x"] * n,
        }
    )
    with connect(pg_url) as con:
        con.copy_in("rating_tables", ladder, list(ladder.columns))
        con.raw.execute("ANALYZE rating_tables")
        plan = "\n".join(
            r[0]
            for r in con.raw.execute(
                ("EXPLAIN " + pgsql.to_postgres(ratings.LAST_RATED_SQL)).encode(), ["unhas"]
            ).fetchall()
        )
        assert "Index Scan Backward using rating_tables_position" in plan, plan
        assert "Sort" not in plan, plan
        assert con.execute(ratings.LAST_RATED_SQL, ["unhas"]).fetchall()[0][0] == n


def test_a_correction_finds_its_match_rows_by_the_event_indexes(pg_url, tmp_path):
    """Migration 014: a correction reads the match's loaded hands and deletes its old
    points with the event's BRIN bloom indexes on PostgreSQL, not a scan of all hands.
    (The planner weighs an index against a scan by table size, so with a test-sized
    table the scan is switched off to show the index answers these very statements.)"""
    import simulator
    from pipeline.ingest.match import match_filter

    frame = simulator.generate_frame("unhas", 5, 2_000, event="brin")
    path = tmp_path / "brin.csv"
    frame.write_csv(path)
    with connect(pg_url) as con:
        service.load(con, [path])
        match = con.execute(
            'SELECT event, round, "table", version FROM match_versions ORDER BY 1, 2, 3 LIMIT 1'
        ).fetchall()[0]
        raw = con.raw
        for index in ("hands_event", "hand_points_event"):
            raw.execute(f"SELECT brin_summarize_new_values('{index}')")
        raw.execute("ANALYZE hands")
        raw.execute("ANALYZE hand_points_t")
        raw.execute("SET enable_seqscan = off")
        keys = [dict(zip(["event", "round", "table"], match[:3], strict=True))]
        where, params = match_filter(keys, ["event", "round", "table"])
        for sql, args, index in (
            (f"DELETE FROM hand_points_t WHERE {where}", params, "hand_points_event"),
            (
                "SELECT * FROM hands WHERE " + where + ' AND "version" = ?',
                [*params, match[3]],
                "hands_event",
            ),
        ):
            shown = "\n".join(
                r[0]
                for r in raw.execute(
                    ("EXPLAIN " + pgsql.to_postgres(sql)).encode(), [*args]
                ).fetchall()
            )
            assert f"Bitmap Index Scan on {index}" in shown, shown
