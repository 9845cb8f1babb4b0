"""A table hand by hand, whole unhas and pepet events, and their hand-log rows."""

import random
from dataclasses import dataclass, field

import polars as pl

from pipeline import rulesets
from pipeline.ingest.columns import CANONICAL
from simulator.play import (
    CHAIRS,
    DOUBLE,
    DOUBLES,
    TEXT,
    Played,
    opening_tile,
    pepet_value,
    play_pepet,
    play_unhas,
    tiles_text,
    unhas_value,
    zero_zero_alone,
)

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
