"""Shared fixtures: a fresh database per test, the repository's test data, the examples."""

import io
import shutil
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline import rulesets
from pipeline.store.db import connect

pytest_plugins = ["tests.pg"]

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
ROOT = TESTS.parent


def as_excel_text(csv: Path, *, unicode: bool) -> bytes:
    """``csv`` (no quoted commas) as Excel saves it as "Text (Tab delimited)" (Windows line
    ends) or as "Unicode Text" (the same in UTF-16 with its byte-order mark)."""
    text = csv.read_text(encoding="utf-8").replace(",", "\t").replace("\n", "\r\n")
    return text.encode("utf-16") if unicode else text.encode("utf-8")


def rezip(data: bytes, part: str, change: Callable[[bytes], bytes]) -> bytes:
    """``data``, a zip (a workbook), with the part whose name ends with ``part`` passed
    through ``change``; every other part as it was."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            body = src.read(info.filename)
            z.writestr(info.filename, change(body) if info.filename.endswith(part) else body)
    return out.getvalue()


class PanicException(BaseException):
    """As pyo3 raises a panic of a Rust extension (polars, the workbook reader): not an
    ``Exception``."""


@pytest.fixture(autouse=True)
def _bugs_go_through(monkeypatch):
    """An error nobody expected goes through to the test instead of becoming the sentence
    users see (the command line's and the dashboard's ``DOMINO_DEBUG``): a page test's
    ``at.exception`` then catches a crash. Tests of the sentence remove it."""
    monkeypatch.setenv("DOMINO_DEBUG", "1")


@pytest.fixture(autouse=True)
def _no_watcher_outlives_its_test():
    """A page opened in a test (Streamlit's AppTest runs it in this process) starts the
    dashboard's watcher of that test's database (dashboard/live.py): a thread polling it
    until nobody has asked for five minutes. Stopped when the test ends, so the suite's
    process does not carry dozens of them, and none is still mid-query when it exits."""
    yield
    live = sys.modules.get("dashboard.live")
    if live is not None:
        live.stop_all()


@pytest.fixture
def db_path(tmp_path, monkeypatch) -> Path:
    """A database file of this test's own; DOMINO_DB points at it for the CLI."""
    path = tmp_path / "domino.duckdb"
    monkeypatch.setenv("DOMINO_DB", str(path))
    monkeypatch.setenv("DOMINO_BACKUP_DIR", str(tmp_path / "backups"))
    return path


@pytest.fixture(scope="session")
def samples_db(tmp_path_factory) -> Path:
    """Both sample events loaded once for the whole run; tests copy the file."""
    from tests.browser.support import build_samples

    path = tmp_path_factory.mktemp("samples") / "samples.duckdb"
    build_samples(path)
    return path


@pytest.fixture
def loaded(db_path, samples_db, monkeypatch) -> Path:
    """This test's database holding both sample events, for dashboard pages run through
    AppTest: the dashboard's cache asks for the database's stamp on every run."""
    from dashboard import data

    shutil.copyfile(samples_db, db_path)
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    data.clear()
    yield db_path
    data.clear()


@pytest.fixture
def con(request, db_path):
    """A write connection to a fresh, migrated database, closed afterwards. A test that
    also asks for ``store`` (tests/pg.py) gets it on that store: once a file, once
    PostgreSQL."""
    target = request.getfixturevalue("store") if "store" in request.fixturenames else db_path
    with connect(target) as c:
        yield c


@pytest.fixture(autouse=True)
def _no_ruleset_overrides():
    yield
    rulesets.clear_overrides()


@pytest.fixture
def ruleset_override():
    """Override a ruleset for one test; the file's values come back at teardown."""

    def apply(name: str, params: dict) -> None:
        rulesets.override(name, params)

    return apply


@pytest.fixture
def copy_data(tmp_path):
    """Copy files from tests/data into tmp_path (tests that modify their inputs)."""

    def _copy(*names: str) -> list[Path]:
        out = []
        for n in names:
            dest = tmp_path / Path(n).name
            shutil.copyfile(DATA / n, dest)
            out.append(dest)
        return out

    return _copy


def pytest_terminal_summary(terminalreporter):
    """Say loudly, at the end, how many browser tests did not run and why. (Here, not in
    tests/browser/conftest.py: with the tests in several processes only this conftest is
    read by the process that writes the summary.)"""
    from tests.browser.support import CHROMIUM

    skipped = [
        r for r in terminalreporter.stats.get("skipped", []) if "tests/browser/" in str(r.nodeid)
    ]
    if skipped and not CHROMIUM.exists():
        terminalreporter.write_sep(
            "!",
            f"{len(skipped)} browser tests SKIPPED: {CHROMIUM} is missing (sudo apt-get install chromium)",
            red=True,
            bold=True,
        )
