"""The browser benchmark's arithmetic (the run itself needs a served 1M database: make bench)."""

from bench.browser import summary


def test_median_and_p95_of_ten():
    # ten times 1..10 s: the median lies between the 5th and 6th; the p95 is the 10th
    got = summary([float(x) for x in (3, 1, 2, 10, 5, 4, 6, 9, 8, 7)])
    assert got == {"median_s": 5.5, "p95_s": 10.0, "n": 10}


def test_one_time_is_its_own_median_and_p95():
    assert summary([0.25]) == {"median_s": 0.25, "p95_s": 0.25, "n": 1}


def test_the_small_event_is_the_newest_in_play_order(tmp_path):
    """The browser bench's saves go into a live event: dated after every event of the
    corpus, so a save rates its own table, not the whole ladder after it."""
    import duckdb

    from bench.browser import EVENT, prepare
    from tests.browser.support import build_samples

    db = tmp_path / "corpus.duckdb"
    build_samples(db, only="unhas")
    prepare(db, tmp_path)
    with duckdb.connect(str(db), read_only=True) as con:
        days = dict(
            con.execute(
                "SELECT event, coalesce(event_date, CAST(created_at AS DATE)) FROM events"
            ).fetchall()
        )
        last = con.execute(
            "SELECT event FROM rating_tables WHERE ruleset = 'unhas' ORDER BY seq DESC LIMIT 1"
        ).fetchall()[0][0]
    assert len(days) > 1 and days[EVENT] > max(d for e, d in days.items() if e != EVENT)
    assert last == EVENT, "the small event's table is the ladder's last"
    prepare(db, tmp_path)  # a second run keeps it (and adds nothing)
    with duckdb.connect(str(db), read_only=True) as con:
        again = con.execute(
            "SELECT event_date, (SELECT count(*) FROM match_versions WHERE event = ?) FROM events "
            "WHERE event = ?",
            [EVENT, EVENT],
        ).fetchall()[0]
    assert again == (days[EVENT], 1)
