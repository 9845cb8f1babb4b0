"""The round's printable record (fpdf2): one A4 page per table, landscape.

Each page names the event (its title), round, table, date and venue, then a grid of the
hands: the player in every chair for that hand, and empty boxes for the ending, who ended
it, the last tile, the pips of each chair and sanctions or notes; two spare rows for
tie-break hands; at the bottom the referee's and the players' signatures. It is the record
the coordinator keeps (pepet rule 20).

Names may hold letters outside Latin-1, which the PDF core fonts lack: a Unicode TrueType
font found on the machine (DejaVu Sans, Liberation Sans …) is embedded; without one, names
are written without their accents (``Ñ`` as ``N``) and the page says so. A letter that font
lacks (a Chinese name) comes from a fallback font found there (:data:`FALLBACK_FONTS`);
one no font has is written ``?``, and the page says so too (:meth:`Page.font_note`).
"""

import functools
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fpdf import FPDF

from pipeline.sheets import layout
from pipeline.sheets.rows import DrawnRound
from pipeline.sheets.workbook import info_lines

#: Unicode fonts looked for, regular and bold, in this order.
FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path.home() / ".fonts")
FONTS = (
    ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"),
    ("LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf"),
    ("NotoSans-Regular.ttf", "NotoSans-Bold.ttf"),
)
#: Fonts for letters the main font lacks (Chinese, Japanese and Korean names above all),
#: each ``(file, index in a font collection)``: every one found is used, in this order.
FALLBACK_FONTS = (
    ("NotoSansCJK-Regular.ttc", 2),  # fonts-noto-cjk; the collection's third face is SC
    ("NotoSansCJKsc-Regular.otf", 0),
    ("wqy-microhei.ttc", 0),  # fonts-wqy-microhei
    ("DroidSansFallbackFull.ttf", 0),  # fonts-droid-fallback
    ("DejaVuSans.ttf", 0),  # when the main font is another one
)
SPARE_ROWS = 2  # tie-break hands, written in by hand
GRID_H = 126.0  # mm of the page the grid may take, header row included
ROW_H = 9.0  # at most; more hands get lower rows


@functools.cache
def _font_files(folder: Path) -> dict[str, Path]:
    """Every file under ``folder`` by name, the first one walked of each name: one walk
    of the folder per process, however many fonts and pages look in it (a font installed
    while a server runs is found after its restart)."""
    found: dict[str, Path] = {}
    if folder.is_dir():
        for path in folder.rglob("*"):
            found.setdefault(path.name, path)
    return found


def find_fallbacks() -> list[tuple[Path, int]]:
    """The :data:`FALLBACK_FONTS` on this machine."""
    found = []
    for name, index in FALLBACK_FONTS:
        path = next((f[name] for f in map(_font_files, FONT_DIRS) if name in f), None)
        if path:
            found.append((path, index))
    return found


def find_font() -> tuple[Path, Path] | None:
    """The first of :data:`FONTS` whose regular and bold faces are in one folder."""
    for regular, bold in FONTS:
        for folder in FONT_DIRS:
            files = _font_files(folder)
            if regular in files and bold in files:
                return files[regular], files[bold]
    return None


#: Said on a page written without a Unicode font.
NO_FONT = "Nama ditulis tanpa huruf khusus (no Unicode font on this machine)."
#: Said on a page where the Unicode font lacks some letters of a name (written as ``?``).
LOST_LETTERS = (
    "?: huruf yang tidak ada di fon PDF ini; nama lengkap ada di lembar .xlsx/.csv "
    "(a letter this PDF's font lacks; the full name is in the .xlsx/.csv sheet)."
)
#: Punctuation outside Latin-1 that the page itself uses, as the core fonts can write it.
_PUNCTUATION = {
    "—": "-",
    "–": "-",
    "…": "...",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "→": "->",
    "★": "*",
}


def latin1(text: str) -> str:
    """``text`` in Latin-1: dashes and quotes plain, accents dropped where the letter is not
    in it, else ``?``."""
    if all(ord(ch) < 256 for ch in text):
        return text
    out = []
    for ch in text:
        if ord(ch) < 256 or ch in _PUNCTUATION:
            out.append(_PUNCTUATION.get(ch, ch))
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        out.append(base if base and all(ord(c) < 256 for c in base) else "?")
    return "".join(out)


class Page(FPDF):
    """An A4 page in mm with the Unicode font found (else the core font and Latin-1 text)."""

    def __init__(self, font: tuple[Path, Path] | None, orientation: str = "L") -> None:
        super().__init__(orientation=orientation, unit="mm", format="A4")
        self.set_auto_page_break(auto=False)
        self.set_margins(10, 10, 10)
        self.unicode = font is not None
        self.row_h = ROW_H
        self.covered: set[int] = set()
        #: texts written with a letter the font lacks (each once, in the order written)
        self.lost: list[str] = []
        if font is not None:
            self.add_font("Sheet", "", str(font[0]))
            self.add_font("Sheet", "B", str(font[1]))
            self.family_name = "Sheet"
            # letters both faces can write; any other is written as in Latin-1
            faces = [self.fonts["sheet"], self.fonts["sheetB"]]
            self.covered = set.intersection(*(set(getattr(f, "cmap", {})) for f in faces))
            # a letter neither face has is written in the first fallback that has it
            # (in its regular face also in bold)
            names = []
            for i, (path, index) in enumerate(find_fallbacks()):
                if path.resolve() in (font[0].resolve(), font[1].resolve()):
                    continue
                name = f"fallback{i}"
                self.add_font(name, "", str(path), collection_font_number=index)
                names.append(name)
                self.covered |= set(getattr(self.fonts[name], "cmap", {}))
            if names:
                self.set_fallback_fonts(names, exact_match=False)
        else:
            self.family_name = "Helvetica"

    def text_of(self, text: str) -> str:
        """``text`` as the font can write it: a letter the Unicode font lacks (a Chinese
        name in DejaVu Sans) loses its accent or becomes ``?``, as without the font,
        instead of an empty box."""
        if not self.unicode:
            written = latin1(text)
            if written != text and any(ord(ch) > 255 and ch not in _PUNCTUATION for ch in text):
                self._lost(text)
            return written
        if all(ord(ch) in self.covered for ch in text):
            return text
        self._lost(text)
        return "".join(ch if ord(ch) in self.covered else latin1(ch) for ch in text)

    def output(self, *args: Any, **kwargs: Any) -> Any:
        """The document; every font file it opened is closed after (fpdf2 closes only
        those the document used, leaving an unused fallback's file open)."""
        try:
            return super().output(*args, **kwargs)
        finally:
            self.close_fonts()

    def close_fonts(self) -> None:
        for font in self.fonts.values():
            close = getattr(font, "close", None)
            if close is not None:
                close()

    def _lost(self, text: str) -> None:
        if text not in self.lost:
            self.lost.append(text)

    def font_note(self, since: int = 0) -> str | None:
        """The note a page needs on its font: none found (names without their accents),
        or letters lost from a text written after the ``since``-th lost one."""
        if not self.unicode:
            return NO_FONT
        return LOST_LETTERS if len(self.lost) > since else None

    def style(self, size: float, *, bold: bool = False) -> None:
        self.set_font(self.family_name, "B" if bold else "", size)

    def box(
        self, w: float, text: str = "", *, size: float = 9, bold: bool = False, align: str = "C"
    ) -> None:
        """A bordered cell; the text shrinks (down to 6 pt) to fit, then is cut."""
        text = self.text_of(text)
        while size > 6:
            self.style(size, bold=bold)
            if self.get_string_width(text) <= w - 1.5:
                break
            size -= 0.5
        self.style(size, bold=bold)
        while text and self.get_string_width(text) > w - 1.5:
            text = text[:-1]
        self.cell(w, self.row_h, text, border=1, align=align)


def unwritable(texts: Iterable[str | None]) -> list[str]:
    """The texts of ``texts`` the PDFs write with a letter lost (``?``, or without its
    accent): a letter no font found on this machine has, such as a Chinese name in DejaVu
    Sans. Each once, in order."""
    page = Page(find_font())
    try:
        for text in texts:
            if text:
                page.text_of(text)
    finally:
        page.close_fonts()
    return page.lost


def round_pdf(drawn: DrawnRound) -> bytes:
    """One page per drawn table, in table order."""
    pdf = Page(find_font())
    pdf.set_title(pdf.text_of(f"{drawn.title} — {drawn.round}"))
    pdf.set_creator("domino sheets")
    for table in drawn.tables:
        pdf.add_page()
        _page(pdf, drawn, table)
    return bytes(pdf.output())


def _columns(drawn: DrawnRound) -> list[tuple[str, str, float]]:
    """(column, header, width in mm) of the grid: 277 mm across a landscape A4."""
    cols: list[tuple[str, str, float]] = [("hand", "Kocokan", 15)]
    cols += [(f"player_{c.lower()}", f"Kursi {c}", 33) for c in layout.CHAIR_LETTERS]
    cols += [
        ("ending", "Akhir", 22),
        ("ended_by", "Oleh", 12),
        ("last_tile", "Kartu terakhir", 20),
    ]
    cols += [(f"pips_{c.lower()}", f"Biji {c}", 12) for c in layout.CHAIR_LETTERS]
    has_sanctions = "sanctions_a" in drawn.columns
    cols.append(("note", "Sanksi / catatan" if has_sanctions else "Catatan", 0))
    used = sum(w for _, _, w in cols)
    cols[-1] = (cols[-1][0], cols[-1][1], 277 - used)
    return cols


def _page(pdf: Page, drawn: DrawnRound, table: str) -> None:
    rows = drawn.table_rows(table)
    lost_before = len(pdf.lost)
    pdf.style(16, bold=True)
    pdf.cell(0, 8, pdf.text_of(drawn.title), new_x="LMARGIN", new_y="NEXT")
    info = dict(info_lines(drawn, table))
    pdf.style(11, bold=True)
    where = f"{layout.header('round', drawn.ruleset)} {drawn.round}  ·  Meja {table}"
    pdf.cell(0, 7, pdf.text_of(where), new_x="LMARGIN", new_y="NEXT")
    pdf.style(9)
    line = "  ·  ".join(
        f"{k.split(' / ')[0]}: {info[k]}"
        for k in ("Tanggal / date", "Tempat / venue", "Tingkat / level", "Undian / draw")
    )
    pdf.cell(0, 6, pdf.text_of(line), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    cols = _columns(drawn)
    pdf.row_h = min(ROW_H, GRID_H / (rows.height + SPARE_ROWS + 1))
    for _, head, w in cols:
        pdf.box(w, head, size=8, bold=True)
    pdf.ln(pdf.row_h)
    for row in rows.iter_rows(named=True):
        for c, _, w in cols:
            if c == "hand":
                pdf.box(w, str(row["hand"]), bold=True)
            elif c.startswith("player_"):
                pdf.box(w, row[c] or "—")
            else:
                pdf.box(w)
        pdf.ln(pdf.row_h)
    last = rows.height  # hands are numbered 1 … n
    for extra in range(1, SPARE_ROWS + 1):
        for c, _, w in cols:
            pdf.box(w, f"{last + extra}*" if c == "hand" else "")
        pdf.ln(pdf.row_h)
    _footer(pdf, drawn, rows.row(0, named=True) if rows.height else {}, lost_before)


def _footer(pdf: Page, drawn: DrawnRound, first: dict[str, object], lost_before: int) -> None:
    pdf.style(7.5)
    endings = ", ".join(layout.ending_choices(drawn.ruleset))
    # rows past a match's regular hands are tie-break hands; a session simply goes on
    spare = (
        "kocokan penentu / tie-break hand"
        if "regular_hands" in drawn.ruleset.params
        else "kocokan tambahan / further hand"
    )
    notes = [
        f"Akhir / ending: {endings}.  Oleh: huruf kursi A–D.  "
        f"Biji: 0–{layout.max_pips(drawn.ruleset)}.  * {spare}.",
    ]
    if "replaces_a" in drawn.columns:  # a rulebook with reserves (rule 23)
        notes += [
            "Cadangan (aturan 23): coret nama anggota yang tidak hadir dan tulis nama "
            "cadangan di kursinya; di berkas, nama anggota itu masuk kolom Ganti kursi itu.",
            "Reserve (rule 23): cross out the absent member and write the reserve in their "
            "chair; in the file, the member's name goes in that chair's Ganti column.",
        ]
    font_note = pdf.font_note(lost_before)
    if font_note:
        notes.append(font_note)
    for note in notes:
        pdf.cell(0, 5, pdf.text_of(note), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(6)
    seated = [
        (c, str(first[f"player_{c.lower()}"]))
        for c in layout.CHAIR_LETTERS
        if first.get(f"player_{c.lower()}")
    ]
    people = [("Wasit / referee", "")] + [(f"Kursi {c} (kocokan 1)", name) for c, name in seated]
    width = 277 / len(people)
    y = pdf.get_y() + 12
    for i, (role, name) in enumerate(people):
        x = 10 + i * width
        pdf.line(x + 3, y, x + width - 3, y)
        pdf.set_xy(x, y + 1)
        pdf.style(8, bold=True)
        pdf.cell(width, 4.5, pdf.text_of(role), align="C")
        pdf.set_xy(x, y + 5.5)
        pdf.style(8)
        pdf.cell(width, 4.5, pdf.text_of(name), align="C")
