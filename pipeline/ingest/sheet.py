"""The shared end of reading: a header and its body of text cells become a :class:`Sheet`.

:mod:`pipeline.ingest.read` (CSV) and :mod:`pipeline.ingest.workbook` (``.xlsx``) both
hand their rows here: the header becomes canonical column names (an unknown column is kept
in ``extra``), blank rows go, each row keeps ``_file`` and ``_line``, and a row the reader
cannot vouch for (hidden in the workbook, a formula saved without its value, a totals row)
carries an ``_issue`` for :mod:`pipeline.ingest.normalize` to refuse.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from pipeline import messages, problems, settings
from pipeline.ingest.columns import (
    CANONICAL,
    CHAIRS,
    NOTHING,
    REQUIRED,
    SPELLED_EXTRAS,
    canonical_name,
    spellings,
)
from pipeline.ingest.match import MATCH
from pipeline.problems import FileRejected

#: ``_issue`` on a row: something the reader saw that makes the row unsafe to load.
ISSUE = pl.Struct(
    {
        "code": pl.String,
        "column": pl.String,
        "message_id": pl.String,
        "params": pl.String,
        "message": pl.String,
    }
)


#: A table as a sheet writes it: event, round and table cells (None where blank)
TableKey = tuple[str | None, str | None, str | None]


def table_keys(cells: pl.DataFrame) -> frozenset[TableKey]:
    """The (event, round, table) cells of the rows, as written; a missing column is None."""
    keys = [
        pl.col(c) if c in cells.columns else pl.lit(None, dtype=pl.String).alias(c) for c in MATCH
    ]
    return frozenset(cells.select(keys).unique().iter_rows())


@dataclass
class Sheet:
    """A file (or one sheet of a workbook) read as a hand log: canonical text columns,
    ``extra`` (JSON), lineage.

    ``file`` is how messages name it (``meja.xlsx [Meja 2]`` for one sheet of several);
    ``source`` the file's own name; ``sheet`` the workbook sheet read (None for CSV);
    ``headers`` how the file spelled each contract column (``{"pips_d": "biji_d"}``) and
    each extra column a check names (:data:`SPELLED_EXTRAS`: ``ganti_b`` for ``replaces_b``);
    ``notes`` problems about the file as a whole (sheets skipped or refused), carried
    by the first sheet read from it.
    """

    file: str
    sha256: str
    frame: pl.DataFrame
    extra_columns: list[str]
    headers: dict[str, str] = field(default_factory=dict)
    source: str = ""
    sheet: str | None = None
    notes: pl.DataFrame = field(default_factory=problems.empty)

    @property
    def rows(self) -> int:
        return self.frame.height

    @property
    def tables(self) -> frozenset[TableKey]:
        """The (event, round, table) of its rows, as written (see :class:`Unplayed`)."""
        return table_keys(self.frame)


class Unplayed(FileRejected):
    """A pre-filled sheet with no result yet (``header_only.unplayed``), with the tables
    its rows are for: when the same load reads another sheet of each of them (the one the
    referee filled in), this one holds nothing to load and is skipped, not refused."""

    def __init__(self, file: str, rows: int, tables: frozenset[TableKey]):
        super().__init__(file, "header_only", {"rows": rows}, variant="unplayed")
        self.tables = tables


def _short(text: str, limit: int = 80) -> str:
    """A cell or header quoted in a message: long ones keep their head and tail."""
    return text if len(text) <= limit else f"{text[: limit - 20]}…{text[-15:]}"


#: A mark on one row: its line, the body column it concerns (None: the whole row), a code
#: and a sentence (``{column}`` in it is replaced by the column's name).
_Mark = tuple[int, int | None, str, dict[str, object]]  # line, column, code, parameters
#: header cells, body as text columns, the header's line, marks on rows
_Rows = tuple[list[str], pl.DataFrame, int, list[_Mark]]


_TOTAL_LABEL = r"^(?:grand\s*)?(?:sub\s*)?(?:total|totals|jumlah)\b"

#: Rows under a first row that is no header searched for the header: a venue's sheet often
#: has a title (``HASIL BABAK 1 - MEJA 3``) and a blank row above its columns.
HEADER_SEARCH = 10


def _required_named(cells: list[str]) -> int:
    """How many of the columns every hand log has the row's cells name."""
    named = {canonical_name(str(c).strip()) for c in cells if c and str(c).strip()}
    return sum(c in named for c in REQUIRED)


def looks_like_header(cells: list[str]) -> bool:
    """A row naming at least three of the columns every hand log has."""
    return _required_named(cells) >= 3


def names_every_column(cells: list[str]) -> bool:
    """A row naming every column a hand log requires."""
    return _required_named(cells) == len(REQUIRED)


def lift_header(
    rows: _Rows,
    *,
    first: Callable[[list[str]], bool] = looks_like_header,
    header: Callable[[list[str]], bool] = names_every_column,
) -> tuple[_Rows, list[str]]:
    """The rows with their header found under a title: when the first row is no header
    (``first``), the first of the next :data:`HEADER_SEARCH` rows that is one (``header``)
    is the header, and the rows above it are left out. Returns the rows and the text of
    those left out (none when the first row is the header, or no row under it is one: the
    file then lacks a column, as its first row says)."""
    top, body, header_line, marks = rows
    if first(top):
        return rows, []
    for i, row in enumerate(body.head(HEADER_SEARCH).iter_rows()):
        cells = ["" if v is None else str(v) for v in row]
        if header(cells):
            above = [top, *(list(r) for r in body.head(i).iter_rows())]
            said = [str(v).strip() for r in above for v in r if v is not None and str(v).strip()]
            said = list(dict.fromkeys(said))  # a title merged across cells, said once
            lifted = body.slice(i + 1)
            lifted.columns = [f"column_{j + 1}" for j in range(lifted.width)]
            return (cells, lifted, header_line + i + 1, marks), said
    return rows, []


def _lifted_note(label: str, header_line: int, said: list[str]) -> dict[str, object]:
    """The warning that the header was found under a title, quoting what was left out."""
    above = " / ".join(_short(t, 40) for t in said[:3]) + (" / …" if len(said) > 3 else "")
    return problems.warning(label, "header_below", {"line": header_line, "above": repr(above)})


def _to_frame(
    rows: _Rows, label: str, *, lift: bool = True
) -> tuple[pl.DataFrame, list[str], dict[str, str], list[dict[str, object]]]:
    """The sheet's rows as a hand log's text cells (``frame``), its unknown columns, how it
    spelled each contract column, and warnings about the file as a whole (a header found
    under a title: ``lift``, where the sheet is the one read)."""
    rows, said = lift_header(rows) if lift else (rows, [])
    header, body, header_line, marks = rows
    notes = [_lifted_note(label, header_line, said)] if said else []
    max_columns = int(settings.get("max_columns"))
    columns = max(body.width, len(header))
    if columns > max_columns:
        raise FileRejected(label, "too_many_columns", {"columns": columns, "limit": max_columns})
    max_rows = int(settings.get("max_rows"))
    if body.height > max_rows:
        raise FileRejected(label, "too_many_rows", {"rows": body.height, "limit": max_rows})
    names: list[str] = []
    extras: list[str] = []
    seen: dict[str, str] = {}
    for i, raw in enumerate(header):
        raw = (raw or "").strip()
        name = canonical_name(raw) if raw else f"column_{i + 1}"
        if name in seen and name in CANONICAL:
            raise FileRejected(
                label,
                "duplicate_column",
                {"a": repr(_short(seen[name])), "b": repr(_short(raw)), "column": name},
                column=name,
            )
        if name in seen:
            name = f"{name}_{i + 1}"
        seen[name] = raw
        names.append(name)
        if name not in CANONICAL:
            extras.append(name)
    body.columns = names
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        from pipeline.players import is_player_list  # it reads files through this package

        if not set(names) & set(REQUIRED) and is_player_list(header):
            raise FileRejected(label, "player_list", column="player")
        raise FileRejected(
            label,
            "missing_column",
            {"column": missing[0], "required": ", ".join(REQUIRED)},
            column=missing[0],
        )
    headers = {c: seen[c] for c in names if c in CANONICAL or c.startswith(SPELLED_EXTRAS)}
    cells = body.with_columns(
        pl.col(c).cast(pl.String).str.strip_chars().replace(NOTHING if c in CANONICAL else "", None)
        for c in names
    ).with_row_index("_line", offset=header_line + 1)
    cells = cells.with_columns(pl.col("_line").cast(pl.Int64))
    cells, repeated = _without_repeated_headers(cells, names)
    if repeated:
        shown = ", ".join(map(str, repeated[:5])) + (", …" if len(repeated) > 5 else "")
        notes.append(problems.warning(label, "header_repeated", {"lines": shown}))
    extras = [c for c in extras if cells[c].null_count() < cells.height]  # empty unnamed columns
    # a row whose cells are formulas saved without a value reads empty, yet holds a hand
    unread = [
        line
        for line, col, code, _ in marks
        if code == "formula_without_value" and _mark_column(col, names)
    ]
    not_blank = pl.any_horizontal(pl.col(c).is_not_null() for c in names) | pl.col("_line").is_in(
        unread
    )
    played = cells.filter(not_blank & ~_not_played(names))
    if played.height == 0:
        # hands numbered and seated but with no result yet: a pre-filled sheet not filled in
        waiting = cells.filter(not_blank)
        if waiting.height:
            raise Unplayed(label, waiting.height, table_keys(waiting))
        raise FileRejected(label, "header_only")
    cells = played
    cells = _mark_rows(cells, names, seen, marks)
    extra = pl.struct(extras).struct.json_encode() if extras else pl.lit(None, dtype=pl.String)
    frame = cells.select(
        pl.lit(label).alias("_file"),
        "_line",
        *[(pl.col(c) if c in names else pl.lit(None, dtype=pl.String)).alias(c) for c in CANONICAL],
        extra.alias("extra"),
        pl.col("_issue"),
    )
    return frame, extras, headers, notes


def _without_repeated_headers(
    cells: pl.DataFrame, names: list[str]
) -> tuple[pl.DataFrame, list[int]]:
    """The rows without those that repeat the header (two sheets pasted one under the
    other), and the lines of those: a row whose every required cell names its own column
    (in any of the contract's spellings). Only rows whose ending cell names the ending
    column are looked at closely, so a big file is scanned once, in one column."""
    if "ending" not in names:
        return cells, []
    ending = pl.col("ending").str.to_lowercase().is_in(list(spellings("ending")))
    candidates = cells.filter(ending)
    if candidates.height == 0:  # nearly every file
        return cells, []
    required = [c for c in REQUIRED if c in names]
    lines = [
        int(row["_line"])
        for row in candidates.iter_rows(named=True)
        if all(canonical_name(row[c] or "") == c for c in required)
    ]
    if not lines:
        return cells, []
    return cells.filter(~pl.col("_line").is_in(lines)), lines


def whole_file(
    rows: _Rows,
    label: str,
    sha256: str,
    *,
    sheet: str | None = None,
    notes: list[dict[str, object]] | None = None,
) -> Sheet:
    """The one :class:`Sheet` a file is read as (a CSV, or a workbook's ``hands`` or only
    sheet), named ``label``; ``notes``: what its reader said of the file as a whole,
    after what reading the rows says (a header under a title)."""
    frame, extras, headers, said = _to_frame(rows, label)
    return Sheet(
        file=label,
        sha256=sha256,
        frame=frame,
        extra_columns=extras,
        headers=headers,
        source=label,
        sheet=sheet,
        notes=problems.frame([*said, *(notes or [])]),
    )


#: What a played hand writes; a row with its hand number (and names) but none of these is a
#: hand of a pre-filled sheet that was not played (a match stopped early): skipped as blank.
RESULT_COLUMNS = (
    "ended_by",
    "ending",
    "last_tile",
    *(f"{kind}_{c}" for kind in ("pips", "tiles", "sanctions") for c in CHAIRS),
    "note",
)


def _not_played(names: list[str]) -> pl.Expr:
    result = [c for c in RESULT_COLUMNS if c in names]
    if "hand" not in names or not result:
        return pl.lit(value=False)
    return pl.col("hand").is_not_null() & pl.all_horizontal(pl.col(c).is_null() for c in result)


def _issue(
    code: str, column: str | None, params: dict[str, object], variant: str | None = None
) -> dict[str, str | None]:
    mid = messages.message_id(code, variant)
    return {
        "code": code,
        "column": column,
        "message_id": mid,
        "params": messages.to_json(params),
        "message": messages.render(mid, params),
    }


def _mark_column(col: int | None, names: list[str]) -> str | None:
    """The contract column a mark's cell is in; None for a whole row's mark (a hidden
    row) or a column the hand log does not use."""
    name = names[col] if col is not None and col < len(names) else None
    return name if name in CANONICAL else None


def _mark_rows(
    cells: pl.DataFrame, names: list[str], seen: dict[str, str], marks: list[_Mark]
) -> pl.DataFrame:
    """``_issue`` on each row the reader cannot vouch for: hidden in the workbook, a formula
    saved without its value, or what looks like a totals row (first of these per row)."""
    found: dict[int, dict[str, str | None]] = {}
    for line, col, code, params in sorted(marks, key=lambda m: (m[0], m[2] != "hidden_row")):
        name = _mark_column(col, names)
        if col is not None and name is None:
            continue  # a formula in a column the hand log does not use changes nothing
        if line not in found:
            where = (
                (_short(seen[name], 40) + (f" ({name})" if seen[name] != name else ""))
                if name
                else ""
            )
            found[line] = _issue(code, name, {**params, "column": where} if name else params)
    for line, said, column in _totals_rows(cells, names):
        if line not in found:
            found[line] = (
                _issue("totals_row", column, {"row": line, "said": said}, "said")
                if said
                else _issue("totals_row", column, {"row": line})
            )
    if not found:
        return cells.with_columns(pl.lit(None, dtype=ISSUE).alias("_issue"))
    lines = pl.DataFrame(
        {"_line": list(found), "_issue": list(found.values())},
        schema={"_line": pl.Int64, "_issue": ISSUE},
    )
    return cells.join(lines, on="_line", how="left", maintain_order="left")


def _totals_rows(cells: pl.DataFrame, names: list[str]) -> list[tuple[int, str | None, str | None]]:
    """Rows with no ending, ender or last tile that say "total"/"jumlah" in a cell (the
    hand number's too), or that hold pips but no hand number and no players: a referee's
    sums, not a hand. Each with what it says and the column named (the cell that says it,
    else the first pips cell filled)."""
    have = set(names)
    empty = [c for c in ("ending", "ended_by", "last_tile") if c in have]
    rows = cells.filter(pl.all_horizontal(pl.col(c).is_null() for c in empty))
    if rows.height == 0:
        return []
    no_hand = pl.col("hand").is_null() if "hand" in have else pl.lit(value=True)
    pips = [f"pips_{c}" for c in CHAIRS if f"pips_{c}" in have]
    players = [f"player_{c}" for c in CHAIRS if f"player_{c}" in have]
    says = {c: pl.col(c).str.to_lowercase().str.contains(_TOTAL_LABEL) for c in names}
    said = pl.coalesce(pl.when(says[c]).then(pl.col(c).str.slice(0, 40)) for c in names)
    column = pl.coalesce(
        *(pl.when(says[c]).then(pl.lit(c)) for c in names),
        *(pl.when(pl.col(c).is_not_null()).then(pl.lit(c)) for c in pips),
    )
    numbers = (
        pl.any_horizontal(pl.col(c).is_not_null() for c in pips) if pips else pl.lit(value=False)
    )
    no_one = pl.all_horizontal(pl.col(c).is_null() for c in players)
    hits = rows.filter(said.is_not_null() | (numbers & no_one & no_hand)).select(
        "_line", said.alias("said"), column.alias("column")
    )
    return [(line, text, col) for line, text, col in hits.iter_rows()]
