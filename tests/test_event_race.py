"""Two first uploads of one new event under different rulesets, on both stores.

Both plan the event as new; the first to commit creates it. The event row is written
``ON CONFLICT DO NOTHING``, so the second must check the stored ruleset under its own
transaction: its commit is refused whole, and its upload, planned again, reports its rows
as ``ruleset_changed`` (file, line and column named) with nothing written.
"""

import pytest

from pipeline.ingest import plan, read_all, service
from pipeline.ingest.writer import EventsChanged, begin_ingest, commit
from pipeline.store.db import connect
from simulator.stress.checks import check_consistent
from tests.conftest import DATA

EVENT = "race-ev"


def upload(tmp_path, ruleset: str):
    """The base sheet of ``ruleset`` (tests/data/errors), its event renamed to EVENT."""
    text = (DATA / "errors" / f"base_{ruleset}.csv").read_text()
    path = tmp_path / f"{ruleset}.csv"
    path.write_text(text.replace(f"{ruleset}-2024-e1", EVENT))
    return path


def rows_in(path) -> int:
    return len(path.read_text().splitlines()) - 1


def hands(con) -> int:
    return con.execute("SELECT count(*) FROM hands").fetchall()[0][0]


def test_the_losers_commit_is_refused_whole(store, tmp_path):
    unhas, pepet = upload(tmp_path, "unhas"), upload(tmp_path, "pepet")
    with connect(store) as con:
        plans = [plan(con, *read_all([f])) for f in (unhas, pepet)]
        assert [p.new_events for p in plans] == [{EVENT: "unhas"}, {EVENT: "pepet"}]
        begin_ingest(con, plans[0])
        commit(con, plans[0])
        begin_ingest(con, plans[1])
        with pytest.raises(EventsChanged, match=f"{EVENT} \\(unhas, not pepet\\)"):
            commit(con, plans[1])
        assert con.execute("SELECT ruleset FROM events").fetchall() == [("unhas",)]
        assert hands(con) == rows_in(unhas)
        check_consistent(con)


def test_the_loser_is_planned_again_and_refused_as_ruleset_changed(store, tmp_path, monkeypatch):
    unhas, pepet = upload(tmp_path, "unhas"), upload(tmp_path, "pepet")
    real_begin = service.begin_ingest
    raced: list[bool] = []

    def begin_after_the_other_upload(con, p):
        # the other venue's upload commits between this plan and its commit (once)
        if not raced:
            raced.append(True)
            with connect(store) as other:
                assert service.load(other, [unhas]).exit_code == 0
        return real_begin(con, p)

    monkeypatch.setattr(service, "begin_ingest", begin_after_the_other_upload)
    with connect(store) as con:
        p = service.load(con, [pepet])
        assert raced == [True]
        assert p.exit_code == 1
        bad = p.problems.filter(p.problems["code"] == "ruleset_changed")
        assert bad.height == rows_in(pepet)  # every row of the losing upload, each named
        assert bad["file"].str.ends_with("pepet.csv").all()
        assert sorted(bad["line"].to_list()) == list(range(2, rows_in(pepet) + 2))
        assert set(bad["column"].to_list()) == {"ruleset"}
        assert {o.status for o in p.outcomes} == {"rejected"}
        assert con.execute("SELECT ruleset FROM events").fetchall() == [("unhas",)]
        assert hands(con) == rows_in(unhas)
        check_consistent(con)
