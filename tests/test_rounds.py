"""Round order (RULES.md, "Decided (round order)"): one rule in SQL, Python and polars,
the organiser's own order over it, and what follows from it (event standings, the
dashboard's newest round)."""

from pathlib import Path

import duckdb
import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import rounds as round_order
from pipeline.cli import cli
from pipeline.standings import queries
from pipeline.store.db import connect
from tests.rules_helpers import biasa_match, load

VIEW = Path(round_order.__file__).parent / "sql" / "views" / "01_rounds.sql"


def sql_order(labels: list[str], own: list[str] = ()) -> list[str]:
    """The rounds view itself (the file's text) over stand-in tables holding ``labels``."""
    con = duckdb.connect(":memory:")
    con.execute("CREATE TABLE table_standings_t (event VARCHAR, round VARCHAR)")
    con.execute("CREATE TABLE event_rounds (event VARCHAR, round VARCHAR, position INTEGER)")
    con.execute("CREATE TABLE draws_t (event VARCHAR, round VARCHAR, current BOOLEAN)")
    con.executemany("INSERT INTO table_standings_t VALUES ('ev', ?)", [[r] for r in labels])
    for i, r in enumerate(own, 1):
        con.execute("INSERT INTO event_rounds VALUES ('ev', ?, ?)", [r, i])
    con.execute(VIEW.read_text())
    return [
        r[0]
        for r in con.execute(
            "SELECT round FROM rounds WHERE event = 'ev' ORDER BY round_no"
        ).fetchall()
    ]


def polars_order(labels: list[str]) -> list[str]:
    return (
        pl.DataFrame({"round": labels}, schema={"round": pl.String})
        .sort(round_order.sort_exprs("round"))["round"]
        .to_list()
    )


# --- the default rule ------------------------------------------------------------------------

GOLDEN = [
    ["R1", "R2", "R10", "Semifinal", "Final"],
    ["Perempat final", "Semi final", "Final", "Grand Final"],
    ["R3", "Quarterfinal", "Semifinal", "Final"],
    ["Babak 1", "Babak 2", "1/4 final", "1/2 final", "Final"],
    # any case: FINAL, final and Final all come after the rounds without it
    ["r1", "R2", "PEREMPAT FINAL", "semi FINAL", "final"],
    ["R1", "R9", "QUARTER-FINAL", "SEMI-FINAL", "GRAND FINAL"],
]


@pytest.mark.parametrize("expected", GOLDEN, ids=lambda g: " < ".join(g))
def test_golden_orders(expected):
    shuffled = list(reversed(expected))
    assert round_order.in_order(shuffled) == expected
    assert polars_order(shuffled) == expected
    assert sql_order(shuffled) == expected


def test_final_comes_after_the_first_round_in_every_spelling():
    for final in ("Final", "FINAL", "final", "Grand Final", "Semifinal", "Perempat Final"):
        assert round_order.in_order([final, "R1"]) == ["R1", final]
        assert sql_order([final, "R1"]) == ["R1", final]


def test_abbreviations_without_final_sort_naturally():
    # QF / SF do not contain "final": RULES.md leaves them to the natural order.
    labels = ["SF", "R1", "QF", "Final"]
    assert round_order.in_order(labels) == ["QF", "R1", "SF", "Final"]
    assert sql_order(labels) == ["QF", "R1", "SF", "Final"]


LABELS = [
    "R1",
    "R2",
    "R10",
    "r3",
    "R 1",
    "R01",
    "Final",
    "FINAL",
    "Grand Final",
    "Semifinal",
    "Semi final",
    "Perempat final",
    "Quarterfinal",
    "1/4 final",
    "1/2 final",
    "QF",
    "SF",
    "Babak 2",
    "Babak 10",
    "Sesi 1",
    "Penyisihan",
    "",
    "12345678901234567890",
    "R99999999999999999999",
    "Fínal",
    "Ñ1",
    "final4",
    "SEMI",
    "Kualifikasi A",
]


def test_python_polars_and_sql_agree_on_a_list_of_labels():
    expected = round_order.in_order(LABELS)
    assert polars_order(LABELS) == expected
    assert sql_order(LABELS) == expected


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from(list("Rr0123456789 /-ÁñfinalFINALsemiqurtp")), max_size=12)
        | st.sampled_from(LABELS),
        min_size=1,
        max_size=12,
        unique=True,
    )
)
def test_python_polars_and_sql_agree_on_any_labels(labels):
    expected = round_order.in_order(labels)
    assert polars_order(labels) == expected
    assert sql_order(labels) == expected


def test_the_organisers_order_comes_first_then_the_default_rule():
    labels = ["Final", "Penyisihan", "Lanjutan", "R2", "R1"]
    assert sql_order(labels, own=["Penyisihan", "Lanjutan"]) == [
        "Penyisihan",
        "Lanjutan",
        "R1",
        "R2",
        "Final",
    ]


# --- in the product --------------------------------------------------------------------------

R1_1 = ("Ana", "Budi", "Cici", "Dedi")
R1_2 = ("Eko", "Fani", "Gita", "Hadi")
R2_1 = ("Ana", "Eko", "Cici", "Gita")
R2_2 = ("Budi", "Fani", "Dedi", "Hadi")
FINAL = ("Ana", "Eko", "Budi", "Fani")


def _rows(round: str, table: str, seats, winners, event: str = "ev") -> list[dict]:
    return biasa_match(winners, start=seats, event=event, round=round, table=table)


def _tournament(final_label: str = "Final", event: str = "ev") -> list[dict]:
    """R1 (two tables), R2 (two tables), then a final table of four. Cici, Dedi, Gita and
    Hadi stop in R2 with far more points than the finalists."""
    rows = []
    rows += _rows("R1", "1", R1_1, ["Cici"] * 5 + ["Dedi"] * 3 + ["Ana", "Budi"], event)
    rows += _rows("R1", "2", R1_2, ["Gita"] * 5 + ["Hadi"] * 3 + ["Eko", "Fani"], event)
    rows += _rows("R2", "1", R2_1, ["Cici"] * 4 + ["Gita"] * 4 + ["Ana", "Eko"], event)
    rows += _rows("R2", "2", R2_2, ["Dedi"] * 4 + ["Hadi"] * 4 + ["Budi", "Fani"], event)
    rows += _rows(
        final_label, "1", FINAL, ["Fani"] * 4 + ["Budi"] * 3 + ["Eko"] * 2 + ["Ana"], event
    )
    return rows


def test_finalists_rank_above_players_who_stopped_earlier(tmp_path):
    with connect(tmp_path / "t.duckdb") as con:
        plan = load(con, tmp_path, _tournament())
        assert {o.status for o in plan.outcomes} == {"new"}
        assert queries.rounds(con, "ev") == ["R1", "R2", "Final"]
        ev = queries.standings(con, "ev", "event")
    top = ev.head(4)
    assert set(top["player"]) == set(FINAL)
    assert top["round_reached"].to_list() == ["Final"] * 4
    # in the final: Fani 4 wins, Budi 3, Eko 2, Ana 1 → ranks 1-4 by the final table
    assert top["player"].to_list() == ["Fani", "Budi", "Eko", "Ana"]
    assert top["rank"].to_list() == [1, 2, 3, 4]
    rest = ev.tail(4)
    assert set(rest["round_reached"]) == {"R2"}
    assert min(rest["points"]) > max(top["points"])  # more points, still below the finalists


def test_table_standings_and_hands_list_rounds_in_round_order(tmp_path):
    with connect(tmp_path / "t.duckdb") as con:
        load(con, tmp_path, _tournament())
        tables = queries.standings(con, "ev", "table")
        hands = queries.hand_points(con, "ev")
        hist = queries.history(con, "ev")
    for df in (tables, hands, hist):
        assert df["round"].unique(maintain_order=True).to_list() == ["R1", "R2", "Final"]


def run(*args):
    return CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)


def test_the_organisers_order_overrides_the_natural_order(db_path, tmp_path):
    rows = []
    rows += _rows("Penyisihan", "1", R1_1, ["Cici"] * 6 + ["Ana"] * 4)
    rows += _rows("Penyisihan", "2", R1_2, ["Gita"] * 6 + ["Eko"] * 4)
    rows += _rows("Lanjutan", "1", FINAL, ["Ana"] * 6 + ["Eko"] * 4)
    with connect(db_path) as con:
        load(con, tmp_path, rows)
        # the default rule: "Lanjutan" < "Penyisihan", so the preliminaries look like the later round
        assert queries.rounds(con, "ev") == ["Lanjutan", "Penyisihan"]
        assert queries.standings(con, "ev", "event")["player"][0] == "Cici"

    r = run("event", "rounds", "ev", "penyisihan", "Lanjutan")  # a loaded round in another case
    assert r.exit_code == 0, r.output
    assert "ev, the organiser's order: Penyisihan < Lanjutan" in r.output
    with connect(db_path, read_only=True) as con:
        assert round_order.organiser_order(con, "ev") == ["Penyisihan", "Lanjutan"]
        assert queries.rounds(con, "ev") == ["Penyisihan", "Lanjutan"]
        ev = queries.standings(con, "ev", "event")
    assert ev["player"].head(2).to_list() == ["Ana", "Eko"]
    assert ev["round_reached"].head(2).to_list() == ["Lanjutan", "Lanjutan"]

    # a round loaded later and not listed follows the listed ones by the default rule
    with connect(db_path) as con:
        load(con, tmp_path, _rows("Final", "1", FINAL, ["Budi"] * 10), name="final.csv")
        assert queries.rounds(con, "ev") == ["Penyisihan", "Lanjutan", "Final"]

    shown = run("event", "rounds", "ev")
    assert shown.exit_code == 0
    assert "Penyisihan < Lanjutan < Final" in shown.output

    # a listed round with no results yet is said so; --clear returns to the default rule
    r = run("event", "rounds", "ev", "Penyisihan", "Lanjutan", "Semifinal", "Final")
    assert r.exit_code == 0, r.output
    assert "listed, no results yet: Semifinal" in r.output
    r = run("event", "rounds", "ev", "--clear")
    assert r.exit_code == 0, r.output
    assert "ev, the default order: Lanjutan < Penyisihan < Final" in r.output


def test_event_rounds_refuses_wrong_calls(db_path, tmp_path):
    with connect(db_path) as con:
        load(con, tmp_path, _rows("R1", "1", R1_1, ["Ana"] * 10))
    r = run("event", "rounds", "nope", "R1")
    assert r.exit_code == 1
    assert "no event 'nope' is loaded" in r.output
    r = run("event", "rounds", "ev", "R1", "r 01")
    assert r.exit_code == 2
    assert "listed twice" in r.output
    r = run("event", "rounds", "ev", "R1", "--clear")
    assert r.exit_code == 2
    with connect(db_path, read_only=True) as con:
        assert round_order.organiser_order(con, "ev") == []


def test_dashboard_newest_round_is_the_final(db_path, tmp_path):
    from streamlit.testing.v1 import AppTest

    from dashboard import data
    from tests.browser.support import APP

    rows = _tournament()
    rows += _rows("R3", "1", R2_1, ["Ana"] * 10)
    with connect(db_path) as con:
        load(con, tmp_path, rows)
    data.clear()
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    picker = at.selectbox(key="round")
    assert picker.options[-1] == "Final"
    assert "Terbaru (Final)" in picker.options[0]
    tabs = [str(getattr(e.proto, "label", "")) for e in at.get("tab")]
    assert any("Final" in label for label in tabs), tabs
    data.clear()


def test_listings_without_a_database_use_the_default_rule():
    df = pl.DataFrame(
        {"round": ["Final", "R10", None, "R2", "Semifinal"], "table": ["1", "2", "1", "10", "3"]}
    )
    assert queries._natural_sort(df, ["round", "table"], [])["round"].to_list() == [
        None,
        "R2",
        "R10",
        "Semifinal",
        "Final",
    ]
