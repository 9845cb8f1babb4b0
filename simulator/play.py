"""Tiles, their values, and one hand played tile by tile (unhas and pepet rules of play)."""

import random
from dataclasses import dataclass

from pipeline import rulesets

CHAIRS = ("A", "B", "C", "D")

# --- tiles --------------------------------------------------------------------------------

#: The double-six set: tile id → (high end, low end).
TILES: tuple[tuple[int, int], ...] = tuple((hi, lo) for hi in range(7) for lo in range(hi + 1))
HI = tuple(t[0] for t in TILES)
LO = tuple(t[1] for t in TILES)
VALUE = tuple(hi + lo for hi, lo in TILES)
DOUBLE = tuple(hi == lo for hi, lo in TILES)
TEXT = tuple(f"{hi}-{lo}" for hi, lo in TILES)
DOUBLES = tuple(t for t in range(28) if DOUBLE[t])  # 0-0, 1-1, … 6-6 in order
T33 = TILES.index((3, 3))


def unhas_value(tiles: list[int]) -> int:
    return sum(VALUE[t] for t in tiles)


def zero_zero_alone() -> int:
    """What ``0-0`` without a partner counts (pepet.toml; RULES.md pepet rule 6)."""
    return int(rulesets.load("pepet").flat["zero_zero_alone"])


def pepet_value(tiles: list[int], zero_zero: int) -> int:
    """RULES.md pepet rule 6: ``0-0`` counts ``zero_zero`` (13) unless the same player is
    charged with another tile with a blank end; dead tiles count like any other."""
    total = sum(VALUE[t] for t in tiles)
    if 0 in tiles and not any(LO[t] == 0 and HI[t] > 0 for t in tiles):
        total += zero_zero
    return total


def tiles_text(live: list[int], dead: list[int] | None = None) -> str:
    """Canonical text of the tiles a player is charged with; dead tiles carry a ``*``."""
    return " ".join(
        [TEXT[t] for t in sorted(live, reverse=True)] + [TEXT[t] + "*" for t in dead or []]
    )


# --- playing one hand ---------------------------------------------------------------------


@dataclass
class Played:
    """The end of one hand, in positions (0 = the leader)."""

    ending: str
    ender: int | None
    last: int | None  # tile id
    live: list[list[int]]
    dead: list[list[int]]
    winner: int  # who leads the next hand
    withheld: int | None = None  # pepet tutup: the tile the causer kept back
    ends: tuple[int, int] | None = None  # the open ends of the line at the end


def _counts(live: list[list[int]]) -> list[list[int]]:
    """Per position, how many tiles in hand show each number 0-6: "can this player play?"
    and "is the line blocked?" then cost a look-up instead of a scan of every hand."""
    counts = [[0] * 7 for _ in live]
    for c, hand in zip(counts, live, strict=True):
        for t in hand:
            _take(c, t, 1)
    return counts


def _take(c: list[int], t: int, d: int) -> None:
    c[HI[t]] += d
    if LO[t] != HI[t]:
        c[LO[t]] += d


def _moves(hand: list[int], left: int, right: int) -> list[tuple[int, int]]:
    """(tile, side) pairs: side 0 puts the tile on the left end, 1 on the right."""
    out = []
    for t in hand:
        on_left = left in (HI[t], LO[t])
        if on_left:
            out.append((t, 0))
        if right in (HI[t], LO[t]) and (not on_left or left != right):
            out.append((t, 1))
    return out


def _place(t: int, side: int, left: int, right: int) -> tuple[int, int]:
    end = left if side == 0 else right
    other = LO[t] if HI[t] == end else HI[t]
    return (other, right) if side == 0 else (left, other)


def _choose(
    moves: list[tuple[int, int]], rng: random.Random, left: int, right: int, *, last: bool
) -> tuple[int, int]:
    """A plausible player: heavy tiles and doubles first, with some noise; playing the last
    tile, the placement that makes both ends equal (ceki) when there is one."""
    if last:
        return max(moves, key=lambda m: (_equal_after(m, left, right), rng.random()))
    return max(moves, key=lambda m: VALUE[m[0]] + 4 * DOUBLE[m[0]] + rng.random() * 8)


def _equal_after(m: tuple[int, int], left: int, right: int) -> bool:
    a, b = _place(m[0], m[1], left, right)
    return a == b


def _lead(hand: list[int], rng: random.Random) -> int:
    return max(hand, key=lambda t: VALUE[t] + 4 * DOUBLE[t] + rng.random() * 8)


def opening_tile(hands: list[list[int]]) -> tuple[int, int] | None:
    """Who leads a match's first hand and with what: the holder of ``3-3``; when it sleeps
    (3 players or a tie-break hand), the holder of the lowest double dealt; (position, tile)."""
    for d in (T33, *DOUBLES):
        for p, h in enumerate(hands):
            if d in h:
                return p, d
    return None


def play_unhas(hands: list[list[int]], rng: random.Random, opening: int | None = None) -> Played:
    """Play one unhas hand (RULES.md Art. 1-2); ``hands`` in positions, position 0 leads.

    ``opening`` is the tile the leader must lead (``3-3`` in a first hand), else the leader
    chooses. A player who cannot play passes. The hand ends when a player plays the last
    tile (apollo, ceki or biasa) or nobody can play (kandang, ended by the last player).
    """
    n = len(hands)
    live = [list(h) for h in hands]
    for p, h in enumerate(live):
        if len(h) == 7 and all(DOUBLE[t] for t in h):
            return Played("all_doubles", p, None, live, [[] for _ in live], p)
    counts = _counts(live)
    p = 0
    t = opening if opening is not None else _lead(live[0], rng)
    left, right = HI[t], LO[t]
    while True:
        live[p].remove(t)
        _take(counts[p], t, -1)
        if not live[p]:
            ending = "apollo" if DOUBLE[t] else "ceki" if left == right else "biasa"
            return Played(ending, p, t, live, [[] for _ in live], p, ends=(left, right))
        if not any(c[left] or c[right] for c in counts):
            return Played(
                "kandang",
                p,
                t,
                live,
                [[] for _ in live],
                _kandang_winner(live, p),
                ends=(left, right),
            )
        while True:  # the next player who can play; the others pass ("pas")
            p = (p + 1) % n
            if counts[p][left] or counts[p][right]:
                break
        moves = _moves(live[p], left, right)
        t, side = _choose(moves, rng, left, right, last=len(live[p]) == 1)
        left, right = _place(t, side, left, right)


def _kandang_winner(live: list[list[int]], blocker: int) -> int:
    """Who leads after a block: the blocker if strictly lowest, else the first catcher."""
    n = len(live)
    values = [unhas_value(h) for h in live]
    others = [values[q] for q in range(n) if q != blocker]
    low = min(others)
    if values[blocker] < low:
        return blocker
    return next(q for q in ((blocker + i) % n for i in range(1, n)) if values[q] == low)


#: Chance per turn that a pepet player who could play closes a tile instead (a tutup).
TUTUP_PER_TURN = 0.0007


def play_pepet(
    hands: list[list[int]],
    rng: random.Random,
    opening: int | None = None,
    *,
    tutup: float = TUTUP_PER_TURN,
    zero_zero: int | None = None,
) -> Played:
    """Play one pepet hand (RULES.md, pepet, "How a hand ends (decided)").

    A player who cannot play closes one tile face down (a dead tile, charged at the end);
    a player left with dead tiles only sits out. The hand ends when a player plays the
    last tile they hold (``out``), when no live tile in any hand fits (``locked``, by the
    player who played the last tile), or, rarely, when a player closes a tile although
    one fits (``tutup``, caused by that player).
    """
    n = len(hands)
    zz = zero_zero_alone() if zero_zero is None else zero_zero
    live = [list(h) for h in hands]
    dead: list[list[int]] = [[] for _ in live]
    counts = _counts(live)
    p = 0
    t = opening if opening is not None else _lead(live[0], rng)
    left, right = HI[t], LO[t]
    while True:
        live[p].remove(t)
        _take(counts[p], t, -1)
        if not live[p] and not dead[p]:
            return Played("out", p, t, live, dead, p, ends=(left, right))
        if not any(c[left] or c[right] for c in counts):
            values = [pepet_value(live[q] + dead[q], zz) for q in range(n)]
            low = min(values)
            winner = next(q for q in ((p + i) % n for i in range(n)) if values[q] == low)
            return Played("locked", p, t, live, dead, winner, ends=(left, right))
        while True:  # someone holds a tile that fits; players who cannot play close one
            p = (p + 1) % n
            if not live[p]:
                continue  # only dead tiles left: sits out
            if counts[p][left] or counts[p][right]:
                break
            closed = min(live[p], key=lambda x: (VALUE[x], rng.random()))
            live[p].remove(closed)
            _take(counts[p], closed, -1)
            dead[p].append(closed)
        moves = _moves(live[p], left, right)
        if rng.random() < tutup:
            kept = max((m[0] for m in moves), key=lambda x: VALUE[x])
            return Played("tutup", p, None, live, dead, 0, withheld=kept, ends=(left, right))
        t, side = _choose(moves, rng, left, right, last=False)
        left, right = _place(t, side, left, right)
