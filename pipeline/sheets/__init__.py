"""Pre-filled sheets for a drawn round (``domino sheets``, HANDLOG.md).

For every table of the round's current draw: an ``.xlsx`` hand log (sheet ``hands``: the
header row, then one row per hand with the player in every chair; the result cells blank
with the values they may take) and the same rows as a ``;``-separated CSV; for the round,
one printable PDF with a page per table. A sheet filled in and saved loads like any hand
log; the rows of hands not played (all result cells blank) are skipped by the reader.

- :mod:`~pipeline.sheets.rows`: the ``seatings`` view as pre-filled rows;
- :mod:`~pipeline.sheets.layout`: headers, allowed values and examples, from the ruleset;
- :mod:`~pipeline.sheets.workbook`: the ``.xlsx`` and the CSV of a table;
- :mod:`~pipeline.sheets.printable`: the round's PDF.
"""

import re
from pathlib import Path

import duckdb

from pipeline.sheets.rows import DrawnRound, NoDraw, drawn_round

__all__ = ["DrawnRound", "NoDraw", "drawn_round", "file_stem", "write_sheets"]


def file_stem(*parts: str) -> str:
    """A file name from labels: anything but letters, digits, ``.``, ``-`` becomes ``_``."""
    return "_".join(re.sub(r"[^\w.\-]+", "_", p, flags=re.ASCII).strip("_.") or "_" for p in parts)


def write_sheets(
    con: duckdb.DuckDBPyConnection, event: str, round_: str, out_dir: str | Path
) -> list[Path]:
    """Write the round's sheets into ``out_dir`` (created if needed); returns the files, the
    PDF last. :class:`NoDraw` when the round has no draw."""
    from pipeline.sheets.printable import round_pdf
    from pipeline.sheets.workbook import table_csv, table_xlsx

    drawn = drawn_round(con, event, round_)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for table in drawn.tables:
        stem = file_stem(event, round_, f"meja{table}")
        for suffix, data in (
            (".xlsx", table_xlsx(drawn, table)),
            (".csv", table_csv(drawn, table)),
        ):
            path = out / f"{stem}{suffix}"
            path.write_bytes(data)
            written.append(path)
    pdf = out / f"{file_stem(event, round_)}.pdf"
    pdf.write_bytes(round_pdf(drawn))
    written.append(pdf)
    return written
