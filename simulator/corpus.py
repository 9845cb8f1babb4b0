"""Benchmark corpora: a seeded pool of real deals, assembled into events with numpy and polars."""

import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import polars as pl

from pipeline import rulesets
from pipeline.ingest.columns import CANONICAL
from simulator.events import FRAME_SCHEMA, NAMES, deal, event_frame, play_table_hand
from simulator.play import (
    CHAIRS,
    TEXT,
    pepet_value,
    tiles_text,
    unhas_value,
    zero_zero_alone,
)

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
    if ruleset not in rulesets.names():
        raise ValueError(f"unknown ruleset {ruleset!r}; use one of {', '.join(rulesets.names())}")
    if hands is None:
        return event_frame(ruleset, seed, event)
    return pl.concat(list(corpus_chunks(ruleset, seed, hands, event)))
