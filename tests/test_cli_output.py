"""What the command line prints, as a referee at a terminal (or a spreadsheet) reads it.

Issue "Venue-ready", items 8 and 15: formula-safe CSV, text in brackets kept (not read as
markup), a file refused whole counted once in the summary, an unknown round said as such,
tables readable at 80 columns, no trailing spaces.
"""

import os
import re
import subprocess
import sys

from tests.rules_helpers import SEATS, biasa_match, write_log


def domino(*args: str, columns: int = 80) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "COLUMNS": str(columns),
        "TERM": "dumb",
    }  # DOMINO_DB from the db_path fixture
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def load(tmp_path, seats=SEATS, name="hands.csv", **where):
    log = write_log(tmp_path, biasa_match([seats[0]] * 10, start=seats, **where), name)
    done = domino("ingest", log)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_csv_output_is_formula_safe_and_json_is_exact(db_path, tmp_path):
    seats = ('=HYPERLINK("http://x","y")', "@SUM(1)", "+cmd|calc", "Dedi")
    load(tmp_path, seats)
    text = domino("standings", "--event", "ev", "--format", "csv").stdout
    assert "'=HYPERLINK" in text and "'@SUM(1)" in text and "'+cmd|calc" in text
    assert ",=HYPERLINK" not in text and "\n=" not in text
    js = domino("standings", "--event", "ev", "--format", "json").stdout
    assert '"=HYPERLINK' in js  # JSON is data for programs: exactly as stored


def test_brackets_are_text_not_markup(db_path, tmp_path):
    seats = ("Budi [cadangan]", "Ana", "Cici", "[bold red]Dedi")
    done = load(tmp_path, seats, name="[bold red]x.csv")
    assert "[bold red]x.csv" in done.stdout
    table = domino("standings", "--event", "ev", columns=160).stdout
    assert "Budi [cadangan]" in table and "[bold red]Dedi" in table


def test_a_refused_file_is_counted_once(db_path, tmp_path):
    empty = tmp_path / "kosong.csv"
    empty.write_text("")
    done = domino("ingest", empty)
    assert done.returncode == 1
    assert done.stdout.count("the file is empty") == 1
    assert "1 file(s) refused whole" in done.stdout


def test_an_unknown_round_or_table_is_said_and_exits_1(db_path, tmp_path):
    load(tmp_path)
    done = domino("standings", "--event", "ev", "--level", "table", "--round", "R9")
    assert done.returncode == 1
    assert "event ev has no round 'R9'; its rounds are R1" in done.stderr
    done = domino("standings", "--event", "ev", "--level", "table", "--round", "R1", "--table", "7")
    assert done.returncode == 1
    assert "round R1 of event ev has no table '7'; its tables are 1" in done.stderr


def test_tables_fit_80_columns_without_cut_headers_or_trailing_spaces(db_path, tmp_path):
    load(tmp_path, ("Andi Wijaya Kusuma", "Budi Santoso Pratama", "Cici Lestari", "Dedi Hermawan"))
    for args in (
        ("standings", "--event", "ev", "--level", "table"),
        ("history", "--event", "ev"),
        ("log",),
    ):
        text = domino(*args).stdout
        lines = text.splitlines()
        assert lines, args
        assert all(len(line) <= 80 for line in lines), (args, max(map(len, lines)))
        assert "…" not in text, (args, text)
        assert all(line == line.rstrip() for line in lines), args
    history = domino("history", "--event", "ev").stdout
    assert re.search(r"\d{2}:\d{2}:\d{2}", history) and not re.search(
        r"\d{2}:\d{2}:\d{2}\.\d", history
    )


def test_a_lone_dash_and_plain_numbers_are_not_formulas(db_path, tmp_path):
    """The contract's category ``-`` and negative numbers stay as they are in CSV."""
    load(tmp_path)
    text = domino("hands", "--event", "ev", "--format", "csv").stdout
    assert ",-," in text and ",'-," not in text


def test_no_terminal_width_cuts_a_cell_or_a_header(capsys):
    """A table is printed whole when rich can draw it whole at the terminal's width, else
    one row at a time: never with a cell or a header cut (``…``). The width check once
    left out the spaces between columns, so a table a few characters too wide was cut."""
    import polars as pl

    from pipeline.cli.common import out
    from pipeline.cli.output import emit

    df = pl.DataFrame(
        {
            "event": ["piala-2026", "liga-2026"],
            "event_date": ["2026-03-14", "2026-05-02"],
            "venue": ["Fakultas Kedokteran Universitas Hasanuddin", "Gedung Serbaguna"],
            "rounds_played": [3, 3],
            "matches": [7, 9],
        }
    )
    console = out.real()
    kept = console.size
    try:
        for width in range(40, 130):
            console.size = (width, 25)
            emit(df, "table")
            text = capsys.readouterr().out
            assert "…" not in text, (width, text)
            assert all(len(line) <= width for line in text.splitlines()), (width, text)
    finally:
        console.size = kept
