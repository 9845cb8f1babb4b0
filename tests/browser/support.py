"""Helpers for the dashboard tests: sample databases, a real Streamlit server, Chromium."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pipeline import auth
from pipeline.demo import load_samples
from pipeline.store.db import connect

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
SAMPLES = (
    TESTS / "data" / "examples"
)  # the worked examples: <ruleset>/order.txt, logs/, players.csv
ARTIFACTS = TESTS / "artifacts"
APP = ROOT / "dashboard" / "app.py"
# Debian's Chromium; DOMINO_TEST_CHROMIUM names another (a missing one: the tests skip)
CHROMIUM = Path(os.environ.get("DOMINO_TEST_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
UNHAS = "unhas-2024-e1"
PEPET = "pepet-2024-e1"
PASSWORD = "correct horse battery"


def build_samples(
    db: Path | str,
    only: str | None = None,
    exclude: tuple[str, ...] = (),
    staging_in: Path | None = None,
) -> list[str]:
    """Load the sample events (tests/data/examples/<ruleset>/, in order.txt order);
    ``only`` one ruleset's folder; ``exclude`` leaves those log files out (their copy made
    in ``staging_in``, by default beside the database file)."""
    if only is None and not exclude:
        return load_samples(db, SAMPLES)
    folder_in = staging_in if staging_in is not None else Path(db).parent
    staging = folder_in / f"_samples_{only or 'all'}_{len(exclude)}"
    if staging.exists():
        shutil.rmtree(staging)
    for folder in sorted(
        p for p in SAMPLES.iterdir() if p.is_dir() and (only is None or p.name == only)
    ):
        shutil.copytree(folder, staging / folder.name, ignore=shutil.ignore_patterns("expected"))
        order = staging / folder.name / "order.txt"
        lines = [
            ln
            for ln in order.read_text().splitlines()
            if ln.strip() and Path(ln.strip()).name not in exclude
        ]
        order.write_text("\n".join(lines) + "\n")
    return load_samples(db, staging)


def sample_file(ruleset: str, name: str) -> Path:
    return SAMPLES / ruleset / "logs" / name


def add_coordinator(
    db: Path | str,
    name: str,
    events: list[str],
    password: str = PASSWORD,
    role: str = "coordinator",
) -> None:
    """A user (a coordinator unless ``role`` says jury or admin)."""
    with connect(db) as con:
        auth.add_user(con, name, password, events, role=role)


def _dump_stacks(proc: subprocess.Popen) -> None:
    """Where a server is still running when its test fails: SIGABRT, which Python's fault
    handler (``PYTHONFAULTHANDLER``) answers by writing every thread's stack into the log
    (``Fatal Python error``), kept by the failure report (tests/browser/conftest.py)."""
    if proc.poll() is not None or not hasattr(signal, "SIGABRT"):
        return
    proc.send_signal(signal.SIGABRT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=10)


def free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    proc: subprocess.Popen
    log: Path


#: The logs of the servers :func:`dashboard` started during the current test (running or
#: stopped already: a failure inside ``with dashboard(...)`` stops its server before the
#: report is made): a failed browser test's report carries the traceback any of them wrote
#: (tests/browser/conftest.py, which empties the list before each test).
RUNNING: list[Path] = []


@contextlib.contextmanager
def dashboard(
    db: Path | str,
    logdir: Path,
    refresh: float = 2,
    bigscreen: float = 4,
    base: str = "",
    host: str = "127.0.0.1",
) -> Iterator[Server]:
    """``domino serve`` (what ``make demo`` starts) on a free port against ``db``; stopped
    afterwards. With ``base``, served under that path (Streamlit's ``server.baseUrlPath``,
    as behind a proxy); ``Server.url`` then ends in it. ``host`` is the address it listens
    on (``0.0.0.0``: every interface, as ``make demo`` serves); it is asked at 127.0.0.1."""
    port = free_port()
    env = dict(os.environ)
    env.update(
        DOMINO_REFRESH_SECONDS=str(refresh),
        DOMINO_BIGSCREEN_SECONDS=str(bigscreen),
        DOMINO_BACKUP_DIR=str(logdir / "backups"),
        STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
        STREAMLIT_GLOBAL_DEVELOPMENT_MODE="false",
        # a test failing while the server is still busy (a page that never finishes its
        # run) gets every thread's stack in the log (:func:`_dump_stacks`)
        PYTHONFAULTHANDLER="1",
    )
    if base:
        env["STREAMLIT_SERVER_BASE_URL_PATH"] = base
    domino = Path(sys.executable).parent / "domino"
    log = logdir / f"streamlit-{port}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(domino), "serve", "--port", str(port), "--host", host, "--db", str(db)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}" + (f"/{base}" if base else "")
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {proc.returncode}:\n{log.read_text()}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start:\n{log.read_text()}")
            time.sleep(0.2)
        RUNNING.append(log)
        try:
            yield Server(url=url, proc=proc, log=log)
        except BaseException:
            _dump_stacks(proc)
            raise
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
