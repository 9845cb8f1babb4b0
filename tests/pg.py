"""A throwaway PostgreSQL cluster for the tests that run against both stores.

The cluster starts once per session, the first time a test asks for it: ``initdb`` (as
the ``postgres`` user when the tests run as root, since initdb refuses root) into a
temporary folder with trust authentication on 127.0.0.1, an unused port, a socket folder
of its own and fsync off; it is stopped and removed at the end of the session. A database
migrated once serves as the template: each test gets its own copy (``CREATE DATABASE …
TEMPLATE``), which takes milliseconds.

Where the PostgreSQL binaries are missing, only the PostgreSQL parametrisations are
skipped, saying so; ``DOMINO_TEST_PG=0`` skips them on purpose.
"""

import contextlib
import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

STORES = ["file", "postgres"]
_BIN_GLOBS = ("/usr/local/bin", "/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin")


def pg_bin() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres, or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    for pattern in _BIN_GLOBS:
        for folder in sorted(glob.glob(pattern), reverse=True):
            if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
                return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    port: int
    folder: Path
    bin: Path
    as_user: list[str]
    _n: Iterator[int] = itertools.count(1)

    def url(self, dbname: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as c:
            c.execute(sql.encode())

    def new_database(self, template: str = "domino_template") -> str:
        """A fresh database (a copy of the migrated template); its URL."""
        name = f"t{os.getpid()}_{next(self._n)}"
        self.admin(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        return self.url(name)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.as_user, *args], capture_output=True, text=True, timeout=120, check=False
        )


def start_cluster() -> Cluster:
    """initdb, start and create the migrated template; raises RuntimeError if it cannot."""
    folder_bin = pg_bin()
    if folder_bin is None:
        raise FileNotFoundError("PostgreSQL binaries (initdb, pg_ctl) were not found")
    root = Path(tempfile.mkdtemp(prefix="domino-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        subprocess.run(["id", "postgres"], capture_output=True, check=True)
        shutil.chown(root, "postgres", "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    cluster = Cluster(_free_port(), root, folder_bin, as_user)
    done = cluster.run(
        str(folder_bin / "initdb"),
        "-D",
        str(root / "data"),
        "-A",
        "trust",
        "-U",
        "postgres",
        "--no-sync",
        "-E",
        "UTF8",
        "--locale=C",
    )
    if done.returncode != 0:
        raise RuntimeError(f"initdb failed: {done.stderr.strip()[-300:]}")
    opts = (
        f"-p {cluster.port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    )
    done = cluster.run(
        str(folder_bin / "pg_ctl"),
        "-D",
        str(root / "data"),
        "-o",
        opts,
        "-l",
        str(root / "log"),
        "-w",
        "-t",
        "60",
        "start",
    )
    if done.returncode != 0:
        raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()[-300:]}")
    cluster.admin('CREATE DATABASE "domino_template"')
    from pipeline.store import postgres

    with postgres.connect(cluster.url("domino_template")):
        pass
    return cluster


def stop_cluster(cluster: Cluster) -> None:
    from pipeline.store import postgres

    postgres.close_pools()
    cluster.run(
        str(cluster.bin / "pg_ctl"), "-D", str(cluster.folder / "data"), "-m", "immediate", "stop"
    )
    shutil.rmtree(cluster.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    if os.environ.get("DOMINO_TEST_PG") == "0":
        pytest.skip("PostgreSQL tests switched off (DOMINO_TEST_PG=0)")
    try:
        cluster = start_cluster()
    except (FileNotFoundError, RuntimeError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"PostgreSQL store not tested: {exc}")
    try:
        yield cluster
    finally:
        stop_cluster(cluster)


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> str:
    """A fresh, migrated PostgreSQL database of this test's own."""
    return pg_cluster.new_database()


@pytest.fixture(params=STORES)
def store(request, tmp_path, monkeypatch) -> str:
    """This test's store, once as a file and once on PostgreSQL; DOMINO_DB points at it."""
    if request.param == "postgres":
        target = request.getfixturevalue("pg_url")
    else:
        target = str(tmp_path / "domino.duckdb")
    monkeypatch.setenv("DOMINO_DB", target)
    monkeypatch.setenv("DOMINO_BACKUP_DIR", str(tmp_path / "backups"))
    return target


@contextlib.contextmanager
def open_store(target: str) -> Iterator[object]:
    from pipeline.store.db import connect

    with connect(target) as con:
        yield con
