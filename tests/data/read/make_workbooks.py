"""Writes the workbooks and CSV files of tests/test_spreadsheets.py: hand logs as referees
really keep them (a sheet per table, merged cells, hidden rows, formulas, totals rows,
Excel's ``sep=;`` line and decimal commas), all made from ../errors/base_unhas.csv.

Run from this folder: python3 make_workbooks.py (needs openpyxl). The files it writes are
committed; this script documents how each was made.
"""

import csv
from pathlib import Path

import openpyxl

HERE = Path(__file__).parent
with open(HERE.parent / "errors" / "base_unhas.csv", newline="", encoding="utf-8") as fh:
    HEADER, *ROWS = list(csv.reader(fh))
TABLE_1 = ROWS[:10]  # lines 2-11 of base_unhas.csv: R1 table 1
TABLE_2 = ROWS[10:20]  # lines 12-21: R1 table 2


def cell(value: str):
    """Numbers as a spreadsheet holds them: 3 not "3"."""
    return int(value) if value.isdigit() else (value or None)


def with_round(rows, round_label):
    return [[r[0], r[1], round_label, *r[3:]] for r in rows]


def sheet(wb, title, rows):
    ws = wb.create_sheet(title)
    ws.append(HEADER)
    for r in rows:
        ws.append([cell(v) for v in r])
    return ws


def save(wb, name):
    wb.save(HERE / name)


# meja.xlsx: one sheet per table (R1 table 1, R1 table 2, R2 table 1) and a notes sheet.
wb = openpyxl.Workbook()
wb.remove(wb.active)
sheet(wb, "Meja 1", TABLE_1)
sheet(wb, "Meja 2", TABLE_2)
sheet(wb, "Meja 3", with_round(TABLE_1, "R2"))
notes = wb.create_sheet("Catatan")
notes.append(["Wasit", "Catatan"])
notes.append(["Pak Basri", "meja 2 mulai terlambat"])
wb.create_sheet("Sheet5")  # an empty sheet Excel left behind
save(wb, "meja.xlsx")

# meja_hidden_sheet.xlsx: Meja 1, and a hidden draft of Meja 2.
wb = openpyxl.Workbook()
wb.remove(wb.active)
sheet(wb, "Meja 1", TABLE_1)
sheet(wb, "Meja 2 (draf)", TABLE_2).sheet_state = "hidden"
save(wb, "meja_hidden_sheet.xlsx")

# merged.xlsx: acara, aturan, babak and meja merged over each table's rows (rows 2-11, 12-21).
wb = openpyxl.Workbook()
wb.remove(wb.active)
ws = sheet(wb, "hands", TABLE_1 + TABLE_2)
for top, bottom in ((2, 11), (12, 21)):
    for col in "ABCD":
        for row in range(top + 1, bottom + 1):
            ws[f"{col}{row}"] = None
        ws.merge_cells(f"{col}{top}:{col}{bottom}")
save(wb, "merged.xlsx")

# hidden_row.xlsx: row 14 (hand 3 of table 2) hidden, as a draft row would be.
wb = openpyxl.Workbook()
wb.remove(wb.active)
ws = sheet(wb, "hands", TABLE_1 + TABLE_2)
ws.row_dimensions[14].hidden = True
save(wb, "hidden_row.xlsx")

# formula.xlsx: biji_d of row 2 (table 1, hand 1) is =1+1, saved without its value
# (openpyxl never calculates), so a reader sees an empty cell.
wb = openpyxl.Workbook()
wb.remove(wb.active)
ws = sheet(wb, "hands", TABLE_1 + TABLE_2)
ws.cell(row=2, column=HEADER.index("biji_d") + 1, value="=1+1")
save(wb, "formula.xlsx")

# formula_rows.xlsx: hand 5 of table 1 (row 6) and hand 10 of table 2 (row 21, the last)
# are formulas in every cell (=\"R1\", =5 …), saved without their values: a reader sees two
# empty rows, and the workbook reader's sheet ends at row 20.
wb = openpyxl.Workbook()
wb.remove(wb.active)
ws = sheet(wb, "hands", TABLE_1 + TABLE_2)
for row, values in ((6, TABLE_1[4]), (21, TABLE_2[9])):
    for col, value in enumerate(values, start=1):
        ws.cell(row=row, column=col, value=f"={value}" if value.isdigit() else f'="{value}"')
save(wb, "formula_rows.xlsx")

# totals_row.xlsx: Meja 1 with a "Jumlah" row of pips sums under its hands (row 12), Meja 2 clean.
wb = openpyxl.Workbook()
wb.remove(wb.active)
ws = sheet(wb, "Meja 1", TABLE_1)
ws.append([None, None, None, None, None, "Jumlah", None, None, None, None, None, None, 4, 9, 11, 2])
sheet(wb, "Meja 2", TABLE_2)
save(wb, "totals_row.xlsx")

# sep_line.csv: Excel's "sep=;" first line, ";" between cells, decimal commas in biji_*
# and kocokan (2,0): table 1 only, so the header is line 2 and hand 1 is line 3.
with open(HERE / "sep_line.csv", "w", newline="", encoding="utf-8") as fh:
    fh.write("sep=;\r\n")
    w = csv.writer(fh, delimiter=";", lineterminator="\r\n")
    w.writerow(HEADER)
    for r in TABLE_1:
        pips = {HEADER.index(f"biji_{c}") for c in "abcd"} | {HEADER.index("kocokan")}
        w.writerow([f"{v},0" if i in pips and v.isdigit() else v for i, v in enumerate(r)])
