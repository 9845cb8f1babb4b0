"""When each part of a dashboard page appears, on the browser's own clock: a probe of where
a page's time goes, beside ``bench/browser.py``'s one figure per page.

For each page address, ``repeats`` visits by a new visitor (a new browser context) and by
a returning one (one warmed context, a new tab each time). In each visit the page records,
in milliseconds from navigation (``performance.now()``):

* ``ws_open``, ``first_msg``, ``last_msg``: the WebSocket to the server opened, its first
  and last message arrived (``messages`` and ``bytes`` count them);
* the first moment each kind of element was in the page (a ``MutationObserver``):
  ``title``, ``picker``, ``metric``, ``tabs``, ``plain_table``, ``card``, ``chart`` (a chart's
  element, :mod:`dashboard.charts`) and ``chart_drawn`` (its first bar or line);
* the scripts the page's components fetched once it was connected (after ``ws_open``):
  name, start and end (of the last visit).

``python -m bench.timeline --db FILE /player "/stats?event=E"`` serves the database with
``domino serve`` and prints the medians. Nothing here asserts on time.
"""

import argparse
import statistics
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.browser import CARD, CHART, CHROMIUM, CHROMIUM_ARGS, ROOT, TIMEOUT_MS, save, serve

#: what the page records (see the module's docstring)
RECORDER = r"""
window.__seen = {};
window.__ws = [];
const kinds = {
  title: 'h1', picker: '[data-testid="stSelectbox"]', metric: '[data-testid="stMetric"]',
  tabs: '[role="tab"]', plain_table: 'table.plain-table', card: '.table-card table',
  chart: '.dc',
  chart_drawn: '.dc .dc-b, .dc polyline',
};
const look = () => {
  for (const [k, s] of Object.entries(kinds))
    if (!(k in window.__seen) && document.querySelector(s)) window.__seen[k] = performance.now();
};
new MutationObserver(look).observe(document, {subtree: true, childList: true, attributes: true});
const Socket = window.WebSocket;
window.WebSocket = function (...args) {
  const ws = new Socket(...args);
  ws.addEventListener('open', () => window.__ws.push(['open', performance.now(), 0]));
  ws.addEventListener('message', (e) =>
    window.__ws.push(['msg', performance.now(), e.data.size || e.data.byteLength || e.data.length || 0]));
  return ws;
};
window.WebSocket.prototype = Socket.prototype;
"""

#: what a visit waits for before it reads the record: the page's content
WAIT = {"/player": CHART, "/stats": CHART, "/": CARD}


def marker(path: str) -> str:
    """The element a visit of ``path`` waits for (its content; a title elsewhere)."""
    page = "/" + path.lstrip("/").split("?")[0].split("/")[0]
    return WAIT.get(page, "h1")


def _visit(ctx: Any, url: str, path: str) -> dict[str, Any]:
    page = ctx.new_page()
    try:
        page.goto(url + path)
        page.locator(marker(path)).first.wait_for(timeout=TIMEOUT_MS)
        page.wait_for_timeout(300)  # what comes right after the content (the chart drawn)
        seen: dict[str, float] = page.evaluate("window.__seen")
        ws: list[list[Any]] = page.evaluate("window.__ws")
        scripts = page.evaluate(
            "performance.getEntriesByType('resource')"
            ".filter(r => r.name.endsWith('.js'))"
            ".map(r => [r.name.split('/').pop(), Math.round(r.startTime), Math.round(r.responseEnd)])"
        )
    finally:
        page.close()
    msgs = [w for w in ws if w[0] == "msg"]
    opened = [w[1] for w in ws if w[0] == "open"]
    row: dict[str, Any] = dict(seen)
    if opened:
        row["ws_open"] = opened[0]
    if msgs:
        row.update(first_msg=msgs[0][1], last_msg=msgs[-1][1])
    # the scripts the page's components asked for, once it was connected
    asked = [s for s in scripts if opened and s[1] >= opened[0]]
    row.update(messages=len(msgs), bytes=sum(m[2] for m in msgs), scripts=asked)
    return row


def _median(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Each moment's median over the visits that saw it; the last visit's scripts."""
    keys = dict.fromkeys(k for r in rows for k in r if k != "scripts")
    out: dict[str, Any] = {k: round(statistics.median(r[k] for r in rows if k in r)) for k in keys}
    out["scripts"] = rows[-1]["scripts"]
    return out


def timelines(url: str, paths: list[str], repeats: int, browser: Any) -> dict[str, Any]:
    """``{path: {"new": medians, "returning": medians}}`` in ``browser``."""

    def context() -> Any:
        ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="id-ID")
        ctx.set_default_timeout(TIMEOUT_MS)
        ctx.add_init_script(RECORDER)
        return ctx

    returning = context()
    for path in paths:  # warm: the returning visitor's browser has every script cached
        _visit(returning, url, path)
    out: dict[str, Any] = {}
    for path in paths:
        new = []
        for _ in range(repeats):
            ctx = context()
            new.append(_visit(ctx, url, path))
            ctx.close()
        back = [_visit(returning, url, path) for _ in range(repeats)]
        out[path] = {"new": _median(new), "returning": _median(back)}
    returning.close()
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", type=Path, required=True, help="the database to serve")
    ap.add_argument("--repeats", type=int, default=6)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument("paths", nargs="+", help='page addresses, e.g. /player "/stats?event=E"')
    a = ap.parse_args(argv)
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} is missing: sudo apt-get install chromium")
    from playwright.sync_api import sync_playwright

    log = Path(tempfile.mkdtemp()) / "serve.log"  # the server's output, for a failure
    with serve(a.db, log) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            res = {
                "when": datetime.now(UTC).isoformat(timespec="seconds"),
                "db": a.db.name,
                "repeats": a.repeats,
                "pages": timelines(url, a.paths, a.repeats, browser),
            }
        finally:
            browser.close()
    return save(res, a.out, "timeline")


if __name__ == "__main__":
    main()
