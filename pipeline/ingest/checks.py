"""Checks that need the ruleset: what an ending, a seating or a value means under it.

Every check is a polars filter over the whole batch that yields problem rows with file,
line and column (:func:`pipeline.problems.from_rows`). Errors keep their whole match
out; warnings are reported and the match loads.
"""

import polars as pl

from pipeline import problems
from pipeline.ingest.columns import CHAIRS
from pipeline.problems import WARNING
from pipeline.rulesets import Ruleset

MATCH = ["event", "round", "table"]
CH = [c.upper() for c in CHAIRS]


def _seated(c: str) -> pl.Expr:
    return pl.col(f"player_{c}").is_not_null()


def _n_seated() -> pl.Expr:
    return pl.sum_horizontal(_seated(c).cast(pl.Int32) for c in CHAIRS)


def _chair_col(prefix: str, chair: pl.Expr) -> pl.Expr:
    """The value of ``<prefix>_<chair>`` for a per-row chair letter."""
    out = pl.lit(None)
    for c in CHAIRS:
        out = pl.when(chair == c.upper()).then(pl.col(f"{prefix}_{c}")).otherwise(out)
    return out


def row_checks(df: pl.DataFrame, book: Ruleset) -> pl.DataFrame:
    """Per-row checks for hands of the ruleset ``book`` (``df`` holds only its rows)."""
    rs, params = book.name, book.flat
    found: list[pl.DataFrame] = []

    def add(bad: pl.DataFrame, column: str | pl.Expr, code: str, message: pl.Expr, severity: str = problems.ERROR) -> None:
        found.append(problems.from_rows(bad, column=column, code=code, message=message, severity=severity))

    endings = book.endings
    ending_ok = pl.col("ending").is_in(list(endings))
    add(
        df.filter(pl.col("ending").is_not_null() & ~ending_ok),
        "ending",
        "unknown_ending",
        pl.format(f"{{}} is not an ending of ruleset {rs}; use {', '.join(e for e in endings)}", pl.col("ending")),
    )
    walkover = pl.col("ending") == pl.lit(book.walkover, dtype=pl.String)
    played = df.filter(ending_ok & ~walkover.fill_null(value=False))
    wo = df.filter(walkover.fill_null(value=False))
    add(played.filter(pl.col("hand").is_null()), "hand", "missing_value", pl.lit("this hand has no hand number"))
    add(played.filter(pl.col("ended_by").is_null()), "ended_by", "missing_value", pl.lit("this hand does not say which chair ended it (ended_by)"))
    ender_name = _chair_col("player", pl.col("ended_by"))
    add(
        played.filter(pl.col("ended_by").is_in(CH) & ender_name.is_null()),
        "ended_by",
        "empty_chair",
        pl.format("chair {} is empty in this hand, so it cannot have ended it", pl.col("ended_by")),
    )

    # Who sits where.
    n = _n_seated()
    if book.has("regular_hands"):
        regular = int(params["regular_hands"])
        minimum = int(params["min_players"])
        add(
            played.filter((pl.col("hand") <= regular) & (n < minimum)),
            "player_a",
            "too_few_players",
            pl.format(f"a regular hand needs at least {minimum} players; this one seats {{}} (2 or fewer is a walkover: ending wo)", n),
        )
        add(
            played.filter((pl.col("hand") > regular) & (n < 2)),
            "player_a",
            "too_few_players",
            pl.format("a tie-break hand needs the tied players; this one seats {}", n),
        )
    if book.has("walkover"):
        add(
            wo.filter((n < 1) | (n > 2)),
            "ending",
            "bad_walkover",
            pl.format("a walkover lists the 1 or 2 players present; this row lists {} (3 players play on)", n),
        )
    if book.has("players_per_table"):
        need = int(params["players_per_table"])
        add(
            played.filter(n < need),
            "player_a",
            "too_few_players",
            pl.format(f"a {rs} hand needs {need} players; this one seats {{}}", n),
        )
    for i, a in enumerate(CHAIRS):
        for b in CHAIRS[i + 1 :]:
            add(
                df.filter(pl.col(f"key_{a}").is_not_null() & (pl.col(f"key_{a}") == pl.col(f"key_{b}"))),
                f"player_{b}",
                "player_twice",
                pl.format(f"{{}} sits in chair {a.upper()} and chair {b.upper()} of the same hand", pl.col(f"player_{b}")),
            )

    # Values left in hand.
    max_pips = int(params["max_pips"])
    tiles_value = "tsum13" if book.zero_zero_alone else "tsum"
    for c in CHAIRS:
        add(
            df.filter(pl.col(f"pips_{c}") > max_pips),
            f"pips_{c}",
            "pips_too_high",
            pl.format(f"{{}} pips cannot be left in a hand: no 7 tiles add up to more than {max_pips}", pl.col(f"pips_{c}")),
        )
        add(
            df.filter(pl.col(f"tcount_{c}") > 7),
            f"tiles_{c}",
            "too_many_tiles",
            pl.format("a player holds at most 7 tiles; this cell lists {}", pl.col(f"tcount_{c}")),
        )
        add(
            df.filter(pl.col(f"pips_{c}").is_not_null() & pl.col(f"{tiles_value}_{c}").is_not_null() & (pl.col(f"pips_{c}") != pl.col(f"{tiles_value}_{c}"))),
            f"pips_{c}",
            "pips_tiles_disagree",
            pl.format(f"pips_{c} says {{}} but tiles_{c} ({{}}) add up to {{}}", pl.col(f"pips_{c}"), pl.col(f"tiles_{c}"), pl.col(f"{tiles_value}_{c}")),
        )
        value = pl.coalesce(pl.col(f"pips_{c}"), pl.col(f"{tiles_value}_{c}"))
        is_ender = pl.col("ended_by") == c.upper()
        went_out = pl.col("ending").is_in(book.went_out)
        add(
            played.filter(is_ender & went_out & (value > 0)),
            f"pips_{c}",
            "ender_has_pips",
            pl.format(f"chair {c.upper()} went out, so it has no pips left; the row says {{}}", value),
        )
        needs, what = _pips_needed(book, is_ender)
        add(
            played.filter(needs & _seated(c) & value.is_null()),
            f"pips_{c}",
            "missing_pips",
            pl.format(f"{{}}; chair {c.upper()} ({{}}) has none", what, pl.col(f"player_{c}")),
        )

    # The last tile.
    if book.has("last_tile_double"):
        double = pl.col("last_hi") == pl.col("last_lo")
        add(
            played.filter((pl.col("ending") == "apollo") & pl.col("last_tile").is_not_null() & ~double),
            "last_tile",
            "apollo_not_double",
            pl.format("apollo means going out with a double, but the last tile is {}", pl.col("last_tile")),
        )
        add(
            played.filter(pl.col("ending").is_in(["ceki", "biasa"]) & pl.col("last_tile").is_not_null() & double),
            "last_tile",
            "double_not_apollo",
            pl.format("going out with the double {} is apollo, not {}", pl.col("last_tile"), pl.col("ending")),
        )
    return problems.concat(found)


def _pips_needed(book: Ruleset, is_ender: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Rows whose ending needs this chair's pips (``[pips_needed]`` of the ruleset), and
    the sentence that says so."""
    needs: pl.Expr = pl.lit(value=False)
    what: pl.Expr = pl.lit(None, dtype=pl.String)
    for ending, who in book.pips_needed.items():
        this = pl.col("ending") == ending
        if who == "all_but_ender":
            needs = needs | (this & ~is_ender)
            text = f"after {ending}, every chair but the one that went out needs its pips"
        else:
            needs = needs | this
            text = f"{ending} needs the pips of every seated chair"
        what = pl.when(this).then(pl.lit(text)).otherwise(what)
    return needs, what


def match_checks(df: pl.DataFrame, book: Ruleset) -> pl.DataFrame:
    """Checks over the rows of one match: hand numbering, walkovers, seating schedule."""
    found: list[pl.DataFrame] = []
    if df.height == 0:
        return problems.empty()
    wo = df.filter(pl.col("ending") == pl.lit(book.walkover, dtype=pl.String))
    if wo.height:
        mixed = df.join(wo.select(MATCH).unique(), on=MATCH).filter(
            pl.len().over(MATCH) > 1
        )
        found.append(
            problems.from_rows(
                mixed,
                column="ending",
                code="walkover_with_hands",
                message=pl.lit("a walkover row is the whole record of its table; this table also has other rows"),
            )
        )
    played_all = df.filter(pl.col("ending").ne_missing(pl.lit(book.walkover, dtype=pl.String)), pl.col("hand").is_not_null())
    # Hand numbers: each once, 1, 2, … without gaps. Matches whose numbers are exactly
    # 1..n (nearly all) are cleared by one aggregate; only the others are examined row by row.
    numbering = played_all.group_by(MATCH).agg(
        pl.len().alias("_n"), pl.col("hand").n_unique().alias("_u"), pl.col("hand").min().alias("_lo"), pl.col("hand").max().alias("_hi")
    )
    suspect = numbering.filter((pl.col("_n") != pl.col("_u")) | (pl.col("_lo") != 1) | (pl.col("_hi") != pl.col("_n"))).select(MATCH)
    played = played_all.join(suspect, on=MATCH, how="semi")
    dup = played.filter(pl.len().over([*MATCH, "hand"]) > 1)
    found.append(
        problems.from_rows(
            dup,
            column="hand",
            code="hand_twice",
            message=pl.format("hand {} appears more than once in this table", pl.col("hand")),
        )
    )
    ordered = played.unique([*MATCH, "hand"]).sort([*MATCH, "hand"])
    ordered = ordered.with_columns(pl.col("hand").shift(1, fill_value=0).over(MATCH).alias("_prev"))
    gap = ordered.filter(pl.col("hand") != pl.col("_prev") + 1)
    found.append(
        problems.from_rows(
            gap,
            column="hand",
            code="hand_gap",
            message=pl.when(pl.col("_prev") == 0)
            .then(pl.format("the first hand of a table is 1, not {}", pl.col("hand")))
            .otherwise(pl.format("hand {} follows hand {}: hands go 1, 2, … without gaps", pl.col("hand"), pl.col("_prev"))),
        )
    )
    if book.has("swap_schedule") and book.flat.get("check_swap_schedule", True):
        found.append(_swap_schedule(played_all))
    return problems.concat(found)


def _swap_schedule(played: pl.DataFrame) -> pl.DataFrame:
    """Warn where the recorded seating differs from Art. 1.14-1.15 (cumulative swaps)."""
    regular = played.filter(pl.col("hand") <= 10)
    start = (
        regular.sort("hand")
        .group_by(MATCH, maintain_order=True)
        .first()
        .select(*MATCH, *[pl.col(f"key_{c}").alias(f"s_{c}") for c in CHAIRS])
    )
    j = regular.join(start, on=MATCH)
    h = pl.col("hand")
    ac = h >= 3
    bd = h >= 7
    expected = {
        "a": pl.when(ac).then(pl.col("s_c")).otherwise(pl.col("s_a")),
        "c": pl.when(ac).then(pl.col("s_a")).otherwise(pl.col("s_c")),
        "b": pl.when(bd).then(pl.col("s_d")).otherwise(pl.col("s_b")),
        "d": pl.when(bd).then(pl.col("s_b")).otherwise(pl.col("s_d")),
    }
    wrong = [
        pl.when(~pl.col(f"key_{c}").eq_missing(expected[c])).then(pl.lit(c.upper())) for c in CHAIRS
    ]
    j = j.with_columns(pl.concat_str(wrong, separator=", ", ignore_nulls=True).alias("_wrong"))
    bad = j.filter(pl.col("_wrong") != "")
    return problems.from_rows(
        bad,
        column=pl.format("player_{}", pl.col("_wrong").str.slice(0, 1).str.to_lowercase()),
        code="swap_schedule",
        severity=WARNING,
        message=pl.format(
            "hand {}: the seating in chair(s) {} differs from the swap schedule (hands 3-6 swap A and C, hands 7-10 also B and D); loaded as recorded",
            pl.col("hand"),
            pl.col("_wrong"),
        ),
    )
