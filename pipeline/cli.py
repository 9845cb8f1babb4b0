"""The ``domino`` command (HANDLOG.md): thin, every piece of logic lives in ``pipeline``.

Exit codes: 0 all good, 1 something was rejected (the report says what and why),
2 a wrong call (click's usage errors), a database held too long by another process, or a
database file that cannot be used (not a DuckDB file, read-only for a command that writes).
"""

import io
import json
import os
import sys
from datetime import datetime
from pathlib import Path

import click
import polars as pl
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from pipeline import ingest as ingest_service
from pipeline import problems as problems_mod
from pipeline import rulesets, settings
from pipeline.standings import exports, queries
from pipeline.standings.queries import NotFound
from pipeline.store.backup import BackupError
from pipeline.store.db import DatabaseBusy, StoreError, check_file, connect

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

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


def db_option(f):
    return click.option(
        "--db",
        "db",
        envvar="DOMINO_DB",
        type=click.Path(dir_okay=False),
        default=None,
        help="Database file (default data/domino.duckdb, or DOMINO_DB).",
    )(f)


def format_option(f):
    return click.option("--format", "fmt", type=FORMATS, default="table", show_default=True, help="Output format.")(f)


def emit(df: pl.DataFrame, fmt: str, title: str | None = None) -> None:
    """Print a frame as a terminal table, CSV (header row, contract columns first) or JSON."""
    if fmt == "csv":
        # a spreadsheet opens CSV: text that would start a formula gets a leading ', as in
        # the dashboard's downloads (JSON is data for programs and stays exactly as stored)
        df = exports.neutralise(df)
        buf = io.StringIO()
        df.write_csv(buf)
        sys.stdout.write(buf.getvalue())
    elif fmt == "json":
        sys.stdout.write(json.dumps(df.to_dicts(), default=str, ensure_ascii=False, indent=1) + "\n")
    else:
        # readable at 80 columns: headers never cut, long cells wrap, timestamps to the second
        # a column holding one value for every row (the event) is said in the title instead
        same = [c for c in df.columns if c == "event" and df.height and df[c].n_unique() == 1]
        if same:
            df = df.drop(same)
        t = Table(title=title, show_lines=False, header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
        for c in df.columns:
            t.add_column(Text(c), justify="right" if df[c].dtype.is_numeric() else "left", no_wrap=True)
        for row in df.iter_rows():
            t.add_row(*[Text(_cell(v)) for v in row])
        with out.capture() as shown:
            natural = sum(max([len(c), *(len(_cell(v)) for v in df[c].to_list())]) + 2 for c in df.columns)
            if natural <= out.width:
                out.print(t)
            else:
                _records(df, title)
        sys.stdout.write("".join(line.rstrip() + "\n" for line in shown.get().splitlines()))


def _records(df: pl.DataFrame, title: str | None) -> None:
    """A table too wide for the terminal, one row at a time (``column  value`` lines),
    so nothing is cut and every header stays whole (as psql's expanded display)."""
    if title:
        out.print(Text(title, style="bold"))
    width = max((len(c) for c in df.columns), default=0)
    for i, row in enumerate(df.iter_rows(), start=1):
        out.print(Text(f"-- {i} --", style="dim"))
        for c, v in zip(df.columns, row, strict=True):
            out.print(Text(f"{c.ljust(width)}  {_cell(v)}", overflow="fold"), soft_wrap=False)


def _cell(v: object) -> str:
    if v is None or v is False:
        return ""
    if v is True:
        return "✓"
    if isinstance(v, datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S")
    return str(v)


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


# --- ingest ----------------------------------------------------------------------------


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--event", help="Event id for rows whose event column is empty or missing.")
@click.option("--ruleset", type=RULESET, help="Ruleset for a new event whose file does not name it.")
@click.option("--reason", help="Why: needed for a correction (a file that changes or drops loaded hands).")
@click.option("--by", "by", help="Who is loading (default DOMINO_USER or the login name).")
@click.option("--dry-run", is_flag=True, help="Check and score, write nothing.")
@format_option
@db_option
def ingest(files, event, ruleset, reason, by, dry_run, fmt, db) -> None:
    """Load hand-log files (CSV or XLSX). Each match loads whole or not at all."""
    show = fmt == "table" and sys.stderr.isatty()
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=err, disable=not show, transient=True) as bar:
        bar.add_task(f"loading {len(files)} file(s)", total=None)
        with connect(db, read_only=dry_run) as con:
            if dry_run:
                p = ingest_service.preview(con, list(files), event=event, ruleset=ruleset, reason=reason, by=by).plan
            else:
                p = ingest_service.load(con, list(files), event=event, ruleset=ruleset, reason=reason, by=by)
    report(p, fmt, dry_run=dry_run)
    sys.exit(p.exit_code)


def report(p, fmt: str, *, dry_run: bool = False) -> None:
    rows = [
        {
            "file": o.file, "event": o.event, "round": o.round, "table": o.table,
            "status": o.status, "version": o.version, "hands": o.hands, "message": o.message,
        }
        for o in p.outcomes
    ]
    if fmt == "json":
        sys.stdout.write(
            json.dumps(
                {
                    "ingest_id": p.ingest_id,
                    "dry_run": dry_run,
                    "files": [{k: (str(v.message) if k == "error" and v else v) for k, v in f.items()} for f in p.files],
                    "matches": rows,
                    "problems": p.problems.to_dicts(),
                },
                default=str, ensure_ascii=False, indent=1,
            )
            + "\n"
        )
        return
    if fmt == "csv":
        emit(p.problems, "csv")
        return
    for pr in p.problems.head(500).to_dicts():
        color = "red" if pr["severity"] == "error" else "yellow"
        out.print(f"[{color}]{pr['severity']}[/] {escape(problems_mod.describe(pr))}", highlight=False)
    shown = rows if len(rows) <= 40 else [r for r in rows if r["status"] in ("rejected", "correction")]
    if len(shown) < len(rows):
        out.print(f"({len(rows) - len(shown)} matches loaded or unchanged without remarks are not listed; --format json lists all)", highlight=False)
    for r in shown[:200]:
        mark = {"new": "[green]loaded[/]", "update": "[green]updated[/]", "correction": "[magenta]corrected[/]", "unchanged": "[dim]unchanged[/]", "rejected": "[red]rejected[/]"}[r["status"]]
        extra = f" — {r['message']}" if r["message"] else ""
        v = f" v{r['version']}" if r["version"] else ""
        rows_text = "1 row" if r["hands"] == 1 else f"{r['hands']} rows"
        what = f"{r['event']} {r['round']} table {r['table']}{v} ({rows_text}, {r['file']}){extra}"
        out.print(f"{mark} {escape(what)}", highlight=False)
    if p.problems.height > 500:
        out.print(f"… and {p.problems.height - 500} more problems (--format json or csv lists all)")
    n = {s: p.count(s) for s in ("new", "update", "correction", "unchanged", "rejected")}
    prefix = "dry run, nothing written: would load" if dry_run else "loaded"
    summary = (
        f"{prefix} {n['new'] + n['update'] + n['correction']} match(es) "
        f"({n['new']} new, {n['update']} updated, {n['correction']} corrected), "
        f"{n['unchanged']} unchanged, {n['rejected']} rejected"
    )
    refused = sum(1 for f in p.files if f.get("error"))
    if refused:
        summary += f"; {refused} file(s) refused whole"
    if p.outcomes and n["unchanged"] == len(p.outcomes):
        summary += " — nothing changed: every match in these files is already loaded"
    out.print(summary, highlight=False)


# --- reading results -----------------------------------------------------------------------


@cli.command()
@click.option("--event", required=True, help="Event id.")
@click.option("--level", type=click.Choice(list(queries.LEVELS)), default="event", show_default=True)
@click.option("--round", "round_", help="Only this round (table and round levels).")
@click.option("--table", help="Only this table (table level).")
@format_option
@db_option
def standings(event, level, round_, table, fmt, db) -> None:
    """Standings of an event at table, round, event or group level."""
    with connect(db, read_only=True) as con:
        try:
            df = queries.standings(con, event, level, round_, table)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from exc
        stale = _stale(con)
    if stale:
        err.print(f"[yellow]note:[/] the ruleset file changed since {', '.join(stale)} was scored; run `domino rescore`")
    emit(df, fmt, title=f"{event} — {level} standings")


def _stale(con) -> list[str]:
    from pipeline.scoring.rescore import stale_events

    return stale_events(con)


@cli.command()
@click.option("--event", required=True, help="Event id.")
@click.option("--round", "round_", help="Only this round.")
@click.option("--table", help="Only this table.")
@format_option
@db_option
def hands(event, round_, table, fmt, db) -> None:
    """The rows of hand_points: every seated player's category and points per hand."""
    with connect(db, read_only=True) as con:
        df = queries.hand_points(con, event, round_, table)
    emit(df, fmt, title=f"{event} — hand points")


@cli.command()
@click.option("--event", required=True, help="Event id.")
@click.option("--round", "round_", help="Only this round.")
@click.option("--table", help="Only this table.")
@format_option
@db_option
def history(event, round_, table, fmt, db) -> None:
    """Every version of every match: who loaded it, when, from which file and why."""
    with connect(db, read_only=True) as con:
        df = queries.history(con, event, round_, table)
    if df.height == 0:
        err.print(f"no versions for {event}")
    emit(df, fmt, title=f"{event} — match history")


@cli.command("log")
@click.option("--limit", default=50, show_default=True)
@format_option
@db_option
def log_cmd(limit, fmt, db) -> None:
    """The ingest log: every file loaded, by whom, when, with what result."""
    with connect(db, read_only=True) as con:
        emit(queries.ingest_log(con, limit), fmt, title="ingest log")


@cli.command()
@click.option("--event", "events", multiple=True, help="Only this event (repeatable); default all.")
@db_option
def rescore(events, db) -> None:
    """Re-apply the ruleset files and the registry to every loaded hand."""
    from pipeline.scoring.rescore import rescore as do

    with connect(db) as con:
        n = do(con, list(events) or None)
    out.print(f"rescored {n:,} hand rows")


# --- players ---------------------------------------------------------------------------


@cli.group()
def players() -> None:
    """The player registry: groups (KG), cities and aliases."""


@players.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@db_option
def players_import(file, db) -> None:
    """Import a registry (CSV/XLSX: player, group, optional city, optional aliases)."""
    from pipeline.players import RegistryConflict, import_registry, read_registry
    from pipeline.problems import FileRejected
    from pipeline.scoring.rescore import rescore as do

    try:
        reg = read_registry(file)
    except FileRejected as exc:
        err.print(f"[red]✗ {escape(exc.file)}[/]: {escape(exc.message)}")
        sys.exit(1)
    with connect(db) as con:
        try:
            counts = import_registry(con, reg)
        except RegistryConflict as exc:
            for reason in exc.reasons:
                err.print(f"[red]✗[/] {escape(reason)}")
            err.print(f"Nothing was imported: fix {escape(reg['_file'][0])} and import it again.")
            sys.exit(1)
        do(con)
    out.print(f"imported {counts['players']} players and {counts['aliases']} aliases")


@players.command("list")
@format_option
@db_option
def players_list(fmt, db) -> None:
    """List the registry."""
    with connect(db, read_only=True) as con:
        df = con.sql('SELECT player, "group", city FROM registry ORDER BY "group", player').pl()
    emit(df, fmt, title="player registry")


# --- users -----------------------------------------------------------------------------


@cli.group()
def users() -> None:
    """Coordinators who may upload and correct results on the dashboard."""


@users.command("add")
@click.argument("name")
@click.option("--event", "events", multiple=True, required=True, help="Event the coordinator may write to (repeatable; '*' for all).")
@click.option("--password", help="The password; prompted for when omitted. --token makes one instead.")
@click.option("--token", is_flag=True, help="Generate a random token and print it once.")
@db_option
def users_add(name, events, password, token, db) -> None:
    """Create (or update) a coordinator. Only a salted hash of the password is stored."""
    from pipeline import auth

    if token:
        password = auth.new_token()
    elif not password:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    try:
        with connect(db) as con:
            auth.add_user(con, name, password, list(events))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    out.print(f"coordinator {name!r} may write to: {', '.join(events)}")
    if token:
        out.print(f"token (shown once): {password}")


@users.command("list")
@format_option
@db_option
def users_list(fmt, db) -> None:
    """List coordinators and their events (never their passwords)."""
    with connect(db, read_only=True) as con:
        df = con.sql("SELECT u.name, string_agg(e.event, ', ' ORDER BY e.event) AS events, u.created_at FROM users u LEFT JOIN user_events e USING (name) GROUP BY ALL ORDER BY u.name").pl()
    emit(df, fmt, title="coordinators")


# --- backup ----------------------------------------------------------------------------


@cli.command()
@click.argument("dest", type=click.Path(dir_okay=False), required=False)
@db_option
def backup(dest, db) -> None:
    """Copy the database consistently (waits for a running load to finish)."""
    from pipeline.store.backup import backup as do

    path = do(db, dest)
    out.print(f"backup written to {path}")


@cli.command()
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@db_option
def restore(source, yes, db) -> None:
    """Replace the database with a backup (the current one is backed up first)."""
    from pipeline.store.backup import restore as do

    if not yes:
        click.confirm(f"Replace {settings.db_path(db)} with {source}?", abort=True)
    saved = do(source, db)
    out.print(f"restored {source}; the previous database was saved as {saved}")


# --- generate / demo / serve -----------------------------------------------------------


@cli.command()
@click.option("--ruleset", type=RULESET, required=True)
@click.option("--seed", type=int, default=42, show_default=True)
@click.option("--event", help="Event id (default: <ruleset>-sim-<seed>).")
@click.option("--hands", "n_hands", type=int, help="Generate about this many hands (a corpus); default one realistic event.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="generated", show_default=True)
@click.option("--per-file", type=click.Choice(["table", "round", "one"]), default="table", show_default=True, help="How hands are split into files.")
def generate(ruleset, seed, event, n_hands, out_dir, per_file) -> None:
    """Simulate real block-domino deals tile by tile and write hand logs."""
    import simulator

    paths = simulator.write_event(ruleset=ruleset, seed=seed, event=event, hands=n_hands, out_dir=Path(out_dir), per_file=per_file)
    out.print(f"wrote {len(paths)} file(s) to {out_dir}")


SAMPLES = settings.ROOT / "data" / "samples"


@cli.command()
@click.option("--no-serve", is_flag=True, help="Load and print, do not start the dashboard.")
@click.option("--port", default=8501, show_default=True)
@db_option
def demo(no_serve, port, db) -> None:
    """Load the bundled sample events, print their standings, start the dashboard."""
    from pipeline.demo import load_samples

    events = load_samples(db, SAMPLES, console=out)
    with connect(db, read_only=True) as con:
        for ev in events:
            emit(queries.standings(con, ev, "event").head(10), "table", title=f"{ev} — event standings (top 10)")
    if not no_serve:
        _serve(db, port)


@cli.command()
@click.option("--port", default=8501, show_default=True)
@click.option("--host", default="0.0.0.0", show_default=True)
@db_option
def serve(port, host, db) -> None:
    """Start the dashboard on the same database."""
    check_file(settings.db_path(db), write=False)  # a file that cannot be the database: say so now
    _serve(db, port, host)


def _serve(db, port: int, host: str = "0.0.0.0") -> None:
    """Hand this process over to ``python -m dashboard``, which imports every page and then
    starts the Streamlit server (the engine does not import the dashboard).

    The process is replaced, not forked: Ctrl+C and a stop signal reach the server itself.
    """
    cmd = [sys.executable, "-m", "dashboard", "--port", str(port), "--host", host]
    if db:
        cmd += ["--db", str(Path(db).resolve())]
    out.print(f"dashboard on http://localhost:{port}  (Ctrl+C stops it)")
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(sys.executable, cmd)
    except OSError as exc:
        raise click.ClickException(f"could not start the dashboard ({exc.strerror}): run {' '.join(cmd)} to see why") from exc


# --- event -----------------------------------------------------------------------------


@cli.group()
def event() -> None:
    """An event's settings."""


@event.command("rounds")
@click.argument("event_id", metavar="EVENT")
@click.argument("labels", nargs=-1, metavar="[ROUND]...")
@click.option("--clear", is_flag=True, help="Forget the organiser's order; the default rule orders every round.")
@db_option
def event_rounds(event_id, labels, clear, db) -> None:
    """Set the event's round order (first round first); without rounds, show the order.

    Rounds not listed follow the listed ones by the default rule (RULES.md): natural order
    (R2 before R10), quarter-finals, semi-finals and finals last.
    """
    from pipeline import rounds as round_order

    if clear and labels:
        raise click.UsageError("give either the rounds in order or --clear, not both")
    if labels or clear:
        try:
            with connect(db) as con:
                round_order.set_order(con, event_id, list(labels))
        except ValueError as exc:
            raise click.UsageError(str(exc)) from exc
    with connect(db, read_only=True) as con:
        queries.ruleset_of(con, event_id)
        own = round_order.organiser_order(con, event_id)
        loaded = queries.rounds(con, event_id)
    how = "the organiser's order" if own else "the default order"
    out.print(f"{event_id}, {how}: {' < '.join(loaded) or '(no rounds loaded)'}", markup=False, highlight=False)
    waiting = [r for r in own if r not in loaded]
    if waiting:
        out.print(f"listed, no results yet: {', '.join(waiting)}", markup=False, highlight=False)


def main() -> None:
    cli(prog_name="domino")


if __name__ == "__main__":
    main()
