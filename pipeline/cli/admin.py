"""Looking after a venue: users and roles, backups, the demo, the dashboard, simulated
events and an event's round order."""

import os
import sys
from pathlib import Path

import click

from pipeline import settings
from pipeline.cli.common import (
    RULESET,
    db_option,
    err,
    format_option,
    note,
    out,
    reader,
    serve_options,
)

# the engine is imported inside each command (``domino --help`` does not load it)

# --- users -----------------------------------------------------------------------------


@click.group()
def users() -> None:
    """Users and their roles: coordinators, jury members and admins (viewers need none)."""


ROLE = click.Choice(["coordinator", "jury", "admin"])


def _scope_options(fn):
    fn = click.option(
        "--league",
        help="The league of the --group rights (default: the league whose registry has "
        "each group; a group in several leagues' registries needs it).",
    )(fn)
    fn = click.option(
        "--group",
        "groups",
        multiple=True,
        help="Group (KG) a coordinator looks after: the events of its league its players "
        "play in (repeatable).",
    )(fn)
    return click.option(
        "--event",
        "events",
        multiple=True,
        help="Event the user may write to, or sits on the jury of (repeatable; '*' for all).",
    )(fn)


@users.command("add")
@click.argument("name")
@click.option(
    "--role", type=ROLE, default="coordinator", show_default=True, help="What the user may do."
)
@_scope_options
@click.option(
    "--password", help="The password; prompted for when omitted. --token makes one instead."
)
@click.option("--token", is_flag=True, help="Generate a random token and print it once.")
@db_option
def users_add(name, role, events, groups, league, password, token, db) -> None:
    """Create (or update) a user. Only a salted hash of the password is stored."""
    from pipeline import auth
    from pipeline.store.db import connect

    try:
        auth.check_scope(role, sorted(set(events)), sorted(set(groups)))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    if token:
        password = auth.new_token()
    elif not password:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    try:
        with connect(db) as con:
            auth.add_user(
                con, name, password, list(events), role=role, groups=list(groups), league=league
            )
            rights = auth.user_rights(con, name)  # as stored: in the registry's spelling
            notes = _not_there(con, events, rights)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    out.print(_said(name, role, events, rights), markup=False, highlight=False)
    if token:
        out.print(f"token (shown once): {password}")
    for text in notes:
        note(text)


def _not_there(con, events, rights) -> list[str]:
    """The notes on a right to what is not there yet (:func:`pipeline.users.not_there`)."""
    from pipeline.users import not_there

    gone_events, gone_groups = not_there(con, events, rights)
    return [
        f"no event {e!r} is loaded yet (domino event list names them): the right holds "
        "once a load or domino event create makes it"
        for e in gone_events
    ] + [
        f"no player of {_registry_of(league)} is in group {g!r} yet (domino players list "
        "shows the groups): the right covers that group's players once the registry has them"
        for league, g in gone_groups
    ]


def _registry_of(league: str) -> str:
    from pipeline.users import DEFAULT_LEAGUE

    return "the registry" if league == DEFAULT_LEAGUE else f"the registry of league {league!r}"


def _right(league: str, group: str) -> str:
    from pipeline.users import DEFAULT_LEAGUE

    return f"group {group}" + ("" if league == DEFAULT_LEAGUE else f" of league {league}")


def _said(name: str, role: str, events, rights) -> str:
    if role == "admin":
        return f"admin {name!r} may write to every event and manage users"
    where = ", ".join(
        [*("every event" if e == "*" else e for e in events), *(_right(*r) for r in rights)]
    )
    verb = "sits on the jury of" if role == "jury" else "may write to"
    return f"{role} {name!r} {verb}: {where}"


@users.command("role")
@click.argument("name")
@click.option("--role", type=ROLE, required=True, help="The new role.")
@_scope_options
@db_option
def users_role(name, role, events, groups, league, db) -> None:
    """Change a user's role, events and groups (the password stays)."""
    from pipeline import auth
    from pipeline.store.db import connect

    try:
        with connect(db) as con:
            auth.set_role(con, name, role, list(events), list(groups), league)
            rights = auth.user_rights(con, name)  # as stored: in the registry's spelling
            notes = _not_there(con, events, rights)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    except LookupError as exc:
        raise click.ClickException(str(exc.args[0])) from exc
    out.print(_said(name, role, events, rights), markup=False, highlight=False)
    for text in notes:
        note(text)


@users.command("remove")
@click.argument("name")
@db_option
def users_remove(name, db) -> None:
    """Remove a user; their sign-ins end at once."""
    from pipeline import auth
    from pipeline.store.db import connect

    with connect(db) as con:
        found = auth.remove_user(con, name)
    if not found:
        raise click.ClickException(f"there is no user {name!r}: `domino users list` shows them")
    out.print(f"removed {name!r}", markup=False, highlight=False)


@users.command("list")
@format_option
@db_option
def users_list(fmt, db) -> None:
    """List users, their roles, events and groups (never their passwords)."""
    from pipeline.cli.output import emit
    from pipeline.users import listing

    with reader(db) as con:
        df = listing(con)
    emit(df, fmt, title="users")


# --- backup ----------------------------------------------------------------------------


@click.command()
@click.argument("dest", type=click.Path(dir_okay=False), required=False)
@db_option
def backup(dest, db) -> None:
    """Copy the database consistently (waits for a running load to finish)."""
    from pipeline.store.backup import backup as do

    path = do(db, dest)
    out.print(f"backup written to {path}")


@click.command()
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@db_option
def restore(source, yes, db) -> None:
    """Replace the database with a backup (the current one is backed up first)."""
    from pipeline.store.backup import restore as do

    if not yes:
        click.confirm(f"Replace {_shown(db)} with {source}?", abort=True)
    saved = do(source, db)
    out.print(f"restored {source}; the previous database was saved as {saved}")


# --- generate / demo / serve -----------------------------------------------------------


@click.command()
@click.option("--ruleset", type=RULESET, required=True)
@click.option("--seed", type=int, default=42, show_default=True)
@click.option("--event", help="Event id (default: <ruleset>-sim-<seed>).")
@click.option(
    "--hands",
    "n_hands",
    type=click.IntRange(min=1),
    help="Generate about this many hands (a corpus); default one realistic event.",
)
@click.option(
    "--out", "out_dir", type=click.Path(file_okay=False), default="generated", show_default=True
)
@click.option(
    "--per-file",
    type=click.Choice(["table", "round", "one"]),
    default="table",
    show_default=True,
    help="How hands are split into files.",
)
def generate(ruleset, seed, event, n_hands, out_dir, per_file) -> None:
    """Simulate real block-domino deals tile by tile and write hand logs."""
    import simulator

    paths = simulator.write_event(
        ruleset=ruleset,
        seed=seed,
        event=event,
        hands=n_hands,
        out_dir=Path(out_dir),
        per_file=per_file,
    )
    out.print(f"wrote {len(paths)} file(s) to {out_dir}")


SAMPLES = settings.ROOT / "data" / "samples"


@click.command()
@click.option("--no-serve", is_flag=True, help="Load and print, do not start the dashboard.")
@serve_options
@db_option
def demo(no_serve, port, host, db) -> None:
    """Load the bundled sample events, print their standings, start the dashboard.

    A database holding other events (a league's own results) gets no sample events: the
    dashboard starts on it as it is, saying so."""
    from pipeline.cli.output import emit
    from pipeline.demo import load_samples, other_events, sample_events
    from pipeline.standings import queries
    from pipeline.store.db import connect

    if not no_serve:
        _check_port(host, port)  # a second demo says so before loading anything
    others = other_events(db)
    if others:  # a league's own results: the samples' players would be rated beside them
        from rich.markup import escape

        from pipeline import messages

        where = str(settings.db_target(db))
        shown = [*others[:3], "…"] if len(others) > 3 else others
        said = messages.render("demo.other_events", {"db": where, "events": shown})
        err.print(f"[yellow]warning:[/] {escape(said)}", highlight=False)
        with connect(db, read_only=True) as con:
            events = sample_events(con)
    else:
        events = load_samples(db, SAMPLES, console=out)
    with connect(db, read_only=True) as con:
        for ev in events:
            emit(
                queries.standings(con, ev, "event").head(10),
                "table",
                title=f"{ev} — event standings (top 10)",
            )
    if not no_serve:
        _serve(db, port, host)


@click.command()
@serve_options
@db_option
def serve(port, host, db) -> None:
    """Start the dashboard on the same database."""
    settings.check()  # a setting of the wrong kind: said now, not on the first page
    where = settings.db_target(db)
    if isinstance(where, str):  # PostgreSQL: reachable and migrated, or say so now
        from pipeline.store.db import connect

        with connect(where, read_only=True):
            pass
    else:
        from pipeline.store.db import check_file, upgrade

        check_file(where, write=False)  # a file that cannot be the database: say so now
        if not where.exists():  # a new league, or a mistyped --db: the pages would be empty
            out.print(
                f"{where} does not exist yet: the dashboard shows no results until the first "
                "upload creates it (give --db or DOMINO_DB if the results are in another file)",
                markup=False,
                highlight=False,
            )
        # a file made by an older version: its new tables and views, before the pages read
        state = upgrade(where)
        if state == "busy":
            out.print(
                f"{where} is busy with a load; it will be brought up to date by the next write",
                markup=False,
                highlight=False,
            )
        elif state == "done":  # rate the results loaded before ratings existed
            from pipeline import ratings
            from pipeline.store.db import connect

            with connect(where) as con:
                ratings.backfill(con)
    _serve(db, port, host)


def _shown(db: str | None) -> str:
    """The store as shown to the user (a PostgreSQL URL without its password)."""
    where = settings.db_target(db)
    if isinstance(where, str):
        from pipeline.store.postgres import redact

        return redact(where)
    return str(where)


@click.command("migrate-store")
@click.option(
    "--to",
    "target",
    required=True,
    help="The store to move the league into: a .duckdb file or postgresql://USER@HOST:PORT/DB (empty).",
)
@db_option
def migrate_store(target, db) -> None:
    """Move the league into another store (file to PostgreSQL or back); every view is compared."""
    from pipeline.store.transfer import migrate_store as do

    counts = do(db, target)
    out.print(
        f"moved {counts.get('match_versions', 0)} match version(s) and {counts.get('hands', 0)} hand row(s) "
        f"from {_shown(db)} to {_shown(target)}; every view is the same in both"
    )


def _check_port(host: str, port: int) -> None:
    """Refuse, before any URL is printed, a port that another program (a running dashboard,
    a second ``make demo``) already listens on."""
    import errno
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        # as the server will: a port left in TIME_WAIT by a stopped dashboard is free
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise click.ClickException(
                    f"port {port} is taken (is a dashboard already running?): stop it, or choose "
                    f"another port with --port (make demo PORT=8600)"
                ) from exc
            raise click.ClickException(
                f"cannot serve on {host}:{port} ({exc.strerror}): check --host and --port"
            ) from exc


def _serve(db, port: int, host: str = "0.0.0.0") -> None:
    """Hand this process over to ``python -m dashboard``, which imports every page and then
    starts the Streamlit server (the engine does not import the dashboard).

    The process is replaced, not forked: Ctrl+C and a stop signal reach the server itself.
    """
    cmd = [sys.executable, "-m", "dashboard", "--port", str(port), "--host", host]
    if db:
        where = settings.db_target(db)
        if isinstance(where, str):
            # a PostgreSQL URL as it is, and in the environment rather than the arguments:
            # a password in it would show in every process list
            os.environ["DOMINO_DB"] = where
        else:
            cmd += ["--db", str(where.resolve())]
    _check_port(host, port)
    out.print(f"dashboard on http://localhost:{port}  (Ctrl+C stops it)")
    if host in ("0.0.0.0", "::"):
        out.print(
            "served on every network interface: others on this network can open it; --host 127.0.0.1 keeps it on this machine",
            highlight=False,
        )
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(sys.executable, cmd)
    except OSError as exc:
        raise click.ClickException(
            f"could not start the dashboard ({exc.strerror}): run {' '.join(cmd)} to see why"
        ) from exc


# --- event -----------------------------------------------------------------------------


@click.group()
def event() -> None:
    """An event's settings."""


@event.command("rounds")
@click.argument("event_id", metavar="EVENT")
@click.argument("labels", nargs=-1, metavar="[ROUND]...")
@click.option(
    "--clear",
    is_flag=True,
    help="Forget the organiser's order; the default rule orders every round.",
)
@db_option
def event_rounds(event_id, labels, clear, db) -> None:
    """Set the event's round order (first round first); without rounds, show the order.

    Rounds not listed follow the listed ones by the default rule (docs/rules-unhas.md, "Round order"): natural order
    (R2 before R10), quarter-finals, semi-finals and finals last.
    """
    from pipeline import rounds as round_order
    from pipeline.standings import queries
    from pipeline.store.db import connect

    if clear and labels:
        raise click.UsageError("give either the rounds in order or --clear, not both")
    if labels or clear:
        try:
            with connect(db) as con:
                round_order.set_order(con, event_id, list(labels))
        except ValueError as exc:
            raise click.UsageError(str(exc)) from exc
    with reader(db) as con:
        queries.ruleset_of(con, event_id)
        own = round_order.organiser_order(con, event_id)
        loaded = queries.rounds(con, event_id)
        played = {
            r[0]
            for r in con.execute(
                "SELECT DISTINCT round FROM table_standings_t WHERE event = ?", [event_id]
            ).fetchall()
        }
    how = "the organiser's order" if own else "the default order"
    out.print(
        f"{event_id}, {how}: {' < '.join(loaded) or '(no rounds loaded)'}",
        markup=False,
        highlight=False,
    )
    waiting = [r for r in own if r not in played]
    if waiting:
        out.print(f"listed, no results yet: {', '.join(waiting)}", markup=False, highlight=False)
