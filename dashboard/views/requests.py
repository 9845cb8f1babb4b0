"""Change requests (RULES.md, pepet rule 24): what coordinators asked, and the jury's call.

Only the signed-in see this page, and only the requests whose events are all theirs
(their own requests too; an admin sees all): :func:`pipeline.change_requests.visible`.
A request shows who asked, when and why, the photo or scan of the paper record (an image
with ``st.image``, a PDF as a download — never rendered as a page), and what approving
would change, planned now by the ingest service: every player's points before and after
and the hand-by-hand diff. A jury member of its events approves (the correction is
loaded) or rejects it, with a reason.
"""

import polars as pl
import streamlit as st

from dashboard import access, data, ui
from dashboard.i18n import language, t
from dashboard.views.upload_preview import show_diffs, show_warnings
from pipeline import auth
from pipeline import change_requests as cr
from pipeline.store.db import DatabaseBusy

_DONE = "_requests_done"
_SELECT = "_requests_select"


def render() -> None:
    st.title(t("rq.title"))
    ident = access.current()
    if ident is None:
        access.sign_in_form("signin.why.requests")
        return
    st.caption(t("rq.intro"))
    done = st.session_state.pop(_DONE, None)
    if done:
        st.success(done)
    try:
        listed = data.uncached(lambda con: cr.visible(con, ident.name))
    except DatabaseBusy:
        st.warning(t("busy.nodata"))
        return
    if listed.height == 0:
        st.info(t("rq.none"))
        return
    # the jury's decisions on their own requests they have not seen come first, then
    # what waits, then the rest, newest first
    listed = listed.sort(~pl.col("news"), pl.col("status") != cr.PENDING, -pl.col("request_id"))
    labels = {r["request_id"]: _label(r) for r in listed.iter_rows(named=True)}
    if _SELECT in st.session_state:
        # a request just decided or cancelled, set again before its picker is drawn: the
        # browser then shows its label with the new status (a label that changes under
        # the same value is not redrawn otherwise)
        st.session_state["rq_pick"] = st.session_state.pop(_SELECT)
    rid = st.selectbox(t("rq.pick"), list(labels), format_func=lambda i: labels[i], key="rq_pick")
    if rid is not None:
        _one(ident, int(rid))


def _label(r: dict) -> str:
    label = t(
        "rq.label",
        id=r["request_id"],
        status=t(f"rq.status.{r['status']}"),
        kind=t(f"rq.kind.{r['kind']}"),
        events=r["events"],
        by=r["requested_by"],
    )
    return t("rq.label.new", label=label) if r["news"] else label


def _seen(ident: auth.Identity, rid: int) -> None:
    """The coordinator who asked has the jury's decision on screen: it is no longer news
    (the sidebar's count and the picker's mark go with the rerun)."""
    try:
        data.write(lambda con: cr.seen(con, ident.name, rid))
    except DatabaseBusy:
        return  # still news; the next look marks it
    st.session_state[_SELECT] = rid  # the picker's label changes under the same value
    st.rerun()


def _one(ident: auth.Identity, rid: int) -> None:
    ran, got = ui.attempt(
        lambda: data.uncached(lambda con: _load(con, ident, rid)),
        refused=(cr.RequestRefused,),
        busy="busy.nodata",
    )
    if not ran:
        return
    req, att, pv, role = got
    st.markdown(
        t(
            "rq.asked",
            by=ui.md(req.requested_by),
            at=f"{req.requested_at:%Y-%m-%d %H:%M}",
            reason=ui.md(req.reason),
        )
    )
    if req.kind == cr.WITHDRAWAL:
        m = req.matches.row(0, named=True)
        st.markdown(
            t(
                # what approving would do, while it may still be approved
                "rq.withdrawal" if req.status == cr.PENDING else "rq.withdrawal.asked",
                event=ui.md(data.title(m["event"])),
                round=ui.md(m["round"]),
                table=ui.md(m["table"]),
            )
        )
    if req.decided_by and req.decided_at:
        st.markdown(
            t(
                "rq.decided" if req.decision_reason else "rq.decided.bare",
                status=t(f"rq.status.{req.status}"),
                by=ui.md(req.decided_by),
                at=f"{req.decided_at:%Y-%m-%d %H:%M}",
                reason=ui.md(req.decision_reason or ""),
            )
        )
        if req.unseen and ident.name == req.requested_by:
            _seen(ident, rid)
    ui.table(
        req.matches.with_columns(data.titled()),  # the event as every screen names it
        key=f"rq_matches_{rid}",
        static=True,
        labels={"base_version": t("rq.col.base"), "applied_version": t("rq.col.applied")},
    )
    if att is not None:
        st.markdown(f"##### {t('rq.photo')}")
        if att.is_image:
            try:
                st.image(att.content, caption=att.name, width="content")
            except Exception:  # checked when attached; kept as a download if it won't show
                st.caption(att.name)
        st.download_button(
            t("rq.photo.download", name=att.name),
            att.content,
            file_name=att.name,
            mime=att.content_type,
            key=f"rq_photo_{rid}",
            on_click="ignore",
        )
    if req.status != cr.PENDING:
        return
    if pv is not None:
        st.caption(t("rq.review"))
        show_diffs(pv)
        show_warnings(pv)
    if ident.name == req.requested_by:  # the coordinator who asked may take it back
        _cancel(rid)
    if role not in (auth.JURY, auth.ADMIN):
        st.info(t("rq.only_jury"))
        return
    _decide(rid)


def _load(con, ident: auth.Identity, rid: int):
    req = cr.get(con, rid, ident.name)
    pv = cr.review(con, req) if req.status == cr.PENDING else None
    return req, cr.attachment(con, rid), pv, auth.user_role(con, ident.name)


def _cancel(rid: int) -> None:
    if not st.button(t("rq.cancel"), key="rq_cancel", help=t("rq.cancel.help")):
        return
    ran, _ = ui.attempt(
        lambda: data.write(cr.cancel, st.session_state.get(access.IDENTITY_KEY), rid),
        refused=(cr.RequestRefused, auth.NotAllowed),
        busy="up.busy",
    )
    if ran:
        st.session_state[_DONE] = t("rq.cancelled", id=rid)
        st.session_state[_SELECT] = rid
        data.clear()
        st.rerun()


def _decide(rid: int) -> None:
    with st.container(border=True, key="rq_decide"):
        reason = st.text_area(t("rq.decision"), key=f"rq_reason_{rid}", max_chars=500, height=68)
        c1, c2 = st.columns(2)
        ok = bool((reason or "").strip())
        approve = c1.button(
            t("rq.approve"), key="rq_approve", type="primary", disabled=not ok, width="stretch"
        )
        reject = c2.button(t("rq.reject"), key="rq_reject", disabled=not ok, width="stretch")
    if not (approve or reject):
        return
    who = st.session_state.get(access.IDENTITY_KEY)
    try:
        if approve:
            data.write(cr.approve, who, rid, reason)
        else:
            data.write(cr.reject, who, rid, reason)
    except (cr.RequestRefused, auth.NotAllowed) as exc:
        st.error(t("rq.refused", message=exc.render(language())))
        return
    except DatabaseBusy:
        st.warning(t("up.busy"))
        return
    st.session_state[_DONE] = t("rq.approved" if approve else "rq.rejected", id=rid)
    st.session_state[_SELECT] = rid
    data.clear()
    st.rerun()
