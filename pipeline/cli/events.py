"""Running a competition: ``domino event create``, ``domino event roster``, ``domino
event list`` and ``domino event show`` (on the ``event`` group of
:mod:`pipeline.cli.admin`) and ``domino draw``."""

import sys
from datetime import date

import click

from pipeline.cli.admin import event
from pipeline.cli.common import LEAGUE, RULESET, db_option, err, format_option, out, reader

LEVEL = click.Choice(["group", "kabupaten", "kota", "provinsi", "nasional"])


def _refuse(sentence: str) -> None:
    from rich.markup import escape

    err.print(f"[red]✗[/] {escape(sentence)}", highlight=False)
    sys.exit(1)


@event.command("create")
@click.argument("event_id", metavar="EVENT")
@click.option("--ruleset", type=RULESET, required=True, help="The rulebook the event plays.")
@click.option("--title", help="The event's name as shown on screens and sheets.")
@click.option(
    "--date",
    "when",
    # day first as Indonesia writes dates, as a registry's dates may be
    type=click.DateTime(formats=["%Y-%m-%d", "%d/%m/%Y", "%d-%m-%Y", "%d.%m.%Y"]),
    help="Day played: YYYY-MM-DD, or day first (DD/MM/YYYY).",
)
@click.option("--venue", help="Where it is played.")
@click.option("--level", type=LEVEL, help="The level of the competition.")
@click.option(
    "--league",
    type=LEAGUE,
    help="The league whose registry (groups, reserves) the event follows (default: default).",
)
@db_option
def event_create(event_id, ruleset, title, when, venue, level, league, db) -> None:
    """Create an event before its results (or update its title, date, venue, level).

    A later load of EVENT plays under its ruleset. The ruleset of an event with loaded
    results cannot change.
    """
    from rich.markup import escape

    from pipeline import demo, events, messages
    from pipeline.store.db import connect

    day: date | None = when.date() if when else None
    try:
        with connect(db) as con:
            did = events.save(
                con,
                event_id,
                ruleset,
                title=title,
                event_date=day,
                venue=venue,
                level=level,
                league=league,
            )
            info = events.get(con, event_id.strip())
            # a league's event beside the demo's: `make demo` loaded them into this file
            beside = (
                demo.sample_events(con)
                if did == "created" and info is not None and info.in_league != demo.LEAGUE
                else []
            )
    except events.EventRefused as exc:
        _refuse(str(exc))
        return
    assert info is not None
    extra = ", ".join(
        str(v)
        for v in (info.title, info.event_date, info.venue, info.level, info.in_league)
        if v is not None
    )
    out.print(
        f"event {info.event} {did} ({info.ruleset}{'; ' + extra if extra else ''})",
        markup=False,
        highlight=False,
    )
    if beside:
        said = messages.render("demo.beside", {"events": beside})
        err.print(f"[yellow]warning:[/] {escape(said)}", highlight=False)


@event.command("roster")
@click.argument("event_id", metavar="EVENT")
@click.argument("file", type=click.Path(exists=True, dir_okay=False), required=False)
@click.option(
    "--clear",
    is_flag=True,
    help="Remove every entrant instead (a roster set on the wrong event; no round of it may have a current draw).",
)
@db_option
def event_roster(event_id, file, clear, db) -> None:
    """Set the event's entrants from FILE (CSV/XLSX/ODS: player, optional group; for a
    reserve, replaces and consent: whom they play for, and how the member agreed; or Nama,
    Kelompok, Ganti, Persetujuan); it replaces the entrants set before. Names are matched to
    the registry as a load matches them; where loads reject a name outside the league's
    registry (pepet), so does the roster. An entrant the ruleset's eligibility does not
    admit on the event's date (age, citizenship, as the registry knows them), or whom the
    roster puts in another group than the registry, is a warning naming the player; they
    stay."""
    from pipeline import events
    from pipeline.league import roster_warnings
    from pipeline.problems import FileRejected
    from pipeline.store.db import connect

    if clear == bool(file):
        raise click.UsageError("give either a roster FILE or --clear")
    if clear:
        try:
            with connect(db) as con:
                gone = events.clear_roster(con, event_id)
        except events.EventRefused as exc:
            _refuse(str(exc))
            return
        out.print(f"{event_id}: {gone} entrant(s) removed", markup=False, highlight=False)
        return
    try:
        rows = events.read_roster(file)
        with connect(db) as con:
            n = events.set_roster(con, event_id, rows, source=rows["_file"][0])
            warnings = roster_warnings(con, event_id)
    except FileRejected as exc:
        _refuse(f"{exc.file}: {exc.message}")
        return
    except events.EventRefused as exc:
        _refuse(str(exc))
        return
    out.print(f"{event_id}: {n} entrant(s) from {file}", markup=False, highlight=False)
    from rich.markup import escape

    for line in warnings:
        err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False)


@event.command("list")
@format_option
@db_option
def event_list(fmt, db) -> None:
    """Every event, the newest first: title, ruleset, date, venue, level, entrants, the
    rounds drawn and played, and the matches loaded."""
    from pipeline import events
    from pipeline.cli.output import emit

    with reader(db) as con:
        df = events.overview(con)
    if df.height == 0 and fmt == "table":
        out.print("no events yet: domino event create, or load a hand log", markup=False)
        return
    emit(df, fmt, title="events")


@event.command("delete")
@click.argument("event_id", metavar="EVENT")
@click.option("--reason", required=True, help="Why (kept in the ingest log).")
@click.option("--by", "by", help="Who deletes it (default DOMINO_USER or the login name).")
@db_option
def event_delete(event_id, reason, by, db) -> None:
    """Delete an event made by mistake: a mistyped id on an upload, whose matches were
    then withdrawn (domino withdraw), or a domino event create with the wrong id.

    Refused while anything of it counts or was prepared (a counted match, a draw, a
    roster, a table open for hand entry, a change request waiting, a user whose rights
    name it). Its withdrawn match versions and their hand rows go with it; the database
    is copied aside first, and domino log keeps who, when and why.
    """
    from pipeline import events
    from pipeline.ingest.outcome import default_user
    from pipeline.store.db import connect

    try:
        with connect(db) as con:
            gone = events.delete(con, event_id, reason=reason, by=by or default_user())
    except events.EventRefused as exc:
        _refuse(str(exc))
        return
    out.print(
        f"event {event_id.strip()} deleted with its {gone} match version(s), each match "
        "withdrawn; domino log keeps who, when and why",
        markup=False,
        highlight=False,
    )


@event.command("show")
@click.argument("event_id", metavar="EVENT")
@format_option
@db_option
def event_show(event_id, fmt, db) -> None:
    """Where EVENT stands: its settings and entrants, then round by round the current
    draw's seed and the tables drawn, loaded, complete and owing a tie-break (what keeps
    the next round from being drawn). CSV and JSON give the rounds."""
    from rich.markup import escape

    from pipeline import events
    from pipeline.cli.output import emit
    from pipeline.draws.followed import stale_draws
    from pipeline.standings.queries import NotFound

    with reader(db) as con:
        info = events.get(con, event_id)
        if info is None:
            raise NotFound(f"no event {event_id!r}: domino event list names them")
        entrants = events.roster(con, event_id).height
        rounds = events.round_status(con, event_id)
        stale = stale_draws(con, event_id)
    for line in stale:  # a draw made before a correction or a withdrawal of the round before
        err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False)
    if fmt != "table":
        emit(rounds, fmt)
        return
    said = [
        info.ruleset,
        info.event_date,
        info.venue,
        info.level,
        info.in_league,
        f"{entrants} entrant(s)",
    ]
    out.print(f"{info.event} — {info.shown}", markup=False, highlight=False)
    out.print(" · ".join(str(v) for v in said if v is not None), markup=False, highlight=False)
    if rounds.height:
        emit(rounds, fmt)
    else:
        out.print("no round drawn or played yet", markup=False)


@click.command()
@click.option("--event", "event_id", required=True, help="Event id.")
@click.option("--round", "round_", required=True, help="The round to draw.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="Seed (default: a random one).")
@click.option(
    "--reason", help="Why the round is drawn again (needed for a redraw), or why it is cancelled."
)
@click.option(
    "--cancel",
    is_flag=True,
    help="Cancel the round's current draw (made by mistake; nothing of the round loaded yet). Needs --reason.",
)
@db_option
def draw(event_id, round_, seed, reason, cancel, db) -> None:
    """Seat a round as the rulebook decides (docs/rules-unhas.md, docs/rules-pepet.md): tables, chairs by lot, the swap schedule; stored
    with its seed. Exit 1 with a sentence when the round cannot be drawn yet."""
    from pipeline import draws
    from pipeline.store.db import connect

    if cancel:
        from pipeline.ingest.outcome import default_user

        if seed is not None:
            raise click.UsageError("--cancel takes no --seed")
        try:
            with connect(db) as con:
                no = draws.cancel(con, event_id, round_, reason=reason or "", by=default_user())
        except draws.DrawRefused as exc:
            _refuse(str(exc))
            return
        out.print(
            f"{event_id} {round_.strip()}: draw {no} cancelled; the round has no seating until it is drawn again",
            markup=False,
            highlight=False,
        )
        return
    try:
        with connect(db) as con:
            d = draws.draw_round(con, event_id, round_, seed=seed, reason=reason)
            shown = draws.current(con, event_id, d.round)
    except draws.DrawRefused as exc:
        _refuse(str(exc))
        return
    again = f", draw {d.draw_no}" if d.draw_no > 1 else ""
    from pipeline.cli.output import emit

    emit(shown, "table", title=f"{event_id} {d.round}: seed {d.seed}{again}")
