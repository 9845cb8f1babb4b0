"""Hostile inputs as hypothesis strategies, and one load checked whatever comes of it.

:func:`hand_logs` draws a hand log in a random dialect (delimiter, quoting, line ends,
encoding, header names) with some cells replaced by what careless or hostile spreadsheets
hold; :func:`mutated_logs` breaks one thing in one of the example logs. :func:`load` reads
and loads such bytes as an upload and checks the answer: the file rejected with a message,
or every match whole or absent (:func:`simulator.stress.checks.check_load`).
"""

import csv
import io
import random

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from pipeline.ingest import ingest
from pipeline.ingest.columns import CANONICAL, CHAIRS
from pipeline.ingest.read import Sheet, display_name, read_bytes
from pipeline.problems import FileRejected
from simulator.stress.checks import (
    LOGS,
    check_load,
    check_problems,
    current_matches,
    file_matches,
    memory_db,
    ruleset_of,
)

#: Cells a hostile or careless spreadsheet produces: formulas, markup, SQL, control
#: characters, numbers no column can hold, dates, and one cell as large as a short file.
NASTY = [
    "",
    " ",
    "=1+2",
    '=HYPERLINK("http://evil.example","x")',
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    "'; DROP TABLE hands; --",
    "\\",
    '"',
    '""',
    ",",
    ";",
    "a\nb",
    "a\r\nb",
    "\x00",
    "\x07",
    "\x1b[31mred",
    "\u202eevil",
    "\ufeff",
    "\u200b",
    "\t",
    "NaN",
    "inf",
    "-0",
    "1e309",
    "99999999999999999999",
    "2147483648",
    "-2147483649",
    "-1",
    "3.0",
    "3.5",
    "\u0663",
    "\uff10",
    "05-03",
    "2026-03-05",
    "06/01/26",
    "45000",
    "5/3",
    "5|3|2",
    "5-3*",
    "*",
    "7-7",
    "6-6 6-6",
    "0-0 0-0 0-0 0-0 0-0 0-0 0-0 0-0",
    "A" * 50_000,
    "9" * 5_000,
    "\u00b2",
    "R\u00b9",
    "\u00e9",
    "\u00c4\u00e4kk\u00f6nen",
    "\u674e",
    "null",
    "None",
    "TRUE",
    "wo",
    "WO",
    "apollo",
]

PLAYERS = [
    "Andi",
    "Budi",
    "Citra",
    "Dewi",
    "Eko",
    "Fajar",
    "Gita",
    "Hasan",
    "Indah",
    "Joko",
    "Kiki",
    "Lina",
]
TILES = [f"{a}-{b}" for a in range(7) for b in range(a + 1)]


def _header_name(draw, col: str) -> str:
    aliases = {
        "event": ["acara"],
        "ruleset": ["aturan"],
        "round": ["babak", "sesi"],
        "table": ["meja"],
        "hand": ["kocokan", "gocokan"],
        "ended_by": ["oleh", "Ended By"],
        "ending": ["akhir", "hasil"],
        "last_tile": ["kartu_terakhir", "Last-Tile"],
        "note": ["catatan"],
    }
    for c in CHAIRS:
        aliases[f"player_{c}"] = [c, f"kursi_{c}", f"Player {c.upper()}"]
        aliases[f"pips_{c}"] = [f"biji_{c}", f"Pips-{c.upper()}"]
        aliases[f"tiles_{c}"] = [f"kartu_{c}"]
        aliases[f"sanctions_{c}"] = [f"sanksi_{c}"]
    name = draw(st.sampled_from([col, *aliases.get(col, [])]))
    return draw(st.sampled_from([name, name.upper(), name.title(), f" {name} "]))


@st.composite
def hand_logs(draw) -> tuple[bytes, str]:
    """A hand log in a random dialect: plausible matches with some cells replaced by nasty ones."""
    rs = draw(st.sampled_from(["unhas", "pepet"]))
    # The columns a valid log of ``rs`` needs, then any of the others.
    cols = ["round", "table", "hand", "ended_by", "ending", *[f"player_{c}" for c in CHAIRS]]
    if rs == "pepet":
        cols += [f"pips_{c}" for c in CHAIRS]
    optional = [c for c in CANONICAL if c not in cols]
    cols += draw(st.lists(st.sampled_from(optional), unique=True, max_size=len(optional)))
    cols = draw(st.permutations(cols))
    unknown = draw(
        st.lists(
            st.sampled_from(
                ["wasit", "jam", "", "_line", "extra", "column_3", "Catatan 2", "Pips A"]
            ),
            max_size=2,
        )
    )
    header = [_header_name(draw, c) for c in cols] + unknown

    rows: list[list[str]] = []
    damage = draw(st.sampled_from([0, 0, 300, 40]))  # no cell broken, or about 1 in N
    tables = draw(st.integers(1, 3))
    everyone = random.Random(draw(st.integers(0, 10_000))).sample(PLAYERS, 4 * tables)
    for t in range(tables):
        seats = everyone[4 * t : 4 * t + 4]  # a player sits at one table per round
        for h in range(1, draw(st.integers(1, 10)) + 1):
            plausible = _plausible_hand(draw, rs, t + 1, h, seats)
            row = []
            for c in cols:
                if damage and draw(st.integers(0, damage)) == 0:
                    row.append(draw(st.one_of(st.sampled_from(NASTY), st.text(max_size=12))))
                else:
                    row.append(plausible[c])
            row += [draw(st.sampled_from(["", "Pak Basri", "=1+1"])) for _ in unknown]
            rows.append(row)
    if draw(st.booleans()):
        rows.insert(draw(st.integers(0, len(rows))), [""] * len(header))  # a blank row

    sep = draw(st.sampled_from([",", ";"]))
    quoting = draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL]))
    eol = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    buf = io.StringIO()
    csv.writer(buf, delimiter=sep, quoting=quoting, lineterminator=eol).writerows([header, *rows])
    text = buf.getvalue()
    encoding = draw(
        st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-8-sig", "cp1252", "cp1252", "utf-16"])
    )
    data = text.encode(encoding, errors="replace")
    name = draw(
        st.sampled_from(
            ["hands.csv", "../../etc/passwd.csv", "C:\\Users\\wasit\\meja 1.csv", "log"]
        )
    )
    return data, name, rs


def _plausible_hand(draw, rs: str, table: int, hand: int, seats: list[str]) -> dict[str, str]:
    """A hand that is valid under ``rs`` (so matches load), before any cell is broken."""
    ender = draw(st.integers(0, 3))
    tiles = random.Random(draw(st.integers(0, 10_000))).sample(
        [t for t in TILES if t[0] != t[2]], 4
    )
    cells = {
        "event": "fuzz-ev",
        "ruleset": rs,
        "round": "R1",
        "table": str(table),
        "hand": str(hand),
        "ended_by": "ABCD"[ender],
        "note": draw(st.sampled_from(["", "", "meja goyang"])),
        "last_tile": draw(st.sampled_from(["", *[t for t in TILES if t[0] != t[2]]])),
        **{f"player_{c}": seats[i] for i, c in enumerate(CHAIRS)},
        **{f"pips_{c}": "" for c in CHAIRS},
        **{f"tiles_{c}": "" for c in CHAIRS},
        **{f"sanctions_{c}": "" for c in CHAIRS},
    }
    if rs == "unhas":
        cells["ending"] = draw(st.sampled_from(["biasa", "ceki"]))
        if draw(st.booleans()):
            for i, c in enumerate(CHAIRS):
                if i != ender:
                    cells[f"tiles_{c}"] = tiles[i]
        cells[f"sanctions_{CHAIRS[draw(st.integers(0, 3))]}"] = draw(
            st.sampled_from(["", "warn", "show;wrong"])
        )
    else:
        cells["ending"] = draw(st.sampled_from(["out", "locked", "habis", "kunci"]))
        for i, c in enumerate(CHAIRS):
            if i != ender or cells["ending"] in ("locked", "kunci"):
                cells[f"pips_{c}"] = str(draw(st.integers(1, 40)))
    return cells


def tally(what: str) -> None:
    """Count outcomes in hypothesis' statistics (``--hypothesis-show-statistics``)."""
    if currently_in_test_context():
        event(what)


def load(
    data: bytes,
    name: str,
    *,
    event: str | None = None,
    ruleset: str | None = None,
    reason: str | None = None,
    con=None,
):
    """Read and load ``data`` as an upload; check the result whatever it is."""
    try:
        sheet = read_bytes(data, name)
    except FileRejected as exc:
        assert exc.file == display_name(name)
        assert exc.code and len(exc.message) >= 8
        check_problems(exc.frame())
        tally(f"file rejected: {exc.code}")
        return None
    assert isinstance(sheet, Sheet)
    assert sheet.file == display_name(name) and "/" not in sheet.file and "\\" not in sheet.file

    def run(c):
        before = current_matches(c)
        p = ingest(c, sheets=[sheet], event=event, ruleset=ruleset, reason=reason, by="fuzz")
        stats = check_load(c, before, file_matches([sheet], event), p)
        tally(
            f"matches written: {min(stats.get('written', 0), 3)}, rejected: {min(stats.get('rejected', 0), 3)} (3 = 3+)"
        )
        return p, stats

    if con is not None:
        return run(con)
    with memory_db() as c:
        return run(c)


def _decode(raw: bytes) -> tuple[str, str]:
    for enc in ("utf-8-sig", "cp1252"):
        try:
            return raw.decode(enc), enc
        except UnicodeDecodeError:
            continue
    raise AssertionError("test data must decode")


@st.composite
def mutated_logs(draw) -> tuple[bytes, str, str]:
    """One of the valid example logs with one field (or one line, or some bytes) broken."""
    path = draw(st.sampled_from(LOGS))
    raw = path.read_bytes()
    text, enc = _decode(raw)
    sep = ";" if text.split("\n", 1)[0].count(";") > text.split("\n", 1)[0].count(",") else ","
    records = list(csv.reader(io.StringIO(text), delimiter=sep))
    kind = draw(
        st.sampled_from(
            ["cell", "cell", "cell", "key", "drop", "dup", "swap", "truncate", "bytes", "header"]
        )
    )
    if kind in ("cell", "key", "header"):
        r = 0 if kind == "header" else draw(st.integers(1, len(records) - 1))
        if kind == "key":
            keys = [
                i
                for i, h in enumerate(records[0])
                if h.strip().lower().lstrip("\ufeff")
                in ("event", "acara", "round", "babak", "table", "meja")
            ]
            c = draw(st.sampled_from(keys))
        else:
            c = draw(st.integers(0, len(records[r]) - 1))
        value = draw(
            st.one_of(
                st.sampled_from(NASTY),
                st.text(max_size=10),
                st.sampled_from(["", "R9", "1", "pepet", "unhas", *TILES]),
            )
        )
        records[r] = [*records[r][:c], value, *records[r][c + 1 :]]
    elif kind == "drop":
        del records[draw(st.integers(1, len(records) - 1))]
    elif kind == "dup":
        i = draw(st.integers(1, len(records) - 1))
        records.insert(draw(st.integers(1, len(records))), list(records[i]))
    elif kind == "swap" and len(records) > 2:
        i, j = draw(st.integers(1, len(records) - 1)), draw(st.integers(1, len(records) - 1))
        records[i], records[j] = records[j], records[i]
    buf = io.StringIO()
    csv.writer(buf, delimiter=sep, lineterminator="\n").writerows(records)
    data = buf.getvalue().encode("utf-8" if enc == "utf-8-sig" else enc, errors="replace")
    if enc == "utf-8-sig" and raw.startswith(b"\xef\xbb\xbf"):
        data = b"\xef\xbb\xbf" + data
    if kind == "truncate":
        data = raw[: draw(st.integers(0, len(raw)))]
    elif kind == "bytes":
        at = draw(st.integers(0, len(raw)))
        data = raw[:at] + draw(st.binary(min_size=1, max_size=8)) + raw[at:]
    return data, path.name, ruleset_of(path)
