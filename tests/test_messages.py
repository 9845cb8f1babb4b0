"""The pipeline's sentences in Indonesian on the dashboard (dashboard/messages_id.toml).

Every sentence the pipeline writes — a problem in a hand log, what happened to a match, a
file refused whole, a refused sign-in — must be in the catalogue. The error fixtures and
the scenarios below produce them for real, and each must translate whole (a summary of a
match's problems translates every sentence in it). A sentence that is changed in the
pipeline without its catalogue entry fails here.
"""

import re
import string
import zipfile
from io import BytesIO

import polars as pl
import pytest

from dashboard import messages
from pipeline import auth
from pipeline.ingest import ingest, read_all
from pipeline.ingest.read import read_bytes, read_file
from pipeline.players import import_registry, read_registry
from pipeline.problems import FileRejected
from tests.conftest import DATA

ERRORS = DATA / "errors"
BASE = ERRORS / "base_unhas.csv"
LINES = BASE.read_text().splitlines()
PW = "a long enough password"


def sentences(plan) -> list[str]:
    return [*plan.problems.get_column("message").to_list(), *[o.message for o in plan.outcomes if o.message]]


def assert_known(found: list[str]) -> None:
    assert found, "the scenario produced no sentence"
    unknown = [m for m in found if not messages.known(m)]
    assert not unknown, f"not in dashboard/messages_id.toml: {unknown}"


def write(tmp_path, name: str, lines: list[str]):
    f = tmp_path / name
    f.write_text("\n".join(lines) + "\n")
    return f


# --- the catalogue itself ---------------------------------------------------------------------


def test_every_entry_compiles_and_fills_its_sentence_from_its_own_groups():
    entries = messages.catalogue("id")
    assert len(entries) > 60
    patterns = [e.pattern.pattern for e in entries]
    assert len(set(patterns)) == len(patterns), "an English sentence is listed twice"
    for e in entries:
        fields = {f for _, f, _, _ in string.Formatter().parse(e.template) if f}
        assert fields <= set(e.pattern.groupindex), e.pattern.pattern
        assert e.template != e.pattern.pattern


def test_english_and_unknown_sentences_are_shown_as_they_are():
    assert messages.translate("empat is not a whole number", "en") == "empat is not a whole number"
    assert messages.translate("something new happened", "id") == "something new happened"
    assert messages.translate(None, "id") is None
    assert not messages.known("something new happened")


def test_a_summary_translates_each_sentence_in_it():
    text = "3 problem(s): E is not a chair; write A, B, C or D; hand 3 appears more than once in this table; empat is not a whole number"
    assert messages.translate(text, "id") == (
        "3 masalah: E bukan kursi; tulis A, B, C, atau D; kocokan 3 muncul lebih dari sekali "
        "di meja ini; empat bukan bilangan bulat"
    )
    fix = "changes hand(s) 4 and drops hand(s) 9, 10 (reason: wrong sheet)"
    assert messages.translate(fix, "id") == "mengubah kocokan 4 dan menghapus kocokan 9, 10 (alasan: wrong sheet)"
    # values from the file are kept as written, even when they look like a sentence
    assert messages.translate("the tile 5-2 is held twice in this hand (chair A and B); each tile exists once", "id") == (
        "kartu 5-2 dipegang dua kali dalam kocokan ini (kursi A dan B); setiap kartu hanya ada satu"
    )


def test_a_frame_column_is_translated_and_its_nulls_kept():
    df = pl.DataFrame({"message": ["empat is not a whole number", None, "empat is not a whole number"]})
    out = messages.translate_column(df, "id")
    assert out["message"].to_list() == ["empat bukan bilangan bulat", None, "empat bukan bilangan bulat"]
    assert messages.translate_column(df, "en").equals(df)


# --- sentences the pipeline writes ------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in ERRORS.glob("*.csv") if not p.name.startswith("base_")))
def test_every_error_fixture_speaks_indonesian(con, name):
    assert_known(sentences(ingest(con, [ERRORS / name])))


def test_loading_again_speaks_indonesian(con, tmp_path):
    table1 = LINES[1:11]
    cells = table1[3].split(",")
    cells[10], cells[11] = "biasa", "2|1"
    fixed = [*table1[:3], ",".join(cells), *table1[4:9]]  # hand 4 changed, hand 10 dropped
    plans = [
        ingest(con, [write(tmp_path, "part.csv", [LINES[0], *table1[:8]])]),  # new
        ingest(con, [write(tmp_path, "more.csv", [LINES[0], *table1])]),  # update
        ingest(con, [write(tmp_path, "more.csv", [LINES[0], *table1])]),  # unchanged
        ingest(con, [write(tmp_path, "fix.csv", [LINES[0], *fixed])]),  # correction, no reason
        ingest(con, [write(tmp_path, "fix.csv", [LINES[0], *fixed])], reason="wrong sheet"),
    ]
    assert [p.outcomes[0].status for p in plans] == ["new", "update", "unchanged", "rejected", "correction"]
    found = [m for p in plans for m in sentences(p)]
    assert any(m.endswith("(reason: wrong sheet)") for m in found)
    assert_known(found)


def test_clashes_with_what_is_loaded_speak_indonesian(con, tmp_path):
    ingest(con, [BASE])
    clash = [LINES[0]] + [
        line.replace(",R1,2,", ",R1,3,").replace("Yusuf Lubis", "Bayu Rahman") for line in LINES[11:21]
    ]
    other_ruleset = [LINES[0]] + [line.replace(",unhas,R1,", ",pepet,R2,") for line in LINES[1:11]]
    no_round = list(LINES)
    cells = no_round[10].split(",")  # hand 10 of table 1 without its round
    cells[2] = ""  # babak
    no_round[10] = ",".join(cells).replace("unhas-2024-e1", "unhas-2024-e2")
    no_round = [no_round[0]] + [line.replace("unhas-2024-e1", "unhas-2024-e2") for line in no_round[1:]]
    found = []
    for name, lines in (("clash.csv", clash), ("r2.csv", other_ruleset), ("no_round.csv", no_round)):
        found += sentences(ingest(con, [write(tmp_path, name, lines)]))
    codes_seen = " ".join(found)
    assert "already plays at table" in codes_seen and "is played under ruleset" in codes_seen
    assert "does not say its round" in codes_seen
    assert_known(found)


def test_a_name_outside_the_registry_speaks_indonesian(con, tmp_path):
    reg = tmp_path / "players.csv"
    reg.write_text("player,group\nOki Saputra,KG A\nEko Hamzah,KG A\n")
    import_registry(con, read_registry(reg))
    found = sentences(ingest(con, [ERRORS / "base_pepet.csv"]))
    assert any("is not in the player registry" in m for m in found)
    assert_known(found)


def _refusal(data: bytes, name: str = "hands.csv") -> str:
    with pytest.raises(FileRejected) as info:
        read_bytes(data, name)
    return info.value.message


def _xlsx(entries: dict[str, bytes]) -> bytes:
    buf = BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n, b in entries.items():
            z.writestr(n, b)
    return buf.getvalue()


def test_files_refused_whole_speak_indonesian(monkeypatch, tmp_path, db_path):
    header = LINES[0]
    found = [
        _refusal(b""),
        _refusal(b"\n\n"),
        _refusal(header.encode() + b"\n"),
        _refusal(b"event,round\nx,R1\n"),
        _refusal(b"event,round,acara," + header.split(",", 2)[2].encode() + b"\nx,R1,y\n"),
        _refusal(b"\x00\x01\x02binary"),
        _refusal(b"PK\x03\x04 not really a zip", "hands.xlsx"),
        _refusal(header.encode() + b"\n", "hands.xlsx"),
        _refusal(_xlsx({"hello.txt": b"hi"}), "hands.xlsx"),
        _refusal(_xlsx({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": b"<broken"}), "hands.xlsx"),
    ]
    with pytest.raises(FileRejected) as info:
        read_file(tmp_path / "missing.csv")
    found.append(info.value.message)
    monkeypatch.setenv("DOMINO_MAX_FILE_BYTES", "10")
    found.append(_refusal(BASE.read_bytes()))
    monkeypatch.setenv("DOMINO_MAX_FILE_BYTES", str(10**8))
    monkeypatch.setenv("DOMINO_MAX_ROWS", "3")
    found.append(_refusal(BASE.read_bytes()))
    for text in ("name,group\nA,B\n", "player,group\n"):
        reg = tmp_path / "reg.csv"
        reg.write_text(text)
        with pytest.raises(FileRejected) as info:
            read_registry(reg)
        found.append(info.value.message)
    db_path.write_bytes(b"")  # the database file itself, handed in as a hand log
    _sheets, files = read_all([db_path], held=db_path)
    found += [f["error"].message for f in files if f["error"] is not None]
    assert len(found) >= 16
    assert_known(found)


def test_refused_sign_ins_speak_indonesian(con):
    auth.add_user(con, "rina", PW, ["unhas-2024"])
    ident = auth.sign_in(con, "rina", PW, limiter=auth.RateLimiter(attempts=3, window=60.0)).identity
    found = []
    for events in (["pepet-2024"],):
        with pytest.raises(auth.NotAllowed) as info:
            auth.check_rights(con, ident, events)
        found.append(str(info.value))
    con.execute("DELETE FROM user_events WHERE name = 'rina'")  # no event left
    with pytest.raises(auth.NotAllowed) as info:
        auth.check_rights(con, ident, ["pepet-2024"])
    found.append(str(info.value))
    con.execute("DELETE FROM users WHERE name = 'rina'")
    with pytest.raises(auth.NotAllowed) as info:
        auth.check_rights(con, ident, [])
    found.append(str(info.value))
    with pytest.raises(auth.NotAllowed) as info:
        auth.check_rights(con, None, [])
    found.append(str(info.value))
    assert_known(found)
    assert messages.translate(found[1], "id").endswith("(tidak ada acara yang diizinkan)")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        (0, ""),  # acara: no event
        (1, "ok"),  # aturan: not a ruleset
        (3, ""),  # meja: no table
        (4, ""),  # kocokan: no hand number
        (9, ""),  # oleh: no chair ended it
        (10, ""),  # akhir: no ending
        (16, "0-0 0-1 0-2 0-3 0-4 0-5 0-6 1-1"),  # kartu_a: eight tiles
    ],
)
def test_a_blank_or_impossible_cell_speaks_indonesian(con, tmp_path, field, value):
    lines = list(LINES)
    cells = lines[5].split(",")
    cells[field] = value
    lines[5] = ",".join(cells)
    assert_known(sentences(ingest(con, [write(tmp_path, "cell.csv", lines)])))


def test_an_empty_workbook_sheet_speaks_indonesian(tmp_path):
    import xlsxwriter

    path = tmp_path / "empty.xlsx"
    with xlsxwriter.Workbook(path) as wb:
        wb.add_worksheet("hands")
    with pytest.raises(FileRejected) as info:
        read_file(path)
    assert_known([info.value.message])


# Sentences the scenarios above do not produce (tie-break seating needs a tied match,
# the others hostile or damaged workbooks); listed so the catalogue keeps them.
RARE = [
    "tie-break hand 11 seats players who were not tied with each other (Ana, Budi)",
    "a tie-break hand needs the tied players; this one seats 1",
    "the workbook part 'xl/worksheets/sheet1.xml' expands 2000× when unzipped; refused as a possible zip bomb",
    "the workbook expands to more than 1,000 bytes when unzipped (the limit is 1,000); refused as a possible zip bomb",
    "the workbook part 'xl/x.xml' is compressed in a way Excel never writes; save the file again from Excel",
    "the workbook has no sheets",
    "the workbook cannot be read (CalamineError)",
]


@pytest.mark.parametrize("text", RARE)
def test_rarer_sentences_are_in_the_catalogue(text):
    assert messages.known(text)
    assert not re.search(r"\b(the|is|not|this|hand)\b", messages.translate(text, "id"))
