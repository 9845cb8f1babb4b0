"""Ratings (pipeline/ratings.py, view ``ratings``): golden values from the openskill
package itself on a worked set, and the properties HANDLOG.md promises.

The worked set (unhas, biasa wins: winner +2, the player above −1; seats by the swap
schedule, RULES.md Art. 1.14-1.15 — A↔C from hand 3, B↔D in hands 7-10):

* T1 ``R1``, start Ana Budi Cici Dedi, Ana wins all 10. Above Ana: Dedi in hands 1-2,
  Budi in 3-6, Dedi in 7-10. Ana +20, Cici 0, Budi −4, Dedi −6 → Ana 1, Cici 2, Budi 3,
  Dedi 4.
* T2 ``R2``, start Ana Budi Cici Eka, Ana wins 1-5, Budi 6-10. Ana: +10, −4 (Ana above
  Budi in 7-10) = 6; Budi +10, −3 (above Ana in 3-5) = 7; Cici −1 (above Budi in 6);
  Eka −2 (above Ana in 1-2) → Budi 1, Ana 2, Cici 3, Eka 4.
* T3 ``R3``, start Ana Budi Cici Dedi, winners Cici Cici Ana Ana Ana Budi Budi Budi Dedi
  Dedi. Ana 6 − 2 = 4; Dedi 4; Budi −2 −3 +2 +4 = 1; Cici 4 −1 −2 = 1 → Ana 1, Dedi 1,
  Budi 3, Cici 3 (ties share a rank).
* T4 ``R4``: 5 hands only, still in progress: not rated.
"""

import random
import threading
import time
from datetime import date

import polars as pl
import pytest
from openskill.models import PlackettLuce

from pipeline import ratings
from tests.rules_helpers import biasa_match, load, write_log

ABCD = ("Ana", "Budi", "Cici", "Dedi")
ABCE = ("Ana", "Budi", "Cici", "Eka")
T3_WINNERS = ["Cici", "Cici", "Ana", "Ana", "Ana", "Budi", "Budi", "Budi", "Dedi", "Dedi"]

#: the worked tables: rows, and the finishing order worked out by hand (docstring)
WORKED = {
    "R1": (
        lambda **w: biasa_match(["Ana"] * 10, ABCD, **w),
        {"Ana": 1, "Cici": 2, "Budi": 3, "Dedi": 4},
    ),
    "R2": (
        lambda **w: biasa_match(["Ana"] * 5 + ["Budi"] * 5, ABCE, **w),
        {"Budi": 1, "Ana": 2, "Cici": 3, "Eka": 4},
    ),
    "R3": (
        lambda **w: biasa_match(T3_WINNERS, ABCD, **w),
        {"Ana": 1, "Dedi": 1, "Budi": 3, "Cici": 3},
    ),
}


def worked_rows(round_: str, event: str = "liga") -> list[dict]:
    return WORKED[round_][0](event=event, round=round_, table="1")


def in_progress(event: str = "liga") -> list[dict]:
    return biasa_match(["Ana"] * 5, ABCD, event=event, round="R4", table="1")


def expected(order: list[dict[str, int]]) -> dict[str, tuple[float, float, int]]:
    """The package's public API applied table by table in the given order."""
    model = PlackettLuce()
    state: dict[str, tuple[object, int]] = {}
    for ranks in order:
        names = list(ranks)
        teams = [[state[n][0] if n in state else model.rating(name=n)] for n in names]
        out = model.rate(teams, ranks=[float(ranks[n]) for n in names])
        for n, team in zip(names, out, strict=True):
            state[n] = (team[0], (state[n][1] if n in state else 0) + 1)
    return {n: (r.mu, r.sigma, m) for n, (r, m) in state.items()}  # type: ignore[attr-defined]


def current(con, ruleset: str = "unhas") -> dict[str, tuple[float, float, int]]:
    rows = con.execute(
        "SELECT player, mu, sigma, matches, ordinal FROM ratings WHERE ruleset = ?", [ruleset]
    ).fetchall()
    for _, mu, sigma, _, ordinal in rows:
        assert ordinal == pytest.approx(mu - 3 * sigma, abs=1e-12)
    return {p: (mu, sg, int(m)) for p, mu, sg, m, _ in rows}


def assert_same(got: dict, want: dict) -> None:
    assert set(got) == set(want)
    for name, (mu, sigma, m) in want.items():
        assert got[name][0] == pytest.approx(mu, abs=1e-9), name
        assert got[name][1] == pytest.approx(sigma, abs=1e-9), name
        assert got[name][2] == m, name


def test_worked_tables_finish_as_worked_out_by_hand(con, tmp_path):
    load(con, tmp_path, [r for rd in ("R1", "R2", "R3") for r in worked_rows(rd)])
    for rd, (_, ranks) in WORKED.items():
        got = dict(
            con.execute(
                "SELECT player, rank FROM table_standings WHERE event = 'liga' AND round = ?", [rd]
            ).fetchall()
        )
        assert got == ranks


def test_golden_ratings_equal_the_package_applied_by_hand(con, tmp_path):
    rows = [r for rd in ("R1", "R2", "R3") for r in worked_rows(rd)] + in_progress()
    load(con, tmp_path, rows)
    want = expected([WORKED[r][1] for r in ("R1", "R2", "R3")])
    assert_same(current(con), want)
    # the view's columns are the contract's, numbers as DOUBLE
    cols = con.execute("DESCRIBE ratings").fetchall()
    assert [c[0] for c in cols[:6]] == ["ruleset", "player", "mu", "sigma", "ordinal", "matches"]
    assert {c[1] for c in cols[2:6]} == {"DOUBLE"}
    # Ana played three rated tables (the one in progress does not count)
    assert current(con)["Ana"][2] == 3
    hist = con.execute(
        "SELECT event, round, rank, matches FROM rating_history WHERE player = 'Ana' ORDER BY seq"
    ).fetchall()
    assert hist == [("liga", "R1", 1, 1), ("liga", "R2", 2, 2), ("liga", "R3", 1, 3)]


def test_a_walkover_table_is_not_rated(con, tmp_path):
    from tests.rules_helpers import hand

    wo = [
        hand(
            None,
            None,
            "wo",
            seats=("Dedi", "Fajar", None, None),
            event="liga",
            round="R1",
            table="1",
        )
    ]
    load(con, tmp_path, wo + worked_rows("R2"))
    assert con.execute(
        "SELECT bool_and(walkover) FROM table_standings WHERE round = 'R1'"
    ).fetchall() == [(True,)]
    assert con.execute("SELECT count(*) FROM rating_tables").fetchall()[0][0] == 1
    assert "Dedi" not in current(con)


def test_a_player_ahead_of_everyone_at_every_table_rises(con, tmp_path):
    rng = random.Random(7)
    others = ["Budi", "Cici", "Dedi", "Eka", "Fajar", "Gita", "Hadi"]
    rows = []
    for i in range(6):
        seats = ["Ana", *rng.sample(others, 3)]
        rng.shuffle(seats)
        rows += biasa_match(["Ana"] * 10, seats, event="liga", round=f"R{i + 1}", table="1")
    load(con, tmp_path, rows)
    steps = con.execute(
        "SELECT rank, ordinal, change FROM rating_history WHERE player = 'Ana' ORDER BY seq"
    ).fetchall()
    assert len(steps) == 6
    assert all(rank == 1 and change > 0 for rank, _, change in steps)
    ordinals = [o for _, o, _ in steps]
    assert ordinals == sorted(ordinals) and len(set(ordinals)) == 6


def test_loading_order_does_not_change_final_ratings(con, tmp_path):
    # one file per round, loaded R3, R1, R2: each later load comes before a rated table
    for rd in ("R3", "R1", "R2"):
        load(con, tmp_path, worked_rows(rd), name=f"{rd}.csv")
    want = expected([WORKED[r][1] for r in ("R1", "R2", "R3")])
    assert_same(current(con), want)
    assert con.execute("SELECT round FROM rating_tables ORDER BY seq").fetchall() == [
        ("R1",),
        ("R2",),
        ("R3",),
    ]


def test_event_date_orders_the_ladder_before_the_name(con, tmp_path):
    # "b-early" is played first by date although "a-late" sorts first by name and loads first
    con.execute(
        "INSERT INTO events (event, ruleset, params_hash, created_at, models, event_date) "
        "SELECT 'b-early', 'unhas', 'x', now(), 'unhas', ?",
        [date(2026, 1, 1)],
    )
    load(con, tmp_path, worked_rows("R2", event="a-late"), name="late.csv")
    load(con, tmp_path, worked_rows("R1", event="b-early"), name="early.csv")
    assert con.execute("SELECT event FROM rating_tables ORDER BY seq").fetchall() == [
        ("b-early",),
        ("a-late",),
    ]
    assert_same(current(con), expected([WORKED["R1"][1], WORKED["R2"][1]]))


def test_a_correction_changes_ratings_as_a_fresh_recompute(con, tmp_path):
    for rd in ("R1", "R2", "R3"):
        load(con, tmp_path, worked_rows(rd), name=f"{rd}.csv")
    # R1 corrected: Budi, not Ana, won all ten hands
    fixed = biasa_match(["Budi"] * 10, ABCD, event="liga", round="R1", table="1")
    plan = load(con, tmp_path, fixed, name="R1.csv", reason="wrong winner noted")
    assert {o.status for o in plan.outcomes} == {"correction"}
    after = current(con)
    n = ratings.recompute(con)
    assert n == 3
    assert_same(after, current(con))
    ranks_r1 = dict(
        con.execute("SELECT player, rank FROM table_standings WHERE round = 'R1'").fetchall()
    )
    assert_same(after, expected([ranks_r1, WORKED["R2"][1], WORKED["R3"][1]]))


def test_appending_in_order_only_adds_history(con, tmp_path):
    load(con, tmp_path, worked_rows("R1"), name="R1.csv")
    first = con.execute(
        "SELECT * FROM rating_history_t WHERE seq = 1 ORDER BY player_key"
    ).fetchall()
    load(con, tmp_path, worked_rows("R2"), name="R2.csv")
    assert (
        con.execute("SELECT * FROM rating_history_t WHERE seq = 1 ORDER BY player_key").fetchall()
        == first
    )
    assert con.execute("SELECT max(seq) FROM rating_tables").fetchall()[0][0] == 2
    assert_same(current(con), expected([WORKED["R1"][1], WORKED["R2"][1]]))


def test_rescore_command_recomputes(con, tmp_path):
    from pipeline.scoring.rescore import rescore

    load(con, tmp_path, [r for rd in ("R1", "R2") for r in worked_rows(rd)])
    con.execute("DELETE FROM ratings_t")
    rescore(con)
    assert_same(current(con), expected([WORKED["R1"][1], WORKED["R2"][1]]))


# --- an upload replays only what follows it; what reorders tables without a load ---------


def _ladder(con) -> list[tuple]:
    return con.execute(
        'SELECT seq, event, round, "table", fingerprint FROM rating_tables ORDER BY seq'
    ).fetchall()


def _forbid_full_diff(monkeypatch) -> None:
    def refuse(*_a, **_k):
        raise AssertionError("an upload compared the whole ladder")

    monkeypatch.setattr(ratings, "_rebuild_from_diff", refuse)


def test_a_table_loaded_into_the_middle_replays_the_tail_only(store, con, tmp_path, monkeypatch):
    load(con, tmp_path, worked_rows("R1"), name="R1.csv")
    load(con, tmp_path, worked_rows("R3"), name="R3.csv")
    kept = con.execute(
        "SELECT * FROM rating_history_t WHERE seq = 1 ORDER BY player_key"
    ).fetchall()
    _forbid_full_diff(monkeypatch)
    load(con, tmp_path, worked_rows("R2"), name="R2.csv")  # between R1 and R3 in play order
    assert [r[2] for r in _ladder(con)] == ["R1", "R2", "R3"]
    assert (
        con.execute("SELECT * FROM rating_history_t WHERE seq = 1 ORDER BY player_key").fetchall()
        == kept
    )
    want = expected([WORKED[r][1] for r in ("R1", "R2", "R3")])
    assert_same(current(con), want)
    monkeypatch.undo()
    ratings.recompute(con)
    assert_same(current(con), want)


def test_a_correction_that_seats_another_player_rewrites_both(store, con, tmp_path, monkeypatch):
    for rd in ("R1", "R2", "R3"):
        load(con, tmp_path, worked_rows(rd), name=f"{rd}.csv")
    _forbid_full_diff(monkeypatch)
    # R2 corrected: Fani, not Eka, sat in chair D; Eka has no other table and drops out
    fixed = biasa_match(
        ["Ana"] * 5 + ["Budi"] * 5,
        ("Ana", "Budi", "Cici", "Fani"),
        event="liga",
        round="R2",
        table="1",
    )
    load(con, tmp_path, fixed, name="R2.csv", reason="wrong name noted")
    after = current(con)
    assert "Fani" in after and "Eka" not in after
    monkeypatch.undo()
    ratings.recompute(con)
    assert_same(after, current(con))


def test_a_new_event_date_moves_its_tables_and_the_ratings_follow(con, tmp_path):
    from pipeline import events

    load(con, tmp_path, worked_rows("R1", event="a-first"), name="a.csv")
    load(con, tmp_path, worked_rows("R2", event="b-second"), name="b.csv")
    assert [r[1] for r in _ladder(con)] == ["a-first", "b-second"]
    events.save(con, "b-second", "unhas", event_date=date(2000, 1, 1))
    assert [r[1] for r in _ladder(con)] == ["b-second", "a-first"]
    assert_same(current(con), expected([WORKED["R2"][1], WORKED["R1"][1]]))


def test_the_organisers_round_order_reorders_the_ladder(store, con, tmp_path):
    from pipeline import rounds

    load(con, tmp_path, [r for rd in ("R1", "R2") for r in worked_rows(rd)])
    assert [r[2] for r in _ladder(con)] == ["R1", "R2"]
    rounds.set_order(con, "liga", ["R2", "R1"])
    assert [r[2] for r in _ladder(con)] == ["R2", "R1"]
    assert_same(current(con), expected([WORKED["R2"][1], WORKED["R1"][1]]))


def test_the_tables_an_upload_rates_are_its_own_rows_as_stored(store, con, tmp_path, monkeypatch):
    """The tables to rate after a load are taken from the load's own standings; they are
    the rows ``rated_tables.sql`` reads from the store for those tables (a walkover and a
    match in progress left out, play order kept), on both stores."""
    from tests.rules_helpers import hand

    compared: list[int] = []
    real = ratings.update

    def both_ways(c, written, standings, **kw):
        events = written.get_column("event").unique().to_list()
        rounds = ratings._rounds_of(c, events)
        c.register("_rating_scope", written.select(ratings.TABLE_KEY).unique())
        try:
            played = ratings._scope_events(c)
            for (rs,) in c.execute("SELECT DISTINCT ruleset FROM events").fetchall():
                every = c.sql(ratings._sql("rated_tables"), params={"ruleset": rs}).pl()
                stored = every.join(written, on=ratings.TABLE_KEY, how="semi")
                held = ratings._scope_rows(rs, played, rounds, standings)
                assert held.cast(stored.schema).equals(stored)
                compared.append(stored.height)
        finally:
            c.unregister("_rating_scope")
        return real(c, written, standings, **kw)

    monkeypatch.setattr(ratings, "update", both_ways)
    wo = hand(
        None, None, "wo", seats=("Gita", "Hadi", None, None), event="liga", round="R1", table="2"
    )
    load(con, tmp_path, worked_rows("R3") + worked_rows("R1") + [wo] + in_progress(), name="a.csv")
    load(con, tmp_path, worked_rows("R2") + worked_rows("R1", event="cup"), name="b.csv")
    assert compared == [8, 8]  # R1 and R3 of liga; then R2 of liga and R1 of cup
    want = expected([WORKED[r][1] for r in ("R1", "R1", "R2", "R3")])
    assert_same(current(con), want)


def test_the_rounds_of_many_events_are_the_rounds_views_rows(store, con, tmp_path):
    """An upload of more than a few events reads their rounds in one query (PostgreSQL
    with the list of events, DuckDB the whole view): the same rows as the view's own,
    for those events and no others, in any round order."""
    names = [f"ev{k:02d}" for k in range(ratings.FEW_EVENTS + 3)]
    rows = []
    for k, name in enumerate(names):
        for label in ("Final", "R10", "R2")[: 1 + k % 3]:
            rows += WORKED["R1"][0](event=name, round=label, table="1")
    load(con, tmp_path, rows)
    asked = names[1:]
    got = ratings._rounds_of(con, asked).sort("event", "round")
    view = (
        con.sql("SELECT event, round, round_no FROM rounds")
        .pl()
        .filter(pl.col("event").is_in(asked))
    )
    assert got.height == sum(1 + k % 3 for k in range(1, len(names)))
    assert got.rows() == view.sort("event", "round").rows()


# What the ladder's place of a table was before it was counted from the end: the rated
# tables played before it, and the highest place among them (equal when the ladder is
# in play order up to there).
_BEFORE = (
    "SELECT count(*), coalesce(max(t.seq), 0) FROM rating_tables t "
    "JOIN events e ON e.event = t.event WHERE t.ruleset = $ruleset AND "
    "(coalesce(e.event_date, cast(e.created_at AS date)) < $d OR "
    "(coalesce(e.event_date, cast(e.created_at AS date)) = $d AND t.event < $e))"
)
_BEFORE_IN_EVENT = (
    "SELECT count(*), coalesce(max(t.seq), 0) FROM rating_tables t "
    "JOIN (SELECT round, round_no FROM rounds WHERE event = $e) AS r ON r.round = t.round "
    "WHERE t.ruleset = $ruleset AND t.event = $e AND "
    '(r.round_no < $r OR (r.round_no = $r AND t."table" < $t))'
)


def _before(con, key) -> int | None:
    d, e, r, t = key
    n1, top1 = con.execute(_BEFORE, {"ruleset": "unhas", "d": d, "e": e}).fetchall()[0]
    n2, top2 = con.execute(
        _BEFORE_IN_EVENT, {"ruleset": "unhas", "e": e, "r": r, "t": t}
    ).fetchall()[0]
    n, top = int(n1) + int(n2), max(int(top1), int(top2))
    return n if n == top else None


def test_a_tables_place_counted_from_the_ladders_end_is_the_count_from_its_start(
    store, con, tmp_path
):
    """Where a late table joins the ladder is counted from the end (the tables after
    it), which a live upload finds among the newest; it is the same place as counting
    every table before it, for every rated table and for places between them, and both
    say when the ladder is out of play order."""
    rows = []
    for event in ("a-liga", "b-liga", "c-liga"):
        for rd in ("R2", "R1", "R3"):
            rows += worked_rows(rd, event=event)
    load(con, tmp_path, rows)
    ladder = con.execute(
        "SELECT t.seq, coalesce(e.event_date, cast(e.created_at AS date)), t.event, "
        'r.round_no, t."table" FROM rating_tables t JOIN events e USING (event) '
        "JOIN rounds r ON r.event = t.event AND r.round = t.round ORDER BY t.seq"
    ).fetchall()
    assert len(ladder) == 9
    last = ladder[-1][0]
    keys = [tuple(row[1:]) for row in ladder]
    # between tables too: a round's second table, an event after every one
    keys += [(*k[:3], "2") for k in keys] + [(keys[-1][0], "z-liga", 1, "1")]
    for key in keys:
        later = ratings._later_events(con, "unhas", key)
        assert ratings._kept_before(con, "unhas", key, last, later) == _before(con, key), key
    # the ladder out of play order (its second and eighth tables swapped): neither trusts it
    con.execute("UPDATE rating_tables SET seq = -seq WHERE seq IN (2, 8)")
    con.execute("UPDATE rating_tables SET seq = 10 + seq WHERE seq IN (-2, -8)")
    split = keys[4]
    assert _before(con, split) is None
    later = ratings._later_events(con, "unhas", split)
    assert ratings._kept_before(con, "unhas", split, last, later) is None


def test_the_state_a_replay_starts_from_is_the_historys_own(store, con, tmp_path):
    """A replay from place n starts from each player's rating after the first n tables.
    It is read from the current ratings and from the first table after n rather than
    from each player's whole history, and it is that history's row, bit for bit, at every
    place of the ladder; so is where each player was last rated."""
    rows = []
    for event in ("a-liga", "b-liga"):
        for rd in ("R1", "R2", "R3"):
            rows += worked_rows(rd, event=event)
    load(con, tmp_path, rows)
    players = {k for (k,) in con.execute("SELECT player_key FROM ratings_t").fetchall()}
    players.add("nobody rated")
    last = con.execute("SELECT max(seq) FROM rating_tables").fetchall()[0][0]
    assert last == 6
    for seq in range(last + 1):
        want = {
            k: ((mu, sg, m), at)
            for k, mu, sg, m, at in con.execute(
                ratings._STATE_OF, ["unhas", seq, sorted(players)]
            ).fetchall()
        }
        state, where = ratings._state_at(con, "unhas", seq, players)
        ratings._fill_last(con, "unhas", seq, state, where)
        assert {k: (v, where[k]) for k, v in state.items()} == want, seq


# --- a ladder left owing: the process died between the results' commit and the ratings ----


def _die(*_a, **_k):
    """A rating step that dies as a killed process would (nothing after it runs)."""
    raise KeyboardInterrupt


def _die_before_rating(monkeypatch) -> None:
    """The next rating update dies as a killed process would."""
    monkeypatch.setattr(ratings, "update", _die)
    monkeypatch.setattr(ratings, "refresh", _die)


def test_a_load_whose_rating_update_never_ran_is_rated_by_the_next_load(
    store, con, tmp_path, monkeypatch
):
    """R2 is committed but its process dies before the rating update; R3, loaded after,
    would only add itself to the ladder. The mark R2's commit left makes R3's update
    rebuild the ladder, which then holds R2 in its place: the ratings are a full
    recompute's, and nothing is owed any more."""
    load(con, tmp_path, worked_rows("R1"), name="R1.csv")
    with monkeypatch.context() as m:
        _die_before_rating(m)
        with pytest.raises(KeyboardInterrupt):
            load(con, tmp_path, worked_rows("R2"), name="R2.csv")
    assert [r[2] for r in _ladder(con)] == ["R1"]
    assert con.execute("SELECT DISTINCT ruleset FROM ratings_due").fetchall() == [("unhas",)]
    load(con, tmp_path, worked_rows("R3"), name="R3.csv")
    assert [r[2] for r in _ladder(con)] == ["R1", "R2", "R3"]
    assert con.execute("SELECT count(*) FROM ratings_due").fetchall()[0][0] == 0
    assert_same(current(con), expected([WORKED[r][1] for r in ("R1", "R2", "R3")]))


def test_a_new_event_date_whose_refresh_never_ran_is_applied_by_the_next_load(
    store, con, tmp_path, monkeypatch
):
    """The cup, played after the league, is dated before it; the process dies before the
    ladder follows the date. The next load puts the cup's table first."""
    from pipeline import events

    load(con, tmp_path, worked_rows("R1"), name="R1.csv")
    load(con, tmp_path, worked_rows("R1", event="cup"), name="cup.csv")
    events.save(con, "liga", "unhas", event_date=date(2026, 3, 1))
    events.save(con, "cup", "unhas", event_date=date(2026, 3, 2))
    with monkeypatch.context() as m:
        _die_before_rating(m)
        with pytest.raises(KeyboardInterrupt):
            events.save(con, "cup", "unhas", event_date=date(2026, 2, 1))
    assert [r[1] for r in _ladder(con)] == ["liga", "cup"]
    load(con, tmp_path, worked_rows("R2"), name="R2.csv")
    assert [(r[1], r[2]) for r in _ladder(con)] == [("cup", "R1"), ("liga", "R1"), ("liga", "R2")]
    assert con.execute("SELECT count(*) FROM ratings_due").fetchall()[0][0] == 0
    want = current(con)
    ratings.recompute(con)
    assert_same(current(con), want)


def test_a_rescore_whose_recompute_never_ran_is_rated_by_the_next_load(
    store, con, tmp_path, monkeypatch
):
    """R2's stored standings disagree with its hands (as when a ruleset file's points
    changed), and the ladder rated them. ``domino rescore`` writes the right standings, and
    its process dies before the ratings are recomputed. R3's load then rebuilds the ladder
    from R2 instead of adding R3 to ratings of the old standings."""
    from pipeline.scoring.rescore import rescore

    load(con, tmp_path, [r for rd in ("R1", "R2") for r in worked_rows(rd)], name="R12.csv")
    con.execute("UPDATE table_standings_t SET rank = 5 - rank WHERE round = 'R2'")
    ratings.recompute(con)
    wrong = current(con)
    with monkeypatch.context() as m:
        m.setattr(ratings, "recompute", _die)
        with pytest.raises(KeyboardInterrupt):
            rescore(con)
    assert current(con) == wrong
    assert con.execute("SELECT DISTINCT ruleset FROM ratings_due").fetchall() == [("unhas",)]
    load(con, tmp_path, worked_rows("R3"), name="R3.csv")
    assert con.execute("SELECT count(*) FROM ratings_due").fetchall()[0][0] == 0
    assert_same(current(con), expected([WORKED[r][1] for r in ("R1", "R2", "R3")]))


# --- a bulk batch rated beside the next batch's planning ------------------------------------


def _files(tmp_path, rounds: tuple[str, ...]) -> list:
    return [write_log(tmp_path, worked_rows(rd), f"{rd}.csv") for rd in rounds]


def test_each_batch_is_rated_beside_the_next_batchs_planning(store, con, tmp_path, monkeypatch):
    """A load of several batches (one file each here) rates each batch in a thread of its
    own, on a connection of its own, while the next batch is planned: the ladder is the
    one a recompute gives, and nothing is owed."""
    from pipeline.ingest import service, writer

    monkeypatch.setattr(writer, "BESIDE_MATCHES", 1)  # a bulk batch: 500 matches or more
    rated_in: list[str] = []
    real = ratings.update

    def update(*a, **k):
        rated_in.append(threading.current_thread().name)
        return real(*a, **k)

    monkeypatch.setattr(ratings, "update", update)
    service.load(con, _files(tmp_path, ("R1", "R2", "R3")), batch_rows=1)
    assert rated_in == ["domino-ratings"] * 3
    assert [r[2] for r in _ladder(con)] == ["R1", "R2", "R3"]
    assert con.execute("SELECT count(*) FROM ratings_due").fetchall()[0][0] == 0
    assert_same(current(con), expected([WORKED[r][1] for r in ("R1", "R2", "R3")]))


def test_a_rating_that_fails_beside_the_load_stops_it_and_stays_owed(
    store, con, tmp_path, monkeypatch
):
    """R1's rating update fails in its thread. The load stops with that error before R2
    writes anything; R1 stays loaded and its ladder marked, so the next load that writes
    rates it."""
    from pipeline.ingest import service, writer

    monkeypatch.setattr(writer, "BESIDE_MATCHES", 1)

    def broken(*_a, **_k):
        raise RuntimeError("the ladder broke")

    with monkeypatch.context() as m:
        m.setattr(ratings, "update", broken)
        with pytest.raises(RuntimeError, match="the ladder broke"):
            service.load(con, _files(tmp_path, ("R1", "R2")), batch_rows=1)
    assert con.execute("SELECT DISTINCT round FROM table_standings_t").fetchall() == [("R1",)]
    assert _ladder(con) == []
    assert con.execute("SELECT DISTINCT ruleset FROM ratings_due").fetchall() == [("unhas",)]
    service.load(con, _files(tmp_path, ("R2",)))
    assert [r[2] for r in _ladder(con)] == ["R1", "R2"]
    assert con.execute("SELECT count(*) FROM ratings_due").fetchall()[0][0] == 0
    assert_same(current(con), expected([WORKED[r][1] for r in ("R1", "R2")]))


def _until_gone(pg_url: str, pid: int) -> None:
    """Until the server's backend ``pid`` has ended: a client's close returns before its
    backend has exited and let go of its session locks."""
    import psycopg

    deadline = time.monotonic() + 30
    with psycopg.connect(pg_url, autocommit=True) as watch:
        while watch.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid]
        ).fetchone()[0]:
            assert time.monotonic() < deadline, f"backend {pid} still running after 30 s"
            time.sleep(0.02)


def test_a_writer_still_at_work_keeps_its_mark_on_postgresql(pg_url):
    """On PostgreSQL another writer's mark is left over only when its session is gone: while
    it holds its lock (between its commit and its rating update) the mark is its own."""
    import psycopg

    from pipeline import ratings_due
    from pipeline.store.db import connect

    with connect(pg_url) as con:
        other = psycopg.connect(pg_url, autocommit=True)
        other.execute(
            "SELECT pg_advisory_lock(%s, %s)", [ratings_due.DUE_LOCK_CLASS, ratings_due._key(41)]
        )
        con.execute("INSERT INTO ratings_due VALUES ('unhas', 41, now())")
        con.execute("BEGIN TRANSACTION")
        assert ratings_due.settle(con, 42) == (set(), set())  # 41 is at work
        con.execute("COMMIT")
        pid = other.execute("SELECT pg_backend_pid()").fetchone()[0]
        other.close()  # 41's process is gone
        _until_gone(pg_url, pid)
        con.execute("BEGIN TRANSACTION")
        assert ratings_due.settle(con, 42) == (set(), {"unhas"})
        con.execute("COMMIT")
        assert con.execute("SELECT count(*) FROM ratings_due").fetchall()[0][0] == 0
