"""The browser benchmark's arithmetic (the run itself needs a served 1M database: make bench)."""

from bench.browser import summary


def test_median_and_p95_of_ten():
    # ten times 1..10 s: the median lies between the 5th and 6th; the p95 is the 10th
    got = summary([float(x) for x in (3, 1, 2, 10, 5, 4, 6, 9, 8, 7)])
    assert got == {"median_s": 5.5, "p95_s": 10.0, "n": 10}


def test_one_time_is_its_own_median_and_p95():
    assert summary([0.25]) == {"median_s": 0.25, "p95_s": 0.25, "n": 1}
