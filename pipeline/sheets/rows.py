"""A drawn round as pre-filled hand-log rows: who sits in which chair of every hand.

The rows come from the ``seatings`` view of the round's current draw (HANDLOG.md):
unhas tables have one row per chair per regular hand after the swap schedule; a pepet
session has one row per chair (``hand`` NULL), repeated here for every hand its sheet
pre-fills. How many hands a sheet holds is the ruleset's: ``[sheet] hands`` where the file
sets it (pepet: a session has no fixed number of hands, so its sheet offers that many rows
and the reader skips the ones left blank), else ``regular_hands`` (unhas 10).
"""

from dataclasses import dataclass, field
from datetime import date

import duckdb
import polars as pl

from pipeline import rulesets
from pipeline.ingest.columns import CANONICAL, CHAIRS
from pipeline.store.db import frame


class NoDraw(LookupError):
    """The round asked for cannot be printed: no such event, or no draw for the round."""


@dataclass
class DrawnRound:
    """One drawn round of an event, ready to be written as sheets.

    ``rows`` holds the canonical hand-log columns (event, ruleset, round, table, hand,
    player_a … player_d; the result columns empty) in table and hand order.
    """

    event: str
    round: str
    ruleset: rulesets.Ruleset
    title: str
    event_date: date | None
    venue: str | None
    level: str | None
    seed: int | None
    draw_no: int | None
    rows: pl.DataFrame
    columns: list[str] = field(default_factory=list)

    @property
    def tables(self) -> list[str]:
        return self.rows.get_column("table").unique(maintain_order=True).to_list()

    def table_rows(self, table: str) -> pl.DataFrame:
        return self.rows.filter(pl.col("table") == table)

    @property
    def texts(self) -> list[str | None]:
        """What the printed pages write that a user typed: the title, the venue, every
        player seated (for :func:`pipeline.sheets.printable.unwritable`)."""
        seated = pl.concat(
            [self.rows.get_column(c) for c in self.rows.columns if c.startswith("player_")]
        )
        return [self.title, self.venue, *seated.drop_nulls().unique(maintain_order=True).to_list()]


def hands_per_sheet(book: rulesets.Ruleset) -> int:
    """Rows a table's sheet pre-fills: ``[sheet] hands``, else the regular hands of a match."""
    sheet = book.params.get("sheet", {})
    n = sheet.get("hands", book.params.get("regular_hands"))
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise rulesets.BadRuleset(
            f"{book.path or book.name}: set [sheet] hands (a whole number of hands a sheet "
            "pre-fills) or regular_hands"
        )
    return n


def drawn_round(con: duckdb.DuckDBPyConnection, event: str, round_: str) -> DrawnRound:
    """The round's current draw as pre-filled rows; :class:`NoDraw` when there is none."""
    info = con.execute(
        "SELECT ruleset, title, event_date, venue, level FROM events WHERE event = ?", [event]
    ).fetchall()
    if not info:
        raise NoDraw(f"there is no event {event!r}; create it with domino event create")
    ruleset, title, event_date, venue, level = info[0]
    draw = con.execute(
        "SELECT seed, draw_no FROM draws_t WHERE event = ? AND round = ? AND current",
        [event, round_],
    ).fetchall()
    seats = frame(
        con.sql(
            'SELECT "table", hand, chair, player FROM seatings WHERE event = ? AND round = ?',
            params=[event, round_],
        )
    )
    if not draw or seats.height == 0:
        raise NoDraw(
            f"round {round_!r} of event {event!r} has no draw yet; "
            f"draw it first with domino draw --event {event} --round {round_}"
        )
    book = rulesets.load(ruleset)
    rows = _rows(seats, event, ruleset, round_, hands_per_sheet(book))
    return DrawnRound(
        event=event,
        round=round_,
        ruleset=book,
        title=title or event,
        event_date=event_date,
        venue=venue,
        level=level,
        seed=draw[0][0],
        draw_no=draw[0][1],
        rows=rows,
        columns=book.sheet_columns or list(CANONICAL),
    )


def _rows(seats: pl.DataFrame, event: str, ruleset: str, round_: str, hands: int) -> pl.DataFrame:
    """One row per table per hand with the player of each chair; chairs that do not change
    (``hand`` NULL) are repeated for hands 1 … ``hands``."""
    seats = seats.with_columns(pl.col("table").cast(pl.String), pl.col("chair").str.to_lowercase())
    numbers = pl.DataFrame({"_h": list(range(1, hands + 1))}, schema={"_h": pl.Int64})
    fixed = seats.filter(pl.col("hand").is_null()).join(numbers, how="cross")
    fixed = fixed.with_columns(pl.col("_h").alias("hand")).drop("_h")
    moving = seats.filter(pl.col("hand").is_not_null()).with_columns(pl.col("hand").cast(pl.Int64))
    long = pl.concat([moving, fixed.select(moving.columns)])
    wide = long.pivot(on="chair", index=["table", "hand"], values="player")
    for c in CHAIRS:
        if c not in wide.columns:
            wide = wide.with_columns(pl.lit(None, dtype=pl.String).alias(c))
    number = pl.col("table").str.extract(r"^(\d+)", 1).cast(pl.Int64, strict=False)
    wide = wide.sort(number, "table", "hand", nulls_last=True)
    return wide.select(
        *(
            pl.lit(value, dtype=pl.String).alias(name)
            for name, value in (("event", event), ("ruleset", ruleset), ("round", round_))
        ),
        "table",
        "hand",
        *(pl.col(c).alias(f"player_{c}") for c in CHAIRS),
    )
