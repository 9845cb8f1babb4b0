"""What every ``domino`` command shares: the two consoles and the common options."""

from typing import Any

import click


class _Console:
    """A rich Console made on first use: ``domino --help`` does not load rich."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Any = None

    def real(self) -> Any:
        """The rich Console itself (for what needs one, such as a progress bar)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real(), name)


out: Any = _Console(soft_wrap=True)
err: Any = _Console(stderr=True, soft_wrap=True)

FORMATS = click.Choice(["table", "csv", "json"])


class RulesetName(click.ParamType):
    """A ruleset name, checked against the ruleset files found when the command runs."""

    name = "ruleset"

    def convert(self, value, param, ctx):
        from pipeline import rulesets

        value = str(value).strip().lower()
        known = rulesets.names()
        if value not in known:
            self.fail(f"{value!r} is not a ruleset; use one of {', '.join(known)}", param, ctx)
        return value


RULESET = RulesetName()


class LeagueName(click.ParamType):
    """A league's name as written, without the spaces around it (a registry imported into
    `` mks`` and events set in ``mks`` would be two leagues that never meet)."""

    name = "league"

    def convert(self, value, param, ctx):
        value = " ".join(str(value).split())
        if not value:
            self.fail(
                "a league needs a name (default is the league of every event at first)", param, ctx
            )
        return value


LEAGUE = LeagueName()


def apply_options(what: str, who: str):
    """``--apply``, ``--reason`` and ``--by`` of a change to loaded standings that is shown
    first and applied only when confirmed with a reason (a registry import, a league move):
    ``what`` names it ("an import"), ``who`` the person ("Who is importing")."""

    def decorate(f):
        for option in reversed(
            (
                click.option(
                    "--apply",
                    "apply_",
                    is_flag=True,
                    help=f"Apply {what} that changes loaded standings (needs --reason).",
                ),
                click.option(
                    "--reason",
                    help="Why the loaded standings change; kept in the registry history.",
                ),
                click.option("--by", "by", help=f"{who} (default DOMINO_USER or the login name)."),
            )
        ):
            f = option(f)
        return f

    return decorate


def shown_unless_applied(plan: Any, heading: str, nothing: str, *, applied: bool) -> None:
    """A change to loaded standings not confirmed (``--apply``): print ``heading`` and what
    would change (``plan.lines()``), say ``nothing`` was done, and exit 1."""
    from rich.markup import escape

    if not plan.needs_reason or applied:
        return
    out.print(escape(heading), highlight=False)
    for line in plan.lines():
        out.print(f"  {escape(line)}", highlight=False)
    err.print(f"{nothing}: to apply it, run again with --apply --reason TEXT.")
    raise SystemExit(1)


def db_option(f):
    return click.option(
        "--db",
        "db",
        envvar="DOMINO_DB",
        type=click.Path(dir_okay=False),
        metavar="FILE|URL",
        default=None,
        help="Database file or postgresql:// URL (default data/domino.duckdb, or DOMINO_DB).",
    )(f)


def missing_database(where: Any) -> str | None:
    """What to say of ``--db`` naming a file that does not exist (a new league, or a
    mistyped path: either way every list is empty), or None."""
    from pathlib import Path

    from pipeline.store.db import check_target

    if not isinstance(where, Path):  # a PostgreSQL URL
        return None
    check_target(where)  # a mistyped URL is refused, not called a missing file
    if where.exists():
        return None
    return (
        f"{where} does not exist yet: nothing is loaded there "
        "(give --db or DOMINO_DB if the results are in another file)"
    )


def note(text: str) -> None:
    """A note on stderr (``note: …``): something the command did as asked but that the
    user may not have meant (a typo's event, a font missing); standard output stays the
    command's result."""
    from rich.markup import escape

    err.print(f"[yellow]note:[/] {escape(text)}", highlight=False)


def reader(db: Any) -> Any:
    """A read-only connection to the store ``--db`` names. A file that does not exist
    reads as an empty league; the command says so on stderr first, so that a mistyped
    path does not pass for a league with nothing in it (standard output stays the
    command's CSV or JSON)."""
    from pipeline import settings
    from pipeline.store.db import connect, upgrade

    target = settings.db_target(db)
    missing = missing_database(target)
    if missing:
        note(missing)
    elif not isinstance(target, str):
        # a file made by an older version gets its new tables and views first (as
        # `domino serve` does), so a command reading them does not stop on the old schema;
        # busy: read as it is; read-only and behind: refused in a sentence (StoreError)
        upgrade(target)
    return connect(db, read_only=True)


def format_option(f):
    return click.option(
        "--format", "fmt", type=FORMATS, default="table", show_default=True, help="Output format."
    )(f)


def match_options(f):
    """``--event`` (required), ``--round`` and ``--table``: one event, or a part of it."""
    f = click.option("--table", help="Only this table.")(f)
    f = click.option("--round", "round_", help="Only this round.")(f)
    return click.option("--event", required=True, help="Event id.")(f)


def serve_options(f):
    """``--port`` and ``--host`` of the dashboard."""
    f = click.option(
        "--host",
        default="0.0.0.0",
        show_default=True,
        help="Address to serve on; 0.0.0.0 is every network interface, 127.0.0.1 this machine only.",
    )(f)
    return click.option("--port", type=click.IntRange(1, 65535), default=8501, show_default=True)(f)
