"""Downloads: standings as CSV and XLSX, and blank hand-log templates.

Player names and labels come from referees' files, so a cell may start with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return — which Excel, LibreOffice and Google
Sheets run as a formula (CSV injection). In CSV, which has no cell types,
:func:`neutralise` prefixes such *text* cells with ``'``; numeric columns are left alone,
so ``-3`` points stays the number −3. XLSX has cell types: every text cell is written as a
string cell in a text format (``@``) and never as a formula, so it keeps its text as
written — no visible ``'`` — and a spreadsheet does not run it.
"""

import io
import re

import polars as pl

from pipeline import rulesets
from pipeline.ingest.columns import CANONICAL, CHAIRS

_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")

TILE_COLUMNS = ("last_tile", *(f"tiles_{c}" for c in CHAIRS))
TEMPLATE_ROWS = 500  # rows pre-formatted as text in the tile columns


#: Text a spreadsheet would read as a formula: it starts with = + - @ or a tab/CR, and is
#: more than a lone sign and not a plain number (``-``, the unhas "no category", and
#: ``-4`` stay as they are).
_FORMULA = r"^[=+\-@\t\r]"
_HARMLESS = r"^(?:[-+]|[-+]?\d+(?:[.,]\d+)?)$"


def neutralise_text(value: str | None) -> str | None:
    """``'=SUM(A1)`` for ``=SUM(A1)``; other text unchanged."""
    if value is None or value == "":
        return value
    if value.startswith(_TRIGGERS) and not re.fullmatch(_HARMLESS, value):
        return "'" + value
    return value


def neutralise(df: pl.DataFrame) -> pl.DataFrame:
    """Every text column neutralised (vectorised); numbers, booleans and dates untouched."""
    return df.with_columns(
        pl.when(pl.col(c).str.contains(_FORMULA) & ~pl.col(c).str.contains(_HARMLESS))
        .then(pl.lit("'") + pl.col(c))
        .otherwise(pl.col(c))
        .alias(c)
        for c in df.columns
        if df[c].dtype == pl.String
    )


def _plain(df: pl.DataFrame) -> pl.DataFrame:
    """Nested or categorical columns flattened to text so every format can hold them."""
    return df.with_columns(
        pl.col(c).cast(pl.String)
        if isinstance(df[c].dtype, (pl.Categorical, pl.Enum))
        else pl.col(c).cast(pl.List(pl.String)).list.join(", ")
        if isinstance(df[c].dtype, pl.List)
        else pl.col(c)
        for c in df.columns
    )


def to_csv(df: pl.DataFrame) -> bytes:
    """UTF-8 with a BOM (so Excel reads the names right), header row, neutralised text."""
    buf = io.BytesIO()
    neutralise(_plain(df)).write_csv(buf)
    return b"\xef\xbb\xbf" + buf.getvalue()


def to_xlsx(df: pl.DataFrame, sheet: str = "standings") -> bytes:
    """One sheet, header in bold; numbers as numbers, text as string cells in a text
    format: ``=SUM(A1)`` is the text ``=SUM(A1)``, shown as written and never run (no
    ``'`` prefix: that is for CSV, which has no cell types)."""
    df = _plain(df)
    buf = io.BytesIO()
    import xlsxwriter  # only when a workbook is asked for

    wb = xlsxwriter.Workbook(
        buf,
        {
            "in_memory": True,
            "strings_to_formulas": False,
            "strings_to_numbers": False,
            "strings_to_urls": False,
        },
    )
    ws = wb.add_worksheet(_sheet_name(sheet))
    bold = wb.add_format({"bold": True})
    text = wb.add_format({"num_format": "@"})
    for j, name in enumerate(df.columns):
        ws.write_string(0, j, name, bold)
    for j, name in enumerate(df.columns):
        col = df[name]
        numeric = col.dtype.is_numeric()
        boolean = col.dtype == pl.Boolean
        values = col.to_list() if numeric or boolean else col.cast(pl.String).to_list()
        for i, v in enumerate(values, start=1):
            if v is None:
                continue
            if boolean:
                ws.write_boolean(i, j, bool(v))
            elif numeric:
                ws.write_number(i, j, v)
            else:
                ws.write_string(i, j, v, text)
        width = max([len(name), *(len(str(v)) for v in values[:200] if v is not None)], default=8)
        ws.set_column(j, j, min(max(width + 2, 6), 40))
    ws.freeze_panes(1, 0)
    wb.close()
    return buf.getvalue()


def _sheet_name(name: str) -> str:
    bad = "[]:*?/\\"
    cleaned = "".join("_" if ch in bad else ch for ch in name).strip("'") or "sheet"
    return cleaned[:31]


def template_csv(ruleset: str) -> bytes:
    """A blank hand log: the header row of the ruleset's columns (UTF-8 with BOM)."""
    return ("\ufeff" + ",".join(template_columns(ruleset)) + "\r\n").encode("utf-8")


def template_xlsx(ruleset: str) -> bytes:
    """A blank hand log workbook: sheet ``hands`` with the header; the tile columns are
    formatted as text so Excel keeps ``5-3`` (it would make it a date); ``ending`` and
    ``ended_by`` offer their allowed values; sheet ``help`` explains the columns."""
    cols = template_columns(ruleset)
    buf = io.BytesIO()
    import xlsxwriter  # only when a workbook is asked for

    wb = xlsxwriter.Workbook(buf, {"in_memory": True})
    ws = wb.add_worksheet("hands")
    head = wb.add_format({"bold": True, "bg_color": "#DDEBF7", "border": 1})
    text = wb.add_format({"num_format": "@"})
    for j, c in enumerate(cols):
        ws.write_string(0, j, c, head)
        if (
            c in TILE_COLUMNS
            or c in ("event", "ruleset", "round", "table", "note")
            or c.startswith(("player_", "sanctions_"))
        ):
            ws.set_column(j, j, 14 if c in TILE_COLUMNS else 16, text)
        else:
            ws.set_column(j, j, 9)
    last = TEMPLATE_ROWS
    # The column format covers new cells in Excel; formatted blank cells make the text
    # format explicit for the first rows in readers that ignore column formats.
    for j, c in enumerate(cols):
        if c in TILE_COLUMNS:
            for i in range(1, last + 1):
                ws.write_blank(i, j, None, text)
    j_end = cols.index("ending")
    ws.data_validation(
        1, j_end, last, j_end, {"validate": "list", "source": rulesets.load(ruleset).endings}
    )
    j_by = cols.index("ended_by")
    ws.data_validation(1, j_by, last, j_by, {"validate": "list", "source": ["A", "B", "C", "D"]})
    j_rs = cols.index("ruleset")
    ws.data_validation(1, j_rs, last, j_rs, {"validate": "list", "source": [ruleset]})
    ws.freeze_panes(1, 0)
    helpsheet = wb.add_worksheet("help")
    helpsheet.set_column(0, 0, 16)
    helpsheet.set_column(1, 1, 90)
    for i, (c, meaning) in enumerate(_HELP_ROWS(ruleset)):
        helpsheet.write_string(i, 0, c)
        helpsheet.write_string(i, 1, meaning)
    wb.close()
    return buf.getvalue()


def template_columns(ruleset: str) -> list[str]:
    # the columns of a blank hand log (HANDLOG.md): every ruleset reads the same ones;
    # a ruleset's [sheet] leaves out what it has no use for (pepet: sanctions)
    try:
        book = rulesets.load(ruleset)
    except rulesets.UnknownRuleset as exc:
        raise ValueError(str(exc)) from exc
    return book.sheet_columns or list(CANONICAL)


def _HELP_ROWS(ruleset: str) -> list[tuple[str, str]]:  # noqa: N802
    rows = [
        ("column", "meaning (HANDLOG.md)"),
        ("event", "event id, e.g. unhas-2024"),
        ("ruleset", f"{ruleset} (needed on the first file of a new event)"),
        ("round", "round (unhas) or session (pepet) label, e.g. R1 / S1"),
        ("table", "table label, e.g. 3"),
        ("hand", "1, 2, ... (unhas: hands over 10 are tie-break hands)"),
        (
            "player_a..d",
            "who sat in chair A..D in this hand (chairs in playing order); empty = empty chair",
        ),
        ("ended_by", "chair letter of the player who ended the hand"),
        ("ending", " | ".join(rulesets.load(ruleset).endings)),
        ("last_tile", "the tile that ended the hand, e.g. 5-3"),
        ("pips_a..d", "value left in that chair's hand"),
        ("tiles_a..d", "tiles left in that chair's hand, e.g. 6-6 5-3* (* = closed/dead tile)"),
    ]
    book = rulesets.load(ruleset)
    if book.shows("sanctions"):
        rows.append(("sanctions_a..d", "warn; show; wrong (';'-separated)"))
    if "replaces_a" in (book.sheet_columns or []):
        rows.append(
            (
                "replaces_a..d",
                "a reserve in that chair (rule 23): the name of the absent member they play "
                "for; empty otherwise",
            )
        )
    rows.append(("note", "free text"))
    return rows
