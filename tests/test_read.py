"""Reading hand logs: every way a referee's file arrives (HANDLOG.md, "Reading a file")."""

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from pipeline import problems
from pipeline.ingest import ingest
from pipeline.ingest.normalize import _tiles, _tiles_read, normalize
from pipeline.ingest.read import display_name, read_bytes, read_file
from pipeline.problems import FileRejected
from tests.conftest import DATA, as_excel_text

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


def good_cells() -> tuple[list[str], list[list[str]]]:
    """good.csv's header and its rows as lists of cells, to change one and read it again."""
    lines = (READ / "good.csv").read_text(encoding="utf-8").splitlines()
    return lines[0].split(","), [line.split(",") for line in lines[1:]]


def csv_of(header: list[str], rows: list[list[str]]) -> str:
    """A CSV of ``header`` and ``rows`` (cells without commas)."""
    return "\n".join([",".join(header), *(",".join(r) for r in rows)])


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


@pytest.mark.parametrize("unicode", [False, True], ids=["tab-delimited", "unicode-text"])
def test_excel_text_files_read_as_the_same_hands(con, unicode):
    data = as_excel_text(READ / "good.csv", unicode=unicode)
    assert data.startswith(b"\xff\xfe") == unicode
    ref = typed("good.csv")
    t, probs = normalize(read_bytes(data, "hasil.txt").frame)
    assert probs.height == 0, probs.to_dicts()
    assert t.select(ref.columns).drop("_file").sort("hand").equals(ref.drop("_file").sort("hand"))
    s = read_bytes(data, "hasil.txt")
    p = ingest(con, sheets=[s], files=[{"file": s.file, "sha256": s.sha256, "rows": s.rows}])
    assert p.exit_code == 0 and p.count("new") == 1


def test_a_utf16_file_that_does_not_decode_is_refused_in_one_sentence():
    with pytest.raises(FileRejected) as info:
        read_bytes(b"\xff\xfe" + "event\tround".encode("utf-16-le") + b"\x00\xd8", "x.txt")
    assert (info.value.code, info.value.file) == ("not_a_hand_log", "x.txt")
    assert info.value.message.endswith("save the hand log as .xlsx, .ods or CSV and load that")


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


@pytest.mark.parametrize(
    "text",
    ["pemain;kelompok\nAna;KG A\nBudi;KG B\n", "Nama,KG,telepon\nAna,KG A,0811\n", "player\nAna\n"],
)
def test_a_roster_or_registry_given_as_a_hand_log_says_where_it_belongs(con, tmp_path, text):
    """Before: "the column round is missing (a hand log needs round, table, ...)", which
    sent the organiser looking for a column instead of the right command or page."""
    with pytest.raises(FileRejected) as info:
        read_bytes(text.encode(), "peserta.csv")
    assert (info.value.code, info.value.column) == ("player_list", "player")
    assert info.value.message.startswith("this is a list of players (a roster or a registry)")
    assert "domino event roster" in info.value.message
    roster = tmp_path / "peserta.csv"
    roster.write_text(text, encoding="utf-8")
    p = ingest(con, [roster, READ / "good.csv"])
    assert p.exit_code == 1
    assert p.problems.filter(pl.col("file") == "peserta.csv")["code"].to_list() == ["player_list"]
    assert con.execute("SELECT count(*) FROM hands").fetchall()[0][0] > 0  # the hand log loads
    # a hand log that lacks a column, and has one named like a registry's, is still told
    # which column it lacks
    with pytest.raises(FileRejected) as info:
        read_bytes(b"babak,meja,pemain,kursi_a\nR1,1,Ana,Ana\n", "meja1.csv")
    assert info.value.code == "missing_column"


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


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_xlsx_saved_by_libreoffice_with_tiles_it_turned_into_dates(con, kind):
    """libreoffice_saved.xlsx: LibreOffice Calc opened libreoffice_source.csv.txt and saved
    it as .xlsx; it turned 5/3, 2/1 and 4/6 into dates, 66 and 06 into numbers. The .ods
    is that workbook saved again by LibreOffice in its own format (its dates have no time)."""
    t, probs = normalize(read_file(READ / f"libreoffice_saved.{kind}").frame)
    assert probs.height == 0
    t = t.sort("hand")
    assert t["last_tile"].to_list() == ["5-3", "6-6", "6-0", "2-1", "5-3"]
    assert t["tiles_a"].to_list()[2] == "6-4"
    p = ingest(con, [READ / f"libreoffice_saved.{kind}"])
    assert p.exit_code == 0 and p.count("new") == 1
    pts = con.execute("SELECT player, points FROM table_standings ORDER BY player").fetchall()
    # biasa A +2 / D -1; apollo B +6 / A -4; kandang C(Andi) +3 / B -2; ceki D +4 / C(Andi) -3;
    # biasa A(Citra) +2 / D -1
    assert pts == [("Andi", 2 - 4 + 3 - 3), ("Budi", 6 - 2), ("Citra", 2), ("Dewi", -1 + 4 - 1)]


TILE_CELLS = [
    # tiles_a, tiles_b, tiles_c, tiles_d of lines 2-5
    ("6-6 0-0* 2-2*", "5-3,1-0", "", "2024-06-04"),
    ("3-5 0|0 61", "2-2**", "7-1 4-4", "x"),
    ("0-0 4-0", "3-2", "2-3*", ", ,"),
    ("0-0 6-6", "6-1*  5-5", "1-1,1-1", ""),
]


def tile_log(cells: list[tuple[str, ...]]) -> bytes:
    lines = [(READ / "good.csv").read_text().splitlines()[0]]
    for i, row in enumerate(cells, start=1):
        tiles = ",".join(f'"{c}"' for c in row)
        lines.append(f"t,unhas,R1,1,{i},Andi,Budi,Citra,Dewi,A,biasa,5-3,,,,,{tiles},,,,,")
    return ("\n".join(lines) + "\n").encode()


def test_tiles_left_in_hand_every_spelling_dead_dates_and_blanks():
    """HANDLOG "Tiles": a list separated by spaces or commas, any spelling of a tile, `*`
    for a dead tile, a date made of a tile; values worked out by hand from the cells."""
    t, probs = normalize(read_bytes(tile_log(TILE_CELLS), "tiles.csv").frame)
    t = t.sort("hand")
    assert t.columns[-16:] == [
        f"{v}_{c}" for v in ("tiles", "tcount", "tsum", "tsum13") for c in "abcd"
    ]
    rows = {
        c: t.select(f"tiles_{c}", f"tcount_{c}", f"tsum_{c}", f"tsum13_{c}").rows() for c in "abcd"
    }
    assert rows["a"] == [
        ("6-6 0-0* 2-2*", 3, 16, 29),  # 0-0 held with no other blank counts 13
        ("5-3 0-0 6-1", 3, 15, 28),  # written 3-5, 0|0 and 61
        ("0-0 4-0", 2, 4, 4),  # 0-0 with a blank partner counts 0
        ("0-0 6-6", 2, 12, 25),  # a partner without a blank: 0-0 still counts 13
    ]
    assert rows["b"] == [
        ("5-3 1-0", 2, 9, 9),
        ("2-2*", 1, 4, 4),
        ("3-2", 1, 5, 5),
        ("6-1* 5-5", 2, 17, 17),
    ]
    # an empty cell, a cell with one good tile beside a bad one, a tile held twice in one cell
    assert rows["c"] == [
        (None, None, None, None),
        ("4-4", 1, 8, 8),
        ("3-2*", 1, 5, 5),
        ("1-1 1-1", 2, 4, 4),
    ]
    # a date made of 6-4; a cell of nothing but a bad tile; only commas; empty
    assert rows["d"] == [
        ("6-4", 1, 10, 10),
        (None, None, None, None),
        (None, None, None, None),
        (None, None, None, None),
    ]
    assert probs.sort("line", "column").select(
        "file", "line", "column", "code", "message"
    ).rows() == [
        ("tiles.csv", 3, "tiles_c", "bad_tile", "7-1 is not a tile (write it like 5-3, ends 0–6)"),
        ("tiles.csv", 3, "tiles_d", "bad_tile", "x is not a tile (write it like 5-3, ends 0–6)"),
        (
            "tiles.csv",
            4,
            "tiles_b",
            "tile_twice",
            "the tile 3-2 is held twice in this hand (chair B and C); each tile exists once",
        ),
        (
            "tiles.csv",
            5,
            "tiles_c",
            "tile_twice",
            "the tile 1-1 is held twice in this hand (chair C); each tile exists once",
        ),
    ]


_TOKEN = st.sampled_from(
    [f"{a}-{b}" for a in range(7) for b in range(a + 1)]
    + ["3-5", "5|3", "5/3", "53", "6", "12", "5.0", "7-1", "x", "*", "5-3**", "*5-3", "5 - 3"]
    + ["2024-05-03", "3/5/2024", "2024-05-03 10:00", "٣-٥", "\u00a05-3", ""]
).flatmap(lambda t: st.sampled_from([t, t + "*"]))
_CELL = st.one_of(
    st.none(),
    st.builds(
        lambda toks, sep: sep.join(toks),
        st.lists(_TOKEN, max_size=7),
        st.sampled_from([" ", " ", ",", ", ", "  ", "\t"]),
    ),
)


_TILES = [(a, b) for a in range(7) for b in range(a + 1)]


def _clean_hand(rnd) -> tuple[str | None, ...]:
    """Four cells of different tiles, mostly written as the product writes them."""
    tiles = iter(rnd.sample(_TILES, 16))
    cells = []
    for _ in "abcd":
        toks = []
        for _ in range(rnd.choice([0, 1, 2, 3, 4])):
            a, b = next(tiles)
            spelling = rnd.choice([f"{a}-{b}"] * 6 + [f"{b}-{a}", f"{a}|{b}", f"{b}{a}"])
            toks.append(spelling + rnd.choice(["", "", "*"]))
        cells.append(rnd.choice([" "] * 6 + [",", ", "]).join(toks) or None)
    return tuple(cells)


_HAND = st.one_of(
    st.randoms(use_true_random=False).map(_clean_hand),
    st.randoms(use_true_random=False).map(_clean_hand),
    st.tuples(_CELL, _CELL, _CELL, _CELL),
)


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(st.lists(_HAND, min_size=1, max_size=30))
def test_tiles_read_in_lists_equal_tiles_read_one_by_one(cells):
    """The list reading of plain hands (and its choice of which hands are plain) gives the
    frame and the problems the tile-by-tile reading gives, for hands as the product
    writes them, in other spellings, and with mistakes, dates and tiles held twice."""
    frame = pl.DataFrame(
        {
            "_row": pl.Series(range(len(cells)), dtype=pl.UInt32),
            "_file": "x.csv",
            "_line": pl.Series(range(2, len(cells) + 2), dtype=pl.Int64),
            "event": "e",
            "round": "R1",
            "table": "1",
            **{
                f"tiles_{c}": pl.Series([row[i] for row in cells], dtype=pl.String)
                for i, c in enumerate("abcd")
            },
        }
    )
    got, found = _tiles(frame)
    wide, expected = _tiles_read(frame)
    want = frame.drop([f"tiles_{c}" for c in "abcd"]).join(
        wide, on="_row", how="left", maintain_order="left"
    )
    assert_frame_equal(got, want, check_exact=True)
    order = ["line", "column", "code", "message"]
    assert_frame_equal(
        problems.concat(found).sort(order), problems.concat(expected).sort(order), check_exact=True
    )


@pytest.mark.parametrize(
    ("before", "newline", "header_line"),
    [
        ("", "\n", 1),
        ("\n\n", "\n", 3),  # blank lines before the header still count
        (" \t\n   \n", "\n", 3),  # lines of spaces are blank too
        ("sep=;\n", "\n", 2),  # Excel's delimiter line is no header
        ("sep=;\n\n", "\r\n", 3),
        ("\n", "\r", 2),  # old Mac line ends
    ],
)
def test_the_header_is_found_after_any_blank_or_sep_lines(before, newline, header_line):
    good = (READ / "good.csv").read_text(encoding="utf-8")
    sep = ";" if "sep=;" in before else ","
    text = before + good.replace(",", sep)
    s = read_bytes(text.replace("\n", newline).encode("utf-8"), "meja.csv")
    assert s.frame["_line"][0] == header_line + 1
    assert s.frame["event"][0] == "read-2024"
    assert s.frame["ended_by"][0] == "A"


@pytest.mark.parametrize("text", ["\n\n \n", "sep=;", "sep=;\n", "\n\n   ", "\r\n \r\n"])
def test_a_file_of_blank_lines_is_empty(text):
    with pytest.raises(FileRejected) as info:
        read_bytes(text.encode(), "meja.csv")
    assert info.value.code == "empty"


def test_a_cell_pasted_full_of_text_keeps_its_match_out_and_is_not_quoted_whole(con):
    """A million characters in a name (a column pasted into one cell) loaded before, to be
    shown on every screen; a note may be longer than a name."""
    lines = (READ / "good.csv").read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    rows = [line.split(",") for line in lines[1:]]
    for r in rows:
        r[header.index("player_a")] = "A" * 1_000_000 if r is rows[0] else r[5]
    rows[1][header.index("note")] = "n" * 1_000  # the longest note allowed
    rows[2][header.index("note")] = "n" * 1_001
    text = "\n".join(",".join(r) for r in [header, *rows]) + "\n"
    t, probs = normalize(read_bytes(text.encode(), "panjang.csv").frame)
    assert probs.select("line", "column", "code").rows() == [
        (2, "player_a", "too_long"),
        (4, "note", "too_long"),
    ]
    assert probs["message"][0] == (
        "this cell holds 1,000,000 characters, more than the 100 a cell here may hold "
        "(something pasted into the wrong cell?)"
    )
    assert max(len(m) for m in probs["message"]) < 200
    assert t["player_a"].str.len_chars().max() == 100  # cut for the checks after
    s = read_bytes(text.encode(), "panjang.csv")
    p = ingest(con, sheets=[s], files=[{"file": s.file, "sha256": s.sha256, "rows": s.rows}])
    assert p.count("new") == 0 and p.count("rejected") == 1
    assert con.execute("SELECT count(*) FROM players").fetchone() == (0,)


def _titled(kind: str) -> bytes:
    """good.csv under a venue's title and a blank row, as a referee's sheet often has it:
    a workbook (``xlsx``), or a CSV saved from one with ``;`` (every line padded with
    separators, as Excel and LibreOffice save it) or typed by hand (``bare``: the title a
    single cell holding a comma)."""
    lines = (READ / "good.csv").read_text(encoding="utf-8").splitlines()
    title = "HASIL PERTANDINGAN BABAK 1, MEJA 1"
    if kind == "xlsx":
        import io

        import xlsxwriter

        buf = io.BytesIO()
        with xlsxwriter.Workbook(buf) as wb:
            sheet = wb.add_worksheet("Meja 1")
            sheet.write(0, 0, title)
            for i, line in enumerate(lines):
                sheet.write_row(i + 2, 0, line.split(","))
        return buf.getvalue()
    if kind == "padded":
        width = lines[0].count(",")
        rows = [
            f'"{title}"' + ";" * width,
            ";" * width,
            *(line.replace(",", ";") for line in lines),
        ]
    else:
        rows = [title, "", *(line.replace(",", ";") for line in lines)]
    return "\n".join(rows).encode("utf-8")


def test_commas_in_a_cell_of_a_semicolon_file_do_not_make_it_comma_separated():
    """A referee's note in a ``;`` file (Indonesian-locale Excel) with more commas than the
    file has columns made it read as comma-separated ("the column round is missing"); a
    roster's consent, a sentence, the same with only three columns."""
    header, rows = good_cells()
    note = header.index("note")
    rows[0][note] = '"' + "wasit: " + ", ".join(f"kocokan {i} diulang" for i in range(40)) + '"'
    s = read_bytes(csv_of(header, rows).replace(",", ";").replace("; ", ", ").encode(), "m.csv")
    t, probs = normalize(s.frame)
    assert probs.height == 0, probs.to_dicts()
    assert t["note"][0].startswith("wasit: kocokan 0 diulang, kocokan 1 diulang")
    assert t.height == typed("good.csv").height


@pytest.mark.parametrize("kind", ["xlsx", "padded", "bare"])
def test_a_title_above_the_header_is_left_out_with_a_warning(con, kind):
    """Before: "the column round is missing" for a sheet whose first row is its title."""
    name = f"meja1.{'xlsx' if kind == 'xlsx' else 'csv'}"
    data = _titled(kind)
    s = read_bytes(data, name)
    ref = typed("good.csv")
    t, probs = normalize(s.frame)
    assert probs.height == 0, probs.to_dicts()
    assert t.select(ref.columns).drop("_file", "_line").equals(ref.drop("_file", "_line"))
    assert t["_line"].to_list() == [line + 2 for line in ref["_line"].to_list()]
    (note,) = s.notes.to_dicts()
    assert (note["code"], note["severity"], note["file"]) == ("header_below", "warning", name)
    assert note["message"] == (
        "its header is on line 3, the first with the hand-log columns; the lines above it "
        "('HASIL PERTANDINGAN BABAK 1, MEJA 1') are a title and are not read"
    )
    p = ingest(con, sheets=[s], files=[{"file": s.file, "sha256": s.sha256, "rows": s.rows}])
    assert p.exit_code == 0 and p.count("new") == 1
    assert p.problems["code"].to_list() == ["header_below"]
    # a problem in a hand names its line in the file as it is
    bad = data.replace(b"6-6", b"9-9") if kind != "xlsx" else None
    if bad is not None:
        p = ingest(con, sheets=[read_bytes(bad, "meja2.csv")], files=[])
        (line,) = p.problems.filter(pl.col("code") == "bad_tile")["line"].to_list()
        assert bad.decode().splitlines()[line - 1].split(";")[11] == "9-9"


def test_titled_sheets_among_several_are_skipped_saying_where_their_header_is(con):
    """Among several sheets none is looked for under a title (an example sheet, as the
    pre-filled workbook's ``contoh``, would load as hands): each is skipped with a note
    naming its header's line; the sheet named ``hands`` is read under its title."""
    import io

    import xlsxwriter

    from pipeline.ingest.read import read_bytes_sheets

    lines = (READ / "good.csv").read_text(encoding="utf-8").splitlines()

    def workbook(names: list[str]) -> bytes:
        buf = io.BytesIO()
        with xlsxwriter.Workbook(buf) as wb:
            for name in names:
                sheet = wb.add_worksheet(name)
                sheet.write(0, 0, f"Hasil {name}")
                for i, line in enumerate(lines):
                    sheet.write_row(i + 2, 0, line.split(","))
        return buf.getvalue()

    with pytest.raises(FileRejected) as info:
        read_bytes_sheets(workbook(["Meja 1", "Meja 2"]), "babak1.xlsx")
    assert info.value.message_id == "not_a_hand_log.no_sheet"
    assert info.value.message.count("(one is on line 3, under a title;") == 2
    sheets = read_bytes_sheets(workbook(["contoh", "hands"]), "meja1.xlsx")
    assert [s.file for s in sheets] == ["meja1.xlsx"]
    assert sheets[0].notes["code"].to_list() == ["header_below"]
    files = [{"file": "meja1.xlsx", "sha256": sheets[0].sha256, "rows": sheets[0].rows}]
    p = ingest(con, sheets=sheets, files=files)
    assert p.exit_code == 0 and p.count("new") == 1


@pytest.mark.parametrize("gap", [0, 10], ids=["no-header", "header-too-far-down"])
def test_a_title_with_no_header_under_it_still_names_the_missing_column(gap):
    """Only a row naming every required column is taken for the header, within ten rows of
    the title; otherwise the first row is the header, and the file lacks a column."""
    lines = (READ / "good.csv").read_text(encoding="utf-8").splitlines()
    body = lines[1:] if gap == 0 else ["catatan"] * gap + lines
    with pytest.raises(FileRejected) as info:
        read_bytes("\n".join(["Hasil babak 1", *body]).encode(), "meja1.csv")
    assert (info.value.code, info.value.column) == ("missing_column", "round")


def test_headers_with_punctuation_name_their_columns():
    """``Biji (A)``, ``Meja*``, ``Kartu terakhir:`` were unknown columns before: the pips
    went into the row's extra columns and hands that need them were refused. A header
    that names no contract column keeps its own key."""
    from pipeline.ingest.columns import canonical_name

    lines = (READ / "good.csv").read_text(encoding="utf-8").splitlines()
    spelled = {
        "table": "Meja*",
        "last_tile": "Kartu terakhir:",
        "pips_c": "Biji (C)",
        "player_a": "Kursi.A",
        "ended_by": "Oleh -",
    }
    header = [spelled.get(h, h) for h in lines[0].split(",")] + ["Total (poin)"]
    text = "\n".join([",".join(header), *(line + "," for line in lines[1:])])
    s = read_bytes(text.encode(), "meja.csv")
    ref = typed("good.csv")
    t, probs = normalize(s.frame)
    assert probs.height == 0, probs.to_dicts()
    assert t.select(ref.columns).drop("_file").equals(ref.drop("_file"))
    assert s.headers["pips_c"] == "Biji (C)"
    assert canonical_name("Total (poin)") == "total_(poin)"  # as an extra column, unchanged
    assert canonical_name("Oleh (A-D)") == "oleh_(a_d)"


def test_the_ender_written_by_name_is_the_chair_that_player_sits_in():
    """Referees write who ended the hand by name as often as by chair: a name of a player
    seated in that row is their chair (any case and spacing), as is the letter with its
    word or punctuation (``Kursi B``, ``b.``); another value is quoted as written (it was
    quoted in capitals)."""
    lines = (READ / "good.csv").read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    at = {c: header.index(c) for c in ("ended_by", "player_a", "player_b", "player_c", "player_d")}
    rows = [line.split(",") for line in lines[1:]]
    for i, r in enumerate(rows):
        if r[at["ended_by"]]:
            chair = r[at["ended_by"]]
            seated = r[at[f"player_{chair.lower()}"]]
            # by name, or the letter with its word or punctuation
            r[at["ended_by"]] = [f" {seated.upper()} ", f"Kursi {chair}", f"{chair.lower()}."][
                i % 3
            ]
    by_name = "\n".join([lines[0], *(",".join(r) for r in rows)])
    ref = typed("good.csv")
    t, probs = normalize(read_bytes(by_name.encode(), "meja.csv").frame)
    assert probs.height == 0, probs.to_dicts()
    assert t["ended_by"].to_list() == ref["ended_by"].to_list()
    rows[0][at["ended_by"]] = "Andi S."
    rows[1][at["ended_by"]] = "e"
    odd = "\n".join([lines[0], *(",".join(r) for r in rows)])
    _, probs = normalize(read_bytes(odd.encode(), "meja.csv").frame)
    assert probs.select("line", "code", "message").rows() == [
        (
            2,
            "bad_chair",
            "Andi S. is neither a chair nor a player seated in this hand; write A, B, C or D",
        ),
        (
            3,
            "bad_chair",
            "e is neither a chair nor a player seated in this hand; write A, B, C or D",
        ),
    ]


def test_a_numbered_list_dot_is_a_whole_number_and_an_unreadable_one_is_said_once(con):
    """``1.`` (a list's numbering) is hand 1; ``satu`` in the hand column was reported
    twice, as not a number and as "this hand has no hand number"."""
    lines = (READ / "good.csv").read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    hand = header.index("hand")
    rows = [line.split(",") for line in lines[1:]]
    for r in rows:
        r[hand] += "."
    dotted = "\n".join([lines[0], *(",".join(r) for r in rows)])
    t, probs = normalize(read_bytes(dotted.encode(), "meja.csv").frame)
    assert probs.height == 0, probs.to_dicts()
    assert t["hand"].to_list() == typed("good.csv")["hand"].to_list()
    rows[1][hand] = "satu"
    worded = "\n".join([lines[0], *(",".join(r) for r in rows)])
    p = ingest(con, sheets=[read_bytes(worded.encode(), "meja.csv")], files=[])
    on_line = p.problems.filter(pl.col("line") == 3)
    assert on_line.select("column", "code").rows() == [("hand", "not_a_number")]


@pytest.mark.parametrize("dash", ["-", "--", "\u2013", "\u2014"])
def test_a_dash_is_an_empty_cell(dash):
    """Referees write "none" as a dash (no pips, no sanction, no note, an empty chair): ``-``
    was "not a whole number" and "not a sanction code", keeping the match out. A column
    the contract does not know keeps it."""
    lines = (READ / "good.csv").read_text(encoding="utf-8").splitlines()
    header = [*lines[0].split(","), "wasit"]
    rows = [[*line.split(","), dash] for line in lines[1:]]
    for r in rows:
        r[:] = [dash if v == "" else v for v in r]
    text = "\n".join([",".join(header), *(",".join(r) for r in rows)])
    ref = typed("good.csv")
    s = read_bytes(text.encode(), "meja.csv")
    t, probs = normalize(s.frame)
    assert probs.height == 0, probs.to_dicts()
    assert t.select(ref.columns).drop("_file", "extra").equals(ref.drop("_file", "extra"))
    assert s.frame["extra"][0] == f'{{"wasit":"{dash}"}}'
    rows[0][header.index("player_d")] = dash
    text = "\n".join([",".join(header), *(",".join(r) for r in rows)])
    t, _ = normalize(read_bytes(text.encode(), "meja.csv").frame)
    assert t["player_d"][0] is None  # an empty chair


@pytest.mark.parametrize(
    ("name", "variant", "said"),
    [
        ("encrypted.xlsx", "encrypted", "protected with a password"),
        ("old.xls", "xls", "an old Excel workbook (.xls)"),
    ],
)
def test_a_password_protected_or_old_workbook_says_which(con, tmp_path, name, variant, said):
    """encrypted.xlsx: an .xlsx encrypted with a password (msoffcrypto-tool), which Excel
    wraps in its old compound file; old.xls: LibreOffice 7.4's .xls. Both were "named
    like a workbook but not one (an old .xls cannot be read)", or, named .csv, "binary
    data"; a folder passed over the .xls without a word."""
    data = (READ / name).read_bytes()
    for label in (name, "meja1.csv"):
        with pytest.raises(FileRejected) as info:
            read_bytes(data, label)
        assert info.value.message_id == f"not_xlsx.{variant}"
        assert said in info.value.message
    from pipeline.players import read_registry

    with pytest.raises(FileRejected) as info:
        read_registry(READ / name)
    assert info.value.message_id == f"not_xlsx.{variant}"
    folder = tmp_path / "hasil"
    folder.mkdir()
    (folder / name).write_bytes(data)
    (folder / "meja2.csv").write_bytes((READ / "good.csv").read_bytes())
    from pipeline.ingest.read import in_folder

    p = ingest(con, in_folder(folder))
    assert p.problems.select("file", "message_id").rows() == [(name, f"not_xlsx.{variant}")]
    assert p.count("new") == 1 and p.exit_code == 1


def test_a_slip_in_an_ending_or_a_sanction_is_answered_with_the_likely_one(con):
    """``apolo``, ``warning``: the match stays out as before, and the message names the
    ending or code most likely meant; a value like none of them gets the list alone."""
    header, rows = good_cells()
    rows[0][header.index("ending")] = "Apolo"
    rows[1][header.index("ending")] = "gaple"
    rows[2][header.index("sanctions_b")] = "warning"
    p = ingest(con, sheets=[read_bytes(csv_of(header, rows).encode(), "meja.csv")], files=[])
    assert p.count("rejected") == 1
    header, fresh = good_cells()
    for r in fresh:
        r[header.index("ruleset")] = "unhass"
    slipped = csv_of(header, fresh)
    typo = ingest(con, sheets=[read_bytes(slipped.encode(), "r.csv")], files=[])
    assert typo.problems["message"][0].startswith(
        "unhass is not a ruleset (did you mean unhas?); use "
    )
    said = p.problems.sort("line").select("line", "message_id", "message").rows()
    assert said == [
        (2, "unknown_ending.close", "apolo is not an ending of ruleset unhas (did you mean apollo?); use apollo, ceki, biasa, kandang, all_doubles, wo"),
        (3, "unknown_ending", "gaple is not an ending of ruleset unhas; use apollo, ceki, biasa, kandang, all_doubles, wo"),
        (4, "unknown_sanction.close", "warning is not a sanction code (did you mean warn?); use warn, show or wrong"),
    ]  # fmt: skip


@pytest.mark.parametrize("kind", ["xlsx", "ods"])
def test_a_titled_sheet_saved_by_libreoffice_loads(con, kind):
    """titled_libreoffice.*: LibreOffice Calc 7.4 opened a ``;`` CSV whose first line is
    the title ``Hasil Babak 1, Meja 3`` and second is blank (the example unhas-2024-e1
    R1 table 3 under it) and saved it as .xlsx and .ods."""
    p = ingest(con, [READ / f"titled_libreoffice.{kind}"])
    assert [(o.round, o.table, o.status, o.hands) for o in p.outcomes] == [("R1", "3", "new", 10)]
    (w,) = p.problems.to_dicts()
    assert (w["code"], w["severity"]) == ("header_below", "warning")
    assert "header is on line 3" in w["message"] and "'Hasil Babak 1, Meja 3'" in w["message"]


def test_a_header_repeated_mid_file_is_left_out_with_a_warning(con):
    """Two sheets pasted one under the other: the second header was a row of a dozen
    problems ("kocokan is not a whole number", …) keeping every match of the file out.
    It is left out, in the file's own spelling or in another of the contract's."""
    lines = (READ / "good.csv").read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    rnd = header.index("round")
    second = [
        ",".join("R2" if i == rnd else v for i, v in enumerate(r.split(","))) for r in lines[1:]
    ]
    english = ",".join(h.replace("_", " ").title() for h in header)
    text = "\n".join([lines[0], *lines[1:], lines[0], *second, english])
    s = read_bytes(text.encode(), "meja.csv")
    (note,) = s.notes.to_dicts()
    n = len(lines)
    assert (note["code"], note["severity"]) == ("header_repeated", "warning")
    assert note["message"].startswith(f"line(s) {n + 1}, {2 * n + 1} repeat the header")
    p = ingest(con, sheets=[s], files=[])
    assert sorted((o.round, o.status) for o in p.outcomes) == [("R1", "new"), ("R2", "new")]
    assert p.problems["code"].to_list() == ["header_repeated"]


@pytest.mark.parametrize("kind", ["jpeg", "png", "webp", "pdf"])
def test_a_photo_or_pdf_of_the_paper_sheet_says_what_the_product_reads(kind, tmp_path):
    """A referee at the table photographs the signed sheet and uploads it from the phone:
    the page's uploader refused it in English ("image/jpeg files are not allowed"), a
    command said "binary data". It is taken, and refused in a sentence naming what is
    read, and the hand-entry page."""
    import io

    if kind == "pdf":
        from fpdf import FPDF

        doc = FPDF()
        doc.add_page()
        doc.set_font("helvetica", size=12)
        doc.cell(text="Meja 1")
        data = bytes(doc.output())
    else:
        from PIL import Image

        buf = io.BytesIO()
        Image.new("RGB", (40, 30), "white").save(buf, format=kind.upper())
        data = buf.getvalue()
    for name in (f"meja1.{'jpg' if kind == 'jpeg' else kind}", "meja1.csv"):
        with pytest.raises(FileRejected) as info:
            read_bytes(data, name)
        variant = "pdf" if kind == "pdf" else "picture"
        assert info.value.message_id == f"not_a_hand_log.{variant}"
        assert "the product reads .xlsx, .ods and CSV files" in info.value.message
        assert "Hand entry page" in info.value.message
    # a roster or registry sent as a photo: the same, without the hand-entry page
    from pipeline.players import read_registry

    photo = tmp_path / f"peserta.{kind}"
    photo.write_bytes(data)
    with pytest.raises(FileRejected) as info:
        read_registry(photo)
    assert info.value.message_id == f"not_a_hand_log.{variant}_list"
    assert "Hand entry" not in info.value.message
    from pipeline.ingest.read import SAID_ONLY_KINDS, UPLOAD_KINDS

    assert {"jpg", "png", "webp", "pdf", "heic"} <= set(SAID_ONLY_KINDS) <= set(UPLOAD_KINDS)


def test_an_ending_by_its_indonesian_name_or_a_caught_block_says_how_to_write_it(con):
    """``Menang biasa`` (RULES Art. 2.6 by its Indonesian name) is biasa; ``Tangkap kandang``
    (Art. 2.4-2.5) is no ending of its own but a kandang scored from the pips: the message
    says to write kandang, the blocker and the pips, instead of listing the endings."""
    lines = (READ / "good.csv").read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    rows = [line.split(",") for line in lines[1:]]
    assert rows[0][header.index("ending")] == "biasa"
    rows[0][header.index("ending")] = "Menang Biasa"
    t, probs = normalize(
        read_bytes("\n".join([lines[0], *(",".join(r) for r in rows)]).encode(), "m.csv").frame
    )
    assert probs.height == 0 and t["ending"][0] == "biasa"
    locked = [
        *rows[2][: header.index("ending")],
        "Terkunci",
        *rows[2][header.index("ending") + 1 :],
    ]
    t, _ = normalize(read_bytes("\n".join([lines[0], ",".join(locked)]).encode(), "p.csv").frame)
    assert t["ending"][0] == "locked"  # pepet's, as written in Indonesian
    rows[1][header.index("ending")] = "Tangkap Kandang"
    text = "\n".join([lines[0], *(",".join(r) for r in rows)])
    p = ingest(con, sheets=[read_bytes(text.encode(), "meja.csv")], files=[])
    (said,) = p.problems.to_dicts()
    assert (said["line"], said["message_id"]) == (3, "unknown_ending.caught")
    assert said["message"].startswith(
        "tangkap kandang is not an ending of its own: a blocked game is kandang"
    )
    assert p.count("rejected") == 1


def test_sanctions_in_indonesian_are_their_codes():
    """RULES Art. 3 as a referee writes it: *teguran* (a warning), *lihat* (looking or
    showing), *salah* (a wrong tile) were "not a sanction code"; they are warn, show and
    wrong, counted as those."""
    header, rows = good_cells()
    rows[0][header.index("sanctions_a")] = "Teguran; salah"
    rows[1][header.index("sanctions_b")] = "lihat warn"
    rows[2][header.index("sanctions_c")] = "memperlihatkan"
    text = csv_of(header, rows)
    t, probs = normalize(read_bytes(text.encode(), "m.csv").frame)
    assert probs.height == 0, probs.to_dicts()
    assert t.select("sanctions_a", "sanctions_b", "sanctions_c").rows() == [
        ("warn;wrong", None, None),
        (None, "show;warn", None),
        (None, None, "show"),
    ]
