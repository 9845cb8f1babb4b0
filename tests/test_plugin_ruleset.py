"""A third rulebook from a file in a folder of DOMINO_RULESETS, with no module touched.

``cup3`` extends ``unhas`` and changes two things: apollo is worth 10 to the winner (the
loser's -4 is inherited: tables merge key by key) and the top 3 of a table qualify.
The match below is loaded, scored, ranked, listed by the CLI and shown on the dashboard.

The match (chairs A-D start as Ana, Budi, Cici, Dedi; hands 3-6 swap A and C, hands 7-10
also B and D — RULES.md Art. 1.14-1.15):

- hand 1: Ana (chair A) goes out with apollo on 6-6: Ana +10, the player above A is
  Dedi (chair D): -4;
- hand 2: Budi (chair B) wins biasa: +2, above B is Ana: -1;
- hands 3-6: Budi (chair B) wins biasa: +2 each, above B is now Cici (chair A): -1 each;
- hands 7-10: Budi (now chair D) wins biasa: +2 each, above D is Ana (chair C): -1 each.

Totals: Budi 2 + 8 + 8 = 18, Ana 10 - 1 - 4 = 5, Cici -4, Dedi -4. Ranks 1, 2, 3, 3.
With 3 qualifiers Budi and Ana qualify; Cici and Dedi tie across the line (places 3-4
for 3 places), so neither qualifies and both need a tie-break hand. Under ``unhas``
(2 qualifiers) the same tie would lie wholly outside the line: no tie-break needed.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import data
from pipeline import rulesets
from pipeline.standings import queries
from pipeline.store.db import connect
from tests.browser.support import APP
from tests.rules_helpers import biasa_match, hand, write_log
from tests.test_dashboard import html_tables, texts

CUP3 = """
extends = "unhas"
name = "cup3"
title = "Cup with three qualifiers"
qualifiers_per_table = 3

[points.apollo]
winner = 10
"""


@pytest.fixture
def cup3(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "rulesets"
    folder.mkdir()
    (folder / "cup3.toml").write_text(CUP3, encoding="utf-8")
    monkeypatch.setenv("DOMINO_RULESETS", str(folder))
    return folder


def match_rows(ruleset: str) -> list[dict]:
    rows = biasa_match(["Ana"] + ["Budi"] * 9, event="cup", ruleset=ruleset)
    rows[0] = hand(1, "A", "apollo", last="6-6", event="cup", ruleset=ruleset)
    return rows


def domino(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, check=False
    )


def test_a_ruleset_file_extends_a_builtin_one_key_by_key(cup3):
    book = rulesets.load("cup3")
    assert book.title == "Cup with three qualifiers"
    assert book["qualifiers_per_table"] == 3
    assert book["points_apollo_winner"] == 10
    assert book["points_apollo_loser"] == -4  # inherited from unhas
    assert book.endings == rulesets.load("unhas").endings
    assert "cup3" in rulesets.names()


def test_a_third_rulebook_loads_scores_ranks_and_lists(cup3, db_path, tmp_path):
    log = write_log(tmp_path, match_rows("cup3"), "cup.csv")
    done = domino("ingest", str(log))
    assert done.returncode == 0, done.stdout + done.stderr
    with connect(db_path, read_only=True) as con:
        points = dict(
            con.execute(
                "SELECT player, points FROM hand_points WHERE event = 'cup' AND hand = 1 AND points <> 0"
            ).fetchall()
        )
        table = queries.standings(con, "cup", "table")
        event = queries.standings(con, "cup", "event")
    assert points == {"Ana": 10, "Dedi": -4}
    rows = {
        r["player"]: (r["points"], r["rank"], r["qualified"], r["needs_tiebreak"])
        for r in table.to_dicts()
    }
    assert rows == {
        "Budi": (18, 1, True, False),
        "Ana": (5, 2, True, False),
        "Cici": (-4, 3, False, True),
        "Dedi": (-4, 3, False, True),
    }
    assert event.columns[:4] == ["event", "player", "points", "rank"]
    # event standings by the unhas models' rule (round reached, table rank, points)
    assert [
        (r["player"], r["points"], r["rank"], r["round_reached"], r["table_rank"])
        for r in event.to_dicts()
    ] == [
        ("Budi", 18, 1, "R1", 1),
        ("Ana", 5, 2, "R1", 2),
        ("Cici", -4, 3, "R1", 3),
        ("Dedi", -4, 3, "R1", 3),
    ]
    listed = domino("standings", "--event", "cup", "--level", "table", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    assert {r["player"]: r["qualified"] for r in json.loads(listed.stdout)} == {
        "Budi": True,
        "Ana": True,
        "Cici": False,
        "Dedi": False,
    }


def test_the_same_match_under_unhas_differs_where_the_file_says(cup3, db_path, tmp_path):
    log = write_log(tmp_path, match_rows("unhas"), "cup.csv")
    assert domino("ingest", str(log)).returncode == 0
    with connect(db_path, read_only=True) as con:
        table = queries.standings(con, "cup", "table")
    rows = {r["player"]: (r["points"], r["needs_tiebreak"]) for r in table.to_dicts()}
    assert rows == {
        "Budi": (18, False),
        "Ana": (1, False),
        "Cici": (-4, False),
        "Dedi": (-4, False),
    }


def test_the_dashboard_shows_a_third_rulebook(cup3, db_path, tmp_path, monkeypatch):
    log = write_log(tmp_path, match_rows("cup3"), "cup.csv")
    assert domino("ingest", str(log)).returncode == 0
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    data.clear()
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["event"] = "cup"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    text = texts(at)
    assert "Zona lolos: 3 teratas" in text  # the file's qualifiers, not unhas's 2
    assert "10/10 kocokan" in text  # the table card's caption
    cards = html_tables(at).tables  # the table cards: the players as they read
    players = {row[1] for t in cards if t["head"][:2] == ["#", "Pemain"] for row in t["rows"]}
    assert {"Ana", "Budi", "Cici", "Dedi"} <= players
    # two qualified, and the tie for the third place (in the file's zone of 3, outside
    # unhas's 2) asks for a tie-break hand
    marks = {row[1]: row[-1] for t in cards if t["head"][-1] == "Zona" for row in t["rows"]}
    assert "lolos" in marks["Budi"] and "lolos" in marks["Ana"], marks
    assert "tie-break" in marks["Cici"] and "tie-break" in marks["Dedi"], marks
    data.clear()


def test_a_broken_ruleset_file_is_one_sentence_and_exit_2(cup3, db_path, tmp_path):
    log = write_log(tmp_path, match_rows("cup3"), "cup.csv")
    assert domino("ingest", str(log)).returncode == 0
    with connect(db_path, read_only=True) as con:
        before = con.execute("SELECT count(*) FROM hand_points_t").fetchall()[0][0]
    (cup3 / "cup3.toml").write_text(
        CUP3.replace("qualifiers_per_table = 3", 'qualifiers_per_table = "x"')
    )
    for args in (("ingest", str(log)), ("standings", "--event", "cup")):
        done = domino(*args)
        assert done.returncode == 2, args
        assert "cup3.toml: qualifiers_per_table = 'x' must be a whole number" in done.stderr
        assert "Traceback" not in done.stderr
    (cup3 / "cup3.toml").write_text("[points\n")
    done = domino("standings", "--event", "cup")
    assert done.returncode == 2
    assert "cup3.toml: is not a valid TOML file" in done.stderr and "Traceback" not in done.stderr
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM hand_points_t").fetchall()[0][0] == before


def test_code_never_tests_a_ruleset_name():
    """Ruleset names appear only in ruleset files, tests and data (issue: rulebooks as data)."""
    root = Path(__file__).resolve().parent.parent
    found = subprocess.run(
        ["grep", "-rn", "--include=*.py", '"unhas"\\|"pepet"', "pipeline", "dashboard"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.splitlines()
    assert [line for line in found if not line.startswith("pipeline/rulesets/")] == []


def test_an_unknown_ruleset_folder_is_one_sentence(monkeypatch, tmp_path):
    monkeypatch.setenv("DOMINO_RULESETS", str(tmp_path / "missing"))
    with pytest.raises(
        rulesets.BadRuleset, match="DOMINO_RULESETS names .*missing, which is not a folder"
    ):
        rulesets.names()
