"""The deal simulator: real block-domino hands played tile by tile, written as hand logs.

Three uses, one engine (``docs/simulator.md`` explains every decision):

* :func:`generate_frame` / :func:`write_event` with ``hands=None``: one realistic event.
  unhas: three rounds where each round seats the qualifiers of the previous one (as the
  product ranks them), 3-player tables, walkovers, sanctions, tie-break hands; pepet:
  three sessions of 12 players on 3 tables.
* the same with ``hands=N``: a benchmark corpus of about N hands. Playing ten million
  hands tile by tile in Python would take most of an hour, so a seeded *pool* of real deals is
  played tile by tile and the corpus is assembled from it with numpy and polars (events,
  rounds, tables, players, the unhas swap schedule, the winner leading the next hand).
  Every row is still a real deal.
* :func:`make_samples`: the bundled sample events in ``data/samples/`` (files as referees
  upload them: ``;`` or ``,``, Indonesian headers, a BOM, several tile notations, XLSX).
  ``python -m pipeline.simulate samples data/samples`` regenerates them byte for byte.

Hands are played in *positions*: position 0 leads, then 1, 2, … in playing order (chairs
A→B→C→D, empty chairs skipped, starting at the leader's chair).
"""

import csv
import dataclasses
import io
import random
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path

import numpy as np
import polars as pl

from pipeline import rulesets
from pipeline.io.columns import CANONICAL

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


# --- a table, hand by hand ------------------------------------------------------------------


@dataclass
class Hand:
    """One hand as it happened, by chair (what a referee would see)."""

    round: str
    table: str
    hand: int | None
    seats: dict[str, str]  # chair → player; empty chairs are absent
    ending: str
    ended_by: str | None = None
    last: int | None = None
    live: dict[str, list[int]] = field(default_factory=dict)
    dead: dict[str, list[int]] = field(default_factory=dict)
    sanctions: dict[str, list[str]] = field(default_factory=dict)
    note: str | None = None
    winner: str | None = None  # the player who leads the next hand
    leader: str | None = None  # the player who led this hand
    dealt: dict[str, list[int]] = field(default_factory=dict)
    ends: tuple[int, int] | None = None
    withheld: int | None = None


def _occupied(seats: dict[str, str]) -> list[str]:
    return [c for c in CHAIRS if seats.get(c)]


def deal(
    rng: random.Random, chairs: list[str], *, all_doubles: str | None = None
) -> dict[str, list[int]]:
    """Shuffle the 28 tiles and give 7 to each chair; the rest sleep. ``all_doubles`` names a
    chair that is dealt the seven doubles (samples force this rare deal)."""
    if all_doubles:
        rest = [t for t in range(28) if not DOUBLE[t]]
        rng.shuffle(rest)
        hands, i = {}, 0
        for c in chairs:
            if c == all_doubles:
                hands[c] = list(DOUBLES)
            else:
                hands[c], i = sorted(rest[i : i + 7]), i + 7
        return hands
    tiles = list(range(28))
    rng.shuffle(tiles)
    return {c: sorted(tiles[7 * i : 7 * i + 7]) for i, c in enumerate(chairs)}


def play_table_hand(
    rng: random.Random,
    ruleset: str,
    seats: dict[str, str],
    dealt: dict[str, list[int]],
    leader: str | None,
    *,
    zero_zero: int | None = None,
) -> tuple[Played, list[str]]:
    """Play a dealt hand at a table; ``leader`` None means a first hand (``3-3`` leads).
    Returns the result in positions and the chairs in playing order."""
    occ = _occupied(seats)
    opening = None
    if leader is None:
        found = opening_tile([dealt[c] for c in occ])
        leader, opening = (occ[found[0]], found[1]) if found else (occ[0], None)
    k = occ.index(leader)
    order = occ[k:] + occ[:k]
    hands = [dealt[c] for c in order]
    if ruleset == "unhas":
        result = play_unhas(hands, rng, opening)
    else:
        result = play_pepet(hands, rng, opening, zero_zero=zero_zero)
    return result, order


def _hand_from(
    rnd: str,
    table: str,
    number: int,
    seats: dict[str, str],
    res: Played,
    order: list[str],
    dealt: dict[str, list[int]],
) -> Hand:
    h = Hand(
        round=rnd,
        table=table,
        hand=number,
        seats=dict(seats),
        ending=res.ending,
        ended_by=order[res.ender] if res.ender is not None else None,
        last=res.last,
        live={c: res.live[i] for i, c in enumerate(order)},
        dead={c: res.dead[i] for i, c in enumerate(order)},
        winner=seats[order[res.winner]],
        leader=seats[order[0]],
        dealt={c: list(t) for c, t in dealt.items()},
        ends=res.ends,
        withheld=res.withheld,
    )
    if res.ending == "all_doubles":
        h.note = "balak: tujuh kartu dobel"
    elif res.ending == "tutup":
        h.note = f"tutup: {seats[h.ended_by]} menahan {TEXT[res.withheld]}"  # type: ignore[index]
    return h


# --- unhas: seating, points, tie-breaks, rounds -----------------------------------------------


def unhas_seating(start: dict[str, str], hand: int) -> dict[str, str]:
    """RULES.md Art. 1.14-1.15 (cumulative): hands 3-6 swap A↔C, hands 7-10 also B↔D."""
    s = {c: start.get(c, "") for c in CHAIRS}
    if hand >= 3:
        s["A"], s["C"] = s["C"], s["A"]
    if hand >= 7:
        s["B"], s["D"] = s["D"], s["B"]
    return {c: p for c, p in s.items() if p}


def unhas_game_points(h: Hand, params: dict[str, object]) -> dict[str, int]:
    """Art. 2 game points per player of one played hand (sanctions apart)."""
    occ = _occupied(h.seats)
    pts = {h.seats[c]: 0 for c in occ}

    def above(c: str) -> str:
        return occ[occ.index(c) - 1]

    def p(kind: str, role: str) -> int:
        return int(params[f"points_{kind}_{role}"])  # type: ignore[arg-type]

    e = h.ended_by
    assert e is not None
    if h.ending in ("apollo", "ceki", "biasa", "all_doubles"):
        kind = "biasa" if h.ending == "all_doubles" else h.ending
        pts[h.seats[e]] += p(kind, "winner")
        pts[h.seats[above(e)]] += p(kind, "loser")
        return pts
    values = {c: unhas_value(h.live[c]) for c in occ}
    low = min(v for c, v in values.items() if c != e)
    if values[e] < low:
        pts[h.seats[e]] += p("kandang", "winner")
        pts[h.seats[above(e)]] += p("kandang", "loser")
        return pts
    kind = "tangkap_lower" if low < values[e] else "tangkap_equal"
    catchers = [c for c in occ if c != e and values[c] == low]
    win = p(kind, "winner")
    if len(catchers) >= 2:
        win = win // 2 if params["catcher_split"] == "halve" else win // len(catchers)
    for c in catchers:
        pts[h.seats[c]] += win
    pts[h.seats[e]] += p(kind, "loser")
    return pts


def unhas_standings(hands: list[Hand], params: dict[str, object]) -> list[dict[str, object]]:
    """Table standings as RULES.md decides them: total (regular hands + every sanction),
    then tie-break game points; ``needs_tiebreak`` where a tie shares rank 1 or straddles
    the qualification line."""
    regular = int(params["regular_hands"])  # type: ignore[arg-type]
    q = int(params["qualifiers_per_table"])  # type: ignore[arg-type]
    total: dict[str, int] = {}
    tb: dict[str, int] = {}
    warns: dict[str, int] = {}
    for h in sorted(hands, key=lambda x: x.hand or 0):
        game = unhas_game_points(h, params)
        for name, g in game.items():
            total.setdefault(name, 0)
            tb.setdefault(name, 0)
            if h.hand and h.hand > regular and not params["tiebreak_points_count"]:
                tb[name] += g
            else:
                total[name] += g
        for c, codes in h.sanctions.items():
            name = h.seats[c]
            for code in codes:
                if code == "warn":
                    warns[name] = warns.get(name, 0) + 1
                    if warns[name] <= int(params["sanctions_warn_free"]):  # type: ignore[arg-type]
                        continue
                total[name] += int(params[f"sanctions_{code}"])  # type: ignore[arg-type]
    key = {n: (total[n], tb[n]) for n in total}
    rows = []
    for n in total:
        rank = 1 + sum(1 for m in total if key[m] > key[n])
        tied = sum(1 for m in total if key[m] == key[n])
        rows.append(
            {
                "player": n,
                "points": total[n],
                "tiebreak": tb[n],
                "rank": rank,
                "tied": tied,
                "qualified": rank + tied - 1 <= q,
                "needs_tiebreak": tied > 1 and (rank == 1 or (rank <= q and rank + tied - 1 > q)),
            }
        )
    return sorted(rows, key=lambda r: (r["rank"], r["player"]))


#: Sanction codes and how often a referee writes each (per seated player per regular hand).
SANCTIONS = (("warn", 0.010), ("show", 0.004), ("wrong", 0.003))


def unhas_match(
    rng: random.Random,
    rnd: str,
    table: str,
    start: dict[str, str],
    *,
    sanction_rate: float = 1.0,
    all_doubles: tuple[int, str] | None = None,
    seating: dict[int, int] | None = None,
    sanctions: list[tuple[int, str, str]] = (),  # type: ignore[assignment]
) -> list[Hand]:
    """One unhas match: a walkover row for 1-2 players, else 10 hands with the swap
    schedule and the tie-break hands the result calls for.

    ``all_doubles`` (hand, chair), ``seating`` (hand → the schedule hand its seating
    follows: ``{7: 6}`` is a referee who made the B↔D swap one hand late) and
    ``sanctions`` ((hand, player, code)) let the samples force rare things.
    """
    params = rulesets.load("unhas").flat
    present = {c: p for c, p in start.items() if p}
    if len(present) <= 2:
        return [Hand(rnd, table, None, present, "wo", note="walkover")]
    regular = int(params["regular_hands"])
    hands: list[Hand] = []
    winner: str | None = None
    for number in range(1, regular + 1):
        seats = unhas_seating(present, (seating or {}).get(number, number))
        occ = _occupied(seats)
        forced = all_doubles[1] if all_doubles and all_doubles[0] == number else None
        dealt = deal(rng, occ, all_doubles=forced)
        leader = None if winner is None else next(c for c in occ if seats[c] == winner)
        res, order = play_table_hand(rng, "unhas", seats, dealt, leader)
        h = _hand_from(rnd, table, number, seats, res, order, dealt)
        for c in occ:
            for code, rate in SANCTIONS:
                if rng.random() < rate * sanction_rate:
                    h.sanctions.setdefault(c, []).append(code)
        for hand_no, player, code in sanctions:
            if hand_no == number:
                c = next(c for c in occ if seats[c] == player)
                h.sanctions.setdefault(c, []).append(code)
        hands.append(h)
        winner = h.winner
    last_seats = hands[-1].seats
    for _ in range(12):  # tie-break hands until no tie decides qualification or rank 1
        groups: dict[tuple[int, int], list[str]] = {}
        for r in unhas_standings(hands, params):
            if r["needs_tiebreak"]:
                groups.setdefault((r["points"], r["tiebreak"]), []).append(str(r["player"]))  # type: ignore[arg-type]
        if not groups:
            break
        for group in groups.values():
            seats = {c: p for c, p in last_seats.items() if p in group}
            dealt = deal(rng, _occupied(seats))
            res, order = play_table_hand(rng, "unhas", seats, dealt, None)
            h = _hand_from(rnd, table, len(hands) + 1, seats, res, order, dealt)
            h.note = "kocokan penentu (tie-break)" + (f"; {h.note}" if h.note else "")
            hands.append(h)
    return hands


def qualifiers(hands: list[Hand]) -> list[str]:
    """Who advances from a match: every listed player of a walkover, else the qualified."""
    if hands and hands[0].ending == "wo":
        return [hands[0].seats[c] for c in _occupied(hands[0].seats)]
    params = rulesets.load("unhas").flat
    return [str(r["player"]) for r in unhas_standings(hands, params) if r["qualified"]]


def _seat(rng: random.Random, players: list[str]) -> dict[str, str]:
    """Players drawn into random chairs of a 4-chair table (fewer players leave chairs empty)."""
    chairs = sorted(rng.sample(CHAIRS, len(players)))
    people = list(players)
    rng.shuffle(people)
    return dict(zip(chairs, people, strict=True))


def unhas_event(
    rng: random.Random,
    r1_tables: list[list[str]],
    *,
    forced: dict[tuple[str, str], dict[str, object]] | None = None,
) -> list[Hand]:
    """Rounds until a final: R1 seats ``r1_tables``; each later table seats the qualifiers
    of two tables of the round before (Art. 4.1). ``forced[(round, table)]`` passes the
    sample's rare things on to :func:`unhas_match`."""
    forced = forced or {}
    out: list[Hand] = []
    tables = r1_tables
    r = 1
    while True:
        rnd = f"R{r}"
        results = []
        for i, players in enumerate(tables, start=1):
            start = _seat(rng, players)
            opts = forced.get((rnd, str(i)), {})
            hands = unhas_match(rng, rnd, str(i), start, **opts)  # type: ignore[arg-type]
            out.extend(hands)
            results.append(hands)
        if len(tables) == 1:
            return out
        quals = [qualifiers(h) for h in results]
        tables = [sum(quals[i : i + 2], []) for i in range(0, len(quals), 2)]
        r += 1


# --- pepet: a session is 12 players on 3 tables --------------------------------------------


def pepet_table(
    rng: random.Random, rnd: str, table: str, seats: dict[str, str], n_hands: int
) -> list[Hand]:
    """One table of a session: no seat changes, ``3-3`` leads the first hand, then the
    previous winner (after a tutup, the leader of that hand leads again)."""
    hands: list[Hand] = []
    leader: str | None = None
    occ = _occupied(seats)
    zz = zero_zero_alone()
    for number in range(1, n_hands + 1):
        dealt = deal(rng, occ)
        lead_chair = None if leader is None else next(c for c in occ if seats[c] == leader)
        res, order = play_table_hand(rng, "pepet", seats, dealt, lead_chair, zero_zero=zz)
        h = _hand_from(rnd, table, number, seats, res, order, dealt)
        hands.append(h)
        leader = h.winner
    return hands


def pepet_event(
    rng: random.Random, players: list[str], sessions: int = 3, hands: tuple[int, int] = (7, 9)
) -> list[Hand]:
    """Sessions of 12 players (drawn from ``players``) on 3 tables of 4."""
    out: list[Hand] = []
    for s in range(1, sessions + 1):
        chosen = rng.sample(players, 12)
        for t in range(3):
            seats = dict(zip(CHAIRS, chosen[4 * t : 4 * t + 4], strict=True))
            out.extend(pepet_table(rng, f"S{s}", str(t + 1), seats, rng.randint(*hands)))
    return out


# --- from hands to hand-log rows -------------------------------------------------------------

FRAME_SCHEMA: dict[str, pl.DataType] = {
    c: (pl.Int64() if c == "hand" or c.startswith("pips_") else pl.String()) for c in CANONICAL
}


def record(
    hands: list[Hand], ruleset: str, event: str, rng: random.Random, *, tiles: bool = True
) -> pl.DataFrame:
    """Hand-log rows (the canonical columns), written as referees do: the values the
    contract needs always (unhas kandang: every chair; pepet: every chair but the one
    that went out), other values now and then; each value as pips, tiles or both
    (``tiles=False``: a referee who only counts pips)."""
    rows = []
    zz = zero_zero_alone()
    for h in hands:
        row: dict[str, object] = {c: None for c in CANONICAL}
        row.update(
            event=event, ruleset=ruleset, round=h.round, table=h.table, hand=h.hand, note=h.note
        )
        row["ended_by"], row["ending"] = h.ended_by, h.ending
        row["last_tile"] = TEXT[h.last] if h.last is not None else None
        occ = _occupied(h.seats)
        for c in occ:
            row[f"player_{c.lower()}"] = h.seats[c]
            if h.sanctions.get(c):
                row[f"sanctions_{c.lower()}"] = ";".join(h.sanctions[c])
        went_out = h.ending in ("apollo", "ceki", "biasa", "out")
        if h.ending in ("kandang", "locked", "out"):
            chosen = [c for c in occ if not (went_out and c == h.ended_by)]
        elif h.ending in ("apollo", "ceki", "biasa") and rng.random() < 0.35:
            chosen = [c for c in occ if c != h.ended_by and rng.random() < 0.7]
        else:
            chosen = []
        if went_out and rng.random() < 0.25:
            row[f"pips_{h.ended_by.lower()}"] = 0  # type: ignore[union-attr]
        for c in chosen:
            u = rng.random()
            charged = h.live[c] + h.dead.get(c, [])
            value = pepet_value(charged, zz) if ruleset == "pepet" else unhas_value(charged)
            if u < 0.85 or not tiles:
                row[f"pips_{c.lower()}"] = value
            if u >= 0.55 and tiles:
                row[f"tiles_{c.lower()}"] = tiles_text(h.live[c], h.dead.get(c, []))
        rows.append(row)
    return (
        pl.DataFrame(rows, schema=FRAME_SCHEMA, orient="row")
        if rows
        else pl.DataFrame(schema=FRAME_SCHEMA)
    )


# --- one realistic event ---------------------------------------------------------------------

FIRST = tuple(
    n.strip()
    for n in """
    Andi, Ahmad, Akbar, Arif, Asri, Baso, Bayu, Citra, Daeng, Dewi, Eko, Fajar, Fitri,
    Hasan, Hasnah, Haris, Hendra, Ilham, Indah, Irfan, Ismail, Joko, Kartini, Lukman,
    Mansur, Muh., Nining, Nurul, Oki, Putri, Rahmat, Ridwan, Rina, Rusdi, Sitti, Sri,
    Syamsul, Taufik, Umar, Wahyu, Wulan, Yusuf, Zainal, Agus, Budi, Dedi, Gilang, Hamka,
    Irma, Jumriah, Kadir, Lina, Musdalifah
""".split(",")
)  # 53 first names
LAST = tuple(
    n.strip()
    for n in """
    Amir, Bakri, Daeng, Hamzah, Hasyim, Ilyas, Kadir, Latif, Makmur, Mansyur, Nugroho, Nur,
    Pallawa, Rahman, Ramli, Rauf, Saputra, Santoso, Sudirman, Sulaiman, Syarif, Tahir,
    Wijaya, Yunus, Lestari, Basri, Hakim, Halim, Jufri, Karim, Lahay, Mappa, Nasir, Patta,
    Rasyid, Salam, Tang, Usman, Wahid, Yamin, Zulkifli, Aras, Bachtiar, Dg. Situju, Gani,
    Idrus, Majid
""".split(",")
)  # 47 family names
NAMES = tuple(f"{f} {last}" for f in FIRST for last in LAST)


def _names(rng: random.Random, n: int) -> list[str]:
    return rng.sample(NAMES, n)


def default_event(ruleset: str, seed: int) -> list[Hand]:
    """The event ``domino generate`` writes without ``--hands``.

    unhas: 16 entrants on 4 tables; now and then a no-show leaves a table with 3 players
    or a walkover; rounds until a final. pepet: 16 players, 3 sessions of 12 on 3 tables.
    """
    rng = random.Random(seed)
    players = _names(rng, 16)
    if ruleset == "pepet":
        return pepet_event(rng, players)
    tables = [players[i : i + 4] for i in range(0, 16, 4)]
    for t in tables:
        if rng.random() < 0.3:
            t.pop()  # a no-show
    if rng.random() < 0.3:
        del tables[rng.randrange(4)][2:]  # two no-shows: a walkover
    return unhas_event(rng, tables)


def event_frame(ruleset: str, seed: int, event: str | None = None) -> pl.DataFrame:
    hands = default_event(ruleset, seed)
    return record(hands, ruleset, event or f"{ruleset}-sim-{seed}", random.Random(f"record-{seed}"))


# --- corpora: a pool of real deals, assembled with numpy and polars ----------------------------

ENDING_CODES = ("apollo", "ceki", "biasa", "kandang", "all_doubles", "out", "locked", "tutup", "wo")
_WENT_OUT = (0, 1, 2, 5)  # codes of apollo, ceki, biasa, out


@dataclass
class Pool:
    """Real deals played tile by tile, in positions (0 = the leader), one row per deal.

    ``segments[(players, first)]`` is the index range of the deals with that many players,
    led with ``3-3`` (``first``, a match's or session's first hand) or by the leader's
    choice (the previous winner)."""

    ending: np.ndarray  # int8 code into ENDING_CODES
    ender: np.ndarray  # int8 position
    winner: np.ndarray  # int8 position
    last: np.ndarray  # int8 tile id, -1 none
    value: np.ndarray  # (deals, 4) int16, -1 none
    tiles: pl.Series  # deals*4 texts (position-major within a deal), null none
    note: pl.Series  # per deal, null none
    segments: dict[tuple[int, bool], tuple[int, int]]


#: One deal in this many has a player dealt all seven doubles (1 in ~300,000 by chance):
#: corpora should exercise that ending too.
POOL_ALL_DOUBLES = 5000


@lru_cache(maxsize=4)
def deal_pool(ruleset: str, seed: int, size: int) -> Pool:
    """``size`` deals led by the winner's choice, and smaller sets of first hands (and, for
    unhas, 3-player tables), all played tile by tile from ``random.Random``."""
    rng = random.Random(f"pool-{ruleset}-{seed}")
    if ruleset == "unhas":
        plan = [
            (4, False, size),
            (4, True, max(200, size // 5)),
            (3, False, max(200, size // 8)),
            (3, True, max(100, size // 30)),
        ]
    else:
        plan = [(4, False, size), (4, True, max(200, size // 5))]
    zz = zero_zero_alone()
    ending, ender, winner, last, value, tiles, notes = [], [], [], [], [], [], []
    segments = {}
    for n, first, count in plan:
        segments[(n, first)] = (len(ending), count)
        for i in range(count):
            forced = (
                "A" if ruleset == "unhas" and i % POOL_ALL_DOUBLES == POOL_ALL_DOUBLES - 1 else None
            )
            dealt = deal(rng, list(CHAIRS[:n]), all_doubles=forced)
            seats = {c: c for c in CHAIRS[:n]}
            res, _ = play_table_hand(
                rng, ruleset, seats, dealt, None if first else "A", zero_zero=zz
            )
            ending.append(ENDING_CODES.index(res.ending))
            ender.append(res.ender)
            winner.append(res.winner)
            last.append(-1 if res.last is None else res.last)
            vals, texts = [], []
            for q in range(4):
                if q >= n or res.ending in ("all_doubles", "tutup"):
                    vals.append(-1)
                    texts.append(None)
                    continue
                charged = res.live[q] + res.dead[q]
                vals.append(
                    pepet_value(charged, zz) if ruleset == "pepet" else unhas_value(charged)
                )
                texts.append(tiles_text(res.live[q], res.dead[q]) if charged else None)
            value.append(vals)
            tiles.extend(texts)
            notes.append(
                f"tutup: menahan {TEXT[res.withheld]}"
                if res.ending == "tutup"  # type: ignore[index]
                else "balak: tujuh kartu dobel"
                if res.ending == "all_doubles"
                else None
            )
    return Pool(
        ending=np.array(ending, dtype=np.int8),
        ender=np.array(ender, dtype=np.int8),
        winner=np.array(winner, dtype=np.int8),
        last=np.array(last, dtype=np.int8),
        value=np.array(value, dtype=np.int16),
        tiles=pl.Series("tiles", tiles, dtype=pl.String),
        note=pl.Series("note", notes, dtype=pl.String),
        segments=segments,
    )


def pool_size(hands: int) -> int:
    """Deals in the pool for a corpus of ``hands``: enough that deals rarely repeat in small
    corpora, capped so that a pool takes seconds to play."""
    return int(min(20_000, max(1_000, hands // 3)))


#: Chair mapping of the unhas swap schedule: chair → the starting chair whose player sits
#: there, for hands 1-2, 3-6 and 7-10.
_SCHEDULE = (np.array([0, 1, 2, 3]), np.array([2, 1, 0, 3]), np.array([2, 3, 0, 1]))


def _schedule(hand: int) -> np.ndarray:
    return _SCHEDULE[0 if hand < 3 else 1 if hand < 7 else 2]


@dataclass
class _Tables:
    """Tables of a corpus chunk: who sits where at the start, and their labels."""

    event: np.ndarray  # index into the chunk's event names
    round: np.ndarray  # 0-based
    table: np.ndarray  # 0-based
    seats: np.ndarray  # (tables, 4) global name index, -1 empty chair
    hands: np.ndarray  # hands to play (0: walkover)


def _play_corpus(
    pool: Pool, tb: _Tables, rng: np.random.Generator, *, swaps: bool
) -> dict[str, np.ndarray]:
    """Every hand of every table, vectorised over tables, hand by hand: the deal comes from
    the pool (first hands from the 3-3 deals), positions are mapped onto the occupied chairs
    starting at the leader's (the previous winner's) chair."""
    m = len(tb.event)
    present_start = tb.seats >= 0
    n_players = present_start.sum(axis=1)
    winner_start = np.zeros(m, dtype=np.int64)  # starting chair of the previous winner
    out: dict[str, list[np.ndarray]] = {
        k: [] for k in ("tab", "hand", "deal", "pos", "ender", "seat")
    }
    for h in range(1, int(tb.hands.max(initial=0)) + 1):
        idx = np.nonzero(tb.hands >= h)[0]
        if idx.size == 0:
            break
        sched = _schedule(h) if swaps else _SCHEDULE[0]
        seat = tb.seats[idx][:, sched]  # (k, 4): who sits in chair A..D in this hand
        present = seat >= 0
        n = n_players[idx]
        # occupied chairs in A→D order, then the empty ones
        occ = np.argsort(~present, axis=1, kind="stable")
        rank = np.argsort(occ, axis=1, kind="stable")  # chair → index among occupied
        if h == 1:
            k = rng.integers(0, n)  # whoever holds 3-3 sits anywhere
        else:
            inv = np.argsort(sched)  # starting chair → chair in this hand
            lead_chair = inv[winner_start[idx]]
            k = rank[np.arange(idx.size), lead_chair]
        deal_no = np.empty(idx.size, dtype=np.int64)
        for nn in np.unique(n).tolist():
            sel = n == nn
            start, count = pool.segments[(nn, h == 1)]
            deal_no[sel] = start + rng.integers(0, count, size=int(sel.sum()))
        pos = np.where(present, (rank - k[:, None]) % n[:, None], -1)  # chair → position
        ender_pos = pool.ender[deal_no].astype(np.int64)
        win_pos = pool.winner[deal_no].astype(np.int64)
        rows = np.arange(idx.size)
        ender_chair = occ[rows, (k + ender_pos) % n]
        win_chair = occ[rows, (k + win_pos) % n]
        winner_start[idx] = sched[win_chair]
        out["tab"].append(idx)
        out["hand"].append(np.full(idx.size, h))
        out["deal"].append(deal_no)
        out["pos"].append(pos)
        out["ender"].append(ender_chair)
        out["seat"].append(seat)
    return {k: np.concatenate(v) if v else np.empty(0, dtype=np.int64) for k, v in out.items()}


def _corpus_frame(
    pool: Pool,
    tb: _Tables,
    played: dict[str, np.ndarray],
    rng: np.random.Generator,
    *,
    ruleset: str,
    events: list[str],
    round_prefix: str,
) -> pl.DataFrame:
    """Hand-log rows from played corpus hands (and one row per walkover table)."""
    names = pl.Series(NAMES)
    chairs = pl.Series(CHAIRS)
    tiles_txt = pl.Series([*TEXT, None], dtype=pl.String)
    tab, deal_no, pos, ender = played["tab"], played["deal"], played["pos"], played["ender"]
    r = tab.size
    ending = pool.ending[deal_no]
    went_out = np.isin(ending, _WENT_OUT)
    need_all = np.isin(
        ending,
        (ENDING_CODES.index("kandang"), ENDING_CODES.index("locked"), ENDING_CODES.index("out")),
    )
    some = np.isin(ending, _WENT_OUT[:3]) & (rng.random(r) < 0.35)
    cols: dict[str, object] = {
        "event": pl.Series(events).gather(tb.event[tab]),
        "ruleset": pl.repeat(ruleset, r, eager=True),
        "round": pl.Series(tb.round[tab] + 1).cast(pl.String).str.replace(r"^", round_prefix),
        "table": pl.Series(tb.table[tab] + 1).cast(pl.String),
        "hand": pl.Series(played["hand"], dtype=pl.Int64),
    }
    for j, c in enumerate(CHAIRS):
        seat = played["seat"][:, j]
        cols[f"player_{c.lower()}"] = names.gather(np.maximum(seat, 0)).set(
            pl.Series(seat < 0), None
        )  # type: ignore[arg-type]
    cols["ended_by"] = chairs.gather(ender)
    cols["ending"] = pl.Series(ENDING_CODES).gather(ending)
    last = pool.last[deal_no].astype(np.int64)
    cols["last_tile"] = tiles_txt.gather(np.where(last < 0, 28, last))
    sanction_codes = pl.Series(["warn", "warn", "show", "wrong"])
    pips, tiles, sanctions = {}, {}, {}
    for j, c in enumerate(CHAIRS):
        p = pos[:, j]
        seated = p >= 0
        is_ender = ender == j
        chosen = seated & ~(went_out & is_ender) & (need_all | (some & (rng.random(r) < 0.7)))
        u = rng.random(r)
        flat = deal_no * 4 + np.maximum(p, 0)
        value = pool.value.reshape(-1)[flat].astype(np.int64)
        zero = went_out & is_ender & (rng.random(r) < 0.25)
        pips[c] = pl.Series(np.where(zero, 0, value), dtype=pl.Int64).set(
            pl.Series(~((chosen & (u < 0.85)) | zero)), None
        )  # type: ignore[arg-type]
        tiles[c] = pool.tiles.gather(flat).set(pl.Series(~(chosen & (u >= 0.55))), None)  # type: ignore[arg-type]
        sanc = seated & (rng.random(r) < 0.008) if ruleset == "unhas" else np.zeros(r, dtype=bool)
        sanctions[c] = sanction_codes.gather(rng.integers(0, 4, size=r)).set(pl.Series(~sanc), None)  # type: ignore[arg-type]
    for c in CHAIRS:
        cols[f"pips_{c.lower()}"] = pips[c]
    for c in CHAIRS:
        cols[f"tiles_{c.lower()}"] = tiles[c]
    for c in CHAIRS:
        cols[f"sanctions_{c.lower()}"] = sanctions[c]
    cols["note"] = pool.note.gather(deal_no)
    frame = pl.DataFrame(
        {k: (v.alias(k) if isinstance(v, pl.Series) else v) for k, v in cols.items()}
    )
    wo = np.nonzero(tb.hands == 0)[0]
    if wo.size:
        wrows = {
            "event": pl.Series(events).gather(tb.event[wo]),
            "ruleset": pl.repeat(ruleset, wo.size, eager=True),
            "round": pl.Series(tb.round[wo] + 1).cast(pl.String).str.replace(r"^", round_prefix),
            "table": pl.Series(tb.table[wo] + 1).cast(pl.String),
            "ending": pl.repeat("wo", wo.size, eager=True),
            "note": pl.repeat("walkover", wo.size, eager=True),
        }
        for j, c in enumerate(CHAIRS):
            seat = tb.seats[wo, j]
            wrows[f"player_{c.lower()}"] = names.gather(np.maximum(seat, 0)).set(
                pl.Series(seat < 0), None
            )  # type: ignore[arg-type]
        frame = pl.concat(
            [frame, pl.DataFrame({k: v.alias(k) for k, v in wrows.items()})], how="diagonal_relaxed"
        )
        tab = np.concatenate([tab, wo])
    order = (
        pl.DataFrame({"_t": tab, "_h": frame["hand"].fill_null(0)})
        .select(pl.arg_sort_by("_t", "_h"))
        .to_series()
    )
    return frame.select(pl.col(c).cast(FRAME_SCHEMA[c]) for c in CANONICAL)[order]


#: Corpus shape. unhas: events of 4 rounds × 8 tables (32 entrants, reseated each round);
#: some tables play with 3 (a no-show), a few are walkovers. pepet: events of 8 sessions,
#: each of 12 of the event's 24 players on 3 tables, 6-10 hands a table.
UNHAS_ROUNDS, UNHAS_TABLES = 4, 8
UNHAS_THREE, UNHAS_WO = 0.05, 0.005
PEPET_SESSIONS, PEPET_PLAYERS, PEPET_HANDS = 8, 24, (6, 10)
#: Hands per chunk of a corpus (whole events), so memory stays flat for 10 million.
CHUNK_HANDS = 1_000_000


def _event_names(rng: np.random.Generator, n_events: int, per_event: int) -> np.ndarray:
    """(events, per_event) distinct name indices per event: a random start and a step
    coprime with the number of names walk through the name list without repeating."""
    size = len(NAMES)
    start = rng.integers(0, size, size=n_events)
    step = rng.integers(1, size, size=n_events)
    step[np.gcd(step, size) != 1] = 1
    return (start[:, None] + step[:, None] * np.arange(per_event)[None, :]) % size


def _unhas_tables(rng: np.random.Generator, n_events: int, last_rounds: int) -> _Tables:
    """Events of UNHAS_ROUNDS rounds (the last event ``last_rounds``), UNHAS_TABLES tables each."""
    per = 4 * UNHAS_TABLES
    names = _event_names(rng, n_events, per)
    rounds = np.full(n_events, UNHAS_ROUNDS)
    rounds[-1] = last_rounds
    ev = np.repeat(np.arange(n_events), rounds)  # one entry per (event, round)
    rd = np.concatenate([np.arange(r) for r in rounds])
    perm = np.argsort(rng.random((ev.size, per)), axis=1)  # the draw of each round
    seats = np.take_along_axis(names[ev], perm, axis=1).reshape(-1, 4)
    t = seats.shape[0]
    u = rng.random(t)
    wo = u < UNHAS_WO
    three = (u >= UNHAS_WO) & (u < UNHAS_WO + UNHAS_THREE)
    absent = rng.integers(0, 4, size=t)
    seats[three, absent[three]] = -1
    seats[wo, 2:] = -1
    return _Tables(
        event=np.repeat(ev, UNHAS_TABLES),
        round=np.repeat(rd, UNHAS_TABLES),
        table=np.tile(np.arange(UNHAS_TABLES), ev.size),
        seats=seats,
        hands=np.where(wo, 0, int(rulesets.load("unhas").flat["regular_hands"])),
    )


def _pepet_tables(rng: np.random.Generator, n_events: int, last_sessions: int) -> _Tables:
    names = _event_names(rng, n_events, PEPET_PLAYERS)
    sessions = np.full(n_events, PEPET_SESSIONS)
    sessions[-1] = last_sessions
    ev = np.repeat(np.arange(n_events), sessions)
    rd = np.concatenate([np.arange(s) for s in sessions])
    perm = np.argsort(rng.random((ev.size, PEPET_PLAYERS)), axis=1)[:, :12]
    seats = np.take_along_axis(names[ev], perm, axis=1).reshape(-1, 4)
    return _Tables(
        event=np.repeat(ev, 3),
        round=np.repeat(rd, 3),
        table=np.tile(np.arange(3), ev.size),
        seats=seats,
        hands=rng.integers(PEPET_HANDS[0], PEPET_HANDS[1] + 1, size=seats.shape[0]),
    )


def corpus_chunks(
    ruleset: str, seed: int, hands: int, event: str | None = None
) -> Iterator[pl.DataFrame]:
    """A corpus of about ``hands`` hands as frames of whole events (see :func:`generate_frame`)."""
    base = event or f"{ruleset}-sim-{seed}"
    pool = deal_pool(ruleset, seed, pool_size(hands))
    if ruleset == "unhas":
        per_unit, units_per_event = UNHAS_TABLES * 10, UNHAS_ROUNDS  # hands per round
    else:
        per_unit, units_per_event = 3 * sum(PEPET_HANDS) / 2, PEPET_SESSIONS
    units = max(1, round(hands / per_unit))
    n_events = -(-units // units_per_event)
    last_units = units - (n_events - 1) * units_per_event
    width = max(4, len(str(n_events)))
    events_per_chunk = max(1, int(CHUNK_HANDS // (per_unit * units_per_event)))
    for chunk, first in enumerate(range(0, n_events, events_per_chunk)):
        count = min(events_per_chunk, n_events - first)
        rng = np.random.default_rng([seed, chunk, 0 if ruleset == "unhas" else 1])
        last = last_units if first + count == n_events else units_per_event
        if ruleset == "unhas":
            tb = _unhas_tables(rng, count, last)
        else:
            tb = _pepet_tables(rng, count, last)
        names = [f"{base}-{i:0{width}d}" for i in range(first + 1, first + count + 1)]
        played = _play_corpus(pool, tb, rng, swaps=ruleset == "unhas")
        yield _corpus_frame(
            pool,
            tb,
            played,
            rng,
            ruleset=ruleset,
            events=names,
            round_prefix="R" if ruleset == "unhas" else "S",
        )


def generate_frame(
    ruleset: str, seed: int, hands: int | None = None, event: str | None = None
) -> pl.DataFrame:
    """Hand-log rows (HANDLOG.md's columns; ``hand`` and ``pips_*`` integers, the rest text).

    ``hands=None``: one realistic event played tile by tile (event id ``event`` or
    ``<ruleset>-sim-<seed>``). ``hands=N``: a corpus of about N hands, events named
    ``<event>-0001``, … assembled from a pool of real deals.
    """
    if ruleset not in rulesets.NAMES:
        raise ValueError(f"unknown ruleset {ruleset!r}; use one of {', '.join(rulesets.NAMES)}")
    if hands is None:
        return event_frame(ruleset, seed, event)
    return pl.concat(list(corpus_chunks(ruleset, seed, hands, event)))


# --- writing hand logs -----------------------------------------------------------------------

PER_FILE = ("table", "round", "one")


def _file_key(per_file: str) -> list[str]:
    return {"table": ["event", "round", "table"], "round": ["event", "round"], "one": []}[per_file]


def _file_name(key: tuple[str, ...], base: str) -> str:
    if len(key) == 3:
        return f"{key[0]}_{key[1]}_meja{key[2]}.csv"
    if len(key) == 2:
        return f"{key[0]}_{key[1]}.csv"
    return f"{base}.csv"


def _write_parts(frame: pl.DataFrame, per_file: str, out_dir: Path, base: str) -> list[Path]:
    keys = _file_key(per_file)
    parts = frame.partition_by(keys, as_dict=True, maintain_order=True) if keys else {(): frame}
    paths = []
    for key, part in parts.items():
        path = out_dir / _file_name(tuple(str(k) for k in key), base)
        part.write_csv(path)
        paths.append(path)
    return paths


def write_event(
    *,
    ruleset: str,
    seed: int,
    event: str | None = None,
    hands: int | None = None,
    out_dir: Path,
    per_file: str = "table",
) -> list[Path]:
    """Write generated hand logs as plain ``,`` CSV (nothing needs quoting, so the
    product's fast reader applies): one file per table, per round, or one file.

    A corpus (``hands=N``) is generated and written a chunk of whole events at a time,
    so ten million hands need no more memory than one million.
    """
    if per_file not in PER_FILE:
        raise ValueError(f"per_file must be one of {', '.join(PER_FILE)}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    base = event or f"{ruleset}-sim-{seed}"
    if hands is None:
        return _write_parts(generate_frame(ruleset, seed, None, event), per_file, out_dir, base)
    if ruleset not in rulesets.NAMES:
        raise ValueError(f"unknown ruleset {ruleset!r}; use one of {', '.join(rulesets.NAMES)}")
    paths: list[Path] = []
    if per_file == "one":
        path = out_dir / f"{base}.csv"
        with path.open("wb") as fh:
            for i, chunk in enumerate(corpus_chunks(ruleset, seed, hands, event)):
                chunk.write_csv(fh, include_header=i == 0)
        return [path]
    for chunk in corpus_chunks(ruleset, seed, hands, event):
        paths.extend(_write_parts(chunk, per_file, out_dir, base))
    return paths


# --- sample events: files as referees upload them ----------------------------------------------

_ID_HEADERS = {
    "event": "acara",
    "ruleset": "aturan",
    "round": "babak",
    "table": "meja",
    "hand": "kocokan",
    "ended_by": "oleh",
    "ending": "akhir",
    "last_tile": "kartu_terakhir",
    "note": "catatan",
    **{f"player_{c}": f"kursi_{c}" for c in "abcd"},
    **{f"pips_{c}": f"biji_{c}" for c in "abcd"},
    **{f"tiles_{c}": f"kartu_{c}" for c in "abcd"},
    **{f"sanctions_{c}": f"sanksi_{c}" for c in "abcd"},
}
_ID_ENDINGS = {"apollo": "palang", "all_doubles": "balak", "out": "habis", "locked": "kunci"}
_TILE = re.compile(r"([0-6])-([0-6])")


@dataclass
class Style:
    """How one referee's file looks."""

    headers: str = "canonical"  # canonical | indonesian | title ("Player A", "Pips-A")
    sep: str = ","
    bom: bool = False
    crlf: bool = False
    notation: str = "-"  # "-", "|", "/" or "" (joined: 53)
    list_sep: str = " "
    flip: float = 0.0  # share of tiles written low end first (3-5)
    drop: tuple[str, ...] = ()  # columns this referee's sheet does not have
    shuffle: bool = False  # columns in another order
    extra: tuple[tuple[str, str], ...] = ()  # unknown columns (kept by the product)
    local_endings: bool = False  # palang, balak, habis, kunci
    round_header: str = "babak"  # Indonesian header of the round column (pepet: sesi)
    names: tuple[tuple[str, str], ...] = ()  # spellings this referee uses


def _header(col: str, style: Style) -> str:
    if style.headers == "indonesian":
        return style.round_header if col == "round" else _ID_HEADERS[col]
    if style.headers == "title":
        words = col.replace("_", " ").title()
        return re.sub(r" ([A-D])$", r"-\1", words) if col.startswith(("pips_", "last_")) else words
    return col


def _styled(
    frame: pl.DataFrame, style: Style, rng: random.Random
) -> tuple[list[str], list[list[object]]]:
    cols = [c for c in CANONICAL if c not in style.drop]
    if style.shuffle:
        rng.shuffle(cols)
    names = dict(style.names)
    rows = []
    for rec in frame.iter_rows(named=True):
        out: list[object] = []
        for c in cols:
            v = rec[c]
            if v is not None and (c == "last_tile" or c.startswith("tiles_")):
                v = style.list_sep.join(
                    _TILE.sub(
                        lambda m: (
                            f"{m[2]}{style.notation}{m[1]}"
                            if rng.random() < style.flip
                            else f"{m[1]}{style.notation}{m[2]}"
                        ),
                        tok,
                    )
                    for tok in str(v).split(" ")
                )
            elif v is not None and c.startswith("player_"):
                v = names.get(v, v)
            elif v is not None and c == "ending" and style.local_endings:
                v = _ID_ENDINGS.get(v, v)
            out.append(v)
        out.extend(value for _, value in style.extra)
        rows.append(out)
    return [_header(c, style) for c in cols] + [name for name, _ in style.extra], rows


def write_csv_styled(frame: pl.DataFrame, path: Path, style: Style, rng: random.Random) -> None:
    header, rows = _styled(frame, style, rng)
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=style.sep, lineterminator="\r\n" if style.crlf else "\n")
    w.writerow(header)
    w.writerows([["" if v is None else v for v in r] for r in rows])
    path.write_bytes((b"\xef\xbb\xbf" if style.bom else b"") + buf.getvalue().encode("utf-8"))


def write_xlsx_styled(frame: pl.DataFrame, path: Path, style: Style, rng: random.Random) -> None:
    """A workbook with a sheet ``hands``; numbers as numbers, tiles as text (so Excel
    cannot turn ``5-3`` into a date). Fixed document dates keep the bytes reproducible."""
    import xlsxwriter

    header, rows = _styled(frame, style, rng)
    wb = xlsxwriter.Workbook(str(path))
    wb.set_properties({"created": datetime(2025, 1, 1), "author": "wasit"})
    ws = wb.add_worksheet("hands")
    for j, h in enumerate(header):
        ws.write_string(0, j, h)
    for i, r in enumerate(rows, start=1):
        for j, v in enumerate(r):
            if v is None:
                continue
            if isinstance(v, int):
                ws.write_number(i, j, v)
            else:
                ws.write_string(i, j, str(v))
    wb.close()


UNHAS_EVENT = "unhas-dies-lxiv"
PEPET_EVENT = "pepet-liga-makassar"
PEPET_GROUPS = {
    "KG Tamalanrea": (
        "Makassar",
        ["Andi Baso Tahir", "Hasnah Rauf", "Ridwan Daeng", "Syamsul Bakri"],
    ),
    "KG Panakkukang": (
        "Makassar",
        ["Muhammad Ridwan Latif", "Indah Pallawa", "Oki Saputra", "Zainal Makmur"],
    ),
    "KG Somba Opu": ("Gowa", ["Citra Hamzah", "Daeng Situju", "Lukman Nasir", "Wulan Sudirman"]),
    "KG Turikale": ("Maros", ["Fajar Ilyas", "Jumriah Kadir", "Rahmat Mappa", "Sri Wahyuni Tang"]),
}
PEPET_ALIASES = {
    "Andi Baso Tahir": ["Baso Tahir", "A. Baso Tahir"],
    "Muhammad Ridwan Latif": ["M. Ridwan Latif", "Muh. Ridwan"],
    "Sri Wahyuni Tang": ["Sri W. Tang"],
    "Daeng Situju": ["Dg. Situju"],
}
UNHAS_ENTRANTS = (
    "Andi Sudirman",
    "Hasan Rauf",
    "Fajar Syarif",
    "Joko Pallawa",
    "Indah Amir",
    "Eko Daeng",
    "Sitti Santoso",
    "Ahmad Ramli",
    "Irfan Yunus",
    "Ilham Rahman",
    "Nining Basri",
    "Wahyu Nugroho",
    "Umar Hasyim",
    "Rina Lestari",
    "Arif Makmur",
    "Kartini Jufri",
)


def _unhas_sample(seed: int) -> list[Hand]:
    rng = random.Random(seed)
    entrants = list(UNHAS_ENTRANTS)
    rng.shuffle(entrants)
    # 13 of 16 entrants turn up: two full tables, one of 3, one walkover of 2
    tables = [entrants[0:4], entrants[4:8], entrants[8:11], entrants[11:13]]
    warned = tables[0][1]
    forced: dict[tuple[str, str], dict[str, object]] = {
        ("R1", "1"): {"sanctions": [(2, warned, "warn"), (6, warned, "warn")]},
        ("R2", "1"): {"all_doubles": (4, "B")},
        ("R2", "2"): {"seating": {7: 6}},  # the referee made the B↔D swap one hand late
    }
    return unhas_event(rng, tables, forced=forced)


def _unhas_sample_ok(hands: list[Hand]) -> bool:
    """A sample worth showing: a tie-break hand, a caught blocker, and every ending."""
    params = rulesets.load("unhas").flat
    endings = {h.ending for h in hands}
    caught = any(
        h.ending == "kandang" and unhas_game_points(h, params)[h.seats[h.ended_by]] < 0  # type: ignore[index]
        for h in hands
    )
    return (
        any((h.hand or 0) > 10 for h in hands)
        and caught
        and {"apollo", "ceki", "biasa", "kandang"} <= endings
    )


def _pepet_sample(seed: int) -> list[Hand]:
    rng = random.Random(seed)
    players = [p for _, (_, members) in PEPET_GROUPS.items() for p in members]
    return pepet_event(rng, players, sessions=3, hands=(7, 9))


def _pepet_sample_ok(hands: list[Hand]) -> bool:
    """Every ending, and 0-0 left both alone (13) and with a partner among the counted hands."""
    endings = {h.ending for h in hands}
    alone = partner = False
    for h in hands:
        if h.ending == "tutup":
            continue
        for c in _occupied(h.seats):
            charged = h.live[c] + h.dead[c]
            if 0 in charged and c != h.ended_by:
                if any(LO[t] == 0 and HI[t] > 0 for t in charged):
                    partner = True
                else:
                    alone = True
    dead = sum(len(d) for h in hands for d in h.dead.values())
    return endings == {"out", "locked", "tutup"} and alone and partner and dead > 0


def _first_seed(
    make: Callable[[int], list[Hand]], ok: Callable[[list[Hand]], bool], start: int
) -> tuple[int, list[Hand]]:
    """The first seed from ``start`` whose event shows what a sample must show."""
    for seed in range(start, start + 500):
        hands = make(seed)
        if ok(hands):
            return seed, hands
    raise RuntimeError("no sample seed in range satisfies the sample's requirements")


UNHAS_STYLES: dict[tuple[str, str], tuple[str, Style]] = {
    ("R1", "1"): ("csv", Style()),
    ("R1", "2"): (
        "csv",
        Style(headers="indonesian", sep=";", bom=True, crlf=True, notation="|", local_endings=True),
    ),
    ("R1", "3"): (
        "csv",
        Style(
            headers="title",
            notation="",
            shuffle=True,
            extra=(("wasit", "Pak Basri"),),
            drop=("ruleset",),
        ),
    ),
    ("R1", "4"): (
        "csv",
        Style(
            headers="indonesian",
            sep=";",
            crlf=True,
            drop=(
                "ruleset",
                "hand",
                "ended_by",
                "last_tile",
                *[f"{k}_{c}" for k in ("pips", "tiles", "sanctions") for c in "abcd"],
            ),
        ),
    ),
    ("R2", "1"): (
        "csv",
        Style(
            headers="indonesian",
            bom=True,
            notation="/",
            list_sep=", ",
            flip=0.3,
            drop=("ruleset",),
            local_endings=True,
        ),
    ),
    ("R2", "2"): ("xlsx", Style(drop=("ruleset",))),
    ("R3", "1"): (
        "csv",
        Style(sep=";", bom=True, crlf=True, notation="|", flip=0.5, drop=("ruleset",)),
    ),
}
PEPET_STYLES: dict[tuple[str, str], tuple[str, Style]] = {
    ("S1", "1"): ("csv", Style()),
    ("S1", "2"): (
        "csv",
        Style(
            headers="indonesian",
            sep=";",
            bom=True,
            crlf=True,
            local_endings=True,
            round_header="sesi",
        ),
    ),
    ("S1", "3"): (
        "csv",
        Style(
            headers="title",
            notation="|",
            shuffle=True,
            extra=(("wasit", "Bu Rina"),),
            drop=("ruleset",) + tuple(f"sanctions_{c}" for c in "abcd"),
        ),
    ),
    ("S2", "1"): (
        "csv",
        Style(
            headers="indonesian",
            drop=("ruleset",) + tuple(f"{k}_{c}" for k in ("tiles", "sanctions") for c in "abcd"),
            round_header="sesi",
        ),
    ),
    ("S2", "2"): ("xlsx", Style(drop=tuple(f"sanctions_{c}" for c in "abcd"))),
    ("S2", "3"): (
        "csv",
        Style(
            headers="indonesian",
            sep=";",
            crlf=True,
            notation="/",
            flip=0.3,
            local_endings=True,
            drop=("ruleset",),
        ),
    ),
    ("S3", "1"): ("csv", Style(notation="", drop=("ruleset",))),
    ("S3", "2"): (
        "csv",
        Style(
            headers="title",
            sep=";",
            bom=True,
            list_sep=", ",
            drop=("ruleset",) + tuple(f"sanctions_{c}" for c in "abcd"),
        ),
    ),
    ("S3", "3"): (
        "csv",
        Style(headers="indonesian", flip=0.5, drop=("ruleset",), round_header="sesi"),
    ),
}
#: pepet files whose referee writes some players by another registered spelling.
PEPET_SPELLINGS: dict[tuple[str, str], dict[str, str]] = {
    ("S1", "3"): {"Andi Baso Tahir": "Baso Tahir", "Daeng Situju": "Dg. Situju"},
    ("S2", "1"): {"Muhammad Ridwan Latif": "M. Ridwan Latif", "Sri Wahyuni Tang": "Sri W. Tang"},
    ("S2", "3"): {"Andi Baso Tahir": "A. Baso Tahir", "Muhammad Ridwan Latif": "Muh. Ridwan"},
    ("S3", "2"): {"Daeng Situju": "Dg. Situju", "Sri Wahyuni Tang": "SRI W. TANG"},
}


def _write_matches(
    hands: list[Hand],
    ruleset: str,
    event: str,
    styles: dict[tuple[str, str], tuple[str, Style]],
    out: Path,
    rng: random.Random,
    spellings: Callable[[tuple[str, str], list[Hand]], dict[str, str]],
) -> list[str]:
    """One file per match, each in its referee's style; returns the names in play order."""
    files = []
    keys: list[tuple[str, str]] = []
    for h in hands:
        if (h.round, h.table) not in keys:
            keys.append((h.round, h.table))
    for key in keys:
        part = [h for h in hands if (h.round, h.table) == key]
        kind, style = styles[key]
        frame = record(
            part, ruleset, event, rng, tiles=not any(c.startswith("tiles_") for c in style.drop)
        )
        names = spellings(key, part)
        if names:
            style = dataclasses.replace(style, names=tuple(names.items()))
        name = f"{key[0]}_meja{key[1]}.{kind}"
        (write_xlsx_styled if kind == "xlsx" else write_csv_styled)(frame, out / name, style, rng)
        files.append(name)
    return files


def make_samples(out: Path) -> dict[str, list[Path]]:
    """Write ``out/unhas`` and ``out/pepet`` (hand logs, ``order.txt``; pepet also
    ``players.csv``). Deterministic: the same code writes the same bytes."""
    out = Path(out)
    written: dict[str, list[Path]] = {}

    # unhas: three rounds, R2 and R3 seat the previous round's qualifiers
    folder = out / "unhas"
    _clean(folder)
    seed, hands = _first_seed(_unhas_sample, _unhas_sample_ok, 2025)
    rng = random.Random(f"unhas-files-{seed}")

    def unhas_names(key: tuple[str, str], part: list[Hand]) -> dict[str, str]:
        """The final's referee writes two names oddly (case, spaces); the product folds them."""
        if key[0] != "R3":
            return {}
        a, b = sorted({p for h in part for p in h.seats.values()})[:2]
        return {a: f"  {a.upper()} ", b: b.lower().replace(" ", "   ")}

    files = _write_matches(hands, "unhas", UNHAS_EVENT, UNHAS_STYLES, folder, rng, unhas_names)
    (folder / "order.txt").write_text("\n".join(files) + "\n")
    written["unhas"] = [folder / f for f in files]

    # pepet: a registry of 4 groups, three sessions of 12 players on 3 tables
    folder = out / "pepet"
    _clean(folder)
    seed, hands = _first_seed(_pepet_sample, _pepet_sample_ok, 2025)
    rng = random.Random(f"pepet-files-{seed}")
    lines = ["player,group,city,aliases"]
    for group, (city, members) in PEPET_GROUPS.items():
        for p in members:
            lines.append(f"{p},{group},{city},{';'.join(PEPET_ALIASES.get(p, []))}")
    (folder / "players.csv").write_text("\n".join(lines) + "\n")
    files = _write_matches(
        hands,
        "pepet",
        PEPET_EVENT,
        PEPET_STYLES,
        folder,
        rng,
        lambda key, part: PEPET_SPELLINGS.get(key, {}),
    )
    (folder / "order.txt").write_text("\n".join(files) + "\n")
    written["pepet"] = [folder / "players.csv", *(folder / f for f in files)]
    return written


def _clean(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for f in folder.iterdir():
        if f.is_file() and f.suffix in (".csv", ".xlsx", ".txt"):
            f.unlink()


def main(argv: list[str] | None = None) -> int:
    """``python -m pipeline.simulate samples DIR``: regenerate the bundled samples."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] != "samples":
        print("usage: python -m pipeline.simulate samples data/samples", file=sys.stderr)
        return 2
    for rs, paths in make_samples(Path(args[1])).items():
        print(f"{rs}: wrote {len(paths)} file(s) to {Path(args[1]) / rs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
