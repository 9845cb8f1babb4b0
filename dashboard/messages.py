"""The pipeline's sentences in the reader's language.

Every problem, refused file, match outcome and refused sign-in carries a message id and
named parameters; the sentence in the reader's language is rendered from them through
the language's catalogue (``pipeline/messages/<lang>.toml``). Nothing here reads an
English sentence. See docs/messages.md.
"""

from typing import Any

import polars as pl

from pipeline import messages
from pipeline.problems import WARNING


def render(
    mid: str | None, params: dict[str, Any] | None, lang: str, english: str | None = None
) -> str | None:
    """The sentence of ``mid`` in ``lang``; ``english`` when there is no id."""
    if not mid:
        return english
    return messages.render(mid, params, lang)


def render_column(frame: pl.DataFrame, lang: str, column: str = "message") -> pl.DataFrame:
    """``frame`` (problems: ``message_id``, ``params``) with ``column`` in ``lang``: one
    ``pl.format`` per distinct message id over all its rows; rows without an id keep
    their sentence."""
    if lang == "en" or frame.height == 0 or "message_id" not in frame.columns:
        return frame
    rendered = messages.render_frame(frame, lang)
    return frame.with_columns(pl.coalesce(rendered, pl.col(column)).alias(column))


def warnings(problems: pl.DataFrame, lang: str) -> list[str]:
    """The sentences of the warnings among ``problems``, in ``lang`` (what a save or a
    decision was, or would be, warned of)."""
    found = problems.filter(pl.col("severity") == WARNING)
    return render_column(found, lang).get_column("message").to_list()


def render_outcome(outcome: Any, lang: str) -> str:
    """A match outcome's message (:class:`pipeline.ingest.outcome.MatchOutcome`) in ``lang``."""
    return outcome.render(lang)


def column_label(frame: pl.DataFrame) -> pl.DataFrame:
    """Problems' ``column`` as the file spelled it, the contract's name beside it
    (``kartu_terakhir (last_tile)``); as it is where the file used the contract's name."""
    if "spelled" not in frame.columns or frame.height == 0:
        return frame
    differs = pl.col("spelled").is_not_null() & (pl.col("spelled") != pl.col("column"))
    return frame.with_columns(
        pl.when(differs)
        .then(pl.format("{} ({})", pl.col("spelled"), pl.col("column")))
        .otherwise(pl.col("column"))
        .alias("column")
    )
