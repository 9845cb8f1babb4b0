"""The event statistics count every seated hand once: with a tie-break hand in the event,
the points spread, the categories and the hands played all agree (the spread used to
leave tie-break hands out: 40 seats charted over a categories table of 42)."""

from pipeline.standings import stats
from tests.rules_helpers import biasa_match, hand, load, scheduled

SEATS = ("Ana", "Budi", "Cici", "Dedi")
# Ana 4 and Dedi 4 tie for first (worked out in tests/test_ratings.py, table T3)
TIED = ["Cici", "Cici", "Ana", "Ana", "Ana", "Budi", "Budi", "Budi", "Dedi", "Dedi"]


def test_points_spread_counts_tiebreak_hands_like_the_categories(con, tmp_path):
    rows = biasa_match(TIED, SEATS, event="ev", round="R1", table="1")
    last = scheduled(SEATS, 10)  # the tie-break hand keeps the last hand's chairs
    extra = tuple(p if p in ("Ana", "Dedi") else None for p in last)
    rows.append(hand(11, "ABCD"[extra.index("Ana")], "biasa", seats=extra, event="ev"))
    plan = load(con, tmp_path, rows)
    assert plan.count("rejected") == 0
    seats = con.execute("SELECT count(*) FROM hand_points_t WHERE event = 'ev'").fetchall()[0][0]
    assert seats == 4 * 10 + 2  # ten hands of four, one tie-break hand of two
    assert stats.hand_points_spread(con, "ev").get_column("seats").sum() == seats
    assert stats.categories(con, "ev").get_column("seats").sum() == seats
    assert stats.round_summary(con, "ev").get_column("hands").sum() == 11
