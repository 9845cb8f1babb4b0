"""Killing a load: ``domino ingest`` stopped with SIGKILL at seeded random moments, and
what must hold after each kill (no match lost, none partial, the backups readable).

Runs on a DuckDB file or on a PostgreSQL database (a ``postgresql://`` URL): on
PostgreSQL the killed client's transaction is rolled back by the server, and there is no
automatic backup file before a correction (the server's own backups are the recovery)."""

import collections
import random
import signal
import subprocess
import time
from pathlib import Path

import polars as pl

from pipeline.failpoints import ENV, POINTS
from pipeline.standings import queries
from pipeline.store.db import connect
from simulator.stress.checks import MatchKey, check_consistent, current_matches
from simulator.stress.runs import (
    Target,
    correct_frame,
    current_content,
    domino,
    domino_popen,
    finish,
    is_url,
    replicated_frame,
    snapshot,
    write_csv,
)


def _state(db: Target) -> tuple[dict[MatchKey, str], pl.DataFrame]:
    """Current content per match and the ingest log, read the way the dashboard reads."""
    with connect(db, read_only=True) as con:
        check_consistent(con)
        return {k: v[2] for k, v in current_matches(con).items()}, queries.ingest_log(con, 100_000)


def _ratings(db: Target) -> tuple[list[tuple[object, ...]], int]:
    """Every current rating (rounded to 9 places), and how many ladders are owed results."""
    with connect(db, read_only=True) as con:
        rows = con.execute(
            "SELECT ruleset, player, round(mu, 9), round(sigma, 9), matches FROM ratings "
            "ORDER BY ruleset, player"
        ).fetchall()
        return rows, int(con.execute("SELECT count(*) FROM ratings_due").fetchall()[0][0])


def _check_backups(folder: Path) -> int:
    """Every backup file that has its final name opens and is consistent; returns how many."""
    n = 0
    for copy in sorted(folder.glob("*.duckdb")) if folder.exists() else []:
        with connect(copy, read_only=True) as con:
            check_consistent(con)
        n += 1
    return n


# a commit on PostgreSQL holds advisory locks (two int4 keys) on its matches' buckets
_COMMIT_LOCKS = (
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted "
    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)


class _Meter:
    """How far a running load has got in writing. On a file: the bytes the process has
    written (``/proc/<pid>/io``). On PostgreSQL, whose socket writes that count misses:
    the seconds its commit has held its match locks so far (``pg_locks``)."""

    def __init__(self, db: Target) -> None:
        import psycopg

        self.pg = psycopg.connect(str(db), autocommit=True) if is_url(db) else None
        self.first: float | None = None
        self.last = 0.0

    def read(self, proc: subprocess.Popen) -> float:
        if self.pg is None:
            try:
                with open(f"/proc/{proc.pid}/io") as f:
                    return int(next(line for line in f if line.startswith("wchar:")).split()[1])
            except (OSError, StopIteration, ValueError):
                return 0
        row = self.pg.execute(_COMMIT_LOCKS).fetchone()
        if row and row[0]:
            self.last = time.monotonic()
            self.first = self.last if self.first is None else self.first
        return 0.0 if self.first is None else self.last - self.first

    def close(self) -> None:
        if self.pg is not None:
            self.pg.close()


def _watch(proc: subprocess.Popen, db: Target, stop) -> float:
    """Poll how far ``proc`` has got writing (:class:`_Meter`) until ``stop(so_far)`` or it
    exits; returns the last reading."""
    meter = _Meter(db)
    written = 0.0
    try:
        while proc.poll() is None:
            written = max(written, meter.read(proc))
            if stop(written):
                break
            time.sleep(0.002)
    finally:
        meter.close()
    return written


def _exists(db: Target) -> bool:
    """A PostgreSQL database exists before the campaign; a file once a load created it."""
    return is_url(db) or Path(db).exists()


def _reference(
    files: dict[str, Path], ref: Target, work: Path
) -> tuple[dict[str, float], dict[str, float], dict[str, dict[MatchKey, str]]]:
    """A clean load, then the correction, into ``ref``: how long each took, how far each
    got writing (:class:`_Meter`) and the content each leaves."""
    took: dict[str, float] = {}
    wrote: dict[str, float] = {}
    target: dict[str, dict[MatchKey, str]] = {}
    for name in ("big", "fix"):
        t = time.monotonic()
        proc = domino_popen(
            "ingest", files[name], "--reason", "koreksi", "--format", "json", db=ref, work=work
        )
        wrote[name] = max(_watch(proc, ref, lambda _w: False), 1e-3)
        took[name] = time.monotonic() - t
        rc, _out, err = finish(proc)
        assert rc == 0, err
        target[name] = current_content(ref)
    return took, wrote, target


def _judge(
    k: int,
    after: dict[MatchKey, str],
    aimed: dict[MatchKey, str],
    new_rows: pl.DataFrame,
    *,
    moved: bool,
    finished: bool,
    rc: int,
) -> str:
    """After kill ``k``: every match moved to the version aimed at (the log says done) or
    none did (the log says nothing or interrupted); returns which of these happened."""
    assert (finished and rc == 0 and moved) or (not finished and rc == -signal.SIGKILL), (
        k,
        rc,
        finished,
        moved,
    )
    statuses = new_rows.get_column("status").to_list()
    if moved:
        assert after == aimed, (
            f"kill {k}: the database holds neither the old nor the new version of every match"
        )
        assert set(statuses) == {"done"}, new_rows
        return "load finished" + (
            " before the kill" if finished else " (kill came after the commit)"
        )
    assert statuses in ([], ["interrupted"]), (k, statuses)
    return "killed while writing (log says interrupted)" if statuses else "killed before writing"


def crash_campaign(
    work: Path,
    *,
    kills: int,
    seed: int,
    hands: int,
    say=print,
    db: Target | None = None,
    ref: Target | None = None,
) -> dict[str, object]:
    """Kill ``domino ingest`` with SIGKILL ``kills`` times and prove after every kill that
    the database holds each match whole (old or new), the ingest log says which load never
    finished, and that loading again completes the work, ratings included.

    Every other kill is made by the process itself at a named moment, the points of
    :mod:`pipeline.failpoints` in turn: after the log's first row, with every row written
    but not committed, after the commit and before the rating update. Those outcomes are
    certain. The others land at seeded random moments: half at a random time of a clean
    load's duration, half after a random share of what a clean load wrote; where those
    land depends on the machine's speed, so only what must hold after them is checked.

    The loads alternate between a large file (``hands`` hands, made by
    :func:`replicated_frame`) and a correction of it (:func:`correct_frame`, with
    ``--reason``), so kills land in first loads and in corrections alike. Returns the
    figures of the campaign. ``db`` and ``ref`` (the clean reference) are fresh databases
    of one store, by default files in ``work``; two PostgreSQL URLs run it on PostgreSQL.
    """
    rng = random.Random(seed)
    work.mkdir(parents=True, exist_ok=True)
    frame = replicated_frame(hands)
    files = {
        "big": write_csv(frame, work / "big.csv"),
        "fix": write_csv(correct_frame(frame), work / "fix.csv"),
    }
    matches = frame.select("event", "round", "table").n_unique()

    # A clean reference: load, then correct, timing each and counting the bytes it writes.
    ref = work / "reference.duckdb" if ref is None else ref
    db = work / "domino.duckdb" if db is None else db
    unit = "s of commit" if is_url(db) else "bytes"
    took, wrote, target = _reference(files, ref, work)
    assert len(target["big"]) == matches and target["big"] != target["fix"]
    want = snapshot(ref)

    stats = collections.Counter()
    state: dict[MatchKey, str] = {}
    for k in range(kills):
        aim = "big" if state != target["big"] else "fix"  # load, or flip to the other version
        before_log = _state(db)[1].height if _exists(db) else 0
        point = POINTS[(k // 2) % len(POINTS)] if k % 2 == 0 else ""
        proc = domino_popen(
            "ingest",
            files[aim],
            "--reason",
            "koreksi",
            "--format",
            "json",
            db=db,
            work=work,
            **({ENV: point} if point else {}),
        )
        if point:  # at a named moment, by the process itself (pipeline/failpoints.py)
            when = f"at {point}"
            proc.wait(timeout=120)
        elif k % 4 == 1:  # any moment of the run
            at = rng.uniform(0.05, 1.05) * took[aim]
            when = f"at {at:.2f}s of {took[aim]:.1f}s"
            time.sleep(at)
        else:  # while it writes: after a random share of the bytes the clean load wrote
            share = rng.random()
            when = f"after writing {share:.0%} of {wrote[aim]:,.3f} {unit}"
            _watch(proc, db, lambda w, limit=share * wrote[aim]: w >= limit)
        # a load that killed itself at its point did not finish either
        finished = proc.poll() is not None and proc.returncode != -signal.SIGKILL
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        rc, _out, err = finish(proc, 120)
        # still running when polled, but done before the signal reached it: it finished
        finished = finished or rc == 0
        assert "Traceback" not in err, err
        if not _exists(db):
            stats["killed before the database was created"] += 1
            stats["kills"] += 1
            say(f"kill {k + 1}/{kills}: {aim} {when} -> no database yet")
            continue
        after, log = _state(db)
        new_rows = log.head(log.height - before_log)
        if point == "load-committed":  # the ladder owes the load until the next one
            assert _ratings(db)[1] > 0, "a load killed before its rating update left no mark"
        moved = after != state
        stats[_judge(k, after, target[aim], new_rows, moved=moved, finished=finished, rc=rc)] += 1
        stats["kills"] += 0 if finished else 1
        state = after
        backups = _check_backups(work / "backups")
        say(
            f"kill {k + 1}/{kills}: {aim} {when} -> {'moved' if moved else 'unchanged'}, "
            f"{len(after)} matches, log {new_rows.get_column('status').to_list()}, {backups} backups"
        )

    # Loading again completes the work: the standings equal the clean reference.
    for name in ("big", "fix"):
        r = domino(
            "ingest", files[name], "--reason", "koreksi", "--format", "json", db=db, work=work
        )
        assert r.returncode == 0, r.stderr
    final, log = _state(db)
    assert final == target["fix"]
    assert snapshot(db) == want
    assert _ratings(db) == (_ratings(ref)[0], 0), "the ratings differ from a clean load's"
    lost = sum(1 for key in target["fix"] if key not in final)
    return {
        "hands": frame.height,
        "matches": matches,
        "kills": stats.pop("kills", 0),
        "outcomes": dict(stats),
        "interrupted_in_log": int((log.get_column("status") == "interrupted").sum()),
        "backups_checked": _check_backups(work / "backups"),
        "unfinished_backup_copies": len(list((work / "backups").glob(".*.part")))
        if (work / "backups").exists()
        else 0,
        "matches_lost": lost,
        "seconds_per_load": {k: round(v, 1) for k, v in took.items()},
    }
