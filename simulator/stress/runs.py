"""Stress inputs and the real command line: a large file made by replicating the example
logs, ``domino`` run in a subprocess (in the foreground or the background), and snapshots
of the results for comparisons."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import polars as pl

from pipeline.ingest.columns import CANONICAL, CHAIRS
from pipeline.ingest.read import read_file
from pipeline.standings import queries
from pipeline.store.db import connect
from simulator.stress.checks import UNHAS_LOGS, MatchKey, current_matches

# --- building inputs ------------------------------------------------------------------------


def replicated_frame(n_hands: int, *, tag: str = "") -> pl.DataFrame:
    """At least ``n_hands`` valid unhas hand rows: the example tables copied under new labels.

    Copy ``k`` of a table gets the table label ``<table>-<k>`` and its players a `` <k>``
    suffix (a player sits at one table per round). ``tag`` changes every copy's label so
    two frames of different tags hold different matches.
    """
    base = pl.concat(
        [read_file(p).frame.with_columns(pl.lit("unhas").alias("ruleset")) for p in UNHAS_LOGS],
        how="vertical_relaxed",
    ).select(CANONICAL)
    copies = -(-n_hands // base.height)
    width = len(str(copies))
    frames = [
        base.with_columns(
            pl.format("{}-{}{}", pl.col("table"), pl.lit(tag), pl.lit(str(k).zfill(width))).alias(
                "table"
            ),
            *[
                pl.when(pl.col(f"player_{c}").is_not_null())
                .then(pl.format("{} {}{}", pl.col(f"player_{c}"), pl.lit(tag), pl.lit(k)))
                .alias(f"player_{c}")
                for c in CHAIRS
            ],
        )
        for k in range(copies)
    ]
    return pl.concat(frames)


def write_csv(frame: pl.DataFrame, path: Path) -> Path:
    frame.select(CANONICAL).write_csv(path)
    return path


def correct_frame(frame: pl.DataFrame, every: int = 3) -> pl.DataFrame:
    """A correction of ``frame``: in every ``every``-th match, hand 1's note changes.

    A note is part of a hand's content, so each such match becomes a new version (a
    correction, with ``--reason``) while scores stay valid.
    """
    keys = frame.select("event", "round", "table").unique(maintain_order=True).with_row_index("_m")
    marked = frame.join(keys, on=["event", "round", "table"], how="left", maintain_order="left")
    hit = ((pl.col("_m") % every) == 0) & (pl.col("hand") == "1")
    return marked.with_columns(
        pl.when(hit).then(pl.lit("koreksi wasit")).otherwise(pl.col("note")).alias("note")
    ).drop("_m")


# --- the real command line ------------------------------------------------------------------


def domino_cmd() -> list[str]:
    """``domino`` as installed, else ``python -m pipeline`` (same interpreter as the tests)."""
    return [sys.executable, "-m", "pipeline"]


#: Where the stress runs write: a DuckDB file, or a PostgreSQL URL (``postgresql://…``).
Target = str | Path


def is_url(db: Target) -> bool:
    return str(db).startswith(("postgresql://", "postgres://"))


def work_dir(db: Target, work: Path | None = None) -> Path:
    """The folder a run works in: ``work``, else the database file's folder (a PostgreSQL
    target has none, so it needs ``work``)."""
    if work is not None:
        return Path(work)
    if is_url(db):
        raise ValueError("a PostgreSQL target needs a work folder (work=...)")
    return Path(db).parent


def cli_env(db: Target, work: Path | None = None, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["DOMINO_DB"] = str(db)
    env["DOMINO_BACKUP_DIR"] = str(work_dir(db, work) / "backups")
    env["DOMINO_USER"] = "reliability-test"
    env.update(extra)
    return env


def domino(
    *args: object, db: Target, work: Path | None = None, timeout: float = 600, **env: str
) -> subprocess.CompletedProcess:
    """``domino`` on ``db`` (a file, or a PostgreSQL URL with its ``work`` folder)."""
    return subprocess.run(
        [*domino_cmd(), *map(str, args)],
        env=cli_env(db, work, **env),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=work_dir(db, work),
    )


def popen(
    cmd: list[object], *, db: Target, work: Path | None = None, **env: str
) -> subprocess.Popen:
    """Start ``cmd`` in the background with ``DOMINO_DB`` set; its output goes to temporary
    files (a pipe nobody reads would block a large report). Collect it with :func:`finish`."""
    out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
    proc = subprocess.Popen(
        [str(c) for c in cmd],
        env=cli_env(db, work, **env),
        stdout=out,
        stderr=err,
        text=True,
        cwd=work_dir(db, work),
    )
    proc.outputs = (out, err)  # type: ignore[attr-defined]
    return proc


def domino_popen(
    *args: object, db: Target, work: Path | None = None, **env: str
) -> subprocess.Popen:
    """``domino`` in the background (see :func:`popen`)."""
    return popen([*domino_cmd(), *args], db=db, work=work, **env)


def finish(proc: subprocess.Popen, timeout: float = 600) -> tuple[int, str, str]:
    """Wait for a process started by :func:`domino_popen`; returns its exit code and output."""
    proc.wait(timeout=timeout)
    texts = []
    for f in proc.outputs:  # type: ignore[attr-defined]
        f.seek(0)
        texts.append(f.read())
        f.close()
    return proc.returncode, texts[0], texts[1]


# --- comparing results ----------------------------------------------------------------------


def snapshot(db: Target) -> dict[str, list[dict[str, object]]]:
    """Every standing and hand point of every event, as sorted rows (for equality checks)."""
    out: dict[str, list[dict[str, object]]] = {}
    with connect(db, read_only=True) as con:
        for event, rs in con.execute("SELECT event, ruleset FROM events ORDER BY event").fetchall():
            levels = ["table", "event"] + (["round", "group"] if rs == "pepet" else [])
            for level in levels:
                df = queries.standings(con, event, level)
                out[f"{event}/{level}"] = df.sort(df.columns, nulls_last=True).to_dicts()
            hp = queries.hand_points(con, event)
            out[f"{event}/hand_points"] = hp.sort(hp.columns, nulls_last=True).to_dicts()
    return out


def current_content(db: Target) -> dict[MatchKey, str]:
    """Content hash of the current version of every match."""
    with connect(db, read_only=True) as con:
        return {k: v[2] for k, v in current_matches(con).items()}
