"""Hand logs as referees really keep them in a spreadsheet: a sheet per table, merged
cells, hidden rows, formulas, totals rows, Excel's ``sep=;`` line and decimal commas
(files made by tests/data/read/make_workbooks.py)."""

import io
import json
import zipfile

import polars as pl
import pytest
import xlsxwriter
from click.testing import CliRunner

from pipeline import messages
from pipeline.cli import cli
from pipeline.events import read_roster
from pipeline.ingest import ingest
from pipeline.ingest.normalize import normalize
from pipeline.ingest.read import read_bytes, read_bytes_sheets, read_file, read_sheets
from pipeline.players import read_registry
from pipeline.problems import FileRejected
from pipeline.store.db import connect
from tests.conftest import DATA, rezip

READ = DATA / "read"
BASE = DATA / "errors" / "base_unhas.csv"


def load_sheets(con, path):
    """Load every sheet of ``path`` the way the loader will once it reads them all; the
    problems of the whole run, with the notes about skipped sheets."""
    sheets = read_sheets(path)
    files = [{"file": s.file, "sha256": s.sha256, "rows": s.rows, "error": None} for s in sheets]
    p = ingest(con, sheets=sheets, files=files)
    notes = pl.concat([s.notes for s in sheets])
    return p, notes


def statuses(p):
    return {(o.round, o.table): o.status for o in p.outcomes}


# --- a sheet per table ------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_every_table_sheet_of_a_workbook_loads(con, kind):
    sheets = read_sheets(READ / f"meja.{kind}")
    assert [s.file for s in sheets] == [
        f"meja.{kind} [Meja 1]",
        f"meja.{kind} [Meja 2]",
        f"meja.{kind} [Meja 3]",
    ]
    assert [s.sheet for s in sheets] == ["Meja 1", "Meja 2", "Meja 3"]
    assert {s.source for s in sheets} == {f"meja.{kind}"}
    p, _ = load_sheets(con, READ / f"meja.{kind}")
    assert p.exit_code == 0, p.problems.to_dicts()
    assert statuses(p) == {("R1", "1"): "new", ("R1", "2"): "new", ("R2", "1"): "new"}
    rows = con.execute("SELECT file, count(*) FROM hands GROUP BY file ORDER BY file").fetchall()
    assert rows == [
        (f"meja.{kind} [Meja 1]", 10),
        (f"meja.{kind} [Meja 2]", 10),
        (f"meja.{kind} [Meja 3]", 10),
    ]


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_sheets_that_are_not_hand_logs_are_reported_skipped(kind):
    notes = read_sheets(READ / f"meja.{kind}")[0].notes
    assert notes.select("file", "code", "severity", "message").rows() == [
        (
            f"meja.{kind} [Catatan]",
            "sheet_skipped",
            "warning",
            "skipped: its first row is not a hand-log header (no round/table/ending columns)",
        ),
        (f"meja.{kind} [Sheet5]", "sheet_skipped", "warning", "skipped: the sheet is empty"),
    ]


def test_a_one_sheet_reader_refuses_a_workbook_of_several_rather_than_drop_them(con):
    with pytest.raises(FileRejected) as info:
        read_file(READ / "meja.xlsx")
    assert info.value.code == "several_sheets"
    assert "Meja 1, Meja 2, Meja 3" in info.value.message


def test_loading_a_workbook_loads_every_table_sheet_and_reports_the_others(db_path):
    """Issue "Venue-ready" item 1, through the command a referee runs."""
    done = CliRunner().invoke(cli, ["ingest", str(READ / "meja.xlsx")], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    assert "loaded 3 match(es) (3 new" in done.output
    assert "skipped" in done.output
    with connect(db_path, read_only=True) as con:
        files = sorted(r[0] for r in con.execute("SELECT DISTINCT file FROM hands").fetchall())
    assert files == ["meja.xlsx [Meja 1]", "meja.xlsx [Meja 2]", "meja.xlsx [Meja 3]"]


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_a_hidden_hand_log_sheet_is_refused_and_named(con, kind):
    p, notes = load_sheets(con, READ / f"meja_hidden_sheet.{kind}")
    assert statuses(p) == {("R1", "1"): "new"}
    assert notes.select("file", "code", "severity").rows() == [
        (f"meja_hidden_sheet.{kind} [Meja 2 (draf)]", "hidden_sheet", "error")
    ]
    assert "hidden in the workbook" in notes["message"][0]


def test_a_workbook_with_a_hands_sheet_reads_it_alone_and_says_so():
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf)
    lines = [r.split(",") for r in BASE.read_text().splitlines()]
    for title in ("hands", "Meja 9"):
        ws = wb.add_worksheet(title)
        for i, r in enumerate(lines):
            ws.write_row(i, 0, r)
    wb.close()
    (sheet,) = read_bytes_sheets(buf.getvalue(), "hasil.xlsx")
    assert sheet.file == "hasil.xlsx" and sheet.sheet == "hands"
    assert sheet.notes.select("file", "severity").rows() == [("hasil.xlsx [Meja 9]", "warning")]
    assert "only the sheet named 'hands'" in sheet.notes["message"][0]


def test_no_hand_log_sheet_at_all_is_refused_whole():
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf)
    wb.add_worksheet("Catatan").write_row(0, 0, ["wasit", "catatan"])
    wb.add_worksheet("Rekap").write_row(0, 0, ["babak", "meja", "poin"])
    wb.close()
    with pytest.raises(FileRejected) as info:
        read_bytes_sheets(buf.getvalue(), "rekap.xlsx")
    assert info.value.code == "not_a_hand_log"
    assert info.value.file == "rekap.xlsx"


# --- spreadsheet habits -----------------------------------------------------------------


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_merged_event_round_table_cells_carry_down(con, kind):
    s = read_file(READ / f"merged.{kind}")
    assert s.frame["round"].null_count() == 0 and s.frame["table"].null_count() == 0
    assert s.frame.group_by("table").len().sort("table").rows() == [("1", 10), ("2", 10)]
    p = ingest(con, [READ / f"merged.{kind}"])
    assert p.exit_code == 0, p.problems.to_dicts()
    assert statuses(p) == {("R1", "1"): "new", ("R1", "2"): "new"}


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_a_hidden_row_keeps_its_match_out_and_is_named(con, kind):
    p = ingest(con, [READ / f"hidden_row.{kind}"])
    assert statuses(p) == {("R1", "1"): "new", ("R1", "2"): "rejected"}
    errors = p.problems.filter(pl.col("severity") == "error")
    assert errors.select("file", "line", "code").rows() == [
        (f"hidden_row.{kind}", 14, "hidden_row")
    ]
    assert errors["message"][0].startswith("row 14 is hidden in the workbook")
    assert con.execute('SELECT DISTINCT "table" FROM hands').fetchall() == [("1",)]


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_a_formula_saved_without_its_value_keeps_its_match_out(con, kind):
    p = ingest(con, [READ / f"formula.{kind}"])
    assert statuses(p) == {("R1", "1"): "rejected", ("R1", "2"): "new"}
    errors = p.problems.filter(pl.col("severity") == "error")
    assert errors.select("file", "line", "column", "code").rows() == [
        (f"formula.{kind}", 2, "pips_d", "formula_without_value")
    ]
    assert "biji_d (pips_d)" in errors["message"][0] and "=1+1" in errors["message"][0]


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_a_row_of_formulas_saved_without_values_is_not_read_as_blank(con, kind):
    """Before: a hand whose every cell is a formula saved without its value read as a blank
    row and was left out without a word: in the middle, the match was refused for a hand
    gap that named no formula; as the sheet's last row (the workbook reader ends a sheet at
    its last value), table 2 loaded with 9 hands, its 10th lost. Each row is refused for
    its formula, and as it says no match, every match of the file stays out with it."""
    p = ingest(con, [READ / f"formula_rows.{kind}"])
    assert statuses(p) == {("R1", "1"): "rejected", ("R1", "2"): "rejected"}
    errors = p.problems.filter(pl.col("code") == "formula_without_value")
    assert errors.select("file", "line", "column").rows() == [
        (f"formula_rows.{kind}", 6, "event"),
        (f"formula_rows.{kind}", 21, "event"),
    ]
    assert '(="unhas-2024-e1")' in errors["message"][1]
    assert con.execute("SELECT count(*) FROM hands").fetchall() == [(0,)]


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_a_totals_row_keeps_its_match_out_and_names_its_sheet(con, kind):
    p, _ = load_sheets(con, READ / f"totals_row.{kind}")
    assert statuses(p) == {("R1", "1"): "rejected", ("R1", "2"): "new"}
    totals = p.problems.filter(pl.col("code") == "totals_row")
    # the column named is the cell that says it is a total
    assert totals.select("file", "line", "column", "severity").rows() == [
        (f"totals_row.{kind} [Meja 1]", 12, "player_a", "error")
    ]
    assert totals["message"][0].startswith("row 12 looks like a totals row")
    assert "Jumlah" in totals["message"][0]
    # the totals row's blank cells are not reported as hands missing values
    assert (
        p.problems.filter((pl.col("line") == 12) & (pl.col("code") == "missing_value")).height == 0
    )


def test_a_totals_row_labelled_in_the_hand_column_is_one(con, tmp_path):
    """``Jumlah`` in the hand number's cell (the first column a referee sees) was four
    problems, "Jumlah is not a whole number" and a missing event, round and table."""
    lines = (READ / "good.csv").read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    total = ["" for _ in header]
    total[header.index("hand")] = "Jumlah"
    for c in "abc":
        total[header.index(f"pips_{c}")] = "12"
    f = tmp_path / "meja1.csv"
    f.write_text("\n".join([*lines, ",".join(total)]) + "\n", encoding="utf-8")
    p = ingest(con, [f])
    line = len(lines) + 1
    on_line = p.problems.filter((pl.col("line") == line) & (pl.col("severity") == "error"))
    assert on_line.select("column", "code").rows()[0] == ("hand", "totals_row")
    assert not on_line.filter(pl.col("code").is_in(["not_a_number", "missing_value"])).height
    assert p.count("new") == 0  # kept out, as a totals row is


def test_a_totals_row_of_pips_alone_names_its_first_pips_cell(con, tmp_path):
    # found by the fuzz test: pips and no players, no hand, ending or ender — the problem
    # named the file and line but no column
    f = tmp_path / "hands.csv"
    f.write_text(
        "round,ending,hand,ended_by,table,player_a,player_b,player_c,player_d,event,ruleset,"
        "last_tile,pips_a,pips_b,pips_d,tiles_a,tiles_b,pips_c,tiles_c\n"
        ",,,,1,,,,,,,,,,=1+2,,,,\n"
    )
    p = ingest(con, [f])
    assert p.problems.select("file", "line", "column", "code").rows() == [
        ("hands.csv", 2, "pips_d", "totals_row")
    ]
    assert p.count("new") == 0


def test_excel_sep_line_sets_the_delimiter_and_rows_keep_their_numbers(con):
    s = read_file(READ / "sep_line.csv")
    assert s.frame["_line"].to_list() == list(range(3, 13))  # sep= is row 1, the header row 2
    assert s.frame["event"][0] == "unhas-2024-e1"
    p = ingest(con, [READ / "sep_line.csv"])
    assert p.exit_code == 0, p.problems.to_dicts()
    assert statuses(p) == {("R1", "1"): "new"}
    broken = (READ / "sep_line.csv").read_bytes().replace(b";1|4;", b";1|9;", 1)
    t, probs = normalize(read_bytes(broken, "sep.csv").frame)
    assert probs.select("line", "column", "code").rows() == [(3, "last_tile", "bad_tile")]


def test_decimal_comma_whole_numbers_read_as_numbers():
    t, probs = normalize(read_file(READ / "sep_line.csv").frame)
    assert probs.height == 0, probs.to_dicts()
    assert t.sort("hand")["hand"].to_list() == list(range(1, 11))
    assert t.sort("hand")["pips_d"][0] == 2  # 2,0
    frac = read_bytes(
        b"sep=;\nround;table;hand;a;b;c;d;ending;pips_b\nR1;1;1;W;X;Y;Z;biasa;11,5\n", "x.csv"
    )
    _, probs = normalize(frac.frame)
    assert probs.filter(pl.col("code") == "not_a_number").select("line", "column").rows() == [
        (3, "pips_b")
    ]


def test_xlsx_rows_keep_their_sheet_numbers_below_blank_rows():
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf)
    ws = wb.add_worksheet("hands")
    for i, r in enumerate(r.split(",") for r in BASE.read_text().splitlines()[:3]):
        ws.write_row(i + 3, 1, r)  # header on row 4, from column B
    wb.close()
    s = read_bytes(buf.getvalue(), "geser.xlsx")
    assert s.frame["_line"].to_list() == [5, 6]
    # the same sheet saved by LibreOffice as .ods (make_ods.py), whose rows are not numbered
    s = read_file(READ / "geser.ods")
    assert s.frame["_line"].to_list() == [5, 6]
    assert s.frame["event"].to_list() == ["unhas-2024-e1"] * 2


# --- OpenDocument spreadsheets (.ods, what LibreOffice saves by default) ------------------


def _ods_cells(values: list) -> str:
    return "".join(
        f'<table:table-cell office:value-type="float" office:value="{v}"><text:p>{v}</text:p>'
        "</table:table-cell>"
        if isinstance(v, int)
        else f'<table:table-cell office:value-type="string"><text:p>{v}</text:p></table:table-cell>'
        for v in values
    )


def _ods(rows: str, *, mimetype: str = "application/vnd.oasis.opendocument.spreadsheet") -> bytes:
    """An OpenDocument spreadsheet of one sheet ``hands`` whose rows are ``rows`` (XML)."""
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3">'
        f'<office:body><office:spreadsheet><table:table table:name="hands">{rows}</table:table>'
        "</office:spreadsheet></office:body></office:document-content>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
        'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">'
        f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{mimetype}"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("mimetype", mimetype, compress_type=zipfile.ZIP_STORED)
        zf.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
        zf.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()


ODS_HEADER = "event,ruleset,round,table,hand,player_a,player_b,player_c,player_d,ended_by,ending"


def _ods_hand(hand: int, attrs: str = "") -> str:
    row = ["e1", "unhas", "R1", 1, hand, "Andi", "Budi", "Citra", "Dewi", "A", "biasa"]
    return f"<table:table-row{attrs}>{_ods_cells(row)}</table:table-row>"


def test_ods_rows_are_counted_through_repeated_and_grouped_rows(con):
    """An .ods does not number its rows: three empty rows written as one repeated row,
    hands inside a row group, a hidden one among them. Every message names the row the
    spreadsheet shows."""
    rows = (
        f"<table:table-row>{_ods_cells(ODS_HEADER.split(','))}</table:table-row>"
        '<table:table-row table:number-rows-repeated="3">'
        '<table:table-cell table:number-columns-repeated="11"/></table:table-row>'
        + _ods_hand(1)
        + "<table:table-row-group>"
        + _ods_hand(2)
        + _ods_hand(3, ' table:visibility="collapse"')
        + "</table:table-row-group>"
        + _ods_hand(4)
    )
    s = read_bytes(_ods(rows), "hasil.ods")
    assert s.frame.select("_line", "hand").rows() == [(5, "1"), (6, "2"), (7, "3"), (8, "4")]
    p = ingest(con, sheets=[s], files=[{"file": s.file, "sha256": s.sha256, "rows": s.rows}])
    assert p.count("rejected") == 1 and p.count("new") == 0
    errors = p.problems.filter(pl.col("severity") == "error")
    assert errors.select("file", "line", "code").rows() == [("hasil.ods", 7, "hidden_row")]
    assert con.execute("SELECT count(*) FROM hands").fetchone() == (0,)


def test_a_zip_that_is_not_a_spreadsheet_says_what_to_load():
    # an OpenDocument text (a letter written in LibreOffice Writer), not a spreadsheet
    text = _ods("", mimetype="application/vnd.oasis.opendocument.text")
    with pytest.raises(FileRejected) as info:
        read_bytes(text, "surat.ods")
    assert (info.value.code, info.value.file) == ("not_xlsx", "surat.ods")
    assert info.value.message == (
        "this zip file is not a spreadsheet (.xlsx or .ods); load the hand log itself, "
        "saved as .xlsx, .ods or CSV"
    )


def test_an_old_excel_file_says_to_save_it_again():
    # the first bytes of an Excel 97-2003 .xls (an OLE compound file), not a zip
    with pytest.raises(FileRejected) as info:
        read_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504), "hasil.xls")
    assert (info.value.code, info.value.file) == ("not_xlsx", "hasil.xls")
    assert "an old Excel workbook (.xls)" in info.value.message
    assert info.value.message.endswith("save it as .xlsx, .ods or CSV")


def test_a_highly_compressed_ods_is_refused_as_a_zip_bomb():
    padding = " " * (60 << 20)  # 60 MiB of white space between two rows
    rows = f"<table:table-row>{_ods_cells(ODS_HEADER.split(','))}</table:table-row>{padding}"
    with pytest.raises(FileRejected) as info:
        read_bytes(_ods(rows + _ods_hand(1)), "bom.ods")
    assert info.value.code == "xlsx_bomb"
    assert "content.xml" in info.value.message and "zip bomb" in info.value.message


def _repeated(times: int) -> bytes:
    """An .ods of under 1 KB whose one hand row is repeated ``times`` times."""
    rows = f"<table:table-row>{_ods_cells(ODS_HEADER.split(','))}</table:table-row>"
    hand = _ods_hand(1).replace("<table:table-row>", "")
    return _ods(rows + f'<table:table-row table:number-rows-repeated="{times}">{hand}')


def test_an_ods_of_one_row_repeated_a_million_times_is_refused_before_it_is_read(tmp_path):
    """The zip's sizes do not show it: the workbook reader would write out a million rows
    (1.6 GB of memory for a 1 KB upload, measured) before any check of ours saw one."""
    data = _repeated(3_000_000)
    assert len(data) < 1024
    with pytest.raises(FileRejected) as info:
        read_bytes(data, "ulang.ods")
    assert (info.value.code, info.value.message_id) == ("xlsx_bomb", "xlsx_bomb.repeated")
    assert info.value.message.startswith("the spreadsheet's repeated rows stand for more than")
    # a roster or a registry is read the same way
    path = tmp_path / "peserta.ods"
    path.write_bytes(data)
    with pytest.raises(FileRejected) as info:
        read_registry(path)
    assert info.value.message_id == "xlsx_bomb.repeated"


def test_an_ods_whose_repeats_pass_the_row_limit_is_refused(monkeypatch):
    monkeypatch.setenv("DOMINO_MAX_ROWS", "100")
    assert read_bytes(_repeated(100), "ulang.ods").rows == 100  # as a CSV of 100 rows is
    with pytest.raises(FileRejected) as info:
        read_bytes(_repeated(101), "ulang.ods")
    assert info.value.code == "too_many_rows"
    assert info.value.message == "the workbook's sheets hold more than 100 rows, the limit"


# --- a stray cell far away: the workbook reader holds the whole rectangle from A1 --------


def _stray_xlsx(row: int, col: int, *, other_sheet: bool = False) -> bytes:
    """Two hands, and one cell at (``row``, ``col``) (0-based) of the same sheet, or of a
    second sheet beside a ``hands`` sheet."""
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf, {"in_memory": True})
    ws = wb.add_worksheet("hands")
    for i, line in enumerate(BASE.read_text().splitlines()[:3]):
        ws.write_row(i, 0, line.split(","))
    (wb.add_worksheet("Catatan") if other_sheet else ws).write(row, col, "x")
    wb.close()
    return buf.getvalue()


def test_a_stray_cell_at_the_sheets_far_corner_is_refused_before_it_is_read():
    """One cell at XFD1048576 of a 5 KB workbook: the workbook reader asked for 512 GB
    for the rectangle from A1 and the process aborted (uncatchable, the dashboard's server
    with it); a cell at XFD5001 took 4.3 GB and 8.6 s (both measured)."""
    for row, col, rows, columns in (
        (1_048_575, 16_383, "1,048,576", "16,384"),
        (5000, 16_383, "5,001", "16,384"),
    ):
        with pytest.raises(FileRejected) as info:
            read_bytes(_stray_xlsx(row, col), "jarang.xlsx")
        assert (info.value.code, info.value.message_id) == ("too_many_rows", "too_many_rows.cells")
        assert info.value.message.startswith(
            f"the sheet reaches row {rows} and column {columns}, more than the 20,000,000 cells"
        )
    # the same cell on a sheet beside a ``hands`` sheet is not read at all: the hands load
    sheet = read_bytes(_stray_xlsx(1_048_575, 16_383, other_sheet=True), "jarang.xlsx")
    assert sheet.rows == 2
    # a cell a little way off is read as before (its row with the hands: 3 rows)
    assert read_bytes(_stray_xlsx(40, 30), "dekat.xlsx").rows == 3


def test_a_sheet_whose_part_is_not_found_is_measured_by_the_farthest_sheet(monkeypatch):
    """Where the workbook's relationships do not lead this reader to a sheet's part (the
    workbook reader may still find it), the farthest reach of any sheet part stands in."""
    from pipeline.ingest import workbook

    monkeypatch.setattr(workbook, "_sheet_parts", lambda zf: {})
    with pytest.raises(FileRejected) as info:
        read_bytes(_stray_xlsx(1_048_575, 16_383), "jarang.xlsx")
    assert info.value.message_id == "too_many_rows.cells"
    assert read_bytes(_stray_xlsx(40, 30), "dekat.xlsx").rows == 3


def _unnumbered_xlsx(wide: int) -> bytes:
    """A sheet whose rows and cells leave out their numbers, as the format allows: a header
    and a hand, 48 rows of one cell, and a last row of ``wide`` cells."""
    lines = [line.split(",") for line in BASE.read_text().splitlines()[:2]]
    lines += [["x"]] * 48 + [["y"] * wide]
    rows = "".join(
        "<row>" + "".join(f'<c t="inlineStr"><is><t>{v}</t></is></c>' for v in line) + "</row>"
        for line in lines
    )
    sheet = (
        '<?xml version="1.0" encoding="UTF-8"?><worksheet '
        'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        f"<sheetData>{rows}</sheetData></worksheet>"
    )
    return rezip(_stray_xlsx(2, 0), "sheet1.xml", lambda _: sheet.encode())


def test_a_cell_numbered_far_below_its_row_is_measured_by_its_own_number():
    """The workbook reader places a cell by its own number, not its row's: a cell
    ``A99999999999`` in row 2 asked for 466 GB and aborted the process (found by mutating
    every cell number of a workbook)."""
    far = rezip(
        _stray_xlsx(2, 0), "sheet1.xml", lambda p: p.replace(b'r="A2"', b'r="A99999999999"', 1)
    )
    with pytest.raises(FileRejected) as info:
        read_bytes(far, "dalam.xlsx")
    assert info.value.message_id == "too_many_rows.cells"
    assert "reaches row 99,999,999,999 and column 26" in info.value.message


def test_rows_and_cells_without_their_numbers_are_counted(monkeypatch):
    monkeypatch.setenv("DOMINO_MAX_SHEET_CELLS", "2000")
    # 51 rows of at most 26 columns: 1,326 cells
    assert read_bytes(_unnumbered_xlsx(20), "tanpa_nomor.xlsx").rows == 50
    with pytest.raises(FileRejected) as info:  # 51 rows, one of 100 cells: 5,100
        read_bytes(_unnumbered_xlsx(100), "tanpa_nomor.xlsx")
    assert info.value.message_id == "too_many_rows.cells"
    assert "reaches row 51 and column 100" in info.value.message


def test_an_ods_cell_far_below_or_to_the_right_is_refused(monkeypatch):
    monkeypatch.setenv("DOMINO_MAX_SHEET_CELLS", "5000")
    header = f"<table:table-row>{_ods_cells(ODS_HEADER.split(','))}</table:table-row>"
    below = (
        '<table:table-row table:number-rows-repeated="1000">'
        '<table:table-cell table:number-columns-repeated="11"/></table:table-row>'
        f"<table:table-row>{_ods_cells(['x'])}</table:table-row>"
    )
    right = (
        "<table:table-row>"
        + _ods_cells(["x"])
        + '<table:table-cell table:number-columns-repeated="4998"/>'
        + _ods_cells(["y"])
        + '<table:table-cell table:number-columns-repeated="15000"/></table:table-row>'
    )
    for stray, where in ((below, "row 1,003 and column 26"), (right, "row 3 and column 5,000")):
        with pytest.raises(FileRejected) as info:
            read_bytes(_ods(header + _ods_hand(1) + stray), "jarang.ods")
        assert info.value.message_id == "too_many_rows.cells"
        assert f"reaches {where}," in info.value.message
    # LibreOffice ends every row with an empty cell repeated to the sheet's edge: no reach
    trailing = '<table:table-cell table:number-columns-repeated="16373"/>'
    plain = header.replace("</table:table-row>", trailing + "</table:table-row>")
    assert read_bytes(_ods(plain + _ods_hand(1)), "biasa.ods").rows == 1


def test_loading_an_ods_through_the_command_a_referee_runs(db_path):
    done = CliRunner().invoke(cli, ["ingest", str(READ / "meja.ods")], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    assert "loaded 3 match(es) (3 new" in done.output
    with connect(db_path, read_only=True) as con:
        files = sorted(r[0] for r in con.execute("SELECT DISTINCT file FROM hands").fetchall())
    assert files == ["meja.ods [Meja 1]", "meja.ods [Meja 2]", "meja.ods [Meja 3]"]


def test_a_roster_or_registry_saved_as_ods_reads_with_its_row_numbers(tmp_path):
    rows = (
        f"<table:table-row>{_ods_cells(['pemain', 'kelompok'])}</table:table-row>"
        '<table:table-row table:number-rows-repeated="2">'
        '<table:table-cell table:number-columns-repeated="2"/></table:table-row>'
        f"<table:table-row>{_ods_cells(['Andi', 'KG 1'])}</table:table-row>"
        f"<table:table-row>{_ods_cells(['Budi', 'KG 2'])}</table:table-row>"
    )
    path = tmp_path / "peserta.ods"
    path.write_bytes(_ods(rows))
    assert read_registry(path).select("player", "group", "_line").rows() == [
        ("Andi", "KG 1", 4),
        ("Budi", "KG 2", 5),
    ]
    assert read_roster(path).select("player", "group").rows() == [
        ("Andi", "KG 1"),
        ("Budi", "KG 2"),
    ]


# --- how the file spelled its columns ---------------------------------------------------


def test_each_sheet_records_how_the_file_spelled_the_contract_columns():
    s = read_file(BASE)
    assert s.headers["last_tile"] == "kartu_terakhir"
    assert s.headers["pips_d"] == "biji_d"
    assert s.headers["ending"] == "akhir"
    assert read_file(READ / "good.csv").headers["last_tile"] == "last_tile"
    spaced = read_bytes(
        b"Babak,Meja,Kursi A,Kursi B,Kursi C,Kursi D,Akhir,Kartu Terakhir\nR1,1,W,X,Y,Z,biasa,1|2\n",
        "x.csv",
    )
    assert spaced.headers["last_tile"] == "Kartu Terakhir"
    assert spaced.headers["player_a"] == "Kursi A"
    assert "note" not in spaced.headers
    assert read_sheets(READ / "meja.xlsx")[1].headers["pips_d"] == "biji_d"


def test_a_workbook_of_empty_table_sheets_says_which_sheets_and_why():
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf)
    header = BASE.read_text().splitlines()[0].split(",")
    for title in ("Meja 1", "Meja 2"):
        wb.add_worksheet(title).write_row(0, 0, header)
    wb.close()
    with pytest.raises(FileRejected) as info:
        read_bytes_sheets(buf.getvalue(), "kosong.xlsx")
    assert info.value.message == (
        "no sheet of the workbook holds hands: [Meja 1] skipped: it has a header but no hands; "
        "[Meja 2] skipped: it has a header but no hands"
    )


def test_every_sentence_about_sheets_and_spreadsheet_habits_speaks_indonesian(con):
    found: list[tuple[str, dict]] = []  # (message id, parameters) of every sentence met

    def take(frame: pl.DataFrame) -> None:
        found.extend(
            (r["message_id"], json.loads(r["params"] or "{}")) for r in frame.iter_rows(named=True)
        )

    for name in ("meja.xlsx", "meja_hidden_sheet.xlsx", "totals_row.xlsx"):
        p, notes = load_sheets(con, READ / name)
        take(notes)
        take(p.problems)
    for name in ("hidden_row.xlsx", "formula.xlsx"):
        take(ingest(con, [READ / name]).problems)
    for refused in (
        lambda: read_file(READ / "meja.xlsx"),
        lambda: read_bytes_sheets(_template_workbook(), "kosong.xlsx"),
    ):
        with pytest.raises(FileRejected) as info:
            refused()
        found.append((info.value.message_id, info.value.params))
    pips_only = read_bytes(
        b"round,table,hand,a,b,c,d,ending,pips_b\nR1,1,1,W,X,Y,Z,biasa,\nR1,1,,,,,,,40\n", "x.csv"
    )
    take(normalize(pips_only.frame)[1])
    english = [messages.render(mid, params) for mid, params in found]
    for part in (
        "skipped:",
        "refused:",
        "is hidden in the workbook",
        "formula saved without",
        "a cell says 'Jumlah'",
        "numbers in the pips columns",
        "hand-log sheets",
        "no sheet of the workbook",
    ):
        assert any(part in m for m in english), part
    indonesian = messages.catalogue("id")
    for mid, params in found:
        assert mid in indonesian, mid
        said = messages.render(mid, params, "id")
        assert said and said != messages.render(mid, params), mid


def _template_workbook() -> bytes:
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf)
    header = BASE.read_text().splitlines()[0].split(",")
    for title in ("Meja 1", "Meja 2"):
        wb.add_worksheet(title).write_row(0, 0, header)
    wb.close()
    return buf.getvalue()


def test_a_registry_or_roster_cell_pasted_full_of_text_is_refused_naming_it(tmp_path):
    path = tmp_path / "pemain.csv"
    path.write_text(f"pemain,kelompok\nAndi,KG 1\n{'B' * 5000},KG 2\n", encoding="utf-8")
    for read in (read_registry, read_roster):
        with pytest.raises(FileRejected) as info:
            read(path)
        assert (info.value.file, info.value.column) == ("pemain.csv", "player")
        assert info.value.message.startswith(
            "line 3, column pemain (player): this cell holds 5,000 characters"
        )


def test_a_registry_or_roster_value_under_no_header_is_refused_naming_it(tmp_path, db_path):
    """Before: ``Smith, John`` unquoted in a one-column roster entered the event as
    "Smith" (the rest, in a column without a header, was dropped without a word)."""
    csv_file = tmp_path / "peserta.csv"
    csv_file.write_text("pemain\nAndi\nSmith, John\nCici\nDedi\n", encoding="utf-8")
    xlsx_file = tmp_path / "peserta.xlsx"
    book = xlsxwriter.Workbook(str(xlsx_file))
    sheet = book.add_worksheet()
    for r, row in enumerate(
        [["pemain", "kelompok"], ["Andi", "KG 1"], ["Budi", "KG 2", None, "catatan"]]
    ):
        for c, value in enumerate(row):
            if value is not None:
                sheet.write(r, c, value)
    book.close()
    for path, line, column, value in ((csv_file, 3, 2, "John"), (xlsx_file, 3, 4, "catatan")):
        for read in (read_registry, read_roster):
            with pytest.raises(FileRejected) as info:
                read(path)
            assert (info.value.file, info.value.column) == (path.name, str(column))
            assert info.value.message.startswith(
                f"line {line}, column {column}: {value} stands in a column without a header"
            ), info.value.message
    # through the command line: exit 1, and the whole roster stays out
    assert CliRunner().invoke(cli, ["event", "create", "ev", "--ruleset", "unhas"]).exit_code == 0
    r = CliRunner().invoke(cli, ["event", "roster", "ev", str(csv_file)])
    assert r.exit_code == 1 and "peserta.csv: line 3, column 2: John" in r.output, r.output
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM entrants").fetchall() == [(0,)]
    # an empty column without a header, or one holding only spaces, is no problem
    csv_file.write_text("pemain,,kelompok\nAndi, ,KG 1\nBudi,,\n", encoding="utf-8")
    assert read_roster(csv_file)["player"].to_list() == ["Andi", "Budi"]


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_the_sheet_scan_finds_the_same_cut_in_small_pieces(monkeypatch, kind):
    """The XML is read a few MB at a time, cut where a row starts: in pieces of 300 bytes
    (a row is cut off at every few cells) the same rows are hidden, merged and formulas
    found, and the same row numbers given, as read whole."""
    from pipeline.ingest import sheetxml

    names = ["hidden_row", "merged", "formula", "meja"] + (["geser"] if kind == "ods" else [])
    whole = {n: [s.frame for s in read_sheets(READ / f"{n}.{kind}")] for n in names}
    monkeypatch.setattr(sheetxml, "_CHUNK", 300)
    for n in names:
        pieces = [s.frame for s in read_sheets(READ / f"{n}.{kind}")]
        assert len(pieces) == len(whole[n])
        for a, b in zip(pieces, whole[n], strict=True):
            assert a.equals(b), n
    assert read_sheets(READ / f"hidden_row.{kind}")[0].frame["_issue"].drop_nulls().len() == 1


def test_a_registry_workbook_with_a_sheet_per_group_is_read_whole(tmp_path, db_path):
    """Before: only a workbook's first sheet was read; a registry kept as one sheet per KG
    (KG A, KG B) imported KG A alone, saying "imported 2 players", and KG B's players were
    then refused at every roster and load. Every visible sheet with a player column is read
    now, each row named with its sheet; a hidden sheet (a form's lookup list) and a sheet
    of notes are left out."""
    path = tmp_path / "anggota.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheets = {
        "KG A": [["Nama Pemain", "Kelompok"], ["Ana", "KG A"], ["Budi", "KG A"]],
        "KG B": [["DAFTAR ANGGOTA KG B"], [], ["Nama Pemain", "Kelompok"], ["Cici", "KG B"]],
        "Catatan": [["Diperbarui 1 Desember"]],
        "daftar": [["Nama Pemain", "Kelompok"], ["Zaki", "KG Z"]],
    }
    for name, rows in sheets.items():
        sheet = book.add_worksheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                sheet.write(r, c, value)
        if name == "daftar":
            sheet.hide()
    book.close()
    reg = read_registry(path)
    assert reg.select("player", "group", "_file", "_line").rows() == [
        ("Ana", "KG A", "anggota.xlsx [KG A]", 2),
        ("Budi", "KG A", "anggota.xlsx [KG A]", 3),
        ("Cici", "KG B", "anggota.xlsx [KG B]", 4),
    ]
    r = CliRunner().invoke(cli, ["players", "import", str(path)])
    assert r.exit_code == 0 and "imported 3 players" in r.output, r.output
    # given as a hand log, it is named as the list of players it is (it said: no sheet
    # holds hands, each sheet's first row no hand-log header)
    r = CliRunner().invoke(cli, ["ingest", str(path)])
    assert r.exit_code == 1
    assert "anggota.xlsx player: this is a list of players (a roster or a registry)" in r.output
    # a problem on the second sheet is named with it
    book = xlsxwriter.Workbook(str(path))
    for name, rows in (
        ("KG A", [["Nama", "Tanggal Lahir"], ["Ana", "1990-01-01"]]),
        ("KG B", [["Nama", "Tanggal Lahir"], ["Cici", "kemarin"]]),
    ):
        sheet = book.add_worksheet(name)
        for r_, row in enumerate(rows):
            for c, value in enumerate(row):
                sheet.write(r_, c, value)
    book.close()
    r = CliRunner().invoke(cli, ["players", "import", str(path)])
    assert r.exit_code == 1
    assert "anggota.xlsx [KG B]:2 Tanggal Lahir (birth_date) 'kemarin' is not a date" in " ".join(
        r.output.split()
    )


def kg_sheet_without_values(path, rows: list[list[str]], formulas: list[tuple[int, int, str]]):
    """A workbook of one sheet ``KG A`` holding ``rows`` and ``formulas`` (row, column,
    formula; 0-based), the formulas saved without their values, as some tools write them."""
    import re

    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("KG A")
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            sheet.write(r, c, value)
    for r, c, formula in formulas:
        sheet.write_formula(r, c, formula, None, "x")
    book.close()
    data = rezip(
        path.read_bytes(), "sheet1.xml", lambda b: re.sub(rb"(</f>)<v>[^<]*</v>", rb"\1", b)
    )
    path.write_bytes(data)


def test_a_registry_row_hidden_or_left_a_formula_without_value_is_refused(tmp_path, db_path):
    """Before: a hidden row of a registry workbook was imported as any other (a player the
    coordinator hid, most often one who left), and a group cell whose formula was saved
    without its value was read empty (the player in no group), both without a word. Each
    refuses the file naming the row, as a hand log's match is kept out for them."""

    path = tmp_path / "anggota.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("KG A")
    for r, row in enumerate([["Nama", "Kelompok"], ["Ana", "KG A"], ["Budi", "KG A"]]):
        for c, value in enumerate(row):
            sheet.write(r, c, value)
    sheet.set_row(2, None, None, {"hidden": True})
    book.close()
    r = CliRunner().invoke(cli, ["players", "import", str(path)])
    assert (r.exit_code, " ".join(r.output.split())) == (
        1,
        "✗ anggota.xlsx: row 3 is hidden in the workbook; unhide it (or delete it if that "
        "player is not to be listed), and use the file again",
    )
    kg_sheet_without_values(
        path,
        [["Nama", "Kelompok"], ["Ana", "KG A"], ["Budi"]],
        [(2, 1, "=VLOOKUP(A3,Daftar!A:B,2,FALSE)")],
    )  # the group looked up
    with pytest.raises(FileRejected) as info:
        read_roster(path)
    assert info.value.message == (
        "the cell Kelompok of row 3 holds a formula saved without its value "
        "(=VLOOKUP(A3,Daftar!A:B,2,FALSE)); open the file in Excel or LibreOffice, let it "
        "calculate, save it, and use it again"
    )
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM registry").fetchall() == [(0,)]


def test_a_registry_last_row_of_formulas_saved_without_values_is_refused(tmp_path):
    """Before: a registry sheet's last row whose cells were formulas saved without their
    values (names looked up from another sheet) was not read at all, the workbook reader
    ending the sheet at its last value: that player was left out of the registry unheard."""

    path = tmp_path / "anggota.xlsx"
    rows = [["Nama", "Kelompok"], ["Ana", "KG A"]]
    kg_sheet_without_values(path, rows, [(2, 0, "=Daftar!A3"), (2, 1, "=Daftar!B3")])
    with pytest.raises(FileRejected) as info:
        read_registry(path)
    assert info.value.message == (
        "the cell Nama of row 3 holds a formula saved without its value (=Daftar!A3); open "
        "the file in Excel or LibreOffice, let it calculate, save it, and use it again"
    )
