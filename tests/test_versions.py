"""Loading again: duplicates, updates, corrections, history (HANDLOG.md, "Loading again").

The tests taking ``store`` run once on a file and once on a PostgreSQL database of their
own (tests/pg.py); ``con`` then opens that store."""

import random

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.ingest import ingest
from pipeline.standings import queries
from pipeline.store.postgres import is_url
from tests.conftest import DATA

BASE = DATA / "errors" / "base_unhas.csv"
LINES = BASE.read_text().splitlines()
HEADER, TABLE1, TABLE2 = LINES[0], LINES[1:11], LINES[11:21]


def write(tmp_path, name, rows):
    f = tmp_path / name
    f.write_text("\n".join([HEADER, *rows]) + "\n")
    return f


def standings(con):
    return queries.standings(con, "unhas-2024-e1", "table").sort("table", "player")


def test_the_same_file_twice_changes_nothing_and_says_so(store, con):
    first = ingest(con, [BASE])
    before = standings(con)
    again = ingest(con, [BASE])
    assert [o.status for o in again.outcomes] == ["unchanged", "unchanged"]
    assert again.exit_code == 0
    assert "already loaded as version 1" in again.outcomes[0].message
    assert standings(con).equals(before)
    assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] == first.hands.height
    assert con.execute("SELECT count(*) FROM match_versions").fetchall()[0][0] == 2
    log = queries.ingest_log(con)
    assert log["status"].to_list() == ["done", "done"]
    assert log["matches_unchanged"].to_list() == [2, 0]


def test_a_live_match_loaded_hand_by_hand_is_an_update(store, con, tmp_path):
    p1 = ingest(con, [write(tmp_path, "t1_h3.csv", TABLE1[:3])])
    assert p1.outcomes[0].status == "new"
    live = queries.standings(con, "unhas-2024-e1", "table")
    assert not live["qualified"].any()  # 3/10 hands: provisional
    p2 = ingest(con, [write(tmp_path, "t1_h5.csv", TABLE1[:5])])
    assert p2.outcomes[0].status == "update" and p2.outcomes[0].version == 2
    assert "adds hand(s) 4, 5" in p2.outcomes[0].message
    p3 = ingest(con, [write(tmp_path, "t1_all.csv", TABLE1)])
    assert p3.outcomes[0].status == "update"
    final = queries.standings(con, "unhas-2024-e1", "table")
    assert final["qualified"].sum() == 2
    hist = queries.history(con, "unhas-2024-e1", "R1", "1")
    assert hist["kind"].to_list() == ["new", "update", "update"]
    assert hist["current"].to_list() == [False, False, True]
    # superseded rows are kept
    assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] == 3 + 5 + 10


def corrected_rows():
    rows = list(TABLE1)
    cells = rows[3].split(",")  # hand 4: apollo by A (Bayu Rauf) → biasa
    cells[10] = "biasa"
    cells[11] = "2|1"
    rows[3] = ",".join(cells)
    return rows


def test_a_correction_without_a_reason_is_refused_and_changes_nothing(store, con, tmp_path):
    ingest(con, [BASE])
    before = standings(con)
    p = ingest(con, [write(tmp_path, "fix.csv", corrected_rows())])
    o = p.outcomes[0]
    assert o.status == "rejected" and p.exit_code == 1
    assert "changes hand(s) 4" in o.message and "--reason" in o.message
    prob = p.problems.filter(pl.col("code") == "correction_needs_reason")
    assert prob.height == 1 and prob["file"][0] == "fix.csv" and prob["column"][0] == "hand"
    assert standings(con).equals(before)
    assert con.execute("SELECT count(*) FROM match_versions").fetchall()[0][0] == 2


def test_a_dropped_hand_is_a_correction_too(store, con, tmp_path):
    ingest(con, [BASE])
    p = ingest(con, [write(tmp_path, "short.csv", TABLE1[:9])])
    assert p.outcomes[0].status == "rejected"
    assert "drops hand(s) 10" in p.outcomes[0].message


def test_correction_with_reason_supersedes_and_history_shows_both(store, con, tmp_path):
    ingest(con, [BASE], by="wasit-1")
    p = ingest(
        con,
        [write(tmp_path, "fix.csv", corrected_rows())],
        reason="hand 4 was biasa, not apollo",
        by="kg-coord",
    )
    o = p.outcomes[0]
    assert o.status == "correction" and o.version == 2 and o.changed_hands == [4]
    hist = queries.history(con, "unhas-2024-e1", "R1", "1")
    assert hist.select("version", "kind", "current", "loaded_by", "reason", "file").rows() == [
        (1, "new", False, "wasit-1", None, "base_unhas.csv"),
        (2, "correction", True, "kg-coord", "hand 4 was biasa, not apollo", "fix.csv"),
    ]
    assert hist["superseded_at"][0] is not None
    # hand 4: Bayu Rauf apollo +6 → biasa +2; Arif Pallawa (above) −4 → −1
    after = standings(con).filter(pl.col("table") == "1")
    pts = dict(zip(after["player"], after["points"], strict=True))
    assert pts["Bayu Rauf"] == 20 - 4 and pts["Arif Pallawa"] == -5 + 3
    # table 2 untouched
    assert (
        con.execute("SELECT count(*) FROM match_versions WHERE \"table\" = '2'").fetchall()[0][0]
        == 1
    )
    # the superseded version's rows are kept on both stores
    assert con.execute(
        "SELECT version, count(*) FROM hands WHERE \"table\" = '1' GROUP BY version ORDER BY version"
    ).fetchall() == [(1, 10), (2, 10)]
    # a file is copied aside before a correction; a PostgreSQL server keeps its own backups
    copies = list((tmp_path / "backups").glob("*before-correction*.duckdb"))
    assert len(copies) == (0 if is_url(store) else 1)


def test_a_revert_restores_the_earlier_standings(store, con, tmp_path):
    ingest(con, [BASE])
    original = standings(con)
    ingest(con, [write(tmp_path, "fix.csv", corrected_rows())], reason="typo")
    assert not standings(con).equals(original)
    p = ingest(con, [BASE], reason="the first sheet was right after all")
    assert p.outcomes[0].status == "correction" and p.outcomes[0].version == 3
    assert standings(con).equals(original)
    assert queries.history(con, "unhas-2024-e1", "R1", "1")["version"].to_list() == [1, 2, 3]


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**32 - 1))
def test_shuffling_a_files_rows_changes_nothing(tmp_path_factory, seed):
    from pipeline.store.db import connect

    d = tmp_path_factory.mktemp("shuffle")
    rows = TABLE1 + TABLE2
    shuffled = rows[:]
    random.Random(seed).shuffle(shuffled)
    with connect(d / "a.duckdb") as a, connect(d / "b.duckdb") as b:
        ingest(a, [write(d, "in_order.csv", rows)])
        ingest(b, [write(d, "shuffled.csv", shuffled)])
        assert standings(a).equals(standings(b))
        ha = queries.hand_points(a, "unhas-2024-e1")
        hb = queries.hand_points(b, "unhas-2024-e1")
        assert ha.equals(hb)
        assert content_hashes(a) == content_hashes(b)


def content_hashes(con):
    return dict(
        con.execute('SELECT "table", content_hash FROM match_versions WHERE current').fetchall()
    )


def test_a_matchs_content_hash_follows_its_hands_not_their_order_or_path(tmp_path):
    from pipeline.store.db import connect

    with (
        connect(tmp_path / "fresh.duckdb") as fresh,
        connect(tmp_path / "updated.duckdb") as updated,
        connect(tmp_path / "corrected.duckdb") as corrected,
    ):
        ingest(fresh, [write(tmp_path, "all.csv", TABLE1[::-1])])
        ingest(updated, [write(tmp_path, "h3.csv", TABLE1[:3])])
        assert content_hashes(updated)["1"] != content_hashes(fresh)["1"]
        assert ingest(updated, [BASE]).outcomes[0].status == "update"
        # a match never loaded and one loaded as an update store the same hash
        assert content_hashes(updated)["1"] == content_hashes(fresh)["1"]
        ingest(corrected, [BASE])
        ingest(corrected, [write(tmp_path, "fix.csv", corrected_rows())], reason="typo")
        assert content_hashes(corrected)["1"] != content_hashes(fresh)["1"]


def test_a_refused_correction_points_at_the_first_changed_hand(store, con, tmp_path):
    ingest(con, [BASE])
    p = ingest(con, [write(tmp_path, "fix.csv", corrected_rows())])
    prob = p.problems.filter(pl.col("code") == "correction_needs_reason")
    assert prob["line"].to_list() == [5]  # hand 4 sits on line 5 (header on line 1)
