"""``domino standings`` reads plain rows without polars; they equal the dashboard's frames.

The command line prints :func:`queries.standings_rows`, the dashboard shows
:func:`queries.standings`: same SQL, and the natural order of round and table labels
(``R2`` before ``R10`` before ``Final``, table ``2`` before ``10``) done once in polars
and once in Python. This proves the two agree, row for row, at every level.
"""

import re

import polars as pl
import pytest
from click.testing import CliRunner

import simulator
from pipeline.cli import cli
from pipeline.ingest import service
from pipeline.standings import queries
from pipeline.store.db import connect
from tests.rules_helpers import modified

ROUNDS = {"R1": "R2", "R2": "R10", "R3": "Final"}  # the same order, not the same as text
TABLES = {"1": "2", "2": "10", "3": "B1", "4": "3"}


@pytest.fixture
def loaded(db_path, tmp_path):
    frame = simulator.generate_frame("unhas", 3, None, event="ev").with_columns(
        pl.col("round").replace_strict(ROUNDS),
        pl.col("table").replace_strict(TABLES),
    )
    pepet = simulator.generate_frame("pepet", 3, None, event="pv")
    paths = []
    for name, f in (("u.csv", frame), ("p.csv", pepet)):
        f.write_csv(tmp_path / name)
        paths.append(tmp_path / name)
    with connect(db_path) as con:
        p = service.load(con, paths, by="test")
    assert p.count("rejected") == 0, p.problems
    return db_path


def test_rows_equal_the_frames_at_every_level(loaded):
    with connect(loaded, read_only=True) as con:
        cases = [
            ("ev", "table", None, None),
            ("ev", "table", "R10", None),
            ("ev", "table", "R2", "10"),
            ("ev", "event", None, None),
            ("pv", "table", None, None),
            ("pv", "round", None, None),
            ("pv", "event", None, None),
            ("pv", "group", None, None),
        ]
        for event, level, round_, table in cases:
            df = queries.standings(con, event, level, round_, table)
            rows = queries.standings_rows(con, event, level, round_, table)
            assert df.height > 0 or level == "group", (event, level)  # no groups simulated
            assert rows.columns == df.columns, (event, level)
            assert rows.rows == df.rows(), (event, level, round_, table)
            if df.height:
                assert rows.numeric == [df[c].dtype.is_numeric() for c in df.columns]
        # the order is the natural one, not the text one
        order = queries.standings_rows(con, "ev", "table").rows
        assert list(dict.fromkeys(r[1] for r in order)) == ["R2", "R10", "Final"]
        first_round = [r[2] for r in order if r[1] == "R2"]
        assert list(dict.fromkeys(first_round)) == ["2", "3", "10", "B1"]


def test_rows_name_what_exists_when_a_round_is_unknown(loaded):
    with connect(loaded, read_only=True) as con:
        with pytest.raises(queries.NotFound, match="R2, R10, Final"):
            queries.standings_rows(con, "ev", "table", "R9")


def test_command_prints_the_rows_and_only_its_own_stale_note(loaded, ruleset_override):
    runner = CliRunner()
    r = runner.invoke(cli, ["standings", "--event", "ev", "--level", "table"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0] == "ev — table standings"
    # R2, R10, Final in that order (as a table, or row by row on a narrow terminal)
    at = [re.search(rf"\b{label}\b", r.output) for label in ("R2", "R10", "Final")]
    assert all(at) and at[0].start() < at[1].start() < at[2].start(), r.output
    # the pepet event goes stale: its own command says so, the unhas one does not
    ruleset_override("pepet", modified("pepet", **{"points.kado": 0}))
    quiet = runner.invoke(cli, ["standings", "--event", "ev"])
    assert quiet.exit_code == 0 and "ruleset file changed" not in quiet.output
    noted = runner.invoke(cli, ["standings", "--event", "pv"])
    assert noted.exit_code == 0
    assert "the ruleset file changed since pv was scored; run `domino rescore`" in noted.output


def test_big_frames_sort_in_polars_as_small_ones_sort_in_python(loaded, monkeypatch):
    """Above ``SMALL`` rows the natural order is built as polars columns: the same order."""
    with connect(loaded, read_only=True) as con:
        small = {level: queries.standings(con, "ev", level) for level in ("table", "event")} | {
            "hands": queries.hand_points(con, "ev"),
            "history": queries.history(con, "ev"),
        }
        monkeypatch.setattr(queries, "SMALL", 0)
        big = {level: queries.standings(con, "ev", level) for level in ("table", "event")} | {
            "hands": queries.hand_points(con, "ev"),
            "history": queries.history(con, "ev"),
        }
    for name, df in small.items():
        assert df.height > 0, name
        assert big[name].rows() == df.rows(), name
    rounds_in_order = list(dict.fromkeys(big["hands"].get_column("round").to_list()))
    assert rounds_in_order == ["R2", "R10", "Final"]
