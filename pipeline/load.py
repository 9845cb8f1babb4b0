"""Ingest: read → normalise → validate → score → classify → write, a match whole or not at all.

:func:`plan` works on any connection (read-only is enough) and writes nothing: the
dashboard shows a plan as the upload preview. :func:`commit` writes a plan in one
transaction. :func:`ingest` does both on one write connection, so nothing can slip in
between.

A match is (event, round, table). A file that brings a match already loaded brings a new
version of it: an *update* when it only adds hands, a *correction* when it changes or
drops a loaded hand (which needs a reason). The old rows stay, marked superseded.
"""

import difflib
import getpass
import json
import os
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

import duckdb
import polars as pl

from pipeline import problems, rulesets, settings
from pipeline.io.columns import CHAIRS
from pipeline.io.read import Sheet, display_name, read_file
from pipeline.normalize import normalize
from pipeline.problems import ERROR, FileRejected
from pipeline.score import HAND_POINTS_COLUMNS, TABLE_STANDINGS_COLUMNS, score
from pipeline.store.db import insert_frame
from pipeline.validate import match_checks, row_checks

MATCH = ["event", "round", "table"]
_WRITES = ("new", "update", "correction")  # outcomes that write a match version
VERSION_SCHEMA = {"event": pl.String, "round": pl.String, "table": pl.String, "version": pl.Int32, "content_hash": pl.String}
HAND_COLUMNS = [
    "event", "round", "table", "version", "hand",
    *[f"player_{c}" for c in CHAIRS], *[f"key_{c}" for c in CHAIRS],
    "ended_by", "ending", "last_tile",
    *[f"pips_{c}" for c in CHAIRS], *[f"tiles_{c}" for c in CHAIRS],
    *[f"value_{c}" for c in CHAIRS], *[f"sanctions_{c}" for c in CHAIRS],
    "note", "extra", "file", "line",
]
#: The fields that make a hand what it is; lineage and extra columns do not.
CONTENT = [
    "hand", *[f"key_{c}" for c in CHAIRS], "ended_by", "ending", "last_tile",
    *[f"pips_{c}" for c in CHAIRS], *[f"tiles_{c}" for c in CHAIRS],
    *[f"sanctions_{c}" for c in CHAIRS], "note",
]


@dataclass(slots=True)
class MatchOutcome:
    event: str
    round: str
    table: str
    status: str  # new | update | correction | unchanged | rejected
    file: str
    hands: int = 0
    version: int | None = None
    message: str = ""
    changed_hands: list[int] = field(default_factory=list)


@dataclass
class Plan:
    files: list[dict[str, object]]
    problems: pl.DataFrame
    outcomes: list[MatchOutcome]
    hands: pl.DataFrame
    hand_points: pl.DataFrame
    table_standings: pl.DataFrame
    previous: pl.DataFrame  # loaded hands of the matches this plan replaces
    new_events: dict[str, str]
    names: pl.DataFrame
    reason: str | None
    by: str
    ingest_id: int | None = None
    #: ``event, round, table, version, content_hash`` of every match this plan writes
    versions: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=VERSION_SCHEMA))

    @property
    def errors(self) -> pl.DataFrame:
        return self.problems.filter(pl.col("severity") == ERROR)

    @property
    def warnings(self) -> pl.DataFrame:
        return self.problems.filter(pl.col("severity") != ERROR)

    def release(self) -> "Plan":
        """Drop the row frames once written (the database has them); keep the report."""
        for name in ("hands", "hand_points", "table_standings", "previous", "names", "versions"):
            setattr(self, name, getattr(self, name).head(0))
        return self

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def writes(self) -> list[MatchOutcome]:
        return [o for o in self.outcomes if o.status in _WRITES]

    @property
    def exit_code(self) -> int:
        """0 when every match loaded (or was already loaded), 1 when anything was rejected."""
        file_errors = any(f.get("error") for f in self.files)
        return 1 if file_errors or self.count("rejected") or self.errors.height else 0


def default_user() -> str:
    try:
        return os.environ.get("DOMINO_USER") or getpass.getuser()
    except Exception:
        return "unknown"


# --- planning ------------------------------------------------------------------------------


def read_all(paths: list[str | Path], *, held: Path | None = None) -> tuple[list[Sheet], list[dict[str, object]]]:
    """Read files; ``held`` is the database this process holds, which is never opened
    here (closing it would drop DuckDB's lock on it while we write)."""
    sheets: list[Sheet] = []
    files: list[dict[str, object]] = []
    for p in paths:
        try:
            if held is not None and _same_file(p, held):
                raise FileRejected(display_name(Path(p).name), "not_a_hand_log", "this is the results database itself, not a hand log")
            s = read_file(p)
            sheets.append(s)
            files.append({"file": s.file, "sha256": s.sha256, "rows": s.rows, "error": None})
        except FileRejected as exc:
            files.append({"file": exc.file, "sha256": None, "rows": 0, "error": exc})
    return sheets, files


def plan(
    con: duckdb.DuckDBPyConnection,
    sheets: list[Sheet],
    files: list[dict[str, object]] | None = None,
    *,
    event: str | None = None,
    ruleset: str | None = None,
    reason: str | None = None,
    by: str | None = None,
) -> Plan:
    """Work out what loading ``sheets`` would do, without writing anything."""
    files = files if files is not None else [
        {"file": s.file, "sha256": s.sha256, "rows": s.rows, "error": None} for s in sheets
    ]
    reason = (reason or "").strip() or None
    by = by or default_user()
    found: list[pl.DataFrame] = [f["error"].frame() for f in files if f.get("error")]  # type: ignore[union-attr]
    empty = _empty_plan(files, found, reason, by)
    if not sheets:
        return empty
    frame = pl.concat([s.frame for s in sheets], how="vertical_relaxed")
    if event:
        frame = frame.with_columns(pl.col("event").fill_null(event.strip()))
    if ruleset:
        frame = frame.with_columns(pl.col("ruleset").fill_null(ruleset.strip().lower()))
    typed, cell_problems = normalize(frame)
    found.append(cell_problems)

    typed, rs_problems, event_rs, new_events = _resolve_rulesets(con, typed)
    found.append(rs_problems)
    typed, key_problems = _resolve_players(con, typed, event_rs)
    found.append(key_problems)

    for rs in rulesets.NAMES:
        part = typed.filter(pl.col("rs") == rs)
        if part.height:
            params = rulesets.load(rs).flat
            found.append(row_checks(part, rs, params))
            found.append(match_checks(part, rs, params))
    found.append(_two_tables(con, typed))
    found.append(_keyless_rows(typed))

    all_problems = problems.concat(found)
    bad = _bad_matches(all_problems)
    candidates = typed.join(bad, on=MATCH, how="anti").filter(
        pl.col("event").is_not_null() & pl.col("round").is_not_null() & pl.col("table").is_not_null() & pl.col("rs").is_not_null()
    )
    candidates = candidates.with_columns(
        *[pl.col(f"pips_{c}").fill_null(pl.when(pl.col("rs") == "pepet").then(pl.col(f"tsum13_{c}")).otherwise(pl.col(f"tsum_{c}"))).alias(f"value_{c}") for c in CHAIRS],
    ).with_columns(
        # the chair that went out has value 0
        *[
            pl.when((pl.col("ended_by") == c.upper()) & pl.col("ending").is_in(["apollo", "ceki", "biasa", "out"]))
            .then(pl.lit(0, dtype=pl.Int64))
            .otherwise(pl.col(f"value_{c}"))
            .alias(f"value_{c}")
            for c in CHAIRS
        ],
        pl.lit(0, dtype=pl.Int32).alias("version"),
    )

    # Score what passed, then the checks that need scores (tie-break seating).
    hp_parts, ts_parts = [], []
    for rs in rulesets.NAMES:
        part = candidates.filter(pl.col("rs") == rs)
        if part.height:
            hp, ts = score(part, rs)
            if rs == "unhas":
                tb = _tiebreak_check(part, hp, ts)
                if tb.height:
                    found.append(tb)
                    drop = tb.select(MATCH).unique()
                    hp = hp.join(drop, on=MATCH, how="anti")
                    ts = ts.join(drop, on=MATCH, how="anti")
                    candidates = candidates.join(drop, on=MATCH, how="anti")
            hp_parts.append(hp)
            ts_parts.append(ts)
    hand_points, table_standings = (pl.concat(hp_parts), pl.concat(ts_parts)) if hp_parts else score(candidates.head(0), "unhas")

    # Compare with what is loaded: new, unchanged, update or correction.
    scored = candidates.select(MATCH).n_unique() if candidates.height else 0
    outcomes, candidates, previous, versions, class_problems = _classify(con, candidates, reason)
    found.append(class_problems)
    found.append(_session_shape(con, candidates, typed))
    all_problems = problems.concat(found).with_columns(_readable(pl.col("message")))

    # Scores of the matches to write, with their new version numbers.
    keep = candidates.select(*MATCH, "version").unique()
    if keep.height == scored and keep.get_column("version").n_unique() == 1:
        # every scored match is written, all under one version (a first load): no join
        # of the hand points (four rows a hand) on the text key is needed
        version = pl.lit(keep.get_column("version")[0], dtype=pl.Int32).alias("version")
        hand_points = hand_points.with_columns(version)
        table_standings = table_standings.with_columns(version)
    else:
        hand_points = hand_points.drop("version").join(keep, on=MATCH)
        table_standings = table_standings.drop("version").join(keep, on=MATCH)
    # Every match with an error and no outcome yet is rejected; its message sums up its
    # problems (one grouping over all problems, not a filter per match).
    seen = pl.DataFrame(
        [(o.event, o.round, o.table) for o in outcomes], schema=dict.fromkeys(MATCH, pl.String), orient="row"
    )
    summary = (
        all_problems.filter(pl.col("severity") == ERROR, *[pl.col(c).is_not_null() for c in MATCH])
        .group_by(MATCH, maintain_order=True)
        .agg(pl.len().alias("count"), pl.col("message").head(3).str.join("; ").alias("first"))
        .join(seen, on=MATCH, how="anti")
        .join(typed.group_by(MATCH).agg(pl.col("_file").first(), pl.len().alias("n")), on=MATCH, how="left")
    )
    for row in summary.iter_rows(named=True):
        outcomes.append(
            MatchOutcome(
                event=row["event"], round=row["round"], table=row["table"], status="rejected",
                file=row["_file"] or "", hands=row["n"] or 0,
                message=f"{row['count']} problem(s): {row['first']}",
            )
        )
    outcomes.sort(key=lambda o: (o.event, o.round, _natural(o.table)))

    names = first_spellings(candidates)
    hands = candidates.with_columns(pl.col("_file").alias("file"), pl.col("_line").alias("line")).select(HAND_COLUMNS)
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
        names=names,
        reason=reason,
        by=by,
        versions=versions,
    )


def _readable(message: pl.Expr, limit: int = 400) -> pl.Expr:
    """A message quoting a huge cell keeps its head and its tail (which says what is wrong)."""
    return (
        pl.when(message.str.len_chars() > limit)
        .then(pl.concat_str([message.str.slice(0, limit - 120), pl.lit(" … "), message.str.slice(-100)]))
        .otherwise(message)
        .alias("message")
    )


def first_spellings(hands: pl.DataFrame) -> pl.DataFrame:
    """``player_key, player``: how each player was first written in these hand rows."""
    indexed = hands.with_row_index("_first_row")
    per_chair = [
        indexed.select("_first_row", pl.lit(i).alias("_chair"), pl.col(f"key_{c}").alias("player_key"), pl.col(f"player_{c}").alias("player"))
        .drop_nulls("player_key")
        .unique("player_key", keep="first", maintain_order=True)
        for i, c in enumerate(CHAIRS)
    ]
    return (
        pl.concat(per_chair)
        .sort("_first_row", "_chair")
        .unique("player_key", keep="first", maintain_order=True)
        .select("player_key", "player")
    )


def _natural(label: str) -> tuple[int, str]:
    # isdecimal, not isdigit: int() refuses "²"; and at most 18 digits (int() refuses 4,300+).
    digits = "".join(ch for ch in label if ch.isdecimal())[:18]
    return (int(digits) if digits else -1, label)


def _empty_plan(files: list[dict[str, object]], found: list[pl.DataFrame], reason: str | None, by: str) -> Plan:
    empty_hp = pl.DataFrame(schema={c: pl.String for c in HAND_POINTS_COLUMNS})
    empty_ts = pl.DataFrame(schema={c: pl.String for c in TABLE_STANDINGS_COLUMNS})
    return Plan(
        files=files, problems=problems.concat(found), outcomes=[],
        hands=pl.DataFrame(schema={c: pl.String for c in HAND_COLUMNS}),
        hand_points=empty_hp,
        table_standings=empty_ts,
        previous=pl.DataFrame(schema={c: pl.String for c in HAND_COLUMNS}),
        new_events={}, names=pl.DataFrame(schema={"player_key": pl.String, "player": pl.String}),
        reason=reason, by=by,
    )


def _bad_matches(found: pl.DataFrame) -> pl.DataFrame:
    return (
        found.filter(pl.col("severity") == ERROR)
        .select(MATCH)
        .unique()
    )


def _resolve_rulesets(con: duckdb.DuckDBPyConnection, typed: pl.DataFrame):
    uploaded = typed.get_column("event").drop_nulls().unique().to_list()
    known = _known_events(con, uploaded)
    found: list[pl.DataFrame] = []
    bad_name = typed.filter(pl.col("ruleset").is_not_null() & ~pl.col("ruleset").is_in(list(rulesets.NAMES)))
    found.append(
        problems.from_rows(
            bad_name, column="ruleset", code="unknown_ruleset",
            message=pl.format(f"{{}} is not a ruleset; use {' or '.join(rulesets.NAMES)}", pl.col("ruleset")),
        )
    )
    declared = (
        typed.filter(pl.col("ruleset").is_in(list(rulesets.NAMES)))
        .group_by("event", maintain_order=True)
        .agg(pl.col("ruleset").first().alias("declared"))
    )
    event_rs: dict[str, str] = {}
    new_events: dict[str, str] = {}
    for ev in typed.get_column("event").drop_nulls().unique(maintain_order=True).to_list():
        if ev in known:
            event_rs[ev] = known[ev]
    for row in declared.iter_rows(named=True):
        if row["event"] is not None and row["event"] not in event_rs:
            event_rs[row["event"]] = row["declared"]
            new_events[row["event"]] = row["declared"]
    mapping = pl.DataFrame({"event": list(event_rs), "rs": list(event_rs.values())}, schema={"event": pl.String, "rs": pl.String})
    typed = typed.join(mapping, on="event", how="left")
    changed = typed.filter(pl.col("rs").is_not_null() & pl.col("ruleset").is_in(list(rulesets.NAMES)) & (pl.col("ruleset") != pl.col("rs")))
    found.append(
        problems.from_rows(
            changed, column="ruleset", code="ruleset_changed",
            message=pl.format("event {} is played under ruleset {}; this row says {} (an event's ruleset is fixed)", pl.col("event"), pl.col("rs"), pl.col("ruleset")),
        )
    )
    missing = typed.filter(pl.col("rs").is_null() & pl.col("event").is_not_null())
    first = missing.unique("event", keep="first", maintain_order=True)
    found.append(
        problems.from_rows(
            missing.join(first.select("_row"), on="_row"), column="ruleset", code="missing_ruleset",
            message=pl.format("event {} is new, so its first file must name the ruleset (column ruleset, or --ruleset unhas|pepet)", pl.col("event")),
        )
    )
    # the other rows of such an event are kept out by their match; say so once per match
    rest = missing.join(first.select("_row"), on="_row", how="anti").unique(MATCH, keep="first")
    found.append(
        problems.from_rows(
            rest, column="ruleset", code="missing_ruleset",
            message=pl.format("event {} has no ruleset yet (see the first row of this event)", pl.col("event")),
        )
    )
    return typed, problems.concat(found), event_rs, new_events


def _known_events(con: duckdb.DuckDBPyConnection, uploaded: list[str]) -> dict[str, str]:
    """``event → ruleset`` of the loaded events among ``uploaded`` (not of every event)."""
    if not uploaded:
        return {}
    if len(uploaded) <= _FEW:
        # the events table's primary key answers these without reading the whole table
        where, params = _match_filter([{"event": e} for e in uploaded], ["event"])
        return dict(con.execute(f"SELECT event, ruleset FROM events WHERE {where}", params).fetchall())
    known = con.sql("SELECT event, ruleset FROM events").pl()
    return dict(known.filter(pl.col("event").is_in(uploaded)).iter_rows())


def alias_map(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    return dict(con.execute("SELECT alias_key, player_key FROM aliases").fetchall())


def player_key(name: pl.Expr, aliases: dict[str, str]) -> pl.Expr:
    """A player's identity: the name folded to lower case, then through the registry's aliases."""
    key = name.str.to_lowercase()
    return key.replace(aliases) if aliases else key


def _resolve_players(con: duckdb.DuckDBPyConnection, typed: pl.DataFrame, event_rs: dict[str, str]):
    aliases = alias_map(con)
    typed = typed.with_columns(player_key(pl.col(f"player_{c}"), aliases).alias(f"key_{c}") for c in CHAIRS)
    registry = con.execute("SELECT player_key, player FROM registry").fetchall()
    if not registry:
        return typed, problems.empty()
    found = []
    known = {k for k, _ in registry}
    names = [n for _, n in registry]
    need = [rs for rs in rulesets.NAMES if rulesets.load(rs).flat.get("require_registered")]
    scope = typed.filter(pl.col("rs").is_in(need))
    for c in CHAIRS:
        bad = scope.filter(pl.col(f"key_{c}").is_not_null() & ~pl.col(f"key_{c}").is_in(list(known)))
        if not bad.height:
            continue
        suggestions = {
            n: ", ".join(difflib.get_close_matches(n, names, n=3, cutoff=0.5)) or "none close"
            for n in bad.get_column(f"player_{c}").unique().to_list()
        }
        bad = bad.with_columns(pl.col(f"player_{c}").replace_strict(suggestions, default="").alias("_sugg"))
        found.append(
            problems.from_rows(
                bad, column=f"player_{c}", code="unregistered_player",
                message=pl.format("{} is not in the player registry; closest registered names: {}", pl.col(f"player_{c}"), pl.col("_sugg")),
            )
        )
    return typed, problems.concat(found)


def _seats_long(df: pl.DataFrame, cols: list[str]) -> pl.DataFrame:
    return pl.concat(
        [df.select(*cols, pl.col(f"key_{c}").alias("player_key"), pl.col(f"player_{c}").alias("player"), pl.lit(f"player_{c}").alias("_col")) for c in CHAIRS]
    ).drop_nulls("player_key")


def _two_tables(con: duckdb.DuckDBPyConnection, typed: pl.DataFrame) -> pl.DataFrame:
    """One player at two tables of one round: both matches out (in one batch), or the new one."""
    rows = typed.filter(pl.col("event").is_not_null() & pl.col("round").is_not_null() & pl.col("table").is_not_null())
    if rows.height == 0:
        return problems.empty()
    seats = _seats_long(rows, [*MATCH, "_file", "_line"])
    first = seats.unique([*MATCH, "player_key"], keep="first", maintain_order=True)
    tables = first.group_by("event", "round", "player_key").agg(pl.col("table").unique().sort().alias("tables"))
    clash = first.join(tables.filter(pl.col("tables").list.len() > 1), on=["event", "round", "player_key"])
    found = [
        problems.from_rows(
            clash, column=pl.col("_col"), code="player_two_tables",
            message=pl.format("{} plays at tables {} of round {} in this upload; a player sits at one table per round", pl.col("player"), pl.col("tables").list.join(" and "), pl.col("round")),
        )
    ]
    keys = rows.select("event", "round").unique()
    loaded = _loaded_seats(con, keys)
    if loaded.height:
        batch_tables = rows.select(MATCH).unique()
        loaded = loaded.join(batch_tables.rename({"table": "loaded_table"}), on=["event", "round", "loaded_table"], how="anti")
        clash2 = first.join(loaded, on=["event", "round", "player_key"]).filter(pl.col("table") != pl.col("loaded_table"))
        found.append(
            problems.from_rows(
                clash2, column=pl.col("_col"), code="player_two_tables",
                message=pl.format("{} already plays at table {} of round {} (loaded earlier); a player sits at one table per round", pl.col("player"), pl.col("loaded_table"), pl.col("round")),
            )
        )
    return problems.concat(found)


def _keyless_rows(typed: pl.DataFrame) -> pl.DataFrame:
    """A row that does not say its event, round or table may be a hand of any match of its
    file that agrees on the rest: those matches stay out too, so none loads without it."""
    has = [pl.col(c).is_not_null() for c in MATCH]
    orphans = typed.filter(~pl.all_horizontal(has))
    if orphans.height == 0:
        return problems.empty()
    keyed = typed.filter(pl.all_horizontal(has)).select("_file", *MATCH).unique()
    hits = (
        orphans.select("_file", "_line", *[pl.col(c).alias(f"_{c}") for c in MATCH])
        .join(keyed, on="_file")
        .filter(pl.all_horizontal(pl.col(f"_{c}").is_null() | (pl.col(f"_{c}") == pl.col(c)) for c in MATCH))
    )
    missing = pl.when(pl.col("_event").is_null()).then(pl.lit("event")).when(pl.col("_round").is_null()).then(pl.lit("round")).otherwise(pl.lit("table"))
    return problems.from_rows(
        hits, column=missing, code="row_without_match",
        message=pl.format(
            "line {} of this file does not say its {}, so it may be a hand of this match (round {}, table {}); the match loads when that row is fixed or removed",
            pl.col("_line"), missing, pl.col("round"), pl.col("table"),
        ),
    )


def _loaded_seats(con: duckdb.DuckDBPyConnection, keys: pl.DataFrame) -> pl.DataFrame:
    if keys.height <= _FEW:
        where, params = _match_filter(keys.rows(named=True), ["event", "round"])
        return con.sql(
            'SELECT event, round, "table" AS loaded_table, player_key '
            f"FROM table_standings_t WHERE {where or 'false'}",
            params=params,
        ).pl()
    con.register("_keys", keys)
    try:
        return con.sql(
            'SELECT t.event, t.round, t."table" AS loaded_table, t.player_key '
            "FROM table_standings_t t JOIN _keys k ON t.event = k.event AND t.round = k.round"
        ).pl()
    finally:
        con.unregister("_keys")


def _tiebreak_check(part: pl.DataFrame, hp: pl.DataFrame, ts: pl.DataFrame) -> pl.DataFrame:
    """Hands after the regular ones may seat only players tied on their totals."""
    regular = int(rulesets.load("unhas").flat["regular_hands"])
    extra = part.filter(pl.col("hand") > regular)
    if extra.height == 0:
        return problems.empty()
    # Ties on the regular total (+ all sanctions), before any tie-break game points.
    # Tied on the regular hands only: a tie-break hand's own points or sanctions must not
    # untie the players it was played between.
    regular_totals = hp.filter(~pl.col("tiebreak")).group_by([*MATCH, "player_key"]).agg(pl.col("points").sum())
    groups = regular_totals.with_columns(pl.len().over([*MATCH, "points"]).alias("tied"))
    seats = _seats_long(extra, [*MATCH, "hand", "_file", "_line"]).join(groups, on=[*MATCH, "player_key"], how="left")
    per_hand = seats.group_by([*MATCH, "hand", "_file", "_line"]).agg(
        (pl.col("tied").fill_null(1) > 1).all().alias("all_tied"),
        pl.col("points").n_unique().alias("groups"),
        pl.col("player").str.join(", ").alias("players"),
        pl.col("tied").max().alias("max_tied"),
    )
    regular_count = part.filter(pl.col("hand") <= regular).group_by(MATCH).agg(pl.len().alias("n_regular"))
    per_hand = per_hand.join(regular_count, on=MATCH, how="left")
    bad = per_hand.filter(~pl.col("all_tied") | (pl.col("groups") > 1))
    return problems.from_rows(
        bad, column="hand", code="tiebreak_not_tied",
        message=pl.when(pl.col("max_tied").fill_null(1) <= 1)
        .then(pl.format(f"a match is {regular} regular hands; hand {{}} can only be a tie-break between tied players, and these players ({{}}) are not tied", pl.col("hand"), pl.col("players")))
        .otherwise(pl.format("tie-break hand {} seats players who were not tied with each other ({})", pl.col("hand"), pl.col("players"))),
    )


def _row_text(df: pl.DataFrame) -> pl.Expr:
    return pl.concat_str([pl.col(c).cast(pl.String).fill_null("") for c in CONTENT], separator="\x1f")


def _classify(con: duckdb.DuckDBPyConnection, candidates: pl.DataFrame, reason: str | None):
    found: list[pl.DataFrame] = []
    outcomes: list[MatchOutcome] = []
    if candidates.height == 0:
        return outcomes, candidates, pl.DataFrame(schema={c: pl.String for c in HAND_COLUMNS}), pl.DataFrame(schema=VERSION_SCHEMA), problems.empty()
    keys = candidates.select(MATCH).unique()
    con.register("_keys", keys)
    try:
        current = con.sql(
            'SELECT v.event, v.round, v."table", v.version, v.content_hash FROM match_versions v '
            'JOIN _keys k ON v.event = k.event AND v.round = k.round AND v."table" = k."table" WHERE v.current'
        ).pl()
        if current.height == 0:
            prev_hands = con.sql("SELECT * FROM hands LIMIT 0").pl()
        elif current.height <= _FEW:
            # A live upload replaces a match or two: constant predicates let DuckDB skip
            # every row group of the hands table but theirs (cost follows the upload).
            where, params = _match_filter(current.rows(named=True), [*MATCH, "version"])
            prev_hands = con.sql(f"SELECT * FROM hands WHERE {where}", params=params).pl()
        else:
            prev_hands = con.sql(
                'SELECT h.* FROM hands h JOIN match_versions v USING (event, round, "table", version) '
                'JOIN _keys k ON v.event = k.event AND v.round = k.round AND v."table" = k."table" WHERE v.current'
            ).pl()
    finally:
        con.unregister("_keys")
    new_text = candidates.select(*MATCH, "hand", "_file", "_line", _row_text(candidates).alias("text"))
    hashes = (
        new_text.sort("hand", nulls_last=False)
        .group_by(MATCH)
        .agg(pl.col("text").str.join("\x1e").alias("blob"), pl.len().alias("n"), pl.col("_file").first(), pl.col("_line").min())
        .with_columns(pl.col("blob").hash(seed=0).cast(pl.String).alias("content_hash"))
    )
    merged = hashes.join(current, on=MATCH, how="left", suffix="_old")
    # Matches never loaded are new, version 1: no comparison, no per-row Python.
    fresh = merged.filter(pl.col("version").is_null())
    merged = merged.filter(pl.col("version").is_not_null())
    # one str object per distinct value: a batch has ~50k matches but few events and files
    same: dict[str, str] = {}
    outcomes = [
        MatchOutcome(event=same.setdefault(e, e), round=same.setdefault(r, r), table=same.setdefault(t, t), status="new", file=same.setdefault(f, f), hands=n, version=1)
        for e, r, t, f, n in zip(*(fresh.get_column(c).to_list() for c in (*MATCH, "_file", "n")), strict=True)
    ]
    versions_frames = [fresh.select(*MATCH, pl.lit(1, dtype=pl.Int32).alias("version"), "content_hash")]
    new_text = new_text.join(merged.select(MATCH), on=MATCH, how="semi")
    old_text = prev_hands.select(*MATCH, "hand", _row_text(prev_hands).alias("text_old")) if prev_hands.height else pl.DataFrame(schema={**{c: pl.String for c in MATCH}, "hand": pl.Int32, "text_old": pl.String})
    cmp = new_text.join(old_text.cast({"hand": pl.Int64}), on=[*MATCH, "hand"], how="full", coalesce=True)
    per_match = cmp.group_by(MATCH).agg(
        pl.col("hand").filter(pl.col("text").is_null()).sort().alias("dropped"),
        pl.col("hand").filter(pl.col("text").is_not_null() & pl.col("text_old").is_not_null() & (pl.col("text") != pl.col("text_old"))).sort().alias("changed"),
        pl.col("hand").filter(pl.col("text_old").is_null()).sort().alias("added"),
        # where a referee should look first: the line of the first changed hand
        pl.col("_line").filter(pl.col("text").is_not_null() & pl.col("text_old").is_not_null() & (pl.col("text") != pl.col("text_old"))).min().alias("changed_line"),
    )
    merged = merged.join(per_match, on=MATCH, how="left")
    versions = []
    for row in merged.iter_rows(named=True):  # loaded before: unchanged, update or correction
        o = MatchOutcome(event=row["event"], round=row["round"], table=row["table"], status="new", file=row["_file"], hands=row["n"])
        dropped = [h for h in row["dropped"] or [] if h is not None]
        changed = [h for h in row["changed"] or [] if h is not None]
        added = [h for h in row["added"] or [] if h is not None]
        if not dropped and not changed and not added:
            o.status, o.version = "unchanged", row["version"]
            o.message = f"already loaded as version {row['version']}; nothing changed"
        elif not dropped and not changed:
            o.status, o.version = "update", row["version"] + 1
            o.message = f"adds hand(s) {_hands_text(added)}"
        else:
            o.changed_hands = sorted(set(dropped) | set(changed))
            what = []
            if changed:
                what.append(f"changes hand(s) {_hands_text(changed)}")
            if dropped:
                what.append(f"drops hand(s) {_hands_text(dropped)}")
            if added:
                what.append(f"adds hand(s) {_hands_text(added)}")
            if reason:
                o.status, o.version = "correction", row["version"] + 1
                o.message = " and ".join(what) + f" (reason: {reason})"
            else:
                o.status = "rejected"
                o.message = (
                    f"this file {' and '.join(what)} of the loaded version {row['version']}; "
                    "a correction needs a reason (--reason)"
                )
                found.append(
                    problems.frame(
                        [{
                            "file": row["_file"], "line": row["changed_line"] or row["_line"], "column": "hand",
                            "code": "correction_needs_reason", "severity": ERROR,
                            "message": o.message, "event": row["event"], "round": row["round"], "table": row["table"],
                        }]
                    )
                )
        outcomes.append(o)
        if o.status in _WRITES:
            versions.append({"event": o.event, "round": o.round, "table": o.table, "version": o.version, "content_hash": row["content_hash"]})
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


_FEW = 64  # up to this many matches, statements name them one by one


def _match_filter(matches: list[dict[str, object]], cols: list[str]) -> tuple[str, list[object]]:
    """``(event = ? AND round = ? …) OR …`` over ``cols`` (fixed names), with its values."""
    one = "(" + " AND ".join(f'"{c}" = ?' for c in cols) + ")"
    params: list[object] = []
    for m in matches:
        params.extend(m[c] for c in cols)
    return " OR ".join([one] * len(matches)), params


def _hands_text(hands: list[int]) -> str:
    return ", ".join(str(h) for h in hands)


def _session_shape(con: duckdb.DuckDBPyConnection, candidates: pl.DataFrame, typed: pl.DataFrame) -> pl.DataFrame:
    """pepet: warn when a session is not 12 players on 3 tables (counting what is loaded)."""
    part = candidates.filter(pl.col("rs") == "pepet")
    if part.height == 0:
        return problems.empty()
    params = rulesets.load("pepet").flat
    want_p, want_t = int(params["session_players"]), int(params["session_tables"])
    seats = _seats_long(part, ["event", "round", "table"]).select("event", "round", "table", "player_key")
    keys = part.select("event", "round").unique()
    loaded = _loaded_seats(con, keys).rename({"loaded_table": "table"}).select("event", "round", "table", "player_key")
    loaded = loaded.join(part.select(MATCH).unique(), on=MATCH, how="anti")
    allseats = pl.concat([seats, loaded])
    shape = allseats.group_by("event", "round").agg(
        pl.col("table").n_unique().alias("tables"), pl.col("player_key").n_unique().alias("players")
    ).filter((pl.col("tables") != want_t) | (pl.col("players") != want_p))
    first = part.unique(["event", "round"], keep="first").select("event", "round", "table", "_file", "_line")
    bad = first.join(shape, on=["event", "round"])
    return problems.from_rows(
        bad, column="round", code="session_shape", severity=problems.WARNING,
        message=pl.format(f"session {{}} has {{}} players on {{}} tables so far; a session is {want_p} players on {want_t} tables", pl.col("round"), pl.col("players"), pl.col("tables")),
    )


# --- writing -------------------------------------------------------------------------------


def begin_ingest(con: duckdb.DuckDBPyConnection, p: Plan) -> int:
    """Record that a load started, committed on its own: an interrupted load stays visible."""
    ingest_id = int(con.execute("SELECT nextval('ingest_seq')").fetchall()[0][0])
    now = datetime.now()
    for f in p.files:
        con.execute(
            "INSERT INTO ingests (ingest_id, file, sha256, rows, loaded_by, started_at, reason, status) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 'started')",
            [ingest_id, f["file"], f.get("sha256"), f.get("rows"), p.by, now, p.reason],
        )
    p.ingest_id = ingest_id
    return ingest_id


def commit(con: duckdb.DuckDBPyConnection, p: Plan) -> Plan:
    """Write a plan: every accepted match whole, in one transaction, with the ingest log."""
    ingest_id = p.ingest_id if p.ingest_id is not None else begin_ingest(con, p)
    writes = p.writes
    if p.versions.height != len(writes):
        # every match version written needs its content hash from planning
        raise ValueError("this plan's versions do not match its writes; plan again before committing")
    if any(o.status == "correction" for o in writes):
        backup_before_correction(con)
    now = datetime.now()
    con.execute("BEGIN TRANSACTION")
    try:
        if p.new_events:
            hashes = {rs: rulesets.load(rs).hash for rs in set(p.new_events.values())}
            events = pl.DataFrame(
                {
                    "event": list(p.new_events),
                    "ruleset": list(p.new_events.values()),
                    "params_hash": [hashes[rs] for rs in p.new_events.values()],
                },
                schema={"event": pl.String, "ruleset": pl.String, "params_hash": pl.String},
            ).with_columns(pl.lit(now).alias("created_at"), pl.lit(p.by, dtype=pl.String).alias("created_by"))
            insert_frame(con, "events", events, on_conflict="ON CONFLICT DO NOTHING")
        if writes:
            w = pl.DataFrame(
                {
                    "event": [o.event for o in writes], "round": [o.round for o in writes],
                    "table": [o.table for o in writes], "version": [o.version for o in writes],
                    "kind": [o.status for o in writes], "file": [o.file for o in writes],
                    "hands": [o.hands for o in writes],
                    "changed_hands": [_hands_text(o.changed_hands) or None for o in writes],
                },
                schema={"event": pl.String, "round": pl.String, "table": pl.String, "version": pl.Int32, "kind": pl.String, "file": pl.String, "hands": pl.Int32, "changed_hands": pl.String},
            )
            con.register("_w", w)
            replaced = [{"event": o.event, "round": o.round, "table": o.table} for o in writes if (o.version or 1) > 1]
            if len(replaced) > _FEW:
                con.execute(
                    'UPDATE match_versions SET current = false, superseded_at = ?, superseded_by = ? '
                    'FROM _w WHERE match_versions.event = _w.event AND match_versions.round = _w.round '
                    'AND match_versions."table" = _w."table" AND match_versions.current',
                    [now, ingest_id],
                )
                for t in ("hand_points_t", "table_standings_t"):
                    con.execute(
                        f'DELETE FROM {t} USING _w WHERE {t}.event = _w.event AND {t}.round = _w.round AND {t}."table" = _w."table"'
                    )
            elif replaced:
                # constant predicates: zone maps skip the other matches' row groups
                where, params = _match_filter(replaced, MATCH)
                con.execute(
                    f"UPDATE match_versions SET current = false, superseded_at = ?, superseded_by = ? WHERE current AND ({where})",
                    [now, ingest_id, *params],
                )
                for t in ("hand_points_t", "table_standings_t"):
                    con.execute(f"DELETE FROM {t} WHERE {where}", params)
            con.register("_content", p.versions)
            con.execute(
                'INSERT INTO match_versions SELECT _w.event, _w.round, _w."table", _w.version, _w.kind, ?, _w.file, ?, ?, ?, '
                'c.content_hash, _w.hands, _w.changed_hands, true, NULL, NULL '
                'FROM _w JOIN _content c USING (event, round, "table")',
                [ingest_id, p.by, now, p.reason],
            )
            insert_frame(con, "hands", p.hands.select(HAND_COLUMNS))
            insert_frame(con, "hand_points_t", p.hand_points)
            insert_frame(con, "table_standings_t", p.table_standings)
            insert_frame(con, "player_names", p.names, "player_key, player", on_conflict="ON CONFLICT DO NOTHING")
            con.unregister("_w")
            con.unregister("_content")
        for f in p.files:
            mine = [o for o in p.outcomes if o.file == f["file"]]
            report = p.problems.filter(pl.col("file") == f["file"]).to_dicts()
            con.execute(
                "UPDATE ingests SET matches_loaded = ?, matches_unchanged = ?, matches_rejected = ?, "
                "finished_at = ?, status = ?, report = ? WHERE ingest_id = ? AND file = ?",
                [
                    sum(1 for o in mine if o.status in _WRITES),
                    sum(1 for o in mine if o.status == "unchanged"),
                    sum(1 for o in mine if o.status == "rejected"),
                    datetime.now(),
                    "rejected" if f.get("error") else "done",
                    # the matches written are in match_versions with this ingest_id
                    json.dumps({"problems": report, "matches": [asdict(o) for o in mine if o.status not in _WRITES]}, default=str),
                    ingest_id, f["file"],
                ],
            )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return p


def database_file(con: duckdb.DuckDBPyConnection) -> Path | None:
    """The file behind ``con`` (None in memory)."""
    path = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchall()
    return Path(path[0][0]) if path and path[0][0] else None


def _same_file(a: str | Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def backup_before_correction(con: duckdb.DuckDBPyConnection) -> Path | None:
    """Copy the database file aside before a correction (we hold the write lock)."""
    src = database_file(con)
    if src is None or not src.exists():
        return None
    from pipeline.backup import automatic_name, backup_dir, copy_atomically, prune_automatic

    con.execute("CHECKPOINT")
    # The copy is renamed into place only when whole, so a crash never leaves half a
    # backup; older automatic copies beyond `backup_keep` go only after the new one is in.
    dest = backup_dir(src) / automatic_name(src)
    copy_atomically(src, dest)
    prune_automatic(src)
    return dest


def ingest(
    con: duckdb.DuckDBPyConnection,
    paths: list[str | Path] | None = None,
    *,
    sheets: list[Sheet] | None = None,
    files: list[dict[str, object]] | None = None,
    event: str | None = None,
    ruleset: str | None = None,
    reason: str | None = None,
    by: str | None = None,
) -> Plan:
    """Plan and commit on one write connection."""
    if paths is not None:
        sheets, files = read_all(paths)
    p = plan(con, sheets or [], files, event=event, ruleset=ruleset, reason=reason, by=by)
    begin_ingest(con, p)
    return commit(con, p)


def ingest_paths(
    con: duckdb.DuckDBPyConnection,
    paths: list[str | Path],
    *,
    event: str | None = None,
    ruleset: str | None = None,
    reason: str | None = None,
    by: str | None = None,
    batch_rows: int | None = None,
) -> list[Plan]:
    """Load many files in batches of about ``batch_rows`` rows, each planned and committed
    on its own, so memory follows the batch and not the whole corpus.

    The plans returned keep their reports (files, outcomes, problems) but not their row
    frames, which are in the database once committed.

    Checks across files (one player at two tables of a round) hold within a batch and
    against everything already loaded, so a clash across batches keeps the later match out.
    """
    limit = batch_rows or int(settings.get("batch_rows"))  # type: ignore[arg-type]
    plans: list[Plan] = []
    sheets: list[Sheet] = []
    files: list[dict[str, object]] = []

    def flush() -> None:
        if files:
            done = ingest(con, sheets=list(sheets), files=list(files), event=event, ruleset=ruleset, reason=reason, by=by)
            # keep the report, not the rows: memory follows one batch, not the corpus
            plans.append(done.release())
            sheets.clear()
            files.clear()

    held = database_file(con)
    for path in paths:
        s, f = read_all([path], held=held)
        if sheets and sum(x.rows for x in sheets) + sum(x.rows for x in s) > limit:
            flush()
        sheets.extend(s)
        files.extend(f)
    flush()
    return plans


def merge(plans: list[Plan]) -> Plan:
    """One report for several batches (files, problems and outcomes side by side)."""
    if len(plans) == 1:
        return plans[0]
    first = plans[0]
    return Plan(
        files=[f for p in plans for f in p.files],
        problems=problems.concat([p.problems for p in plans]),
        outcomes=[o for p in plans for o in p.outcomes],
        hands=first.hands.head(0),
        hand_points=first.hand_points.head(0),
        table_standings=first.table_standings.head(0),
        previous=first.previous.head(0),
        new_events={k: v for p in plans for k, v in p.new_events.items()},
        names=first.names.head(0),
        versions=first.versions.head(0),
        reason=first.reason,
        by=first.by,
        ingest_id=plans[-1].ingest_id,
    )
