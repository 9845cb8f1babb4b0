"""The round's seating list for the notice board (fpdf2): who sits where, one portrait A4.

At a venue of many tables the players look for their own name before the round starts:
every seated player in alphabetical order with their table and chair (the chair of the
first hand: the swap schedule moves them later, as the table's sheet shows), in two
columns, then every table on a line of its own for the referees. Part of the round's
files (:func:`pipeline.sheets.round_files`), beside the page-per-table record.
"""

import polars as pl

from pipeline.sheets import layout
from pipeline.sheets.printable import Page, find_font
from pipeline.sheets.rows import DrawnRound

ROW_H = 6.5  # mm per name
GAP = 6.0  # mm between the two columns of names
#: A column of names: (what, header, width in mm); two of them fill 190 mm with the gap.
COLUMN = (("player", "Nama / name", 58.0), ("table", "Meja", 16.0), ("chair", "Kursi", 18.0))


def first_hands(drawn: DrawnRound) -> pl.DataFrame:
    """Each table's first hand: its row of the sheets (``player_a`` … ``player_d``)."""
    return drawn.rows.group_by("table", maintain_order=True).first()


def seats(first: pl.DataFrame) -> pl.DataFrame:
    """``player, table, chair`` of the round's first hands (:func:`first_hands`), by name
    (case aside), then table."""
    long = first.unpivot(
        index="table",
        on=[f"player_{c.lower()}" for c in layout.CHAIR_LETTERS],
        variable_name="chair",
        value_name="player",
    ).filter(pl.col("player").is_not_null() & (pl.col("player") != ""))
    return long.select(
        "player",
        pl.col("table").cast(pl.String),
        pl.col("chair").str.strip_prefix("player_").str.to_uppercase(),
    ).sort(pl.col("player").str.to_lowercase(), "player", "table")


def seating_pdf(drawn: DrawnRound) -> bytes:
    """The list by name in two columns (continued on further pages), then the tables."""
    pdf = Page(find_font(), orientation="P")
    pdf.set_auto_page_break(auto=False)
    word, english = layout.round_words(drawn.ruleset)
    pdf.set_title(pdf.text_of(f"{drawn.title} — {word} {drawn.round}"))
    pdf.set_creator("domino sheets")
    pdf.row_h = ROW_H
    first = first_hands(drawn)
    people = seats(first).to_dicts()
    pdf.add_page()
    _heading(pdf, drawn, word, english)
    bottom = 297 - 12
    end = pdf.get_y()
    while people:
        per_col = max(1, int((bottom - pdf.get_y() - ROW_H) // ROW_H))
        top = pdf.get_y()
        # the left column is the longer one: the list ends where it does
        end = top + ROW_H * (1 + min(per_col, len(people)))
        for col in range(2):
            chunk, people = people[:per_col], people[per_col:]
            if not chunk:
                break
            x = 10 + col * (sum(w for *_, w in COLUMN) + GAP)
            pdf.set_xy(x, top)
            for _, head, w in COLUMN:
                pdf.box(w, head, size=8.5, bold=True)
            for row in chunk:
                pdf.set_xy(x, pdf.get_y() + ROW_H)
                for key, _, w in COLUMN:
                    pdf.box(w, str(row[key]), align="L" if key == "player" else "C")
        if people:
            _continued(pdf, drawn, word)
    pdf.set_xy(10, end + 4)
    _tables(pdf, drawn, first, word, bottom)
    font_note = pdf.font_note()
    if font_note:
        pdf.style(8)
        pdf.cell(0, 5, pdf.text_of(font_note))
    return bytes(pdf.output())


def _heading(pdf: Page, drawn: DrawnRound, word: str, english: str) -> None:
    pdf.style(16, bold=True)
    pdf.multi_cell(0, 8, pdf.text_of(drawn.title), new_x="LMARGIN", new_y="NEXT")
    pdf.style(12, bold=True)
    what = f"Daftar meja {word} {drawn.round} / seating of {english} {drawn.round}"
    pdf.cell(0, 7, pdf.text_of(what), new_x="LMARGIN", new_y="NEXT")
    pdf.style(9)
    bits = [
        f"Tanggal: {drawn.event_date.isoformat()}" if drawn.event_date else "",
        f"Tempat: {drawn.venue}" if drawn.venue else "",
        f"Undian / draw no. {drawn.draw_no}, seed {drawn.seed}",
    ]
    pdf.multi_cell(
        0, 5, pdf.text_of("  ·  ".join(b for b in bits if b)), new_x="LMARGIN", new_y="NEXT"
    )
    if "regular_hands" in drawn.ruleset.params:  # chairs swap during a match
        note = "Kursi: kursi pada kocokan 1 / chair of the first hand (chairs swap later)."
        pdf.cell(0, 5, pdf.text_of(note), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)


def _continued(pdf: Page, drawn: DrawnRound, word: str) -> None:
    """A new page, headed with what it continues."""
    pdf.add_page()
    pdf.style(9)
    pdf.cell(0, 6, pdf.text_of(f"{drawn.title} — {word} {drawn.round} (lanjutan / continued)"))
    pdf.ln(8)


def _tables(pdf: Page, drawn: DrawnRound, first: pl.DataFrame, word: str, bottom: float) -> None:
    """Every table on a line: ``Meja 1: A Ani · B Budi · C Cici · D Dedi`` (a line breaks
    between two players, never between a chair and its player)."""
    if pdf.get_y() + 9 + ROW_H > bottom:
        _continued(pdf, drawn, word)
    pdf.style(11, bold=True)
    pdf.cell(0, 9, pdf.text_of("Per meja / by table"), new_x="LMARGIN", new_y="NEXT")
    for row in first.iter_rows(named=True):
        if pdf.get_y() + 2 * ROW_H > bottom:
            _continued(pdf, drawn, word)
        chairs = "  ·  ".join(
            f"{c}\u00a0{row[f'player_{c.lower()}']}".replace(" ", "\u00a0")
            for c in layout.CHAIR_LETTERS
            if row.get(f"player_{c.lower()}")
        )
        pdf.style(9, bold=True)
        pdf.cell(18, ROW_H, pdf.text_of(f"Meja {row['table']}"))
        pdf.style(9)
        pdf.multi_cell(0, ROW_H, pdf.text_of(chairs), align="L", new_x="LMARGIN", new_y="NEXT")
