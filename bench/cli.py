"""The command line as a user runs it: whole-process wall times, each a new process.

Measured, each ``repeats`` times (median and p95, in seconds), on a big database:

* ``cli_help``: ``domino --help``;
* ``cli_standings``: ``domino standings`` of the newest event of the corpus (its whole
  event standings, printed as a table);
* ``cli_ingest``: ``domino ingest`` of one new table (a live match, all its hands) as a new
  round of a live event (``bench-cli``, dated after every other event), until the process
  exits (the load committed, the standings and the rating ladder up to date).

The tables are written and the event created before the clock starts, and one untimed
load goes first: the timed loads are a venue's next uploads, not its first. ``make bench``
runs this on the 1- and 10-million-hand databases; ``python -m bench.cli --db FILE
--ruleset unhas`` runs it alone (each run adds ``repeats + 1`` rounds to the database).
Nothing here asserts on time.
"""

import argparse
import json
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import polars as pl

from bench.browser import live_event, summary

ROOT = Path(__file__).resolve().parent.parent
DOMINO = Path(sys.executable).parent / "domino"
#: The live event the tables are loaded into (created by the first run).
EVENT = "bench-cli"
#: The corpus's newest event in play order (date, then name), whose standings are printed:
#: ``bench-<ruleset>-<size>-<n>``, not the small events the other benchmarks add.
NEWEST = (
    "SELECT event FROM events WHERE regexp_full_match(event, 'bench-' || ? || '-[0-9a-z]+-[0-9]+') "
    "ORDER BY coalesce(event_date, cast(created_at AS date)) DESC, event DESC LIMIT 1"
)


def _run(*args: str) -> float:
    """Wall time of ``domino ARGS`` in a process of its own; a failure stops the bench."""
    t = time.perf_counter()
    done = subprocess.run([str(DOMINO), *args], capture_output=True, text=True, cwd=ROOT)
    took = time.perf_counter() - t
    if done.returncode != 0:
        raise RuntimeError(f"domino {args[0]} failed: {done.stdout[-800:]} {done.stderr[-800:]}")
    return took


def _tables(db: Path, ruleset: str, folder: Path, n: int) -> tuple[str, list[Path]]:
    """The newest event of the corpus, and ``n`` files of one generated table each, every
    one a round of its own of :data:`EVENT` (named by this run's clock, so a second run
    adds new rounds). The event is the newest in play order (:func:`bench.browser.live_event`),
    so a load rates its own table only."""
    import simulator

    with duckdb.connect(str(db), read_only=True) as con:
        newest = con.execute(NEWEST, [ruleset]).fetchall()[0][0]
    live_event(db, EVENT, ruleset)
    frame = simulator.generate_frame(ruleset, 98, 40, event=EVENT)
    table = frame.filter(
        pl.col("round") == frame["round"][0], pl.col("table") == frame["table"][0]
    ).with_columns(pl.lit(EVENT).alias("event"))
    tag = datetime.now(UTC).strftime("C%H%M%S")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        path = folder / f"cli-{tag}-{i}.csv"
        table.with_columns(pl.lit(f"{tag}-{i}").alias("round")).write_csv(path)
        paths.append(path)
    return newest, paths


def cli_timings(db: Path, ruleset: str, repeats: int = 10, work: Path | None = None) -> dict:
    folder = work or db.parent / "cli-tables"
    newest, paths = _tables(db, ruleset, folder, repeats + 1)
    out: dict[str, object] = {}
    out["cli_help"] = summary([_run("--help") for _ in range(repeats)])
    out["cli_standings"] = summary(
        [_run("standings", "--event", newest, "--db", str(db)) for _ in range(repeats)]
    )
    _run("ingest", str(paths[0]), "--db", str(db), "--format", "json")  # untimed: warms caches
    out["cli_ingest"] = summary(
        [_run("ingest", str(p), "--db", str(db), "--format", "json") for p in paths[1:]]
    )
    for p in paths:
        p.unlink()
    return out


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", type=Path, required=True, help="a big database (bench corpora)")
    ap.add_argument("--ruleset", default="unhas", help="the corpus's ruleset")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    a = ap.parse_args(argv)
    res = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "db": str(a.db),
        **cli_timings(a.db, a.ruleset, a.repeats),
    }
    a.out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    (a.out / f"{stamp}-cli.json").write_text(json.dumps(res, indent=1))
    print(json.dumps(res, indent=1))
    return res


if __name__ == "__main__":
    main()
