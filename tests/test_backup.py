"""Backups (issue #7): ``domino backup`` / ``domino restore``, and the automatic copy
taken before every correction.

A backup is whole (taken under the write lock after a checkpoint), a restore checks its
source before touching anything and keeps the database it replaces, and restoring a
backup brings back exactly the standings it was taken with.
"""

import contextlib
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from pipeline.cli import cli
from pipeline.standings import queries
from pipeline.store.backup import BackupError, _locked, backup, restore
from pipeline.store.db import connect
from simulator.stress import (
    FUZZ,
    check_consistent,
    current_content,
    current_matches,
    domino,
    domino_popen,
    finish,
    replicated_frame,
    snapshot,
    write_csv,
)

R1 = [FUZZ / "unhas-2024-e1_R1_meja3.csv", FUZZ / "unhas-2024-e1_R1_meja4.csv"]
R1_MORE = FUZZ / "unhas-2024-e1_R1_multi.csv"
EVENT = "unhas-2024-e1"


def run(*args: object, input: str | None = None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)


def sha(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def corrected(tmp_path, name: str = "meja3_fixed.csv", note: str = "dikoreksi"):
    """R1 table 3 with hand 2's note changed: a correction of one hand."""
    text = R1[0].read_bytes().decode("utf-8-sig").splitlines()
    cells = text[2].split(";")
    cells[-2] = note
    text[2] = ";".join(cells)
    path = tmp_path / name
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    return path


def test_restore_brings_back_the_standings_of_the_backup(db_path, tmp_path):
    assert run("ingest", "--ruleset", "unhas", *R1).exit_code == 0
    taken = snapshot(db_path)
    made = run("backup")
    assert made.exit_code == 0, made.output
    copies = list((tmp_path / "backups").glob("domino-*.duckdb"))
    assert len(copies) == 1 and str(copies[0]) in made.output.replace("\n", "")

    assert run("ingest", R1_MORE).exit_code == 0
    assert run("ingest", "--reason", "salah tulis", corrected(tmp_path)).exit_code == 0
    later = snapshot(db_path)
    assert later != taken

    back = run("restore", copies[0], "--yes")
    assert back.exit_code == 0, back.output
    assert snapshot(db_path) == taken
    saved = [p for p in (tmp_path / "backups").glob("*-before-restore.duckdb")]
    assert len(saved) == 1 and saved[0].name in back.output.replace("\n", "")
    with connect(db_path) as con:
        check_consistent(con)

    # The database the restore replaced was kept whole: restoring it undoes the restore.
    assert run("restore", saved[0], "--yes").exit_code == 0
    assert snapshot(db_path) == later


def test_backup_to_a_named_file_or_folder(db_path, tmp_path):
    run("ingest", "--ruleset", "unhas", R1[0])
    named = backup(db_path, tmp_path / "copy.duckdb")
    assert named == tmp_path / "copy.duckdb"
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    inside = backup(db_path, folder)
    assert inside.parent == folder
    for copy in (named, inside):
        assert snapshot(copy) == snapshot(db_path)
    assert not [p for p in folder.iterdir() if p.name.startswith(".")], (
        "temporary files left behind"
    )
    with pytest.raises(BackupError, match="cannot overwrite the database"):
        backup(db_path, db_path)


@pytest.mark.parametrize("where", ["under_a_file", "name_too_long"])
def test_a_backup_that_cannot_be_written_says_where_and_what_to_do(db_path, tmp_path, where):
    """A folder that cannot be made (a file stands in its place) and a copy the system
    refuses to create: one sentence naming the destination, no temporary name, no
    traceback, nothing left behind."""
    assert run("ingest", "--ruleset", "unhas", R1[0]).exit_code == 0
    if where == "under_a_file":
        (tmp_path / "taken").write_text("not a folder")
        dest = tmp_path / "taken" / "copy.duckdb"
    else:
        dest = tmp_path / ("x" * 300 + ".duckdb")
    r = CliRunner().invoke(cli, ["backup", str(dest)])
    assert r.exit_code == 1, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    line = r.output.strip()
    assert line.startswith(f"Error: could not copy {db_path} to {dest} ("), line
    assert line.endswith("choose a folder you can write to, with room for the copy"), line
    assert ".part" not in line and "Errno" not in line and "Traceback" not in line
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_backup_of_a_missing_database_says_so(tmp_path, db_path):
    r = run("backup", "--db", tmp_path / "none.duckdb")
    assert r.exit_code == 1
    assert "there is no database" in r.output


@pytest.mark.parametrize(
    "kind", ["random", "text", "empty", "foreign_duckdb", "newer_schema", "truncated"]
)
def test_restore_refuses_what_is_not_a_backup_and_changes_nothing(db_path, tmp_path, kind):
    assert run("ingest", "--ruleset", "unhas", *R1).exit_code == 0
    before, before_hash = snapshot(db_path), sha(db_path)
    src = tmp_path / f"{kind}.duckdb"
    if kind == "random":
        src.write_bytes(os.urandom(50_000))
    elif kind == "text":
        src.write_text("event,round\nx,y\n")
    elif kind == "empty":
        src.write_bytes(b"")
    elif kind == "foreign_duckdb":
        con = duckdb.connect(str(src))
        con.execute("CREATE TABLE hands AS SELECT 1 AS x")
        con.close()
    elif kind == "newer_schema":
        good = backup(db_path, tmp_path / "good.duckdb")
        con = duckdb.connect(str(good))
        con.execute("INSERT INTO schema_migrations VALUES (999, '999_future.sql', now())")
        con.close()
        os.replace(good, src)
    elif kind == "truncated":
        good = backup(db_path, tmp_path / "good.duckdb")
        src.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    src_hash = sha(src)
    r = run("restore", src, "--yes")
    assert r.exit_code == 1, r.output
    assert "Error:" in r.output and "Traceback" not in r.output
    # one sentence: the file named as the user named it, what to do, no temporary copy
    assert src.name in r.output and ".restore-" not in r.output, r.output
    assert "restore" in r.output.split(src.name, 1)[1] or "newer version" in r.output, r.output
    assert snapshot(db_path) == before and sha(db_path) == before_hash
    assert sha(src) == src_hash, "the source of a restore must never be modified"
    assert (
        not list((tmp_path / "backups").glob("*-before-restore.duckdb"))
        if (tmp_path / "backups").exists()
        else True
    )
    assert not [p for p in db_path.parent.iterdir() if p.name.startswith(".restore-")]


def test_restore_asks_first(db_path, tmp_path):
    run("ingest", "--ruleset", "unhas", R1[0])
    copy = backup(db_path, tmp_path / "copy.duckdb")
    run("ingest", R1[1])
    before = snapshot(db_path)
    r = run("restore", copy, input="n\n")
    assert r.exit_code == 1 and "Aborted" in r.output
    assert snapshot(db_path) == before


def test_restore_onto_a_new_machine(tmp_path, db_path):
    run("ingest", "--ruleset", "unhas", *R1)
    copy = backup(db_path, tmp_path / "copy.duckdb")
    fresh = tmp_path / "new" / "domino.duckdb"
    restore(copy, fresh)
    assert snapshot(fresh) == snapshot(db_path)


def test_an_older_backup_is_migrated_when_opened(db_path, tmp_path):
    run("ingest", "--ruleset", "unhas", R1[0])
    copy = backup(db_path, tmp_path / "copy.duckdb")
    con = duckdb.connect(str(copy))
    con.execute("DELETE FROM schema_meta")  # as if written before the current views
    con.close()
    restore(copy, db_path)
    with connect(db_path, read_only=True) as c:
        assert queries.standings(c, EVENT, "table").height == 4


# --- the automatic backup before a correction ----------------------------------------------


def test_a_correction_is_preceded_by_a_backup_of_the_version_it_replaces(db_path, tmp_path):
    assert run("ingest", "--ruleset", "unhas", *R1).exit_code == 0
    before = snapshot(db_path)
    content = current_content(db_path)
    assert run("ingest", R1_MORE).exit_code == 0  # new matches: no backup needed
    assert not list((tmp_path / "backups").glob("*")) if (tmp_path / "backups").exists() else True
    assert run("ingest", "--reason", "salah tulis", corrected(tmp_path)).exit_code == 0
    auto = list((tmp_path / "backups").glob("*before-correction*.duckdb"))
    assert len(auto) == 1
    copy = current_content(auto[0])
    assert {k: v for k, v in copy.items() if k in content} == content
    with connect(auto[0], read_only=True) as c:
        assert c.execute("SELECT count(*) FROM match_versions WHERE version > 1").fetchall() == [
            (0,)
        ]
    # restoring it undoes the correction (and the later load, which the copy predates)
    restore(auto[0], db_path)
    assert snapshot(db_path) != before  # R1_MORE was loaded before the correction
    assert current_content(db_path) == copy


def test_two_corrections_in_one_second_keep_two_backups(db_path, tmp_path):
    assert run("ingest", "--ruleset", "unhas", R1[0]).exit_code == 0
    for i in range(3):
        r = run(
            "ingest", "--reason", f"koreksi {i}", corrected(tmp_path, f"fix{i}.csv", f"catatan {i}")
        )
        assert r.exit_code == 0, r.output
    auto = sorted((tmp_path / "backups").glob("*before-correction*.duckdb"))
    assert len(auto) == 3, [p.name for p in auto]
    versions = []
    for copy in auto:
        with connect(copy, read_only=True) as c:
            versions.append(c.execute("SELECT max(version) FROM match_versions").fetchall()[0][0])
    assert sorted(versions) == [1, 2, 3]


def test_only_the_newest_automatic_backups_are_kept(db_path, tmp_path, monkeypatch):
    """A copy of a big league is ~1 GB and every correction takes one: `backup_keep`
    bounds them, deleting the oldest automatic copies only — never `domino backup`
    copies, nor copies of another database in the same folder."""
    monkeypatch.setenv("DOMINO_BACKUP_KEEP", "2")
    assert run("ingest", "--ruleset", "unhas", R1[0]).exit_code == 0
    manual = backup(db_path)
    folder = tmp_path / "backups"
    other = folder / "other-20200101-000000-000000-before-correction.duckdb"
    other.write_bytes(b"not ours")
    made = []
    for i in range(4):
        r = run(
            "ingest", "--reason", f"koreksi {i}", corrected(tmp_path, f"fix{i}.csv", f"catatan {i}")
        )
        assert r.exit_code == 0, r.output
        made.append(sorted(folder.glob(f"{db_path.stem}-*-before-correction.duckdb"))[-1])
    auto = sorted(folder.glob(f"{db_path.stem}-*-before-correction.duckdb"))
    assert auto == made[-2:], [p.name for p in auto]  # the two newest: before corrections 3 and 4
    with connect(auto[-1], read_only=True) as c:
        assert c.execute("SELECT max(version) FROM match_versions").fetchall() == [(4,)]
    assert manual.exists() and other.exists()
    monkeypatch.setenv("DOMINO_BACKUP_KEEP", "0")  # 0 keeps every copy
    assert (
        run(
            "ingest", "--reason", "koreksi 5", corrected(tmp_path, "fix5.csv", "catatan 5")
        ).exit_code
        == 0
    )
    assert len(list(folder.glob(f"{db_path.stem}-*-before-correction.duckdb"))) == 3


# --- where copies go: beside their database, keyed on its resolved path (issue 13) ---------


def correct(db: Path, tmp_path: Path, i: int):
    """One correction of R1 table 3 in ``db`` (named with --db); returns the result."""
    fix = corrected(
        tmp_path, f"fix-{db.parent.name}-{db.stem}-{i}.csv", f"catatan {db.parent.name} {i}"
    )
    return run("ingest", "--db", db, "--reason", f"koreksi {i}", fix)


def automatic(folder: Path) -> list[Path]:
    return sorted(folder.glob("*-before-correction.duckdb")) if folder.exists() else []


def newest_version(copy: Path) -> int:
    with connect(copy, read_only=True) as c:
        return c.execute("SELECT max(version) FROM match_versions").fetchall()[0][0]


def test_each_database_keeps_its_own_backups_beside_it(tmp_path, monkeypatch):
    """Two databases in two folders, two with the same file name in different folders and
    two in one folder: each one's copies land in ``backups/`` beside it, and pruning to
    ``backup_keep=1`` keeps each database's own newest copy — never another's."""
    monkeypatch.delenv("DOMINO_BACKUP_DIR", raising=False)
    monkeypatch.delenv("DOMINO_DB", raising=False)
    monkeypatch.setenv("DOMINO_BACKUP_KEEP", "1")
    a, b, c = (
        tmp_path / "a" / "domino.duckdb",
        tmp_path / "b" / "domino.duckdb",
        tmp_path / "a" / "cup.duckdb",
    )
    for db in (a, b, c):
        assert run("ingest", "--db", db, "--ruleset", "unhas", R1[0]).exit_code == 0
    corrections = {a: 3, b: 2, c: 1}
    for i in range(3):  # interleaved, as at a venue
        for db, n in corrections.items():
            if i < n:
                r = correct(db, tmp_path, i)
                assert r.exit_code == 0, r.output
    assert not (tmp_path / "backups").exists()
    for db, n in corrections.items():
        own = [p for p in automatic(db.parent / "backups") if p.name.startswith(f"{db.stem}-")]
        assert len(own) == 1, (db, [p.name for p in own])
        assert newest_version(own[0]) == n, "the newest copy: taken before the last correction"
    assert (
        len(automatic(tmp_path / "a" / "backups")) == 2
        and len(automatic(tmp_path / "b" / "backups")) == 1
    )


def test_a_shared_backup_folder_keeps_each_databases_copies_apart(tmp_path, monkeypatch):
    """``backup_dir`` set: every database's copies in one folder, still one set per
    database. Before, two databases named domino.duckdb shared a name there and one's
    correction pruned the other's only copy."""
    shared = tmp_path / "shared"
    monkeypatch.setenv("DOMINO_BACKUP_DIR", str(shared))
    monkeypatch.setenv("DOMINO_BACKUP_KEEP", "1")
    x, y = tmp_path / "x" / "domino.duckdb", tmp_path / "y" / "domino.duckdb"
    for db in (x, y):
        assert run("ingest", "--db", db, "--ruleset", "unhas", R1[0]).exit_code == 0
    assert correct(x, tmp_path, 0).exit_code == 0
    assert correct(y, tmp_path, 0).exit_code == 0
    assert correct(x, tmp_path, 1).exit_code == 0
    copies = automatic(shared)
    assert len(copies) == 2, [p.name for p in copies]
    assert sorted(newest_version(p) for p in copies) == [1, 2]
    assert len({p.name.rsplit("-", 5)[0] for p in copies}) == 2, "one name prefix per database"
    assert not (x.parent / "backups").exists() and not (y.parent / "backups").exists()


def test_every_way_of_naming_a_database_puts_its_copies_in_one_place(tmp_path, monkeypatch):
    """DOMINO_DB or --db, a relative or an absolute path, a symbolic link: one database,
    one folder, one set of copies (pruned together)."""
    from pipeline.store.backup import backup_dir, copy_prefix

    monkeypatch.delenv("DOMINO_BACKUP_DIR", raising=False)
    monkeypatch.setenv("DOMINO_BACKUP_KEEP", "2")
    real = tmp_path / "league" / "domino.duckdb"
    real.parent.mkdir()
    link = tmp_path / "current.duckdb"
    link.symlink_to(real)
    monkeypatch.chdir(tmp_path)
    names = [real, Path("league/domino.duckdb"), Path("league/../league/domino.duckdb"), link]
    assert {backup_dir(n) for n in names} == {real.parent / "backups"}
    assert len({copy_prefix(n) for n in names}) == 1
    monkeypatch.setenv("DOMINO_DB", "league/domino.duckdb")
    assert run("ingest", "--ruleset", "unhas", R1[0]).exit_code == 0
    made = [run("backup").output]
    made.append(run("backup", "--db", real).output)
    made.append(run("backup", "--db", link).output)
    monkeypatch.delenv("DOMINO_DB")
    manual = sorted((real.parent / "backups").glob("domino-*.duckdb"))
    assert len(manual) == 3, made
    for i, name in enumerate([Path("league/domino.duckdb"), real, link]):
        if name == real:
            r = run(
                "ingest",
                "--db",
                name,
                "--reason",
                f"koreksi {i}",
                corrected(tmp_path, f"f{i}.csv", f"c{i}"),
            )
        else:
            monkeypatch.setenv("DOMINO_DB", str(name))
            r = run("ingest", "--reason", f"koreksi {i}", corrected(tmp_path, f"f{i}.csv", f"c{i}"))
            monkeypatch.delenv("DOMINO_DB")
        assert r.exit_code == 0, r.output
    auto = automatic(real.parent / "backups")
    assert [newest_version(p) for p in auto] == [2, 3], [p.name for p in auto]
    assert not (tmp_path / "backups").exists()
    assert all(p.name.startswith(copy_prefix(real)) for p in (real.parent / "backups").iterdir())


def test_automatic_backup_copies_then_prunes(db_path, monkeypatch):
    from pipeline.store.backup import automatic_backup, backup_dir

    monkeypatch.setenv("DOMINO_BACKUP_KEEP", "1")
    run("ingest", "--ruleset", "unhas", R1[0])
    first = automatic_backup(db_path)
    second = automatic_backup(db_path)
    assert second.parent == backup_dir(db_path) and second.exists() and not first.exists()
    assert snapshot(second) == snapshot(db_path)


def test_the_backup_module_is_engine_code_without_click():
    code = "import sys, pipeline.store.backup as b; print('click' in sys.modules, b.BackupError.__mro__[1].__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "Exception"]


# --- consistency while other processes work -------------------------------------------------


@pytest.mark.slow
def test_a_backup_taken_during_a_load_holds_all_of_it_or_none(tmp_path):
    db = tmp_path / "domino.duckdb"
    big = write_csv(replicated_frame(6000), tmp_path / "big.csv")
    assert domino("ingest", R1[0], "--ruleset", "unhas", db=db).returncode == 0
    load = domino_popen("ingest", big, db=db)
    time.sleep(3.5)  # python and polars start; the load takes the lock when it has read the file
    taken = domino("backup", tmp_path / "during.duckdb", db=db)
    rc, _out, err = finish(load, 300)
    assert rc == 0, err
    assert taken.returncode == 0, taken.stderr
    with connect(tmp_path / "during.duckdb", read_only=True) as c:
        check_consistent(c)
        n = len(current_matches(c))
    with connect(db, read_only=True) as c:
        total = len(current_matches(c))
    assert n in (1, total), (
        f"a backup holds {n} matches: neither before ({1}) nor after ({total}) the load"
    )


@contextlib.contextmanager
def held(db: Path, opens: str):
    """Another process that runs ``opens`` on ``db`` (``sys.argv[1]``), then keeps it open
    until the block ends."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"{opens}; import time; print('held', flush=True); time.sleep(60)",
            str(db),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def test_backup_and_restore_wait_for_a_reader_then_say_busy(tmp_path):
    """A process holding the database (a dashboard's open connection) blocks both; they wait
    ``lock_timeout`` seconds, then exit 2 with a 'busy' message and leave nothing behind."""
    db = tmp_path / "domino.duckdb"
    assert domino("ingest", R1[0], "--ruleset", "unhas", db=db).returncode == 0
    copy = tmp_path / "copy.duckdb"
    assert domino("backup", copy, db=db).returncode == 0
    reader = "import duckdb, sys; c = duckdb.connect(sys.argv[1], read_only=True)"
    with held(db, reader):
        before = sha(db)
        b = domino("backup", tmp_path / "blocked.duckdb", db=db, DOMINO_LOCK_TIMEOUT="1")
        r = domino("restore", copy, "--yes", db=db, DOMINO_LOCK_TIMEOUT="1")
    for res in (b, r):
        assert res.returncode == 2, res.stdout + res.stderr
        assert "busy" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "blocked.duckdb").exists()
    assert sha(db) == before
    leftovers = [p.name for p in tmp_path.rglob(".*") if p.is_file()]
    assert not leftovers, leftovers


def test_standings_frames_survive_backup_exactly(db_path, tmp_path):
    """Byte-for-byte: every view of the copy equals the original's."""
    run("ingest", "--ruleset", "unhas", *R1, R1_MORE)
    copy = backup(db_path, tmp_path / "copy.duckdb")
    with connect(db_path, read_only=True) as a, connect(copy, read_only=True) as b:
        for view in ("hand_points", "table_standings", "event_standings", "players", "rounds"):
            fa = a.sql(f"SELECT * FROM {view}").pl()
            fb = b.sql(f"SELECT * FROM {view}").pl()
            assert fa.sort(fa.columns).equals(fb.sort(fb.columns)), view
            assert fa.height > 0, view


# --- the copy must not drop the write lock ----------------------------------------------------

PROBE = (
    "import duckdb, sys\n"
    "try:\n"
    "    duckdb.connect(sys.argv[1]).close()\n"
    "    print('opened')\n"
    "except duckdb.Error as exc:\n"
    "    print('locked' if 'lock' in str(exc).lower() else exc)\n"
)


def probe(db: Path) -> str:
    """What another process gets when it tries to open ``db`` for writing right now."""
    return subprocess.run(
        [sys.executable, "-c", PROBE, str(db)], capture_output=True, text=True, timeout=120
    ).stdout.strip()


def test_copying_the_database_we_hold_keeps_others_out(db_path, tmp_path):
    """Regression. DuckDB holds its file with a POSIX record lock, which the process loses
    when it closes *any* descriptor of the file: a backup copied in-process while a
    correction held the database let a second writer in, and two loads both wrote
    version 2 of one match — one of them was lost (found by the correction race)."""
    from pipeline.ingest.writer import backup_before_correction
    from pipeline.store.backup import copy_atomically

    run("ingest", "--ruleset", "unhas", R1[0])
    with connect(db_path) as con:
        assert probe(db_path) == "locked"
        con.execute("CHECKPOINT")
        copy_atomically(db_path, tmp_path / "copy.duckdb")
        assert probe(db_path) == "locked"
        assert backup_before_correction(con) is not None
        assert probe(db_path) == "locked"
    assert probe(db_path) == "opened"


def test_backup_and_restore_hold_the_lock_while_they_copy(db_path, tmp_path, monkeypatch):
    import pipeline.store.backup as backup_mod

    run("ingest", "--ruleset", "unhas", R1[0])
    real = backup_mod.copy_atomically
    seen: list[str] = []

    def copy_then_probe(src, dest):
        real(src, dest)
        seen.append(probe(db_path))

    monkeypatch.setattr(backup_mod, "copy_atomically", copy_then_probe)
    copy = backup(db_path, tmp_path / "copy.duckdb")
    restore(copy, db_path)
    assert seen == ["locked", "locked"]


def test_loading_the_database_file_itself_is_refused_and_keeps_others_out(db_path, tmp_path):
    """``domino ingest data/domino.duckdb`` by mistake: reading the file in the process that
    holds the database would drop DuckDB's lock in the middle of the load."""
    from pipeline.ingest import load

    run("ingest", "--ruleset", "unhas", R1[0])
    link = tmp_path / "looks-like-a-log.csv"
    os.link(db_path, link)
    with connect(db_path) as con:
        plans = [load(con, [db_path, link, R1[1]])]
        assert probe(db_path) == "locked"
    files = [f for p in plans for f in p.files]
    refused = [f for f in files if f["error"] is not None]
    assert [f["error"].code for f in refused] == ["not_a_hand_log", "not_a_hand_log"]
    assert all("results database itself" in f["error"].message for f in refused)
    assert [o.status for p in plans for o in p.outcomes] == ["new"]


#: DuckDB's file layout: three 4 KiB headers, then blocks of 256 KiB, each starting with
#: the checksum of the rest.
HEADERS, BLOCK = 3 * 4096, 256 * 1024


def damage(db: Path) -> None:
    """Spoil every block of ``db`` as a torn or lost write would: the headers still say
    DuckDB, but no block's content matches its checksum any more."""
    data = bytearray(db.read_bytes())
    for start in range(HEADERS, len(data), BLOCK):
        data[start + 64 : start + 72] = bytes(8)
    db.write_bytes(bytes(data))


@pytest.fixture
def damaged_db(db_path, tmp_path):
    """A database with two tables of R1, its backup, then damaged; and the standings the
    backup holds."""
    assert run("ingest", "--ruleset", "unhas", *R1).exit_code == 0
    taken = snapshot(db_path)
    assert run("backup").exit_code == 0
    (copy,) = (tmp_path / "backups").glob("domino-*.duckdb")
    damage(db_path)
    return db_path, copy, taken


def test_a_damaged_database_is_said_so_with_the_copy_to_restore_and_left_as_it_is(damaged_db):
    db, copy, _ = damaged_db
    before = sha(db)
    for args in (("standings", "--event", EVENT), ("ingest", R1_MORE), ("log",)):
        r = domino(*args, db=db)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        said = " ".join(r.stderr.split())
        assert f"the database {db} is damaged (Corrupt database file" in said, said
        assert f"restore its newest copy with `domino restore {copy} --db {db}`" in said, said
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert sha(db) == before


def test_a_block_found_damaged_while_reading_is_said_so_too(db_path):
    """DuckDB checks each block when it reads it, so damage may show only in a query."""
    from pipeline.store.db import StoreError, read

    assert run("ingest", "--ruleset", "unhas", *R1).exit_code == 0
    torn = duckdb.Error(
        "Corrupt database file: computed checksum 1 does not match stored checksum 2"
    )
    for opened in (connect(db_path, read_only=True), connect(db_path), read(db_path)):
        with pytest.raises(StoreError, match="is damaged") as caught, opened:
            raise torn
        assert (caught.value.code, caught.value.file) == ("damaged", db_path)
    # any other DuckDB error stays what it is
    with pytest.raises(duckdb.Error, match="Binder"), connect(db_path) as con:
        con.execute("SELECT nothing FROM hands")


def test_restore_replaces_a_damaged_database_and_keeps_it_aside(damaged_db, tmp_path):
    db, copy, taken = damaged_db
    spoiled = sha(db)
    Path(f"{db}.wal").write_bytes(b"changes of the damaged database")
    r = domino("restore", copy, "--yes", db=db)
    assert r.returncode == 0, r.stdout + r.stderr
    assert snapshot(db) == taken
    with connect(db) as con:
        check_consistent(con)
    # the damaged file as it was, and its log beside it: not replayed onto the backup
    (saved,) = (tmp_path / "backups").glob("*-before-restore.duckdb")
    assert sha(saved) == spoiled and saved.name in "".join(r.stdout.split())
    assert Path(f"{saved}.wal").read_bytes() == b"changes of the damaged database"
    assert not Path(f"{db}.wal").exists()


def test_restore_leaves_a_damaged_database_another_program_holds(damaged_db, tmp_path):
    db, copy, _ = damaged_db
    before = sha(db)
    writer = "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR); fcntl.lockf(fd, fcntl.LOCK_EX)"
    with held(db, writer):
        r = domino("restore", copy, "--yes", db=db, DOMINO_LOCK_TIMEOUT="1")
        # the lock restore takes itself on a file DuckDB cannot open
        with pytest.raises(BackupError, match="is in use by another program"), _locked(db):
            pass
    # DuckDB sees the lock before the damage: busy, as for a database that is whole
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"busy: the database {db} is in use" in " ".join(r.stderr.split())
    assert sha(db) == before
    assert not list((tmp_path / "backups").glob("*-before-restore.duckdb"))


def test_the_dashboard_says_the_database_is_damaged(damaged_db, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from dashboard import data
    from tests.browser.support import APP

    db, copy, _ = damaged_db
    monkeypatch.setenv("DOMINO_DB", str(db))
    data.clear()
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(f"Basis data {db} rusak" in e.value for e in at.error), at.error


# --- a disk with no space left ----------------------------------------------------------------

FULL = Path("/dev/full")  # every write to it fails with ENOSPC, as on a full disk


@contextlib.contextmanager
def disk_full(db: Path):
    """Writes to ``db`` find no space left: its write-ahead log is the system's
    ``/dev/full``, so DuckDB's commit meets the real ENOSPC a full disk gives."""
    wal = Path(f"{db}.wal")
    wal.unlink(missing_ok=True)
    wal.symlink_to(FULL)
    try:
        yield
    finally:
        wal.unlink()


@pytest.mark.skipif(not FULL.exists(), reason="needs Linux's /dev/full")
def test_a_load_on_a_full_disk_names_the_disk_and_loads_once_there_is_room(db_path):
    """A venue laptop's disk full: the load stops with one line naming the disk and what
    to do (not "an error it does not know … report that"), nothing of it is stored, and
    the same command loads it once space is freed."""
    assert run("ingest", "--ruleset", "unhas", R1[0]).exit_code == 0
    before = current_content(db_path)
    with disk_full(db_path):
        r = CliRunner().invoke(cli, ["ingest", str(R1[1])])
    assert r.exit_code == 2, r.output
    line = " ".join(r.output.split())
    assert line.startswith(f"disk full: no space is left on the disk holding {db_path}: "), line
    assert "free space there and run the command again" in line, line
    assert "internal error" not in line and "Traceback" not in line
    assert current_content(db_path) == before
    assert run("ingest", R1[1]).exit_code == 0
    with connect(db_path, read_only=True) as c:
        assert queries.standings(c, EVENT, "table").height == 8


def test_a_correction_whose_copy_cannot_be_taken_changes_nothing_and_says_why(
    db_path, tmp_path, monkeypatch
):
    """The copy a correction takes first cannot be written (the backup folder's place
    is taken by a file): the correction is refused with a sentence naming the copy and
    the setting, on the command line and in the dashboard's language."""
    from pipeline import messages

    assert run("ingest", "--ruleset", "unhas", *R1).exit_code == 0
    before = current_content(db_path)
    (tmp_path / "taken").write_text("not a folder")
    monkeypatch.setenv("DOMINO_BACKUP_DIR", str(tmp_path / "taken" / "backups"))
    r = CliRunner().invoke(cli, ["ingest", "--reason", "salah tulis", str(corrected(tmp_path))])
    assert r.exit_code == 1, r.output
    line = " ".join(r.output.split())
    assert line.startswith(
        "Error: a change to loaded results (a correction, a withdrawal, an event's deletion) "
        "first copies the database aside, and "
    ), line
    assert f"{db_path} could not be copied to {tmp_path / 'taken' / 'backups'}" in line, line
    assert "so nothing was changed" in line and "backup_dir (DOMINO_BACKUP_DIR)" in line, line
    assert current_content(db_path) == before
    with pytest.raises(messages.Refused) as refused:
        with connect(db_path) as con:
            from pipeline.ingest import ingest

            ingest(con, [corrected(tmp_path)], reason="salah tulis")
    assert refused.value.message_id == "backup.not_copied.correction"
    said = refused.value.sentence("id")
    assert said.startswith("Perubahan hasil yang sudah dimuat (koreksi, penarikan"), said
