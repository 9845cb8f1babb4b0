"""The player registry and the key of a name (issue 13, items 6 and 7).

Names that look the same are one player (NFC, invisible characters, NBSP), in hand logs
and in the registry; an import that would make the registry contradict itself, or seat
one person twice in a loaded match, is refused whole with the file's rows named.
"""

import unicodedata

import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.cli import cli
from pipeline.players import RegistryConflict, import_registry, key_expr, read_registry
from pipeline.scoring.rescore import rescore
from pipeline.store.db import connect
from tests.rules_helpers import biasa_match, hand, load, table_rows

ANDI = "Andí"  # NFC: one code point for í
ANDI_NFD = unicodedata.normalize("NFD", ANDI)  # i + U+0301
WINNERS = ["Budi", "Cici", "Dedi", "Budi", "Cici", "Dedi", "Budi", "Cici", "Dedi", "Budi"]


def two_spellings(first: str, second: str) -> list[dict]:
    """A full unhas match where chair A's player is written ``first`` in hands 1–5 and
    ``second`` in hands 6–10 (the swap schedule moves them between chairs A and C)."""
    rows = biasa_match(WINNERS, start=(first, "Budi", "Cici", "Dedi"))
    for r in rows[5:]:
        for c in "abcd":
            if r[f"player_{c}"] == first:
                r[f"player_{c}"] = second
    return rows


def test_key_expr_folds_what_looks_the_same():
    names = [ANDI, ANDI_NFD, "AN\u200bDÍ", " \ufeffAndí\u2060", "An\u200cd\u200dí", "andí\t"]
    keys = pl.DataFrame({"n": names}).select(key_expr(pl.col("n"))).to_series().to_list()
    assert keys == ["andí"] * len(names)
    spaced = pl.DataFrame({"n": ["Eko\u00a0Hamzah", "Eko \u200b Hamzah", "Eko\u3000 Hamzah"]})
    assert spaced.select(key_expr(pl.col("n"))).to_series().to_list() == ["eko hamzah"] * 3


_NAME_PARTS = [
    "Andí",
    ANDI_NFD,
    "Eko",
    " ",
    "\u00a0",
    "\t",
    "\u200b",
    "\ufeff",
    "\u00ad",
    "\u3000",
    "",
]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.lists(st.sampled_from(_NAME_PARTS), max_size=4).map("".join),
            st.text(max_size=6),
        ),
        min_size=4,
        max_size=40,
    )
)
def test_names_spelled_once_per_distinct_name_are_spelled_as_cell_by_cell(cells):
    """A load spells each distinct name once and maps it back (normalize._spelled):
    the same spelling as name_expr on every cell, for any text, blanks and nulls."""
    from pipeline.ingest.normalize import _spelled, name_expr

    cols = [f"player_{c}" for c in "abcd"]
    frame = pl.DataFrame(
        {
            c: cells[i::4] + [None] * (len(cells[0::4]) - len(cells[i::4]))
            for i, c in enumerate(cols)
        },
        schema={c: pl.String for c in cols},
    )
    assert frame.select(_spelled(frame, cols)).equals(
        frame.select(name_expr(c).alias(c) for c in cols)
    )


@pytest.mark.parametrize(
    "second",
    [ANDI_NFD, "An\u200bdí", "Andí\u200c", "\u200dAndí", "An\u2060dí", "\ufeffAndí", "Andí\u00ad"],
    ids=["nfd", "zwsp", "zwnj", "zwj", "word-joiner", "bom", "soft-hyphen"],
)
def test_a_name_that_looks_the_same_is_one_player_with_one_total(con, tmp_path, second):
    plan = load(con, tmp_path, two_spellings(ANDI, second))
    assert plan.errors.height == 0, plan.errors.to_dicts()
    rows = table_rows(con)
    # four players, Andí shown as written first (NFC), 10 hands' points in one total
    assert sorted(rows) == sorted([ANDI, "Budi", "Cici", "Dedi"])
    hands = con.execute("SELECT count(*) FROM hand_points WHERE player = ?", [ANDI]).fetchone()[0]
    assert hands == 10


def test_nbsp_is_a_space(con, tmp_path):
    plan = load(con, tmp_path, two_spellings("Eko Hamzah", "Eko\u00a0Hamzah"))
    assert plan.errors.height == 0, plan.errors.to_dicts()
    assert sorted(table_rows(con)) == ["Budi", "Cici", "Dedi", "Eko Hamzah"]


# --- registry import ------------------------------------------------------------------------


def write(tmp_path, text: str, name: str = "players.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_registry_names_and_aliases_are_normalised_like_hand_logs(con, tmp_path):
    load(con, tmp_path, two_spellings(ANDI, ANDI), name="h.csv")
    load(
        con,
        tmp_path,
        [hand(1, "A", "biasa", seats=("Budhi", "Eko", "Fitri", "Gita"), round="R2")],
        name="h2.csv",
    )
    # the registry spells Andí decomposed, with a zero-width space; Budi's alias has one too
    reg = write(tmp_path, f"player,group,aliases\n{ANDI_NFD}\u200b,KG A,\nBudi,KG A,Bu\u200bdhi\n")
    import_registry(con, read_registry(reg))
    rescore(con)
    assert con.execute("SELECT player FROM registry ORDER BY player").fetchall() == [
        (ANDI,),
        ("Budi",),
    ]
    assert con.execute("SELECT alias_key, player_key FROM aliases").fetchall() == [
        ("budhi", "budi")
    ]
    # Andí's and Budi's points (Budhi's included) count for KG A
    members = con.execute(
        "SELECT p.player FROM table_standings_t t JOIN players p USING (player_key) "
        "WHERE p.\"group\" = 'KG A' GROUP BY ALL ORDER BY 1"
    ).fetchall()
    assert members == [(ANDI,), ("Budi",)]


def snapshot(db_path) -> dict:
    with connect(db_path, read_only=True) as c:
        return {
            t: c.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()  # noqa: S608 - fixed names
            for t in ("registry", "aliases", "table_standings_t", "player_names")
        }


def import_cli(path, *more: str):
    return CliRunner().invoke(cli, ["players", "import", str(path), *more], catch_exceptions=False)


def prepared(db_path, tmp_path, registry: str | None = None, matches: list[list[dict]] = ()):
    """A database with ``registry`` imported and ``matches`` loaded; closed again."""
    with connect(db_path) as c:
        if registry:
            import_registry(c, read_registry(write(tmp_path, registry, "before.csv")))
        for i, rows in enumerate(matches):
            plan = load(c, tmp_path, rows, name=f"m{i}.csv")
            assert plan.errors.height == 0, plan.errors.to_dicts()
        rescore(c)


BASE = "player,group,aliases\nBudi,KG A,Budhi\nCici,KG B,\n"

CONFLICTS = {
    "alias_for_two_players_in_file": (
        None,
        "player,group,aliases\nBudi,KG A,Bud\nCici,KG B,\nBudiman,KG B,bud\n",
        ["players.csv:2 and players.csv:4 give the alias Bud to 2 players (Budi and Budiman)"],
    ),
    "alias_for_two_players_against_registry": (
        BASE,
        "player,group,aliases\nBudiman,KG B,Dedi;BUDHI\n",
        [
            "players.csv:2 gives the alias BUDHI to Budiman, but the registry already has it as an alias of Budi"
        ],
    ),
    "alias_and_player_in_file": (
        None,
        "player,group,aliases\nBudi,KG A,Cici\nDedi,KG B,\nCici,KG B,\n",
        ["players.csv:4 lists Cici as a player and players.csv:2 as an alias of Budi"],
    ),
    "alias_is_a_registered_player": (
        BASE,
        "player,group,aliases\nDedi,KG B,cici\n",
        ["players.csv:2 makes cici an alias of Dedi, but Cici is a registered player"],
    ),
    "player_is_a_registered_alias": (
        BASE,
        "player,group,aliases\nDedi,KG B,\nbudhi,KG B,\n",
        ["players.csv:3 lists budhi as a player, but the registry has it as an alias of Budi"],
    ),
    "same_player_two_groups": (
        None,
        "player,group,aliases\nBudi Santoso,KG A,\nCici,KG B,\nbudi  santoso,KG B,\n",
        ["players.csv:2 and players.csv:4 put Budi Santoso in 2 groups (KG A and KG B)"],
    ),
}


@pytest.mark.parametrize("kind", list(CONFLICTS))
def test_a_contradictory_registry_is_refused_whole(db_path, tmp_path, kind):
    before_reg, text, expected = CONFLICTS[kind]
    prepared(
        db_path,
        tmp_path,
        before_reg,
        [biasa_match(["Cici"] * 10, start=("Budhi", "Budi S", "Cici", "Dedi"))],
    )
    before = snapshot(db_path)
    r = import_cli(write(tmp_path, text))
    assert r.exit_code == 1, r.output
    said = " ".join(r.output.split())  # the console may wrap long sentences
    for part in expected:
        assert part in said, said
    assert "Traceback" not in r.output
    assert snapshot(db_path) == before


SEATED = ("Eko Hamzah", "Eko H.", "Cici", "Dedi")


def test_a_merge_that_seats_one_person_twice_in_a_hand_is_refused(db_path, tmp_path):
    prepared(db_path, tmp_path, None, [biasa_match(["Cici"] * 10, start=SEATED)])
    before = snapshot(db_path)
    r = import_cli(write(tmp_path, "player,group,aliases\nCici,KG B,\nEko Hamzah,KG A,Eko H.\n"))
    assert r.exit_code == 1, r.output
    said = " ".join(r.output.split())
    assert (
        "players.csv:3 would make Eko Hamzah and Eko H. one player, Eko Hamzah, who then sits twice in "
        "event ev, round R1, table 1, hand 1 (chairs A and B) and in 9 more hands of that table"
    ) in said, said
    assert snapshot(db_path) == before


def test_a_merge_that_seats_one_person_at_two_tables_of_a_round_is_refused(db_path, tmp_path):
    t1 = biasa_match(WINNERS, start=("Eko Hamzah", "Budi", "Cici", "Dedi"))
    t2 = biasa_match(["Fitri"] * 10, start=("Eko H.", "Fitri", "Gita", "Hadi"), table="2")
    prepared(db_path, tmp_path, None, [t1, t2])
    before = snapshot(db_path)
    r = import_cli(write(tmp_path, "player,group,aliases\nEko Hamzah,KG A,Eko H.\n"))
    assert r.exit_code == 1, r.output
    said = " ".join(r.output.split())
    assert (
        "players.csv:2 would make" in said
        and "who then plays at tables 1 and 2 of event ev, round R1" in said
    ), said
    assert snapshot(db_path) == before


def test_a_merge_across_rounds_is_imported(db_path, tmp_path):
    r1 = biasa_match(WINNERS, start=("Eko Hamzah", "Budi", "Cici", "Dedi"))
    r2 = biasa_match(WINNERS, start=("Eko H.", "Budi", "Cici", "Dedi"), round="R2")
    prepared(db_path, tmp_path, None, [r1, r2])
    path = write(tmp_path, "player,group,aliases\nEko Hamzah,KG A,Eko H.\nBudi,KG A,\n")
    # a merge of loaded players (and groups for them) is shown first and needs a reason
    r = import_cli(path)
    assert r.exit_code == 1, r.output
    assert "Eko H. of event ev is merged into another player" in r.output
    with connect(db_path, read_only=True) as c:
        assert c.execute("SELECT count(*) FROM aliases").fetchall() == [(0,)]
    r = import_cli(path, "--apply", "--reason", "Eko H. is Eko Hamzah")
    assert r.exit_code == 0, r.output
    assert "imported 2 players and 1 aliases" in r.output
    with connect(db_path, read_only=True) as c:
        eko = c.execute(
            "SELECT count(DISTINCT round) FROM table_standings WHERE player = 'Eko Hamzah'"
        ).fetchone()[0]
        assert eko == 2
        assert c.execute("SELECT alias_key, player_key FROM aliases").fetchall() == [
            ("eko h.", "eko hamzah")
        ]
        # the rating ladder rates the merged player as one, from both rounds
        merged = c.execute(
            "SELECT player, matches, mu, sigma FROM ratings ORDER BY player"
        ).fetchall()
    assert ("Eko Hamzah", 2) in [(p, m) for p, m, _, _ in merged]
    assert "Eko H." not in [p for p, *_ in merged]
    with connect(db_path) as c:
        from pipeline import ratings

        ratings.recompute(c)
        again = c.execute(
            "SELECT player, matches, mu, sigma FROM ratings ORDER BY player"
        ).fetchall()
    assert [(p, m) for p, m, *_ in again] == [(p, m) for p, m, *_ in merged]
    for (_, _, mu, sg), (_, _, mu2, sg2) in zip(merged, again, strict=True):
        assert mu == pytest.approx(mu2, abs=1e-9) and sg == pytest.approx(sg2, abs=1e-9)
    # importing the same file again is no conflict with itself
    assert import_cli(path).exit_code == 0


def test_conflicts_raise_before_anything_is_written(con, tmp_path):
    with pytest.raises(RegistryConflict) as exc:
        import_registry(
            con, read_registry(write(tmp_path, "player,group,aliases\nA,G1,x\nB,G2,x\n"))
        )
    assert len(exc.value.reasons) == 1
    assert con.execute("SELECT count(*) FROM registry").fetchone()[0] == 0


def test_dates_as_a_spreadsheet_and_as_indonesia_write_them(db_path, tmp_path):
    """A workbook's date cells (LibreOffice and Excel store a date typed into a cell as a
    date) and day-first text (5/12/1990 is 5 December) import as those dates."""
    import datetime as dt

    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Nama", "KG", "Tanggal lahir", "Anggota sejak"])
    ws.append(["Andi", "KG A", dt.datetime(1990, 12, 5), dt.datetime(2020, 1, 1)])
    wb.save(tmp_path / "daftar.xlsx")
    assert import_cli(tmp_path / "daftar.xlsx").exit_code == 0
    text = "nama;kg;tanggal_lahir;anggota_sejak\nBudi;KG B;5/12/1991;01-02-2021\nCici;KG B;05.12.1992;\n"
    r = import_cli(write(tmp_path, text, "daftar.csv"))
    assert r.exit_code == 0, r.output
    with connect(db_path, read_only=True) as c:
        born = dict(c.execute("SELECT player, birth_date FROM league_players").fetchall())
        since = dict(
            c.execute(
                "SELECT p.player, m.valid_from FROM memberships m "
                "JOIN league_players p USING (league, player_key)"
            ).fetchall()
        )
    assert born == {
        "Andi": dt.date(1990, 12, 5),
        "Budi": dt.date(1991, 12, 5),
        "Cici": dt.date(1992, 12, 5),
    }
    assert since == {"Andi": dt.date(2020, 1, 1), "Budi": dt.date(2021, 2, 1), "Cici": None}


def test_a_date_that_is_no_date_refuses_the_import_naming_its_line(db_path, tmp_path):
    before = snapshot(db_path)
    text = "player,group,birth_date,member_since\nAndi,KG A,12/31/1990,\nBudi,KG A,,kemarin\n"
    r = import_cli(write(tmp_path, text))
    assert r.exit_code == 1, r.output
    said = " ".join(r.output.split())
    assert "players.csv:2 birth_date '12/31/1990' is not a date" in said
    assert "players.csv:3 member_since 'kemarin' is not a date" in said
    assert "write it as YYYY-MM-DD (or day first, DD/MM/YYYY)" in said
    assert snapshot(db_path) == before


def test_a_registry_with_the_headers_an_indonesian_sheet_writes_is_read(db_path, tmp_path):
    """Before: ``Nama Pemain`` was no name of the column ``player`` ("a player registry
    needs a column player", nothing said of the header read), nor ``Kelompok (KG)`` of
    ``group`` nor ``Tgl. Lahir`` of ``birth_date``."""
    text = "No;Nama Pemain;Kelompok (KG);Tgl. Lahir;Asal Kota\n1;Andi;KG A;5/12/1990;Makassar\n"
    r = import_cli(write(tmp_path, text))
    assert r.exit_code == 0, r.output
    with connect(db_path, read_only=True) as c:
        got = c.execute(
            'SELECT r.player, r."group", r.city, CAST(p.birth_date AS VARCHAR) FROM registry r '
            "JOIN league_players p USING (player_key)"
        ).fetchall()
    assert got == [("Andi", "KG A", "Makassar", "1990-12-05")]


def test_registry_messages_name_the_column_as_the_file_wrote_it(db_path, tmp_path):
    """Before: a bad date was said as ``birth_date``, a cell too long with no column at
    all, a header without a player column without quoting it, and two headers meaning one
    column (``Nama`` and ``Pemain``) stopped the command on an internal error (exit 70)."""
    before = snapshot(db_path)
    cases = [
        (
            "Pemain;Tanggal Lahir\nAndi;31/02/1990\n",
            "players.csv:2 Tanggal Lahir (birth_date) '31/02/1990' is not a date",
        ),
        (
            f"Pemain;Kota\nAndi;{'x' * 300}\n",
            "players.csv: line 2, column Kota (city): this cell holds 300 characters",
        ),
        (
            "No;Nama Tim;KG\n1;Andi;KG A\n",
            "players.csv: a player registry needs a column player (also written Pemain, Nama or "
            "Nama Pemain); its header, line 1, reads: No | Nama Tim | KG",
        ),
        (
            "Nama;Pemain;KG\nAndi;Andi;KG A\n",
            "players.csv: the columns 'Nama' and 'Pemain' both mean player; keep only one",
        ),
        (
            "player;KG;Kelompok\nAndi;KG A;KG B\n",
            "players.csv: the columns 'KG' and 'Kelompok' both mean group; keep only one",
        ),
    ]
    for text, want in cases:
        r = import_cli(write(tmp_path, text))
        assert r.exit_code == 1 and want in " ".join(r.output.split()), r.output
    assert snapshot(db_path) == before
    # a roster read the same way, in its own words
    assert CliRunner().invoke(cli, ["event", "create", "ev", "--ruleset", "pepet"]).exit_code == 0
    r = CliRunner().invoke(cli, ["event", "roster", "ev", str(write(tmp_path, cases[3][0]))])
    assert r.exit_code == 1 and cases[3][1] in " ".join(r.output.split()), r.output


def test_a_group_written_two_ways_is_refused_naming_its_rows(db_path, tmp_path):
    """Before: ``kg a`` beside ``KG A`` (in one file, or against the registry) was a group
    of its own: the group (KG) standings split the members' points between two rows, and
    nobody was told. The import is refused whole, naming the rows and the spelling to use."""
    before = snapshot(db_path)
    r = import_cli(write(tmp_path, "player,group\nAna,KG A\nBudi,kg a\nCici,Kg  A\nDedi,KG B\n"))
    assert r.exit_code == 1
    assert " ".join(r.output.split()).startswith(
        "✗ players.csv:3 (1 row(s)) write the group kg a, which players.csv:2 writes KG A: "
        "written two ways it would be two groups in the group (KG) standings, its members' "
        "points split between them; write it one way. "
        "✗ players.csv:4 (1 row(s)) write the group Kg A, which players.csv:2 writes KG A"
    ), r.output
    assert snapshot(db_path) == before
    assert import_cli(write(tmp_path, "player,group\nAna,KG A\nDedi,KG B\n")).exit_code == 0
    r = import_cli(write(tmp_path, "player,group\nEko,kg b\nFani,kg b\nGita,KG B\n"))
    assert r.exit_code == 1
    said = " ".join(r.output.split())
    assert said.startswith(
        "✗ players.csv:2 and players.csv:3 (2 row(s)) write the group kg b, which league "
        "default's registry writes KG B:"
    ), said
    assert "write it KG B." in said
