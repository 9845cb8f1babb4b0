"""Change requests end to end in headless Chromium (RULES.md, pepet rule 24).

A coordinator sends a correction with a photo of the paper record; a jury member, in
another browser, approves it and the leaderboard changes; a rejected request changes
nothing; a coordinator of another event and an anonymous visitor reach none of it. The
sign-in lasts across a reload and into a new tab, and signing out ends it. Screenshots
at 390×844 and 1366×900 are saved under tests/artifacts/.
"""

import re

import pytest

from pipeline.ingest import ingest
from pipeline.standings import queries
from pipeline.store.db import connect
from tests.browser.support import ARTIFACTS, PASSWORD, add_coordinator, dashboard
from tests.browser.test_dashboard_e2e import shot, upload, wait_idle
from tests.test_change_requests import EV, HAND1, PNG, SRC, corrected

pytestmark = pytest.mark.browser


def sign_in(page, url: str, name: str) -> None:
    page.set_default_navigation_timeout(180_000)  # a loaded 2-core machine serves slowly
    page.goto(f"{url}/upload")
    page.get_by_label("Nama").fill(name)
    page.get_by_label("Kata sandi atau token").fill(PASSWORD)
    page.get_by_role("button", name="Masuk").click()
    page.get_by_text(re.compile(r"Masuk sebagai")).first.wait_for()
    wait_idle(page)


def points(db) -> dict[str, int]:
    with connect(db, read_only=True) as con:
        df = queries.standings(con, EV, "table")
    return dict(zip(df["player"], df["points"], strict=True))


def leaderboard_row(page, url: str, player: str) -> str:
    page.goto(f"{url}/?event={EV}&round=S2")
    row = page.locator(".table-card tbody tr:visible").filter(has_text=player)
    try:
        row.first.wait_for()
    except Exception:
        page.screenshot(path=str(ARTIFACTS / "requests-leaderboard-failed.png"))
        raise
    return row.first.inner_text()


def request_correction(
    page, url: str, tmp_path, reason: str, *, photo: bool, a_pips: int = 8
) -> None:
    name, blob = corrected(HAND1, HAND1.replace(";11;", f";{a_pips};"))
    f = tmp_path / name
    f.write_bytes(blob)
    page.goto(f"{url}/upload")  # a fresh page: signed in again by the lasting sign-in
    page.locator('[data-testid="stFileUploader"]').first.wait_for()
    wait_idle(page)
    upload(page, f)
    page.get_by_text("koreksi Anda dikirim ke juri", exact=False).first.wait_for()
    assert page.get_by_role("button", name=re.compile(r"^Simpan \d+ pertandingan")).count() == 0
    box = page.get_by_label("Alasan koreksi (wajib)")
    box.fill(reason)
    box.press("Control+Enter")  # commits the text area's value (a rerun)
    wait_idle(page)
    if photo:
        png = tmp_path / "kertas.png"
        png.write_bytes(PNG)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(1).set_input_files(str(png))
        page.get_by_text("kertas.png").first.wait_for()
        wait_idle(page)
    from playwright.sync_api import expect

    expect(page.get_by_role("button", name="Kirim ke juri")).to_be_enabled(timeout=120_000)
    page.get_by_role("button", name="Kirim ke juri").click()
    page.get_by_text(re.compile(r"Permintaan perubahan \d+ terkirim")).wait_for()


def decide(page, url: str, reason: str, button: str, done: "str | re.Pattern[str]") -> None:
    page.goto(f"{url}/requests")
    page.get_by_text("Diminta oleh").first.wait_for()
    wait_idle(page)
    box = page.get_by_label("Alasan keputusan (wajib)")
    box.fill(reason)
    box.blur()
    wait_idle(page)
    page.get_by_role("button", name=button).click()
    page.get_by_text(done).wait_for()
    # the picker's label says the new status (a label that changes under the same value
    # is not redrawn by the browser unless the page sets the value again)
    status = "disetujui" if button.startswith("Setujui") else "ditolak"
    picked = page.get_by_role("combobox", name="Permintaan")
    from playwright.sync_api import expect

    expect(picked).to_have_value(re.compile(rf"#\d+ · {status} · "))


def test_a_request_is_approved_by_the_jury_and_the_leaderboard_changes(tmp_path, new_page):
    db = tmp_path / "d.duckdb"
    with connect(db) as con:
        ingest(con, [SRC])
    add_coordinator(db, "cora", [EV])
    add_coordinator(db, "juri", [EV], role="jury")
    add_coordinator(db, "oco", ["unhas-2024-e1"])
    before = points(db)
    with dashboard(db, tmp_path) as srv:
        coord = new_page()
        sign_in(coord, srv.url, "cora")
        # the sign-in lasts: a reload, then a new tab of the same browser
        coord.reload()
        coord.get_by_text(re.compile(r"Masuk sebagai")).first.wait_for()
        tab = coord.context.new_page()
        tab.goto(f"{srv.url}/upload")
        tab.locator('[data-testid="stFileUploader"]').first.wait_for()
        tab.close()
        request_correction(coord, srv.url, tmp_path, "A memegang 8, bukan 11", photo=True)
        assert points(db) == before, "nothing applies before the jury approves"

        visitor = new_page()
        visitor.set_default_navigation_timeout(180_000)
        for path in ("requests", "admin"):
            visitor.goto(f"{srv.url}/{path}")
            wait_idle(visitor)
            assert visitor.get_by_text("A memegang 8").count() == 0
            assert visitor.get_by_role("button", name="Setujui dan terapkan").count() == 0
        assert visitor.get_by_role("link", name="Permintaan perubahan").count() == 0

        other = new_page()
        sign_in(other, srv.url, "oco")
        other.goto(f"{srv.url}/requests")
        other.get_by_text("Tidak ada permintaan yang dapat Anda lihat").wait_for()

        jury = new_page()
        sign_in(jury, srv.url, "juri")
        row_before = leaderboard_row(jury, srv.url, "Rahmat Mansyur")
        jury.goto(f"{srv.url}/requests")
        jury.get_by_text("A memegang 8, bukan 11").first.wait_for()
        jury.locator('[data-testid="stImage"]').first.wait_for()
        for size in ("desktop", "phone"):
            shot(jury, "requests-jury", size)
        decide(
            jury, srv.url, "cocok dengan foto", "Setujui dan terapkan", "disetujui dan diterapkan"
        )
        after = points(db)
        assert after["Rahmat Mansyur"] - before["Rahmat Mansyur"] == 2
        row_after = leaderboard_row(jury, srv.url, "Rahmat Mansyur")
        assert row_after != row_before and str(after["Rahmat Mansyur"]) in row_after

        # a second request, rejected: nothing changes
        request_correction(coord, srv.url, tmp_path, "salah lagi", photo=False, a_pips=12)
        decide(
            jury, srv.url, "kertas tidak cocok", "Tolak", re.compile(r"Permintaan \d+ ditolak\.")
        )
        assert points(db) == after

        # signing out ends it: this tab, a reload, a new tab
        coord.get_by_role("button", name="Keluar").click()
        coord.get_by_text("Masuk koordinator").wait_for()
        coord.reload()
        coord.goto(f"{srv.url}/upload")
        coord.get_by_text("Masuk koordinator").wait_for()
        wait_idle(coord)
        assert coord.locator('[data-testid="stFileUploader"]').count() == 0
    assert (ARTIFACTS / "requests-jury-phone.png").exists()


def test_screens_of_the_request_box_and_the_admin_page_and_the_language_lasts(tmp_path, new_page):
    db = tmp_path / "d.duckdb"
    with connect(db) as con:
        ingest(con, [SRC])
    add_coordinator(db, "cora", [EV])
    add_coordinator(db, "boss", [], role="admin")
    with dashboard(db, tmp_path) as srv:
        coord = new_page()
        sign_in(coord, srv.url, "cora")
        name, blob = corrected()
        f = tmp_path / name
        f.write_bytes(blob)
        upload(coord, f)
        coord.get_by_role("button", name="Kirim ke juri").wait_for()
        for size in ("desktop", "phone"):
            shot(coord, "upload-request", size)
        admin = new_page()
        sign_in(admin, srv.url, "boss")
        admin.goto(f"{srv.url}/admin")
        admin.get_by_text("Pengguna dan peran").wait_for()
        wait_idle(admin)
        for size in ("desktop", "phone"):
            shot(admin, "admin", size)
        # the chosen language survives a reload (the sidebar shows at desktop width)
        admin.set_viewport_size({"width": 1366, "height": 900})
        admin.get_by_text("EN · English").click()
        admin.get_by_text("Users and roles").wait_for()
        wait_idle(admin)
        admin.reload()
        admin.get_by_text("Users and roles").wait_for()
