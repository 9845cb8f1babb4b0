"""Scan a workbook sheet's XML for what the workbook reader does not tell.

Which part of the zip holds each sheet, then, read a few MB at a time: the first row
holding a value, hidden rows, merged ranges (their value is carried down their first
column) and formulas saved without a value. :mod:`pipeline.ingest.workbook` marks them on
their rows for :mod:`pipeline.ingest.normalize` to refuse.
"""

import html
import posixpath
import re
import zipfile
from dataclasses import dataclass, field

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


def _scan_sheet(zf: zipfile.ZipFile, part: str) -> _SheetXml:
    """Hidden rows, merged ranges and formulas without a saved value, read from the sheet's
    XML a few MB at a time (cut on row starts, so no row is split)."""
    info = _SheetXml()
    prefix = b""
    tail = b""
    with zf.open(part) as fh:
        first = True
        while True:
            chunk = fh.read(_CHUNK)
            buf = tail + chunk
            if first:
                m = re.search(rb"<([\w.-]+:)?sheetData\b", buf)
                prefix = (m.group(1) or b"") if m else b""
                first = False
            if chunk:
                cut = buf.rfind(b"<" + prefix + b"row")
                if cut <= 0:
                    tail = buf
                    continue
                buf, tail = buf[:cut], buf[cut:]
            else:
                tail = b""
            _scan_part(buf, prefix, info)
            if not chunk:
                break
    return info


def _scan_part(buf: bytes, raw: bytes, info: _SheetXml) -> None:
    p = re.escape(raw)
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
