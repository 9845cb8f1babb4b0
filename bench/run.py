"""Benchmarks: a national league on one laptop, and live updates that stay instant.

``make bench`` (``python -m bench.run``) builds corpora with the deal simulator at 10
thousand to 10 million hands for both rulesets and measures, side by side:

* full rebuild (read, validate, load, score, standings) in a fresh process: wall time,
  hands per second, peak RSS;
* the floor: polars ``read_csv`` and DuckDB ``read_csv`` of the same bytes, and the
  ratio of the rebuild to the faster of the two; beside it, what DuckDB alone needs to
  store those bytes, and to go from them to stored scores with our models and no
  validation (the least any design of this rebuild can cost);
* incremental update: one table's new hands loaded into the database of 1 and 10 million
  hands, until the refreshed standings are queryable (file to leaderboard);
* leaderboard query latency (open, query, close — as the dashboard does), p50 and p95;
* the command line as a user runs it, each a new process (``bench/cli.py``): ``domino
  --help``, ``domino standings``, and ``domino ingest`` of one table into the database of
  1 and 10 million hands;
* dashboard page render (AppTest) at 1 million hands, and the server CPU each page's
  render costs a new visitor (``bench/render.py``);
* the framework's floor (``bench/floor.py``): Streamlit's smallest pages in the same
  browser, with none of this project's code;
* what a person feels at 1 million hands (``bench/browser.py``): each page's content in
  Chromium, switching page, event, round and tab, a save shown on an open leaderboard.

Results go to ``bench/results/<timestamp>.json`` and ``bench/results/latest.md``.
``--smoke`` runs the 10-thousand corpus only (``make test`` runs it so it cannot rot).
Nothing here asserts on time.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from bench import ratings_bench, render
from bench.browser import browser_timings
from bench.cli import cli_timings
from bench.floor import floor_timings

ROOT = Path(__file__).resolve().parent.parent
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000, "10m": 10_000_000}
FILE_ROWS = 500_000  # hands per corpus file

BENCH_ENV = {
    "DOMINO_MAX_FILE_BYTES": str(4 * 1024**3),
    "DOMINO_MAX_ROWS": str(50_000_000),
}


def corpus(ruleset: str, size: str, root: Path, seed: int = 1) -> list[Path]:
    """Write (or reuse) the corpus of ``size`` hands as plain CSV files."""
    import simulator

    folder = root / f"{ruleset}-{size}"
    done = folder / ".complete"
    if done.exists():
        return sorted(folder.glob("*.csv"))
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.csv"):
        old.unlink()
    df = simulator.generate_frame(ruleset, seed, SIZES[size], event=f"bench-{ruleset}-{size}")
    # files hold whole matches: a file boundary never splits one (event, round, table)
    match_no = pl.struct("event", "round", "table").rank("dense") - 1
    per_match = df.height / max(1, df.select(match_no.max()).item() + 1)
    part = (match_no // max(1, int(FILE_ROWS / per_match))).alias("_part")
    paths = []
    for (i,), chunk in (
        df.with_columns(part).partition_by("_part", as_dict=True, maintain_order=True).items()
    ):
        p = folder / f"part-{i:03d}.csv"
        chunk.drop("_part").write_csv(p, quote_style="necessary")
        paths.append(p)
    done.write_text(str(df.height))
    return paths


def hands_in(paths: list[Path]) -> int:
    return sum(pl.scan_csv(p, infer_schema=False).select(pl.len()).collect().item() for p in paths)


def floor(paths: list[Path]) -> dict[str, float]:
    """Reading the same bytes with nothing else: polars and DuckDB read_csv (best of 2)."""
    pt, dt = [], []
    for _ in range(2):
        t = time.perf_counter()
        for p in paths:
            pl.read_csv(p, infer_schema=False)
        pt.append(time.perf_counter() - t)
        t = time.perf_counter()
        with duckdb.connect() as con:
            for p in paths:
                con.sql(f"SELECT * FROM read_csv('{p}', all_varchar = true)").arrow()
        dt.append(time.perf_counter() - t)
    return {"polars_read_csv_s": min(pt), "duckdb_read_csv_s": min(dt)}


def bounds(paths: list[Path], ruleset: str, scratch: Path) -> dict[str, float]:
    """How far above the floor any design that stores what a rebuild stores must be.

    ``duckdb_store_s``: DuckDB reads the same bytes into one table of a new database
    file and closes it (best of 2) — the hands persisted, nothing typed or checked.
    ``sql_bound_s``: DuckDB alone from the bytes to the stored scores — the scoring input
    typed in SQL with no validation at all (``bench/sql/bound_hands.sql``), then our own
    scoring models (``pipeline.scoring.models.layer_models``, as every scoring runs them) written
    as tables — the least a rebuild
    with these models does, whatever it is written in.
    """
    from pipeline import rulesets
    from pipeline.scoring.models import layer_models
    from pipeline.store.db import quiet

    files = [str(p) for p in paths]
    db = scratch / f"bound-{ruleset}.duckdb"
    store = []
    for _ in range(2):
        db.unlink(missing_ok=True)
        t = time.perf_counter()
        with duckdb.connect(db) as con:
            quiet(con)
            con.execute(
                "CREATE TABLE hands AS SELECT * FROM read_csv($files, header = true)",
                {"files": files},
            )
        store.append(time.perf_counter() - t)
    db.unlink(missing_ok=True)
    t = time.perf_counter()
    with duckdb.connect(db) as con:
        quiet(con)
        con.execute(
            f"CREATE TABLE hands AS {(ROOT / 'bench' / 'sql' / 'bound_hands.sql').read_text()}",
            {"files": files},
        )
        events = [e for (e,) in con.execute("SELECT DISTINCT event FROM hands").fetchall()]
        con.register("_params_in", rulesets.params_frame(dict.fromkeys(events, ruleset)))
        con.execute("CREATE TEMP TABLE _params AS SELECT * FROM _params_in")
        con.execute("CREATE TEMP VIEW _hands AS SELECT * FROM hands")
        layer_models(con, ruleset, stored=True)
        counts = con.execute(
            "SELECT (SELECT count(*) FROM _hand_points), (SELECT count(*) FROM _table_standings)"
        ).fetchall()[0]
    bound = time.perf_counter() - t
    db.unlink(missing_ok=True)
    return {
        "duckdb_store_s": min(store),
        "sql_bound_s": bound,
        "sql_bound_hand_points": int(counts[0]),
        "sql_bound_standings": int(counts[1]),
    }


def rebuild(paths: list[Path], db: Path | str) -> dict[str, float]:
    """Full rebuild in a fresh process: read, validate, load, score; then standings.
    ``db`` is a file (removed first) or an empty PostgreSQL database's URL."""
    if isinstance(db, Path) and db.exists():
        db.unlink()
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "t0 = time.perf_counter()\n"
        "from pipeline.ingest import load\n"
        "from pipeline.store.db import connect\n"
        "from pipeline.standings import queries\n"
        "t1 = time.perf_counter()\n"
        "with connect(sys.argv[1]) as con:\n"
        "    plan = load(con, [Path(p) for p in sys.argv[2:]], by='bench')\n"
        "    ev = plan.outcomes[0].event\n"
        "    queries.standings(con, ev, 'event')\n"
        "    t2 = time.perf_counter()\n"
        "    rows = con.execute('SELECT (SELECT count(*) FROM hand_points_t), (SELECT count(*) FROM table_standings_t)').fetchall()[0]\n"
        "bad = plan.count('rejected')\n"
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
        "print('RESULT', t1 - t0, t2 - t1, bad, hwm, *rows)\n"
    )
    env = {**os.environ, **BENCH_ENV}
    t = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(db), *map(str, paths)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
        text=True,
    )
    _, status, _usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    outs, errs = proc.communicate()
    if status != 0:
        raise RuntimeError(f"rebuild failed: {errs[-2000:]}")
    line = [x for x in outs.splitlines() if x.startswith("RESULT ")][-1]
    _, imports, work, rejected, hwm_kib, hand_points, standings = line.split()
    return {
        "process_wall_s": wall,
        "import_s": float(imports),
        "rebuild_s": float(work),
        # VmHWM of the child itself: ru_maxrss would include the parent's pages that a
        # forked child holds until exec (the parent may have just built a 10M corpus)
        "peak_rss_mib": int(hwm_kib) / 1024,
        "matches_rejected": int(rejected),
        "hand_points_rows": int(hand_points),
        "standings_rows": int(standings),
    }


#: The newest event in play order (date, then name): a live match is today's.
NEWEST = (
    "SELECT event FROM events "
    "ORDER BY coalesce(event_date, cast(created_at AS date)) DESC, event DESC LIMIT 1"
)
#: The first event in play order: a table loaded there comes before every rated table.
FIRST = (
    "SELECT event FROM events WHERE event LIKE 'bench-%' "
    "ORDER BY coalesce(event_date, cast(created_at AS date)), event LIMIT 1"
)


def incremental(
    db: Path | str, ruleset: str, repeats: int = 15, *, into: str = NEWEST, tag: str = "LIVE"
) -> dict[str, float]:
    """One new table (a live match, all its hands) into a big database: file to leaderboard.

    ``into`` picks the event it joins (a new event named after that one, which follows it
    in play order): by default the newest, as a match played today; :data:`FIRST` puts it
    before every rated table, so the rating ladder is replayed from there.
    """
    import simulator
    from pipeline.ingest import ingest
    from pipeline.standings import queries
    from pipeline.store.db import connect

    with connect(db, read_only=True) as con:
        event = con.execute(into).fetchall()[0][0]
    small = simulator.generate_frame(ruleset, 99, 40, event=event)
    times = []
    phases: dict[str, list[float]] = {"open": [], "ingest": [], "query": [], "close": []}
    tmp = (db.parent if isinstance(db, Path) else ROOT / "bench" / "corpora") / "incremental"
    tmp.mkdir(exist_ok=True)
    for i in range(repeats):
        table = small.filter(
            pl.col("round") == small["round"][0], pl.col("table") == small["table"][0]
        )
        table = table.with_columns(pl.lit(f"{tag}{i}").alias("round"))
        f = tmp / f"{tag.lower()}-{i}.csv"
        table.write_csv(f)
        t = time.perf_counter()
        with connect(db) as con:
            opened = time.perf_counter()
            p = ingest(con, [f], by="bench")
            assert p.count("rejected") == 0, p.problems.to_dicts()
            loaded = time.perf_counter()
            # the match just loaded (generate_frame names its own event after ``event``)
            queries.standings(con, p.outcomes[0].event, "table", f"{tag}{i}")
            queried = time.perf_counter()
        done = time.perf_counter()
        times.append(done - t)
        for phase, took in zip(
            phases, (opened - t, loaded - opened, queried - loaded, done - queried), strict=True
        ):
            phases[phase].append(took)
    return {
        "incremental_median_ms": statistics.median(times) * 1000,
        "incremental_max_ms": max(times) * 1000,
        "incremental_hands": table.height,
        # where an upload's time goes: opening the file, planning and committing the
        # load, querying the new standings, closing (DuckDB checkpoints the change)
        **{f"incremental_{k}_ms": statistics.median(v) * 1000 for k, v in phases.items()},
    }


def leaderboard_latency(db: Path, n: int = 60) -> dict[str, float]:
    """Attach read-only, query one round's table standings, detach — as each dashboard
    refresh does (``pipeline.store.db.read``)."""
    from pipeline.standings import queries
    from pipeline.store.db import connect, read

    with connect(db, read_only=True) as con:
        event = con.execute("SELECT event FROM events LIMIT 1").fetchall()[0][0]
        rounds = queries.rounds(con, event)
    times = []
    for i in range(n):
        t = time.perf_counter()
        with read(db) as con:
            queries.standings(con, event, "table", rounds[i % len(rounds)])
        times.append(time.perf_counter() - t)
    times.sort()
    return {
        "leaderboard_p50_ms": times[len(times) // 2] * 1000,
        "leaderboard_p95_ms": times[int(len(times) * 0.95) - 1] * 1000,
    }


def page_render(db: Path, repeats: int = 5) -> dict[str, float]:
    """Render the home page with Streamlit's AppTest on this database, three ways:

    * ``first``: the first run in a fresh process (imports, first queries);
    * ``new session``: a new visitor on a running server right after the data changed
      (Streamlit's caches cleared, the process warm) — what a spectator's screen costs
      (the median of ``repeats``);
    * ``cached``: a rerun of the same session with nothing changed;
    * ``first served``: the first run in a fresh process that imported the pages first,
      as ``domino serve`` does before it starts the server (the first visitor's page).
    """
    app = ROOT / "dashboard" / "app.py"
    if not app.exists():
        return {}
    code = (
        "import time\n"
        "import streamlit as st\n"
        "from streamlit.testing.v1 import AppTest\n"
        f"at = AppTest.from_file({str(app)!r}, default_timeout=120)\n"
        "t = time.perf_counter(); at.run(); first = time.perf_counter() - t\n"
        "t = time.perf_counter(); at.run(); cached = time.perf_counter() - t\n"
        "fresh = []\n"
        f"for _ in range({repeats}):\n"
        "    st.cache_data.clear(); st.cache_resource.clear()\n"
        f"    s = AppTest.from_file({str(app)!r}, default_timeout=120)\n"
        "    t = time.perf_counter(); s.run(); fresh.append(time.perf_counter() - t)\n"
        "fresh.sort()\n"
        "print('RESULT', first, cached, fresh[len(fresh) // 2], max(fresh), len(at.exception) + len(s.exception))\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "DOMINO_DB": str(db)},
        cwd=ROOT,
        check=False,
    )
    if r.returncode != 0:
        return {"page_render_error": r.stderr[-500:]}
    line = [x for x in r.stdout.splitlines() if x.startswith("RESULT ")][-1]
    _, first, cached, session, session_max, exc = line.split()
    served = (
        "import time\n"
        "from dashboard.shell import preload\n"
        "preload()\n"
        "from streamlit.testing.v1 import AppTest\n"
        f"at = AppTest.from_file({str(app)!r}, default_timeout=120)\n"
        "t = time.perf_counter(); at.run(); first = time.perf_counter() - t\n"
        "print('RESULT', first, len(at.exception))\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", served],
        capture_output=True,
        text=True,
        env={**os.environ, "DOMINO_DB": str(db)},
        cwd=ROOT,
        check=False,
    )
    if r.returncode != 0:
        return {"page_render_error": r.stderr[-500:]}
    _, first_served, exc_served = [x for x in r.stdout.splitlines() if x.startswith("RESULT ")][
        -1
    ].split()
    return {
        "page_render_first_served_s": float(first_served),
        "page_render_first_s": float(first),
        "page_render_cached_s": float(cached),
        "page_render_new_session_s": float(session),
        "page_render_new_session_max_s": float(session_max),
        "page_exceptions": int(exc) + int(exc_served),
        **render.page_cpu(db, repeats),
    }


def machine() -> dict[str, object]:
    import streamlit

    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "memory_gib": round(mem, 1),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "polars": pl.__version__,
        "duckdb": duckdb.__version__,
        "streamlit": streamlit.__version__,
    }


#: ``--smoke`` repeats each timed step this many times instead of 10-15: its figures only
#: prove that every step still runs, and the suite runs it on every ``make test``
SMOKE_REPEATS = 3


def run(
    sizes: list[str], rulesets: list[str], out: Path, corpora: Path, *, smoke: bool = False
) -> dict[str, object]:
    results: dict[str, object] = {"machine": machine(), "runs": [], "smoke": smoke}
    few = {"repeats": SMOKE_REPEATS} if smoke else {}  # else each step's own default
    for rs in rulesets:
        for size in sizes:
            t = time.perf_counter()
            paths = corpus(rs, size, corpora)
            gen = time.perf_counter() - t
            n = hands_in(paths)
            row: dict[str, object] = {
                "ruleset": rs,
                "size": size,
                "hands": n,
                "files": len(paths),
                "bytes": sum(p.stat().st_size for p in paths),
                "generate_s": gen,
            }
            row.update(floor(paths))
            db = corpora / f"{rs}-{size}.duckdb"
            row.update(rebuild(paths, db))
            row.update(bounds(paths, rs, corpora))
            fl = min(row["polars_read_csv_s"], row["duckdb_read_csv_s"])  # type: ignore[type-var]
            row["hands_per_s"] = n / row["rebuild_s"]  # type: ignore[operator]
            row["ratio_to_floor"] = row["rebuild_s"] / fl  # type: ignore[operator]
            row["store_ratio_to_floor"] = row["duckdb_store_s"] / fl  # type: ignore[operator]
            row["sql_bound_ratio_to_floor"] = row["sql_bound_s"] / fl  # type: ignore[operator]
            if size in ("1m", "10m") or size == sizes[-1]:
                row.update(incremental(db, rs, **few))
                # a table loaded before every rated one: the rating ladder replayed whole
                early = incremental(db, rs, repeats=3, into=FIRST, tag="EARLY")
                row["incremental_first_event_median_ms"] = early["incremental_median_ms"]
                row.update(leaderboard_latency(db))
                row["cli"] = cli_timings(db, rs, **few)
            if size in ("1m", "10m") or size == sizes[-1]:
                row.update(ratings_bench.rating_recompute(db))
            if size == "1m" or (size == sizes[-1] and "1m" not in sizes):
                row.update(page_render(db, **few))
                row.update(ratings_bench.profile_render(db))
            if size == "1m":  # not in --smoke: a real browser against a served dashboard
                row["browser"] = browser_timings(db)
            results["runs"].append(row)  # type: ignore[attr-defined]
            print(json.dumps(row), flush=True)
    if "1m" in sizes:  # what Streamlit itself needs to show its smallest pages
        results["framework_floor"] = floor_timings()
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    (out / f"{stamp}.json").write_text(json.dumps(results, indent=1))
    (out / "latest.md").write_text(markdown(results))
    return results


def markdown(results: dict[str, object]) -> str:
    m = results["machine"]
    lines = [
        "# Benchmark results",
        "",
        f"Run {m['when']} on {m['cpus']} CPUs, {m['memory_gib']} GiB, {m['platform']}; "  # type: ignore[index]
        f"Python {m['python']}, polars {m['polars']}, duckdb {m['duckdb']}, streamlit {m['streamlit']}.",  # type: ignore[index]
        "",
        "| ruleset | hands | rebuild s | hands/s | peak RSS MiB | polars read s | duckdb read s | × floor | DuckDB store × floor | SQL-only bound × floor | incremental ms (median) | leaderboard p50 / p95 ms | page render s: new session / cached / first served / first in bare process |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    extra: list[str] = []
    for r in results["runs"]:  # type: ignore[union-attr]
        inc = f"{r['incremental_median_ms']:.0f}" if "incremental_median_ms" in r else ""
        lat = (
            f"{r['leaderboard_p50_ms']:.1f} / {r['leaderboard_p95_ms']:.1f}"
            if "leaderboard_p50_ms" in r
            else ""
        )
        page = (
            f"{r['page_render_new_session_s']:.2f} / {r['page_render_cached_s']:.2f} / "
            f"{r['page_render_first_served_s']:.2f} / {r['page_render_first_s']:.2f}"
            if "page_render_new_session_s" in r
            else ""
        )
        if "rating_recompute_s" in r:
            extra.append(
                f"| {r['ruleset']} | {r['hands']:,} | {r['rating_tables']:,} | "
                f"{r['rating_recompute_s']:.2f} | {r['rating_recompute_cpu_s']:.2f} | "
                f"{r.get('profile_render_first_s', float('nan')):.2f} |"
            )
        lines.append(
            f"| {r['ruleset']} | {r['hands']:,} | {r['rebuild_s']:.2f} | {r['hands_per_s']:,.0f} | {r['peak_rss_mib']:,.0f} | "
            f"{r['polars_read_csv_s']:.2f} | {r['duckdb_read_csv_s']:.2f} | {r['ratio_to_floor']:.1f} | "
            f"{r['store_ratio_to_floor']:.1f} | {r['sql_bound_ratio_to_floor']:.1f} | {inc} | {lat} | {page} |"
        )
    if extra:
        lines += [
            "",
            "| ruleset | hands | tables rated | rating recompute s | its CPU s | profile page first render s |",
            "|---|---:|---:|---:|---:|---:|",
            *extra,
        ]
    lines += render.lines(results["runs"])  # type: ignore[arg-type]
    for r in results["runs"]:  # type: ignore[union-attr]
        if isinstance(r.get("cli"), dict):
            lines += [
                "",
                f"Command line, {r['ruleset']} {r['hands']:,} hands (median / p95 s):",
                "",
            ]
            lines += [f"- {k}: {v['median_s']:.2f} / {v['p95_s']:.2f}" for k, v in r["cli"].items()]
    for r in results["runs"]:  # type: ignore[union-attr]
        if isinstance(r.get("browser"), dict) and "page_leaderboard" in r["browser"]:
            lines += ["", f"Browser, {r['ruleset']} {r['hands']:,} hands (median / p95 s):", ""]
            lines += [
                f"- {k}: {v['median_s']:.2f} / {v['p95_s']:.2f}"
                for k, v in r["browser"].items()
                if isinstance(v, dict)
            ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--sizes", default="10k,100k,1m,10m", help="comma-separated: " + ", ".join(SIZES)
    )
    ap.add_argument("--rulesets", default="unhas,pepet")
    ap.add_argument(
        "--smoke",
        action="store_true",
        help=f"the 10-thousand corpus only, each timed step {SMOKE_REPEATS} times",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument("--corpora", type=Path, default=ROOT / "bench" / "corpora")
    a = ap.parse_args(argv)
    sizes = ["10k"] if a.smoke else a.sizes.split(",")
    return run(sizes, a.rulesets.split(","), a.out, a.corpora, smoke=a.smoke)


if __name__ == "__main__":
    main()
