"""Upload (coordinators and referees): preview first, then confirm.

Nothing is written until the coordinator confirms. Both steps call the one ingest
service: :func:`pipeline.ingest.preview` on a short read-only connection, then
:func:`pipeline.ingest.load` on a short write connection, which re-checks the
coordinator's rights against the database, refuses the whole upload if any of its events
is not theirs, and commits only when the plan is the one that was previewed.
"""

import hashlib
from typing import Any, cast

import duckdb
import pandas as pd
import polars as pl
import streamlit as st

from dashboard import access, batches, data, ui
from dashboard.i18n import language, t
from dashboard.messages import column_label, render_column, render_outcome
from pipeline import auth, ingest, rulesets, settings
from pipeline import rounds as round_order
from pipeline.ingest import PlanChanged, Preview
from pipeline.ingest.read import Sheet, display_name
from pipeline.problems import ERROR, WARNING, FileRejected
from pipeline.standings import exports, stats
from pipeline.store.db import DatabaseBusy

MAX_ROWS_SHOWN = 300
_PREVIEW_STATE = "_upload_preview"
_DONE_STATE = "_upload_done"
_ROUND_STATE = "_upload_round"
REASON_KEY = "up_reason"
#: Problems the page itself asks about (the reason box by the confirm button), so they
#: are not listed as errors of the file.
ASKED_BY_THE_PAGE = ("correction_needs_reason",)


def preview_key(
    files: list[tuple[str, bytes]],
    event: str | None,
    ruleset: str | None,
    reason: str | None,
    stamp: Any,
) -> tuple[Any, ...]:
    """A preview stays valid while the files, the choices and the data are the same."""
    return (
        tuple((n, hashlib.sha256(b).hexdigest()) for n, b in files),
        event or "",
        ruleset or "",
        reason or "",
        stamp,
    )


# --- page ---------------------------------------------------------------------------------------


def render() -> None:
    st.title(t("up.title"))
    ident = access.current()
    if ident is None:
        access.sign_in_form()
        return
    done = st.session_state.pop(_DONE_STATE, None)
    if done:
        st.success(done)
    _templates()
    try:
        allowed = data.uncached(lambda con: auth.user_events(con, ident.name))
    except DatabaseBusy:
        allowed = None
        st.caption(t("busy"))
    if allowed is not None:
        st.caption(
            t(
                "up.rights",
                events=t("up.rights.all")
                if auth.ALL_EVENTS in allowed
                else ", ".join(sorted(allowed)),
            )
        )
    n = st.session_state.get(_ROUND_STATE, 0)
    limit_mb = max(1, int(settings.get("max_file_bytes")) // (1024 * 1024))
    _uploader_css(limit_mb)
    uploaded = st.file_uploader(
        t("up.files"),
        type=["csv", "xlsx"],
        accept_multiple_files=True,
        key=f"upload_files_{n}",
        max_upload_size=limit_mb,
    )
    if uploaded:
        c1, c2 = st.columns(2)
        event = c1.text_input(t("up.event"), key="up_event", max_chars=100).strip()
        from_file = t("up.ruleset.none")
        ruleset = c2.selectbox(
            t("up.ruleset"),
            ["", *rulesets.names()],
            key="up_ruleset",
            format_func=lambda r: r or from_file,
        )
        # the reason box stands by the confirm button (it is only asked for a correction);
        # its last value is read here so the preview is planned with it
        reason = str(st.session_state.get(REASON_KEY) or "").strip()
        files = [(display_name(f.name), f.getvalue()) for f in uploaded]
        _preview_and_confirm(files, event, ruleset, reason, ident)
    _history()


def _templates() -> None:
    with st.expander(t("up.templates")):
        st.caption(t("up.templates.help"))
        cols = st.columns(4)
        i = 0
        for rs in rulesets.names():
            cols[i].download_button(
                t("up.template.button", ruleset=rs, fmt="CSV"),
                exports.template_csv(rs),
                file_name=f"hand-log-{rs}.csv",
                mime="text/csv",
                key=f"tpl_{rs}_csv",
                on_click="ignore",
                width="stretch",
            )
            cols[i + 1].download_button(
                t("up.template.button", ruleset=rs, fmt="XLSX"),
                exports.template_xlsx(rs),
                file_name=f"hand-log-{rs}.xlsx",
                mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                key=f"tpl_{rs}_xlsx",
                on_click="ignore",
                width="stretch",
            )
            i += 2


def _preview_and_confirm(
    files: list[tuple[str, bytes]], event: str, ruleset: str, reason: str, ident: auth.Identity
) -> None:
    cached: tuple[tuple[Any, ...], Preview] | None = st.session_state.get(_PREVIEW_STATE)
    try:

        def build(con: duckdb.DuckDBPyConnection) -> tuple[tuple[Any, ...], Preview]:
            key = preview_key(files, event, ruleset, reason, stats.data_stamp(con))
            if cached is not None and cached[0] == key:
                return cached
            return key, ingest.preview(
                con, list(files), event=event, ruleset=ruleset, reason=reason, by=ident.name
            )

        key, pv = data.uncached(build)
    except DatabaseBusy:
        st.warning(t("up.busy"))
        return
    st.session_state[_PREVIEW_STATE] = (key, pv)
    st.subheader(t("up.preview"))
    show_preview(pv)
    _confirm_box(files, event, ruleset, reason, pv)


def _confirm_box(
    files: list[tuple[str, bytes]], event: str, ruleset: str, reason: str, pv: Preview
) -> None:
    """What stands between the preview and saving: for a correction its reason box, the
    note that asks for it, and the confirm button, together."""
    n_writes = (
        len(pv.plan.writes) + len(pv.diffs) * pv.needs_reason
    )  # corrections wait for their reason
    blocked = bool(pv.forbidden) or pv.needs_reason or not pv.plan.writes
    with st.container(border=bool(pv.diffs), key="up_confirm_box"):
        if pv.forbidden:
            st.error(t("up.forbidden", events=", ".join(pv.forbidden)))
        elif pv.needs_reason:
            st.warning(t("up.needs_reason"))
        elif not pv.plan.writes:
            st.info(t("up.nothing"))
        if pv.diffs:
            st.text_area(
                t("up.reason"), key=REASON_KEY, help=t("up.reason.help"), max_chars=500, height=68
            )
        if st.button(
            t("up.confirm", n=n_writes), key="up_confirm", type="primary", disabled=blocked
        ):
            _confirm(files, event, ruleset, reason, pv)


def _confirm(
    files: list[tuple[str, bytes]], event: str, ruleset: str, reason: str, pv: Preview
) -> None:
    try:
        p = data.write(
            ingest.load,
            list(files),
            event=event or None,
            ruleset=ruleset or None,
            reason=reason or None,
            identity=st.session_state.get(access.IDENTITY_KEY),
            expected=pv.signature,
        )
    except auth.NotAllowed as exc:
        st.error(t("up.not_allowed", message=exc.render(language())))
        return
    except PlanChanged:
        st.session_state.pop(_PREVIEW_STATE, None)
        st.warning(t("up.changed_meanwhile"))
        return
    except DatabaseBusy:
        st.warning(t("up.busy"))
        return
    counts = {s: p.count(s) for s in ("new", "update", "correction", "unchanged", "rejected")}
    st.session_state[_DONE_STATE] = t(
        "up.saved", loaded=counts["new"] + counts["update"] + counts["correction"], **counts
    )
    st.session_state[_ROUND_STATE] = st.session_state.get(_ROUND_STATE, 0) + 1
    st.session_state.pop(_PREVIEW_STATE, None)
    st.rerun()


STATIC_PROBLEMS = 25  # up to this many problems (or matches): a plain table, whole sentences


def show_preview(pv: Preview) -> None:
    """The preview of an upload: refused files, problems, what happens to each match, the
    points each would get, and for a correction what changes, hand by hand and player by
    player."""
    for info in pv.files:
        if isinstance(err := info.get("error"), FileRejected):
            st.error(t("up.file_rejected", file=err.file, message=err.render(language())))
    _problems(pv.plan.problems.filter(~pl.col("code").is_in(ASKED_BY_THE_PAGE)))
    _outcomes(pv)
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


def _problems(problems: pl.DataFrame) -> None:
    errors = problems.filter(pl.col("severity") == ERROR).height
    st.markdown(f"##### {t('up.problems', errors=errors, warnings=problems.height - errors)}")
    if not problems.height:
        st.caption(t("up.no_problems"))
        return
    shown = column_label(render_column(problems, language())).with_columns(
        pl.col("severity").replace({sev: t(f"up.severity.{sev}") for sev in (ERROR, WARNING)})
    )
    # a few as a plain table: whole sentences, wrapped in a column wide enough to read on
    # a phone (the table scrolls sideways); many in the scrolling grid
    with st.container(key="up_problems_box"):
        _readable_table_css("up_problems_box", message_column=3)
        ui.table(
            shown,
            key="up_problems",
            columns=["line", "column", "message", "severity", "file", "code"],
            static=problems.height <= STATIC_PROBLEMS,
        )


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
    with st.container(key="up_outcomes_box"):
        _readable_table_css("up_outcomes_box", message_column=4)
        ui.table(rows, key="up_outcomes", static=rows.height <= STATIC_PROBLEMS)


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
    """One correction: each player's points before → after, then the changed fields."""
    st.markdown(
        f"##### {t('up.diff', event=ui.md(d['event']), round=ui.md(d['round']), table=ui.md(d['table']))}"
    )
    points: pl.DataFrame | None = d.get("points")
    if points is not None and points.height:
        st.caption(t("up.diff.points", version=d["version"]))
        ui.table(points_shown(points, pv.names), key=f"up_diff_points_{i}", static=True)
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


def _readable_table_css(key: str, message_column: int) -> None:
    """Static CSS (no data): in the plain table inside container ``key`` the message
    column keeps a readable width and wraps; the other cells stay on one line; the table
    scrolls sideways on a phone instead of squeezing the sentence a word per line."""
    box = f".st-key-{key}"
    st.html(
        f"<style>{box} [data-testid='stTable'] {{overflow-x: auto;}} "
        f"{box} [data-testid='stTableStyledTable'] :is(td, th), "
        f"{box} [data-testid='stTableStyledTable'] :is(td, th) * {{white-space: nowrap;}} "
        f"{box} [data-testid='stTableStyledTable'] :is(td, th):nth-child({message_column}), "
        f"{box} [data-testid='stTableStyledTable'] :is(td, th):nth-child({message_column}) * "
        "{white-space: normal;} "
        f"{box} [data-testid='stTableStyledTable'] :is(td, th):nth-child({message_column}) "
        "{min-width: 16rem; max-width: 32rem;}</style>"
    )


def _uploader_css(limit_mb: int) -> None:
    """Streamlit's uploader writes its own words in English only ("Drag and drop files
    here", "Limit 20MB per file", "Upload") and has no setting to translate them: they are
    hidden and said in the page's language instead — the button's label by static CSS
    (text from this page's string table only, never from data), the limit in a caption."""
    label = t("up.browse").replace("\\", "").replace('"', "")
    st.html(
        "<style>[data-testid='stFileUploaderDropzoneInstructions'] {display: none;} "
        "[data-testid='stFileUploaderDropzone']:has([data-testid='stFileUploaderDropzoneInstructions']) button, "
        "[data-testid='stFileUploaderDropzone']:has([data-testid='stFileUploaderDropzoneInstructions']) button * "
        "{font-size: 0 !important;} "
        "[data-testid='stFileUploaderDropzone'] button [data-testid='stIconMaterial'] "
        "{font-size: 1.25rem !important; margin-right: .5rem;} "
        "[data-testid='stFileUploaderDropzone']:has([data-testid='stFileUploaderDropzoneInstructions']) button::after "
        f'{{content: "{label}"; font-size: .875rem;}}</style>'
    )
    st.caption(t("up.files.limit", mb=limit_mb))


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
        shown = frame.to_pandas()
        st.dataframe(
            mark_cells(shown, problems),
            hide_index=True,
            key=f"up_rows_{sheet.sha256[:12]}",
            width="stretch",
        )


def mark_cells(frame: pd.DataFrame, problems: pl.DataFrame) -> Any:
    """A Styler painting each problem's cell (its line and column; the line number when
    the problem has no column): red for errors, yellow for warnings."""
    if problems.height == 0:
        return frame
    red, yellow = (
        "background-color: rgba(255, 75, 75, 0.35)",
        "background-color: rgba(255, 193, 7, 0.35)",
    )
    where: dict[tuple[int, str], str] = {}
    for pr in problems.iter_rows(named=True):
        if pr["line"] is None:
            continue
        col = pr["column"] if pr["column"] in frame.columns else "line"
        colour = red if pr["severity"] == ERROR else yellow
        if where.get((pr["line"], col)) != red:
            where[(pr["line"], col)] = colour
    row_of = {line: i for i, line in enumerate(frame["line"].tolist())}

    def paint(df: pd.DataFrame) -> pd.DataFrame:
        css = pd.DataFrame("", index=df.index, columns=df.columns)
        for (line, col), colour in where.items():
            if line in row_of:
                # the columns are unique, so get_loc gives one position (not a slice or mask)
                css.iat[row_of[line], cast(int, df.columns.get_loc(col))] = colour
        return css

    return frame.style.apply(paint, axis=None)


def _history() -> None:
    with st.expander(t("up.history")):
        res = data.read(batches.ingest_log)
        if ui.stale_note(res):
            return
        log = res.value.with_columns(
            pl.col("status").replace(
                {s: t(f"up.log.{s}") for s in ("done", "rejected", "interrupted")}
            )
        )
        ui.table(
            log,
            key="up_history",
            columns=[
                "ingest_id",
                "file",
                "status",
                "rows",
                "matches_loaded",
                "matches_unchanged",
                "matches_rejected",
                "loaded_by",
                "started_at",
                "reason",
            ],
        )
