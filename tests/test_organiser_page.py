"""The organiser page through streamlit.testing.v1.AppTest: sign-in, create an event,
upload a roster, draw a round with a seed, a redraw that needs a reason, the history;
a coordinator sees only their own events."""

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import data
from dashboard.i18n import t
from pipeline import auth
from pipeline.players import import_registry, read_registry
from pipeline.store.db import connect
from tests.browser.support import APP, PASSWORD, add_coordinator
from tests.test_dashboard import frames

TIMEOUT = 60
PAGE = "page_scripts/organiser.py"
#: events made directly, with only what a page needs
EVENTS = "INSERT INTO events (event, ruleset, params_hash, created_at, models, title) VALUES "
EIGHT = ["Ana", "Budi", "Cici", "Dedi", "Eko", "Fani", "Gita", "Hadi"]


@pytest.fixture(autouse=True)
def _fresh_state(monkeypatch):
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    data.clear()
    auth.LIMITER.reset(list(auth.LIMITER._fails))
    yield
    data.clear()


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    parts = [e.value for e in (*at.markdown, *at.caption, *at.title, *at.subheader)]
    parts += [str(e.value) for e in (*at.error, *at.success, *at.info, *at.warning)]
    return "\n".join(map(str, parts))


def signed_in(db_path, rights: list[str], lang: str = "en") -> AppTest:
    add_coordinator(db_path, "rina", rights)
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.session_state["lang"] = lang
    ok(at.run())
    ok(at.switch_page(PAGE).run())
    at.text_input(key="signin_name").input("rina")
    at.text_input(key="signin_password").input(PASSWORD)
    at.button[0].click()
    return ok(at.run())


def click(at: AppTest, label: str) -> AppTest:
    button = next(b for b in at.button if b.label == label)
    return ok(button.click().run())


def roster_saved(db_path, event: str, roster: str) -> AppTest:
    """The Indonesian page of a coordinator of every event, ``roster`` (as ``peserta.csv``)
    uploaded to ``event`` and its save button pressed."""
    at = signed_in(db_path, ["*"], lang="id")
    at.selectbox(key="org_event").select(event)
    ok(at.run())
    at.get("file_uploader")[0].set_value([("peserta.csv", roster.encode(), "text/csv")])
    ok(at.run())
    return click(at, t("org.roster.save", "id"))


def field(at: AppTest, label: str):
    return next(w for w in at.text_input if w.label == label)


def test_anonymous_visitors_get_the_sign_in_form(db_path):
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    ok(at.run())
    ok(at.switch_page(PAGE).run())
    assert at.text_input(key="signin_name")
    assert not any(w.key == "org_event" for w in at.selectbox)
    assert not any(b.label == t("org.save", "en") for b in at.button)


def test_create_an_event_upload_a_roster_and_draw(db_path, tmp_path):
    at = signed_in(db_path, ["*"])
    assert at.session_state["org_event"] == "\x00new"
    at.text_input(key="org_new_id").input("piala-2026")
    field(at, "Title").input("Piala Dies 2026")
    field(at, "Venue").input("Makassar")
    click(at, "Save event")
    assert "Event piala-2026 saved." in texts(at)
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT event, title, venue FROM events").fetchall() == [
            ("piala-2026", "Piala Dies 2026", "Makassar")
        ]
    # the picker shows the title, not the id
    assert at.session_state["org_event"] == "piala-2026"
    assert "Piala Dies 2026" in at.selectbox(key="org_event").options

    roster = "player,group\n" + "\n".join(f"{p}," for p in EIGHT) + "\n"
    # the uploader's own English words hidden, what it takes said in the page's language
    assert (
        "Drag files onto the box below or press Choose files · CSV, TXT, TSV, XLSX, XLSM or ODS"
        in texts(at)
    )
    assert any("stFileUploaderDropzoneInstructions" in str(e.body) for e in at.get("html"))
    at.get("file_uploader")[0].set_value([("peserta.csv", roster.encode(), "text/csv")])
    ok(at.run())
    click(at, "Use this roster")
    assert "8 entrant(s) saved." in texts(at)
    shown = next(df for df in frames(at) if "Player" in df.columns)
    assert list(shown.columns) == ["Player", "Group"]  # no reserve: no columns for one

    # a reserve and whom they play for (rule 23): the roster's record is shown
    with_reserve = (
        "player,group,ganti,persetujuan\n"
        + "".join(f"{p},,,\n" for p in EIGHT)
        + "Rudi,,Ana,lisan\n"
    )
    at.get("file_uploader")[0].set_value([("peserta.csv", with_reserve.encode(), "text/csv")])
    ok(at.run())
    click(at, "Use this roster")
    assert "9 entrant(s) saved." in texts(at)
    shown = next(df for df in frames(at) if "Player" in df.columns)
    assert list(shown.columns) == ["Player", "Group", "Replaces", "Consent"]
    assert shown[shown["Player"] == "Rudi"][["Replaces", "Consent"]].values.tolist() == [
        ["Ana", "lisan"]
    ]
    at.get("file_uploader")[0].set_value([("peserta.csv", roster.encode(), "text/csv")])
    ok(at.run())
    click(at, "Use this roster")
    assert "8 entrant(s) saved." in texts(at)

    click(at, "Draw this round")  # no round named: said, not a button that does nothing
    assert "A round of event piala-2026 needs a label to be drawn" in texts(at)
    field(at, "Round to draw").input("R1")
    field(at, "Seed (leave empty for a random one)").input("5")
    click(at, "Draw this round")
    assert "Round R1 drawn with seed 5." in texts(at)
    assert "Round R1 · seed 5" in texts(at)
    seated = next(df for df in frames(at) if {"Player", "Table"} <= set(df.columns))
    assert sorted(seated["Player"]) == sorted(EIGHT)
    assert set(seated["Table"]) == {1, 2}
    # the round's sheets to print and to fill in, beside its draw
    offered = {b.proto.label: b.proto.help for b in at.get("download_button")}
    assert set(offered) == {
        "⬇ PDF to print",
        "⬇ Seating list (PDF)",
        "⬇ Sheets to fill in (.zip)",
    }, offered
    assert all(offered.values())

    # a redraw needs a reason: refused in a sentence, then done with one
    field(at, "Round to draw").input("R1")
    field(at, "Seed (leave empty for a random one)").input("6")
    click(at, "Draw this round")
    assert "a redraw needs a reason" in texts(at)
    field(at, "Reason for a redraw (needed when the round is already drawn)").input("Hadi late")
    click(at, "Draw this round")
    assert "Round R1 · seed 6" in texts(at)
    history = next(df for df in frames(at) if "Reason" in df.columns)
    assert list(history["Seed"]) == [6, 5]
    assert list(history["Reason"]) == ["Hadi late", ""]
    # where the event stands: R1's current draw (seed 6), two tables, nothing loaded yet
    assert "Where the event stands" in texts(at)
    status = next(df for df in frames(at) if "Tie-break owed" in df.columns)
    assert status.to_dict("records") == [
        {
            "Round": "R1",
            "Seed": 6,
            "Tables drawn": 2,
            "Loaded": 0,
            "Complete": 0,
            "Tie-break owed": 0,
        }
    ]


def test_a_coordinator_runs_only_their_own_events(db_path):
    with connect(db_path) as con:
        con.execute(
            EVENTS + "('mine', 'unhas', 'x', now(), 'unhas', 'My cup'), "
            "('theirs', 'unhas', 'x', now(), 'unhas', 'Their cup')"
        )
    at = signed_in(db_path, ["mine"])
    assert at.selectbox(key="org_event").options == ["My cup"]
    # no "new event" for a coordinator of single events
    assert not any(w.key == "org_new_id" for w in at.text_input)


def test_a_played_round_offers_its_results_for_the_notice_board(db_path, tmp_path):
    from pipeline.ingest import ingest
    from tests.test_bracket import EV, HEADER, TIED

    log = tmp_path / "r1.csv"
    log.write_text("\n".join([HEADER, *TIED]) + "\n")
    with connect(db_path) as con:
        assert ingest(con, [log]).exit_code == 0
    at = signed_in(db_path, [EV])
    assert at.session_state["org_event"] == EV
    assert at.selectbox(key="org_results_round").options == ["R1"]
    offered = {b.proto.label: b.proto.help for b in at.get("download_button")}
    assert offered.get("⬇ Results for the notice board (PDF)"), offered
    # what the button hands over (made on the click): the round's notice
    from dashboard.views import organiser

    assert data.uncached(organiser._results_pdf, EV, "R1").startswith(b"%PDF")


def test_a_draw_that_no_longer_follows_the_results_is_said_under_the_rounds(db_path, tmp_path):
    """A correction of R1 after R2 was drawn: the page's round-by-round table said nothing
    of it; a warning names the table, whom the draw seats and who qualifies now."""
    from pipeline.ingest import ingest
    from tests.rules_helpers import write_log
    from tests.test_events_draw_cli import first_round_played, play

    first, _ = first_round_played(db_path, tmp_path)
    a, b, c, d = (p for p in first if p)
    fixed = write_log(tmp_path, play(first, winners=[c] * 6 + [d] * 4), "fix.csv")
    with connect(db_path) as con:
        assert ingest(con, [fixed], reason="lembar salah baca").exit_code == 0
    at = signed_in(db_path, ["ev"], lang="id")
    boxes = [w.value for w in at.warning if w.value.startswith("Undian tidak lagi sesuai hasil:")]
    assert len(boxes) == 1, texts(at)
    assert (
        f"babak R2 sudah diundi dengan {', '.join(sorted([a, b]))} dari babak R1 meja 1, tetapi "
        f"yang lolos dari meja itu sekarang {', '.join(sorted([c, d]))}"
    ) in " ".join(boxes[0].split())


def test_an_event_made_by_mistake_is_deleted_and_one_with_a_roster_is_not(db_path, tmp_path):
    """A user of every event deletes a mistyped event (a reason and a tick); an event
    holding a roster stays, the engine's sentence shown; a coordinator of single events
    is not offered it."""
    with connect(db_path) as con:
        con.execute(
            EVENTS + "('piala-dis', 'unhas', 'x', now(), 'unhas', NULL), "
            "('piala-dies', 'unhas', 'x', now() - INTERVAL 1 DAY, 'unhas', 'Piala Dies')"
        )
        con.execute(
            "INSERT INTO entrants (event, player_key, player, source, added_at) "
            "VALUES ('piala-dies', 'ana', 'Ana', 'roster.csv', now())"
        )
    at = signed_in(db_path, ["*"])

    def delete(event: str, reason: str) -> None:
        at.selectbox(key="org_event").select(event)
        ok(at.run())
        assert at.button(key="org_delete").disabled, "a reason and a tick first"
        at.text_input(key=f"org_delete_reason_{event}").input(reason)
        at.checkbox(key=f"org_delete_sure_{event}").check()
        ok(at.run())
        ok(at.button(key="org_delete").click().run())

    delete("piala-dis", "salah ketik")
    assert "Event piala-dis deleted." in texts(at)
    with connect(db_path, read_only=True) as con:
        assert [e for (e,) in con.execute("SELECT event FROM events").fetchall()] == ["piala-dies"]
        assert con.execute("SELECT loaded_by, reason FROM ingests").fetchall() == [
            ("rina", "salah ketik")
        ]
    delete("piala-dies", "x")
    assert "Event piala-dies has a roster: only an event with nothing prepared" in texts(at)
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM events").fetchall()[0][0] == 1


def test_a_coordinator_of_single_events_is_not_offered_a_deletion(db_path):
    with connect(db_path) as con:
        con.execute(EVENTS + "('mine', 'unhas', 'x', now(), 'unhas', 'My cup')")
    at = signed_in(db_path, ["mine"])
    assert "org_delete" not in [b.key for b in at.button]


def test_a_refused_roster_or_round_order_is_said_in_the_page_language(db_path):
    """The engine's refusals (a roster listing a player twice, a round order naming a
    round twice) reach an Indonesian page in Indonesian, naming the file and line; nothing
    is stored."""
    with connect(db_path) as con:
        con.execute(EVENTS + "('piala', 'unhas', 'x', now(), 'unhas', 'Piala')")
    at = roster_saved(db_path, "piala", "pemain,grup\nAna,\nBudi,\nana,\n")
    assert (
        "peserta.csv, baris 4, kolom pemain (player): ana sudah tercantum di baris 2; "
        "cantumkan setiap peserta sekali saja"
    ) in texts(at), texts(at)
    at.text_input(key="org_rounds_piala").input("R1, R2, r2 , R2")
    ok(at.run())
    click(at, t("org.rounds.save", "id"))
    assert "Babak 'R2' tercantum dua kali" in texts(at), texts(at)
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM entrants").fetchall()[0][0] == 0
        assert con.execute("SELECT count(*) FROM event_rounds").fetchall()[0][0] == 0


def test_a_draw_made_by_mistake_is_cancelled_on_the_page(db_path):
    """The organiser cancels a round drawn in the wrong event (a reason and a tick): its
    seating goes, the history keeps it with who cancelled it and why."""
    from pipeline import draws
    from tests.draw_fixture import create_event

    with connect(db_path) as con:
        create_event(con, "piala", "unhas", title="Piala")
        con.executemany(
            "INSERT INTO entrants (event, player_key, player, source, added_at) "
            "VALUES ('piala', ?, ?, 'roster.csv', now())",
            [[p.lower(), p] for p in EIGHT],
        )
        draws.draw_round(con, "piala", "R1", seed=5)
    at = signed_in(db_path, ["*"])
    at.selectbox(key="org_event").select("piala")
    ok(at.run())
    assert "Round R1 · seed 5" in texts(at)
    assert at.button(key="org_cancel").disabled, "a reason and a tick first"
    at.text_input(key="org_cancel_reason_piala_R1").input("wrong event picked")
    at.checkbox(key="org_cancel_sure_piala_R1").check()
    ok(at.run())
    ok(at.button(key="org_cancel").click().run())
    said = texts(at)
    assert "The draw of round R1 is cancelled." in said and "No round is drawn yet." in said
    history = next(df for df in frames(at) if "Cancelled" in df.columns)
    assert history["Cancelled"].to_list()[0].endswith(" · rina: wrong event picked")
    assert history["Current"].isna().all(), "no draw of the round is current"
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM seatings").fetchall()[0][0] == 0
    # the roster set on the wrong event goes too, and then the event itself
    at.checkbox(key="org_roster_sure_piala").check()
    ok(at.run())
    ok(at.button(key="org_roster_clear").click().run())
    assert "8 entrant(s) removed." in texts(at)
    at.text_input(key="org_delete_reason_piala").input("made by mistake")
    at.checkbox(key="org_delete_sure_piala").check()
    ok(at.run())
    ok(at.button(key="org_delete").click().run())
    assert "Event piala deleted." in texts(at)
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM events").fetchall()[0][0] == 0
        assert con.execute("SELECT count(*) FROM draws_t").fetchall()[0][0] == 0


def test_an_event_is_created_in_a_league_and_one_with_results_keeps_its_own(db_path, tmp_path):
    """A pepet event made on this page went into the league ``default`` whatever league's
    registry the organiser had imported, so its groups (KG) stayed empty. The league is
    now chosen from those known; an event with results keeps its league here (the move
    is ``domino league set``, which shows what its standings would change)."""
    from pipeline.players import import_registry, read_registry
    from tests.rules_helpers import load
    from tests.test_league import session

    reg = tmp_path / "players.csv"
    reg.write_text("player,group\nP11,KG A\n", "utf-8")
    with connect(db_path) as c:
        import_registry(c, read_registry(reg), "mks")
        load(c, tmp_path, session("kg1"), name="kg1.csv")
    at = signed_in(db_path, ["*"])
    ok(at.selectbox(key="org_event").set_value("\x00new").run())
    at.text_input(key="org_new_id").input("kg2")
    league = next(w for w in at.selectbox if w.label == "League")
    assert (league.options, league.value, league.disabled) == (["default", "mks"], "default", False)
    league.set_value("mks")
    click(at, "Save event")
    assert "Event kg2 saved." in texts(at)
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT league FROM events WHERE event = 'kg2'").fetchall() == [("mks",)]
    at.selectbox(key="org_event").set_value("kg1")
    ok(at.run())
    league = next(w for w in at.selectbox if w.label == "League")
    assert (league.value, league.disabled) == ("default", True)
    click(at, "Save event")  # its other details still save
    assert "Event kg1 saved." in texts(at)


def test_a_saved_roster_says_who_is_not_eligible_or_in_another_group(db_path, tmp_path):
    """Before: the page saved a pepet roster and said only "4 entrant(s) saved", where
    ``domino event roster`` warned of an entrant under the rulebook's age; and neither
    said that the roster put a registered player in another group than the registry, whose
    group the group (KG) standings count. Both are said now, in the page's language; the
    entrants are saved all the same."""
    reg = tmp_path / "reg.csv"
    reg.write_text(
        "pemain,kelompok,tanggal_lahir\nAna,KG A,2015-01-01\nBudi,KG A,\nCici,KG B,\nDedi,KG B,\n"
    )
    with connect(db_path) as con:
        import_registry(con, read_registry(reg))
        con.execute(EVENTS + "('liga', 'pepet', 'x', now(), 'pepet', 'Liga')")
        con.execute("UPDATE events SET event_date = DATE '2026-12-01' WHERE event = 'liga'")
    at = roster_saved(db_path, "liga", "Nama,Kelompok\nAna,\nBudi,KG B\nCici,\nDedi,kg b\n")
    # said in the roster's section, under the button pressed, not at the page's top
    section = next(e for e in at.expander if e.label == t("org.roster", "id"))
    assert [m.value for m in section.success] == ["4 peserta disimpan."]
    said = [str(w.value).replace("\\", "") for w in section.warning]  # shown as text, escaped
    assert said == [
        "Peringatan tentang daftar peserta (semua peserta tetap disimpan):\n\n"
        "- Ana berusia 11 pada 2026-12-01 (lahir 2015-01-01); acara liga menerima pemain "
        "berusia 17 tahun ke atas.\n"
        "- Budi ada di daftar peserta liga untuk KG B, tetapi registri liga default mencatatnya "
        "di KG A pada 2026-12-01: klasemen kelompok (KG) menghitungnya untuk KG A; kelompok di "
        "daftar peserta hanya menentukan siapa yang dipisahkan undian"
    ], said
    with connect(db_path, read_only=True) as con:
        assert con.execute('SELECT player, "group" FROM entrants ORDER BY player').fetchall() == [
            ("Ana", None),  # the registry's, read when asked
            ("Budi", "KG B"),
            ("Cici", None),
            ("Dedi", "KG B"),  # kg b: the registry's KG B
        ]


def test_the_current_draw_opens_on_the_session_to_play(db_path):
    """Three sessions drawn at once: *Current draw* opened on S3 (the last drawn) and
    listed the sessions newest first."""
    from tests.draw_fixture_entry import insert_draw

    tables = {"1": dict(zip("abcd", EIGHT[:4], strict=True))}
    with connect(db_path) as con:
        for label in ("S1", "S2", "S3"):
            insert_draw(con, "liga", label, tables, ruleset="pepet")
    at = signed_in(db_path, ["liga"])
    shown = at.selectbox(key="org_show_round")
    assert (shown.value, shown.options) == ("S1", ["S1", "S2", "S3"])


def test_a_new_event_beside_the_demos_sample_events_is_warned_of(db_path):
    """A coordinator trying the product on `make demo`'s dashboard creates their league's
    event there: the form says the demo's events are in this database and where a league's
    results belong; an existing event's form does not."""
    from pipeline.demo import load_samples
    from tests.browser.support import ROOT

    load_samples(db_path, ROOT / "data" / "samples")
    at = signed_in(db_path, ["*"], lang="id")
    at.selectbox(key="org_event").select("\x00new")
    ok(at.run())
    warned = "Basis data ini juga berisi acara contoh demo (pepet-liga-makassar, unhas-dies-lxiv)"
    assert warned in texts(at)
    assert "`domino serve --db data/liga.duckdb`" in texts(at)
    at.selectbox(key="org_event").select("unhas-dies-lxiv")
    ok(at.run())
    assert warned not in texts(at)
