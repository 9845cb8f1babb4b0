"""The rating step written out: the ladder replayed table by table in one tight loop.

The arithmetic is the ``openskill`` package's ``PlackettLuce.rate`` for teams of one
(no scores, no weights, its default gamma, its tau added to sigma first), with the same
operations in the same order: every sum is accumulated in the package's order, and
``exp``, ``sqrt`` and ``**`` are the same C library calls the package makes, so every
rating is equal to the package's to the last bit (``tests/test_ladder.py`` proves it
against :func:`pipeline.ratings.rate_table`, which calls the package, on random tables
with ties). What it saves is the package's objects: a rating object per player per table
and a team object per team. A ladder of 100,000 tables takes about a third less time.

Two identities of the package's step for a team of one are used: the player's share of
the team's variance (``sigma**2 / team sigma_squared``) is the same number divided by
itself, exactly 1.0, and the player weight is 1.0, so ``mu + share * omega * weight`` is
``mu + omega`` and ``1 - share * delta * weight`` is ``1 - delta``, bit for bit.
"""

import math

import polars as pl
from openskill.models import PlackettLuce

State = dict[str, tuple[float, float, int]]  # player key -> (mu, sigma, matches)

HISTORY_SCHEMA = {
    "seq": pl.Int64,
    "player_key": pl.String,
    "rank": pl.Int32,
    "mu": pl.Float64,
    "sigma": pl.Float64,
    "mu_before": pl.Float64,
    "sigma_before": pl.Float64,
    "matches": pl.Int32,
}


def step(
    mus: list[float], sigmas: list[float], ranks: list[int], model: PlackettLuce
) -> list[tuple[float, float]]:
    """One table: new (mu, sigma) of each player, the rows sorted by rank (ties share
    a rank), as ``model.rate([[r] for r in ratings], ranks=ranks)`` gives them."""
    exp, sqrt = math.exp, math.sqrt
    n = len(mus)
    if n == 4 and ranks[0] < ranks[1] < ranks[2] < ranks[3]:
        return _four_apart(mus, sigmas, model)
    tau2 = model.tau * model.tau
    beta2 = model.beta**2
    sig = [sqrt(s * s + tau2) for s in sigmas]
    var = [s**2 for s in sig]  # a team of one: its sigma squared
    c2 = 0.0
    for v in var:
        c2 += v + beta2
    c = sqrt(c2)
    cpow = c**2
    e = [exp(m / c) for m in mus]
    sum_q = [0.0] * n  # sum_q[q]: e of every team ranked at or after q, in team order
    a = [0] * n  # a[q]: the teams sharing q's rank
    for i in range(n):
        ri, ei = ranks[i], e[i]
        for q in range(n):
            if ri >= ranks[q]:
                sum_q[q] += ei
                if ri == ranks[q]:
                    a[q] += 1
    out = []
    for i in range(n):
        ri, ei = ranks[i], e[i]
        omega = 0.0
        delta = 0.0
        for q in range(n):
            if ranks[q] <= ri:
                t = ei / sum_q[q]
                delta += t * (1 - t) / a[q]
                if q == i:
                    omega += (1 - t) / a[q]
                else:
                    omega -= t / a[q]
        vi = var[i]
        omega *= vi / c
        delta *= vi / cpow
        delta *= sqrt(vi) / c  # the package's default gamma
        out.append((mus[i] + omega, sig[i] * sqrt(max(1 - delta, model.kappa))))
    return out


def _four_apart(
    mus: list[float], sigmas: list[float], model: PlackettLuce
) -> list[tuple[float, float]]:
    """:func:`step` for the commonest table, four players and no tie, written out: each
    rank is its own, so every ``a[q]`` is 1 (a division by 1 is exact) and each ``sum_q`` is
    the ``e`` of that rank and the ranks after it. Every sum is still taken in the order
    :func:`step` takes it (the first term of a sum from 0.0 is that term, exactly), and
    ``**`` stays ``**``; ``tests/test_ladder.py`` compares both with the package."""
    exp, sqrt = math.exp, math.sqrt
    tau2 = model.tau * model.tau
    beta2 = model.beta**2
    g0, g1, g2, g3 = (sqrt(s * s + tau2) for s in sigmas)
    v0, v1, v2, v3 = g0**2, g1**2, g2**2, g3**2
    c = sqrt((((0.0 + (v0 + beta2)) + (v1 + beta2)) + (v2 + beta2)) + (v3 + beta2))
    cpow = c**2
    m0, m1, m2, m3 = mus
    e0, e1, e2, e3 = exp(m0 / c), exp(m1 / c), exp(m2 / c), exp(m3 / c)
    s0 = ((e0 + e1) + e2) + e3
    s1 = (e1 + e2) + e3
    s2 = e2 + e3
    s3 = e3
    # player 0 (first place) meets only its own rank; player k meets ranks 0..k
    t = e0 / s0
    d0, w0 = t * (1 - t), 1 - t
    t, u = e1 / s0, e1 / s1
    d1, w1 = t * (1 - t) + u * (1 - u), (0.0 - t) + (1 - u)
    t, u, x = e2 / s0, e2 / s1, e2 / s2
    d2 = (t * (1 - t) + u * (1 - u)) + x * (1 - x)
    w2 = ((0.0 - t) - u) + (1 - x)
    t, u, x, y = e3 / s0, e3 / s1, e3 / s2, e3 / s3
    d3 = ((t * (1 - t) + u * (1 - u)) + x * (1 - x)) + y * (1 - y)
    w3 = (((0.0 - t) - u) - x) + (1 - y)
    kappa = model.kappa
    out = []
    for m, g, v, w, d in (
        (m0, g0, v0, w0, d0),
        (m1, g1, v1, w1, d1),
        (m2, g2, v2, w2, d2),
        (m3, g3, v3, w3, d3),
    ):
        w *= v / c
        d *= v / cpow
        d *= sqrt(v) / c
        out.append((m + w, g * sqrt(max(1 - d, kappa))))
    return out


def replay(
    keys: list[str],
    ranks: list[int],
    sizes: list[int],
    state: State,
    first_seq: int,
    model: PlackettLuce,
) -> pl.DataFrame:
    """Rate the tables of ``keys``/``ranks`` (one row per seated player, each table's rows
    together and sorted by rank, tables in play order, ``sizes`` players each) from
    ``state`` (updated in place); the history rows, in the rows' order."""
    rows = len(keys)
    mu_before = [0.0] * rows
    sigma_before = [0.0] * rows
    mu_after = [0.0] * rows
    sigma_after = [0.0] * rows
    matches = [0] * rows
    seqs = [0] * rows
    default = (model.mu, model.sigma, 0)
    get = state.get
    start = 0
    for table, n in enumerate(sizes, start=first_seq):
        end = start + n
        seated = keys[start:end]
        before = [get(k, default) for k in seated]
        after = step([b[0] for b in before], [b[1] for b in before], ranks[start:end], model)
        for j in range(n):
            row = start + j
            b, (mu, sigma) = before[j], after[j]
            mu_before[row], sigma_before[row] = b[0], b[1]
            mu_after[row], sigma_after[row] = mu, sigma
            matches[row] = b[2] + 1
            seqs[row] = table
            state[seated[j]] = (mu, sigma, b[2] + 1)
        start = end
    return pl.DataFrame(
        {
            "seq": seqs,
            "player_key": keys,
            "rank": ranks,
            "mu": mu_after,
            "sigma": sigma_after,
            "mu_before": mu_before,
            "sigma_before": sigma_before,
            "matches": matches,
        },
        schema=HISTORY_SCHEMA,
    )
