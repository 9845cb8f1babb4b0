"""The figures of docs/reliability.md: fuzzing, kills, races — measured, not estimated.

``python -m bench.reliability_run`` runs the reliability checks of the test suite at a
larger scale, with fresh seeds, and counts what happened:

* fuzz: random bytes, generated hand logs and broken example logs through read → ingest
  (``simulator.stress.fuzz``: the strategies and the whole-match check ``tests/test_fuzz.py`` uses);
* kills: ``domino ingest`` killed with SIGKILL while loading and correcting a large file
  (``simulator.stress.crash.crash_campaign``);
* races: two or three uploads at once, and a correction racing an update of one match
  (``simulator.stress.races``, as ``tests/test_concurrency.py`` runs them).

Every check is the suite's own assertion; failures are counted and their messages kept
(``bench/results/reliability-failures.txt``), never skipped.
Results go to ``bench/results/reliability.json`` and are printed as Markdown.
"""

import argparse
import collections
import json
import platform
import random
import tempfile
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path

import hypothesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.stress import crash_campaign, fuzz, races

RESULTS = Path(__file__).resolve().parent / "results"


def run_fuzz(examples: int, seed: int) -> dict[str, object]:
    """``examples`` inputs per strategy through read and ingest, each checked as the suite
    checks it; a failed check or an exception is counted (and kept), not hidden."""
    tally: collections.Counter = collections.Counter()
    failures: list[str] = []

    def checked(call):
        def inner(value) -> None:
            tally["inputs"] += 1
            try:
                result = call(value)
            except AssertionError:
                tally["partial or lost matches"] += 1
                failures.append(traceback.format_exc())
                return
            except Exception:
                tally["tracebacks"] += 1
                failures.append(traceback.format_exc())
                return
            if result is None:
                tally["files rejected whole"] += 1
                return
            _plan, stats = result
            tally["matches written whole"] += stats.get("written", 0)
            tally["matches rejected with a message"] += stats.get("rejected", 0)

        return inner

    cfg = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
    )
    strategies = {
        "random bytes": (st.binary(max_size=4096), lambda d: fuzz.load(d, "x.csv")),
        "generated logs": (
            fuzz.hand_logs(),
            lambda g: fuzz.load(g[0], g[1], event="fuzz-ev", ruleset=g[2]),
        ),
        "broken example logs": (fuzz.mutated_logs(), lambda m: fuzz.load(m[0], m[1], ruleset=m[2])),
    }
    per: dict[str, int] = {}
    for i, (name, (strategy, call)) in enumerate(strategies.items()):
        before = tally["inputs"]
        hypothesis.seed(seed + i)(cfg(given(strategy)(checked(call))))()
        per[name] = tally["inputs"] - before
    tally.setdefault("partial or lost matches", 0)
    tally.setdefault("tracebacks", 0)
    if failures:
        (RESULTS / "reliability-failures.txt").write_text("\n\n".join(failures))
    return {"per_strategy": per, **tally}


def run_races(rounds: int, seed: int, work: Path) -> dict[str, object]:
    rng = random.Random(seed)
    tally: collections.Counter = collections.Counter()
    for r in range(rounds):
        folder = work / f"race{r}"
        folder.mkdir()
        db, outcomes, _patience = races.random_race(folder, rng)
        tally["concurrent uploads"] += len(outcomes)
        try:
            got = races.check_landed(db, outcomes)
        except AssertionError as exc:
            tally["failed checks (lost, partial or mixed)"] += 1
            print(f"race {r}: {exc}")
            continue
        tally["landed whole"] += got["landed"]
        tally["told busy, nothing written"] += got["busy"]
    orders: collections.Counter = collections.Counter()
    for r in range(rounds):
        folder = work / f"correction{r}"
        folder.mkdir()
        try:
            orders[races.correction_race(folder, rng)] += 1
        except AssertionError as exc:
            tally["failed checks (lost, partial or mixed)"] += 1
            print(f"correction race {r}: {exc}")
    tally.setdefault("failed checks (lost, partial or mixed)", 0)
    return {**tally, "correction races": dict(orders)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fuzz", type=int, default=500, help="inputs per fuzz strategy")
    ap.add_argument("--kills", type=int, default=30)
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument(
        "--races", type=int, default=8, help="rounds of concurrent uploads, and of correction races"
    )
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100_000)
    args = ap.parse_args()
    out: dict[str, object] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.system()} {platform.machine()}, python {platform.python_version()}",
        "seed": args.seed,
    }
    RESULTS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="reliability-") as tmp:
        work = Path(tmp)
        t = time.monotonic()
        out["fuzz"] = run_fuzz(args.fuzz, args.seed)
        out["fuzz"]["seconds"] = round(time.monotonic() - t)  # type: ignore[index]
        print(json.dumps(out["fuzz"], indent=1), flush=True)
        t = time.monotonic()
        out["kills"] = crash_campaign(
            work / "crash", kills=args.kills, seed=args.seed, hands=args.hands
        )
        out["kills"]["seconds"] = round(time.monotonic() - t)  # type: ignore[index]
        print(json.dumps(out["kills"], indent=1), flush=True)
        t = time.monotonic()
        out["races"] = run_races(args.races, args.seed, work)
        out["races"]["seconds"] = round(time.monotonic() - t)  # type: ignore[index]
        print(json.dumps(out["races"], indent=1), flush=True)
    (RESULTS / "reliability.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"written to {RESULTS / 'reliability.json'}")


if __name__ == "__main__":
    main()
