"""The upload preview: refused files, problems, what happens to each match, the points
each would get, for a correction what changes, and each file's rows with every problem
marked on its cell. Display only: :mod:`dashboard.views.upload` plans the preview and
asks for the confirmation.
"""

from collections.abc import Sequence
from typing import Any, cast

import pandas as pd
import polars as pl
import streamlit as st

from dashboard import ui
from dashboard.i18n import column, language, t
from dashboard.messages import column_label, render_column, render_outcome, warnings
from pipeline import rounds as round_order
from pipeline.ingest import Preview
from pipeline.ingest.read import Sheet
from pipeline.problems import ERROR, WARNING, FileRejected
from pipeline.standings import stats

MAX_ROWS_SHOWN = 300
#: Problems the page itself asks about (the reason box by the confirm button), so they
#: are not listed as errors of the file.
ASKED_BY_THE_PAGE = ("correction_needs_reason",)


#: Files refused whole shown one box each (a .zip of 2,000 empty files made 2,000 boxes);
#: the rest are counted, every one is in the problems table
REFUSED_SHOWN = 10
STATIC_PROBLEMS = 25  # up to this many problems (or matches): a plain table, whole sentences


def show_preview(pv: Preview) -> None:
    """The preview of an upload: refused files, problems, what happens to each match, the
    points each would get, and for a correction what changes, hand by hand and player by
    player."""
    refusals = [e for info in pv.files if isinstance(e := info.get("error"), FileRejected)]
    for err in refusals[:REFUSED_SHOWN]:
        st.error(t("up.file_rejected", file=err.file, message=err.render(language())))
    if len(refusals) > REFUSED_SHOWN:  # each is in the problems below too
        st.error(t("up.file_rejected.more", n=len(refusals) - REFUSED_SHOWN))
    _problems(pv.plan.problems.filter(~pl.col("code").is_in(ASKED_BY_THE_PAGE)))
    _outcomes(pv)
    _new_events(pv.plan.new_events)
    _points(pv)
    for i, d in enumerate(pv.diffs):
        _diff(i, d, pv)
    for s in pv.sheets:
        _rows(
            s,
            pv.plan.problems.filter(
                (pl.col("file") == s.file) & ~pl.col("code").is_in(ASKED_BY_THE_PAGE)
            ),
        )


def show_diffs(pv: Preview) -> None:
    """Only the corrections of a preview: points before → after, then the changed fields
    (the requests page shows a change request with it)."""
    for i, d in enumerate(pv.diffs):
        _diff(i, d, pv)


def show_warnings(pv: Preview) -> None:
    """The warnings of a preview, each a sentence in the reader's language, in one box (the
    change requests page shows what a pending correction would be warned of, such as a
    next round drawn with other qualifiers)."""
    ui.warning_list(t("rq.warnings"), warnings(pv.plan.problems, language()))


def _problems(problems: pl.DataFrame) -> None:
    errors = problems.filter(pl.col("severity") == ERROR).height
    st.markdown(f"##### {t('up.problems', errors=errors, warnings=problems.height - errors)}")
    if not problems.height:
        st.caption(t("up.no_problems"))
        return
    shown = column_label(render_column(problems, language())).with_columns(
        pl.col("severity").replace({sev: t(f"up.severity.{sev}") for sev in (ERROR, WARNING)})
    )
    _readable_table(shown, "up_problems", ["line", "column", "message", "severity", "file", "code"])


def outcome_status(o: Any) -> str:
    """A match's status as the page says it: a correction that waits for its reason is a
    correction, not a refusal."""
    if o.status == "rejected" and o.message_id in ASKED_BY_THE_PAGE:
        return t("up.status.needs_reason")
    return t(f"up.status.{o.status}")


def outcome_message(o: Any) -> str:
    if o.status == "rejected" and o.message_id in ASKED_BY_THE_PAGE:
        return t("up.outcome.needs_reason", version=o.params.get("version", ""))
    return render_outcome(o, language())


def _outcomes(pv: Preview) -> None:
    if not pv.plan.outcomes:
        return
    st.markdown(f"##### {t('up.matches')}")
    rows = pl.DataFrame(
        [
            {
                "round": o.round,
                "table": o.table,
                "status": outcome_status(o),
                "message": outcome_message(o),
                "hands": o.hands,
                "version": o.version,
                "event": o.event,
                "file": o.file,
            }
            for o in pv.plan.outcomes
        ],
        schema={
            "round": pl.String,
            "table": pl.String,
            "status": pl.String,
            "message": pl.String,
            "hands": pl.Int64,
            "version": pl.Int64,
            "event": pl.String,
            "file": pl.String,
        },
    )
    _readable_table(rows, "up_outcomes", rows.columns)


def _new_events(new: dict[str, str]) -> None:
    """The events the save would create (an event id mistyped in the sheet is one), named
    before anything is saved; a long list is cut short."""
    if not new:
        return
    named = [f"{ui.md(e)} ({ui.md(rs)})" for e, rs in sorted(new.items())[:NEW_EVENTS_NAMED]]
    if len(new) > NEW_EVENTS_NAMED:
        named.append(t("up.new_events.more", n=len(new) - NEW_EVENTS_NAMED))
    st.info(t("up.new_events", n=len(new), events=", ".join(named)))


NEW_EVENTS_NAMED = 10  # the new events a preview names; the rest are counted


def _points(pv: Preview) -> None:
    p = pv.plan
    if not p.table_standings.height:
        return
    st.markdown(f"##### {t('up.points')}")
    pts = (
        p.table_standings.join(
            pv.names if pv.names is not None else p.names, on="player_key", how="left"
        )
        .with_columns(pl.col("player").fill_null(pl.col("player_key")))
        .sort(["event", *round_order.sort_exprs("round"), "table", "rank", "player"])
    )
    ui.table(
        pts,
        key="up_points",
        columns=[
            "event",
            "round",
            "table",
            "rank",
            "player",
            "points",
            "hands",
            "qualified",
            "needs_tiebreak",
        ],
    )


def _diff(i: int, d: dict[str, Any], pv: Preview) -> None:
    """One correction: each player's points before → after, then the changed fields (a
    withdrawal request: the points that go, and how many hands)."""
    # a withdrawal request: what goes; a withdrawn match brought back: what comes back
    how = "gone" if d.get("withdrawal") else "back" if d.get("back") else None
    match = {"event": ui.md(d["event"]), "round": ui.md(d["round"]), "table": ui.md(d["table"])}
    st.markdown(f"##### {t(f'up.diff.{how}' if how else 'up.diff', **match)}")
    points: pl.DataFrame | None = d.get("points")
    if points is not None and points.height:
        key = f"up.diff.points.{how}" if how else "up.diff.points"
        st.caption(t(key, version=d["version"]))
        ui.table(points_shown(points, pv.names), key=f"up_diff_points_{i}", static=True)
    if how:
        hands = d["diff"].get_column("hand").n_unique()
        st.caption(t(f"up.diff.hands.{how}", hands=hands))
        return
    st.caption(t("up.diff.caption", version=d["version"]))
    diff = d["diff"].with_columns(
        pl.col("field").replace(
            {stats.DROPPED: t("up.diff.dropped"), stats.ADDED: t("up.diff.added")}
        )
    )
    ui.table(diff, key=f"up_diff_{i}", columns=["hand", "field", "loaded", "new"])


def points_shown(points: pl.DataFrame, names: pl.DataFrame | None) -> pl.DataFrame:
    """``player, points: before → after (±change), rank: before → after`` for the page."""
    if names is not None and names.height:
        points = points.join(
            names.select("player_key", pl.col("player").alias("_name")), on="player_key", how="left"
        ).with_columns(
            pl.when(pl.col("player") == pl.col("player_key"))
            .then(pl.coalesce("_name", "player"))
            .otherwise(pl.col("player"))
            .alias("player")
        )

    def arrow(a: str, b: str) -> pl.Expr:
        return pl.format(
            "{} → {}",
            pl.col(a).cast(pl.String).fill_null("–"),
            pl.col(b).cast(pl.String).fill_null("–"),
        )

    change = (pl.col("after").fill_null(0) - pl.col("before").fill_null(0)).cast(pl.Int64)
    return points.select(
        "player",
        pl.concat_str(
            arrow("before", "after"),
            pl.when(change > 0)
            .then(pl.format(" (+{})", change))
            .when(change < 0)
            .then(pl.format(" ({})", change))
            .otherwise(pl.lit("")),
        ).alias("points_change"),
        arrow("rank_before", "rank_after").alias("rank_change"),
    )


def _readable_table(df: pl.DataFrame, key: str, columns: Sequence[str]) -> None:
    """``df`` as a list of sentences to read: a few rows (at most :data:`STATIC_PROBLEMS`)
    as a plain table in the container ``<key>_box`` with :func:`_readable_css`, more in
    the scrolling grid."""
    static = df.height <= STATIC_PROBLEMS
    with st.container(key=f"{key}_box"):
        if static:
            st.html(_readable_css(f"{key}_box", ui.headers(df, columns)))
        ui.table(df, key=key, columns=columns, static=static)


def _readable_css(box: str, headers: Sequence[tuple[str, str]]) -> str:
    """CSS (no data: the headers are the page's words) for the plain table in the
    container ``box``, whose columns and their headers are ``headers`` and whose
    ``message`` column is the sentence. Wide, the sentence keeps a readable width and
    wraps while the other cells stay on one line (:data:`dashboard.ui.TABLE_RULES`). On a
    phone each row stands as a block: its short cells on one line, each after its header,
    then the whole sentence across the screen (a table there either squeezes the sentence
    a word per line or pushes its end off the screen)."""
    at = f".st-key-{box} table.plain-table"
    nth = [name for name, _ in headers].index("message") + 1
    labels = "".join(
        f"{at} td:nth-child({i})::before {{content: {_css_string(h + ' ')}; opacity: .65;}}"
        for i, (_, h) in enumerate(headers, start=1)
        if i != nth
    )
    return (
        f"<style>{at} :is(td, th):nth-child({nth})"
        " {white-space: normal; min-width: 16rem; max-width: 32rem;}"
        "@media (max-width: 640px) {"
        f"{at}, {at} tbody, {at} tr {{display: block;}}"
        f"{at} thead {{display: none;}}"
        f"{at} tr {{padding: .45rem 0; border-bottom: 1px solid rgba(128, 128, 128, .2);}}"
        f"{at} tbody tr:last-child {{border-bottom: none;}}"
        # a short cell, its header before it, is one box: a line breaks between cells
        f"{at} td {{display: inline-block; border: none; padding: 0 .75rem 0 0;"
        " white-space: normal; overflow-wrap: anywhere;}"
        f"{at} td:empty {{display: none;}}"
        f"{at} td:nth-child({nth}) {{display: block; min-width: 0; max-width: none;"
        " padding: .2rem 0;}"
        f"{labels}}}</style>"
    )


def _css_string(text: str) -> str:
    """``text`` as a CSS string literal (quotes and backslashes escaped, no markup)."""
    safe = text.replace("\\", "\\\\").replace('"', '\\"').replace("<", "\\3c ")
    return f'"{safe}"'


def _rows(sheet: Sheet, problems: pl.DataFrame) -> None:
    """The file's rows with each problem marked on its line and column."""
    with st.expander(t("up.rows", file=sheet.file), expanded=problems.height > 0):
        frame = sheet.frame.drop(
            [c for c in ("_file", "extra", "_issue") if c in sheet.frame.columns]
        ).rename({"_line": "line"})
        bad_lines = set(problems.get_column("line").drop_nulls().to_list())
        if frame.height > MAX_ROWS_SHOWN:
            flagged = frame.filter(pl.col("line").is_in(list(bad_lines)))
            rest = frame.filter(~pl.col("line").is_in(list(bad_lines))).head(
                max(0, MAX_ROWS_SHOWN - flagged.height)
            )
            frame = pl.concat([flagged, rest]).sort("line")
            st.caption(t("up.rows.some", shown=frame.height, total=sheet.rows))
        if problems.height:
            st.caption(t("up.cells.legend"))
        names = shown_headers(frame.columns, sheet.headers)
        shown = frame.rename(names).to_pandas()
        st.dataframe(
            mark_cells(shown, problems, names),
            hide_index=True,
            key=f"up_rows_{sheet.sha256[:12]}",
            width="stretch",
            placeholder=ui.BLANK,  # an empty cell of the file shows empty, not "None"
        )


def shown_headers(columns: Sequence[str], spelled: dict[str, str]) -> dict[str, str]:
    """Each column of a file's rows as the uploader knows it: its header as the file spelled
    it (``acara`` for ``event``), the line number in the page's language. The contract's
    names stay when two columns would show the same header."""
    names = {c: column("line") if c == "line" else spelled.get(c, c) for c in columns}
    return names if len(set(names.values())) == len(names) else {c: c for c in columns}


def mark_cells(
    frame: pd.DataFrame, problems: pl.DataFrame, names: dict[str, str] | None = None
) -> Any:
    """A Styler painting each problem's cell (its line and column; the line number when
    the problem has no column): red for errors, yellow for warnings. ``names`` are the
    shown headers of the columns of ``frame`` (:func:`shown_headers`)."""
    if problems.height == 0:
        return frame
    names = names or {}
    numbers = names.get("line", "line")  # the column of line numbers
    red, yellow = (
        "background-color: rgba(255, 75, 75, 0.35)",
        "background-color: rgba(255, 193, 7, 0.35)",
    )
    where: dict[tuple[int, str], str] = {}
    for pr in problems.iter_rows(named=True):
        if pr["line"] is None:
            continue
        col = names.get(pr["column"], pr["column"])
        col = col if col in frame.columns else numbers
        colour = red if pr["severity"] == ERROR else yellow
        if where.get((pr["line"], col)) != red:
            where[(pr["line"], col)] = colour
    row_of = {n: i for i, n in enumerate(frame[numbers].tolist())}

    def paint(df: pd.DataFrame) -> pd.DataFrame:
        css = pd.DataFrame("", index=df.index, columns=df.columns)
        for (line, col), colour in where.items():
            if line in row_of:
                # the columns are unique, so get_loc gives one position (not a slice or mask)
                css.iat[row_of[line], cast(int, df.columns.get_loc(col))] = colour
        return css

    return frame.style.apply(paint, axis=None)
