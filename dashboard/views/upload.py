"""Upload (coordinators and referees): preview first, then confirm.

Nothing is written until the coordinator confirms. The preview is
:func:`pipeline.load.plan` on a short read-only connection; confirming re-plans on a
short write connection, re-checks the coordinator's rights against the database there,
refuses the whole upload if any of its events is not theirs, and commits only when the
plan is the one that was previewed.
"""

import hashlib
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pandas as pd
import polars as pl
import streamlit as st

from dashboard import access, batches, data, ui
from dashboard.i18n import language, t
from dashboard.messages import translate, translate_column
from pipeline import auth, exports, settings, stats
from pipeline import rounds as round_order
from pipeline.io.read import Sheet, display_name, read_bytes
from pipeline.load import Plan, begin_ingest, commit, plan
from pipeline.problems import ERROR, WARNING, FileRejected
from pipeline.rescore import rescore_stale
from pipeline.store.db import DatabaseBusy

PREVIEW_REASON = "(preview)"  # only ever used to show a correction's difference
MAX_ROWS_SHOWN = 300
_PREVIEW_STATE = "_upload_preview"
_DONE_STATE = "_upload_done"
_ROUND_STATE = "_upload_round"


@dataclass
class Preview:
    key: tuple[Any, ...]
    sheets: list[Sheet]
    infos: list[dict[str, object]]
    plan: Plan
    allowed: set[str] | None
    forbidden: list[str]
    names: pl.DataFrame | None = None  # player_key -> name as already shown
    diffs: list[dict[str, Any]] = field(default_factory=list)  # corrections: match + diff
    needs_reason: bool = False

    @property
    def signature(self) -> tuple[Any, ...]:
        return signature(self.plan)


def signature(p: Plan) -> tuple[Any, ...]:
    """What a plan would do, match by match: a preview and its commit must agree."""
    return tuple(sorted((o.event, o.round, o.table, o.status, o.version or 0) for o in p.outcomes))


def plan_events(p: Plan) -> set[str]:
    """Every event an upload touches: matches, new events, rows, and rows with problems."""
    evs = {o.event for o in p.outcomes} | set(p.new_events)
    if p.hands.height:
        evs |= set(p.hands.get_column("event").drop_nulls().to_list())
    if p.problems.height:
        evs |= set(p.problems.get_column("event").drop_nulls().to_list())
    return {e for e in evs if e}


def read_uploads(files: list[tuple[str, bytes]]) -> tuple[list[Sheet], list[dict[str, object]]]:
    """Like :func:`pipeline.load.read_all`, for uploaded bytes."""
    sheets: list[Sheet] = []
    infos: list[dict[str, object]] = []
    for name, blob in files:
        try:
            s = read_bytes(blob, name)
            sheets.append(s)
            infos.append({"file": s.file, "sha256": s.sha256, "rows": s.rows, "error": None})
        except FileRejected as exc:
            infos.append(
                {
                    "file": exc.file,
                    "sha256": hashlib.sha256(blob).hexdigest(),
                    "rows": 0,
                    "error": exc,
                }
            )
    return sheets, infos


def make_preview(
    con: duckdb.DuckDBPyConnection,
    files: list[tuple[str, bytes]],
    *,
    event: str | None,
    ruleset: str | None,
    reason: str | None,
    ident: auth.Identity,
) -> Preview:
    """Read and plan an upload on a (read-only) connection; nothing is written."""
    key = preview_key(files, event, ruleset, reason, stats.data_stamp(con))
    sheets, infos = read_uploads(files)
    p = plan(
        con,
        sheets,
        infos,
        event=event or None,
        ruleset=ruleset or None,
        reason=reason or None,
        by=ident.name,
    )
    allowed = auth.user_events(con, ident.name)
    forbidden = auth.forbidden_events(allowed, plan_events(p))
    pv = Preview(
        key=key,
        sheets=sheets,
        infos=infos,
        plan=p,
        allowed=allowed,
        forbidden=forbidden,
        names=stats.display_names(con, p.names),
    )
    needs = [o for o in p.outcomes if o.status == "rejected" and _needs_reason(p, o)]
    pv.needs_reason = bool(needs)
    shown = p
    if needs:
        # Plan once more with a stand-in reason, only to show what the correction changes.
        shown = plan(
            con,
            sheets,
            infos,
            event=event or None,
            ruleset=ruleset or None,
            reason=PREVIEW_REASON,
            by=ident.name,
        )
    for o in shown.outcomes:
        if o.status != "correction":
            continue
        match = (
            (pl.col("event") == o.event)
            & (pl.col("round") == o.round)
            & (pl.col("table") == o.table)
        )
        old = shown.previous.filter(match)
        pv.diffs.append(
            {
                "event": o.event,
                "round": o.round,
                "table": o.table,
                "version": int(old.get_column("version").max() or 0) if old.height else 0,
                "diff": stats.hand_diff(old, shown.hands.filter(match)),
            }
        )
    return pv


def _needs_reason(p: Plan, o: Any) -> bool:
    rows = p.problems.filter(
        (pl.col("code") == "correction_needs_reason")
        & (pl.col("event") == o.event)
        & (pl.col("round") == o.round)
        & (pl.col("table") == o.table)
    )
    return rows.height > 0


def preview_key(
    files: list[tuple[str, bytes]],
    event: str | None,
    ruleset: str | None,
    reason: str | None,
    stamp: Any,
) -> tuple[Any, ...]:
    return (
        tuple((n, hashlib.sha256(b).hexdigest()) for n, b in files),
        event or "",
        ruleset or "",
        reason or "",
        stamp,
    )


class PlanChanged(RuntimeError):
    """The database changed between the preview and the confirmation."""


def commit_upload(
    con: duckdb.DuckDBPyConnection,
    files: list[tuple[str, bytes]],
    *,
    event: str | None,
    ruleset: str | None,
    reason: str | None,
    ident: object,
    expected: tuple[Any, ...],
) -> Plan:
    """Re-plan on the write connection, re-check rights against the database, and commit.

    Raises :class:`pipeline.auth.NotAllowed` (nothing written) when the identity is not a
    live sign-in, the user is gone, or any event of the upload is not theirs;
    :class:`PlanChanged` when the plan differs from the previewed one.
    """
    good = auth.check_rights(con, ident, [])
    sheets, infos = read_uploads(files)
    p = plan(
        con,
        sheets,
        infos,
        event=event or None,
        ruleset=ruleset or None,
        reason=reason or None,
        by=good.name,
    )
    auth.check_rights(con, good, plan_events(p))
    if signature(p) != expected:
        raise PlanChanged("the plan changed since the preview")
    if not p.writes:
        return p
    rescore_stale(con)
    begin_ingest(con, p)
    return commit(con, p)


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
    limit_mb = max(1, int(settings.get("max_file_bytes")) // (1024 * 1024))  # type: ignore[arg-type]
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
            ["", "unhas", "pepet"],
            key="up_ruleset",
            format_func=lambda r: r or from_file,
        )
        reason = st.text_area(
            t("up.reason"), key="up_reason", help=t("up.reason.help"), max_chars=500, height=68
        ).strip()
        files = [(display_name(f.name), f.getvalue()) for f in uploaded]
        _preview_and_confirm(files, event, ruleset, reason, ident)
    _history()


def _templates() -> None:
    with st.expander(t("up.templates")):
        st.caption(t("up.templates.help"))
        cols = st.columns(4)
        i = 0
        for rs in ("unhas", "pepet"):
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
    cached: Preview | None = st.session_state.get(_PREVIEW_STATE)
    try:

        def build(con: duckdb.DuckDBPyConnection) -> Preview:
            key = preview_key(files, event, ruleset, reason, stats.data_stamp(con))
            if cached is not None and cached.key == key:
                return cached
            return make_preview(
                con, files, event=event, ruleset=ruleset, reason=reason, ident=ident
            )

        pv = data.uncached(build)
    except DatabaseBusy:
        st.warning(t("up.busy"))
        return
    st.session_state[_PREVIEW_STATE] = pv
    st.subheader(t("up.preview"))
    show_preview(pv)
    n_writes = (
        len(pv.plan.writes) + len(pv.diffs) * pv.needs_reason
    )  # corrections wait for their reason
    blocked = bool(pv.forbidden) or pv.needs_reason or not pv.plan.writes
    if pv.forbidden:
        st.error(t("up.forbidden", events=", ".join(pv.forbidden)))
    elif pv.needs_reason:
        st.warning(t("up.needs_reason"))
    elif not pv.plan.writes:
        st.info(t("up.nothing"))
    if st.button(t("up.confirm", n=n_writes), key="up_confirm", type="primary", disabled=blocked):
        _confirm(files, event, ruleset, reason, pv)


def _confirm(
    files: list[tuple[str, bytes]], event: str, ruleset: str, reason: str, pv: Preview
) -> None:
    try:
        p = data.write(
            commit_upload,
            files,
            event=event,
            ruleset=ruleset,
            reason=reason,
            ident=st.session_state.get(access.IDENTITY_KEY),
            expected=pv.signature,
        )
    except auth.NotAllowed as exc:
        st.error(t("up.not_allowed", message=translate(str(exc), language())))
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
    p = pv.plan
    for info in pv.infos:
        if info.get("error"):
            err: FileRejected = info["error"]  # type: ignore[assignment]
            st.error(t("up.file_rejected", file=err.file, message=translate(err.message, language())))
    errors = p.problems.filter(pl.col("severity") == ERROR).height
    warnings = p.problems.height - errors
    st.markdown(f"##### {t('up.problems', errors=errors, warnings=warnings)}")
    if p.problems.height:
        ui.table(
            translate_column(p.problems, language()).with_columns(
                pl.col("severity").replace(
                    {sev: t(f"up.severity.{sev}") for sev in (ERROR, WARNING)}
                )
            ),
            key="up_problems",
            columns=["line", "column", "message", "severity", "file", "code"],
            # a few as a plain table: whole sentences, wrapped, readable on a phone;
            # many in the scrolling grid
            static=p.problems.height <= STATIC_PROBLEMS,
        )
    else:
        st.caption(t("up.no_problems"))
    if p.outcomes:
        st.markdown(f"##### {t('up.matches')}")
        rows = pl.DataFrame(
            [
                {
                    "round": o.round,
                    "table": o.table,
                    "status": t(f"up.status.{o.status}"),
                    "message": translate(o.message, language()),
                    "hands": o.hands,
                    "version": o.version,
                    "event": o.event,
                    "file": o.file,
                }
                for o in p.outcomes
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
        ui.table(rows, key="up_outcomes", static=rows.height <= STATIC_PROBLEMS)
    if p.table_standings.height:
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
    for i, d in enumerate(pv.diffs):
        st.markdown(
            f"##### {t('up.diff', event=ui.md(d['event']), round=ui.md(d['round']), table=ui.md(d['table']))}"
        )
        st.caption(t("up.diff.caption", version=d["version"]))
        diff = d["diff"].with_columns(
            pl.col("field").replace(
                {stats.DROPPED: t("up.diff.dropped"), stats.ADDED: t("up.diff.added")}
            )
        )
        ui.table(diff, key=f"up_diff_{i}", columns=["hand", "field", "loaded", "new"])
    for s in pv.sheets:
        _rows(s, p.problems.filter(pl.col("file") == s.file))


def _rows(sheet: Sheet, problems: pl.DataFrame) -> None:
    """The file's rows with each problem marked on its line and column."""
    with st.expander(t("up.rows", file=sheet.file), expanded=problems.height > 0):
        frame = sheet.frame.drop(
            [c for c in ("_file", "extra") if c in sheet.frame.columns]
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
                css.iat[row_of[line], df.columns.get_loc(col)] = colour
        return css

    return frame.style.apply(paint, axis=None)


def _history() -> None:
    with st.expander(t("up.history")):
        res = data.read(batches.ingest_log)
        if ui.stale_note(res):
            return
        log = res.value.with_columns(
            pl.col("status").replace({s: t(f"up.log.{s}") for s in ("done", "rejected", "interrupted")})
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
