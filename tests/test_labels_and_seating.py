"""Round and table labels written differently are one; a table keeps its players.

Issue "Venue-ready", items 3 and 5: the same match loaded as round ``R1``, ``r1``, ``R 1``
and ``R01`` loaded four times (a player's points counted four times); one table label
holding two different matches loaded with swap warnings only (8 players at a table of 4
chairs, two of them qualified).
"""

import polars as pl

from tests.rules_helpers import SEATS, biasa_match, load, statuses, table_rows


def test_round_labels_differing_in_case_spaces_or_zeros_are_one_round(con, tmp_path):
    first = load(con, tmp_path, biasa_match(["Ana"] * 4, round="R1"), name="a.csv")
    assert statuses(first) == {"1": "new"}
    for i, spelling in enumerate(["r1", "R 1", "R01", " r 01 "]):
        # the same four hands again: unchanged, whatever the spelling
        again = load(con, tmp_path, biasa_match(["Ana"] * 4, round=spelling), name=f"b{i}.csv")
        assert [(o.round, o.status) for o in again.outcomes] == [("R1", "unchanged")], spelling
        (w,) = again.warnings.filter(pl.col("code") == "label_spelling").to_dicts()
        assert (w["file"], w["line"], w["column"], w["severity"]) == (
            f"b{i}.csv",
            2,
            "round",
            "warning",
        )
        assert w["message"].startswith(f"round {spelling.strip()} is read as round R1")
    # a fifth hand written as R01 is an update of the one match
    more = load(con, tmp_path, biasa_match(["Ana"] * 5, round="R01"), name="c.csv")
    assert [(o.round, o.status, o.version) for o in more.outcomes] == [("R1", "update", 2)]
    rounds = con.execute("SELECT DISTINCT round FROM table_standings").fetchall()
    assert rounds == [("R1",)]
    assert table_rows(con)["Ana"]["points"] == 10  # five biasa wins, +2 each, counted once


def test_the_first_spelling_in_an_upload_is_kept(con, tmp_path):
    rows = biasa_match(["Ana"] * 2, round="Final") + biasa_match(["Ana"] * 4, round="final")[2:]
    plan = load(con, tmp_path, rows)
    assert [(o.round, o.status, o.hands) for o in plan.outcomes] == [("Final", "new", 4)]
    assert plan.warnings.filter(pl.col("code") == "label_spelling").get_column(
        "line"
    ).to_list() == [4]


def test_table_labels_with_leading_zeros_are_one_table(con, tmp_path):
    load(con, tmp_path, biasa_match(["Ana"] * 3, table="1"), name="a.csv")
    again = load(con, tmp_path, biasa_match(["Ana"] * 3, table="01"), name="b.csv")
    assert [(o.table, o.status) for o in again.outcomes] == [("1", "unchanged")]


def test_two_matches_under_one_table_label_stay_out_whole(con, tmp_path):
    others = ("Eko", "Fajar", "Gita", "Hadi")
    rows = biasa_match(["Ana"] * 10)[:5] + biasa_match(["Eko"] * 10, start=others)[5:]
    plan = load(con, tmp_path, rows)
    assert statuses(plan) == {"1": "rejected"}
    changed = plan.errors.filter(pl.col("code") == "seating_changed").to_dicts()
    # each newcomer is named once, on the line of the first hand they sit in (hand 6 = line 7)
    assert sorted(p["column"] for p in changed) == ["player_a", "player_b", "player_c", "player_d"]
    assert {p["line"] for p in changed} == {7}
    assert all("seats 8 different players" in p["message"] for p in changed)
    assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] == 0


def test_a_player_who_joins_a_three_player_table_keeps_it_out(con, tmp_path):
    three = (*SEATS[:3], None)
    rows = biasa_match(["Ana"] * 10, start=three)
    rows[7] = {**rows[7], "player_d": "Zaki"}  # hand 8: a fourth player appears in chair D
    plan = load(con, tmp_path, rows)
    assert statuses(plan) == {"1": "rejected"}
    (p,) = plan.errors.filter(pl.col("code") == "seating_changed").to_dicts()
    assert (p["line"], p["column"]) == (9, "player_d")
    # hand 8 seats Budi in chair D by the schedule (hands 7-10 swap B and D): Zaki took it
    assert p["message"].startswith(
        "Zaki joins table 1 in hand 8, and Budi, who played its first hand, is no longer"
    )


def test_a_name_written_another_way_mid_match_names_who_it_replaced(con, tmp_path):
    """``Ana S.`` from hand 6 where ``Ana`` sat before: the message names Ana, the likely
    same person, and the swap-schedule warnings that followed from it are not given."""
    rows = biasa_match(["Budi"] * 10)
    for r in rows[5:]:
        for c in "abcd":
            if r[f"player_{c}"] == "Ana":
                r[f"player_{c}"] = "Ana S."
    plan = load(con, tmp_path, rows)
    assert statuses(plan) == {"1": "rejected"}
    (p,) = plan.problems.to_dicts()
    assert (p["code"], p["message_id"], p["line"]) == (
        "seating_changed",
        "seating_changed.replaced",
        7,
    )
    assert p["message"].startswith(
        "Ana S. joins table 1 in hand 6, and Ana, who played its first hand, is no longer at the table"
    )


def test_chairs_swapped_by_the_schedule_are_no_change_of_players(con, tmp_path):
    plan = load(con, tmp_path, biasa_match(["Ana", "Budi", "Cici", "Dedi"] * 2 + ["Ana", "Budi"]))
    assert statuses(plan) == {"1": "new"}
    assert plan.problems.height == 0


def test_a_row_with_an_error_causes_no_second_false_error(con, tmp_path):
    """Issue "Venue-ready" item 13: a blank ending on hand 5 also produced "hand 6 follows
    hand 4"; only the real problem is reported, on its own line."""
    for ruleset in ("unhas", "pepet"):
        rows = biasa_match(["Ana"] * 8, event=f"ev-{ruleset}")
        if ruleset == "pepet":
            rows = [{**r, "ruleset": "pepet", "ending": "tutup", "round": "S1"} for r in rows]
        rows[4] = {**rows[4], "ending": None}
        plan = load(con, tmp_path, rows, name=f"{ruleset}.csv")
        assert [(p["line"], p["code"], p["column"]) for p in plan.errors.to_dicts()] == [
            (6, "missing_value", "ending")
        ], ruleset


def test_an_event_written_as_its_title_or_in_other_capitals_is_that_event(store, tmp_path):
    """A referee writes the event as they know it, by its title: before, that made a new
    event beside the real one, and the table's result was missing from the real one."""
    from tests.pg import open_store

    with open_store(store) as con:
        from tests.draw_fixture import create_event

        create_event(con, "piala-2026", "unhas", title="Piala  Dies Natalis 2026")
        for i, written in enumerate(["piala dies natalis 2026", "PIALA-2026"]):
            rows = biasa_match(["Ana"] * 4, event=written, round=f"R{i + 1}", ruleset=None)
            plan = load(con, tmp_path, rows, name=f"m{i}.csv")
            assert [(o.event, o.status) for o in plan.outcomes] == [("piala-2026", "new")], written
            (w,) = plan.problems.to_dicts()
            assert (w["code"], w["severity"], w["line"], w["column"]) == (
                "label_spelling",
                "warning",
                2,
                "event",
            )
            assert w["message"].startswith(f"event {written} is read as event piala-2026")
        assert con.execute("SELECT list(event ORDER BY event) FROM events").fetchall() == [
            (["piala-2026"],)
        ]
        # two events of one title: neither is guessed, the written one is new
        create_event(con, "piala-2027", "unhas", title="Piala Dies Natalis 2026")
        rows = biasa_match(["Ana"] * 4, event="Piala Dies Natalis 2026", ruleset=None)
        plan = load(con, tmp_path, rows, name="m9.csv")
        assert set(plan.problems["code"].to_list()) == {"missing_ruleset"}
