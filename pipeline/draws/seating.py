"""Seating algorithms (RULES.md, "Decided (draws …)" and "Decided (session draw …)").

Pure functions on lists: no database, every random choice from the ``random.Random``
passed in, so the same seed and the same entrants give the same seating. Players are
their keys (strings); a table is a list of keys; chairs are letters.

- :func:`table_sizes`: tables of ``size``, tables of ``size - 1`` only where the count
  demands (4k+1 → three tables of 3, 4k+2 → two, 4k+3 → one).
- :func:`first_round`: the roster dealt into tables, members of one group apart first.
- :func:`next_round`: the qualifiers of one table meet those of another (Art. 4.1),
  tables paired at random, pairs that already met avoided where possible.
- :func:`session`: a pepet session, groups apart first, then the sum over pairs of
  (times met)² as small as the search finds.
- :func:`chairs_by_lot` and :func:`per_hand`: chairs A–D by lot, then the ruleset's
  swap schedule hand by hand.
"""

import itertools
import random
from collections.abc import Callable, Mapping, Sequence

CHAIRS = ("A", "B", "C", "D")

Pair = frozenset[str]
Met = Mapping[Pair, int]


class CannotSeat(ValueError):
    """A count of players that tables of the allowed sizes cannot hold."""

    def __init__(self, count: int) -> None:
        super().__init__(f"{count} players cannot be seated")
        self.count = count


def table_sizes(count: int, size: int = 4, *, small: bool = True) -> list[int]:
    """Sizes of the tables for ``count`` players: ``size`` each, and tables of
    ``size - 1`` only where the count demands (``small``); largest first."""
    if count < 1:
        raise CannotSeat(count)
    if not small:
        if count % size:
            raise CannotSeat(count)
        return [size] * (count // size)
    rest = count % size
    threes = (size - rest) % size  # 4k+1 → 3, 4k+2 → 2, 4k+3 → 1 table of 3
    fours = (count - threes * (size - 1)) // size
    if fours < 0 or size - 1 < 3:
        raise CannotSeat(count)
    return [size] * fours + [size - 1] * threes


def _deal(ordered: Sequence[str], sizes: Sequence[int]) -> list[list[str]]:
    """Deal players round the tables in turn (a full table is skipped): ``len(sizes)``
    consecutive players always land at different tables."""
    tables: list[list[str]] = [[] for _ in sizes]
    t = 0
    for p in ordered:
        while len(tables[t]) >= sizes[t]:
            t = (t + 1) % len(sizes)
        tables[t].append(p)
        t = (t + 1) % len(sizes)
    return tables


def _by_group(
    players: Sequence[str], groups: Mapping[str, str | None], rng: random.Random
) -> list[str]:
    """The players shuffled, members of one group next to each other (largest group
    first), so that dealing them in turn keeps a group apart."""
    blocks: dict[str, list[str]] = {}
    for p in players:
        g = groups.get(p)
        blocks.setdefault(f"g:{g}" if g else f"p:{p}", []).append(p)
    keys = sorted(blocks)
    rng.shuffle(keys)
    for k in keys:
        rng.shuffle(blocks[k])
    keys.sort(key=lambda k: -len(blocks[k]))  # stable: equal sizes keep the shuffled order
    return [p for k in keys for p in blocks[k]]


def first_round(
    players: Sequence[str],
    groups: Mapping[str, str | None],
    rng: random.Random,
    *,
    size: int = 4,
    small: bool = True,
) -> list[list[str]]:
    """The roster seated at random into tables (sizes by :func:`table_sizes`), members
    of one group at different tables whenever the group is no larger than the number of
    tables (and spread as evenly as can be otherwise)."""
    sizes = table_sizes(len(players), size, small=small)
    return _deal(_by_group(sorted(players), groups, rng), sizes)


# --- the search used by later rounds and sessions ----------------------------------------


#: A pass of the search tries every swap of two players at different tables up to this
#: many (about 700 players at tables of 4); past it, :func:`_sampled_search`
SWAPS_PER_PASS = 200_000
#: A draw's search tries at most this many swaps in all, then keeps the best seating found:
#: seconds, where a roster of hundreds in one group (every table costs something, so no
#: pass ends the search early) took minutes and one of thousands hours, the draw holding
#: the store's write lock all along
MOST_SWAPS = 1_000_000


def _swaps(sizes: Sequence[int]) -> int:
    """How many swaps of two players at different tables ``sizes`` allow."""
    return (sum(sizes) ** 2 - sum(s * s for s in sizes)) // 2


def _search(
    tables: list[list[str]],
    table_cost: Callable[[Sequence[str]], float],
    rng: random.Random,
    *,
    floor: float = 0.0,
    restarts: int = 8,
) -> list[list[str]]:
    """Local search over swaps of two players at different tables, first improvement in a
    random order, from ``tables`` and from ``restarts`` random reshuffles; the seating of
    least total cost is kept (ties: the first found), at most :data:`MOST_SWAPS` swaps
    tried; a seating costing ``floor`` (what every seating costs at least) ends it. Past
    :data:`SWAPS_PER_PASS` swaps, :func:`_sampled_search`."""

    def total(ts: list[list[str]]) -> float:
        return sum(table_cost(t) for t in ts)

    best, best_cost = [list(t) for t in tables], total(tables)
    everyone = [p for t in tables for p in t]
    sizes = [len(t) for t in tables]
    if _swaps(sizes) > SWAPS_PER_PASS:
        return _sampled_search(tables, table_cost, rng, floor)
    tried = 0
    for attempt in range(restarts + 1):
        if tried >= MOST_SWAPS:
            break
        if attempt == 0:
            cur = [list(t) for t in tables]
        else:
            order = list(everyone)
            rng.shuffle(order)
            cur, i = [], 0
            for s in sizes:
                cur.append(order[i : i + s])
                i += s
        cost = total(cur)
        costs = [table_cost(t) for t in cur]  # each table's, kept as swaps are made
        improved = True
        while improved and cost > floor and tried < MOST_SWAPS:
            improved = False
            moves = [
                (a, i, b, j)
                for a, b in itertools.combinations(range(len(cur)), 2)
                for i in range(len(cur[a]))
                for j in range(len(cur[b]))
            ]
            rng.shuffle(moves)
            moves = moves[: MOST_SWAPS - tried]
            tried += len(moves)
            for a, i, b, j in moves:
                cur[a][i], cur[b][j] = cur[b][j], cur[a][i]
                after_a, after_b = table_cost(cur[a]), table_cost(cur[b])
                delta = after_a + after_b - costs[a] - costs[b]
                if delta < 0:
                    cost += delta
                    costs[a], costs[b] = after_a, after_b
                    improved = True
                else:
                    cur[a][i], cur[b][j] = cur[b][j], cur[a][i]
        if cost < best_cost:
            best, best_cost = [list(t) for t in cur], cost
        if best_cost <= floor:
            break
    return best


def _sampled_search(
    tables: list[list[str]],
    table_cost: Callable[[Sequence[str]], float],
    rng: random.Random,
    floor: float = 0.0,
) -> list[list[str]]:
    """The search of a large roster, from ``tables`` alone: passes of
    :data:`SWAPS_PER_PASS` swaps drawn at random, each of a player at a table that costs
    something (a swap of two tables that cost nothing cannot lower a cost that is never
    negative) with one at another table, first improvement, until a pass improves nothing,
    the cost is ``floor``, or :data:`MOST_SWAPS` are tried."""
    cur = [list(t) for t in tables]
    costs = [table_cost(t) for t in cur]
    tried, left = 0, sum(costs)
    while tried < MOST_SWAPS and left > floor:
        costly = [k for k, c in enumerate(costs) if c > 0]
        improved = False
        for _ in range(SWAPS_PER_PASS):
            if left <= floor:
                break
            a = rng.choice(costly)
            b = rng.randrange(len(cur) - 1)
            b += b >= a  # any table but a
            i, j = rng.randrange(len(cur[a])), rng.randrange(len(cur[b]))
            cur[a][i], cur[b][j] = cur[b][j], cur[a][i]
            after_a, after_b = table_cost(cur[a]), table_cost(cur[b])
            if after_a + after_b < costs[a] + costs[b]:
                left += after_a + after_b - costs[a] - costs[b]
                costs[a], costs[b] = after_a, after_b
                improved = True
            else:
                cur[a][i], cur[b][j] = cur[b][j], cur[a][i]
        tried += SWAPS_PER_PASS
        if not improved:
            break
    return cur


GROUP_WEIGHT = 1_000_000.0


def _group_clashes(table: Sequence[str], groups: Mapping[str, str | None]) -> int:
    seen = [groups.get(p) for p in table if groups.get(p)]
    return len(seen) - len(set(seen))


def _met_times(met: Met) -> Callable[[str, str], int]:
    """How often two players met, looked up by player: a search asks it millions of times,
    and building the pair's frozenset for each ask was most of a draw's time."""
    partners: dict[str, dict[str, int]] = {}
    for pair, n in met.items():
        a, b = sorted(pair)
        partners.setdefault(a, {})[b] = n
        partners.setdefault(b, {})[a] = n
    none: dict[str, int] = {}
    return lambda a, b: partners.get(a, none).get(b, 0)


def _clashes(groups: Mapping[str, str | None]) -> Callable[[Sequence[str]], int]:
    """:func:`_group_clashes` of a table, ``groups`` read once."""
    group_of = {p: g for p, g in groups.items() if g}

    def clashes(table: Sequence[str]) -> int:
        seen = [group_of[p] for p in table if p in group_of]
        return len(seen) - len(set(seen))

    return clashes


def met_pairs(tables: Sequence[Sequence[str]]) -> dict[Pair, int]:
    """How often each two players sat at one table in ``tables`` (several rounds' tables)."""
    met: dict[Pair, int] = {}
    for t in tables:
        for a, b in itertools.combinations(sorted(set(t)), 2):
            met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
    return met


def pair_cost(tables: Sequence[Sequence[str]], met: Met) -> int:
    """Sum over all pairs of (times met)² once ``tables`` are played after ``met``."""
    now = dict(met)
    for pair, n in met_pairs(tables).items():
        now[pair] = now.get(pair, 0) + n
    return sum(n * n for n in now.values())


def session(
    players: Sequence[str],
    groups: Mapping[str, str | None],
    met: Met,
    rng: random.Random,
    *,
    size: int = 4,
    small: bool = False,
) -> list[list[str]]:
    """A pepet session: members of one group apart first, then opponents rotated so that
    the sum over pairs of (times met)² is as small as the search finds."""
    start = first_round(players, groups, rng, size=size, small=small)
    times, clashes = _met_times(met), _clashes(groups)

    def cost(table: Sequence[str]) -> float:
        # a table raises the sum of squares by 2m + 1 per pair that met m times before;
        # the + 1 is the same for every seating of these sizes, so it is left out
        pairs = sum(2 * times(a, b) for a, b in itertools.combinations(table, 2))
        return GROUP_WEIGHT * clashes(table) + pairs

    return _search(start, cost, rng)


def next_round(
    qualifiers: Sequence[Sequence[str]],
    groups: Mapping[str, str | None],
    met: Met,
    rng: random.Random,
    *,
    size: int = 4,
) -> list[list[str]]:
    """The next round of a knockout: ``qualifiers`` are the qualifiers of each table of
    the previous round (in its order). Four or fewer: one final table. Otherwise tables
    by :func:`table_sizes`; the qualifiers of one table sit together and meet those of
    another table (a table's qualifiers are split only where tables of 3 demand it),
    members of one group apart where possible, then pairs that already met (other than
    table-mates of the previous round) avoided where possible."""
    everyone = [p for q in qualifiers for p in q]
    if len(everyone) <= size:
        if len(everyone) < 3:
            raise CannotSeat(len(everyone))
        return [list(everyone)]
    sizes = table_sizes(len(everyone), size)
    origin = {p: i for i, q in enumerate(qualifiers) for p in q}
    units = [list(q) for q in qualifiers if q]
    rng.shuffle(units)
    for u in units:
        rng.shuffle(u)
    start = _deal_units(units, sizes)
    times, clashes = _met_times(met), _clashes(groups)

    def cost(table: Sequence[str]) -> float:
        tables_from = len({origin[p] for p in table})
        same_origin = 1e9 if tables_from < 2 else 0.0
        old = sum(
            times(a, b) for a, b in itertools.combinations(table, 2) if origin[a] != origin[b]
        )
        # each table's qualifiers sit together unless the sizes force a split: a split
        # costs 1e7 for every table beyond the first its qualifiers sit at, which summed
        # over the tables is 1e7 per qualifying table met at each table, less 1e7 for each
        # qualifying table (the same for every seating: the search's floor)
        split = 1e7 * tables_from
        return same_origin + GROUP_WEIGHT * clashes(table) + old + split

    return _search(start, cost, rng, floor=1e7 * len(set(origin.values())))


def _deal_units(units: list[list[str]], sizes: Sequence[int]) -> list[list[str]]:
    """A first seating keeping units whole where they fit: units fill the tables in turn."""
    flat = [p for u in units for p in u]
    tables: list[list[str]] = []
    i = 0
    for s in sizes:
        tables.append(flat[i : i + s])
        i += s
    return tables


# --- chairs ---------------------------------------------------------------------------------


def chairs_by_lot(tables: Sequence[Sequence[str]], rng: random.Random) -> list[dict[str, str]]:
    """``chair → player`` per table, drawn by lot (a table of 3 leaves a chair empty,
    also by lot)."""
    seated = []
    for t in tables:
        chairs = rng.sample(CHAIRS, len(t))
        players = list(t)
        rng.shuffle(players)
        seated.append(dict(sorted(zip(chairs, players, strict=True))))
    return seated


Schedule = Sequence[tuple[int, int, str]]


def swap_schedule(params: Mapping[str, object]) -> list[tuple[int, int, str]]:
    """The ruleset's swap schedule (``[draw] swaps``) as ``(first hand, last hand, chairs)``;
    empty when the ruleset has none (chairs fixed)."""
    draw = params.get("draw")
    swaps = draw.get("swaps", []) if isinstance(draw, Mapping) else []
    return [(int(s["hands"][0]), int(s["hands"][1]), str(s["chairs"]).upper()) for s in swaps]


def swap_hands(schedule: Schedule) -> list[int]:
    """The hands at which ``schedule`` moves chairs (unhas: 3 and 7); none for a ruleset
    whose chairs stay put the whole match (pepet, rule 22)."""
    moves, held = [], "".join(CHAIRS)
    for first, _, chairs in sorted(schedule):
        if chairs != held:
            moves.append(first)
        held = chairs
    return moves


def chairs_at(schedule: Schedule, hand: int) -> str:
    """The schedule's ``chairs`` for ``hand``: the entry that lists it; after the last
    entry the last one holds (tie-break hands keep the last seating); before the first,
    or with no schedule, nobody moves (``ABCD``)."""
    held = "".join(CHAIRS)
    for first, last, chairs in sorted(schedule):
        if first <= hand <= last:
            return chairs
        if last < hand:
            held = chairs
    return held


def moved(seats: Mapping[str, str], schedule: Schedule, from_hand: int, to_hand: int) -> dict:
    """``seats`` (chair → player, chairs in any case) of ``from_hand`` moved to
    ``to_hand`` by ``schedule``; chairs keep the case they came in."""
    lower = any(c.islower() for c in seats)
    was, now = chairs_at(schedule, from_hand), chairs_at(schedule, to_hand)
    start = {was[CHAIRS.index(c.upper())]: p for c, p in seats.items()}
    out = {
        chair: start[came_from]
        for chair, came_from in zip(CHAIRS, now, strict=True)
        if came_from in start
    }
    return {(c.lower() if lower else c): p for c, p in out.items()}


def sources(schedule: Schedule, upto: int) -> list[tuple[int, int, str]]:
    """``(f, h, chairs)`` for hands ``1 <= f <= h <= upto``: the letter at a chair's place
    in ``chairs`` is the chair of hand ``f`` whose player the schedule seats there in
    hand ``h`` (what a check reads a match through, from its first hand)."""
    out = []
    for f in range(1, upto + 1):
        was = chairs_at(schedule, f)
        for h in range(f, upto + 1):
            out.append((f, h, "".join(CHAIRS[was.index(c)] for c in chairs_at(schedule, h))))
    return out


def per_hand(start: Mapping[str, str], schedule: Schedule) -> list[tuple[int | None, str, str]]:
    """``(hand, chair, player)`` for every hand of ``schedule`` (``(first, last, chairs)``:
    the letter at a chair's place in ``chairs`` is the starting chair whose player sits
    there in those hands); an empty schedule: one row per chair with hand ``None``."""
    if not schedule:
        return [(None, c, p) for c, p in sorted(start.items())]
    rows: list[tuple[int | None, str, str]] = []
    for first, last, chairs in schedule:
        for hand in range(first, last + 1):
            for chair, came_from in zip(CHAIRS, chairs, strict=True):
                if came_from in start:
                    rows.append((hand, chair, start[came_from]))
    return rows
