"""Checks that need the ruleset: what an ending, a seating or a value means under it.

Every check is a polars filter over the whole batch that yields problem rows with file,
line and column (:func:`pipeline.problems.from_rows`). Errors keep their whole match
out; warnings are reported and the match loads.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field

import polars as pl

from pipeline import problems
from pipeline.draws.seating import sources, swap_schedule
from pipeline.ingest.columns import CHAIRS
from pipeline.ingest.match import SEAT_COLUMNS, seats_long
from pipeline.ingest.normalize import CLOSE_PARAM, CLOSE_VARIANT, ENDING_ALIASES, with_closest
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


@dataclass
class _Found:
    """Problem frames in the order the checks find them (tests compare the lists)."""

    frames: list[pl.DataFrame] = field(default_factory=list)

    def add(
        self,
        bad: pl.DataFrame,
        column: str | pl.Expr,
        code: str,
        params: dict[str, pl.Expr | str | int] | None = None,
        variant: str | pl.Expr | None = None,
        severity: str = problems.ERROR,
    ) -> None:
        self.frames.append(
            problems.from_rows(
                bad, column=column, code=code, params=params, variant=variant, severity=severity
            )
        )


def row_checks(df: pl.DataFrame, book: Ruleset) -> pl.DataFrame:
    """Per-row checks for hands of the ruleset ``book`` (``df`` holds only its rows), in
    this order: the ending and who ended, who sits where, the values left in hand, the
    last tile."""
    found = _Found()
    played, wo = _ending_checks(df, book, found)
    _seating_checks(df, played, wo, book, found)
    _value_checks(df, played, book, found)
    _last_tile_checks(played, book, found)
    return problems.concat(found.frames)


#: What a referee writes for a blocked game whose blocker was caught (unhas Art. 2.4-2.5):
#: not an ending of its own, but a ``kandang`` scored from the pips
_CAUGHT = ["tangkap", "tangkap kandang", "tangkap_kandang", "tangkap-kandang", "kandang tangkap"]


def _aliases_of(endings: Iterable[str]) -> list[str]:
    """The one-word aliases of ``endings`` (``palang`` for apollo)."""
    return [alias for alias, ending in ENDING_ALIASES.items() if ending in endings]


def _ending_checks(
    df: pl.DataFrame, book: Ruleset, found: _Found
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """An ending the ruleset knows; a played hand's number and ender (a seated chair).
    Returns the rows played (a known ending, not a walkover) and the walkovers."""
    endings = book.endings
    ending_ok = pl.col("ending").is_in(list(endings))
    unknown = df.filter(pl.col("ending").is_not_null() & ~ending_ok)
    found.add(
        with_closest(unknown, "ending", [*endings, *_aliases_of(endings)]),
        "ending",
        "unknown_ending",
        {
            "value": pl.col("ending"),
            "ruleset": book.name,
            "endings": ", ".join(endings),
            "close": CLOSE_PARAM,
        },
        variant=pl.when(pl.col("ending").is_in(_CAUGHT) & pl.lit("kandang" in endings))
        .then(pl.lit("caught"))
        .otherwise(CLOSE_VARIANT),
    )
    walkover = pl.col("ending") == pl.lit(book.walkover, dtype=pl.String)
    played = df.filter(ending_ok & ~walkover.fill_null(value=False))
    wo = df.filter(walkover.fill_null(value=False))
    found.add(played.filter(pl.col("hand").is_null()), "hand", "missing_value", variant="hand")
    found.add(
        played.filter(pl.col("ended_by").is_null()), "ended_by", "missing_value", variant="ended_by"
    )
    ender_name = _chair_col("player", pl.col("ended_by"))
    found.add(
        played.filter(pl.col("ended_by").is_in(CH) & ender_name.is_null()),
        "ended_by",
        "empty_chair",
        {"chair": pl.col("ended_by")},
    )
    return played, wo


def _seating_checks(
    df: pl.DataFrame, played: pl.DataFrame, wo: pl.DataFrame, book: Ruleset, found: _Found
) -> None:
    """Who sits where: enough players for a regular hand, a tie-break hand or the table,
    a walkover with one or two, no player in two chairs."""
    params = book.flat
    n = _n_seated()
    if book.has("regular_hands"):
        regular = int(params["regular_hands"])
        minimum = int(params["min_players"])
        found.add(
            played.filter((pl.col("hand") <= regular) & (n < minimum)),
            "player_a",
            "too_few_players",
            {"need": minimum, "n": n},
            "regular",
        )
        found.add(
            played.filter((pl.col("hand") > regular) & (n < 2)),
            "player_a",
            "too_few_players",
            {"n": n},
            "tiebreak",
        )
    if book.has("walkover"):
        found.add(
            wo.filter((n < 1) | (n > 2)),
            "ending",
            "bad_walkover",
            {"n": n},
        )
    if book.has("players_per_table"):
        need = int(params["players_per_table"])
        found.add(
            played.filter(n < need),
            "player_a",
            "too_few_players",
            {"ruleset": book.name, "need": need, "n": n},
            "table",
        )
    for i, a in enumerate(CHAIRS):
        for b in CHAIRS[i + 1 :]:
            found.add(
                df.filter(
                    pl.col(f"key_{a}").is_not_null() & (pl.col(f"key_{a}") == pl.col(f"key_{b}"))
                ),
                f"player_{b}",
                "player_twice",
                {"player": pl.col(f"player_{b}"), "a": a.upper(), "b": b.upper()},
            )


def _value_checks(df: pl.DataFrame, played: pl.DataFrame, book: Ruleset, found: _Found) -> None:
    """Values left in hand: pips within bounds, at most 7 tiles, pips that agree with the
    tiles, no pips for a chair that went out, pips where the ending needs them."""
    max_pips = int(book.flat["max_pips"])
    tiles_value = "tsum13" if book.zero_zero_alone else "tsum"
    for c in CHAIRS:
        found.add(
            df.filter(pl.col(f"pips_{c}") > max_pips),
            f"pips_{c}",
            "pips_too_high",
            {"value": pl.col(f"pips_{c}"), "max": max_pips},
        )
        found.add(
            df.filter(pl.col(f"tcount_{c}") > 7),
            f"tiles_{c}",
            "too_many_tiles",
            {"n": pl.col(f"tcount_{c}")},
        )
        found.add(
            df.filter(
                pl.col(f"pips_{c}").is_not_null()
                & pl.col(f"{tiles_value}_{c}").is_not_null()
                & (pl.col(f"pips_{c}") != pl.col(f"{tiles_value}_{c}"))
            ),
            f"pips_{c}",
            "pips_tiles_disagree",
            {
                "chair": c.upper(),
                "pips": pl.col(f"pips_{c}"),
                "tiles": pl.col(f"tiles_{c}"),
                "sum": pl.col(f"{tiles_value}_{c}"),
            },
        )
        value = pl.coalesce(pl.col(f"pips_{c}"), pl.col(f"{tiles_value}_{c}"))
        is_ender = pl.col("ended_by") == c.upper()
        went_out = pl.col("ending").is_in(book.went_out)
        found.add(
            played.filter(is_ender & went_out & (value > 0)),
            f"pips_{c}",
            "ender_has_pips",
            {"chair": c.upper(), "value": value},
        )
        needs, who = _pips_needed(book, is_ender)
        found.add(
            played.filter(needs & _seated(c) & value.is_null()),
            f"pips_{c}",
            "missing_pips",
            {"ending": pl.col("ending"), "chair": c.upper(), "player": pl.col(f"player_{c}")},
            who,
        )


def _last_tile_checks(played: pl.DataFrame, book: Ruleset, found: _Found) -> None:
    """The last tile: a double for ``apollo``, not a double for ``ceki`` or ``biasa``."""
    if book.has("last_tile_double"):
        double = pl.col("last_hi") == pl.col("last_lo")
        found.add(
            played.filter(
                (pl.col("ending") == "apollo") & pl.col("last_tile").is_not_null() & ~double
            ),
            "last_tile",
            "apollo_not_double",
            {"tile": pl.col("last_tile")},
        )
        found.add(
            played.filter(
                pl.col("ending").is_in(["ceki", "biasa"])
                & pl.col("last_tile").is_not_null()
                & double
            ),
            "last_tile",
            "double_not_apollo",
            {"tile": pl.col("last_tile"), "ending": pl.col("ending")},
        )


def _pips_needed(book: Ruleset, is_ender: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Rows whose ending needs this chair's pips (``[pips_needed]`` of the ruleset), and
    who must give them (``all`` or ``all_but_ender``: the variant of ``missing_pips``)."""
    needs: pl.Expr = pl.lit(value=False)
    which: pl.Expr = pl.lit(None, dtype=pl.String)
    for ending, who in book.pips_needed.items():
        this = pl.col("ending") == ending
        if who == "all_but_ender":
            needs = needs | (this & ~is_ender)
        else:
            needs = needs | this
            who = "all"
        which = pl.when(this).then(pl.lit(who)).otherwise(which)
    return needs, which


def match_checks(df: pl.DataFrame, book: Ruleset) -> pl.DataFrame:
    """Checks over the rows of one match: hand numbering, walkovers, seating schedule."""
    found: list[pl.DataFrame] = []
    if df.height == 0:
        return problems.empty()
    wo = df.filter(pl.col("ending") == pl.lit(book.walkover, dtype=pl.String))
    if wo.height:
        mixed = df.join(wo.select(MATCH).unique(), on=MATCH).filter(pl.len().over(MATCH) > 1)
        found.append(
            problems.from_rows(
                mixed,
                column="ending",
                code="walkover_with_hands",
            )
        )
    # every numbered row but a walkover, also one whose ending is blank or unknown: that
    # row has its own error, and leaving it out here would add a false "hand 6 follows
    # hand 4" to it
    is_walkover = (
        (pl.col("ending") == book.walkover).fill_null(value=False)
        if book.walkover
        else pl.lit(value=False)
    )
    # the columns these checks read (of about sixty): the rows of a batch are copied once
    used = [*MATCH, "hand", "_file", "_line", *SEAT_COLUMNS]
    played_all = df.lazy().filter(~is_walkover, pl.col("hand").is_not_null()).select(used).collect()
    # Hand numbers: each once, 1, 2, … without gaps. Matches whose numbers are exactly
    # 1..n (nearly all) are cleared by one aggregate; only the others are examined row by row.
    numbering = played_all.group_by(MATCH).agg(
        pl.len().alias("_n"),
        pl.col("hand").n_unique().alias("_u"),
        pl.col("hand").min().alias("_lo"),
        pl.col("hand").max().alias("_hi"),
    )
    suspect = numbering.filter(
        (pl.col("_n") != pl.col("_u")) | (pl.col("_lo") != 1) | (pl.col("_hi") != pl.col("_n"))
    ).select(MATCH)
    played = played_all.join(suspect, on=MATCH, how="semi")
    # A hand twice in one file is said at each of its rows; a hand also in another file
    # of the load (two versions of one sheet) at the rows of the later file, naming the
    # first one, and not at the first file's own rows.
    hand = [*MATCH, "hand"]
    dup = played.filter(pl.len().over(hand) > 1).with_columns(
        pl.len().over([*hand, "_file"]).alias("_in_file"),
        pl.col("_file").first().over(hand).alias("_first_file"),
        pl.col("_line").first().over(hand).alias("_first_line"),
    )
    dup = dup.filter((pl.col("_in_file") > 1) | (pl.col("_file") != pl.col("_first_file")))
    found.append(
        problems.from_rows(
            dup,
            column="hand",
            code="hand_twice",
            params={
                "hand": pl.col("hand"),
                "first": pl.col("_first_file"),
                "line": pl.col("_first_line"),
            },
            variant=pl.when(pl.col("_in_file") == 1).then(pl.lit("other_file")),
        )
    )
    # a hand written twice is seen at its first row: the line a gap names is the same
    # in every run
    ordered = played.unique([*MATCH, "hand"], keep="first", maintain_order=True).sort(
        [*MATCH, "hand"]
    )
    ordered = ordered.with_columns(pl.col("hand").shift(1, fill_value=0).over(MATCH).alias("_prev"))
    gap = ordered.filter(pl.col("hand") != pl.col("_prev") + 1)
    found.append(
        problems.from_rows(
            gap,
            column="hand",
            code="hand_gap",
            params={"hand": pl.col("hand"), "prev": pl.col("_prev")},
            variant=pl.when(pl.col("_prev") == 0).then(pl.lit("first")),
        )
    )
    regular = book.flat.get("regular_hands")
    seated = _first_seats(
        played_all.filter(pl.col("hand") <= regular) if regular is not None else played_all
    )
    found.append(_seating_changes(seated))
    if book.has("swap_schedule") and book.flat.get("check_swap_schedule", True):
        schedule = swap_schedule(book.params)
        if schedule:
            hands = 10 if regular is None else int(regular)
            if regular is None:  # the seating check read every hand; the schedule, ten
                seated = _first_seats(played_all.filter(pl.col("hand") <= hands))
            found.append(_swap_schedule(seated, hands, schedule))
    return problems.concat(found)


def _first_seats(rows: pl.DataFrame) -> pl.DataFrame:
    """``rows`` with their match's first hand (``_first_hand``) and who sat in each chair
    in it (``_first_a`` … ``_first_d``): one window over the match, shared by the seating
    checks (a sort, a grouping and a join on the match's three text columns cost twice
    as much)."""
    return rows.with_columns(
        pl.col("hand").min().over(MATCH).alias("_first_hand"),
        *[
            pl.col(f"key_{c}").sort_by("hand").first().over(MATCH).alias(f"_first_{c}")
            for c in CHAIRS
        ],
    )


def _seating_changes(known: pl.DataFrame) -> pl.DataFrame:
    """A table keeps the players of its first hand for the whole match (chairs may swap,
    as the schedule says): a player who joins later is another match under the same
    table label, or a mistake, and keeps the match out. ``known``: the regular hands
    played, with their match's first seats (:func:`_first_seats`)."""
    if known.height == 0:
        return problems.empty()
    # Nearly every match seats the same players in every hand: a row is cleared when each
    # of its players sat in the match's first hand; only the matches of the other rows are
    # examined seat by seat.
    seated_before = [
        pl.col(f"key_{c}").is_null()
        | pl.any_horizontal(pl.col(f"key_{c}") == pl.col(f"_first_{d}") for d in CHAIRS)
        for c in CHAIRS
    ]
    odd = known.filter(~pl.all_horizontal(pl.all_horizontal(seated_before).fill_null(value=False)))
    if odd.height == 0:
        return problems.empty()
    rows = known.join(odd.select(MATCH).unique(), on=MATCH, how="semi")
    seats = seats_long(rows, [*MATCH, "hand", "_file", "_line"]).rename(
        {"player_key": "_key", "player": "_player"}
    )
    first = seats.filter(pl.col("hand") == pl.col("hand").min().over(MATCH))
    per_match = seats.group_by(MATCH).agg(pl.col("_key").n_unique().alias("_all"))
    per_first = first.group_by(MATCH).agg(pl.col("_key").n_unique().alias("_first"))
    suspect = (
        per_match.join(per_first, on=MATCH).filter(pl.col("_all") > pl.col("_first")).select(MATCH)
    )
    if suspect.height == 0:
        return problems.empty()
    joined = (
        seats.join(suspect, on=MATCH, how="semi")
        .join(first.select(*MATCH, "_key").unique(), on=[*MATCH, "_key"], how="anti")
        .sort("hand", "_col")
        .unique([*MATCH, "_key"], keep="first", maintain_order=True)
        .join(per_match, on=MATCH)
    )
    # who of the first hand's players is not at the table in the hand the newcomer joins:
    # one alone is most often the same person written another way (``Andi S.``)
    here = seats.group_by([*MATCH, "hand"]).agg(pl.col("_key").alias("_here"))
    gone = (
        joined.select(*MATCH, "hand", "_key")
        .join(here, on=[*MATCH, "hand"])
        .join(
            first.select(
                *MATCH, pl.col("_key").alias("_was"), pl.col("_player").alias("_left")
            ).unique([*MATCH, "_was"]),
            on=MATCH,
        )
        .filter(~pl.col("_was").is_in(pl.col("_here")))
        .group_by([*MATCH, "_key"])
        .agg(pl.col("_left").sort())
        .filter(pl.col("_left").list.len() == 1)
        .select(*MATCH, "_key", pl.col("_left").list.first())
    )
    joined = joined.join(gone, on=[*MATCH, "_key"], how="left", maintain_order="left")
    return problems.from_rows(
        joined,
        column=pl.col("_col"),
        code="seating_changed",
        params={
            "player": pl.col("_player"),
            "table": pl.col("table"),
            "hand": pl.col("hand"),
            "players": pl.col("_all"),
            "left": pl.col("_left").fill_null(""),
        },
        variant=pl.when(pl.col("_left").is_not_null()).then(pl.lit("replaced")),
    )


def _swap_schedule(
    seated: pl.DataFrame, regular_hands: int, schedule: list[tuple[int, int, str]]
) -> pl.DataFrame:
    """Warn where the recorded seating differs from the ruleset's swap schedule (``[draw]
    swaps``; unhas: Art. 1.14-1.15) applied to the match's first hand. ``seated``: the
    hands up to ``regular_hands`` with their match's first seats (:func:`_first_seats`)."""
    keys = [f"key_{c}" for c in CHAIRS]
    regular = seated.filter(pl.all_horizontal(pl.col(c).is_not_null() for c in MATCH)).select(
        *MATCH,
        "hand",
        "_file",
        "_line",
        *keys,
        "_first_hand",
        *[pl.col(f"_first_{c}").alias(f"s_{c}") for c in CHAIRS],
    )
    # for (first hand f, hand h): the chair of hand f holding the player expected in each
    # chair in hand h (the starting chair whose player sits there, read through f)
    upto = max([regular_hands, *(last for _, last, _ in schedule)])
    lookup = pl.DataFrame(
        [
            {
                "_first_hand": f,
                "hand": h,
                **{f"_from_{c}": z.lower() for c, z in zip(CHAIRS, chairs, strict=True)},
            }
            for f, h, chairs in sources(schedule, upto)
        ]
    )
    j = regular.join(
        lookup.cast({"_first_hand": regular["hand"].dtype, "hand": regular["hand"].dtype}),
        on=["_first_hand", "hand"],
        how="left",
    )
    expected = {
        c: pl.coalesce(pl.when(pl.col(f"_from_{c}") == z).then(pl.col(f"s_{z}")) for z in CHAIRS)
        for c in CHAIRS
    }
    wrong = [
        pl.when(~pl.col(f"key_{c}").eq_missing(expected[c])).then(pl.lit(c.upper())) for c in CHAIRS
    ]
    # the chairs are named only on the rows with any of them wrong (nearly none)
    any_wrong = pl.any_horizontal(~pl.col(f"key_{c}").eq_missing(expected[c]) for c in CHAIRS)
    bad = j.filter(any_wrong).with_columns(
        pl.concat_str(wrong, separator=", ", ignore_nulls=True).alias("_wrong")
    )
    return problems.from_rows(
        bad,
        column=pl.format("player_{}", pl.col("_wrong").str.slice(0, 1).str.to_lowercase()),
        code="swap_schedule",
        severity=WARNING,
        params={"hand": pl.col("hand"), "chairs": pl.col("_wrong")},
    )
