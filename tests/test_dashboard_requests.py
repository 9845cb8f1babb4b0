"""The change-request, admin and sign-in pages through AppTest: a coordinator's correction
becomes a request, the jury approves or rejects it, the admin page is for admins only,
the sign-in form keeps the name after a wrong password, and a lasting sign-in resumes."""

from datetime import datetime, timedelta

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import data, shell, ui
from pipeline import auth, sessions
from pipeline import change_requests as cr
from pipeline.ingest import ingest
from pipeline.ingest.withdraw import WithdrawRefused, withdraw_as
from pipeline.standings import queries
from pipeline.store.db import connect
from tests.browser.support import APP, PASSWORD, add_coordinator
from tests.test_change_requests import EV, PNG, SRC, corrected
from tests.test_dashboard import frames, texts

TIMEOUT = 60


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    data.clear()
    auth.LIMITER.reset(list(auth.LIMITER._fails))
    yield
    data.clear()


@pytest.fixture
def league(db_path):
    with connect(db_path) as con:
        ingest(con, [SRC])
    add_coordinator(db_path, "cora", [EV])
    add_coordinator(db_path, "juri", [EV], role="jury")
    add_coordinator(db_path, "oco", ["unhas-2024-e1"])
    return db_path


def points(db) -> dict[str, int]:
    with connect(db, read_only=True) as con:
        df = queries.standings(con, EV, "table")
    return dict(zip(df["player"], df["points"], strict=True))


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def answer(at: AppTest, field: str, text: str, button: str) -> AppTest:
    """Type ``text`` into the text input or area ``field``, then press ``button``."""
    box = next(w for w in (*at.text_input, *at.text_area) if w.key == field)
    box.input(text)
    run(at)
    at.button(key=button).click()
    return run(at)


def signed_in(name: str, page: str = "page_scripts/upload.py") -> AppTest:
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    at.switch_page("page_scripts/upload.py")
    run(at)
    at.text_input(key="signin_name").input(name)
    at.text_input(key="signin_password").input(PASSWORD)
    at.button[0].click()
    run(at)
    assert "Masuk sebagai" in texts(at), texts(at)
    if page != "page_scripts/upload.py":
        at.switch_page(page)
        run(at)
    return at


def test_a_coordinator_correction_becomes_a_request_the_jury_approves(league):
    before = points(league)
    at = signed_in("cora")
    name, blob = corrected()
    at.get("file_uploader")[0].set_value([(name, blob, "text/csv")])
    run(at)
    assert "permintaan perubahan" in texts(at)
    assert at.button(key="up_request").disabled, "a request needs its reason"
    assert [b for b in at.button if b.key == "up_confirm"] == [], "no save button for a coordinator"
    # the photo's box says what it takes, each kind once
    assert "tekan Pilih berkas · JPEG, PDF, PNG atau WEBP, paling besar" in texts(at)
    at.text_area(key="up_reason").input("A memegang 8, bukan 11")
    run(at)
    at.get("file_uploader")[1].set_value([("kertas.png", PNG, "image/png")])
    run(at)
    at.button(key="up_request").click()
    run(at)
    assert "Permintaan perubahan 1 terkirim" in texts(at)
    assert points(league) == before
    # another coordinator's event: nothing to see
    other = signed_in("oco", "page_scripts/requests.py")
    assert "Tidak ada permintaan" in texts(other)
    # the jury sees it with the points before and after, and approves
    jury = signed_in("juri", "page_scripts/requests.py")
    text = texts(jury)
    assert "A memegang 8, bukan 11" in text and "cora" in text
    assert jury.get("image"), "the photo is shown as an image"
    answer(jury, "rq_reason_1", "cocok dengan foto", "rq_approve")
    assert "disetujui dan diterapkan" in texts(jury)
    after = points(league)
    assert {p: after[p] - before[p] for p in before} == {
        "Rahmat Mansyur": 2,
        "Sitti Rauf": -1,
        "Rusdi Rahman": -1,
        "Taufik Pallawa": 0,
    }


def test_the_jury_sees_what_a_pending_correction_would_be_warned_of(league):
    """The jury decided on the difference alone: a warning of the correction's file (here
    its round written in other capitals; a next round drawn with other qualifiers is
    another) was never shown to them."""
    at = signed_in("cora")
    name, blob = corrected()
    text = blob.decode("utf-8-sig").replace(";S2;", ";s2;")
    at.get("file_uploader")[0].set_value([(name, text.encode(), "text/csv")])
    run(at)
    answer(at, "up_reason", "A memegang 8, bukan 11", "up_request")
    assert "Permintaan perubahan 1 terkirim" in texts(at)
    jury = signed_in("juri", "page_scripts/requests.py")
    boxes = [w.value for w in jury.warning if w.value.startswith("Peringatan bila disetujui:")]
    assert len(boxes) == 1 and "babak s2 dibaca sebagai babak S2" in boxes[0], boxes


def test_a_hostile_photo_is_refused_on_the_page(league):
    at = signed_in("cora")
    name, blob = corrected()
    at.get("file_uploader")[0].set_value([(name, blob, "text/csv")])
    run(at)
    at.text_area(key="up_reason").input("salah tulis")
    run(at)
    at.get("file_uploader")[1].set_value(
        [("foto.png", b"<html><script>x</script></html>", "image/png")]
    )
    run(at)
    at.button(key="up_request").click()
    run(at)
    assert "bukan berkas PNG, JPEG, WebP atau PDF" in texts(at)
    with connect(league, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM change_requests").fetchall()[0][0] == 0


def test_the_jury_rejects_and_nothing_changes(league):
    with connect(league) as con:
        ident = auth.sign_in(con, "cora", PASSWORD, limiter=auth.RateLimiter()).identity
        rid = cr.create(con, ident, [corrected()], reason="salah tulis")
    before = points(league)
    jury = signed_in("juri", "page_scripts/requests.py")
    answer(jury, f"rq_reason_{rid}", "kertas bilang 11", "rq_reject")
    assert "ditolak" in texts(jury)
    assert points(league) == before


def test_anonymous_and_non_admins_reach_none_of_it(league, monkeypatch):
    """The requests and users pages are not listed for whom they are not, yet a link to
    them opens the page's own sign-in form or refusal, in the page's language, and never
    Streamlit's English "page not found" and the leaderboard."""
    listed: list[list[str]] = []
    navigation = shell.st.navigation

    def spy(pages, **kw):
        listed.append([p.url_path for p in pages if p.visibility == "visible"])
        return navigation(pages, **kw)

    monkeypatch.setattr(shell.st, "navigation", spy)
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    assert "requests" not in listed[-1] and "admin" not in listed[-1] and "upload" in listed[-1]
    at.switch_page("page_scripts/requests.py").run()
    assert "Permintaan koreksi dan penarikan untuk koordinator" in texts(at) and not at.selectbox
    at.switch_page("page_scripts/admin.py").run()
    assert "Halaman pengguna hanya untuk admin" in texts(at)
    coord = signed_in("cora", "page_scripts/requests.py")
    assert "requests" in listed[-1] and "admin" not in listed[-1]
    coord.switch_page("page_scripts/admin.py").run()
    assert not coord.exception
    assert "Halaman ini hanya untuk admin." in texts(coord)
    assert [t.key for t in coord.text_input if str(t.key).startswith("adm_")] == []
    add_coordinator(league, "boss", [], role="admin")
    signed_in("boss", "page_scripts/admin.py")
    assert "admin" in listed[-1]


def add_on_page(at, name: str, role: str | None = None, **fields: str) -> None:
    """Fill the admin page's add form (``name``, ``role``, the text fields ``events``,
    ``groups``, ``league`` given) with a long password, and press Simpan."""
    at.text_input(key="adm_name").input(name)
    if role:
        at.selectbox(key="adm_role").set_value(role)
    for field, value in fields.items():
        at.text_input(key=f"adm_{field}").input(value)
    at.text_input(key="adm_password").input("another long password")
    save_on_page(at)


def save_on_page(at) -> None:
    at.button[[b.label for b in at.button].index("Simpan")].click()
    run(at)


def test_the_admin_page_adds_a_user_and_sets_a_role(league):
    add_coordinator(league, "boss", [], role="admin")
    at = signed_in("boss", "page_scripts/admin.py")
    add_on_page(at, "Juri Dua", "jury", events=EV)
    assert "Tersimpan: juri dua" in texts(at)
    # the list of users in the page's language: its headers and the role's word
    (users,) = [f for f in frames(at) if "Peran" in f.columns]
    assert list(users.columns) == ["Nama", "Peran", "Acara", "Kelompok", "Liga", "Dibuat"]
    roles = dict(zip(users["Nama"], users["Peran"], strict=True))
    assert (roles["boss"], roles["juri dua"], roles["cora"]) == ("admin", "juri", "koordinator")
    with connect(league, read_only=True) as con:
        assert auth.user_role(con, "juri dua") == "jury"
        assert auth.user_events(con, "juri dua") == {EV}
    assert not at.warning  # the event is loaded: nothing to say


def test_the_admin_page_names_an_event_or_group_not_there_yet(league):
    """Kept (the event may come with the coordinator's first upload), and said: a typo
    granted nothing without a word."""
    add_coordinator(league, "boss", [], role="admin")
    at = signed_in("boss", "page_scripts/admin.py")
    add_on_page(at, "Koor Baru", events=f"{EV}, {EV}x", groups="KG Tamalanre")
    assert "Tersimpan: koor baru" in texts(at)
    assert [w.value.split(":")[0] for w in at.warning] == [
        f"Acara “{ui.md(EV + 'x')}” belum dimuat",
        "Belum ada pemain registri di kelompok “KG Tamalanre”",
    ], [w.value for w in at.warning]
    with connect(league, read_only=True) as con:
        assert auth.user_events(con, "koor baru") == {EV, EV + "x"}
    run(at)  # said once, after the save
    assert not at.warning


def test_the_admin_page_gives_a_group_right_of_a_league(league, tmp_path):
    """A group right belongs to one league: the page's league field names it (a group in
    several leagues' registries is refused without it), the list shows it, and a group
    that league's registry does not hold is named with the league."""
    from pipeline import players

    with connect(league) as con:
        for lg in ("makassar", "gowa"):
            reg = tmp_path / f"{lg}.csv"
            reg.write_text("player,group\nAna,KG 1\n")
            players.import_registry(con, players.read_registry(reg), league=lg)
    add_coordinator(league, "boss", [], role="admin")
    at = signed_in("boss", "page_scripts/admin.py")
    add_on_page(at, "Koor KG", groups="kg 1, KG 7")
    assert [e.value for e in at.error] == [
        "Tidak dapat: kelompok kg 1 ada di registri liga gowa, makassar: sebutkan liga haknya "
        "(--league)"
    ]
    at.text_input(key="adm_league").input("makassar")
    save_on_page(at)
    assert "Tersimpan: koor kg" in texts(at)
    assert [w.value.split(":")[0] for w in at.warning] == [
        "Belum ada pemain registri liga “makassar” di kelompok “KG 7”"
    ]
    (users,) = [f for f in frames(at) if "Peran" in f.columns]
    row = users[users["Nama"] == "koor kg"].iloc[0]
    assert (row["Kelompok"], row["Liga"]) == ("KG 1, KG 7", "makassar")
    with connect(league, read_only=True) as con:
        assert auth.user_rights(con, "koor kg") == [("makassar", "KG 1"), ("makassar", "KG 7")]


def test_the_admin_page_refuses_a_user_in_the_page_language(league):
    """A refused user is said in the page's language (the engine's message id), and
    nothing is stored."""
    add_coordinator(league, "boss", [], role="admin")
    at = signed_in("boss", "page_scripts/admin.py")
    add_on_page(at, "Juri Tiga", "jury")
    assert "beri juri paling sedikit satu acara" in texts(at), texts(at)
    at.text_input(key="adm_events").input(EV)
    at.text_input(key="adm_password").input("pendek")
    save_on_page(at)
    assert "kata sandi paling sedikit 8 karakter" in texts(at), texts(at)
    with connect(league, read_only=True) as con:
        assert auth.user_role(con, "juri tiga") is None


def test_the_sign_in_form_keeps_the_name_after_a_wrong_password(league):
    at = run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    at.switch_page("page_scripts/upload.py")
    run(at)
    at.text_input(key="signin_name").input("cora")
    at.text_input(key="signin_password").input("wrong wrong")
    at.button[0].click()
    run(at)
    assert "Nama atau kata sandi salah" in texts(at)
    assert at.text_input(key="signin_name").value == "cora"
    assert at.text_input(key="signin_password").value == ""


def test_a_lasting_sign_in_resumes_and_sign_out_ends_it(league):
    with connect(league) as con:
        token = sessions.issue(con, "cora")
        assert sessions.resume(con, token)[0] == "cora"
        forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
        assert sessions.resume(con, forged) is None
        sid, expiry, sig = token.split(".")
        assert sessions.resume(con, f"{sid}.{int(expiry) + 999}.{sig}") is None
        later = datetime.now() + sessions.lifetime() + timedelta(minutes=1)
        assert sessions.resume(con, token, now=later) is None
        assert sessions.revoke(con, "cora") == 1
        assert sessions.resume(con, token) is None
        assert sessions.resume(con, "garbage") is None


def test_the_jury_withdraws_a_match_on_the_upload_page_and_a_coordinator_may_not(league):
    """A table loaded by mistake: the jury takes it out from the upload page (event, round,
    table, a reason and a tick); a coordinator is offered a request instead, not let do it."""
    cora = signed_in("cora")
    assert "wd_go" not in [b.key for b in cora.button]
    assert "wd_back_go" not in [b.key for b in cora.button]
    with connect(league, read_only=True) as con:
        ident = auth.sign_in(con, "cora", PASSWORD, limiter=auth.RateLimiter()).identity
    with connect(league) as con, pytest.raises(WithdrawRefused) as refused:
        withdraw_as(con, ident, EV, "S2", "1", "salah babak")
    assert refused.value.render("id") == (
        "cora adalah koordinator: hanya juri acara atau admin yang boleh menarik pertandingan; "
        "mintalah kepada mereka"
    )
    before = points(league)
    jury = signed_in("juri")
    assert jury.selectbox(key="wd_event").value == EV
    assert (jury.selectbox(key="wd_round").value, jury.selectbox(key="wd_table").value) == (
        "S2",
        "1",
    )
    assert jury.button(key="wd_go").disabled  # no reason, no tick yet
    jury.text_input(key="wd_reason").input("dimuat dengan babak yang salah")
    jury.checkbox(key="wd_sure").check()
    run(jury)
    jury.button(key="wd_go").click()
    run(jury)
    assert "babak S2 meja 1 ditarik; riwayatnya tetap tersimpan." in texts(jury)
    assert points(league) == {}  # the event's one match: nothing of it is counted
    with connect(league, read_only=True) as con:
        kinds = queries.history(con, EV, "S2", "1").select("kind", "loaded_by", "reason").rows()
    assert kinds[-1] == ("withdrawn", "juri", "dimuat dengan babak yang salah")
    assert "Belum ada pertandingan dimuat di acara Anda." in texts(jury)
    logged = [f for f in frames(jury) if "Berkas" in f.columns or "file" in f.columns]
    assert any("(pertandingan ditarik)" in f.to_string() for f in logged), logged
    # the wrong table picked: brought back from the rows kept, with a reason
    assert jury.selectbox(key="wd_back_match").value == (EV, "S2", "1")
    assert "Ditarik oleh juri: dimuat dengan babak yang salah" in texts(jury)
    assert jury.button(key="wd_back_go").disabled
    assert (
        jury.text_input(key="wd_back_reason").label == "Alasan mengembalikan (disimpan di riwayat)"
    )
    answer(jury, "wd_back_reason", "salah pilih meja", "wd_back_go")
    assert "babak S2 meja 1 kembali dihitung, dari baris yang tersimpan." in texts(jury)
    assert points(league) == before
    assert "wd_back_match" not in [s.key for s in jury.selectbox]


def test_the_jury_is_told_whom_the_next_draw_seats_from_a_table_it_withdraws(db_path, tmp_path):
    """The withdrawal said it was done, and nothing of the next round's draw, which seats
    that table's qualifiers (the draw is left to the jury)."""
    from tests.test_events_draw_cli import first_round_played

    first, _ = first_round_played(db_path, tmp_path)
    add_coordinator(db_path, "juri", ["ev"], role="jury")
    jury = signed_in("juri")
    jury.selectbox(key="wd_round").set_value("R1")
    run(jury)
    jury.selectbox(key="wd_table").set_value("1")
    jury.text_input(key="wd_reason").input("meja salah")
    jury.checkbox(key="wd_sure").check()
    run(jury)
    jury.button(key="wd_go").click()
    run(jury)
    said_seated_ahead(jury, "Perhatikan:", first)


def test_the_jury_sees_whom_the_next_draw_seats_from_a_table_it_is_asked_to_withdraw(
    db_path, tmp_path
):
    """A coordinator's request to withdraw an R1 table after R2 was drawn from it: the
    jury decided on the points that would go alone, not told of the draw."""
    from tests.test_events_draw_cli import first_round_played

    first, _ = first_round_played(db_path, tmp_path)
    add_coordinator(db_path, "cora", ["ev"])
    add_coordinator(db_path, "juri", ["ev"], role="jury")
    cora = signed_in("cora")
    cora.selectbox(key="wd_round").set_value("R1")
    run(cora)
    cora.selectbox(key="wd_table").set_value("1")
    answer(cora, "wd_reason", "meja salah", "wd_ask")
    assert "Permintaan 1 terkirim" in texts(cora)
    jury = signed_in("juri", "page_scripts/requests.py")
    said_seated_ahead(jury, "Peringatan bila disetujui:", first)


def said_seated_ahead(at: AppTest, heading: str, first: tuple) -> None:
    """One warning box under ``heading`` names the two qualifiers of R1 table 1 (seated
    ``first``) whom R2's draw seats, their table withdrawn."""
    a, b = sorted([p for p in first if p][:2])
    boxes = [w.value for w in at.warning if w.value.startswith(heading)]
    assert len(boxes) == 1 and (
        f"babak R2 sudah diundi dengan {a}, {b} dari babak R1 meja 1, yang tidak lagi dihitung "
        "setelah ditarik"
    ) in " ".join(boxes[0].split()), boxes


def test_a_coordinator_asks_the_jury_to_withdraw_a_match_and_the_jury_approves(league):
    """The coordinator's own mistake on the upload page: the match and a reason go to the
    jury as a request (nothing changes); the jury sees it on the requests page, with the
    points that would leave the standings, and approving withdraws the match."""
    before = points(league)
    cora = signed_in("cora")
    assert "Minta juri menarik pertandingan yang salah dimuat" in [e.label for e in cora.expander]
    assert (cora.selectbox(key="wd_round").value, cora.selectbox(key="wd_table").value) == (
        "S2",
        "1",
    )
    assert cora.button(key="wd_ask").disabled, "a request needs its reason"
    assert "wd_sure" not in [c.key for c in cora.checkbox], "nothing happens until approved"
    answer(cora, "wd_reason", "dimuat di sesi yang salah", "wd_ask")
    assert "Permintaan 1 terkirim: juri memutuskan penarikan" in texts(cora)
    assert "babak S2 meja 1" in texts(cora)
    assert points(league) == before, "a request changes nothing"
    mine = signed_in("cora", "page_scripts/requests.py")
    assert "penarikan" in mine.selectbox(key="rq_pick").format_func(1)
    assert "rq_approve" not in [b.key for b in mine.button], "a coordinator does not decide"

    jury = signed_in("juri", "page_scripts/requests.py")
    text = texts(jury)
    assert "dimuat di sesi yang salah" in text and "cora" in text
    assert "Meminta penarikan" in text and "keluar dari semua klasemen dan rating" in text
    (shown,) = [f for f in frames(jury) if "Poin" in f.columns]
    assert all(" → – (-" in v for v in shown["Poin"]), shown  # every player's points go
    assert "Yang keluar bila ditarik:" in text and "→ setelah ditarik." in text
    with connect(league, read_only=True) as con:
        (n,) = con.execute("SELECT hands FROM match_versions WHERE current").fetchall()[0]
    assert f"Semua {n} kocokannya keluar dari klasemen dan rating" in text
    assert not [f for f in frames(jury) if "Kocokan" in f.columns], "no list of every hand"
    answer(jury, "rq_reason_1", "lembar sesi bilang S1", "rq_approve")
    assert "disetujui dan diterapkan" in texts(jury)
    assert "Meminta penarikan" in texts(jury)
    assert "bila disetujui" not in texts(jury), "once decided, no longer what it would do"
    assert points(league) == {}
    with connect(league, read_only=True) as con:
        last = queries.history(con, EV, "S2", "1").row(-1, named=True)
    assert (last["kind"], last["reason"], last["requested_by"], last["approved_by"]) == (
        "withdrawn",
        "dimuat di sesi yang salah",
        "cora",
        "juri",
    )


def test_a_deleted_event_is_named_in_the_page_language_in_the_upload_history(league):
    from pipeline import events

    with connect(league) as con:
        events.save(con, "pepet-2024-e11", "pepet")
        events.delete(con, "pepet-2024-e11", reason="salah ketik", by="admin")
    jury = signed_in("juri")
    logged = [f for f in frames(jury) if "Berkas" in f.columns]
    assert any("(acara dihapus) pepet-2024-e11" in f.to_string() for f in logged), logged


def test_the_coordinator_cancels_their_own_request_on_the_page(league):
    with connect(league) as con:
        ident = auth.sign_in(con, "cora", PASSWORD, limiter=auth.RateLimiter()).identity
        rid = cr.create(con, ident, [corrected()], reason="berkas yang salah")
    jury = signed_in("juri", "page_scripts/requests.py")
    assert "rq_cancel" not in [b.key for b in jury.button], "only the requester cancels"
    before = points(league)
    cora = signed_in("cora", "page_scripts/requests.py")
    cora.button(key="rq_cancel").click()
    run(cora)
    text = texts(cora)
    assert f"Permintaan {rid} dibatalkan." in text
    assert "Status: **dibatalkan** oleh **cora** pada" in text
    assert "rq_cancel" not in [b.key for b in cora.button]
    assert points(league) == before
    with connect(league, read_only=True) as con:
        assert cr.get(con, rid).status == "cancelled"


def test_the_sidebar_says_how_many_requests_wait(league):
    """The jury is told in the sidebar that a request waits for them, and the coordinator
    that theirs waits for the jury; once decided, neither line stays."""

    def links(at: AppTest) -> list[str]:
        return [str(e.proto.label) for e in at.get("page_link")]

    assert links(signed_in("juri")) == [], "nothing waits yet"
    with connect(league) as con:
        ident = auth.sign_in(con, "cora", PASSWORD, limiter=auth.RateLimiter()).identity
        rid = cr.create(con, ident, [corrected()], reason="salah tulis")
        cr.ask_withdrawal(con, ident, EV, "S2", "1", reason="salah sesi")
    jury = signed_in("juri")
    assert links(jury) == ["Menunggu keputusan: 2"]
    assert links(signed_in("cora")) == ["Permintaan Anda di juri: 2"]
    assert links(signed_in("oco")) == [], "another event's coordinator is told nothing"
    with connect(league) as con:
        cr.reject(con, auth.sign_in(con, "juri", PASSWORD).identity, rid, "kertas bilang 11")
    assert links(signed_in("juri")) == ["Menunggu keputusan: 1"]
    with connect(league, read_only=True) as con:
        assert cr.waiting(con, "juri") == (1, 0, 0) and cr.waiting(con, "cora") == (0, 1, 1)
    # the coordinator is told of the decision until they have it on screen
    with connect(league) as con:
        con.execute("UPDATE events SET title = 'Liga Uji' WHERE event = ?", [EV])
    cora = signed_in("cora")
    assert links(cora) == ["Permintaan Anda di juri: 1", "Keputusan juri baru: 1"]
    cora.switch_page("page_scripts/requests.py")
    run(cora)
    # the decision opens first; seeing it takes the mark and the sidebar's line away
    assert cora.selectbox(key="rq_pick").value == rid
    assert "ditolak" in texts(cora) and "kertas bilang 11" in texts(cora)
    (matches,) = [f for f in frames(cora) if "Babak" in f.columns]
    assert list(matches["Acara"]) == ["Liga Uji"], "the event as every screen names it"
    assert links(cora) == ["Permintaan Anda di juri: 1"]
    assert not any(o.startswith("● baru") for o in cora.selectbox(key="rq_pick").options)
    with connect(league, read_only=True) as con:
        assert cr.waiting(con, "cora") == (0, 1, 0)
        assert cr.get(con, rid).seen_at is not None


def test_only_the_coordinator_who_asked_marks_a_decision_seen(league):
    with connect(league) as con:
        cora = auth.sign_in(con, "cora", PASSWORD, limiter=auth.RateLimiter()).identity
        jury = auth.sign_in(con, "juri", PASSWORD, limiter=auth.RateLimiter()).identity
        rid = cr.create(con, cora, [corrected()], reason="salah tulis")
        assert cr.waiting(con, "cora").decided == 0, "pending is not news"
        cr.approve(con, jury, rid, "cocok dengan kertas")
        cr.seen(con, "juri", rid)  # the jury's look is not the coordinator's
        assert cr.waiting(con, "cora") == (0, 0, 1)
    # the page marks it only for the coordinator who asked
    at = signed_in("juri", "page_scripts/requests.py")
    assert at.selectbox(key="rq_pick").value == rid
    assert "● baru" not in str(at.selectbox(key="rq_pick").options)
    with connect(league) as con:
        assert cr.waiting(con, "cora").decided == 1
        cr.seen(con, "Cora ", rid)  # names compare as sign-in compares them
        assert cr.waiting(con, "cora").decided == 0
        mine = cr.create(con, cora, [(SRC.name, SRC.read_bytes())], reason="lagi")
        cr.cancel(con, cora, mine)
        assert cr.waiting(con, "cora") == (0, 0, 0), "a request they took back is no news"


def test_a_coordinator_asks_on_the_page_for_a_withdrawn_match_back(league):
    with connect(league) as con:
        jury = auth.sign_in(con, "juri", PASSWORD, limiter=auth.RateLimiter()).identity
        withdraw_as(con, jury, EV, "S2", "1", "dikira tidak dimainkan")
    cora = signed_in("cora")
    assert "Minta juri mengembalikan pertandingan yang ditarik" in texts(cora)
    assert cora.selectbox(key="wd_back_match").value == (EV, "S2", "1")
    assert "wd_back_go" not in [b.key for b in cora.button], "only the jury brings it back"
    assert cora.button(key="wd_ask_back").disabled
    answer(cora, "wd_back_reason", "lembar ditandatangani", "wd_ask_back")
    assert "Permintaan 1 terkirim: juri memutuskan apakah" in texts(cora)
    assert points(league) == {}
    with connect(league, read_only=True) as con:
        req = cr.get(con, 1)
    assert (req.requested_by, req.reason, req.kind) == (
        "cora",
        "lembar ditandatangani",
        "correction",
    )
    jury = signed_in("juri", "page_scripts/requests.py")
    text = texts(jury)
    assert "Yang kembali dihitung:" in text and "versi yang ditarik (v2)" in text
    with connect(league, read_only=True) as con:
        (n,) = con.execute("SELECT hands FROM match_versions WHERE version = 1").fetchall()[0]
    assert f"Semua {n} kocokannya kembali masuk klasemen dan rating." in text
    assert not [f for f in frames(jury) if "Kocokan" in f.columns], "no list of every hand"
