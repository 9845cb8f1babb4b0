"""Roles and change requests (RULES.md, pepet rule 24): a coordinator's correction of a
loaded match waits for a jury member of that event; only approval applies it."""

from pathlib import Path

import polars as pl
import pytest

from pipeline import attachments, auth
from pipeline import change_requests as cr
from pipeline.ingest import ingest, load
from pipeline.standings import queries
from tests.conftest import DATA

SRC = DATA / "examples" / "pepet" / "logs" / "pepet-2024-e1_S2_meja1.csv"
EV = "pepet-2024-e1"
PW = "a long enough password"
# hand 1: D went out; A 11, B 9, C 10 → B jawara2 (2), C jawara3 (1), A ambyar (0).
# Corrected A to 8 → A jawara2 (+2), B jawara3 (−1), C ambyar (−1), D jawara1 (±0).
HAND1 = "Taufik Pallawa;D;out;15;11;9;10;;"
FIXED = "Taufik Pallawa;D;out;15;8;9;10;;"


def image(fmt: str) -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 6), (200, 30, 30)).save(out, format=fmt)
    return out.getvalue()


PNG = image("PNG")


def corrected(old: str = HAND1, new: str = FIXED) -> tuple[str, bytes]:
    text = SRC.read_text(encoding="utf-8-sig")
    assert old in text
    return (SRC.name, text.replace(old, new).encode())


def points(con) -> dict[str, int]:
    df = queries.standings(con, EV, "table")
    return dict(zip(df["player"], df["points"], strict=True))


def ident(con, name):
    return auth.sign_in(con, name, PW, limiter=auth.RateLimiter()).identity


@pytest.fixture
def league(con):
    ingest(con, [SRC])
    auth.add_user(con, "cora", PW, [EV])  # coordinator (the default role)
    auth.add_user(con, "juri", PW, [EV], role="jury")
    auth.add_user(con, "other", PW, ["unhas-2024-e1"], role="jury")
    auth.add_user(con, "oco", PW, ["unhas-2024-e1"])
    auth.add_user(con, "boss", PW, [], role="admin")
    return con


def test_roles_and_what_each_needs(con):
    auth.add_user(con, "kg", PW, [], groups=["KG Tamalate"])
    assert auth.user_role(con, "kg") == "coordinator"
    assert auth.user_groups(con, "kg") == ["KG Tamalate"]
    auth.add_user(con, "boss", PW, [], role="admin")
    assert auth.user_events(con, "boss") == {auth.ALL_EVENTS}
    for role, events, groups in [
        ("coordinator", [], []),
        ("jury", [], []),
        ("jury", ["e"], ["g"]),
        ("admin", ["e"], []),
        ("referee", ["e"], []),
    ]:
        with pytest.raises(ValueError):
            auth.add_user(con, "x", PW, events, role=role, groups=groups)
    auth.set_role(con, "kg", "jury", ["e1"])
    assert auth.user_role(con, "kg") == "jury" and auth.user_groups(con, "kg") == []
    assert auth.user_events(con, "kg") == {"e1"}
    assert auth.remove_user(con, "kg") and auth.user_role(con, "kg") is None


def test_a_group_coordinator_writes_to_the_events_its_players_play_in(league, tmp_path):
    from pipeline import players

    reg = tmp_path / "reg.csv"
    reg.write_text("player,group\nRusdi Rahman,KG Tamalate\n")
    players.import_registry(league, players.read_registry(reg))
    auth.add_user(league, "kg", PW, [], groups=["KG Tamalate"])
    assert auth.user_events(league, "kg") == {EV}
    auth.add_user(league, "kg2", PW, [], groups=["KG Nowhere"])
    assert auth.user_events(league, "kg2") == set()


def test_a_group_right_reaches_the_events_of_its_own_league_only(con, tmp_path):
    """Before: a right to `KG 1` followed the players registered in `KG 1` in every
    league's registry: the coordinator of Makassar's KG 1 could write to Gowa's events
    (and ask for corrections there), group names repeating from city to city. A right
    belongs to one league: named with --league, else the league whose registry has the
    group; a group in several leagues' registries is refused without a league."""
    from pipeline import events, players

    for lg, who in (("makassar", "Ana"), ("gowa", "Budi")):
        reg = tmp_path / f"{lg}.csv"
        reg.write_text(f"player,group\n{who},KG 1\n")
        players.import_registry(con, players.read_registry(reg), league=lg)
        events.save(con, f"{lg}-cup", "pepet", league=lg)
        path = tmp_path / f"{lg}-roster.csv"
        path.write_text(f"player\n{who}\n")
        events.set_roster(con, f"{lg}-cup", events.read_roster(path), source=path.name)
    with pytest.raises(ValueError) as info:
        auth.add_user(con, "kg", PW, [], groups=["kg 1"])
    assert str(info.value) == (
        "group kg 1 is in the registries of leagues gowa, makassar: name the league of the "
        "right (--league)"
    )
    auth.add_user(con, "kg", PW, [], groups=["kg 1"], league="makassar")
    assert auth.user_rights(con, "kg") == [("makassar", "KG 1")]
    assert auth.user_events(con, "kg") == {"makassar-cup"}
    # a group only one league's registry has needs no league
    reg = tmp_path / "gowa.csv"
    reg.write_text("player,group\nBudi,KG 1\nCici,KG Sungguminasa\n")
    players.import_registry(con, players.read_registry(reg), league="gowa")
    auth.set_role(con, "kg", "coordinator", [], ["KG SUNGGUMINASA"])
    assert auth.user_rights(con, "kg") == [("gowa", "KG Sungguminasa")]
    assert auth.user_events(con, "kg") == set()  # Cici plays nowhere yet
    assert auth.not_there(con, [], [("gowa", "KG 9"), ("gowa", "KG 1")]) == ([], [("gowa", "KG 9")])


def test_a_group_right_follows_the_group_a_player_belonged_to_on_the_event_date(con, tmp_path):
    """Before: a right followed the registry's newest group only, so a player who moved
    from KG A to KG B took their earlier events out of KG A's coordinator's reach (and
    into KG B's). The group read is the one in force on each event's date, as the group
    standings read it."""
    from datetime import date

    from pipeline import events, players

    reg = tmp_path / "reg.csv"
    reg.write_text("player,group,member_since\nAna,KG A,\nAna,KG B,2026-07-01\n")
    players.import_registry(con, players.read_registry(reg))
    for event, day in (("spring", date(2026, 3, 1)), ("autumn", date(2026, 9, 1))):
        events.save(con, event, "pepet", event_date=day)
        path = tmp_path / f"{event}.csv"
        path.write_text("player\nAna\n")
        events.set_roster(con, event, events.read_roster(path), source=path.name)
    auth.add_user(con, "kga", PW, [], groups=["KG A"])
    auth.add_user(con, "kgb", PW, [], groups=["KG B"])
    assert auth.user_events(con, "kga") == {"spring"}
    assert auth.user_events(con, "kgb") == {"autumn"}


def test_a_group_coordinator_has_the_events_whose_roster_holds_its_players(con, tmp_path):
    """A roster keeps only the groups it gives (the registry's is read when asked): an
    event whose roster lists a registered member, or a registered reserve, without a group
    is still one of the group's, before anything of it is loaded."""
    from pipeline import events, players

    reg = tmp_path / "reg.csv"
    reg.write_text("player,group,reserve_for\nAna,KG Tamalate,\nRudi,,KG Tamalate\n")
    players.import_registry(con, players.read_registry(reg))
    for event, who in (("piala", "Ana"), ("cup", "Rudi"), ("other", "Budi")):
        events.save(con, event, "unhas")
        path = tmp_path / f"{event}.csv"
        path.write_text(f"player\n{who}\n")
        events.set_roster(con, event, events.read_roster(path), source=path.name)
    auth.add_user(con, "kg", PW, [], groups=["KG Tamalate"])
    assert auth.user_events(con, "kg") == {"piala", "cup"}


def test_a_coordinator_cannot_load_a_correction_directly(league):
    with pytest.raises(auth.NotAllowed) as exc:
        load(league, [corrected()], reason="typo", identity=ident(league, "cora"))
    assert exc.value.message_id == "correction_needs_request"
    assert queries.history(league, EV)["version"].to_list() == [1]


def test_request_then_approval_applies_it_with_both_names(league):
    before = points(league)
    rid = cr.create(
        league,
        ident(league, "cora"),
        [corrected()],
        reason="A held 8, not 11",
        attachment=attachments.check("sheet.png", PNG),
    )
    assert points(league) == before, "a request changes nothing"
    req = cr.get(league, rid, "juri")
    assert req.status == "pending" and req.matches["base_version"].to_list() == [1]
    pv = cr.review(league, req)
    (d,) = pv.diffs
    assert (d["back"], d["version"]) == (False, 1)
    change = d["points"].with_columns((pl.col("after") - pl.col("before")).alias("delta"))
    delta = dict(zip(change["player"], change["delta"], strict=True))
    assert delta == {"Rahmat Mansyur": 2, "Sitti Rauf": -1, "Rusdi Rahman": -1, "Taufik Pallawa": 0}
    assert d["diff"].filter(pl.col("hand") == 1).height >= 1
    cr.approve(league, ident(league, "juri"), rid, "checked against the photo")
    after = points(league)
    assert {p: after[p] - before[p] for p in before} == delta
    h = queries.history(league, EV).sort("version")
    last = h.row(-1, named=True)
    assert last["kind"] == "correction" and last["reason"] == "A held 8, not 11"
    assert last["requested_by"] == "cora" and last["approved_by"] == "juri"
    assert last["approval_reason"] == "checked against the photo"
    assert last["requested_at"] <= last["approved_at"]
    assert h.row(0, named=True)["requested_by"] is None
    assert cr.get(league, rid).status == "approved"
    assert cr.attachment(league, rid).content_type == "image/png"


def test_a_request_sent_as_a_zip_is_approved_as_its_files(league):
    """A coordinator's correction in a .zip (the round's sheets sent back): the request
    keeps the zip, its review and approval read the files in it."""
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        name, data = corrected()
        zf.writestr(name, data)
        zf.writestr("foto.txt", b"difoto")
    before = points(league)
    rid = cr.create(league, ident(league, "cora"), [("S2.zip", buf.getvalue())], reason="A 8")
    assert points(league) == before
    (d,) = cr.review(league, cr.get(league, rid, "juri")).diffs
    assert d["version"] == 1
    cr.approve(league, ident(league, "juri"), rid, "ok")
    assert points(league) != before
    last = queries.history(league, EV).sort("version").row(-1, named=True)
    assert (last["kind"], last["file"]) == ("correction", f"S2.zip/{SRC.name}")


def test_rejection_changes_nothing(league):
    before = points(league)
    rid = cr.create(league, ident(league, "cora"), [corrected()], reason="typo")
    cr.reject(league, ident(league, "juri"), rid, "the paper says 11")
    assert points(league) == before
    assert queries.history(league, EV)["version"].to_list() == [1]
    req = cr.get(league, rid)
    assert (req.status, req.decided_by, req.decision_reason) == (
        "rejected",
        "juri",
        "the paper says 11",
    )
    with pytest.raises(cr.RequestRefused) as exc:
        cr.approve(league, ident(league, "juri"), rid, "changed my mind")
    assert exc.value.message_id == "request.decided"


def test_a_stale_request_is_refused_with_a_sentence(league):
    rid = cr.create(league, ident(league, "cora"), [corrected()], reason="typo")
    # meanwhile the jury corrects the match another way (version 2)
    ingest(league, [corrected(HAND1, "Taufik Pallawa;D;out;15;12;9;10;;")], reason="other")
    before = points(league)
    with pytest.raises(cr.RequestRefused) as exc:
        cr.approve(league, ident(league, "juri"), rid, "ok")
    assert exc.value.message_id == "request.stale"
    assert "version 1" in str(exc.value) and "version 2" in str(exc.value)
    assert points(league) == before
    assert cr.get(league, rid).status == "stale"


def test_others_can_neither_see_nor_decide(league):
    rid = cr.create(league, ident(league, "cora"), [corrected()], reason="typo")
    for name in ("other", "oco"):
        assert cr.visible(league, name).height == 0
        with pytest.raises(cr.RequestRefused) as exc:
            cr.get(league, rid, name)
        assert exc.value.message_id == "request.unknown"
        with pytest.raises(cr.RequestRefused) as exc:
            cr.approve(league, ident(league, name), rid, "ok")
        assert exc.value.message_id == "request.unknown"
    # the coordinator sees their own request but may not decide it
    assert cr.visible(league, "cora")["request_id"].to_list() == [rid]
    with pytest.raises(cr.RequestRefused) as exc:
        cr.approve(league, ident(league, "cora"), rid, "ok")
    assert exc.value.message_id == "request.not_jury"
    assert cr.visible(league, "boss").height == 1
    assert cr.get(league, rid).status == "pending"
    with pytest.raises(auth.NotAllowed):
        cr.approve(league, None, rid, "ok")


def test_a_request_needs_a_correction_and_a_reason(league):
    with pytest.raises(cr.RequestRefused) as exc:
        cr.create(league, ident(league, "cora"), [(SRC.name, SRC.read_bytes())], reason="x")
    assert exc.value.message_id == "request.no_correction"
    with pytest.raises(cr.RequestRefused) as exc:
        cr.create(league, ident(league, "cora"), [corrected()], reason="  ")
    assert exc.value.message_id == "request.needs_reason"
    with pytest.raises(auth.NotAllowed):
        cr.create(league, ident(league, "oco"), [corrected()], reason="x")
    assert league.execute("SELECT count(*) FROM change_requests").fetchall()[0][0] == 0


@pytest.mark.parametrize(
    ("name", "content", "kind"),
    [
        ("a.png", PNG, "image/png"),
        ("a.JPG", image("JPEG"), "image/jpeg"),
        ("a.webp", image("WEBP"), "image/webp"),
        ("scan.pdf", b"%PDF-1.7\n%...", "application/pdf"),
    ],
)
def test_attachments_are_known_by_their_content(name, content, kind):
    assert attachments.check(name, content).content_type == kind


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("photo.png", b"<html><script>alert(1)</script></html>"),  # HTML renamed .png
        ("photo.svg", b'<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>'),
        ("photo.pdf", PNG),  # a PNG that says it is a PDF
        ("photo.html", PNG),
        ("empty.png", b""),
        ("broken.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64),  # a PNG header, no image
        ("photo.jpg", image("PNG")),  # a PNG named .jpg
    ],
)
def test_a_hostile_attachment_is_refused(name, content):
    with pytest.raises(attachments.AttachmentRefused) as exc:
        attachments.check(name, content)
    assert exc.value.message_id == "attachment.type"
    assert Path(name).name in str(exc.value) and "PNG, JPEG, WebP or PDF" in str(exc.value)
    assert "bukan berkas PNG, JPEG, WebP atau PDF" in exc.value.render("id")


def test_an_attachment_over_the_size_setting_is_refused(monkeypatch):
    small = image("PNG")
    monkeypatch.setenv("DOMINO_ATTACHMENT_MAX_BYTES", str(len(small)))
    attachments.check("ok.png", small)
    with pytest.raises(attachments.AttachmentRefused) as exc:
        attachments.check("big.png", small + b"\x00")
    assert exc.value.message_id == "attachment.size" and "attachment_max_bytes" in str(exc.value)


def test_users_commands_keep_the_old_call_and_manage_roles(db_path):
    from click.testing import CliRunner

    from pipeline.cli import cli
    from pipeline.store.db import connect

    r = CliRunner()
    ok = r.invoke(cli, ["users", "add", "rina", "--event", EV, "--password", PW])
    assert ok.exit_code == 0, ok.output
    assert "coordinator 'rina' may write to" in ok.output
    ok = r.invoke(cli, ["users", "add", "juri", "--role", "jury", "--event", EV, "--password", PW])
    assert ok.exit_code == 0, ok.output
    bad = r.invoke(cli, ["users", "add", "x", "--role", "jury", "--password", PW])
    assert bad.exit_code == 2 and "at least one event" in bad.output
    bad = r.invoke(cli, ["users", "add", "x", "--role", "admin", "--event", EV, "--password", PW])
    assert bad.exit_code == 2 and "every event" in bad.output
    ok = r.invoke(cli, ["users", "role", "rina", "--role", "coordinator", "--group", "KG A"])
    assert ok.exit_code == 0, ok.output
    listed = r.invoke(cli, ["users", "list", "--format", "csv"])
    assert "juri,jury," + EV in listed.output and "rina,coordinator,,KG A" in listed.output
    gone = r.invoke(cli, ["users", "role", "nobody", "--role", "admin"])
    assert gone.exit_code == 1 and "no user 'nobody'" in gone.output
    assert r.invoke(cli, ["users", "remove", "juri"]).exit_code == 0
    assert r.invoke(cli, ["users", "remove", "juri"]).exit_code == 1
    with connect(db_path, read_only=True) as con:
        assert auth.user_role(con, "juri") is None and auth.user_groups(con, "rina") == ["KG A"]
    assert r.invoke(cli, ["requests", "list"]).exit_code == 0


def test_existing_users_become_coordinators_of_their_events(tmp_path):
    """A database made before roles: its users keep their events, as coordinators."""
    import duckdb

    from pipeline.store.db import _migrations, connect

    path = tmp_path / "old.duckdb"
    raw = duckdb.connect(str(path))
    raw.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR, applied_at TIMESTAMP)"
    )
    for version, name, sql in _migrations():
        if version < 9:
            raw.execute(sql)
            raw.execute("INSERT INTO schema_migrations VALUES (?, ?, now())", [version, name])
    raw.execute("INSERT INTO users VALUES ('old', ?, now())", [auth.hash_password(PW)])
    raw.execute("INSERT INTO user_events VALUES ('old', ?)", [EV])
    raw.close()
    with connect(path) as con:
        assert auth.user_role(con, "old") == "coordinator"
        assert auth.user_events(con, "old") == {EV}
        assert auth.sign_in(con, "old", PW, limiter=auth.RateLimiter()).ok


def test_a_coordinator_brings_a_withdrawn_match_back_only_through_the_jury(league):
    """The jury withdrew the match; its file again from a coordinator is a correction
    (it brings the match back), so it waits for the jury as a request, then loads."""
    from pipeline.ingest.withdraw import withdraw

    (rnd, table), before = (
        league.execute(
            'SELECT round, "table" FROM match_versions WHERE event = ?', [EV]
        ).fetchall()[0],
        points(league),
    )
    withdraw(league, EV, rnd, table, reason="thought it was not played", by="juri")
    with pytest.raises(auth.NotAllowed) as exc:
        load(
            league, [(SRC.name, SRC.read_bytes())], reason="it was", identity=ident(league, "cora")
        )
    assert exc.value.message_id == "correction_needs_request"
    rid = cr.create(league, ident(league, "cora"), [(SRC.name, SRC.read_bytes())], reason="it was")
    assert cr.get(league, rid).matches["base_version"].to_list() == [2]
    (d,) = cr.review(league, cr.get(league, rid, "juri")).diffs  # what the jury looks at
    assert dict(zip(d["points"]["player"], d["points"]["after"], strict=True)) == before
    cr.approve(league, ident(league, "juri"), rid, "the sheet is signed")
    assert points(league) == before
    assert queries.history(league, EV).get_column("kind").to_list() == [
        "new",
        "withdrawn",
        "correction",
    ]


def test_a_player_new_to_the_match_is_shown_by_name_in_the_review(league):
    """A substitute in the correction: the points before and after name them as the
    file spells them, not by their lowercase key."""
    text = SRC.read_text(encoding="utf-8-sig")
    assert "Taufik Pallawa" in text
    swapped = (SRC.name, text.replace("Taufik Pallawa", "Budi Santoso").encode())
    rid = cr.create(league, ident(league, "cora"), [swapped], reason="the substitute played")
    (d,) = cr.review(league, cr.get(league, rid, "juri")).diffs
    shown = dict(zip(d["points"]["player_key"], d["points"]["player"], strict=True))
    assert shown["budi santoso"] == "Budi Santoso"
    assert shown["taufik pallawa"] == "Taufik Pallawa"  # only before: still by name


def _a_match(con) -> tuple[str, str]:
    return con.execute(
        'SELECT round, "table" FROM match_versions WHERE event = ? AND current', [EV]
    ).fetchall()[0]


def test_a_coordinator_asks_for_a_withdrawal_and_the_jury_approves_it(store, league):
    """A table the coordinator loaded by mistake: asking changes nothing; the jury sees
    every player's points go and every hand dropped; approving withdraws it with the
    coordinator's reason, as the approver, and the history names both."""
    rnd, table = _a_match(league)
    before = points(league)
    rid = cr.ask_withdrawal(
        league, ident(league, "cora"), EV, rnd, table, reason=" loaded under the wrong session "
    )
    assert points(league) == before, "a request changes nothing"
    req = cr.get(league, rid, "juri")
    assert (req.kind, req.status, req.reason) == (
        "withdrawal",
        "pending",
        "loaded under the wrong session",
    )
    assert req.matches.select("event", "round", "table", "base_version").rows() == [
        (EV, rnd, table, 1)
    ]
    assert cr.files(league, rid) == []
    listed = cr.visible(league, "juri").row(0, named=True)
    assert (listed["kind"], listed["matches"]) == ("withdrawal", f"{EV} {rnd} {table}")
    (d,) = cr.review(league, req).diffs
    shown = d["points"]
    assert dict(zip(shown["player"], shown["before"], strict=True)) == before
    assert shown["after"].null_count() == shown.height == 4, "every player's points go"
    hands = league.execute(
        'SELECT hands FROM match_versions WHERE event = ? AND round = ? AND "table" = ?',
        [EV, rnd, table],
    ).fetchall()[0][0]
    assert d["diff"].get_column("hand").n_unique() == hands, "every hand is dropped"

    done = cr.approve(league, ident(league, "juri"), rid, "the session sheet says S1")
    assert done.outcomes[0].status == "withdrawn"
    assert points(league) == {}, "its points left the standings"
    h = queries.history(league, EV).sort("version")
    last = h.row(-1, named=True)
    assert (last["kind"], last["reason"], last["loaded_by"]) == (
        "withdrawn",
        "loaded under the wrong session",
        "juri",
    )
    assert (last["requested_by"], last["approved_by"], last["approval_reason"]) == (
        "cora",
        "juri",
        "the session sheet says S1",
    )
    assert cr.get(league, rid).status == "approved"
    assert cr.get(league, rid).matches["applied_version"].to_list() == [2]


def test_a_withdrawal_request_rejected_or_overtaken_changes_nothing(league):
    rnd, table = _a_match(league)
    before = points(league)
    rid = cr.ask_withdrawal(league, ident(league, "cora"), EV, rnd, table, reason="wrong table")
    cr.reject(league, ident(league, "juri"), rid, "the table was played")
    assert points(league) == before
    assert queries.history(league, EV)["kind"].to_list() == ["new"]
    # asked again, but the jury corrects the match meanwhile: the request is stale
    rid = cr.ask_withdrawal(league, ident(league, "cora"), EV, rnd, table, reason="wrong table")
    ingest(league, [corrected()], reason="A held 8")
    after = points(league)
    with pytest.raises(cr.RequestRefused) as exc:
        cr.approve(league, ident(league, "juri"), rid, "ok")
    assert exc.value.message_id == "request.stale"
    assert points(league) == after and cr.get(league, rid).status == "stale"
    assert queries.history(league, EV)["kind"].to_list() == ["new", "correction"]

    # a writer that moves the match between the approval's check and its withdrawal
    # (several writers on PostgreSQL): the withdrawal itself refuses, and the request is
    # closed as stale
    from pipeline.ingest import withdraw as wd

    rid = cr.ask_withdrawal(league, ident(league, "cora"), EV, rnd, table, reason="again")
    real = wd.loaded_version

    def moved_meanwhile(con, key):
        ingest(con, [corrected(HAND1, "Taufik Pallawa;D;out;15;12;9;10;;")], reason="meanwhile")
        return real(con, key)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(wd, "loaded_version", moved_meanwhile)
        with pytest.raises(cr.RequestRefused) as exc:
            cr.approve(league, ident(league, "juri"), rid, "ok")
    assert exc.value.message_id == "request.stale" and "version 2" in str(exc.value)
    assert cr.get(league, rid).status == "stale"
    assert queries.history(league, EV)["kind"].to_list() == ["new", "correction", "correction"]


def test_a_withdrawal_request_needs_a_loaded_match_a_reason_and_the_event(league):
    from pipeline.ingest.withdraw import WithdrawRefused, withdraw

    rnd, table = _a_match(league)
    cora = ident(league, "cora")
    with pytest.raises(cr.RequestRefused) as exc:
        cr.ask_withdrawal(league, cora, EV, rnd, table, reason="  ")
    assert exc.value.message_id == "request.withdrawal_needs_reason"
    assert "why" in str(exc.value) and "mengapa" in exc.value.render("id")
    with pytest.raises(WithdrawRefused) as wexc:
        cr.ask_withdrawal(league, cora, EV, rnd, "99", reason="x")
    assert wexc.value.message_id == "withdraw.no_match"
    with pytest.raises(auth.NotAllowed):
        cr.ask_withdrawal(league, ident(league, "oco"), EV, rnd, table, reason="x")
    with pytest.raises(auth.NotAllowed):
        cr.ask_withdrawal(league, None, EV, rnd, table, reason="x")
    rid = cr.ask_withdrawal(league, cora, EV, rnd, table, reason="wrong table")
    with pytest.raises(cr.RequestRefused) as exc:
        cr.ask_withdrawal(league, cora, EV, rnd, table, reason="asked twice")
    assert exc.value.message_id == "request.withdrawal_waiting" and f"(request {rid})" in str(
        exc.value
    )
    cr.reject(league, ident(league, "juri"), rid, "it was played")
    league.execute("DELETE FROM change_request_matches")
    league.execute("DELETE FROM change_requests")
    withdraw(league, EV, rnd, table, reason="the jury saw it first", by="juri")
    with pytest.raises(WithdrawRefused) as wexc:
        cr.ask_withdrawal(league, cora, EV, rnd, table, reason="x")
    assert wexc.value.message_id == "withdraw.already"
    assert league.execute("SELECT count(*) FROM change_requests").fetchall()[0][0] == 0


def test_the_command_line_lists_and_shows_a_withdrawal_request(league):
    from click.testing import CliRunner

    from pipeline.cli import cli

    rnd, table = _a_match(league)
    rid = cr.ask_withdrawal(league, ident(league, "cora"), EV, rnd, table, reason="wrong table")
    league.close()  # the command line opens the file itself
    r = CliRunner()
    listed = r.invoke(cli, ["requests", "list", "--format", "csv"])
    assert listed.exit_code == 0, listed.output
    assert f"{rid},pending,withdrawal,{EV}," in listed.output
    shown = r.invoke(cli, ["requests", "show", str(rid)])
    assert shown.exit_code == 0, shown.output
    assert f"request {rid} (a withdrawal) by cora" in shown.output and "wrong table" in shown.output
    assert "files:" not in shown.output


def test_the_coordinator_who_asked_cancels_before_the_jury_decides(league):
    """A request sent by mistake is taken back by its requester: nothing changes, it stays
    listed as cancelled and can no longer be approved; nobody else may cancel it."""
    before = points(league)
    rid = cr.create(league, ident(league, "cora"), [corrected()], reason="wrong file")
    for name, code in (("juri", "request.not_yours"), ("boss", "request.not_yours")):
        with pytest.raises(cr.RequestRefused) as exc:
            cr.cancel(league, ident(league, name), rid)
        assert exc.value.message_id == code and "cora" in str(exc.value)
    with pytest.raises(cr.RequestRefused) as exc:
        cr.cancel(league, ident(league, "oco"), rid)
    assert exc.value.message_id == "request.unknown", "who may not see it does not learn of it"
    cr.cancel(league, ident(league, "cora"), rid, "  ")
    req = cr.get(league, rid)
    assert (req.status, req.decided_by, req.decision_reason) == ("cancelled", "cora", None)
    assert points(league) == before
    with pytest.raises(cr.RequestRefused) as exc:
        cr.approve(league, ident(league, "juri"), rid, "ok")
    assert exc.value.message_id == "request.decided" and "cancelled" in str(exc.value)
    with pytest.raises(cr.RequestRefused) as exc:
        cr.cancel(league, ident(league, "cora"), rid)
    assert exc.value.message_id == "request.decided"
    assert cr.visible(league, "cora").get_column("status").to_list() == ["cancelled"]


def test_a_coordinator_asks_for_a_withdrawn_match_back_without_its_file(league):
    """The rows the database kept become an ordinary correction request: the jury sees
    the points come back and approves; the match counts again with both names."""
    from pipeline.ingest.withdraw import WithdrawRefused, withdraw

    rnd, table = _a_match(league)
    before = points(league)
    cora = ident(league, "cora")
    with pytest.raises(WithdrawRefused) as wexc:
        cr.ask_reinstatement(league, cora, EV, rnd, table, reason="it was played")
    assert wexc.value.message_id == "withdraw.not_withdrawn"
    withdraw(league, EV, rnd, table, reason="thought it was not played", by="juri")
    with pytest.raises(cr.RequestRefused) as exc:
        cr.ask_reinstatement(league, cora, EV, rnd, table, reason=" ")
    assert exc.value.message_id == "request.reinstatement_needs_reason"
    with pytest.raises(auth.NotAllowed):
        cr.ask_reinstatement(league, ident(league, "oco"), EV, rnd, table, reason="x")
    rid = cr.ask_reinstatement(league, cora, EV, rnd, table, reason="the sheet is signed")
    assert points(league) == {}, "a request changes nothing"
    req = cr.get(league, rid, "juri")
    assert (req.kind, req.matches["base_version"].to_list()) == ("correction", [2])
    (name,) = [n for n, _ in cr.files(league, rid)]
    assert name == f"reinstated {EV} {rnd} {table} v1.csv"
    (d,) = cr.review(league, req).diffs
    assert dict(zip(d["points"]["player"], d["points"]["after"], strict=True)) == before
    assert (d["back"], d["version"]) == (True, 2), "brought back from the withdrawn v2"
    cr.approve(league, ident(league, "juri"), rid, "signed by all four")
    assert points(league) == before
    last = queries.history(league, EV).sort("version").row(-1, named=True)
    assert (last["kind"], last["requested_by"], last["approved_by"]) == (
        "correction",
        "cora",
        "juri",
    )


def test_a_decision_is_news_for_the_coordinator_who_asked_until_they_see_it(store, league):
    """Rejected, approved or found stale by the jury, a request counts as news for the
    coordinator who sent it until they see it; a look by anyone else, a pending or a
    cancelled request, is no news. On both stores."""
    cora, juri = ident(league, "cora"), ident(league, "juri")
    rejected = cr.create(league, cora, [corrected()], reason="typo")
    assert cr.waiting(league, "cora") == (0, 1, 0) and cr.waiting(league, "juri") == (1, 0, 0)
    cr.reject(league, juri, rejected, "the paper says 11")
    assert cr.waiting(league, "cora") == (0, 0, 1) and cr.waiting(league, "juri") == (0, 0, 0)
    stale = cr.create(league, cora, [corrected()], reason="typo again")
    ingest(league, [corrected(HAND1, "Taufik Pallawa;D;out;15;12;9;10;;")], reason="other")
    with pytest.raises(cr.RequestRefused):
        cr.approve(league, juri, stale, "ok")
    approved = cr.create(league, cora, [corrected(HAND1, FIXED)], reason="third time")
    cr.approve(league, juri, approved, "matches the paper")
    cancelled = cr.create(league, cora, [corrected(HAND1, HAND1 + "x")], reason="oops")
    cr.cancel(league, cora, cancelled)
    assert cr.waiting(league, "cora") == (0, 0, 3)
    for rid in (rejected, stale, approved, cancelled):
        cr.seen(league, "juri", rid)
    assert cr.waiting(league, "cora").decided == 3
    cr.seen(league, "cora", rejected)
    first = cr.get(league, rejected).seen_at
    assert first is not None and cr.get(league, rejected).unseen is False
    cr.seen(league, "cora", rejected)  # a second look keeps the first
    assert cr.get(league, rejected).seen_at == first
    assert cr.get(league, stale).unseen and not cr.get(league, cancelled).unseen
    for rid in (stale, approved, cancelled):
        cr.seen(league, "cora", rid)
    assert cr.waiting(league, "cora") == (0, 0, 0)
    assert cr.get(league, cancelled).seen_at is None, "their own cancel is not a decision"
