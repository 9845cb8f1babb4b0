"""Small display helpers shared by the pages: tables, downloads, notes, safe text."""

import html
import re
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Literal
from urllib.parse import quote, urlencode

import pandas as pd
import polars as pl
import streamlit as st

from dashboard import data as store
from dashboard import i18n
from dashboard.data import Result
from dashboard.i18n import t
from pipeline import settings
from pipeline.messages import Refused
from pipeline.standings import exports
from pipeline.standings.bracket import played_tiebreak  # noqa: F401  (the cards ask it)

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:])")


def md(text: object) -> str:
    """Text from the data (a player's name…) made inert for ``st.markdown``: every
    character markdown would act on is escaped, and it is never rendered as HTML."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


#: The player page's address (its ``url_path`` in dashboard/shell.py).
PROFILE_PATH = "player"
#: How a link column shows a profile address: the player's name it carries.
PROFILE_TEXT = r"[?&]player=([^&]*)"


def profile_url(name: str, event: str | None = None) -> str:
    """A player's page as a relative address (``player?player=Name&event=E``). The page's
    player choice is bound to the address by the name it shows, so a link reads as the
    name it opens."""
    params = {"player": name, **({"event": event} if event else {})}
    return f"{PROFILE_PATH}?{urlencode(params, quote_via=quote)}"


def _linked(df: pl.DataFrame, *, event: str | None) -> pl.DataFrame:
    """The ``player`` column as the addresses of each player's page (a link column of
    ``st.dataframe`` shows them as the names, :data:`PROFILE_TEXT`)."""
    names = df.get_column("player").to_list()
    cells = [profile_url(n, event) if n is not None else n for n in names]
    return df.with_columns(pl.Series("player", cells, dtype=pl.String))


def html_table(
    rows: Sequence[dict[str, Any]],
    columns: Sequence[tuple[str, str]],
    *,
    css_class: str,
    classes: Sequence[str] | None = None,
    style: str = "",
    link: Callable[[str], str] | None = None,
    decimals: dict[str, int] | None = None,
) -> str:
    """``rows`` as one HTML table (``columns``: name and header), for ``st.html``: one
    element for the browser to draw, where an ``st.table`` renders every cell as markdown.
    Every header and value is ``html.escape``d; numbers, and the header of a column of
    numbers, get the class ``num``; booleans
    show as ✓ / blank; row ``i`` gets the class ``classes[i]``; with ``link`` (a name to
    an address) the ``player`` cells link to that address; the numbers of a column of
    ``decimals`` are written with that many digits after the point."""
    digits = decimals or {}
    numeric = {
        name
        for name, _ in columns
        if any(r.get(name) is not None for r in rows)
        and all(_is_number(r.get(name)) for r in rows if r.get(name) is not None)
    }
    head = "".join(
        f'<th class="num">{html.escape(label)}</th>'
        if name in numeric
        else f"<th>{html.escape(label)}</th>"
        for name, label in columns
    )
    body = []
    for i, r in enumerate(rows):
        cls = classes[i] if classes else ""
        cells = "".join(
            _html_cell(name, r.get(name), link, digits.get(name)) for name, _ in columns
        )
        body.append((f'<tr class="{html.escape(cls)}">' if cls else "<tr>") + cells + "</tr>")
    attrs = f' style="{html.escape(style)}"' if style else ""
    return (
        f'<table class="{html.escape(css_class)}"{attrs}><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def card_html(title: str, table: str, caption: str | None = None) -> str:
    """One card of :func:`cards_html`: a bold ``title``, an optional grey ``caption`` (both
    escaped here) and a ``table`` from :func:`html_table`."""
    cap = f'<p class="table-card-caption">{html.escape(caption)}</p>' if caption else ""
    return (
        f'<section class="table-card"><p class="table-card-title">{html.escape(title)}</p>'
        f"{cap}{table}</section>"
    )


def cards_html(cards: Sequence[str], per_row: int) -> str:
    """Cards side by side, ``per_row`` a line on a wide screen and one on a phone, as one
    ``st.html`` element (with :func:`cards_css` on the page): one element for the browser
    to draw, where a container, a heading and an ``st.table`` per card cost it seconds
    on a big round."""
    return f'<div class="table-cards" style="--per-row: {int(per_row)}">{"".join(cards)}</div>'


#: How an HTML table of :func:`html_table` looks, in a card (:func:`card_html`) or alone
#: (:func:`plain_table`): Streamlit's own table, lines between rows, numbers to the right.
TABLE_RULES = (
    ":is(.table-card table, .plain-table) {width: 100%; border-collapse: collapse;"
    " font-size: .875rem;}"
    ":is(.table-card table, .plain-table) :is(td, th) {padding: .3rem .45rem; text-align: left;"
    " white-space: nowrap; border-bottom: 1px solid rgba(128, 128, 128, .2);}"
    # a header may take two lines ("Tie-break / points") rather than widen a phone's card
    ":is(.table-card table, .plain-table) th {font-weight: 400; opacity: .7;"
    " white-space: normal;}"
    ":is(.table-card table, .plain-table) .num {text-align: right;"
    " font-variant-numeric: tabular-nums;}"
    ":is(.table-card table, .plain-table) tbody tr:last-child td {border-bottom: none;}"
    ":is(.table-card table, .plain-table) a"
    " {color: color-mix(in srgb, #1c83e1 75%, currentColor);}"
)


def cards_css() -> None:
    """Static CSS (no data in it) for :func:`cards_html`."""
    st.html(
        """<style>
        .table-cards {display: grid; grid-template-columns: repeat(var(--per-row, 2), minmax(0, 1fr)); gap: 1rem;}
        @media (max-width: 640px) { .table-cards {grid-template-columns: minmax(0, 1fr);} }
        .table-card {border: 1px solid rgba(128, 128, 128, .3); border-radius: .5rem; padding: 1rem; overflow-x: auto;}
        .table-card p {margin: 0 0 .5rem 0;}
        .table-card .table-card-title {font-weight: 600;}
        .table-card .table-card-caption {font-size: .875rem; opacity: .6;}
        """
        + TABLE_RULES
        + "</style>"
    )


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def decimal(value: object, digits: int | None = None) -> str:
    """A number as it is: ``68.5``, ``0.25``, ``3`` (at most four decimals); with
    ``digits``, that many after the point (``7.70``); with the session's decimal mark
    (``68,5`` in Indonesian, :func:`dashboard.i18n.decimal`)."""
    if digits is not None:
        return i18n.decimal(f"{value:.{digits}f}")
    if isinstance(value, float):
        return i18n.decimal(f"{value:.4f}".rstrip("0").rstrip("."))
    return str(value)


def _html_cell(
    name: str, value: Any, link: Callable[[str], str] | None, digits: int | None = None
) -> str:
    if isinstance(value, bool):
        return f"<td>{'✓' if value else ''}</td>"
    if _is_number(value):
        return f'<td class="num">{html.escape(decimal(value, digits))}</td>'
    if isinstance(value, datetime):
        value = f"{value:%Y-%m-%d %H:%M}"  # to the minute, as the pages write a moment
    text = "" if value is None else html.escape(str(value))
    if link is not None and name == "player" and value is not None:
        return f'<td><a href="{html.escape(link(str(value)))}" target="_self">{text}</a></td>'
    return f"<td>{text}</td>"


def bound_value(key: str, default: Any = None) -> Any:
    """The current value of a widget bound to the query parameter ``key``: its state once
    it exists, else the URL's value (first load of a shared link), else ``default``.
    For what a page shows only — never for who the visitor is."""
    if key in st.session_state:
        return st.session_state[key]
    if key in st.query_params:
        return st.query_params[key]
    return default


def settle(key: str, options: Sequence[Any], default: Any, context: object = None) -> str | None:
    """Make the picker ``key`` (bound to the address) hold one of ``options`` before it is
    drawn: a value it holds that is none of them becomes ``default``. Returns the value a
    link asked for that is not there (``?round=R9``), while ``default`` stands in for it,
    for the page to say so; a value picked on the page and gone after another choice
    (``context``: a round picked in another event) is let go without a word. The value
    stays returned over reruns until another is picked or ``context`` changes."""
    mark = f"_{key}_not_there"
    asked = bound_value(key)
    if asked not in options:
        if asked not in (None, "") and key not in st.session_state:
            st.session_state[mark] = (str(asked), context)
        st.session_state[key] = default
    held = st.session_state.get(mark)
    if held and (held[1] != context or st.session_state.get(key) != default):
        del st.session_state[mark]
        return None
    return held[0] if held else None


def not_there_note(label: str, asked: str | None, options: Sequence[str], shown: str) -> None:
    """Say that the link's ``asked`` is not among the ``options`` of the picker ``label``
    and that ``shown`` stands in for it (:func:`settle`); a long list is cut short."""
    if asked is None:
        return
    named = [md(o) for o in options[:NOT_THERE_LISTED]]
    if len(options) > NOT_THERE_LISTED:
        named.append("…")
    st.warning(
        t(
            "ui.not_there",
            label=md(label),
            value=md(asked),
            options=", ".join(named) or "–",
            shown=md(shown),
        )
    )


NOT_THERE_LISTED = 12  # the choices a "not there" note names


TAB_KEY = "tab"  # the address's parameter of a page's open tab (``?tab=Label``)


def sections(labels: Sequence[str]) -> list[Any]:
    """A page's tabs (``labels``: their strings' keys), of which only the open one is
    drawn: a closed tab's queries, charts and tables do not run (a long page on a phone,
    or a new visitor's first load, waits for one tab, not all). The open tab is in the
    address, so a shared link opens on it, in either language: a tab named in the other
    one (a link from someone reading it, or a switch of language) opens the same tab.
    Each returned tab has ``.open``."""
    names = [t(k) for k in labels]
    held = bound_value(TAB_KEY)
    if held is not None and held not in names:
        for lang in i18n.LANGUAGES:
            theirs = [t(k, lang) for k in labels]
            if held in theirs:
                st.session_state[TAB_KEY] = names[theirs.index(held)]
                break
    return list(st.tabs(names, key=TAB_KEY, bind="query-params"))


def metrics(items: Sequence[tuple[str, int | float | str | None]]) -> None:
    """A row of metrics that wraps (two or three a line on a phone) instead of stacking."""
    with st.container(horizontal=True, wrap=True, gap="medium"):
        for label, value in items:
            st.metric(label, value, width=150)


def event_batch(batch: Callable[..., Any], key: str, label: str) -> dict[str, Any] | None:
    """An event page's batch (``batch(con, event)`` through :func:`dashboard.data.read`)
    and its event picker, bound to the query parameter ``key`` and showing each event's
    title; None when there is nothing to show (the page has said why)."""
    res = store.read(batch, bound_value(key))
    if stale_note(res):
        return None
    d: dict[str, Any] = res.value
    if d["event"] is None:
        st.info(t("no_events"))
        return None
    event_picker(st, d, key, label)
    search_note(d["event"], key)
    return d


def event_picker(where: Any, d: dict[str, Any], key: str, label: str) -> None:
    """An event page's picker, bound to the query parameter ``key``: the events ``d``
    lists (:func:`dashboard.batches.event_choice`), each by its title. Text typed that
    names none of them comes back as the choice, and the next run looks for it among all
    events."""
    titles = store.event_titles()
    picker(
        where,
        key,
        label,
        d["events"],
        d["event"],
        d.get("search"),
        format_func=lambda e: titles.get(e, e),
        help=t("ev.search.help"),
    )


def picker(
    where: Any,
    key: str,
    label: str,
    listed: Sequence[Any],
    shown: Any,
    search: tuple[str, int, list[Any]] | None,
    *,
    format_func: Callable[[Any], str],
    help: str,
) -> None:
    """A picker of a long list, bound to the query parameter ``key``: it lists
    ``listed`` (a page's choice of a few of them) and shows ``shown``; text typed into it
    comes back as the choice, the page's next run looks it up among all of them and says
    what it found in ``search`` (text, how many matched, those to list while it is
    shown)."""
    if search is not None:  # this run looked up typed text
        st.session_state[f"{key}_search"] = (*search, shown)
    # every run: a picker first drawn on this page (the choice came from another page's
    # picker of the same key) would otherwise start at its default
    st.session_state[key] = shown
    found = live_search(key, shown)
    # while a search's choice is shown, the others it found can be picked too
    matches = found[2] if found else []
    chosen = where.selectbox(
        label,
        list(dict.fromkeys([*listed, *matches])),
        key=key,
        bind="query-params",
        format_func=format_func,
        accept_new_options=True,
        help=help,
    )
    if chosen != shown:
        # a first visit by an address with text in it (``?event=rektor``): the address
        # seeds the picker over the value set above, once; the next run shows what it names
        st.rerun()


def live_search(key: str, shown: str | None) -> tuple[str, int, list[str], str] | None:
    """What text typed into the picker ``key`` found (text, how many matched, those
    listed, the choice it showed), while that choice is still ``shown``; once another is
    picked, that search is over and forgotten."""
    found = st.session_state.get(f"{key}_search")
    if found and found[3] != shown:
        del st.session_state[f"{key}_search"]
        return None
    return found


def search_note(
    shown: Any, key: str, name: Callable[[Any], str] = store.title, *, what: str = "ev"
) -> None:
    """What the picker's typed text found, while what it found (``shown``) is shown,
    named by ``name``; ``what`` names the strings (``ev``: events, ``pl``: players)."""
    found = live_search(key, shown)
    if not found:
        return
    text, n, _, _ = found
    if n == 0:
        st.warning(t(f"{what}.search.none", text=md(text), shown=md(name(shown))))
    elif n > 1:
        st.caption(t(f"{what}.search.many", text=md(text), n=n, shown=md(name(shown))))


def stale_note(res: Result) -> bool:
    """Show the "updating…" note for stale data; True when there is nothing to show."""
    if res.stale and res.value is None:
        st.info(t("busy.nodata"))
        return True
    if res.stale:
        st.caption(t("busy"))
    return False


def display(
    df: pl.DataFrame,
    columns: Sequence[str] | None = None,
    *,
    labels: dict[str, str] | None = None,
    links: bool = False,
    event: str | None = None,
) -> pd.DataFrame:
    """A frame ready for ``st.dataframe``: chosen columns, headers in the session's
    language, booleans as ✓ / blank, integers as integers (also with blanks). With
    ``links`` the player names link to their pages (see :func:`table`)."""
    if links and "player" in df.columns:
        df = _linked(df, event=event)
    df = _chosen(df, columns)
    df = df.with_columns(
        pl.when(pl.col(c)).then(pl.lit("✓")).otherwise(pl.lit("")).alias(c)
        for c in df.columns
        if df[c].dtype == pl.Boolean
    )
    out = df.to_pandas()
    for c in df.columns:
        # an integer column with a blank becomes floats in pandas (a line number shown as
        # 4.0000): pandas' nullable integers keep it 4, and the blank blank
        if df[c].dtype.is_integer() and df[c].null_count():
            out[c] = out[c].astype("Int64")
    out.columns = [_header(c, labels) for c in df.columns]
    return out


def _chosen(df: pl.DataFrame, columns: Sequence[str] | None) -> pl.DataFrame:
    """``columns`` of ``df`` in that order (those it has), or all of them."""
    return df if columns is None else df.select([c for c in columns if c in df.columns])


def headers(
    df: pl.DataFrame, columns: Sequence[str] | None = None, labels: dict[str, str] | None = None
) -> list[tuple[str, str]]:
    """The columns a table of ``df`` shows (:func:`table` with the same arguments), in
    order, each with its header."""
    return [(c, _header(c, labels)) for c in _chosen(df, columns).columns]


def _header(column: str, labels: dict[str, str] | None) -> str:
    """A column's header: the page's own label, else the column's name in the session's
    language."""
    return (labels or {}).get(column) or i18n.column(column)


#: At most this many warnings are listed in one box (:func:`warning_list`); the rest counted.
WARNINGS_SHOWN = 20


def warning_list(head: str, lines: list[str]) -> None:
    """One warning box: ``head``, then each sentence (text from the data, shown as text),
    the first :data:`WARNINGS_SHOWN` of them and how many more."""
    if not lines:
        return
    listed = "\n".join(f"- {md(line)}" for line in lines[:WARNINGS_SHOWN])
    more = len(lines) - WARNINGS_SHOWN
    tail = f"\n\n{t('up.eligibility.more', n=more)}" if more > 0 else ""
    st.warning(f"{head}\n\n{listed}{tail}")


def table(
    df: pl.DataFrame,
    key: str,
    columns: Sequence[str] | None = None,
    style: Callable[[pd.DataFrame], Any] | None = None,
    height: int | Literal["auto"] = "auto",
    *,
    static: bool = False,
    labels: dict[str, str] | None = None,
    links: bool = False,
    event: str | None = None,
    source: Any = None,
    decimals: dict[str, int] | None = None,
) -> None:
    """``df`` with translated headers and optional styling: ``st.dataframe`` (sortable,
    scrolls), or with ``static`` a plain table (short tables: readable on a phone, text in
    the page for screen readers; :func:`plain_table`). With ``links`` each player's name
    links to their page, with ``event`` chosen there. ``decimals`` writes those columns
    with that many digits after the point (``7.70`` under ``5.89``, not ``7.7``); the
    grid still sorts them as numbers. With ``source`` (the value
    :func:`data.read` returned that ``df`` comes from) what is shown is made once for it
    and ``key`` and shared by every session (:func:`data.derived`)."""
    if static and style is not None:
        raise ValueError("a plain table has no styling: show it with static=False")

    def build() -> str | pd.DataFrame:
        if static:
            return plain_table(
                df, columns, labels=labels, links=links, event=event, decimals=decimals
            )
        return display(df, columns, labels=labels, links=links, event=event)

    shown = (
        build() if source is None else store.derived(source, f"table:{key}", build, i18n.language())
    )
    if isinstance(shown, str):  # a plain table's HTML
        st.html(shown)
        return
    data: Any = style(shown) if style is not None else shown
    config: dict[str, Any] = {
        _header(c, labels): st.column_config.NumberColumn(format=f"%.{n}f")
        for c, n in (decimals or {}).items()
    }
    if links and "player" in df.columns:
        config[_header("player", labels)] = st.column_config.LinkColumn(display_text=PROFILE_TEXT)
    st.dataframe(
        data,
        hide_index=True,
        key=key,
        height=height,
        width="stretch",
        column_config=config or None,
        placeholder=BLANK,
    )


#: What a grid (``st.dataframe``) writes in an empty cell: nothing, as a plain table does
#: (Streamlit's default is the word "None", English on an Indonesian page).
BLANK = ""


#: A plain table's page CSS (:func:`plain_table`): :data:`TABLE_RULES`, and scrolling
#: sideways on a phone rather than squeezing.
PLAIN_CSS = f"<style>.plain-table-wrap {{overflow-x: auto;}}{TABLE_RULES}</style>"


def plain_table(
    df: pl.DataFrame,
    columns: Sequence[str] | None = None,
    *,
    labels: dict[str, str] | None = None,
    links: bool = False,
    event: str | None = None,
    decimals: dict[str, int] | None = None,
) -> str:
    """``df`` as one HTML table for ``st.html`` (:func:`html_table`): headers in the
    session's language, every cell escaped, booleans as ✓ / blank, a blank as blank,
    decimals as they are (``68.5``) or, for the columns of ``decimals``, with that many
    digits after the point. An ``st.table`` renders each cell as markdown: the
    63 events of a player's page so cost a returning visitor 0.3 s in the browser."""
    named = headers(df, columns, labels)
    df = _chosen(df, columns)
    link = (lambda name: profile_url(name, event)) if links and "player" in df.columns else None
    table = html_table(
        df.rows(named=True), named, css_class="plain-table", link=link, decimals=decimals
    )
    return f'{PLAIN_CSS}<div class="plain-table-wrap">{table}</div>'


def downloads(df: pl.DataFrame, basename: str, what: str, key: str) -> None:
    """CSV and XLSX download buttons for a standings frame (contract column names,
    cells neutralised by :mod:`pipeline.standings.exports`). The files are made when a
    button is clicked, not on every rerun of the page (a workbook of every table of a
    big event takes seconds)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", basename).strip("_") or "standings"
    c1, c2 = st.columns(2)
    c1.download_button(
        f"⬇ {t('download.csv')}",
        data=lambda: exports.to_csv(df),
        file_name=f"{safe}.csv",
        mime="text/csv",
        key=f"{key}_csv",
        on_click="ignore",
        # Excel set to Indonesian splits on ";": it opens a comma file in one column
        help=t("download.csv.help", what=what),
        width="stretch",
    )
    c2.download_button(
        f"⬇ {t('download.xlsx')}",
        data=lambda: exports.to_xlsx(df, sheet=safe[:31]),
        file_name=f"{safe}.xlsx",
        mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        key=f"{key}_xlsx",
        on_click="ignore",
        help=t("download.label", what=what),
        width="stretch",
    )


def public_columns(df: pl.DataFrame) -> pl.DataFrame:
    """Standings for download: internal columns (player_key, version) left out."""
    return df.drop([c for c in ("player_key", "version") if c in df.columns])


def file_uploader(
    label: str, kinds: Sequence[str], max_mb: int, unlisted: Sequence[str] = (), **kwargs: Any
) -> Any:
    """``st.file_uploader`` for files of ``kinds`` (extensions) up to ``max_mb`` MB each,
    its words in the page's language. Streamlit's uploader writes its own in English only
    ("Drag and drop files here", "Limit 20MB per file", "Upload") with no setting to
    translate them: they are hidden, the button's label set by static CSS (text from the
    string table only, never from data), and what it takes said in a caption above it
    (not the ``unlisted`` kinds it takes only to refuse them saying what to do)."""
    label_css = t("up.browse").replace("\\", "").replace('"', "")
    box = "[data-testid='stFileUploaderDropzone']"
    has_words = f"{box}:has([data-testid='stFileUploaderDropzoneInstructions'])"
    st.html(
        "<style>[data-testid='stFileUploaderDropzoneInstructions'] {display: none;} "
        f"{has_words} button, {has_words} button * {{font-size: 0 !important;}} "
        f"{box} button [data-testid='stIconMaterial'] "
        "{font-size: 1.25rem !important; margin-right: .5rem;} "
        f'{has_words} button::after {{content: "{label_css}"; font-size: .875rem;}}</style>'
    )
    named = [k for k in kinds if k not in unlisted]
    names = list(dict.fromkeys("JPEG" if k.lower() == "jpg" else k.upper() for k in named))
    if names:  # a caption names at least one kind (an uploader of no listed kind says none)
        last = names[-1]
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {t('word.or')} {last}"
        st.caption(t("up.files.limit", kinds=listed, mb=max_mb))
    return st.file_uploader(label, type=list(kinds), max_upload_size=max_mb, **kwargs)


def upload_mb() -> int:
    """The largest file a page takes, in MB: the ``max_file_bytes`` setting (at least 1)."""
    return max(1, int(settings.get("max_file_bytes")) // (1024 * 1024))


def attempt(
    act: Callable[[], Any], refused: tuple[type[Exception], ...] = (), busy: str = "busy"
) -> tuple[bool, Any]:
    """``act()``, a write or a read a page asked for: a refusal of ``refused`` (each has
    ``render(lang)``: the sentence in the page's language) is shown as an error, a busy
    database as a warning (``t(busy)``). Returns whether it ran, and what it returned."""
    try:
        return True, act()
    except refused as exc:
        lang = i18n.language()
        said = exc.sentence(lang) if isinstance(exc, Refused) else exc.render(lang)  # type: ignore[attr-defined]
        st.error(said)
    except store.DatabaseBusy:
        st.warning(t(busy))
    return False, None
