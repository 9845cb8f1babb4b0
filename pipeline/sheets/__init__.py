"""Pre-filled sheets for a drawn round (``domino sheets``, HANDLOG.md).

For every table of the round's current draw: an ``.xlsx`` hand log (sheet ``hands``: the
header row, then one row per hand with the player in every chair; the result cells blank
with the values they may take) and the same rows as a ``;``-separated CSV; for the round,
one printable PDF with a page per table and one seating list (every player by name with
their table and chair) for the notice board. A sheet filled in and saved loads like any
hand log; the rows of hands not played (all result cells blank) are skipped by the reader.

- :mod:`~pipeline.sheets.rows`: the ``seatings`` view as pre-filled rows;
- :mod:`~pipeline.sheets.layout`: headers, allowed values and examples, from the ruleset;
- :mod:`~pipeline.sheets.workbook`: the ``.xlsx`` and the CSV of a table;
- :mod:`~pipeline.sheets.printable`: the round's PDF;
- :mod:`~pipeline.sheets.seating`: the round's seating list by name.
"""

import io
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import duckdb

from pipeline.sheets.rows import DrawnRound, NoDraw, drawn_round

__all__ = [
    "DrawnRound",
    "NoDraw",
    "drawn_round",
    "file_stem",
    "round_files",
    "seating_name",
    "sheets_zip",
    "write_sheets",
]


def file_stem(*parts: str) -> str:
    """A file name from labels: anything but letters, digits, ``.``, ``-`` becomes ``_``."""
    return "_".join(re.sub(r"[^\w.\-]+", "_", p, flags=re.ASCII).strip("_.") or "_" for p in parts)


def round_files(drawn: DrawnRound) -> Iterator[tuple[str, bytes]]:
    """The round's files as ``(name, bytes)``: each table's ``.xlsx`` and ``.csv``, then
    the printable record (a page per table), then the seating list by name."""
    from pipeline.sheets.printable import round_pdf
    from pipeline.sheets.seating import seating_pdf
    from pipeline.sheets.workbook import table_csv, table_xlsx

    for table in drawn.tables:
        stem = file_stem(drawn.event, drawn.round, f"meja{table}")
        yield f"{stem}.xlsx", table_xlsx(drawn, table)
        yield f"{stem}.csv", table_csv(drawn, table)
    yield f"{file_stem(drawn.event, drawn.round)}.pdf", round_pdf(drawn)
    yield seating_name(drawn), seating_pdf(drawn)


def seating_name(drawn: DrawnRound) -> str:
    """The seating list's file name: ``<event>_<round>_daftar_meja.pdf``."""
    return f"{file_stem(drawn.event, drawn.round, 'daftar_meja')}.pdf"


def sheets_zip(drawn: DrawnRound) -> bytes:
    """Every file of :func:`round_files` in one ``.zip`` (a download on the dashboard)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in round_files(drawn):
            zf.writestr(name, data)
    return buf.getvalue()


def write_sheets(
    con: duckdb.DuckDBPyConnection, event: str, round_: str, out_dir: str | Path
) -> list[Path]:
    """Write the round's sheets into ``out_dir`` (created if needed); returns the files, the
    two PDFs last (the record, then the seating list). :class:`NoDraw` when the round has
    no draw."""
    drawn = drawn_round(con, event, round_)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, data in round_files(drawn):
        path = out / name
        path.write_bytes(data)
        written.append(path)
    return written
