"""One real file per input error of HANDLOG.md ("What is rejected, and how").

Each file is a valid two- or three-table log with one thing broken (see
tests/data/errors/make_errors.py). Every test proves: the problem is reported with file,
line and column; the whole broken match stayed out; the file's other matches loaded.
"""

import json

import polars as pl
import pytest

from pipeline.ingest import ingest
from pipeline.ingest.columns import canonical_name
from pipeline.problems import describe
from tests.conftest import DATA

ERRORS = DATA / "errors"
CASES = json.loads((ERRORS / "expected.json").read_text())


def spelled(name: str) -> dict[str, str]:
    """contract column → its header as the fixture spells it (some are Indonesian)"""
    header = (ERRORS / name).read_text().splitlines()[0]
    return {canonical_name(h): h.strip() for h in header.split(",")}


def loaded_tables(con) -> set[str]:
    return {r[0] for r in con.execute('SELECT DISTINCT "table" FROM hands').fetchall()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_keeps_its_match_out_and_says_where(con, name):
    want = CASES[name]
    p = ingest(con, [ERRORS / name])
    hits = p.problems.filter(
        (pl.col("code") == want["code"])
        & (pl.col("file") == name)
        & (pl.col("line") == want["line"])
        & (pl.col("column") == want["column"])
    )
    assert hits.height >= 1, (
        f"no {want['code']} at {name}:{want['line']} {want['column']}; got {p.problems.to_dicts()}"
    )
    assert hits["severity"][0] == want["severity"]
    # the sentence a referee reads names the file, line and column (as the file spells
    # the header, with the contract's name beside it)
    text = describe(hits.to_dicts()[0])
    as_spelled = spelled(name).get(want["column"], want["column"])
    column = want["column"] if as_spelled == want["column"] else f"{as_spelled} ({want['column']})"
    assert text.startswith(f"{name}:{want['line']} {column}: ")
    assert len(hits["message"][0]) > 15
    # whole matches: the broken one is absent, the others are complete
    assert loaded_tables(con) == set(want["loaded"])
    for table in want["loaded"]:
        rows_in_file = p.hands.filter(pl.col("table") == table).height
        in_db = con.execute('SELECT count(*) FROM hands WHERE "table" = ?', [table]).fetchall()[0][
            0
        ]
        assert in_db == rows_in_file > 0
    for table in want["rejected"]:
        assert (
            con.execute('SELECT count(*) FROM hand_points_t WHERE "table" = ?', [table]).fetchall()[
                0
            ][0]
            == 0
        )
        assert any(o.table == table and o.status == "rejected" for o in p.outcomes)
    assert p.exit_code == (1 if want["rejected"] else 0)


def test_every_error_of_a_file_is_reported_at_once(con, tmp_path):
    """Two different problems in two matches of one file: both reported in one run."""
    src = (ERRORS / "unknown_ending.csv").read_text().splitlines()
    bad = src[12].split(",")
    bad[9] = "D"  # table 2, hand 2: ended_by an empty chair
    src[12] = ",".join(bad)
    f = tmp_path / "two_problems.csv"
    f.write_text("\n".join(src) + "\n")
    p = ingest(con, [f])
    assert set(p.problems["code"].to_list()) >= {"unknown_ending", "empty_chair"}
    assert loaded_tables(con) == set()


def test_player_at_another_table_already_loaded(con, tmp_path):
    """A match already loaded stays; the new one with the clashing player is refused."""
    ingest(con, [ERRORS / "base_unhas.csv"])
    lines = (ERRORS / "base_unhas.csv").read_text().splitlines()
    new = [lines[0]] + [
        line.replace(",R1,2,", ",R1,3,")
        .replace("Yusuf Lubis", "Bayu Rahman")
        .replace("Haris Rauf", "Haris Baru")
        .replace("Umar Ramli", "Umar Baru")
        for line in lines[11:21]
    ]
    f = tmp_path / "table3.csv"
    f.write_text("\n".join(new) + "\n")
    p = ingest(con, [f])
    clash = p.problems.filter(pl.col("code") == "player_two_tables")
    assert clash.height == 1 and "already plays at table 1" in clash["message"][0]
    assert loaded_tables(con) == {"1", "2"}
    assert p.exit_code == 1


def test_an_events_ruleset_cannot_change(con, tmp_path):
    ingest(con, [ERRORS / "base_unhas.csv"])
    lines = (ERRORS / "base_unhas.csv").read_text().splitlines()
    new = [lines[0]] + [line.replace(",unhas,R1,", ",pepet,R2,") for line in lines[1:11]]
    f = tmp_path / "r2.csv"
    f.write_text("\n".join(new) + "\n")
    p = ingest(con, [f])
    codes = p.problems.filter(pl.col("severity") == "error")["code"].unique().to_list()
    assert "ruleset_changed" in codes
    assert p.problems.filter(pl.col("code") == "ruleset_changed")["line"].min() == 2
    assert con.execute("SELECT count(*) FROM hands WHERE round = 'R2'").fetchall()[0][0] == 0
    assert con.execute("SELECT ruleset FROM events").fetchall() == [("unhas",)]


def test_event_and_ruleset_from_the_command_line(con, tmp_path):
    lines = (ERRORS / "base_unhas.csv").read_text().splitlines()
    header = lines[0].split(",")
    keep = [i for i, h in enumerate(header) if h not in ("acara", "aturan")]
    f = tmp_path / "bare.csv"
    f.write_text("\n".join(",".join(line.split(",")[i] for i in keep) for line in lines) + "\n")
    p = ingest(con, [f])
    assert {"missing_value"} <= set(p.problems["code"].to_list())
    p = ingest(con, [f], event="cli-event", ruleset="unhas")
    assert p.exit_code == 0
    assert con.execute("SELECT event, ruleset FROM events").fetchall() == [("cli-event", "unhas")]
