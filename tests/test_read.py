"""Reading hand logs: every way a referee's file arrives (HANDLOG.md, "Reading a file")."""

import polars as pl
import pytest

from pipeline.ingest import ingest
from pipeline.ingest.normalize import normalize
from pipeline.ingest.read import display_name, read_bytes, read_file
from pipeline.problems import FileRejected
from tests.conftest import DATA

READ = DATA / "read"
SAME_MATCH = [
    "good.csv",
    "semicolon.csv",
    "bom.csv",
    "crlf.csv",
    "indonesian.csv",
    "shuffled_unknown.csv",
    "odd_case.csv",
]


def typed(name: str) -> pl.DataFrame:
    t, probs = normalize(read_file(READ / name).frame)
    assert probs.height == 0, probs.to_dicts()
    return t


@pytest.mark.parametrize("name", SAME_MATCH)
def test_every_variant_reads_as_the_same_hands(name):
    ref = typed("good.csv").select(
        "event", "round", "table", "hand", "player_a", "ending", "ended_by", "last_tile", "pips_c"
    )
    got = typed(name).select(ref.columns)
    if name == "odd_case.csv":
        # names keep their spelling (trimmed, spaces collapsed); identity is case-insensitive
        assert got["player_a"].to_list()[0] == "aNDI"
        got = got.with_columns(pl.col("player_a").str.to_titlecase())
    if name == "indonesian.csv":
        # palang is the Indonesian name of apollo
        assert got["ending"].to_list() == ["biasa", "apollo", "kandang"]
    assert got.sort("hand").equals(ref.sort("hand"))


@pytest.mark.parametrize(
    "name",
    SAME_MATCH + ["cp1252.csv", "mangled_tiles.csv", "blank_rows.csv", "openpyxl_hands_sheet.xlsx"],
)
def test_every_variant_loads_without_problems(con, name):
    p = ingest(con, [READ / name])
    assert p.problems.filter(pl.col("severity") == "error").height == 0, p.problems.to_dicts()
    assert p.exit_code == 0
    assert {o.status for o in p.outcomes} == {"new"}


def test_windows_1252_names():
    t = typed("cp1252.csv")
    assert t["player_a"][0] == "René"
    assert t["player_b"][0] == "Bùdi"


def test_utf8_bom_is_not_part_of_the_first_header():
    s = read_file(READ / "bom.csv")
    assert s.frame["event"][0] == "read-2024"


def test_blank_rows_are_skipped_but_count_for_line_numbers():
    s = read_file(READ / "blank_rows.csv")
    assert s.frame["_line"].to_list() == [2, 4, 6]
    assert s.frame["hand"].to_list() == ["1", "2", "3"]


def test_unknown_columns_are_kept_with_the_row(con):
    s = read_file(READ / "shuffled_unknown.csv")
    assert s.extra_columns == ["wasit", "meja_cadangan"]
    ingest(con, [READ / "shuffled_unknown.csv"])
    extras = con.execute(
        "SELECT DISTINCT extra->>'wasit', extra->>'meja_cadangan' FROM hands"
    ).fetchall()
    assert extras == [("Pak Basri", "x")]


def test_lineage_file_and_line_are_stored(con):
    ingest(con, [READ / "blank_rows.csv"])
    rows = con.execute("SELECT hand, file, line FROM hands ORDER BY hand").fetchall()
    assert rows == [(1, "blank_rows.csv", 2), (2, "blank_rows.csv", 4), (3, "blank_rows.csv", 6)]


def test_spreadsheet_mangled_tiles():
    t = typed("mangled_tiles.csv")
    # 06/01/26 → {6, 1}; 2026-06-06 → {6, 6}; 6 → 0-6 (was 06); 53.0 → 5-3
    assert t.sort("hand")["last_tile"].to_list() == ["6-1", "6-6", "6-0", "5-3"]


def test_xlsx_sheet_hands_dates_and_numbers():
    s = read_file(READ / "openpyxl_hands_sheet.xlsx")
    assert s.frame["_line"].to_list() == [2, 3, 5, 6]  # row 4 is blank
    t, probs = normalize(s.frame)
    assert probs.height == 0
    # a date cell 3 May → 5-3; 66 → 6-6; text 4-1; 6 → 0-6; tiles_a date 4 June → 6-4
    assert t.sort("hand")["last_tile"].to_list() == ["5-3", "6-6", "4-1", "6-0"]
    assert t.sort("hand")["tiles_a"].to_list()[2] == "6-4"
    assert t.sort("hand")["pips_c"].to_list()[2] == 3  # 3.0 read as an integer


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("empty.csv", "empty"),
        ("header_only.csv", "header_only"),
        ("not_a_hand_log.csv", "not_a_hand_log"),
        ("no_ending_column.csv", "missing_column"),
    ],
)
def test_unreadable_files_are_rejected_whole(con, name, code):
    with pytest.raises(FileRejected) as info:
        read_file(READ / name)
    assert info.value.code == code
    assert info.value.file == name
    p = ingest(con, [READ / name])
    assert p.exit_code == 1
    assert p.problems["code"].to_list() == [code]
    assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] == 0


def test_missing_column_names_the_column():
    with pytest.raises(FileRejected) as info:
        read_file(READ / "no_ending_column.csv")
    assert info.value.column == "ending"
    assert "ending" in info.value.message


def test_file_names_lose_their_folders():
    assert display_name("../../etc/passwd.csv") == "passwd.csv"
    assert display_name("C:\\Users\\wasit\\meja1.csv") == "meja1.csv"
    s = read_bytes((READ / "good.csv").read_bytes(), "../../x/meja1.csv")
    assert s.file == "meja1.csv"
    assert set(s.frame["_file"].to_list()) == {"meja1.csv"}


def test_a_named_workbook_that_is_not_one():
    with pytest.raises(FileRejected) as info:
        read_bytes(b"event,round\n", "hasil.xlsx")
    assert info.value.code == "not_xlsx"


def test_xlsx_saved_by_libreoffice_with_tiles_it_turned_into_dates(con):
    """libreoffice_saved.xlsx: LibreOffice Calc opened libreoffice_source.csv.txt and saved
    it as .xlsx; it turned 5/3, 2/1 and 4/6 into dates, 66 and 06 into numbers."""
    t, probs = normalize(read_file(READ / "libreoffice_saved.xlsx").frame)
    assert probs.height == 0
    t = t.sort("hand")
    assert t["last_tile"].to_list() == ["5-3", "6-6", "6-0", "2-1", "5-3"]
    assert t["tiles_a"].to_list()[2] == "6-4"
    p = ingest(con, [READ / "libreoffice_saved.xlsx"])
    assert p.exit_code == 0 and p.count("new") == 1
    pts = con.execute("SELECT player, points FROM table_standings ORDER BY player").fetchall()
    # biasa A +2 / D -1; apollo B +6 / A -4; kandang C(Andi) +3 / B -2; ceki D +4 / C(Andi) -3;
    # biasa A(Citra) +2 / D -1
    assert pts == [("Andi", 2 - 4 + 3 - 3), ("Budi", 6 - 2), ("Citra", 2), ("Dewi", -1 + 4 - 1)]
