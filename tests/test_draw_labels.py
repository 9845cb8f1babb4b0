"""A round or table spelled differently in an upload (``r1`` for the drawn ``R1``,
`` R01``, table ``01``) is matched to the draw as it is to loaded rounds: it takes the
draw's spelling (a ``label_spelling`` warning) and is checked against the draw."""

import polars as pl
import pytest

from pipeline.draws.followed import stale_draws
from pipeline.store.db import connect
from tests.rules_helpers import load
from tests.test_events_draw_cli import first_round_played, play, setup_event, start_of


def warned(plan, code: str) -> tuple[list[tuple], list[str]]:
    """``(file, line, column, severity)`` of each problem ``code`` of ``plan``, and its
    sentences."""
    said = plan.problems.filter(pl.col("code") == code)
    return said.select("file", "line", "column", "severity").rows(), said["message"].to_list()


@pytest.mark.parametrize(
    ("written", "table", "respelled"),
    [
        ("r1", "1", ["round"]),
        (" R01", "01", ["round", "table"]),
        # with the word that names it: before, a round and table of their own beside the
        # drawn R1 table 1, outside every check of the draw
        ("Babak 1", "Meja 1", ["round", "table"]),
        ("babak-01", "meja 1", ["round", "table"]),
        ("Babak I", "Meja 1", ["round", "table"]),  # a round numbered in Roman numerals
    ],
)
def test_a_round_spelled_otherwise_is_the_drawn_round(db_path, tmp_path, written, table, respelled):
    setup_event(tmp_path)
    with connect(db_path) as con:
        start = start_of(con, "ev", "R1", "1")
        p = load(con, tmp_path, play(start, rnd=written, table=table), name="meja1.csv")
        rounds = con.sql('SELECT DISTINCT round, "table" FROM hands').fetchall()
    assert p.count("new") == 1, p.problems.to_dicts()
    assert rounds == [("R1", "1")]  # the draw's spelling, as a loaded round's would be
    spelled = p.problems.filter(pl.col("code") == "label_spelling")
    assert spelled["severity"].unique().to_list() == ["warning"]
    assert sorted(spelled["column"].to_list()) == respelled
    assert spelled.filter(pl.col("column") == "round")["line"].to_list() == [2]
    assert not p.problems.filter(pl.col("code").str.starts_with("draw_")).height


def test_a_round_spelled_otherwise_is_checked_against_the_draw(db_path, tmp_path):
    setup_event(tmp_path)
    with connect(db_path) as con:
        a, b, c, d = start_of(con, "ev", "R1", "1")
        p = load(con, tmp_path, play((b, a, c, d), rnd="r1"), name="meja1.csv")
        stray = load(con, tmp_path, play((a, b, c, d), rnd="R 1", table="9"), name="meja9.csv")
    chair = p.problems.filter(pl.col("code") == "draw_chair")
    assert chair.select("file", "line", "column").sort("column").rows() == [
        ("meja1.csv", 2, "player_a"),
        ("meja1.csv", 2, "player_b"),
    ]
    assert p.count("rejected") == 1
    assert stray.problems.filter(pl.col("code") == "draw_table").select(
        "file", "line", "column"
    ).rows() == [("meja9.csv", 2, "table")]


def test_a_round_with_no_draw_in_an_event_that_draws_is_said_once_and_loads(store, tmp_path):
    """``R2`` typed for the drawn ``R1`` loaded without a word as a round of its own; it
    still loads (a round may be seated by hand), with a warning the first time."""
    setup_event(tmp_path)
    with connect(store) as con:
        start = start_of(con, "ev", "R1", "1")
        p = load(con, tmp_path, play(start, rnd="R2"), name="meja1.csv")
        again = load(con, tmp_path, play(start, rnd="R2", winners=[start[1]] * 10), name="m.csv")
    where, said = warned(p, "draw_round")
    assert where == [("meja1.csv", 2, "round", "warning")]
    assert said[0].startswith(
        "round R2 has no draw, though this event draws its rounds (drawn: R1)"
    )
    assert p.count("new") == 1 and p.exit_code == 0
    assert not again.problems.filter(pl.col("code") == "draw_round").height  # loaded now


def test_a_drawn_table_loaded_under_a_mistyped_event_is_said_before_it_lands(store, tmp_path):
    """A table's sheet whose event is mistyped (``evv`` for the drawn ``ev``) loaded into a
    new event without a word about the draw it belongs to, the drawn table left waiting;
    it still loads (the event may really be another one), with a warning naming the drawn
    table, on the file's first row of the match, in its event column."""
    from tests.rules_helpers import biasa_match

    setup_event(tmp_path)
    with connect(store) as con:
        start = start_of(con, "ev", "R1", "1")
        seated = [p for p in start if p]
        rows = biasa_match([seated[0]] * 10, start, event="evv", round="R1", table="1")
        p = load(con, tmp_path, rows, name="meja1.csv")
        other = start_of(con, "ev", "R1", "2")
        others = [p for p in other if p]
        # three of another drawn table and one of this one: not that table's players
        mixed = (*other[:3], seated[0]) if other[3] else (*other[:2], seated[0], None)
        mixed_rows = biasa_match([mixed[0]] * 10, mixed, event="cup", round="R1", table="2")
        q = load(con, tmp_path, mixed_rows, name="mixed.csv")
        # the drawn table loaded: nothing waits for these players any more
        load(con, tmp_path, play(start), name="ev1.csv")
        again = load(con, tmp_path, [r | {"event": "evw"} for r in rows], name="evw.csv")
    where, said = warned(p, "draw_elsewhere")
    assert where == [("meja1.csv", 2, "event", "warning")]
    assert said[0].startswith(
        "event evv is new, and the draw of ev seats these same players at round R1 table 1"
    )
    assert p.count("new") == 1 and p.exit_code == 0
    assert len(others) >= 3
    assert warned(q, "draw_elsewhere") == warned(again, "draw_elsewhere") == ([], [])


def test_a_correction_that_changes_who_qualifies_after_the_next_draw_is_said(store, tmp_path):
    """Before: a correction of an R1 table loaded after R2 was drawn (and played) changed
    who qualified from it without a word, the road to the final then holding players who
    no longer qualified. It still loads (the jury decides what follows), with a warning
    naming who the next round seats and who qualifies now."""
    from tests.test_events_draw_cli import run

    first, _ = first_round_played(store, tmp_path)
    a, b, c, d = (p for p in first if p)
    with connect(store) as con:
        # the same two qualify, in the other order: nothing to say
        same = load(
            con, tmp_path, play(first, winners=[b] * 6 + [a] * 4), name="m1.csv", reason="x"
        )
        # c and d win instead of a and b
        moved = load(
            con, tmp_path, play(first, winners=[c] * 6 + [d] * 4), name="m2.csv", reason="y"
        )
    assert same.count("correction") == 1
    assert warned(same, "next_round_drawn") == ([], [])
    where, said = warned(moved, "next_round_drawn")
    assert where == [("m2.csv", 2, "table", "warning")]
    seated, qualified = ", ".join(sorted([a, b])), ", ".join(sorted([c, d]))
    assert said[0] == (
        f"round R2 is drawn with {seated} from round R1 table 1, but this version qualifies "
        f"{qualified}: the draw of round R2 no longer follows the results; draw it again "
        "while none of its tables is loaded (domino draw --reason, or the Organiser page), "
        "otherwise the jury decides"
    )
    assert moved.count("correction") == 1 and moved.exit_code == 0
    # said on `domino event show` (and the Organiser page) until R2 is drawn again
    with connect(store, read_only=True) as con:
        assert stale_draws(con, "ev") == [
            f"round R2 is drawn with {seated} from round R1 table 1, but {qualified} qualify "
            "from it now: the draw of round R2 no longer follows the results; draw it again "
            "while none of its tables is loaded (domino draw --reason, or the Organiser page), "
            "otherwise the jury decides"
        ]
    assert "warning: round R2 is drawn with" in run("event", "show", "ev").stderr
    again = run("draw", "--event", "ev", "--round", "R2", "--seed", "1", "--reason", "R1 fixed")
    assert again.exit_code == 0, again.output
    with connect(store, read_only=True) as con:
        assert stale_draws(con, "ev") == []
    assert "warning" not in run("event", "show", "ev").stderr


def test_a_withdrawal_of_a_table_the_next_draw_seats_from_is_said(store, tmp_path):
    """Before: withdrawing an R1 table after R2 was drawn from its qualifiers said nothing
    of the draw; ``domino withdraw`` now warns, naming them (the draw is left as it is)."""
    from pipeline.ingest.withdraw import withdraw
    from tests.test_events_draw_cli import run

    first, second = first_round_played(store, tmp_path, draw_next=False)
    with connect(store) as con:
        quiet = withdraw(con, "ev", "R1", "2", reason="loaded twice")  # nothing drawn after it
        load(con, tmp_path, play(second, table="2"), name="meja2.csv", reason="back")
    assert quiet.problems.height == 0
    assert run("draw", "--event", "ev", "--round", "R2", "--seed", "1").exit_code == 0
    res = run("withdraw", "--event", "ev", "--round", "R1", "--table", "1", "--reason", "wrong")
    a, b = [p for p in first if p][:2]
    assert res.exit_code == 0, res.output
    assert (
        f"round R2 is drawn with {', '.join(sorted([a, b]))} from round R1 table 1, which no "
        "longer counts once withdrawn" in " ".join(res.output.split())
    ), res.output
    with connect(store, read_only=True) as con:
        assert stale_draws(con, "ev") == [
            f"round R2 is drawn with {', '.join(sorted([a, b]))}, who have no result in round "
            "R1 now (their table withdrawn): the draw of round R2 no longer follows the "
            "results; draw it again while none of its tables is loaded (domino draw --reason, "
            "or the Organiser page), otherwise the jury decides"
        ]


def test_an_event_without_draws_is_not_warned_of_rounds_without_one(con, tmp_path):
    from tests.rules_helpers import biasa_match

    seats = ("Ana", "Budi", "Cici", "Dodi")
    match = biasa_match(["Ana"] * 6 + ["Budi"] * 4, seats, event="ev", round="R7", table="1")
    p = load(con, tmp_path, match, name="meja1.csv")
    assert p.count("new") == 1
    assert not p.problems.height, p.problems.to_dicts()
