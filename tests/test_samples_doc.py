"""docs/samples.md holds the standings of the bundled sample events (two tables of them
worked out by hand there); this test loads the samples and proves the product agrees."""

import re

import pytest

from pipeline.demo import load_samples
from pipeline.standings import queries
from pipeline.store.db import connect
from tests.conftest import ROOT

DOC = ROOT / "docs" / "samples.md"
SECTIONS = [
    ("unhas", "table"),
    ("unhas", "event"),
    ("pepet", "table"),
    ("pepet", "round"),
    ("pepet", "event"),
    ("pepet", "group"),
]


def render(con, ruleset: str, level: str) -> str:
    event = con.execute("SELECT event FROM events WHERE ruleset = ?", [ruleset]).fetchall()[0][0]
    df = queries.standings(con, event, level)
    cols = queries.CONTRACT[level]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in df.select(cols).iter_rows():
        lines.append(
            "| "
            + " | ".join(
                "" if v is None else str(v).lower() if isinstance(v, bool) else str(v) for v in row
            )
            + " |"
        )
    return "\n".join(lines)


def doc_table(ruleset: str, level: str) -> str:
    text = DOC.read_text()
    m = re.search(rf"<!-- {ruleset}-{level} -->\n(.*?)\n<!-- end -->", text, re.S)
    assert m, f"docs/samples.md has no {ruleset}-{level} table"
    return m.group(1).strip()


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    db = tmp_path_factory.mktemp("samples") / "samples.duckdb"
    load_samples(db, ROOT / "data" / "samples")
    return db


@pytest.mark.parametrize(("ruleset", "level"), SECTIONS)
def test_the_docs_table_is_what_the_product_computes(samples, ruleset, level):
    with connect(samples, read_only=True) as con:
        assert render(con, ruleset, level) == doc_table(ruleset, level)


if __name__ == "__main__":  # print the tables for docs/samples.md
    import sys
    import tempfile
    from pathlib import Path

    db = Path(tempfile.mkdtemp()) / "s.duckdb"
    load_samples(db, ROOT / "data" / "samples")
    with connect(db, read_only=True) as con:
        for rs, level in SECTIONS:
            sys.stdout.write(f"<!-- {rs}-{level} -->\n{render(con, rs, level)}\n<!-- end -->\n\n")
