"""Read a workbook (``.xlsx``, or ``.ods`` as LibreOffice saves it): its hand-log sheets,
each as its own :class:`Sheet`.

The sheet ``hands`` alone when there is one, else every sheet whose first row is a
hand-log header (named ``file.xlsx [Meja 2]``); the sheets skipped or refused are reported
as notes on the first sheet read. Before anything is read the zip is checked (parts that
expand too far are refused); the sheet's XML is then scanned for what the workbook reader
does not tell (in :mod:`pipeline.ingest.sheetxml`): hidden rows, merged ranges (their value
is carried down) and formulas saved without a value, each marked on its row for
:mod:`pipeline.ingest.normalize` to refuse.
"""

import contextlib
import io
import json
import re
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import fastexcel
import polars as pl

from pipeline import messages, problems, settings
from pipeline.ingest.columns import REQUIRED, canonical_name
from pipeline.ingest.sheet import (
    Sheet,
    _Mark,
    _short,
    _to_frame,
    lift_header,
    looks_like_header,
    whole_file,
)
from pipeline.ingest.sheetxml import (
    _carry_merged,
    _scan_ods,
    _scan_sheet,
    _sheet_parts,
    _SheetXml,
)
from pipeline.panics import is_failure
from pipeline.problems import FileRejected

#: What an OpenDocument spreadsheet's ``mimetype`` part says
ODS_MIMETYPE = b"application/vnd.oasis.opendocument.spreadsheet"

#: A sheet's name -> what its XML says beyond its values
_Scan = Callable[[str], _SheetXml]


def _check_zip(data: bytes, label: str) -> str:
    """``"xlsx"`` or ``"ods"``; refuses another zip, and a workbook that would expand too
    far, judged by what its parts really expand to: the sizes a zip declares can lie, and
    the workbook reader trusts the data."""
    max_total = int(settings.get("max_xlsx_expanded_bytes"))
    max_ratio = int(settings.get("max_xlsx_ratio"))
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = set(zf.namelist())
            if "xl/workbook.xml" in names:
                kind = "xlsx"
            elif "content.xml" in names and _mimetype(zf, names) == ODS_MIMETYPE:
                kind = "ods"
            else:
                raise FileRejected(label, "not_xlsx", variant="zip")
            total = 0
            for info in zf.infolist():
                if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    raise FileRejected(
                        label,
                        "not_xlsx",
                        {"part": repr(_short(info.filename))},
                        variant="compression",
                    )
                size = _expanded_size(data, info, max_total - total + 1)
                total += size
                if size > 1_000_000 and size > max_ratio * max(info.compress_size, 1):
                    raise FileRejected(
                        label,
                        "xlsx_bomb",
                        {
                            "part": repr(_short(info.filename)),
                            "ratio": size // max(info.compress_size, 1),
                        },
                        variant="ratio",
                    )
                if total > max_total:
                    raise FileRejected(label, "xlsx_bomb", {"limit": max_total})
                if info.filename.lower().endswith("sharedstrings.xml"):
                    _check_strings(zf, info, size, label)
    except (zipfile.BadZipFile, zlib.error, struct.error) as exc:
        raise FileRejected(label, "not_xlsx", variant="damaged") from exc
    return kind


_STRINGS_TAG = re.compile(rb"<(?:[\w.-]+:)?sst\b[^>]*?\suniqueCount=\"(\d+)\"")


def _check_strings(zf: zipfile.ZipFile, info: zipfile.ZipInfo, size: int, label: str) -> None:
    """Refuse a table of shared texts that says it holds more texts than its bytes can:
    the workbook reader sets aside room for as many as it says before reading one (4
    billion said in a 5 KB file: 96 GB asked for, and the process aborted). Each text
    takes at least 5 bytes (``<si/>``)."""
    with zf.open(info) as fh:
        m = _STRINGS_TAG.search(fh.read(4096))
    if m and int(m.group(1)) > size // 5:
        raise FileRejected(
            label,
            "xlsx_bomb",
            {"count": int(m.group(1)), "size": size},
            variant="strings",
        )


def _mimetype(zf: zipfile.ZipFile, names: set[str]) -> bytes:
    """The ``mimetype`` part of an OpenDocument file (a few bytes, read before the checks
    of sizes: at most 100 of them are read)."""
    if "mimetype" not in names:
        return b""
    try:
        with zf.open("mimetype") as fh:
            return fh.read(100).strip()
    except Exception:  # damaged or compressed some other way: not a spreadsheet we read
        return b""


def _expanded_size(data: bytes, info: zipfile.ZipInfo, cap: int) -> int:
    """Bytes a zip part really expands to, counted by inflating it (stops once over ``cap``)."""
    start = info.header_offset
    if data[start : start + 4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"no local header for {info.filename}")
    name_len, extra_len = struct.unpack_from("<HH", data, start + 26)
    body = memoryview(data)[start + 30 + name_len + extra_len :]
    if info.compress_type == zipfile.ZIP_STORED:
        return min(info.compress_size, len(body))
    inflate = zlib.decompressobj(-zlib.MAX_WBITS)
    size, fed, step = 0, 0, 1 << 20
    pending = b""
    while size <= cap and not inflate.eof:
        if not pending:
            if fed >= len(body):
                break
            pending = bytes(body[fed : fed + step])
            fed += len(pending)
        size += len(inflate.decompress(pending, step))
        pending = inflate.unconsumed_tail
    return size


@contextlib.contextmanager
def _reading(label: str) -> Iterator[None]:
    """Whatever the workbook reader raises (a panic of its Rust side too), as the one
    sentence of an unreadable workbook."""
    try:
        yield
    except FileRejected:
        raise
    except BaseException as exc:
        if not is_failure(exc):
            raise
        raise FileRejected(
            label, "not_xlsx", {"why": type(exc).__name__}, variant="unreadable"
        ) from exc


def _open(data: bytes, label: str) -> tuple[zipfile.ZipFile, _Scan, Any, list[str]]:
    """The checked zip, what its sheets' XML says, the workbook reader and its sheets."""
    kind = _check_zip(data, label)
    with _reading(label):
        zf = zipfile.ZipFile(io.BytesIO(data))
        scan = _scanner(zf, kind, label)  # before the workbook reader expands anything
        reader = fastexcel.read_excel(data)
        names = list(reader.sheet_names)
    return zf, scan, reader, names


def _xlsx_sheets(data: bytes, label: str, sha: str) -> list[Sheet]:
    """Every hand-log sheet of a workbook (``.xlsx`` or ``.ods``)."""
    zf, scan, reader, names = _open(data, label)
    with zf:
        return _workbook_sheets(reader, scan, names, label, sha)


def _scanner(zf: zipfile.ZipFile, kind: str, label: str) -> _Scan:
    """What each sheet's XML says beyond its values: an ``.xlsx`` sheet's own part, read
    when the sheet is, or one scan of an ``.ods`` file's ``content.xml`` for all, made at
    once. An ``.ods`` whose repeated rows stand for too many rows or bytes is refused here,
    before the workbook reader writes each repeat out."""
    if kind == "ods":
        max_rows = int(settings.get("max_rows"))
        ods = _scan_ods(zf, max_rows)
        limit = int(settings.get("max_xlsx_expanded_bytes"))
        if ods.expanded > limit:
            raise FileRejected(label, "xlsx_bomb", {"limit": limit}, variant="repeated")
        if ods.value_rows > max_rows + len(ods.sheets):  # a header row per sheet
            raise FileRejected(label, "too_many_rows", {"limit": max_rows}, variant="workbook")
        return lambda name: ods.sheets.get(name, _SheetXml())
    parts = _sheet_parts(zf)

    def xlsx(name: str) -> _SheetXml:
        part = parts.get(name)
        if part and part in zf.namelist():
            return _scan_sheet(zf, part)
        # a sheet whose part the workbook's relationships do not lead to here (the reader
        # may still find it): nothing is marked, but the farthest reach of any sheet
        # part stands for its own
        unknown = _SheetXml()
        for other in zf.namelist():
            if other.startswith("xl/worksheets/") and other.endswith(".xml"):
                reach = _scan_sheet(zf, other)
                unknown.last_row = max(unknown.last_row, reach.last_row)
                unknown.last_col = max(unknown.last_col, reach.last_col)
        return unknown

    return xlsx


def _workbook_sheets(reader, scan: _Scan, names: list[str], label: str, sha: str) -> list[Sheet]:
    if not names:
        raise FileRejected(label, "empty", variant="no_sheets")
    hands = next((n for n in names if n.strip().lower() == "hands"), None)
    if hands is not None or len(names) == 1:
        # the sheet named ``hands`` is read alone, as the contract says
        target = hands or names[0]
        rows = _sheet_rows(reader, scan, target, label)[:4]
        skipped = [
            _note(f"{label} [{_short(other, 40)}]", "only_hands", {"target": repr(target)})
            for other in names
            if other != target and looks_like_header(_peek_header(reader, scan, other, label))
        ]
        return [whole_file(rows, label, sha, sheet=target, notes=skipped)]
    sheets: list[Sheet] = []
    notes: list[dict[str, object]] = []
    refused: list[FileRejected] = []
    player_lists = 0  # sheets whose header (under a title too) is a roster's or a registry's
    hand_like = 0  # sheets whose first row names a column every hand log has
    max_rows = int(settings.get("max_rows"))
    for name in names:
        where = f"{label} [{_short(name, 40)}]"
        try:
            rows = _sheet_rows(reader, scan, name, where)
        except FileRejected as exc:
            if exc.code != "empty":
                raise
            notes.append(_note(where, "empty"))
            continue
        header = rows[0]
        hand_like += bool({canonical_name(h or "") for h in header} & set(REQUIRED))
        if not looks_like_header(header):
            from pipeline.players import is_player_list  # it reads files through this module

            lifted = lift_header(rows[:4], first=is_player_list, header=is_player_list)[0][0]
            player_lists += is_player_list(lifted)
            # a header under a title is not looked for among several sheets: an example
            # under one (the pre-filled workbook's ``contoh``) would load as hands
            (_, _, line, _), said = lift_header(rows[:4])
            if said:
                notes.append(_note(where, "titled", {"line": line}))
                continue
            missing = [
                c
                for c in ("round", "table", "ending")
                if c not in {canonical_name(h or "") for h in header}
            ]
            notes.append(
                _note(where, "no_columns", {"missing": missing})
                if missing
                else _note(where, "few_columns")
            )
            continue
        try:
            if rows[4] != "visible":
                raise FileRejected(where, "hidden_sheet")
            frame, extras, headers, _ = _to_frame(rows[:4], where, lift=False)
        except FileRejected as exc:
            if exc.code == "header_only":
                unplayed = exc.message_id == "header_only.unplayed"
                notes.append(_note(where, "unplayed" if unplayed else "header_only", exc.params))
            else:
                refused.append(exc)
            continue
        if sum(s.rows for s in sheets) + frame.height > max_rows:
            raise FileRejected(label, "too_many_rows", {"limit": max_rows}, variant="workbook")
        sheets.append(
            Sheet(
                file=where,
                sha256=sha,
                frame=frame,
                extra_columns=extras,
                headers=headers,
                source=label,
                sheet=name,
            )
        )
    if not sheets:
        if player_lists and not hand_like and not refused:
            # a registry or roster kept as a sheet per group, given as a hand log
            raise FileRejected(label, "player_list", column="player")
        if len(refused) == 1:
            raise refused[0]
        reasons = [
            {
                "id": "sheet_reason",
                "params": {
                    "sheet": str(n["file"])[len(label) + 1 :],
                    "reason": [{"id": n["message_id"], "params": json.loads(str(n["params"]))}],
                },
            }
            for n in notes
        ] + [
            {
                "id": "sheet_reason",
                "params": {
                    "sheet": e.file[len(label) + 1 :],
                    "reason": [{"id": e.message_id, "params": e.params}],
                },
            }
            for e in refused
        ]
        raise FileRejected(label, "not_a_hand_log", {"reasons": reasons}, variant="no_sheet")
    notes += [_refused_note(e) for e in refused]
    sheets[0].notes = problems.frame(notes)
    return sheets


def _xlsx_tables(
    data: bytes, label: str
) -> list[tuple[str, tuple[list[str], pl.DataFrame, int, list[_Mark]]]]:
    """``(sheet, (header, body, header line, marks))`` of every visible sheet that holds a row of
    text (a player registry or roster may keep one sheet per group, KG A and KG B): the
    caller takes those whose header it reads. Hidden sheets (lists a form looks up) and
    empty ones are left out; a workbook with none of another kind is refused."""
    zf, scan, reader, names = _open(data, label)
    with zf:
        if not names:
            raise FileRejected(label, "empty", variant="no_sheets")
        tables = []
        for name in names:
            try:
                header, body, line, marks, visible = _sheet_rows(reader, scan, name, label)
            except FileRejected as exc:
                if exc.code != "empty":
                    raise
                continue
            if visible == "visible":
                tables.append((name, (header, body, line, marks)))
        if not tables:
            raise FileRejected(label, "empty", variant="sheet")
        return tables


def _within_reach(info: _SheetXml, label: str) -> None:
    """Refuse a sheet whose cells reach so far that the workbook reader, which holds the
    whole rectangle from A1, would take more than ``max_sheet_cells`` cells (a single
    cell at XFD1048576 makes a 5 KB file abort the process that reads it)."""
    limit = int(settings.get("max_sheet_cells"))
    if info.cells() > limit:
        raise FileRejected(
            label,
            "too_many_rows",
            {"rows": info.last_row, "columns": info.last_col, "limit": limit},
            variant="cells",
        )


def _note(where: str, variant: str, params: dict[str, object] | None = None) -> dict[str, object]:
    """A sheet of a workbook skipped (a warning naming the file and sheet)."""
    return problems.warning(where, "sheet_skipped", params or {}, variant=variant)


def _refused_note(e: FileRejected) -> dict[str, object]:
    """A sheet of a workbook refused (an error naming the file and sheet); the others load."""
    params = {"reason": [{"id": e.message_id, "params": e.params}]}
    return {
        "file": e.file,
        "column": e.column,
        "code": e.code,
        "severity": problems.ERROR,
        "message": messages.render("sheet_refused", params),
        "message_id": "sheet_refused",
        "params": messages.to_json(params),
    }


def _peek_header(reader, scan: _Scan, name: str, label: str) -> list[str]:
    """The first row of the sheet ``name``: a hand-log header under a title there (the
    pre-filled workbook's ``contoh``, an example) does not make it a hand log left out."""
    try:
        _within_reach(scan(name), label)
        raw = reader.load_sheet(name, header_row=None, dtypes="string", n_rows=20).to_polars()
    except BaseException as exc:
        if not is_failure(exc):
            raise
        return []
    for row in raw.cast(pl.String).iter_rows():
        if any(v is not None and str(v).strip() for v in row):
            return [v or "" for v in row]
    return []


def _sheet_rows(reader, scan: _Scan, name: str, label: str):
    """The sheet's header, body and marks, and whether it is visible."""
    with _reading(label):
        info = scan(name)
        _within_reach(info, label)  # before the workbook reader holds its cells
        sheet = reader.load_sheet(name, header_row=None, dtypes="string")
        raw = sheet.to_polars()
        visible = sheet.visible
        columns = sheet.available_columns()
        first_col = (columns[0].absolute_index + 1) if columns else 1
    if raw.height == 0:
        raise FileRejected(label, "empty", variant="sheet")
    raw = raw.cast(pl.String)
    first = 0
    while first < raw.height and all(v is None or str(v).strip() == "" for v in raw.row(first)):
        first += 1
    if first == raw.height:
        raise FileRejected(label, "empty", variant="sheet")
    row0 = info.first_row or 1  # the sheet row of fastexcel's first row
    header_line = row0 + first
    raw = _carry_merged(raw, info.merges, row0, first_col, header_line)
    header = [v or "" for v in raw.row(first)]
    body = raw.slice(first + 1)
    body.columns = [f"column_{i + 1}" for i in range(body.width)]
    last = row0 + raw.height - 1
    # the workbook reader ends the sheet at its last value: rows below it whose cells are
    # formulas saved without a value are read as the empty rows they seem, to be refused
    beyond = [r for r, c, _ in info.formulas if r > last and 0 <= c - first_col < body.width]
    if beyond:
        pad = pl.DataFrame(
            {c: [None] * (max(beyond) - last) for c in body.columns},
            schema=dict.fromkeys(body.columns, pl.String),
        )
        body = pl.concat([body, pad])
        last = max(beyond)
    marks: list[_Mark] = []
    for r, c, formula in info.formulas:
        if header_line < r <= last and 0 <= c - first_col < body.width:
            marks.append(
                (
                    r,
                    c - first_col,
                    "formula_without_value",
                    {"row": r, "formula": _short("=" + formula, 60)},
                )
            )
    for r in sorted(info.hidden):
        if header_line < r <= last:
            marks.append((r, None, "hidden_row", {"row": r}))
    return header, body, header_line, marks, visible
