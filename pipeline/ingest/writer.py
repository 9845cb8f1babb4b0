"""Write a plan: every accepted match whole, in one transaction, with the ingest log."""

import contextlib
import json
import os
import threading
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import duckdb
import polars as pl

from pipeline import failpoints, ratings, ratings_due, rulesets
from pipeline.ingest.match import (
    FEW,
    HAND_COLUMNS,
    MATCH,
    WITHDRAWN,
    WRITES,
    hands_text,
    match_filter,
)
from pipeline.ingest.outcome import MatchOutcome, Plan
from pipeline.scoring.models import HAND_POINTS_COLUMNS
from pipeline.store.db import insert_frame, is_postgres, register, sibling


def begin_ingest(con: duckdb.DuckDBPyConnection, p: Plan) -> int:
    """Record that a load started, committed on its own: an interrupted load stays visible."""
    ingest_id = int(con.execute("SELECT nextval('ingest_seq')").fetchall()[0][0])
    now = datetime.now()
    rows = [
        [ingest_id, f["file"], f.get("sha256"), f.get("rows"), p.by, now, p.reason] for f in p.files
    ]
    if rows:  # one commit for the batch, not one per file
        con.execute("BEGIN TRANSACTION")
        try:
            con.executemany(
                "INSERT INTO ingests (ingest_id, file, sha256, rows, loaded_by, started_at, reason, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'started')",
                rows,
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    p.ingest_id = ingest_id
    return ingest_id


def end_refused(con: duckdb.DuckDBPyConnection, ingest_id: int) -> None:
    """Close the log of a load refused whole after it started (another upload kept winning
    the race for its matches): ``rejected``, nothing loaded, not ``interrupted``."""
    con.execute(
        "UPDATE ingests SET status = 'rejected', finished_at = ?, matches_loaded = 0 "
        "WHERE ingest_id = ? AND finished_at IS NULL",
        [datetime.now(), ingest_id],
    )


def commit(con: duckdb.DuckDBPyConnection, p: Plan) -> Plan:
    """Write a plan: every accepted match whole, in one transaction, with the ingest log;
    then the rating ladders follow it."""
    _commit(con, p, beside=False)
    return p


def commit_beside(con: duckdb.DuckDBPyConnection, p: Plan) -> "Rating":
    """:func:`commit`, except that the rating update of a bulk batch (:data:`BESIDE_MATCHES`
    matches or more) runs in a thread, on a connection of its own, while the caller plans
    its next batch; the caller joins it (:meth:`Rating.join`) before it writes again (a
    rating update takes another load's mark for one left behind). The replay is Python
    and the planning mostly polars and DuckDB, so on two cores they run side by side. A
    smaller batch is rated before this returns."""
    return _commit(con, p, beside=True)


#: A batch of this many matches or more is rated beside the next batch's planning.
BESIDE_MATCHES = 500


class Rating:
    """A committed batch's rating update, running beside the caller (:func:`commit_beside`),
    or nothing (a rating already done)."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._held = contextlib.ExitStack()

    def _start(
        self,
        con: duckdb.DuckDBPyConnection,
        writes: list[MatchOutcome],
        standings: pl.DataFrame,
        owner: int,
        held: contextlib.ExitStack,
    ) -> "Rating":
        # the second connection is opened here, in the caller's thread: the caller's own
        # connection is not used from the worker at all
        self._held = held
        try:
            other = held.enter_context(sibling(con))
        except BaseException:
            held.close()
            raise
        self._thread = threading.Thread(
            target=self._run,
            args=(other, writes, standings, owner),
            name="domino-ratings",
            daemon=True,
        )
        self._thread.start()
        return self

    def _run(
        self,
        con: duckdb.DuckDBPyConnection,
        writes: list[MatchOutcome],
        standings: pl.DataFrame,
        owner: int,
    ) -> None:
        try:
            _rate(con, writes, standings, owner)
        except BaseException as exc:  # raised again by join(), in the caller's thread
            self._error = exc

    def join(self) -> None:
        """Wait for the update; then close its connection and, on PostgreSQL, release the
        owner lock (:func:`pipeline.ratings_due.owing`) held on the caller's connection.
        Raises what the update raised: its ladders stay marked as owed."""
        if self._thread is not None:
            try:
                self._thread.join()
            finally:
                self._thread = None
                self._held.close()
        if self._error is not None:
            error, self._error = self._error, None
            raise error


def _commit(con: duckdb.DuckDBPyConnection, p: Plan, *, beside: bool) -> Rating:
    ingest_id = p.ingest_id if p.ingest_id is not None else begin_ingest(con, p)
    writes = p.writes
    if p.versions.height != len(writes):
        # every match version written needs its content hash from planning
        raise ValueError(
            "this plan's versions do not match its writes; plan again before committing"
        )
    if any(o.status in ("correction", WITHDRAWN) for o in writes):
        backup_before_correction(con)
    failpoints.reach("load-started")
    now = datetime.now()
    with contextlib.ExitStack() as held:
        held.enter_context(ratings_due.owing(con, ingest_id))
        con.execute("BEGIN TRANSACTION")
        try:
            if is_postgres(con):  # several writers: one match at a time, a lost race refused
                from pipeline.store.postgres import claim_matches

                claim_matches(
                    cast(Any, con), [(o.event, o.round, o.table, o.version or 1) for o in writes]
                )
            _write_events(con, p, now)
            _check_event_rulesets(con, p)
            if writes:
                _write_matches(con, p, ingest_id, now)
                # the ladders owe these matches until their update below is committed
                ratings_due.mark(con, ingest_id, events=[o.event for o in writes])
            _log_files(con, p, ingest_id)
            failpoints.reach("load-writing")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        failpoints.reach("load-committed")
        if beside and len(writes) >= BESIDE_MATCHES:
            # the owner lock stays held until the update is joined
            return Rating()._start(con, writes, p.table_standings, ingest_id, held.pop_all())
        _rate(con, writes, p.table_standings, ingest_id)
    return Rating()


def _rate(
    con: duckdb.DuckDBPyConnection, writes: list[MatchOutcome], standings: pl.DataFrame, owner: int
) -> None:
    """After the commit: the rating update of the matches written (with, on PostgreSQL
    after a bulk load, the planner's statistics refreshed beside it)."""
    # a bulk load changes the tables' sizes many times over before autovacuum looks: the
    # next batch's planning, and the next load's rating queries, are planned from these
    # statistics. They are refreshed beside the rating update, whose replay is the
    # client's work. The hand rows and hand points (1.1 of 1.9 s at a million hands) are
    # read by neither; autovacuum analyses them within its next round.
    bulk = is_postgres(con) and len(writes) >= ANALYZE_MATCHES
    analysed: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if bulk:
        from pipeline.store.postgres import analysing

        analysed = analysing(cast(Any, con), ANALYZED)
    with analysed:
        _update_ratings(con, writes, standings, owner)
    if bulk:
        con.execute(SUMMARISED)


#: A PostgreSQL load of this many matches or more refreshes the planner's statistics.
ANALYZE_MATCHES = 500
#: The statistics it refreshes.
ANALYZED = (
    "ANALYZE events, match_versions, table_standings_t, player_names, "
    "rating_tables, rating_history_t, ratings_t"
)
#: The rating history's index by position brought up to date once its new rows are in: a
#: replay deletes the ladder from a position on, and until autovacuum summarises a bulk
#: load's new pages the index cannot tell them apart, so the delete read them all (40 ms
#: of every replay at a million hands, ten times that at ten million). Summarising only
#: the new pages takes milliseconds.
SUMMARISED = "SELECT brin_summarize_new_values('rating_history_seq')"


def _update_ratings(
    con: duckdb.DuckDBPyConnection,
    writes: list[MatchOutcome],
    standings: pl.DataFrame,
    owner: int,
) -> None:
    """After the commit, the rating ladders follow the matches written (pipeline/ratings.py),
    from the standings this load wrote for them. A load that wrote nothing still brings
    up to date a ladder another load left owing (stopped between its two commits): running
    an interrupted command again finishes its work."""
    if not writes:
        if ratings_due.any_owed(con):
            ratings.refresh(con, [], owner=owner)
        return
    ratings.update(
        con,
        pl.DataFrame(
            [(o.event, o.round, o.table, o.version or 1) for o in writes],
            schema={
                "event": pl.String,
                "round": pl.String,
                "table": pl.String,
                "version": pl.Int32,
            },
            orient="row",
        ),
        standings,
        owner=owner,
    )


def _write_events(con: duckdb.DuckDBPyConnection, p: Plan, now: datetime) -> None:
    """Events first loaded by this plan, with the hash of their ruleset's values."""
    if p.new_events:
        hashes = {rs: rulesets.load(rs).hash for rs in set(p.new_events.values())}
        models = {rs: rulesets.load(rs).models for rs in set(p.new_events.values())}
        events = pl.DataFrame(
            {
                "event": list(p.new_events),
                "ruleset": list(p.new_events.values()),
                "params_hash": [hashes[rs] for rs in p.new_events.values()],
                "models": [models[rs] for rs in p.new_events.values()],
            },
            schema={
                "event": pl.String,
                "ruleset": pl.String,
                "params_hash": pl.String,
                "models": pl.String,
            },
        ).with_columns(
            pl.lit(now).alias("created_at"), pl.lit(p.by, dtype=pl.String).alias("created_by")
        )
        insert_frame(
            con,
            "events",
            events,
            "event, ruleset, params_hash, created_at, created_by, models",
            on_conflict="ON CONFLICT DO NOTHING",
        )


class EventsChanged(RuntimeError):
    """Another upload created one of this plan's new events first, under another ruleset.

    Raised inside the commit's transaction (nothing is written); the upload is planned
    again on what is loaded now, and its rows then meet the stored ruleset as
    ``ruleset_changed``, file, line and column named."""

    def __init__(self, events: list[tuple[str, str, str]]) -> None:
        names = ", ".join(f"{e} ({stored}, not {wanted})" for e, stored, wanted in events[:5])
        super().__init__(f"another upload created {names} meanwhile; plan again")
        self.events = events


def _check_event_rulesets(con: duckdb.DuckDBPyConnection, p: Plan) -> None:
    """Under the commit's transaction, each new event's stored ruleset is the planned one:
    an event row another upload inserted first (``ON CONFLICT DO NOTHING`` kept it) with
    another ruleset refuses this plan whole."""
    if not p.new_events:
        return
    names = list(p.new_events)
    rows = con.execute(
        "SELECT event, ruleset FROM events WHERE event IN (SELECT unnest(?))", [names]
    ).fetchall()
    clash = [(e, rs, p.new_events[e]) for e, rs in rows if rs != p.new_events[e]]
    if clash:
        raise EventsChanged(sorted(clash))


def _write_matches(con: duckdb.DuckDBPyConnection, p: Plan, ingest_id: int, now: datetime) -> None:
    """Supersede the replaced versions, then write every match's rows and its version."""
    writes = p.writes
    w = pl.DataFrame(
        {
            "event": [o.event for o in writes],
            "round": [o.round for o in writes],
            "table": [o.table for o in writes],
            "version": [o.version for o in writes],
            "kind": [o.status for o in writes],
            "file": [o.file for o in writes],
            "hands": [o.hands for o in writes],
            "changed_hands": [hands_text(o.changed_hands) or None for o in writes],
        },
        schema={
            "event": pl.String,
            "round": pl.String,
            "table": pl.String,
            "version": pl.Int32,
            "kind": pl.String,
            "file": pl.String,
            "hands": pl.Int32,
            "changed_hands": pl.String,
        },
    )
    register(con, "_w", w)
    replaced = [
        {"event": o.event, "round": o.round, "table": o.table}
        for o in writes
        if (o.version or 1) > 1
    ]
    if len(replaced) > FEW:
        con.execute(
            "UPDATE match_versions SET current = false, superseded_at = ?, superseded_by = ? "
            "FROM _w WHERE match_versions.event = _w.event AND match_versions.round = _w.round "
            'AND match_versions."table" = _w."table" AND match_versions.current',
            [now, ingest_id],
        )
        for t in ("hand_points_t", "table_standings_t"):
            con.execute(
                f'DELETE FROM {t} USING _w WHERE {t}.event = _w.event AND {t}.round = _w.round AND {t}."table" = _w."table"'
            )
    elif replaced:
        # constant predicates: zone maps skip the other matches' row groups
        where, params = match_filter(replaced, MATCH)
        con.execute(
            f"UPDATE match_versions SET current = false, superseded_at = ?, superseded_by = ? WHERE current AND ({where})",
            [now, ingest_id, *params],
        )
        for t in ("hand_points_t", "table_standings_t"):
            con.execute(f"DELETE FROM {t} WHERE {where}", params)
    # the version rows built here and written as they are (on PostgreSQL one COPY, not a
    # join of two temporary tables)
    versions = w.join(p.versions.select(*MATCH, "content_hash"), on=MATCH).select(
        *MATCH,
        "version",
        "kind",
        pl.lit(ingest_id, dtype=pl.Int64).alias("ingest_id"),
        "file",
        pl.lit(p.by, dtype=pl.String).alias("loaded_by"),
        pl.lit(now, dtype=pl.Datetime("us")).alias("loaded_at"),
        pl.lit(p.reason, dtype=pl.String).alias("reason"),
        "content_hash",
        "hands",
        "changed_hands",
        pl.lit(value=True).alias("current"),
        pl.lit(None, dtype=pl.Datetime("us")).alias("superseded_at"),
        pl.lit(None, dtype=pl.Int64).alias("superseded_by"),
    )
    insert_frame(con, "match_versions", versions)
    if p.hands.height:  # a withdrawal (pipeline/ingest/withdraw.py) writes no rows
        insert_frame(con, "hands", p.hands.select(HAND_COLUMNS))
    if p.hand_points.height:
        insert_frame(con, "hand_points_t", p.hand_points)
    for name in p.kept_points:
        # a bulk batch's hand points, kept on this connection by its planning: those of
        # the matches written (in _w), under the version each is written as
        con.execute(f"INSERT INTO hand_points_t {_KEPT_PICKED} FROM {name} k {_KEPT_JOIN}")
    if p.table_standings.height:
        insert_frame(con, "table_standings_t", p.table_standings)
    if p.names.height:
        insert_frame(
            con, "player_names", p.names, "player_key, player", on_conflict="ON CONFLICT DO NOTHING"
        )
    con.unregister("_w")


#: The kept hand points' columns in ``hand_points_t``'s order, the version the match's in
#: ``_w`` (the matches written), and the join that picks those matches.
_KEPT_PICKED = "({}) SELECT {}".format(
    ", ".join(f'"{c}"' for c in HAND_POINTS_COLUMNS),
    ", ".join("_w.version" if c == "version" else f'k."{c}"' for c in HAND_POINTS_COLUMNS),
)
_KEPT_JOIN = 'JOIN _w ON k.event = _w.event AND k.round = _w.round AND k."table" = _w."table"'


def discard_kept(con: duckdb.DuckDBPyConnection, p: Plan) -> None:
    """Drop the hand points ``p`` kept on ``con`` (written, or not to be written): the
    caller that planned with ``keep_scores`` does, once the plan is committed or given
    up (:func:`pipeline.ingest.service.load`)."""
    for name in p.kept_points:
        con.execute(f"DROP TABLE IF EXISTS temp.{name}")
    p.kept_points = []


def _log_files(con: duckdb.DuckDBPyConnection, p: Plan, ingest_id: int) -> None:
    """Finish the ingest log: per file, what was written and the report of the rest."""
    # grouped once: a batch of many small files costs linear time, not files × matches
    outcomes: dict[object, list[MatchOutcome]] = {}
    for o in p.outcomes:
        outcomes.setdefault(o.file, []).append(o)
    reports: dict[object, list[dict[str, object]]] = {}
    for pr in p.problems.to_dicts():
        reports.setdefault(pr["file"], []).append(pr)
    for f in p.files:
        mine = outcomes.get(f["file"], [])
        report = reports.get(f["file"], [])
        con.execute(
            "UPDATE ingests SET matches_loaded = ?, matches_unchanged = ?, matches_rejected = ?, "
            "finished_at = ?, status = ?, report = ? WHERE ingest_id = ? AND file = ?",
            [
                sum(1 for o in mine if o.status in WRITES),
                sum(1 for o in mine if o.status == "unchanged"),
                sum(1 for o in mine if o.status == "rejected"),
                datetime.now(),
                "rejected" if f.get("error") else "done",
                # the matches written are in match_versions with this ingest_id
                json.dumps(
                    {
                        "problems": report,
                        "matches": [asdict(o) for o in mine if o.status not in WRITES],
                    },
                    default=str,
                ),
                ingest_id,
                f["file"],
            ],
        )


def database_file(con: duckdb.DuckDBPyConnection) -> Path | None:
    """The file behind ``con`` (None in memory or on PostgreSQL)."""
    if is_postgres(con):
        return None
    path = con.execute(
        "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchall()
    return Path(path[0][0]) if path and path[0][0] else None


def same_file(a: str | Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def backup_before_correction(con: duckdb.DuckDBPyConnection) -> Path | None:
    """Copy the database file aside before a correction (we hold the write lock).

    The copy is renamed into place only when whole, so a crash never leaves half a
    backup; older automatic copies beyond ``backup_keep`` go only after the new one is in.
    """
    src = database_file(con)
    if src is None or not src.exists():
        return None
    from pipeline.store.backup import automatic_backup

    con.execute("CHECKPOINT")
    return automatic_backup(src)
