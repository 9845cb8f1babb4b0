"""A quick ``domino``: a command imports only what it uses (issue: speed people feel).

Each case runs in a fresh interpreter, as a person's shell would, and lists the heavy
packages that the run imported.
"""

import json
import subprocess
import sys

import pytest

from tests.conftest import DATA, ROOT

HEAVY = ("streamlit", "altair", "pandas", "polars", "pyarrow", "duckdb", "numpy", "rich")
NEVER = ("streamlit", "altair", "pandas")  # no command of the CLI draws a page or a chart

PROBE = """
import json, sys
from click.testing import CliRunner
from pipeline.cli import cli
result = CliRunner().invoke(cli, sys.argv[1:], catch_exceptions=False)
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(json.loads(%r)))
print(json.dumps({"exit": result.exit_code, "heavy": heavy, "output": result.output}))
"""


def imported(*args: str, env: dict | None = None) -> dict:
    code = PROBE % json.dumps(HEAVY)
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "args", [["--help"], ["standings", "--help"], ["ingest", "--help"], ["users", "--help"]]
)
def test_help_imports_no_engine(args):
    """--help, of the command or of one command, loads neither the engine nor rich."""
    got = imported(*args)
    assert got["exit"] == 0, got["output"]
    assert "Usage:" in got["output"]
    assert got["heavy"] == []


def test_every_command_listed():
    """The lazy table names every command, and each resolves to a click command."""
    import click

    from pipeline.cli import COMMANDS, cli

    ctx = click.Context(cli)
    for name in COMMANDS:
        cmd = cli.get_command(ctx, name)
        assert isinstance(cmd, click.Command), name
        assert cmd.name == name or name == "log", name
    assert set(COMMANDS) <= set(cli.list_commands(ctx))


def test_standings_imports_no_screen_packages(tmp_path):
    """Reading standings loads the engine but never the dashboard's packages."""
    import os

    env = {**os.environ, "DOMINO_DB": str(tmp_path / "d.duckdb")}
    env["DOMINO_BACKUP_DIR"] = str(tmp_path / "backups")
    loaded = imported("ingest", str(DATA / "errors" / "base_unhas.csv"), env=env)
    assert loaded["exit"] == 0, loaded["output"]
    got = imported("standings", "--event", "unhas-2024-e1", env=env)
    assert got["exit"] == 0 and "Wahyu Nugroho" in got["output"], got["output"]
    assert not set(got["heavy"]) & set(NEVER), got["heavy"]
    # a table of standings is printed from plain rows: no frames, no Arrow
    assert not set(got["heavy"]) & {"polars", "pyarrow", "numpy"}, got["heavy"]
    assert "duckdb" in got["heavy"]  # the probe does see what a command imports
    assert loaded["heavy"] and not set(loaded["heavy"]) & set(NEVER), loaded["heavy"]


def test_levels_written_out_match_the_engine():
    from pipeline.cli.reading import LEVELS
    from pipeline.standings.queries import LEVELS as ENGINE

    assert LEVELS == ENGINE


def test_loading_one_table_imports_no_arrow(tmp_path):
    """A live upload (one table) reads and writes its few rows without pyarrow and numpy
    (about 0.15 s of the command); a second table too, into a database that has one."""
    import os

    env = {**os.environ, "DOMINO_DB": str(tmp_path / "d.duckdb")}
    env["DOMINO_BACKUP_DIR"] = str(tmp_path / "backups")
    for name in ("base_unhas.csv", "base_pepet.csv"):
        got = imported("ingest", str(DATA / "errors" / name), env=env)
        assert got["exit"] == 0, got["output"]
        assert "polars" in got["heavy"] and "duckdb" in got["heavy"], got["heavy"]
        assert not set(got["heavy"]) & {"pyarrow", "numpy", *NEVER}, got["heavy"]
