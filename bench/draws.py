"""How long a draw's seating search takes, and how good the seating is, by roster size.

A pepet session (:func:`pipeline.draws.seating.session`) is drawn for rosters of growing
size, a few sessions each so that later sessions avoid the pairs that already met; two
shapes of roster:

* ``groups``: groups (KG) of 12, so that every group can sit apart;
* ``one_group``: everyone in one group (a group-level event), so every table costs
  something and no pass of the search ends it early: the search's bound
  (``seating.MOST_SWAPS``) is what stops it.

and an unhas knockout's second round (:func:`pipeline.draws.seating.next_round`, shape
``knockout``): the two qualifiers of each first-round table of the roster, in clubs of
8, seated to meet another table's.

Each row: the roster, the session, the seconds the search took, the group clashes left
(the fewest the tables allow in ``one_group``) and how many pairs meet again. The times
are the search alone, in this process; a whole ``domino draw`` adds reading the roster
and storing the seats. ``make bench`` runs it; ``python -m bench.draws --sizes 48,480``
runs it alone. Nothing here asserts on time.
"""

import argparse
import json
import random
import time
from datetime import UTC, datetime
from pathlib import Path

from pipeline.draws import seating

ROOT = Path(__file__).resolve().parent.parent
SIZES = (48, 240, 480, 1_000, 2_000, 10_000)
SESSIONS = 3


def _again(tables: list[list[str]], met: dict) -> int:
    """The pairs of ``tables`` that met before."""
    return sum(1 for pair in seating.met_pairs(tables) if met.get(pair))


def measure(size: int, shape: str, sessions: int = SESSIONS) -> list[dict[str, object]]:
    players = [f"p{i:05d}" for i in range(size)]
    group = (lambda i: "KG 1") if shape == "one_group" else (lambda i: f"KG {i // 12}")
    groups = {p: group(i) for i, p in enumerate(players)}
    met: dict = {}
    rows = []
    for s in range(sessions):
        t = time.perf_counter()
        tables = seating.session(players, groups, met, random.Random(s))
        took = time.perf_counter() - t
        rows.append(
            {
                "entrants": size,
                "shape": shape,
                "session": s + 1,
                "search_s": round(took, 3),
                "group_clashes": sum(seating._group_clashes(t_, groups) for t_ in tables),
                "pairs_met_again": _again(tables, met),
            }
        )
        for pair, n in seating.met_pairs(tables).items():
            met[pair] = met.get(pair, 0) + n
    return rows


def knockout(size: int) -> dict[str, object]:
    players = [f"p{i:05d}" for i in range(size)]
    groups = {p: f"club {i % max(1, size // 8)}" for i, p in enumerate(players)}
    first = seating.first_round(players, groups, random.Random(1))
    quals = [t[:2] for t in first]
    origin = {p: i for i, q in enumerate(quals) for p in q}
    met = seating.met_pairs(first)
    t = time.perf_counter()
    tables = seating.next_round(quals, groups, met, random.Random(2))
    return {
        "entrants": sum(map(len, quals)),
        "shape": "knockout",
        "session": 2,
        "search_s": round(time.perf_counter() - t, 3),
        "group_clashes": sum(seating._group_clashes(t_, groups) for t_ in tables),
        # the qualifiers of one table sit together by design: the other pairs that met
        "pairs_met_again": sum(
            1
            for pair in seating.met_pairs(tables)
            if met.get(pair) and len({origin[p] for p in pair}) == 2
        ),
    }


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="Roster sizes (comma).")
    ap.add_argument("--sessions", type=int, default=SESSIONS)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = ap.parse_args(argv)
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        for shape in ("groups", "one_group"):
            for row in measure(size, shape, args.sessions):
                print(json.dumps(row), flush=True)
                rows.append(row)
        row = knockout(size)
        print(json.dumps(row), flush=True)
        rows.append(row)
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    (args.out / f"{stamp}-draws.json").write_text(json.dumps(rows, indent=1) + "\n")
    return rows


if __name__ == "__main__":
    main()
