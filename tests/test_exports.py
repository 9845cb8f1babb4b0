"""Downloads: formula cells neutralised, numbers kept numeric; blank hand-log templates."""

import csv
import io

import openpyxl
import polars as pl
import pytest

from pipeline.ingest.columns import CANONICAL
from pipeline.ingest.read import read_bytes
from pipeline.standings import exports
from pipeline.store.db import connect
from tests.browser.support import UNHAS, build_samples

HOSTILE = [
    '=HYPERLINK("http://x","y")',
    "+1+1",
    "-2+3",
    "@SUM(A1)",
    "\tTab",
    "\rCR",
    "=cmd|' /C calc'!A0",
]


@pytest.fixture
def frame() -> pl.DataFrame:
    names = ["Andi", *HOSTILE, "Budi - Makassar", "", None]
    return pl.DataFrame(
        {
            "player": names,
            "points": list(range(-3, -3 + len(names))),
            "share": [0.5] * len(names),
            "qualified": [True, False] * (len(names) // 2) + [True] * (len(names) % 2),
        }
    )


@pytest.mark.parametrize("value", HOSTILE)
def test_text_that_starts_a_formula_is_prefixed(value):
    assert exports.neutralise_text(value) == "'" + value


@pytest.mark.parametrize("value", ["Andi", "Budi - Makassar", "3-3", "", None, "'quoted"])
def test_other_text_is_unchanged(value):
    assert exports.neutralise_text(value) == value


def test_neutralise_touches_text_columns_only(frame):
    out = exports.neutralise(frame)
    assert out.get_column("points").to_list() == frame.get_column("points").to_list()
    assert out.schema == frame.schema
    expected = [exports.neutralise_text(v) for v in frame.get_column("player").to_list()]
    assert out.get_column("player").to_list() == expected


def test_csv_keeps_numbers_numeric_and_neutralises_text(frame):
    blob = exports.to_csv(frame)
    assert blob.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(blob.decode("utf-8-sig"), newline="")))
    assert [r["points"] for r in rows] == [str(v) for v in frame.get_column("points").to_list()]
    assert rows[0]["points"] == "-3", "a negative number stays a plain number, unprefixed"
    for r in rows:
        assert not r["player"].startswith(("=", "+", "-", "@", "\t", "\r"))
    back = pl.read_csv(io.BytesIO(blob))
    assert back.get_column("points").dtype.is_integer()


def test_xlsx_keeps_numbers_numeric_and_never_writes_formulas(frame):
    wb = openpyxl.load_workbook(io.BytesIO(exports.to_xlsx(frame, sheet="standings")))
    ws = wb["standings"]
    header = [c.value for c in ws[1]]
    assert header == frame.columns
    for i, row in enumerate(ws.iter_rows(min_row=2, values_only=False)):
        cells = dict(zip(header, row, strict=True))
        assert cells["points"].data_type == "n" and cells["points"].value == frame["points"][i]
        assert cells["qualified"].data_type == "b"
        player = frame["player"][i]
        if player:
            assert cells["player"].data_type == "s", "text, never a formula"
            # a text cell in a text format: as written, no visible ' in front
            # (xlsx stores a CR as the escape _x000D_; Excel reads it back as CR)
            assert cells["player"].value.replace("_x000D_", "\r") == player
            assert cells["player"].number_format == "@"
    assert not any(c.data_type == "f" for row in ws.iter_rows() for c in row)


def test_sheet_names_are_made_valid():
    wb = openpyxl.load_workbook(
        io.BytesIO(exports.to_xlsx(pl.DataFrame({"a": [1]}), sheet="unhas/2024:R1*[x]?" * 3))
    )
    assert len(wb.sheetnames[0]) <= 31 and not set("[]:*?/\\") & set(wb.sheetnames[0])


def test_real_standings_round_trip(tmp_path):
    from pipeline.standings import queries

    db = tmp_path / "d.duckdb"
    build_samples(db, only="unhas")
    with connect(db, read_only=True) as con:
        ts = queries.standings(con, UNHAS, "table")
    back = pl.read_csv(
        io.BytesIO(exports.to_csv(ts)), schema_overrides={"table": pl.String, "round": pl.String}
    )
    assert back.columns == ts.columns
    assert back.get_column("points").to_list() == ts.get_column("points").to_list()
    assert min(ts.get_column("points")) < 0, "the samples hold negative totals"


# --- templates -----------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["unhas", "pepet"])
def test_csv_template_is_the_handlog_header(ruleset):
    text = exports.template_csv(ruleset).decode("utf-8-sig")
    header = text.strip().split(",")
    # pepet has no sanctions, and whom a reserve in each chair replaces (rule 23) before the note
    reserves = (
        ["replaces_a", "replaces_b", "replaces_c", "replaces_d"] if ruleset == "pepet" else []
    )
    kept = [c for c in CANONICAL if ruleset == "unhas" or not c.startswith("sanctions_")]
    assert header == [*kept[:-1], *reserves, "note"]
    assert {
        "event",
        "round",
        "table",
        "hand",
        "player_a",
        "ended_by",
        "ending",
        "last_tile",
        "pips_d",
    } <= set(header)
    assert any(c.startswith("sanctions_") for c in header) == (ruleset == "unhas")


@pytest.mark.parametrize("ruleset", ["unhas", "pepet"])
def test_xlsx_template_formats_tile_columns_as_text(ruleset):
    wb = openpyxl.load_workbook(io.BytesIO(exports.template_xlsx(ruleset)))
    ws = wb["hands"]
    header = [c.value for c in ws[1]]
    assert header == exports.template_columns(ruleset)
    for name in exports.TILE_COLUMNS:
        j = header.index(name) + 1
        assert ws.cell(row=5, column=j).number_format == "@", name
        dims = [d for d in ws.column_dimensions.values() if d.min <= j <= d.max]
        assert dims and dims[0].number_format == "@", name
    assert ws.cell(row=5, column=header.index("pips_a") + 1).number_format != "@"
    assert any(
        ruleset in str(dv.formula1) or "apollo" in str(dv.formula1) or "out" in str(dv.formula1)
        for dv in ws.data_validations.dataValidation
    )
    assert "help" in wb.sheetnames


def test_a_filled_xlsx_template_reads_back_its_tiles():
    wb = openpyxl.load_workbook(io.BytesIO(exports.template_xlsx("unhas")))
    ws = wb["hands"]
    header = [c.value for c in ws[1]]
    row = {
        "event": "t-1",
        "ruleset": "unhas",
        "round": "R1",
        "table": "1",
        "hand": 1,
        "player_a": "Andi",
        "player_b": "Budi",
        "player_c": "Citra",
        "player_d": "Dedi",
        "ended_by": "B",
        "ending": "biasa",
        "last_tile": "5-3",
    }
    for k, v in row.items():
        cell = ws.cell(row=2, column=header.index(k) + 1, value=v)
        if k == "last_tile":
            assert cell.number_format == "@"
    buf = io.BytesIO()
    wb.save(buf)
    sheet = read_bytes(buf.getvalue(), "filled.xlsx")
    assert sheet.frame.get_column("last_tile").to_list() == ["5-3"]
    assert sheet.frame.get_column("player_b").to_list() == ["Budi"]


def test_unknown_ruleset_template_is_refused():
    with pytest.raises(ValueError):
        exports.template_csv("poker")
