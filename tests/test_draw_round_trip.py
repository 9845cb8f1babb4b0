"""The whole road through the ``domino`` command with the real draw (HANDLOG.md,
"Additions for running competitions"): ``event create`` + ``event roster`` (12 entrants)
→ ``draw`` → ``sheets`` → the workbooks filled with simulated hands that follow the drawn
seating → ``ingest`` (the draw check passes) → the standings of the plain log; then the
next round drawn from the completed one.
"""

import json
import random
from pathlib import Path

import polars as pl
from click.testing import CliRunner

from pipeline.cli import cli
from pipeline.draws import seating
from pipeline.store.db import connect
from simulator.events import pepet_table, record, unhas_match
from tests.test_sheets import _fill, _standings

PLAYERS = [
    "Andi Amir", "Budi Bakri", "Citra Daeng", "Dewi Hamzah", "Eko Hasyim", "Fajar Ilyas",
    "Gilang Kadir", "Hana Latif", "Irfan Malik", "Joko Nasir", "Kiki Rahman", "Lina Saleh",
]  # fmt: skip


def run(*args) -> str:
    r = CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


def drawn_tables(db: Path, rnd: str) -> dict[str, dict[str, str]]:
    """``table → chair → player`` of the round's drawn starting seating (the seatings view)."""
    with connect(db, read_only=True) as con:
        rows = con.execute(
            'SELECT "table", chair, player FROM seatings WHERE event = ? AND round = ? '
            "AND (hand IS NULL OR hand = 1)",
            ["ev", rnd],
        ).fetchall()
    tables: dict[str, dict[str, str]] = {}
    for table, chair, player in rows:
        tables.setdefault(str(table), {})[str(chair)] = str(player)
    return tables


def play_round(ruleset: str, rnd: str, tables: dict[str, dict[str, str]], seed: int):
    rng = random.Random(seed)
    hands = []
    for table, start in sorted(tables.items()):
        if ruleset == "unhas":
            hands += unhas_match(rng, rnd, table, start)
        else:
            hands += pepet_table(rng, rnd, table, start, 9)
    return record(hands, ruleset, "ev", random.Random(seed + 1))


def sheets_filled_and_loaded(tmp: Path, rnd: str, played: pl.DataFrame) -> dict:
    out = tmp / f"sheets-{rnd}"
    run("sheets", "--event", "ev", "--round", rnd, "--out", out)
    filled = []
    for path in sorted(out.glob("*.xlsx")):
        filled.append(tmp / f"filled-{path.name}")
        _fill(path, played, filled[-1])
    assert len(filled) == played["table"].n_unique()
    report = json.loads(run("ingest", *filled, "--format", "json"))
    assert report["problems"] == []  # the draw check (draw_*) and every other check pass
    assert {m["status"] for m in report["matches"]} == {"new"}
    return report


def setup(tmp: Path, ruleset: str, first: str) -> None:
    run("event", "create", "ev", "--ruleset", ruleset, "--title", "Piala Dies Natalis")
    roster = tmp / "roster.csv"
    roster.write_text("player\n" + "\n".join(PLAYERS) + "\n")
    assert "12 entrant(s)" in run("event", "roster", "ev", roster)
    run("draw", "--event", "ev", "--round", first, "--seed", 11)


def same_as_plain_log(tmp: Path, db: Path, played: pl.DataFrame) -> None:
    plain = tmp / "plain.csv"
    played.write_csv(plain)
    with connect(tmp / "plain.duckdb") as con:
        from pipeline.ingest import ingest

        assert ingest(con, [plain]).errors.height == 0
        want = _standings(con, "ev")
    with connect(db, read_only=True) as con:
        assert _standings(con, "ev") == want
    assert want["table_standings"]


def test_unhas_first_round_to_second_round_through_the_command(db_path, tmp_path):
    setup(tmp_path, "unhas", "R1")
    r1 = drawn_tables(db_path, "R1")
    assert sorted(len(t) for t in r1.values()) == [4, 4, 4]
    assert sorted(p for t in r1.values() for p in t.values()) == sorted(PLAYERS)
    played = play_round("unhas", "R1", r1, 21)
    sheets_filled_and_loaded(tmp_path, "R1", played)
    same_as_plain_log(tmp_path, db_path, played)

    run("draw", "--event", "ev", "--round", "R2", "--seed", 12)
    with connect(db_path, read_only=True) as con:
        quals = con.execute(
            'SELECT "table", player FROM table_standings WHERE event = ? AND round = ? '
            "AND qualified",
            ["ev", "R1"],
        ).fetchall()
    came_from = {p: t for t, p in quals}
    assert len(came_from) == 6  # the top 2 of each of the 3 tables (Art. 2.12)
    r2 = drawn_tables(db_path, "R2")
    seated = [p for t in r2.values() for p in t.values()]
    assert sorted(seated) == sorted(came_from)  # exactly R1's qualifiers, each once
    assert sorted(len(t) for t in r2.values()) == [3, 3]  # 6 = two tables of 3
    for table in r2.values():  # Art. 4.1: qualifiers of one table meet those of another
        assert len({came_from[p] for p in table.values()}) >= 2


def test_pepet_session_series_through_the_command(db_path, tmp_path):
    setup(tmp_path, "pepet", "S1")
    s1 = drawn_tables(db_path, "S1")
    assert sorted(len(t) for t in s1.values()) == [4, 4, 4]
    played = [play_round("pepet", "S1", s1, 31)]
    sheets_filled_and_loaded(tmp_path, "S1", played[0])

    run("draw", "--event", "ev", "--round", "S2", "--seed", 12)
    s2 = drawn_tables(db_path, "S2")
    assert sorted(p for t in s2.values() for p in t.values()) == sorted(PLAYERS)
    # opponents rotated: 12 players on 3 tables meet again at least once per table; the
    # least possible is one pair per table: sum of squares 18 + 18 - 6 + 3·4 = 42
    keys = [[p.lower() for p in t.values()] for t in s2.values()]
    first = [[p.lower() for p in t.values()] for t in s1.values()]
    assert seating.pair_cost(keys, seating.met_pairs(first)) == 42
    played.append(play_round("pepet", "S2", s2, 32))
    sheets_filled_and_loaded(tmp_path, "S2", played[1])
    same_as_plain_log(tmp_path, db_path, pl.concat(played))


def test_a_filled_sheet_with_two_players_swapped_is_refused(db_path, tmp_path):
    rnd = "R1"
    setup(tmp_path, "unhas", rnd)
    r1 = drawn_tables(db_path, rnd)
    played = play_round("unhas", rnd, r1, 21).filter(pl.col("table") == "1")
    a, b = r1["1"]["A"], r1["1"]["B"]
    swapped = played.with_columns(
        pl.when(pl.col("hand") == 1).then(pl.lit(b)).otherwise("player_a").alias("player_a"),
        pl.when(pl.col("hand") == 1).then(pl.lit(a)).otherwise("player_b").alias("player_b"),
    )
    swapped.write_csv(tmp_path / "meja1.csv")
    r = CliRunner().invoke(cli, ["ingest", str(tmp_path / "meja1.csv"), "--format", "json"])
    assert r.exit_code == 1
    report = json.loads(r.output)
    chair = [p for p in report["problems"] if p["code"] == "draw_chair"]
    assert [(p["file"], p["line"], p["column"]) for p in chair] == [
        ("meja1.csv", 2, "player_a"),
        ("meja1.csv", 2, "player_b"),
    ]
    assert [m["status"] for m in report["matches"]] == ["rejected"]
    # the draw check is the stronger statement: no swap_schedule warning repeats it
    assert [p["code"] for p in report["problems"]] == ["draw_chair", "draw_chair"]
    # without a draw the same sheet loads, warned from hand 2 on against its first hand
    with connect(tmp_path / "no-draw.duckdb") as con:
        from pipeline.ingest import ingest

        plan = ingest(con, [tmp_path / "meja1.csv"])
    warned = plan.problems.filter(pl.col("code") == "swap_schedule")
    assert plan.errors.height == 0 and plan.count("new") == 1
    assert warned["line"].to_list() == list(range(3, 12))
