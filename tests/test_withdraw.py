"""A match withdrawn (``domino withdraw``): out of every standing and rating ladder, its
versions kept, the ingest log told, and back with its file."""

from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from pipeline import ratings
from pipeline.cli import cli
from pipeline.ingest import ingest
from pipeline.ingest.withdraw import (
    WithdrawRefused,
    reinstate,
    withdraw,
    withdrawable,
    withdrawn,
)
from pipeline.standings import queries
from tests.test_bracket import EV, HEADER, R1

TYPO = "mini-cupp"  # table 2 loaded once more under a mistyped event
WRONG = [row.replace(f"{EV},", f"{TYPO},", 1) for row in R1[10:]]
RATED = "SELECT player_key, mu, sigma, matches FROM ratings_t ORDER BY player_key"


@pytest.fixture
def typo(con, tmp_path):
    """R1 of the small cup, and its table 2 loaded again under a mistyped event."""
    right, wrong = tmp_path / "r1.csv", tmp_path / "typo.csv"
    right.write_text("\n".join([HEADER, *R1]) + "\n")
    wrong.write_text("\n".join([HEADER, *WRONG]) + "\n")
    assert ingest(con, [right]).exit_code == 0
    assert ingest(con, [wrong]).exit_code == 0
    return tmp_path


def test_a_withdrawn_match_leaves_standings_and_ratings_and_keeps_its_history(store, con, typo):
    eka = "SELECT matches FROM ratings_t WHERE player_key = 'eka'"
    assert con.execute(eka).fetchall() == [(2,)]  # the same table rated twice
    p = withdraw(con, TYPO, "R1", "2", reason="loaded under a mistyped event", by="juri")
    assert [(o.status, o.version) for o in p.outcomes] == [("withdrawn", 2)]
    assert "version 1 (10 rows) no longer counts" in p.outcomes[0].message
    # no standing, hand or match of it is counted anywhere
    assert queries.standings(con, TYPO, "event").height == 0
    assert con.execute("SELECT count(*) FROM hand_points WHERE event = ?", [TYPO]).fetchall() == [
        (0,)
    ]
    matches = queries.events(con).filter(pl.col("event") == TYPO).get_column("matches")
    assert matches.to_list() == [0]
    # the rating ladder as if the table had been loaded once: each of its players one table
    assert con.execute(eka).fetchall() == [(1,)]
    after = con.execute(RATED).fetchall()
    ratings.recompute(con)
    assert con.execute(RATED).fetchall() == after
    # the event R1 of the small cup is untouched
    assert queries.standings(con, EV, "table", "R1").height == 8
    # what the dashboard offers a user of every event: to withdraw, and to bring back
    assert withdrawable(con, {"*"}) == {"events": [EV]}
    assert withdrawable(con, {"*"}, EV) == {"R1": ["1", "2"]}
    assert withdrawable(con, {"other"}, EV) == {}
    assert withdrawn(con, {"*"}) == [(TYPO, "R1", "2", "juri", "loaded under a mistyped event")]
    assert withdrawn(con, {EV}) == []
    # both versions in the history: who withdrew it, when, why
    history = queries.history(con, TYPO).select("version", "kind", "current", "hands", "reason")
    assert history.rows() == [
        (1, "new", False, 10, None),
        (2, "withdrawn", True, 0, "loaded under a mistyped event"),
    ]
    assert queries.history(con, TYPO).get_column("loaded_by").to_list()[-1] == "juri"
    log = queries.ingest_log(con, 1).row(0, named=True)
    assert (log["file"], log["reason"], log["status"]) == (
        "(withdrawn)",
        "loaded under a mistyped event",
        "done",
    )


def test_a_withdrawn_match_comes_back_with_its_file_and_a_reason(con, typo):
    """Bringing a withdrawn match back is a correction: without a reason the file is
    refused (a coordinator's would go to the jury), with one it loads as the next version."""
    withdraw(con, TYPO, "R1", "2", reason="by mistake")
    p = ingest(con, [typo / "typo.csv"])
    assert [o.status for o in p.outcomes] == ["rejected"]
    assert p.problems.get_column("message").to_list() == [
        "this file brings back the withdrawn match of the loaded version 2; a correction "
        "needs a reason (--reason)"
    ]
    p = ingest(con, [typo / "typo.csv"], reason="it was played after all")
    assert [(o.status, o.version) for o in p.outcomes] == [("correction", 3)]
    assert queries.standings(con, TYPO, "table", "R1").height == 4


POINTS = (
    "SELECT hand, player, chair, category, points FROM hand_points WHERE event = ? AND round = ? "
    'AND "table" = ? ORDER BY hand, chair'
)


@pytest.mark.parametrize(
    ("files", "event", "table"),
    [
        (["R1_meja2.csv"], "unhas-dies-lxiv", "2"),  # Indonesian headers, sanctions, tiles
        (["R1_meja4.csv"], "unhas-dies-lxiv", "4"),  # a walkover: no hand numbers
        (["R1_meja3.csv"], "unhas-dies-lxiv", "3"),  # a column of its own (wasit)
    ],
)
def test_a_withdrawal_is_undone_from_the_rows_kept_without_the_file(
    store, con, files, event, table
):
    """``--undo``: the rows of the version before the withdrawal loaded again as the next
    version: the same hand points and standings, the ladder as if never withdrawn."""
    samples = Path(__file__).parent.parent / "data" / "samples" / "unhas"
    assert ingest(con, [samples / f for f in files], ruleset="unhas").exit_code == 0
    points = con.execute(POINTS, [event, "R1", table]).fetchall()
    standing = queries.standings(con, event, "table", "R1", table).rows()
    rated = con.execute(RATED).fetchall()
    withdraw(con, event, "R1", table, reason="the wrong table was picked")
    p = reinstate(con, event, "R1", table, reason="withdrawn by mistake", by="juri")
    assert [(o.status, o.version) for o in p.outcomes] == [("correction", 3)]
    assert p.outcomes[0].message == "brings back the withdrawn match (reason: withdrawn by mistake)"
    assert con.execute(POINTS, [event, "R1", table]).fetchall() == points
    assert queries.standings(con, event, "table", "R1", table).rows() == standing
    assert con.execute(RATED).fetchall() == rated
    extra = 'SELECT extra FROM hands WHERE event = ? AND "table" = ? AND version = ? ORDER BY hand'
    assert (
        con.execute(extra, [event, table, 3]).fetchall()
        == con.execute(extra, [event, table, 1]).fetchall()
    )
    kinds = queries.history(con, event, "R1", table).get_column("kind").to_list()
    assert kinds == ["new", "withdrawn", "correction"]
    with pytest.raises(WithdrawRefused, match="is not withdrawn: there is nothing to bring back"):
        reinstate(con, event, "R1", table, reason="again")


def test_what_cannot_be_withdrawn_is_refused_and_nothing_changes(con, typo):
    versions = "SELECT count(*) FROM match_versions"
    before = con.execute(versions).fetchall()
    with pytest.raises(WithdrawRefused, match="needs a reason"):
        withdraw(con, TYPO, "R1", "2", reason="  ")
    with pytest.raises(WithdrawRefused, match=r"no match at round R1, table 9 to withdraw"):
        withdraw(con, TYPO, "R1", "9", reason="wrong")
    # an event not loaded at all is said as such (it was "has no match at round R1")
    with pytest.raises(WithdrawRefused, match=r"^no event nope is loaded, so there is no match"):
        withdraw(con, "nope", "R1", "2", reason="wrong")
    assert con.execute(versions).fetchall() == before
    withdraw(con, TYPO, "R1", "2", reason="wrong")
    with pytest.raises(WithdrawRefused, match="already withdrawn \\(version 2\\)"):
        withdraw(con, TYPO, "R1", "2", reason="again")


def test_the_command_withdraws_and_says_so_in_one_line_when_it_cannot(db_path, typo):
    def run(*args: str):
        return CliRunner().invoke(cli, ["withdraw", "--event", TYPO, "--round", "R1", *args])

    r = run("--table", "2")
    assert r.exit_code == 2 and "Missing option '--reason'" in r.output
    r = run("--table", "2", "--reason", "mistyped event")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0] == (
        f"withdrawn {TYPO} R1 table 2 v2 — version 1 (10 rows) no longer counts "
        "(reason: mistyped event)"
    )
    assert "withdrew 1 match" in r.output
    r = run("--table", "2", "--reason", "loaded after all", "--undo")
    assert r.exit_code == 0, r.output
    assert f"corrected {TYPO} R1 table 2 v3" in r.output
    r = run("--table", "2", "--reason", "mistyped event")
    assert r.exit_code == 0, r.output
    r = run("--table", "2", "--reason", "again")
    assert r.exit_code == 1
    assert r.output.strip().splitlines() == [
        f"Error: {TYPO} round R1 table 2 is already withdrawn (version 4); --undo (or its "
        "file again, with a reason) brings it back"
    ]


def test_a_withdrawn_match_no_longer_sets_how_its_labels_are_spelled(con, tmp_path):
    """Round ``r1`` loaded by mistake and withdrawn: the right file's ``R1`` loads as
    written, not respelled to the withdrawn match's ``r1`` with a warning."""
    wrong, right = tmp_path / "wrong.csv", tmp_path / "right.csv"
    wrong.write_text("\n".join([HEADER, *[r.replace(",R1,", ",r1,", 1) for r in R1[:10]]]) + "\n")
    right.write_text("\n".join([HEADER, *R1[:10]]) + "\n")
    assert ingest(con, [wrong]).exit_code == 0
    withdraw(con, EV, "r1", "1", reason="the round was mistyped")
    p = ingest(con, [right])
    assert p.exit_code == 0 and p.problems.height == 0, p.problems
    assert queries.rounds(con, EV) == ["R1"]


def test_bringing_back_is_checked_as_an_upload_is(con, typo):
    """Table 2 withdrawn, its players then loaded at table 3 of the round: bringing table 2
    back would seat them twice, so it is refused like the file would be, nothing written."""
    withdraw(con, EV, "R1", "2", reason="played as table 3")
    moved = typo / "t3.csv"
    moved.write_text("\n".join([HEADER, *[r.replace(",R1,2,", ",R1,3,", 1) for r in R1[10:]]]))
    assert ingest(con, [moved]).exit_code == 0
    versions = con.execute("SELECT count(*) FROM match_versions").fetchall()
    p = reinstate(con, EV, "R1", "2", reason="withdrawn by mistake")
    assert p.exit_code == 1 and [o.status for o in p.outcomes] == ["rejected"]
    assert set(p.problems.get_column("code")) == {"player_two_tables"}
    assert con.execute("SELECT count(*) FROM match_versions").fetchall() == versions
