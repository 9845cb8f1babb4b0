"""Golden tests for ruleset ``unhas`` (RULES.md, seed 000): one per row of the Art. 2 table
and per decision, expected points worked out by hand in the comments.

Every test writes a tiny hand log, loads it through :func:`pipeline.ingest.ingest` into a
fresh DuckDB file and reads the public views. Unless a test says otherwise the seating
is Ana (A), Budi (B), Cici (C), Dedi (D); play goes A→B→C→D→A, so the player *above*
B is Ana, above C Budi, above D Cici and above A Dedi.
"""

import re
from pathlib import Path

import pytest

from pipeline import problems, rulesets
from pipeline.scoring.rescore import rescore, stale_events
from tests.rules_helpers import (
    SEATS,
    biasa_match,
    hand,
    hand_rows,
    load,
    modified,
    scheduled,
    statuses,
    table_rows,
)

OTHERS = ("Eko", "Fajar", "Gita", "Hadi")


def one_hand(con, tmp_path, row) -> dict[str, tuple[str, int]]:
    plan = load(con, tmp_path, [row])
    assert plan.errors.height == 0, plan.errors.to_dicts()
    return hand_rows(con, row["hand"], table=row["table"], round=row["round"], event=row["event"])


# --- Art. 2: one golden case per row of the table ----------------------------------------------


@pytest.mark.parametrize("ending", ["apollo", "palang"])
def test_apollo_winner_plus6_player_above_minus4(con, tmp_path, ending):
    # Budi (B) goes out with the double 6-6: Budi +6; the player above B is Ana (A): -4.
    got = one_hand(con, tmp_path, hand(1, "B", ending, last="6-6"))
    assert got == {"Budi": ("apollo", 6), "Ana": ("above", -4), "Cici": ("-", 0), "Dedi": ("-", 0)}


def test_ceki_winner_plus4_player_above_minus3(con, tmp_path):
    # Cici (C) goes out with the non-double 5-3: Cici +4; above C is Budi: -3.
    got = one_hand(con, tmp_path, hand(1, "C", "ceki", last="5-3"))
    assert got == {"Cici": ("ceki", 4), "Budi": ("above", -3), "Ana": ("-", 0), "Dedi": ("-", 0)}


def test_kandang_blocker_strictly_lowest_wins_plus3_above_minus2(con, tmp_path):
    # Dedi (D) blocks with 5 pips; the others hold 10, 12, 8: 5 < 8, so Dedi wins +3;
    # the player above D is Cici: -2.
    got = one_hand(con, tmp_path, hand(1, "D", "kandang", pips=(10, 12, 8, 5)))
    assert got == {"Dedi": ("kandang", 3), "Cici": ("above", -2), "Ana": ("-", 0), "Budi": ("-", 0)}


def test_tangkap_kandang_lower_one_catcher_plus4_blocker_minus3(con, tmp_path):
    # Dedi blocks with 9; Budi holds 7 < 9: Budi catches, +4; the blocker -3. Cici, above
    # the blocker, is not involved in a catch: 0.
    got = one_hand(con, tmp_path, hand(1, "D", "kandang", pips=(10, 7, 12, 9)))
    assert got == {
        "Budi": ("tangkap", 4),
        "Dedi": ("caught", -3),
        "Ana": ("-", 0),
        "Cici": ("-", 0),
    }


def test_tangkap_kandang_equal_one_catcher_plus2_blocker_minus2(con, tmp_path):
    # Dedi blocks with 8; Ana also holds 8 (the lowest of the others): equal catch, Ana +2,
    # the blocker -2.
    got = one_hand(con, tmp_path, hand(1, "D", "kandang", pips=(8, 10, 11, 8)))
    assert got == {
        "Ana": ("tangkap", 2),
        "Dedi": ("caught", -2),
        "Budi": ("-", 0),
        "Cici": ("-", 0),
    }


@pytest.mark.parametrize(
    ("split", "pips", "catchers", "share", "blocker"),
    [
        # lower, 2 catchers (Ana, Budi 7 < 9): halve 4 // 2 = 2 each; blocker -3
        ("halve", (7, 7, 12, 9), "Ana Budi", 2, -3),
        # even: 4 / 2 catchers = 2 each
        ("even", (7, 7, 12, 9), "Ana Budi", 2, -3),
        # lower, 3 catchers (6, 6, 6 < 9): halve 4 // 2 = 2 each; blocker -3 (not divided)
        ("halve", (6, 6, 6, 9), "Ana Budi Cici", 2, -3),
        # even: 4 / 3 = 1.33, rounded half up: 1 each
        ("even", (6, 6, 6, 9), "Ana Budi Cici", 1, -3),
        # equal, 2 catchers (8, 8 = 8): halve 2 // 2 = 1 each; blocker -2
        ("halve", (8, 8, 11, 8), "Ana Budi", 1, -2),
        # even: 2 / 2 = 1 each
        ("even", (8, 8, 11, 8), "Ana Budi", 1, -2),
        # equal, 3 catchers: halve 2 // 2 = 1 each; blocker -2
        ("halve", (8, 8, 8, 8), "Ana Budi Cici", 1, -2),
        # even: 2 / 3 = 0.67, rounded half up (and at least 1): 1 each
        ("even", (8, 8, 8, 8), "Ana Budi Cici", 1, -2),
    ],
    ids=[
        "lower2-halve",
        "lower2-even",
        "lower3-halve",
        "lower3-even",
        "equal2-halve",
        "equal2-even",
        "equal3-halve",
        "equal3-even",
    ],  # fmt: skip
)
def test_tangkap_kandang_several_catchers(
    con, tmp_path, ruleset_override, split, pips, catchers, share, blocker
):
    ruleset_override("unhas", modified("unhas", catcher_split=split))
    expected = {p: ("tangkap", share) if p in catchers.split() else ("-", 0) for p in SEATS[:3]}
    expected["Dedi"] = ("caught", blocker)
    assert one_hand(con, tmp_path, hand(1, "D", "kandang", pips=pips)) == expected


def test_catchers_are_only_the_players_at_the_lowest_pips(con, tmp_path):
    # Dedi blocks with 9. Ana 6 is the lowest of the others: only Ana catches (lower, +4).
    # Budi (8 < 9) and Cici (9 = 9) are not at the lowest: 0. Blocker -3.
    got = one_hand(con, tmp_path, hand(1, "D", "kandang", pips=(6, 8, 9, 9)))
    assert got == {
        "Ana": ("tangkap", 4),
        "Budi": ("-", 0),
        "Cici": ("-", 0),
        "Dedi": ("caught", -3),
    }


def test_biasa_winner_plus2_player_above_minus1(con, tmp_path):
    # Ana (A) goes out with 5-3 (not ceki): +2; above A is Dedi: -1.
    got = one_hand(con, tmp_path, hand(1, "A", "biasa", last="5-3"))
    assert got == {"Ana": ("biasa", 2), "Dedi": ("above", -1), "Budi": ("-", 0), "Cici": ("-", 0)}


@pytest.mark.parametrize("ending", ["all_doubles", "balak"])
def test_all_doubles_wins_biasa(con, tmp_path, ending):
    # Cici (C) was dealt seven doubles: wins "biasa" without play, +2; above C is Budi: -1.
    got = one_hand(con, tmp_path, hand(1, "C", ending))
    assert got == {"Cici": ("biasa", 2), "Budi": ("above", -1), "Ana": ("-", 0), "Dedi": ("-", 0)}


# --- "above" comes from the seating of that hand -------------------------------------------------


def test_above_at_three_player_table_skips_empty_chair(con, tmp_path):
    # D empty: the order is A→B→C→A, so above A is C. Ana apollo +6, Cici -4.
    got = one_hand(
        con, tmp_path, hand(1, "A", "apollo", seats=("Ana", "Budi", "Cici", None), last="4-4")
    )
    assert got == {"Ana": ("apollo", 6), "Cici": ("above", -4), "Budi": ("-", 0)}


def test_above_at_three_player_table_with_empty_b(con, tmp_path):
    # B empty: above C is A. Cici ceki +4, Ana -3. Then a kandang: Ana blocks with 3
    # (Cici 7, Dedi 9): Ana +3, and above A is D: Dedi -2.
    seats = ("Ana", None, "Cici", "Dedi")
    rows = [
        hand(1, "C", "ceki", seats=seats, last="6-2"),
        hand(2, "A", "kandang", seats=seats, pips={"A": 3, "C": 7, "D": 9}),
    ]
    assert load(con, tmp_path, rows).errors.height == 0
    assert hand_rows(con, 1) == {"Cici": ("ceki", 4), "Ana": ("above", -3), "Dedi": ("-", 0)}
    assert hand_rows(con, 2) == {"Ana": ("kandang", 3), "Dedi": ("above", -2), "Cici": ("-", 0)}


def test_above_follows_the_swaps(con, tmp_path):
    # Hands 1-2 Ana Budi Cici Dedi; 3-6 Cici Budi Ana Dedi (A<->C); 7-10 Cici Dedi Ana Budi
    # (also B<->D). The order of play reverses in 3-6 and comes back in 7-10.
    winners = ["Budi", "Ana", "Budi", "Ana", "Cici", "Dedi", "Budi", "Ana", "Cici", "Dedi"]
    assert load(con, tmp_path, biasa_match(winners)).problems.height == 0
    # h1: Budi in B, above B = A = Ana
    assert hand_rows(con, 1) == {
        "Budi": ("biasa", 2),
        "Ana": ("above", -1),
        "Cici": ("-", 0),
        "Dedi": ("-", 0),
    }
    # h2: Ana in A, above A = D = Dedi
    assert hand_rows(con, 2) == {
        "Ana": ("biasa", 2),
        "Dedi": ("above", -1),
        "Budi": ("-", 0),
        "Cici": ("-", 0),
    }
    # h3: Budi in B, above B = A = Cici (no longer Ana)
    assert hand_rows(con, 3) == {
        "Budi": ("biasa", 2),
        "Cici": ("above", -1),
        "Ana": ("-", 0),
        "Dedi": ("-", 0),
    }
    # h4: Ana in C, above C = B = Budi (reversed: in h1-2 Ana was above Budi)
    assert hand_rows(con, 4) == {
        "Ana": ("biasa", 2),
        "Budi": ("above", -1),
        "Cici": ("-", 0),
        "Dedi": ("-", 0),
    }
    # h7: Budi in D, above D = C = Ana (restored)
    assert hand_rows(con, 7) == {
        "Budi": ("biasa", 2),
        "Ana": ("above", -1),
        "Cici": ("-", 0),
        "Dedi": ("-", 0),
    }
    # h8: Ana in C, above C = B = Dedi (restored)
    assert hand_rows(con, 8) == {
        "Ana": ("biasa", 2),
        "Dedi": ("above", -1),
        "Budi": ("-", 0),
        "Cici": ("-", 0),
    }


def test_three_player_table_follows_the_schedule_with_its_empty_chair(con, tmp_path):
    # D empty at the start: hands 3-6 Cici Budi Ana -; hands 7-10 Cici - Ana Budi (Budi
    # moves from B to the empty D). Budi wins hands 1, 3 and 7; nothing warns.
    winners = ["Budi", "Ana", "Budi", "Ana", "Ana", "Ana", "Budi", "Ana", "Ana", "Ana"]
    plan = load(con, tmp_path, biasa_match(winners, start=("Ana", "Budi", "Cici", None)))
    assert plan.problems.height == 0
    # h1: Budi (B), above B = A = Ana
    assert hand_rows(con, 1) == {"Budi": ("biasa", 2), "Ana": ("above", -1), "Cici": ("-", 0)}
    # h3: Budi (B), above B = A = Cici
    assert hand_rows(con, 3) == {"Budi": ("biasa", 2), "Cici": ("above", -1), "Ana": ("-", 0)}
    # h7: Budi (D), above D = C = Ana (B is empty now and skipped from A's side)
    assert hand_rows(con, 7) == {"Budi": ("biasa", 2), "Ana": ("above", -1), "Cici": ("-", 0)}
    # h8: Ana (C), above C = A = Cici (B empty, skipped)
    assert hand_rows(con, 8) == {"Ana": ("biasa", 2), "Cici": ("above", -1), "Budi": ("-", 0)}


def test_recorded_seating_is_the_truth_and_a_swap_mismatch_warns(con, tmp_path):
    # Hand 3 recorded without the A<->C swap: a warning naming hand 3 and chairs A, C; the
    # match loads and "above" follows the recorded seating: above Budi (B) is Ana (A).
    rows = [hand(1, "A", "biasa"), hand(2, "A", "biasa"), hand(3, "B", "biasa")]
    plan = load(con, tmp_path, rows)
    assert statuses(plan) == {"1": "new"}
    w = plan.warnings.to_dicts()
    assert [(p["code"], p["line"], p["column"]) for p in w] == [("swap_schedule", 4, "player_a")]
    assert "hand 3" in w[0]["message"] and "chair(s) A, C" in w[0]["message"]
    assert problems.describe(w[0]).startswith("hands.csv:4 player_a: hand 3:")
    assert hand_rows(con, 3) == {
        "Budi": ("biasa", 2),
        "Ana": ("above", -1),
        "Cici": ("-", 0),
        "Dedi": ("-", 0),
    }


def test_swap_warning_names_b_and_d_when_hand_7_misses_its_swap(con, tmp_path):
    # Hands 1-6 as scheduled; hand 7 keeps the hands 3-6 seating (B and D not swapped).
    rows = biasa_match(["Ana"] * 6) + [hand(7, "C", "biasa", seats=scheduled(SEATS, 3))]
    plan = load(con, tmp_path, rows)
    assert statuses(plan) == {"1": "new"}
    w = plan.warnings.to_dicts()
    assert [(p["code"], p["line"]) for p in w] == [("swap_schedule", 8)]
    assert "hand 7" in w[0]["message"] and "chair(s) B, D" in w[0]["message"]


# --- Art. 3: sanctions ---------------------------------------------------------------------


def test_sanctions_warn_free_once_per_player_then_minus1_show_wrong_minus1(con, tmp_path):
    seats3 = scheduled(SEATS, 3)  # Cici Budi Ana Dedi
    rows = [
        # h1: Dedi biasa +2, Cici (above D) -1. Ana's 1st warn: free. Cici "warn;warn":
        # 1st free, 2nd -1 -> Cici -1 - 1 = -2.
        hand(1, "D", "biasa", sanctions={"A": "warn", "C": "warn;warn"}),
        # h2: Dedi +2, Cici -1. Ana's 2nd warn -1; Budi's 1st warn free; Dedi show -1 -> 2 - 1 = 1.
        hand(2, "D", "biasa", sanctions={"A": "warn", "B": "warn", "D": "show"}),
        # h3 (A<->C): Dedi (D) +2, above D = C = Ana -1. Ana (now chair C) 3rd warn -1 -> -2:
        # warnings follow the player, not the chair. Cici (chair A) wrong -1; Budi show;wrong -2.
        hand(
            3, "D", "biasa", seats=seats3, sanctions={"C": "warn", "A": "wrong", "B": "show;wrong"}
        ),
    ]
    assert load(con, tmp_path, rows).errors.height == 0
    assert hand_rows(con, 1) == {
        "Ana": ("-", 0),
        "Budi": ("-", 0),
        "Cici": ("above", -2),
        "Dedi": ("biasa", 2),
    }
    assert hand_rows(con, 2) == {
        "Ana": ("-", -1),
        "Budi": ("-", 0),
        "Cici": ("above", -1),
        "Dedi": ("biasa", 1),
    }
    assert hand_rows(con, 3) == {
        "Ana": ("above", -2),
        "Budi": ("-", -2),
        "Cici": ("-", -1),
        "Dedi": ("biasa", 2),
    }
    sanc = con.sql(
        "SELECT player, list(sanction_points ORDER BY hand) AS s FROM hand_points GROUP BY player"
    ).pl()
    assert dict(sanc.iter_rows()) == {
        "Ana": [0, -1, -1],
        "Budi": [0, 0, -2],
        "Cici": [-1, 0, -1],
        "Dedi": [0, -1, 0],
    }
    # totals: Ana 0 - 1 - 2 = -3; Budi 0 + 0 - 2 = -2; Cici -2 - 1 - 1 = -4; Dedi 2 + 1 + 2 = 5
    assert {p: r["points"] for p, r in table_rows(con).items()} == {
        "Ana": -3,
        "Budi": -2,
        "Cici": -4,
        "Dedi": 5,
    }


def test_warnings_are_counted_per_match(con, tmp_path):
    # Ana warned once in R1 and once in R2: each is her first in its match, both free.
    rows = [
        hand(1, "B", "biasa", sanctions={"A": "warn"}),
        hand(1, "B", "biasa", sanctions={"A": "warn"}, round="R2"),
    ]
    assert load(con, tmp_path, rows).errors.height == 0
    # Budi +2, Ana (above B) -1 and no sanction, in both rounds
    assert hand_rows(con, 1)["Ana"] == ("above", -1)
    assert hand_rows(con, 1, round="R2")["Ana"] == ("above", -1)


def test_sanction_on_the_winner_is_folded_into_its_points(con, tmp_path):
    # Budi apollo +6 but played a wrong tile (-1): 6 - 1 = 5. Ana above -4 and showed -1: -5.
    got = one_hand(
        con, tmp_path, hand(1, "B", "apollo", last="2-2", sanctions={"B": "wrong", "A": "show"})
    )
    assert got == {"Budi": ("apollo", 5), "Ana": ("above", -5), "Cici": ("-", 0), "Dedi": ("-", 0)}


# --- Art. 2.12-2.13: ranks, qualification, tie-break hands ---------------------------------

# Straddle: a complete match, all "biasa" (winner +2, player above -1), seated by schedule.
#  h1 Ana +2 Dedi -1 | h2 Ana +2 Dedi -1 | h3 Cici(A) +2 Dedi(D) -1 | h4, h5 the same
#  h6 Budi(B) +2 Cici(A) -1 | h7 Dedi(B) +2 Cici(A) -1 | h8, h9 the same
#  h10 Ana(C) +2 Dedi(B) -1
#  Ana 2+2+2 = 6; Budi 2; Cici 3*2 - 4*1 = 2; Dedi 3*2 - 6*1 = 0  -> Budi and Cici tie at 2-3
STRADDLE = ["Ana", "Ana", "Cici", "Cici", "Cici", "Budi", "Dedi", "Dedi", "Dedi", "Ana"]
# Top: h1, h2 Ana (Dedi -1); h3-h5 Cici (Dedi -1); h6 Budi (Cici -1); h7, h8 Ana in C
# (above = B = Dedi -1); h9, h10 Budi in D (above = C = Ana -1).
#  Ana 4*2 - 2 = 6; Budi 3*2 = 6; Cici 3*2 - 1 = 5; Dedi -7  -> Ana and Budi tie at 1
TOP = ["Ana", "Ana", "Cici", "Cici", "Cici", "Budi", "Ana", "Ana", "Budi", "Budi"]
# Low: h1, h2 Ana (Dedi -1); h3, h4 Cici (Dedi -1); h5, h6 Budi (Cici -1); h7, h8 Dedi in B
# (Cici -1); h9, h10 Budi in D (Ana -1).
#  Ana 4 - 2 = 2; Budi 8; Cici 4 - 4 = 0; Dedi -4 + 4 = 0  -> Cici and Dedi tie at 3-4
LOW = ["Ana", "Ana", "Cici", "Cici", "Budi", "Budi", "Dedi", "Dedi", "Budi", "Budi"]


def standing(con, **where) -> dict[str, tuple[int, int, bool, bool]]:
    """{player: (points, rank, qualified, needs_tiebreak)}"""
    return {
        p: (r["points"], r["rank"], r["qualified"], r["needs_tiebreak"])
        for p, r in table_rows(con, **where).items()
    }


def test_tie_straddling_the_qualification_line_then_hand_11_orders_it(con, tmp_path):
    assert statuses(load(con, tmp_path, biasa_match(STRADDLE))) == {"1": "new"}
    # Ranks 1, 2, 2, 4: the tied group (ranks 2-3) straddles the line (2 qualify).
    assert standing(con) == {
        "Ana": (6, 1, True, False),
        "Budi": (2, 2, False, True),
        "Cici": (2, 2, False, True),
        "Dedi": (0, 4, False, False),
    }
    # Hand 11 seats only Budi (A) and Cici (B): Cici biasa +2, above B = A = Budi -1.
    tb = hand(11, "B", "biasa", seats=("Budi", "Cici", None, None))
    plan = load(con, tmp_path, [*biasa_match(STRADDLE), tb], name="with-11.csv")
    assert statuses(plan) == {"1": "update"}
    assert hand_rows(con, 11) == {"Cici": ("biasa", 2), "Budi": ("above", -1)}
    # Totals unchanged (tie-break points do not count); Cici ahead on tie-break points.
    assert standing(con) == {
        "Ana": (6, 1, True, False),
        "Cici": (2, 2, True, False),
        "Budi": (2, 3, False, False),
        "Dedi": (0, 4, False, False),
    }
    tbp = {p: r["tiebreak_points"] for p, r in table_rows(con).items()}
    assert tbp == {"Ana": 0, "Budi": -1, "Cici": 2, "Dedi": 0}


def test_tie_at_rank_one_needs_tiebreak(con, tmp_path):
    load(con, tmp_path, biasa_match(TOP))
    # Ana and Budi share rank 1: both within the top 2, so both qualify; the first place
    # is still undecided -> needs_tiebreak.
    assert standing(con) == {
        "Ana": (6, 1, True, True),
        "Budi": (6, 1, True, True),
        "Cici": (5, 3, False, False),
        "Dedi": (-7, 4, False, False),
    }


def test_tie_below_the_line_needs_no_tiebreak(con, tmp_path):
    load(con, tmp_path, biasa_match(LOW))
    assert standing(con) == {
        "Budi": (8, 1, True, False),
        "Ana": (2, 2, True, False),
        "Cici": (0, 3, False, False),
        "Dedi": (0, 3, False, False),
    }


def test_tiebreak_hands_11_and_12_add_up_in_order_only(con, tmp_path):
    # TOP ties Ana and Budi at 6. h11 (Ana A, Budi B): Budi biasa +2, Ana (above B) -1.
    # h12: Ana apollo +6, Budi (above A, the other seated chair) -4.
    # Tie-break points: Ana -1 + 6 = 5, Budi 2 - 4 = -2 -> Ana rank 1, Budi 2; totals stay 6.
    seats = ("Ana", "Budi", None, None)
    rows = [
        *biasa_match(TOP),
        hand(11, "B", "biasa", seats=seats),
        hand(12, "A", "apollo", seats=seats, last="1-1"),
    ]
    assert statuses(load(con, tmp_path, rows)) == {"1": "new"}
    assert standing(con) == {
        "Ana": (6, 1, True, False),
        "Budi": (6, 2, True, False),
        "Cici": (5, 3, False, False),
        "Dedi": (-7, 4, False, False),
    }
    assert {
        p: r["tiebreak_points"] for p, r in table_rows(con).items() if p in ("Ana", "Budi")
    } == {"Ana": 5, "Budi": -2}
    tb = con.sql("SELECT DISTINCT hand, tiebreak FROM hand_points ORDER BY hand").fetchall()
    assert tb[-3:] == [(10, False), (11, True), (12, True)]


def test_free_warning_in_a_tiebreak_hand(con, tmp_path):
    # STRADDLE + h11 (Budi A, Cici B), Cici wins +2, Budi -1, and Budi gets his first
    # warning in h11: free, so totals stay tied (2, 2) and h11 orders them.
    rows = [
        *biasa_match(STRADDLE),
        hand(11, "B", "biasa", seats=("Budi", "Cici", None, None), sanctions={"A": "warn"}),
    ]
    assert statuses(load(con, tmp_path, rows)) == {"1": "new"}
    assert hand_rows(con, 11) == {"Cici": ("biasa", 2), "Budi": ("above", -1)}
    assert standing(con)["Cici"] == (2, 2, True, False)
    assert standing(con)["Budi"] == (2, 3, False, False)


def test_warning_in_a_tiebreak_hand_counts_toward_the_match(con, tmp_path):
    # STRADDLE; Cici's first warning in h6 is free. h11 (Budi A, Cici B): Cici biasa +2 but
    # warned again: her 2nd warning of the match -> -1, so h11 gives her 2 - 1 = 1.
    # Total = regular hands + every sanction: Cici 2 - 1 = 1, Budi 2 -> Budi is 2nd
    # although Cici won the tie-break hand (tie-break points: Cici 2, Budi -1).
    rows = biasa_match(STRADDLE)
    rows[5]["sanctions_a"] = "warn"  # h6: Cici sits in A
    rows.append(hand(11, "B", "biasa", seats=("Budi", "Cici", None, None), sanctions={"B": "warn"}))
    assert statuses(load(con, tmp_path, rows)) == {"1": "new"}
    assert hand_rows(con, 6)["Cici"] == ("above", -1)
    assert hand_rows(con, 11) == {"Cici": ("biasa", 1), "Budi": ("above", -1)}
    assert standing(con) == {
        "Ana": (6, 1, True, False),
        "Budi": (2, 2, True, False),
        "Cici": (1, 3, False, False),
        "Dedi": (0, 4, False, False),
    }


def test_tiebreak_points_count_true_adds_them_to_totals(con, tmp_path, ruleset_override):
    ruleset_override("unhas", modified("unhas", tiebreak_points_count=True))
    # STRADDLE + h11: Cici +2, Budi -1 now added: Cici 2 + 2 = 4, Budi 2 - 1 = 1.
    rows = [*biasa_match(STRADDLE), hand(11, "B", "biasa", seats=("Budi", "Cici", None, None))]
    assert statuses(load(con, tmp_path, rows)) == {"1": "new"}
    assert standing(con) == {
        "Ana": (6, 1, True, False),
        "Cici": (4, 2, True, False),
        "Budi": (1, 3, False, False),
        "Dedi": (0, 4, False, False),
    }


def test_qualified_only_once_the_match_is_complete(con, tmp_path):
    # LOW after 9 hands: Ana 2+2-1 = 3 (h10's -1 not yet), Budi 6, Cici 0, Dedi 0.
    plan = load(con, tmp_path, biasa_match(LOW[:9]))
    assert statuses(plan) == {"1": "new"}
    assert standing(con) == {
        "Budi": (6, 1, False, False),
        "Ana": (3, 2, False, False),
        "Cici": (0, 3, False, False),
        "Dedi": (0, 3, False, False),
    }
    # Hand 10 arrives (an update): Budi 8, Ana 2 -> both qualify now.
    assert statuses(load(con, tmp_path, biasa_match(LOW), name="all.csv")) == {"1": "update"}
    assert standing(con)["Budi"] == (8, 1, True, False)
    assert standing(con)["Ana"] == (2, 2, True, False)


def test_provisional_tie_is_flagged_but_nobody_qualifies(con, tmp_path):
    # h1: Ana (A) +2, Dedi -1. h2: Budi (B) +2, Ana -1. -> Budi 2, Ana 1, Cici 0, Dedi -1
    rows = [hand(1, "A", "biasa"), hand(2, "B", "biasa")]
    load(con, tmp_path, rows)
    assert standing(con) == {
        "Budi": (2, 1, False, False),
        "Ana": (1, 2, False, False),
        "Cici": (0, 3, False, False),
        "Dedi": (-1, 4, False, False),
    }
    # h3 (A<->C: Cici Budi Ana Dedi): Cici (A) +2, Dedi (D) -1 -> Budi 2, Cici 2: tied at 1.
    load(con, tmp_path, [*rows, hand(3, "A", "biasa", seats=scheduled(SEATS, 3))], name="3.csv")
    assert standing(con) == {
        "Budi": (2, 1, False, True),
        "Cici": (2, 1, False, True),
        "Ana": (1, 3, False, False),
        "Dedi": (-2, 4, False, False),
    }


# --- Art. 4.3: walkovers ---------------------------------------------------------------------


def test_walkover_players_advance_with_rank_1(con, tmp_path):
    rows = [
        hand(None, None, "wo", seats=("Ana", "Budi", None, None), table="1"),
        hand(None, None, "wo", seats=(None, None, "Eko", None), table="2"),
    ]
    assert statuses(load(con, tmp_path, rows)) == {"1": "new", "2": "new"}
    assert standing(con, table="1") == {"Ana": (0, 1, True, False), "Budi": (0, 1, True, False)}
    assert standing(con, table="2") == {"Eko": (0, 1, True, False)}
    assert con.execute("SELECT count(*) FROM hand_points").fetchone() == (0,)


# --- event standings across rounds ------------------------------------------------------------


def test_event_standings_later_round_then_table_rank_then_points(con, tmp_path):
    rows = [
        # R2 table 1: Ana (A) apollo +6, above A = Dedi -4 -> Ana 6 r1; Budi 0, Cici 0 r2; Dedi -4 r4
        hand(1, "A", "apollo", last="6-6", round="R2", table="1"),
        # R2 table 2: Fajar (B) biasa +2, Eko (A) -1 -> Fajar 2 r1; Gita, Hadi 0 r2; Eko -1 r4
        hand(1, "B", "biasa", seats=OTHERS, round="R2", table="2"),
        # R10 table 1 (Eko, Dedi, Fajar, Cici): Eko (A) ceki +4, above A = D = Cici -3
        #  -> Eko 4 r1; Dedi 0, Fajar 0 r2; Cici -3 r4
        hand(
            1,
            "A",
            "ceki",
            last="5-3",
            seats=("Eko", "Dedi", "Fajar", "Cici"),
            round="R10",
            table="1",
        ),
    ]
    assert load(con, tmp_path, rows).errors.height == 0
    got = {
        r[0]: r[1:]
        for r in con.execute(
            "SELECT player, rank, points, round_reached, table_rank FROM event_standings"
        ).fetchall()
    }
    # R10 (reached by Eko, Dedi, Fajar, Cici) before R2, though "R10" < "R2" as text.
    # Within R10: table rank first (Cici r4 behind Dedi r2 though -3 > -4), then points:
    #  Fajar 2 + 0 = 2 ahead of Dedi -4 + 0 = -4.  Then R2: Ana (r1), then Budi, Gita, Hadi
    #  (all r2, 0 points) share rank 6.
    assert got == {
        "Eko": (1, -1 + 4, "R10", 1),
        "Fajar": (2, 2 + 0, "R10", 2),
        "Dedi": (3, -4 + 0, "R10", 2),
        "Cici": (4, 0 - 3, "R10", 4),
        "Ana": (5, 6, "R2", 1),
        "Budi": (6, 0, "R2", 2),
        "Gita": (6, 0, "R2", 2),
        "Hadi": (6, 0, "R2", 2),
    }


# --- ruleset-specific validation: the whole match stays out, the other one loads ----------------

GOOD = [hand(1, "B", "apollo", last="6-6"), hand(2, "A", "biasa")]  # table 1: lines 2-3


def AS_OTHERS(winners):  # noqa: N802 - the same match played by Eko, Fajar, Gita, Hadi
    return [OTHERS[SEATS.index(w)] for w in winners]


def t2(n, by, ending, **kw):
    return hand(n, by, ending, seats=kw.pop("seats", OTHERS), table="2", **kw)


BAD_CASES = {
    # id: (table 2 rows (from line 4), code, line(s), column, words in the message)
    "kandang-missing-pips": (
        [t2(1, "A", "biasa"), t2(2, "B", "kandang", pips={"A": 5, "B": 3, "D": 9})],
        "missing_pips",
        5,
        "pips_c",
        ["kandang", "chair C (Gita)"],
    ),
    "apollo-not-double": (
        [t2(1, "A", "apollo", last="5-3")],
        "apollo_not_double",
        4,
        "last_tile",
        ["5-3"],
    ),
    "ceki-with-a-double": (
        [t2(1, "A", "ceki", last="4-4")],
        "double_not_apollo",
        4,
        "last_tile",
        ["4-4", "ceki"],
    ),
    "biasa-with-a-double": (
        [t2(1, "A", "biasa", last="2|2")],
        "double_not_apollo",
        4,
        "last_tile",
        ["2-2", "biasa"],
    ),
    "pips-tiles-disagree": (
        [t2(1, "B", "kandang", pips=(5, 7, 9, 12), tiles={"B": "3-2 1-0"})],
        "pips_tiles_disagree",
        4,
        "pips_b",
        # the sentence names the chair, read beside the column as the file spelled it
        ["chair B's pips say 7", "6"],
    ),
    "hand-gap": (
        [t2(1, "A", "biasa"), t2(2, "A", "biasa"), t2(4, "A", "biasa")],
        "hand_gap",
        6,
        "hand",
        ["4", "2"],
    ),
    # the gap is named at the first row of the hand after it, when that hand is written twice
    "hand-gap-at-a-hand-written-twice": (
        [t2(1, "A", "biasa"), t2(2, "A", "biasa"), t2(4, "A", "biasa"), t2(4, "B", "biasa")],
        "hand_gap",
        6,
        "hand",
        ["4", "2"],
    ),
    # both rows of hand 2 are flagged
    "hand-twice": (
        [t2(1, "A", "biasa"), t2(2, "A", "biasa"), t2(2, "B", "biasa")],
        "hand_twice",
        (5, 6),
        "hand",
        ["hand 2"],
    ),
    "first-hand-not-1": (
        [t2(2, "A", "biasa"), t2(3, "A", "biasa")],
        "hand_gap",
        4,
        "hand",
        ["first hand", "2"],
    ),
    "two-players-regular-hand": (
        [t2(1, "A", "biasa", seats=("Eko", "Fajar", None, None))],
        "too_few_players",
        4,
        "player_a",
        ["walkover"],
    ),
    "walkover-of-three": (
        [t2(None, None, "wo", seats=("Eko", "Fajar", "Gita", None))],
        "bad_walkover",
        4,
        "ending",
        ["3"],
    ),
    "ended-by-empty-chair": (
        [t2(1, "D", "biasa", seats=("Eko", "Fajar", "Gita", None))],
        "empty_chair",
        4,
        "ended_by",
        ["chair D"],
    ),
    "went-out-with-pips": (
        [t2(1, "A", "biasa", pips={"A": 5})],
        "ender_has_pips",
        4,
        "pips_a",
        ["went out"],
    ),
    # no 7 tiles hold more than 69 pips (Art. 4.2: 7 tiles each, also at 3 players)
    "pips-over-69": (
        [t2(1, "B", "kandang", pips=(70, 3, 5, 9))],
        "pips_too_high",
        4,
        "pips_a",
        ["70", "69"],
    ),
    # Eko (6) and Fajar (2) were not tied after STRADDLE's 10 hands
    "tiebreak-seats-untied": (
        [
            *biasa_match(AS_OTHERS(STRADDLE), start=OTHERS, table="2"),
            t2(11, "A", "biasa", seats=("Eko", "Fajar", None, None)),
        ],
        "tiebreak_not_tied",
        14,
        "hand",
        ["hand 11", "Eko", "Fajar"],
    ),
    # Eko wins all 10 hands (no tie: Eko 20, Fajar -4, Gita 0, Hadi -6); an 11th hand
    # with everybody is a regular hand too many
    "eleven-regular-hands": (
        [
            *biasa_match(["Eko"] * 10, start=OTHERS, table="2"),
            t2(11, "B", "biasa", seats=scheduled(OTHERS, 11)),
        ],
        "tiebreak_not_tied",
        14,
        "hand",
        ["10 regular hands"],
    ),
}


@pytest.mark.parametrize("case", list(BAD_CASES))
def test_rejected_match_stays_out_while_the_other_loads(con, tmp_path, case):
    bad_rows, code, lines, column, words = BAD_CASES[case]
    lines = lines if isinstance(lines, tuple) else (lines,)
    plan = load(con, tmp_path, [*GOOD, *bad_rows])
    assert statuses(plan) == {"1": "new", "2": "rejected"}
    errs = plan.errors.filter(plan.errors["code"] == code).to_dicts()
    assert sorted(e["line"] for e in errs) == list(lines), plan.errors.to_dicts()
    for e in errs:
        assert (e["file"], e["column"], e["table"]) == ("hands.csv", column, "2")
        assert problems.describe(e).startswith(f"hands.csv:{e['line']} {column}: ")
        for w in words:
            assert w in e["message"], e["message"]
    # every error of the file belongs to table 2; table 1 is loaded whole, table 2 not at all
    assert set(plan.errors["table"].to_list()) == {"2"}
    loaded = con.execute('SELECT "table", count(*) FROM hand_points GROUP BY ALL').fetchall()
    assert loaded == [("1", 8)]  # 2 hands x 4 players
    assert con.execute('SELECT DISTINCT "table" FROM table_standings').fetchall() == [("1",)]
    assert con.execute('SELECT DISTINCT "table" FROM hands').fetchall() == [("1",)]


# --- parameters: the ruleset file's values drive the scores --------------------------------------


def test_changing_a_point_value_changes_the_standings(con, tmp_path, ruleset_override):
    # h1 Budi apollo (+6, Ana -4); h2 Ana biasa (+2, Dedi -1): Budi 6, Ana -2, Cici 0, Dedi -1
    load(con, tmp_path, GOOD)
    before = {p: r["points"] for p, r in table_rows(con).items()}
    assert before == {"Budi": 6, "Ana": -4 + 2, "Cici": 0, "Dedi": -1}
    assert stale_events(con) == []
    ruleset_override(
        "unhas", modified("unhas", **{"points.apollo.winner": 10, "points.apollo.loser": -7})
    )
    assert stale_events(con) == ["ev"]  # the hash of the parameters changed
    rescore(con)
    assert stale_events(con) == []
    # now Budi 10, Ana -7 + 2 = -5
    assert {p: r["points"] for p, r in table_rows(con).items()} == {
        "Budi": 10,
        "Ana": -5,
        "Cici": 0,
        "Dedi": -1,
    }
    assert hand_rows(con, 1)["Budi"] == ("apollo", 10)
    # the file's values back: stale again, and a rescore restores the original standings
    rulesets.override("unhas", None)
    assert stale_events(con) == ["ev"]
    rescore(con)
    assert {p: r["points"] for p, r in table_rows(con).items()} == before


def test_catcher_split_parameter_rescored(con, tmp_path, ruleset_override):
    # three lower catchers (6, 6, 6 < 9): halve -> 4 // 2 = 2 each; even -> 4 // 3 = 1 each
    load(con, tmp_path, [hand(1, "D", "kandang", pips=(6, 6, 6, 9))])
    assert hand_rows(con, 1)["Ana"] == ("tangkap", 2)
    ruleset_override("unhas", modified("unhas", catcher_split="even"))
    rescore(con)
    assert hand_rows(con, 1) == {
        "Ana": ("tangkap", 1),
        "Budi": ("tangkap", 1),
        "Cici": ("tangkap", 1),
        "Dedi": ("caught", -3),
    }


def test_qualifiers_per_table_and_warn_free_parameters(con, tmp_path, ruleset_override):
    rows = biasa_match(LOW)
    rows[0]["sanctions_c"] = "warn"  # Cici's only warning: free by default
    load(con, tmp_path, rows)
    assert standing(con)["Cici"] == (0, 3, False, False)
    # 3 qualify, and no warning is free: Cici 0 - 1 = -1 (now alone in 4th), Dedi 0 3rd
    ruleset_override(
        "unhas", modified("unhas", qualifiers_per_table=3, **{"sanctions.warn_free": 0})
    )
    rescore(con)
    assert standing(con) == {
        "Budi": (8, 1, True, False),
        "Ana": (2, 2, True, False),
        "Dedi": (0, 3, True, False),
        "Cici": (-1, 4, False, False),
    }


def test_override_applies_to_new_loads_without_rescore(con, tmp_path, ruleset_override):
    ruleset_override(
        "unhas", modified("unhas", **{"points.biasa.winner": 5, "points.biasa.loser": -2})
    )
    # Ana biasa +5, Dedi (above A) -2
    got = one_hand(con, tmp_path, hand(1, "A", "biasa"))
    assert got == {"Ana": ("biasa", 5), "Dedi": ("above", -2), "Budi": ("-", 0), "Cici": ("-", 0)}


def test_docs_cite_every_rules_test_and_only_real_ones():
    # docs/rules-unhas.md names the test that pins each rule: no rule without a test, no
    # test name that no longer exists
    from tests import test_examples, test_scoring_properties

    doc = (Path(__file__).resolve().parents[1] / "docs" / "rules-unhas.md").read_text()
    cited = set(re.findall(r"\b(test_[a-z0-9_]+)\b(?!\.py)", doc))
    here = {n for n in globals() if n.startswith("test_")}
    real = here | {
        n for m in (test_examples, test_scoring_properties) for n in dir(m) if n.startswith("test_")
    }
    # a rule pinned in another test file (round order, the registry) is cited by name too
    for other in Path(__file__).resolve().parent.glob("test_*.py"):
        real |= set(re.findall(r"^def (test_[a-z0-9_]+)", other.read_text(), re.M))
    assert cited - real == set(), "cited but not a test"
    assert here - cited - {"test_docs_cite_every_rules_test_and_only_real_ones"} == set(), (
        "not in the doc"
    )
