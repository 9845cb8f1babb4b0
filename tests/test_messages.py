"""Every sentence the pipeline writes comes from a message id and named parameters,
rendered through one catalogue per language (pipeline/messages/en.toml, id.toml).

The error fixtures and the scenarios below provoke every message the pipeline can emit —
a problem in a hand log, what happened to a match, a file refused whole, a refused
sign-in. Each must have its id in both catalogues, its English sentence must be what the
English catalogue renders from its parameters, and its Indonesian sentence must render
whole. Every id of the catalogues must be provoked by some scenario here (or be listed in
RARE, with a test that builds it): a sentence changed or added in the pipeline without
its catalogue entries fails here, and so does a catalogue entry nothing uses.
"""

import json
import os
import string
import zipfile
from io import BytesIO
from pathlib import Path

import polars as pl
import pytest

from dashboard import messages as dash
from pipeline import auth, messages
from pipeline.ingest import ingest, read_all
from pipeline.ingest.read import read_bytes, read_file
from pipeline.players import import_registry, read_registry
from pipeline.problems import FileRejected, describe
from tests.conftest import DATA

ERRORS = DATA / "errors"
BASE = ERRORS / "base_unhas.csv"
LINES = BASE.read_text().splitlines()
PW = "a long enough password"

#: every message id a scenario of this module produced (checked at the end)
SEEN: set[str] = set()


def said(mid: str, params: dict, english: str) -> str:
    """Check one message: known to both catalogues, its English rendered from its
    parameters, its Indonesian whole; returns the Indonesian sentence."""
    assert mid in messages.catalogue("en"), f"not in pipeline/messages/en.toml: {mid}"
    assert mid in messages.catalogue("id"), f"not in pipeline/messages/id.toml: {mid}"
    SEEN.add(mid)
    for v in params.values():
        if isinstance(v, list):
            for inner in v:
                if isinstance(inner, dict):
                    said(
                        inner["id"], inner["params"], messages.render(inner["id"], inner["params"])
                    )
    assert messages.render(mid, params) == english
    indonesian = messages.render(mid, params, "id")
    assert indonesian and "{" not in indonesian
    return indonesian


def check_plan(plan, *, need: bool = True) -> int:
    """Every problem and outcome of ``plan``; returns how many messages it held."""
    n = 0
    pr = plan.problems
    if pr.height:
        assert pr.get_column("message_id").null_count() == 0
        rendered = dash.render_column(pr, "id")
        assert rendered.get_column("message").null_count() == 0
        for row in pr.to_dicts():
            said(
                row["message_id"],
                json.loads(row["params"]),
                messages.short(messages.render(row["message_id"], json.loads(row["params"]))),
            )
            assert row["message"] == messages.short(
                messages.render(row["message_id"], json.loads(row["params"]))
            )
            n += 1
    for o in plan.outcomes:
        if o.message:
            said(o.message_id, o.params, o.message)
            n += 1
    assert n or not need, "the scenario produced no sentence"
    return n


def refused(exc: FileRejected) -> str:
    return said(exc.message_id, exc.params, exc.message)


def write(tmp_path, name: str, lines: list[str]):
    f = tmp_path / name
    f.write_text("\n".join(lines) + "\n")
    return f


# --- the catalogues themselves ----------------------------------------------------------------


def test_both_catalogues_hold_the_same_ids_and_parameters():
    en, id_ = messages.catalogue("en"), messages.catalogue("id")
    assert len(en) > 60
    assert set(en) == set(id_)
    for mid, tpl in en.items():
        assert set(messages.fields(tpl)) == set(messages.fields(id_[mid])), mid
        assert tpl != id_[mid] or mid.startswith("join."), mid
        assert {spec for _, f, spec, _ in string.Formatter().parse(tpl) if f} <= {"", ","}, mid
        assert all(f.isidentifier() for f in messages.fields(tpl)), mid
        string.Formatter().parse(tpl)


def test_numbers_are_grouped_as_each_language_writes_them():
    """``{size:,}``: 1,048,576 in English, 1.048.576 in Indonesian (where 1,048 is a number
    between one and two), whether the sentence is rendered alone, for a checked column, or
    from stored parameters; a number an earlier version stored grouped the English way is
    grouped again, and text that is not a number is shown as it is."""
    params = {"size": 1_048_576, "limit": 100}
    assert messages.render("too_large", params) == (
        "the file is 1,048,576 bytes; the limit is 100 bytes"
    )
    assert messages.render("too_large", params, "id") == (
        "ukuran berkas 1.048.576 byte; batasnya 100 byte"
    )
    stored = pl.DataFrame(
        {
            "message_id": ["too_large"] * 4,
            "params": [
                messages.to_json(params),
                messages.to_json({"size": "1048576", "limit": "123456"}),  # a checked column
                messages.to_json({"size": "1,048,576", "limit": "1,000"}),  # stored before
                messages.to_json({"size": "12,34", "limit": "n/a"}),
            ],
        }
    )
    assert messages.render_frame(stored, "id").to_list() == [
        "ukuran berkas 1.048.576 byte; batasnya 100 byte",
        "ukuran berkas 1.048.576 byte; batasnya 123.456 byte",
        "ukuran berkas 1.048.576 byte; batasnya 1.000 byte",
        "ukuran berkas 12,34 byte; batasnya n/a byte",
    ]
    for lang in messages.LANGUAGES:  # one sentence and a whole column agree
        assert messages.render_frame(stored, lang).to_list() == [
            messages.render("too_large", json.loads(p), lang) for p in stored["params"]
        ]
    for n in (0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 4_000_000_000):
        column = pl.DataFrame({"n": [n]}).select(
            messages.expr(
                "too_large", {"size": pl.col("n").cast(pl.String), "limit": pl.lit("1")}, "id"
            )
        )
        assert column.item() == messages.render("too_large", {"size": n, "limit": 1}, "id")
        assert f"{n:,}".replace(",", ".") in column.item()


def test_a_refusal_shown_on_its_own_begins_with_a_capital_unless_it_begins_with_a_value():
    """A page's error box shows the sentence alone; the catalogues write it to follow
    "Error: " (the CLI) or a file name, in lower case."""
    alone = messages.Refused("event.no_id")
    assert alone.render("id").startswith("acara perlu") and alone.sentence("id").startswith(
        "Acara perlu"
    )
    assert alone.sentence() == "An event needs an id: give one, e.g. unhas-2026"
    params = {"file": "peserta.csv", "line": 4, "player": "ana", "first": 2}
    named = messages.Refused("roster.twice", params)  # begins with the file, as it is named
    assert named.sentence("id") == named.render("id")
    assert named.sentence().startswith("peserta.csv, line 4")


def test_a_message_inside_a_message_is_rendered_in_the_same_language():
    what = [
        messages.ref("hands.changes", {"hands": "4"}),
        messages.ref("hands.drops", {"hands": "9, 10"}),
    ]
    params = {"what": what, "reason": "wrong sheet"}
    assert (
        messages.render("match.correction", params)
        == "changes hand(s) 4 and drops hand(s) 9, 10 (reason: wrong sheet)"
    )
    assert (
        messages.render("match.correction", params, "id")
        == "mengubah kocokan 4 dan menghapus kocokan 9, 10 (alasan: wrong sheet)"
    )


def test_values_from_the_file_are_kept_as_written():
    # a value that looks like a sentence is not translated: nothing parses a sentence
    params = {"value": "this hand does not say the round"}
    assert (
        messages.render("not_a_number", params, "id")
        == "this hand does not say the round bukan bilangan bulat"
    )


def test_a_frame_column_is_rendered_per_message_id_and_keeps_rows_without_one():
    df = pl.DataFrame(
        {
            "message": ["empat is not a whole number", "x", "tables", None],
            "message_id": ["not_a_number", None, "player_two_tables.upload", None],
            "params": [
                '{"value":"empat"}',
                None,
                '{"player":"Ana","tables":["1","2"],"round":"R1"}',
                None,
            ],
        }
    )
    out = dash.render_column(df, "id")
    assert out["message"].to_list() == [
        "empat bukan bilangan bulat",
        "x",
        "Ana bermain di meja 1 dan 2 pada babak R1 dalam unggahan ini; seorang pemain duduk di satu meja per babak",
        None,
    ]
    assert dash.render_column(df, "en").equals(df)


def test_the_column_is_named_as_the_file_spelled_it(con):
    plan = ingest(con, [ERRORS / "apollo_not_double.csv"])
    row = plan.problems.filter(pl.col("code") == "apollo_not_double").to_dicts()[0]
    assert (row["column"], row["spelled"]) == ("last_tile", "kartu_terakhir")
    assert describe(row).startswith(
        "apollo_not_double.csv:4 kartu_terakhir (last_tile): apollo means"
    )
    shown = dash.column_label(plan.problems.filter(pl.col("code") == "apollo_not_double"))
    assert shown["column"][0] == "kartu_terakhir (last_tile)"


def test_a_file_with_the_contract_names_shows_the_column_alone(con, tmp_path):
    from pipeline.ingest.columns import CANONICAL, canonical_name

    header = ",".join(CANONICAL[: len(LINES[0].split(","))])
    assert [canonical_name(h) for h in LINES[0].split(",")] == header.split(",")
    cells = LINES[4].split(",")
    cells[11] = "5-4"  # kartu_terakhir: apollo with a tile that is not a double
    cells[10] = "apollo"
    f = write(tmp_path, "plain.csv", [header, *LINES[1:4], ",".join(cells), *LINES[5:]])
    row = ingest(con, [f]).problems.filter(pl.col("code") == "apollo_not_double").to_dicts()[0]
    assert row["spelled"] is None
    assert describe(row).startswith("plain.csv:5 last_tile: apollo means")


# --- sentences the pipeline writes ------------------------------------------------------------


@pytest.mark.parametrize(
    "name", sorted(p.name for p in ERRORS.glob("*.csv") if not p.name.startswith("base_"))
)
def test_every_error_fixture_speaks_indonesian(con, name):
    check_plan(ingest(con, [ERRORS / name]))


def test_loading_again_speaks_indonesian(con, tmp_path):
    table1 = LINES[1:11]
    cells = table1[3].split(",")
    cells[10], cells[11] = "biasa", "2|1"
    fixed = [*table1[:3], ",".join(cells), *table1[4:9]]  # hand 4 changed, hand 10 dropped
    plans = [
        ingest(con, [write(tmp_path, "part.csv", [LINES[0], *table1[:8]])]),  # new
        ingest(con, [write(tmp_path, "more.csv", [LINES[0], *table1])]),  # update
        ingest(con, [write(tmp_path, "more.csv", [LINES[0], *table1])]),  # unchanged
        ingest(con, [write(tmp_path, "fix.csv", [LINES[0], *fixed])]),  # correction, no reason
        ingest(con, [write(tmp_path, "fix.csv", [LINES[0], *fixed])], reason="wrong sheet"),
    ]
    assert [p.outcomes[0].status for p in plans] == [
        "new",
        "update",
        "unchanged",
        "rejected",
        "correction",
    ]
    for p in plans:
        check_plan(p, need=p is not plans[0])
    assert plans[-1].outcomes[0].message.endswith("(reason: wrong sheet)")
    assert plans[-1].outcomes[0].render("id").endswith("(alasan: wrong sheet)")


def test_clashes_with_what_is_loaded_speak_indonesian(con, tmp_path):
    ingest(con, [BASE])
    clash = [LINES[0]] + [
        line.replace(",R1,2,", ",R1,3,").replace("Yusuf Lubis", "Bayu Rahman")
        for line in LINES[11:21]
    ]
    other_ruleset = [LINES[0]] + [line.replace(",unhas,R1,", ",pepet,R2,") for line in LINES[1:11]]
    no_round = list(LINES)
    cells = no_round[10].split(",")  # hand 10 of table 1 without its round
    cells[2] = ""  # babak
    no_round[10] = ",".join(cells).replace("unhas-2024-e1", "unhas-2024-e2")
    no_round = [no_round[0]] + [
        line.replace("unhas-2024-e1", "unhas-2024-e2") for line in no_round[1:]
    ]
    for name, lines in (
        ("clash.csv", clash),
        ("r2.csv", other_ruleset),
        ("no_round.csv", no_round),
    ):
        check_plan(ingest(con, [write(tmp_path, name, lines)]))
    assert {"player_two_tables.loaded", "ruleset_changed", "row_without_match.round"} <= SEEN


def test_a_name_outside_the_registry_speaks_indonesian(con, tmp_path):
    reg = tmp_path / "players.csv"
    reg.write_text("player,group\nOki Saputra,KG A\nEko Hamzah,KG A\n")
    import_registry(con, read_registry(reg))
    check_plan(ingest(con, [ERRORS / "base_pepet.csv"]))
    assert "unregistered_player" in SEEN
    reg.write_text("player,group\nZzzzzzzzzz Qqqqq,KG A\n")
    import_registry(con, read_registry(reg))
    check_plan(ingest(con, [ERRORS / "base_pepet.csv"]))
    assert "unregistered_player.none" in SEEN


def test_pepet_pips_and_session_shape_speak_indonesian(con, tmp_path):
    pepet = (ERRORS / "base_pepet.csv").read_text().splitlines()
    header = pepet[0].split(",")
    out = pepet[1].split(",")  # hand 1 of table 1 ends "habis" (out) by chair A
    out[header.index("tiles_b")] = ""  # chair B gives neither pips nor tiles
    check_plan(ingest(con, [write(tmp_path, "pips.csv", [pepet[0], ",".join(out), *pepet[2:]])]))
    table1 = [r.split(",") for r in pepet[1:] if r.split(",")[header.index("table")] == "1"]
    seats = [header.index(f"player_{c}") for c in "abcd"]
    fourth = []
    for cells in table1:  # a fourth table in session S1 (a session is 3 tables), other players
        cells = list(cells)
        cells[header.index("table")] = "4"
        for i in seats:
            cells[i] = f"{cells[i]} IV" if cells[i] else cells[i]
        fourth.append(",".join(cells))
    check_plan(ingest(con, [write(tmp_path, "pepet.csv", [*pepet, *fourth])]))
    assert {"missing_pips.all_but_ender", "session_shape.tables"} <= SEEN


def _refusal(data: bytes, name: str = "hands.csv") -> str:
    with pytest.raises(FileRejected) as info:
        read_bytes(data, name)
    return refused(info.value)


def _xlsx(entries: dict[str, bytes]) -> bytes:
    buf = BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n, b in entries.items():
            z.writestr(n, b)
    return buf.getvalue()


def test_files_refused_whole_speak_indonesian(monkeypatch, tmp_path, db_path):
    header = LINES[0]
    found = [
        _refusal(b""),
        _refusal(b"\n\n"),
        _refusal(header.encode() + b"\n"),
        _refusal(b"event,round\nx,R1\n"),
        _refusal(b"event,round,acara," + header.split(",", 2)[2].encode() + b"\nx,R1,y\n"),
        _refusal(b"\x00\x01\x02binary"),
        _refusal(b"PK\x03\x04 not really a zip", "hands.xlsx"),
        _refusal(header.encode() + b"\n", "hands.xlsx"),
        _refusal(_xlsx({"hello.txt": b"hi"}), "hands.xlsx"),
        _refusal(
            _xlsx({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": b"<broken"}), "hands.xlsx"
        ),
    ]
    with pytest.raises(FileRejected) as info:
        read_file(tmp_path / "missing.csv")
    found.append(refused(info.value))
    monkeypatch.setenv("DOMINO_MAX_FILE_BYTES", "10")
    found.append(_refusal(BASE.read_bytes()))
    monkeypatch.setenv("DOMINO_MAX_FILE_BYTES", str(10**8))
    monkeypatch.setenv("DOMINO_MAX_ROWS", "3")
    found.append(_refusal(BASE.read_bytes()))
    for text in ("name,group\nA,B\n", "player,group\n"):
        reg = tmp_path / "reg.csv"
        reg.write_text(text)
        with pytest.raises(FileRejected) as info:
            read_registry(reg)
        found.append(refused(info.value))
    db_path.write_bytes(b"")  # the database file itself, handed in as a hand log
    _sheets, files = read_all([db_path], held=db_path)
    found += [refused(f["error"]) for f in files if f["error"] is not None]
    assert len(found) >= 16


def test_refused_events_rosters_round_orders_and_users_speak_indonesian(con, tmp_path):
    """What the organiser and admin pages may refuse: an event, a roster, a round order,
    a user; each a :class:`messages.Refused` whose English is what the CLI prints."""
    from pipeline import events, players, rounds, users

    plan = ingest(con, [BASE])
    assert plan.count("new") >= 1
    event = plan.outcomes[0].event

    def provoke(call) -> str:
        with pytest.raises(messages.Refused) as info:
            call()
        exc = info.value
        return said(exc.message_id, exc.params, str(exc))

    roster = write(tmp_path, "peserta.csv", ["player,group", "Ana,", "Budi,", "ana,"])
    players.import_registry(
        con,
        read_registry(write(tmp_path, "reg.csv", ["player,group,aliases", "Cici Amir,KG1,Cici A"])),
    )
    same = pl.DataFrame(
        {
            "player": ["Cici Amir", "Cici A"],
            "group": [None, None],
            "_file": ["p.csv"] * 2,
            "_line": [2, 3],
        },
        schema_overrides={"group": pl.Utf8},
    )
    found = [
        provoke(lambda: events.save(con, "  ", "unhas")),
        provoke(lambda: events.save(con, "e9", "unhas", level="desa")),
        provoke(lambda: events.save(con, event, "pepet")),
        provoke(lambda: events.read_roster(roster)),
        provoke(lambda: events.set_roster(con, "e9", same, source="p.csv")),
        provoke(lambda: events.set_roster(con, event, same, source="p.csv")),
        provoke(lambda: rounds.set_order(con, event, ["R1", " "])),
        provoke(lambda: rounds.set_order(con, event, ["R1", "r1"])),
        provoke(lambda: auth.add_user(con, "  ", PW, ["x"])),
        provoke(lambda: auth.add_user(con, "x" * 65, PW, ["x"])),
        provoke(lambda: auth.add_user(con, "rina", "short", ["x"])),
        provoke(lambda: auth.check_scope("boss", [], [])),
        provoke(lambda: auth.check_scope("coordinator", [], [])),
        provoke(lambda: auth.check_scope("jury", [], [])),
        provoke(lambda: auth.check_scope("jury", ["x"], ["KG1"])),
        provoke(lambda: auth.check_scope("admin", ["x"], [])),
        provoke(lambda: auth.set_role(con, "nobody", "jury", ["x"], [])),
        provoke(lambda: auth.set_password(con, "nobody", PW)),
    ]
    # a pepet event whose league has a registry: an entrant outside it, on the roster or
    # left on it when the registry came later, is refused before the draw seats them
    from pipeline.draws.service import draw_round

    events.save(con, "kg9", "pepet", league="lg9")
    outside = pl.DataFrame(
        {
            "player": [f"P{i}" for i in range(4)],
            "group": [None] * 4,
            "_file": ["p.csv"] * 4,
            "_line": [2, 3, 4, 5],
        },
        schema_overrides={"group": pl.Utf8},
    )
    events.set_roster(con, "kg9", outside, source="p.csv")  # no registry in lg9 yet
    players.import_registry(
        con, read_registry(write(tmp_path, "lg9.csv", ["player", "P0", "P1"])), league="lg9"
    )
    found += [
        provoke(lambda: draw_round(con, "kg9", "1", seed=1)),
        provoke(lambda: events.set_roster(con, "kg9", outside.slice(1, 2), source="p.csv")),
        provoke(lambda: events.set_roster(con, "kg9", outside, source="p.csv")),
    ]
    assert found[-3].startswith("daftar peserta acara kg9 memuat 2 pemain yang tidak ada")
    assert "(P2 dan P3)" in found[-3]
    assert found[-2].startswith("p.csv, baris 4, kolom player: P2 tidak ada di registri")
    assert "begitu pula 1 nama lain" in found[-1]
    assert found[3].startswith("peserta.csv, baris 4, kolom player: ana")
    assert found[7] == "babak 'r1' tercantum dua kali"
    assert str(users.UserRefused("user.short_password", {"min": 8})) == (
        "the password must be at least 8 characters"
    )
    # a group right without a league, to a group two leagues' registries hold
    players.import_registry(
        con, read_registry(write(tmp_path, "lg8.csv", ["player,group", "Dedi,KG1"])), league="lg8"
    )
    assert provoke(lambda: auth.add_user(con, "kg", PW, [], groups=["KG1"])) == (
        "kelompok KG1 ada di registri liga default, lg8: sebutkan liga haknya (--league)"
    )


@pytest.mark.parametrize(
    ("name", "value", "mid"),
    [
        ("live_seconds", "satu", "setting.number"),
        ("live_seconds", "-1", "setting.number"),
        ("live_seconds", "nan", "setting.number"),
        ("max_rows", "2,5", "setting.whole"),
        ("max_rows", "1.5", "setting.whole"),
        ("flag", "ya", "setting.flag"),
        ("language", "fr", "setting.choice"),
    ],
)
def test_a_setting_of_the_wrong_kind_is_refused_naming_it(monkeypatch, name, value, mid):
    """`DOMINO_LIVE_SECONDS=satu` stopped the pages it reached on "could not convert
    string to float"; a yes/no setting took any word for no."""
    from pipeline import settings

    if name == "flag":  # no yes/no setting exists yet: one for the test
        flag = settings.Setting("flag", default=False, help="A yes/no setting.")
        monkeypatch.setitem(settings._BY_NAME, "flag", flag)
    monkeypatch.setenv(f"DOMINO_{name.upper()}", value)
    with pytest.raises(settings.SettingError) as info:
        settings.get(name)
    exc = info.value
    assert exc.message_id == mid
    indonesian = said(exc.message_id, exc.params, str(exc))
    assert f"DOMINO_{name.upper()}" in str(exc) and f'"{value}"' in indonesian


def test_a_setting_takes_what_its_kind_allows(monkeypatch):
    from pipeline import settings

    for value, want in (("2.5", 2.5), (" 3 ", 3.0), ("0", 0.0), ("", 1.0)):
        monkeypatch.setenv("DOMINO_LIVE_SECONDS", value)
        assert settings.get("live_seconds") == want
    monkeypatch.setitem(
        settings._BY_NAME, "flag", settings.Setting("flag", default=False, help="x")
    )
    for value, want in (("Yes", True), ("1", True), ("off", False), ("FALSE", False)):
        monkeypatch.setenv("DOMINO_FLAG", value)
        assert settings.get("flag") is want


def test_registry_conflicts_speak_indonesian(con, tmp_path):
    """Every way a registry import is refused whole, each conflict its own message naming
    the file's rows (lists joined "A, B and C" / "A, B dan C")."""
    from pipeline import registry
    from pipeline.players import RegistryConflict

    ingest(con, [BASE])
    one_hand = [LINES[0], LINES[1].replace("unhas-2024-e1", "msg-e2", 1)]
    ingest(con, [write(tmp_path, "e2.csv", one_hand)])
    import_registry(
        con,
        read_registry(
            write(tmp_path, "known.csv", ["player,group,aliases", "Fajar,KG A,Fa;Fj", "Gita,KG A,"])
        ),
    )
    rows = [
        "player,group,aliases,birth_date",
        "Ana,KG A,,",
        "Ana,KG B,,",
        "Budi,KG A,Bu,",
        "Beni,KG A,Bu,",
        "Cici,KG A,Dedi,",
        "Dedi,KG A,,",
        "Hadi,KG A,Fa,",
        "Indra,KG A,Gita,",
        "Fj,KG A,,",
        "Bayu Rahman,KG A,Bayu Rauf,",
        "Wahyu Nugroho,KG A,Yusuf Lubis,",
        "Eko,KG A,,31/31/1990",
    ]

    def refused_with(lines: list[str]) -> RegistryConflict:
        with pytest.raises(RegistryConflict) as info:
            registry.plan_import(con, read_registry(write(tmp_path, "reg.csv", lines)))
        exc = info.value
        said(exc.message_id, exc.params, str(exc))
        assert exc.reasons == exc.lines("en") and len(exc.lines("id")) == len(exc.reasons)
        return exc

    exc = refused_with(rows)
    seen = {c["id"].removeprefix("registry_conflict.") for c in exc.params["conflicts"]}
    assert seen == {
        "groups",
        "alias_twice",
        "player_and_alias",
        "alias_taken",
        "alias_is_player",
        "player_is_alias",
        "seat_twice",
        "seat_twice.more",
        "two_tables",
        "date",
    }, seen
    assert "reg.csv:2 dan reg.csv:3 menempatkan Ana di 2 grup (KG A dan KG B)" in exc.render("id")
    assert "reg.csv:2 and reg.csv:3 put Ana in 2 groups (KG A and KG B)" in str(exc)
    spelled = refused_with(["player,group", "Hana,kg a", "Iwan,KG Q", "Joko,kg q"])
    assert [c["id"] for c in spelled.params["conflicts"]] == [
        "registry_conflict.group_spelling.registry",
        "registry_conflict.group_spelling",
    ]
    assert spelled.lines("id")[0].startswith(
        "reg.csv:2 (1 baris) menulis kelompok kg a, yang oleh registri liga default ditulis KG A"
    )
    many = refused_with(["player,birth_date", *(f"P{i},kemarin" for i in range(25))])
    assert many.reasons[-1] == "… and 5 more conflicts like these."


def test_a_database_file_that_cannot_be_used_speaks_indonesian(tmp_path):
    """The store's refusals (a file that is no DuckDB database, a mistyped URL …), as the
    dashboard shows them instead of its pages."""
    from pipeline.store.db import StoreError, check_target, connect

    folder = tmp_path / "folder.duckdb"
    folder.mkdir()
    lite = tmp_path / "liga.duckdb"
    lite.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    junk = tmp_path / "junk.duckdb"
    junk.write_bytes(b"\x00" * 8 + b"NOPE" + b"\x00" * 100)
    plain = tmp_path / "plain.txt"
    plain.write_text("a file where a folder should be")
    found = []

    def opened(path: Path | str) -> None:
        with connect(path):
            pass

    for call in (
        lambda: check_target(Path("postgresql:/db.example/liga")),
        lambda: opened("postgresql://db.example/liga?sslmod=require"),
        lambda: opened(folder),
        lambda: opened(lite),
        lambda: opened(junk),
        lambda: opened(plain / "sub" / "d.duckdb"),
    ):
        with pytest.raises(StoreError) as info:
            call()
        exc = info.value
        found.append(said(exc.message_id, exc.params, str(exc)))
    assert "adalah berkas SQLite, bukan basis data DuckDB" in found[3]


def test_a_full_disk_and_a_copy_not_taken_speak_indonesian(tmp_path, db_path, monkeypatch):
    """A write that found no space left, as DuckDB, the system and PostgreSQL say it
    (raised for real where this machine can), on the command line and on a page; a
    backup or a correction's copy that could not be written."""
    import errno

    import duckdb
    import psycopg

    from pipeline.panics import POSTGRES, disk_full, disk_full_params
    from pipeline.store.backup import BackupError, backup
    from pipeline.store.db import connect

    db = tmp_path / "full.duckdb"
    duckdb.connect(str(db)).close()
    Path(f"{db}.wal").symlink_to("/dev/full")
    with pytest.raises(duckdb.Error) as wal:
        with connect(db) as con:
            con.execute("INSERT INTO events (event, ruleset) VALUES ('x', 'unhas')")
    try:
        with pytest.raises(OSError) as system:
            Path("/dev/full").write_bytes(b"hasil")
    finally:
        Path(f"{db}.wal").unlink()
    errors = [
        wal.value,
        OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "meja1.xlsx")),
        system.value,  # a write()'s ENOSPC names no file
        # shutil's copy names its source, then what it was writing (the full disk's)
        OSError(errno.ENOSPC, "No space left on device", "/b/d.duckdb", None, str(db)),
        psycopg.errors.DiskFull('could not extend file "base/1/2": No space left on device'),
    ]
    unnamed = OSError(errno.ENOSPC, "No space left on device")
    try:  # a full disk met while something else was being handled still says so
        try:
            raise unnamed
        except OSError as exc:
            raise RuntimeError("the load stopped") from exc
    except RuntimeError as chained:
        errors.append(chained)
    wheres = [disk_full(e) for e in errors]
    assert wheres == [str(db), str(tmp_path / "meja1.xlsx"), "", str(db), POSTGRES, ""]
    assert disk_full(ValueError("nothing to do with disks")) is None
    for where in wheres:
        for mid in ("store.disk_full", "store.disk_full.page"):
            params = disk_full_params(where)
            said(mid, params, messages.render(mid, params))
    page = messages.render("store.disk_full.page", disk_full_params(str(db)), "id")
    assert page.startswith(
        f"tidak ada ruang tersisa di disk tempat {db}, jadi penyimpanan berhenti"
    )

    with connect(db_path) as con:
        ingest(con, [DATA / "errors" / "base_unhas.csv"])
    (tmp_path / "taken").write_text("a file where a folder should be")
    with pytest.raises(BackupError) as copy:
        backup(db_path, tmp_path / "taken" / "copy.duckdb")
    monkeypatch.setenv("DOMINO_BACKUP_DIR", str(tmp_path / "taken" / "backups"))
    from pipeline.ingest.writer import backup_before_correction

    with pytest.raises(BackupError) as before, connect(db_path) as con:
        backup_before_correction(con)
    for exc in (copy.value, before.value):
        assert isinstance(exc, messages.Refused)
        said(exc.message_id, exc.params, str(exc))
    assert before.value.message_id == "backup.not_copied.correction"


def test_a_postgresql_store_that_cannot_be_reached_speaks_indonesian():
    """The store's server down (raised for real: nothing listens on port 1), as the
    command line and a page say it."""
    from pipeline.store.postgres import StoreUnavailable, read

    with pytest.raises(StoreUnavailable) as down, read("postgresql://x@127.0.0.1:1/liga"):
        pass
    exc = down.value
    said(exc.message_id, exc.params, str(exc))
    said(
        f"{exc.message_id}.page", exc.params, messages.render(f"{exc.message_id}.page", exc.params)
    )


def test_refused_sign_ins_speak_indonesian(con):
    auth.add_user(con, "rina", PW, ["unhas-2024"])
    ident = auth.sign_in(
        con, "rina", PW, limiter=auth.RateLimiter(attempts=3, window=60.0)
    ).identity
    found = []
    for events in (["pepet-2024"],):
        with pytest.raises(auth.NotAllowed) as info:
            auth.check_rights(con, ident, events)
        found.append(said(info.value.message_id, info.value.params, str(info.value)))
    con.execute("DELETE FROM user_events WHERE name = 'rina'")  # no event left
    with pytest.raises(auth.NotAllowed) as info:
        auth.check_rights(con, ident, ["pepet-2024"])
    found.append(said(info.value.message_id, info.value.params, str(info.value)))
    con.execute("DELETE FROM users WHERE name = 'rina'")
    with pytest.raises(auth.NotAllowed) as info:
        auth.check_rights(con, ident, [])
    found.append(said(info.value.message_id, info.value.params, str(info.value)))
    with pytest.raises(auth.NotAllowed) as info:
        auth.check_rights(con, None, [])
    found.append(said(info.value.message_id, info.value.params, str(info.value)))
    assert found[1].endswith("(tidak ada acara yang diizinkan)")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        (0, ""),  # acara: no event
        (1, "ok"),  # aturan: not a ruleset
        (3, ""),  # meja: no table
        (4, ""),  # kocokan: no hand number
        (9, ""),  # oleh: no chair ended it
        (10, ""),  # akhir: no ending
        (16, "0-0 0-1 0-2 0-3 0-4 0-5 0-6 1-1"),  # kartu_a: eight tiles
    ],
)
def test_a_blank_or_impossible_cell_speaks_indonesian(con, tmp_path, field, value):
    lines = list(LINES)
    cells = lines[5].split(",")
    cells[field] = value
    lines[5] = ",".join(cells)
    check_plan(ingest(con, [write(tmp_path, "cell.csv", lines)]))


def test_an_empty_workbook_sheet_speaks_indonesian(tmp_path):
    import xlsxwriter

    path = tmp_path / "empty.xlsx"
    with xlsxwriter.Workbook(path) as wb:
        wb.add_worksheet("hands")
    with pytest.raises(FileRejected) as info:
        read_file(path)
    refused(info.value)


def test_workbooks_labels_seating_and_junk_speak_indonesian(con, tmp_path):
    """The sentences about workbook sheets, spreadsheet habits, labels written differently,
    a table whose players change, and a file of junk rows."""
    read = DATA / "read"
    for name in (
        "meja.xlsx",
        "meja_hidden_sheet.xlsx",
        "totals_row.xlsx",
        "hidden_row.xlsx",
        "formula.xlsx",
    ):
        check_plan(ingest(con, [read / name]), need=False)
    with pytest.raises(FileRejected) as info:
        read_file(read / "meja.xlsx")
    refused(info.value)  # several_sheets
    import xlsxwriter

    buf = BytesIO()
    wb = xlsxwriter.Workbook(buf)
    header = LINES[0].split(",")
    wb.add_worksheet("Meja 1").write_row(0, 0, header)  # header, no hands
    wb.add_worksheet("Kosong")  # empty
    wb.add_worksheet("Catatan").write_row(0, 0, ["nama", "nilai", "round"])  # no table/ending
    wb.close()
    with pytest.raises(FileRejected) as info:
        from pipeline.ingest.read import read_bytes_sheets

        read_bytes_sheets(buf.getvalue(), "kosong.xlsx")
    refused(info.value)  # not_a_hand_log.no_sheet, with every sheet's reason
    buf = BytesIO()
    wb = xlsxwriter.Workbook(buf)
    for title in ("hands", "Meja 2"):
        sheet = wb.add_worksheet(title)
        for i, line in enumerate(LINES[:12]):
            sheet.write_row(i, 0, line.split(","))
    wb.close()
    check_plan(
        ingest(con, [write_bytes(tmp_path, "hands.xlsx", buf.getvalue())]), need=False
    )  # only_hands
    buf = BytesIO()
    wb = xlsxwriter.Workbook(buf)
    for title, above in (("Meja 1", 0), ("Meja 2", 2)):  # the second under a title
        sheet = wb.add_worksheet(title)
        sheet.write(0, 0, "HASIL BABAK 1")
        for i, line in enumerate(LINES[:12]):
            sheet.write_row(i + above, 0, line.split(","))
    wb.close()
    check_plan(
        ingest(con, [write_bytes(tmp_path, "dua.xlsx", buf.getvalue())]), need=False
    )  # sheet_skipped.titled
    # labels written differently, a player who joins a table
    base = write(tmp_path, "r1.csv", LINES)
    check_plan(ingest(con, [base]), need=False)
    from pipeline.ingest.columns import canonical_name

    header = [canonical_name(h) for h in LINES[0].split(",")]
    lower = [LINES[0]] + [
        ",".join("r1" if i == header.index("round") else c for i, c in enumerate(r.split(",")))
        for r in LINES[1:]
    ]
    lower = [
        ",".join(
            "01" if i == header.index("table") and c == "1" else c
            for i, c in enumerate(r.split(","))
        )
        for r in lower
    ]
    check_plan(ingest(con, [write(tmp_path, "lower.csv", lower)]), need=False)
    joined = [r.split(",") for r in LINES]
    joined[5][header.index("player_a")] = "Orang Baru"
    check_plan(
        ingest(con, [write(tmp_path, "joined.csv", [",".join(r) for r in joined])]), need=False
    )
    # a title above the header
    titled = write(tmp_path, "judul.csv", ["HASIL BABAK 1", "", *LINES[:12]])
    check_plan(ingest(con, [titled]), need=False)
    # a file of junk rows
    from pipeline.ingest.planner import JUNK_ROWS

    junk = [LINES[0]] + [",".join(f"x{i}" for _ in header) for i in range(JUNK_ROWS + 1)]
    check_plan(ingest(con, [write(tmp_path, "junk.csv", junk)]), need=False)
    assert {
        "several_sheets",
        "not_a_hand_log.no_sheet",
        "sheet_reason",
        "sheet_skipped.header_only",
        "sheet_skipped.only_hands",
        "hidden_sheet",
        "sheet_refused",
        "hidden_row",
        "formula_without_value",
        "totals_row.said",
        "header_below",
        "sheet_skipped.titled",
        "label_spelling.round",
        "label_spelling.table",
        "seating_changed",
        "too_many_problems",
    } <= SEEN


def write_bytes(tmp_path, name: str, data: bytes):
    f = tmp_path / name
    f.write_bytes(data)
    return f


# Messages the scenarios above do not produce (tie-break seating needs a tied match, the
# others hostile or damaged workbooks): built here from their parameters, as the pipeline
# builds them, so that every id of the catalogues is covered.
RARE = {
    "tiebreak_not_tied": {"hand": "11", "players": "Ana, Budi"},
    "tiebreak_not_tied.regular": {"regular": "10", "hand": "11", "players": "Ana, Budi"},
    "too_few_players.tiebreak": {"n": "1"},
    "xlsx_bomb.ratio": {"part": "'xl/worksheets/sheet1.xml'", "ratio": "2000"},
    "xlsx_bomb": {"limit": 1000},
    "xlsx_bomb.repeated": {"limit": 1000},
    "xlsx_bomb.strings": {"count": 4_000_000_000, "size": 248},
    "too_many_rows.cells": {"rows": 1_048_576, "columns": 16_384, "limit": 20_000_000},
    "too_many_columns": {"columns": 100_011, "limit": 500},
    "too_long": {"length": 1_000_000, "limit": 100},
    "not_a_hand_log.lock": {},
    "too_long.registry": {"line": 3, "length": 1_000_000, "limit": 100},
    # tests/test_spreadsheets.py provokes both through a registry or roster workbook
    "hidden_row.registry": {"row": 3},
    "formula_without_value.registry": {"row": 3, "column": "Kelompok", "formula": "=A1"},
    # tests/test_spreadsheets.py provokes it for real
    "unnamed_value.registry": {"line": 3, "column": 2, "value": "John"},
    "player_list": {},  # tests/test_read.py provokes it for real
    # tests/test_cli.py and tests/test_organiser_page.py provoke these for real
    "demo.other_events": {"db": "/x/domino.duckdb", "events": ["piala", "…"]},
    "demo.beside": {"events": ["pepet-liga-makassar", "unhas-dies-lxiv"]},
    "os.path": {"file": "/x/taken/generated", "why": "Not a directory"},
    "unreadable.special": {},  # tests/test_limits.py provokes it for real
    # tests/test_cli.py provokes these for real
    "same_file": {"first": "meja1.csv"},
    "same_file.named_twice": {},
    "hand_twice.other_file": {"hand": 3, "first": "meja1.csv", "line": 4},
    "too_many_columns.row": {"line": 3, "columns": 2011, "limit": 500},
    "not_xlsx.compression": {"part": "'xl/x.xml'"},
    "not_xlsx.encrypted": {},  # tests/test_read.py provokes both for real
    "header_repeated": {"lines": "12, 25"},  # tests/test_read.py provokes it for real
    "not_a_hand_log.pdf": {},  # tests/test_read.py provokes both for real
    "not_a_hand_log.picture": {},
    "not_a_hand_log.pdf_list": {},
    "not_a_hand_log.picture_list": {},
    "unknown_ending.close": {
        "value": "apolo",
        "ruleset": "unhas",
        "endings": "apollo, ceki",
        "close": "apollo",
    },
    "unknown_sanction.close": {"value": "warning", "close": "warn"},
    "unknown_ending.caught": {
        "value": "tangkap kandang",
        "ruleset": "unhas",
        "endings": "kandang",
        "close": "",
    },
    "unknown_ruleset.close": {"value": "unhass", "rulesets": ["pepet", "unhas"], "close": "unhas"},
    "not_xlsx.xls": {},
    "empty.no_sheets": {},
    "not_xlsx.unreadable": {"why": "CalamineError"},
    # a loaded table of other than 4 players (only data loaded before the seating check)
    "session_shape.players": {
        "table": "2",
        "round": "S1",
        "players": "5",
        "want_p": "12",
        "want_t": "3",
        "per_table": "4",
    },
    "too_many_rows.workbook": {"limit": 2_000_000},
    "totals_row": {"row": "12"},
    "sheet_skipped.empty": {},
    "sheet_skipped.no_columns": {"missing": ["table", "ending"]},
    "sheet_skipped.few_columns": {},
    # leagues (pipeline/registry.py, pipeline/league.py; tests/test_league.py provokes them)
    "registry_diff.moved": {"player": "Oki", "old": "KG A", "new": "KG B", "event": "e1"},
    "registry_diff.renamed": {"old": "Oki", "new": "Oki S."},
    "registry_diff.merged": {"player": "Budhi", "event": "e1"},
    "registry_diff.row": {"event": "e1", "level": "group", "who": "KG A", "old": "1", "new": "2"},
    "registry_diff.points": {"points": "113", "rank": "1"},
    "registry_diff.no_row": {},
    "registry_diff.no_group": {},
    "registry_diff.level.group": {},
    "registry_diff.level.event": {},
    "eligibility.age": {
        "player": "Ana",
        "age": "16",
        "date": "2026-05-01",
        "born": "2009-05-02",
        "event": "e1",
        "min_age": "17",
    },
    "eligibility.citizenship": {
        "player": "Cici",
        "citizenship": "Malaysia",
        "event": "e1",
        "allowed": "Indonesia",
    },
    # tests/test_league.py and tests/test_organiser_page.py provoke it, both languages
    "roster.group_differs": {
        "player": "Budi",
        "event": "e1",
        "group": "KG B",
        "league": "mks",
        "registered": "KG A",
        "date": "2026-12-01",
    },
    "undated.one": {"event": "e1", "day": "2026-12-02"},
    "undated.many": {"count": "5", "events": ["e1", "e2", "e3"]},
    "advance.unknown_event": {"event": "kota"},
    "advance.unfinished": {"why": "event e1 has no results yet"},
    "advance.no_results": {"event": "e1"},
    "advance.in_progress": {"round": "R1", "event": "e1"},
    "advance.tables": {"round": "S1", "event": "e1", "tables": "2", "want": "3"},
    "advance.drawn": {"round": "S2", "event": "e1"},
    "advance.listed": {"round": "S4", "event": "e1"},  # tests/test_league.py
    "advance.tie": {"source": "e1", "n": "3", "top": "2", "rank": "1", "players": "A, B, C"},
    # a registry in another league than the event's: provoked for real in tests/test_league.py
    "advance.no_groups": {"why": "no player of event e1 is in a group"},
    "advance.ungrouped": {
        "event": "e1",
        "n": "2",
        "league": "default",
        "date": "2026-03-01",
        "players": "A, B",
    },
    "advance.other_league": {
        "target": "kota",
        "league": "default",
        "theirs": "mks",
        "first": "mks",
        "quoted": "kota",
    },
    "groups.none": {"event": "e1", "league": "default", "date": "2026-03-01"},
    "groups.none.no_registry": {"event": "e1", "league": "default"},
    "groups.elsewhere": {
        "why": "event e1 is in league default",
        "n": "12",
        "other": "mks",
        "event": "e1",
    },
    "league_elsewhere": {"event": "e1", "league": "default", "n": "4", "other": "mks"},
    "registry_diff.league": {"event": "e1", "old": "default", "new": "mks"},
    "event.league_loaded": {"event": "e1", "old": "mks", "new": "default"},
    "groups.outside": {"n": "2", "events": "e1, e2", "league": "mks", "ids": "e1 e2"},
    # a pre-filled sheet sent before it was filled in: provoked for real in tests/test_sheets.py
    "header_only.unplayed": {"rows": "10"},
    "sheet_skipped.unplayed": {"rows": "10"},
    "sheet_skipped.twin": {"rows": "10", "twin": "ev_R1_meja1.xlsx"},
    "sheet_skipped.loaded": {"rows": "10", "version": 1, "file": "ev_R1_meja1.xlsx"},
    "same_file.same_hands": {"first": "ev_R1_meja1.csv"},
    # a .zip of hand logs: provoked for real in tests/test_archive.py
    "archive.empty": {"kinds": ".csv, .tsv, .xlsx, .xlsm, .ods"},
    "archive.skipped": {"files": "R1.pdf", "kinds": ".csv, .tsv, .xlsx, .xlsm, .ods"},
    "archive.encrypted": {},
    "archive.compression": {},
    "archive.damaged": {},
    "archive.too_large": {"limit": 209715200},
    "archive.nested": {},
    "archive.too_many": {"count": 150000, "limit": 2000},
    # events, rosters and draws: provoked for real in tests/test_events_draw_cli.py
    "missing_column.roster": {},
    "header_only.roster": {},
    "draw_no_event": {"event": "ev"},
    "draw_no_round": {"event": "ev"},
    "draw_has_results": {"round": "R1"},
    "draw_needs_reason": {"round": "R1"},
    "draw_no_roster": {"event": "ev"},
    "draw_cannot_seat": {"count": "5", "round": "R1"},
    "draw_cannot_seat.fours": {"count": "9", "round": "S1"},
    "draw_no_results": {"round": "R1"},
    "draw_incomplete": {"round": "R1", "table": "2"},
    "draw_tiebreak": {"round": "R1", "table": "2"},
    "draw_after_final": {"round": "R3"},
    "draw_player": {"player": "Eko", "table": "1", "round": "R1", "drawn": ["Ana", "Budi"]},
    "draw_chair": {"player": "Ana", "chair": "A", "hand": "1", "drawn": "B"},
    # a reserve in a drawn session: tests/test_substitutes.py
    "draw_player.reserve": {
        "player": "Rudi",
        "table": "1",
        "round": "S1",
        "drawn": ["Ana", "Hadi"],
        "letter": "b",
    },
    "draw_chair.warn": {  # tests/test_events_draw_cli.py
        "player": "Ana",
        "member": "Ana",
        "chair": "A",
        "hand": "1",
        "drawn": "B",
    },
    "draw_chair.reserve": {
        "player": "Rudi",
        "member": "Hadi",
        "chair": "A",
        "hand": "1",
        "drawn": "B",
    },
    "draw_table": {"table": "9", "round": "R1", "tables": ["1", "2"]},
    "draw_round": {"round": "R2", "drawn": ["R1"]},  # tests/test_draw_labels.py
    "draw_elsewhere": {"event": "evv", "drawn_event": "ev", "round": "R1", "table": "1"},
    "next_round_drawn": {
        "next": "R2",
        "seated": ["Ana", "Budi"],
        "round": "R1",
        "table": "1",
        "qualified": ["Cici", "Dedi"],
    },
    "next_round_drawn.withdrawn": {"next": "R2", "seated": ["Ana"], "round": "R1", "table": "1"},
    "next_round_drawn.now": {
        "next": "R2",
        "seated": ["Ana"],
        "round": "R1",
        "table": "1",
        "qualified": ["Budi"],
    },
    "next_round_drawn.unplaced": {"next": "R2", "players": ["Ana", "Budi"], "round": "R1"},
    "stale_roster.both": {"round": "R1", "gone": ["Hadi"], "new": ["Indah"]},
    "stale_roster.gone": {"round": "S1", "gone": ["Eko"], "new": []},
    "stale_roster.new": {"round": "R1", "gone": [], "new": ["Indah"]},
    "next_round_drawn.tiebreak": {
        "next": "R2",
        "seated": ["Ana", "Budi"],
        "round": "R1",
        "table": "1",
        "qualified": ["Cici"],
    },
    # tests/test_labels_and_seating.py provokes it for real
    "label_spelling.event": {"written": "Piala Dies 2026", "label": "piala-2026"},
    # substitutes (rule 23): provoked for real in tests/test_substitutes.py
    "replaces.unknown": {"name": "Hadu", "player": "Rudi", "chair": "B", "names": "Hadi"},
    "replaces.unknown.none": {"name": "Xyz", "player": "Rudi", "chair": "B"},
    "replaces.not_reserve": {"player": "Cici", "chair": "C", "name": "Hadi"},
    "replaces.other_group": {"player": "Rudi", "group": "KG A", "name": "Ika", "other": "KG B"},
    "replaces.other_group.none": {"player": "Rudi", "group": "KG A", "name": "Ika"},
    "replaces.playing": {"name": "Budi", "player": "Rudi", "chair": "B", "at": "2"},
    "replaces.missing": {"player": "Rudi", "group": "KG A", "chair": "B", "letter": "b"},
    "registry_conflict.reserve_group": {
        "at": "cadangan.csv:2",
        "player": "Budi",
        "group": "KG Tamalatte",
        "close": "KG Tamalate",
    },
    "roster.replaces_self": {"file": "peserta.csv", "line": 2, "player": "Rudi"},
    "roster.replaces_unknown": {
        "file": "peserta.csv",
        "line": 3,
        "player": "Rudi",
        "name": "Hadu",
        "names": "Hadi",
    },
    # hand entry at the table: provoked for real in tests/test_entry.py
    "match.entry_edit": {"what": [{"id": "hands.changes", "params": {"hands": "2"}}]},
    "entry_closed": {"table": "1", "round": "R1"},
    "entry_hand_gap": {"hand": 4, "next": 2},
    "entry_moved": {"table": "1", "round": "R1"},
    "entry_ending": {"ending": "gaple", "endings": "apollo, ceki"},
    "entry_no_hands": {"table": "1"},
    "entry_tiebreak_owed": {"table": "1"},
    "entry_incomplete": {"table": "1", "done": 9, "total": 10},
    # a withdrawal: provoked for real in tests/test_withdraw.py
    "match.withdrawn": {"version": 1, "hands": 10, "reason": "mistyped event"},
    "withdraw.no_reason": {},
    "withdraw.no_match": {"event": "e1", "round": "R1", "table": "9"},
    "withdraw.no_match.no_event": {"event": "e9", "round": "R1", "table": "9"},
    "withdraw.already": {"event": "e1", "round": "R1", "table": "2", "version": 2},
    "withdraw.not_jury": {"name": "rina"},
    "withdraw.not_withdrawn": {"event": "e1", "round": "R1", "table": "2"},
    "withdraw.moved": {"event": "e1", "round": "R1", "table": "2", "version": 1, "now": 2},
    # tests/test_entry.py provokes it
    "entry_withdrawn": {"table": "1", "round": "R1", "by": "juri", "reason": "wrong table"},
    # deleting an event made by mistake: provoked for real in tests/test_event_delete.py
    "event_delete.no_reason": {},
    "event_delete.no_event": {"event": "e9"},
    "event_delete.counts": {"event": "e1", "matches": 2, "round": "R1", "table": "1"},
    "event_delete.prepared": {"event": "e1", "what": "a draw"},
    "event_delete.users": {"event": "e1", "users": "rina"},
    "event_delete.and": {},
    "event_delete.what.draw": {},
    "event_delete.what.roster": {},
    "event_delete.what.entry": {},
    "event_delete.what.request": {},
    "match.back": {},
    "correction_needs_request": {"name": "rina", "events": "pepet-2024-e1"},
    "request.unknown": {"id": "7"},
    "request.decided": {"id": "7", "status": "rejected"},
    "request.not_jury": {"name": "rina", "events": "pepet-2024-e1", "id": "7"},
    "request.needs_reason": {"id": "7"},
    "request.stale": {"id": "7", "base": "1", "match": "pepet-2024-e1 S2 1", "now": "2"},
    "request.no_correction": {},
    "request.refused": {"problems": "2"},
    "request.withdrawal_needs_reason": {},  # tests/test_change_requests.py provokes it
    "request.withdrawal_waiting": {"event": "e1", "round": "R1", "table": "2", "id": "7"},
    "request.not_yours": {"id": "7", "by": "rina"},
    "request.reinstatement_needs_reason": {},
    # cancelling a draw: provoked for real in tests/test_events_draw_cli.py
    "roster.drawn": {"event": "ev", "round": "R1"},
    "draw_cancel_reason": {"round": "R1"},
    "draw_not_drawn": {"round": "R9", "event": "ev"},
    "draw_cancel_in_use": {"round": "R1"},
    # the store's refusals this machine cannot provoke as root (permissions) or that need
    # a damaged file (tests/test_backup.py damages one for real)
    "store.unreadable": {"db": "/x/d.duckdb", "why": "Permission denied"},
    "store.read_only": {"db": "/x/d.duckdb"},
    "store.read_only.denied": {"db": "/x/d.duckdb"},
    "store.read_only.outdated": {"db": "/x/d.duckdb"},  # tests/test_upgrade.py provokes it
    "store.read_only_folder.create": {"folder": "/x", "why": "Permission denied"},
    "store.damaged": {"db": "/x/d.duckdb", "why": "checksum mismatch"},
    "store.damaged.copy": {"db": "/x/d.duckdb", "why": "checksum", "copy": "/b/d-1.duckdb"},
    "store.cannot_open": {"db": "/x/d.duckdb", "why": "IO Error"},
    "attachment.type": {"file": "photo.png"},
    "attachment.size": {"file": "photo.png", "size": "11000000", "limit": "10485760"},
}


@pytest.mark.parametrize("mid", sorted(RARE))
def test_rarer_messages_are_in_both_catalogues(mid):
    said(mid, RARE[mid], messages.render(mid, RARE[mid]))
    assert messages.render("tiebreak_not_tied", RARE["tiebreak_not_tied"]) == (
        "tie-break hand 11 seats players who were not tied with each other (Ana, Budi)"
    )


def test_every_catalogue_entry_is_provoked_by_a_scenario():
    """Runs last: the ids the scenarios above produced cover both catalogues."""
    if len(SEEN) < 40:  # alone, or the module split between processes
        if os.environ.get("CI"):
            pytest.fail(
                "the module's tests ran in more than one process: run it with --dist loadfile"
            )
        pytest.skip("run with the whole module")
    unused = {m for m in messages.catalogue("en") if not m.startswith(("join.", "number."))} - SEEN
    assert not unused, f"catalogue entries no scenario produces: {sorted(unused)}"
