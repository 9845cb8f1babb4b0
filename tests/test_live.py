"""One change watcher per server process (dashboard/live.py): it counts saves, it skips
a busy database, and it keeps the stamp that every session's cached reads are keyed on."""

import time

import pytest

from dashboard import data, live
from pipeline.ingest import load
from pipeline.store.db import DatabaseBusy, connect
from tests.conftest import DATA

LOGS = DATA / "examples" / "unhas" / "logs"


def ingest(db, name: str) -> None:
    with connect(db) as con:
        plan = load(con, [LOGS / name], by="test")
    assert plan.count("rejected") == 0


@pytest.fixture
def loaded(db_path):
    ingest(db_path, "unhas-2024-e1_R1_meja3.csv")
    data.clear()
    yield db_path
    data.clear()


def test_a_save_is_one_change(loaded):
    w = live.Watcher(str(loaded), every=0.05)
    w.poll()
    first = w.stamp
    assert first is not None and w.changes == 0  # the first stamp read is no change
    w.poll()
    assert w.changes == 0 and w.stamp == first  # nothing saved: nothing changes
    ingest(loaded, "unhas-2024-e1_R1_meja4.csv")
    w.poll()
    assert w.changes == 1 and w.stamp != first
    w.poll()
    assert w.changes == 1


def test_a_save_is_one_change_on_either_store(store):
    # on PostgreSQL the watcher took the URL for a missing file and never saw a change:
    # an open leaderboard stayed as it was until reloaded
    data.clear()
    ingest(store, "unhas-2024-e1_R1_meja3.csv")
    w = live.Watcher(store, every=0.05)
    w.poll()
    assert w.stamp is not None and w.changes == 0
    ingest(store, "unhas-2024-e1_R1_meja4.csv")
    w.poll()
    assert w.changes == 1
    data.clear()


def test_the_stamp_serves_every_sessions_reads(loaded):
    """What the watcher read is what data.read keys its cache on: sessions ask nothing."""
    w = live.Watcher(str(loaded), every=0.05)
    w.poll()
    assert data._stamps[str(loaded)][0] == w.stamp


@pytest.mark.parametrize(
    "error, counted",
    [
        # a writer holds the file: skipped, nothing counted
        (DatabaseBusy("the database is in use by another process"), 0),
        # a PostgreSQL server down for a while: open pages said so; the first poll that
        # reads the stamp again counts a change, though nothing was saved meanwhile, so
        # those pages read again by themselves instead of showing it until reloaded
        (ConnectionError("the PostgreSQL database cannot be reached"), 1),
    ],
    ids=["busy", "unreachable"],
)
def test_a_store_read_again_after_a_busy_or_unreadable_spell(loaded, monkeypatch, error, counted):
    w = live.Watcher(str(loaded), every=0.05)
    w.poll()
    before = w.stamp

    def failing(*a, **k):
        raise error

    monkeypatch.setattr(data, "attach", failing)
    w.poll()
    w.poll()
    assert w.changes == 0 and w.stamp == before
    monkeypatch.undo()
    w.poll()
    assert w.changes == counted and w.stamp == before and not w.unreadable
    w.poll()
    assert w.changes == counted


def test_the_thread_sees_a_save_by_itself(loaded):
    w = live.Watcher(str(loaded), every=0.05)
    assert w.version() == 0  # starts the thread
    deadline = time.monotonic() + 30
    while w.stamp is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert w.stamp is not None
    # the watcher's attach is short: another connection gets its write lock (waits it out)
    ingest(loaded, "unhas-2024-e1_R1_meja4.csv")
    while w.changes == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert w.version() == 1
    w.stop()
    assert not w._thread or not w._thread.is_alive()


def test_a_missing_file_is_no_change(tmp_path):
    w = live.Watcher(str(tmp_path / "none.duckdb"), every=0.05)
    w.poll()
    assert w.stamp is None and w.changes == 0
    assert not (tmp_path / "none.duckdb").exists()  # watching creates nothing


def test_a_writer_waits_out_the_watchers_attach_in_the_same_process(loaded):
    """The watcher attaches the file read-only for a moment; a write connection opened in
    the same process meanwhile (a dashboard upload) waits for it, as for another
    process's lock: one sentence when it lasts too long, the write once it ends."""
    import threading

    import duckdb

    watcher = duckdb.connect(":memory:")
    watcher.execute(f"ATTACH '{loaded}' AS domino (READ_ONLY)")
    with pytest.raises(DatabaseBusy, match="in use by another process; try again"):
        with connect(loaded, timeout=0.3):
            pass
    attached = threading.Event()
    done = threading.Event()

    def detach_when_asked() -> None:
        attached.wait(30)
        watcher.execute("DETACH domino")
        done.set()

    thread = threading.Thread(target=detach_when_asked)
    thread.start()
    attached.set()  # the attach ends while the writer waits
    try:
        ingest(loaded, "unhas-2024-e1_R1_meja4.csv")
    finally:
        thread.join(30)
        watcher.close()
    assert done.is_set()
    with connect(loaded, read_only=True) as con:
        assert con.execute('SELECT count(DISTINCT "table") FROM hands').fetchall() == [(2,)]
