"""A small batch (a live upload) is scored with DuckDB's optimizer off; a big one with it.

The optimizer only chooses how to run the models' SELECTs, so both ways must give the
same rows, value for value. Checked on a whole simulated event per ruleset (tie-breaks,
sanctions, walkovers and every ending the simulator plays) and on a pooled corpus.
"""

from pathlib import Path

import polars as pl
import pytest

import simulator
from pipeline import rulesets
from pipeline.ingest import ingest
from pipeline.scoring import models
from pipeline.store.db import connect


def _stored_hands(tmp_path: Path, frame: pl.DataFrame) -> pl.DataFrame:
    f = tmp_path / "log.csv"
    frame.write_csv(f)
    with connect(tmp_path / "t.duckdb") as con:
        p = ingest(con, [f], by="test")
        assert p.count("rejected") == 0, p.problems.to_dicts()
        return con.sql("SELECT * FROM hands").pl()


def _both_ways(
    monkeypatch: pytest.MonkeyPatch, hands: pl.DataFrame, ruleset: str
) -> list[tuple[pl.DataFrame, pl.DataFrame]]:
    out = []
    for threshold in (10**9, 0):  # every batch small, then every batch big
        monkeypatch.setattr(models, "SMALL_BATCH", threshold)
        hp, ts = models.score(hands, ruleset)
        out.append(
            (
                hp.sort("event", "round", "table", "hand", "chair"),
                ts.sort("event", "round", "table", "player_key"),
            )
        )
    return out


@pytest.mark.parametrize("ruleset", rulesets.names())
@pytest.mark.parametrize("hands", [None, 1200], ids=["event", "corpus"])
def test_optimizer_off_and_on_score_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ruleset: str, hands: int | None
) -> None:
    stored = _stored_hands(tmp_path, simulator.generate_frame(ruleset, 7, hands))
    (hp_small, ts_small), (hp_big, ts_big) = _both_ways(monkeypatch, stored, ruleset)
    assert hp_small.height > 0
    assert ts_small.height > 0
    assert hp_small.equals(hp_big)
    assert ts_small.equals(ts_big)
