"""A ``.zip`` of hand logs: the organiser's download of a round's sheets sent back filled
in, or any folder zipped on a phone. Each hand log in it (the suffixes a folder load
reads) is read as a file of its own, named ``round.zip/meja1.xlsx``; the archive is
unpacked in memory, one file at a time, never onto the disk.

What is not read is said: files of other kinds in one warning on the archive (the
round's PDFs), an archive inside the archive, a file that is encrypted, compressed in a
way zip tools do not write, damaged or too large, each refused with its name. A file may
expand to ``max_file_bytes`` (as a file given alone) and the whole archive to
``max_xlsx_expanded_bytes``, counted by what is really unpacked, not by what the
archive says; an archive of more than ``max_archive_files`` files is refused whole (a
hostile 14 MB zip of 150,000 empty files took 75 s and 4.8 GB to report each).
"""

import hashlib
import io
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import PurePosixPath

import polars as pl

from pipeline import problems, settings
from pipeline.ingest.read import (
    FOLDER_SUFFIXES,
    HAND_LOG_SUFFIXES,
    NOT_HAND_LOGS,
    Read,
    read_entries,
    read_labelled,
    refused,
)
from pipeline.problems import FileRejected

#: Left out without a word: what an operating system adds to an archive
_JUNK = ("__MACOSX", ".DS_Store", "Thumbs.db", "desktop.ini")


def is_archive(refusal: object) -> bool:
    """Whether a file was refused as a zip that is no spreadsheet: an archive to unpack."""
    return isinstance(refusal, FileRejected) and refusal.message_id == "not_xlsx.zip"


def expand(data: bytes, label: str, digest: str) -> Iterator[Read]:
    """Every hand log of the archive ``data`` (named ``label``, its bytes' sha256
    ``digest``) read; first the archive's own entry (a warning listing
    the files not read, if any)."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = [i for i in zf.infolist() if not i.is_dir()]
    except (zipfile.BadZipFile, zlib.error, ValueError, EOFError) as exc:
        raise FileRejected(label, "not_xlsx", variant="damaged") from exc
    most = int(settings.get("max_archive_files"))
    if len(infos) > most:
        raise FileRejected(
            label, "archive", {"count": len(infos), "limit": most}, variant="too_many"
        )
    logs: list[tuple[zipfile.ZipInfo, str]] = []
    others: list[str] = []
    for info in infos:
        inner = _inner(info.filename)
        path = PurePosixPath(inner)
        if not inner or any(p in _JUNK or p.startswith(NOT_HAND_LOGS) for p in path.parts):
            continue
        if path.suffix.lower() in FOLDER_SUFFIXES:  # an archive in it: refused as nested
            logs.append((info, inner))
        else:
            others.append(inner)
    if not logs:
        raise FileRejected(
            label,
            "archive",
            {"kinds": ", ".join(HAND_LOG_SUFFIXES)},
            variant="empty",
        )
    entry: dict[str, object] = {"file": label, "sha256": digest, "rows": 0, "error": None}
    if others:
        entry["notes"] = _skipped(label, others)
    yield [], [entry]
    most_bytes = int(settings.get("max_xlsx_expanded_bytes"))
    limit = int(settings.get("max_file_bytes"))
    budget = most_bytes  # what is left to unpack, refused files' bytes counted too
    for info, inner in logs:
        name = f"{label}/{inner}"
        try:
            blob = _unpack(zf, info, name, min(limit, budget) + 1)
        except FileRejected as exc:
            yield refused(exc)
            continue
        budget -= len(blob)
        if budget < 0:
            yield refused(FileRejected(name, "archive", {"limit": most_bytes}, variant="too_large"))
            return  # the rest of the archive is not unpacked
        if len(blob) > limit:
            size = max(info.file_size, len(blob))
            yield refused(FileRejected(name, "too_large", {"size": size, "limit": limit}))
            continue
        yield _read(blob, name)


def _inner(filename: str) -> str:
    """A file's path inside the archive as it is shown: printable parts, no ``..``."""
    parts = (
        "".join(c for c in p if c.isprintable()).strip()
        for p in filename.replace("\\", "/").split("/")
    )
    return "/".join(p for p in parts if p not in ("", ".", ".."))[-200:]


def _unpack(zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, most: int) -> bytes:
    """The file's bytes, no more than ``most`` of them: the archive's size claims can lie,
    so a file is never unpacked further than its limits."""
    if info.flag_bits & 0x1:
        raise FileRejected(name, "archive", variant="encrypted")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise FileRejected(name, "archive", variant="compression")
    try:
        with zf.open(info) as f:
            return f.read(most)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
        raise FileRejected(name, "archive", variant="damaged") from exc


def _read(blob: bytes, name: str) -> Read:
    """One file of the archive read as a file given alone would be."""
    try:
        sheets = read_labelled(blob, name)
    except FileRejected as exc:
        if is_archive(exc):
            exc = FileRejected(name, "archive", variant="nested")
        return refused(exc, hashlib.sha256(blob).hexdigest())
    return read_entries(sheets)


def _skipped(label: str, others: list[str]) -> pl.DataFrame:
    """The warning naming the files of the archive that are not hand logs."""
    shown = ", ".join(others[:5]) + (f" (+{len(others) - 5})" if len(others) > 5 else "")
    params = {"files": shown, "kinds": ", ".join(HAND_LOG_SUFFIXES)}
    return problems.file_warning(label, "archive", params, variant="skipped")
