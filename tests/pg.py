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
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from simulator.stress.pgcluster import Cluster, pg_bin, start_cluster, stop_cluster

STORES = ["file", "postgres"]
__all__ = ["Cluster", "pg_bin", "start_cluster", "stop_cluster"]


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
        # the dashboard's reading pools (opened by tests in this process) first: left open,
        # their workers try to reconnect to the stopped server and log it
        postgres = sys.modules.get("pipeline.store.postgres")
        if postgres is not None:
            postgres.close_pools()
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
