"""Read a hand-log file into a frame of trimmed text cells with canonical column names.

CSV in UTF-8 (with or without BOM) or Windows-1252, ``,`` or ``;`` detected; ``.xlsx``
(sheet ``hands``, else the first). Every cell stays text here: turning text into tiles,
numbers and names is :mod:`pipeline.ingest.normalize`'s job, so that every problem can be
reported with the cell it came from. Each row keeps ``_file`` and ``_line`` (the
spreadsheet's row number; blank rows count).
"""

import csv
import hashlib
import io
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePath

import fastexcel
import polars as pl

from pipeline import settings
from pipeline.ingest.columns import CANONICAL, REQUIRED, canonical_name
from pipeline.problems import FileRejected


@dataclass
class Sheet:
    """A file read as a hand log: canonical text columns, ``extra`` (JSON), lineage."""

    file: str
    sha256: str
    frame: pl.DataFrame
    extra_columns: list[str]

    @property
    def rows(self) -> int:
        return self.frame.height


def display_name(name: str) -> str:
    """The file's own name, without any folders a browser or a hostile client sent."""
    base = PurePath(name.replace("\\", "/")).name
    cleaned = "".join(ch for ch in base if ch.isprintable()).strip()
    if cleaned in ("", ".", ".."):
        return "upload"
    return cleaned[:200]


def _short(text: str, limit: int = 80) -> str:
    """A cell or header quoted in a message: long ones keep their head and tail."""
    return text if len(text) <= limit else f"{text[: limit - 20]}…{text[-15:]}"


def read_file(path: str | Path, name: str | None = None) -> Sheet:
    """Read ``path``; ``name`` is how the file is called in messages (default: its name)."""
    path = Path(path)
    label = display_name(name or path.name)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise FileRejected(label, "unreadable", f"the file cannot be opened ({exc.strerror})") from exc
    limit = int(settings.get("max_file_bytes"))
    if size > limit:
        raise FileRejected(
            label, "too_large", f"the file is {size:,} bytes; the limit is {limit:,} bytes"
        )
    return read_bytes(path.read_bytes(), label)


def read_bytes(data: bytes, name: str) -> Sheet:
    """Read a hand log from bytes (an upload); ``name`` labels it in messages."""
    label = display_name(name)
    limit = int(settings.get("max_file_bytes"))
    if len(data) > limit:
        raise FileRejected(
            label, "too_large", f"the file is {len(data):,} bytes; the limit is {limit:,} bytes"
        )
    sha = hashlib.sha256(data).hexdigest()
    if data.startswith(b"PK\x03\x04"):
        rows = _xlsx_rows(data, label)
    elif label.lower().endswith((".xlsx", ".xlsm", ".xls")):
        raise FileRejected(label, "not_xlsx", "the file is named like a workbook but is not an .xlsx file")
    else:
        rows = _csv_rows(data, label)
    frame, extras = _to_frame(rows, label)
    return Sheet(file=label, sha256=sha, frame=frame, extra_columns=extras)


# --- CSV ---------------------------------------------------------------------------------


def _decode(data: bytes, label: str) -> str:
    if not data.strip():
        raise FileRejected(label, "empty", "the file is empty")
    if b"\x00" in data[:65536]:
        raise FileRejected(label, "not_a_hand_log", "this is not a CSV or XLSX file (it holds binary data)")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        # Windows-1252 leaves five bytes undefined; read those as Latin-1 rather than fail.
        return data.decode("cp1252", errors="strict") if _cp1252_ok(data) else data.decode("latin-1")


def _cp1252_ok(data: bytes) -> bool:
    try:
        data.decode("cp1252")
    except UnicodeDecodeError:
        return False
    return True


def _delimiter(header_line: str) -> str:
    return ";" if header_line.count(";") > header_line.count(",") else ","


_Rows = tuple[list[str], pl.DataFrame, int]  # header cells, body as text columns, header's line


def _csv_rows(data: bytes, label: str) -> _Rows:
    text = _decode(data, label).replace("\r\n", "\n").replace("\r", "\n")
    lines_before = 0
    while text.startswith("\n") or (text.split("\n", 1)[0].strip() == "" and "\n" in text):
        text = text.split("\n", 1)[1]
        lines_before += 1
    if not text.strip():
        raise FileRejected(label, "empty", "the file is empty")
    header_line = text.split("\n", 1)[0]
    sep = _delimiter(header_line)
    body: pl.DataFrame | None = None
    if '"' not in text:
        # Fast path: no quoting at all, so polars' reader sees exactly the records a
        # spreadsheet would (it keeps blank lines as rows of nulls, so line numbers hold).
        try:
            raw = pl.read_csv(
                io.StringIO(text),
                separator=sep,
                has_header=False,
                infer_schema=False,
                quote_char=None,
                truncate_ragged_lines=False,
            )
            header = [v or "" for v in raw.row(0)]
            body = raw.slice(1)
        except Exception:  # ragged or otherwise odd: fall back to the exact reader below
            body = None
    if body is None:
        records = list(csv.reader(io.StringIO(text), delimiter=sep))
        header = records[0]
        width = max((len(r) for r in records), default=0)
        if width > len(header):
            header = header + [""] * (width - len(header))
        cols = list(zip(*[r + [""] * (width - len(r)) for r in records[1:]], strict=True)) if len(records) > 1 else [() for _ in range(width)]
        body = pl.DataFrame(
            {f"column_{i + 1}": pl.Series(list(c), dtype=pl.String) for i, c in enumerate(cols)}
        ) if width else pl.DataFrame()
    body.columns = [f"column_{i + 1}" for i in range(body.width)]
    return header, body, lines_before + 1


# --- XLSX --------------------------------------------------------------------------------


def _check_zip(data: bytes, label: str) -> None:
    """Refuse a workbook that would expand too far, judged by what its parts really expand
    to: the sizes a zip declares can lie, and the workbook reader trusts the data."""
    max_total = int(settings.get("max_xlsx_expanded_bytes"))
    max_ratio = int(settings.get("max_xlsx_ratio"))
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            if "xl/workbook.xml" not in zf.namelist():
                raise FileRejected(label, "not_xlsx", "this zip file is not an Excel workbook (.xlsx)")
            total = 0
            for info in zf.infolist():
                if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    raise FileRejected(label, "not_xlsx", f"the workbook part {_short(info.filename)!r} is compressed in a way Excel never writes; save the file again from Excel")
                size = _expanded_size(data, info, max_total - total + 1)
                total += size
                if size > 1_000_000 and size > max_ratio * max(info.compress_size, 1):
                    raise FileRejected(label, "xlsx_bomb", f"the workbook part {_short(info.filename)!r} expands {size // max(info.compress_size, 1)}× when unzipped; refused as a possible zip bomb")
                if total > max_total:
                    raise FileRejected(label, "xlsx_bomb", f"the workbook expands to more than {max_total:,} bytes when unzipped (the limit is {max_total:,}); refused as a possible zip bomb")
    except (zipfile.BadZipFile, zlib.error, struct.error) as exc:
        raise FileRejected(label, "not_xlsx", "the workbook is damaged and cannot be opened") from exc


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


def _xlsx_rows(data: bytes, label: str) -> _Rows:
    _check_zip(data, label)
    try:
        reader = fastexcel.read_excel(data)
        names = reader.sheet_names
        target = next((n for n in names if n.strip().lower() == "hands"), names[0] if names else None)
        if target is None:
            raise FileRejected(label, "empty", "the workbook has no sheets")
        sheet = reader.load_sheet(target, header_row=None, dtypes="string")
        raw = sheet.to_polars()
    except FileRejected:
        raise
    except Exception as exc:
        raise FileRejected(label, "not_xlsx", f"the workbook cannot be read ({type(exc).__name__})") from exc
    if raw.height == 0:
        raise FileRejected(label, "empty", "the workbook's sheet is empty")
    raw = raw.cast(pl.String)
    first = 0
    while first < raw.height and all(v is None or str(v).strip() == "" for v in raw.row(first)):
        first += 1
    if first == raw.height:
        raise FileRejected(label, "empty", "the workbook's sheet is empty")
    header = [v or "" for v in raw.row(first)]
    body = raw.slice(first + 1)
    body.columns = [f"column_{i + 1}" for i in range(body.width)]
    return header, body, first + 1


# --- shared ------------------------------------------------------------------------------


def _to_frame(rows: _Rows, label: str) -> tuple[pl.DataFrame, list[str]]:
    header, body, header_line = rows
    max_rows = int(settings.get("max_rows"))
    if body.height > max_rows:
        raise FileRejected(label, "too_many_rows", f"the file has {body.height:,} rows; the limit is {max_rows:,}")
    names: list[str] = []
    extras: list[str] = []
    seen: dict[str, str] = {}
    for i, raw in enumerate(header):
        raw = (raw or "").strip()
        name = canonical_name(raw) if raw else f"column_{i + 1}"
        if name in seen and name in CANONICAL:
            raise FileRejected(
                label,
                "duplicate_column",
                f"the columns {_short(seen[name])!r} and {_short(raw)!r} both mean {name}; keep only one",
                column=name,
            )
        if name in seen:
            name = f"{name}_{i + 1}"
        seen[name] = raw
        names.append(name)
        if name not in CANONICAL:
            extras.append(name)
    body.columns = names
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise FileRejected(
            label,
            "missing_column",
            f"the column {missing[0]} is missing (a hand log needs {', '.join(REQUIRED)})",
            column=missing[0],
        )
    cells = body.with_columns(
        pl.col(c).cast(pl.String).str.strip_chars().replace("", None) for c in names
    ).with_row_index("_line", offset=header_line + 1)
    cells = cells.with_columns(pl.col("_line").cast(pl.Int64))
    extras = [c for c in extras if cells[c].null_count() < cells.height]  # empty unnamed columns
    not_blank = pl.any_horizontal(pl.col(c).is_not_null() for c in names)
    cells = cells.filter(not_blank)
    if cells.height == 0:
        raise FileRejected(label, "header_only", "the file has a header but no hands")
    extra = (
        pl.struct(extras).struct.json_encode() if extras else pl.lit(None, dtype=pl.String)
    )
    frame = cells.select(
        pl.lit(label).alias("_file"),
        "_line",
        *[
            (pl.col(c) if c in names else pl.lit(None, dtype=pl.String)).alias(c)
            for c in CANONICAL
        ],
        extra.alias("extra"),
    )
    return frame, extras
