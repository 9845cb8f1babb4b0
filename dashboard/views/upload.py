"""Upload (coordinators and referees): preview first, then confirm.

Nothing is written until the coordinator confirms. Both steps call the one ingest
service: :func:`pipeline.ingest.preview` on a short read-only connection, then
:func:`pipeline.ingest.load` on a short write connection, which re-checks the
coordinator's rights against the database, refuses the whole upload if any of its events
is not theirs, and commits only when the plan is the one that was previewed.
"""

import hashlib
from typing import Any

import duckdb
import polars as pl
import streamlit as st

from dashboard import access, batches, data, ui
from dashboard.i18n import language, t
from dashboard.views import upload_withdraw
from dashboard.views.upload_preview import show_preview
from dashboard.views.upload_request import SENT_STATE, request_box
from pipeline import auth, events, ingest, league, rulesets
from pipeline.ingest import PlanChanged, Preview
from pipeline.ingest.read import HAND_LOG_UPLOAD_KINDS, SAID_ONLY_KINDS, display_name
from pipeline.ingest.withdraw import WITHDRAWN_FILE
from pipeline.standings import exports, stats
from pipeline.store.db import DatabaseBusy

_PREVIEW_STATE = "_upload_preview"
_DONE_STATE = "_upload_done"
_UNDATED_STATE = "_upload_undated"  # events the last save created without a date
_ELIGIBILITY_STATE = "_upload_eligibility"  # the last save's eligibility warnings
_ROUND_STATE = "_upload_round"
REASON_KEY = "up_reason"


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
    done = st.session_state.pop(_DONE_STATE, None) or st.session_state.pop(SENT_STATE, None)
    if done:
        st.success(done)
    ui.warning_list(
        t("wd.warnings"),
        st.session_state.pop(upload_withdraw.warnings_key(_DONE_STATE), None) or [],
    )
    undated = st.session_state.pop(_UNDATED_STATE, None)
    if undated:
        # the ids come from uploaded files: shown as text, never as markdown
        said = events.undated_warning([(ui.md(e), r, d) for e, r, d in undated], language())
        st.info(f"{said[:1].upper()}{said[1:]}. {t('up.undated.fix')}")
    _eligibility_warnings(st.session_state.pop(_ELIGIBILITY_STATE, None))
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
    limit_mb = ui.upload_mb()
    uploaded = ui.file_uploader(
        t("up.files"),
        HAND_LOG_UPLOAD_KINDS,
        limit_mb,
        SAID_ONLY_KINDS,
        accept_multiple_files=True,
        key=f"upload_files_{n}",
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
    upload_withdraw.render(ident, _DONE_STATE)
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

        def build(
            con: duckdb.DuckDBPyConnection,
        ) -> tuple[tuple[Any, ...], Preview, list[str]]:
            key = preview_key(files, event, ruleset, reason, stats.data_stamp(con))
            if cached is not None and cached[0] == key:
                pv = cached[1]
            else:
                pv = ingest.preview(
                    con, list(files), event=event, ruleset=ruleset, reason=reason, by=ident.name
                )
            # what the save will warn of, in the reader's language (asked on every run: a
            # few queries, and the language may have changed)
            return key, pv, league.eligibility_planned(con, pv.plan, lang=language())

        key, pv, ineligible = data.uncached(build)
    except DatabaseBusy:
        st.warning(t("up.busy"))
        return
    st.session_state[_PREVIEW_STATE] = (key, pv)
    st.subheader(t("up.preview"))
    for name, value in pv.plan.unused_choices.items():  # typed for rows that all say
        st.warning(t(f"up.{name}.unused", value=ui.md(value)))
    show_preview(pv)
    _eligibility_warnings(ineligible, before=True)
    if pv.diffs and access.role() == auth.COORDINATOR:
        # a coordinator's correction of a loaded match is a request for the jury (rule 24)
        request_box(files, event, ruleset, reason, pv, st.session_state.get(_ROUND_STATE, 0))
        return
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
    if p.new_events or p.written_events:
        # said once, after the save, from one read: the events it created without a date,
        # and the players the ruleset's eligibility does not admit (warned, never refused)
        try:
            undated, ineligible = data.uncached(
                lambda con: (
                    events.undated(con, list(p.new_events)) if p.new_events else [],
                    league.eligibility_of(con, p.written_events, lang=language()),
                )
            )
        except DatabaseBusy:
            undated, ineligible = [], []
        if undated:
            st.session_state[_UNDATED_STATE] = undated
        if ineligible:
            st.session_state[_ELIGIBILITY_STATE] = ineligible
    st.session_state[_DONE_STATE] = t(
        "up.saved", loaded=counts["new"] + counts["update"] + counts["correction"], **counts
    )
    st.session_state[_ROUND_STATE] = st.session_state.get(_ROUND_STATE, 0) + 1
    st.session_state.pop(_PREVIEW_STATE, None)
    st.rerun()


def _eligibility_warnings(lines: list[str] | None, *, before: bool = False) -> None:
    """Eligibility warnings, as ``domino ingest`` prints them: each names the player (text
    from the data, shown as text). The last save's, or ``before`` it, the preview's."""
    ui.warning_list(t("up.eligibility.preview") if before else t("up.eligibility"), lines or [])


def _history() -> None:
    with st.expander(t("up.history")):
        res = data.read(batches.ingest_log)
        if ui.stale_note(res):
            return
        log = res.value.with_columns(
            pl.col("status").replace(
                {s: t(f"up.log.{s}") for s in ("done", "rejected", "interrupted")}
            ),
            # a withdrawal or a deleted event has no file: what stands for one, in the
            # page's language
            pl.col("file")
            .replace({WITHDRAWN_FILE: t("up.log.withdrawn")})
            .str.replace(events.DELETED_FILE, t("up.log.deleted"), literal=True),
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
