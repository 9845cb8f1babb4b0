"""League commands: ``advance`` (levels) and ``league`` (which league an event is in)."""

import sys

import click

from pipeline.cli.common import (
    LEAGUE,
    apply_options,
    db_option,
    err,
    note,
    out,
    reader,
    shown_unless_applied,
)


@click.command()
@click.option(
    "--from",
    "sources",
    multiple=True,
    required=True,
    metavar="EVENT",
    help="A finished event whose qualifiers advance (repeatable).",
)
@click.option(
    "--to", "target", required=True, metavar="EVENT", help="The next level's event (it must exist)."
)
@click.option(
    "--top",
    type=click.IntRange(min=1),
    required=True,
    help="How many of each event (or group) advance.",
)
@click.option(
    "--per-group", is_flag=True, help="The top N of each group (KG) instead of each event."
)
@click.option("--by", "by", help="Who advances them (default DOMINO_USER or the login name).")
@db_option
def advance(sources, target, top, per_group, by, db) -> None:
    """Put the qualifiers of finished events into the roster of the next level's event."""
    from rich.markup import escape

    from pipeline.ingest.outcome import default_user
    from pipeline.league import Refused
    from pipeline.league import advance as do
    from pipeline.store.db import connect

    with connect(db) as con:
        try:
            done = do(con, list(sources), target, top, per_group=per_group, by=by or default_user())
        except Refused as exc:
            err.print(f"[red]✗[/] {escape(str(exc))}", highlight=False)
            sys.exit(1)
    for line in done.ties:
        out.print(f"tie at the cut: {escape(line)}", highlight=False)
    for line in done.warnings:
        err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False)
    scope = " per group" if per_group else ""
    qualified = done.qualifiers.get_column("player_key").n_unique()
    twice = done.qualifiers.height - qualified  # a player among the top of two sources
    out.print(
        f"{qualified} players advance to {escape(target)} (top {top}{scope} of {escape(', '.join(sources))})"
        + (f"; {twice} of them qualified from more than one event" if twice else ""),
        highlight=False,
    )
    if done.already or done.entrants > qualified:
        # an advance adds: a second one with a smaller top leaves the first one's players
        said = f"{escape(target)} now has {done.entrants} entrant(s)"
        if done.already:
            said += f"; {done.already} of the qualifiers were entered already"
        if done.entrants > qualified:
            said += (
                "; its entrants from before stay (domino event roster "
                f"{escape(target)} --clear starts its roster again)"
            )
        out.print(said, highlight=False)


@click.group()
def league() -> None:
    """Leagues: a registry belongs to one, and checks only its own events."""


@league.command("set")
@click.argument("name", metavar="LEAGUE", type=LEAGUE)
@click.argument("events", nargs=-1, required=True, metavar="EVENT...")
@apply_options("a move", "Who moves them")
@db_option
def league_set(name, events, apply_, reason, by, db) -> None:
    """Put events in a league (checked against that league's registry from then on).

    Their groups are then read from that registry: a move that changes the standings of
    loaded matches prints what would change and needs --apply --reason, as an import does.
    """
    from rich.markup import escape

    from pipeline.events import unknown
    from pipeline.ingest.outcome import default_user
    from pipeline.league import Refused
    from pipeline.players import has_registry
    from pipeline.registry import DiffChanged, apply_move, plan_move
    from pipeline.store.db import connect

    if apply_ and not (reason or "").strip():
        raise click.UsageError("--apply needs --reason TEXT: say why the loaded standings change.")
    with connect(db) as con:
        missing = unknown(con, list(events))
        if missing:
            err.print(
                f"[red]✗[/] {escape(str(Refused('advance.unknown_event', event=missing[0])))}"
            )
            sys.exit(1)
        plan = plan_move(con, list(events), name)
        shown_unless_applied(
            plan,
            f"Putting these events in league {name} would change loaded standings:",
            "Nothing was changed",
            applied=apply_,
        )
        try:
            plan = apply_move(
                con, list(events), name, reason=reason, by=by or default_user(), shown=plan.lines()
            )
        except DiffChanged:
            # another process loaded or imported in between: what was shown is not what applies
            err.print(
                "[red]✗[/] the loaded standings changed meanwhile; nothing was changed: run it again."
            )
            sys.exit(1)
        registered = has_registry(con, name)
    if plan.needs_reason:
        for line in plan.lines():
            out.print(f"  {escape(line)}", highlight=False)
    out.print(f"{len(events)} event(s) in league {escape(name)}", highlight=False)
    if not registered:
        # a mistyped league checks its events against no registry at all, without a word
        note(
            f"league {name} has no registry yet, so its events are checked against none "
            f"(every name is accepted); import one with domino players import FILE --league {name}"
        )


@league.command("history")
@db_option
def league_history(db) -> None:
    """Every registry import: when, by whom, why, and what it changed."""
    from pipeline.registry import history

    with reader(db) as con:
        rows = history(con)
    if rows.height == 0:
        err.print("no registry imports yet: import one with domino players import", highlight=False)
    for r in rows.iter_rows(named=True):
        # an import names its file; a move of events into the league (league set) has none
        what = f"{r['file']} by {r['applied_by'] or '?'}: {r['players']} players"
        if r["file"] is None:
            what = f"by {r['applied_by'] or '?'}: events moved into it"
        out.print(
            f"#{r['change_no']} {r['applied_at']:%Y-%m-%d %H:%M} league {r['league']} {what}"
            + (f"; reason: {r['reason']}" if r["reason"] else ""),
            markup=False,
            highlight=False,
        )
        for line in (r["changes"] or "").splitlines():
            out.print(f"    {line}", markup=False, highlight=False)
