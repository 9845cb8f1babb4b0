"""Commands that only read: ``standings``, ``hands``, ``history`` and ``log``.

The engine is imported inside each command (``domino --help`` does not load it).
"""

import click

from pipeline.cli.common import db_option, err, format_option, match_options, note, reader

#: ``pipeline.standings.queries.LEVELS``, written out so that --help need not import it
LEVELS = ("table", "round", "event", "group")
_COVER = {
    "round": "every table of the round",
    "event": "the whole event",
    "group": "the whole event",
}


@click.command()
@click.option("--event", required=True, help="Event id.")
@click.option(
    "--level",
    type=click.Choice(LEVELS),
    help="Default: event; with --table, table; with --round, round where the rulebook has "
    "round standings (pepet sessions), else table.",
)
@click.option("--round", "round_", help="Only this round (table and round levels).")
@click.option("--table", help="Only this table (table level).")
@format_option
@db_option
def standings(event, level, round_, table, fmt, db) -> None:
    """Standings of an event at table, round, event or group level."""
    for option, value, levels in (
        ("--round", round_, ("table", "round")),
        ("--table", table, ("table",)),
    ):
        if value is not None and level is not None and level not in levels:
            # it would be ignored: the reader would take the whole event's standings for the
            # round's or the table's
            raise click.UsageError(
                f"{option} {value} chooses rows of --level {' or '.join(levels)}, not of the "
                f"{level} standings (which cover {_COVER[level]}); add --level table"
            )
    from pipeline.cli.output import emit
    from pipeline.rulesets import stale_events
    from pipeline.standings import queries

    with reader(db) as con:
        try:
            if level is None:  # what --round or --table ask for, else the event's
                level = queries.level_of(con, event, round_, table)
            rows = queries.standings_rows(con, event, level, round_, table)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from exc
        stale = bool(stale_events(con, event))
        for said in in_progress(con, event, round_):
            note(said)
        if level == "group" and rows.height == 0:
            from pipeline.league import no_groups

            # an empty table would leave the organiser guessing why
            note(f"{no_groups(con, event)}.")
        elif rows.height == 0:  # an event created, or a round drawn, and nothing loaded
            where = f"round {round_} of {event}" if round_ is not None else event
            note(
                f"no result of {where} is loaded yet: domino event show {event} says where "
                "it stands"
            )
    if stale:
        note(f"the ruleset file changed since {event} was scored; run `domino rescore`")
    emit(rows, fmt, title=f"{event} — {level} standings")


def in_progress(con, event: str, round_: str | None) -> list[str]:
    """A sentence for each session of ``event`` (or ``round_`` alone) with some of its
    tables in and not all (RULES, decided: such a session is in progress)."""
    from pipeline.standings import queries

    said = []
    for label in [round_] if round_ is not None else queries.rounds(con, event):
        counted = queries.tables_in(con, event, label)
        if counted is None:  # a rulebook without sessions: no round of it will have a count
            break
        done, total = counted
        if 0 < done < total:
            said.append(
                f"session {label} of {event} is in progress: {done} of {total} tables in; "
                "these are the standings so far"
            )
    return said


@click.command()
@match_options
@format_option
@db_option
def hands(event, round_, table, fmt, db) -> None:
    """The rows of hand_points: every seated player's category and points per hand."""
    from pipeline.cli.output import emit
    from pipeline.standings import queries

    with reader(db) as con:
        df = queries.hand_points(con, event, round_, table)
    emit(df, fmt, title=f"{event} — hand points")


@click.command()
@match_options
@format_option
@db_option
def history(event, round_, table, fmt, db) -> None:
    """Every version of every match: who loaded it, when, from which file and why."""
    from pipeline.cli.output import emit
    from pipeline.standings import queries

    with reader(db) as con:
        df = queries.history(con, event, round_, table)
    if df.height == 0:
        err.print(f"no versions for {event}")
    emit(df, fmt, title=f"{event} — match history")


@click.command("log")
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=50,
    show_default=True,
    help="Show the newest this many entries (one per file loaded); 0: all of them.",
)
@format_option
@db_option
def log_cmd(limit, fmt, db) -> None:
    """The ingest log: every file loaded, by whom, when, with what result."""
    from pipeline.cli.output import emit
    from pipeline.standings import queries

    with reader(db) as con:
        emit(queries.ingest_log(con, limit), fmt, title="ingest log")
