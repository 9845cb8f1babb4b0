"""The app around the pages: page config, navigation, the sidebar (language, sign-in)."""

from pathlib import Path

import streamlit as st

from dashboard import access, data, failures, ui
from dashboard.i18n import LANG_KEY, LANGUAGES, default_language, t
from pipeline import settings
from pipeline.store.db import DatabaseBusy

HERE = Path(__file__).resolve().parent
PAGE_MODULES = (
    "dashboard.views.leaderboard",
    "dashboard.views.player",
    "dashboard.views.ratings",
    "dashboard.views.crosstable",
    "dashboard.views.event_stats",
    "dashboard.views.upload",
    "dashboard.views.registry",
    "dashboard.views.organiser",
    "dashboard.views.entry",
    "dashboard.views.bracket",
    "dashboard.views.requests",
    "dashboard.views.admin",
)
#: the browser tab's icon: a domino tile, sent inline (a character Streamlit does not know
#: as an emoji, like the tile 🁫, becomes an address the browser fetches: a web page)
ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<rect x="7" y="1" width="18" height="30" rx="4" fill="#fffdf5" stroke="#222" stroke-width="2"/>'
    '<line x1="8" y1="16" x2="24" y2="16" stroke="#222" stroke-width="2"/>'
    '<g fill="#222"><circle cx="12.5" cy="6.5" r="2.2"/><circle cx="19.5" cy="11" r="2.2"/>'
    '<circle cx="12.5" cy="20.5" r="2.2"/><circle cx="16" cy="23.5" r="2.2"/>'
    '<circle cx="19.5" cy="26.5" r="2.2"/></g></svg>'
)
LANG_COOKIE = "domino_lang"
_LANG_SAVED = "_domino_lang_saved"  # the language the browser's cookie holds
_LANG_NOT_THERE = "_domino_lang_not_there"  # a ?lang= that is no language here


def preload() -> None:
    """Import every page's module (and so Streamlit's charts, Altair, polars, DuckDB)
    before the server starts: ``python -m dashboard`` (what ``domino serve`` runs) calls
    it so the first visitor does not wait for the imports."""
    import importlib

    for name in PAGE_MODULES:
        importlib.import_module(name)


#: every page but the leaderboard (the root page): its address, script, title's key, icon
#: and who sees it listed (everyone; the signed-in; admins)
PAGES = (
    ("bracket", "bracket.py", "nav.bracket", ":material/account_tree:", "all"),
    ("player", "player.py", "nav.player", ":material/person:", "all"),
    ("ratings", "ratings.py", "nav.ratings", ":material/trending_up:", "all"),
    ("crosstable", "crosstable.py", "nav.crosstable", ":material/grid_on:", "all"),
    ("stats", "event_stats.py", "nav.stats", ":material/bar_chart:", "all"),
    ("upload", "upload.py", "nav.upload", ":material/upload_file:", "all"),
    ("entry", "entry.py", "nav.entry", ":material/edit_note:", "all"),
    ("registry", "registry.py", "nav.registry", ":material/group:", "all"),
    ("organiser", "organiser.py", "nav.organiser", ":material/event:", "all"),
    ("requests", "requests.py", "nav.requests", ":material/fact_check:", "signed-in"),
    ("admin", "admin.py", "nav.admin", ":material/admin_panel_settings:", "admin"),
)
URL_PATHS = [p[0] for p in PAGES]


def pages(role: str | None = None) -> list:
    """The pages, titled in the session's language. Upload is listed for everyone: it
    shows the sign-in form until a coordinator signs in. Change requests are listed for
    the signed-in, the admin page for admins only; for the others they are still there,
    unlisted (``visibility="hidden"``), so that a link to them (a juror sent to the change
    requests) opens the page's own sign-in form or refusal in the page's language, not
    Streamlit's "page not found" (each page checks the rights itself)."""
    root = st.Page(
        HERE / "page_scripts" / "leaderboard.py",
        title=t("nav.leaderboard"),
        icon=":material/leaderboard:",
        default=True,
    )
    return [root] + [
        st.Page(
            HERE / "page_scripts" / script,
            title=t(key),
            icon=icon,
            url_path=path,
            visibility="visible" if listed(who, role) else "hidden",
        )
        for path, script, key, icon, who in PAGES
    ]


def listed(who: str, role: str | None) -> bool:
    """Whether a page for ``who`` (see :data:`PAGES`) is in the navigation of ``role``."""
    return (
        who == "all" or (who == "signed-in" and bool(role)) or (who == "admin" and role == "admin")
    )


def _start_language() -> None:
    """The language a new session starts in: ``?lang=`` in the address, else the cookie
    an earlier choice left, else the ``language`` setting."""
    if LANG_KEY in st.session_state:
        return
    try:
        saved = st.context.cookies.get(LANG_COOKIE)
    except Exception:  # outside a browser session (tests)
        saved = None
    asked = st.query_params.get("lang")
    lang = next((v for v in (asked, saved) if v in LANGUAGES), default_language())
    st.session_state[LANG_KEY] = lang
    st.session_state[_LANG_SAVED] = saved
    if asked not in (None, "", *LANGUAGES):
        st.session_state[_LANG_NOT_THERE] = asked  # said once the page is drawn


def _language_note() -> None:
    """Say, once, that the link's ``?lang=`` is no language of the dashboard, and which
    one the page is in (``?lang=fr`` started in the default without a word)."""
    asked = st.session_state.pop(_LANG_NOT_THERE, None)
    if asked is not None:
        lang = st.session_state[LANG_KEY]
        codes = [f"{code} ({name})" for code, name in LANGUAGES.items()]
        ui.not_there_note(t("side.language"), asked, codes, LANGUAGES[lang])


def _save_language() -> None:
    """Keep the chosen language in a cookie, so a reload or a new tab starts in it."""
    lang = st.session_state.get(LANG_KEY)
    if lang in LANGUAGES and st.session_state.get(_LANG_SAVED) != lang:
        access.set_cookie(LANG_COOKIE, str(lang), 365 * 24 * 3600)
        st.session_state[_LANG_SAVED] = lang


def sidebar() -> None:
    with st.sidebar:
        st.segmented_control(
            t("side.language"),
            options=list(LANGUAGES),
            format_func=lambda code: {"id": "ID · Indonesia", "en": "EN · English"}[code],
            key=LANG_KEY,
            required=True,
        )
        ident = access.current()
        if ident is not None:
            role = access.role() or "coordinator"
            st.markdown(t("side.signed_in", name=ui.md(ident.name)) + f" · {t(f'role.{role}')}")
            _waiting(ident.name)
            if st.button(t("side.sign_out"), key="sign_out"):
                access.sign_out()
                st.rerun()
        else:
            st.caption(t("side.public"))
        with st.container(height=1, border=False, key="cookie_box"):
            access.write_pending_cookie()
            _save_language()


def _waiting(name: str) -> None:
    """Links to the change requests when some wait: for the jury, those they may decide;
    for a coordinator, their own, and the jury's decisions on them they have not seen
    (read on each run: a request does not move the data stamp the cached reads follow)."""
    from pipeline import change_requests

    try:
        now = data.uncached(change_requests.waiting, name)
    except DatabaseBusy:
        return
    said = [
        t("side.waiting.decide", n=now.decide)
        if now.decide
        else t("side.waiting.mine", n=now.mine)
        if now.mine
        else None,
        t("side.waiting.decided", n=now.decided) if now.decided else None,
    ]
    for label in filter(None, said):
        st.page_link(
            HERE / "page_scripts" / "requests.py", label=label, icon=":material/fact_check:"
        )


def _not_found_note(navigation: list) -> None:
    """Say, once, that the address the visitor came by named no page (the server sent it
    here: :class:`dashboard.server.PageAddress`), and which of ``navigation`` are listed."""
    from dashboard.server import NOT_FOUND_KEY

    asked = st.query_params.get(NOT_FOUND_KEY)
    if asked is None:
        return
    del st.query_params[NOT_FOUND_KEY]
    listed_pages = [p for p in navigation if p.visibility == "visible"]
    st.warning(
        t(
            "app.not_found",
            page=ui.md(asked),
            shown=t("nav.leaderboard"),
            pages=", ".join(f"/{p.url_path}" for p in listed_pages if p.url_path),
        )
    )


def main() -> None:
    _start_language()
    st.set_page_config(
        page_title=t("app.title"), page_icon=ICON, layout="wide", initial_sidebar_state="auto"
    )
    with failures.guarded("the app"):
        settings.check()  # a setting of the wrong kind: its one sentence in place of the pages
        access.current()  # a lasting sign-in resumes before the pages are listed
        navigation = pages(access.role())
        nav = st.navigation(navigation)
        with failures.guarded("the sidebar"):
            sidebar()
        _not_found_note(navigation)
        _language_note()
        with failures.guarded(f"the page {nav.url_path or 'leaderboard'!r}"):
            nav.run()
