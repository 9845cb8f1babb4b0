"""Commands that write results: ``ingest``, ``rescore`` and the player registry.

The engine is imported inside each command (``domino --help`` does not load it).
"""

import sys
from collections.abc import Callable
from typing import Any

import click

from pipeline.cli.common import (
    LEAGUE,
    RULESET,
    apply_options,
    db_option,
    err,
    format_option,
    note,
    out,
    reader,
    shown_unless_applied,
)


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--event", help="Event id for rows whose event column is empty or missing.")
@click.option(
    "--ruleset", type=RULESET, help="Ruleset for a new event whose file does not name it."
)
@click.option(
    "--reason", help="Why: needed for a correction (a file that changes or drops loaded hands)."
)
@click.option("--by", "by", help="Who is loading (default DOMINO_USER or the login name).")
@click.option("--dry-run", is_flag=True, help="Check and score, write nothing.")
@format_option
@db_option
def ingest(files, event, ruleset, reason, by, dry_run, fmt, db) -> None:
    """Load hand-log files (CSV, XLSX or ODS), a .zip of them, or every one in a folder.
    Each match loads whole or not at all."""
    from pipeline import ingest as ingest_service
    from pipeline import settings
    from pipeline.cli.output import report
    from pipeline.store.db import connect

    files = _hand_logs(files)

    show = fmt == "table" and sys.stderr.isatty()
    with _progress(show=show) as bar:
        task = bar.add_task(f"loading {len(files)} file(s)", total=len(files))
        progress = (
            _bar(bar, task) if show else _lines(len(files), int(settings.get("progress_files")))
        )
        warnings: list[str] = []
        with connect(db, read_only=dry_run) as con:
            if dry_run:
                p = ingest_service.preview(
                    con, list(files), event=event, ruleset=ruleset, reason=reason, by=by
                ).plan
                warnings = _eligibility(con, p, written=False)
            else:
                p = ingest_service.load(
                    con,
                    list(files),
                    event=event,
                    ruleset=ruleset,
                    reason=reason,
                    by=by,
                    progress=progress,
                )
                warnings = _undated(con, p) + _eligibility(con, p)
    report(p, fmt, dry_run=dry_run)
    for name, value in p.unused_choices.items():  # a choice given for nothing: say so
        note(f"--{name} {value} was used for no row: every row of these files names its {name}")
    if warnings:
        from rich.markup import escape

        for line in warnings:
            err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False)
    sys.exit(p.exit_code)


def _hand_logs(given: tuple[str, ...]) -> list[str]:
    """``given`` with each folder replaced by its hand logs, by name; a folder that holds
    none is a wrong call (exit 2), not an empty load."""
    from pathlib import Path

    from pipeline.ingest.read import HAND_LOG_SUFFIXES, in_folder

    files: list[str] = []
    for name in given:
        if not Path(name).is_dir():
            files.append(name)
            continue
        found = in_folder(Path(name))
        if not found:
            kinds = ", ".join((*HAND_LOG_SUFFIXES, ".zip"))
            raise click.UsageError(f"the folder {name} holds no hand-log file ({kinds})")
        files += [str(p) for p in found]
    return files


def _progress(*, show: bool) -> Any:
    """A progress bar on a terminal; away from one, a stand-in that draws nothing (and
    does not load rich's progress module)."""
    if not show:
        return _NoBar()
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = [
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    ]
    return Progress(*columns, console=err.real(), transient=True)


class _NoBar:
    def __enter__(self) -> "_NoBar":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, description: str, total: int) -> int:
        return 0


def _undated(con, p) -> list[str]:
    """One warning for the events this load created without a date: the rating ladders
    take their tables as played the day each was created, which is wrong for an old
    event's results loaded today."""
    from pipeline import events

    found = events.undated(con, list(p.new_events))
    if not found:
        return []
    if len(found) == 1:
        event, ruleset, _day = found[0]
        fix = "if it was played on another day, give that day: "
        fix += f"domino event create {event} --ruleset {ruleset} --date YYYY-MM-DD"
    else:
        fix = "give each its day: domino event create EVENT --ruleset RULESET --date YYYY-MM-DD"
    return [f"{events.undated_warning(found)}; {fix}"]


def _eligibility(con, p, *, written: bool = True) -> list[str]:
    """Eligibility warnings (RULES.md; the ruleset's ``[eligibility]``) for the events that
    this load wrote to (or, in a dry run, would write to): each names the player; nothing
    is rejected for it."""
    from pipeline.league import eligibility_of, eligibility_planned

    return eligibility_of(con, p.written_events) if written else eligibility_planned(con, p)


def _bar(bar: Any, task: Any) -> Callable[[int, int], None]:
    """Progress on a terminal: the bar moves with the files loaded."""

    def tell(files: int, hands: int) -> None:
        bar.update(task, completed=files, description=f"loading ({hands:,} hands)")

    return tell


def _lines(total: int, every: int) -> Callable[[int, int], None]:
    """Progress away from a terminal (a log, CI): one line on stderr per ``every`` files,
    and one at the end of a load long enough to have printed any."""
    every = max(every, 1)
    said = 0

    def tell(files: int, hands: int) -> None:
        nonlocal said
        if files // every > said or (files == total and said and files != said * every):
            said = files // every
            err.print(
                f"loaded {files:,} of {total:,} files, {hands:,} hands",
                markup=False,
                highlight=False,
            )

    return tell


@click.command()
@click.option("--event", required=True, help="Event id of the match.")
@click.option("--round", "round_", required=True, help="Its round.")
@click.option("--table", required=True, help="Its table.")
@click.option("--reason", required=True, help="Why (kept in the match's history).")
@click.option(
    "--undo",
    is_flag=True,
    help="Bring a withdrawn match back from the rows kept in the database (no file needed).",
)
@click.option("--by", "by", help="Who withdraws it (default DOMINO_USER or the login name).")
@format_option
@db_option
def withdraw(event, round_, table, reason, undo, by, fmt, db) -> None:
    """Take a loaded match out of the standings and ratings (loaded under the wrong event,
    round or table, or never played); its versions stay in its history. --undo brings it
    back."""
    from pipeline.cli.output import report
    from pipeline.ingest.withdraw import reinstate
    from pipeline.ingest.withdraw import withdraw as withdraw_match
    from pipeline.store.db import connect

    with connect(db) as con:
        act = reinstate if undo else withdraw_match
        p = act(con, event, round_, table, reason=reason, by=by)
    report(p, fmt)
    sys.exit(p.exit_code)


@click.command()
@click.option("--event", "events", multiple=True, help="Only this event (repeatable); default all.")
@db_option
def rescore(events, db) -> None:
    """Re-apply the ruleset files and the registry to every loaded hand."""
    from pipeline.events import unknown as unknown_events
    from pipeline.scoring.rescore import rescore as do
    from pipeline.standings.queries import NotFound
    from pipeline.store.db import connect

    with connect(db) as con:
        unknown = unknown_events(con, events)
        if unknown:
            # it said "rescored 0 hand rows", as for an event without hands
            raise NotFound(
                f"no event {', '.join(map(repr, unknown))} is loaded; nothing was rescored "
                "(domino event list names them)"
            )
        n = do(con, list(events) or None)
    out.print(f"rescored {n:,} hand rows")


# --- players ---------------------------------------------------------------------------


@click.group()
def players() -> None:
    """The player registry: groups (KG), cities and aliases."""


@players.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--league",
    type=LEAGUE,
    default="default",
    show_default=True,
    help="The league whose registry this is.",
)
@apply_options("an import", "Who is importing")
@db_option
def players_import(file, league, apply_, reason, by, db) -> None:
    """Import a registry (CSV/XLSX/ODS: player, group, optional city, aliases, member_since,
    birth_date, citizenship, reserve_for; or their Indonesian headers: Nama Pemain,
    Kelompok, Kota, Alias, Anggota Sejak, Tanggal Lahir, Kewarganegaraan, Cadangan Untuk)
    into a league's registry."""
    from rich.markup import escape

    from pipeline.ingest.outcome import default_user
    from pipeline.league import outside
    from pipeline.players import RegistryConflict, read_registry
    from pipeline.problems import FileRejected
    from pipeline.registry import apply_import, plan_import
    from pipeline.scoring.rescore import rescore_stale
    from pipeline.store.db import connect

    if apply_ and not (reason or "").strip():
        raise click.UsageError("--apply needs --reason TEXT: say why the loaded events change.")
    try:
        reg = read_registry(file)
    except FileRejected as exc:
        err.print(f"[red]✗ {escape(exc.file)}[/]: {escape(exc.message)}")
        sys.exit(1)
    with connect(db) as con:
        try:
            plan = plan_import(con, reg, league)
            shown_unless_applied(
                plan,
                f"This import would change loaded events of league {league}:",
                "Nothing was imported",
                applied=apply_,
            )
            counts = apply_import(
                con, reg, league, plan=plan, reason=reason, by=by or default_user()
            )
            rescore_stale(con)  # a changed ruleset file takes effect with any write
            elsewhere = outside(con, league)
        except RegistryConflict as exc:
            for why in exc.reasons:
                err.print(f"[red]✗[/] {escape(why)}")
            err.print(f"Nothing was imported: fix {escape(reg['_file'][0])} and import it again.")
            sys.exit(1)
    if plan.needs_reason:
        for line in plan.lines():
            out.print(f"  {escape(line)}", highlight=False)
    out.print(
        f"imported {counts['players']} players and {counts['aliases']} aliases into league {escape(league)}",
        highlight=False,
    )
    if elsewhere:
        note(elsewhere)


@players.command("list")
@click.option(
    "--league", type=LEAGUE, help="Only this league's registry (default: every league's)."
)
@format_option
@db_option
def players_list(league, fmt, db) -> None:
    """List the registry: each player's newest group and city, the group a registered
    reserve plays for (rule 23), and the league whose registry it is."""
    from pipeline.cli.output import emit
    from pipeline.players import listing

    with reader(db) as con:
        df = listing(con, league)
    if league is not None and df.height == 0:
        note(f"league {league} has no player registry (domino players import --league {league})")
    emit(df, fmt, title="player registry")
