"""The PostgreSQL store measured beside the file: ``python -m bench.postgres_run``.

A throwaway cluster (the tests' own, ``tests/pg.py``) is started and stopped by the run.

* **viewers and venues at once**: 50 concurrent readers of one round's leaderboard
  spread over 4 reader processes (each with its pool, as 4 ``domino serve`` would be),
  while 2 writer processes load different matches one table at a time: reads per
  second, p50 / p95, and every write's outcome and time;
* **one table's upload** into the league (file to queryable standings), median of
  repeats, on PostgreSQL and on the file;
* **full rebuild** of the corpus into the file and into PostgreSQL, in turn ``--pairs``
  times (fresh process each, each after autovacuum is done), and the median ratio;
* **kill -9 of a writer mid-commit**, ``--kills`` times: after each, every match whole
  (``simulator.stress.checks.check_consistent``); at the end a load succeeds.

``--size`` picks the corpus (``10k`` for a quick proof that it works; the targets are
stated for ``1m`` and ``10m``). Results: ``bench/results/postgres-<size>.json``. Nothing
here asserts on time.
"""

import argparse
import contextlib
import json
import multiprocessing as mp
import queue
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import polars as pl

from bench.run import BENCH_ENV, NEWEST, ROOT, corpus, hands_in, incremental, machine, rebuild
from simulator.stress.pgcluster import Cluster, pg_bin, start_cluster, stop_cluster

RESULTS = ROOT / "bench" / "results"
READER_PROCS, READERS, WRITER_PROCS = 4, 50, 2


def _reader(url: str, event: str, rounds: list[str], threads: int, seconds: float, q) -> None:
    import os
    import threading

    os.environ["DOMINO_PG_POOL_SIZE"] = str(threads)
    from pipeline.standings import queries
    from pipeline.store import postgres

    times: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def loop(k: int) -> None:
        mine = []
        i = k
        while time.monotonic() < stop:
            t = time.perf_counter()
            with postgres.read(url) as con:
                queries.standings(con, event, "table", rounds[i % len(rounds)])  # type: ignore[arg-type]
            mine.append(time.perf_counter() - t)
            i += 1
        with lock:
            times.extend(mine)

    postgres.pool(url)
    ts = [threading.Thread(target=loop, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    postgres.close_pools()
    q.put(times)


def _writer(url: str, files: list[str], seconds: float, q) -> None:
    """Load the files one by one until ``seconds`` have passed; each outcome reported as
    it happens (a writer stopped at the end has told all it did)."""
    from pipeline.ingest import service
    from pipeline.store.db import connect

    stop = time.monotonic() + seconds
    for f in files:
        if time.monotonic() >= stop:
            break
        t = time.perf_counter()
        try:
            with connect(url) as con:
                p = service.load(con, [Path(f)], by="bench")
            q.put((time.perf_counter() - t, p.count("rejected") == 0 and bool(p.writes), ""))
        except Exception as exc:  # noqa: BLE001 - counted and reported
            q.put((time.perf_counter() - t, False, str(exc)[:200]))


def live_tables(ruleset: str, event: str, n: int, folder: Path, tag: str) -> list[str]:
    """``n`` one-table files of new matches of ``event`` (round ``LIVE-<tag>``, players
    of their own so that no player sits at two tables of a round)."""
    import simulator

    small = simulator.generate_frame(ruleset, 7, 40, event=event)
    one = small.filter(pl.col("round") == small["round"][0], pl.col("table") == small["table"][0])
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        f = folder / f"live-{tag}-{i}.csv"
        one.with_columns(
            pl.lit(event).alias("event"),
            pl.lit(f"LIVE-{tag}").alias("round"),
            pl.lit(str(i + 1)).alias("table"),
            *[pl.col(f"player_{c}") + f" {tag}-{i}" for c in "abcd"],
        ).write_csv(f)
        paths.append(str(f))
    return paths


def concurrent(url: str, ruleset: str, seconds: float, folder: Path) -> dict[str, object]:
    from pipeline.standings import queries
    from pipeline.store.db import connect

    with connect(url) as con:
        # the newest event: the one being played, whose leaderboard the viewers watch
        event = str(con.execute(NEWEST).fetchall()[0][0])
        rounds = queries.rounds(con, event)
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    per = [
        READERS // READER_PROCS + (1 if k < READERS % READER_PROCS else 0)
        for k in range(READER_PROCS)
    ]
    readers = [ctx.Process(target=_reader, args=(url, event, rounds, n, seconds, q)) for n in per]
    writes = [live_tables(ruleset, event, 200, folder, f"w{k}") for k in range(WRITER_PROCS)]
    wq = ctx.Queue()
    writers = [ctx.Process(target=_writer, args=(url, files, seconds - 3, wq)) for files in writes]
    for p in readers:
        p.start()
    time.sleep(2)  # readers warm (imports, pools) before the writers start
    deadline = time.monotonic() + seconds - 3
    for p in writers:
        p.start()
    times = sorted(t for _ in readers for t in q.get(timeout=seconds + 120))
    for p in writers:
        p.join(max(1.0, deadline - time.monotonic()) + 60)
    done = []
    with contextlib.suppress(queue.Empty):
        while True:
            done.append(wq.get(timeout=1))
    for p in readers:
        p.join(30)
    return {
        "readers": READERS,
        "reader_processes": READER_PROCS,
        "reads": len(times),
        "reads_per_s": len(times) / seconds,
        "read_p50_ms": times[len(times) // 2] * 1000 if times else None,
        "read_p95_ms": times[int(len(times) * 0.95) - 1] * 1000 if times else None,
        "writes": len(done),
        "writes_ok": sum(1 for _t, ok, _e in done if ok),
        "write_failures": [e for _t, ok, e in done if not ok][:5],
        "write_median_ms": statistics.median(t for t, _ok, _e in done) * 1000 if done else None,
    }


def kills(url: str, n: int, folder: Path, hands: int, seed: int) -> dict[str, object]:
    """``domino ingest`` killed with SIGKILL ``n`` times; every match whole after each."""
    from pipeline.store.db import connect
    from simulator.stress.checks import check_consistent, current_matches
    from simulator.stress.runs import correct_frame, replicated_frame, write_csv

    frame = replicated_frame(hands, tag="kill")
    files = [
        write_csv(frame, folder / "big.csv"),
        write_csv(correct_frame(frame), folder / "fix.csv"),
    ]
    cmd = [sys.executable, "-m", "pipeline", "ingest", "--db", url, "--reason", "koreksi"]
    rng = random.Random(seed)
    t = time.perf_counter()
    subprocess.run([*cmd, str(files[0])], capture_output=True, check=True, cwd=ROOT)
    took = time.perf_counter() - t
    bad = 0
    killed = 0
    for k in range(n):
        proc = subprocess.Popen(
            [*cmd, str(files[(k + 1) % 2])],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
        time.sleep(rng.uniform(0.3, 1.0) * took)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed += 1
        proc.wait(60)
        with connect(url) as con:
            try:
                check_consistent(con)
            except AssertionError:
                bad += 1
    final = subprocess.run([*cmd, str(files[0])], capture_output=True, text=True, cwd=ROOT)
    with connect(url) as con:
        check_consistent(con)
        whole = len(current_matches(con)) == frame.select("event", "round", "table").n_unique()
    return {
        "kills": n,
        "killed_while_running": killed,
        "inconsistent_after_kill": bad,
        "next_upload_ok": final.returncode == 0 and whole,
        "clean_load_s": took,
    }


#: Tables of the database that autovacuum still owes a vacuum or an analyze, by its own
#: thresholds (the cluster's settings; no table of ours overrides them).
_OWED = """
SELECT count(*) FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
WHERE s.n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float8
      + current_setting('autovacuum_vacuum_scale_factor')::float8 * greatest(c.reltuples, 0)
   OR s.n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float8
      + current_setting('autovacuum_vacuum_insert_scale_factor')::float8 * greatest(c.reltuples, 0)
   OR s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
      + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0)
"""
_WORKERS = "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'"


def quiet(url: str, timeout: float = 600.0) -> float:
    """Wait until autovacuum owes the database nothing and no worker is busy, twice in a
    row a second apart (its statistics arrive with a delay); the seconds waited.

    After a bulk load autovacuum vacuums and analyses the new rows, and would share the
    cores with the next measurement. Waiting only for a busy worker was not enough: right
    after a load the launcher has often not started one yet (it wakes once a minute),
    and the wait returned at once."""
    import psycopg

    t = time.perf_counter()
    settled = 0
    with psycopg.connect(url, autocommit=True) as c:
        while time.perf_counter() - t < timeout and settled < 2:
            owed = c.execute(_OWED).fetchone()
            busy = c.execute(_WORKERS).fetchone()
            settled = settled + 1 if not (owed and owed[0]) and not (busy and busy[0]) else 0
            time.sleep(1.0)
    return time.perf_counter() - t


def rebuilds(
    cluster: Cluster, paths: list[Path], work: Path, pairs: int
) -> tuple[dict[str, object], str]:
    """The full rebuild into the file and into an empty PostgreSQL database, ``pairs``
    times in turn, each after the cluster is quiet: the ratio is the median of the pairs'
    (one pair on a shared machine moved it by 0.2 either way). The runs shown are the
    pair of the median ratio; with them, the last PostgreSQL database's URL, left loaded."""
    ratios: list[float] = []
    pairs_out: list[tuple[dict[str, float], dict[str, float]]] = []
    url = ""
    for k in range(pairs):
        if url:
            cluster.admin(f'DROP DATABASE "{url.rsplit("/", 1)[1]}"')
        url = cluster.new_database()
        quiet(url)
        file_run = rebuild(paths, work / "file.duckdb")
        quiet(url)
        pg_run = rebuild(paths, url)
        ratios.append(pg_run["rebuild_s"] / file_run["rebuild_s"])
        pairs_out.append((file_run, pg_run))
        print(
            f"pair {k + 1}: file {file_run['rebuild_s']:.1f} s, PostgreSQL "
            f"{pg_run['rebuild_s']:.1f} s, ratio {ratios[-1]:.2f}",
            flush=True,
        )
    mid = sorted(range(pairs), key=lambda i: ratios[i])[pairs // 2]
    waited = quiet(url)  # as after the rebuild without the file
    return {
        "autovacuum_wait_s": waited,
        "rebuild_file": pairs_out[mid][0],
        "rebuild_postgres": pairs_out[mid][1],
        "rebuild_ratio_pg_to_file": statistics.median(ratios),
        "rebuild_ratios": ratios,
        "rebuild_file_runs_s": [f["rebuild_s"] for f, _ in pairs_out],
        "rebuild_postgres_runs_s": [g["rebuild_s"] for _, g in pairs_out],
    }, url


def run(
    size: str,
    ruleset: str,
    seconds: float,
    n_kills: int,
    *,
    with_file: bool = True,
    pairs: int = 3,
) -> dict[str, object]:
    import os

    os.environ.update(BENCH_ENV)
    cluster = start_cluster()
    work = Path(tempfile.mkdtemp(prefix="domino-pgbench-"))
    try:
        paths = corpus(ruleset, size, ROOT / "bench" / "corpora")
        out: dict[str, object] = {"size": size, "hands": hands_in(paths), "ruleset": ruleset}
        if with_file:
            measured, url = rebuilds(cluster, paths, work, pairs)
            out.update(measured)
        else:
            url = cluster.new_database()
            out["rebuild_postgres"] = rebuild(paths, url)  # type: ignore[arg-type]
            # a live upload meets a settled league, not autovacuum's work on a bulk load
            out["autovacuum_wait_s"] = quiet(url)
        out["upload_postgres"] = incremental(url, ruleset, repeats=7)  # type: ignore[arg-type]
        if with_file:
            out["upload_file"] = incremental(work / "file.duckdb", ruleset, repeats=7)
        out["concurrent_postgres"] = concurrent(url, ruleset, seconds, work / "live")
        if n_kills:
            out["kills_postgres"] = kills(cluster.new_database(), n_kills, work, 3000, seed=11)
        out["machine"] = machine()
        out["when"] = datetime.now(UTC).isoformat(timespec="seconds")
        return out
    finally:
        stop_cluster(cluster)
        shutil.rmtree(work, ignore_errors=True)  # the file rebuilds: 113 MB at a million hands


def main(argv: list[str] | None = None) -> dict[str, object]:
    ap = argparse.ArgumentParser(prog="python -m bench.postgres_run", description=__doc__)
    ap.add_argument("--size", default="10k", choices=["10k", "100k", "1m", "10m"])
    ap.add_argument("--ruleset", default="unhas", choices=["unhas", "pepet"])
    ap.add_argument("--seconds", type=float, default=20.0, help="Length of the concurrent part.")
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument(
        "--pairs", type=int, default=3, help="Rebuilds into the file and PostgreSQL, in turn."
    )
    ap.add_argument(
        "--no-file",
        action="store_true",
        help="PostgreSQL only: no rebuild of the same corpus into a file to compare with.",
    )
    args = ap.parse_args(argv)
    if pg_bin() is None:
        print(
            "PostgreSQL benchmark skipped: initdb and pg_ctl were not found "
            "(apt-get install postgresql)"
        )
        return {}
    res = run(
        args.size,
        args.ruleset,
        args.seconds,
        args.kills,
        with_file=not args.no_file,
        pairs=args.pairs,
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"postgres-{args.size}.json").write_text(json.dumps(res, indent=2, default=str))
    print(json.dumps(res, indent=2, default=str))
    return res


if __name__ == "__main__":
    main()
