"""Scan a workbook sheet's XML for what the workbook reader does not tell.

Which part of the zip holds each sheet, then, read a few MB at a time: the first row
holding a value, hidden rows, merged ranges (their value is carried down their first
column) and formulas saved without a value. :mod:`pipeline.ingest.workbook` marks them on
their rows for :mod:`pipeline.ingest.normalize` to refuse. An ``.xlsx`` keeps each sheet
in a part of its own (:func:`_scan_sheet`); an OpenDocument spreadsheet (``.ods``, what
LibreOffice saves by default) keeps every sheet in ``content.xml`` (:func:`_scan_ods`).
"""

import html
import posixpath
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO

import polars as pl

_SHEET_TAG = re.compile(rb"<(?:[\w.-]+:)?sheet\b([^>]*)>")
_REL_TAG = re.compile(rb"<(?:[\w.-]+:)?Relationship\b([^>]*)>")
_ATTR = re.compile(rb'([\w.:-]+)\s*=\s*"([^"]*)"')
_CELL_REF = re.compile(rb"^([A-Z]{1,3})(\d+)$")
_CHUNK = 1 << 23


def _attrs(tag: bytes) -> dict[str, str]:
    return {
        k.decode("ascii", "replace"): html.unescape(v.decode("utf-8", "replace"))
        for k, v in _ATTR.findall(tag)
    }


def _sheet_parts(zf: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name → its part in the zip (``xl/worksheets/sheet1.xml``); {} if unclear."""
    try:
        book = zf.read("xl/workbook.xml")
        rels = zf.read("xl/_rels/workbook.xml.rels")
    except KeyError:
        return {}
    targets = {}
    for m in _REL_TAG.finditer(rels):
        a = _attrs(m.group(1))
        if "Id" in a and "Target" in a:
            t = a["Target"].replace("\\", "/")
            targets[a["Id"]] = (
                t.lstrip("/") if t.startswith("/") else posixpath.normpath(posixpath.join("xl", t))
            )
    parts = {}
    for m in _SHEET_TAG.finditer(book):
        a = _attrs(m.group(1))
        rid = next((v for k, v in a.items() if k == "id" or k.endswith(":id")), None)
        if "name" in a and rid in targets:
            parts[a["name"]] = targets[rid]
    return parts


def _col_number(letters: bytes) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n


def _ref(ref: str) -> tuple[int, int] | None:
    m = _CELL_REF.match(ref.encode("ascii", "replace"))
    return (int(m.group(2)), _col_number(m.group(1))) if m else None


@dataclass
class _SheetXml:
    """What the sheet's XML says beyond its values (fastexcel does not tell)."""

    first_row: int | None = None  # the first row holding a value (where fastexcel starts)
    hidden: set[int] = field(default_factory=set)
    merges: list[tuple[int, int, int, int]] = field(default_factory=list)  # r1, c1, r2, c2
    formulas: list[tuple[int, int, str]] = field(default_factory=list)  # row, col, formula
    # How far the sheet's cells reach (at least): the workbook reader holds every cell of
    # the rectangle from A1 to there, empty ones too, so one cell at XFD1048576 is 17
    # billion cells, which it cannot even allocate (the process aborts). ``last_col`` is
    # 26 or less when only single-letter columns were seen.
    last_row: int = 0
    last_col: int = 26
    row_tags: int = 0  # rows seen so far (an unnumbered row is the one after the last)

    def cells(self) -> int:
        """The cells of the rectangle the workbook reader would hold for this sheet."""
        return self.last_row * self.last_col


def _scan_sheet(zf: zipfile.ZipFile, part: str) -> _SheetXml:
    """Hidden rows, merged ranges and formulas without a saved value, read from the sheet's
    XML a few MB at a time (cut on row starts, so no row is split)."""
    info = _SheetXml()
    prefix = b""

    def row_start(first: bytes) -> bytes:
        nonlocal prefix
        m = re.search(rb"<([\w.-]+:)?sheetData\b", first)
        prefix = (m.group(1) or b"") if m else b""
        return b"<" + prefix + b"row"

    with zf.open(part) as fh:
        for buf in _row_chunks(fh, row_start):
            _scan_part(buf, prefix, info)
    return info


def _row_chunks(fh: IO[bytes], row_start: Callable[[bytes], bytes]) -> Iterator[bytes]:
    """A part of the zip a few MB at a time, each piece cut where a row starts, so that no
    row is split; ``row_start`` is given the first piece and says how a row starts."""
    tail = b""
    start: bytes | None = None
    while True:
        chunk = fh.read(_CHUNK)
        buf = tail + chunk
        if start is None:
            start = row_start(buf)
        if chunk:
            cut = buf.rfind(start)
            if cut <= 0:
                tail = buf
                continue
            buf, tail = buf[:cut], buf[cut:]
        yield buf
        if not chunk:
            return


def _scan_part(buf: bytes, raw: bytes, info: _SheetXml) -> None:
    p = re.escape(raw)
    _reach(buf, p, info)
    if info.first_row is None:
        for m in re.finditer(rb"<%sc\b([^>]*?)(?:/>|>(.*?)</%sc>)" % (p, p), buf, re.S):
            body = m.group(2) or b""
            if re.search(rb"<%sv>[^<]|<%sis\b" % (p, p), body):
                where = _ref(_attrs(m.group(1)).get("r", ""))
                info.first_row = where[0] if where else None
                break
    if b"hidden=" in buf:
        for m in re.finditer(rb"<%srow\b([^>]*)>" % p, buf):
            a = _attrs(m.group(1))
            if a.get("hidden") in ("1", "true") and a.get("r", "").isdigit():
                info.hidden.add(int(a["r"]))
    if b"mergeCell" in buf:
        for m in re.finditer(rb"<%smergeCell\b([^>]*)>" % p, buf):
            top, _, bottom = _attrs(m.group(1)).get("ref", "").replace("$", "").partition(":")
            first, last = _ref(top), _ref(bottom or top)
            if first and last:
                info.merges.append((first[0], first[1], last[0], last[1]))
    if b"<" + raw + b"f" not in buf:
        return
    cell_open, cell_close = b"<" + raw + b"c ", b"</" + raw + b"c>"
    done = 0
    for f in re.finditer(rb"<%sf[\s>/]" % p, buf):
        at = f.start()
        if at < done:
            continue
        start, end = buf.rfind(cell_open, done, at), buf.find(cell_close, at)
        if start == -1 or end == -1 or buf.find(cell_close, start, at) != -1:
            continue  # not inside a cell (a filter or a conditional format)
        done = end
        cell = buf[start:end]
        head = re.match(rb"<[^>]*>", cell)
        a = _attrs(head.group(0)) if head else {}
        has_value = re.search(rb"<%sv>[^<]" % p, cell) is not None or (
            a.get("t") == "str" and re.search(rb"<%sv>\s*</%sv>" % (p, p), cell) is not None
        )
        where = _ref(a.get("r", ""))
        if not has_value and where:
            text = re.search(rb"<%sf\b[^>]*>([^<]*)</%sf>" % (p, p), cell)
            formula = html.unescape(text.group(1).decode("utf-8", "replace")) if text else ""
            info.formulas.append((where[0], where[1], formula))


#: A table, its end, a row, in ``content.xml`` (each name followed by a space, "/" or ">":
#: ``\b`` would also match ``table-row`` for a table, ``table-row-group`` for a row). The
#: workbook reader knows OpenDocument's namespaces by these prefixes only, as everything
#: that writes the format names them.
_ODS_STRUCTURE = re.compile(
    rb"<table:table(?=[\s>])([^>]*)>|</table:table>|<table:table-row(?=[\s/>])([^>]*?)/?>"
)
_ODS_CELL = re.compile(rb"<table:(?:covered-)?table-cell\b([^>]*?)/?>")
_ODS_VALUE = re.compile(rb"<table:table-cell\b[^>]*\soffice:value-type=")
_ODS_HIDDEN = ("collapse", "filter")


@dataclass
class _OdsScan:
    """Where a scan of ``content.xml`` stands between two chunks."""

    sheets: dict[str, _SheetXml] = field(default_factory=dict)
    current: _SheetXml | None = None
    row: int = 1  # the sheet row the next row element starts at
    # rows holding a value, repeats counted, and the bytes of their cells once each repeat
    # is written out: a row of a few bytes repeated a million times is a million rows to
    # the workbook reader, which the zip's sizes do not show
    value_rows: int = 0
    expanded: int = 0


def _local(attrs: dict[str, str]) -> dict[str, str]:
    """Attributes by local name (``table:number-rows-repeated`` -> ``number-rows-repeated``)."""
    return {k.rpartition(":")[2]: v for k, v in attrs.items()}


def _count(value: str | None) -> int:
    return int(value) if value and value.isdigit() and int(value) > 0 else 1


def _scan_ods(zf: zipfile.ZipFile, max_rows: int) -> _OdsScan:
    """What :func:`_scan_sheet` finds in an ``.xlsx`` sheet, for every sheet of an
    OpenDocument spreadsheet (``sheets``, by name), read from ``content.xml`` a few MB at a
    time (cut on row starts). Rows are not numbered there: they are counted, repeats
    included. ``max_rows`` bounds how many rows one repeated hidden row can add."""
    scan = _OdsScan()
    with zf.open("content.xml") as fh:
        for buf in _row_chunks(fh, lambda _: b"<table:table-row"):
            _scan_ods_part(buf, scan, max_rows)
    return scan


def _scan_ods_part(buf: bytes, scan: _OdsScan, max_rows: int) -> None:
    found = list(_ODS_STRUCTURE.finditer(buf))
    for i, m in enumerate(found):
        if m.group(0).startswith(b"</"):
            scan.current = None
            continue
        if m.group(2) is None:  # a table: its rows are counted from 1
            name = _local(_attrs(m.group(1))).get("name", "")
            scan.current = scan.sheets.setdefault(name, _SheetXml())
            scan.row = 1
            continue
        tag = m.group(2)
        # most rows say nothing but their style: their attributes are not parsed
        a = _local(_attrs(tag)) if b"repeated" in tag or b"visibility" in tag else {}
        r, repeat = scan.row, _count(a.get("number-rows-repeated"))
        scan.row += repeat
        info = scan.current
        if info is None or m.group(0).endswith(b"/>"):
            continue
        start, end = m.end(), found[i + 1].start() if i + 1 < len(found) else len(buf)
        has_value = _ODS_VALUE.search(buf, start, end) is not None
        odd = buf.find(b"spanned=", start, end) != -1 or buf.find(b"formula=", start, end) != -1
        if not has_value and not odd:
            continue  # a row of empty cells (LibreOffice repeats one to the sheet's end)
        if has_value:
            scan.value_rows += repeat
            scan.expanded += (end - start) * repeat
            info.last_row = max(info.last_row, r + repeat - 1)
            info.last_col = max(info.last_col, _ods_width(buf, start, end))
        if has_value and info.first_row is None:
            info.first_row = r
        if has_value and a.get("visibility") in _ODS_HIDDEN:
            info.hidden.update(range(r, r + min(repeat, max_rows + 1)))
        if odd:
            _scan_ods_cells(buf[start:end], info, r)


def _ods_width(buf: bytes, start: int, end: int) -> int:
    """How many columns a row of an ``.ods`` reaches, its last cell holding a value
    included: its cells counted, each cell's repeats counted only where a repeated cell
    comes before a value (LibreOffice ends every row with one empty cell repeated to the
    sheet's edge, which reaches nothing)."""
    repeated = buf.find(b"columns-repeated=", start, end)
    last_value = buf.rfind(b"value-type=", start, end)
    if repeated == -1 or repeated > last_value:
        return buf.count(b"<table:table-cell", start, end) + buf.count(
            b"<table:covered-table-cell", start, end
        )
    c = reach = 0
    for m in _ODS_CELL.finditer(buf, start, end):
        a = _local(_attrs(m.group(1)))
        c += _count(a.get("number-columns-repeated"))
        if "value-type" in a:
            reach = c
    return reach


def _scan_ods_cells(body: bytes, info: _SheetXml, r: int) -> None:
    """Merged ranges and formulas saved without a value, in one row's cells."""
    c = 1
    for m in _ODS_CELL.finditer(body):
        a = _local(_attrs(m.group(1)))
        rows, cols = _count(a.get("number-rows-spanned")), _count(a.get("number-columns-spanned"))
        if rows > 1 or cols > 1:
            info.merges.append((r, c, r + rows - 1, c + cols - 1))
        if "formula" in a and "value-type" not in a:
            # saved as ``of:=SUM([.M2:.M11])``: the namespace of its syntax, then the formula
            formula = re.sub(r"^[\w.-]+:(?==)", "", a["formula"])
            info.formulas.append((r, c, formula.removeprefix("=")))
        c += _count(a.get("number-columns-repeated"))


#: A cell's number past column Z (``r="AB12"``); searched without the tag around it, as
#: a literal start is about ten times faster to find (nothing else has ``r="`` then
#: letters: a row's number is digits, a range is ``ref="…"``)
_WIDE_CELL = re.compile(rb'r="([A-Z]{2,3})(\d+)"')
_NUMBERED_CELL = re.compile(rb'r="[A-Z]{1,3}(\d+)"')
#: A cell numbered in row 100,000 or beyond: the reader goes by the cell's number, not its
#: row's (``<row r="1"><c r="A99999999999">`` asked for 466 GB). Below that row and
#: within column Z a sheet cannot pass the limit, so those cells are not looked at.
_DEEP_CELL = re.compile(rb'r="[A-Z]{1,3}(\d{6,})"')


def _reach(buf: bytes, p: bytes, info: _SheetXml) -> None:
    """How far an ``.xlsx`` sheet's cells reach, from the numbers of its rows (every row,
    in whatever order) and of its cells past column Z (a hand log has about 25 columns,
    so those are few). The format lets a row or a cell leave out its number (the reader
    then counts them in order): rows are counted too, and a file with unnumbered cells
    has every row's cells counted."""
    tags = len(re.findall(rb"<%srow[\s>/]" % p, buf))
    rows = [int(n) for n in re.findall(rb"<%srow\b[^>]*?\sr=\"(\d+)\"" % p, buf)]
    numbered = _NUMBERED_CELL.findall(buf)
    info.row_tags += tags
    if tags > len(rows):  # rows without their number: every cell's number is read
        rows += [int(n) for n in numbered]
    for letters, row in _WIDE_CELL.findall(buf):
        info.last_col = max(info.last_col, _col_number(letters))
        rows.append(int(row))
    rows += [int(n) for n in _DEEP_CELL.findall(buf)]
    info.last_row = max(info.last_row, info.row_tags, max(rows, default=0))
    if len(re.findall(rb"<%sc[\s>/]" % p, buf)) > len(numbered):  # cells without their number
        for row in re.finditer(rb"<%srow\b.*?</%srow>" % (p, p), buf, re.S):
            info.last_col = max(info.last_col, len(re.findall(rb"<%sc[\s>/]" % p, row.group(0))))


def _carry_merged(
    raw: pl.DataFrame,
    merges: list[tuple[int, int, int, int]],
    row0: int,
    col0: int,
    header_line: int,
) -> pl.DataFrame:
    """A merged range shows its top-left value in every row it spans: carry it down its
    first column (ranges that start at or above the header are left alone)."""
    fills: dict[int, list[tuple[int, int]]] = {}
    for r1, c1, r2, _c2 in merges:
        j = c1 - col0
        if r1 <= header_line or r2 <= r1 or not 0 <= j < raw.width:
            continue
        fills.setdefault(j, []).append((r1 - row0, min(r2 - row0, raw.height - 1)))
    if not fills:
        return raw
    cols = []
    for j, spans in fills.items():
        values = raw.to_series(j).to_list()
        for top, bottom in spans:
            if 0 <= top < len(values):
                for i in range(top + 1, bottom + 1):
                    values[i] = values[top]
        cols.append(pl.Series(raw.columns[j], values, dtype=pl.String))
    return raw.with_columns(cols)
