"""Server CPU of one page render: what each visitor's screen costs the server.

Part of :func:`bench.run.page_render`. For the leaderboard, player and event statistics
pages, Streamlit's AppTest opens the page in a new session on a process whose caches
are warm (another visitor saw the page before: a spectator's screen), ``sessions`` times
(five unless told); the figure is the CPU time of the script thread (``time.thread_time``
around Streamlit's script run), so the test harness's own work is not counted. ``leaderboard_busiest`` is
the leaderboard of the round with the most tables (the most table cards on one screen). ``first`` is the first
visitor's page in that process (queries and caches included).
"""

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("leaderboard", "leaderboard_busiest", "player", "event_stats")


def _busiest(db: Path) -> tuple[str, str] | None:
    """The event and round with the most tables (the most table cards on one screen)."""
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute(
            'SELECT event, round, count(DISTINCT "table") AS n FROM match_versions '
            "WHERE current GROUP BY event, round ORDER BY n DESC, event, round LIMIT 1"
        ).fetchone()
    return (row[0], row[1]) if row else None


_CODE = """
import statistics, sys, time
from urllib.parse import parse_qsl
from streamlit.runtime.scriptrunner import script_runner as sr
from streamlit.testing.v1 import AppTest
APP = sys.argv[1]
run, spent = sr.ScriptRunner._run_script, []
def timed(self, rerun):
    c = time.thread_time()
    try:
        return run(self, rerun)
    finally:
        spent.append(time.thread_time() - c)
sr.ScriptRunner._run_script = timed
def session(spec):
    page, _, query = spec.partition("?")
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params.update(dict(parse_qsl(query)))
    if page != "leaderboard":
        at.run()
        at.switch_page(f"page_scripts/{page}.py")
    spent.clear()
    at.run()
    return sum(spent), len(at.exception)
for arg in sys.argv[3:]:
    name, _, spec = arg.partition("=")
    first, errors = session(spec)
    warm = [session(spec) for _ in range(int(sys.argv[2]))]
    errors += sum(e for _, e in warm)
    print("RESULT", name, first, statistics.median(c for c, _ in warm), errors)
"""


def page_cpu(db: Path, sessions: int = 5) -> dict[str, float]:
    """``page_cpu_<page>_s`` (warm new session, median of ``sessions``) and
    ``page_cpu_<page>_first_s``."""
    app = ROOT / "dashboard" / "app.py"
    busiest = _busiest(db)
    specs = ["leaderboard=leaderboard", "player=player", "event_stats=event_stats"]
    if busiest is not None:
        specs.append(
            f"leaderboard_busiest=leaderboard?{urlencode(dict(zip(('event', 'round'), busiest, strict=True)))}"
        )
    r = subprocess.run(
        [sys.executable, "-c", _CODE, str(app), str(sessions), *specs],
        capture_output=True,
        text=True,
        env={**os.environ, "DOMINO_DB": str(db)},
        cwd=ROOT,
        check=False,
    )
    if r.returncode != 0:
        return {"page_cpu_error": r.stderr[-500:]}  # type: ignore[dict-item]
    out: dict[str, float] = {}
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            _, page, first, warm, errors = line.split()
            out[f"page_cpu_{page}_s"] = float(warm)
            out[f"page_cpu_{page}_first_s"] = float(first)
            out["page_cpu_exceptions"] = out.get("page_cpu_exceptions", 0) + int(errors)
    return out


def lines(runs: list[dict[str, object]]) -> list[str]:
    """The report's lines: server CPU per render of each page."""
    out: list[str] = []
    for r in runs:
        if f"page_cpu_{PAGES[0]}_s" not in r:
            continue
        out += ["", f"Server CPU per page render, {r['ruleset']} {r['hands']:,} hands", ""]
        out += [
            f"- {page}: new session on a warm server {r[f'page_cpu_{page}_s']:.3f} s; "
            f"first visitor {r[f'page_cpu_{page}_first_s']:.3f} s"
            for page in PAGES
            if f"page_cpu_{page}_s" in r
        ]
    return out
