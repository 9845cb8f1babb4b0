"""``domino event delete``: an event made by mistake (a mistyped id on an upload, its
matches then withdrawn) leaves every list; nothing that counts or was prepared is ever
deleted, and each refusal is one sentence."""

from datetime import datetime

import pytest

from pipeline import auth, events
from pipeline import change_requests as cr
from pipeline.ingest.withdraw import withdraw
from pipeline.standings import queries
from tests.pg import open_store
from tests.rules_helpers import biasa_match, load
from tests.test_events_draw_cli import refused, run

WINNERS = ["Ana"] * 6 + ["Budi"] * 4
PW = "a long enough password"


def two_events(con, tmp_path) -> None:
    """The right event (two tables) and a typo of it (one table, the same players)."""
    rows = biasa_match(WINNERS, event="piala-dies", round="R1", table="1", ruleset="unhas")
    rows += biasa_match(
        ["Eko"] * 6 + ["Fani"] * 4,
        ("Eko", "Fani", "Gita", "Hadi"),
        event="piala-dies",
        round="R1",
        table="2",
        ruleset="unhas",
    )
    load(con, tmp_path, rows, "right.csv")
    typo = biasa_match(WINNERS, event="piala-dis", round="R1", table="1", ruleset="unhas")
    load(con, tmp_path, typo, "typo.csv")


def test_a_mistyped_event_goes_once_its_matches_are_withdrawn(store, tmp_path):
    with open_store(store) as con:
        two_events(con, tmp_path)
        right = queries.standings(con, "piala-dies", "event").to_dicts()
    r = run("event", "delete", "piala-dis", "--reason", "salah ketik")
    refused(r, "event piala-dis still counts 1 match(es) (round R1 table 1", "domino withdraw")
    with open_store(store) as con:
        withdraw(con, "piala-dis", "R1", "1", reason="salah ketik acara", by="juri")
    copies = sorted((tmp_path / "backups").glob("*"))
    r = run("event", "delete", "piala-dis", "--reason", "salah ketik", "--by", "admin")
    assert r.exit_code == 0, r.output
    if not store.startswith("postgresql"):  # a file store is copied aside first
        assert len(sorted((tmp_path / "backups").glob("*"))) == len(copies) + 1
    assert "event piala-dis deleted with its 2 match version(s)" in " ".join(r.output.split())
    with open_store(store) as con:
        assert events.get(con, "piala-dis") is None
        for table in ("match_versions", "hands", "hand_points_t", "table_standings_t", "events"):
            n = con.execute(f"SELECT count(*) FROM {table} WHERE event = 'piala-dis'").fetchall()
            assert n[0][0] == 0, table
        assert queries.standings(con, "piala-dies", "event").to_dicts() == right
        assert "piala-dis" not in queries.events(con).get_column("event").to_list()
        log = queries.ingest_log(con).row(0, named=True)
    assert (log["file"], log["loaded_by"], log["reason"], log["status"]) == (
        "(event deleted) piala-dis",
        "admin",
        "salah ketik",
        "done",
    )
    listed = run("event", "list", "--format", "csv").output
    assert "piala-dies," in listed and "piala-dis," not in listed
    refused(run("event", "delete", "piala-dis", "--reason", "x"), "no event piala-dis")


def test_nothing_prepared_is_deleted(db_path, tmp_path):
    from pipeline.store.db import connect

    roster = tmp_path / "roster.csv"
    roster.write_text("player,group\nAna,\nBudi,\nCici,\nDedi,\n")
    assert run("event", "create", "ev", "--ruleset", "unhas").exit_code == 0
    refused(run("event", "delete", "ev", "--reason", " "), "needs a reason")
    assert run("event", "roster", "ev", roster).exit_code == 0
    refused(run("event", "delete", "ev", "--reason", "x"), "event ev has a roster")
    assert run("draw", "--event", "ev", "--round", "R1", "--seed", 1).exit_code == 0
    refused(run("event", "delete", "ev", "--reason", "x"), "has a draw and a roster")
    with connect(db_path) as con, pytest.raises(events.DeleteRefused) as exc:
        events.delete(con, "ev", reason="x", by="admin")
    assert exc.value.render("id") == (
        "acara ev punya undian dan daftar peserta: hanya acara yang belum disiapkan atau "
        "dihitung apa pun yang dapat dihapus"
    )

    assert run("event", "create", "other", "--ruleset", "pepet").exit_code == 0
    with connect(db_path) as con:
        con.execute(
            'INSERT INTO match_entry (event, round, "table", opened_by, opened_at) '
            "VALUES ('other', 'S1', '1', 'wasit', ?)",
            [datetime.now()],
        )
    refused(run("event", "delete", "other", "--reason", "x"), "a table open for hand entry")
    with connect(db_path) as con:
        con.execute("UPDATE match_entry SET closed_at = opened_at, closed_by = 'wasit'")
        auth.add_user(con, "rina", PW, ["other", "ev"])
    refused(run("event", "delete", "other", "--reason", "x"), "users rina may write to event other")
    with connect(db_path) as con:
        auth.set_role(con, "rina", "coordinator", ["ev"])
    r = run("event", "delete", "other", "--reason", "made by mistake")
    assert r.exit_code == 0, r.output
    assert "with its 0 match version(s)" in r.output
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM match_entry").fetchall()[0][0] == 0
        assert events.get(con, "ev") is not None


def test_a_waiting_change_request_keeps_the_event(db_path, tmp_path):
    from pipeline.store.db import connect

    with connect(db_path) as con:
        two_events(con, tmp_path)
        auth.add_user(con, "juri", PW, ["piala-dies"], role="jury")
        auth.add_user(con, "cora", PW, ["piala-dies"])
        ident = auth.sign_in(con, "cora", PW, limiter=auth.RateLimiter()).identity
        rid = cr.ask_withdrawal(con, ident, "piala-dies", "R1", "2", reason="loaded twice")
        withdraw(con, "piala-dis", "R1", "1", reason="typo", by="juri")
        withdraw(con, "piala-dies", "R1", "1", reason="test", by="juri")
    refused(run("event", "delete", "piala-dies", "--reason", "x"), "still counts 1 match(es)")
    with connect(db_path) as con:
        withdraw(con, "piala-dies", "R1", "2", reason="test", by="juri")
        auth.remove_user(con, "juri")
        auth.remove_user(con, "cora")
    refused(
        run("event", "delete", "piala-dies", "--reason", "x"),
        "a change request waiting for the jury",
    )
    with connect(db_path) as con:
        # its decision is the jury's; with no jury left, the record says it was rejected
        con.execute("UPDATE change_requests SET status = 'rejected' WHERE request_id = ?", [rid])
    assert run("event", "delete", "piala-dies", "--reason", "x").exit_code == 0


@pytest.mark.parametrize("bad", ["piala-dis", " piala-dis "])
def test_the_id_is_trimmed_as_everywhere(db_path, tmp_path, bad):
    from pipeline.store.db import connect

    with connect(db_path) as con:
        two_events(con, tmp_path)
        withdraw(con, "piala-dis", "R1", "1", reason="typo", by="juri")
    assert run("event", "delete", bad, "--reason", "typo").exit_code == 0
