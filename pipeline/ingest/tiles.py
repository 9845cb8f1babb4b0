"""Dominoes as data: parsing the notations referees (and their spreadsheets) write.

All parsing is polars expressions over whole columns. A tile is kept as its two ends
``hi`` ≥ ``lo`` (0–6); its canonical text is ``"hi-lo"``.

Spreadsheet damage is undone as HANDLOG.md says: a date (cell or text) is the tile of its
day and month, a number is a joined tile that may have lost its leading zero.
"""

import polars as pl

_PAIR = r"^([0-6])\s*[-|/]\s*([0-6])$"
_JOINED = r"^([0-6])([0-6])$"
_DATE = r"^(\d{1,4})[-/.](\d{1,2})[-/.](\d{1,4})(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$"
_NUMBER = r"^(\d+)(?:\.0+)?$"

TILE_STRUCT = pl.Struct({"hi": pl.Int8, "lo": pl.Int8, "err": pl.String})


def _ends(a: pl.Expr, b: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    return pl.max_horizontal(a, b), pl.min_horizontal(a, b)


def parse_token(token: pl.Expr, *, single: pl.Expr | bool = True) -> pl.Expr:
    """Parse one tile token into a struct ``{hi, lo, err}``; ``err`` says what is wrong:
    the variant of the ``bad_tile`` message (``"date"``, ``"number"``, or ``""`` for the
    plain sentence), null for a good tile.

    ``single`` marks tokens that stand alone in a cell (``last_tile``, or a ``tiles_x``
    holding one tile): only those may be spreadsheet dates or numbers.
    """
    single_e = pl.lit(single) if isinstance(single, bool) else single
    t = token.str.strip_chars()
    pair_a = t.str.extract(_PAIR, 1).cast(pl.Int8)
    pair_b = t.str.extract(_PAIR, 2).cast(pl.Int8)
    joined_a = t.str.extract(_JOINED, 1).cast(pl.Int8)
    joined_b = t.str.extract(_JOINED, 2).cast(pl.Int8)

    d1 = t.str.extract(_DATE, 1)
    d2 = t.str.extract(_DATE, 2)
    d3 = t.str.extract(_DATE, 3)
    # The year is the four-digit part, else the last; the tile is the other two parts.
    year_first = d1.str.len_chars() == 4
    date_a = pl.when(year_first).then(d2).otherwise(d1).cast(pl.Int16)
    date_b = pl.when(year_first).then(d3).otherwise(d2).cast(pl.Int16)
    date_ok = date_a.is_between(0, 6) & date_b.is_between(0, 6)

    num = t.str.extract(_NUMBER, 1)
    num_i = num.cast(pl.Int64, strict=False)
    num_short = num.str.len_chars() <= 2
    num_a = pl.when(num_i <= 6).then(0).otherwise(num_i // 10)
    num_b = pl.when(num_i <= 6).then(num_i).otherwise(num_i % 10)
    num_ok = num_short & num_a.is_between(0, 6) & num_b.is_between(0, 6)

    a = (
        pl.when(pair_a.is_not_null())
        .then(pair_a)
        .when(joined_a.is_not_null())
        .then(joined_a)
        .when(single_e & d1.is_not_null() & date_ok)
        .then(date_a)
        .when(single_e & num.is_not_null() & num_ok)
        .then(num_a)
    )
    b = (
        pl.when(pair_a.is_not_null())
        .then(pair_b)
        .when(joined_a.is_not_null())
        .then(joined_b)
        .when(single_e & d1.is_not_null() & date_ok)
        .then(date_b)
        .when(single_e & num.is_not_null() & num_ok)
        .then(num_b)
    )
    err = (
        pl.when(a.is_not_null())
        .then(pl.lit(None, dtype=pl.String))
        .when(single_e & d1.is_not_null())
        .then(pl.lit("date"))
        .when(single_e & num.is_not_null())
        .then(pl.lit("number"))
        .otherwise(pl.lit(""))
    )
    hi, lo = _ends(a.cast(pl.Int8), b.cast(pl.Int8))
    return pl.struct(hi.alias("hi"), lo.alias("lo"), err.alias("err"))


#: Every plain spelling of every tile (``5-3``, ``3|5``, ``5/3``, ``53`` …) → 10·hi + lo.
#: Looking a token up here is a hash probe; only what is not found goes through the regex
#: parser of :func:`parse_token` (spaces, dates, numbers, mistakes).
FAST: dict[str, int] = {
    f"{a}{sep}{b}": 10 * max(a, b) + min(a, b)
    for a in range(7)
    for b in range(7)
    for sep in ("-", "|", "/", "")
}


def parse_column(df: pl.DataFrame, column: str, *, single: pl.Expr | bool = True) -> pl.DataFrame:
    """``df`` with ``hi``, ``lo`` and ``err`` for the tile token in ``column``.

    Plain spellings are looked up in :data:`FAST`; the remaining rows (usually none) are
    parsed by :func:`parse_token`, so the regexes run on those rows only.
    """
    code = pl.col(column).str.strip_chars().replace_strict(FAST, default=None, return_dtype=pl.Int8)
    out = df.with_columns(
        (code // 10).alias("hi"),
        (code % 10).alias("lo"),
        pl.lit(None, dtype=pl.String).alias("err"),
    )
    slow = out.with_row_index("_fast_i").filter(
        pl.col("hi").is_null() & pl.col(column).is_not_null()
    )
    if slow.height == 0:
        return out
    parsed = slow.select("_fast_i", parse_token(pl.col(column), single=single).alias("_p")).select(
        "_fast_i",
        pl.col("_p").struct.field("hi").alias("hi"),
        pl.col("_p").struct.field("lo").alias("lo"),
        pl.col("_p").struct.field("err").alias("err"),
    )
    out = (
        out.with_row_index("_fast_i")
        .update(parsed, on="_fast_i", include_nulls=True)
        .drop("_fast_i")
    )
    return out


def canonical(hi: pl.Expr, lo: pl.Expr) -> pl.Expr:
    """``"5-3"`` text of a tile; null if either end is null."""
    return pl.format("{}-{}", hi, lo)


def is_date_text(cell: pl.Expr) -> pl.Expr:
    """True where a whole cell is date text (may contain a space before a time)."""
    return cell.str.strip_chars().str.contains(_DATE)
