"""Two or three writers at once: uploads started together (``domino ingest`` or a Python
``ingest`` in another process) and a correction racing an update of the same match, each
checked: every upload landed whole or was told to retry and wrote nothing.

Every helper takes a store target: a DuckDB file or a PostgreSQL URL (with the folder the
run works in). What each store promises:

* a **file** admits one writing process: a second writer waits ``lock_timeout`` for it,
  then exits 2 with a 'busy' message and writes nothing;
* **PostgreSQL** serialises writers per match only (advisory locks at commit): writers of
  different matches are never told 'busy'; a writer that lost the race for the same match
  (:class:`pipeline.store.postgres.MatchesChanged`) plans again on what is loaded now.

On both: never a lost row, never a mixed match, versions in order.
"""

import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from pipeline.ingest import ingest, read_all
from pipeline.store.db import connect
from simulator.stress.checks import FUZZ, check_consistent, current_matches, file_matches
from simulator.stress.runs import (
    Target,
    domino,
    domino_popen,
    finish,
    is_url,
    popen,
    replicated_frame,
    write_csv,
)

PY_INGEST = textwrap.dedent(
    """
    import sys
    from pipeline.ingest import ingest
    from pipeline.store.db import DatabaseBusy, connect
    try:
        with connect(sys.argv[1]) as con:
            p = ingest(con, [sys.argv[2]], by="python")
    except DatabaseBusy as exc:
        print(f"busy: {exc}", file=sys.stderr)
        sys.exit(2)
    sys.exit(p.exit_code)
    """
)


def two_files(tmp_path: Path, hands: int) -> tuple[Path, Path]:
    """Two files of different matches (table labels and players differ by a tag)."""
    return (
        write_csv(replicated_frame(hands, tag="a"), tmp_path / "a.csv"),
        write_csv(replicated_frame(hands, tag="b"), tmp_path / "b.csv"),
    )


def expected(*paths: Path) -> dict:
    sheets, _ = read_all(list(paths))
    return dict(file_matches(sheets))


def check_landed(db: Target, results: dict[Path, tuple[int, str, str]]) -> dict[str, int]:
    """Each upload either landed whole (exit 0) or was told 'busy' (exit 2) and left nothing.

    On PostgreSQL the uploads (of different matches) must all land: 'busy' is a file's."""
    with connect(db, read_only=True) as con:
        check_consistent(con)
        loaded = current_matches(con)
        log = con.execute("SELECT file, status FROM ingests").fetchall()
    tally = {"landed": 0, "busy": 0}
    for path, (rc, out, err) in results.items():
        want = expected(path)
        assert "Traceback" not in err, err
        if rc == 0:
            assert all(loaded.get(k, (0, -1))[1] == n for k, n in want.items()), (
                f"{path.name}: a match is missing or partial"
            )
            assert (path.name, "done") in log
            tally["landed"] += 1
        else:
            assert not is_url(db), f"{path.name}: exit {rc} on PostgreSQL\n{out}\n{err}"
            assert rc == 2, f"{path.name}: exit {rc}\n{out}\n{err}"
            assert "busy" in err and "try again" in err, err
            assert not any(k in loaded for k in want), (
                f"{path.name} was refused but some of it is in the database"
            )
            assert path.name not in {f for f, _s in log}
            tally["busy"] += 1
    return tally


def race(
    db: Target,
    *jobs: tuple[list[object], dict[str, str]],
    offsets: list[float] | None = None,
    work: Path | None = None,
):
    """Start the commands together (``offsets`` delays each start); wait for all.
    ``work`` is the folder they run in (needed for a PostgreSQL ``db``)."""
    procs: dict[int, subprocess.Popen] = {}
    offsets = offsets or [0.0] * len(jobs)
    start = time.monotonic()
    for i in sorted(range(len(jobs)), key=lambda j: offsets[j]):
        args, env = jobs[i]
        time.sleep(max(0.0, start + offsets[i] - time.monotonic()))
        if args and args[0] == "python":
            procs[i] = popen(
                [sys.executable, "-c", PY_INGEST, db, args[1]], db=db, work=work, **env
            )
        else:
            procs[i] = domino_popen(*args, db=db, work=work, **env)
    return [finish(procs[i], 600) for i in range(len(jobs))]  # in the order of ``jobs``


def random_race(
    folder: Path, rng: random.Random, db: Target | None = None
) -> tuple[Target, dict[Path, object], str]:
    """Two or three uploads (CLI or Python) into ``db`` (a fresh database; by default a
    file in ``folder``), with staggered starts and a lock patience of 0.2 s or 30 s, all
    drawn from ``rng``. Returns the database, each file's result and the patience."""
    db = folder / "domino.duckdb" if db is None else db
    files = [
        write_csv(replicated_frame(2500, tag=t), folder / f"{t}.csv")
        for t in "abc"[: rng.choice([2, 3])]
    ]
    patience = rng.choice(["0.2", "30"])
    jobs = [
        (
            (["python", f] if rng.random() < 0.3 else ["ingest", f]),
            {"DOMINO_LOCK_TIMEOUT": patience},
        )
        for f in files
    ]
    results = race(db, *jobs, offsets=[rng.uniform(0, 1.5) for _ in files], work=folder)
    return db, dict(zip(files, results, strict=True)), patience


# --- a correction racing another version of the same match -----------------------------------


def live_and_fixed(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Table 3 of round 1: hands 1-8 (loaded first), hands 1-10 (an update), and hands 1-8
    with hand 2 rewritten (a correction)."""
    src = FUZZ / "unhas-2024-e1_R1_meja3.csv"
    lines = src.read_bytes().decode("utf-8-sig").splitlines()
    header, rows = lines[0], lines[1:]
    first = tmp_path / "meja3_live.csv"
    first.write_text("\n".join([header, *rows[:8]]) + "\n", encoding="utf-8")
    update = tmp_path / "meja3_full.csv"
    update.write_text("\n".join([header, *rows[:10]]) + "\n", encoding="utf-8")
    cells = rows[1].split(";")
    cells[-2] = "dikoreksi wasit"
    fixed = tmp_path / "meja3_fixed.csv"
    fixed.write_text(
        "\n".join([header, rows[0], ";".join(cells), *rows[2:8]]) + "\n", encoding="utf-8"
    )
    return first, update, fixed


def content_of(path: Path, tmp_path: Path) -> str:
    ref = tmp_path / f"ref-{path.stem}.duckdb"
    with connect(ref) as con:
        ingest(con, [path], by="ref")
        return next(iter(current_matches(con).values()))[2]


def correction_race(tmp_path: Path, rng: random.Random, db: Target | None = None) -> str:
    """An update and a correction of one loaded match started together on ``db`` (a fresh
    database; by default a file in ``tmp_path``). On a file the second writer waits for
    the first; on PostgreSQL both plan at once and the loser of the match's lock plans
    again. Either way the outcome is one of the orders below, each checked whole; returns
    which one happened."""
    first, update, fixed = live_and_fixed(tmp_path)
    db = tmp_path / "domino.duckdb" if db is None else db
    assert domino("ingest", first, db=db, work=tmp_path).returncode == 0
    reason_for_update = rng.random() < 0.5
    up_args = ["ingest", update, *(["--reason", "lanjut"] if reason_for_update else [])]
    fix_args = ["ingest", fixed, "--reason", "salah tulis hand 2"]
    offsets = [rng.uniform(0, 1.0), rng.uniform(0, 1.0)]
    (ru, uo, ue), (rf, fo, fe) = race(
        db, (up_args, {}), (fix_args, {}), offsets=offsets, work=tmp_path
    )
    said = f"update: exit {ru}\n{uo}{ue}\ncorrection: exit {rf}\n{fo}{fe}"
    assert "Traceback" not in ue + fe, said
    with connect(db, read_only=True) as con:
        check_consistent(con)
        ((key, (version, n, final)),) = current_matches(con).items()
        history = con.execute(
            "SELECT version, kind, file FROM match_versions ORDER BY version"
        ).fetchall()
    whole = {
        content_of(update, tmp_path): ("meja3_full.csv", 10),
        content_of(fixed, tmp_path): ("meja3_fixed.csv", 8),
    }
    assert final in whole, f"the current version is neither upload whole\n{said}"
    name, hands = whole[final]
    assert n == hands and history[-1][2] == name and version == len(history), said
    assert history[0] == (1, "new", "meja3_live.csv"), said
    assert [v for v, _k, _f in history] == list(range(1, len(history) + 1)), said
    kinds = [k for _v, k, _f in history[1:]]
    said += f"\nhistory: {history}"
    if history[1][2] == "meja3_full.csv":  # the update came first; the correction replaced it
        assert kinds == ["update", "correction"] and (ru, rf) == (0, 0), said
        return "update, then correction"
    # the correction came first; the update now changes hand 2 back, a correction itself
    if reason_for_update:
        assert kinds == ["correction", "correction"] and (ru, rf) == (0, 0), said
        return "correction, then update with a reason"
    assert kinds == ["correction"] and (ru, rf) == (1, 0), said
    return "correction, then update refused (needs a reason)"
