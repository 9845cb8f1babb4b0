"""The ``domino`` command (HANDLOG.md): thin, every piece of logic lives in ``pipeline``.

Exit codes: 0 all good, 1 something was rejected (the report says what and why),
2 a wrong call (click's usage errors), a database held too long by another process, or a
database file that cannot be used (not a DuckDB file, read-only for a command that writes).
"""

import sys

import click
from rich.markup import escape

from pipeline import rulesets
from pipeline.cli import admin, changes, loading, reading
from pipeline.cli.common import err
from pipeline.standings.queries import NotFound
from pipeline.store.backup import BackupError
from pipeline.store.db import DatabaseBusy, StoreError


class DominoGroup(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except DatabaseBusy as exc:
            err.print(f"[red]busy:[/] {exc}")
            sys.exit(2)
        except BackupError as exc:  # a backup or restore refused: nothing was changed
            err.print("[red]Error:[/]", escape(str(exc)))
            sys.exit(1)
        except StoreError as exc:  # a file that cannot be the database: nothing was changed
            err.print("[red]Error:[/]", escape(str(exc)))
            sys.exit(2)
        except NotFound as exc:
            err.print(f"[red]not found:[/] {exc}")
            sys.exit(1)
        except (rulesets.BadRuleset, rulesets.UnknownRuleset) as exc:
            err.print(f"[red]ruleset:[/] {escape(str(exc))}", highlight=False)
            sys.exit(2)


@click.group(cls=DominoGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="domino-results")
def cli() -> None:
    """Results for Indonesian domino tournaments: hand logs in, standings out."""


# the commands live in rooms by what they do; click lists them alphabetically
for _command in (
    loading.ingest,
    loading.rescore,
    loading.players,
    reading.standings,
    reading.hands,
    reading.history,
    reading.log_cmd,
    admin.users,
    changes.requests_group,
    admin.backup,
    admin.restore,
    admin.generate,
    admin.demo,
    admin.serve,
    admin.event,
):
    cli.add_command(_command)


def main() -> None:
    cli(prog_name="domino")
