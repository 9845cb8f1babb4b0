"""Plan an upload: read rows → normalise → validate → score → version, writing nothing.

:func:`plan` works on any connection (read-only is enough): the dashboard shows a plan
as the upload preview, and :func:`pipeline.ingest.writer.commit` writes it. Each step is
a room of its own, entered once and in this order:

1. :mod:`~pipeline.ingest.normalize` types every cell;
2. :mod:`~pipeline.ingest.resolve` finds each event's ruleset and each name's player;
3. :mod:`~pipeline.ingest.checks` (rows and matches, as the ruleset asks) and
   :mod:`~pipeline.ingest.cross` (across matches) find every problem;
4. :mod:`pipeline.scoring.models` scores the matches with no error;
5. :mod:`~pipeline.ingest.versions` compares them with what is loaded.

A match (event, round, table) with an error stays out whole.
"""

import json
from collections.abc import Collection, Iterable

import duckdb
import polars as pl

from pipeline import messages, problems, rulesets
from pipeline.ingest import cross, drawcheck, substitutes
from pipeline.ingest.checks import match_checks, row_checks
from pipeline.ingest.columns import CHAIRS
from pipeline.ingest.match import HAND_COLUMNS, MATCH, natural
from pipeline.ingest.normalize import normalize
from pipeline.ingest.outcome import MatchOutcome, Plan, default_user
from pipeline.ingest.read import Sheet, read_entries
from pipeline.ingest.resolve import (
    resolve_events,
    resolve_labels,
    resolve_players,
    resolve_rulesets,
)
from pipeline.ingest.sheet import TableKey, Unplayed
from pipeline.ingest.versions import classify
from pipeline.players import first_spellings
from pipeline.problems import ERROR
from pipeline.rounds import round_key
from pipeline.scoring.models import (
    HAND_POINTS_COLUMNS,
    KEPT_BATCH,
    TABLE_STANDINGS_COLUMNS,
    empty_results,
    kept_name,
    kept_rows,
    score,
    score_kept,
)
from pipeline.store.db import is_postgres


def plan(
    con: duckdb.DuckDBPyConnection,
    sheets: list[Sheet],
    files: list[dict[str, object]] | None = None,
    *,
    event: str | None = None,
    ruleset: str | None = None,
    reason: str | None = None,
    by: str | None = None,
    keep_scores: bool = False,
) -> Plan:
    """Work out what loading ``sheets`` would do, without writing anything.

    ``keep_scores`` (the load's own planning, on the connection that commits the plan):
    a big batch's hand points stay on a DuckDB connection for the commit to write
    (:attr:`Plan.kept_points`) instead of being read out into ``Plan.hand_points``."""
    files = files if files is not None else read_entries(sheets)[1]
    reason = (reason or "").strip() or None
    by = by or default_user()
    _skip_unplayed(con, files, sheets, (event or "").strip() or None)
    found: list[pl.DataFrame] = [
        e.frame() for f in files if isinstance(e := f.get("error"), problems.FileRejected)
    ]
    found += [s.notes for s in sheets if s.notes.height]  # sheets of a workbook skipped or refused
    found += [n for f in files if isinstance(n := f.get("notes"), pl.DataFrame)]  # files skipped
    if not sheets:
        return _empty_plan(files, found, reason, by)
    frame = pl.concat([s.frame for s in sheets], how="vertical_relaxed")
    filled: dict[str, tuple[str, int]] = {}
    for name, value in (("event", (event or "").strip()), ("ruleset", (ruleset or "").strip())):
        if value:
            value = value.lower() if name == "ruleset" else value
            filled[name] = (value, frame.get_column(name).null_count())
            frame = frame.with_columns(pl.col(name).fill_null(value))
    typed, cell_problems = normalize(frame)
    typed, cell_problems, junk = _junk_files(typed, cell_problems, files)
    found += junk
    found.append(cell_problems)
    typed, event_problems, known = resolve_events(con, typed)
    found.append(event_problems)
    typed, rs_problems, new_events = resolve_rulesets(typed, known)
    found.append(rs_problems)
    typed, label_problems = resolve_labels(con, typed)
    found.append(label_problems)
    typed, key_problems = resolve_players(con, typed)
    found.append(key_problems)
    found += _checks(con, typed, new_events)

    candidates = _candidates(typed, problems.concat(found))
    keep = keep_scores and not is_postgres(con)
    candidates, hand_points, table_standings, kept = _score(con, candidates, found, keep=keep)
    outcomes, candidates, previous, versions, class_problems = classify(con, candidates, reason)
    scored = len(outcomes)  # one outcome per match scored, whether it is written or not
    found.append(class_problems)
    found.append(drawcheck.next_round_drawn(con, candidates, table_standings))
    found += [
        cross.session_shape(con, candidates.filter(pl.col("rs") == rs), rulesets.load(rs))
        for rs in _rulesets_in(candidates)
        if rulesets.load(rs).has("session_shape")
    ]
    all_problems = _spelled(
        _unreadable_not_missing(problems.concat(found)).with_columns(
            messages.readable(pl.col("message")).alias("message")
        ),
        sheets,
    )
    hand_points, table_standings = _with_versions(candidates, scored, hand_points, table_standings)
    outcomes += _rejected(all_problems, typed, outcomes)
    outcomes.sort(key=lambda o: (o.event, round_key(o.round), natural(o.table)))

    hands = candidates.with_columns(
        pl.col("_file").alias("file"), pl.col("_line").alias("line")
    ).select(HAND_COLUMNS)
    loaded_events = set(candidates.get_column("event").unique().to_list())
    return Plan(
        files=files,
        problems=all_problems.sort("file", "line", nulls_last=False, maintain_order=True),
        outcomes=outcomes,
        hands=hands,
        hand_points=hand_points.select(HAND_POINTS_COLUMNS),
        table_standings=table_standings.select(TABLE_STANDINGS_COLUMNS),
        previous=previous,
        new_events={e: r for e, r in new_events.items() if e in loaded_events},
        names=first_spellings(candidates),
        reason=reason,
        by=by,
        versions=versions,
        kept_points=kept,
        filled=filled,
    )


#: A file is refused whole when at least this many of its rows, and half of them, hold
#: cells that cannot be read: a wrong or hostile file then costs what reading it costs,
#: not a report of every cell of every row.
JUNK_ROWS = 1000


def _skip_unplayed(
    con: duckdb.DuckDBPyConnection,
    files: list[dict[str, object]],
    sheets: list[Sheet],
    event: str | None,
) -> None:
    """A pre-filled sheet with no result yet whose tables are each read from another sheet
    of this plan (the untouched ``.csv`` beside the ``.xlsx`` a referee filled in, or a
    copy exported under another name) or loaded already (entered on the hand-entry page,
    or loaded from its filled-in sheet before, also in an earlier batch of this load)
    holds nothing to load: it is skipped with a warning naming where its table is, not
    refused. Tables are as the sheets write them (``event`` for a blank event cell)."""
    waiting = [(f, e) for f in files if isinstance(e := f.get("error"), Unplayed)]
    if not waiting:  # nearly every load
        return

    def with_event(keys: Iterable[TableKey]) -> list[TableKey]:
        return sorted(((ev or event, rd, tb) for ev, rd, tb in keys), key=str)

    here: dict[TableKey, str] = {}
    for sheet in sheets:
        for key in with_event(sheet.tables):
            here.setdefault(key, sheet.file)
    asked = {e: with_event(e.tables) for _, e in waiting}
    loaded = _loaded_tables(con, {ev for keys in asked.values() for ev, _, _ in keys if ev})
    for f, e in waiting:
        keys = asked[e]
        if not all(k in here or k in loaded for k in keys):
            continue
        if keys[0] in here:
            note = problems.file_warning(
                e.file, "sheet_skipped", {**e.params, "twin": here[keys[0]]}, variant="twin"
            )
        else:
            version, file = loaded[keys[0]]
            params = {**e.params, "version": version, "file": file}
            note = problems.file_warning(e.file, "sheet_skipped", params, variant="loaded")
        f["error"] = None
        f["notes"] = note


def _loaded_tables(
    con: duckdb.DuckDBPyConnection, events: set[str]
) -> dict[TableKey, tuple[int, str]]:
    """Every match of ``events`` loaded and not withdrawn: its current version and file."""
    if not events:
        return {}
    marks = ", ".join("?" * len(events))
    rows = con.execute(
        'SELECT event, round, "table", version, file FROM match_versions '
        f"WHERE current AND kind <> 'withdrawn' AND event IN ({marks})",
        sorted(events),
    ).fetchall()
    return {(ev, rd, tb): (version, file) for ev, rd, tb, version, file in rows}


def _junk_files(
    typed: pl.DataFrame, cell_problems: pl.DataFrame, files: list[dict[str, object]]
) -> tuple[pl.DataFrame, pl.DataFrame, list[pl.DataFrame]]:
    """Refuse the files most of whose rows cannot be read, and drop their rows."""
    bad = (
        cell_problems.filter(pl.col("severity") == problems.ERROR)
        .group_by("file")
        .agg(
            pl.col("line").n_unique().alias("bad"),
            pl.col("line").min().alias("line"),
            pl.col("column").sort_by("line").first().alias("column"),
        )
    )
    bad = bad.filter(pl.col("bad") >= JUNK_ROWS)
    if bad.height == 0:  # nearly every load: no file's rows need counting
        return typed, cell_problems, []
    rows = typed.group_by("_file").agg(pl.len().alias("rows")).rename({"_file": "file"})
    junk = bad.join(rows, on="file").filter(pl.col("bad") * 2 >= pl.col("rows"))
    if junk.height == 0:
        return typed, cell_problems, []
    refused = []
    for row in junk.iter_rows(named=True):  # one per refused file
        exc = problems.FileRejected(
            str(row["file"]),
            "too_many_problems",
            {
                "bad": row["bad"],
                "rows": row["rows"],
                "line": row["line"],
                "column": row["column"] or "",
            },
        )
        for f in files:
            if f["file"] == row["file"]:
                f["error"] = exc
        refused.append(exc.frame())
    names = junk.get_column("file").to_list()
    return (
        typed.filter(~pl.col("_file").is_in(names)),
        cell_problems.filter(~pl.col("file").is_in(names)),
        refused,
    )


def _rulesets_in(typed: pl.DataFrame) -> list[str]:
    return sorted(typed.get_column("rs").drop_nulls().unique().to_list()) if typed.height else []


def _checks(
    con: duckdb.DuckDBPyConnection, typed: pl.DataFrame, new: Collection[str] = ()
) -> list[pl.DataFrame]:
    """Every check of the rows, the matches and across matches, as each ruleset asks
    (``new``: the events this load creates)."""
    found: list[pl.DataFrame] = []
    for rs in _rulesets_in(typed):
        part = typed.filter(pl.col("rs") == rs)
        book = rulesets.load(rs)
        found.append(row_checks(part, book))
        found.append(match_checks(part, book))
    found.append(cross.two_tables(con, typed))
    found.append(cross.keyless_rows(typed))
    found.append(drawcheck.against_draw(con, typed))
    found.append(drawcheck.drawn_elsewhere(con, typed, new))
    found.append(substitutes.check(con, typed))
    return drawcheck.without_echoes(found)


def _candidates(typed: pl.DataFrame, found: pl.DataFrame) -> pl.DataFrame:
    """Rows of the matches without an error, with each chair's value left in hand."""
    bad = found.filter(pl.col("severity") == ERROR).select(MATCH).unique()
    keyed = pl.all_horizontal(pl.col(c).is_not_null() for c in [*MATCH, "rs"])
    # with no error at all (a clean load) there is nothing to take out: an anti-join with
    # an empty frame still hashed every row's text key (0.3 s per 500,000 rows)
    candidates = (typed.join(bad, on=MATCH, how="anti") if bad.height else typed).filter(keyed)
    parts = []
    for rs in _rulesets_in(candidates):
        book = rulesets.load(rs)
        tiles = "tsum13" if book.zero_zero_alone else "tsum"
        went_out = pl.col("ending").is_in(book.went_out)
        parts.append(
            candidates.filter(pl.col("rs") == rs).with_columns(
                # the chair that went out has value 0
                pl.when((pl.col("ended_by") == c.upper()) & went_out)
                .then(pl.lit(0, dtype=pl.Int64))
                .otherwise(pl.col(f"pips_{c}").fill_null(pl.col(f"{tiles}_{c}")))
                .alias(f"value_{c}")
                for c in CHAIRS
            )
        )
    if not parts:
        parts = [
            candidates.with_columns(
                pl.lit(None, dtype=pl.Int64).alias(f"value_{c}") for c in CHAIRS
            )
        ]
    return pl.concat(parts).with_columns(pl.lit(0, dtype=pl.Int32).alias("version"))


def _score(
    con: duckdb.DuckDBPyConnection,
    candidates: pl.DataFrame,
    found: list[pl.DataFrame],
    *,
    keep: bool,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, list[str]]:
    """Score what passed, then the checks that need scores (tie-break seating).

    With ``keep`` (a load into a DuckDB database), a ruleset's part of at least
    :data:`~pipeline.scoring.models.KEPT_BATCH` rows keeps its hand points on ``con``
    (:func:`~pipeline.scoring.models.score_kept`); their temporary tables are returned
    last, and the commit writes the rows of the matches it writes from them."""
    hp_parts: list[pl.DataFrame] = []
    ts_parts: list[pl.DataFrame] = []
    kept: list[str] = []
    for rs in _rulesets_in(candidates):
        book = rulesets.load(rs)
        part = candidates.filter(pl.col("rs") == rs)
        name = kept_name(len(kept))
        hp: pl.DataFrame | None = None
        if keep and part.height >= KEPT_BATCH:
            ts = score_kept(con, part, rs, name)
            kept.append(name)
        else:
            hp, ts = score(part, rs)
        if book.has("tiebreak_seating") and (extra := cross.tiebreak_matches(part, book)).height:
            points = hp if hp is not None else kept_rows(con, name, extra)
            totals = cross.regular_totals(points.join(extra, on=MATCH, how="semi"))
            tb = cross.tiebreak_check(part, totals, book)
            if tb.height:
                found.append(tb)
                # the commit writes a kept table's rows of the matches it writes only
                drop = tb.select(MATCH).unique()
                hp = hp.join(drop, on=MATCH, how="anti") if hp is not None else None
                ts = ts.join(drop, on=MATCH, how="anti")
                candidates = candidates.join(drop, on=MATCH, how="anti")
        if hp is not None:
            hp_parts.append(hp)
        ts_parts.append(ts)
    empty_hp, empty_ts = empty_results()
    return (
        candidates,
        pl.concat([empty_hp, *hp_parts]),
        pl.concat([empty_ts, *ts_parts]),
        kept,
    )


def _with_versions(
    candidates: pl.DataFrame, scored: int, hand_points: pl.DataFrame, table_standings: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Scores of the matches to write, with their new version numbers."""
    keep = candidates.select(*MATCH, "version").unique()
    if keep.height == scored and keep.get_column("version").n_unique() == 1:
        # every scored match is written, all under one version (a first load): no join
        # of the hand points (four rows a hand) on the text key is needed
        version = pl.lit(keep.get_column("version")[0], dtype=pl.Int32).alias("version")
        return hand_points.with_columns(version), table_standings.with_columns(version)
    return hand_points.drop("version").join(keep, on=MATCH), table_standings.drop("version").join(
        keep, on=MATCH
    )


def _rejected(
    all_problems: pl.DataFrame, typed: pl.DataFrame, outcomes: list[MatchOutcome]
) -> list[MatchOutcome]:
    """Every match with an error and no outcome yet is rejected; its message sums up its
    problems (one grouping over all problems, not a filter per match)."""
    errors = all_problems.filter(
        pl.col("severity") == ERROR, *[pl.col(c).is_not_null() for c in MATCH]
    )
    if errors.height == 0:  # a clean load: no list of what has an outcome is needed
        return []
    seen = pl.DataFrame(
        [(o.event, o.round, o.table) for o in outcomes],
        schema=dict.fromkeys(MATCH, pl.String),
        orient="row",
    )
    summary = (
        errors.group_by(MATCH, maintain_order=True)
        .agg(
            pl.len().alias("count"),
            pl.col("message_id").head(3).alias("ids"),
            pl.col("params").head(3).alias("params"),
        )
        .join(seen, on=MATCH, how="anti")
        .join(
            typed.group_by(MATCH).agg(pl.col("_file").first(), pl.len().alias("n")),
            on=MATCH,
            how="left",
        )
    )
    out = []
    for row in summary.iter_rows(named=True):
        o = MatchOutcome(
            event=row["event"],
            round=row["round"],
            table=row["table"],
            status="rejected",
            file=row["_file"] or "",
            hands=row["n"] or 0,
        )
        first = [
            messages.ref(m, json.loads(p or "{}"))
            for m, p in zip(row["ids"], row["params"], strict=True)
        ]
        o.say("match.rejected", {"count": row["count"], "problems": first})
        out.append(o)
    return out


def _unreadable_not_missing(found: pl.DataFrame) -> pl.DataFrame:
    """A cell reported unreadable (``kocokan: satu is not a whole number``) is not reported
    again as empty by the checks that see it typed as nothing."""
    missing = pl.col("code") == "missing_value"
    if found.height == 0 or not found.select(missing.any()).item():
        return found
    keys = ["file", "line", "column"]
    said = (
        found.filter(pl.col("code") == "not_a_number")
        .select(keys)
        .unique()
        .with_columns(pl.lit(value=True).alias("_said"))
    )
    return (
        found.join(said, on=keys, how="left", maintain_order="left")
        .filter(~(missing & pl.col("_said").fill_null(value=False)))
        .drop("_said")
    )


def _spelled(found: pl.DataFrame, sheets: list[Sheet]) -> pl.DataFrame:
    """Each problem's column as its file spelled the header, where that differs from the
    contract's name (``kartu_terakhir`` for ``last_tile``)."""
    spelled = {
        f"{s.file}\x1f{name}": raw for s in sheets for name, raw in s.headers.items() if raw != name
    }
    if not spelled or found.height == 0:
        return found
    key = pl.concat_str([pl.col("file"), pl.col("column")], separator="\x1f")
    return found.with_columns(
        pl.coalesce(
            pl.col("spelled"), key.replace_strict(spelled, default=None, return_dtype=pl.String)
        ).alias("spelled")
    )


def _empty_plan(
    files: list[dict[str, object]], found: list[pl.DataFrame], reason: str | None, by: str
) -> Plan:
    hp, ts = empty_results()
    return Plan(
        files=files,
        problems=problems.concat(found),
        outcomes=[],
        hands=pl.DataFrame(schema={c: pl.String for c in HAND_COLUMNS}),
        hand_points=hp,
        table_standings=ts,
        previous=pl.DataFrame(schema={c: pl.String for c in HAND_COLUMNS}),
        new_events={},
        names=pl.DataFrame(schema={"player_key": pl.String, "player": pl.String}),
        reason=reason,
        by=by,
    )
