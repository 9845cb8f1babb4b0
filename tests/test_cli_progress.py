"""Long loads: batches capped by files as well as rows, progress told as they commit; a
dashboard port already taken is said before any URL."""

import os
import re
import socket
import subprocess
import sys

from click.testing import CliRunner

from pipeline import ingest
from pipeline.cli import cli
from pipeline.demo import sample_files
from pipeline.ingest.service import batches
from pipeline.store.db import connect
from tests.conftest import ROOT

PEPET = sample_files(ROOT / "data" / "samples" / "pepet")  # 9 hand logs, in order


def test_batches_hold_at_most_the_file_cap():
    sizes = [n for _, _, n in batches(PEPET, limit=10**9, files_limit=4)]
    assert sizes == [4, 4, len(PEPET) - 8]
    assert [n for _, _, n in batches(PEPET, limit=10**9)] == [len(PEPET)]


def test_a_full_batch_comes_out_before_the_next_file_is_read():
    """A batch that holds its rows or files is handed over at once, to be planned while
    the next file is read (a rebuild's first batch waited for two files' reading)."""
    read: list[str] = []

    def sources():
        for p in PEPET:
            read.append(p.name)
            yield p

    rows = [s.rows for p in PEPET[:2] for s in ingest.service.read_one(p)[0]]
    out = batches(sources(), limit=rows[0] + rows[1])
    assert next(out)[2] == 2 and read == [p.name for p in PEPET[:2]]
    assert sum(n for _, _, n in out) == len(PEPET) - 2
    # the file cap: three files, without reading a fourth
    read.clear()
    out = batches(sources(), limit=10**9, files_limit=3)
    assert next(out)[2] == 3 and len(read) == 3
    # a file bigger than the row limit is a batch of its own, handed over at once
    read.clear()
    out = batches(sources(), limit=1)
    assert next(out)[2] == 1 and len(read) == 1


def test_load_tells_progress_with_growing_counts(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMINO_BATCH_FILES", "2")
    told: list[tuple[int, int]] = []
    with connect(tmp_path / "d.duckdb") as con:
        p = ingest.load(con, PEPET, progress=lambda files, rows: told.append((files, rows)))
    assert p.exit_code == 0
    assert [f for f, _ in told] == list(range(2, len(PEPET), 2)) + [len(PEPET)]
    rows = [r for _, r in told]
    assert rows == sorted(rows) and rows[0] > 0 and len(set(rows)) == len(rows)
    assert rows[-1] == sum(o.hands for o in p.outcomes)


def test_ingest_away_from_a_terminal_prints_a_progress_line_per_n_files(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMINO_BATCH_FILES", "2")
    monkeypatch.setenv("DOMINO_PROGRESS_FILES", "4")
    r = CliRunner().invoke(
        cli, ["ingest", "--format", "json", "--db", str(tmp_path / "d.duckdb"), *map(str, PEPET)]
    )
    assert r.exit_code == 0, r.output
    # the progress lines (a warning about the new events' missing date follows them)
    lines = [line for line in r.stderr.splitlines() if not line.startswith("warning:")]
    n = len(PEPET)
    assert lines[0].startswith(f"loaded 4 of {n} files, ") and lines[0].endswith(" hands")
    assert lines[1].startswith(f"loaded 8 of {n} files, ")
    assert lines[-1].startswith(f"loaded {n} of {n} files, ")
    assert "loaded" not in r.stdout.split("\n", 1)[0]  # stdout stays the JSON report


def test_a_short_load_prints_no_progress(tmp_path):
    r = CliRunner().invoke(cli, ["ingest", "--db", str(tmp_path / "d.duckdb"), str(PEPET[0])])
    assert r.exit_code == 0, r.output
    assert "of 1 files" not in r.stderr


def _listening() -> socket.socket:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s


def test_serve_on_a_taken_port_says_so_before_any_url(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(os, "execv", lambda exe, argv: calls.append(argv))
    with _listening() as s:
        port = s.getsockname()[1]
        r = CliRunner().invoke(
            cli,
            [
                "serve",
                "--port",
                str(port),
                "--host",
                "127.0.0.1",
                "--db",
                str(tmp_path / "d.duckdb"),
            ],
        )
    assert r.exit_code == 1
    assert f"port {port} is taken" in r.output and "PORT=8600" in r.output
    assert "http://" not in r.output and calls == []


def test_a_second_demo_on_a_taken_port_stops_before_loading(monkeypatch, tmp_path):
    monkeypatch.setattr(os, "execv", lambda exe, argv: None)
    db = tmp_path / "d.duckdb"
    with _listening() as s:
        port = s.getsockname()[1]
        r = CliRunner().invoke(
            cli, ["demo", "--port", str(port), "--host", "127.0.0.1", "--db", str(db)]
        )
    assert r.exit_code == 1
    assert f"port {port} is taken" in r.output and "http://" not in r.output
    assert not db.exists()


def test_serving_on_every_interface_is_said_plainly(monkeypatch, tmp_path):
    monkeypatch.setattr(os, "execv", lambda exe, argv: None)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = CliRunner().invoke(cli, ["serve", "--port", str(port), "--db", str(tmp_path / "d.duckdb")])
    assert r.exit_code == 0, r.output
    assert "every network interface" in r.output and "--host 127.0.0.1" in r.output
    local = CliRunner().invoke(
        cli,
        ["serve", "--port", str(port), "--host", "127.0.0.1", "--db", str(tmp_path / "d.duckdb")],
    )
    assert "every network interface" not in local.output


def test_skipped_browser_tests_are_counted_at_the_end():
    """Without Chromium the browser tests skip, and the suite's last lines say how many:
    run as ``make test`` runs it (no paths: the suite's own; two processes), browser tests
    only. (``--assert=plain``: the run's tests all skip, so their asserts need no rewriting,
    which is most of each process's collection time.)"""
    env = {k: v for k, v in os.environ.items() if k != "CI"}  # in CI they fail instead
    env["DOMINO_TEST_CHROMIUM"] = str(ROOT / "no-such-chromium")
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadfile"]
        + ["-p", "no:cacheprovider", "-q", "-m", "browser", "--assert=plain"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout[-2000:]
    skipped = re.search(r"(\d+) skipped in", r.stdout)
    said = re.search(r"(\d+) browser tests SKIPPED: .*apt-get install chromium", r.stdout)
    assert skipped and int(skipped.group(1)) >= 20, r.stdout[-2000:]
    assert said and said.group(1) == skipped.group(1), r.stdout[-2000:]
