"""The domino command: exit codes, formats and reports as HANDLOG.md names them."""

import csv
import io
import json
import subprocess
import sys
from datetime import date

import pytest
from click.testing import CliRunner

from pipeline.cli import cli
from pipeline.standings.queries import CONTRACT
from tests.conftest import DATA, PanicException

BASE = DATA / "errors" / "base_unhas.csv"


def run(*args):
    return CliRunner().invoke(cli, list(map(str, args)), catch_exceptions=False)


def test_ingest_exit_codes(db_path):
    ok = run("ingest", BASE)
    assert ok.exit_code == 0, ok.output
    assert (
        "loaded 2 match(es) (2 new, 0 updated, 0 corrected), 0 unchanged, 0 rejected" in ok.output
    )
    again = run("ingest", BASE)
    assert again.exit_code == 0
    assert "nothing changed" in again.output
    bad = run("ingest", DATA / "errors" / "empty_chair.csv")
    assert bad.exit_code == 1
    # the column as the file spelled it (oleh), the contract name beside it
    assert "empty_chair.csv:13 oleh (ended_by): chair D is empty in this hand" in bad.output
    assert "rejected" in bad.output
    assert run("ingest").exit_code == 2  # wrong call: no file
    assert run("standings", "--event", "x", "--level", "nope").exit_code == 2


def test_ingest_of_a_folder_loads_its_hand_logs_and_leaves_lock_files_out(db_path, tmp_path):
    """A referee's folder of the day: sheets in three formats, the lock files Excel and
    LibreOffice leave beside an open file, a note and a subfolder of drafts."""
    folder = tmp_path / "hasil"
    (folder / "draf").mkdir(parents=True)
    sample = DATA.parents[1] / "data" / "samples" / "unhas" / "R1_meja1.csv"
    (folder / "meja1.csv").write_bytes(sample.read_bytes())
    (folder / "meja.ods").write_bytes((DATA / "read" / "meja.ods").read_bytes())
    (folder / "~$meja.xlsx").write_bytes(b"\x05rina  ")  # Excel's owner file of an open meja.xlsx
    (folder / ".~lock.meja.ods#").write_text("rina,rina,laptop,06.12.2026 10:00,file:///;")
    (folder / "catatan.txt").write_text("meja 3 mulai terlambat")
    (folder / "draf" / "meja9.csv").write_text("not read: a subfolder")
    r = run("ingest", folder)
    assert r.exit_code == 0, r.output
    assert "refused" not in r.output
    assert "(10 rows, meja1.csv)" in r.output and "meja.ods [Meja 3]" in r.output
    # named one by one (as a shell's * names them), each says what it is
    r = run("ingest", folder / "~$meja.xlsx", folder / ".~lock.meja.ods#")
    assert r.exit_code == 1
    assert r.output.count("is the lock file a spreadsheet program keeps") == 2
    empty = tmp_path / "kosong"
    empty.mkdir()
    r = run("ingest", empty)
    assert r.exit_code == 2
    assert "the folder" in r.output and "holds no hand-log file (.csv, .tsv" in r.output


def test_one_sheet_given_twice_loads_once_and_two_versions_name_each_other(db_path, tmp_path):
    """Before: ``meja1.csv`` beside its download ``meja1 (1).csv`` (or one file named twice)
    kept every match of it out, each hand said to be "more than once in this table"."""
    text = BASE.read_text(encoding="utf-8")
    (tmp_path / "meja.csv").write_text(text, encoding="utf-8")
    (tmp_path / "meja (1).csv").write_text(text, encoding="utf-8")
    r = run("ingest", tmp_path / "meja.csv", tmp_path / "meja (1).csv", tmp_path / "meja.csv")
    assert r.exit_code == 0  # nothing lost: their contents were read, once (was exit 1)
    said = " ".join(r.output.split())
    assert "loaded 2 match(es) (2 new, 0 updated, 0 corrected), 0 unchanged, 0 rejected" in said
    assert "refused" not in said
    assert (
        "warning meja (1).csv: the same file as meja.csv, which this load reads: it is read once"
        in said
    )
    assert "meja.csv: named twice in this load: it is read once" in said
    assert "more than once" not in said
    # the same hands saved again as another file (`;`-separated, with a BOM): read once
    saved = tmp_path / "meja-salinan.csv"
    with saved.open("w", newline="", encoding="utf-8-sig") as f:
        csv.writer(f, delimiter=";").writerows(csv.reader(io.StringIO(text)))
    code, said = _dry_run(tmp_path / "meja.csv", saved)
    assert code == 0 and "0 new, 0 updated, 0 corrected), 2 unchanged, 0 rejected" in said
    assert (
        "meja-salinan.csv: the same hands, cell for cell, as meja.csv, which this load reads: "
        "they are read once"
    ) in said, said
    assert "also in" not in said
    # two different versions of one table: the later file's rows name the earlier one
    other = tmp_path / "meja-koreksi.csv"
    other.write_text(text.replace(",ceki,", ",biasa,", 1), encoding="utf-8")
    code, said = _dry_run(tmp_path / "meja.csv", other)
    assert code == 1 and "2 rejected" in said
    assert (
        "meja-koreksi.csv:2 kocokan (hand): hand 1 of this table is also in meja.csv (line 2): "
        "keep each hand in one file (two versions of one sheet?)"
    ) in said
    assert "error meja.csv:" not in said  # the first file's rows are not named


def _dry_run(*files: object) -> tuple[int, str]:
    """``domino ingest --dry-run`` of ``files``: its exit code and its words on one line."""
    r = run("ingest", *files, "--dry-run")
    return r.exit_code, " ".join(r.output.split())


def test_an_event_or_ruleset_given_for_no_row_is_said(db_path, tmp_path):
    """Before: ``--event piala-baru`` for files whose every row names its event was
    ignored without a word (the rows loaded to their own events)."""
    r = run("ingest", BASE, "--event", "piala-baru", "--ruleset", "pepet", "--dry-run")
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines() == [
        "note: --event piala-baru was used for no row: every row of these files names its event",
        "note: --ruleset pepet was used for no row: every row of these files names its ruleset",
    ]
    # rows without an event (a column left out) take it, and nothing is said
    rows = list(csv.reader(io.StringIO(BASE.read_text(encoding="utf-8"))))
    blank = tmp_path / "tanpa-acara.csv"
    with blank.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(row[1:] for row in rows)  # the first column is the event
    r = run("ingest", blank, "--event", "piala-baru", "--dry-run")
    assert r.exit_code == 0 and r.stderr == "", r.output
    assert "would load piala-baru R1 table 1 v1" in r.output
    # over batches, a choice one batch used is used
    from pipeline.ingest import service
    from pipeline.store.db import connect

    with connect(db_path) as con:
        both = service.load(con, [BASE, blank], event="piala-baru", batch_rows=1)
        assert both.unused_choices == {}
        again = service.load(con, [BASE], event="piala-baru", ruleset="Pepet", batch_rows=1)
        assert again.unused_choices == {"event": "piala-baru", "ruleset": "pepet"}


def test_unreadable_file_exit_1(db_path):
    r = run("ingest", DATA / "read" / "empty.csv")
    assert r.exit_code == 1
    assert "the file is empty" in r.output


def test_standings_csv_has_the_contract_columns_in_order(db_path):
    run("ingest", BASE)
    for level in ("table", "event"):
        r = run("standings", "--event", "unhas-2024-e1", "--level", level, "--format", "csv")
        assert r.exit_code == 0, r.output
        rows = list(csv.reader(io.StringIO(r.output)))
        assert rows[0][: len(CONTRACT[level])] == CONTRACT[level]
        assert len(rows) > 1
    r = run(
        "standings",
        "--event",
        "unhas-2024-e1",
        "--level",
        "table",
        "--round",
        "R1",
        "--table",
        "2",
        "--format",
        "csv",
    )
    body = list(csv.DictReader(io.StringIO(r.output)))
    assert [row["player"] for row in body] == ["Umar Ramli", "Haris Rauf", "Yusuf Lubis"]
    assert body[0]["qualified"] == "true"


def test_standings_of_an_event_with_nothing_loaded_say_so(db_path):
    """Before: an event created (or a round drawn) with nothing loaded printed an empty
    table and nothing else, as if its results were lost; the table stays (a script reads
    its header) and a note on stderr says why it is empty."""
    assert run("event", "create", "piala", "--ruleset", "pepet").exit_code == 0
    r = run("standings", "--event", "piala", "--format", "csv")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0].startswith("event,player,points,rank")
    assert len(r.stdout.splitlines()) == 1
    assert " ".join(r.stderr.split()) == (
        "note: no result of piala is loaded yet: domino event show piala says where it stands"
    )
    run("ingest", BASE)
    r = run("standings", "--event", "unhas-2024-e1")
    assert r.exit_code == 0 and "note:" not in r.stderr, r.stderr


def test_a_level_the_ruleset_does_not_have_is_a_wrong_call(db_path):
    """Round (session) standings are declared by the pepet ruleset file, not by unhas."""
    run("ingest", BASE)
    r = run("standings", "--event", "unhas-2024-e1", "--level", "round")
    assert r.exit_code == 2
    assert "ruleset unhas has no round standings (it has table, event)" in r.output


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--level", "event", "--round", "R1"],
            "--round R1 chooses rows of --level table or round, not of the event",
        ),
        (["--level", "group", "--table", "2"], "--table 2 chooses rows of --level table, not"),
        (["--level", "round", "--round", "R1", "--table", "2"], "cover every table of the round"),
    ],
    ids=["round-at-event", "table-at-group", "table-at-round"],
)
def test_a_round_or_table_the_level_would_ignore_is_a_wrong_call(db_path, args, said):
    """`domino standings --event E --round R1` printed the whole event's standings under
    a round the reader asked for: the option was ignored at the event level."""
    run("ingest", BASE)
    r = run("standings", "--event", "unhas-2024-e1", *args)
    assert r.exit_code == 2 and said in " ".join(r.output.split()), r.output
    assert "add --level table" in r.output


@pytest.mark.parametrize(
    ("data", "event", "args", "title", "rows"),
    [
        (BASE, "unhas-2024-e1", ["--round", "R1"], "table", ("R1",)),
        (BASE, "unhas-2024-e1", ["--table", "1"], "table", ("R1", "1")),
        (DATA / "errors" / "base_pepet.csv", "pepet-2024-e1", ["--round", "S1"], "round", ("S1",)),
    ],
    ids=["unhas-round", "table", "pepet-session"],
)
def test_a_round_or_table_without_a_level_asks_for_their_rows(
    db_path, data, event, args, title, rows
):
    """`domino standings --event E --round R1` was a wrong call ("add --level table"): a
    round names the rows wanted, its session standings where the rulebook has them."""
    assert run("ingest", data).exit_code == 0
    r = run("standings", "--event", event, *args, "--format", "csv")
    assert r.exit_code == 0, r.output
    body = list(csv.DictReader(io.StringIO(r.stdout)))
    assert body and list(body[0])[: len(CONTRACT[title])] == CONTRACT[title]
    assert {tuple(row[c] for c in ("round", "table")[: len(rows)]) for row in body} == {rows}
    text = run("standings", "--event", event, *args).stdout
    assert f"{event} — {title} standings" in text


def test_a_setting_of_the_wrong_kind_is_one_sentence_and_exit_2(db_path, monkeypatch):
    """Before: "internal error ... ValueError: could not convert string to float"."""
    run("ingest", BASE)
    monkeypatch.setenv("DOMINO_LOCK_TIMEOUT", "30 detik")
    monkeypatch.delenv("DOMINO_DEBUG")
    r = run("standings", "--event", "unhas-2024-e1")
    assert r.exit_code == 2, r.output
    assert r.stderr.strip() == (
        'setting: DOMINO_LOCK_TIMEOUT is set to "30 detik", which is not a number of 0 or '
        "more; set it to one (its default is 30.0) or unset it"
    )


def test_hands_of_a_round_or_table_that_does_not_exist_say_so(db_path):
    """As `domino standings` does; before, `domino hands --round R7` printed no rows and
    exited 0, as for a round without hands."""
    run("ingest", BASE)
    r = run("hands", "--event", "unhas-2024-e1", "--round", "R7")
    assert r.exit_code == 1
    assert "event unhas-2024-e1 has no round 'R7'; its rounds are R1" in r.output
    r = run("hands", "--event", "unhas-2024-e1", "--round", "R1", "--table", "9")
    assert r.exit_code == 1 and "table" in r.output and "'9'" in r.output, r.output


def test_history_of_an_event_round_or_table_that_does_not_exist_says_so(db_path):
    """Before: `domino history --event nope` said "no versions for nope" and exited 0, where
    `standings` and `hands` say not found."""
    run("ingest", BASE)
    r = run("history", "--event", "nope")
    assert r.exit_code == 1 and "no event 'nope' is loaded" in r.output, r.output
    r = run("history", "--event", "unhas-2024-e1", "--round", "R7")
    assert r.exit_code == 1
    assert "event unhas-2024-e1 has no round 'R7'; its rounds are R1" in r.output
    r = run("history", "--event", "unhas-2024-e1", "--round", "R1", "--table", "9")
    assert r.exit_code == 1 and "'9'" in r.output, r.output


def test_rescore_of_an_event_not_loaded_says_so_and_rescores_nothing(db_path):
    """Before: `domino rescore --event nope` said "rescored 0 hand rows" and exited 0, as
    for an event without hands; with a known event beside it, the typo went unseen."""
    run("ingest", BASE)
    r = run("rescore", "--event", "unhas-2024-e1", "--event", "unhas-2024-e9")
    assert r.exit_code == 1
    assert "no event 'unhas-2024-e9' is loaded; nothing was rescored" in r.output
    assert "rescored" not in r.stdout
    r = run("rescore", "--event", "unhas-2024-e1")
    assert r.exit_code == 0 and r.stdout.startswith("rescored 20 hand rows"), r.output


def test_unknown_event_is_reported(db_path):
    run("ingest", BASE)
    r = CliRunner().invoke(cli, ["standings", "--event", "nope"])
    assert r.exit_code == 1


def test_hands_json_and_csv(db_path):
    run("ingest", BASE)
    r = run("hands", "--event", "unhas-2024-e1", "--format", "json")
    rows = json.loads(r.output)
    assert len(rows) == 10 * 4 + 10 * 3
    assert list(rows[0])[:8] == CONTRACT["hand_points"]
    r = run("hands", "--event", "unhas-2024-e1", "--format", "csv")
    assert r.output.splitlines()[0].startswith(",".join(CONTRACT["hand_points"]))


def test_history_and_log(db_path, tmp_path):
    run("ingest", BASE, "--by", "wasit")
    r = run("history", "--event", "unhas-2024-e1", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(r.output)))
    assert [(x["round"], x["table"], x["version"], x["kind"], x["loaded_by"]) for x in rows] == [
        ("R1", "1", "1", "new", "wasit"),
        ("R1", "2", "1", "new", "wasit"),
    ]
    r = run("log", "--format", "json")
    log = json.loads(r.output)
    assert (
        log[0]["file"] == "base_unhas.csv"
        and log[0]["matches_loaded"] == 2
        and log[0]["status"] == "done"
    )
    assert len(log[0]["sha256"]) == 64


def test_log_limit_takes_the_newest_entries_and_zero_takes_all(store, tmp_path):
    for n in range(3):
        f = tmp_path / f"meja{n}.csv"
        f.write_text(BASE.read_text().replace("unhas-2024-e1", f"ev{n}"))
        assert run("ingest", f).exit_code == 0
    files = [e["file"] for e in json.loads(run("log", "--format", "json").output)]
    assert files == ["meja2.csv", "meja1.csv", "meja0.csv"]
    assert [e["file"] for e in json.loads(run("log", "--limit", 2, "--format", "json").output)] == (
        files[:2]
    )
    assert len(json.loads(run("log", "--limit", 0, "--format", "json").output)) == 3


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["log", "--limit", "-1"], "-1 is not in the range x>=0"),
        (["serve", "--port", "99999"], "99999 is not in the range 1<=x<=65535"),
        (["demo", "--no-serve", "--port", "0"], "0 is not in the range 1<=x<=65535"),
        (["generate", "--ruleset", "unhas", "--hands", "0"], "0 is not in the range x>=1"),
    ],
    ids=["log-limit", "serve-port", "demo-port", "generate-hands"],
)
def test_a_number_out_of_range_is_a_wrong_call(db_path, args, said):
    """Before: `domino log --limit -1` and `domino serve --port 99999` stopped on an
    internal error (exit 70); `domino generate --hands 0` wrote a default event."""
    r = run(*args)
    assert r.exit_code == 2 and said in r.output, r.output


def test_ingest_json_report_and_dry_run(db_path):
    r = run("ingest", DATA / "errors" / "unknown_ending.csv", "--dry-run", "--format", "json")
    rep = json.loads(r.output)
    assert rep["dry_run"] is True
    assert {m["table"]: m["status"] for m in rep["matches"]} == {"1": "rejected", "2": "new"}
    assert rep["problems"][0]["line"] == 3 and rep["problems"][0]["column"] == "ending"
    assert r.exit_code == 1
    # nothing was written: not even the database file, as the log command says on stderr
    r = run("log", "--format", "json")
    assert json.loads(r.stdout) == []
    assert r.stderr.startswith(f"note: {db_path} does not exist yet: nothing is loaded there")


def test_installed_entry_point_runs(db_path):
    r = subprocess.run(
        [sys.executable, "-m", "pipeline", "ingest", str(BASE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipeline",
            "standings",
            "--event",
            "unhas-2024-e1",
            "--format",
            "csv",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.stdout.splitlines()[0].startswith("event,player,points,rank")


def test_a_load_that_creates_an_undated_event_warns_once(store):
    """The ratings take an undated event's tables as played the day it was created: a
    load that creates one says so, and how to give its day; a dated event is not named."""
    from pipeline.store.db import connect

    got = run("ingest", BASE)
    assert got.exit_code == 0
    said = [line for line in got.stderr.splitlines() if "without a date" in line]
    with connect(store, read_only=True) as con:
        day = con.execute("SELECT CAST(created_at AS DATE) FROM events").fetchall()[0][0]
    assert said == [
        "warning: event unhas-2024-e1 was created by this load without a date, so the "
        f"ratings take its tables as played on {day}; if it was played on another "
        "day, give that day: domino event create unhas-2024-e1 --ruleset unhas --date "
        "YYYY-MM-DD"
    ]
    # loaded again (nothing new) or into a dated event: no warning
    assert "without a date" not in run("ingest", BASE).stderr


def test_an_event_created_with_its_date_is_not_warned_about(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMINO_DB", str(tmp_path / "dated.duckdb"))
    made = run("event", "create", "unhas-2024-e1", "--ruleset", "unhas", "--date", "2024-05-01")
    assert made.exit_code == 0
    got = run("ingest", BASE)
    assert got.exit_code == 0 and "without a date" not in got.stderr


def test_many_undated_events_are_one_warning(db_path):
    from types import SimpleNamespace

    from pipeline import events
    from pipeline.cli.loading import _undated
    from pipeline.store.db import connect

    names = [f"kg-{i}" for i in range(5)]
    with connect(db_path) as con:
        for name in names:
            events.save(con, name, "pepet")
        events.save(con, "dated", "pepet", event_date=date(2026, 1, 1))
        said = _undated(con, SimpleNamespace(new_events=dict.fromkeys([*names, "dated"])))
    assert said == [
        "5 events were created by this load without a date (among them kg-0, kg-1, kg-2), "
        "so the ratings take their tables as played on the day each was created; give "
        "each its day: domino event create EVENT --ruleset RULESET --date YYYY-MM-DD"
    ]


def test_ctrl_c_is_one_line_and_exit_130_and_the_next_run_finishes(db_path, monkeypatch):
    """Ctrl-C while a load's ratings follow its commit: one line that says what was kept,
    the exit code of a process stopped by SIGINT; the matches are in, the ladder is owed,
    and running the command again settles it."""
    from pipeline import ratings
    from pipeline.store.db import connect

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(ratings, "update", interrupted)
        got = run("ingest", BASE)
    assert got.exit_code == 130
    said = got.stderr.strip()
    assert said.startswith("interrupted: domino ingest stopped at Ctrl-C") and "\n" not in said
    assert "Aborted" not in got.output and "Traceback" not in got.output
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM match_versions").fetchall()[0][0] > 0
        assert con.execute("SELECT count(*) FROM ratings_due").fetchall()[0][0] > 0
    again = run("ingest", BASE)
    assert again.exit_code == 0, again.output
    rated = "SELECT player_key, mu, sigma, matches FROM ratings_t ORDER BY player_key"
    with connect(db_path) as con:
        assert con.execute("SELECT count(*) FROM ratings_due").fetchall()[0][0] == 0
        settled = con.execute(rated).fetchall()
        ratings.recompute(con)
        assert settled and settled == con.execute(rated).fetchall()


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (KeyError, "event_date"),
        # a Rust extension's panic is not an Exception: it passed the handler and printed
        # a traceback
        (PanicException, "called `Result::unwrap()` on an `Err` value"),
    ],
    ids=["bug", "rust-panic"],
)
def test_an_error_nobody_expected_is_one_line_and_exit_70(db_path, monkeypatch, error, text):
    """A bug reaches the user as one sentence naming the command and the error, not as a
    traceback; DOMINO_DEBUG=1 shows the traceback to whoever reports it."""
    from pipeline.ingest import service

    def broken(*_a, **_k):
        # a new exception each time: one made once, for the parameters, would keep the
        # traceback of each raise, and with it the command's open database connection,
        # until the process ends (nanobind then reports duckdb's objects as leaked)
        raise error(text)

    monkeypatch.setattr(service, "load", broken)
    monkeypatch.delenv("DOMINO_DEBUG")
    got = run("ingest", BASE)
    assert got.exit_code == 70
    said = got.stderr.strip()
    assert "Traceback" not in got.output and len(said.splitlines()) <= 3, said
    assert said.startswith("internal error: domino ingest stopped") and error.__name__ in said
    assert "DOMINO_DEBUG=1" in said
    monkeypatch.setenv("DOMINO_DEBUG", "1")
    try:
        run("ingest", BASE)
    except error:
        pass
    else:
        raise AssertionError("DOMINO_DEBUG=1 did not let the error through")


READERS = [
    ["standings", "--event", "x"],
    ["hands", "--event", "x"],
    ["history", "--event", "x"],
    ["log"],
    ["players", "list"],
    ["requests", "list"],
    ["users", "list"],
    ["league", "history"],
    ["event", "rounds", "x"],
    ["sheets", "--event", "x", "--round", "R1", "--out", "sheets"],
]


@pytest.mark.parametrize("args", READERS, ids=lambda a: " ".join(a[:2]))
def test_a_reading_command_on_a_database_that_does_not_exist_says_so(tmp_path, args):
    """A mistyped ``--db`` reads as an empty league: every command that only reads says,
    on stderr, that the file is not there, and does not create it."""
    missing = tmp_path / "typo.duckdb"
    r = CliRunner().invoke(cli, [*args, "--db", str(missing)])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert r.stderr.startswith(f"note: {missing} does not exist yet: nothing is loaded there"), (
        r.stderr
    )
    assert "give --db or DOMINO_DB" in r.stderr
    assert f"{missing} does not exist" not in r.stdout
    assert not missing.exists()


def test_a_reading_command_on_a_database_that_exists_says_nothing_of_it(db_path):
    assert run("ingest", BASE).exit_code == 0
    r = CliRunner().invoke(cli, ["log", "--format", "csv"])
    assert r.exit_code == 0 and r.stderr == "", r.stderr


def test_the_demo_stays_out_of_a_leagues_own_database(db_path):
    """`make demo` run again on the file where a league now keeps its results (the
    README's default, data/domino.duckdb) added the sample events to it: their simulated
    players were rated, listed and searched with the league's. It adds none now, saying
    so and naming the league's events, and goes on to the dashboard on the database as it
    is; a database of the demo alone is loaded again as before (nothing new)."""
    from pipeline.store.db import connect

    assert run("event", "create", "piala", "--ruleset", "unhas").exit_code == 0
    r = CliRunner().invoke(cli, ["demo", "--no-serve"])
    assert r.exit_code == 0, r.output
    said = " ".join(r.output.split())
    assert said.startswith(
        f"warning: {db_path} holds the results of other events (piala), so the sample "
        "events are not added to it"
    ), said
    assert "--db data/demo.duckdb" in said and "match(es) loaded" not in said, said
    with connect(db_path, read_only=True) as con:
        assert con.execute("SELECT event FROM events").fetchall() == [("piala",)]

    alone = db_path.with_name("demo.duckdb")
    first = run("demo", "--no-serve", "--db", alone)
    assert first.exit_code == 0, first.output
    again = run("demo", "--no-serve", "--db", alone)
    assert again.exit_code == 0, again.output
    assert "unhas: 0 match(es) loaded, 7 already there, 0 rejected" in again.output
    # the other way round: a league's first event created beside the demo's is warned of
    made = run("event", "create", "piala", "--ruleset", "unhas", "--db", alone)
    assert made.exit_code == 0, made.output
    said = " ".join(made.output.split())
    assert (
        "warning: this database also holds the demo's sample events (pepet-liga-makassar, "
        "unhas-dies-lxiv): their simulated players are rated" in said
    ), said
    changed = run("event", "create", "piala", "--ruleset", "unhas", "--title", "P", "--db", alone)
    assert "warning" not in changed.output  # said once, when it was created


def test_a_path_the_system_refuses_is_named_not_called_a_bug(tmp_path):
    """`domino generate --out` under a file: the system's own error, named with its path
    and what to check (exit 2), not "an error it does not know … report that" (exit 70)."""
    (tmp_path / "taken").write_text("a file where a folder should be")
    out = tmp_path / "taken" / "generated"
    r = CliRunner().invoke(
        cli, ["generate", "--ruleset", "pepet", "--seed", "7", "--out", str(out)]
    )
    assert r.exit_code == 2, r.output
    said = " ".join(r.output.split())
    assert said.startswith(f"Error: {out}: Not a directory; check that the path is right"), said
    assert "internal error" not in said
