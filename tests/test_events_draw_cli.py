"""Events as records, rosters and draws through the ``domino`` command (HANDLOG.md,
"Additions for running competitions"), the ``seatings`` view, and a load checked against
its round's draw."""

from datetime import datetime

import duckdb
import polars as pl
import pytest
from click.testing import CliRunner

from pipeline import events
from pipeline.cli import cli
from pipeline.draws import seating
from pipeline.standings import queries, stats
from pipeline.store.db import connect
from tests.rules_helpers import biasa_match, load

EIGHT = ["Ana", "Budi", "Cici", "Dedi", "Eko", "Fani", "Gita", "Hadi"]


def run(*args):
    return CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)


def refused(r, *words: str) -> str:
    """Exit 1, one sentence on stderr holding ``words``, no traceback."""
    assert r.exit_code == 1, r.output
    text = " ".join(r.output.split())
    assert "Traceback" not in text
    for w in words:
        assert w in text, text
    return text


def roster(tmp_path, players, groups=None, name="roster.csv"):
    lines = ["player,group"] + [f"{p},{(groups or {}).get(p, '')}" for p in players]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def start_of(con, event, rnd, table) -> tuple:
    """The drawn starting seating (chairs A-D, None = empty) of a table."""
    rows = dict(
        con.execute(
            'SELECT chair, player FROM seatings WHERE event = ? AND round = ? AND "table" = ? '
            "AND hand = 1",
            [event, rnd, table],
        ).fetchall()
    )
    return tuple(rows.get(c) for c in "ABCD")


def play(start, *, event="ev", rnd="R1", table="1", winners=None):
    """A whole match at the drawn seating: the first seated player wins 6 hands, the
    second 4 (so both qualify without a tie)."""
    seated = [p for p in start if p]
    winners = winners or [seated[0]] * 6 + [seated[1]] * 4
    return biasa_match(winners, start, event=event, round=rnd, table=table, ruleset=None)


def setup_event(tmp_path, players=EIGHT, *, ruleset="unhas", seed=3):
    assert (
        run("event", "create", "ev", "--ruleset", ruleset, "--title", "Piala Dies").exit_code == 0
    )
    assert run("event", "roster", "ev", roster(tmp_path, players)).exit_code == 0
    r = run("draw", "--event", "ev", "--round", "R1", "--seed", seed)
    assert r.exit_code == 0, r.output
    return r


def first_round_played(target, tmp_path, *, draw_next: bool = True) -> tuple[tuple, tuple]:
    """:func:`setup_event`, both R1 tables played as :func:`play` plays them (each table's
    first two seated players qualify), and R2 drawn from them (seed 1) unless
    ``draw_next`` is false; the two tables' starting seatings."""
    setup_event(tmp_path)
    with connect(target) as con:
        first, second = start_of(con, "ev", "R1", "1"), start_of(con, "ev", "R1", "2")
        load(con, tmp_path, play(first), name="meja1.csv")
        load(con, tmp_path, play(second, table="2"), name="meja2.csv")
    if draw_next:
        r = run("draw", "--event", "ev", "--round", "R2", "--seed", 1)
        assert r.exit_code == 0, r.output
    return first, second


# --- events ------------------------------------------------------------------------------------


def test_create_then_update_an_event(store):
    r = run(
        "event", "create", "ev", "--ruleset", "unhas", "--title", "Piala Dies LXIV",
        "--date", "2026-12-01", "--venue", "Makassar", "--level", "kota",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "created" in r.output
    r = run("event", "create", "ev", "--ruleset", "unhas", "--venue", "Gowa")
    assert "updated" in r.output
    with connect(store, read_only=True) as con:
        row = con.execute("SELECT title, event_date::VARCHAR, venue, level FROM events").fetchall()
    assert row == [("Piala Dies LXIV", "2026-12-01", "Gowa", "kota")]


def test_a_wrong_level_or_date_is_a_wrong_call(db_path):
    assert run("event", "create", "ev", "--ruleset", "unhas", "--level", "desa").exit_code == 2
    # month first is no date here (there is no 31st month); day first is, as Indonesia writes
    assert run("event", "create", "ev", "--ruleset", "unhas", "--date", "12/31/2026").exit_code == 2
    assert run("event", "create", "ev", "--ruleset", "unhas", "--date", "1/12/2026").exit_code == 0
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT event_date::VARCHAR FROM events").fetchall() == [("2026-12-01",)]


def test_a_load_of_a_created_event_plays_its_ruleset(store, tmp_path):
    assert run("event", "create", "ev", "--ruleset", "unhas").exit_code == 0
    with connect(store) as con:
        # the file names no ruleset: the event's is used
        p = load(con, tmp_path, biasa_match(["Ana"] * 10, ruleset=None))
        assert p.count("new") == 1
        # a file naming another ruleset for it is refused
        rows = biasa_match(["Ana"] * 10, ruleset="pepet", table="2")
        p = load(con, tmp_path, rows, name="other.csv")
        assert p.count("rejected") == 1
        assert "ruleset_changed" in p.problems["code"].to_list()
    # the ruleset of an event with results does not change
    refused(run("event", "create", "ev", "--ruleset", "pepet"), "ev", "unhas", "pepet")
    with connect(store, read_only=True) as con:
        assert con.execute("SELECT ruleset FROM events").fetchall() == [("unhas",)]


def test_the_ruleset_of_an_event_without_results_may_change(db_path):
    assert run("event", "create", "ev", "--ruleset", "unhas").exit_code == 0
    assert run("event", "create", "ev", "--ruleset", "pepet").exit_code == 0
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT ruleset, models FROM events").fetchall() == [("pepet", "pepet")]


# --- rosters -----------------------------------------------------------------------------------


def test_roster_keys_names_through_the_registry(db_path, tmp_path):
    reg = tmp_path / "players.csv"
    reg.write_text("player,group,aliases\nAndi Makmur,KG1,Andi M\n")
    assert run("players", "import", reg).exit_code == 0
    assert run("event", "create", "ev", "--ruleset", "unhas").exit_code == 0
    r = run("event", "roster", "ev", roster(tmp_path, ["andi m", "Budi", "Cici"], {"Budi": "KG2"}))
    assert r.exit_code == 0, r.output
    with connect(db_path, read_only=True) as con:
        # the group the registry gives, read when asked (the roster keeps its own)
        rows = events.roster(con, "ev").select("player_key", "player", "group").rows()
    assert rows == [
        ("andi makmur", "Andi Makmur", "KG1"),
        ("budi", "Budi", "KG2"),
        ("cici", "Cici", None),
    ]


def test_bad_rosters_are_refused_with_file_line_and_column(db_path, tmp_path):
    assert run("event", "create", "ev", "--ruleset", "unhas").exit_code == 0
    no_player = tmp_path / "nama.csv"
    no_player.write_text("tim\nAna\n")
    refused(
        run("event", "roster", "ev", no_player),
        "nama.csv: a roster needs a column player (also written Pemain, Nama or Nama Pemain); "
        "its header, line 1, reads: tim",
    )
    twice = tmp_path / "twice.csv"
    twice.write_text("player\nAna\nBudi\nANA\n")
    refused(run("event", "roster", "ev", twice), "twice.csv, line 4, column player", "line 2")
    refused(run("event", "roster", "nope", roster(tmp_path, EIGHT)), "nope", "event create")
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM entrants").fetchall() == [(0,)]


def test_a_roster_under_a_title_is_read_from_its_header(db_path, tmp_path):
    """A venue's list starts with its title (``DAFTAR PESERTA``) and a blank row; before,
    "a roster needs a column player". Lines still count from the file's first line; a
    title with no header under it is still refused."""
    assert run("event", "create", "ev", "--ruleset", "unhas").exit_code == 0
    titled = tmp_path / "peserta.csv"
    titled.write_text(
        "DAFTAR PESERTA PIALA 2026;\n;\nnama;kelompok\nAna;KG A\nBudi;KG B\nANA;KG A\n"
    )
    refused(
        run("event", "roster", "ev", titled), "peserta.csv, line 6, column nama (player)", "line 4"
    )
    titled.write_text("DAFTAR PESERTA PIALA 2026;\n;\nnama;kelompok\nAna;KG A\nBudi;KG B\n")
    r = run("event", "roster", "ev", titled)
    assert r.exit_code == 0, r.output
    with connect(db_path, read_only=True) as con:
        assert con.execute('SELECT player, "group" FROM entrants ORDER BY 1').fetchall() == [
            ("Ana", "KG A"),
            ("Budi", "KG B"),
        ]
    titled.write_text("DAFTAR PESERTA PIALA 2026\n\nAna\nBudi\n")
    refused(run("event", "roster", "ev", titled), "peserta.csv", "column player")


# --- draws -------------------------------------------------------------------------------------


def test_a_first_round_draw_is_stored_with_its_seed_and_the_swap_schedule(store, tmp_path):
    r = setup_event(tmp_path)
    assert "seed 3" in r.output
    with connect(store, read_only=True) as con:
        draws = con.sql("SELECT event, round, seed, reason, current FROM draws").fetchall()
        seats = con.sql('SELECT * FROM seatings ORDER BY "table", hand, chair').pl()
        rounds = con.sql("SELECT round FROM rounds WHERE event = 'ev'").fetchall()
        # by hand, Art. 1.14-1.15: hands 1-2 S; 3-6 A<->C; 7-10 also B<->D
        for table in ("1", "2"):
            a, b, c, d = start_of(con, "ev", "R1", table)
            for hand, want in ((2, (a, b, c, d)), (3, (c, b, a, d)), (6, (c, b, a, d)), (7, (c, d, a, b)), (10, (c, d, a, b))):  # fmt: skip
                got = dict(
                    seats.filter((pl.col("table") == table) & (pl.col("hand") == hand))
                    .select("chair", "player")
                    .iter_rows()
                )
                assert tuple(got.get(ch) for ch in "ABCD") == want
    assert draws == [("ev", "R1", 3, None, True)]
    assert rounds == [("R1",)]
    assert seats.height == 8 * 10
    assert sorted(seats.filter(pl.col("hand") == 1)["player"].to_list()) == sorted(EIGHT)


def test_same_seed_same_roster_same_draw(tmp_path, monkeypatch):
    shown = []
    for name in ("one", "two"):
        monkeypatch.setenv("DOMINO_DB", str(tmp_path / f"{name}.duckdb"))
        setup_event(tmp_path, seed=99)
        with duckdb.connect(str(tmp_path / f"{name}.duckdb"), read_only=True) as con:
            shown.append(
                con.sql('SELECT "table", hand, chair, player FROM seatings ORDER BY ALL').fetchall()
            )
    assert shown[0] == shown[1]


@pytest.mark.parametrize("count", [1, 2, 5])
def test_counts_that_cannot_be_seated_are_refused(db_path, tmp_path, count):
    assert run("event", "create", "ev", "--ruleset", "unhas").exit_code == 0
    assert run("event", "roster", "ev", roster(tmp_path, EIGHT[:count])).exit_code == 0
    refused(run("draw", "--event", "ev", "--round", "R1"), f"{count} players cannot be seated")


def test_a_session_of_tables_of_four_says_so_when_the_roster_does_not_divide(db_path, tmp_path):
    """pepet seats tables of 4 only: "9 players cannot be seated (tables of 3 and 4 cannot
    hold 1, 2 or 5)" named tables it does not have, and a count it can hold."""
    assert run("event", "create", "lg", "--ruleset", "pepet").exit_code == 0
    names = [*EIGHT, "Indah"]
    assert run("event", "roster", "lg", roster(tmp_path, names)).exit_code == 0
    text = refused(run("draw", "--event", "lg", "--round", "S1"), "9 players cannot be seated")
    assert "(tables of 4 only: the players must be a multiple of 4)" in text


def test_a_roster_set_again_after_its_round_was_drawn_is_said(store, tmp_path):
    """Before: setting a roster again after R1 was drawn from the old one replaced it
    without a word (``--clear`` alone was refused), R1's sheets then seating a player no
    longer entered and leaving a new entrant out. Said now when it is set, by `domino
    event show` and the Organiser page, until the round is drawn again or played; a
    series (pepet) says it of every session drawn and not yet played."""
    setup_event(tmp_path)  # ev: R1 drawn from EIGHT
    swapped = [*EIGHT[:7], "Indah"]
    res = run("event", "roster", "ev", roster(tmp_path, swapped, name="again.csv"))
    said = (
        "round R1 is drawn from the roster as it was (seated, no longer on it: Hadi; on it, "
        "not seated: Indah): draw it again (domino draw --reason, or the Organiser page) "
        "before its tables are played"
    )
    assert res.exit_code == 0 and said in " ".join(res.stderr.split()), res.output
    assert said in " ".join(run("event", "show", "ev").stderr.split())
    assert (
        run("draw", "--event", "ev", "--round", "R1", "--reason", "Indah for Hadi").exit_code == 0
    )
    assert "warning" not in run("event", "show", "ev").stderr
    # played: the draw is the record of what was played, the roster may change after it
    with connect(store) as con:
        start = start_of(con, "ev", "R1", "1")
        load(con, tmp_path, play(start), name="meja1.csv")
    res = run("event", "roster", "ev", roster(tmp_path, EIGHT, name="back.csv"))
    assert res.exit_code == 0 and "drawn from the roster" not in res.stderr
    # a series: each session drawn and not yet played
    assert run("event", "create", "lg", "--ruleset", "pepet").exit_code == 0
    assert run("event", "roster", "lg", roster(tmp_path, EIGHT)).exit_code == 0
    for s in ("S1", "S2"):
        assert run("draw", "--event", "lg", "--round", s, "--seed", 1).exit_code == 0
    res = run("event", "roster", "lg", roster(tmp_path, EIGHT[:4], name="four.csv"))
    lines = [ln for ln in res.stderr.splitlines() if "drawn from the roster" in ln]
    assert len(lines) == 2 and "round S1" in lines[0] and "round S2" in lines[1], res.stderr
    assert "seated, no longer on it: Eko, Fani, Gita, Hadi)" in " ".join(lines[0].split())


def test_draw_refusals_before_anything_is_there(db_path, tmp_path):
    refused(run("draw", "--event", "ev", "--round", "R1"), "no event ev")
    assert run("event", "create", "ev", "--ruleset", "unhas").exit_code == 0
    refused(run("draw", "--event", "ev", "--round", "R1"), "no entrants", "event roster")


@pytest.mark.parametrize("label", ["", "   "])
def test_a_round_without_a_label_is_not_drawn(store, tmp_path, label):
    """`domino draw --round ''` drew and stored a round named "", shown in every round
    picker and in `domino event show` as a round without a name."""
    setup_event(tmp_path)
    refused(run("draw", "--event", "ev", "--round", label), "needs a label", "e.g. R1")
    with connect(store, read_only=True) as con:
        assert con.sql("SELECT DISTINCT round FROM draws").fetchall() == [("R1",)]


def test_a_redraw_needs_a_reason_and_keeps_the_history(db_path, tmp_path):
    setup_event(tmp_path)
    refused(run("draw", "--event", "ev", "--round", "R1", "--seed", 4), "redraw needs a reason")
    r = run("draw", "--event", "ev", "--round", "R1", "--seed", 4, "--reason", "Hadi late")
    assert r.exit_code == 0, r.output
    with connect(db_path, read_only=True) as con:
        rows = con.sql("SELECT seed, reason, current FROM draws ORDER BY drawn_at").fetchall()
        assert con.sql("SELECT count(*) FROM seatings").fetchall() == [(80,)]
    assert rows == [(3, None, False), (4, "Hadi late", True)]


def test_a_round_with_results_is_not_redrawn(db_path, tmp_path):
    setup_event(tmp_path)
    with connect(db_path) as con:
        load(con, tmp_path, play(start_of(con, "ev", "R1", "1")))
    r = run("draw", "--event", "ev", "--round", "R1", "--reason", "again")
    refused(r, "round R1 already has results")
    # its one table withdrawn (loaded before the round was played for real): drawn again
    r = run("withdraw", "--event", "ev", "--round", "R1", "--table", "1", "--reason", "a test run")
    assert r.exit_code == 0, r.output
    r = run("draw", "--event", "ev", "--round", "R1", "--reason", "again")
    assert r.exit_code == 0, r.output


def test_the_next_round_waits_for_results_complete_tables_and_tie_breaks(db_path, tmp_path):
    setup_event(tmp_path)
    refused(run("draw", "--event", "ev", "--round", "R2"), "round R1 has no results yet")
    with connect(db_path) as con:
        t1, t2 = start_of(con, "ev", "R1", "1"), start_of(con, "ev", "R1", "2")
        load(con, tmp_path, play(t1))
    # table 2 drawn but not loaded: incomplete
    refused(
        run("draw", "--event", "ev", "--round", "R2"), "round R1 is not complete yet at table 2;"
    )
    with connect(db_path) as con:
        load(con, tmp_path, play(t2)[:5], name="t2.csv")
    refused(
        run("draw", "--event", "ev", "--round", "R2"), "round R1 is not complete yet at table 2;"
    )
    # a tie for the second place decides who qualifies: refused until the tie-break
    s = [p for p in t2]
    tie = [s[0], s[1], s[2], s[3], s[0], s[1], s[2], s[3], s[0], s[0]]
    with connect(db_path) as con:
        load(con, tmp_path, play(t2, table="2", winners=tie), name="t2.csv")
    refused(run("draw", "--event", "ev", "--round", "R2"), "qualifies at table 2;")
    with connect(db_path) as con:
        load(con, tmp_path, play(t2, table="2"), name="t2.csv", reason="score sheet misread")
    r = run("draw", "--event", "ev", "--round", "R2", "--seed", 1)
    assert r.exit_code == 0, r.output
    with connect(db_path, read_only=True) as con:
        final = {
            p
            for (p,) in con.sql(
                "SELECT DISTINCT player FROM seatings WHERE round = 'R2'"
            ).fetchall()
        }
        quals = {
            p for (p,) in con.sql("SELECT player FROM table_standings WHERE qualified").fetchall()
        }
        order = [r for (r,) in con.sql("SELECT round FROM rounds ORDER BY round_no").fetchall()]
    # four qualifiers (the two who won hands at each table): the final table
    winners = {p for t in (t1, t2) for p in [x for x in t if x][:2]}
    assert final == quals == winners
    assert order == ["R1", "R2"]


def test_no_round_is_drawn_after_the_final(db_path, tmp_path):
    """RULES.md: four or fewer qualifiers play the final table, and nothing follows it. It
    was "2 players cannot be seated ... change the roster" (the final's top 2 as a table)."""
    setup_event(tmp_path)
    with connect(db_path) as con:
        for t in ("1", "2"):
            load(con, tmp_path, play(start_of(con, "ev", "R1", t), table=t), name=f"t{t}.csv")
    assert run("draw", "--event", "ev", "--round", "R2", "--seed", 1).exit_code == 0
    with connect(db_path) as con:
        load(con, tmp_path, play(start_of(con, "ev", "R2", "1"), rnd="R2")[:9], name="f.csv")
    # the final still open: that is what holds the next round up
    refused(run("draw", "--event", "ev", "--round", "R3"), "round R2 is not complete yet")
    with connect(db_path) as con:
        load(con, tmp_path, play(start_of(con, "ev", "R2", "1"), rnd="R2"), name="f.csv")
    text = refused(run("draw", "--event", "ev", "--round", "R3"), "round R2 was the final")
    assert "cannot be seated" not in text
    with connect(db_path, read_only=True) as con:
        assert con.sql("SELECT count(*) FROM draws_t WHERE round = 'R3'").fetchall() == [(0,)]


def test_a_refused_next_round_names_every_table_that_holds_it_up(db_path, tmp_path):
    """The organiser sees every table to chase at once, in table order, not one a try."""
    setup_event(tmp_path)
    with connect(db_path) as con:
        starts = [start_of(con, "ev", "R1", t) for t in ("1", "2")]
        for t, start in zip(("2", "1"), reversed(starts), strict=True):
            load(con, tmp_path, play(start, table=t)[:5], name=f"t{t}.csv")
    refused(run("draw", "--event", "ev", "--round", "R2"), "not complete yet at table 1, 2;")
    with connect(db_path) as con:
        for t, start in zip(("1", "2"), starts, strict=True):
            s = [p for p in start if p]
            tie = [s[0], s[1], s[2], s[3], s[0], s[1], s[2], s[3], s[0], s[0]]
            load(con, tmp_path, play(start, table=t, winners=tie), name=f"t{t}.csv", reason="sheet")
    refused(run("draw", "--event", "ev", "--round", "R2"), "qualifies at table 1, 2;")
    with connect(db_path) as con:
        load(con, tmp_path, play(starts[0], table="1"), name="t1.csv", reason="misread")
    refused(run("draw", "--event", "ev", "--round", "R2"), "qualifies at table 2;")


def test_event_list_and_show_say_where_each_event_stands(store, tmp_path):
    """On a file and on PostgreSQL (the report's SQL is translated there)."""
    r = run("event", "list")
    assert r.exit_code == 0 and "no events yet" in r.output
    setup_event(tmp_path)  # 8 entrants, R1 drawn with seed 3: two tables
    r = run("event", "list", "--format", "csv")
    assert r.output.splitlines() == [
        "event,title,ruleset,event_date,venue,level,league,entrants,rounds_drawn,rounds_played,"
        "matches",
        "ev,Piala Dies,unhas,,,,default,8,1,0,0",
    ]
    r = run("event", "show", "ev")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[:2] == ["ev — Piala Dies", "unhas · 8 entrant(s)"]
    assert run("event", "show", "ev", "--format", "csv").output.splitlines() == [
        "round,seed,tables_drawn,tables_loaded,tables_complete,tiebreaks_owed",
        "R1,3,2,0,0,0",
    ]
    with connect(store) as con:
        t1, t2 = start_of(con, "ev", "R1", "1"), start_of(con, "ev", "R1", "2")
        load(con, tmp_path, play(t1), name="t1.csv")
        s = [p for p in t2]
        tie = [s[0], s[1], s[2], s[3], s[0], s[1], s[2], s[3], s[0], s[0]]
        load(con, tmp_path, play(t2, table="2", winners=tie), name="t2.csv")
    # both tables loaded and complete; table 2 owes the tie-break that decides who goes on
    assert run("event", "show", "ev", "--format", "csv").output.splitlines()[1] == "R1,3,2,2,2,1"
    assert run("event", "list", "--format", "csv").output.splitlines()[1].endswith(",8,1,1,2")
    r = run("event", "show", "nope")
    assert r.exit_code == 1 and "no event 'nope'" in r.output


def test_a_pepet_session_has_one_row_per_chair_and_no_hand(db_path, tmp_path):
    players = [f"Pemain {i}" for i in range(12)]
    setup_event(tmp_path, players, ruleset="pepet")
    assert run("draw", "--event", "ev", "--round", "S2", "--seed", 8).exit_code == 0
    with connect(db_path, read_only=True) as con:
        s1 = con.sql("SELECT \"table\", player_key FROM draw_seats WHERE round = 'R1'").fetchall()
        s2 = con.sql("SELECT \"table\", player FROM seatings WHERE round = 'S2'").pl()
        hands = con.sql("SELECT DISTINCT hand FROM seatings").fetchall()
    assert hands == [(None,)]
    assert s2.height == 12 and s2.group_by("table").len()["len"].to_list() == [4, 4, 4]
    first = [[k for t, k in s1 if t == x] for x in ("1", "2", "3")]
    second = [
        [p.lower() for p in s2.filter(pl.col("table") == x)["player"]] for x in ("1", "2", "3")
    ]
    # 12 players, 3 tables: each second-session table repeats at least one pair; the least
    # possible is one per table (sum of squares 18 + 18 - 6 + 3·4 = 42)
    assert seating.pair_cost(second, seating.met_pairs(first)) == 42


# --- a load against the draw -----------------------------------------------------------------


def test_a_sheet_as_drawn_loads(store, tmp_path):
    setup_event(tmp_path)
    with connect(store) as con:
        p = load(con, tmp_path, play(start_of(con, "ev", "R1", "1")))
    assert p.count("new") == 1, p.problems


def test_a_player_in_the_wrong_chair_is_refused_with_line_and_column(db_path, tmp_path):
    setup_event(tmp_path)
    with connect(db_path) as con:
        a, b, c, d = start_of(con, "ev", "R1", "1")
        rows = play((b, a, c, d))  # A and B written the other way round
        p = load(con, tmp_path, rows, name="meja1.csv")
    assert p.count("rejected") == 1 and p.count("new") == 0
    chair = p.problems.filter(pl.col("code") == "draw_chair").sort("column")
    assert chair.select("file", "line", "column").rows() == [
        ("meja1.csv", 2, "player_a"),
        ("meja1.csv", 2, "player_b"),
    ]
    assert (
        f"{b} sits in chair A in hand 1, but the draw seats {b} in chair B" in chair["message"][0]
    )
    with connect(db_path, read_only=True) as con:
        assert con.sql("SELECT count(*) FROM hands").fetchall() == [(0,)]


def test_a_pepet_seating_in_other_chairs_than_drawn_loads_with_a_warning(db_path, tmp_path):
    """Pepet points do not depend on chairs ([draw] chairs = "warn"): a session table whose
    players sat (or were written) in other chairs than drawn was refused, and the sheet had
    to be written again column by column, pips and all. It loads, said per player."""
    from tests.draw_fixture import create_event, seat_round
    from tests.rules_helpers import hand

    drawn = {"A": "Ana", "B": "Budi", "C": "Cici", "D": "Dedi"}
    rows = [
        hand(1, "A", "out", pips=(None, 5, 10, 20), seats=("Budi", "Ana", "Cici", "Dedi"))
        | {"event": "liga", "ruleset": "pepet", "round": "S1"}
    ]
    with connect(db_path) as con:
        create_event(con, "liga", "pepet", title="Liga")
        seat_round(con, "liga", "S1", {"1": drawn}, per_hand=None)
        p = load(con, tmp_path, rows, name="meja1.csv")
    assert p.count("new") == 1
    chair = p.problems.filter(pl.col("code") == "draw_chair").sort("column")
    assert chair.select("file", "line", "column", "severity").rows() == [
        ("meja1.csv", 2, "player_a", "warning"),
        ("meja1.csv", 2, "player_b", "warning"),
    ]
    assert chair["message"][0] == (
        "Budi sits in chair A in hand 1, but the draw gives Budi chair B: loaded as written "
        "(no point of this rulebook depends on a chair); check that each player's name heads "
        "their own column"
    )


def test_a_player_not_drawn_at_the_table_and_a_table_not_drawn_are_refused(db_path, tmp_path):
    setup_event(tmp_path)
    with connect(db_path) as con:
        a, b, c, d = start_of(con, "ev", "R1", "1")
        other = start_of(con, "ev", "R1", "2")[0]
        rows = [
            {k: (other if v == d and k.startswith("player_") else v) for k, v in r.items()}
            for r in play((a, b, c, d))
        ]
        p = load(con, tmp_path, rows, name="meja1.csv")
        stray = load(con, tmp_path, play((a, b, c, d), table="9"), name="meja9.csv")
    bad = p.problems.filter(pl.col("code") == "draw_player")
    assert bad.select("file", "line").rows() == [("meja1.csv", 2)]
    assert bad["column"][0] == "player_d"  # where the drawn D sat in hand 1
    assert f"{other} is not drawn at table 1 of round R1" in bad["message"][0]
    assert stray.problems.filter(pl.col("code") == "draw_table").select(
        "file", "line", "column"
    ).rows() == [("meja9.csv", 2, "table")]
    assert p.count("rejected") == 1 and stray.count("rejected") == 1


def test_a_partial_upload_of_a_drawn_round_is_no_problem(db_path, tmp_path):
    setup_event(tmp_path)
    with connect(db_path) as con:
        p = load(con, tmp_path, play(start_of(con, "ev", "R1", "2"), table="2"))
    assert p.count("new") == 1
    assert not p.problems.filter(pl.col("code").str.starts_with("draw_")).height


def test_a_draw_made_by_mistake_is_cancelled_and_kept_in_the_history(store, tmp_path):
    """A round drawn in the wrong event (or under a mistyped label) is cancelled with a
    reason while nothing of it is loaded: its seating leaves `seatings` and the round
    leaves the event's rounds; the draw stays in `draws`, no longer current. Drawn again,
    it needs no reason. A round in use (a table loaded) keeps its draw. On both stores."""
    setup_event(tmp_path)
    refused(run("draw", "--event", "ev", "--round", "R1", "--cancel"), "needs a reason")
    refused(
        run("draw", "--event", "ev", "--round", "R9", "--cancel", "--reason", "x"),
        "round R9 of event ev has no current draw",
    )
    refused(
        run("draw", "--event", "nope", "--round", "R1", "--cancel", "--reason", "x"), "no event"
    )
    with connect(store, read_only=True) as con:
        before = stats.data_stamp(con)
    r = run("draw", "--event", "ev", "--round", "R1", "--cancel", "--reason", "wrong event")
    assert r.exit_code == 0, r.output
    with connect(store, read_only=True) as con:
        assert stats.data_stamp(con) != before, "open screens drop the seating at once"
    assert "draw 1 cancelled" in " ".join(r.output.split())
    with connect(store, read_only=True) as con:
        assert con.sql("SELECT count(*) FROM seatings").fetchall() == [(0,)]
        assert con.sql("SELECT count(*) FROM rounds WHERE event = 'ev'").fetchall() == [(0,)]
        assert queries.rounds(con, "ev") == [], "nor on the road to the final"
        assert con.sql("SELECT seed, current FROM draws").fetchall() == [(3, False)]
        assert con.sql(
            "SELECT cancelled_by IS NOT NULL, cancel_reason FROM draws_t"
        ).fetchall() == [(True, "wrong event")]
    refused(
        run("draw", "--event", "ev", "--round", "R1", "--cancel", "--reason", "again"),
        "no current draw",
    )
    r = run("draw", "--event", "ev", "--round", "R1", "--seed", 5)  # not a redraw: no reason
    assert r.exit_code == 0, r.output
    with connect(store) as con:
        assert con.sql("SELECT count(*) FROM seatings").fetchall() == [(80,)]
        load(con, tmp_path, play(start_of(con, "ev", "R1", "1")))
    r = run("draw", "--event", "ev", "--round", "R1", "--cancel", "--reason", "late")
    refused(r, "round R1 already has a table loaded or open for hand entry")
    with connect(store, read_only=True) as con:
        assert con.sql("SELECT seed FROM draws WHERE current").fetchall() == [(5,)]


def test_an_event_whose_only_draw_was_cancelled_can_be_deleted(db_path, tmp_path):
    """Roster, draw and all: cancel the draw, empty the roster, delete the event."""
    setup_event(tmp_path)
    refused(run("event", "roster", "ev", "--clear"), "round R1 of event ev is drawn", "--cancel")
    assert run("draw", "--event", "ev", "--round", "R1", "--cancel", "--reason", "x").exit_code == 0
    refused(run("event", "delete", "ev", "--reason", "made by mistake"), "has a roster")
    r = run("event", "roster", "ev", "--clear")
    assert r.exit_code == 0 and "8 entrant(s) removed" in r.output, r.output
    assert run("event", "roster", "ev").exit_code == 2, "a FILE or --clear"
    assert run("event", "roster", "ev", roster(tmp_path, EIGHT), "--clear").exit_code == 2
    r = run("event", "delete", "ev", "--reason", "made by mistake")
    assert r.exit_code == 0, r.output
    with connect(db_path, read_only=True) as con:
        assert con.sql("SELECT count(*) FROM draws_t").fetchall() == [(0,)]
        assert con.sql("SELECT count(*) FROM draw_seats").fetchall() == [(0,)]


def test_a_withdrawn_table_still_open_for_hand_entry_holds_no_draw_or_event(store, tmp_path):
    """A table entered at the phone and then withdrawn by the jury takes no hands: its
    entry can be neither saved nor closed. It no longer keeps the round's draw from being
    cancelled, nor the event from being deleted, as an entry of a table in play does."""
    setup_event(tmp_path)
    with connect(store) as con:
        load(con, tmp_path, play(start_of(con, "ev", "R1", "1")))
        con.execute(  # as the hand-entry page opens the table on its first saved hand
            'INSERT INTO match_entry (event, round, "table", opened_by, opened_at) '
            "VALUES ('ev', 'R1', '1', 'wasit', ?)",
            [datetime.now()],
        )
    r = run("withdraw", "--event", "ev", "--round", "R1", "--table", "1", "--reason", "x")
    assert r.exit_code == 0, r.output
    with connect(store) as con:
        con.execute(  # and a table of the round still in play
            'INSERT INTO match_entry (event, round, "table", opened_by, opened_at) '
            "VALUES ('ev', 'R1', '2', 'wasit', ?)",
            [datetime.now()],
        )
    r = run("draw", "--event", "ev", "--round", "R1", "--cancel", "--reason", "wrong event")
    refused(r, "round R1 already has a table loaded or open for hand entry")
    refused(run("event", "delete", "ev", "--reason", "x"), "a table open for hand entry")
    with connect(store) as con:
        con.execute("DELETE FROM match_entry WHERE \"table\" = '2'")
    r = run("draw", "--event", "ev", "--round", "R1", "--cancel", "--reason", "wrong event")
    assert r.exit_code == 0, r.output
    assert run("event", "roster", "ev", "--clear").exit_code == 0
    r = run("event", "delete", "ev", "--reason", "made by mistake")
    assert r.exit_code == 0, r.output
    with connect(store, read_only=True) as con:
        assert con.sql("SELECT count(*) FROM match_entry").fetchall() == [(0,)]


def test_one_group_written_in_other_capitals_is_kept_apart_as_one(db_path, tmp_path):
    """Before: a roster writing ``KG A`` on one row and ``kg a`` on another made two groups
    for the draw, which then seated Ana and Budi at one table for some seeds (4 of these
    12); the roster's check against the registry reads group names in any capitals."""
    assert run("event", "create", "ev", "--ruleset", "unhas").exit_code == 0
    groups = {"Ana": "KG A", "Budi": "kg a"}
    assert run("event", "roster", "ev", roster(tmp_path, EIGHT, groups)).exit_code == 0
    together = []
    for seed in range(12):
        reason = ["--reason", "again"] if seed else []
        r = run("draw", "--event", "ev", "--round", "R1", "--seed", seed, *reason)
        assert r.exit_code == 0, r.output
        with connect(db_path, read_only=True) as con:
            tables = dict(
                con.execute(
                    "SELECT player, \"table\" FROM seatings WHERE event = 'ev' AND hand = 1"
                ).fetchall()
            )
        if tables["Ana"] == tables["Budi"]:
            together.append(seed)
    assert together == []
