"""Player profiles: achievements (each a SQL query) golden on the worked examples, with
the oracle computed here from the examples' expected CSV files; form and the rating
leaderboard's filters."""

from collections import defaultdict
from datetime import date

import polars as pl
import pytest

from pipeline.standings import profile
from pipeline.store.db import connect
from tests.test_examples import IN_REPO, load_example
from tests.test_h2h_crosstable import rows

ROUND_ORDER = {"unhas": ["R1", "R2", "R3"], "pepet": ["S1", "S2", "S3"]}


@pytest.fixture(scope="module", params=["unhas", "pepet"])
def example(request, tmp_path_factory):
    folder = IN_REPO / request.param
    with connect(tmp_path_factory.mktemp(request.param) / "ex.duckdb") as con:
        assert load_example(con, folder) == []
        keys = dict(con.execute("SELECT player, player_key FROM players").fetchall())
        yield request.param, folder, con, keys


def held(con, keys: dict[str, str], code: str) -> dict[str, list[dict]]:
    out = {}
    for name, key in keys.items():
        got = profile.achievements(con, key)
        mine = got.filter(pl.col("code") == code).to_dicts() if got.height else []
        if mine:
            out[name] = mine
    return out


def test_first_apollo_is_the_earliest_apollo_hand(example):
    ruleset, folder, con, keys = example
    order = ROUND_ORDER[ruleset]
    first: dict[str, tuple] = {}
    for r in rows(folder, "hand_points"):
        if r["category"] == "apollo":
            k = (order.index(r["round"]), r["table"], int(r["hand"]))
            if r["player"] not in first or k < first[r["player"]]:
                first[r["player"]] = k
    got = held(con, keys, "first_apollo")
    assert {
        p: (order.index(a[0]["round"]), a[0]["table"], a[0]["hand"]) for p, a in got.items()
    } == first
    assert (ruleset == "unhas") == bool(first)


def test_most_stars_in_a_season(example):
    ruleset, folder, con, keys = example
    stars: dict[str, int] = defaultdict(int)
    for r in rows(folder, "round_standings") if ruleset == "pepet" else []:
        stars[r["player"]] += r["star"].lower() == "true"
    best = max(stars.values(), default=0)
    want = {p: n for p, n in stars.items() if n == best and n > 0}
    got = {p: a[0]["count"] for p, a in held(con, keys, "most_stars_season").items()}
    assert got == want
    assert (ruleset == "pepet") == bool(want)


def test_session_won_without_an_ambyar(example):
    ruleset, folder, con, keys = example
    ambyar = {
        (r["round"], r["player"])
        for r in rows(folder, "hand_points")
        if r["category"] in ("ambyar", "ambyar1", "ambyar2")
    }
    want: dict[str, set[str]] = defaultdict(set)
    for r in rows(folder, "round_standings") if ruleset == "pepet" else []:
        if r["rank"] == "1" and (r["round"], r["player"]) not in ambyar:
            want[r["player"]].add(r["round"])
    got = {p: {a["round"] for a in v} for p, v in held(con, keys, "clean_session").items()}
    assert got == dict(want)


def test_first_at_the_table_in_every_round(example):
    _, folder, con, keys = example
    per: dict[str, list[str]] = defaultdict(list)
    for r in rows(folder, "table_standings"):
        per[r["player"]].append(r["rank"])
    want = {p: len(ranks) for p, ranks in per.items() if len(ranks) >= 2 and set(ranks) == {"1"}}
    got = {p: a[0]["count"] for p, a in held(con, keys, "every_round_top").items()}
    assert got == want


def test_form_lists_the_latest_tables_newest_first(example):
    ruleset, folder, con, keys = example
    order = ROUND_ORDER[ruleset]
    per: dict[str, list[dict]] = defaultdict(list)
    for r in rows(folder, "table_standings"):
        per[r["player"]].append(r)
    for name, mine in list(per.items())[:6]:
        f = profile.form(con, keys[name], 2)
        want = sorted(mine, key=lambda r: order.index(r["round"]), reverse=True)[:2]
        assert f["round"].to_list() == [r["round"] for r in want]
        assert f["rank"].to_list() == [int(r["rank"]) for r in want]
        assert f["points"].to_list() == [int(r["points"]) for r in want]


def test_rating_board_filters(example):
    ruleset, _, con, keys = example
    board = profile.rating_board(con, ruleset)
    assert (
        board.height
        == con.execute("SELECT count(*) FROM ratings WHERE ruleset = ?", [ruleset]).fetchall()[0][0]
    )
    assert board["ordinal"].to_list() == sorted(board["ordinal"].to_list(), reverse=True)
    assert board["provisional"].all()  # three tables at most, fewer than 5
    # a period before anything was played lists nobody
    assert profile.rating_board(con, ruleset, until=date(2000, 1, 1)).height == 0
    assert profile.rating_board(con, ruleset, level="nasional").height == 0
    con.execute("UPDATE events SET level = 'kota'")
    assert profile.rating_board(con, ruleset, level="kota").height == board.height
    groups = profile.groups(con)
    if groups:
        g = profile.rating_board(con, ruleset, group=groups[0])
        assert 0 < g.height < board.height and set(g["group"]) == {groups[0]}


def test_first_at_every_table_worked_set(con, tmp_path):
    from tests.rules_helpers import biasa_match, load

    seats = ("Ana", "Budi", "Cici", "Dedi")
    # Ana wins all ten hands of R1 and R2 (+20 each): first at both tables; Budi wins all
    # of R3, where Ana is second at best: Ana holds it for "liga", nobody for "cup"
    rows_ = biasa_match(["Ana"] * 10, seats, event="liga", round="R1")
    rows_ += biasa_match(["Ana"] * 10, seats, event="liga", round="R2")
    rows_ += biasa_match(["Ana"] * 10, seats, event="cup", round="R1")
    rows_ += biasa_match(["Budi"] * 10, seats, event="cup", round="R2")
    load(con, tmp_path, rows_)
    got = profile.achievements(con, "ana").filter(pl.col("code") == "every_round_top")
    assert got.select("event", "count").to_dicts() == [{"event": "liga", "count": 2}]
    assert profile.achievements(con, "budi").filter(pl.col("code") == "every_round_top").height == 0
