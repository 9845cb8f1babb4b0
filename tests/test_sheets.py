"""``domino sheets``: pre-filled hand logs of a drawn round, and the record to print.

The round trip is the proof: the simulator plays the drawn tables, the result cells of the
generated workbooks are filled with its hands (openpyxl, as another spreadsheet saves
them), and loading them gives the same standings as loading the simulator's plain log.
"""

import csv
import io
import random
import shutil
import subprocess
from datetime import date
from pathlib import Path

import openpyxl
import polars as pl
import pytest
from click.testing import CliRunner

from pipeline import rulesets
from pipeline.cli import cli
from pipeline.ingest import ingest
from pipeline.ingest.columns import CANONICAL, canonical_name
from pipeline.ingest.read import read_file
from pipeline.sheets import printable, write_sheets
from pipeline.store.db import connect
from simulator.events import pepet_table, record, unhas_match
from tests.draw_fixture import create_event, seat_round

UNHAS_TABLES = {
    "1": {"A": "Andi Amir", "B": "Budi Bakri", "C": "Citra Daeng", "D": "Dewi Hamzah"},
    "2": {"A": "Eko Hasyim", "B": "Fajar Ilyas", "C": "Gilang Kadir"},  # D empty: 3 players
}
PEPET_TABLES = {
    str(t + 1): dict(zip("ABCD", [f"Pemain {4 * t + i}" for i in range(1, 5)], strict=True))
    for t in range(3)
}
RESULT = [
    "ended_by",
    "ending",
    "last_tile",
    *(f"{k}_{c}" for k in ("pips", "tiles", "sanctions") for c in "abcd"),
    "note",
]


def _drawn(con, ruleset: str, event: str = "ev-1") -> tuple[str, dict[str, dict[str, str]]]:
    create_event(
        con,
        event,
        ruleset,
        title="Turnamen Domino Dies Natalis",
        on=date(2026, 6, 1),
        venue="Aula FK Unhas",
        level="kota",
    )
    if ruleset == "unhas":
        seat_round(con, event, "R1", UNHAS_TABLES)
        return "R1", UNHAS_TABLES
    seat_round(con, event, "S1", PEPET_TABLES, per_hand=None)
    return "S1", PEPET_TABLES


def _play(ruleset: str, rnd: str, tables: dict[str, dict[str, str]], seed: int) -> list:
    rng = random.Random(seed)
    hands = []
    for table, start in tables.items():
        if ruleset == "unhas":
            hands += unhas_match(rng, rnd, table, start)
        else:
            hands += pepet_table(rng, rnd, table, start, 8)  # 8 of the 12 rows offered
    return hands


def _hands_sheet(path: Path):
    wb = openpyxl.load_workbook(path)
    ws = wb["hands"]
    cols = [canonical_name(str(c.value)) for c in ws[1]]
    return wb, ws, cols


def _fill(path: Path, played: pl.DataFrame, out: Path) -> None:
    """Write the played hands of this workbook's table into its result cells; hands beyond
    the pre-filled rows (tie-break hands) go below as whole rows."""
    wb, ws, cols = _hands_sheet(path)
    by_hand = {r[cols.index("hand")].value: r for r in ws.iter_rows(min_row=2)}
    table = ws.cell(2, cols.index("table") + 1).value
    for row in played.filter(pl.col("table") == table).iter_rows(named=True):
        cells = by_hand.get(row["hand"])
        if cells is None:
            ws.append([row.get(c) for c in cols])
            continue
        for c in ("player_a", "player_b", "player_c", "player_d"):
            assert (cells[cols.index(c)].value or None) == row[c], (table, row["hand"], c)
        for c in RESULT:
            if c in cols and row[c] is not None:
                cells[cols.index(c)].value = row[c]
    wb.save(out)


def _standings(con, event: str) -> dict[str, list]:
    return {
        view: con.execute(
            f"SELECT * EXCLUDE (event) FROM {view} WHERE event = ? ORDER BY ALL", [event]
        ).fetchall()
        for view in ("table_standings", "event_standings", "hand_points")
    }


@pytest.mark.parametrize("ruleset", ["unhas", "pepet"])
def test_filled_sheets_load_to_the_standings_of_the_plain_log(tmp_path, ruleset):
    with connect(tmp_path / "drawn.duckdb") as con:
        rnd, tables = _drawn(con, ruleset)
        written = write_sheets(con, "ev-1", rnd, tmp_path / "out")
        played = record(_play(ruleset, rnd, tables, 5), ruleset, "ev-1", random.Random(9))
        filled = []
        for path in sorted(p for p in written if p.suffix == ".xlsx"):
            filled.append(tmp_path / f"filled-{path.name}")
            _fill(path, played, filled[-1])
        plan = ingest(con, filled)
        assert plan.errors.height == 0, plan.errors.to_dicts()
        assert {o.status for o in plan.outcomes} == {"new"}
        via_sheets = _standings(con, "ev-1")
    plain = tmp_path / "plain.csv"
    played.write_csv(plain)
    with connect(tmp_path / "plain.duckdb") as con:
        assert ingest(con, [plain]).errors.height == 0
        assert _standings(con, "ev-1") == via_sheets
    assert len(via_sheets["table_standings"]) == sum(len(t) for t in tables.values())


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
@pytest.mark.parametrize("kind", ["xlsx", "ods"])  # ods: LibreOffice's own format
def test_a_sheet_saved_by_libreoffice_loads(con, tmp_path, kind):
    rnd, tables = _drawn(con, "unhas")
    write_sheets(con, "ev-1", rnd, tmp_path / "out")
    played = record(_play("unhas", rnd, tables, 5), "unhas", "ev-1", random.Random(9))
    _fill(tmp_path / "out" / "ev-1_R1_meja1.xlsx", played, tmp_path / "filled.xlsx")
    (tmp_path / "lo").mkdir()
    subprocess.run(
        ["soffice", "--headless", "--convert-to", kind, "--outdir", str(tmp_path / "lo"),
         str(tmp_path / "filled.xlsx")],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    plan = ingest(con, [tmp_path / "lo" / f"filled.{kind}"])
    assert plan.errors.height == 0, plan.errors.to_dicts()
    assert [(o.table, o.status) for o in plan.outcomes] == [("1", "new")]


def test_the_sheets_of_a_round(con, tmp_path):
    _drawn(con, "unhas")
    written = write_sheets(con, "ev-1", "R1", tmp_path)
    assert [p.name for p in written] == [
        "ev-1_R1_meja1.xlsx",
        "ev-1_R1_meja1.csv",
        "ev-1_R1_meja2.xlsx",
        "ev-1_R1_meja2.csv",
        "ev-1_R1.pdf",
        "ev-1_R1_daftar_meja.pdf",
    ]
    wb, ws, cols = _hands_sheet(tmp_path / "ev-1_R1_meja2.xlsx")
    assert wb.sheetnames == ["hands", "contoh", "info"]
    # Indonesian headers, each one the reader maps back to a contract column
    assert [c.value for c in ws[1]][:9] == [
        "Acara", "Aturan", "Babak", "Meja", "Kocokan", "Kursi A", "Kursi B", "Kursi C", "Kursi D"
    ]  # fmt: skip
    assert cols == list(CANONICAL)
    rows = [[c.value for c in r] for r in ws.iter_rows(min_row=2)]
    assert len(rows) == 10
    names = [tuple(r[5:9]) for r in rows]
    # Art. 1.14-1.15 worked by hand: start A Eko, B Fajar, C Gilang, D empty
    assert names[0] == names[1] == ("Eko Hasyim", "Fajar Ilyas", "Gilang Kadir", None)
    assert names[2] == names[5] == ("Gilang Kadir", "Fajar Ilyas", "Eko Hasyim", None)
    assert names[6] == names[9] == ("Gilang Kadir", None, "Eko Hasyim", "Fajar Ilyas")
    assert [r[4] for r in rows] == list(range(1, 11))
    assert all(r[0:4] == ["ev-1", "unhas", "R1", "2"] for r in rows)
    assert all(v is None for r in rows for v in r[9:])  # every result cell blank
    info = [[c.value for c in r] for r in wb["info"].iter_rows()]
    assert info[0][0] == "Turnamen Domino Dies Natalis"
    assert ["Meja / table", "2"] in info and ["Tempat / venue", "Aula FK Unhas"] in info


def test_result_cells_offer_the_rulesets_values(con, tmp_path):
    _drawn(con, "unhas")
    write_sheets(con, "ev-1", "R1", tmp_path)
    _, ws, cols = _hands_sheet(tmp_path / "ev-1_R1_meja1.xlsx")
    letter = {c: openpyxl.utils.get_column_letter(cols.index(c) + 1) for c in cols}
    rules = {str(dv.sqref).split(":")[0]: dv for dv in ws.data_validations.dataValidation}
    ending = rules[f"{letter['ending']}2"]
    assert ending.type == "list"
    choices = ending.formula1.strip('"').split(",")
    assert choices[:6] == rulesets.load("unhas").endings
    assert {"palang", "balak"} <= set(choices) and "habis" not in choices
    assert rules[f"{letter['ended_by']}2"].formula1 == '"A,B,C,D"'
    pips = rules[f"{letter['pips_c']}2"]
    # "between" is the default operator, which the file leaves out
    assert (pips.type, pips.operator or "between") == ("whole", "between")
    assert (pips.formula1, pips.formula2) == ("0", "69")
    # the rows a tie-break needs below the ten hands keep them (10 spare rows)
    assert str(ending.sqref) == f"{letter['ending']}2:{letter['ending']}21"


def test_a_pepet_session_sheet_offers_the_rulesets_rows(con, tmp_path):
    _drawn(con, "pepet")
    write_sheets(con, "ev-1", "S1", tmp_path)
    _, ws, cols = _hands_sheet(tmp_path / "ev-1_S1_meja3.xlsx")
    assert ws["C1"].value == "Sesi"
    assert not any(c.startswith("sanctions_") for c in cols)  # [sheet] skip_prefixes
    rows = [[c.value for c in r] for r in ws.iter_rows(min_row=2)]
    assert len(rows) == rulesets.load("pepet").params["sheet"]["hands"] == 12
    assert {tuple(r[5:9]) for r in rows} == {("Pemain 9", "Pemain 10", "Pemain 11", "Pemain 12")}
    rules = {str(dv.sqref).split(":")[0]: dv for dv in ws.data_validations.dataValidation}
    pips = rules[f"{openpyxl.utils.get_column_letter(cols.index('pips_a') + 1)}2"]
    assert pips.formula2 == "74"


def test_a_pepet_sheet_has_the_ganti_columns_a_reserve_is_written_in(con, tmp_path):
    """Rule 23 on a pre-filled session sheet: the absent member's drawn name in a chair
    left the referee no place to say a reserve played for them (and the draw check refused
    the reserve without the record). The sheet offers ``Ganti A`` … ``Ganti D`` before the
    note, the printed page says how to write it, and a sheet so filled in loads."""
    _drawn(con, "pepet")
    files = write_sheets(con, "ev-1", "S1", tmp_path)
    lines = list(
        csv.reader(
            io.StringIO((tmp_path / "ev-1_S1_meja3.csv").read_text("utf-8-sig")), delimiter=";"
        )
    )
    head = lines[0]
    assert head[-5:] == ["Ganti A", "Ganti B", "Ganti C", "Ganti D", "Catatan"]
    _, _, cols = _hands_sheet(tmp_path / "ev-1_S1_meja3.xlsx")
    assert cols[-5:] == ["replaces_a", "replaces_b", "replaces_c", "replaces_d", "note"]
    page = " ".join(_pdf_lines(files[-2].read_bytes()))
    assert "Cadangan (aturan 23): coret nama anggota yang tidak hadir" in page
    assert "the member's name goes in that chair's Ganti column" in page
    # unhas has no reserves: neither the columns nor the note
    _drawn(con, "unhas", event="ev-2")
    write_sheets(con, "ev-2", "R1", tmp_path / "u")
    assert "Ganti" not in (tmp_path / "u" / "ev-2_R1_meja1.csv").read_text("utf-8-sig")
    assert "Cadangan" not in " ".join(_pdf_lines((tmp_path / "u" / "ev-2_R1.pdf").read_bytes()))
    # Pemain 10 (chair B) is absent; a reserve plays for them
    row = lines[1]
    row[head.index("Kursi B")] = "Pemain Cadangan"
    row[head.index("Ganti B")] = "Pemain 10"
    row[head.index("Oleh")], row[head.index("Akhir")] = "A", "habis"
    for c, pips in zip("BCD", ("5", "10", "20"), strict=True):
        row[head.index(f"Biji {c}")] = pips
    out = io.StringIO()
    csv.writer(out, delimiter=";").writerows(lines[:2])
    (tmp_path / "meja3.csv").write_text(out.getvalue(), encoding="utf-8-sig")
    plan = ingest(con, [tmp_path / "meja3.csv"])
    assert [o.status for o in plan.outcomes] == ["new"]
    assert plan.errors.height == 0


def test_the_csv_holds_the_same_rows_and_reads_back(con, tmp_path):
    _drawn(con, "unhas")
    write_sheets(con, "ev-1", "R1", tmp_path)
    raw = (tmp_path / "ev-1_R1_meja1.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    lines = list(csv.reader(io.StringIO(raw.decode("utf-8-sig")), delimiter=";"))
    assert lines[0][:5] == ["Acara", "Aturan", "Babak", "Meja", "Kocokan"]
    _, ws, _ = _hands_sheet(tmp_path / "ev-1_R1_meja1.xlsx")
    xlsx = [[("" if c.value is None else str(c.value)) for c in r] for r in ws.iter_rows(min_row=2)]
    assert lines[1:] == xlsx
    # filled in (hand 1 only) it reads as one hand; the nine blank hands are skipped
    lines[1][lines[0].index("Oleh")] = "B"
    lines[1][lines[0].index("Akhir")] = "biasa"
    out = io.StringIO()
    csv.writer(out, delimiter=";").writerows(lines)
    (tmp_path / "one.csv").write_text(out.getvalue(), encoding="utf-8-sig")
    sheet = read_file(tmp_path / "one.csv")
    assert sheet.frame.select("_line", "hand", "player_b", "ending").rows() == [
        (2, "1", "Budi Bakri", "biasa")
    ]


def test_a_match_stopped_early_loads_its_played_hands(con, tmp_path):
    _drawn(con, "unhas")
    write_sheets(con, "ev-1", "R1", tmp_path)
    played = record(_play("unhas", "R1", UNHAS_TABLES, 5), "unhas", "ev-1", random.Random(9))
    _fill(tmp_path / "ev-1_R1_meja1.xlsx", played.filter(pl.col("hand") <= 6), tmp_path / "f.xlsx")
    plan = ingest(con, [tmp_path / "f.xlsx"])
    assert plan.problems.height == 0
    assert [(o.table, o.status, o.hands) for o in plan.outcomes] == [("1", "new", 6)]
    complete = con.execute("SELECT DISTINCT complete FROM table_standings WHERE event = 'ev-1'")
    assert complete.fetchall() == [(False,)]


@pytest.mark.parametrize("lang", ["en", "id"])
def test_a_sheet_uploaded_before_it_is_filled_in_says_so(con, tmp_path, lang):
    """A pre-filled sheet sent as it was printed (seats, no result): refused whole, in one
    sentence that says why, not as a file with no hands; in a workbook of several
    sheets, such a sheet is skipped with its own note."""
    from pipeline.problems import FileRejected

    _drawn(con, "unhas")
    write_sheets(con, "ev-1", "R1", tmp_path)
    for name in ("ev-1_R1_meja1.csv", "ev-1_R1_meja1.xlsx"):
        with pytest.raises(FileRejected) as info:
            read_file(tmp_path / name)
        assert info.value.message_id == "header_only.unplayed"
        said = info.value.render(lang)
        assert "10" in said and said != FileRejected(name, "header_only").render(lang), said
        plan = ingest(con, [tmp_path / name])
        assert plan.exit_code == 1
        assert plan.problems.select("file", "code").rows() == [(name, "header_only")]
    assert con.execute("SELECT count(*) FROM hands").fetchall() == [(0,)]
    # a workbook with a played table and one not yet filled in: the played one loads
    played = record(_play("unhas", "R1", UNHAS_TABLES, 5), "unhas", "ev-1", random.Random(9))
    _fill(
        tmp_path / "ev-1_R1_meja1.xlsx", played.filter(pl.col("table") == "1"), tmp_path / "f.xlsx"
    )
    wb = openpyxl.load_workbook(tmp_path / "f.xlsx")
    wb["hands"].title = "meja1"  # a workbook with a sheet named hands is read from it alone
    blank = openpyxl.load_workbook(tmp_path / "ev-1_R1_meja2.xlsx")["hands"]
    other = wb.create_sheet("meja2")
    for row in blank.iter_rows(values_only=True):
        other.append(row)
    wb.save(tmp_path / "two.xlsx")
    plan = ingest(con, [tmp_path / "two.xlsx"])
    assert [(o.table, o.status) for o in plan.outcomes] == [("1", "new")]
    notes = plan.problems.filter(pl.col("message_id") == "sheet_skipped.unplayed")
    assert notes.select("file", "message").rows() == [
        ("two.xlsx [meja2]", "skipped: none of its 10 hands has a result yet (a pre-filled sheet)")
    ]


def test_an_untouched_sheet_of_a_table_filled_in_elsewhere_is_skipped_in_a_load(db_path, tmp_path):
    """The referees fill the ``.xlsx`` (or the ``.csv``) that ``domino sheets`` wrote and the
    coordinator loads the whole folder: the untouched sheet of a table another sheet of the
    load holds is a warning naming that sheet, not a refusal failing the load; one whose
    table no sheet holds is still refused, also when that sheet comes in a later batch."""
    from pipeline.ingest import service
    from pipeline.ingest.read import in_folder

    out = tmp_path / "sheets"
    with connect(db_path) as con:
        _drawn(con, "unhas")
        write_sheets(con, "ev-1", "R1", out)
    played = record(_play("unhas", "R1", UNHAS_TABLES, 5), "unhas", "ev-1", random.Random(9))
    xlsx1, csv2 = out / "ev-1_R1_meja1.xlsx", out / "ev-1_R1_meja2.csv"
    _fill(xlsx1, played, xlsx1)  # table 1: the .xlsx filled in, saved over itself
    runner = CliRunner()
    # table 2 not filled in anywhere: both of its files are refused, table 1 loads
    r = runner.invoke(cli, ["ingest", str(out), "--db", str(db_path), "--dry-run"])
    assert r.exit_code == 1, r.output
    assert (
        "ev-1_R1_meja1.csv: skipped: none of its 10 hands has a result yet (a pre-filled "
        "sheet), and its table is read from ev-1_R1_meja1.xlsx in this load"
        in " ".join(r.output.split())
    ), r.output
    assert r.output.count("none of the file's 10 hands has a result yet") == 2, r.output
    # table 2's .csv filled in (as a spreadsheet saves it): its untouched .xlsx is skipped
    _fill(out / "ev-1_R1_meja2.xlsx", played, tmp_path / "t2.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "t2.xlsx")
    with csv2.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, delimiter=";").writerows(wb["hands"].iter_rows(values_only=True))
    with connect(db_path) as con:
        # a batch per file: the untouched ones come last and find their tables loaded
        plan = service.load(con, in_folder(out), batch_rows=1)
        assert plan.exit_code == 0
        assert [(o.table, o.status) for o in plan.outcomes] == [("1", "new"), ("2", "new")]
        assert sorted(plan.problems.select("file", "severity", "message_id").rows()) == [
            ("ev-1_R1_meja1.csv", "warning", "sheet_skipped.loaded"),
            ("ev-1_R1_meja2.xlsx", "warning", "sheet_skipped.loaded"),
        ]
        (said,) = plan.problems.filter(pl.col("file") == "ev-1_R1_meja2.xlsx").to_dicts()
        assert said["message"].endswith("loaded already (version 1, from ev-1_R1_meja2.csv)")
        logged = con.execute(
            "SELECT file, status FROM ingests WHERE file LIKE 'ev-1_R1_meja%' ORDER BY file"
        ).fetchall()
        assert logged == [(f"ev-1_R1_meja{t}.{x}", "done") for t in (1, 2) for x in ("csv", "xlsx")]
        assert con.execute('SELECT count(DISTINCT "table") FROM hands').fetchall() == [(2,)]
        # both of table 2's files filled in with the same hands: read once, nothing kept out
        shutil.copy(tmp_path / "t2.xlsx", out / "ev-1_R1_meja2.xlsx")
        plan = service.load(con, in_folder(out))  # one batch: the twin is in it
        assert [(o.table, o.status) for o in plan.outcomes] == [
            ("1", "unchanged"),
            ("2", "unchanged"),
        ]
        assert sorted(plan.problems.select("file", "severity", "message_id").rows()) == [
            ("ev-1_R1_meja1.csv", "warning", "sheet_skipped.twin"),
            ("ev-1_R1_meja2.xlsx", "warning", "same_file.same_hands"),
        ]
        # a workbook whose hand sheet repeats the .csv: what it says of its other sheets stays
        wb = openpyxl.load_workbook(tmp_path / "t2.xlsx")
        wb["hands"].title = "meja2"
        wb.save(tmp_path / "buku.xlsx")
        plan = service.load(con, [csv2, tmp_path / "buku.xlsx"])
        assert sorted(plan.problems.select("file", "message_id").rows()) == [
            ("buku.xlsx [contoh]", "sheet_skipped.titled"),  # an example under a title
            ("buku.xlsx [info]", "sheet_skipped.no_columns"),
            ("buku.xlsx [meja2]", "same_file.same_hands"),
        ]
    # a copy exported under another name (Google Sheets: "… - hands.csv") is the filled-in
    # one: both files as written are skipped, whichever comes first
    exported = tmp_path / "export" / "ev-1_R1_meja2 - hands.csv"
    exported.parent.mkdir()
    shutil.move(csv2, exported)
    again = tmp_path / "again"
    with connect(db_path) as con:
        write_sheets(con, "ev-1", "R1", again)
        before = [again / f"ev-1_R1_meja2.{x}" for x in ("csv", "xlsx")]
        for files in ([*before, exported], [exported, *before]):
            plan = service.load(con, files)
            assert [(o.table, o.status) for o in plan.outcomes] == [("2", "unchanged")]
            assert sorted(plan.problems.select("file", "message_id", "message").rows()) == [
                (
                    f.name,
                    "sheet_skipped.twin",
                    "skipped: none of its 10 hands has a result "
                    "yet (a pre-filled sheet), and its table is read from ev-1_R1_meja2 - "
                    "hands.csv in this load",
                )
                for f in before
            ]


def test_an_untouched_sheet_of_a_table_loaded_before_is_skipped(store, tmp_path):
    """A table entered on the hand-entry page (or loaded from its filled-in sheet) and the
    folder of untouched sheets loaded later: its sheets are said to be skipped, naming the
    loaded version; a table not loaded, or withdrawn, keeps its sheets refused."""
    from pipeline.ingest import service
    from pipeline.ingest.read import in_folder
    from pipeline.ingest.withdraw import withdraw
    from tests.pg import open_store

    played = record(_play("unhas", "R1", UNHAS_TABLES, 5), "unhas", "ev-1", random.Random(9))
    with open_store(store) as con:
        _drawn(con, "unhas")
        write_sheets(con, "ev-1", "R1", tmp_path / "blank")
        _fill(tmp_path / "blank" / "ev-1_R1_meja1.xlsx", played, tmp_path / "meja1.xlsx")
        assert service.load(con, [tmp_path / "meja1.xlsx"]).exit_code == 0
        plan = service.load(con, in_folder(tmp_path / "blank"))
        assert plan.exit_code == 1 and plan.outcomes == []
        assert sorted(plan.problems.select("file", "severity", "message_id").rows()) == [
            ("ev-1_R1_meja1.csv", "warning", "sheet_skipped.loaded"),
            ("ev-1_R1_meja1.xlsx", "warning", "sheet_skipped.loaded"),
            ("ev-1_R1_meja2.csv", "error", "header_only.unplayed"),
            ("ev-1_R1_meja2.xlsx", "error", "header_only.unplayed"),
        ]
        said = plan.problems.filter(pl.col("file") == "ev-1_R1_meja1.csv")["message"][0]
        assert said.endswith("its table is loaded already (version 1, from meja1.xlsx)")
        withdraw(con, "ev-1", "R1", "1", reason="dimuat ke babak yang salah", by="juri")
        plan = service.load(con, [tmp_path / "blank" / "ev-1_R1_meja1.csv"])
        assert plan.problems["message_id"].to_list() == ["header_only.unplayed"]


def test_a_hand_left_blank_between_played_hands_is_a_gap(con, tmp_path):
    _drawn(con, "unhas")
    write_sheets(con, "ev-1", "R1", tmp_path)
    played = record(_play("unhas", "R1", UNHAS_TABLES, 5), "unhas", "ev-1", random.Random(9))
    _fill(tmp_path / "ev-1_R1_meja1.xlsx", played.filter(pl.col("hand") != 4), tmp_path / "f.xlsx")
    plan = ingest(con, [tmp_path / "f.xlsx"])
    assert {o.status for o in plan.outcomes} == {"rejected"}
    # hand 4's row (line 5) is skipped as not played; hand 5 (line 6) then breaks the order
    assert plan.errors.select("line", "column", "code").rows() == [(6, "hand", "hand_gap")]
    assert con.execute("SELECT count(*) FROM hands").fetchall() == [(0,)]


def test_an_unknown_ending_keeps_the_match_out_and_names_line_and_column(con, tmp_path):
    _drawn(con, "unhas")
    write_sheets(con, "ev-1", "R1", tmp_path)
    played = record(_play("unhas", "R1", UNHAS_TABLES, 5), "unhas", "ev-1", random.Random(9))
    played = played.with_columns(
        pl.when(pl.col("hand") == 3).then(pl.lit("menang")).otherwise("ending").alias("ending")
    )
    _fill(tmp_path / "ev-1_R1_meja1.xlsx", played, tmp_path / "meja1.xlsx")
    plan = ingest(con, [tmp_path / "meja1.xlsx"])
    assert [(o.table, o.status) for o in plan.outcomes] == [("1", "rejected")]
    (p,) = plan.errors.to_dicts()
    assert (p["file"], p["line"], p["column"], p["code"]) == (
        "meja1.xlsx",
        4,
        "ending",
        "unknown_ending",
    )
    assert p["message"].startswith("menang is not an ending of ruleset unhas")
    assert con.execute("SELECT count(*) FROM hands").fetchall() == [(0,)]


@pytest.mark.parametrize("ruleset", ["unhas", "pepet"])
def test_the_example_rows_load(con, tmp_path, ruleset):
    rnd, _ = _drawn(con, ruleset)
    write_sheets(con, "ev-1", rnd, tmp_path)
    ws = openpyxl.load_workbook(tmp_path / f"ev-1_{rnd}_meja1.xlsx")["contoh"]
    rows = [[c.value for c in r] for r in ws.iter_rows(min_row=3)]
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    (tmp_path / "contoh.csv").write_text(out.getvalue())
    plan = ingest(con, [tmp_path / "contoh.csv"])
    assert plan.errors.height == 0, plan.errors.to_dicts()
    assert [o.hands for o in plan.outcomes] == [2]


def _drawn_with_a_second_session(con, names: tuple[str, str, str, str]) -> None:
    """The pepet event of :func:`_drawn`, and a session S2 of one table seating ``names``
    in chairs A-D."""
    _drawn(con, "pepet")
    seat_round(con, "ev-1", "S2", {"1": dict(zip("ABCD", names, strict=True))}, per_hand=None)


def test_the_pdf_has_a_page_per_table(con, tmp_path, monkeypatch):
    _drawn_with_a_second_session(con, ("Şükrü", "Nguyễn Văn An", "Zoë", "Ana"))
    pdf = write_sheets(con, "ev-1", "S1", tmp_path / "s1")[-2].read_bytes()
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page\n") == 3
    # without a Unicode font the core font writes the names without their accents
    monkeypatch.setattr(printable, "find_font", lambda: None)
    pdf = write_sheets(con, "ev-1", "S2", tmp_path / "s2")[-2].read_bytes()
    assert pdf.count(b"/Type /Page\n") == 1
    # ü is Latin-1, ễ and Ş are not; the page's own dashes become plain ones
    assert printable.latin1("Nguyễn Văn An · Şükrü Zoë") == "Nguyen Van An · Sükrü Zoë"
    assert printable.latin1("Turnamen — 0–69") == "Turnamen - 0-69"


def _fonts_or_skip(*names: str) -> None:
    for name in names:
        if not any(
            folder.is_dir() and next(folder.rglob(name), None) for folder in printable.FONT_DIRS
        ):
            pytest.skip(f"needs {name} (fonts-liberation, fonts-dejavu-core)")


def test_a_name_no_font_can_write_is_said_on_the_page_and_by_the_cli(
    db_path, tmp_path, monkeypatch
):
    """Before: 王小明 was printed as ??? on the sheets without a word; a font found on
    the machine for such letters (fonts-noto-cjk …) is now used for them, and what none
    can write is said on the page and on stderr."""
    from pypdf import PdfReader

    _fonts_or_skip("LiberationSans-Regular.ttf", "DejaVuSans.ttf")
    with connect(db_path) as con:
        _drawn_with_a_second_session(con, ("محمد علي", "王小明", "Zoë", "Ana"))
    # Liberation Sans has neither Arabic nor Chinese letters; DejaVu Sans has Arabic
    monkeypatch.setattr(
        printable, "FONTS", (("LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf"),)
    )
    monkeypatch.setattr(printable, "FALLBACK_FONTS", (("DejaVuSans.ttf", 0),))
    r = CliRunner().invoke(
        cli, ["sheets", "--event", "ev-1", "--round", "S2", "--out", str(tmp_path / "s2")]
    )
    assert r.exit_code == 0, r.output
    assert " ".join(r.stderr.split()) == (
        "note: the PDFs write 王小明 with letters no font on this machine has (as ?); the .xlsx "
        "and .csv sheets hold them as they are; install a font that has them (fonts-noto-cjk "
        "for Chinese, Japanese, Korean) and write them again"
    )
    page = PdfReader(tmp_path / "s2" / "ev-1_S2.pdf").pages[0].extract_text()
    assert "???" in page and "王" not in page
    assert "?: huruf yang tidak ada di fon PDF ini" in page
    assert "دمحم" in page  # the fallback's Arabic letters (extracted right to left)
    # a page whose names every font here can write says nothing of fonts
    r = CliRunner().invoke(
        cli, ["sheets", "--event", "ev-1", "--round", "S1", "--out", str(tmp_path / "s1")]
    )
    assert r.exit_code == 0 and r.stderr == "", r.output
    assert (
        "huruf yang tidak ada"
        not in PdfReader(tmp_path / "s1" / "ev-1_S1.pdf").pages[0].extract_text()
    )
    # without the fallback, the Arabic name is said too
    monkeypatch.setattr(printable, "FALLBACK_FONTS", ())
    assert printable.unwritable(["Zoë", "محمد علي", "王小明", None]) == ["محمد علي", "王小明"]


def test_cli_writes_the_files_and_refuses_a_round_without_a_draw(db_path, tmp_path):
    with connect(db_path) as con:
        _drawn(con, "unhas")
    runner = CliRunner()
    res = runner.invoke(
        cli, ["sheets", "--event", "ev-1", "--round", "R1", "--out", str(tmp_path / "o")]
    )
    assert res.exit_code == 0, res.output
    assert res.output.startswith(
        "wrote 2 table sheet(s) (.xlsx and .csv), ev-1_R1.pdf (a page per table) and "
        "ev-1_R1_daftar_meja.pdf (who sits where) to "
    )
    assert sorted(p.name for p in (tmp_path / "o").iterdir())[-1] == "ev-1_R1_meja2.xlsx"
    res = runner.invoke(
        cli, ["sheets", "--event", "ev-1", "--round", "R2", "--out", str(tmp_path / "o")]
    )
    assert res.exit_code == 1
    assert "round 'R2' of event 'ev-1' has no draw yet" in res.output
    assert "Traceback" not in res.output
    res = runner.invoke(cli, ["sheets", "--event", "ev-1", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2


def _pdf_lines(pdf: bytes) -> list[str]:
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return [line for page in reader.pages for line in page.extract_text().splitlines()]


def test_the_seating_list_names_every_player_with_table_and_chair(con, tmp_path):
    from pipeline.sheets import drawn_round
    from pipeline.sheets.seating import seating_pdf

    _drawn(con, "unhas")
    pdf = seating_pdf(drawn_round(con, "ev-1", "R1"))
    text = _pdf_lines(pdf)
    assert "Daftar meja Babak R1 / seating of round R1" in text
    # by name, with the chair of hand 1 (UNHAS_TABLES; the swaps come later)
    start = text.index("Nama / name Meja Kursi") + 1
    assert text[start : start + 7] == [
        "Andi Amir 1 A",
        "Budi Bakri 1 B",
        "Citra Daeng 1 C",
        "Dewi Hamzah 1 D",
        "Eko Hasyim 2 A",
        "Fajar Ilyas 2 B",
        "Gilang Kadir 2 C",
    ]
    at = text.index("Per meja / by table")
    assert text[at + 1].replace("\xa0", " ") == (
        "Meja 1 A Andi Amir  ·  B Budi Bakri  ·  C Citra Daeng  ·  D Dewi Hamzah"
    )
    assert text[at + 2].replace("\xa0", " ") == (
        "Meja 2 A Eko Hasyim  ·  B Fajar Ilyas  ·  C Gilang Kadir"
    )


def test_a_long_seating_list_goes_on_over_pages_and_sorts_by_name(con, tmp_path):
    from pipeline.sheets import drawn_round
    from pipeline.sheets.seating import seating_pdf

    create_event(con, "big", "pepet", title="Liga besar", on=date(2026, 6, 1))
    # 30 tables of 4, names given out of order, one starting in lower case
    names = [f"Pemain {n:03d}" for n in range(120, 0, -1)]
    names[0] = "andi kecil"
    tables = {
        str(t + 1): dict(zip("ABCD", names[4 * t : 4 * t + 4], strict=True)) for t in range(30)
    }
    seat_round(con, "big", "S1", tables, per_hand=None)
    pdf = seating_pdf(drawn_round(con, "big", "S1"))
    assert pdf.count(b"/Type /Page\n") >= 2
    text = _pdf_lines(pdf)
    listed = [line for line in text if line.startswith(("Pemain ", "andi "))]
    # every player once, alphabetically with case aside, with the table and chair of the draw
    expected = sorted(
        (f"{p} {t} {c}" for t, chairs in tables.items() for c, p in chairs.items()),
        key=str.lower,
    )
    assert listed == expected
    assert any("(lanjutan / continued)" in line for line in text)
    # a session's chairs do not swap: no note about the first hand
    assert not any("kocokan 1" in line for line in text)


def test_the_tables_follow_the_longer_column_of_names_not_the_shorter(con):
    # 52 players: the first page's left column is full, its right column shorter. The
    # list by table starts under the left column (here: on the next page), never beside
    # it over the names
    import pypdf

    from pipeline.sheets import drawn_round
    from pipeline.sheets.seating import seating_pdf

    create_event(con, "mid", "pepet", title="Liga", on=date(2026, 6, 1))
    names = [f"Pemain {n:03d}" for n in range(1, 53)]
    tables = {
        str(t + 1): dict(zip("ABCD", names[4 * t : 4 * t + 4], strict=True)) for t in range(13)
    }
    seat_round(con, "mid", "S1", tables, per_hand=None)
    reader = pypdf.PdfReader(io.BytesIO(seating_pdf(drawn_round(con, "mid", "S1"))))

    def placed(page) -> list[tuple[str, float]]:
        seen: list[tuple[str, float]] = []
        page.extract_text(
            visitor_text=lambda text, cm, tm, *_: seen.append((text.strip(), cm[5] + tm[5]))
        )
        return seen

    for page in reader.pages:
        seen = placed(page)
        lowest_name = min((y for t, y in seen if t.startswith("Pemain ")), default=None)
        heading = [y for t, y in seen if t.startswith("Per meja")]
        if heading and lowest_name is not None:
            assert heading[0] < lowest_name  # PDF y grows upwards: below every name
    assert any("Per meja" in p.extract_text() for p in reader.pages)
