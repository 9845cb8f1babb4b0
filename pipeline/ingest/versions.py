"""Compare a plan's matches with what is loaded: new, unchanged, update or correction."""

from typing import Any

import duckdb
import polars as pl

from pipeline import messages, problems
from pipeline.ingest.columns import CHAIRS
from pipeline.ingest.match import (
    FEW,
    HAND_COLUMNS,
    MATCH,
    VERSION_SCHEMA,
    WITHDRAWN,
    WRITES,
    hands_text,
    match_filter,
    written,
)
from pipeline.ingest.outcome import MatchOutcome
from pipeline.problems import ERROR
from pipeline.store.db import frame, register

CONTENT = [
    "hand",
    *[f"key_{c}" for c in CHAIRS],
    "ended_by",
    "ending",
    "last_tile",
    *[f"pips_{c}" for c in CHAIRS],
    *[f"tiles_{c}" for c in CHAIRS],
    *[f"sanctions_{c}" for c in CHAIRS],
    "note",
]


def row_text(df: pl.DataFrame) -> pl.Expr:
    """A hand row's content as one text, to compare a loaded match with a new file of it:
    the :data:`CONTENT` columns, and where the row writes whom a reserve replaces (the
    extra columns ``replaces_a`` … ``replaces_d``, rule 23) those cells too, so that a
    corrected record is a change, not "unchanged" (a row without them reads as before)."""
    text = pl.concat_str(
        [pl.col(c).cast(pl.String).fill_null("") for c in CONTENT], separator="\x1f"
    )
    if "extra" not in df.columns:
        return text
    cells = [written(c) for c in CHAIRS]
    said = pl.concat_str([c.fill_null("") for c in cells], separator="\x1f")
    return (
        pl.when(pl.any_horizontal(c.is_not_null() for c in cells))
        .then(pl.concat_str([text, said], separator="\x1e"))
        .otherwise(text)
    )


#: each content column with one type, so a row hashes the same whatever types it came in
CONTENT_TYPES = {
    c: pl.Int64 if c == "hand" or c.startswith("pips_") else pl.String for c in CONTENT
}


def row_hash() -> pl.Expr:
    """One 64-bit hash per hand row of its content (``_row_hash``)."""
    return (
        pl.struct([pl.col(c).cast(t) for c, t in CONTENT_TYPES.items()])
        .hash(seed=0)
        .alias("_row_hash")
    )


def loaded(con: duckdb.DuckDBPyConnection, keys: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The current version of each match in ``keys`` and its hand rows."""
    register(con, "_keys", keys)
    try:
        current = frame(
            con.sql(
                'SELECT v.event, v.round, v."table", v.version, v.content_hash FROM match_versions v '
                'JOIN _keys k ON v.event = k.event AND v.round = k.round AND v."table" = k."table" WHERE v.current'
            )
        )
        if current.height == 0:
            prev_hands = frame(con.sql("SELECT * FROM hands LIMIT 0"))
        elif current.height <= FEW:
            # A live upload replaces a match or two: constant predicates let DuckDB skip
            # every row group of the hands table but theirs (cost follows the upload).
            where, params = match_filter(current.rows(named=True), [*MATCH, "version"])
            prev_hands = frame(con.sql(f"SELECT * FROM hands WHERE {where}", params=params))
        else:
            prev_hands = frame(
                con.sql(
                    'SELECT h.* FROM hands h JOIN match_versions v USING (event, round, "table", version) '
                    'JOIN _keys k ON v.event = k.event AND v.round = k.round AND v."table" = k."table" WHERE v.current'
                )
            )
    finally:
        con.unregister("_keys")
    return current, prev_hands


Classified = tuple[list[MatchOutcome], pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]


def classify(
    con: duckdb.DuckDBPyConnection, candidates: pl.DataFrame, reason: str | None
) -> Classified:
    """Each match of ``candidates`` against its loaded version: new, unchanged, update,
    correction, or rejected (a correction without a reason).

    Returns the outcomes, the rows to write (with their version), the loaded rows they
    replace, ``event, round, table, version, content_hash`` of every match to write, and
    the problems found.
    """
    found: list[pl.DataFrame] = []
    if candidates.height == 0:
        return (
            [],
            candidates,
            pl.DataFrame(schema={c: pl.String for c in HAND_COLUMNS}),
            pl.DataFrame(schema=VERSION_SCHEMA),
            problems.empty(),
        )
    current, prev_hands = loaded(con, candidates.select(MATCH).unique())
    current = current.join(open_for_entry(con), on=MATCH, how="left").with_columns(
        pl.col("open").fill_null(value=False)
    )
    hashes = (
        candidates.select(*MATCH, "hand", "_file", "_line", row_hash())
        .group_by(MATCH)
        .agg(
            # the match's rows in hand order, each as its hash: no text is built for a
            # match never loaded, and the same rows hash the same on every path
            pl.col("_row_hash").sort_by("hand").alias("_row_hashes"),
            pl.len().alias("n"),
            pl.col("_file").sort_by("hand").first(),
            pl.col("_line").min(),
        )
        .with_columns(pl.col("_row_hashes").hash(seed=0).cast(pl.String).alias("content_hash"))
        .drop("_row_hashes")
    )
    merged = hashes.join(current, on=MATCH, how="left", suffix="_old")
    # Matches never loaded are new, version 1: no comparison, no per-row Python.
    fresh = merged.filter(pl.col("version").is_null())
    merged = merged.filter(pl.col("version").is_not_null())
    # one str object per distinct value: a batch has ~50k matches but few events and files
    same: dict[str, str] = {}
    outcomes = [
        MatchOutcome(
            event=same.setdefault(e, e),
            round=same.setdefault(r, r),
            table=same.setdefault(t, t),
            status="new",
            file=same.setdefault(f, f),
            hands=n,
            version=1,
        )
        for e, r, t, f, n in zip(
            *(fresh.get_column(c).to_list() for c in (*MATCH, "_file", "n")), strict=True
        )
    ]
    versions_frames = [
        fresh.select(*MATCH, pl.lit(1, dtype=pl.Int32).alias("version"), "content_hash")
    ]
    # matches loaded before are compared hand by hand, on their text
    new_text = candidates.join(merged.select(MATCH), on=MATCH, how="semi")
    new_text = new_text.select(*MATCH, "hand", "_line", row_text(new_text).alias("text"))
    old_text = (
        prev_hands.select(*MATCH, "hand", row_text(prev_hands).alias("text_old"))
        if prev_hands.height
        else pl.DataFrame(
            schema={**{c: pl.String for c in MATCH}, "hand": pl.Int32, "text_old": pl.String}
        )
    )
    cmp = new_text.join(
        old_text.cast({"hand": pl.Int64}), on=[*MATCH, "hand"], how="full", coalesce=True
    )
    per_match = cmp.group_by(MATCH).agg(
        pl.col("hand").filter(pl.col("text").is_null()).sort().alias("dropped"),
        pl.col("hand")
        .filter(
            pl.col("text").is_not_null()
            & pl.col("text_old").is_not_null()
            & (pl.col("text") != pl.col("text_old"))
        )
        .sort()
        .alias("changed"),
        pl.col("hand").filter(pl.col("text_old").is_null()).sort().alias("added"),
        # where a referee should look first: the line of the first changed hand
        pl.col("_line")
        .filter(
            pl.col("text").is_not_null()
            & pl.col("text_old").is_not_null()
            & (pl.col("text") != pl.col("text_old"))
        )
        .min()
        .alias("changed_line"),
    )
    merged = merged.join(per_match, on=MATCH, how="left")
    versions = []
    for row in merged.iter_rows(named=True):  # loaded before: unchanged, update or correction
        o = _outcome(row, reason, found)
        outcomes.append(o)
        if o.status in WRITES:
            versions.append(
                {
                    "event": o.event,
                    "round": o.round,
                    "table": o.table,
                    "version": o.version,
                    "content_hash": row["content_hash"],
                }
            )
    versions_frames.append(pl.DataFrame(versions, schema=VERSION_SCHEMA))
    vdf = pl.concat(versions_frames)
    if merged.height == 0:
        # every match is new (a first load): all of them are written as version 1, so
        # the rows need no join with the versions on the text key
        candidates = candidates.with_columns(pl.lit(1, dtype=pl.Int32).alias("version"))
    else:
        # matches written get their new version; unchanged and refused ones drop out
        candidates = candidates.drop("version").join(vdf.select(*MATCH, "version"), on=MATCH)
    previous = prev_hands.join(vdf.select(MATCH), on=MATCH) if prev_hands.height else prev_hands
    return outcomes, candidates, previous, vdf, problems.concat(found)


def open_for_entry(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """``event, round, table, open`` of the matches open for hand entry at the table
    (migration 010): their hands may change without a reason until the referee closes them."""
    return frame(
        con.sql(
            'SELECT event, round, "table", true AS open FROM match_entry WHERE closed_at IS NULL'
        )
    )


def _outcome(row: dict[str, Any], reason: str | None, found: list[pl.DataFrame]) -> MatchOutcome:
    """What a file does to one loaded match; a correction without a reason adds a problem,
    except in a match still open for entry (a referee fixing a hand before closing it)."""
    o = MatchOutcome(
        event=row["event"],
        round=row["round"],
        table=row["table"],
        status="new",
        file=row["_file"],
        hands=row["n"],
    )
    dropped = [h for h in row["dropped"] or [] if h is not None]
    changed = [h for h in row["changed"] or [] if h is not None]
    added = [h for h in row["added"] or [] if h is not None]
    if row.get("content_hash_old") == WITHDRAWN:
        # a withdrawn match brought back (its file again, or `domino withdraw --undo`): a
        # correction, so that a withdrawal stands until somebody says why it should not
        what = [messages.ref("match.back", {})]
    elif not dropped and not changed and not added:
        o.status, o.version = "unchanged", row["version"]
        o.say("match.unchanged", {"version": row["version"]})
        return o
    elif not dropped and not changed:
        o.status, o.version = "update", row["version"] + 1
        o.say("hands.adds", {"hands": hands_text(added)})
        return o
    else:
        o.changed_hands = sorted(set(dropped) | set(changed))
        what = [
            messages.ref(mid, {"hands": hands_text(hands)})
            for mid, hands in (
                ("hands.changes", changed),
                ("hands.drops", dropped),
                ("hands.adds", added),
            )
            if hands
        ]
    # a correction: it needs a reason (none while the match is open for entry)
    if row.get("open") and not reason:
        o.status, o.version = "update", row["version"] + 1
        o.say("match.entry_edit", {"what": what})
    elif reason:
        o.status, o.version = "correction", row["version"] + 1
        o.say("match.correction", {"what": what, "reason": reason})
    else:
        o.status = "rejected"
        o.say("correction_needs_reason", {"what": what, "version": row["version"]})
        found.append(
            problems.frame(
                [
                    {
                        "file": row["_file"],
                        "line": row["changed_line"] or row["_line"],
                        "column": "hand",
                        "code": "correction_needs_reason",
                        "severity": ERROR,
                        "message": o.message,
                        "event": row["event"],
                        "round": row["round"],
                        "table": row["table"],
                        "message_id": o.message_id,
                        "params": messages.to_json(o.params),
                    }
                ]
            )
        )
    return o
