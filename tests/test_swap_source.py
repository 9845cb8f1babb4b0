"""The swap schedule has one source, the ruleset's ``[draw] swaps``: the draw's seatings,
hand entry (``pipeline.entry.scheduled``) and the ``swap_schedule`` warning of a load all
read it. A ruleset file that moves other chairs moves all three."""

from pathlib import Path

import polars as pl
import pytest

from pipeline import rulesets
from pipeline.draws import seating
from pipeline.entry import scheduled
from tests.rules_helpers import hand, load

# A and B change places from hand 6 on, nobody else moves
CROSS = """
extends = "unhas"
name = "cross"
title = "Unhas with the A-B swap at half time"

[draw]
swaps = [
    { hands = [1, 5], chairs = "ABCD" },
    { hands = [6, 10], chairs = "BACD" },
]
"""

START = {"a": "Ana", "b": "Budi", "c": "Cici", "d": "Dedi"}


@pytest.fixture
def cross(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "rulesets"
    folder.mkdir()
    (folder / "cross.toml").write_text(CROSS, encoding="utf-8")
    monkeypatch.setenv("DOMINO_RULESETS", str(folder))
    return folder


def test_entry_follows_the_unhas_schedule_of_the_ruleset():
    book = rulesets.load("unhas")
    # Art. 1.14-1.15 by hand: hands 1-2 S, 3-6 A<->C, 7-10 A<->C and B<->D
    assert scheduled(START, 1, 2, book) == START
    assert scheduled(START, 1, 3, book) == {"a": "Cici", "b": "Budi", "c": "Ana", "d": "Dedi"}
    assert scheduled(START, 1, 10, book) == {"a": "Cici", "b": "Dedi", "c": "Ana", "d": "Budi"}
    # back from hand 7 to hand 1, and between two later hands
    h7 = {"a": "Cici", "b": "Dedi", "c": "Ana", "d": "Budi"}
    assert scheduled(h7, 7, 1, book, reverse=True) == START
    assert scheduled(h7, 7, 4, book) == {"a": "Cici", "b": "Budi", "c": "Ana", "d": "Dedi"}
    # a table of 3 (D empty) leaves the moving chair empty
    three = {"a": "Ana", "b": "Budi", "c": "Cici"}
    assert scheduled(three, 1, 8, book) == {"a": "Cici", "d": "Budi", "c": "Ana"}
    # a ruleset without swaps keeps the chairs
    assert scheduled(START, 1, 9, rulesets.load("pepet")) == START


def test_entry_and_the_draw_read_the_same_swaps(cross):
    book = rulesets.load("cross")
    assert scheduled(START, 1, 5, book) == START
    assert scheduled(START, 1, 6, book) == {"a": "Budi", "b": "Ana", "c": "Cici", "d": "Dedi"}
    drawn = seating.per_hand(
        {k.upper(): v for k, v in START.items()}, seating.swap_schedule(book.params)
    )
    for h in range(1, 11):
        want = {c.upper(): p for c, p in scheduled(START, 1, h, book).items()}
        assert {c: p for hh, c, p in drawn if hh == h} == want


def _match(ruleset: str, seats_of, rnd: str = "R1") -> list[dict]:
    rows = []
    for n in range(1, 11):
        seats = seats_of(n)
        rows.append(
            hand(n, "A", "biasa", seats=[seats[c] for c in "abcd"], ruleset=ruleset, round=rnd)
        )
    return rows


def test_the_load_warns_against_the_rulesets_own_schedule(cross, con, tmp_path):
    book = rulesets.load("cross")
    as_cross = load(con, tmp_path, _match("cross", lambda n: scheduled(START, 1, n, book)))
    assert as_cross.count("new") == 1
    assert not as_cross.problems.filter(pl.col("code") == "swap_schedule").height
    # seated as unhas would seat it: hands 3-5 differ in chairs A and C, 6-10 in A, B, C
    # (and D from hand 7), each a warning on its row; the match loads as recorded
    unhas = rulesets.load("unhas")
    other = load(
        con,
        tmp_path,
        _match("cross", lambda n: scheduled(START, 1, n, unhas), rnd="R2"),
        name="other.csv",
    )
    assert other.count("new") == 1
    warned = other.problems.filter(pl.col("code") == "swap_schedule")
    assert warned.select("line", "severity").rows() == [(n + 1, "warning") for n in range(3, 11)]
    assert warned["message"][0].startswith("hand 3: the seating in chair(s) A, C differs")
    assert warned["message"][3].startswith("hand 6: the seating in chair(s) A, B, C differs")
    assert warned["message"][4].startswith("hand 7: the seating in chair(s) A, B, C, D differs")


def test_chairs_of_a_hand_and_through_a_later_first_hand():
    unhas = seating.swap_schedule(rulesets.load("unhas").params)
    assert [seating.chairs_at(unhas, h) for h in (1, 2, 3, 6, 7, 10)] == [
        "ABCD", "ABCD", "CBAD", "CBAD", "CDAB", "CDAB"
    ]  # fmt: skip
    assert seating.chairs_at(unhas, 11) == "CDAB"  # a tie-break hand keeps hand 10's chairs
    assert seating.chairs_at([], 5) == "ABCD"
    # by hand: from hand 3 (C B A D) to hand 7 (C D A B), chair A holds the hand-3 A
    # player, B the hand-3 D player, C the hand-3 C player, D the hand-3 B player
    found = {(f, h): c for f, h, c in seating.sources(unhas, 10)}
    assert found[(3, 7)] == "ADCB"
    assert found[(1, 7)] == "CDAB" and found[(7, 10)] == "ABCD"
