"""The ``domino`` command (HANDLOG.md): thin, every piece of logic lives in ``pipeline``.

Exit codes: 0 all good, 1 something was rejected (the report says what and why),
2 a wrong call (click's usage errors), a database held too long by another process, or a
database file that cannot be used (not a DuckDB file, read-only for a command that writes).
"""

import io
import json
import os
import sys
from pathlib import Path

import click
import polars as pl
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from pipeline import problems as problems_mod
from pipeline import queries, settings
from pipeline.backup import BackupError
from pipeline.load import ingest_paths, merge, plan, read_all
from pipeline.queries import NotFound
from pipeline.store.db import DatabaseBusy, StoreError, check_file, connect

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

FORMATS = click.Choice(["table", "csv", "json"])


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
        buf = io.StringIO()
        df.write_csv(buf)
        sys.stdout.write(buf.getvalue())
    elif fmt == "json":
        sys.stdout.write(json.dumps(df.to_dicts(), default=str, ensure_ascii=False, indent=1) + "\n")
    else:
        t = Table(title=title, show_lines=False, header_style="bold")
        for c in df.columns:
            t.add_column(c, justify="right" if df[c].dtype.is_numeric() else "left")
        for row in df.iter_rows():
            t.add_row(*["" if v is None else ("✓" if v is True else "" if v is False else str(v)) for v in row])
        out.print(t)


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


@click.group(cls=DominoGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="domino-results")
def cli() -> None:
    """Results for Indonesian domino tournaments: hand logs in, standings out."""


# --- ingest ----------------------------------------------------------------------------


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--event", help="Event id for rows whose event column is empty or missing.")
@click.option("--ruleset", type=click.Choice(["unhas", "pepet"]), help="Ruleset for a new event whose file does not name it.")
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
                sheets, infos = read_all(list(files))
                plans = [plan(con, sheets, infos, event=event, ruleset=ruleset, reason=reason, by=by)]
            else:
                from pipeline.rescore import rescore_stale

                rescore_stale(con)
                plans = ingest_paths(con, list(files), event=event, ruleset=ruleset, reason=reason, by=by)
    p = merge(plans)
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
    for f in p.files:
        if f.get("error"):
            out.print(f"[red]✗ {f['file']}[/]: {f['error'].message}")
    for pr in p.problems.head(500).to_dicts():
        color = "red" if pr["severity"] == "error" else "yellow"
        out.print(f"[{color}]{pr['severity']}[/] {problems_mod.describe(pr)}", highlight=False)
    shown = rows if len(rows) <= 40 else [r for r in rows if r["status"] in ("rejected", "correction")]
    if len(shown) < len(rows):
        out.print(f"({len(rows) - len(shown)} matches loaded or unchanged without remarks are not listed; --format json lists all)", highlight=False)
    for r in shown[:200]:
        mark = {"new": "[green]loaded[/]", "update": "[green]updated[/]", "correction": "[magenta]corrected[/]", "unchanged": "[dim]unchanged[/]", "rejected": "[red]rejected[/]"}[r["status"]]
        extra = f" — {r['message']}" if r["message"] else ""
        v = f" v{r['version']}" if r["version"] else ""
        out.print(f"{mark} {r['event']} {r['round']} table {r['table']}{v} ({r['hands']} rows, {r['file']}){extra}", highlight=False)
    if p.problems.height > 500:
        out.print(f"… and {p.problems.height - 500} more problems (--format json or csv lists all)")
    n = {s: p.count(s) for s in ("new", "update", "correction", "unchanged", "rejected")}
    prefix = "dry run, nothing written: would load" if dry_run else "loaded"
    summary = (
        f"{prefix} {n['new'] + n['update'] + n['correction']} match(es) "
        f"({n['new']} new, {n['update']} updated, {n['correction']} corrected), "
        f"{n['unchanged']} unchanged, {n['rejected']} rejected"
    )
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
    from pipeline.rescore import stale_events

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
    from pipeline.rescore import rescore as do

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
    from pipeline.problems import FileRejected
    from pipeline.registry import import_registry, read_registry
    from pipeline.rescore import rescore as do

    try:
        reg = read_registry(file)
    except FileRejected as exc:
        err.print(f"[red]✗ {exc.file}[/]: {exc.message}")
        sys.exit(1)
    with connect(db) as con:
        counts = import_registry(con, reg)
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
    from pipeline.backup import backup as do

    path = do(db, dest)
    out.print(f"backup written to {path}")


@cli.command()
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@db_option
def restore(source, yes, db) -> None:
    """Replace the database with a backup (the current one is backed up first)."""
    from pipeline.backup import restore as do

    if not yes:
        click.confirm(f"Replace {settings.db_path(db)} with {source}?", abort=True)
    saved = do(source, db)
    out.print(f"restored {source}; the previous database was saved as {saved}")


# --- generate / demo / serve -----------------------------------------------------------


@cli.command()
@click.option("--ruleset", type=click.Choice(["unhas", "pepet"]), required=True)
@click.option("--seed", type=int, default=42, show_default=True)
@click.option("--event", help="Event id (default: <ruleset>-sim-<seed>).")
@click.option("--hands", "n_hands", type=int, help="Generate about this many hands (a corpus); default one realistic event.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="generated", show_default=True)
@click.option("--per-file", type=click.Choice(["table", "round", "one"]), default="table", show_default=True, help="How hands are split into files.")
def generate(ruleset, seed, event, n_hands, out_dir, per_file) -> None:
    """Simulate real block-domino deals tile by tile and write hand logs."""
    from pipeline import simulate

    paths = simulate.write_event(ruleset=ruleset, seed=seed, event=event, hands=n_hands, out_dir=Path(out_dir), per_file=per_file)
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
    """Run the Streamlit server in this process, the dashboard's modules imported first.

    Streamlit runs the app in the server's own process, so what is imported here is
    already loaded when the first spectator opens a page: that page takes well under a
    second instead of the ~4 s of importing Streamlit's chart stack, pandas and plotly.
    """
    if db:
        os.environ["DOMINO_DB"] = str(Path(db).resolve())
    app = settings.ROOT / "dashboard" / "app.py"
    out.print(f"dashboard on http://localhost:{port}  (Ctrl+C stops it)")
    from streamlit.web.cli import main as streamlit_main

    from dashboard.shell import preload

    preload()
    args = ["run", str(app), "--server.port", str(port), "--server.address", host, "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    streamlit_main.main(args=args, prog_name="streamlit")


def main() -> None:
    cli(prog_name="domino")


if __name__ == "__main__":
    main()
