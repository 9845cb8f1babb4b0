"""Charts that read on a phone: horizontal bars (labels written across, never rotated or
cut), height from the number of bars, margins that grow to fit the labels."""

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import polars as pl
import streamlit as st

from dashboard import data, i18n

if TYPE_CHECKING:
    from plotly.graph_objects import Figure

CONFIG = {"displayModeBar": False, "responsive": True}
_ROW_PX = 34  # height per bar: a label's line and some air


def hbar(
    df: pl.DataFrame,
    label: str,
    value: str,
    *,
    key: str,
    labels: dict[str, str] | None = None,
    text: str | None = None,
    color: str | None = None,
    source: Any = None,
) -> None:
    """One horizontal bar per row of ``df`` (in its order, first at the top); with
    ``source`` built once per data value and language (:func:`figure`)."""
    if df.height == 0:
        return
    show(figure(source, key, lambda: _hbar(df, label, value, labels, text, color)), key)


def figure(source: Any, key: str, build: Callable[[], Any]) -> Any:
    """``build()`` once per value :func:`dashboard.data.read` returned (``source``) and
    language, shared by every session (:func:`dashboard.data.derived`): plotly express
    takes a tenth of a second and more per chart. Without ``source``, built each time."""
    return build() if source is None else data.derived(source, key, build, i18n.language())


def _hbar(
    df: pl.DataFrame,
    label: str,
    value: str,
    labels: dict[str, str] | None,
    text: str | None,
    color: str | None,
) -> "Figure":
    import plotly.express as px

    fig = px.bar(
        df.to_pandas(),
        x=value,
        y=label,
        orientation="h",
        text=text or value,
        color=color,
        labels=labels or {},
    )
    order = df.get_column(label).unique(maintain_order=True).to_list()
    fig.update_yaxes(
        categoryorder="array", categoryarray=list(reversed(order)), automargin=True, title=None
    )
    fig.update_xaxes(tickangle=0, automargin=True)
    fig.update_traces(textposition="auto", cliponaxis=False)
    fig.update_layout(
        margin={"l": 4, "r": 16, "t": 8, "b": 8},
        height=max(160, 60 + _ROW_PX * len(order)),
        showlegend=color is not None and df.get_column(color).n_unique() > 1,
        legend={"orientation": "h", "y": -0.2},
    )
    return fig


def line(fig: "Figure", key: str, height: int = 320) -> None:
    """A line chart laid out for a phone: horizontal ticks, legend below."""
    fig.update_xaxes(tickangle=0, automargin=True)
    fig.update_yaxes(automargin=True)
    fig.update_layout(
        margin={"l": 4, "r": 8, "t": 8, "b": 8},
        height=height,
        legend={"orientation": "h", "y": -0.25},
    )
    show(fig, key)


def show(fig: Any, key: str) -> None:
    st.plotly_chart(fig, key=key, config=CONFIG)
