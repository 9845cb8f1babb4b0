"""Sentences from a message id and named parameters, through one catalogue per language.

Every problem, refusal and match outcome carries a message id (its code, or
``code.variant`` where one code has several sentences) and named parameters. The
sentence in a language is the catalogue's template (``en.toml``, ``id.toml`` beside this
file) filled with them; nothing parses a sentence. See docs/messages.md.

A parameter is text, a whole number, a list of texts (joined by the catalogue's
``join.<name>``, else ``", "``), or a list of messages ``{"id": …, "params": {…}}``
rendered and joined the same way. A template writes ``{size:,}`` for a number shown with
its thousands grouped as the language groups them (``number.thousands``: 1,048,576 in
English, 1.048.576 in Indonesian); a parameter given as other text is shown as it is.
:func:`expr` renders a whole frame column at once (for the checks); :func:`render_frame`
renders stored ``message_id`` + ``params`` columns (the dashboard); :func:`render` renders
one sentence.
"""

from __future__ import annotations

import json
import re
import string
import tomllib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # polars is imported by the functions on frames: a CLI refusal needs none
    import polars as pl

HERE = Path(__file__).parent
LANGUAGES = ("en", "id")
DEFAULT_JOIN = ", "
GROUPED = ","  # the format spec of a number whose thousands are grouped: ``{size:,}``
#: a number stored by an earlier version already grouped the English way ("1,048,576")
_GROUPED_EN = r"^[0-9]{1,3}(,[0-9]{3})+$"
LIMIT = 400  # a sentence quoting a huge cell keeps its head and its tail


@cache
def catalogue(lang: str = "en") -> dict[str, str]:
    """``message id → template`` of ``lang`` (empty for a language without a catalogue)."""
    path = HERE / f"{lang}.toml"
    if lang not in LANGUAGES or not path.exists():
        return {}
    with path.open("rb") as f:
        return dict(tomllib.load(f))


def message_id(code: str, variant: str | None = None) -> str:
    return f"{code}.{variant}" if variant else code


def fields(template: str) -> list[str]:
    """The named placeholders of a template, in order."""
    return [f for _, f, _, _ in string.Formatter().parse(template) if f]


def template(mid: str, lang: str = "en") -> str:
    """The template of ``mid``; English when ``lang`` lacks it; KeyError when none has it."""
    cat = catalogue(lang)
    if mid in cat:
        return cat[mid]
    return catalogue("en")[mid]


def joiner(name: str, lang: str = "en") -> str:
    return catalogue(lang).get(f"join.{name}", catalogue("en").get(f"join.{name}", DEFAULT_JOIN))


def join_list(parts: list[str], name: str, lang: str = "en") -> str:
    """``parts`` joined as the catalogue joins a list called ``name``: ``join.<name>``
    between them, and ``join.<name>.last`` before the last where there is one ("A, B and
    C" / "A, B dan C")."""
    sep = joiner(name, lang)
    last = catalogue(lang).get(f"join.{name}.last", catalogue("en").get(f"join.{name}.last"))
    if last is None or len(parts) < 2:
        return sep.join(parts)
    return sep.join(parts[:-1]) + last + parts[-1]


def thousands(lang: str = "en") -> str:
    """What ``lang`` writes between a number's groups of three digits."""
    return catalogue(lang).get("number.thousands", catalogue("en")["number.thousands"])


def grouped(n: int, lang: str = "en") -> str:
    """``n`` with its thousands grouped as ``lang`` writes them: 1,048,576 / 1.048.576."""
    return f"{n:,}".replace(",", thousands(lang))


def render(mid: str, params: dict[str, Any] | None = None, lang: str = "en") -> str:
    """One sentence of ``mid`` in ``lang``."""
    params = params or {}
    out: list[str] = []
    for literal, name, spec, _conv in string.Formatter().parse(template(mid, lang)):
        out.append(literal)
        if name:
            out.append(_value(name, params.get(name), lang, spec or ""))
    return "".join(out)


def _whole(value: Any) -> int | None:
    """A whole number: an int, its digits as text (as a checked column stores it), or
    text grouped the English way (as an earlier version stored it); else None."""
    if isinstance(value, str):
        if re.fullmatch(_GROUPED_EN, value):
            value = value.replace(",", "")
        return int(value) if value.isascii() and value.isdigit() else None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _value(name: str, value: Any, lang: str, spec: str = "") -> str:
    if value is None:
        return ""
    if spec == GROUPED and (n := _whole(value)) is not None:
        return grouped(n, lang)
    if isinstance(value, list):
        parts = [
            short(render(v["id"], v.get("params"), lang)) if isinstance(v, dict) else str(v)
            for v in value
        ]
        return join_list(parts, name, lang)
    return str(value)


def short(text: str, limit: int = LIMIT) -> str:
    """:func:`readable` for one sentence."""
    return text if len(text) <= limit else f"{text[: limit - 120]} … {text[-100:]}"


class Refused(Exception):
    """Something refused whole, before anything changed, in one sentence: ``message_id``
    and ``params`` say it in any language (:meth:`render`); ``str()`` is the English
    sentence (the CLI's). Every refusal that reaches a reader derives from it, so a page
    renders any of them in its language with one ``except Refused``."""

    def __init__(self, message_id: str, params: dict[str, Any] | None = None) -> None:
        self.message_id, self.params = message_id, dict(params or {})
        super().__init__(self.render())

    def render(self, lang: str = "en") -> str:
        return render(self.message_id, self.params, lang)

    def sentence(self, lang: str = "en") -> str:
        """:meth:`render` shown on its own (a page's error box): see :func:`on_its_own`."""
        return on_its_own(self.render(lang), self.message_id, lang)


def on_its_own(text: str, mid: str, lang: str = "en") -> str:
    """``text``, a sentence of ``mid``, shown on its own: its first letter upper-case. The
    catalogues write each in lower case to follow "Error: " or a file name; one that
    begins with a value (a file, a name: ``{file} is ...``) is left as the value is."""
    return text[:1].upper() + text[1:] if catalogue(lang).get(mid, "")[:1].islower() else text


def ref(mid: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """A message inside another message's parameter (a list of these is joined)."""
    return {"id": mid, "params": params or {}}


# --- whole columns ---------------------------------------------------------------------


def expr(
    mid: str, params: dict[str, pl.Expr], lang: str = "en", lists: frozenset[str] = frozenset()
) -> pl.Expr:
    """The sentence of ``mid`` for every row: ``pl.format`` over the parameter columns.

    ``params`` are string expressions; those named in ``lists`` are lists of strings,
    joined as the catalogue says; a field written ``{name:,}`` has its digits grouped.
    """
    import polars as pl

    tpl = template(mid, lang)
    pieces: list[pl.Expr] = []
    for literal, name, spec, _conv in string.Formatter().parse(tpl):
        if literal:
            pieces.append(pl.lit(literal))
        if name:
            e = params[name]
            if name in lists:
                e = e.list.join(joiner(name, lang))
            elif spec == GROUPED:
                e = _grouped_expr(e, lang)
            pieces.append(e)
    if not pieces:
        return pl.lit("")
    return pl.concat_str(pieces) if len(pieces) > 1 else pieces[0].cast(pl.String)


def _grouped_expr(e: pl.Expr, lang: str) -> pl.Expr:
    """:func:`grouped` for a column of digit strings, or of numbers an earlier version
    stored grouped the English way (other text as it is): reversed, a separator after
    every three digits, a separator left at the end dropped, reversed back."""
    import polars as pl

    text = e.cast(pl.String)
    digits = (
        pl.when(text.str.contains(_GROUPED_EN)).then(text.str.replace_all(",", "")).otherwise(text)
    )
    sep = thousands(lang)
    spaced = digits.str.reverse().str.replace_all(r"([0-9]{3})", "${1}" + sep.replace("$", "$$"))
    return (
        pl.when(digits.str.contains(r"^[0-9]+$"))
        .then(spaced.str.strip_suffix(sep).str.reverse())
        .otherwise(digits)
    )


def readable(message: pl.Expr, limit: int = LIMIT) -> pl.Expr:
    """A sentence quoting a huge cell keeps its head and its tail (which says what is wrong)."""
    import polars as pl

    return (
        pl.when(message.str.len_chars() > limit)
        .then(
            pl.concat_str(
                [message.str.slice(0, limit - 120), pl.lit(" … "), message.str.slice(-100)]
            )
        )
        .otherwise(message)
    )


def render_frame(
    frame: pl.DataFrame, lang: str, id_col: str = "message_id", params_col: str = "params"
) -> pl.Series:
    """The sentences of ``frame``'s rows in ``lang``, from their message id and JSON
    parameters: one ``pl.format`` per distinct message id, over all its rows at once."""
    import polars as pl

    out = pl.Series("message", [None] * frame.height, dtype=pl.String)
    if frame.height == 0 or id_col not in frame.columns:
        return out
    indexed = frame.select(pl.col(id_col), pl.col(params_col)).with_row_index("_i")
    parts = []
    for mid in indexed.get_column(id_col).drop_nulls().unique().to_list():
        try:
            tpl = template(mid, lang)
        except KeyError:
            continue
        rows = indexed.filter(pl.col(id_col) == mid)
        names = fields(tpl)
        if names:
            decoded = rows.with_columns(
                rows.get_column(params_col).str.json_decode(infer_schema_length=None).alias("_p")
            )
            dtype = decoded.schema["_p"]
            have = {f.name: f.dtype for f in dtype.fields} if isinstance(dtype, pl.Struct) else {}
            cols: dict[str, pl.Expr] = {}
            lists = set()
            nested = False
            for n in names:
                if n not in have:
                    cols[n] = pl.lit("")
                    continue
                field = pl.col("_p").struct.field(n)
                kind = have[n]
                if isinstance(kind, pl.List) and isinstance(kind.inner, pl.Struct):
                    nested = True
                elif isinstance(kind, pl.List):
                    cols[n] = field.cast(pl.List(pl.String))
                    lists.add(n)
                else:
                    cols[n] = field.cast(pl.String)
            if nested:  # messages inside the message: one by one (a rejected correction)
                texts = [
                    short(render(mid, json.loads(p or "{}"), lang))
                    for p in rows.get_column(params_col).to_list()
                ]
                rendered = rows.select("_i").with_columns(
                    pl.Series("message", texts, dtype=pl.String)
                )
            else:
                rendered = decoded.select(
                    "_i", readable(expr(mid, cols, lang, frozenset(lists))).alias("message")
                )
        else:
            rendered = rows.select("_i", pl.lit(tpl).alias("message"))
        parts.append(rendered)
    if not parts:
        return out
    got = pl.concat(parts).sort("_i")
    full = pl.DataFrame({"_i": pl.arange(0, frame.height, eager=True).cast(pl.UInt32)}).join(
        got, on="_i", how="left"
    )
    return full.get_column("message")


def to_json(params: dict[str, Any]) -> str:
    return json.dumps(params, ensure_ascii=False, separators=(",", ":"))
