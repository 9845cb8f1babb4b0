"""The seating algorithms (pipeline/draws/seating.py) without a database: golden cases
worked out from RULES.md ("Decided (draws …)", "Decided (session draw …)") and properties
over many seeds and entrant counts."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline import rulesets
from pipeline.draws import seating
from pipeline.draws.service import schedule

UNHAS_SWAPS = schedule(rulesets.load("unhas"))


def names(n: int) -> list[str]:
    return [f"p{i:02d}" for i in range(n)]


# --- golden cases ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "sizes"),
    [
        (3, [3]),
        (4, [4]),
        (6, [3, 3]),  # 4k+2 → two tables of 3
        (7, [4, 3]),  # 4k+3 → one
        (8, [4, 4]),
        (9, [3, 3, 3]),  # 4k+1 → three
        (10, [4, 3, 3]),
        (11, [4, 4, 3]),
        (13, [4, 3, 3, 3]),
        (16, [4, 4, 4, 4]),
    ],
)
def test_tables_of_four_and_of_three_only_where_the_count_demands(count, sizes):
    assert seating.table_sizes(count) == sizes


@pytest.mark.parametrize("count", [0, 1, 2, 5])
def test_counts_tables_of_three_and_four_cannot_hold_are_refused(count):
    with pytest.raises(seating.CannotSeat):
        seating.table_sizes(count)


def test_pepet_tables_are_of_four_only():
    assert seating.table_sizes(12, small=False) == [4, 4, 4]
    with pytest.raises(seating.CannotSeat):
        seating.table_sizes(10, small=False)


def test_swap_schedule_of_the_ruleset_file_is_art_1_14_and_1_15():
    # S = ana A, budi B, cici C, dedi D; hands 3-6 A<->C; hands 7-10 also B<->D
    rows = seating.per_hand({"A": "ana", "B": "budi", "C": "cici", "D": "dedi"}, UNHAS_SWAPS)
    by_hand = {
        h: "".join(p[0] for _, _, p in sorted(r for r in rows if r[0] == h)) for h in range(1, 11)
    }
    assert by_hand == {
        1: "abcd",
        2: "abcd",
        3: "cbad",
        4: "cbad",
        5: "cbad",
        6: "cbad",
        7: "cdab",
        8: "cdab",
        9: "cdab",
        10: "cdab",
    }


def test_an_empty_chair_has_no_row_and_moves_with_the_schedule():
    rows = seating.per_hand({"A": "ana", "C": "cici", "D": "dedi"}, UNHAS_SWAPS)
    assert len(rows) == 30  # 3 players × 10 hands
    assert ("B" not in {c for h, c, _ in rows if h <= 6}) and (7, "D", "ana") not in rows
    assert {(c, p) for h, c, p in rows if h == 7} == {("A", "cici"), ("C", "ana"), ("B", "dedi")}


def test_a_session_has_no_hand_a_chair_does_not_change():
    assert seating.per_hand({"A": "x", "B": "y"}, []) == [(None, "A", "x"), (None, "B", "y")]


def test_the_two_qualifiers_of_two_tables_play_the_final_table():
    tables = seating.next_round([["a1", "a2"], ["b1", "b2"]], {}, {}, random.Random(3))
    assert [sorted(t) for t in tables] == [["a1", "a2", "b1", "b2"]]


def test_three_tables_qualifiers_make_two_tables_of_three():
    # 6 qualifiers = 4·1 + 2 → two tables of 3: each holds one table's pair whole and one of
    # the third table's pair (the only split the sizes force)
    quals = [["a1", "a2"], ["b1", "b2"], ["c1", "c2"]]
    for seed in range(20):
        tables = seating.next_round(quals, {}, {}, random.Random(seed))
        assert sorted(len(t) for t in tables) == [3, 3]
        origins = [sorted(p[0] for p in t) for t in tables]
        pairs = [next(o for o in t if t.count(o) == 2) for t in origins]
        assert len(set(pairs)) == 2
        singles = {o for t in origins for o in t if t.count(o) == 1}
        assert len(singles) == 1 and singles.isdisjoint(pairs)


def test_tables_that_met_before_are_not_paired_again_when_another_pairing_exists():
    quals = [["a1", "a2"], ["b1", "b2"], ["c1", "c2"], ["d1", "d2"]]
    met = seating.met_pairs([["a1", "b1", "x", "y"], ["c2", "d2", "z", "w"]])
    for seed in range(20):
        tables = seating.next_round(quals, {}, met, random.Random(seed))
        paired = sorted("".join(sorted({p[0] for p in t})) for t in tables)
        assert paired == ["ac", "bd"] or paired == ["ad", "bc"]


def test_same_seed_same_draw_and_a_pinned_first_round():
    players = ["ana", "budi", "cici", "dedi", "eko", "fani", "gita"]
    one = seating.chairs_by_lot(
        seating.first_round(players, {}, random.Random(11)), random.Random(11)
    )
    two = seating.chairs_by_lot(
        seating.first_round(players, {}, random.Random(11)), random.Random(11)
    )
    assert one == two
    # 7 entrants → a table of 4 and a table of 3, every entrant once
    assert sorted(len(t) for t in one) == [3, 4]
    assert sorted(p for t in one for p in t.values()) == sorted(players)


def test_groups_are_kept_apart_in_a_golden_first_round():
    # 8 players, 2 tables: KG1 has 2 members, KG2 has 2: each table gets one of each
    groups = {"a": "KG1", "b": "KG1", "c": "KG2", "d": "KG2"}
    for seed in range(10):
        tables = seating.first_round(list("abcdefgh"), groups, random.Random(seed))
        for t in tables:
            assert len({groups.get(p) for p in t if p in groups}) == len(
                [p for p in t if p in groups]
            )


def test_a_second_pepet_session_of_eight_splits_every_table_two_and_two():
    # 8 players at 2 tables: the best second session seats two of each first table
    # together at each table: 4 repeated pairs, sum of squares 16·1 + 4·4 = 32
    first = [["a", "b", "c", "d"], ["e", "f", "g", "h"]]
    met = seating.met_pairs(first)
    second = seating.session(list("abcdefgh"), {}, met, random.Random(5))
    assert seating.pair_cost(second, met) == 32
    for t in second:
        assert sorted(len(set(t) & set(f)) for f in first) == [2, 2]


# --- properties ----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(3, 40).filter(lambda n: n != 5),
    seed=st.integers(0, 2**32),
    n_groups=st.integers(0, 6),
)
def test_first_round_seats_everyone_once_at_tables_of_3_or_4_groups_apart(count, seed, n_groups):
    players = names(count)
    rng = random.Random(seed)
    groups = {p: f"g{rng.randrange(n_groups)}" for p in players if n_groups and rng.random() < 0.7}
    tables = seating.first_round(players, groups, random.Random(seed))
    seated = [p for t in tables for p in t]
    assert sorted(seated) == players
    assert all(len(t) in (3, 4) for t in tables)
    assert sum(len(t) == 3 for t in tables) == seating.table_sizes(count).count(3)
    # a group no larger than the number of tables never shares a table; larger groups
    # are spread as evenly as the tables allow
    for g in set(groups.values()):
        members = [p for p in players if groups.get(p) == g]
        per_table = [sum(groups.get(p) == g for p in t) for t in tables]
        assert max(per_table) == -(-len(members) // len(tables))


@settings(max_examples=60, deadline=None)
@given(n_tables=st.integers(2, 14), seed=st.integers(0, 2**32), walkover=st.booleans())
def test_qualifiers_of_one_table_meet_qualifiers_of_another(n_tables, seed, walkover):
    quals = [[f"t{i}a", f"t{i}b"] for i in range(n_tables)]
    if walkover:
        quals[0] = ["t0a"]  # a walkover table of one player: it qualifies alone
    everyone = sorted(p for q in quals for p in q)
    if len(everyone) == 5:  # RULES.md: 5 cannot be seated at tables of 3 and 4
        with pytest.raises(seating.CannotSeat):
            seating.next_round(quals, {}, {}, random.Random(seed))
        return
    tables = seating.next_round(quals, {}, {}, random.Random(seed))
    assert sorted(p for t in tables for p in t) == everyone
    assert all(len(t) in (3, 4) for t in tables)
    if len(everyone) <= 4:
        assert len(tables) == 1
    for t in tables:
        assert len({p.rstrip("ab") for p in t}) >= 2
    # a table's qualifiers are split only as often as tables of 3 force
    split = sum(len({i for i, t in enumerate(tables) if any(p in t for p in q)}) - 1 for q in quals)
    assert split <= seating.table_sizes(len(everyone)).count(3)


def _brute_force_best(players: list[str], met, size: int = 4) -> int:
    """The least sum of squares over every partition of ``players`` into tables of 4."""
    best = None

    def parts(rest: list[str]):
        if not rest:
            yield []
            return
        head, tail = rest[0], rest[1:]
        for others in itertools.combinations(tail, size - 1):
            left = [p for p in tail if p not in others]
            for more in parts(left):
                yield [[head, *others], *more]

    for p in parts(players):
        c = seating.pair_cost(p, met)
        best = c if best is None else min(best, c)
    assert best is not None
    return best


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), sessions=st.integers(1, 3), count=st.sampled_from([8, 12]))
def test_pepet_sessions_are_as_even_as_brute_force_allows(seed, sessions, count):
    players = names(count)
    history: list[list[str]] = []
    for s in range(sessions):
        met = seating.met_pairs(history)
        drawn = seating.session(players, {}, met, random.Random(seed + s))
        assert sorted(p for t in drawn for p in t) == players
        assert all(len(t) == 4 for t in drawn)
        assert seating.pair_cost(drawn, met) == _brute_force_best(players, met)
        history += drawn


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_pepet_groups_apart_first_whenever_possible(seed):
    # 12 players, 3 tables, 4 groups of 3: each table can hold one of each group
    players = names(12)
    groups = {p: f"kg{i % 4}" for i, p in enumerate(players)}
    met = seating.met_pairs([players[:4], players[4:8], players[8:]])
    tables = seating.session(players, groups, met, random.Random(seed))
    for t in tables:
        assert len({groups[p] for p in t}) == 4


# --- large rosters: the search is bounded ------------------------------------------------------


def _excess(tables, met) -> int:
    """How far ``tables`` are from meeting nobody again: 0 when no pair repeats."""
    return seating.pair_cost(tables, met) - sum(n * n for n in met.values()) - 6 * len(tables)


def test_a_roster_every_table_of_which_costs_something_tries_a_bounded_number_of_swaps(
    monkeypatch,
):
    """Before: a roster of one group (every table holds members of it, so every table costs
    something and no pass ended the search early) ran every swap of every pass for nine
    starts: 600 entrants took 15-30 s, 800 in two groups nearly a minute, all the while
    holding the store's write lock. The search stops at MOST_SWAPS tried (made small here)
    and keeps the best seating found."""
    monkeypatch.setattr(seating, "MOST_SWAPS", 20_000)
    players = [f"p{i:03d}" for i in range(120)]
    groups = dict.fromkeys(players, "KG 1")
    asked = 0

    def cost(table):
        nonlocal asked
        asked += 1
        return seating.GROUP_WEIGHT * seating._group_clashes(table, groups)

    start = seating.first_round(players, groups, random.Random(1))
    tables = seating._search(start, cost, random.Random(2))
    # each swap asks the cost of its two tables; each start asks every table's once or twice
    assert asked <= 2 * 20_000 + 9 * 2 * len(start)
    assert sorted(p for t in tables for p in t) == players


def test_a_large_roster_is_seated_by_sampled_swaps_groups_apart_and_nobody_meeting_again(
    monkeypatch,
):
    """Past SWAPS_PER_PASS swaps (about 700 entrants; made small here) a pass tries swaps
    drawn at random, of a player at a table that costs something: four sessions of 400
    entrants in groups of 20 are seated with no two members of a group at one table and no
    pair meeting twice, the same seating for the same seed."""
    monkeypatch.setattr(seating, "SWAPS_PER_PASS", 5_000)
    players = [f"p{i:03d}" for i in range(400)]
    groups = {p: f"KG {i // 20}" for i, p in enumerate(players)}
    assert seating._swaps([4] * 100) > 5_000
    history: list[list[str]] = []
    for s in range(4):
        met = seating.met_pairs(history)
        drawn = seating.session(players, groups, met, random.Random(s))
        assert drawn == seating.session(players, groups, met, random.Random(s))
        assert sorted(p for t in drawn for p in t) == players
        assert all(len({groups[p] for p in t}) == 4 for t in drawn)
        assert _excess(drawn, met) == 0
        history += drawn


def test_a_sampled_search_keeps_forced_clashes_to_the_fewest(monkeypatch):
    """Two groups of 100 on 50 tables: every table must hold two of each (two clashes); the
    sampled search gets there from a start that seats three or four of one group together."""
    monkeypatch.setattr(seating, "SWAPS_PER_PASS", 2_000)
    players = [f"p{i:03d}" for i in range(200)]
    groups = {p: ("KG A" if i < 100 else "KG B") for i, p in enumerate(players)}
    start = [players[i : i + 4] for i in range(0, 200, 4)]  # one group per table
    assert sum(seating._group_clashes(t, groups) for t in start) == 150

    def cost(table):
        return seating.GROUP_WEIGHT * seating._group_clashes(table, groups)

    tables = seating._search(start, cost, random.Random(5))
    assert sum(seating._group_clashes(t, groups) for t in tables) == 100


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("n_tables", "clubs"), [(9, 2), (13, 5), (20, 3), (31, 6)])
def test_a_knockout_of_many_qualifiers_is_drawn_by_sampled_swaps_as_by_every_swap(
    n_tables, seed, clubs
):
    """A knockout's next round once paid a whole-seating cost (qualifiers of one table
    split over tables) on every swap tried: 512 qualifiers in groups took 49 s, and a large
    one could not take the sampled search. The split is a sum over tables (each table's
    count of qualifying tables met there, less one per qualifying table, the search's
    floor), so a swap costs its two tables only and the sampled search (past
    SWAPS_PER_PASS, made small here) seats the round as RULES.md asks: each table's
    qualifiers together, meeting another table's, and groups apart where they can be."""
    quals = [[f"t{i:02d}a", f"t{i:02d}b"] for i in range(n_tables)]
    groups = {p: f"club {k % clubs}" for k, p in enumerate(p for q in quals for p in q)}
    sampled = seating._swaps(seating.table_sizes(2 * n_tables)) > 100
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(seating, "SWAPS_PER_PASS", 100)
        tables = seating.next_round(quals, groups, {}, random.Random(seed))
    assert sampled
    assert sorted(p for t in tables for p in t) == sorted(p for q in quals for p in q)
    for t in tables:
        assert len({p[:3] for p in t}) >= 2  # never one table's qualifiers alone
    split = sum(len({i for i, t in enumerate(tables) if any(p in t for p in q)}) - 1 for q in quals)
    assert split <= seating.table_sizes(2 * n_tables).count(3)
    # at most one more member of a group at a table than the tables force
    for g in set(groups.values()):
        members = [p for p in groups if groups[p] == g]
        per_table = [sum(groups[p] == g for p in t) for t in tables]
        assert max(per_table) <= -(-len(members) // len(tables)) + 1
