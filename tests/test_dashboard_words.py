"""What every page says, read as a visitor reads it: no Python or database word (``None``,
``nan``, ``null``, ``True``, ``False``) and no event id where the event has a title, in
either language, signed out and signed in as an admin."""

import re

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.shell import PAGES
from pipeline import events
from pipeline.store.db import connect
from tests.browser.support import APP, PASSWORD, PEPET, UNHAS, add_coordinator
from tests.test_dashboard import _sign_in, frames, texts

TIMEOUT = 60
TITLES = {UNHAS: "Dies Natalis LXIV", PEPET: "Liga Gaple Makassar"}
#: words of the code, not of the page; an event's id (its title is what screens show)
LEAKS = re.compile(
    r"\b(None|nan|NaN|null|True|False|Traceback)\b|"
    + "|".join(rf"(?<![\w/-]){re.escape(e)}(?![\w-])" for e in TITLES)
)
#: an address inside a link or an image (HTML or Markdown) is for the browser, not the reader
ADDRESS = re.compile(r'(href|src)="[^"]*"|\]\([^)]*\)')
ADDRESSES = [("page_scripts/leaderboard.py", {})] + [
    (f"page_scripts/{script}", {}) for _path, script, _key, _icon, _who in PAGES
]
# the tabs a page draws only when open, and a player's page with a second player
MORE = [
    ("page_scripts/leaderboard.py", {"event": PEPET}),
    ("page_scripts/event_stats.py", {"event": UNHAS, "tab": "Poin"}),
    ("page_scripts/event_stats.py", {"event": PEPET, "tab": "Babak & meja"}),
    ("page_scripts/player.py", {"player": "PLAYER", "tab": "Kocokan"}),
    ("page_scripts/player.py", {"player": "PLAYER", "tab": "Pertandingan"}),
    ("page_scripts/player.py", {"player": "PLAYER", "vs": "OTHER"}),
    ("page_scripts/player.py", {"player": "PLAYER", "event": UNHAS}),
]


@pytest.fixture
def titled(loaded):
    with connect(loaded) as con:
        for event, title in TITLES.items():
            ruleset = con.execute("SELECT ruleset FROM events WHERE event = ?", [event]).fetchall()
            events.save(con, event, ruleset[0][0], title=title)
        pair = con.execute(
            "SELECT a.player, b.player FROM table_standings a "
            'JOIN table_standings b USING (event, round, "table") '
            "WHERE a.event = ? AND a.player < b.player ORDER BY 1, 2 LIMIT 1",
            [UNHAS],
        ).fetchall()[0]
    add_coordinator(loaded, "boss", [], role="admin")
    return pair


def _said(at: AppTest) -> str:
    """The page's words, the choices its pickers offer, and table cells (an empty cell,
    NaN in pandas, shows empty; a name's link, ``player?player=…&event=…``, shows as the
    name)."""
    choices = " ".join(str(o) for box in at.selectbox for o in box.options)
    cells = " ".join(
        str(v)
        for f in frames(at)
        for v in f.to_numpy().ravel()
        if not pd.isna(v) and not str(v).startswith("player?")
    )
    return ADDRESS.sub("", texts(at)).replace("\\", "") + " " + choices + " " + cells


SIGNED_IN = {f"page_scripts/{script}" for _path, script, _key, _icon, who in PAGES if who != "all"}
SIGNED_IN |= {"page_scripts/upload.py", "page_scripts/entry.py", "page_scripts/registry.py"}
SIGNED_IN |= {"page_scripts/organiser.py"}


@pytest.mark.parametrize("lang", ["id", "en"])
def test_no_page_speaks_the_codes_words(titled, lang):
    """Each address opened fresh, as a shared link is (signed in first where the page
    asks for it)."""
    player, other = titled
    heard = {}
    for page, params in ADDRESSES + MORE:
        if params:  # a shared link to the page itself: its address read at the first run
            at = AppTest.from_file(str(APP.parent / page), default_timeout=TIMEOUT)
            at.session_state["lang"] = lang
            for k, v in params.items():
                at.query_params[k] = {"PLAYER": player, "OTHER": other}.get(v, v)
            at.run()
        else:
            at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
            at.session_state["lang"] = lang
            at.run()
            if page in SIGNED_IN:
                at.switch_page("page_scripts/upload.py").run()
                _sign_in(at, "boss", PASSWORD)
            at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        found = sorted({m.group(0) for m in LEAKS.finditer(_said(at))})
        if found:
            heard[f"{page} {params}"] = found
    assert heard == {}


@pytest.mark.parametrize("lang", ["id", "en"])
def test_every_seat_category_is_written_as_its_neighbours_are(lang):
    """Event statistics and the player page list the categories side by side: three were
    in small letters ("di atas pemenang", "tertangkap (kandang)", "lainnya") beside
    "Menang biasa" and "Apollo"."""
    from dashboard.i18n import CATEGORIES, category

    small = [code for code in CATEGORIES if not category(code, lang)[:1].isupper()]
    assert small == [], small
