"""What a pre-filled sheet says: its Indonesian headers, the values each result cell may
take, and the example rows, all asked of the ruleset (no ruleset is named here).

Every header is one the reader maps back to its column (:mod:`pipeline.ingest.columns`):
``Kursi A`` is ``player_a``, ``Biji A`` is ``pips_a``, ``Kartu terakhir`` is ``last_tile``.
"""

import polars as pl

from pipeline import rulesets
from pipeline.ingest.columns import CHAIRS
from pipeline.ingest.normalize import ENDING_ALIASES

_HEADERS = {
    "event": "Acara",
    "ruleset": "Aturan",
    "round": "Babak",
    "table": "Meja",
    "hand": "Kocokan",
    "ended_by": "Oleh",
    "ending": "Akhir",
    "last_tile": "Kartu terakhir",
    "note": "Catatan",
}
_PER_CHAIR = {
    "player": "Kursi",
    "pips": "Biji",
    "tiles": "Kartu",
    "sanctions": "Sanksi",
    "replaces": "Ganti",  # whom a reserve in that chair plays for (rule 23)
}

#: Columns the draw fills in; the others are the referee's.
PREFILLED = ("event", "ruleset", "round", "table", "hand", *(f"player_{c}" for c in CHAIRS))
CHAIR_LETTERS = [c.upper() for c in CHAIRS]


def header(column: str, book: rulesets.Ruleset) -> str:
    """The Indonesian header of ``column`` (a session is ``Sesi`` where the rulebook has
    sessions, else a round is ``Babak``)."""
    if column == "round" and book.shows("sessions"):
        return "Sesi"
    if column in _HEADERS:
        return _HEADERS[column]
    kind, chair = column.rsplit("_", 1)
    return f"{_PER_CHAIR[kind]} {chair.upper()}"


def round_words(book: rulesets.Ruleset) -> tuple[str, str]:
    """What a round is called on a printed page, in Indonesian and in English: ``Babak`` /
    round, or ``Sesi`` / session where the rulebook has sessions."""
    return header("round", book), "session" if book.shows("sessions") else "round"


def ending_choices(book: rulesets.Ruleset) -> list[str]:
    """The ruleset's endings, then the one-word Indonesian aliases the reader accepts for
    them (``palang`` for ``apollo``, ``habis`` for ``out``)."""
    endings = book.endings
    aliases = [a for a, e in ENDING_ALIASES.items() if e in endings and a.isalpha()]
    return endings + [a for a in aliases if a not in endings]


def max_pips(book: rulesets.Ruleset) -> int:
    return int(book.params.get("max_pips", 69))


def examples(book: rulesets.Ruleset, first: dict[str, object]) -> list[dict[str, object]]:
    """Two hands as a referee writes them, seated as ``first`` (hand 1 of the table): one
    won by going out, one blocked, each with the pips its ending needs."""
    seated = [c for c in CHAIR_LETTERS if first.get(f"player_{c.lower()}")]
    out_ending = book.went_out[-1]
    blocked = next((e for e, who in book.pips_needed.items() if who == "all"), out_ending)
    rows = [
        _example(book, first, 1, out_ending, seated[1], "5-3", {}),
        _example(book, first, 2, blocked, seated[-1], "6-4", {"A": 12, "B": 9, "C": 5, "D": 21}),
    ]
    rows[1]["tiles_a"] = "5-5 2-0"  # 12, as its pips say
    rows[0]["note"] = "contoh / example"
    if "sanctions_a" in (book.sheet_columns or ["sanctions_a"]):
        rows[0][f"sanctions_{seated[0].lower()}"] = "warn"
    return rows


def _example(
    book: rulesets.Ruleset,
    first: dict[str, object],
    hand: int,
    ending: str,
    by: str,
    last: str,
    values: dict[str, int],
) -> dict[str, object]:
    row = {**first, "hand": hand, "ending": ending, "ended_by": by, "last_tile": last}
    needed = book.pips_needed.get(ending)
    for c in CHAIR_LETTERS:
        sits = bool(first.get(f"player_{c.lower()}"))
        if sits and (needed == "all" or (needed == "all_but_ender" and c != by)):
            row[f"pips_{c.lower()}"] = values.get(c, 7 + CHAIR_LETTERS.index(c))
    return row


def example_frame(
    book: rulesets.Ruleset, first: dict[str, object], columns: list[str]
) -> pl.DataFrame:
    rows = examples(book, first)
    return pl.DataFrame(
        [{c: r.get(c) for c in columns} for r in rows],
        schema={
            c: pl.Int64 if c == "hand" or c.startswith("pips_") else pl.String for c in columns
        },
        orient="row",
    )
