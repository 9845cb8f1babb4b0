"""The hand entry page, the road to the final and the leaderboard's round picker through
streamlit.testing.v1.AppTest."""

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import data
from pipeline import auth
from pipeline.ingest import ingest
from pipeline.league import advance
from pipeline.standings import queries
from pipeline.store.db import connect
from tests.browser.support import APP, PASSWORD, PEPET, UNHAS, add_coordinator
from tests.draw_fixture_entry import create_event, insert_draw
from tests.test_backup import FULL, disk_full
from tests.test_bracket import EV as CUP
from tests.test_bracket import HEADER, R1, R2, TIEBREAK, TIED
from tests.test_dashboard import frames, texts

TIMEOUT = 60
EV, RND, TBL = "cup-2026", "R1", "1"
START = {"a": "Ani", "b": "Budi", "c": "Cici", "d": "Dedi"}


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    data.clear()
    auth.LIMITER.reset(list(auth.LIMITER._fails))
    yield
    data.clear()


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def page(name: str, **state) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for k, v in state.items():
        at.session_state[k] = v
    run(at)
    at.switch_page(f"page_scripts/{name}.py")
    return run(at)


def signed_in(
    db: Path, events: list[str], *, lang: str = "en", name: str = "wasit", role: str = "coordinator"
) -> AppTest:
    add_coordinator(db, name, events, role=role)
    at = page("entry", lang=lang)
    at.text_input(key="signin_name").input(name)
    at.text_input(key="signin_password").input(PASSWORD)
    at.button[0].click()
    return run(at)


@pytest.fixture
def drawn(db_path) -> Path:
    with connect(db_path) as con:
        insert_draw(con, EV, RND, {TBL: START})
    return db_path


def pick_table(at: AppTest) -> AppTest:
    at.pills(key="en_round").set_value(RND)
    run(at)
    at.pills(key="en_table").set_value(TBL)
    return run(at)


def enter(at: AppTest, ending: str, who: str, hi: int, lo: int) -> AppTest:
    form = [w for w in at.segmented_control if w.key and w.key.startswith("en_ending_")]
    form[0].set_value(ending)
    run(at)
    [w for w in at.segmented_control if w.key.startswith("en_who_")][0].set_value(who)
    [w for w in at.segmented_control if w.key.startswith("en_hi_")][0].set_value(hi)
    [w for w in at.segmented_control if w.key.startswith("en_lo_")][0].set_value(lo)
    run(at)
    [b for b in at.button if b.key and b.key.startswith("en_save_")][0].click()
    return run(at)


def test_anonymous_visitors_get_the_sign_in_form(drawn):
    at = page("entry")
    assert "Masuk koordinator" in texts(at)
    assert not [w for w in at.segmented_control if (w.key or "").startswith("en_")]


def test_a_referee_enters_a_hand_and_the_table_moves(drawn):
    at = pick_table(signed_in(drawn, [EV]))
    shown = texts(at)
    assert "**A** · Ani" in shown
    assert "Chairs from this round's draw; the chair swaps (hands 3 and 7) are applied." in shown
    enter(at, "biasa", "a", 1, 2)
    assert "Hand 1 saved (version 1)." in texts(at)
    with connect(drawn, read_only=True) as con:
        s = queries.standings(con, EV, "table", RND, TBL)
    # biasa by chair A (Ani): +2; the player above A is D (Dedi): -1
    got = dict(zip(s["player"].to_list(), s["points"].to_list(), strict=True))
    assert got == {"Ani": 2, "Dedi": -1, "Budi": 0, "Cici": 0}
    # the confirmation stays through a rerun of the page (a cookie written, a language
    # switched), until the next hand is saved
    run(at)
    assert "Hand 1 saved (version 1)." in texts(at)
    enter(at, "biasa", "a", 1, 2)
    shown = texts(at)
    assert "Hand 2 saved (version 2)." in shown and "Hand 1 saved" not in shown
    # hand 1 saved again as it is: said so, not "saved" (nothing was written)
    at.pills(key=[w.key for w in at.pills if w.key.startswith("en_hand_")][0]).set_value(1)
    run(at)
    enter(at, "biasa", "a", 1, 2)
    shown = texts(at)
    assert "Hand 1 is as saved (version 2): nothing changed." in shown, shown


def test_a_pepet_session_says_nobody_changes_chairs(db_path):
    """Before: a pepet session's table said "the chair swaps (hands 3 and 7) are applied",
    an unhas rule; in a league session nobody changes chairs (rule 22)."""
    with connect(db_path) as con:
        insert_draw(con, "liga", "S1", {"1": START}, ruleset="pepet")
    at = signed_in(db_path, ["liga"])
    at.pills(key="en_round").set_value("S1")
    run(at)
    at.pills(key="en_table").set_value("1")
    shown = texts(run(at))
    assert "Chairs from the draw; nobody changes chairs until this table is over." in shown
    assert "swaps" not in shown and "**C** · Cici" in shown


def test_a_reserve_is_seated_for_an_absent_member_before_the_first_hand(db_path, tmp_path):
    """A drawn session's table was seated from the draw alone: a reserve playing for an
    absent member (rule 23) could not be entered at the table at all. (In Indonesian: the
    ending's labels are the page language's, and the test's own lookup of them is too.)"""
    from pipeline.players import import_registry, read_registry

    registry = tmp_path / "players.csv"
    registry.write_text(
        "player,group,reserve_for\nAni,KG A,\nBudi,KG A,\nCici,KG B,\nDedi,KG B,\nRudi,,KG A\n",
        "utf-8",
    )
    with connect(db_path) as con:
        insert_draw(con, "liga", "S1", {"1": START}, ruleset="pepet")
        import_registry(con, read_registry(registry), "default")
    at = signed_in(db_path, ["liga"], lang="id")
    at.pills(key="en_round").set_value("S1")
    run(at)
    at.pills(key="en_table").set_value("1")
    run(at)
    absent = at.selectbox(key="en_absent_liga_S1_1")
    assert absent.options == ["Semua hadir", "A · Ani", "B · Budi"]  # KG B has no reserve
    absent.set_value("b")
    run(at)
    assert at.selectbox(key="en_absent_liga_S1_1_who").options == ["Rudi"]
    assert "**B** · Rudi · _cadangan untuk Budi_" in texts(at)
    [w for w in at.segmented_control if w.key.startswith("en_ending_")][0].set_value("out")
    run(at)
    [w for w in at.segmented_control if w.key.startswith("en_who_")][0].set_value("a")
    for c in "bcd":
        [w for w in at.number_input if w.key.startswith(f"en_pips_{c}_")][0].set_value(5)
    run(at)
    [b for b in at.button if b.key and b.key.startswith("en_save_")][0].click()
    shown = texts(run(at))
    assert "Kocokan 1 tersimpan (versi 1)." in shown, shown
    # the next hand seats the reserve from the first; the choice is no longer offered
    assert "**B** · Rudi · _cadangan untuk Budi_" in shown
    assert not [s for s in at.selectbox if (s.key or "").startswith("en_absent_")]
    with connect(db_path, read_only=True) as con:
        got = queries.standings(con, "liga", "table", "S1", "1")["player"].to_list()
    assert sorted(got) == ["Ani", "Cici", "Dedi", "Rudi"]


def _fill(at: AppTest, ending: str, who: str, hi: int, lo: int) -> AppTest:
    [w for w in at.segmented_control if w.key.startswith("en_ending_")][0].set_value(ending)
    run(at)
    [w for w in at.segmented_control if w.key.startswith("en_who_")][0].set_value(who)
    [w for w in at.segmented_control if w.key.startswith("en_hi_")][0].set_value(hi)
    [w for w in at.segmented_control if w.key.startswith("en_lo_")][0].set_value(lo)
    return run(at)


def _press_save(at: AppTest) -> AppTest:
    [b for b in at.button if b.key and b.key.startswith("en_save_")][0].click()
    return run(at)


def _other_device_saves(db: Path, hand: int, who: str) -> None:
    from pipeline import entry

    with connect(db) as con:
        ident = auth.sign_in(con, "wasit", PASSWORD).identity
        now = entry.state(con, EV, RND, TBL)
        h = entry.Hand(hand=hand, ending="biasa", ended_by=who, last_tile="1-2")
        assert entry.save_hand(con, EV, RND, TBL, h, now.seats(hand), identity=ident).ok


def _stored(db: Path) -> list[tuple]:
    with connect(db, read_only=True) as con:
        return con.execute(
            'SELECT h.hand, h.ended_by FROM hands h JOIN match_versions v USING (event, round, "table", version) '
            "WHERE v.current ORDER BY h.hand"
        ).fetchall()


def test_a_save_pressed_after_another_device_saved_the_table_says_so(drawn):
    """The phone fills hand 2 while a tablet saves hand 2 of the same table. The press
    found the page moved on to hand 3 and did nothing, under "Hand 1 saved": the referee
    took their hand 2 for saved. Now the page says another device saved the table and
    nothing of theirs was; a second press, after looking, saves."""
    at = pick_table(signed_in(drawn, [EV]))
    enter(at, "biasa", "a", 1, 2)
    _fill(at, "biasa", "b", 1, 2)  # the phone's hand 2, not saved yet
    _other_device_saves(drawn, 2, "c")
    _press_save(at)
    shown = texts(at)
    assert "Another device saved table 1 of round R1 since this page read it" in shown
    assert "Hand 1 saved" not in shown and "Hand 2 saved" not in shown
    assert _stored(drawn) == [(1, "A"), (2, "C")]  # the tablet's hand 2 stands
    # the page now shows the table as stored: hand 3 next, and a press saves again
    _fill(at, "biasa", "b", 1, 2)
    _press_save(at)
    assert "Hand 3 saved (version 3)." in texts(at)
    assert _stored(drawn) == [(1, "A"), (2, "C"), (3, "B")]


def test_a_fix_of_another_hand_elsewhere_is_said_and_the_form_kept_for_a_second_press(drawn):
    """The tablet changed hand 1 while the phone filled hand 2: the phone's press is
    held once (the table moved on), with its entries kept; pressed again, it saves."""
    at = pick_table(signed_in(drawn, [EV]))
    enter(at, "biasa", "a", 1, 2)
    _fill(at, "biasa", "b", 1, 2)
    _other_device_saves(drawn, 1, "d")  # a fix of hand 1 from the tablet
    _press_save(at)
    assert "Another device saved table 1 of round R1" in texts(at)
    assert _stored(drawn) == [(1, "D")]
    _press_save(at)
    assert "Hand 2 saved (version 3)." in texts(at)
    assert _stored(drawn) == [(1, "D"), (2, "B")]


@pytest.mark.skipif(not FULL.exists(), reason="needs Linux's /dev/full")
def test_a_hand_saved_on_a_full_disk_is_said_so_and_saved_by_a_second_press(drawn):
    """The server's disk is full as the referee saves hand 1: the page says so in its
    language, names the disk, and keeps the hand as entered (not "an error it does not
    know … reload the page", which would have thrown it away); once there is room, a
    second press saves it."""
    at = pick_table(signed_in(drawn, [EV], lang="id"))
    _fill(at, "biasa", "a", 1, 2)
    with disk_full(drawn):
        _press_save(at)
        shown = texts(at)
        assert f"Tidak ada ruang tersisa di disk tempat {drawn}, jadi penyimpanan berhenti" in shown
        assert "isian Anda masih ada di halaman ini" in shown and "tidak dikenal" not in shown
        assert _stored(drawn) == []
    _press_save(at)
    assert "Kocokan 1 tersimpan (versi 1)." in texts(at)
    assert _stored(drawn) == [(1, "A")]


def test_a_correction_at_the_table_says_what_it_was_warned_of(db_path, tmp_path):
    """A hand of a played R1 table corrected on this page after R2 was drawn from it, so
    that others qualify: saved, and the page said "saved" alone; the warning every other
    way of loading gives (the next round's draw seats others) is said under it."""
    from tests.test_events_draw_cli import first_round_played

    first, _ = first_round_played(db_path, tmp_path)
    at = signed_in(db_path, [], name="juri", role="admin")
    at.pills(key="en_event").set_value("ev")
    run(at)
    at.pills(key="en_round").set_value("R1")
    run(at)
    at.pills(key="en_table").set_value("1")
    run(at)
    # play() gave the first seated player 6 hands and the second 4: the third player
    # (chair C in hands 1-2) now wins hands 1-6 and qualifies
    a, b, c, d = (p for p in first if p)
    for n in range(1, 7):
        hands = [w.key for w in at.pills if w.key.startswith("en_hand_")]
        at.pills(key=hands[0]).set_value(n)
        run(at)
        chair = "c" if n <= 2 else "a"  # hands 3-6 swap A and C
        [w for w in at.segmented_control if w.key.startswith("en_ending_")][0].set_value("biasa")
        run(at)
        [w for w in at.segmented_control if w.key.startswith("en_who_")][0].set_value(chair)
        [w for w in at.segmented_control if w.key.startswith("en_hi_")][0].set_value(1)
        [w for w in at.segmented_control if w.key.startswith("en_lo_")][0].set_value(2)
        [w for w in at.text_input if w.key.startswith("en_reason_")][0].input("salah tulis")
        run(at)
        [b_ for b_ in at.button if b_.key and b_.key.startswith("en_save_")][0].click()
        run(at)
        assert f"Hand {n} saved" in texts(at), texts(at)
    warned = [w.value for w in at.warning if w.value.startswith("Saved, with a warning:")]
    assert len(warned) == 1 and "round R2 is drawn with" in warned[0], texts(at)
    assert f"but this version qualifies {', '.join(sorted([b, c]))}" in " ".join(warned[0].split())


def test_a_withdrawn_table_says_who_withdrew_it_and_takes_no_hand(drawn):
    from pipeline.ingest.withdraw import withdraw

    at = pick_table(signed_in(drawn, [EV]))
    enter(at, "biasa", "a", 1, 2)
    assert "Hand 1 saved (version 1)." in texts(at)
    with connect(drawn) as con:
        withdraw(con, EV, RND, TBL, reason="wrong table", by="juri")
    run(at)
    assert "Table 1 of round R1 was withdrawn by juri (wrong table)" in texts(at)
    assert not [b for b in at.button if (b.key or "").startswith("en_save_")]
    assert not [w for w in at.segmented_control if (w.key or "").startswith("en_ending_")]


def test_a_bad_hand_names_its_hand_and_column_in_the_page_language(drawn):
    at = pick_table(signed_in(drawn, [EV]))
    at.session_state["lang"] = "id"
    run(at)
    enter(at, "apollo", "a", 5, 3)  # apollo needs a double
    errors = " ".join(e.value for e in at.error)
    assert "Kocokan 1 tidak disimpan" in errors and "kartu terakhir" in errors
    with connect(drawn, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM match_versions").fetchall() == [(0,)]


def test_a_referee_without_rights_sees_no_event(drawn):
    at = signed_in(drawn, ["another-event"])
    assert "no event you may enter results for" in texts(at)


def test_the_round_being_drawn_is_preselected_once(drawn):
    """A referee opens the page on the round just drawn (one tap less at the table); the
    next one once its tables are under way; a cleared or another pick stays as chosen."""
    at = signed_in(drawn, [EV])
    assert at.pills(key="en_round").value == RND
    assert at.pills(key="en_table").options == [TBL, "…"]
    at.pills(key="en_table").set_value(TBL)
    assert "**A** · Ani" in texts(run(at))
    enter(at, "biasa", "a", 1, 2)  # R1's one table under way
    with connect(drawn) as con:
        insert_draw(con, EV, "R2", {"1": START, "2": START})
    at = signed_in(drawn, [EV])
    assert at.pills(key="en_round").value == "R2"
    assert at.pills(key="en_table").options == ["1", "2", "…"]
    at.pills(key="en_round").set_value(None)
    run(at)
    assert at.pills(key="en_round").value is None and "Pick the round" in texts(at)
    at.pills(key="en_round").set_value(RND)
    assert run(at).pills(key="en_round").value == RND


def test_the_session_to_play_is_preselected_when_sessions_are_drawn_in_advance(db_path):
    """Three sessions drawn before play: the page preselected S3 (the last drawn), and a
    referee at S1's table saw S3's seating for it."""
    with connect(db_path) as con:
        for label in ("S1", "S2", "S3"):
            insert_draw(con, "liga", label, {"1": START}, ruleset="pepet")
    at = signed_in(db_path, ["liga"])
    assert at.pills(key="en_round").value == "S1"


def test_no_round_is_preselected_without_a_draw(db_path, samples_db):
    shutil.copyfile(samples_db, db_path)
    at = signed_in(db_path, [UNHAS])
    assert at.pills(key="en_round").value is None and "Pick the round" in texts(at)


def test_the_road_to_the_final_shows_every_round(db_path, samples_db):
    shutil.copyfile(samples_db, db_path)
    at = page("bracket", lang="en", event=UNHAS)
    shown = texts(at)
    for rnd in ("Round R1", "Round R2", "Round R3"):
        assert rnd in shown
    cells = [str(v) for f in frames(at) for v in f.to_numpy().ravel()]
    # "→ R2 table 1" is kept on one line (no-break spaces), "through" may wrap before it
    assert any("through → R2 table 1" in c.replace("\u00a0", " ") for c in cells)
    assert any(c == "out" for c in cells)
    assert "No final table yet" in shown
    at = page("bracket", lang="id", event=PEPET)
    cells = [str(v) for f in frames(at) for v in f.to_numpy().ravel()]
    assert "Juara 1" in cells and "Juara 4" in cells
    assert "Sementara" not in texts(at)
    # a session of the league still to come: the podium is the standings so far
    from pipeline.rounds import set_order
    from pipeline.standings.queries import rounds

    with connect(db_path) as con:
        set_order(con, PEPET, [*rounds(con, PEPET), "S9"])
    data.clear()
    at = page("bracket", lang="en", event=PEPET)
    assert "Provisional: the standings so far; the event is not over." in texts(at)


def test_the_road_shows_tie_break_points_where_a_tie_break_was_played(db_path, tmp_path):
    """Two players level on points, one through: the card of that table says why."""
    f = tmp_path / "cup.csv"
    f.write_text("\n".join([HEADER, *TIED, TIEBREAK, *R1[10:]]) + "\n")
    with connect(db_path) as con:
        assert ingest(con, [f]).exit_code == 0
    at = page("bracket", lang="en", event=CUP)
    cards = {tuple(df["Player"]): df for df in frames(at) if "Player" in df.columns}
    tied = cards[("Budi", "Cici", "Ani", "Dedi")]
    assert list(tied.columns) == ["#", "Player", "Points", "TB", "→"]
    assert "TB: points of the tie-break hands that broke a tie at that table." in texts(at)
    assert tied.set_index("Player")["TB"].to_dict() == {
        "Budi": 0,
        "Cici": 2,
        "Ani": -1,
        "Dedi": 0,
    }
    plain = cards[("Eka", "Gita", "Fajar", "Hadi")]  # table 2: no tie, no such column
    assert list(plain.columns) == ["#", "Player", "Points", "→"]


@pytest.mark.parametrize(
    ("lang", "why"),
    [
        ("en", "No final table yet: round R1 has one table so far, and no draw says it stays"),
        ("id", "Belum ada meja final: babak R1 baru punya satu meja, dan belum ada undian"),
    ],
)
def test_the_road_says_why_one_table_so_far_is_not_yet_the_final(db_path, tmp_path, lang, why):
    """A first round with one table loaded, no draw and no roster: more tables may come.
    The podium's place says so, not that the round has more than one table."""
    f = tmp_path / "cup.csv"
    f.write_text("\n".join([HEADER, *TIED]) + "\n")
    with connect(db_path) as con:
        assert ingest(con, [f]).exit_code == 0
    shown = texts(page("bracket", lang=lang, event=CUP))
    assert why in shown
    assert "more than one table" not in shown and "lebih dari satu meja" not in shown


@pytest.mark.parametrize(
    ("lang", "place", "legend", "rule"),
    [
        ("id", "◆ Peringkat 1", "Final: peringkat di meja final", "2 teratas dari MINI-CUP → PROV"),
        (
            "en",
            "◆ Place 1",
            "The final: the places at the final table",
            "the top 2 of MINI-CUP → PROV",
        ),
    ],
)
def test_the_final_table_shows_places_and_the_next_level_in_the_pages_language(
    db_path, tmp_path, lang, place, legend, rule
):
    """Nobody goes on from the final: its places, not "qualified"; and the line on who
    advanced to the next level is in the page's language, the events by their titles."""
    f = tmp_path / "cup.csv"
    f.write_text("\n".join([HEADER, *R1, *R2]) + "\n")
    with connect(db_path) as con:
        assert ingest(con, [f]).exit_code == 0
        con.execute("UPDATE events SET title = 'MINI-CUP' WHERE event = ?", [CUP])
        create_event(con, "prov", "unhas")
        advance(con, [CUP], "prov", 2)
    at = page("leaderboard", lang=lang, event=CUP)
    at.switch_page("page_scripts/leaderboard.py")
    run(at)
    shown = texts(at).replace("\\", "")  # Markdown's escapes of the titles' "-"
    assert legend in shown and rule in shown, shown
    cards = [str(e.body) for e in at.get("html") if "lb-table" in str(e.body)]
    assert place in cards[0] and ("✓ lolos" not in cards[0] and "✓ qualified" not in cards[0])


@pytest.mark.parametrize("key", ["event", "br_event"])
def test_a_link_to_the_road_names_its_event_as_every_event_page_does(db_path, samples_db, key):
    """``/bracket?event=E`` as on the leaderboard, statistics and cross-table; a link made
    when the page's own parameter was ``br_event`` opens the same event."""
    shutil.copyfile(samples_db, db_path)
    for event, final in ((PEPET, "Juara 1"), (UNHAS, "No final table yet")):
        at = AppTest.from_file(str(APP.parent / "page_scripts/bracket.py"), default_timeout=TIMEOUT)
        at.session_state["lang"] = "en"
        at.query_params[key] = event
        run(at)
        assert at.selectbox(key="event").value == event
        cells = [str(v) for f in frames(at) for v in f.to_numpy().ravel()]
        assert final in cells or final in texts(at)
        assert "br_event" not in at.query_params


def test_the_round_picker_applies_to_the_event_tab(db_path, samples_db):
    shutil.copyfile(samples_db, db_path)
    at = page("leaderboard", lang="en", event=UNHAS, round="R1")
    at.switch_page("page_scripts/leaderboard.py")
    run(at)
    shown = texts(at)
    assert "Event standings after round R1" in shown
    # after R1 nobody has reached R2: every row of the event table says R1
    event_tables = [df for df in frames(at) if "Round reached" in list(df.columns)]
    assert event_tables and set(event_tables[0]["Round reached"].astype(str)) == {"R1"}
