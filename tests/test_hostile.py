"""A hostile or wrong file costs bounded work and ends in one sentence (issue "Venue-ready",
item 10): a 20 MB CSV of junk rows used to take minutes and gigabytes and die."""

import random
import string

import polars as pl
from click.testing import CliRunner

from pipeline.cli import cli
from pipeline.ingest import ingest
from pipeline.ingest.columns import CANONICAL
from pipeline.ingest.planner import JUNK_ROWS
from tests.rules_helpers import biasa_match, write_log


def junk_csv(path, rows: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    with path.open("w") as f:
        f.write(",".join(CANONICAL) + "\n")
        for _ in range(rows):
            f.write(
                ",".join(
                    "".join(rng.choices(string.ascii_letters, k=rng.randint(1, 6)))
                    for _ in CANONICAL
                )
                + "\n"
            )


def test_a_file_of_junk_rows_is_refused_whole_in_one_sentence(db_path, tmp_path, capfd):
    junk = tmp_path / "junk.csv"
    junk_csv(junk, JUNK_ROWS + 10)
    capfd.readouterr()
    done = CliRunner().invoke(cli, ["ingest", str(junk)], catch_exceptions=False)
    # nothing else on the terminal: not a library's own warning (polars prints its
    # deprecations from its engine, past Python's warning filters)
    assert capfd.readouterr().err == ""
    assert done.exit_code == 1
    assert (
        f"{JUNK_ROWS + 10:,} of its {JUNK_ROWS + 10:,} rows hold cells that cannot be read"
        in done.output
    )
    assert "this does not look like a hand log" in done.output
    assert "1 file(s) refused whole" in done.output
    # one sentence for the file, not one per cell of every row
    assert done.output.count("\n") < 10


def test_a_junk_file_does_not_keep_a_good_file_out(con, tmp_path):
    junk = tmp_path / "junk.csv"
    junk_csv(junk, JUNK_ROWS + 10)
    good = write_log(tmp_path, biasa_match(["Ana"] * 10), "good.csv")
    plan = ingest(con, [junk, good])
    assert [(o.file, o.status) for o in plan.outcomes] == [("good.csv", "new")]
    refused = plan.problems.filter(pl.col("code") == "too_many_problems")
    assert refused.get_column("file").to_list() == ["junk.csv"]
    assert plan.problems.filter(pl.col("file") == "junk.csv").height == 1


def test_a_file_with_some_bad_rows_is_checked_row_by_row(con, tmp_path):
    rows = biasa_match(["Ana"] * 10)
    rows[3] = {**rows[3], "hand": "x"}
    plan = ingest(con, [write_log(tmp_path, rows)])
    assert plan.problems.filter(pl.col("code") == "too_many_problems").height == 0
    assert plan.errors.filter(pl.col("code") == "not_a_number").get_column("line").to_list() == [5]
