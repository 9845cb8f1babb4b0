"""``python -m dashboard [--port N] [--host H] [--db FILE]``: serve the dashboard.

What ``domino serve`` and ``domino demo`` start (the engine runs this in a new process and
never imports the dashboard itself). Every page's module is imported before the server
opens its port: Streamlit runs the app in the server's own process, so the first visitor's
page takes well under a second instead of the seconds of importing Streamlit's chart
stack, Altair and pandas.

Those imports are then frozen out of Python's garbage collector (:func:`freeze_imports`):
Streamlit runs a full collection after every script run, just when a new visitor's
browser is fetching the page's scripts from the server; over the ~150,000 objects of the
imports each took 11–108 ms (median 57 ms), and 8–58 ms (median 15 ms) with them frozen.

The server does not watch its own source files (``server.fileWatcherType = none``): a
served dashboard's code changes only with a new release and a restart. Watching cost every
new session (each visitor, each new tab) a walk over the ~1,600 imported modules on the
server's event loop, with a path resolved for each, before any other session's messages
went out: 0.26 against 0.09 s of server CPU per leaderboard visit, 0.31 against 0.13 s per
player page (docs/performance.md, 3 December).

Nor does it ask the internet for the machine's address (:func:`no_external_address`).
"""

import argparse
import atexit
import gc
import os
import signal
from pathlib import Path

APP = Path(__file__).resolve().parent / "asgi.py"  # app.py, served with its middleware


def streamlit_args(port: int, host: str) -> list[str]:
    """The ``streamlit`` command line that serves :data:`APP`."""
    return [
        "run",
        str(APP),
        "--server.port",
        str(port),
        "--server.address",
        host,
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]


def no_external_address() -> None:
    """Never ask the internet for this machine's address. Served headless on every
    interface (``domino serve``'s default), Streamlit asks a public web service
    (``checkip.amazonaws.com``, over HTTP and then HTTPS, with a timeout of 1 s each) for
    an "External URL" to print, and asks again for each browser of another origin while it
    has no answer. A venue's laptop is often offline: every start then printed "Did not
    auto detect external IP. Please go to https://docs.streamlit.io/ for debugging
    hints.", and online, every start told that service the dashboard was up. Visitors
    open the Local or the Network URL, which come from this machine alone."""
    from streamlit import net_util

    net_util.get_external_ip = lambda: None


def freeze_imports() -> None:
    """Keep every object that exists now out of the collections to come (``gc.freeze``).
    At exit they are handed back first, so the interpreter's teardown frees them and
    DuckDB's bindings do not report them as leaked."""
    gc.freeze()
    atexit.register(gc.unfreeze)


def stop_on_signals() -> None:
    """Ctrl+C (SIGINT) and SIGTERM stop the server with status 0 and one line, as
    Streamlit's own server did. Its server for an ``st.App`` (uvicorn) closes the sessions
    and then raises the signal again for the handler it found: Python's own would end a
    Ctrl+C in click's "Aborted!" and status 1 (``make demo`` then reports an error), and a
    SIGTERM in death by the signal."""

    def stop(signum: int, frame: object) -> None:
        print("  Stopping...", flush=True)
        raise SystemExit(0)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, stop)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m dashboard", description="Serve the dashboard.")
    parser.add_argument("--port", type=int, default=8501)
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument(
        "--db",
        help="Database file or postgresql:// URL (default data/domino.duckdb, or DOMINO_DB).",
    )
    args = parser.parse_args(argv)
    if args.db:
        from pipeline.settings import db_target

        where = db_target(args.db)  # a PostgreSQL URL as it is, a file resolved
        os.environ["DOMINO_DB"] = where if isinstance(where, str) else str(where.resolve())

    from streamlit.web.cli import main as streamlit_main

    from dashboard.shell import preload

    stop_on_signals()
    no_external_address()
    preload()
    freeze_imports()
    streamlit_main.main(args=streamlit_args(args.port, args.host), prog_name="streamlit")


if __name__ == "__main__":
    main()
