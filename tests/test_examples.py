"""The worked examples of the contract, loaded through the product and compared view by view.

``shared/examples`` (beside the repository) holds one simulated event per ruleset with the
outputs the contract requires, computed independently of the product. A copy lives in
``tests/data/examples`` so the test never depends on the outside folder; when the shared
folder is there and differs from the copy, both are checked.

Loading follows ``examples/README.md``: for pepet the registry (``players.csv``) first,
then the logs in the order of ``order.txt``. Rows are matched on the view's key columns
(names case-insensitively, white space collapsed); every expected column must agree and
no row may be missing or extra.
"""

import csv
import hashlib
from pathlib import Path

import duckdb
import pytest

from pipeline.ingest import ingest
from pipeline.players import import_registry, read_registry
from pipeline.scoring.rescore import rescore
from pipeline.store.db import connect

HERE = Path(__file__).resolve()
SHARED = HERE.parents[2] / "shared" / "examples"
IN_REPO = HERE.parent / "data" / "examples"

#: The key columns of each view (a row is identified by them).
KEYS = {
    "hand_points": ["event", "round", "table", "hand", "player"],
    "table_standings": ["event", "round", "table", "player"],
    "round_standings": ["event", "round", "player"],
    "event_standings": ["event", "player"],
    "group_standings": ["event", "group"],
}
LABELS = {"player", "group", "event", "round", "table"}


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def _sources() -> list[tuple[str, Path]]:
    out = [("repo", IN_REPO)]
    if SHARED.is_dir() and _digest(SHARED) != _digest(IN_REPO):
        out.append(("shared", SHARED))
    return out


CASES = [(name, root, rs) for name, root in _sources() for rs in ("unhas", "pepet")]


def norm(col: str, value: object) -> object:
    """A cell as the contract means it: labels case-folded, booleans, numbers."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return int(value) if float(value).is_integer() else float(value)
    text = str(value).strip()
    if col in LABELS:
        return " ".join(text.split()).casefold()
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        f = float(text)
    except ValueError:
        return low
    return int(f) if f.is_integer() else f


def load_example(con: duckdb.DuckDBPyConnection, root: Path) -> list[str]:
    """Load one example folder as a user would; returns what did not load cleanly."""
    trouble = []
    players = root / "players.csv"
    if players.exists():
        import_registry(con, read_registry(players))
        rescore(con)
    for line in (root / "order.txt").read_text().splitlines():
        if not line.strip():
            continue
        plan = ingest(con, [root / line.strip()])
        if plan.exit_code != 0 or plan.errors.height:
            trouble.append(f"{line}: {plan.errors.get_column('message').to_list()[:3]}")
        trouble += [f"{line}: {o.table} {o.status}" for o in plan.outcomes if o.status != "new"]
    return trouble


def compare(con: duckdb.DuckDBPyConnection, expected_csv: Path) -> list[str]:
    view = expected_csv.stem
    with expected_csv.open(newline="", encoding="utf-8-sig") as f:
        expected = list(csv.DictReader(f))
    cols = list(expected[0])
    key = KEYS[view]
    event = expected[0]["event"]
    quoted = ", ".join(f'"{c}"' for c in cols)
    got = con.sql(
        f"SELECT {quoted} FROM {view} WHERE event = ?",
        params=[event],
    ).pl()
    index: dict[tuple, list[dict]] = {}
    for r in got.iter_rows(named=True):
        index.setdefault(tuple(norm(k, r[k]) for k in key), []).append(r)
    diffs = []
    for r in expected:
        k = tuple(norm(c, r[c]) for c in key)
        if not index.get(k):
            diffs.append(f"{view} {k}: missing")
            continue
        g = index[k].pop(0)
        bad = [c for c in cols if norm(c, r[c]) != norm(c, g[c])]
        if bad:
            diffs.append(
                f"{view} {k}: " + ", ".join(f"{c} expected {r[c]!r} got {g[c]!r}" for c in bad)
            )
    diffs += [f"{view} {k}: extra row" for k, rest in index.items() for _ in rest]
    return diffs


@pytest.mark.parametrize(
    ("source", "root", "ruleset"), CASES, ids=[f"{s}-{rs}" for s, _, rs in CASES]
)
def test_example_views_agree_row_by_row(tmp_path, source, root, ruleset):
    folder = root / ruleset
    expected = sorted((folder / "expected").glob("*.csv"))
    assert {p.stem for p in expected} >= {"hand_points", "table_standings", "event_standings"}
    with connect(tmp_path / "examples.duckdb") as con:
        assert load_example(con, folder) == []
        diffs = [d for p in expected for d in compare(con, p)]
    assert diffs == [], f"{len(diffs)} rows differ, e.g.\n" + "\n".join(diffs[:15])
