"""Writes the OpenDocument spreadsheets (.ods, what LibreOffice saves by default) of
tests/test_spreadsheets.py and tests/test_read.py: LibreOffice Calc opens each workbook
made by make_workbooks.py and saves it as .ods, keeping its sheets, merged cells, hidden
rows and sheets, and the tiles it once turned into dates.

LibreOffice always saves a formula's value; formula.ods and formula_rows.ods have it
taken out again, as a program writing the file without calculating it would leave it. geser.ods has its header
on row 4 from column B, as geser.xlsx of test_spreadsheets.py.

Run from this folder: python3 make_ods.py (needs soffice and xlsxwriter). The files it
writes are committed; this script documents how each was made.
"""

import re
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import xlsxwriter

HERE = Path(__file__).parent
FROM_XLSX = ["meja", "meja_hidden_sheet", "merged", "hidden_row", "totals_row", "formula"]
FROM_XLSX += ["libreoffice_saved", "formula_rows"]


def convert(source: Path, out: Path) -> None:
    subprocess.run(
        ["soffice", "--headless", "--convert-to", "ods", "--outdir", str(out), str(source)],
        check=True,
        capture_output=True,
    )


def without_formula_values(path: Path) -> None:
    """Every formula cell keeps its formula and loses its saved value."""
    with zipfile.ZipFile(path) as zf:
        parts = {i.filename: zf.read(i.filename) for i in zf.infolist()}
    parts["content.xml"] = re.sub(
        rb'<table:table-cell (table:formula="[^"]*")[^>]*>.*?</table:table-cell>',
        rb"<table:table-cell \1/>",
        parts["content.xml"],
    )
    with zipfile.ZipFile(path, "w") as zf:
        # the mimetype first and stored, as OpenDocument asks
        zf.writestr("mimetype", parts.pop("mimetype"), compress_type=zipfile.ZIP_STORED)
        for name, data in parts.items():
            zf.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)


def geser(out: Path) -> Path:
    path = out / "geser.xlsx"
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("hands")
    base = (HERE.parent / "errors" / "base_unhas.csv").read_text().splitlines()[:3]
    for i, r in enumerate(r.split(",") for r in base):
        ws.write_row(i + 3, 1, r)  # header on row 4, from column B
    wb.close()
    return path


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for name in FROM_XLSX:
            convert(HERE / f"{name}.xlsx", out)
        convert(geser(out), out)
        without_formula_values(out / "formula.ods")
        without_formula_values(out / "formula_rows.ods")
        for name in [*FROM_XLSX, "geser"]:
            shutil.copy(out / f"{name}.ods", HERE / f"{name}.ods")


if __name__ == "__main__":
    main()
