"""A ``.zip`` of hand logs loads as its files would, each named ``round.zip/meja1.csv``;
what is not read is said (pipeline/ingest/archive.py). Before, such a zip was refused
whole: "this zip file is not a spreadsheet"."""

import io
import struct
import zipfile
import zlib

import polars as pl
from click.testing import CliRunner

from pipeline.cli import cli
from pipeline.ingest import ingest, service
from pipeline.store.db import connect
from tests.rules_helpers import biasa_match, csv_text

EAST = ("Eka", "Fadli", "Gita", "Hadi")


def _table(table: str, seats=("Ana", "Budi", "Cici", "Dedi")) -> bytes:
    winners = [seats[i % 4] for i in range(10)]
    return csv_text(biasa_match(winners, seats, table=table)).encode()


def _zip(members: dict[str, bytes], how: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", how) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _outcomes(plan) -> list[tuple[str, str, str]]:
    return [(o.table, o.status, o.file) for o in plan.outcomes]


def _said(plan) -> list[tuple[str, str, str]]:
    return sorted(plan.problems.select("file", "severity", "message_id").rows())


def test_a_zip_of_hand_logs_loads_each_and_names_what_it_leaves(db_path, tmp_path):
    archive = tmp_path / "R1.zip"
    archive.write_bytes(
        _zip(
            {
                "R1/meja1.csv": _table("1"),
                "R1/meja2.csv": _table("2", EAST),
                "R1/R1.pdf": b"%PDF-1.4 not a hand log",
                "__MACOSX/R1/._meja1.csv": b"\x00\x05\x16\x07",  # what macOS adds: not said
                "R1/.~lock.meja1.csv#": b"lock",
            }
        )
    )
    r = CliRunner().invoke(cli, ["ingest", str(archive), "--db", str(db_path)])
    assert r.exit_code == 0, r.output
    said = " ".join(r.output.split())
    assert "R1.zip: not read from the archive (not hand logs): R1/R1.pdf [archive]" in said
    assert "loaded ev R1 table 1 v1 (10 rows, R1.zip/R1/meja1.csv)" in said
    assert "loaded 2 match(es) (2 new" in said
    assert "MACOSX" not in said and "lock" not in said
    with connect(db_path) as con:
        logged = con.execute("SELECT file, status FROM ingests ORDER BY file").fetchall()
    assert logged == [
        ("R1.zip", "done"),
        ("R1.zip/R1/meja1.csv", "done"),
        ("R1.zip/R1/meja2.csv", "done"),
    ]
    # the same archive again: nothing changes; as an upload (name and bytes) the same
    with connect(db_path) as con:
        plan = service.load(con, [("R1.zip", archive.read_bytes())])
    assert [s for _, s, _ in _outcomes(plan)] == ["unchanged", "unchanged"]
    # the same archive twice in one load (downloaded twice): read once, a warning for it
    data = archive.read_bytes()
    with connect(db_path) as con:
        plan = service.load(con, [("R1.zip", data), ("R1 (1).zip", data)])
    assert [s for _, s, _ in _outcomes(plan)] == ["unchanged", "unchanged"]
    assert _said(plan) == [
        ("R1 (1).zip", "warning", "same_file"),
        ("R1.zip", "warning", "archive.skipped"),
    ]


def test_what_an_archive_cannot_give_is_refused_by_name_and_the_rest_loads(con, tmp_path):
    inner = _zip({"meja9.csv": _table("9")})
    body = _zip(
        {
            "meja1.csv": _table("1"),
            "dalam.zip": inner,
            "../../meja2.csv": _table("2", EAST),  # a path out of the archive: shown inside
            "kosong.csv": b"",
        }
    )
    plan = service.load(con, [("hasil.zip", body)])
    assert _outcomes(plan) == [
        ("1", "new", "hasil.zip/meja1.csv"),
        ("2", "new", "hasil.zip/meja2.csv"),
    ]
    assert _said(plan) == [
        ("hasil.zip/dalam.zip", "error", "archive.nested"),
        ("hasil.zip/kosong.csv", "error", "empty"),
    ]
    assert plan.exit_code == 1
    # an archive of no hand log at all is refused whole, in one sentence
    plan = service.load(con, [("foto.zip", _zip({"a.jpg": b"\xff\xd8", "b.pdf": b"%PDF"}))])
    assert _said(plan) == [("foto.zip", "error", "archive.empty")]
    assert plan.problems["message"][0] == (
        "the archive holds no hand log (no .csv, .tsv, .xlsx, .xlsm, .ods file): put the "
        "filled-in sheets in it, or load them one by one"
    )


def _flag_encrypted(data: bytes) -> bytes:
    """The archive with its first file marked as encrypted (bit 0 of its flags), as a zip
    tool with a password writes it."""
    out = bytearray(data)
    local = out.index(b"PK\x03\x04")
    central = out.index(b"PK\x01\x02")
    for at in (local + 6, central + 8):
        (flags,) = struct.unpack_from("<H", out, at)
        struct.pack_into("<H", out, at, flags | 0x1)
    return bytes(out)


def _damaged(data: bytes, member: bytes) -> bytes:
    """The archive with the compressed bytes of ``member`` (a file's data) garbled."""
    packed = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
    body = packed.compress(member) + packed.flush()
    at = data.index(body)
    return data[:at] + bytes(b ^ 0x5A for b in body[:40]) + data[at + 40 :]


def test_an_encrypted_a_damaged_or_an_oddly_packed_file_is_refused_by_name(con):
    table1, table2 = _table("1"), _table("2", EAST)
    locked = _flag_encrypted(_zip({"meja2.csv": table2, "meja1.csv": table1}))
    plan = service.load(con, [("a.zip", locked)])
    assert _outcomes(plan) == [("1", "new", "a.zip/meja1.csv")]
    assert _said(plan) == [("a.zip/meja2.csv", "error", "archive.encrypted")]
    broken = _damaged(_zip({"meja2.csv": table2}), table2)
    plan = service.load(con, [("b.zip", broken)])
    assert _said(plan) == [("b.zip/meja2.csv", "error", "archive.damaged")]
    stored = bytearray(_zip({"meja2.csv": table2}, zipfile.ZIP_STORED))
    for at in (stored.index(b"PK\x03\x04") + 8, stored.index(b"PK\x01\x02") + 10):
        struct.pack_into("<H", stored, at, 14)  # LZMA, which the reader will not unpack
    plan = service.load(con, [("c.zip", bytes(stored))])
    assert _said(plan) == [("c.zip/meja2.csv", "error", "archive.compression")]
    assert con.execute('SELECT DISTINCT "table" FROM hands').fetchall() == [("1",)]


def test_an_archive_unpacks_no_further_than_its_limits(con, monkeypatch):
    """A file of the archive may unpack to ``max_file_bytes``, the archive to
    ``max_xlsx_expanded_bytes``, counted by unpacking: a 40 KB member of 40 MB of zeros
    is refused after 20 MB, not read whole."""
    bomb = b"0" * (40 * 1024 * 1024)
    body = _zip({"meja1.csv": _table("1"), "bom.csv": bomb})
    plan = service.load(con, [("r.zip", body)])
    assert _outcomes(plan) == [("1", "new", "r.zip/meja1.csv")]
    assert _said(plan) == [("r.zip/bom.csv", "error", "too_large")]
    # what a refused file unpacked counts too: the second bomb crosses the archive's limit
    monkeypatch.setenv("DOMINO_MAX_XLSX_EXPANDED_BYTES", str(30 * 1024 * 1024))
    body = _zip({"bom1.csv": bomb, "bom2.csv": bomb, "meja1.csv": _table("1")})
    plan = service.load(con, [("q.zip", body)])
    assert plan.outcomes == []
    assert _said(plan) == [
        ("q.zip/bom1.csv", "error", "too_large"),
        ("q.zip/bom2.csv", "error", "archive.too_large"),
    ]
    # the whole archive's limit: the file that crosses it and every one after are not read
    size = len(_table("2", EAST))
    monkeypatch.setenv("DOMINO_MAX_XLSX_EXPANDED_BYTES", str(size + size // 2))
    tables = {"meja2.csv": _table("2", EAST), "meja3.csv": _table("3", ("I", "J", "K", "L"))}
    plan = service.load(con, [("s.zip", _zip({**tables, "meja4.csv": _table("4")}))])
    assert _outcomes(plan) == [("2", "new", "s.zip/meja2.csv")]
    assert _said(plan) == [("s.zip/meja3.csv", "error", "archive.too_large")]
    # more files than max_archive_files: refused whole before one is unpacked
    monkeypatch.setenv("DOMINO_MAX_ARCHIVE_FILES", "2")
    plan = service.load(con, [("t.zip", _zip({**tables, "meja4.csv": _table("4")}))])
    assert plan.outcomes == [] and _said(plan) == [("t.zip", "error", "archive.too_many")]
    assert plan.problems["message"][0].startswith("the archive holds 3 files; the limit is 2")


def test_the_json_report_lists_each_file_by_the_same_four_keys(db_path, tmp_path):
    """Before: a file skipped with a note came out in ``--format json`` with the note as
    the text of a polars frame."""
    import json

    archive = tmp_path / "R1.zip"
    archive.write_bytes(_zip({"meja1.csv": _table("1"), "R1.pdf": b"%PDF", "x.csv": b""}))
    r = CliRunner().invoke(cli, ["ingest", str(archive), "--db", str(db_path), "--format", "json"])
    assert r.exit_code == 1, r.output
    got = json.loads(r.stdout)
    assert list(got) == ["ingest_id", "dry_run", "files", "matches", "problems"]  # docs/handlog.md
    assert [sorted(f) for f in got["files"]] == [["error", "file", "rows", "sha256"]] * 3
    assert list(got["matches"][0]) == [
        *("file", "event", "round", "table", "status", "version", "hands", "message")
    ]
    assert [(f["file"], f["error"]) for f in got["files"]] == [
        ("R1.zip", None),
        ("R1.zip/meja1.csv", None),
        ("R1.zip/x.csv", "the file is empty"),
    ]
    assert [p["message_id"] for p in got["problems"]] == ["archive.skipped", "empty"]


def test_progress_counts_an_archive_as_the_one_file_given(db_path, tmp_path, monkeypatch):
    """Away from a terminal a line per file given: a .zip of three tables, loaded a batch
    per file, counted "loaded 4 of 1 files" before."""
    monkeypatch.setenv("DOMINO_PROGRESS_FILES", "1")
    monkeypatch.setenv("DOMINO_BATCH_FILES", "1")
    archive = tmp_path / "R1.zip"
    tables = {
        f"meja{t}.csv": _table(str(t), (f"A{t}", f"B{t}", f"C{t}", f"D{t}")) for t in (1, 2, 3)
    }
    archive.write_bytes(_zip(tables))
    alone = tmp_path / "meja4.csv"
    alone.write_bytes(_table("4", ("A4", "B4", "C4", "D4")))
    r = CliRunner().invoke(cli, ["ingest", str(archive), str(alone), "--db", str(db_path)])
    assert r.exit_code == 0, r.output
    said = [line for line in r.stderr.splitlines() if line.startswith("loaded")]
    assert said == ["loaded 1 of 2 files, 30 hands", "loaded 2 of 2 files, 40 hands"], r.stderr


def test_a_folder_stands_for_its_archives_too(db_path, tmp_path):
    folder = tmp_path / "hasil"
    folder.mkdir()
    (folder / "R1.zip").write_bytes(_zip({"meja1.csv": _table("1")}))
    (folder / "meja2.csv").write_bytes(_table("2", EAST))
    (folder / "catatan.txt").write_text("wasit: Pak Budi")
    r = CliRunner().invoke(cli, ["ingest", str(folder), "--db", str(db_path)])
    assert r.exit_code == 0, r.output
    assert "loaded 2 match(es) (2 new" in r.output and "R1.zip/meja1.csv" in r.output
    empty = tmp_path / "kosong"
    empty.mkdir()
    r = CliRunner().invoke(cli, ["ingest", str(empty), "--db", str(db_path)])
    assert r.exit_code == 2
    assert "holds no hand-log file (.csv, .tsv, .xlsx, .xlsm, .ods, .zip)" in r.output


def test_a_zip_named_otherwise_or_given_with_its_files_reads_each_table_once(con, tmp_path):
    meja1 = tmp_path / "meja1.csv"
    meja1.write_bytes(_table("1"))
    hasil = tmp_path / "hasil"  # a zip without its suffix: read for what it is
    hasil.write_bytes(_zip({"meja1.csv": _table("1"), "meja2.csv": _table("2", EAST)}))
    plan = ingest(con, [meja1, hasil])
    assert _outcomes(plan) == [("1", "new", "meja1.csv"), ("2", "new", "hasil/meja2.csv")]
    assert _said(plan) == [("hasil/meja1.csv", "warning", "same_file")]
    assert plan.problems.filter(pl.col("file") == "hasil/meja1.csv")["message"][0].startswith(
        "the same file as meja1.csv, which this load reads"
    )
