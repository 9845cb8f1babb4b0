"""The rating step written out equals the ``openskill`` package's, to the last bit."""

import random

import polars as pl
import pytest
from openskill.models import PlackettLuce

from pipeline import ladder, ratings


def _table(rng: random.Random, n: int) -> tuple[list[float], list[float], list[int]]:
    mus = [rng.uniform(5, 45) for _ in range(n)]
    sigmas = [rng.uniform(0.3, 25 / 3) for _ in range(n)]
    ranks = sorted(rng.choice([1, 2, 3, 4][:n]) for _ in range(n))  # ties included
    return mus, sigmas, ranks


def _package(model: PlackettLuce, mus, sigmas, ranks) -> list[tuple[float, float]]:
    teams = model.rate(
        [[model.rating(mu=m, sigma=s)] for m, s in zip(mus, sigmas, strict=True)],
        ranks=[float(r) for r in ranks],
    )
    return [(team[0].mu, team[0].sigma) for team in teams]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_a_step_equals_the_package_rate_to_the_last_bit(n):
    # 4,000 tables: x**2 (the C library's pow) and x*x differ in about one case in a
    # thousand, so a step that squared another way would fail here
    model = ratings.MODEL
    rng = random.Random(n)
    for _ in range(4000):
        mus, sigmas, ranks = _table(rng, n)
        assert ladder.step(mus, sigmas, ranks, model) == _package(model, mus, sigmas, ranks)


def test_four_players_without_a_tie_take_the_written_out_step_and_equal_the_package():
    """Three tables in four have four players and no tie (the million-hand corpus: 76%);
    their step is written out (``ladder._four_apart``) and must equal the package too,
    over ranks of any spacing and ratings far apart."""
    model = ratings.MODEL
    rng = random.Random(44)
    for _ in range(4000):
        mus = [rng.uniform(-30, 80) for _ in range(4)]
        sigmas = [rng.uniform(0.05, 25 / 3) for _ in range(4)]
        ranks = sorted(rng.sample(range(1, 9), 4))
        got = ladder.step(mus, sigmas, ranks, model)
        assert got == ladder._four_apart(mus, sigmas, model)
        assert got == _package(model, mus, sigmas, ranks)


def test_a_step_of_another_model_follows_its_parameters():
    model = PlackettLuce(beta=3.0, kappa=0.01, tau=0.5)
    rng = random.Random(9)
    for _ in range(500):
        mus, sigmas, ranks = _table(rng, 4)
        assert ladder.step(mus, sigmas, ranks, model) == _package(model, mus, sigmas, ranks)


def _one_by_one(
    keys: list[str], ranks: list[int], sizes: list[int], state: ladder.State, first_seq: int
) -> pl.DataFrame:
    """The ladder rated by the package a table at a time: what a replay must equal."""
    model = ratings.MODEL
    default = (model.mu, model.sigma, 0)
    out = []
    start = 0
    for i, n in enumerate(sizes):
        seated, rk = keys[start : start + n], ranks[start : start + n]
        before = [state.get(k, default) for k in seated]
        after = _package(model, [b[0] for b in before], [b[1] for b in before], rk)
        for k, r, b, a in zip(seated, rk, before, after, strict=True):
            out.append((first_seq + i, k, r, a[0], a[1], b[0], b[1], b[2] + 1))
            state[k] = (a[0], a[1], b[2] + 1)
        start += n
    return pl.DataFrame(out, schema=ladder.HISTORY_SCHEMA, orient="row")


@pytest.mark.parametrize(("seed", "pool"), [(1, 6), (2, 40)])
def test_a_replay_equals_the_package_rating_the_tables_one_by_one(seed, pool):
    rng = random.Random(seed)
    people = [f"p{i:03d}" for i in range(pool)]
    keys: list[str] = []
    ranks: list[int] = []
    sizes: list[int] = []
    for _ in range(1500):
        n = rng.choice([2, 3, 4, 4, 4])
        keys += rng.sample(people, n)
        ranks += sorted(rng.choice([1, 2, 3, 4][:n]) for _ in range(n))
        sizes.append(n)
    start: ladder.State = {"p001": (31.5, 2.25, 17), "p004": (12.0, 6.5, 3)}
    want_state = dict(start)
    want = _one_by_one(keys, ranks, sizes, want_state, 41)
    got_state = dict(start)
    got = ladder.replay(keys, ranks, sizes, got_state, 41, ratings.MODEL)
    assert got.equals(want)
    assert got_state == want_state
