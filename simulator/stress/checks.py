"""The one property every stress run checks, as code.

**A match (event, round, table) is in the database whole or not at all.** After any load —
fuzzed, killed, raced, restored — every current version of a match holds exactly the hand
rows the file had for that match, its derived rows (points, standings) belong to that
version only, and a match the load did not finish is absent (or still the version that was
there before).

The inputs are the example logs copied to ``tests/data/fuzz`` (every delimiter, encoding
and header style).
"""

import collections
import contextlib
from collections.abc import Iterator
from pathlib import Path

import duckdb
import polars as pl

from pipeline.ingest import Plan
from pipeline.ingest.columns import CHAIRS
from pipeline.ingest.read import Sheet
from pipeline.store.db import migrate

ROOT = Path(__file__).resolve().parents[2]
FUZZ = ROOT / "tests" / "data" / "fuzz"
#: Valid logs copied from the worked examples: every delimiter, encoding and header style.
LOGS = sorted(FUZZ.glob("*.csv"))
UNHAS_LOGS = [p for p in LOGS if p.name.startswith("unhas")]

MatchKey = tuple[str, str, str]


def ruleset_of(path: Path | str) -> str:
    return "pepet" if Path(path).name.startswith("pepet") else "unhas"


@contextlib.contextmanager
def memory_db() -> Iterator[duckdb.DuckDBPyConnection]:
    """A migrated in-memory database: the fuzz loops load thousands of inputs."""
    con = duckdb.connect(":memory:")
    try:
        migrate(con)
        yield con
    finally:
        con.close()


# --- what a file holds --------------------------------------------------------------------


def _label(col: str) -> pl.Expr:
    # A spreadsheet writes the table 3 as 3.0; both are the label "3" (HANDLOG.md).
    c = pl.col(col)
    return pl.when(c.str.contains(r"^\d+\.0+$")).then(c.str.replace(r"\.0+$", "")).otherwise(c)


def file_matches(sheets: list[Sheet], event: str | None = None) -> collections.Counter:
    """Rows per match key as the files have them (labels read the way HANDLOG.md says).

    Rows whose event, round or table is empty are counted under a key with ``None`` in it.
    """
    counts: collections.Counter = collections.Counter()
    for s in sheets:
        f = s.frame
        if event:
            f = f.with_columns(pl.col("event").fill_null(event.strip()))
        keys = f.select(_label("event"), _label("round"), _label("table"))
        counts.update(keys.iter_rows())
    return counts


# --- the invariant ------------------------------------------------------------------------


def current_matches(con: duckdb.DuckDBPyConnection) -> dict[MatchKey, tuple[int, int, str]]:
    """``{(event, round, table): (version, hand rows, content hash)}`` of every current version."""
    rows = con.execute(
        'SELECT v.event, v.round, v."table", v.version, count(h.event)::INTEGER, v.content_hash '
        "FROM match_versions v LEFT JOIN hands h "
        'ON h.event = v.event AND h.round = v.round AND h."table" = v."table" AND h.version = v.version '
        "WHERE v.current GROUP BY ALL"
    ).fetchall()
    return {(e, r, t): (v, n, hsh) for e, r, t, v, n, hsh in rows}


def check_consistent(con: duckdb.DuckDBPyConnection) -> None:
    """The database agrees with itself: one current version per match, counts and derived rows."""
    dup = con.execute(
        'SELECT event, round, "table", count(*) FROM match_versions WHERE current GROUP BY ALL HAVING count(*) > 1'
    ).fetchall()
    assert not dup, f"matches with two current versions: {dup}"
    wrong = con.execute(
        'SELECT v.event, v.round, v."table", v.version, v.hands, count(h.event) FROM match_versions v '
        'LEFT JOIN hands h ON h.event = v.event AND h.round = v.round AND h."table" = v."table" '
        "AND h.version = v.version GROUP BY ALL HAVING count(h.event) <> v.hands"
    ).fetchall()
    assert not wrong, f"versions whose hand rows differ from their recorded count: {wrong}"
    orphans = con.execute(
        'SELECT DISTINCT h.event, h.round, h."table", h.version FROM hands h ANTI JOIN match_versions v '
        'ON h.event = v.event AND h.round = v.round AND h."table" = v."table" AND h.version = v.version'
    ).fetchall()
    assert not orphans, f"hand rows of no recorded version: {orphans}"
    for t in ("hand_points_t", "table_standings_t"):
        stale = con.execute(
            f'SELECT DISTINCT d.event, d.round, d."table", d.version FROM {t} d ANTI JOIN match_versions v '
            'ON d.event = v.event AND d.round = v.round AND d."table" = v."table" AND d.version = v.version AND v.current'
        ).fetchall()
        assert not stale, f"{t} rows of a version that is not current: {stale}"
    unscored = con.execute(
        'SELECT v.event, v.round, v."table", v.version FROM match_versions v WHERE v.current AND NOT EXISTS ('
        'SELECT 1 FROM table_standings_t t WHERE t.event = v.event AND t.round = v.round AND t."table" = v."table" '
        "AND t.version = v.version)"
    ).fetchall()
    assert not unscored, f"current versions without standings: {unscored}"
    seats = " + ".join(f"(h.key_{c} IS NOT NULL)::INTEGER" for c in CHAIRS)
    points = con.execute(
        f'SELECT h.event, h.round, h."table", sum({seats})::INTEGER AS seats, '
        "(SELECT count(*) FROM hand_points_t p WHERE p.event = h.event AND p.round = h.round "
        'AND p."table" = h."table" AND p.version = h.version)::INTEGER AS points '
        'FROM hands h JOIN match_versions v ON h.event = v.event AND h.round = v.round AND h."table" = v."table" '
        "AND h.version = v.version WHERE v.current AND h.ending <> 'wo' GROUP BY h.event, h.round, h.\"table\", h.version "
        "HAVING seats <> points"
    ).fetchall()
    assert not points, f"matches whose hand_points rows do not match their seats: {points}"


def check_load(
    con: duckdb.DuckDBPyConnection,
    before: dict[MatchKey, tuple[int, int, str]],
    counts: collections.Counter,
    plan: Plan | None = None,
) -> dict[str, int]:
    """After a load: every match it wrote holds exactly the file's rows; nothing else moved.

    ``before`` is :func:`current_matches` before the load, ``counts`` is
    :func:`file_matches` of what was loaded. Returns counts of matches by what happened.
    """
    check_consistent(con)
    after = current_matches(con)
    stats = collections.Counter()
    for key, (_version, n, _h) in after.items():
        if before.get(key) == after[key]:
            stats["untouched"] += 1
            continue
        assert key in counts, f"{key} changed but the file has no rows for it"
        assert n == counts[key], (
            f"partial match {key}: {n} hand rows loaded, the file has {counts[key]}"
        )
        stats["written"] += 1
    lost = set(before) - set(after)
    assert not lost, f"matches that disappeared: {lost}"
    if plan is not None:
        by_key = {(o.event, o.round, o.table): o for o in plan.outcomes}
        for key, o in by_key.items():
            if o.status in ("new", "update", "correction"):
                assert after.get(key, (None,))[0] == o.version, (
                    f"{key}: said {o.status} v{o.version}, holds {after.get(key)}"
                )
                assert o.hands == counts[key]
            else:
                assert after.get(key) == before.get(key), f"{key} was {o.status} but changed"
            if o.status == "rejected":
                assert o.message, f"{key} rejected without a message"
                stats["rejected"] += 1
        for key in counts:
            if None not in key:
                assert key in by_key, f"{key} is in the file but the report says nothing about it"
        check_problems(plan.problems)
    return dict(stats)


def check_problems(found: pl.DataFrame) -> None:
    """Every problem says where (file, and line unless it is about the whole file) and what."""
    assert found.filter(pl.col("file").is_null() | (pl.col("file") == "")).height == 0
    assert (
        found.filter(pl.col("message").is_null() | (pl.col("message").str.len_chars() < 8)).height
        == 0
    )
    assert found.filter(pl.col("code").is_null()).height == 0
    assert set(found.get_column("severity").unique().to_list()) <= {"error", "warning"}
    # Row problems point at a cell; file-level ones (FileRejected) have no line.
    rowwise = found.filter(pl.col("line").is_not_null())
    assert rowwise.filter(pl.col("column").is_null()).height == 0, rowwise.filter(
        pl.col("column").is_null()
    )
