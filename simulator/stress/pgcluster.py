"""A throwaway PostgreSQL cluster for tests and benchmarks (``tests/pg.py``,
``bench/postgres_run.py``).

``initdb`` (as the ``postgres`` user when run as root, since initdb refuses root) into a
temporary folder with trust authentication on 127.0.0.1, an unused port, a socket folder
of its own and fsync off; a database migrated once serves as the template that each new
database is copied from (``CREATE DATABASE … TEMPLATE``, milliseconds).
"""

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

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
    _n: Iterator[int] = field(default_factory=lambda: itertools.count(1))

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
