"""The app around the pages: page config, navigation, the sidebar (language, sign-in)."""

from pathlib import Path

import streamlit as st

from dashboard import access, ui
from dashboard.i18n import LANG_KEY, LANGUAGES, default_language, t

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
)


def preload() -> None:
    """Import every page's module (and so Streamlit's charts, plotly, polars, DuckDB)
    before the server starts: ``python -m dashboard`` (what ``domino serve`` runs) calls
    it so the first visitor does not wait for the imports."""
    import importlib

    for name in PAGE_MODULES:
        importlib.import_module(name)


def pages() -> list:
    """The pages, titled in the session's language. Upload is listed for everyone: it
    shows the sign-in form until a coordinator signs in."""
    return [
        st.Page(
            HERE / "page_scripts" / "leaderboard.py",
            title=t("nav.leaderboard"),
            icon=":material/leaderboard:",
            default=True,
        ),
        st.Page(
            HERE / "page_scripts" / "player.py",
            title=t("nav.player"),
            icon=":material/person:",
            url_path="player",
        ),
        st.Page(
            HERE / "page_scripts" / "ratings.py",
            title=t("nav.ratings"),
            icon=":material/trending_up:",
            url_path="ratings",
        ),
        st.Page(
            HERE / "page_scripts" / "crosstable.py",
            title=t("nav.crosstable"),
            icon=":material/grid_on:",
            url_path="crosstable",
        ),
        st.Page(
            HERE / "page_scripts" / "event_stats.py",
            title=t("nav.stats"),
            icon=":material/bar_chart:",
            url_path="stats",
        ),
        st.Page(
            HERE / "page_scripts" / "upload.py",
            title=t("nav.upload"),
            icon=":material/upload_file:",
            url_path="upload",
        ),
        st.Page(
            HERE / "page_scripts" / "registry.py",
            title=t("nav.registry"),
            icon=":material/group:",
            url_path="registry",
        ),
        st.Page(
            HERE / "page_scripts" / "organiser.py",
            title=t("nav.organiser"),
            icon=":material/event:",
            url_path="organiser",
        ),
        st.Page(
            HERE / "page_scripts" / "entry.py",
            title=t("nav.entry"),
            icon=":material/edit_note:",
            url_path="entry",
        ),
        st.Page(
            HERE / "page_scripts" / "bracket.py",
            title=t("nav.bracket"),
            icon=":material/account_tree:",
            url_path="bracket",
        ),
    ]


def sidebar() -> None:
    with st.sidebar:
        if LANG_KEY not in st.session_state:
            st.session_state[LANG_KEY] = default_language()
        st.segmented_control(
            t("side.language"),
            options=list(LANGUAGES),
            format_func=lambda code: {"id": "ID · Indonesia", "en": "EN · English"}[code],
            key=LANG_KEY,
            required=True,
        )
        ident = access.current()
        if ident is not None:
            st.markdown(t("side.signed_in", name=ui.md(ident.name)))
            if st.button(t("side.sign_out"), key="sign_out"):
                access.sign_out()
                st.rerun()
        else:
            st.caption(t("side.public"))


def main() -> None:
    st.set_page_config(
        page_title=t("app.title"), page_icon="🁫", layout="wide", initial_sidebar_state="auto"
    )
    nav = st.navigation(pages())
    sidebar()
    nav.run()
