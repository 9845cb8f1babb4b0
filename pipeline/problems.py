"""Problems found in a hand log: one row each, with file, line, column, code and a sentence.

Every check in the pipeline produces rows of :data:`SCHEMA`; the ingest report, the CLI
and the dashboard's upload preview show them as they are.
"""

import polars as pl

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
}

ERROR = "error"
WARNING = "warning"


class FileRejected(Exception):
    """A file that cannot be read as a hand log at all (empty, header only, not CSV/XLSX…)."""

    def __init__(self, file: str, code: str, message: str, column: str | None = None):
        super().__init__(f"{file}: {message}")
        self.file = file
        self.code = code
        self.message = message
        self.column = column

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
                }
            ]
        )


def empty() -> pl.DataFrame:
    return pl.DataFrame(schema=SCHEMA)


def frame(rows: list[dict[str, object]]) -> pl.DataFrame:
    """Problems from a list of dicts; missing keys are null."""
    if not rows:
        return empty()
    return pl.DataFrame([{k: r.get(k) for k in SCHEMA} for r in rows], schema=SCHEMA)


def from_rows(
    rows: pl.DataFrame,
    *,
    column: str | pl.Expr,
    code: str,
    message: pl.Expr,
    severity: str = ERROR,
) -> pl.DataFrame:
    """Problems for every row of ``rows`` (a hand frame with ``_file`` and ``_line``).

    ``message`` is a string expression evaluated per row, so a check builds all its
    sentences at once (``pl.format``) rather than looping over rows.
    """
    if rows.height == 0:
        return empty()
    col = pl.lit(column) if isinstance(column, str) else column
    return rows.select(
        pl.col("_file").alias("file"),
        pl.col("_line").cast(pl.Int64).alias("line"),
        col.cast(pl.String).alias("column"),
        pl.lit(code).alias("code"),
        pl.lit(severity).alias("severity"),
        message.cast(pl.String).alias("message"),
        pl.col("event").cast(pl.String),
        pl.col("round").cast(pl.String),
        pl.col("table").cast(pl.String),
    )


def concat(frames: list[pl.DataFrame]) -> pl.DataFrame:
    frames = [f for f in frames if f.height]
    if not frames:
        return empty()
    return pl.concat(
        [f.select(list(SCHEMA)).cast(pl.Schema(SCHEMA)) for f in frames], how="vertical"
    )


def describe(p: dict[str, object]) -> str:
    """``hands.csv:14 pips_c: kandang needs …`` as HANDLOG.md shows it."""
    where = str(p["file"])
    if p.get("line") is not None:
        where += f":{p['line']}"
    if p.get("column"):
        where += f" {p['column']}"
    return f"{where}: {p['message']} [{p['code']}]"
