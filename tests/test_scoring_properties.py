"""Properties of scoring, checked on small generated hand logs of valid hands.

The logs come from the strategies in ``tests/rules_helpers.py`` (valid seatings, endings,
pips, tiles and sanctions) and are loaded through :func:`pipeline.ingest.ingest`. The
expected values are derived from the ruleset's own point table (``rulesets.load``), not
from the product's output, so a change of the default table keeps these tests valid.
Hypothesis runs derandomized (the same examples every run), with few examples and no
shrinking: each example loads real files into a fresh DuckDB.
"""

import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

import duckdb
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from pipeline import rulesets
from pipeline.ingest import ingest
from tests.rules_helpers import (
    CHAIRS,
    csv_text,
    fresh_db,
    load,
    modified,
    pepet_hand,
    unhas_hand,
    unhas_match,
    write_log,
)

TABLES = {
    "1": ("Ana", "Budi", "Cici", "Dedi"),
    "2": ("Eko", "Fajar", "Gita", "Hadi"),
    "3": ("Irma", "Joko", "Kiki", "Lina"),
}
SNAPSHOT = {
    "hand_points": "event, round, \"table\", hand, player, chair, category, points, game_points, sanction_points, value, tiebreak",
    "table_standings": "event, round, \"table\", player, points, rank, qualified, needs_tiebreak, tiebreak_points, hands, match_hands, complete, walkover, wins",
    "round_standings": "event, round, player, points, rank, star, hands, wins",
    "event_standings": "event, player, points, rank, round_reached, table_rank, qualified, stars, jawara_gaple, hands",
}  # fmt: skip


def few(n: int):
    return settings(
        max_examples=n,
        deadline=None,
        derandomize=True,
        # no shrinking: every step loads a database, so shrinking a failure takes minutes;
        # the failing log is printed as generated
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@contextmanager
def scratch() -> Iterator[tuple[Path, duckdb.DuckDBPyConnection]]:
    """A fresh directory and database per hypothesis example (tmp_path is per test)."""
    with tempfile.TemporaryDirectory() as d, fresh_db(Path(d)) as con:
        yield Path(d), con


def snapshot(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple]]:
    return {
        v: sorted(con.execute(f"SELECT {cols} FROM {v}").fetchall(), key=repr)
        for v, cols in SNAPSHOT.items()
    }


# --- strategies ------------------------------------------------------------------------------


@st.composite
def unhas_log(draw, *, sanctions: bool, tables: int = 2) -> list[dict]:
    """Matches of round R1 (tables 1..n, different players), 1-10 hands each."""
    rows = []
    for t in list(TABLES)[:tables]:
        rows += draw(unhas_match(TABLES[t], sanctions=sanctions, table=t))
    return rows


@st.composite
def pepet_log(draw, *, tables: int = 2) -> tuple[list[dict], list[dict[str, int]]]:
    """Session S1 with ``tables`` tables of 4, 1-5 hands each, and each hand's values."""
    rows, vals = [], []
    for t in list(TABLES)[:tables]:
        for n in range(1, draw(st.integers(1, 5)) + 1):
            row, v = draw(pepet_hand(n, TABLES[t], round="S1", table=t))
            rows.append(row)
            vals.append(v)
    return rows, vals


def seated(row: dict) -> list[str]:
    return [c for c in CHAIRS if row[f"player_{c.lower()}"] is not None]


# --- unhas: a hand's points add up to its row of Art. 2 -----------------------------------------


def unhas_game_sum(row: dict, params: dict) -> int:
    """What the hand's game points must add up to, from the Art. 2 row it falls under."""
    pts = params["points"]
    ending = row["ending"]
    if ending != "kandang":
        r = pts["biasa" if ending == "all_doubles" else ending]
        return r["winner"] + r["loser"]
    pips = {c: row[f"pips_{c.lower()}"] for c in seated(row)}
    blocker = pips.pop(row["ended_by"])
    low = min(pips.values())
    if blocker < low:
        return pts["kandang"]["winner"] + pts["kandang"]["loser"]
    r = pts["tangkap_lower" if low < blocker else "tangkap_equal"]
    n = list(pips.values()).count(low)
    if n == 1:
        share = r["winner"]
    elif params["catcher_split"] == "halve":
        share = r["winner"] // 2
    else:  # even (RULES.md): the catch points divided by the catchers, rounded half up, at least 1
        share = max(1, int(Fraction(r["winner"], n) + Fraction(1, 2)))
    return n * share + r["loser"]


def unhas_sanctions(rows: list[dict], params: dict) -> dict[tuple[str, int], int]:
    """Sanction points per (table, hand): warnings counted per player per match."""
    s = params["sanctions"]
    warns: Counter = Counter()
    out: dict[tuple[str, int], int] = {}
    for row in sorted(rows, key=lambda r: (r["table"], r["hand"])):
        total = 0
        for c in seated(row):
            player = row[f"player_{c.lower()}"]
            for code in (row[f"sanctions_{c.lower()}"] or "").split(";"):
                if code == "warn":
                    warns[row["table"], player] += 1
                    total += 0 if warns[row["table"], player] <= s["warn_free"] else s["warn"]
                elif code:
                    total += s[code]
        out[row["table"], row["hand"]] = total
    return out


@few(12)
@given(
    rows=unhas_log(sanctions=True, tables=3),
    split=st.sampled_from(["halve", "even"]),
    with_sanctions=st.booleans(),
)
def test_unhas_hand_points_add_up_to_the_outcome_row(rows, split, with_sanctions):
    if not with_sanctions:
        for r in rows:
            for c in "abcd":
                r[f"sanctions_{c}"] = None
    params = modified("unhas", catcher_split=split)
    rulesets.override("unhas", params)
    try:
        with scratch() as (d, con):
            plan = load(con, d, rows)
            assert plan.errors.height == 0, plan.errors.to_dicts()
            got = con.execute(
                'SELECT "table", hand, sum(points)::INT, sum(game_points)::INT, count(*)::INT, '
                "count(*) FILTER (WHERE category IN ('tangkap', 'caught'))::INT, "
                "bool_and(points = game_points + sanction_points) "
                'FROM hand_points GROUP BY ALL ORDER BY "table", hand'
            ).fetchall()
    finally:
        rulesets.override("unhas", None)
    sanctions = unhas_sanctions(rows, params)
    by_hand = {(r["table"], r["hand"]): r for r in rows}
    assert len(got) == len(rows)
    for table, n, points, game, seats, catch_rows, folded in got:
        row = by_hand[table, n]
        assert folded
        assert seats == len(seated(row))  # one row per seated player
        assert game == unhas_game_sum(row, params)
        assert points == unhas_game_sum(row, params) + sanctions[table, n]
        if not with_sanctions:
            assert points == game
        if row["ending"] != "kandang":
            assert catch_rows == 0


# --- pepet: categories follow the positions, values follow rule 6 --------------------------------


def pepet_categories(row: dict, values: dict[str, int], penalty: str) -> dict[str, str]:
    """RULES.md "Per-hand categories", read literally."""
    by, ending = row["ended_by"], row["ending"]
    if ending == "tutup":
        return {c: "ambyar2" if c == by else "kado" for c in CHAIRS}
    key = {c: -1 if ending == "out" and c == by else values[c] for c in CHAIRS}
    out = {}
    for c in CHAIRS:
        pos = 1 + sum(key[d] < key[c] for d in CHAIRS)
        cat = {1: "jawara1" if ending == "out" else "gaple", 2: "jawara2", 3: "jawara3"}.get(
            pos, "ambyar"
        )
        if ending == "locked" and c == by and (penalty == "always" or pos > 1):
            cat = "ambyar1"
        out[c] = cat
    return out


@few(12)
@given(log=pepet_log(tables=2), penalty=st.sampled_from(["unless_lowest", "always"]))
def test_pepet_categories_follow_positions_and_values(log, penalty):
    rows, vals = log
    params = modified("pepet", locker_penalty=penalty)
    rulesets.override("pepet", params)
    try:
        with scratch() as (d, con):
            plan = load(con, d, rows)
            assert plan.errors.height == 0, plan.errors.to_dicts()
            got = con.execute(
                'SELECT "table", hand, chair, category, points, value FROM hand_points'
            ).fetchall()
            session = dict(con.execute("SELECT player, points FROM round_standings").fetchall())
    finally:
        rulesets.override("pepet", None)
    idx = {(r["table"], r["hand"]): (r, v) for r, v in zip(rows, vals, strict=True)}
    assert len(got) == 4 * len(rows)
    totals: Counter = Counter()
    for table, n, chair, category, points, value in got:
        row, v = idx[table, n]
        assert category == pepet_categories(row, v, penalty)[chair]
        assert points == params["points"][category]
        if row["ending"] != "tutup":
            assert value == v[chair]
        totals[row[f"player_{chair.lower()}"]] += points
    assert session == dict(totals)  # a session's points are the sum of its hands


# --- order does not matter ---------------------------------------------------------------------


@few(6)
@given(
    ruleset=st.sampled_from(["unhas", "pepet"]),
    data=st.data(),
)
def test_shuffling_a_files_rows_changes_no_standing(ruleset, data):
    rows = data.draw(unhas_log(sanctions=True)) if ruleset == "unhas" else data.draw(pepet_log())[0]
    shuffled = data.draw(st.permutations(rows))
    snaps = []
    for version in (rows, shuffled):
        with scratch() as (d, con):
            assert load(con, d, version).errors.height == 0
            snaps.append(snapshot(con))
    assert snaps[0] == snaps[1]


@few(5)
@given(ruleset=st.sampled_from(["unhas", "pepet"]), data=st.data())
def test_swapping_the_load_order_of_two_tables_changes_nothing(ruleset, data):
    rows = data.draw(unhas_log(sanctions=True)) if ruleset == "unhas" else data.draw(pepet_log())[0]
    parts = [[r for r in rows if r["table"] == t] for t in ("1", "2")]
    snaps = []
    for order in ((0, 1), (1, 0)):
        with scratch() as (d, con):
            for i in order:
                # whichever file comes first names the ruleset; the other one need not
                part = [{**r, "ruleset": r["ruleset"] if i == order[0] else None} for r in parts[i]]
                assert ingest(con, [write_log(d, part, f"t{i}.csv")]).errors.height == 0
            snaps.append(snapshot(con))
    assert snaps[0] == snaps[1]


# --- a correction touches its own match only -----------------------------------------------------


@few(5)
@given(data=st.data())
def test_a_correction_changes_only_its_match_and_its_revert_restores_all(data):
    rows = data.draw(unhas_log(sanctions=False))
    t1 = [r for r in rows if r["table"] == "1"]
    k = data.draw(st.integers(1, len(t1)))
    old = t1[k - 1]
    seats = tuple(old[f"player_{c}"] for c in "abcd")
    new = data.draw(unhas_hand(k, seats, table="1"))
    assume(csv_text([new]) != csv_text([old]))
    corrected = [new if r["hand"] == k else r for r in t1]
    with scratch() as (d, con):
        assert load(con, d, rows).errors.height == 0
        before = snapshot(con)
        plan = load(con, d, corrected, name="fix.csv", reason="referee's sheet misread")
        assert [(o.table, o.status, o.changed_hands) for o in plan.outcomes] == [
            ("1", "correction", [k])
        ]
        after = snapshot(con)
        # the other match: identical
        for v in ("hand_points", "table_standings"):
            assert [r for r in after[v] if r[2] == "2"] == [r for r in before[v] if r[2] == "2"]
        # the corrected match: only hand k's rows can differ (no sanctions carry across hands)
        assert [r for r in after["hand_points"] if r[2] == "1" and r[3] != k] == [
            r for r in before["hand_points"] if r[2] == "1" and r[3] != k
        ]
        # revert: load the original table 1 again -> everything as it was
        plan = load(con, d, t1, name="revert.csv", reason="the first reading was right")
        assert [o.status for o in plan.outcomes] == ["correction"]
        assert snapshot(con) == before


def test_scorings_at_once_do_not_see_each_others_tables():
    """Scoring shares one in-memory DuckDB per process; each call has its own cursor."""
    from concurrent.futures import ThreadPoolExecutor

    from pipeline.ingest import plan
    from pipeline.ingest.read import read_file
    from tests.conftest import DATA

    logs = (
        sorted((DATA / "examples" / "unhas" / "logs").glob("*.csv"))[:2]
        + sorted((DATA / "examples" / "pepet" / "logs").glob("*.csv"))[:2]
    )
    assert len(logs) == 4

    def points(path: Path) -> list[tuple]:
        with duckdb.connect(":memory:") as con:
            from pipeline.store.db import migrate

            migrate(con)
            p = plan(con, [read_file(path)])
            return sorted(p.hand_points.rows())

    alone = [points(p) for p in logs]
    assert all(alone)
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(points, logs * 3))
    assert together == alone * 3
