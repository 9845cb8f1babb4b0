"""What a person feels: the dashboard's pages timed in a real browser (Chromium, Playwright)
against ``domino serve`` on a big database, the server warm.

Measured, each ``repeats`` times (median and p95, in seconds):

* ``page_<name>``: from navigation (a new visitor, a new session) to the page's content
  visible — the leaderboard's first table, a chart on the player and statistics pages,
  the sign-in form of the upload page; ``page_<name>_returning`` the same for a returning
  visitor (one browser that opened every page before: Streamlit's scripts cached, a new
  tab and session each time);
* ``switch_page``: a sidebar link clicked to the other page's content; ``switch_event``
  and ``switch_round``: a choice in the leaderboard's selector to the new tables (the
  picker opened, the id typed, Enter), and ``switch_event_enter`` the event switch's last
  part, from Enter to the new tables;
  ``switch_tab``: a leaderboard tab clicked to its table;
* ``save_to_visible``: ``domino ingest`` of one new table in another process, from the
  moment it exits to the table shown on a leaderboard that stays open (and from its start).

``python -m bench.browser --db FILE`` runs it alone; ``make bench`` runs it on the
1-million-hand database. The database gets one small extra event (``bench-browser``)
for the switches and the saves. Nothing here asserts on time.
"""

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
]
EVENT = "bench-browser"
TABLE = "table.plain-table"  # a plain table (one st.html, dashboard.ui.plain_table)
CARD = ".table-card table"  # a table card of the leaderboard (one st.html)
CHART = ".dc"  # a chart, drawn on the server (dashboard.charts)
TIMEOUT_MS = 120_000


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median_s": statistics.median(ordered), "p95_s": p95, "n": len(ordered)}


def _free_port() -> int:
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(argv: Callable[[int], list[str]], log: Path | None = None) -> Iterator[str]:
    """A Streamlit server started from ``argv(port)`` on a free port, once its health
    check answers; stopped afterwards. Its output goes to ``log`` (else nowhere)."""
    port = _free_port()
    env = {**os.environ, "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none"}
    with open(log or os.devnull, "wb") as out:
        proc = subprocess.Popen(argv(port), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                said = log.read_text()[-2000:] if log else ""
                raise RuntimeError(f"the server exited: {said}")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def serve(db: Path, log: Path) -> contextlib.AbstractContextManager[str]:
    """``domino serve`` of ``db`` (see :func:`serving`)."""
    domino = Path(sys.executable).parent / "domino"
    return serving(
        lambda port: [
            str(domino),
            "serve",
            "--port",
            str(port),
            "--host",
            "127.0.0.1",
            "--db",
            str(db),
        ],
        log,
    )


def _table_file(folder: Path, event: str, round_: str, table: str, seed: int) -> Path:
    """One generated match (10 hands or so) as a hand-log file of ``event``."""
    import simulator

    frame = simulator.generate_frame("unhas", seed, 40, event=event)
    first = frame.filter(pl.col("round") == frame["round"][0], pl.col("table") == frame["table"][0])
    first = first.with_columns(
        pl.lit(event).alias("event"), pl.lit(round_).alias("round"), pl.lit(table).alias("table")
    )
    path = folder / f"{event}-{round_}-{table}.csv"
    first.write_csv(path)
    return path


def _domino(db: Path, *args: str) -> None:
    """``domino ARGS --db DB`` in a process of its own, as a user runs it."""
    domino = Path(sys.executable).parent / "domino"
    done = subprocess.run(
        [str(domino), *args, "--db", str(db)], capture_output=True, text=True, cwd=ROOT, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"domino {args[0]} failed: {done.stdout[-1000:]} {done.stderr[-1000:]}")


def _ingest(path: Path, db: Path) -> None:
    _domino(db, "ingest", str(path), "--format", "json")


def prepare(db: Path, folder: Path) -> tuple[str, str]:
    """The big event to show and the small event to switch to (made once, and dated as
    :func:`live_event` says)."""
    with duckdb.connect(str(db), read_only=True) as con:
        big = con.execute(
            "SELECT event FROM events WHERE event <> ? ORDER BY created_at, event LIMIT 1", [EVENT]
        ).fetchall()[0][0]
        have = con.execute("SELECT count(*) FROM events WHERE event = ?", [EVENT]).fetchall()[0][0]
    live_event(db, EVENT, "unhas")
    if not have:
        _ingest(_table_file(folder, EVENT, "BR1", "1", 7), db)
    return big, EVENT


def live_event(db: Path, event: str, ruleset: str) -> None:
    """Create ``event`` or date it the day after every other event's play day, unless it
    is after them already: a live event is the newest in play order. Undated, it would
    share the corpus's day (the day it was loaded) and come first by its name, and every
    save would replay the whole rating ladder after it (about 100,000 tables, 4-5 s at a
    million hands)."""
    with duckdb.connect(str(db), read_only=True) as con:
        # the newest play day of the others (an undated event plays on the day it was loaded)
        last, day = con.execute(
            "SELECT max(coalesce(event_date, CAST(created_at AS DATE))) FILTER (WHERE event <> ?), "
            "max(event_date) FILTER (WHERE event = ?) FROM events",
            [event, event],
        ).fetchall()[0]
    if day is None or day <= last:  # new, undated, or not after the others
        when = (last + timedelta(days=1)).isoformat()
        _domino(db, "event", "create", event, "--ruleset", ruleset, "--date", when)


#: how long one look for an element may wait; Playwright's polling interval is at most a
#: fifth of that (50 ms here), where a long wait polls only every 500 ms
LOOK_MS = 450


def visible(locator: Any, timeout_ms: int = TIMEOUT_MS) -> None:
    """Wait until ``locator``'s first element is visible, noticing it within about 50 ms.
    A single ``wait_for`` with a long timeout checks every 500 ms once it has waited
    270 ms, which adds up to half a second to the time measured."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.perf_counter() + timeout_ms / 1000
    while True:
        try:
            locator.first.wait_for(state="visible", timeout=LOOK_MS)
            return
        except PlaywrightTimeout:
            if time.perf_counter() > deadline:
                raise


def _timed(page, action: Callable[[], None], selector: str) -> float:
    t = time.perf_counter()
    action()
    visible(page.locator(selector))
    return time.perf_counter() - t


def _choose(page, which: int, text: str) -> float:
    """Pick ``text`` in the leaderboard's ``which``-th selector (0 event, 1 round): open
    it, type, Enter. Returns the moment Enter was pressed (``time.perf_counter``)."""
    page.locator('[data-testid="stSelectbox"]').nth(which).click()
    page.keyboard.type(text)
    entered = time.perf_counter()
    page.keyboard.press("Enter")
    return entered


def measure(
    url: str, db: Path, big: str, small: str, folder: Path, repeats: int, browser: Any = None
) -> dict:
    """Every figure, in ``browser`` (a test passes the one it already has: Playwright runs
    one per process) or in a Chromium of its own."""
    if browser is not None:
        return _measure(browser, url, db, big, small, folder, repeats)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        own = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            return _measure(own, url, db, big, small, folder, repeats)
        finally:
            own.close()


def _measure(
    browser: Any, url: str, db: Path, big: str, small: str, folder: Path, repeats: int
) -> dict:
    def fresh():
        ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="id-ID")
        ctx.set_default_timeout(TIMEOUT_MS)
        return ctx, ctx.new_page()

    out = _pages(fresh, url, big, repeats)
    out.update(_switches(fresh, url, db, big, small, repeats))
    out.update(_saves(fresh, url, db, small, folder, repeats))
    return out


def _pages(fresh, url: str, big: str, repeats: int) -> dict:
    """Each page's content, for a new visitor (a new browser context, a new session) and
    for a returning one (scripts cached by the browser, a new session)."""
    pages = {
        "leaderboard": (f"/?event={big}", CARD),
        "player": ("/player", CHART),
        "stats": (f"/stats?event={big}", CHART),
        "upload": ("/upload", 'button:has-text("Masuk")'),
    }
    # warm: every page served once, in the returning visitor's browser (below, its visits
    # find Streamlit's scripts in its cache; each new visitor has a browser of its own)
    returning, page = fresh()
    for path, marker in pages.values():
        page.goto(url + path)
        page.locator(marker).first.wait_for(timeout=TIMEOUT_MS)
    page.close()
    out = {}
    for name, (path, marker) in pages.items():
        times = []
        for _ in range(repeats):
            ctx, page = fresh()
            times.append(_timed(page, lambda page=page, path=path: page.goto(url + path), marker))
            ctx.close()
        out[f"page_{name}"] = summary(times)
    # a returning visitor: each visit a new tab (a new session) of the warmed browser
    for name, (path, marker) in pages.items():
        times = []
        for _ in range(repeats):
            page = returning.new_page()
            times.append(_timed(page, lambda page=page, path=path: page.goto(url + path), marker))
            page.close()
        out[f"page_{name}_returning"] = summary(times)
    returning.close()
    return out


def _last_round(db: Path, event: str) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return [
            r[0]
            for r in con.execute(
                "SELECT round FROM rounds WHERE event = ? ORDER BY round_no", [event]
            ).fetchall()
        ]


def _switches(fresh, url: str, db: Path, big: str, small: str, repeats: int) -> dict:
    """In one open session: sidebar page, tab, event and round."""
    rounds = _last_round(db, big)
    # the small event's newest round: BR1, or a round an earlier run's saves added
    small_round = _last_round(db, small)[-1]
    ctx, page = fresh()
    page.goto(f"{url}/?event={big}")
    page.locator(CARD).first.wait_for()
    sw: dict[str, list[float]] = {k: [] for k in ("page", "tab", "event", "event_enter", "round")}
    for i in range(repeats):
        link = page.get_by_role("link", name="Statistik acara")
        sw["page"].append(_timed(page, link.click, CHART))
        link = page.get_by_role("link", name="Klasemen langsung")
        sw["page"].append(_timed(page, link.click, CARD))
        tab = page.get_by_role("tab", name="Klasemen acara")
        sw["tab"].append(_timed(page, tab.click, f'[role="tabpanel"]:visible {TABLE}'))
        page.get_by_role("tab").first.click()
        target, label = (small, small_round) if i % 2 == 0 else (big, rounds[-1])
        # the whole switch (open the picker, type the id, Enter), and its last part: from
        # Enter to the new round's tables, the page's own answer to the choice
        t = time.perf_counter()
        typed = _choose(page, 0, target)
        visible(page.locator(f'[role="tab"]:has-text("Meja · {label}")'))
        done = time.perf_counter()
        sw["event"].append(done - t)
        sw["event_enter"].append(done - typed)
    _choose(page, 0, big)
    page.locator(f'[role="tab"]:has-text("Meja · {rounds[-1]}")').wait_for()
    for i in range(repeats):
        r = rounds[i % max(1, len(rounds) - 1)]
        sw["round"].append(
            _timed(page, lambda r=r: _choose(page, 1, r), f'[role="tab"]:has-text("Meja · {r}")')
        )
    ctx.close()
    return {f"switch_{k}": summary(v) for k, v in sw.items()}


def _saves(fresh, url: str, db: Path, small: str, folder: Path, repeats: int) -> dict:
    """A round of the small event open on one screen; tables added by ``domino ingest``.
    Each run saves into a round of its own: a player sits at one table per round, and
    the generated tables of an earlier run on the same database hold the same players."""
    stamp = int(time.time())
    rnd = f"BR{stamp % 100000}"
    # the round's first table (the players of seed 7 are none of seeds 100-109's)
    _ingest(_table_file(folder, small, rnd, "0", 7), db)
    ctx, page = fresh()
    page.goto(f"{url}/?event={small}&round={rnd}")
    page.locator(CARD).first.wait_for()
    after_exit, after_start = [], []
    for i in range(repeats):
        label = f"{stamp % 100000}{i:02d}"
        f = _table_file(folder, small, rnd, label, 100 + i)
        t0 = time.perf_counter()
        _ingest(f, db)
        t1 = time.perf_counter()
        visible(page.get_by_text(f"Meja {label}", exact=True))
        t2 = time.perf_counter()
        after_exit.append(t2 - t1)
        after_start.append(t2 - t0)
    ctx.close()
    return {
        "save_to_visible": summary(after_exit),
        "save_to_visible_from_ingest_start": summary(after_start),
    }


def browser_timings(
    db: Path, repeats: int = 10, work: Path | None = None, browser: Any = None
) -> dict:
    """Every figure above for ``db`` (a copy is not made: the small event is added to it),
    in ``browser`` when one is given (see :func:`measure`)."""
    if not CHROMIUM.exists():
        return {"browser_error": f"{CHROMIUM} is missing"}
    work = work or db.parent / "browser"
    work.mkdir(parents=True, exist_ok=True)
    big, small = prepare(db, work)
    with serve(db, work / "serve.log") as url:
        return measure(url, db, big, small, work, repeats, browser)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", type=Path, required=True, help="a big database (bench corpora)")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument("--label", default="browser")
    a = ap.parse_args(argv)
    res = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "db": a.db.name,
        "repeats": a.repeats,
        **browser_timings(a.db, a.repeats),
    }
    return save(res, a.out, a.label)


def save(res: dict, out: Path, label: str) -> dict:
    """Write ``res`` to ``out/<timestamp>-<label>.json`` and print it."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    (out / f"{stamp}-{label}.json").write_text(json.dumps(res, indent=1))
    print(json.dumps(res, indent=1))
    return res


if __name__ == "__main__":
    main()
