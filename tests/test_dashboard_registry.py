"""The registry page: the same diff as ``domino players import`` and a confirm button that
needs a reason; nothing changes before it is pressed."""

from pathlib import Path

from dashboard import data
from pipeline.demo import load_samples
from pipeline.store.db import connect
from tests.browser.support import PASSWORD, add_coordinator
from tests.test_dashboard import _sign_in, app, texts

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"
MOVE = "player,group,city\nOki Saputra,KG Tamalate,Makassar\nSitti Rauf,KG Tamalate,Makassar\n"
EVENT = "pepet-liga-makassar"


def panakkukang(db: Path) -> int:
    with connect(db, read_only=True) as c:
        return c.execute(
            "SELECT points FROM group_standings WHERE event = ? AND \"group\" = 'KG Panakkukang'",
            [EVENT],
        ).fetchall()[0][0]


def test_registry_page_shows_the_diff_and_applies_only_with_a_reason(db_path, monkeypatch):
    monkeypatch.setattr(data, "STAMP_TTL", 0.0)
    load_samples(db_path, SAMPLES)
    add_coordinator(db_path, "rina", ["*"])
    at = app("page_scripts/registry.py")
    _sign_in(at, "rina", PASSWORD)
    # the uploader's own English words hidden, what it takes said in Indonesian
    said = "Seret berkas ke kotak di bawah atau tekan Pilih berkas · CSV, TXT, TSV, XLSX, XLSM atau ODS, paling besar"
    assert said in texts(at)
    assert any("stFileUploaderDropzoneInstructions" in str(e.body) for e in at.get("html"))
    at.text_input(key="reg_league").input("demo").run()
    at.get("file_uploader")[0].set_value(("players.csv", MOVE.encode(), "text/csv")).run()
    at.button(key="reg_check").click().run()
    assert not at.exception, [e.value for e in at.exception]
    text = texts(at)
    # the diff in the page's language (Indonesian by default)
    assert "KG Panakkukang: 113 poin, peringkat 1 -> 95 poin, peringkat 1" in text.replace("\\", "")
    assert at.button(key="reg_apply").disabled  # a reason first
    assert panakkukang(db_path) == 113
    at.text_input(key="reg_reason").input("Oki moved to KG Tamalate").run()
    at.button(key="reg_apply").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert panakkukang(db_path) == 95
    with connect(db_path, read_only=True) as c:
        assert c.execute("SELECT reason, applied_by FROM registry_history").fetchall() == [
            ("Oki moved to KG Tamalate", "rina")
        ]


def test_registry_page_needs_a_coordinator_of_every_event(db_path):
    load_samples(db_path, SAMPLES)
    add_coordinator(db_path, "budi", [EVENT])
    at = app("page_scripts/registry.py")
    _sign_in(at, "budi", PASSWORD)
    assert not at.get("file_uploader")
    assert "Hanya koordinator" in texts(at)


def test_a_file_that_is_no_registry_is_refused_in_the_page_language(db_path):
    add_coordinator(db_path, "rina", ["*"])
    at = app("page_scripts/registry.py")
    _sign_in(at, "rina", PASSWORD)
    at.get("file_uploader")[0].set_value(("pemain.csv", b"foo,bar\n1,2\n", "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "daftar pemain memerlukan kolom player" in texts(at), texts(at)


def test_a_conflicting_registry_is_refused_in_the_page_language(db_path):
    add_coordinator(db_path, "rina", ["*"])
    at = app("page_scripts/registry.py")
    _sign_in(at, "rina", PASSWORD)
    body = b"player,group\nAna,KG A\nAna,KG B\n"
    at.get("file_uploader")[0].set_value(("pemain.csv", body, "text/csv")).run()
    at.button(key="reg_check").click().run()
    assert not at.exception, [e.value for e in at.exception]
    said = texts(at).replace("\\", "")  # markdown's escapes
    assert "pemain.csv:2 dan pemain.csv:3 menempatkan Ana di 2 grup (KG A dan KG B)" in said, said
    with connect(db_path, read_only=True) as c:
        assert c.execute("SELECT count(*) FROM registry").fetchall()[0][0] == 0


def test_an_import_names_the_events_of_its_players_outside_it_and_moves_them(db_path, tmp_path):
    """A registry imported into league mks whose players played kg1 (a pepet event of the
    league default, which has no registry): the page says kg1 has no groups and offers to
    move it into mks, showing what its standings would change and asking a reason first,
    as ``domino league set`` does (it said only "imported", and the move needed the CLI)."""
    from tests.rules_helpers import load
    from tests.test_league import session

    with connect(db_path) as c:
        load(c, tmp_path, session("kg1"), name="kg1.csv")
    add_coordinator(db_path, "rina", ["*"])
    at = app("page_scripts/registry.py")
    _sign_in(at, "rina", PASSWORD)
    at.text_input(key="reg_league").input("mks").run()
    body = b"player,group\nP11,KG A\nP21,KG A\n"
    at.get("file_uploader")[0].set_value(("pemain.csv", body, "text/csv")).run()
    at.button(key="reg_check").click().run()
    at.button(key="reg_apply").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [i.value.replace("\\", "") for i in at.info] == [  # markdown's escapes
        "1 acara yang dimainkan pemain liga ini ada di liga tanpa daftar pemain, jadi tanpa "
        "kelompok (KG): kg1. Pindahkan ke liga ini di bawah."
    ]
    assert at.multiselect(key="reg_move_mks").value == ["kg1"]
    assert at.multiselect(key="reg_move_mks").placeholder == "Pilih acara"  # not "Choose options"
    at.button(key="reg_move_check").click().run()
    said = texts(at).replace("\\", "")
    assert "acara kg1 pindah dari liga default ke liga mks" in said
    assert "acara kg1, klasemen kelompok, KG A: tidak ada baris -> 6 poin, peringkat 1" in said, (
        said
    )
    assert at.button(key="reg_move_apply").disabled  # a reason first
    with connect(db_path, read_only=True) as c:
        assert c.execute("SELECT league FROM events").fetchall() == [("default",)]
    at.text_input(key="reg_move_reason").input("liga Makassar").run()
    at.button(key="reg_move_apply").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "1 acara dipindahkan ke liga mks." in texts(at)
    assert not at.info  # nothing left outside
    with connect(db_path, read_only=True) as c:
        assert c.execute("SELECT league FROM events").fetchall() == [("mks",)]
        assert c.execute("SELECT reason, applied_by FROM registry_history").fetchall()[-1] == (
            "liga Makassar",
            "rina",
        )


def test_a_busy_database_is_said_and_nothing_is_checked_or_moved(db_path, tmp_path, monkeypatch):
    """A load writing while the registry is checked or a move is asked for: the page said
    it stopped on an unexpected error (DatabaseBusy); now it says the database is busy."""
    from pipeline.store.db import DatabaseBusy
    from tests.rules_helpers import load
    from tests.test_league import session

    with connect(db_path) as c:
        load(c, tmp_path, session("kg1"), name="kg1.csv")
    add_coordinator(db_path, "rina", ["*"])
    at = app("page_scripts/registry.py")
    _sign_in(at, "rina", PASSWORD)

    def busy(*args, **kwargs):
        raise DatabaseBusy("a load is writing")

    monkeypatch.setattr(data, "write", busy)
    at.text_input(key="reg_league").input("mks").run()
    at.get("file_uploader")[0].set_value(("pemain.csv", MOVE.encode(), "text/csv")).run()
    at.button(key="reg_check").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [w.value for w in at.warning] == [
        "Basis data sedang dipakai (mis. `domino ingest`). Coba lagi sebentar lagi; tidak ada yang disimpan."
    ]
    at.multiselect(key="reg_move_mks").set_value(["kg1"]).run()
    at.button(key="reg_move_check").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.warning) == 1 and "sedang dipakai" in at.warning[0].value
