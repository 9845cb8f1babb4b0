"""Hand entry at the table (pipeline/entry.py): every hand through the one ingest service."""

import csv
import dataclasses

import polars as pl
import pytest

from pipeline import auth, entry
from pipeline.ingest import ingest
from pipeline.standings import queries
from tests.conftest import DATA
from tests.draw_fixture_entry import create_event, insert_draw

EVENT, ROUND, TABLE = "unhas-2024-e1", "R1", "1"
BASE = DATA / "errors" / "base_unhas.csv"
START = {"a": "Wahyu Nugroho", "b": "Bayu Rahman", "c": "Bayu Rauf", "d": "Arif Pallawa"}
TILE = {str(i): i for i in range(7)}


def _pips(row: dict[str, str], c: str) -> int | None:
    if row[f"biji_{c}"]:
        return int(row[f"biji_{c}"])
    tiles = row[f"kartu_{c}"].split()
    return sum(TILE[t[0]] + TILE[t[-1]] for t in tiles) if tiles else None


def base_hands() -> list[entry.Hand]:
    """Table 1 of the sample file, as a referee would enter it (pips, not tiles)."""
    with BASE.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["meja"] == TABLE]
    return [
        entry.Hand(
            hand=int(r["kocokan"]),
            ending=r["akhir"],
            ended_by=r["oleh"].lower(),
            last_tile=r["kartu_terakhir"].replace("|", "-"),
            pips={c: _pips(r, c) for c in "abcd"},
            sanctions={c: r[f"sanksi_{c}"].split(";") for c in "abcd" if r[f"sanksi_{c}"]},
        )
        for r in rows
    ]


@pytest.fixture
def referee(con):
    auth.add_user(con, "Pak Basri", "a long password", [EVENT])
    return auth.sign_in(con, "Pak Basri", "a long password").identity


@pytest.fixture
def drawn(con):
    insert_draw(con, EVENT, ROUND, {TABLE: START})


def save(con, referee, hand, **kw):
    st = entry.state(con, EVENT, ROUND, TABLE)
    return entry.save_hand(
        con, EVENT, ROUND, TABLE, hand, st.seats(hand.hand), identity=referee, **kw
    )


def points(con) -> dict[str, int]:
    s = queries.standings(con, EVENT, "table", ROUND, TABLE)
    return dict(zip(s["player"].to_list(), s["points"].to_list(), strict=True))


def kinds(con) -> list[str]:
    return queries.history(con, EVENT, ROUND, TABLE)["kind"].to_list()


def test_the_draw_prefills_every_hand_after_the_swap_schedule(con, drawn):
    st = entry.state(con, EVENT, ROUND, TABLE)
    assert st.status == "new" and st.next_hand == 1
    assert st.seats(1) == START
    # Art. 1.14: hands 3-6 A and C swap; Art. 1.15: hands 7-10 B and D swap as well
    assert st.seats(4) == {**START, "a": "Bayu Rauf", "c": "Wahyu Nugroho"}
    assert st.seats(9) == {
        "a": "Bayu Rauf",
        "b": "Arif Pallawa",
        "c": "Wahyu Nugroho",
        "d": "Bayu Rahman",
    }


def test_an_undrawn_table_is_typed_once_and_follows_the_schedule(con):
    create_event(con, EVENT, "unhas")
    st = entry.state(con, EVENT, ROUND, TABLE)
    assert st.drawn == {}
    assert st.seats(3, START)["a"] == "Bayu Rauf"
    assert st.seats(2, START) == START


def test_hands_entered_one_by_one_land_as_updates_and_the_standings_move(
    store, con, drawn, referee, tmp_path
):
    hands = base_hands()
    first = save(con, referee, hands[0])
    assert first.ok and [o.status for o in first.plan.outcomes] == ["new"]
    # hand 1: ceki by chair A (Wahyu) -> +4; the player above A is D (Arif) -> -3
    assert points(con) == {"Wahyu Nugroho": 4, "Arif Pallawa": -3, "Bayu Rahman": 0, "Bayu Rauf": 0}
    assert entry.state(con, EVENT, ROUND, TABLE).status == "open"
    seen = [points(con)]
    for n, h in enumerate(hands[1:], start=2):
        saved = save(con, referee, h)
        assert saved.ok, saved.sentences()
        assert len(kinds(con)) == n
        seen.append(points(con))
    assert kinds(con) == ["new"] + ["update"] * 9
    # every unhas hand gives its winner points: the standings moved after each hand
    assert all(a != b for a, b in zip(seen, seen[1:], strict=False))
    # and they end where the same hands loaded as a file end
    with_file = tmp_path / "file.duckdb"
    from pipeline.store.db import connect

    with connect(with_file) as other:
        rows = [line for line in BASE.read_text().splitlines() if ",R1,1," in line]
        f = tmp_path / "t1.csv"
        f.write_text("\n".join([BASE.read_text().splitlines()[0], *rows]) + "\n")
        ingest(other, [f])
        expected = queries.standings(other, EVENT, "table", ROUND, TABLE)
    got = queries.standings(con, EVENT, "table", ROUND, TABLE)
    cols = ["player", "points", "rank", "qualified", "needs_tiebreak"]
    assert got.select(cols).sort("player").equals(expected.select(cols).sort("player"))


def test_an_invalid_hand_is_refused_with_its_column_and_nothing_is_written(
    store, con, drawn, referee
):
    hands = base_hands()
    bad_first = entry.Hand(hand=1, ending="apollo", ended_by="a", last_tile="5-3")
    saved = save(con, referee, bad_first)
    assert not saved.ok
    said = saved.sentences("en")
    assert [(p["hand"], p["column"]) for p in said if p["severity"] == "error"] == [
        (1, "last_tile")
    ]
    assert "double" in said[0]["message"]
    assert saved.sentences("id")[0]["message"] != said[0]["message"]  # the page's language
    assert con.execute("SELECT count(*) FROM match_versions").fetchall() == [(0,)]
    assert con.execute("SELECT count(*) FROM match_entry").fetchall() == [(0,)]
    for h in hands[:2]:
        assert save(con, referee, h).ok
    before = points(con)
    kandang = entry.Hand(hand=3, ending="kandang", ended_by="b", last_tile="4-6", pips={"a": 4})
    saved = save(con, referee, kandang)
    assert not saved.ok
    cols = {p["column"] for p in saved.sentences() if p["severity"] == "error"}
    assert cols and all(c.startswith("pips_") for c in cols)
    assert {p["hand"] for p in saved.sentences()} == {3}
    assert kinds(con) == ["new", "update"] and points(con) == before
    assert con.execute("SELECT count(*) FROM hands").fetchall() == [(1 + 2,)]


def test_a_wrong_hand_is_fixed_before_closing_without_a_reason(con, drawn, referee):
    hands = base_hands()
    for h in hands[:3]:
        assert save(con, referee, h).ok
    # hand 2 was biasa by D (Arif): entered again as ceki by D
    fixed = entry.Hand(hand=2, ending="ceki", ended_by="d", last_tile="1-2")
    saved = save(con, referee, fixed)
    assert saved.ok
    (o,) = saved.plan.outcomes
    assert o.status == "update" and o.changed_hands == [2]
    hist = queries.history(con, EVENT, ROUND, TABLE)
    assert hist["kind"].to_list() == ["new", "update", "update", "update"]
    assert hist["reason"].to_list() == [None] * 4


def test_closing_waits_for_hand_ten_and_then_changes_need_a_reason(con, drawn, referee):
    hands = base_hands()
    for h in hands[:9]:
        assert save(con, referee, h).ok
    with pytest.raises(entry.EntryRefused) as exc:
        entry.close(con, EVENT, ROUND, TABLE, identity=referee)
    assert exc.value.message_id == "entry_incomplete" and "9 of 10" in str(exc.value)
    assert save(con, referee, hands[9]).ok
    st = entry.close(con, EVENT, ROUND, TABLE, identity=referee)
    assert st.status == "closed" and not st.can_close
    before = points(con)
    fixed = entry.Hand(hand=2, ending="ceki", ended_by="d", last_tile="1-2")
    with pytest.raises(entry.EntryRefused) as exc:
        save(con, referee, fixed)
    assert exc.value.message_id == "entry_closed"
    assert points(con) == before and len(kinds(con)) == 10
    # a coordinator's correction of a closed match is a change request for the jury
    with pytest.raises(auth.NotAllowed):
        save(con, referee, fixed, reason="referee misread the last tile")
    assert points(con) == before and len(kinds(con)) == 10
    auth.add_user(con, "Bu Juri", "a long jury password", [EVENT], role="jury")
    jury = auth.sign_in(con, "Bu Juri", "a long jury password").identity
    saved = save(con, jury, fixed, reason="referee misread the last tile")
    assert saved.ok
    hist = queries.history(con, EVENT, ROUND, TABLE)
    assert hist["kind"].to_list()[-1] == "correction"
    assert hist["reason"].to_list()[-1] == "referee misread the last tile"


def test_a_closed_match_refuses_a_file_that_changes_it_without_a_reason(
    con, drawn, referee, tmp_path
):
    for h in base_hands():
        assert save(con, referee, h).ok
    entry.close(con, EVENT, ROUND, TABLE, identity=referee)
    lines = BASE.read_text().splitlines()
    rows = [line.replace(",A,biasa,6|2,", ",A,ceki,6|2,") for line in lines[1:11]]
    f = tmp_path / "fix.csv"
    f.write_text("\n".join([lines[0], *rows]) + "\n")
    p = ingest(con, [f])
    assert [o.status for o in p.outcomes] == ["rejected"]
    assert p.problems.filter(pl.col("code") == "correction_needs_reason").height == 1


def test_a_referee_of_another_event_writes_nothing(con, drawn):
    auth.add_user(con, "Bu Rina", "another long one", ["other-event"])
    other = auth.sign_in(con, "Bu Rina", "another long one").identity
    with pytest.raises(auth.NotAllowed):
        save(con, other, base_hands()[0])
    assert con.execute("SELECT count(*) FROM match_versions").fetchall() == [(0,)]
    assert con.execute("SELECT count(*) FROM match_entry").fetchall() == [(0,)]


def test_a_hand_out_of_turn_or_ending_not_in_the_rulebook_is_refused(con, drawn, referee):
    with pytest.raises(entry.EntryRefused) as exc:
        save(con, referee, entry.Hand(hand=2, ending="biasa", ended_by="a", last_tile="1-2"))
    assert exc.value.message_id == "entry_hand_gap"
    with pytest.raises(entry.EntryRefused) as exc:
        save(con, referee, entry.Hand(hand=1, ending="gaple", ended_by="a"))
    assert exc.value.message_id == "entry_ending"
    assert "gaple" in exc.value.render("id")


def test_a_tie_for_first_owes_a_tie_break_hand_of_the_tied_players_before_closing(
    con, drawn, referee
):
    # biasa every hand: hand 1 Wahyu Nugroho (chair A; above her Arif Pallawa), hand 2 Bayu Rauf (chair C; above
    # her Bayu Rahman); from hand 3 Wahyu Nugroho sits in C and Bayu Rauf in A and they win in turn: Wahyu Nugroho's
    # losers are Bayu Rahman (3-6) and Arif Pallawa (7-10), Bayu Rauf's Arif Pallawa (3-6) and Bayu Rahman (7-10).
    # Totals: Wahyu Nugroho 10, Bayu Rauf 10, Bayu Rahman -5, Arif Pallawa -5: a tie for first.
    chairs = ["a", "c", "c", "a", "c", "a", "c", "a", "c", "a"]
    for n, who in enumerate(chairs, start=1):
        h = entry.Hand(hand=n, ending="biasa", ended_by=who, last_tile="1-2")
        assert save(con, referee, h).ok
    assert points(con) == {
        "Wahyu Nugroho": 10,
        "Bayu Rauf": 10,
        "Bayu Rahman": -5,
        "Arif Pallawa": -5,
    }
    st = entry.state(con, EVENT, ROUND, TABLE)
    assert st.complete and st.needs_tiebreak and not st.can_close
    with pytest.raises(entry.EntryRefused) as exc:
        entry.close(con, EVENT, ROUND, TABLE, identity=referee)
    assert exc.value.message_id == "entry_tiebreak_owed"
    # hand 11 seats the tied players only, in their chairs of hand 10
    assert st.seats(11) == {"a": "Bayu Rauf", "c": "Wahyu Nugroho"}
    tiebreak = entry.Hand(hand=11, ending="biasa", ended_by="c", last_tile="1-2")
    assert save(con, referee, tiebreak).ok
    s = queries.standings(con, EVENT, "table", ROUND, TABLE)
    first = s.filter(pl.col("rank") == 1)
    assert first["player"].to_list() == ["Wahyu Nugroho"] and not s["needs_tiebreak"].any()
    assert entry.close(con, EVENT, ROUND, TABLE, identity=referee).status == "closed"


def test_a_withdrawn_match_open_for_entry_takes_no_more_hands(con, drawn, referee):
    """The jury withdraws a table while its referee is still entering it: the entry page
    says so, and a hand saved after it is refused. Before, the table read as empty and
    its next hand 1 brought the match back silently, with one hand."""
    from pipeline.ingest.withdraw import withdraw

    for h in base_hands()[:5]:
        assert save(con, referee, h).ok
    withdraw(con, EVENT, ROUND, TABLE, reason="meja salah", by="juri")
    st = entry.state(con, EVENT, ROUND, TABLE)
    assert st.status == "withdrawn"
    with pytest.raises(entry.EntryRefused) as exc:
        save(con, referee, base_hands()[0])
    assert exc.value.message_id == "entry_withdrawn"
    assert "withdrawn by juri (meja salah)" in str(exc.value)
    with pytest.raises(entry.EntryRefused) as exc:
        entry.save_hand(
            con, EVENT, ROUND, TABLE, base_hands()[5], START, identity=referee, reason="x"
        )
    assert exc.value.message_id == "entry_withdrawn", "a reason does not bring it back either"
    with pytest.raises(entry.EntryRefused) as exc:
        entry.close(con, EVENT, ROUND, TABLE, identity=referee)
    assert exc.value.message_id == "entry_withdrawn"
    assert kinds(con) == ["new", "update", "update", "update", "update", "withdrawn"]


def _hand_rows(con) -> list[tuple]:
    return con.execute(
        "SELECT h.hand, h.ending, h.ended_by FROM hands h JOIN match_versions v "
        'USING (event, round, "table", version) WHERE v.current AND h.event = ? '
        'AND h.round = ? AND h."table" = ? ORDER BY h.hand',
        [EVENT, ROUND, TABLE],
    ).fetchall()


def test_a_hand_entered_on_a_page_older_than_the_table_writes_nothing(store, con, drawn, referee):
    """Two devices at one table: the referee's phone shows hands 1-2; meanwhile the
    coordinator's tablet saves hand 3. The phone's "hand 3" (the page's next hand) would
    have replaced the tablet's without a word; it is refused and the tablet's stays."""
    hands = base_hands()
    for h in hands[:2]:
        assert save(con, referee, h).ok
    phone = entry.state(con, EVENT, ROUND, TABLE)
    assert phone.version == 2 and phone.next_hand == 3
    assert save(con, referee, hands[2]).ok  # the tablet
    kept = _hand_rows(con)
    other = dataclasses.replace(hands[1], hand=3)  # what the phone entered as hand 3
    with pytest.raises(entry.EntryRefused) as info:
        entry.save_hand(
            con, EVENT, ROUND, TABLE, other, phone.seats(3), identity=referee, seen=phone.version
        )
    assert info.value.message_id == "entry_moved"
    assert "another device saved table 1 of round R1 since this page read it" in str(info.value)
    assert _hand_rows(con) == kept and len(kept) == 3
    again = entry.state(con, EVENT, ROUND, TABLE)  # the page read again: the fix goes in
    saved = entry.save_hand(
        con, EVENT, ROUND, TABLE, other, again.seats(3), identity=referee, seen=again.version
    )
    assert saved.ok, saved.sentences()
    assert _hand_rows(con)[2][1:] == ("biasa", "D") != kept[2][1:]


def test_rows_built_on_a_version_that_moved_on_before_the_commit_write_nothing(
    store, con, drawn, referee, monkeypatch
):
    """The race the page cannot see (two dashboards on one PostgreSQL store): the save
    reads the table at hand 2, another server commits hand 3, then this save's rows
    (hands 1-2 and its own) reach the load. Written, they would drop hand 3."""
    hands = base_hands()
    for h in hands[:2]:
        assert save(con, referee, h).ok
    before = entry.state(con, EVENT, ROUND, TABLE)
    assert save(con, referee, hands[2]).ok  # the other server
    kept = _hand_rows(con)
    monkeypatch.setattr(entry, "state", lambda *a: before)  # read before that commit
    fix = dataclasses.replace(hands[3], hand=2)
    with pytest.raises(entry.EntryRefused) as info:
        entry.save_hand(con, EVENT, ROUND, TABLE, fix, before.seats(2), identity=referee)
    assert info.value.message_id == "entry_moved"
    assert _hand_rows(con) == kept and len(kept) == 3


def test_a_hand_corrected_here_keeps_the_tiles_the_file_gave(store, con):
    """The match was written again from the entry form's columns only: the tiles a file
    gave every other hand were dropped, so correcting one note of a match loaded from a
    file was refused ("kandang needs the pips of every seated chair" in hand 6, whose
    chair C has tiles, not pips), and a hand without such a check lost its tiles."""
    assert {o.status for o in ingest(con, [BASE]).outcomes} == {"new"}
    auth.add_user(con, "Juri", "a long password", [EVENT], role="jury")
    who = auth.sign_in(con, "Juri", "a long password").identity
    tiles = [f"tiles_{c}" for c in "abcd"]

    def stored() -> list[tuple]:
        return con.execute(
            f"SELECT h.hand, {', '.join(tiles)} FROM hands h JOIN match_versions v "
            'USING (event, round, "table", version) WHERE v.current AND h."table" = ? '
            "ORDER BY h.hand",
            [TABLE],
        ).fetchall()

    before, scores = stored(), points(con)
    for n in (5, 6):  # the note only; the pips as the page shows them (the file's)
        st = entry.state(con, EVENT, ROUND, TABLE)
        old = st.hands.row(n - 1, named=True)
        fixed = entry.Hand(
            hand=n,
            ending=old["ending"],
            ended_by=old["ended_by"].lower(),
            last_tile=old["last_tile"],
            pips={c: old[f"pips_{c}"] for c in "abcd"},
            note="dicek ulang",
        )
        saved = entry.save_hand(
            con, EVENT, ROUND, TABLE, fixed, st.seats(n), identity=who, reason="note"
        )
        assert saved.ok, saved.sentences()
    assert stored() == before and points(con) == scores
    assert kinds(con)[-1] == "correction"
