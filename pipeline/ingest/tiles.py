"""Dominoes as data: parsing the notations referees (and their spreadsheets) write.

All parsing is polars expressions over whole columns. A tile is kept as its two ends
``hi`` ≥ ``lo`` (0–6); its canonical text is ``"hi-lo"``.

Spreadsheet damage is undone as HANDLOG.md says: a date (cell or text) is the tile of its
day and month, a number is a joined tile that may have lost its leading zero.

The tiles left in hand are read cell by cell in list expressions when every token is a
plain spelling (:func:`plain_hands`); only the other hands are taken apart tile by tile.
"""

import polars as pl

from pipeline.ingest.columns import CHAIRS

_PAIR = r"^([0-6])\s*[-|/]\s*([0-6])$"
_JOINED = r"^([0-6])([0-6])$"
_DATE = r"^(\d{1,4})[-/.](\d{1,2})[-/.](\d{1,4})(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$"
_NUMBER = r"^(\d+)(?:\.0+)?$"

#: What a ``tiles_`` cell is split into: the tokens between spaces and commas.
TOKENS = r"[^\s,]+"
#: What is read of each chair's tiles left in hand, and the columns holding it.
HELD_VALUES = ("tiles", "tcount", "tsum", "tsum13")
HELD_COLUMNS = ["_row", *[f"{v}_{c}" for v in HELD_VALUES for c in CHAIRS]]

TILE_STRUCT = pl.Struct({"hi": pl.Int8, "lo": pl.Int8, "err": pl.String})


def _ends(a: pl.Expr, b: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    return pl.max_horizontal(a, b), pl.min_horizontal(a, b)


def parse_tokens(df: pl.DataFrame, column: str, *, single: pl.Expr | bool = True) -> pl.DataFrame:
    """The tile token of ``column`` parsed, one column per step, as ``hi``, ``lo`` and
    ``err``; ``err`` says what is wrong: the variant of the ``bad_tile`` message
    (``"date"``, ``"number"``, or ``""`` for the plain sentence), null for a good tile.

    ``single`` marks tokens that stand alone in a cell (``last_tile``, or a ``tiles_x``
    holding one tile): only those may be spreadsheet dates or numbers. Each step is
    computed once, as a column, and the next ones read it (an expression written once
    but used in several others would be evaluated for each of them).
    """
    t = pl.col(column).str.strip_chars()
    c = pl.col
    df = df.select(
        (pl.lit(single) if isinstance(single, bool) else single).alias("single"),
        t.str.extract(_PAIR, 1).cast(pl.Int8).alias("pair_a"),
        t.str.extract(_PAIR, 2).cast(pl.Int8).alias("pair_b"),
        t.str.extract(_JOINED, 1).cast(pl.Int8).alias("joined_a"),
        t.str.extract(_JOINED, 2).cast(pl.Int8).alias("joined_b"),
        t.str.extract(_DATE, 1).alias("d1"),
        t.str.extract(_DATE, 2).alias("d2"),
        t.str.extract(_DATE, 3).alias("d3"),
        t.str.extract(_NUMBER, 1).alias("num"),
    )
    # The year is the four-digit part, else the last; the tile is the other two parts.
    year_first = c("d1").str.len_chars() == 4
    df = df.with_columns(
        pl.when(year_first).then(c("d2")).otherwise(c("d1")).cast(pl.Int16).alias("date_a"),
        pl.when(year_first).then(c("d3")).otherwise(c("d2")).cast(pl.Int16).alias("date_b"),
        c("num").cast(pl.Int64, strict=False).alias("num_i"),
    ).with_columns(
        pl.when(c("num_i") <= 6).then(0).otherwise(c("num_i") // 10).alias("num_a"),
        pl.when(c("num_i") <= 6).then(c("num_i")).otherwise(c("num_i") % 10).alias("num_b"),
    )
    date_ok = c("date_a").is_between(0, 6) & c("date_b").is_between(0, 6)
    num_ok = (
        (c("num").str.len_chars() <= 2) & c("num_a").is_between(0, 6) & c("num_b").is_between(0, 6)
    )
    is_date = c("single") & c("d1").is_not_null() & date_ok
    is_num = c("single") & c("num").is_not_null() & num_ok
    df = df.with_columns(
        pl.when(c("pair_a").is_not_null())
        .then(c(f"pair_{end}"))
        .when(c("joined_a").is_not_null())
        .then(c(f"joined_{end}"))
        .when(is_date)
        .then(c(f"date_{end}"))
        .when(is_num)
        .then(c(f"num_{end}"))
        .alias(end)
        for end in ("a", "b")
    )
    err = (
        pl.when(c("a").is_not_null())
        .then(pl.lit(None, dtype=pl.String))
        .when(c("single") & c("d1").is_not_null())
        .then(pl.lit("date"))
        .when(c("single") & c("num").is_not_null())
        .then(pl.lit("number"))
        .otherwise(pl.lit(""))
    )
    hi, lo = _ends(c("a").cast(pl.Int8), c("b").cast(pl.Int8))
    return df.select(hi.alias("hi"), lo.alias("lo"), err.alias("err"))


#: Every plain spelling of every tile (``5-3``, ``3|5``, ``5/3``, ``53`` …) → 10·hi + lo.
#: Looking a token up here is a hash probe; only what is not found goes through the regex
#: parser of :func:`parse_tokens` (spaces, dates, numbers, mistakes).
FAST: dict[str, int] = {
    f"{a}{sep}{b}": 10 * max(a, b) + min(a, b)
    for a in range(7)
    for b in range(7)
    for sep in ("-", "|", "/", "")
}


#: Every plain token a ``tiles_`` cell may hold (a :data:`FAST` spelling, ``*`` after it
#: for a dead tile) → ``10·hi + lo``, plus 100 for a dead tile.
HELD: dict[str, int] = {**FAST, **{f"{k}*": v + 100 for k, v in FAST.items()}}
#: The code of :data:`HELD` → the tile's canonical text (``"5-3"``, ``"5-3*"`` when dead).
HELD_TEXT: dict[int, str] = {
    v: f"{v % 100 // 10}-{v % 10}{'*' * (v >= 100)}" for v in HELD.values()
}
#: The canonical spellings of :data:`HELD` (``5-3``, ``5-3*``): their text is their tile's.
CANONICAL_HELD: dict[str, int] = {k: v for k, v in HELD.items() if k == HELD_TEXT[v]}
#: The code of :data:`HELD` → one bit per tile (of the 28), dead or not: a hand's tiles are
#: all different exactly when the sum of their bits has as many ones as it has tiles.
HELD_BIT: dict[int, int] = {
    v: 1 << sorted(set(FAST.values())).index(v % 100) for v in HELD.values()
}


def parse_column(df: pl.DataFrame, column: str, *, single: pl.Expr | bool = True) -> pl.DataFrame:
    """``df`` with ``hi``, ``lo`` and ``err`` for the tile token in ``column``.

    Plain spellings are looked up in :data:`FAST`; the remaining rows (usually none) are
    parsed by :func:`parse_tokens`, so the regexes run on those rows only.
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
    parsed = parse_tokens(slow, column, single=single).with_columns(slow["_fast_i"])
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


def plain_hands(frame: pl.DataFrame, *, spaced: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``frame`` with each chair's tiles read as plain tiles, in list expressions, and the
    rows of ``frame`` that are not plain (a token that is not, or a tile held twice),
    whose values in the first frame are not to be used.

    ``spaced``: tokens are taken one space apart and only canonical spellings are plain
    (``5-3 0-0*``), so that the cell is its own canonical text; otherwise tokens are
    split at spaces and commas and any spelling of :data:`HELD` is plain.
    """
    codes = CANONICAL_HELD if spaced else HELD
    coded = frame.with_columns(
        (cell.str.split(" ") if spaced else cell.str.extract_all(TOKENS))
        .list.eval(pl.element().replace_strict(codes, default=-1, return_dtype=pl.Int16))
        .alias(f"_code_{c}")
        for c, cell in ((c, pl.col(f"tiles_{c}")) for c in CHAIRS)
    ).with_columns(part for c in CHAIRS for part in _chair_parts(c))
    # a token that is not plain has no bit, a tile held twice sets its bit once: either
    # way the hand has fewer bits set than tokens
    not_plain = pl.sum_horizontal(pl.col(f"_bits_{c}") for c in CHAIRS).bitwise_count_ones() != (
        pl.sum_horizontal(pl.col(f"_n_{c}") for c in CHAIRS)
    )
    rest = frame.filter(coded.select(not_plain).to_series())
    values = []
    for v in HELD_VALUES:
        for c in CHAIRS:
            if v == "tiles" and spaced:
                value = pl.col(f"tiles_{c}")
            elif v == "tiles":
                value = (
                    pl.col(f"_code_{c}")
                    .list.eval(
                        pl.element().replace_strict(HELD_TEXT, default=None, return_dtype=pl.String)
                    )
                    .list.join(" ")
                )
            elif v == "tcount":
                value = pl.col(f"_n_{c}").cast(pl.Int64)
            else:
                value = pl.col(f"_sum_{c}")
                if v == "tsum13":
                    value = value + pl.when(pl.col(f"_13_{c}")).then(13).otherwise(0)
            values.append(pl.when(pl.col(f"_n_{c}") > 0).then(value).alias(f"{v}_{c}"))
    # the tiles_ cells are read here and replaced by the values, after the other columns
    out = coded.select(pl.exclude(HELD_COLUMNS[1:], "^_(code|n|bits|sum|13)_[a-d]$"), *values)
    return out, rest


def _chair_parts(c: str) -> list[pl.Expr]:
    """What :func:`plain_hands` needs of a chair's codes (:data:`HELD`, -1 for a token that is
    not plain): the number of tokens, the sum of their bits (:data:`HELD_BIT`), the sum of
    their ends, and whether ``0-0`` counts 13 (held with no other blank)."""
    code, e = pl.col(f"_code_{c}"), pl.element()
    bits = pl.element().replace_strict(HELD_BIT, default=0, return_dtype=pl.Int64)
    return [
        code.list.len().fill_null(0).alias(f"_n_{c}"),
        code.list.eval(bits).list.sum().alias(f"_bits_{c}"),
        code.list.eval((e % 100 // 10 + e % 10).cast(pl.Int64)).list.sum().alias(f"_sum_{c}"),
        (
            code.list.eval(e % 100 == 0).list.any()
            & ~code.list.eval((e % 10 == 0) & (e % 100 >= 10)).list.any()
        ).alias(f"_13_{c}"),
    ]
