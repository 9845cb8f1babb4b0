"""The ``domino`` command (HANDLOG.md): thin, every piece of logic lives in ``pipeline``.

Exit codes: 0 all good, 1 something was rejected (the report says what and why),
2 a wrong call (click's usage errors), a database held too long by another process, a
database file that cannot be used (not a DuckDB file, read-only for a command that writes),
a disk with no space left, or a path the system refused (one line naming it),
70 an error no part of domino expected (a bug): one line saying so, no traceback unless
``DOMINO_DEBUG`` is set.

Quick to start: every command is named in :data:`COMMANDS` and its module is imported only
when that command runs (or ``--help`` lists it). The command modules import click alone at
the top and the engine (DuckDB, polars) inside each command, so ``domino --help`` never
loads the engine and a reading command never loads the writers.
"""

import importlib
import os
import sys

import click

from pipeline.panics import disk_full, disk_full_params, is_failure

#: Every ``domino`` command: its name and where it lives ("module:attribute"). A new
#: command is one line here; click lists them alphabetically.
COMMANDS = {
    "ingest": "pipeline.cli.loading:ingest",
    "rescore": "pipeline.cli.loading:rescore",
    "withdraw": "pipeline.cli.loading:withdraw",
    "players": "pipeline.cli.loading:players",
    "standings": "pipeline.cli.reading:standings",
    "hands": "pipeline.cli.reading:hands",
    "history": "pipeline.cli.reading:history",
    "log": "pipeline.cli.reading:log_cmd",
    "users": "pipeline.cli.admin:users",
    "backup": "pipeline.cli.admin:backup",
    "restore": "pipeline.cli.admin:restore",
    "generate": "pipeline.cli.admin:generate",
    "demo": "pipeline.cli.admin:demo",
    "serve": "pipeline.cli.admin:serve",
    "event": "pipeline.cli.events:event",  # its subcommands live in both modules
    "draw": "pipeline.cli.events:draw",
    "sheets": "pipeline.cli.sheets:sheets",
    "results": "pipeline.cli.sheets:results",
    "requests": "pipeline.cli.changes:requests_group",
    "migrate-store": "pipeline.cli.admin:migrate_store",
    "advance": "pipeline.cli.league:advance",
    "league": "pipeline.cli.league:league",
}


def _refusal(exc: Exception) -> tuple[str, int] | None:
    """The line and exit code for an engine error, or None for any other exception.

    Only the modules already imported are asked: an error can only come from one that is.
    """

    def raised(module: str, *names: str) -> bool:
        mod = sys.modules.get(module)
        return mod is not None and isinstance(exc, tuple(getattr(mod, n) for n in names))

    from rich.markup import escape

    if raised("pipeline.store.db", "DatabaseBusy"):
        return f"[red]busy:[/] {exc}", 2
    if raised("pipeline.store.postgres", "MatchesChanged") or raised(
        "pipeline.ingest.writer", "EventsChanged"
    ):  # other uploads kept winning the race for these matches (PostgreSQL)
        said = escape(str(exc).removesuffix("; plan again"))
        return f"[red]busy:[/] {said}; nothing of this upload was written, try again", 2
    if raised("pipeline.store.backup", "BackupError"):  # a backup or restore refused
        return f"[red]Error:[/] {escape(str(exc))}", 1
    if (where := disk_full(exc)) is not None:  # a write found its disk full
        from pipeline import messages

        said = messages.render("store.disk_full", disk_full_params(where))
        return f"[red]disk full:[/] {escape(said)}", 2
    if raised("pipeline.store.db", "StoreError"):  # a file that cannot be the database
        return f"[red]Error:[/] {escape(str(exc))}", 2
    if isinstance(exc, ConnectionError):  # a PostgreSQL store that cannot be reached
        return f"[red]Error:[/] {escape(str(exc))}", 2
    if raised("pipeline.ingest.withdraw", "WithdrawRefused"):
        return f"[red]Error:[/] {escape(str(exc))}", 1
    if raised("pipeline.standings.queries", "NotFound"):
        return f"[red]not found:[/] {exc}", 1
    if raised("pipeline.settings", "SettingError"):  # a DOMINO_<NAME> of the wrong kind
        return f"[red]setting:[/] {escape(str(exc))}", 2
    if raised("pipeline.rulesets", "BadRuleset", "UnknownRuleset"):
        return f"[red]ruleset:[/] {escape(str(exc))}", 2
    if isinstance(exc, OSError) and exc.filename is not None:  # a path the system refused
        from pipeline import messages

        why = exc.strerror or type(exc).__name__
        said = messages.render("os.path", {"file": str(exc.filename), "why": why})
        return f"[red]Error:[/] {escape(said)}", 2
    return None


def _unexpected(ctx: click.Context, exc: BaseException) -> str:
    """The one line for an error no part of domino expected: a bug, said as one."""
    from rich.markup import escape

    what = f"{type(exc).__name__}: {exc}".strip().removesuffix(":")
    if len(what) > 300:
        what = what[:300] + "…"
    command = f"domino {ctx.invoked_subcommand}" if ctx.invoked_subcommand else "domino"
    return (
        f"[red]internal error:[/] {command} stopped on an error it does not know "
        f"({escape(what)}). A load writes each match whole or not at all, and `domino log` "
        "says which loads finished. Run the command again with DOMINO_DEBUG=1 to see "
        "where it stopped, and report that."
    )


def _interrupted(ctx: click.Context) -> str:
    """The one line for Ctrl-C."""
    command = f"domino {ctx.invoked_subcommand}" if ctx.invoked_subcommand else "domino"
    return (
        f"interrupted: {command} stopped at Ctrl-C. A load writes each match whole or not "
        "at all, and `domino log` says which loads finished; run the command again to "
        "finish."
    )


class DominoGroup(click.Group):
    """The top group: commands resolved from :data:`COMMANDS` on first use; engine errors
    turned into one line and an exit code."""

    def list_commands(self, ctx):
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx, cmd_name):
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, attr = COMMANDS[cmd_name].split(":")
            self.add_command(getattr(importlib.import_module(module), attr), cmd_name)
        return self.commands.get(cmd_name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:
            # click would say "Aborted!" and exit 1; say what happened to the data, and
            # exit as a process stopped by SIGINT does
            from pipeline.cli.common import err

            err.print(_interrupted(ctx), highlight=False)
            sys.exit(130)
        except BaseException as exc:
            if not is_failure(exc):  # a Rust extension's panic is said as a bug too
                raise
            said = _refusal(exc) if isinstance(exc, Exception) else None
            if said is None:
                if os.environ.get("DOMINO_DEBUG"):
                    raise
                said = _unexpected(ctx, exc), 70
            from pipeline.cli.common import err

            err.print(said[0], highlight=False)
            sys.exit(said[1])


@click.group(cls=DominoGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="domino-results")
def cli() -> None:
    """Results for Indonesian domino tournaments: hand logs in, standings out."""


def main() -> None:
    cli(prog_name="domino")
