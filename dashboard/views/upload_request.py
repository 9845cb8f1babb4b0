"""The upload page's request box: a coordinator's correction of a loaded match is sent
to the jury as a change request (RULES.md, pepet rule 24) instead of being saved.

The reason, the optional photo or scan of the paper record, and the send button; the
engine (:mod:`pipeline.change_requests`, :mod:`pipeline.attachments`) checks the file's
content, keeps the upload byte for byte, and refuses what it must in one sentence.
"""

import streamlit as st

from dashboard import access, data, ui
from dashboard.i18n import language, t
from pipeline import attachments, auth, settings
from pipeline import change_requests as cr
from pipeline.ingest import PlanChanged, Preview
from pipeline.store.db import DatabaseBusy

REASON_KEY = "up_reason"
SENT_STATE = "_upload_request_sent"


def request_box(
    files: list[tuple[str, bytes]], event: str, ruleset: str, reason: str, pv: Preview, n: int
) -> None:
    """For a coordinator whose upload corrects loaded matches: ask instead of save."""
    with st.container(border=True, key="up_request_box"):
        st.warning(t("rq.ask.note"))
        st.text_area(t("rq.ask.reason"), key=REASON_KEY, max_chars=500, height=68)
        photo = ui.file_uploader(
            t("rq.ask.photo"),
            attachments.EXTENSIONS,
            max(1, _limit() // (1024 * 1024)),
            key=f"up_photo_{n}",
        )
        blocked = bool(pv.forbidden) or not reason
        if st.button(t("rq.ask.send"), key="up_request", type="primary", disabled=blocked):
            _send(files, event, ruleset, reason, pv, photo)


def _limit() -> int:
    return int(settings.get("attachment_max_bytes"))


def _send(files, event, ruleset, reason, pv: Preview, photo) -> None:
    try:
        att = attachments.check(photo.name, photo.getvalue()) if photo is not None else None
        rid = data.write(
            cr.create,
            st.session_state.get(access.IDENTITY_KEY),
            list(files),
            reason=reason,
            event=event or None,
            ruleset=ruleset or None,
            attachment=att,
            expected=pv.signature,
        )
    except (attachments.AttachmentRefused, cr.RequestRefused, auth.NotAllowed) as exc:
        st.error(t("rq.refused", message=exc.render(language())))
        return
    except PlanChanged:
        st.warning(t("up.changed_meanwhile"))
        return
    except DatabaseBusy:
        st.warning(t("up.busy"))
        return
    st.session_state[SENT_STATE] = t("rq.ask.sent", id=rid)
    # a fresh uploader, as after a saved upload (dashboard/views/upload.py)
    st.session_state["_upload_round"] = st.session_state.get("_upload_round", 0) + 1
    st.session_state.pop("_upload_preview", None)
    st.rerun()
