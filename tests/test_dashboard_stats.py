"""pipeline.standings.stats against the public views, the correction diff, and the dashboard's
read path (short connections, cache on the data stamp, last data when busy)."""

import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest

from dashboard import batches, data, live
from pipeline.players import import_registry, read_registry
from pipeline.standings import queries, stats
from pipeline.store.db import DatabaseBusy, connect
from tests.browser.support import PEPET, SAMPLES, UNHAS, build_samples, sample_file

WIN = set(stats.WINNING)


@pytest.fixture(scope="module")
def samples(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("stats") / "s.duckdb"
    build_samples(path)
    return path


@pytest.fixture(scope="module")
def ro(samples):
    with connect(samples, read_only=True) as con:
        yield con


@pytest.fixture(scope="module")
def hp(ro) -> pl.DataFrame:
    """The public view, as a user's own tool would read it."""
    return ro.sql(
        'SELECT event, round, "table", hand, player, chair, category, points, tiebreak FROM hand_points'
    ).pl()


def _key(ro, name: str) -> str:
    return ro.execute("SELECT player_key FROM players WHERE player = ?", [name]).fetchall()[0][0]


def _busiest_above(hp: pl.DataFrame) -> str:
    return (
        hp.filter(pl.col("category") == "above")
        .group_by("player")
        .len()
        .sort(["len", "player"], descending=[True, False])
        .row(0)[0]
    )


def test_fed_matches_the_hand_points_view(ro, hp):
    name = _busiest_above(hp)
    fed = stats.player_fed(ro, _key(ro, name))
    above = hp.filter((pl.col("player") == name) & (pl.col("category") == "above"))
    winners = hp.filter(pl.col("category").is_in(list(WIN))).select(
        "event", "round", "table", "hand", pl.col("player").alias("winner")
    )
    expected = (
        above.join(winners, on=["event", "round", "table", "hand"])
        .group_by("winner")
        .agg(pl.len().alias("times"), pl.col("points").sum().alias("points_lost"))
    )
    got = fed.select("winner", "times", "points_lost").sort("winner")
    assert (
        got.to_dicts()
        == expected.sort("winner").cast({"times": pl.Int32, "points_lost": pl.Int32}).to_dicts()
    )
    assert fed.get_column("times").sum() == above.height
    assert fed.get_column("times").to_list() == sorted(
        fed.get_column("times").to_list(), reverse=True
    )


@pytest.mark.parametrize("event", [UNHAS, PEPET])
def test_player_totals_agree_with_standings(ro, hp, event):
    ev = queries.standings(ro, event, "event")
    for row in ev.head(5).iter_rows(named=True):
        key = _key(ro, row["player"])
        mine = stats.player_events(ro, key).filter(pl.col("event") == event).row(0, named=True)
        assert mine["points"] == row["points"] and mine["rank"] == row["rank"]
        cats = stats.player_categories(ro, key)
        own = hp.filter((pl.col("player") == row["player"]) & (pl.col("event") == event))
        counts = dict(own.group_by("category").len().iter_rows())
        assert (
            dict(zip(cats.get_column("category"), cats.get_column("hands"), strict=True)) == counts
        )
        chairs = stats.player_chairs(ro, key)
        assert chairs.get_column("hands").sum() == own.filter(~pl.col("tiebreak")).height
        tl = stats.player_timeline(ro, key)
        assert tl.get_column("n").to_list() == list(range(1, tl.height + 1))
        assert (
            tl.get_column("cumulative")[-1]
            == own.filter(~pl.col("tiebreak")).get_column("points").sum()
        )


@pytest.mark.parametrize("event", [UNHAS, PEPET])
def test_endings_and_categories_are_shares_of_the_loaded_hands(ro, hp, event):
    end = stats.endings(ro, event)
    assert end.get_column("share").sum() == pytest.approx(1.0, abs=1e-3)
    n_hands = ro.execute(
        # hands played: a walkover's row has no hand number and is not a hand
        'SELECT count(*) FROM hands h JOIN match_versions v USING (event, round, "table", version) WHERE v.current AND h.event = ? AND h.hand IS NOT NULL',
        [event],
    ).fetchall()[0][0]
    assert end.get_column("hands").sum() == n_hands
    assert set(end.get_column("ending")) <= set(stats.ending_order(queries.ruleset_of(ro, event)))
    cats = stats.categories(ro, event)
    assert cats.get_column("seats").sum() == hp.filter(pl.col("event") == event).height
    assert set(cats.get_column("category")) <= set(
        stats.category_order(queries.ruleset_of(ro, event))
    )


@pytest.mark.parametrize("event", [UNHAS, PEPET])
def test_every_count_of_hands_is_the_hands_played(ro, event):
    """One definition on the statistics page: hands played, tie-break hands included,
    walkovers not (the header, the endings, the per-round and per-table summaries)."""
    played = ro.execute(
        'SELECT count(*) FROM hands h JOIN match_versions v USING (event, round, "table", version) '
        "WHERE v.current AND h.event = ? AND h.hand IS NOT NULL",
        [event],
    ).fetchall()[0][0]
    assert stats.endings(ro, event).get_column("hands").sum() == played
    assert stats.round_summary(ro, event).get_column("hands").sum() == played
    assert stats.table_summary(ro, event).get_column("hands").sum() == played
    assert "wo" not in stats.endings(ro, event).get_column("ending").to_list()


def test_table_and_round_summaries(ro):
    ts = queries.standings(ro, UNHAS, "table")
    tables = stats.table_summary(ro, UNHAS)
    assert tables.height == ts.select("round", "table").unique().height
    assert tables.get_column("players").sum() == ts.height
    rounds = stats.round_summary(ro, UNHAS)
    assert rounds.get_column("round").to_list() == queries.rounds(ro, UNHAS)
    assert rounds.get_column("tables").sum() == tables.height
    assert (
        rounds.get_column("walkovers").sum()
        == ts.filter(pl.col("walkover")).select("round", "table").unique().height
    )


def test_point_table_reads_the_ruleset_file():
    from pipeline import rulesets

    pts, default = stats.point_table("pepet")
    assert dict(pts.iter_rows()) == rulesets.load("pepet").params["points"]
    assert default is bool(rulesets.load("pepet").params["points_are_default"])
    rulesets.override(
        "pepet",
        {**rulesets.load("pepet").params, "points_are_default": False, "points": {"jawara1": 5}},
    )
    pts, default = stats.point_table("pepet")
    assert not default and dict(pts.iter_rows()) == {"jawara1": 5}


# --- correction diff ------------------------------------------------------------------------------


def test_hand_diff_lists_changed_fields_and_dropped_or_added_hands():
    old = pl.DataFrame(
        {
            "hand": [1, 2, 3],
            "player_a": ["Andi", "Budi", "Citra"],
            "ending": ["biasa", "ceki", "apollo"],
            "pips_a": [None, 3, None],
        }
    )
    new = pl.DataFrame(
        {
            "hand": [1, 2, 4],
            "player_a": ["andi", "Budi", "Citra"],
            "ending": ["biasa", "kandang", "apollo"],
            "pips_a": [None, 5, None],
        }
    )
    d = stats.hand_diff(old, new)
    assert d.rows() == [
        (2, "ending", "ceki", "kandang"),
        (2, "pips_a", "3", "5"),
        (3, stats.DROPPED, None, None),
        (4, stats.ADDED, None, None),
    ]
    assert stats.hand_diff(old, old).height == 0


# --- the dashboard's read path ---------------------------------------------------------------------


@pytest.fixture
def live_db(db_path, samples) -> Path:
    # a watcher left running by an earlier page test polls its own database in the
    # background: stop it, so what these tests count is their own reads only
    live.stop_all()
    shutil.copyfile(samples, db_path)
    data.clear()
    yield db_path
    data.clear()


def test_reads_close_their_connection(live_db):
    data.read(batches.leaderboard, None, None)
    # in one process DuckDB refuses a write connection while a read-only one is open
    con = duckdb.connect(str(live_db))
    con.close()


def test_reads_are_cached_on_the_data_stamp(live_db, monkeypatch):
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    calls = []

    def batch(con, event):
        calls.append(event)
        return queries.standings(con, event, "event").height

    first = data.read(batch, UNHAS)
    again = data.read(batch, UNHAS)
    assert first == again and not first.stale and calls == [UNHAS]
    # a registry import changes names without an ingest: the stamp sees it
    with connect(live_db) as con:
        import_registry(con, read_registry(SAMPLES / "pepet" / "players.csv"))
    data.read(batch, UNHAS)
    assert len(calls) == 2
    from pipeline.ingest import ingest

    with connect(live_db) as con:
        ingest(
            con, [sample_file("unhas", "unhas-2024-e1_R1_meja3.csv")], by="t"
        )  # unchanged, still logged
    data.read(batch, UNHAS)
    assert len(calls) == 3


def test_many_sessions_share_one_stamp_check(live_db, monkeypatch):
    opened = []
    real = data.attach

    def counting(*a, **k):
        opened.append(1)
        return real(*a, **k)

    monkeypatch.setattr(data, "attach", counting)
    monkeypatch.setattr(data, "STAMP_TTL", 60.0)
    first = data.read(batches.leaderboard, UNHAS, None)
    for _ in range(20):  # twenty screens refreshing at once
        assert data.read(batches.leaderboard, UNHAS, None).value is first.value
    assert len(opened) == 1
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    data.read(batches.leaderboard, UNHAS, None)
    assert len(opened) == 2, "after the TTL the stamp is read again"


def test_busy_database_gives_the_last_data_marked_stale(live_db, monkeypatch):
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    good = data.read(batches.leaderboard, UNHAS, None)

    def busy(*a, **k):
        raise DatabaseBusy("in use")

    monkeypatch.setattr(data, "attach", busy)
    res = data.read(batches.leaderboard, UNHAS, None)
    assert res.stale and res.value is good.value
    assert data.read(batches.leaderboard, PEPET, "S1") == data.Result(None, stale=True)


def test_a_real_writer_in_another_process_makes_reads_stale_not_fail(live_db, monkeypatch):
    monkeypatch.setattr(data, "READ_TIMEOUT", 0.3)
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    good = data.read(batches.leaderboard, UNHAS, None)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True); time.sleep(30)",
            str(live_db),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        res = data.read(batches.leaderboard, UNHAS, None)
        assert res.stale and res.value is good.value
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    assert not data.read(batches.leaderboard, UNHAS, None).stale


def test_the_read_write_lock_lets_reads_share_and_keeps_writes_apart():
    import threading

    lock = data.ReadWriteLock()
    assert lock.acquire_read(0.1) and lock.acquire_read(0.1), "reads share"
    assert not lock.acquire_write(0.05), "a write waits for the reads"
    lock.release_read()
    lock.release_read()
    assert lock.acquire_write(0.1)
    assert not lock.acquire_read(0.05), "no read while writing"
    with pytest.raises(DatabaseBusy):
        with lock.reading(0.05):
            pass
    lock.release_write()
    # a waiting writer goes before new readers
    assert lock.acquire_read(0.1)
    got = []
    writer = threading.Thread(target=lambda: got.append(lock.acquire_write(2.0)))
    writer.start()
    time_left = 50
    while not lock._waiting and time_left:
        threading.Event().wait(0.01)
        time_left -= 1
    assert not lock.acquire_read(0.05), "new readers wait behind the writer"
    lock.release_read()
    writer.join()
    assert got == [True]
    lock.release_write()


def test_a_dashboard_write_while_reading_is_refused_as_busy_not_a_duckdb_error(
    live_db, monkeypatch
):
    monkeypatch.setattr(data, "WRITE_TIMEOUT", 0.1)
    assert data.DB_LOCK.acquire_read(1)
    try:
        with pytest.raises(DatabaseBusy):
            data.write(lambda con: con.execute("SELECT 1").fetchall())
    finally:
        data.DB_LOCK.release_read()
    assert data.write(lambda con: con.execute("SELECT 1").fetchall()) == [(1,)]


def test_the_player_timeline_is_one_line_broken_between_events():
    from dashboard.i18n import category
    from dashboard.views.player import timeline_chart
    from tests.chart_marks import read

    # two events, three hands then two; running totals start again in each
    tl = pl.DataFrame(
        {
            "event": ["e1", "e1", "e1", "e2", "e2"],
            "round": ["R1"] * 5,
            "table": ["1"] * 5,
            "hand": [1, 2, 3, 1, 2],
            "category": ["biasa"] * 5,
            "points": [2, -1, 3, 4, 1],
            "cumulative": [2, 1, 4, 4, 5],
            "n": [1, 2, 3, 4, 5],
        }
    )
    (drawn,) = read(timeline_chart(tl, {"e1": "Piala Rektor", "e2": "e2"}))
    # one colour, no legend: a line per event (broken between them)
    assert drawn.kind == "dc-line" and drawn.lines == 2 and drawn.legend == []
    assert drawn.rows() == [(1, 2), (2, 1), (3, 4), (4, 4), (5, 5)]
    # each point, drawn for a short line, names its hand's event by its title
    assert all("dc-hide" not in m["class"] for m in drawn.marks)
    events = [t.splitlines()[0] for t in drawn.titles]
    assert events == ["Acara: Piala Rektor"] * 3 + ["Acara: e2"] * 2
    assert "Kocokan: 3" in drawn.titles[2] and "Poin: 3" in drawn.titles[2]
    # its category in the rulebook's words, as in the tables
    assert f"Kategori: {category('biasa')}" in drawn.titles[2]
