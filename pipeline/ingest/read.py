"""Read a hand-log file into frames of trimmed text cells with canonical column names.

CSV in UTF-8 (with or without BOM) or Windows-1252, ``,`` or ``;`` detected (Excel's
``sep=;`` first line is honoured), read here; workbooks (``.xlsx``, and ``.ods`` as
LibreOffice saves them) are read by
:mod:`pipeline.ingest.workbook` (the sheet ``hands`` alone when there is one, else every
hand-log sheet, each as its own :class:`Sheet`), and both end in
:mod:`pipeline.ingest.sheet`, which turns a header and its rows into a :class:`Sheet`'s
frame and marks the rows :mod:`pipeline.ingest.normalize` must refuse (hidden rows,
formulas saved without a value, totals rows).

Every cell stays text here: turning text into tiles, numbers and names is
:mod:`pipeline.ingest.normalize`'s job, so that every problem can be reported with the cell it
came from. Each row keeps ``_file`` and ``_line`` (the spreadsheet's row number; blank
rows count).
"""

import csv
import hashlib
import io
import re
import stat
from pathlib import Path, PurePath

import polars as pl

from pipeline import settings
from pipeline.ingest.sheet import HEADER_SEARCH, Sheet, _short, whole_file
from pipeline.ingest.workbook import _xlsx_sheets
from pipeline.problems import FileRejected

#: The files a person may pick to upload: a hand log, a roster or a registry. ``txt``:
#: Excel's "Text (Tab delimited)" and "Unicode Text" save as .txt (the reader goes by the
#: bytes, not the name); ``xlsm``: a workbook with macros (their values are read)
#: Kinds taken only to be refused with a sentence saying what to do (an old .xls, a photo
#: or PDF of a paper sheet), rather than the browser's own refusal in English: not named
#: among what a page takes
SAID_ONLY_KINDS = ("xls", "pdf", "jpg", "jpeg", "png", "heic", "heif", "webp")
UPLOAD_KINDS = ("csv", "txt", "tsv", "xlsx", "xlsm", "ods", *SAID_ONLY_KINDS)
#: The files the upload page takes: a hand log, or a ``.zip`` of hand logs
HAND_LOG_UPLOAD_KINDS = (*UPLOAD_KINDS, "zip")

#: The files a folder given to ``domino ingest`` contributes
HAND_LOG_SUFFIXES = (".csv", ".tsv", ".xlsx", ".xlsm", ".ods")
#: What a folder given to ``domino ingest`` (or an archive) stands for: its hand logs,
#: its old ``.xls`` workbooks (read to be refused saying to save them again, not passed
#: over without a word) and ``.zip`` archives of hand logs (:mod:`pipeline.ingest.archive`)
FOLDER_SUFFIXES = (*HAND_LOG_SUFFIXES, ".xls", ".zip")
#: Names that are no hand log whatever their suffix: a spreadsheet's lock file (Excel's
#: ``~$meja.xlsx`` beside an open ``meja.xlsx``, LibreOffice's ``.~lock.meja.ods#``) and
#: hidden files, in a folder and in an archive alike
NOT_HAND_LOGS = ("~$", ".")


#: One source read: its sheets, and an entry per sheet (file, sha256, rows, error) or the
#: one entry of its refusal; an entry may carry ``notes``, warnings about the file.
Read = tuple[list[Sheet], list[dict[str, object]]]


def read_entries(sheets: list[Sheet]) -> Read:
    """Sheets read, each with its entry (a workbook with a sheet per table is several
    sheets, each named "file [sheet]")."""
    return sheets, [
        {"file": s.file, "sha256": s.sha256, "rows": s.rows, "error": None} for s in sheets
    ]


def refused(exc: FileRejected, digest: str | None = None) -> Read:
    """A file refused whole: no sheet, and the one entry naming why."""
    return [], [{"file": exc.file, "sha256": digest, "rows": 0, "error": exc}]


def in_folder(folder: Path) -> list[Path]:
    """The hand logs of ``folder`` and its ``.zip`` archives of hand logs (not its
    subfolders), by name. A spreadsheet's own
    lock files (Excel's ``~$meja.xlsx`` beside an open ``meja.xlsx``, LibreOffice's
    ``.~lock.meja.ods#``) and hidden files are left out: they are not hand logs."""
    return sorted(
        p
        for p in folder.iterdir()
        if p.is_file()
        and p.suffix.lower() in FOLDER_SUFFIXES
        and not p.name.startswith(NOT_HAND_LOGS)
    )


def display_name(name: str) -> str:
    """The file's own name, without any folders a browser or a hostile client sent."""
    base = PurePath(name.replace("\\", "/")).name
    cleaned = "".join(ch for ch in base if ch.isprintable()).strip()
    if cleaned in ("", ".", ".."):
        return "upload"
    return cleaned[:200]


def read_sheets(path: str | Path, name: str | None = None) -> list[Sheet]:
    """Every hand log in ``path`` (one for a CSV, one per hand-log sheet of a workbook);
    ``name`` is how the file is called in messages (default: its name)."""
    path = Path(path)
    label = display_name(name or path.name)
    return read_bytes_sheets(file_bytes(path, label), label)


def file_bytes(path: Path, label: str) -> bytes:
    """The bytes of the file at ``path`` (a hand log, a registry, a roster), named
    ``label`` in messages: refused (:class:`FileRejected`) when it cannot be opened, is
    larger than ``max_file_bytes``, or is a device or a pipe (``/dev/zero``, a FIFO: no
    size to check, and maybe no end), which were read until memory ran out."""
    try:
        found = path.stat()
    except OSError as exc:
        raise FileRejected(label, "unreadable", {"why": exc.strerror}) from exc
    if not stat.S_ISREG(found.st_mode):
        raise FileRejected(label, "unreadable", variant="special")
    limit = int(settings.get("max_file_bytes"))
    if found.st_size > limit:
        raise FileRejected(label, "too_large", {"size": found.st_size, "limit": limit})
    try:
        with path.open("rb") as f:
            data = f.read(limit + 1)  # a file still growing is read no further
    except OSError as exc:
        raise FileRejected(label, "unreadable", {"why": exc.strerror}) from exc
    if len(data) > limit:
        raise FileRejected(label, "too_large", {"size": len(data), "limit": limit})
    return data


def read_file(path: str | Path, name: str | None = None) -> Sheet:
    """The one hand log in ``path``; a workbook holding several is refused (whole) with a
    sentence saying so: :func:`read_sheets` reads them all."""
    return _one(read_sheets(path, name))


def read_bytes(data: bytes, name: str) -> Sheet:
    """Like :func:`read_file`, from bytes (an upload)."""
    return _one(read_bytes_sheets(data, name))


def _one(sheets: list[Sheet]) -> Sheet:
    if len(sheets) == 1:
        return sheets[0]
    names = ", ".join(str(s.sheet) for s in sheets)
    raise FileRejected(
        sheets[0].source, "several_sheets", {"count": len(sheets), "sheets": _short(names)}
    )


def read_bytes_sheets(data: bytes, name: str) -> list[Sheet]:
    """Every hand log in ``data`` (an upload); ``name`` labels it in messages."""
    return read_labelled(data, display_name(name))


def read_labelled(data: bytes, label: str) -> list[Sheet]:
    """Every hand log in ``data``, named ``label`` as it is (a file of an archive is
    ``round.zip/meja1.csv``)."""
    limit = int(settings.get("max_file_bytes"))
    if len(data) > limit:
        raise FileRejected(label, "too_large", {"size": len(data), "limit": limit})
    sha = hashlib.sha256(data).hexdigest()
    if label.startswith(("~$", ".~lock.")) and not data.startswith(b"PK\x03\x04"):
        # what Excel (~$meja.xlsx) and LibreOffice (.~lock.meja.ods#) keep beside an open file
        raise FileRejected(label, "not_a_hand_log", variant="lock")
    if data.startswith(b"PK\x03\x04"):
        return _xlsx_sheets(data, label, sha)
    refuse_unread_kinds(data, label)
    if label.lower().endswith((".xlsx", ".xlsm", ".xls", ".ods")):
        raise FileRejected(label, "not_xlsx", variant="named")
    return [whole_file((*_csv_rows(data, label), []), label, sha)]


#: The compound-file signature: an old .xls, or an .xlsx saved with a password (Excel
#: wraps the encrypted workbook in one; its directory names ``EncryptionInfo``).
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_OLE_HEAD = 1 << 16  # the directory of a small file is near its start; a big one is no hand log


def refuse_unread_kinds(data: bytes, label: str, *, hand_log: bool = True) -> None:
    """Refuse, saying what it is, a file that is a spreadsheet of a kind not read or no
    spreadsheet at all: Excel's own container (a workbook saved with a password, or an old
    .xls: each needs saving again), or a photo or PDF of a paper sheet (uploaded from a
    phone at the table; for a ``hand_log``, the sentence points to the hand-entry page)."""
    if data.startswith(_OLE):
        encrypted = "EncryptionInfo".encode("utf-16-le") in data[:_OLE_HEAD]
        raise FileRejected(label, "not_xlsx", variant="encrypted" if encrypted else "xls")
    kind = None
    if data.startswith(b"%PDF-"):
        kind = "pdf"
    elif data.startswith(_PICTURES) or data[4:12] in _HEIF or data[8:12] == b"WEBP":
        kind = "picture"
    if kind:
        raise FileRejected(label, "not_a_hand_log", variant=kind if hand_log else f"{kind}_list")


#: The first bytes of a photo: JPEG, PNG, GIF; a phone's HEIC/HEIF (``ftyp`` brands at
#: byte 4) and WebP (``RIFF`` … ``WEBP``) are matched apart
_PICTURES = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"GIF87a", b"GIF89a")
_HEIF = (b"ftypheic", b"ftypheix", b"ftyphevc", b"ftypmif1", b"ftypmsf1", b"ftypavif")


# --- CSV ---------------------------------------------------------------------------------


#: A byte that ``bytes.strip`` keeps: a file without one is empty (searched, not stripped:
#: a strip copies the whole file to find that out).
_NOT_BLANK_BYTE = re.compile(rb"[^ \t\n\r\x0b\x0c]")


def _decode(data: bytes, label: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        # UTF-16 with its byte-order mark: what Excel saves as "Unicode Text" (tab-separated)
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise FileRejected(label, "not_a_hand_log", variant="binary") from exc
        if not text.strip():
            raise FileRejected(label, "empty")
        return text
    if not _NOT_BLANK_BYTE.search(data):
        raise FileRejected(label, "empty")
    if b"\x00" in data[:65536]:
        raise FileRejected(label, "not_a_hand_log", variant="binary")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        # Windows-1252 leaves five bytes undefined; read those as Latin-1 rather than fail.
        return (
            data.decode("cp1252", errors="strict") if _cp1252_ok(data) else data.decode("latin-1")
        )


def _cp1252_ok(data: bytes) -> bool:
    try:
        data.decode("cp1252")
    except UnicodeDecodeError:
        return False
    return True


def _delimiter(text: str, start: int) -> str:
    """``,``, ``;`` (Indonesian-locale Excel) or a tab (Excel's "Text (Tab delimited)" and
    "Unicode Text", or cells pasted from a spreadsheet): among the first line and those
    under it where a header may be, the one most lines hold (a title above the header holds
    few or none, and a cell of text with commas in a ``;`` file is one line of many), then
    the one a line holds most of; ``,`` on a tie."""
    lines = []
    for _ in range(HEADER_SEARCH + 1):
        lines.append(_line_at(text, start))
        start = _next_line(text, start)
        if start >= len(text):
            break
    return max(
        (",", ";", "\t"),
        key=lambda sep: (
            sum(sep in line for line in lines),
            max(line.count(sep) for line in lines),
        ),
    )


_SEP_LINE = re.compile(r'^\s*"?sep=(.)"?\s*$', re.IGNORECASE)


_NOT_BLANK = re.compile(r"\S")


def _csv_rows(data: bytes, label: str) -> tuple[list[str], pl.DataFrame, int]:
    # The text of a big file is walked by offsets: each ``split`` of the whole text for
    # its first line copied the rest of it (a 57 MB file five times over).
    text = _decode(data, label)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    start = lines_before = 0
    # Excel's ``sep=;`` first line names the delimiter; it is not the header.
    given = _SEP_LINE.match(_line_at(text, 0))
    if given and given.group(1) not in ('"', "\n"):
        start = _next_line(text, 0)
        lines_before = 1
    # blank lines before the header (a blank last line stays: the file is then empty)
    while (end := text.find("\n", start)) >= 0 and not _NOT_BLANK.search(text, start, end):
        start = end + 1
        lines_before += 1
    if not _NOT_BLANK.search(text, start):
        raise FileRejected(label, "empty")
    header_line = _line_at(text, start)
    sep = given.group(1) if given and given.group(1) not in ('"', "\n") else _delimiter(text, start)
    max_columns = int(settings.get("max_columns"))
    columns = header_line.count(sep) + 1
    if columns > max_columns:  # before a frame of that many columns is made
        raise FileRejected(label, "too_many_columns", {"columns": columns, "limit": max_columns})
    text = text[start:] if start else text
    body: pl.DataFrame | None = None
    if '"' not in text:
        # Fast path: no quoting at all, so polars' reader sees exactly the records a
        # spreadsheet would (it keeps blank lines as rows of nulls, so line numbers hold).
        try:
            raw = pl.read_csv(
                text.encode("utf-8"),  # as bytes: a StringIO is copied and read 2-3x slower
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
        if width > max_columns:
            at = next(i for i, r in enumerate(records) if len(r) == width)
            raise FileRejected(
                label,
                "too_many_columns",
                {
                    "line": lines_before + 1 + at,
                    "columns": width,
                    "limit": max_columns,
                },
                variant="row",
            )
        if width > len(header):
            header = header + [""] * (width - len(header))
        cols = (
            list(zip(*[r + [""] * (width - len(r)) for r in records[1:]], strict=True))
            if len(records) > 1
            else [() for _ in range(width)]
        )
        body = (
            pl.DataFrame(
                {f"column_{i + 1}": pl.Series(list(c), dtype=pl.String) for i, c in enumerate(cols)}
            )
            if width
            else pl.DataFrame()
        )
    body.columns = [f"column_{i + 1}" for i in range(body.width)]
    return header, body, lines_before + 1


def _line_at(text: str, start: int) -> str:
    """The line of ``text`` that begins at ``start``, without its end."""
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def _next_line(text: str, start: int) -> int:
    """Where the line after the one at ``start`` begins (the text's end if none)."""
    end = text.find("\n", start)
    return len(text) if end < 0 else end + 1
