"""Docs that cannot drift: every setting documented, README commands real."""

import re

from pipeline.settings import SETTINGS
from tests.conftest import ROOT


def test_every_setting_is_documented():
    doc = (ROOT / "docs" / "settings.md").read_text()
    missing = [s.name for s in SETTINGS if f"| `{s.name}` |" not in doc]
    assert not missing, f"document these settings in docs/settings.md: {missing}"
    for s in SETTINGS:
        assert s.help.strip(), s.name


def test_readme_gives_the_two_commands_and_they_exist():
    readme = (ROOT / "README.md").read_text()
    makefile = (ROOT / "Makefile").read_text()
    for target in ("demo", "test"):
        assert f"make {target}" in readme
        assert re.search(rf"^{target}:", makefile, re.M)


def test_readme_cli_commands_exist():
    from click.testing import CliRunner

    from pipeline.cli import cli

    readme = (ROOT / "README.md").read_text()
    commands = set(re.findall(r"^domino ([a-z]+)", readme, re.M))
    assert {"ingest", "standings", "hands", "history", "players"} <= commands
    for c in commands:
        r = CliRunner().invoke(cli, [c, "--help"])
        assert r.exit_code == 0, c
