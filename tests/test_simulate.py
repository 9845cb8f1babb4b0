"""The deal simulator (simulator/): real hands, and logs the product accepts.

The product is the judge of agreement: a generated event or corpus loaded with
``pipeline.ingest.ingest`` must report no problem at all, so every ending, last tile, pips
and tiles cell agrees with the contract. The engine's own invariants are checked on the
hands themselves, and the bundled samples must load as the demo loads them.
"""

import random
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

import simulator
from pipeline.cli import cli
from pipeline.demo import sample_files
from pipeline.ingest import ingest
from pipeline.ingest.columns import CANONICAL
from pipeline.players import import_registry, read_registry
from pipeline.scoring.rescore import rescore
from pipeline.store.db import connect
from simulator import DOUBLE, HI, LO, T33, TEXT
from tests.conftest import ROOT

SAMPLES = ROOT / "data" / "samples"
RULESETS = ["unhas", "pepet"]


def _deals(rng: random.Random, n: int, count: int) -> list[list[list[int]]]:
    out = []
    for _ in range(count):
        tiles = list(range(28))
        rng.shuffle(tiles)
        out.append([tiles[7 * i : 7 * i + 7] for i in range(n)])
    return out


def _fits(t: int, ends: tuple[int, int]) -> bool:
    return HI[t] in ends or LO[t] in ends


def _problems(p) -> str:
    return "\n".join(
        f"{r['file']}:{r['line']} {r['column']} {r['code']}: {r['message']}"
        for r in p.problems.to_dicts()
    )


# --- the engine -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_unhas_hands_end_as_the_rulebook_says(players):
    rng = random.Random(players)
    endings: Counter[str] = Counter()
    for dealt in _deals(rng, players, 2000):
        res = simulator.play_unhas(dealt, rng)
        endings[res.ending] += 1
        left = [t for h in res.live for t in h]
        assert len(left) == len(set(left))
        assert all(set(res.live[q]) <= set(dealt[q]) for q in range(players))
        if res.ending == "all_doubles":
            continue
        assert res.ends is not None and res.last is not None
        assert res.last in dealt[res.ender] and res.last not in res.live[res.ender]
        if res.ending in ("apollo", "ceki", "biasa"):
            assert res.live[res.ender] == []
            assert (res.ending == "apollo") == DOUBLE[res.last]
            assert (res.ending == "ceki") == (not DOUBLE[res.last] and res.ends[0] == res.ends[1])
            assert res.winner == res.ender
        else:  # kandang: nobody can play, and the blocker did not go out
            assert res.live[res.ender]
            assert not any(_fits(t, res.ends) for t in left)
    assert {"apollo", "ceki", "biasa", "kandang"} <= set(endings)


def test_a_player_dealt_seven_doubles_ends_the_hand_unplayed():
    rng = random.Random(3)
    dealt = simulator.deal(rng, ["A", "B", "C", "D"], all_doubles="C")
    assert sorted(dealt["C"]) == list(simulator.DOUBLES)
    assert sorted(t for h in dealt.values() for t in h) == list(range(28))
    res = simulator.play_unhas([dealt[c] for c in "ABCD"], rng)
    assert (res.ending, res.ender, res.last) == ("all_doubles", 2, None)


def test_pepet_hands_close_tiles_and_end_as_decided():
    rng = random.Random(7)
    endings: Counter[str] = Counter()
    dead_tiles = sat_out = 0
    for dealt in _deals(rng, 4, 3000):
        res = simulator.play_pepet(dealt, rng)
        endings[res.ending] += 1
        charged = [t for q in range(4) for t in res.live[q] + res.dead[q]]
        assert len(charged) == len(set(charged))
        assert all(set(res.live[q] + res.dead[q]) <= set(dealt[q]) for q in range(4))
        dead_tiles += sum(len(d) for d in res.dead)
        # a player whose last tile was closed has not gone out: they sit out
        sat_out += sum(1 for q in range(4) if not res.live[q] and res.dead[q])
        if res.ending == "out":
            assert res.live[res.ender] == [] and res.dead[res.ender] == []
            assert res.last in dealt[res.ender]
        elif res.ending == "locked":
            assert not any(_fits(t, res.ends) for h in res.live for t in h)
            assert res.live[res.ender] or res.dead[res.ender]
        else:  # tutup: the causer closed a tile although one fitted
            assert res.withheld in res.live[res.ender] and _fits(res.withheld, res.ends)
    assert set(endings) == {"out", "locked", "tutup"}
    assert endings["tutup"] < 0.05 * sum(endings.values())
    assert dead_tiles > 0 and sat_out > 0


def test_zero_zero_counts_13_without_a_blank_partner():
    zz = simulator.zero_zero_alone()
    assert zz == 13
    t00, t50, t55 = 0, simulator.TILES.index((5, 0)), simulator.TILES.index((5, 5))
    assert simulator.pepet_value([t00], zz) == 13
    assert simulator.pepet_value([t00, t55], zz) == 23
    assert simulator.pepet_value([t00, t50], zz) == 5


@pytest.mark.parametrize("ruleset", RULESETS)
def test_first_hands_are_led_with_3_3_then_the_winner_leads(ruleset):
    hands = simulator.default_event(ruleset, 5)
    regular = 10
    by_table: dict[tuple[str, str], list[simulator.Hand]] = {}
    for h in hands:
        by_table.setdefault((h.round, h.table), []).append(h)
    checked = 0
    for part in by_table.values():
        for prev, h in zip([None, *part], part, strict=False):
            if h.ending == "wo":
                continue
            checked += 1
            first = prev is None or (ruleset == "unhas" and (h.hand or 0) > regular)
            if first:
                held = [t for tiles in h.dealt.values() for t in tiles]
                lead_with = T33 if T33 in held else min(t for t in held if DOUBLE[t])
                leader_chair = next(c for c, p in h.seats.items() if p == h.leader)
                assert lead_with in h.dealt[leader_chair], (h.round, h.table, h.hand)
            else:
                assert h.leader == prev.winner, (h.round, h.table, h.hand)
    assert checked > 50


def test_unhas_seating_follows_the_cumulative_swap_schedule():
    start = {"A": "p1", "B": "p2", "C": "p3", "D": "p4"}
    assert simulator.unhas_seating(start, 2) == start
    assert simulator.unhas_seating(start, 3) == {"A": "p3", "B": "p2", "C": "p1", "D": "p4"}
    assert simulator.unhas_seating(start, 7) == {"A": "p3", "B": "p4", "C": "p1", "D": "p2"}
    three = simulator.unhas_seating({"A": "p1", "B": "p2", "C": "p3"}, 8)
    assert three == {"A": "p3", "C": "p1", "D": "p2"}


# --- generated events: the product agrees ----------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_same_seed_same_hands(ruleset):
    a = simulator.generate_frame(ruleset, 5)
    assert a.equals(simulator.generate_frame(ruleset, 5))
    assert not a.equals(simulator.generate_frame(ruleset, 6))
    simulator.deal_pool.cache_clear()  # the pool itself must come out the same, too
    c = simulator.generate_frame(ruleset, 5, hands=1500)
    simulator.deal_pool.cache_clear()
    assert c.equals(simulator.generate_frame(ruleset, 5, hands=1500))
    assert list(c.columns) == list(CANONICAL)
    assert (
        c.schema["hand"] == pl.Int64
        and c.schema["pips_a"] == pl.Int64
        and c.schema["tiles_a"] == pl.String
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_generated_event_loads_without_a_single_problem(tmp_path, ruleset, seed):
    paths = simulator.write_event(ruleset=ruleset, seed=seed, out_dir=tmp_path / "logs")
    with connect(tmp_path / "db.duckdb") as con:
        p = ingest(con, paths, by="test")
    assert p.problems.height == 0, _problems(p)
    assert p.outcomes and all(o.status == "new" for o in p.outcomes)
    frame = simulator.generate_frame(ruleset, seed)
    assert p.hands.height == frame.height


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_unhas_rounds_seat_the_qualifiers_the_product_computes(tmp_path, seed):
    paths = simulator.write_event(ruleset="unhas", seed=seed, out_dir=tmp_path / "logs")
    with connect(tmp_path / "db.duckdb") as con:
        p = ingest(con, paths, by="test")
        assert p.problems.height == 0, _problems(p)
        ts = con.sql(
            'SELECT round, "table", player_key, qualified, needs_tiebreak FROM table_standings'
        ).pl()
    rounds = sorted(ts.get_column("round").unique().to_list())
    assert len(rounds) >= 2
    for before, after in zip(rounds, rounds[1:], strict=False):
        quals = set(
            ts.filter((pl.col("round") == before) & pl.col("qualified")).get_column("player_key")
        )
        seated = set(ts.filter(pl.col("round") == after).get_column("player_key"))
        assert quals == seated
    # ties that decide qualification or rank 1 were played off
    assert not ts.get_column("needs_tiebreak").any()
    hands = simulator.default_event("unhas", seed)
    for (rnd, table), part in _matches(hands).items():
        mine = {p.lower() for p in simulator.qualifiers(part)}
        theirs = set(
            ts.filter(
                (pl.col("round") == rnd) & (pl.col("table") == table) & pl.col("qualified")
            ).get_column("player_key")
        )
        assert mine == theirs, (rnd, table)


def _matches(hands: list[simulator.Hand]) -> dict[tuple[str, str], list[simulator.Hand]]:
    out: dict[tuple[str, str], list[simulator.Hand]] = {}
    for h in hands:
        out.setdefault((h.round, h.table), []).append(h)
    return out


def _value(cell: str) -> int:
    """A pepet chair's value from its tiles text, counted here independently."""
    tiles = [tuple(int(x) for x in tok.rstrip("*").split("-")) for tok in cell.split()]
    total = sum(a + b for a, b in tiles)
    if (0, 0) in tiles and not any(min(t) == 0 and max(t) > 0 for t in tiles):
        total += 13
    return total


def _lone_zero_zero(cell: str) -> bool:
    tiles = [tuple(int(x) for x in tok.rstrip("*").split("-")) for tok in cell.split()]
    return (0, 0) in tiles and not any(min(t) == 0 and max(t) > 0 for t in tiles)


def test_pepet_dead_tiles_appear_and_are_counted(con, tmp_path):
    frame = simulator.generate_frame("pepet", 21, hands=3000)
    long = pl.concat(
        [
            frame.select(
                "event",
                "round",
                "table",
                "hand",
                pl.lit(c.upper()).alias("chair"),
                pl.col(f"tiles_{c}").alias("tiles"),
            )
            for c in "abcd"
        ]
    ).drop_nulls("tiles")
    dead = long.filter(pl.col("tiles").str.contains(r"\*"))
    assert dead.height > 100
    p = ingest(con, [_write(frame, tmp_path)], by="test")
    assert p.problems.height == 0, _problems(p)
    loaded = con.sql('SELECT event, round, "table", hand, chair, value FROM hand_points').pl()
    got = dead.join(loaded, on=["event", "round", "table", "hand", "chair"])
    assert got.height == dead.height
    expected = got.get_column("tiles").map_elements(_value, return_dtype=pl.Int64)
    assert got.get_column("value").cast(pl.Int64).equals(expected)
    lone = got.filter(pl.col("tiles").map_elements(_lone_zero_zero, return_dtype=pl.Boolean))
    assert lone.height > 0, "some chair is charged with 0-0 and no blank partner (it counts 13)"


def test_write_event_splits_by_table_round_or_one(tmp_path):
    frame = simulator.generate_frame("unhas", 8, hands=400)
    tables = frame.select("event", "round", "table").unique().height
    rounds = frame.select("event", "round").unique().height
    for per_file, count in (("table", tables), ("round", rounds), ("one", 1)):
        paths = simulator.write_event(
            ruleset="unhas", seed=8, hands=400, out_dir=tmp_path / per_file, per_file=per_file
        )
        assert len(paths) == count
        back = pl.concat([pl.read_csv(p, infer_schema=False) for p in paths])
        assert back.height == frame.height
    with pytest.raises(ValueError, match="per_file"):
        simulator.write_event(ruleset="unhas", seed=8, out_dir=tmp_path, per_file="hand")


def test_cli_generate_writes_logs_that_ingest_cleanly(tmp_path):
    out = tmp_path / "g"
    res = CliRunner().invoke(
        cli, ["generate", "--ruleset", "pepet", "--seed", "1", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    files = sorted(str(p) for p in out.glob("*.csv"))
    assert len(files) == 9  # 3 sessions × 3 tables
    res = CliRunner().invoke(cli, ["ingest", *files, "--db", str(tmp_path / "g.duckdb")])
    assert res.exit_code == 0, res.output
    # no problem of any row; the one line on stderr says the new event has no date
    assert "0 rejected" in res.stdout and "warning" not in res.stdout
    assert [line for line in res.stderr.splitlines() if "without a date" not in line] == []


# --- corpora ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_corpus_of_10k_hands_loads_without_a_single_problem(tmp_path, ruleset):
    paths = simulator.write_event(
        ruleset=ruleset, seed=11, hands=10_000, out_dir=tmp_path, per_file="one"
    )
    assert len(paths) == 1
    text = paths[0].read_text()
    assert '"' not in text  # plain CSV: the product's fast reader applies
    frame = pl.read_csv(paths[0], infer_schema=False).with_columns(pl.col("hand").cast(pl.Int64))
    assert 9_000 <= frame.height <= 11_000
    played = frame.filter(pl.col("ending") != "wo")
    per_match = played.group_by("event", "round", "table").agg(
        pl.col("hand").sort().alias("hands"), pl.len()
    )
    if ruleset == "unhas":
        assert per_match.get_column("hands").to_list() == [list(range(1, 11))] * per_match.height
        assert frame.filter(pl.col("ending") == "wo").height > 0
        assert (
            played.filter(pl.col("player_d").is_null() | pl.col("player_b").is_null()).height > 0
        )  # 3-player tables
    else:
        sessions = (
            pl.concat(
                [
                    played.select("event", "round", "table", pl.col(f"player_{c}").alias("p"))
                    for c in "abcd"
                ]
            )
            .group_by("event", "round")
            .agg(
                pl.col("table").n_unique().alias("tables"), pl.col("p").n_unique().alias("players")
            )
        )
        assert sessions.get_column("tables").to_list() == [3] * sessions.height
        assert sessions.get_column("players").to_list() == [12] * sessions.height
        assert played.filter(pl.col("ending") == "tutup").height > 0
    with connect(tmp_path / "db.duckdb") as con:
        p = ingest(con, paths, by="test")
    assert p.problems.height == 0, _problems(p)
    assert (
        p.count("rejected") == 0
        and p.count("new") == per_match.height + frame.filter(pl.col("ending") == "wo").height
    )


@pytest.mark.slow
def test_corpora_exercise_the_all_doubles_deal(tmp_path, monkeypatch):
    monkeypatch.setattr(simulator.corpus, "POOL_ALL_DOUBLES", 40)
    simulator.deal_pool.cache_clear()
    try:
        frame = simulator.generate_frame("unhas", 99, hands=3000)
    finally:
        simulator.deal_pool.cache_clear()
    doubles = frame.filter(pl.col("ending") == "all_doubles")
    assert doubles.height > 0
    assert doubles.get_column("last_tile").null_count() == doubles.height
    with connect(tmp_path / "db.duckdb") as con:
        p = ingest(con, [_write(frame, tmp_path)], by="test")
    assert p.problems.height == 0, _problems(p)


def _write(frame: pl.DataFrame, folder: Path) -> Path:
    path = folder / "corpus.csv"
    frame.write_csv(path)
    return path


# --- the bundled samples -------------------------------------------------------------------------


def _load_samples(con) -> dict[str, object]:
    """As ``domino demo`` loads them: the registry first, then every log in one ingest."""
    plans = {}
    for rs in RULESETS:
        folder = SAMPLES / rs
        if (folder / "players.csv").exists():
            import_registry(con, read_registry(folder / "players.csv"))
            rescore(con)
        plans[rs] = ingest(con, sample_files(folder), by="test")
    return plans


def test_samples_load_with_only_the_intended_warning(con):
    plans = _load_samples(con)
    unhas, pepet = plans["unhas"], plans["pepet"]
    assert unhas.errors.height == 0 and pepet.errors.height == 0, _problems(unhas) + _problems(
        pepet
    )
    assert pepet.problems.height == 0, _problems(pepet)
    # the R2 table 2 referee made the B/D swap one hand late (hand 7): loaded, reported
    assert unhas.warnings.select("file", "code").rows() == [("R2_meja2.xlsx", "swap_schedule")]
    assert "hand 7" in unhas.warnings.get_column("message")[0]
    for p in plans.values():
        assert p.outcomes and all(o.status == "new" for o in p.outcomes)
    files = {o.file for p in plans.values() for o in p.outcomes}
    assert {"R2_meja2.xlsx", "S2_meja2.xlsx"} <= files


def test_sample_rounds_seat_the_previous_qualifiers(con):
    _load_samples(con)
    ts = con.sql(
        'SELECT round, "table", player_key, qualified, needs_tiebreak, walkover, match_hands '
        "FROM table_standings WHERE event = ?",
        params=[simulator.UNHAS_EVENT],
    ).pl()
    assert sorted(ts.get_column("round").unique()) == ["R1", "R2", "R3"]
    for before, after in (("R1", "R2"), ("R2", "R3")):
        quals = set(
            ts.filter((pl.col("round") == before) & pl.col("qualified")).get_column("player_key")
        )
        assert quals == set(ts.filter(pl.col("round") == after).get_column("player_key"))
    assert ts.filter(pl.col("round") == "R3").get_column("table").unique().to_list() == [
        "1"
    ]  # a final
    assert not ts.get_column("needs_tiebreak").any()
    r1 = (
        ts.filter(pl.col("round") == "R1")
        .group_by("table")
        .agg(pl.len(), pl.col("walkover").first())
    )
    assert sorted(r1.get_column("len")) == [2, 3, 4, 4]
    assert r1.filter(pl.col("walkover")).get_column("len").to_list() == [2]


def test_samples_show_what_a_demo_needs(con):
    _load_samples(con)
    hp = con.sql("SELECT * FROM hand_points WHERE event = ?", params=[simulator.UNHAS_EVENT]).pl()
    assert hp.filter(pl.col("tiebreak")).height > 0
    assert {"apollo", "ceki", "biasa", "kandang", "tangkap", "caught"} <= set(
        hp.get_column("category")
    )
    warns = con.sql(
        'SELECT round, "table", sanctions_a, sanctions_b, sanctions_c, sanctions_d, key_a, key_b, key_c, key_d FROM hands WHERE event = ?',
        params=[simulator.UNHAS_EVENT],
    ).pl()
    count: Counter[tuple[str, str, str]] = Counter()
    for r in warns.iter_rows(named=True):
        for c in "abcd":
            if r[f"sanctions_{c}"] and "warn" in r[f"sanctions_{c}"]:
                count[(r["round"], r["table"], r[f"key_{c}"])] += 1
    assert max(count.values()) >= 2, "a player is warned twice in one match"
    assert hp.filter(pl.col("sanction_points") < 0).height > 0
    endings = set(
        con.sql("SELECT DISTINCT ending FROM hands WHERE event = ?", params=[simulator.UNHAS_EVENT])
        .pl()
        .get_column("ending")
    )
    assert {"apollo", "ceki", "biasa", "kandang", "all_doubles", "wo"} <= endings

    pepet = con.sql("SELECT * FROM hands WHERE event = ?", params=[simulator.PEPET_EVENT]).pl()
    assert set(pepet.get_column("ending")) == {"out", "locked", "tutup"}
    assert (
        pepet.select(
            pl.concat_str([pl.col(f"tiles_{c}") for c in "abcd"], ignore_nulls=True, separator=" ")
        )
        .to_series()
        .str.contains(r"\*")
        .any()
    )
    shape = con.sql(
        'SELECT round, count(DISTINCT "table") AS t, count(DISTINCT player_key) AS p FROM table_standings WHERE event = ? GROUP BY round',
        params=[simulator.PEPET_EVENT],
    ).pl()
    assert shape.get_column("t").to_list() == [3, 3, 3] and shape.get_column("p").to_list() == [
        12,
        12,
        12,
    ]
    groups = con.sql(
        'SELECT "group" FROM group_standings WHERE event = ?', params=[simulator.PEPET_EVENT]
    ).pl()
    assert groups.height == 4
    # aliases written in the logs resolve to registered players
    written = set(
        pepet.select(pl.concat_list([pl.col(f"player_{c}") for c in "abcd"]))
        .to_series()
        .explode()
        .drop_nulls()
    )
    registered = {p for _, (_, members) in simulator.PEPET_GROUPS.items() for p in members}
    assert written - registered, "some logs use an alias spelling"
    names = set(
        con.sql(
            "SELECT player FROM event_standings WHERE event = ?", params=[simulator.PEPET_EVENT]
        )
        .pl()
        .get_column("player")
    )
    assert names == registered


def test_sample_files_differ_the_way_real_uploads_do():
    unhas = [SAMPLES / "unhas" / f for f in (SAMPLES / "unhas" / "order.txt").read_text().split()]
    pepet = [SAMPLES / "pepet" / f for f in (SAMPLES / "pepet" / "order.txt").read_text().split()]
    for files in (unhas, pepet):
        data = [f.read_bytes() for f in files if f.suffix == ".csv"]
        assert any(d.startswith(b"\xef\xbb\xbf") for d in data)
        assert any(d.split(b"\n")[0].count(b";") > 5 for d in data)
        assert any(b"kursi_a" in d.split(b"\n")[0] for d in data)
        assert any(f.suffix == ".xlsx" for f in files)
        assert b"ruleset" in data[0].split(b"\n")[0]  # the first file names the ruleset
    text = b"".join(f.read_bytes() for f in unhas if f.suffix == ".csv").decode("utf-8-sig")
    for notation in ("|", "/"):
        assert any(f"{a}{notation}{b}" in text for a in range(7) for b in range(7))


def test_samples_regenerate_byte_for_byte(tmp_path):
    simulator.make_samples(tmp_path)
    for rs in RULESETS:
        ours = {p.name: p.read_bytes() for p in (tmp_path / rs).iterdir()}
        # event.toml (the event's title, date, venue) is written by hand, not generated
        bundled = {p.name: p.read_bytes() for p in (SAMPLES / rs).iterdir() if p.suffix != ".toml"}
        assert sorted(ours) == sorted(bundled)
        changed = [name for name in ours if ours[name] != bundled[name]]
        assert not changed, (
            f"data/samples/{rs} is stale: run python -m simulator samples data/samples"
        )


def test_tile_texts_are_canonical():
    assert TEXT[T33] == "3-3" and len(set(TEXT)) == 28
    assert (
        simulator.tiles_text([simulator.TILES.index((1, 0)), simulator.TILES.index((6, 5))], [0])
        == "6-5 1-0 0-0*"
    )


@pytest.mark.parametrize("ruleset", RULESETS)
def test_rescoring_many_events_in_chunks_gives_the_same_standings(tmp_path, ruleset, monkeypatch):
    """`rescore` scores events together in chunks of about `batch_rows` hands; with a tiny
    limit (one or two events per chunk) every view comes out as the load made it."""
    from pipeline.standings import queries

    frame = simulator.generate_frame(ruleset, 3, 4_000, event="many")
    path = tmp_path / "many.csv"
    frame.write_csv(path)
    views = ["hand_points_t", "table_standings_t"]
    with connect(tmp_path / "db.duckdb") as con:
        assert ingest(con, [path], by="test").count("rejected") == 0
        events = queries.events(con).get_column("event").to_list()
        assert len(events) > 10
        before = {v: con.sql(f"SELECT * FROM {v} ORDER BY ALL").pl() for v in views}
        con.execute("UPDATE events SET params_hash = 'stale'")
        monkeypatch.setenv("DOMINO_BATCH_ROWS", "500")
        assert rescore(con) == frame.height
        for v in views:
            assert con.sql(f"SELECT * FROM {v} ORDER BY ALL").pl().equals(before[v]), v
        assert con.execute(
            "SELECT count(*) FROM events WHERE params_hash = 'stale'"
        ).fetchall() == [(0,)]
