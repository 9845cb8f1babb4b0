"""``domino event roster`` warns, naming the player, about an entrant the ruleset's
eligibility does not admit on the event's date (RULES.md; pepet: 17 or older, Indonesian
citizens); the entrant stays on the roster (a warning, never a refusal)."""

from click.testing import CliRunner

from pipeline.cli import cli
from pipeline.store.db import connect


def run(*args):
    return CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)


def test_roster_warns_naming_each_ineligible_entrant(db_path, tmp_path):
    reg = tmp_path / "players.csv"
    reg.write_text(
        "player,group,birth_date,citizenship\n"
        "Ana,KG Alpha,2009-05-02,Indonesia\nBudi,KG Alpha,2009-05-01,\n"
        "Cici,KG Beta,,Malaysia\nDedi,KG Beta,,WNI\nEko,KG Beta,2015-01-01,\n",
        encoding="utf-8",
    )
    assert run("players", "import", reg).exit_code == 0
    r = run("event", "create", "kg", "--ruleset", "pepet", "--date", "2026-05-01")
    assert r.exit_code == 0, r.output
    roster = tmp_path / "roster.csv"
    roster.write_text("player\nAna\nBudi\nCici\nDedi\n", encoding="utf-8")
    r = run("event", "roster", "kg", roster)
    assert r.exit_code == 0, r.output
    assert "kg: 4 entrant(s)" in r.stdout
    # worked by hand: on 2026-05-01 Ana is 16 (17 the next day), Budi 17 that very day;
    # Cici is Malaysian; Dedi (no birth date, WNI) passes; Eko is not an entrant
    assert r.stderr.splitlines() == [
        "warning: Ana is 16 on 2026-05-01 (born 2009-05-02); event kg admits players of 17 "
        "or older.",
        "warning: Cici's citizenship is Malaysia; event kg admits Indonesia, Indonesian, WNI "
        "citizens.",
    ]
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM entrants").fetchall() == [(4,)]


def test_a_ruleset_without_eligibility_warns_nobody(db_path, tmp_path):
    reg = tmp_path / "players.csv"
    reg.write_text("player,group,birth_date\nAna,KG Alpha,2015-01-01\n", encoding="utf-8")
    assert run("players", "import", reg).exit_code == 0
    assert run("event", "create", "u", "--ruleset", "unhas", "--date", "2026-05-01").exit_code == 0
    roster = tmp_path / "roster.csv"
    roster.write_text("player\nAna\nBudi\nCici\n", encoding="utf-8")
    r = run("event", "roster", "u", roster)
    assert r.exit_code == 0 and r.stderr == ""
