"""Turn text cells into typed hand rows, reporting every cell that cannot be read.

Input: the frame of :func:`pipeline.ingest.read.read_file` (text cells, ``_file``, ``_line``).
Output: one typed row per hand and the problems found, all computed with polars
expressions over whole columns. Ruleset-independent: what a value *means* under a
rulebook is checked in :mod:`pipeline.ingest.checks`.
"""

import difflib

import polars as pl

from pipeline import problems
from pipeline.ingest.columns import CANONICAL, CHAIRS
from pipeline.ingest.tiles import (
    HELD_COLUMNS,
    HELD_VALUES,
    TOKENS,
    canonical,
    is_date_text,
    parse_column,
    plain_hands,
)

ENDING_ALIASES = {
    "palang": "apollo",
    "balak": "all_doubles",
    "habis": "out",
    "kunci": "locked",
    "terkunci": "locked",
    "all doubles": "all_doubles",
    "all-doubles": "all_doubles",
    "walkover": "wo",
    "menang biasa": "biasa",  # RULES Art. 2.6 by its Indonesian name
}
SANCTION_CODES = ("warn", "show", "wrong")
#: The sanctions as an Indonesian referee writes them (RULES Art. 3: *teguran*, a warning;
#: *melihat / memperlihatkan kartu*, looking or showing; *kartu yang salah*, a wrong tile)
SANCTION_ALIASES = {
    "teguran": "warn",
    "tegur": "warn",
    "lihat": "show",
    "melihat": "show",
    "memperlihatkan": "show",
    "salah": "wrong",
}
#: A whole number, as a spreadsheet may have saved it: ``11``, ``11.0`` or, with a decimal
#: comma (``;`` files from Indonesian Excel), ``11,0``.
_INT = r"^[+-]?\d+(?:[.,]0+|\.)?$"  # ``3``, ``3.0``, ``3,00``, ``3.`` (a list's numbering)


def closest(written: pl.Series, choices: list[str]) -> pl.Series:
    """For each value of ``written``, the one of ``choices`` it is most likely a slip of
    (``apolo`` for ``apollo``, ``warning`` for ``warn``), or null: worked out once per
    distinct value (a file has a few), never applied, only said."""
    # a word cut short or run on (``kand``, ``warning``) is matched to a choice of one word:
    # not to a phrase's first (``menang`` would be any win, not ``menang biasa``)
    words = [c for c in choices if " " not in c]

    def guess(value: str) -> str | None:
        started = [c for c in words if min(len(c), len(value)) >= 3 and value.startswith(c)]
        started += [c for c in words if len(value) >= 3 and c.startswith(value)]
        if len(started) == 1:
            return started[0]
        return next(iter(difflib.get_close_matches(value, choices, n=1, cutoff=0.75)), None)

    distinct = written.unique().drop_nulls().to_list()
    return written.replace_strict(
        {v: guess(v) for v in distinct}, default=None, return_dtype=pl.String
    )


def with_closest(bad: pl.DataFrame, column: str, choices: list[str]) -> pl.DataFrame:
    """``bad`` (rows whose ``column`` is none of ``choices``) with ``_close``, the choice
    each most likely meant (:func:`closest`): its message says it through
    :data:`CLOSE_PARAM` and :data:`CLOSE_VARIANT` (``code.close``)."""
    return bad.with_columns(closest(bad.get_column(column), choices).alias("_close"))


#: The ``close`` parameter and variant of a message about a value :func:`with_closest` read
CLOSE_PARAM = pl.col("_close").fill_null("")
CLOSE_VARIANT = pl.when(pl.col("_close").is_not_null()).then(pl.lit("close"))


def _int(col: str) -> pl.Expr:
    c = pl.col(col)
    return pl.when(c.str.contains(_INT)).then(
        c.str.replace(r"(?:[.,]0+|\.)$", "").cast(pl.Int64, strict=False)
    )


def _label(col: str) -> pl.Expr:
    """Labels (event, round, table) are text; ``3.0`` from a spreadsheet is ``3``."""
    c = pl.col(col)
    return pl.when(c.str.contains(r"^\d+\.0+$")).then(c.str.replace(r"\.0+$", "")).otherwise(c)


# Characters that show nothing: format characters (zero-width space and joiners, word
# joiner, byte-order mark, direction marks, soft hyphen), other default-ignorable ones and
# control characters; white space (tab, NBSP, …) is not among them, it becomes one space.
INVISIBLE = r"[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cc}--\s]"


def name_expr(col: str | pl.Expr) -> pl.Expr:
    """Player names as one spelling: invisible characters removed, any white space (NBSP
    too) as one space, trimmed, Unicode NFC (``Andi`` + combining acute is ``Andí``)."""
    e = pl.col(col) if isinstance(col, str) else col
    return (
        e.str.replace_all(INVISIBLE, "")
        .str.replace_all(r"\s+", " ")
        .str.strip_chars()
        .str.normalize("NFC")
        .replace("", None)
    )


def normalize(cells: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Typed hand rows and the problems of reading their cells (in this order: numbers,
    chairs and missing values, sanctions, the last tile, the tiles left in hand)."""
    df, found = _lengths(_labels_and_names(cells))
    df = _ender_by_name(df)
    typed, more = _whole_numbers(df)
    found += more
    typed, more = _chairs_endings_sanctions(typed)
    found += more
    typed, more = _last_tile(typed)
    found += more
    typed, more = _tiles(typed)
    found += more
    return typed, _reader_issues(typed, problems.concat(found))


#: The most characters a cell of the hand log holds (a note more): a name, a label or a
#: result is a few words, and a cell beyond it is something pasted into the wrong place,
#: which would otherwise be stored, shown on every screen and printed whole in messages.
MAX_CELL = 100
MAX_NOTE = 1000


def _lengths(df: pl.DataFrame) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    """Cells longer than :data:`MAX_CELL` (a note :data:`MAX_NOTE`) characters reported,
    and cut to it for the checks after (which quote cells). Bytes are counted first: a
    cell of no more bytes than the limit has no more characters, so nearly always no
    character is counted at all."""
    limits = {c: MAX_NOTE if c == "note" else MAX_CELL for c in CANONICAL if c in df.columns}
    limits = {c: n for c, n in limits.items() if df.schema[c] == pl.String}
    suspects = df.filter(
        pl.any_horizontal(pl.col(c).str.len_bytes() > n for c, n in limits.items())
    )
    if suspects.height == 0:
        return df, []
    found = [
        problems.from_rows(
            suspects.filter(pl.col(c).str.len_chars() > n),
            column=c,
            code="too_long",
            params={"length": pl.col(c).str.len_chars(), "limit": n},
        )
        for c, n in limits.items()
    ]
    return df.with_columns(pl.col(c).str.slice(0, n) for c, n in limits.items()), found


def _labels_and_names(cells: pl.DataFrame) -> pl.DataFrame:
    """Labels as text (``3.0`` is ``3``), ruleset and ending in their spelling, the ender's
    chair in capitals, player names as one spelling; each row numbered (``_row``)."""
    return cells.with_row_index("_row").with_columns(
        _label("event").alias("event"),
        pl.col("ruleset").str.to_lowercase(),
        _label("round").alias("round"),
        _label("table").alias("table"),
        pl.col("ending").str.to_lowercase().replace(ENDING_ALIASES).alias("ending"),
        _chair_letter("ended_by").alias("ended_by"),
        *_spelled(cells, [f"player_{c}" for c in CHAIRS]),
    )


_LETTERS = ["A", "B", "C", "D"]


def _chair_letter(col: str) -> pl.Expr:
    """A chair letter in capitals; anything else as written (a message quotes it)."""
    upper = pl.col(col).str.to_uppercase()
    return pl.when(upper.is_in(_LETTERS)).then(upper).otherwise(pl.col(col))


#: A chair letter written with its word or punctuation: ``Kursi A``, ``chair b``, ``A.``, ``(C)``
_CHAIR_WRITTEN = r"^\W*(?:(?:kursi|chair)\W*)?([a-d])\W*$"


def _ender_by_name(df: pl.DataFrame) -> pl.DataFrame:
    """The ender's chair written otherwise than as its letter: with its word or
    punctuation (``Kursi A``, ``A.``), or as the name of the player in it that hand
    (``oleh: Hasan Rauf``); only the few rows with no chair letter are looked at."""
    odd = pl.col("ended_by").is_not_null() & ~pl.col("ended_by").is_in(_LETTERS)
    at = df.select(pl.arg_where(odd)).to_series()
    if at.len() == 0:  # nearly every load
        return df
    some = df[at]
    written = name_expr(pl.col("ended_by")).str.to_lowercase()
    chair = pl.coalesce(
        written.str.extract(_CHAIR_WRITTEN).str.to_uppercase(),
        *(
            pl.when(written == pl.col(f"player_{c}").str.to_lowercase()).then(pl.lit(c.upper()))
            for c in CHAIRS
        ),
        pl.col("ended_by"),
    )
    read = some.select(chair.alias("ended_by")).get_column("ended_by")
    return df.with_columns(df.get_column("ended_by").scatter(at, read))


def _spelled(cells: pl.DataFrame, columns: list[str]) -> list[pl.Expr]:
    """:func:`name_expr` of ``columns``, worked out once per distinct name and mapped back:
    a season's file has two million name cells but a few thousand names, and the
    expression's Unicode regular expressions cost ~0.6 s per 500,000 rows on every cell."""
    distinct = pl.concat([cells.get_column(c) for c in columns]).unique().drop_nulls()
    spelled = distinct.to_frame("raw").select(name_expr("raw")).to_series()
    return [
        pl.col(c).replace_strict(distinct, spelled, default=None, return_dtype=pl.String).alias(c)
        for c in columns
    ]


def _whole_numbers(df: pl.DataFrame) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    """Hand and pips as whole numbers; a cell that is not one, negative pips and a hand
    number below 1 are reported."""
    found: list[pl.DataFrame] = []
    typed = df.with_columns(
        _int("hand").alias("hand"),
        *[_int(f"pips_{c}").alias(f"pips_{c}") for c in CHAIRS],
    )
    for col in ["hand", *[f"pips_{c}" for c in CHAIRS]]:
        bad = df.filter(pl.col(col).is_not_null() & typed[col].is_null())
        found.append(
            problems.from_rows(
                bad,
                column=col,
                code="not_a_number",
                params={"value": pl.col(col)},
            )
        )
    for c in CHAIRS:
        bad = typed.filter(pl.col(f"pips_{c}") < 0)
        found.append(
            problems.from_rows(
                bad,
                column=f"pips_{c}",
                code="negative_pips",
                params={"value": pl.col(f"pips_{c}")},
            )
        )
    bad = typed.filter(pl.col("hand") < 1)
    found.append(
        problems.from_rows(
            bad, column="hand", code="bad_hand_number", params={"value": pl.col("hand")}
        )
    )
    return typed, found


def _chairs_endings_sanctions(typed: pl.DataFrame) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    """The ender's chair (A–D), the labels and ending every row needs, and the sanctions:
    codes separated by ``;`` (or ``,`` or spaces), joined back with ``;``."""
    found: list[pl.DataFrame] = []
    bad = typed.filter(pl.col("ended_by").is_not_null() & ~pl.col("ended_by").is_in(_LETTERS))
    found.append(
        problems.from_rows(
            bad,
            column="ended_by",
            code="bad_chair",
            params={"value": pl.col("ended_by")},
        )
    )
    for col in ("event", "round", "table", "ending"):
        bad = typed.filter(pl.col(col).is_null())
        found.append(problems.from_rows(bad, column=col, code="missing_value", variant=col))

    # Sanctions: codes separated by ; (or , or spaces). Nearly every cell is empty, so
    # only the rows with one are read and their cells put back in place.
    sanctions = [f"sanctions_{c}" for c in CHAIRS]
    at = typed.select(pl.arg_where(pl.any_horizontal(pl.col(sanctions).is_not_null())))
    some = typed[at.to_series()]

    def codes_of(col: str) -> pl.Expr:
        words = pl.col(col).str.to_lowercase().str.extract_all(r"[^;,\s]+")
        return words.list.eval(pl.element().replace(SANCTION_ALIASES))

    for col in sanctions:
        codes = codes_of(col)
        with_codes = some.with_columns(codes.alias("_codes")).filter(
            pl.col("_codes").list.len() > 0
        )
        bad = with_codes.explode("_codes").filter(~pl.col("_codes").is_in(list(SANCTION_CODES)))
        bad = with_closest(bad, "_codes", list(SANCTION_CODES))
        found.append(
            problems.from_rows(
                bad,
                column=col,
                code="unknown_sanction",
                params={"value": pl.col("_codes"), "close": CLOSE_PARAM},
                variant=CLOSE_VARIANT,
            )
        )
    read = some.select(
        codes_of(col).list.join(";").replace("", None).alias(col) for col in sanctions
    )
    typed = typed.with_columns(
        typed.get_column(col).clone().scatter(at.to_series(), read.get_column(col))
        for col in sanctions
    )
    return typed, found


def _last_tile(typed: pl.DataFrame) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    """The last tile played, as its canonical notation and its two halves (``last_hi``,
    ``last_lo``)."""
    typed = parse_column(typed, "last_tile", single=True)
    bad = typed.filter(pl.col("last_tile").is_not_null() & pl.col("err").is_not_null())
    found = [
        problems.from_rows(
            bad,
            column="last_tile",
            code="bad_tile",
            variant=pl.col("err"),
            params={"value": pl.col("last_tile")},
        )
    ]
    typed = (
        typed.rename({"hi": "last_hi", "lo": "last_lo"})
        .with_columns(
            pl.when(pl.col("last_hi").is_not_null())
            .then(canonical(pl.col("last_hi"), pl.col("last_lo")))
            .alias("last_tile")
        )
        .drop("err")
    )
    return typed, found


def _tiles(typed: pl.DataFrame) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    """Tiles left in each chair's hand: ``tiles_`` (canonical text), ``tcount_``, ``tsum_``
    and ``tsum13_`` of each chair, null for a chair with no tile read.

    A hand whose cells hold only plain tiles (:data:`~pipeline.ingest.tiles.HELD`), none of them twice, is read
    in list expressions (:func:`~pipeline.ingest.tiles.plain_hands`): first as the product writes tiles, canonical
    and one space apart, then any plain spelling between spaces and commas. The other
    hands (a mistake, a date, a tile held twice: usually none) go through
    :func:`_tiles_read`, which reports their problems. A date made of a tile always has
    a token that is not plain, so it never passes for plain tiles.
    """
    out, rest = plain_hands(typed, spaced=True)
    if rest.height == 0:
        return out, []
    read, slow = plain_hands(rest, spaced=False)
    patch = read.select(HELD_COLUMNS)
    found: list[pl.DataFrame] = []
    if slow.height:
        wide, found = _tiles_read(slow)
        wide = slow.select("_row").join(wide, on="_row", how="left", maintain_order="left")
        patch = patch.update(wide, on="_row", include_nulls=True)
    return out.update(patch, on="_row", include_nulls=True), found


def _tiles_read(typed: pl.DataFrame) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    """The hands :func:`_tiles` does not read in lists, exploded to one row per tile: each
    one read, a tile held twice reported, then gathered back per chair (``_row`` and the
    values of :func:`_per_chair`, for the hands with a tile read)."""
    long = _tile_tokens(typed)
    ctx = typed.select("_row", "_file", "_line", "event", "round", "table")
    bad = long.filter(pl.col("err").is_not_null()).join(ctx, on="_row")
    found = [
        problems.from_rows(
            bad,
            column=pl.format("tiles_{}", pl.col("chair").str.to_lowercase()),
            code="bad_tile",
            variant=pl.col("err"),
            params={"value": pl.col("_t").str.strip_chars()},
        )
    ]
    good = long.filter(pl.col("err").is_null())
    dup = (
        # only the (rare) repeated tiles are grouped: the check costs a hash, not a sort
        good.filter(pl.struct("_row", "hi", "lo").is_duplicated())
        .group_by("_row", "hi", "lo")
        .agg(pl.col("chair").unique().sort().alias("chairs"), pl.len().alias("n"))
        .filter(pl.col("n") > 1)
        .join(ctx, on="_row")
    )
    found.append(
        problems.from_rows(
            dup,
            column=pl.format("tiles_{}", pl.col("chairs").list.first().str.to_lowercase()),
            code="tile_twice",
            params={"tile": canonical(pl.col("hi"), pl.col("lo")), "chairs": pl.col("chairs")},
        )
    )
    return _per_chair(good), found


def _tile_tokens(typed: pl.DataFrame) -> pl.DataFrame:
    """One row per tile written in a ``tiles_`` cell (``dead`` for a tile marked ``*``),
    parsed (``hi``, ``lo`` or ``err``); a date a spreadsheet made of a tile stays whole."""
    long = pl.concat(
        [
            typed.select(
                "_row",
                pl.lit(c.upper()).alias("chair"),
                pl.when(is_date_text(pl.col(f"tiles_{c}")))
                .then(pl.concat_list(pl.col(f"tiles_{c}").str.strip_chars()))
                .otherwise(pl.col(f"tiles_{c}").str.extract_all(TOKENS))
                .alias("token"),
            ).filter(pl.col("token").list.len() > 0)
            for c in CHAIRS
        ]
    )
    long = long.with_columns(pl.col("token").list.len().alias("_n")).explode("token")
    long = long.with_columns(
        pl.col("token").str.strip_chars().str.ends_with("*").alias("dead"),
        pl.col("token").str.strip_chars().str.strip_chars_end("*").str.strip_chars().alias("_t"),
    )
    long = parse_column(long, "_t", single=pl.col("_n") == 1)
    return long


def _per_chair(good: pl.DataFrame) -> pl.DataFrame:
    """The tiles read, gathered back to one row per hand with each chair's tiles, count,
    sum and sum with ``0-0`` counted 13 (when no other blank is held)."""
    per_chair = (
        good.group_by("_row", "chair")
        .agg(
            pl.format(
                "{}{}",
                canonical(pl.col("hi"), pl.col("lo")),
                pl.when(pl.col("dead")).then(pl.lit("*")).otherwise(pl.lit("")),
            )
            .str.join(" ")
            .alias("tiles"),
            pl.len().cast(pl.Int64).alias("tcount"),
            (pl.col("hi").cast(pl.Int64) + pl.col("lo").cast(pl.Int64)).sum().alias("tsum"),
            ((pl.col("hi") == 0) & (pl.col("lo") == 0)).any().alias("has00"),
            ((pl.col("lo") == 0) & (pl.col("hi") > 0)).any().alias("blank_partner"),
        )
        .with_columns(
            (
                pl.col("tsum")
                + pl.when(pl.col("has00") & ~pl.col("blank_partner")).then(13).otherwise(0)
            ).alias("tsum13")
        )
    )
    wide = per_chair.pivot(on="chair", index="_row", values=["tiles", "tcount", "tsum", "tsum13"])
    for c in CHAIRS:
        for v in ("tiles", "tcount", "tsum", "tsum13"):
            name = f"{v}_{c.upper()}"
            if name not in wide.columns:
                wide = wide.with_columns(
                    pl.lit(None, dtype=pl.String if v == "tiles" else pl.Int64).alias(name)
                )
    return wide.select(
        "_row",
        *[pl.col(f"{v}_{c.upper()}").alias(f"{v}_{c}") for v in HELD_VALUES for c in CHAIRS],
    )


def _reader_issues(typed: pl.DataFrame, found: pl.DataFrame) -> pl.DataFrame:
    """Rows the reader marked (hidden, a formula without its value, a totals row) are
    refused for that cause alone: their other cell problems follow from it."""
    if "_issue" not in typed.columns:
        return found
    marked = typed.filter(pl.col("_issue").is_not_null())
    if marked.height == 0:
        return found
    # the reader rendered each sentence from its message id and parameters (few rows)
    issue = pl.col("_issue").struct
    own = marked.select(
        pl.col("_file").alias("file"),
        pl.col("_line").cast(pl.Int64).alias("line"),
        issue.field("column").alias("column"),
        issue.field("code").alias("code"),
        pl.lit(problems.ERROR).alias("severity"),
        issue.field("message").alias("message"),
        pl.col("event"),
        pl.col("round"),
        pl.col("table"),
        issue.field("message_id").alias("message_id"),
        issue.field("params").alias("params"),
        pl.lit(None, dtype=pl.String).alias("spelled"),
    )
    rest = found.join(own.select("file", "line").unique(), on=["file", "line"], how="anti")
    return problems.concat([own, rest])
