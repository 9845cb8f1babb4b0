"""The pipeline's English sentences in the reader's language (``messages_id.toml``).

The pipeline and the CLI speak English (the contract in HANDLOG.md shows its sentences);
a referee reading the upload page in Indonesian should not have to. ``translate`` turns
one sentence, ``translate_column`` a frame's column (each distinct sentence once). A
sentence the catalogue does not know is shown as it is.
"""

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import polars as pl

CATALOGUES = {"id": Path(__file__).with_name("messages_id.toml")}
LISTS = ("message", "messages")  # groups that hold other sentences
JOINERS = {"id": {"; ": "; ", " and ": " dan "}}
AND_GROUPS = ("chairs", "tables")  # "A and B" inside a sentence: the joining word too
MAX_LEN = 4000  # longer texts are not parsed (a sentence quoting a huge cell)


@dataclass(frozen=True)
class Entry:
    pattern: re.Pattern[str]
    template: str


@cache
def catalogue(lang: str) -> tuple[Entry, ...]:
    path = CATALOGUES.get(lang)
    if path is None:
        return ()
    with path.open("rb") as f:
        raw = tomllib.load(f)["message"]
    return tuple(Entry(re.compile(e["en"], re.DOTALL), e[lang]) for e in raw)


def match(message: str, lang: str = "id") -> Entry | None:
    """The catalogue entry whose pattern matches the whole sentence, if any."""
    for e in catalogue(lang):
        if e.pattern.fullmatch(message):
            return e
    return None


def known(message: str, lang: str = "id") -> bool:
    """Whether the whole sentence, and every sentence inside it, is in the catalogue."""
    return _sentence(message, lang, strict=True) is not None


def translate(message: str | None, lang: str) -> str | None:
    """``message`` in ``lang``; unchanged for English, empty text or an unknown sentence."""
    if not message or lang == "en" or len(message) > MAX_LEN:
        return message
    out = _sentence(message, lang)
    return message if out is None else out


def translate_column(frame: pl.DataFrame, lang: str, column: str = "message") -> pl.DataFrame:
    if lang == "en" or column not in frame.columns or frame.height == 0:
        return frame
    distinct = frame.get_column(column).drop_nulls().unique().to_list()
    mapping = {m: translate(m, lang) for m in distinct}
    return frame.with_columns(pl.col(column).replace(mapping))


def _sentence(text: str, lang: str, *, strict: bool = False) -> str | None:
    for e in catalogue(lang):
        m = e.pattern.fullmatch(text)
        if m is None:
            continue
        values = {}
        for name, value in m.groupdict().items():
            value = value or ""
            if name in LISTS:
                inner = _sentences(value, lang, strict=strict)
                if inner is None and strict:
                    return None
                value = inner or value
            elif name in AND_GROUPS:
                value = value.replace(" and ", JOINERS[lang][" and "])
            values[name] = value
        return e.template.format(**values)
    return None


def _sentences(text: str, lang: str, *, strict: bool = False) -> str | None:
    """Sentences joined by ``; `` or `` and `` (a match's summary, a correction), each
    translated; the first split where every part is a known sentence wins, else the
    whole text as one sentence."""
    for sep, joined in JOINERS[lang].items():
        at = text.find(sep)
        while at != -1:
            head = _sentence(text[:at], lang, strict=strict)
            if head is not None:
                tail = _sentences(text[at + len(sep):], lang, strict=strict)
                if tail is not None:
                    return head + joined + tail
            at = text.find(sep, at + 1)
    return _sentence(text, lang, strict=strict)
