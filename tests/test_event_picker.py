"""Event pickers with many events: they list the newest ``picker_events`` and the event
shown; text typed into them finds any other event by part of its id or title."""

import shutil
from pathlib import Path

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Selectbox

from dashboard import batches, data
from dashboard.ui import md
from pipeline import events
from pipeline.standings import queries
from pipeline.store.db import connect
from tests.browser.support import APP, PEPET, UNHAS

OLD = ("piala-rektor-2019", "Piala Rektor 2019")
OLDER = ("piala-rektor-2018", "Piala Rektor 2018")


@pytest.fixture
def db(tmp_path, samples_db, monkeypatch) -> Path:
    """The two sample events and two titled events created before them (so older in the
    pickers' order), the pickers limited to the newest two."""
    path = tmp_path / "picker.duckdb"
    shutil.copyfile(samples_db, path)
    with connect(path) as con:
        for event, title in (OLDER, OLD):
            events.save(con, event, "unhas", title=title)
        # created before the samples: the pickers' order is newest created first
        con.execute(
            "UPDATE events SET created_at = TIMESTAMP '2019-01-01' + "
            "INTERVAL (CASE event WHEN ? THEN 1 ELSE 0 END) DAY WHERE event IN (?, ?)",
            [OLD[0], OLD[0], OLDER[0]],
        )
    monkeypatch.setenv("DOMINO_DB", str(path))
    monkeypatch.setenv("DOMINO_PICKER_EVENTS", "2")
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    data.clear()
    yield path
    data.clear()


def _choice(path: Path, wanted: str | None) -> dict:
    with connect(path, read_only=True) as con:
        return batches.event_choice(con, queries.events(con), wanted)


def test_the_picker_lists_the_newest_events_and_the_one_shown(db):
    with connect(db, read_only=True) as con:
        order = queries.events(con).get_column("event").to_list()
    assert order[-2:] == [OLD[0], OLDER[0]]
    newest = _choice(db, None)
    assert newest["events"] == order[:2] and "search" not in newest
    # an event outside the newest two, asked by its id (a link), is listed last: the
    # first is the picker's default, which the address leaves out
    old = _choice(db, OLDER[0])
    assert old["event"] == OLDER[0] and old["events"] == [*order[:2], OLDER[0]]
    assert "search" not in old


@pytest.mark.parametrize(
    ("typed", "found", "matches"),
    [
        ("rektor 2018", OLDER[0], 1),  # part of a title, another case
        ("PIALA-REKTOR-2018", OLDER[0], 1),  # an id in another case
        ("rektor", OLD[0], 2),  # two match: the newer
    ],
)
def test_typed_text_finds_the_newest_event_whose_id_or_title_holds_it(db, typed, found, matches):
    got = _choice(db, typed)
    assert got["event"] == found
    assert got["search"][:2] == (typed, matches)
    assert got["search"][2][0] == found and len(got["search"][2]) == matches
    assert got["events"][-1] == found


def test_an_event_named_whole_comes_before_newer_events_that_hold_its_name(db):
    # the address carries the picked event's title: "Piala Rektor 2019" must open that
    # event, not a newer "Piala Rektor 2019 (ulang)"
    with connect(db) as con:
        events.save(con, "ulang", "unhas", title="Piala Rektor 2019 (ulang)")
        assert events.find(con, "piala rektor 2019") == [OLD[0], "ulang"]
        assert events.find(con, "PIALA-REKTOR-2018") == [OLDER[0]]
        assert events.find(con, "rektor 2019") == ["ulang", OLD[0]]
    assert _choice(db, "Piala Rektor 2019")["event"] == OLD[0]


def test_text_that_matches_nothing_shows_the_default_event_and_says_so(db):
    default = _choice(db, None)["event"]
    got = _choice(db, "no such event 100%_")
    assert got["event"] == default and got["search"] == ("no such event 100%_", 0, [])


def test_all_events_are_listed_with_picker_events_0(db, monkeypatch):
    monkeypatch.setenv("DOMINO_PICKER_EVENTS", "0")
    assert set(_choice(db, None)["events"]) == {UNHAS, PEPET, OLD[0], OLDER[0]}


def _texts(at: AppTest) -> str:
    return "\n".join(str(e.value) for kind in ("caption", "warning") for e in getattr(at, kind))


def _open(page: str | None, typed: str) -> AppTest:
    """A page whose picker got ``typed``: the address carries what the picker sends (a
    shared link by title does the same). AppTest's ``set_value`` takes listed options
    only; the browser test types into the real picker."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["event"] = typed
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize(
    "page", [None, "page_scripts/event_stats.py", "page_scripts/crosstable.py"]
)
def test_text_typed_into_a_page_picker_opens_the_event_it_names(db, page):
    at = _open(page, "rektor")
    box = at.selectbox(key="event")
    assert box.value == OLD[0]
    # the newest two, then what the search found (the event shown first)
    assert box.options[2:] == ["Piala Rektor 2019", "Piala Rektor 2018"]
    assert "2 acara cocok dengan “rektor”" in _texts(at)
    at.run()  # the note and the matches stay while that event is shown
    assert "2 acara cocok" in _texts(at) and len(at.selectbox(key="event").options) == 4
    at.selectbox(key="event").set_value(OLDER[0]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="event").value == OLDER[0]
    assert "cocok" not in _texts(at)
    assert at.selectbox(key="event").options[2:] == ["Piala Rektor 2018"]
    assert "event_search" not in at.session_state  # that search is over
    # a link copied from the address bar: it carries the event's title
    at = _open(page, "Piala Rektor 2018")
    assert at.selectbox(key="event").value == OLDER[0] and "cocok" not in _texts(at)
    at = _open(page, "zzz none")
    assert "Tidak ada acara yang cocok dengan “zzz none”" in _texts(at)
    assert at.selectbox(key="event").value in (UNHAS, PEPET)


# --- the organiser page's picker: the events the account runs, found the same way ----------


def _organiser(db: Path, rights: list[str], typed: str | None = None) -> AppTest:
    from tests.test_organiser_page import signed_in

    at = signed_in(db, rights)
    if typed is not None:
        _type_into(at, "org_event", typed)
    return at


def _type_into(at: AppTest, key: str, text: str) -> None:
    """Run ``at`` as the browser does when ``text`` is typed into the picker ``key`` and
    Enter pressed: its state is the text itself (``accept_new_options``). AppTest's
    ``set_value`` takes listed options only."""
    picker = at.selectbox(key=key)
    listed = Selectbox._widget_state

    def typed(self: Selectbox) -> WidgetState:
        if self.id != picker.id:
            return listed.fget(self)  # type: ignore[attr-defined]
        return WidgetState(id=self.id, string_value=text)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(Selectbox, "_widget_state", property(typed))
        at.run()
    assert not at.exception, [e.value for e in at.exception]


def test_the_organiser_picker_lists_the_newest_events_an_admin_runs(db):
    with connect(db, read_only=True) as con:
        newest = [e.shown for e in events.all_events(con)[:2]]
    at = _organiser(db, ["*"])
    # the newest two, then the choice to create an event
    assert at.selectbox(key="org_event").options == [*newest, "+ New event"]


def test_text_typed_into_the_organiser_picker_opens_an_older_event(db):
    at = _organiser(db, ["*"], "rektor 2018")
    assert at.session_state["org_event"] == OLDER[0]
    assert OLDER[1] in at.selectbox(key="org_event").options
    assert next(w for w in at.text_input if w.label == "Title").value == OLDER[1]
    # two match: the newest is shown, and the page says how many
    at = _organiser(db, ["*"], "REKTOR")
    assert at.session_state["org_event"] == OLD[0]
    assert "2 events match" in _texts(at)
    assert {OLD[1], OLDER[1]} <= set(at.selectbox(key="org_event").options)


def test_the_organiser_picker_finds_only_events_the_account_runs(db):
    # a coordinator of the 2018 event: "rektor" names two events, one of them theirs
    at = _organiser(db, [OLDER[0]], "rektor")
    assert at.session_state["org_event"] == OLDER[0]
    assert "events match" not in _texts(at)
    # an event they do not run, typed by its id, is not opened
    at = _organiser(db, [OLDER[0]], UNHAS)
    assert at.session_state["org_event"] == OLDER[0]
    assert f"No event matches “{md(UNHAS)}”; showing {OLDER[1]}" in _texts(at)
