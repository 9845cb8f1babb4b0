"""One ingest service: the CLI and the dashboard load files through these functions.

A *source* is a file on disk (the CLI) or an uploaded file's name and bytes (the
dashboard). :func:`preview` plans an upload on any connection and writes nothing;
:func:`load` is the one way anything reaches the database: it re-applies changed ruleset
files, reads the sources in batches, checks the uploader's rights against the database
(when an identity is given), refuses a plan that differs from the one previewed, and
commits each batch whole.
"""

import contextlib
import hashlib
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from pipeline import auth, problems, settings
from pipeline.collector import fewer_collections
from pipeline.ingest import archive
from pipeline.ingest.ahead import read_ahead
from pipeline.ingest.match import MATCH
from pipeline.ingest.outcome import Plan
from pipeline.ingest.planner import plan
from pipeline.ingest.read import (
    Read,
    Sheet,
    display_name,
    read_bytes_sheets,
    read_entries,
    read_sheets,
    refused,
)
from pipeline.ingest.sheet import Unplayed
from pipeline.ingest.writer import (
    Rating,
    begin_ingest,
    commit,
    commit_beside,
    database_file,
    discard_kept,
    end_refused,
    same_file,
)
from pipeline.problems import FileRejected
from pipeline.scoring.rescore import rescore_stale
from pipeline.standings import stats

#: An uploaded file: its name as the browser sent it, and its bytes.
Upload = tuple[str, bytes]
Source = str | Path | Upload
#: Told after each batch is committed: files and rows done so far (both only grow).
Progress = Callable[[int, int], None]
#: Times a batch is planned again when another upload wrote one of its matches first.
RACE_RETRIES = 3
#: Stands in for a reason only to show what a correction would change.
PREVIEW_REASON = "(preview)"


class PlanChanged(RuntimeError):
    """The database changed between the preview and the confirmation."""


def read_one(source: Source, *, held: Path | None = None) -> Read:
    """Read one file on disk or one upload; a file that is no hand log is reported, not raised.

    ``held`` is the database this process holds, which is never opened here (closing it
    would drop DuckDB's lock on it while we write).
    """
    try:
        if isinstance(source, tuple):
            name, blob = source
            sheets = read_bytes_sheets(blob, name)
        else:
            if held is not None and same_file(source, held):
                raise FileRejected(
                    display_name(Path(source).name), "not_a_hand_log", variant="database"
                )
            sheets = read_sheets(source)
    except FileRejected as exc:
        digest = hashlib.sha256(source[1]).hexdigest() if isinstance(source, tuple) else None
        return refused(exc, digest)
    return read_entries(sheets)


def _once(read: Read, seen: dict[str, str]) -> Read:
    """A source read, unless it repeats what this load reads already: the same bytes (a
    file named twice, a sheet downloaded twice as ``meja1 (1).csv``) are one warning
    saying so, and a sheet with the same hands, cell for cell, as one read before (one
    sheet saved as ``.xlsx`` and as ``.csv``, or opened and saved again) is left out with
    a warning, instead of every hand of it reported as written twice and its match kept out.
    ``seen`` maps each file's digest and each sheet's hands' digest to the first name."""
    sheets, files = read
    if not sheets:
        return read
    again = _read_before(sheets[0].source, sheets[0].sha256, seen)
    if again is not None:
        return again
    kept: list[Sheet] = []
    entries: list[dict[str, object]] = []
    for sheet, entry in zip(sheets, files, strict=True):  # an entry per sheet, in order
        hands = _hands_digest(sheet)
        if hands not in seen:
            seen[hands] = sheet.file
            kept.append(sheet)
            entries.append(entry)
            continue
        entries.append(_read_once(entry, sheet.file, seen[hands], "same_hands"))
    notes = sheets[0].notes  # the file's own notes (sheets skipped) ride on its first sheet
    if notes.height and not (kept and kept[0] is sheets[0]):
        if kept:
            kept[0] = replace(kept[0], notes=notes)
        else:
            own = entries[0].get("notes")  # its same_file warning: the first sheet was a copy
            entries[0]["notes"] = pl.concat(
                [notes, *([own] if isinstance(own, pl.DataFrame) else [])], how="vertical_relaxed"
            )
    return kept, entries


def _read_before(name: str, digest: str, seen: dict[str, str]) -> Read | None:
    """The refusal of a file whose bytes this load read already (and noted in ``seen``)
    under ``first``; None, and the file noted, when they are new."""
    if digest not in seen:
        seen[digest] = name
        return None
    first = seen[digest]
    entry: dict[str, object] = {"file": name, "sha256": digest}
    return [], [_read_once(entry, name, first, "named_twice" if first == name else None)]


def _read_once(
    entry: dict[str, object], name: str, first: str, variant: str | None
) -> dict[str, object]:
    """The log entry of ``name``, read already in this load as ``first``: nothing of it is
    read again, and a warning says so (``same_file``). Nothing is lost, so the load is not
    refused for it (the exit code stays 0)."""
    note = problems.file_warning(name, "same_file", {"first": first}, variant=variant)
    return {**entry, "rows": 0, "error": None, "notes": note}


def _hands_digest(sheet: Sheet) -> str:
    """The digest of a sheet's hands: every cell of every row in order, not where they
    stand (polars' row hashes, hashed again as one list: no numpy for a live upload)."""
    cells = sheet.frame.select(
        pl.exclude("_file", "_line", "_issue"), pl.col("_issue").struct.json_encode()
    )
    return f"hands:{cells.height}:{cells.hash_rows().implode().hash().item()}"


def _each_file(source: Source, held: Path | None, seen: dict[str, str]) -> Iterator[Read]:
    """The source read (:func:`read_one`); a ``.zip`` of hand logs is each of its files
    (:mod:`pipeline.ingest.archive`), unless the same archive was read already in this
    load (``seen``, as in :func:`_once`)."""
    read = read_one(source, held=held)
    files = read[1]
    if not (len(files) == 1 and archive.is_archive(files[0].get("error"))):
        yield read
        return
    label = str(files[0]["file"])
    try:
        data = source[1] if isinstance(source, tuple) else Path(source).read_bytes()
    except OSError as exc:
        yield refused(FileRejected(label, "unreadable", {"why": exc.strerror}))
        return
    digest = str(files[0]["sha256"] or hashlib.sha256(data).hexdigest())  # an upload's: known
    again = _read_before(label, digest, seen)
    if again is not None:
        yield again
        return
    try:
        yield from archive.expand(data, label, digest)
    except FileRejected as exc:
        yield refused(exc, digest)


def _each_read(sources: Iterable[Source], held: Path | None) -> Iterator[Read | None]:
    """Every file read once (:func:`_each_file`, :func:`_once`), in order, as it is pulled,
    and ``None`` after each source's last file (a source done: the progress counts the
    sources given, a ``.zip`` as one). A pre-filled sheet with no result yet
    (:class:`~pipeline.ingest.sheet.Unplayed`) comes after every other file, so that the
    plan it comes in sees whether its table is read from another sheet of the load or
    loaded already (:func:`pipeline.ingest.planner.plan` then skips it, not refuses it)."""
    seen: dict[str, str] = {}
    unplayed: list[Read] = []
    for source in sources:
        for got in _each_file(source, held, seen):
            read = _once(got, seen)
            if any(isinstance(f.get("error"), Unplayed) for f in read[1]):
                unplayed.append(read)
            else:
                yield read
        yield None
    yield from unplayed


def read_all(sources: Iterable[Source], *, held: Path | None = None) -> Read:
    """Read every source (see :func:`_each_read`), each distinct content once."""
    sheets: list[Sheet] = []
    files: list[dict[str, object]] = []
    for read in _each_read(sources, held):
        if read is not None:
            sheets += read[0]
            files += read[1]
    return sheets, files


def batches(
    sources: Iterable[Source],
    *,
    limit: int,
    files_limit: int | None = None,
    held: Path | None = None,
) -> Iterator[tuple[list[Sheet], list[dict[str, object]], int]]:
    """Sources read and grouped into batches of about ``limit`` rows and at most
    ``files_limit`` files (a file given, or one of a ``.zip``), so memory follows the
    batch and not the whole corpus; each batch comes with the number of sources read
    whole since the batch before it (for the progress).

    The file cap matters for many small files: a batch's cost grows with the files in it
    (one log entry and one report each), not only with its rows (docs/performance.md).
    A batch that is full (``limit`` rows or ``files_limit`` files) comes out as soon as
    the source it ends with is done: it is planned while the next source is read,
    instead of waiting for that source to find out that it does not fit.
    """
    cap = files_limit or sys.maxsize
    sheets: list[Sheet] = []
    files: list[dict[str, object]] = []
    rows = n = done = 0  # rows and files in this batch; sources done since the last one
    full = False
    for read in _each_read(sources, held):
        if read is None:
            done += 1
            if full:
                yield sheets, files, done
                sheets, files, rows, n, done, full = [], [], 0, 0, 0, False
            continue
        more = sum(x.rows for x in read[0])
        if n and (full or rows + more > limit):
            yield sheets, files, done
            sheets, files, rows, n, done = [], [], 0, 0, 0
        sheets += read[0]
        files += read[1]
        rows += more
        n += 1
        full = rows >= limit or n >= cap
    if n:
        yield sheets, files, done


def signature(p: Plan) -> tuple[Any, ...]:
    """What a plan would do, match by match: a preview and its commit must agree."""
    return tuple(sorted((o.event, o.round, o.table, o.status, o.version or 0) for o in p.outcomes))


def moved_on(p: Plan, base: dict[tuple[str, str, str], int]) -> bool:
    """Whether a match of ``base`` (match -> version, 0 for none) is no longer at that
    version in ``p``: a new match or an update is planned as the version after the one it
    replaces, an unchanged match as the one it matches; a rejected one writes nothing."""
    written = {"new": 1, "update": 1, "correction": 1, "unchanged": 0}
    for o in p.outcomes:
        at = base.get((o.event, o.round, o.table))
        if at is not None and o.status in written and (o.version or 0) - written[o.status] != at:
            return True
    return False


def plan_events(p: Plan) -> set[str]:
    """Every event an upload touches: matches, new events, rows, and rows with problems."""
    evs = {o.event for o in p.outcomes} | set(p.new_events)
    if p.hands.height:
        evs |= set(p.hands.get_column("event").drop_nulls().to_list())
    if p.problems.height:
        evs |= set(p.problems.get_column("event").drop_nulls().to_list())
    return {e for e in evs if e}


@fewer_collections()
def load(
    con: duckdb.DuckDBPyConnection,
    sources: Iterable[Source],
    *,
    event: str | None = None,
    ruleset: str | None = None,
    reason: str | None = None,
    by: str | None = None,
    identity: object = None,
    expected: tuple[Any, ...] | None = None,
    base: dict[tuple[str, str, str], int] | None = None,
    batch_rows: int | None = None,
    progress: Progress | None = None,
) -> Plan:
    """Load ``sources`` on a write connection: every match whole or not at all.

    With ``identity`` (a dashboard sign-in) the uploader's rights are re-read from the
    database and an upload touching any event that is not theirs is refused whole
    (:class:`pipeline.auth.NotAllowed`); with ``expected`` (the previewed
    :func:`signature`) a plan that differs raises :class:`PlanChanged` and writes nothing.
    ``base`` (match -> the version its rows were built on, 0 for none: hand entry) does
    the same when one of those matches has moved on since, so rows built on an older
    version never replace hands saved after it.
    Checks across files (one player at two tables of a round) hold within a batch and
    against everything already loaded, so a clash across batches keeps the later match out.
    ``progress``, when given, is called after each batch with the files and rows read so
    far (a file refused whole counts as done). The next batch is read while this one is
    planned and committed (:mod:`pipeline.ingest.ahead`), and a bulk batch's rating update
    runs while the next one is planned (:func:`pipeline.ingest.writer.commit_beside`).
    """
    if identity is not None:
        by = auth.check_rights(con, identity, []).name
    rescore_stale(con)
    limit = batch_rows or int(settings.get("batch_rows"))
    files_limit: int | None = int(settings.get("batch_files"))
    if expected is not None or base is not None:
        limit, files_limit = sys.maxsize, None  # a previewed upload is confirmed whole
    plans: list[Plan] = []
    done_files = done_rows = 0
    # a batch's rating update runs beside the next batch's planning (commit_beside)
    rating = Rating()
    try:
        for sheets, files, n in read_ahead(
            batches(sources, limit=limit, files_limit=files_limit, held=database_file(con))
        ):
            done_files += n
            done_rows += sum(s.rows for s in sheets)
            rating = _load_batch(
                con,
                sheets,
                files,
                rating,
                event=event,
                ruleset=ruleset,
                reason=reason,
                by=by,
                identity=identity,
                expected=expected,
                base=base,
                plans=plans,
            )
            if progress is not None:
                progress(done_files, done_rows)
    except BaseException:
        with contextlib.suppress(Exception):  # what went wrong first is what is told
            rating.join()
        raise
    rating.join()
    return merge(plans) if plans else plan(con, [], [], reason=reason, by=by)


def _load_batch(
    con: duckdb.DuckDBPyConnection,
    sheets: list[Sheet],
    files: list[dict[str, object]],
    rating: Rating,
    *,
    event: str | None,
    ruleset: str | None,
    reason: str | None,
    by: str | None,
    identity: object,
    expected: tuple[Any, ...] | None,
    plans: list[Plan],
    base: dict[tuple[str, str, str], int] | None = None,
) -> Rating:
    """Plan and commit one batch (see :func:`load`) while ``rating``, the last batch's
    rating update, runs; returns this batch's."""
    started: int | None = None  # the ingest log entry, kept when planned again
    for attempt in range(RACE_RETRIES + 1):
        p = plan(
            con,
            sheets,
            files,
            event=event,
            ruleset=ruleset,
            reason=reason,
            by=by,
            keep_scores=True,
        )
        try:
            if identity is not None:
                who = auth.check_rights(con, identity, plan_events(p))
                # a coordinator's correction is a change request (pipeline/change_requests.py)
                auth.check_may_correct(
                    con, who, [o.event for o in p.outcomes if o.status == "correction"]
                )
            if expected is not None and signature(p) != expected:
                raise PlanChanged("the plan changed since the preview")
            if base is not None and moved_on(p, base):
                raise PlanChanged("a match moved on since its rows were read")
            if expected is not None and not p.writes:
                plans.append(p)
                return rating
            # the last batch's ratings are written before this batch writes anything
            rating.join()
            try:
                if started is None:
                    started = begin_ingest(con, p)
                p.ingest_id = started
                rating = commit_beside(con, p)
                # keep the report, not the rows: memory follows one batch, not the corpus
                plans.append(p.release())
                return rating
            except RuntimeError as exc:
                # another upload wrote one of these matches (PostgreSQL) or created one of
                # these events under another ruleset since this plan: plan again on what
                # is loaded now (a correction becomes the next version; rows under the
                # losing ruleset are refused as ruleset_changed)
                stale = type(exc).__name__ in ("MatchesChanged", "EventsChanged")
                confirmed = expected is not None or base is not None  # no plan again
                gives_up = attempt == RACE_RETRIES or confirmed
                if stale and gives_up and started is not None:
                    end_refused(con, started)  # refused whole, not interrupted
                if not stale or attempt == RACE_RETRIES:
                    raise
                if confirmed:
                    raise PlanChanged("the plan changed since the preview") from exc
        finally:
            discard_kept(con, p)  # kept hand points: written by the commit, or given up
    return rating


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
    """Plan and commit files already read (or ``paths``) as one batch, on one write connection."""
    if paths is not None:
        sheets, files = read_all(paths)
    p = plan(con, sheets or [], files, event=event, ruleset=ruleset, reason=reason, by=by)
    begin_ingest(con, p)
    return commit(con, p)


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
        filled=_filled(plans),
    )


def _filled(plans: list[Plan]) -> dict[str, tuple[str, int]]:
    """Each choice given for rows that do not say, with the rows it filled in all batches."""
    out: dict[str, tuple[str, int]] = {}
    for p in plans:
        for name, (value, n) in p.filled.items():
            out[name] = (value, out.get(name, (value, 0))[1] + n)
    return out


# --- the preview an uploader confirms ---------------------------------------------------


@dataclass
class Preview:
    """What an upload would do, for the uploader to confirm; nothing is written."""

    plan: Plan
    sheets: list[Sheet]
    files: list[dict[str, object]]
    allowed: set[str] | None
    forbidden: list[str]
    names: pl.DataFrame | None = None  # player_key -> name as already shown
    diffs: list[dict[str, Any]] = field(default_factory=list)  # corrections: match + diff
    needs_reason: bool = False

    @property
    def signature(self) -> tuple[Any, ...]:
        return signature(self.plan)


def preview(
    con: duckdb.DuckDBPyConnection,
    sources: list[Source],
    *,
    event: str | None = None,
    ruleset: str | None = None,
    reason: str | None = None,
    by: str | None = None,
) -> Preview:
    """Read and plan an upload on a (read-only) connection; nothing is written.

    A correction without a reason is planned once more with a stand-in reason, only to
    show hand by hand what it would change.
    """
    sheets, infos = read_all(sources)
    p = plan(
        con,
        sheets,
        infos,
        event=event or None,
        ruleset=ruleset or None,
        reason=reason or None,
        by=by,
    )
    allowed = auth.user_events(con, by) if by else None
    pv = Preview(
        plan=p,
        sheets=sheets,
        files=infos,
        allowed=allowed,
        forbidden=auth.forbidden_events(allowed, plan_events(p)),
        names=stats.display_names(con, p.names),
    )
    pv.needs_reason = bool(p.problems.filter(pl.col("code") == "correction_needs_reason").height)
    shown = p
    if pv.needs_reason:
        shown = plan(
            con,
            sheets,
            infos,
            event=event or None,
            ruleset=ruleset or None,
            reason=PREVIEW_REASON,
            by=by,
        )
    for o in shown.outcomes:
        if o.status != "correction":
            continue
        match = pl.all_horizontal(
            pl.col(c) == v for c, v in zip(MATCH, (o.event, o.round, o.table), strict=True)
        )
        old = shown.previous.filter(match)
        pv.diffs.append(
            {
                "event": o.event,
                "round": o.round,
                "table": o.table,
                # the loaded version, which the correction's follows
                "version": (o.version or 1) - 1,
                # only a withdrawn match's current version has no hands: brought back, every
                # hand comes back (the page says so instead of listing them)
                "back": old.height == 0,
                "diff": stats.hand_diff(old, shown.hands.filter(match)),
                # each player's points before and after the correction
                "points": stats.points_change(
                    con, o.event, o.round, o.table, shown.table_standings.filter(match), pv.names
                ),
            }
        )
    return pv
