"""A table's pre-filled hand log as an ``.xlsx`` workbook (xlsxwriter) and as a CSV.

Sheet ``hands`` starts with the header row, as the reader wants it (HANDLOG.md): one row
per hand with the event, round, table, hand and the player in every chair; the result
cells blank, offering the ruleset's endings, the chair letters and the pips range. Sheet
``contoh`` shows two filled rows; sheet ``info`` holds the event's title, date, venue,
round and table. Neither of those starts with a hand-log header, so the reader reads
``hands`` alone and says nothing of them.
"""

import io

import polars as pl
import xlsxwriter

from pipeline.sheets import layout
from pipeline.sheets.rows import DrawnRound
from pipeline.standings.exports import TILE_COLUMNS, neutralise

#: Rows below the pre-filled hands that keep the validation and formats (tie-break hands).
SPARE_ROWS = 10

_TEXT_COLUMNS = ("event", "ruleset", "round", "table", "note")


def _text(column: str) -> bool:
    return (
        column in _TEXT_COLUMNS
        or column in TILE_COLUMNS
        or column.startswith(("player_", "sanctions_", "replaces_"))
    )


def table_xlsx(drawn: DrawnRound, table: str) -> bytes:
    rows = drawn.table_rows(table)
    cols = drawn.columns
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(
        buf,
        {
            "in_memory": True,
            "strings_to_formulas": False,
            "strings_to_numbers": False,
            "strings_to_urls": False,
        },
    )
    fmt = {
        "head": wb.add_format({"bold": True, "bg_color": "#DDEBF7", "border": 1}),
        "given": wb.add_format({"num_format": "@", "bg_color": "#F2F2F2"}),
        "given_n": wb.add_format({"bg_color": "#F2F2F2"}),
        "text": wb.add_format({"num_format": "@"}),
        "bold": wb.add_format({"bold": True}),
        "title": wb.add_format({"bold": True, "font_size": 14}),
    }
    ws = wb.add_worksheet("hands")
    _hands_sheet(ws, drawn, rows, cols, fmt)
    _example_sheet(wb.add_worksheet("contoh"), drawn, rows, cols, fmt)
    _info_sheet(wb.add_worksheet("info"), drawn, table, fmt)
    ws.activate()
    wb.close()
    return buf.getvalue()


def _hands_sheet(ws, drawn: DrawnRound, rows: pl.DataFrame, cols: list[str], fmt) -> None:
    book = drawn.ruleset
    last = rows.height + SPARE_ROWS
    for j, c in enumerate(cols):
        ws.write_string(0, j, layout.header(c, book), fmt["head"])
        width = 18 if c.startswith("player_") else 14 if _text(c) else 9
        ws.set_column(j, j, width, fmt["text"] if _text(c) else None)
    for i, row in enumerate(rows.iter_rows(named=True), start=1):
        for j, c in enumerate(cols):
            value = row.get(c)
            if c in layout.PREFILLED:
                if c == "hand":
                    ws.write_number(i, j, value, fmt["given_n"])
                elif value is not None:
                    ws.write_string(i, j, str(value), fmt["given"])
                else:
                    ws.write_blank(i, j, None, fmt["given"])
            elif _text(c):
                ws.write_blank(i, j, None, fmt["text"])
    _validate(ws, cols, last, book)
    ws.freeze_panes(1, 0)
    ws.set_landscape()  # the PDF is the record to print; a printed sheet is landscape A4
    ws.set_paper(9)


def _validate(ws, cols: list[str], last: int, book) -> None:
    def at(column: str) -> int | None:
        return cols.index(column) if column in cols else None

    j = at("ending")
    if j is not None:
        ws.data_validation(
            1,
            j,
            last,
            j,
            {
                "validate": "list",
                "source": layout.ending_choices(book),
                "error_title": "Akhir / ending",
                "error_message": "Pilih dari daftar / choose from the list: "
                + ", ".join(layout.ending_choices(book)),
            },
        )
    j = at("ended_by")
    if j is not None:
        ws.data_validation(
            1,
            j,
            last,
            j,
            {
                "validate": "list",
                "source": layout.CHAIR_LETTERS,
                "error_message": "Huruf kursi / chair letter: A, B, C, D",
            },
        )
    for c in layout.CHAIR_LETTERS:
        j = at(f"pips_{c.lower()}")
        if j is not None:
            ws.data_validation(
                1,
                j,
                last,
                j,
                {
                    "validate": "integer",
                    "criteria": "between",
                    "minimum": 0,
                    "maximum": layout.max_pips(book),
                    "error_message": f"Biji / pips: 0 … {layout.max_pips(book)}",
                },
            )
    for c in ("last_tile", *(f"tiles_{x.lower()}" for x in layout.CHAIR_LETTERS)):
        j = at(c)
        if j is not None:
            ws.data_validation(
                1,
                j,
                last,
                j,
                {"validate": "any", "input_title": "Kartu / tile", "input_message": "5-3, 6-6 …"},
            )


def _example_sheet(ws, drawn: DrawnRound, rows: pl.DataFrame, cols: list[str], fmt) -> None:
    book = drawn.ruleset
    ws.write_string(0, 0, "Contoh pengisian / how a filled row looks", fmt["title"])
    frame = layout.example_frame(book, rows.row(0, named=True), cols)
    for j, c in enumerate(cols):
        ws.write_string(2, j, layout.header(c, book), fmt["head"])
        ws.set_column(j, j, 18 if c.startswith("player_") else 12)
    for i, row in enumerate(frame.iter_rows(named=True), start=3):
        for j, c in enumerate(cols):
            v = row[c]
            if isinstance(v, int):
                ws.write_number(i, j, v)
            elif v is not None:
                ws.write_string(i, j, str(v), fmt["text"])


def _info_sheet(ws, drawn: DrawnRound, table: str, fmt) -> None:
    ws.set_column(0, 0, 24)
    ws.set_column(1, 1, 60)
    ws.write_string(0, 0, drawn.title, fmt["title"])
    for i, (label, value) in enumerate(info_lines(drawn, table), start=2):
        ws.write_string(i, 0, label, fmt["bold"])
        ws.write_string(i, 1, value)


def info_lines(drawn: DrawnRound, table: str) -> list[tuple[str, str]]:
    """What identifies the sheet: event, round, table, date, venue, level, the draw."""
    book = drawn.ruleset
    return [
        ("Acara / event", f"{drawn.title} ({drawn.event})"),
        ("Aturan / ruleset", book.title),
        (f"{layout.header('round', book)} / round", drawn.round),
        ("Meja / table", table),
        ("Tanggal / date", drawn.event_date.isoformat() if drawn.event_date else "-"),
        ("Tempat / venue", drawn.venue or "-"),
        ("Tingkat / level", drawn.level or "-"),
        ("Undian / draw", f"no. {drawn.draw_no}, seed {drawn.seed}"),
    ]


def table_csv(drawn: DrawnRound, table: str) -> bytes:
    """The same rows as ``hands``: UTF-8 with BOM, ``;``-separated (the Indonesian Excel
    variant, which opens it in columns), Indonesian headers; text that a spreadsheet would
    run as a formula is neutralised."""
    rows = drawn.table_rows(table)
    frame = neutralise(
        rows.select(
            pl.col(c).cast(pl.String) if c in rows.columns else pl.lit(None, pl.String).alias(c)
            for c in drawn.columns
        )
    )
    frame.columns = [layout.header(c, drawn.ruleset) for c in drawn.columns]
    buf = io.BytesIO()
    frame.write_csv(buf, separator=";")
    return b"\xef\xbb\xbf" + buf.getvalue()
