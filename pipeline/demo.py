"""Load the bundled sample events (``data/samples/<ruleset>/``) into the database."""

import tomllib
from pathlib import Path

import duckdb
from rich.console import Console

from pipeline import events as event_records
from pipeline import settings
from pipeline.ingest import ingest
from pipeline.ingest.read import in_folder, read_sheets
from pipeline.league import create_events, set_league
from pipeline.players import import_registry, read_registry
from pipeline.scoring.rescore import rescore
from pipeline.store.db import connect

LEAGUE = "demo"


def _sample_events(folder: Path) -> dict[str, str]:
    """``event → ruleset`` named in a sample folder's logs."""
    found: dict[str, str] = {}
    for f in sample_files(folder):
        for sheet in read_sheets(f):
            cols = [c for c in ("event", "ruleset") if c in sheet.frame.columns]
            if len(cols) == 2:
                for ev, rs in sheet.frame.select(cols).drop_nulls().unique().iter_rows():
                    found.setdefault(ev, rs)
    return found


def sample_files(folder: Path) -> list[Path]:
    order = folder / "order.txt"
    if order.exists():
        return [folder / line.strip() for line in order.read_text().splitlines() if line.strip()]
    return [p for p in in_folder(folder) if p.name != "players.csv"]


def other_events(db: str | Path | None) -> list[str]:
    """The events of ``db`` outside the demo's league (:data:`LEAGUE`): a league's own
    results, beside which the sample events do not belong (their simulated players would
    be rated, listed and searched with the league's)."""
    target = settings.db_target(db)
    if isinstance(target, Path) and not target.exists():
        return []
    with connect(db, read_only=True) as con:
        rows = con.execute(
            "SELECT event FROM events WHERE league IS DISTINCT FROM ? ORDER BY event", [LEAGUE]
        ).fetchall()
    return [r[0] for r in rows]


def sample_events(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The demo's events in this database (its league, :data:`LEAGUE`)."""
    rows = con.execute("SELECT event FROM events WHERE league = ? ORDER BY event", [LEAGUE])
    return [r[0] for r in rows.fetchall()]


def load_samples(db: str | Path | None, samples: Path, console: Console | None = None) -> list[str]:
    """Import each sample's registry, then its logs in order; returns the events loaded.

    The samples are a league of their own (:data:`LEAGUE`): their registry never rejects
    the players of events loaded later (a generated event is in the default league)."""
    events: list[str] = []
    folders = sorted(p for p in samples.iterdir() if p.is_dir()) if samples.exists() else []
    with connect(db) as con:
        for folder in folders:
            if not _create_event(con, folder / "event.toml"):
                create_events(con, _sample_events(folder), LEAGUE, "demo")
            reg = folder / "players.csv"
            if reg.exists():
                import_registry(con, read_registry(reg), LEAGUE)
                rescore(con)
            p = ingest(con, sample_files(folder), by="demo")
            for o in p.outcomes:
                if o.event not in events:
                    events.append(o.event)
            if console:
                console.print(
                    f"{folder.name}: {p.count('new') + p.count('update') + p.count('correction')} match(es) loaded, "
                    f"{p.count('unchanged')} already there, {p.count('rejected')} rejected"
                )
    return events


def _create_event(con: duckdb.DuckDBPyConnection, path: Path) -> bool:
    """The sample's event as its organiser creates it: title, date, venue, level."""
    if not path.exists():
        return False
    meta = tomllib.loads(path.read_text(encoding="utf-8"))
    event_records.save(
        con,
        meta["event"],
        meta["ruleset"],
        title=meta.get("title"),
        event_date=meta.get("date"),
        venue=meta.get("venue"),
        level=meta.get("level"),
        by="demo",
    )
    set_league(con, [meta["event"]], LEAGUE)
    return True
