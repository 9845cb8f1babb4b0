"""Writes one hand log per input error of HANDLOG.md, each a copy of a valid base file
with one cell (or row) broken, and expected.json saying where the problem must be reported.

Run from this folder: python3 make_errors.py. The files it writes are committed; this
script documents how each was made.
"""

import csv
import json

CASES = []


def case(name, base, code, line, column, rejected, loaded, edits=(), add_rows=(), severity="error"):
    CASES.append(
        dict(
            name=name,
            base=base,
            code=code,
            line=line,
            column=column,
            rejected=rejected,
            loaded=loaded,
            edits=edits,
            add_rows=add_rows,
            severity=severity,
        )
    )


U, P = "base_unhas.csv", "base_pepet.csv"
# unhas base: table 1 on lines 2-11 (4 players), table 2 on lines 12-21 (3 players, D empty)
case("unknown_ending.csv", U, "unknown_ending", 3, "ending", ["1"], ["2"], [(3, "akhir", "menang")])
case("empty_chair.csv", U, "empty_chair", 13, "ended_by", ["2"], ["1"], [(13, "oleh", "D")])
case(
    "too_few_players_unhas.csv",
    U,
    "too_few_players",
    13,
    "player_a",
    ["2"],
    ["1"],
    [(13, "kursi_a", "")],
)
case(
    "player_twice.csv",
    U,
    "player_twice",
    2,
    "player_c",
    ["1"],
    ["2"],
    [(2, "kursi_c", "wahyu  nugroho")],
)
case(
    "player_two_tables.csv",
    U,
    "player_two_tables",
    12,
    "player_c",
    ["1", "2"],
    [],
    [(12, "kursi_c", "Bayu Rahman")],
)
case("hand_gap.csv", U, "hand_gap", 11, "hand", ["1"], ["2"], [(11, "kocokan", "12")])
case("hand_twice.csv", U, "hand_twice", 5, "hand", ["1"], ["2"], [(5, "kocokan", "3")])
case("first_hand_not_1.csv", U, "hand_gap", 2, "hand", ["1"], ["2"], [(2, "kocokan", "0")])
case(
    "too_many_hands.csv",
    U,
    "tiebreak_not_tied",
    22,
    "hand",
    ["1"],
    ["2"],
    add_rows=[
        [
            "unhas-2024-e1",
            "unhas",
            "R1",
            "1",
            "11",
            "Bayu Rauf",
            "Arif Pallawa",
            "Wahyu Nugroho",
            "Bayu Rahman",
            "A",
            "biasa",
            "6|2",
        ]
        + [""] * 13
    ],
)
case(
    "apollo_not_double.csv",
    U,
    "apollo_not_double",
    4,
    "last_tile",
    ["1"],
    ["2"],
    [(4, "kartu_terakhir", "5|4")],
)
case(
    "double_not_apollo.csv",
    U,
    "double_not_apollo",
    3,
    "last_tile",
    ["1"],
    ["2"],
    [(3, "kartu_terakhir", "2|2")],
)
case(
    "negative_pips.csv",
    U,
    "negative_pips",
    7,
    "pips_a",
    ["1"],
    ["2"],
    [(7, "biji_a", "-4"), (7, "kartu_a", "")],
)
case(
    "pips_too_high_unhas.csv", U, "pips_too_high", 7, "pips_d", ["1"], ["2"], [(7, "biji_d", "70")]
)
case("bad_tile.csv", U, "bad_tile", 2, "tiles_b", ["1"], ["2"], [(2, "kartu_b", "0|3 5|7")])
case(
    "tile_twice.csv",
    U,
    "tile_twice",
    7,
    "tiles_a",
    ["1"],
    ["2"],
    [(7, "kartu_a", "1|0 2|5"), (7, "biji_a", "")],
)
case(
    "pips_tiles_disagree.csv",
    U,
    "pips_tiles_disagree",
    7,
    "pips_a",
    ["1"],
    ["2"],
    [(7, "biji_a", "5")],
)
case(
    "missing_pips_kandang.csv",
    U,
    "missing_pips",
    7,
    "pips_b",
    ["1"],
    ["2"],
    [(7, "biji_b", ""), (7, "kartu_b", "")],
)
case("ender_has_pips.csv", U, "ender_has_pips", 2, "pips_a", ["1"], ["2"], [(2, "biji_a", "7")])
case(
    "date_not_a_tile.csv",
    U,
    "bad_tile",
    3,
    "last_tile",
    ["1"],
    ["2"],
    [(3, "kartu_terakhir", "15/07/2026")],
)
case(
    "number_not_a_tile.csv",
    U,
    "bad_tile",
    3,
    "last_tile",
    ["1"],
    ["2"],
    [(3, "kartu_terakhir", "78")],
)
case("not_a_number.csv", U, "not_a_number", 7, "pips_a", ["1"], ["2"], [(7, "biji_a", "empat")])
case("bad_chair.csv", U, "bad_chair", 3, "ended_by", ["1"], ["2"], [(3, "oleh", "E")])
case(
    "unknown_sanction.csv",
    U,
    "unknown_sanction",
    4,
    "sanctions_b",
    ["1"],
    ["2"],
    [(4, "sanksi_b", "warn;talk")],
)
case(
    "walkover_with_three.csv",
    U,
    "bad_walkover",
    22,
    "ending",
    ["7"],
    ["1", "2"],
    add_rows=[
        ["unhas-2024-e1", "unhas", "R1", "7", "", "Ani", "Bona", "Cici", "", "", "wo"] + [""] * 14
    ],
)
case(
    "walkover_with_hands.csv",
    U,
    "walkover_with_hands",
    22,
    "ending",
    ["2"],
    ["1"],
    add_rows=[
        ["unhas-2024-e1", "unhas", "R1", "2", "", "Yusuf Lubis", "Haris Rauf", "", "", "", "wo"]
        + [""] * 14
    ],
)
case(
    "missing_ruleset.csv",
    U,
    "missing_ruleset",
    2,
    "ruleset",
    ["1", "2"],
    [],
    [(r, "aturan", "") for r in range(2, 22)],
)
case(
    "swap_schedule_warning.csv",
    U,
    "swap_schedule",
    4,
    "player_a",
    [],
    ["1", "2"],
    [(4, "kursi_a", "Wahyu Nugroho"), (4, "kursi_c", "Bayu Rauf")],
    severity="warning",
)
# pepet base: S1, table 1 lines 2-8, table 2 lines 9-18, table 3 lines 19-25
case(
    "too_few_players_pepet.csv",
    P,
    "too_few_players",
    10,
    "player_a",
    ["2"],
    ["1", "3"],
    [(10, "player_d", ""), (10, "pips_d", ""), (10, "tiles_d", "")],
)
case(
    "pips_too_high_pepet.csv",
    P,
    "pips_too_high",
    3,
    "pips_c",
    ["1"],
    ["2", "3"],
    [(3, "pips_c", "75")],
)
case(
    "unknown_ending_pepet.csv",
    P,
    "unknown_ending",
    3,
    "ending",
    ["1"],
    ["2", "3"],
    [(3, "ending", "biasa")],
)
case(
    "missing_value_pepet_locked.csv",
    P,
    "missing_pips",
    3,
    "pips_c",
    ["1"],
    ["2", "3"],
    [(3, "pips_c", "")],
)


def build(c):
    with open(c["base"], newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    for line, col, value in c["edits"]:
        rows[line - 1][header.index(col)] = value
    for extra in c["add_rows"]:
        rows.append(extra)
    with open(c["name"], "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


if __name__ == "__main__":
    for c in CASES:
        build(c)
    manifest = {
        c["name"]: {k: c[k] for k in ("code", "line", "column", "rejected", "loaded", "severity")}
        for c in CASES
    }
    with open("expected.json", "w") as f:
        json.dump(manifest, f, indent=1)
    print(len(CASES), "cases")
