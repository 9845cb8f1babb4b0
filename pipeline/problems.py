"""Problems found in a hand log: one row each, with file, line, column, code and a sentence.

Every check in the pipeline produces rows of :data:`SCHEMA`. A problem carries its
``message_id`` (the code, or ``code.variant``) and its named ``params`` (JSON); the
English ``message`` is rendered from them through :mod:`pipeline.messages`, as are the
sentences of other languages (the dashboard). ``spelled`` is the column's header as the
file wrote it (``kartu_terakhir`` for ``last_tile``).
"""

from typing import Any

import polars as pl

from pipeline import messages

SCHEMA: dict[str, pl.DataType] = {
    "file": pl.String(),
    "line": pl.Int64(),
    "column": pl.String(),
    "code": pl.String(),
    "severity": pl.String(),  # "error" keeps the match out, "warning" is reported only
    "message": pl.String(),
    "event": pl.String(),
    "round": pl.String(),
    "table": pl.String(),
    "message_id": pl.String(),  # the catalogue key: code, or code.variant
    "params": pl.String(),  # named parameters of the sentence, JSON
    "spelled": pl.String(),  # the column's header as the file spelled it
}

ERROR = "error"
WARNING = "warning"


class FileRejected(Exception):
    """A file that cannot be read as a hand log at all (empty, header only, not CSV/XLSX/ODS…)."""

    def __init__(
        self,
        file: str,
        code: str,
        params: dict[str, Any] | None = None,
        *,
        variant: str | None = None,
        column: str | None = None,
        spelled: str | None = None,
    ):
        self.file = file
        self.code = code
        self.message_id = messages.message_id(code, variant)
        self.params = params or {}
        self.message = messages.render(self.message_id, self.params)
        self.column = column
        self.spelled = spelled
        super().__init__(f"{file}: {self.message}")

    def render(self, lang: str = "en") -> str:
        return messages.render(self.message_id, self.params, lang)

    def frame(self) -> pl.DataFrame:
        return frame(
            [
                {
                    "file": self.file,
                    "line": None,
                    "column": self.column,
                    "code": self.code,
                    "severity": ERROR,
                    "message": self.message,
                    "message_id": self.message_id,
                    "params": messages.to_json(self.params),
                    "spelled": self.spelled,
                }
            ]
        )


_EMPTY = pl.DataFrame(schema=SCHEMA)


def empty() -> pl.DataFrame:
    """No problems (one shared frame: frames are not changed in place, and a live upload
    asks for dozens of them)."""
    return _EMPTY


def frame(rows: list[dict[str, object]]) -> pl.DataFrame:
    """Problems from a list of dicts; missing keys are null."""
    if not rows:
        return empty()
    return pl.DataFrame([{k: r.get(k) for k in SCHEMA} for r in rows], schema=SCHEMA)


def warning(
    file: str, code: str, params: dict[str, Any], *, variant: str | None = None
) -> dict[str, object]:
    """One warning about a file as a whole (it is skipped, or part of it is not read), as
    a row of :data:`SCHEMA`."""
    mid = messages.message_id(code, variant)
    return {
        "file": file,
        "code": code,
        "severity": WARNING,
        "message": messages.render(mid, params),
        "message_id": mid,
        "params": messages.to_json(params),
    }


def file_warning(
    file: str, code: str, params: dict[str, Any], *, variant: str | None = None
) -> pl.DataFrame:
    """:func:`warning` as a frame of one problem."""
    return frame([warning(file, code, params, variant=variant)])


def from_rows(
    rows: pl.DataFrame,
    *,
    column: str | pl.Expr,
    code: str,
    params: dict[str, pl.Expr | str | int] | None = None,
    variant: str | pl.Expr | None = None,
    severity: str = ERROR,
) -> pl.DataFrame:
    """Problems for every row of ``rows`` (a hand frame with ``_file`` and ``_line``).

    ``params`` are expressions evaluated per row (text, or lists of text); the sentence
    is the catalogue's template of ``code`` (or ``code.variant``; ``variant`` may be an
    expression, null meaning the plain code) filled with them, for all rows at once.
    """
    if rows.height == 0:
        return empty()
    exprs = {k: v if isinstance(v, pl.Expr) else pl.lit(v) for k, v in (params or {}).items()}
    base = rows.with_columns(
        *[e.alias(f"_m_{k}") for k, e in exprs.items()],
        (variant if isinstance(variant, pl.Expr) else pl.lit(variant, dtype=pl.String))
        .cast(pl.String)
        .replace("", None)
        .alias("_m_variant"),
    )
    lists = frozenset(k for k in exprs if isinstance(base.schema[f"_m_{k}"], pl.List))
    cols = {
        k: pl.col(f"_m_{k}").cast(pl.List(pl.String) if k in lists else pl.String) for k in exprs
    }
    variants = base.get_column("_m_variant").unique().to_list()
    mid = (
        pl.when(pl.col("_m_variant").is_null())
        .then(pl.lit(code))
        .otherwise(pl.format(f"{code}.{{}}", pl.col("_m_variant")))
    )
    message: pl.Expr = pl.lit(None, dtype=pl.String)
    for v in variants:
        sentence = messages.expr(messages.message_id(code, v), cols, lists=lists)
        hit = pl.col("_m_variant").is_null() if v is None else pl.col("_m_variant") == v
        message = sentence if len(variants) == 1 else pl.when(hit).then(sentence).otherwise(message)
    encoded = (
        pl.struct([c.alias(k) for k, c in cols.items()]).struct.json_encode()
        if cols
        else pl.lit("{}")
    )
    col = pl.lit(column) if isinstance(column, str) else column
    return base.select(
        pl.col("_file").alias("file"),
        pl.col("_line").cast(pl.Int64).alias("line"),
        col.cast(pl.String).alias("column"),
        pl.lit(code).alias("code"),
        pl.lit(severity).alias("severity"),
        message.cast(pl.String).alias("message"),
        pl.col("event").cast(pl.String),
        pl.col("round").cast(pl.String),
        pl.col("table").cast(pl.String),
        mid.alias("message_id"),
        encoded.alias("params"),
        pl.lit(None, dtype=pl.String).alias("spelled"),
    )


def concat(frames: list[pl.DataFrame]) -> pl.DataFrame:
    frames = [f for f in frames if f.height]
    if not frames:
        return empty()
    return pl.concat(
        [f.select(list(SCHEMA)).cast(pl.Schema(SCHEMA)) for f in frames], how="vertical"
    )


def where(p: dict[str, object]) -> str:
    """``hands.csv:14 kartu_terakhir (last_tile)``: the file, line and column of a problem,
    the column as the file spelled it with the contract's name beside it."""
    out = str(p["file"])
    if p.get("line") is not None:
        out += f":{p['line']}"
    if p.get("column"):
        spelled = p.get("spelled")
        out += (
            f" {spelled} ({p['column']})"
            if spelled and spelled != p["column"]
            else f" {p['column']}"
        )
    return out


def describe(p: dict[str, object]) -> str:
    """``hands.csv:14 pips_c: kandang needs …`` as HANDLOG.md shows it."""
    return f"{where(p)}: {p['message']} [{p['code']}]"
