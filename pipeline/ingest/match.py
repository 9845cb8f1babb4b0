"""What names a match, and the small helpers every ingest step shares.

A match is (event, round, table). These constants and helpers are used by planning,
versioning and writing alike, so they live in one place.
"""

import functools
import io
import json
from collections.abc import Mapping, Sequence

import polars as pl

from pipeline.ingest.columns import CANONICAL, CHAIRS, NOTHING

MATCH = ["event", "round", "table"]
WRITES = ("new", "update", "correction", "withdrawn")  # outcomes that write a match version
#: A withdrawn match's version (pipeline/ingest/withdraw.py): its kind, and its content
#: hash (it has no rows to hash).
WITHDRAWN = "withdrawn"
VERSION_SCHEMA = {
    "event": pl.String,
    "round": pl.String,
    "table": pl.String,
    "version": pl.Int32,
    "content_hash": pl.String,
}
HAND_COLUMNS = [
    "event",
    "round",
    "table",
    "version",
    "hand",
    *[f"player_{c}" for c in CHAIRS],
    *[f"key_{c}" for c in CHAIRS],
    "ended_by",
    "ending",
    "last_tile",
    *[f"pips_{c}" for c in CHAIRS],
    *[f"tiles_{c}" for c in CHAIRS],
    *[f"value_{c}" for c in CHAIRS],
    *[f"sanctions_{c}" for c in CHAIRS],
    "note",
    "extra",
    "file",
    "line",
]


def match_filter(
    matches: Sequence[Mapping[str, object]], cols: list[str]
) -> tuple[str, list[object]]:
    """``(event = ? AND round = ? …) OR …`` over ``cols`` (fixed names), with its values."""
    one = "(" + " AND ".join(f'"{c}" = ?' for c in cols) + ")"
    params: list[object] = []
    for m in matches:
        params.extend(m[c] for c in cols)
    return " OR ".join([one] * len(matches)), params


FEW = 64  # up to this many matches, statements name them one by one


def hands_text(hands: list[int]) -> str:
    return ", ".join(str(h) for h in hands)


@functools.lru_cache(maxsize=65536)  # a batch holds few distinct labels
def natural(label: str) -> tuple[int, str]:
    # isdecimal, not isdigit: int() refuses "²"; and at most 18 digits (int() refuses 4,300+).
    digits = "".join(ch for ch in label if ch.isdecimal())[:18]
    return (int(digits) if digits else -1, label)


#: The columns :func:`seats_long` reads of a hand row: each chair's name and player key.
SEAT_COLUMNS = [f"{kind}_{c}" for kind in ("player", "key") for c in CHAIRS]


def seats_long(df: pl.DataFrame, cols: list[str], *, replaces: bool = False) -> pl.DataFrame:
    """One row per seated chair: ``cols`` + ``player_key, player, _col``, and with
    ``replaces`` the chair's ``replaces_x`` cell (:func:`written`; the rows' ``extra``)."""
    return pl.concat(
        [
            df.select(
                *cols,
                pl.col(f"key_{c}").alias("player_key"),
                pl.col(f"player_{c}").alias("player"),
                pl.lit(f"player_{c}").alias("_col"),
                *([written(c).alias("replaces")] if replaces else []),
            )
            for c in CHAIRS
        ]
    ).drop_nulls("player_key")


def written(chair: str) -> pl.Expr:
    """The ``replaces_x`` cell of ``chair`` as written in the row's extra columns (JSON
    text), null where none is written (a dash is none, as in a contract column)."""
    return (
        pl.col("extra")
        .str.json_path_match(f"$.replaces_{chair}")
        .str.strip_chars()
        .replace(NOTHING, None)
    )


def hand_log(rows: pl.DataFrame) -> bytes:
    """Hand rows as the CSV file they came from: the contract's columns (one a row lacks
    left empty), then every extra column any row keeps (its ``extra``, JSON, spread out
    again), so that a match written again from its rows (a hand entered at the table, a
    withdrawn match brought back) drops nothing a file gave it."""
    text = rows.select(
        pl.col(c).cast(pl.String) if c in rows.columns else pl.lit(None, pl.String).alias(c)
        for c in CANONICAL
    )
    kept = rows.get_column("extra").drop_nulls().to_list() if "extra" in rows.columns else []
    names = [
        k for k in dict.fromkeys(k for cell in kept for k in json.loads(cell)) if k not in CANONICAL
    ]
    if names:
        extra = rows.select(
            pl.col("extra").str.json_decode(pl.Struct(dict.fromkeys(names, pl.String)))
        )
        text = pl.concat([text, extra.unnest("extra")], how="horizontal")
    buf = io.StringIO()
    text.write_csv(buf, null_value="")
    return buf.getvalue().encode("utf-8")
