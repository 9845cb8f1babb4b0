"""The bundled sample events: files as referees upload them (``data/samples/``)."""

import csv
import dataclasses
import io
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import polars as pl

from pipeline import rulesets
from pipeline.ingest.columns import CANONICAL
from simulator.events import (
    Hand,
    _occupied,
    pepet_event,
    record,
    unhas_event,
    unhas_game_points,
)
from simulator.play import HI, LO

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
