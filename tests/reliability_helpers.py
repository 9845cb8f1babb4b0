"""Shared by the reliability tests and ``bench/reliability_run.py``.

The one property everything here checks: **a match (event, round, table) is in the
database whole or not at all**. After any load — fuzzed, killed, raced, restored — every
current version of a match holds exactly the hand rows the file had for that match, its
derived rows (points, standings) belong to that version only, and a match the load did
not finish is absent (or still the version that was there before).

Helpers build inputs (example logs copied to ``tests/data/fuzz``, a large file made by
replicating them), run the real ``domino`` command in a subprocess, and snapshot
standings for comparisons.
"""

import collections
import contextlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import polars as pl

from pipeline.ingest import Plan
from pipeline.ingest.columns import CANONICAL, CHAIRS
from pipeline.ingest.read import Sheet, read_file
from pipeline.standings import queries
from pipeline.store.db import connect, migrate

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FUZZ = TESTS / "data" / "fuzz"
#: Valid logs copied from the worked examples: every delimiter, encoding and header style.
LOGS = sorted(FUZZ.glob("*.csv"))
UNHAS_LOGS = [p for p in LOGS if p.name.startswith("unhas")]

MatchKey = tuple[str, str, str]


def ruleset_of(path: Path | str) -> str:
    return "pepet" if Path(path).name.startswith("pepet") else "unhas"


@contextlib.contextmanager
def memory_db() -> Iterator[duckdb.DuckDBPyConnection]:
    """A migrated in-memory database: the fuzz loops load thousands of inputs."""
    con = duckdb.connect(":memory:")
    try:
        migrate(con)
        yield con
    finally:
        con.close()


# --- what a file holds --------------------------------------------------------------------


def _label(col: str) -> pl.Expr:
    # A spreadsheet writes the table 3 as 3.0; both are the label "3" (HANDLOG.md).
    c = pl.col(col)
    return pl.when(c.str.contains(r"^\d+\.0+$")).then(c.str.replace(r"\.0+$", "")).otherwise(c)


def file_matches(sheets: list[Sheet], event: str | None = None) -> collections.Counter:
    """Rows per match key as the files have them (labels read the way HANDLOG.md says).

    Rows whose event, round or table is empty are counted under a key with ``None`` in it.
    """
    counts: collections.Counter = collections.Counter()
    for s in sheets:
        f = s.frame
        if event:
            f = f.with_columns(pl.col("event").fill_null(event.strip()))
        keys = f.select(_label("event"), _label("round"), _label("table"))
        counts.update(keys.iter_rows())
    return counts


# --- the invariant ------------------------------------------------------------------------


def current_matches(con: duckdb.DuckDBPyConnection) -> dict[MatchKey, tuple[int, int, str]]:
    """``{(event, round, table): (version, hand rows, content hash)}`` of every current version."""
    rows = con.execute(
        'SELECT v.event, v.round, v."table", v.version, count(h.event)::INTEGER, v.content_hash '
        "FROM match_versions v LEFT JOIN hands h "
        'ON h.event = v.event AND h.round = v.round AND h."table" = v."table" AND h.version = v.version '
        'WHERE v.current GROUP BY ALL'
    ).fetchall()
    return {(e, r, t): (v, n, hsh) for e, r, t, v, n, hsh in rows}


def check_consistent(con: duckdb.DuckDBPyConnection) -> None:
    """The database agrees with itself: one current version per match, counts and derived rows."""
    dup = con.execute(
        'SELECT event, round, "table", count(*) FROM match_versions WHERE current GROUP BY ALL HAVING count(*) > 1'
    ).fetchall()
    assert not dup, f"matches with two current versions: {dup}"
    wrong = con.execute(
        'SELECT v.event, v.round, v."table", v.version, v.hands, count(h.event) FROM match_versions v '
        'LEFT JOIN hands h ON h.event = v.event AND h.round = v.round AND h."table" = v."table" '
        "AND h.version = v.version GROUP BY ALL HAVING count(h.event) <> v.hands"
    ).fetchall()
    assert not wrong, f"versions whose hand rows differ from their recorded count: {wrong}"
    orphans = con.execute(
        'SELECT DISTINCT h.event, h.round, h."table", h.version FROM hands h ANTI JOIN match_versions v '
        'ON h.event = v.event AND h.round = v.round AND h."table" = v."table" AND h.version = v.version'
    ).fetchall()
    assert not orphans, f"hand rows of no recorded version: {orphans}"
    for t in ("hand_points_t", "table_standings_t"):
        stale = con.execute(
            f'SELECT DISTINCT d.event, d.round, d."table", d.version FROM {t} d ANTI JOIN match_versions v '
            'ON d.event = v.event AND d.round = v.round AND d."table" = v."table" AND d.version = v.version AND v.current'
        ).fetchall()
        assert not stale, f"{t} rows of a version that is not current: {stale}"
    unscored = con.execute(
        'SELECT v.event, v.round, v."table", v.version FROM match_versions v WHERE v.current AND NOT EXISTS ('
        'SELECT 1 FROM table_standings_t t WHERE t.event = v.event AND t.round = v.round AND t."table" = v."table" '
        "AND t.version = v.version)"
    ).fetchall()
    assert not unscored, f"current versions without standings: {unscored}"
    seats = " + ".join(f"(h.key_{c} IS NOT NULL)::INTEGER" for c in CHAIRS)
    points = con.execute(
        f'SELECT h.event, h.round, h."table", sum({seats})::INTEGER AS seats, '
        '(SELECT count(*) FROM hand_points_t p WHERE p.event = h.event AND p.round = h.round '
        'AND p."table" = h."table" AND p.version = h.version)::INTEGER AS points '
        'FROM hands h JOIN match_versions v ON h.event = v.event AND h.round = v.round AND h."table" = v."table" '
        "AND h.version = v.version WHERE v.current AND h.ending <> 'wo' GROUP BY h.event, h.round, h.\"table\", h.version "
        "HAVING seats <> points"
    ).fetchall()
    assert not points, f"matches whose hand_points rows do not match their seats: {points}"


def check_load(
    con: duckdb.DuckDBPyConnection,
    before: dict[MatchKey, tuple[int, int, str]],
    counts: collections.Counter,
    plan: Plan | None = None,
) -> dict[str, int]:
    """After a load: every match it wrote holds exactly the file's rows; nothing else moved.

    ``before`` is :func:`current_matches` before the load, ``counts`` is
    :func:`file_matches` of what was loaded. Returns counts of matches by what happened.
    """
    check_consistent(con)
    after = current_matches(con)
    stats = collections.Counter()
    for key, (_version, n, _h) in after.items():
        if before.get(key) == after[key]:
            stats["untouched"] += 1
            continue
        assert key in counts, f"{key} changed but the file has no rows for it"
        assert n == counts[key], f"partial match {key}: {n} hand rows loaded, the file has {counts[key]}"
        stats["written"] += 1
    lost = set(before) - set(after)
    assert not lost, f"matches that disappeared: {lost}"
    if plan is not None:
        by_key = {(o.event, o.round, o.table): o for o in plan.outcomes}
        for key, o in by_key.items():
            if o.status in ("new", "update", "correction"):
                assert after.get(key, (None,))[0] == o.version, f"{key}: said {o.status} v{o.version}, holds {after.get(key)}"
                assert o.hands == counts[key]
            else:
                assert after.get(key) == before.get(key), f"{key} was {o.status} but changed"
            if o.status == "rejected":
                assert o.message, f"{key} rejected without a message"
                stats["rejected"] += 1
        for key in counts:
            if None not in key:
                assert key in by_key, f"{key} is in the file but the report says nothing about it"
        check_problems(plan.problems)
    return dict(stats)


def check_problems(found: pl.DataFrame) -> None:
    """Every problem says where (file, and line unless it is about the whole file) and what."""
    assert found.filter(pl.col("file").is_null() | (pl.col("file") == "")).height == 0
    assert found.filter(pl.col("message").is_null() | (pl.col("message").str.len_chars() < 8)).height == 0
    assert found.filter(pl.col("code").is_null()).height == 0
    assert set(found.get_column("severity").unique().to_list()) <= {"error", "warning"}
    # Row problems point at a cell; file-level ones (FileRejected) have no line.
    rowwise = found.filter(pl.col("line").is_not_null())
    assert rowwise.filter(pl.col("column").is_null()).height == 0, rowwise.filter(pl.col("column").is_null())


# --- building inputs ------------------------------------------------------------------------


def replicated_frame(n_hands: int, *, tag: str = "") -> pl.DataFrame:
    """At least ``n_hands`` valid unhas hand rows: the example tables copied under new labels.

    Copy ``k`` of a table gets the table label ``<table>-<k>`` and its players a `` <k>``
    suffix (a player sits at one table per round). ``tag`` changes every copy's label so
    two frames of different tags hold different matches.
    """
    base = pl.concat(
        [read_file(p).frame.with_columns(pl.lit("unhas").alias("ruleset")) for p in UNHAS_LOGS],
        how="vertical_relaxed",
    ).select(CANONICAL)
    copies = -(-n_hands // base.height)
    width = len(str(copies))
    frames = [
        base.with_columns(
            pl.format("{}-{}{}", pl.col("table"), pl.lit(tag), pl.lit(str(k).zfill(width))).alias("table"),
            *[
                pl.when(pl.col(f"player_{c}").is_not_null())
                .then(pl.format("{} {}{}", pl.col(f"player_{c}"), pl.lit(tag), pl.lit(k)))
                .alias(f"player_{c}")
                for c in CHAIRS
            ],
        )
        for k in range(copies)
    ]
    return pl.concat(frames)


def write_csv(frame: pl.DataFrame, path: Path) -> Path:
    frame.select(CANONICAL).write_csv(path)
    return path


def correct_frame(frame: pl.DataFrame, every: int = 3) -> pl.DataFrame:
    """A correction of ``frame``: in every ``every``-th match, hand 1's note changes.

    A note is part of a hand's content, so each such match becomes a new version (a
    correction, with ``--reason``) while scores stay valid.
    """
    keys = frame.select("event", "round", "table").unique(maintain_order=True).with_row_index("_m")
    marked = frame.join(keys, on=["event", "round", "table"], how="left", maintain_order="left")
    hit = ((pl.col("_m") % every) == 0) & (pl.col("hand") == "1")
    return marked.with_columns(
        pl.when(hit).then(pl.lit("koreksi wasit")).otherwise(pl.col("note")).alias("note")
    ).drop("_m")


# --- the real command line ------------------------------------------------------------------


def domino_cmd() -> list[str]:
    """``domino`` as installed, else ``python -m pipeline`` (same interpreter as the tests)."""
    return [sys.executable, "-m", "pipeline"]


def cli_env(db: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["DOMINO_DB"] = str(db)
    env["DOMINO_BACKUP_DIR"] = str(Path(db).parent / "backups")
    env["DOMINO_USER"] = "reliability-test"
    env.update(extra)
    return env


def domino(*args: object, db: Path, timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*domino_cmd(), *map(str, args)],
        env=cli_env(db, **env),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=db.parent,
    )


def popen(cmd: list[object], *, db: Path, **env: str) -> subprocess.Popen:
    """Start ``cmd`` in the background with ``DOMINO_DB`` set; its output goes to temporary
    files (a pipe nobody reads would block a large report). Collect it with :func:`finish`."""
    out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
    proc = subprocess.Popen(
        [str(c) for c in cmd], env=cli_env(db, **env), stdout=out, stderr=err, text=True, cwd=db.parent
    )
    proc.outputs = (out, err)  # type: ignore[attr-defined]
    return proc


def domino_popen(*args: object, db: Path, **env: str) -> subprocess.Popen:
    """``domino`` in the background (see :func:`popen`)."""
    return popen([*domino_cmd(), *args], db=db, **env)


def finish(proc: subprocess.Popen, timeout: float = 600) -> tuple[int, str, str]:
    """Wait for a process started by :func:`domino_popen`; returns its exit code and output."""
    proc.wait(timeout=timeout)
    texts = []
    for f in proc.outputs:  # type: ignore[attr-defined]
        f.seek(0)
        texts.append(f.read())
        f.close()
    return proc.returncode, texts[0], texts[1]


# --- comparing results ----------------------------------------------------------------------


def snapshot(db: Path) -> dict[str, list[dict[str, object]]]:
    """Every standing and hand point of every event, as sorted rows (for equality checks)."""
    out: dict[str, list[dict[str, object]]] = {}
    with connect(db, read_only=True) as con:
        for event, rs in con.execute("SELECT event, ruleset FROM events ORDER BY event").fetchall():
            levels = ["table", "event"] + (["round", "group"] if rs == "pepet" else [])
            for level in levels:
                df = queries.standings(con, event, level)
                out[f"{event}/{level}"] = df.sort(df.columns, nulls_last=True).to_dicts()
            hp = queries.hand_points(con, event)
            out[f"{event}/hand_points"] = hp.sort(hp.columns, nulls_last=True).to_dicts()
    return out


def current_content(db: Path) -> dict[MatchKey, str]:
    """Content hash of the current version of every match."""
    with connect(db, read_only=True) as con:
        return {k: v[2] for k, v in current_matches(con).items()}


# --- killing a load ---------------------------------------------------------------------------


def _state(db: Path) -> tuple[dict[MatchKey, str], pl.DataFrame]:
    """Current content per match and the ingest log, read the way the dashboard reads."""
    with connect(db, read_only=True) as con:
        check_consistent(con)
        return {k: v[2] for k, v in current_matches(con).items()}, queries.ingest_log(con, 100_000)


def _check_backups(folder: Path) -> int:
    """Every backup file that has its final name opens and is consistent; returns how many."""
    n = 0
    for copy in sorted(folder.glob("*.duckdb")) if folder.exists() else []:
        with connect(copy, read_only=True) as con:
            check_consistent(con)
        n += 1
    return n


def _watch(proc: subprocess.Popen, stop) -> int:
    """Poll the bytes ``proc`` has written (``/proc/<pid>/io``) until ``stop(bytes)`` or it exits."""
    written = 0
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/io") as f:
                written = int(next(line for line in f if line.startswith("wchar:")).split()[1])
        except (OSError, StopIteration, ValueError):
            pass
        if stop(written):
            break
        time.sleep(0.002)
    return written


def crash_campaign(work: Path, *, kills: int, seed: int, hands: int, say=print) -> dict[str, object]:
    """Kill ``domino ingest`` with SIGKILL ``kills`` times at seeded random moments and
    prove after every kill that the database holds each match whole (old or new), the
    ingest log says which load never finished, and that loading again completes the work.

    The loads alternate between a large file (``hands`` hands, made by
    :func:`replicated_frame`) and a correction of it (:func:`correct_frame`, with
    ``--reason``), so kills land in first loads and in corrections alike. Returns the
    figures of the campaign.
    """
    rng = random.Random(seed)
    work.mkdir(parents=True, exist_ok=True)
    frame = replicated_frame(hands)
    files = {"big": write_csv(frame, work / "big.csv"), "fix": write_csv(correct_frame(frame), work / "fix.csv")}
    matches = frame.select("event", "round", "table").n_unique()

    # A clean reference: load, then correct, timing each and counting the bytes it writes.
    ref = work / "reference.duckdb"
    took: dict[str, float] = {}
    wrote: dict[str, int] = {}
    target: dict[str, dict[MatchKey, str]] = {}
    for name in ("big", "fix"):
        t = time.monotonic()
        proc = domino_popen("ingest", files[name], "--reason", "koreksi", "--format", "json", db=ref)
        wrote[name] = max(_watch(proc, lambda _w: False), 1)
        took[name] = time.monotonic() - t
        rc, _out, err = finish(proc)
        assert rc == 0, err
        target[name] = current_content(ref)
    assert len(target["big"]) == matches and target["big"] != target["fix"]
    want = snapshot(ref)

    db = work / "domino.duckdb"
    stats = collections.Counter()
    state: dict[MatchKey, str] = {}
    for k in range(kills):
        aim = "big" if state != target["big"] else "fix"  # load, or flip to the other version
        before_log = _state(db)[1].height if db.exists() else 0
        proc = domino_popen("ingest", files[aim], "--reason", "koreksi", "--format", "json", db=db)
        if k % 2 == 0:  # any moment of the run
            at = rng.uniform(0.05, 1.05) * took[aim]
            when = f"at {at:.2f}s of {took[aim]:.1f}s"
            time.sleep(at)
        else:  # while it writes: after a random share of the bytes the clean load wrote
            share = rng.random()
            when = f"after writing {share:.0%} of {wrote[aim]:,} bytes"
            _watch(proc, lambda w, limit=share * wrote[aim]: w >= limit)
        finished = proc.poll() is not None
        if not finished:
            proc.send_signal(signal.SIGKILL)
        rc, _out, err = finish(proc, 120)
        assert "Traceback" not in err, err
        if not db.exists():
            stats["killed before the database was created"] += 1
            stats["kills"] += 1
            say(f"kill {k + 1}/{kills}: {aim} {when} -> no database yet")
            continue
        after, log = _state(db)
        new_rows = log.head(log.height - before_log)
        moved = after != state
        if moved:
            assert after == target[aim], f"kill {k}: the database holds neither the old nor the new version of every match"
            assert set(new_rows.get_column("status").to_list()) == {"done"}, new_rows
            stats["load finished" + (" before the kill" if finished else " (kill came after the commit)")] += 1
        else:
            statuses = new_rows.get_column("status").to_list()
            assert statuses in ([], ["interrupted"]), (k, statuses)
            stats["killed while writing (log says interrupted)" if statuses else "killed before writing"] += 1
        assert (finished and rc == 0 and moved) or (not finished and rc == -signal.SIGKILL), (k, rc, finished, moved)
        stats["kills"] += 0 if finished else 1
        state = after
        backups = _check_backups(work / "backups")
        say(f"kill {k + 1}/{kills}: {aim} {when} -> {'moved' if moved else 'unchanged'}, "
            f"{len(after)} matches, log {new_rows.get_column('status').to_list()}, {backups} backups")

    # Loading again completes the work: the standings equal the clean reference.
    for name in ("big", "fix"):
        r = domino("ingest", files[name], "--reason", "koreksi", "--format", "json", db=db)
        assert r.returncode == 0, r.stderr
    final, log = _state(db)
    assert final == target["fix"]
    assert snapshot(db) == want
    lost = sum(1 for key in target["fix"] if key not in final)
    return {
        "hands": frame.height,
        "matches": matches,
        "kills": stats.pop("kills", 0),
        "outcomes": dict(stats),
        "interrupted_in_log": int((log.get_column("status") == "interrupted").sum()),
        "backups_checked": _check_backups(work / "backups"),
        "unfinished_backup_copies": len(list((work / "backups").glob(".*.part"))) if (work / "backups").exists() else 0,
        "matches_lost": lost,
        "seconds_per_load": {k: round(v, 1) for k, v in took.items()},
    }
