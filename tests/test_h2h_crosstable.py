"""Head-to-head and cross-table: golden on the worked examples, totals on simulated corpora.

The oracle for the examples is computed here, in plain Python, from the examples' expected
CSV files (computed independently of the product): who shared which table, ranks and
points from ``table_standings.csv``, the `above` rows from ``hand_points.csv``, the
standings after each round by the rules RULES.md decides for event standings.
"""

import csv
import itertools
from collections import defaultdict
from pathlib import Path

import polars as pl
import pytest

import simulator
from pipeline.ingest import ingest
from pipeline.standings import crosstable, exports, h2h
from pipeline.standings.stats import WINNING
from pipeline.store.db import connect
from tests.test_examples import IN_REPO, load_example


def rows(folder: Path, view: str) -> list[dict[str, str]]:
    with (folder / "expected" / f"{view}.csv").open(newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def competition_rank(keys: dict[str, tuple]) -> dict[str, int]:
    """1 + the number of players with a strictly better key (ties share a rank)."""
    return {p: 1 + sum(1 for q in keys.values() if q < k) for p, k in keys.items()}


def standings_after(folder: Path, ruleset: str, upto: list[str]) -> dict[str, tuple[int, int]]:
    """{player: (total, rank)} over the rounds ``upto``, by the event-standings rules."""
    ts = [r for r in rows(folder, "table_standings") if r["round"] in upto]
    order = {rd: i for i, rd in enumerate(upto)}
    total: dict[str, int] = defaultdict(int)
    for r in ts:
        total[r["player"]] += int(r["points"])
    if ruleset == "unhas":
        last: dict[str, tuple[int, int]] = {}
        for r in ts:
            n = order[r["round"]]
            if r["player"] not in last or n > last[r["player"]][0]:
                last[r["player"]] = (n, int(r["rank"]))
        keys = {p: (-last[p][0], last[p][1], -total[p]) for p in total}
    else:
        stars = defaultdict(int)
        for r in rows(folder, "round_standings"):
            if r["round"] in upto and r["star"].lower() == "true":
                stars[r["player"]] += 1
        wins = defaultdict(int)
        for r in rows(folder, "hand_points"):
            if r["round"] in upto and r["category"] in ("jawara1", "gaple"):
                wins[r["player"]] += 1
        keys = {p: (-total[p], -stars[p], -wins[p]) for p in total}
    ranks = competition_rank(keys)
    return {p: (total[p], ranks[p]) for p in total}


@pytest.fixture(scope="module", params=["unhas", "pepet"])
def example(request, tmp_path_factory):
    folder = IN_REPO / request.param
    with connect(tmp_path_factory.mktemp(request.param) / "ex.duckdb") as con:
        assert load_example(con, folder) == []
        yield request.param, folder, con


def test_crosstable_matches_the_standings_after_every_round(example):
    ruleset, folder, con = example
    event = rows(folder, "event_standings")[0]["event"]
    got = crosstable.long(con, event)
    labels = got.select("round", "round_no").unique().sort("round_no")["round"].to_list()
    assert labels == sorted({r["round"] for r in rows(folder, "table_standings")})
    for n in range(1, len(labels) + 1):
        want = standings_after(folder, ruleset, labels[:n])
        step = got.filter(pl.col("round") == labels[n - 1])
        have = {r["player"]: (r["total"], r["event_rank"]) for r in step.iter_rows(named=True)}
        assert have == want, labels[n - 1]
    # after the last round: the contract's event standings
    final = {
        r["player"]: (int(r["points"]), int(r["rank"])) for r in rows(folder, "event_standings")
    }
    assert standings_after(folder, ruleset, labels) == final
    # every table played appears once, in its round, with its points and place
    played = {
        (r["round"], r["player"]): (r["table"], int(r["points"]), int(r["rank"]))
        for r in rows(folder, "table_standings")
    }
    cells = {
        (r["round"], r["player"]): (r["table"], r["points"], r["table_rank"])
        for r in got.filter(pl.col("table").is_not_null()).iter_rows(named=True)
    }
    assert cells == played


def test_wide_crosstable_is_one_row_per_player_and_exports(example):
    _, folder, con = example
    event = rows(folder, "event_standings")[0]["event"]
    wide = crosstable.wide(crosstable.long(con, event))
    final = {r["player"]: int(r["rank"]) for r in rows(folder, "event_standings")}
    assert dict(zip(wide["player"], wide["rank"], strict=True)) == final
    assert wide["rank"].to_list() == sorted(wide["rank"].to_list())
    text = exports.to_csv(wide.drop("player_key")).decode("utf-8-sig")
    header = text.splitlines()[0].split(",")
    assert header[:2] == ["rank", "player"] and header[-1] == "total"
    assert len(text.splitlines()) == wide.height + 1
    assert exports.to_xlsx(wide.drop("player_key"))[:2] == b"PK"


def test_head_to_head_of_every_pair_agrees_with_the_expected_files(example):
    _, folder, con = example
    ts = rows(folder, "table_standings")
    seats: dict[tuple, dict[str, dict[str, str]]] = defaultdict(dict)
    for r in ts:
        seats[(r["round"], r["table"])][r["player"]] = r
    hands: dict[tuple, dict[str, str]] = defaultdict(dict)
    for r in rows(folder, "hand_points"):
        hands[(r["round"], r["table"], r["hand"])][r["player"]] = r["category"]
    keys = dict(con.execute("SELECT player, player_key FROM players").fetchall())
    pairs = {tuple(sorted(p)) for t in seats.values() for p in itertools.combinations(t, 2)}
    assert pairs
    for a, b in sorted(pairs):
        shared = [t for t in seats.values() if a in t and b in t]
        fed_ab = sum(1 for h in hands.values() if h.get(a) == "above" and h.get(b) in WINNING)
        fed_ba = sum(1 for h in hands.values() if h.get(b) == "above" and h.get(a) in WINNING)
        s = h2h.head_to_head(con, keys[a], keys[b]).summary()
        assert s == s | {
            "tables": len(shared),
            "ahead_a": sum(1 for t in shared if int(t[a]["rank"]) < int(t[b]["rank"])),
            "ahead_b": sum(1 for t in shared if int(t[b]["rank"]) < int(t[a]["rank"])),
            "level": sum(1 for t in shared if t[a]["rank"] == t[b]["rank"]),
            "points_a": sum(int(t[a]["points"]) for t in shared),
            "points_b": sum(int(t[b]["points"]) for t in shared),
            "a_fed_b": fed_ab,
            "b_fed_a": fed_ba,
        }, (a, b)


@pytest.mark.parametrize("ruleset", ["unhas", "pepet"])
def test_simulated_corpus_counts_every_hand_once(tmp_path, ruleset):
    frame = simulator.generate_frame(ruleset, 3, hands=400, event=f"sim-{ruleset}")
    path = tmp_path / "corpus.csv"
    frame.write_csv(path)
    with connect(tmp_path / "sim.duckdb") as con:
        plan = ingest(con, [path], by="test")
        assert plan.count("rejected") == 0
        above = con.execute(
            "SELECT count(*) FROM hand_points_t WHERE category = 'above'"
        ).fetchall()
        pairs = con.execute(
            "SELECT DISTINCT a.player_key, b.player_key FROM table_standings_t a "
            'JOIN table_standings_t b USING (event, round, "table") WHERE a.player_key < b.player_key'
        ).fetchall()
        fed = tables = 0
        for a, b in pairs:
            s = h2h.head_to_head(con, a, b).summary()
            fed += s["a_fed_b"] + s["b_fed_a"]
            tables += s["tables"]
        # each `above` row feeds exactly one winner: counted once over all pairs
        assert fed == above[0][0]
        assert (ruleset == "pepet") == (fed == 0)
        # each table of n players is shared by n*(n-1)/2 pairs
        want_pairs = con.execute(
            "SELECT sum(n * (n - 1) / 2) FROM (SELECT count(*) AS n FROM table_standings_t "
            'GROUP BY event, round, "table")'
        ).fetchall()[0][0]
        assert tables == want_pairs
        for (event,) in con.execute("SELECT event FROM events").fetchall():
            long = crosstable.long(con, event)
            points = con.execute(
                "SELECT sum(points), count(*) FROM table_standings_t WHERE event = ?", [event]
            ).fetchall()[0]
            played = long.filter(pl.col("table").is_not_null())
            assert (played["points"].sum(), played.height) == points
            wide = crosstable.wide(long)
            assert wide["total"].sum() == points[0]
            assert wide["player_key"].n_unique() == wide.height
