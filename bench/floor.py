"""The framework's own floor: how soon Streamlit shows its smallest pages in Chromium on
this machine, with none of this project's code (``bench/floor/app.py``).

Each page is opened ``repeats`` times by a new visitor (a new browser context: nothing
cached) and by a returning one (one context: scripts cached by the browser), from
navigation to the element visible: the title; a four-row ``st.table``; one small chart
as ``st.line_chart`` (Vega-Lite, which the dashboard's charts use too). The
dashboard's pages cannot show their content sooner than the floor of what they hold.

``python -m bench.floor`` prints and saves the figures; ``make bench`` runs it with the
browser timings. Nothing here asserts on time.
"""

import argparse
import contextlib
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.browser import CHROMIUM, CHROMIUM_ARGS, ROOT, save, serving, summary, visible

APP = Path(__file__).resolve().parent / "floor" / "app.py"
MARKERS = {
    "title": 'h1:has-text("Hello")',
    "table": '[data-testid="stTableStyledTable"]',
    # the chart's element, as bench/browser.py waits for the dashboard's charts
    "vega": '[data-testid="stVegaLiteChart"]',
}


def _serve() -> contextlib.AbstractContextManager[str]:
    """``streamlit run`` of the floor app (see :func:`bench.browser.serving`)."""
    streamlit = Path(sys.executable).parent / "streamlit"
    return serving(
        lambda port: [
            str(streamlit),
            "run",
            str(APP),
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
        ]
    )


def floor_timings(repeats: int = 10, browser: Any = None) -> dict[str, object]:
    """``{page}_{new|returning}``: median and p95 seconds to the page's element. A test
    passes the ``browser`` it already has (Playwright runs one per process)."""
    if not CHROMIUM.exists():
        return {"floor_error": f"{CHROMIUM} is missing"}
    with _serve() as url:
        if browser is not None:
            return _measure(browser, url, repeats)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            own = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                return _measure(own, url, repeats)
            finally:
                own.close()


def _measure(browser: Any, url: str, repeats: int) -> dict[str, object]:
    out: dict[str, object] = {}
    for visitor in ("new", "returning"):
        shared = browser.new_context(viewport={"width": 1366, "height": 900})
        for what, marker in MARKERS.items():
            times = []
            for i in range(repeats + 1):  # the first visit warms the server
                ctx = (
                    shared
                    if visitor == "returning"
                    else browser.new_context(viewport={"width": 1366, "height": 900})
                )
                page = ctx.new_page()
                t = time.perf_counter()
                page.goto(f"{url}/?what={what}")
                visible(page.locator(marker), 60_000)
                if i:
                    times.append(time.perf_counter() - t)
                page.close()
                if ctx is not shared:
                    ctx.close()
            out[f"{what}_{visitor}"] = summary(times)
        shared.close()
    return out


def main(argv: list[str] | None = None) -> dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    a = ap.parse_args(argv)
    res = {"when": datetime.now(UTC).isoformat(timespec="seconds"), **floor_timings(a.repeats)}
    return save(res, a.out, "floor")


if __name__ == "__main__":
    main()
