"""A bulk batch's hand points stay on the load's connection and are written from there.

``pipeline.scoring.models.score_kept`` scores a batch of ``KEPT_BATCH`` rows or more on
the DuckDB connection that commits it, and the commit copies the hand points of the
matches it writes inside the database; a smaller batch (and every preview) is scored
apart and written from a frame. Both ways must store the same rows, value for value:
checked here by loading the same files both ways, first as new matches (with a match
refused for a tie-break hand between untied players) and then again with a correction,
an unchanged match and a match added, both rulesets in one batch; and by confirming a
dashboard upload's preview, which shows scores computed apart and stores the kept ones.
"""

from pathlib import Path

import duckdb
import polars as pl
import pytest

import simulator
from pipeline.ingest import load, writer
from pipeline.scoring import models
from pipeline.store.db import connect

MATCH = ["event", "round", "table"]

#: What a load stores, each table in an order that does not depend on how it was written.
STORED = {
    "hands": 'SELECT * EXCLUDE (file) FROM hands ORDER BY event, round, "table", version, hand',
    "hand_points_t": "SELECT * FROM hand_points_t "
    'ORDER BY event, round, "table", version, hand, chair',
    "table_standings_t": "SELECT * FROM table_standings_t "
    'ORDER BY event, round, "table", version, player_key',
    "match_versions": 'SELECT event, round, "table", version, kind, hands, changed_hands, '
    'current, content_hash FROM match_versions ORDER BY event, round, "table", version',
    "ratings_t": "SELECT * FROM ratings_t ORDER BY ALL",
}


def _first_load() -> pl.DataFrame:
    """A simulated event per ruleset, and an eleventh hand seating all four players of a
    ten-hand unhas match whose players were not all tied: that match is refused."""
    unhas = simulator.generate_frame("unhas", 11)
    pepet = simulator.generate_frame("pepet", 11)
    sizes = unhas.group_by(MATCH).agg(pl.col("hand").max().alias("n"))
    ten = sizes.filter(pl.col("n") == 10).sort(MATCH).row(0, named=True)
    last = unhas.filter(
        (pl.col("event") == ten["event"])
        & (pl.col("round") == ten["round"])
        & (pl.col("table") == ten["table"])
        & (pl.col("hand") == 10)
    ).with_columns(pl.lit(11).alias("hand"))
    return pl.concat([unhas, last, pepet], how="diagonal_relaxed")


def _second_load(first: pl.DataFrame) -> pl.DataFrame:
    """The same rows with one hand of a pepet match changed (a correction), that match copied
    into a new event (a new match), the rest unchanged."""
    key = first.filter(pl.col("ruleset") == "pepet").select(MATCH).row(0, named=True)
    one = (
        (pl.col("event") == key["event"])
        & (pl.col("round") == key["round"])
        & (pl.col("table") == key["table"])
    )
    changed = first.with_columns(
        pl.when(one & (pl.col("hand") == 2))
        .then(pl.col("note").fill_null("") + " dikoreksi")
        .otherwise(pl.col("note"))
        .alias("note")
    )
    added = first.filter(one).with_columns(pl.col("event") + "-b")
    return pl.concat([changed, added], how="diagonal_relaxed")


def _spy_on_score_kept(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The rulesets of the batches that kept their hand points, in order."""
    calls: list[str] = []

    def spy(con: duckdb.DuckDBPyConnection, hands: pl.DataFrame, rs: str, name: str):
        calls.append(rs)
        return models.score_kept(con, hands, rs, name)

    monkeypatch.setattr("pipeline.ingest.planner.score_kept", spy)
    return calls


def _load_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: int
) -> tuple[dict[str, pl.DataFrame], list[str]]:
    monkeypatch.setattr("pipeline.ingest.planner.KEPT_BATCH", kept)
    calls = _spy_on_score_kept(monkeypatch)
    first = _first_load()
    one = tmp_path / f"first-{kept}.csv"
    two = tmp_path / f"second-{kept}.csv"
    first.write_csv(one)
    _second_load(first).write_csv(two)
    with connect(tmp_path / f"k{kept}.duckdb") as con:
        a = load(con, [one], by="test")
        assert a.count("rejected") == 1, a.errors.to_dicts()
        assert a.errors.get_column("code").to_list() == ["tiebreak_not_tied"]
        b = load(con, [two], by="test", reason="the referee's sheet")
        statuses = sorted({o.status for o in b.outcomes})
        assert statuses == ["correction", "new", "rejected", "unchanged"], statuses
        temporary = con.sql("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()
        stored = {name: con.sql(q).pl() for name, q in STORED.items()}
    # every batch kept its hand points (both rulesets, both loads), or none did
    assert sorted(calls) == (["pepet", "pepet", "unhas", "unhas"] if kept == 0 else [])
    return stored, [name for (name,) in temporary]


def test_kept_and_framed_hand_points_store_alike(tmp_path, monkeypatch):
    framed, left_framed = _load_both_ways(tmp_path, monkeypatch, 10**9)
    kept, left_kept = _load_both_ways(tmp_path, monkeypatch, 0)
    assert left_framed == left_kept == []
    for name, rows in framed.items():
        assert rows.height > 0, name
        assert rows.equals(kept[name]), name
    tiebreaks = framed["hand_points_t"].filter(pl.col("tiebreak")).height
    assert tiebreaks > 0  # the kept rows were read back for the tie-break check


def test_a_failed_commit_drops_the_kept_points(tmp_path, monkeypatch):
    monkeypatch.setattr("pipeline.ingest.planner.KEPT_BATCH", 0)
    f = tmp_path / "log.csv"
    simulator.generate_frame("unhas", 3).write_csv(f)

    def fail(point: str) -> None:
        if point == "load-writing":
            raise RuntimeError("the disk is full")

    monkeypatch.setattr(writer.failpoints, "reach", fail)
    with connect(tmp_path / "t.duckdb") as con:
        with pytest.raises(RuntimeError, match="the disk is full"):
            load(con, [f], by="test")
        assert con.sql("SELECT count(*) FROM hand_points_t").fetchall() == [(0,)]
        left = con.sql("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()
        assert left == []


def test_a_confirmed_preview_keeps_its_scores_and_stores_what_it_showed(tmp_path, monkeypatch):
    """The dashboard's upload: previewed (scored apart, shown), then confirmed, which plans
    again on the write connection, keeping a big batch's hand points there."""
    from pipeline.ingest.service import preview

    monkeypatch.setattr("pipeline.ingest.planner.KEPT_BATCH", 0)
    calls = _spy_on_score_kept(monkeypatch)
    f = tmp_path / "log.csv"
    simulator.generate_frame("pepet", 3).write_csv(f)
    upload = [(f.name, f.read_bytes())]
    with connect(tmp_path / "t.duckdb") as con:
        pv = preview(con, upload)
        assert pv.plan.kept_points == []  # a preview keeps nothing
        shown = pv.plan.hand_points.sort("event", "round", "table", "hand", "chair")
        assert shown.height > 0
        assert calls == []
        done = load(con, upload, by="test", expected=pv.signature)
        assert calls == ["pepet"]
        assert done.count("new") == len(pv.plan.outcomes)
        stored = con.sql(STORED["hand_points_t"]).pl()
        assert stored.equals(shown.select(stored.columns))
        left = con.sql("SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()
        assert left == []


def test_on_either_store_a_bulk_load_stores_every_point(con, store, tmp_path, monkeypatch):
    """With every batch big enough to keep its points: a DuckDB file keeps them on its
    connection, PostgreSQL (whose scores go by COPY) scores apart as before; both store
    the same points."""
    monkeypatch.setattr("pipeline.ingest.planner.KEPT_BATCH", 0)
    calls = _spy_on_score_kept(monkeypatch)
    f = tmp_path / "log.csv"
    frame = simulator.generate_frame("unhas", 5)
    frame.write_csv(f)
    done = load(con, [f], by="test")
    assert done.count("rejected") == 0
    assert calls == ([] if store.startswith("postgres") else ["unhas"])
    stored = con.execute("SELECT count(*), sum(points) FROM hand_points_t").fetchall()[0]
    framed, _ = models.score(con.sql("SELECT * FROM hands").pl(), "unhas")
    assert (stored[0], int(stored[1])) == (framed.height, framed.get_column("points").sum())
