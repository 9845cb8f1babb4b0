"""The hand-log columns of HANDLOG.md and their Indonesian aliases."""

import re

CHAIRS = ("a", "b", "c", "d")

#: Canonical columns, in the order the contract lists them.
CANONICAL: tuple[str, ...] = (
    "event",
    "ruleset",
    "round",
    "table",
    "hand",
    *(f"player_{c}" for c in CHAIRS),
    "ended_by",
    "ending",
    "last_tile",
    *(f"pips_{c}" for c in CHAIRS),
    *(f"tiles_{c}" for c in CHAIRS),
    *(f"sanctions_{c}" for c in CHAIRS),
    "note",
)

#: Columns a file must have before it can be read as a hand log at all. ``event`` and
#: ``ruleset`` may come from the command line instead, so they are checked later.
REQUIRED: tuple[str, ...] = (
    "round",
    "table",
    *(f"player_{c}" for c in CHAIRS),
    "ending",
)

_ALIASES: dict[str, str] = {
    "acara": "event",
    "aturan": "ruleset",
    "babak": "round",
    "sesi": "round",
    "meja": "table",
    "kocokan": "hand",
    "gocokan": "hand",
    "oleh": "ended_by",
    "akhir": "ending",
    "hasil": "ending",
    "kartu_terakhir": "last_tile",
    "catatan": "note",
}
#: What a cell of a contract column holding nothing may say: a dash is how many referees
#: write "none" (an empty chair, no pips, no sanction, no note); a column the contract does
#: not know keeps it
NOTHING = ["", "-", "--", "\u2013", "\u2014"]

#: Extra columns (kept with a hand's other extra columns, not contract columns) that a
#: check names in its problems, so the file's own spelling is shown beside them.
SPELLED_EXTRAS = ("replaces_",)

#: Whom a reserve in each chair plays for (rule 23): extra columns a ruleset's sheets may
#: offer (``[sheet] extra_columns``), read as ``ganti_a`` … too.
REPLACES: tuple[str, ...] = tuple(f"replaces_{c}" for c in CHAIRS)

for _c in CHAIRS:
    _ALIASES[_c] = f"player_{_c}"
    _ALIASES[f"kursi_{_c}"] = f"player_{_c}"
    _ALIASES[f"biji_{_c}"] = f"pips_{_c}"
    _ALIASES[f"kartu_{_c}"] = f"tiles_{_c}"
    _ALIASES[f"sanksi_{_c}"] = f"sanctions_{_c}"
    # optional, kept with the row's extra columns: whom a reserve in this chair replaced
    _ALIASES[f"ganti_{_c}"] = f"replaces_{_c}"


def header_key(raw: str) -> str:
    """Lower case, trimmed, spaces and ``-`` read as ``_`` (``"Pips-A"`` → ``pips_a``)."""
    key = re.sub(r"[\s\-]+", "_", raw.strip().lower().lstrip("\ufeff"))
    return key.strip("_")


_PUNCTUATION = re.compile(r"[\W_]+")


_KNOWN = frozenset(CANONICAL)


def canonical_name(
    raw: str, aliases: dict[str, str] = _ALIASES, known: frozenset[str] = _KNOWN
) -> str:
    """The canonical column a header means, or its normalised key if it is not one.
    Punctuation counts as a space where that makes a contract column (``Biji (A)``,
    ``Meja*``, ``Kartu terakhir:``); another header keeps its key as it was. ``aliases``
    and ``known`` are another file kind's (the player registry's)."""
    key = header_key(raw)
    name = aliases.get(key, key)
    if name in known:
        return name
    bare = _PUNCTUATION.sub("_", key).strip("_")
    named = aliases.get(bare, bare)
    return named if named in known else name


def spellings(column: str) -> frozenset[str]:
    """The header keys that name ``column`` (``ending``, ``akhir``, ``hasil``)."""
    return frozenset({column, *(k for k, v in _ALIASES.items() if v == column)})
