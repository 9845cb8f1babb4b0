"""A round's results for the notice board (``domino results``, pipeline/sheets/results.py).

The expected lines are worked out by hand in tests/test_bracket.py (the small cup, its
tie-break and its final) or read off the worked pepet example's expected standings; the
PDF's text is read back with pypdf, line by line as printed. Two of them run on a file
and on PostgreSQL.
"""

import io

import polars as pl
import pypdf
import pytest
from click.testing import CliRunner

from pipeline.cli import cli
from pipeline.ingest import ingest
from pipeline.sheets import printable
from pipeline.sheets.results import NoResults, results_pdf, round_results
from pipeline.store.db import connect
from tests.test_bracket import EV, HEADER, R1, TIEBREAK, TIED, load_final
from tests.test_examples import IN_REPO, load_example


def lines(pdf: bytes, tmp_path) -> list[str]:
    """The PDF's lines as the core font writes them (``→`` as ``->``, ``★`` as ``*``), so
    that a machine without a Unicode font reads the same."""
    f = tmp_path / "notice.pdf"
    f.write_bytes(pdf)
    reader = pypdf.PdfReader(f)
    text = [line for page in reader.pages for line in page.extract_text().splitlines()]
    return [printable.latin1(line) for line in text]


def notice(con, event: str, round_: str, tmp_path) -> list[str]:
    return lines(results_pdf(round_results(con, event, round_)), tmp_path)


def load(con, tmp_path, rows: list[str]) -> None:
    f = tmp_path / "log.csv"
    f.write_text("\n".join([HEADER, *rows]) + "\n")
    assert ingest(con, [f]).exit_code == 0


def test_a_first_round_then_its_final(store, con, tmp_path):
    load(con, tmp_path, R1)
    text = notice(con, EV, "R1", tmp_path)
    assert "Hasil Babak R1 / results of round R1" in text
    assert not any("SEMENTARA" in line for line in text)
    # by hand (tests/test_bracket.py): table 1 Budi 7, Ani 6, Cici -1, Dedi -2; table 2
    # Eka 20, Gita 0, Fajar -4, Hadi -6; the top two through, the next round not drawn
    t1 = text.index("Meja 1 / table 1")
    assert text[t1 + 2 : t1 + 6] == [
        "1 Budi 7 lolos / through",
        "2 Ani 6 lolos / through",
        "3 Cici -1 gugur / out",
        "4 Dedi -2 gugur / out",
    ]
    t2 = text.index("Meja 2 / table 2")
    assert text[t2 + 2 : t2 + 6] == [
        "1 Eka 20 lolos / through",
        "2 Gita 0 lolos / through",
        "3 Fajar -4 gugur / out",
        "4 Hadi -6 gugur / out",
    ]
    assert not any("TB" in line for line in text), "no table played a tie-break hand"

    # the final played (the four qualifiers, one table): R1's notice says where each went,
    # the final's gives places. By hand: Gita wins all ten (+20); above her Budi in hands
    # 1-2 (-2), Ani in 3-6 (-4), Budi in 7-10 (-4): Gita 20, Eka 0, Ani -4, Budi -6
    load_final(con, tmp_path)
    text = notice(con, EV, "R1", tmp_path)
    assert "1 Budi 7 lolos / through -> Final meja 1" in text
    if printable.find_font():  # with a Unicode font the arrow is an arrow
        raw = pypdf.PdfReader(io.BytesIO(results_pdf(round_results(con, EV, "R1"))))
        assert "through → Final meja 1" in raw.pages[0].extract_text()
    assert "3 Cici -1 gugur / out" in text
    text = notice(con, EV, "Final", tmp_path)
    assert "Hasil final / results of the final" in text
    final = text.index("Meja 1 / table 1")
    assert text[final + 2 : final + 6] == [
        "1 Gita 20 Peringkat 1 / place 1",
        "2 Eka 0 Peringkat 2 / place 2",
        "3 Ani -4 Peringkat 3 / place 3",
        "4 Budi -6 Peringkat 4 / place 4",
    ]


def test_a_tie_across_the_line_is_provisional_until_its_tie_break(con, tmp_path):
    # by hand (tests/test_bracket.py): Budi 5, Ani 4, Cici 4, Dedi -3; Ani and Cici tie
    # for the second place: the table is not finished
    load(con, tmp_path, TIED)
    res = round_results(con, EV, "R1")
    assert res.open_tables == ["1"]
    text = lines(results_pdf(res), tmp_path)
    assert "SEMENTARA / PROVISIONAL - belum selesai / not finished: meja 1" in text
    assert "2 Ani 4 masih main / playing" in text and "2 Cici 4 masih main / playing" in text
    # hand 11: Cici +2, Ani -1 in tie-break points; totals unchanged, Cici through
    load(con, tmp_path, [*TIED, TIEBREAK])
    res = round_results(con, EV, "R1")
    assert res.open_tables == []
    text = lines(results_pdf(res), tmp_path)
    assert not any("SEMENTARA" in line for line in text)
    head = text.index("Meja 1 / table 1") + 1
    assert text[head] == "No. Pemain / player Poin TB Keterangan / result"
    assert text[head + 1 : head + 5] == [
        "1 Budi 5 0 lolos / through",
        "2 Cici 4 2 lolos / through",
        "3 Ani 4 -1 gugur / out",
        "4 Dedi -3 0 gugur / out",
    ]
    assert any(line.startswith("TB: poin kocokan penentu") for line in text)


def test_a_league_session_shows_its_stars_and_the_league_after_it(store, con, tmp_path):
    assert load_example(con, IN_REPO / "pepet") == []
    expected = pl.read_csv(IN_REPO / "pepet" / "expected" / "round_standings.csv")
    text = notice(con, "pepet-2024-e1", "S3", tmp_path)
    assert "Hasil Sesi S3 / results of session S3" in text
    starred = {line for line in text if "* bintang / star" in line}
    stars = expected.filter(pl.col("round") == "S3", pl.col("star"))
    assert stars.height >= 1 and len(starred) == stars.height
    for r in stars.to_dicts():
        assert any(f" {r['player']} {r['points']} *" in line for line in starred)
    # the league after its last session is the event standings, in rank order
    event = pl.read_csv(IN_REPO / "pepet" / "expected" / "event_standings.csv")
    at = text.index("Klasemen setelah Sesi S3 / standings after session S3")
    assert text[at + 1] == "No. Pemain / player Poin Bintang / stars Kocokan / hands"
    got = [line.split(" ")[0] for line in text[at + 2 : at + 2 + event.height]]
    assert got == [str(r) for r in event.sort("rank", "player")["rank"].to_list()]
    first = event.sort("rank", "player").row(0, named=True)
    assert text[at + 2].startswith(f"1 {first['player']} {first['points']} ")
    # and its groups (KG), as the expected group standings
    groups = pl.read_csv(IN_REPO / "pepet" / "expected" / "group_standings.csv")
    at = text.index("Klasemen KG setelah Sesi S3 / standings after session S3")
    assert text[at + 1] == "No. KG / group Poin Pemain / players Kocokan / hands"
    assert text[at + 2 : at + 2 + groups.height] == [
        f"{r['rank']} {r['group']} {r['points']} {r['players']} {r['hands']}"
        for r in groups.sort("rank", "group").to_dicts()
    ]
    # nobody is out of a league
    assert not any("gugur" in line for line in text)


def test_nothing_to_print_is_one_sentence(con, tmp_path):
    load(con, tmp_path, R1)
    with pytest.raises(
        NoResults, match=r"round 'R2' of event 'mini-cup' is neither drawn nor played"
    ):
        round_results(con, EV, "R2")
    with pytest.raises(NoResults, match=r"there is no event 'nope'"):
        round_results(con, "nope", "R1")


def test_without_a_unicode_font_the_notice_still_prints(con, tmp_path, monkeypatch):
    load(con, tmp_path, R1)
    load_final(con, tmp_path)
    monkeypatch.setattr("pipeline.sheets.results.find_font", lambda: None)
    text = notice(con, EV, "R1", tmp_path)
    assert "1 Budi 7 lolos / through -> Final meja 1" in text
    assert printable.latin1("★ →") == "* ->"


def test_cli_writes_the_notice_and_refuses_a_round_without_results(db_path, tmp_path):
    with connect(db_path) as con:
        load(con, tmp_path, TIED)
    runner = CliRunner()
    out = tmp_path / "papan"
    res = runner.invoke(cli, ["results", "--event", EV, "--round", "R1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert res.output.strip() == (
        f"wrote mini-cup_R1_hasil.pdf to {out} (provisional: table 1 not finished)"
    )
    assert (out / "mini-cup_R1_hasil.pdf").read_bytes().startswith(b"%PDF")
    res = runner.invoke(cli, ["results", "--event", EV, "--round", "R2", "--out", str(out)])
    assert res.exit_code == 1
    assert "round 'R2' of event 'mini-cup' is neither drawn nor played yet (its rounds: R1)" in (
        " ".join(res.output.split())
    )
    assert "Traceback" not in res.output
    blocked = tmp_path / "file"
    blocked.write_text("")
    res = runner.invoke(cli, ["results", "--event", EV, "--round", "R1", "--out", str(blocked)])
    assert res.exit_code != 0 and "Traceback" not in res.output


def test_a_round_with_a_drawn_table_still_to_load_is_provisional(con, tmp_path):
    from tests.draw_fixture_entry import insert_draw
    from tests.test_bracket import T1, T2

    insert_draw(con, EV, "R1", {"1": T1, "2": T2})
    load(con, tmp_path, R1[:10])  # table 1's log only
    res = round_results(con, EV, "R1")
    assert res.open_tables == ["2"]
    text = lines(results_pdf(res), tmp_path)
    assert "SEMENTARA / PROVISIONAL - belum selesai / not finished: meja 2" in text
    assert "1 Budi 7 lolos / through" in text
    t2 = text.index("Meja 2 / table 2")
    assert sorted(text[t2 + 2 : t2 + 6]) == sorted(
        f"{p} belum main / not played" for p in T2.values()
    )


def test_a_letter_the_font_lacks_is_written_plainly_not_as_an_empty_box(con, tmp_path, caplog):
    # a Chinese name: DejaVu Sans (or the core font) has no glyph for it
    rows = [r.replace("Ani", "李明") for r in R1[:10]]
    load(con, tmp_path, rows)
    with caplog.at_level("WARNING", logger="fpdf"):
        text = notice(con, EV, "R1", tmp_path)
    assert not [r for r in caplog.records if r.name.startswith("fpdf")]
    assert "2 ?? 6 lolos / through" in text


def test_the_notice_says_when_it_was_printed_with_the_zone(con, tmp_path):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    load(con, tmp_path, R1)
    at = datetime(2026, 12, 6, 9, 30, tzinfo=ZoneInfo("Asia/Makassar"))
    text = lines(results_pdf(round_results(con, EV, "R1"), printed=at), tmp_path)
    assert "Dicetak / printed: 2026-12-06 09:30 WITA" in " ".join(text)


def _two_tables_of_a_session(con, tmp_path) -> list[str]:
    """Session S1 of a pepet league, not drawn: two tables of its three loaded, Rudi (a
    reserve of KG Alpha) playing for Hadi in chair B of table 1. The notice's lines."""
    from datetime import date

    from pipeline.events import save
    from pipeline.players import import_registry, read_registry
    from tests.test_substitutes import REGISTRY, TABLE_1, TABLE_2, sheet

    registry = tmp_path / "players.csv"
    registry.write_text(REGISTRY, encoding="utf-8")
    import_registry(con, read_registry(registry), "default")
    save(con, "ev", "pepet", title="Liga KG", event_date=date(2026, 6, 1))
    one = sheet(tmp_path, "meja1.csv", "1", TABLE_1, {"b": "Hadi"})
    two = sheet(tmp_path, "meja2.csv", "2", TABLE_2)
    assert ingest(con, [one, two]).exit_code == 0
    return notice(con, "ev", "S1", tmp_path)


def test_a_reserve_is_named_with_the_member_they_played_for(con, tmp_path):
    """Rule 23 on the notice board: a reserve's line said "selesai / played" alone, and
    nobody reading it knew whom the reserve had played for."""
    text = _two_tables_of_a_session(con, tmp_path)
    t1 = text.index("Meja 1 / table 1")
    # out by chair A (Ana, jawara1 3); then by value: Rudi 5 (jawara2 2), Cici 10 (jawara3
    # 1), Dedi 20 (ambyar 0); Ana and Budi (table 2, chair A) share the session's best
    assert text[t1 + 2 : t1 + 6] == [
        "1 Ana 3 * bintang / star · selesai / played",
        "2 Rudi 2 cadangan untuk Hadi (reserve)",
        "3 Cici 1 selesai / played",
        "4 Dedi 0 selesai / played",
    ]


def test_a_session_missing_tables_is_provisional_with_its_count(con, tmp_path):
    """RULES, decided: a session still missing tables is in progress ("2 of 3 tables in").
    A session not drawn has no table to name as not finished: the notice looked final."""
    text = _two_tables_of_a_session(con, tmp_path)
    assert "SEMENTARA / PROVISIONAL - 2 dari 3 meja masuk / 2 of 3 tables in" in text


def test_the_standings_command_says_a_session_is_in_progress(db_path, tmp_path):
    """The same on the command line: the standings of a session missing a table, or of
    its event, are said on stderr to be the standings so far."""
    with connect(db_path) as con:
        _two_tables_of_a_session(con, tmp_path)
    runner = CliRunner()
    said = "session S1 of ev is in progress: 2 of 3 tables in; these are the standings so far"
    for args in (["--level", "round", "--round", "S1"], []):
        res = runner.invoke(cli, ["standings", "--event", "ev", *args, "--db", str(db_path)])
        assert res.exit_code == 0, res.output
        assert res.stderr.strip() == f"note: {said}"
