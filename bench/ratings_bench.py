"""Benchmarks of the ratings and profiles (``make bench`` runs them at 1M and 10M hands):

* rating recompute: every table of every ladder rated again from the start
  (``pipeline.ratings.recompute``, what ``domino rescore`` adds), in a fresh process:
  wall time, CPU time, tables rated;
* profile render: the player page of the best-rated player, opened from its address
  (``?player=Name``) with Streamlit's AppTest in a fresh process, first run and a rerun.

Nothing here asserts on time.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_RECOMPUTE = (
    "import sys, time\n"
    "from pipeline import ratings\n"
    "from pipeline.store.db import connect\n"
    "with connect(sys.argv[1]) as con:\n"
    "    t = time.perf_counter(); c = time.process_time()\n"
    "    n = ratings.recompute(con)\n"
    "    print('RESULT', time.perf_counter() - t, time.process_time() - c, n)\n"
)

_PROFILE = (
    "import sys, time\n"
    "from streamlit.testing.v1 import AppTest\n"
    "from pipeline.store.db import connect\n"
    "with connect(sys.argv[1], read_only=True) as con:\n"
    "    name = con.execute('SELECT player FROM ratings ORDER BY ordinal DESC LIMIT 1').fetchall()[0][0]\n"
    "at = AppTest.from_file(sys.argv[2], default_timeout=300)\n"
    "at.query_params['player'] = name\n"
    "t = time.perf_counter(); at.run(); first = time.perf_counter() - t\n"
    "t = time.perf_counter(); at.run(); again = time.perf_counter() - t\n"
    "print('RESULT', first, again, len(at.exception))\n"
)


def _run(code: str, *args: str, db: Path) -> list[str]:
    r = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "DOMINO_DB": str(db)},
        cwd=ROOT,
        check=False,
    )
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-1000:])
    return [x for x in r.stdout.splitlines() if x.startswith("RESULT ")][-1].split()[1:]


def rating_recompute(db: Path) -> dict[str, float]:
    """A full recompute of every ladder of ``db``."""
    wall, cpu, tables = _run(_RECOMPUTE, str(db), db=db)
    return {
        "rating_recompute_s": float(wall),
        "rating_recompute_cpu_s": float(cpu),
        "rating_tables": int(tables),
    }


def profile_render(db: Path) -> dict[str, float]:
    """The best-rated player's page, opened from its address."""
    page = ROOT / "dashboard" / "page_scripts" / "player.py"
    try:
        first, again, exc = _run(_PROFILE, str(db), str(page), db=db)
    except RuntimeError as e:
        return {"profile_render_error": str(e)[-300:]}  # type: ignore[dict-item]
    return {
        "profile_render_first_s": float(first),
        "profile_render_rerun_s": float(again),
        "profile_exceptions": int(exc),
    }


if __name__ == "__main__":
    for path in sys.argv[1:]:
        out = {**rating_recompute(Path(path)), **profile_render(Path(path))}
        print(path, out, flush=True)
