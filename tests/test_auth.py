"""Coordinators: salted hashes only, rate-limited sign-in, event rights, forged identities."""

import pytest
from click.testing import CliRunner

from pipeline import auth
from pipeline.cli import cli
from pipeline.store.db import connect

PW = "a long enough password"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def limiter() -> auth.RateLimiter:
    return auth.RateLimiter(attempts=3, window=60.0, clock=Clock())


# --- hashing ----------------------------------------------------------------------------------


def test_hashes_are_salted_argon2_and_verify():
    a, b = auth.hash_password(PW), auth.hash_password(PW)
    assert a != b, "each hash has its own salt"
    assert a.startswith("$argon2id$") and PW not in a
    assert auth.verify_password(a, PW) and auth.verify_password(b, PW)
    assert not auth.verify_password(a, PW + "x")
    assert not auth.verify_password("not a hash", PW)


def test_add_user_stores_only_a_hash(con):
    auth.add_user(con, "  Rina   Basri ", PW, ["unhas-2024", "pepet-2024"])
    rows = con.execute("SELECT name, password_hash FROM users").fetchall()
    assert rows[0][0] == "rina basri"
    assert PW not in rows[0][1] and auth.verify_password(rows[0][1], PW)
    dump = " ".join(str(v) for r in con.execute("SELECT * FROM users").fetchall() for v in r)
    assert PW not in dump
    assert auth.user_events(con, "RINA BASRI") == {"unhas-2024", "pepet-2024"}


def test_add_user_again_replaces_password_and_events(con):
    auth.add_user(con, "rina", PW, ["a"])
    auth.add_user(con, "rina", PW + "2", ["b", "c"])
    assert con.execute("SELECT count(*) FROM users").fetchall()[0][0] == 1
    assert auth.user_events(con, "rina") == {"b", "c"}
    assert not auth.sign_in(con, "rina", PW, limiter=auth.RateLimiter(clock=Clock())).ok
    assert auth.sign_in(con, "rina", PW + "2", limiter=auth.RateLimiter(clock=Clock())).ok


@pytest.mark.parametrize(
    ("name", "password", "events"),
    [
        ("", PW, ["a"]),
        ("rina", "short", ["a"]),
        ("rina", PW, []),
        ("rina", PW, ["  "]),
        ("x" * 65, PW, ["a"]),
    ],
)
def test_add_user_refuses_bad_input(con, name, password, events):
    with pytest.raises(ValueError):
        auth.add_user(con, name, password, events)
    assert con.execute("SELECT count(*) FROM users").fetchall()[0][0] == 0


def test_tokens_are_random_and_long():
    tokens = {auth.new_token() for _ in range(50)}
    assert len(tokens) == 50 and all(len(t) >= 40 for t in tokens)


def test_cli_users_add_with_a_token_then_list(db_path):
    r = CliRunner().invoke(cli, ["users", "add", "Pak Basri", "--event", "unhas-2024", "--token"])
    assert r.exit_code == 0, r.output
    token = r.stdout.strip().split()[-1]  # stderr notes that unhas-2024 is not loaded yet
    assert len(token) >= 40
    r = CliRunner().invoke(cli, ["users", "list", "--format", "csv"])
    assert "pak basri" in r.output and "unhas-2024" in r.output and token not in r.output
    from pipeline.store.db import connect

    with connect(db_path) as con:
        assert auth.sign_in(con, "Pak Basri", token, limiter=auth.RateLimiter(clock=Clock())).ok


def test_a_right_to_an_event_or_group_not_there_yet_is_kept_and_said(db_path, tmp_path):
    """An event may be created by the coordinator's first upload, so the right is kept;
    before, a mistyped event or group granted nothing without a word."""
    from tests.conftest import DATA

    base = DATA / "errors" / "base_unhas.csv"
    assert CliRunner().invoke(cli, ["ingest", str(base)]).exit_code == 0
    r = CliRunner().invoke(
        cli,
        ["users", "add", "rina", "--event", "unhas-2024-e1", "--event", "unhas-2024-el"]
        + ["--group", "KG Somba Opu", "--password", "kata sandi panjang"],
    )
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == (
        "coordinator 'rina' may write to: unhas-2024-e1, unhas-2024-el, group KG Somba Opu"
    )
    notes = r.stderr.splitlines()
    assert [n.split(" yet ")[0] for n in notes] == [
        "note: no event 'unhas-2024-el' is loaded",
        "note: no player of the registry is in group 'KG Somba Opu'",
    ], notes
    r = CliRunner().invoke(cli, ["users", "role", "rina", "--role", "jury", "--event", "*"])
    assert r.exit_code == 0 and r.stderr == "", r.output
    assert r.stdout.strip() == "jury 'rina' sits on the jury of: every event"


def test_a_group_right_is_stored_as_the_registry_writes_the_group(db_path, tmp_path):
    """Before: ``--group "kg tallo"`` was stored as typed, granted nothing (rights match
    the registry's ``KG Tallo`` as written) and was noted as a group nobody is in."""
    reg = tmp_path / "reg.csv"
    reg.write_text("player,group\nAna,KG Tallo\n")
    assert CliRunner().invoke(cli, ["players", "import", str(reg)]).exit_code == 0
    r = CliRunner().invoke(
        cli, ["users", "add", "kg", "--group", "kg  tallo", "--password", "kata sandi panjang"]
    )
    assert (r.exit_code, r.stdout.strip(), r.stderr) == (
        0,
        "coordinator 'kg' may write to: group KG Tallo",
        "",
    )
    r = CliRunner().invoke(
        cli, ["users", "role", "kg", "--role", "coordinator", "--group", "KG TALLO"]
    )
    assert (r.stdout.strip(), r.stderr) == ("coordinator 'kg' may write to: group KG Tallo", "")
    with connect(db_path, read_only=True) as con:
        assert auth.user_groups(con, "kg") == ["KG Tallo"]


def test_a_group_right_names_its_league_on_the_command_line(db_path, tmp_path):
    """`KG 1` in two leagues' registries: `users add --group` without `--league` is refused
    in a sentence naming both; with it, the right and a group missing from that league's
    registry are said with the league, and `users list` shows it."""
    for lg in ("makassar", "gowa"):
        reg = tmp_path / f"{lg}.csv"
        reg.write_text("player,group\nAna,KG 1\n")
        r = CliRunner().invoke(cli, ["players", "import", str(reg), "--league", lg])
        assert r.exit_code == 0, r.output
    add = ["users", "add", "kg", "--group", "KG 1", "--password", "kata sandi panjang"]
    r = CliRunner().invoke(cli, add)
    assert r.exit_code == 2
    assert "group KG 1 is in the registries of leagues gowa, makassar: name the league" in (
        " ".join(r.output.split())
    )
    r = CliRunner().invoke(cli, [*add, "--group", "KG 2", "--league", "gowa"])
    assert (r.exit_code, r.stdout.strip()) == (
        0,
        "coordinator 'kg' may write to: group KG 1 of league gowa, group KG 2 of league gowa",
    )
    assert r.stderr.startswith(
        "note: no player of the registry of league 'gowa' is in group 'KG 2'"
    )
    r = CliRunner().invoke(cli, ["users", "list", "--format", "csv"])
    assert r.stdout.splitlines()[1].startswith('kg,coordinator,,"KG 1, KG 2",gowa,')


# --- sign-in and rate limiting -------------------------------------------------------------------


def test_sign_in_right_and_wrong(con, limiter):
    auth.add_user(con, "rina", PW, ["*"])
    assert not auth.sign_in(con, "rina", "wrong", limiter=limiter).ok
    assert not auth.sign_in(con, "nobody", PW, limiter=limiter).ok
    assert not auth.sign_in(con, "", "", limiter=limiter).ok
    good = auth.sign_in(con, " RINA ", PW, limiter=limiter)
    assert good.ok and good.identity.name == "rina"


def test_failures_lock_out_until_the_window_passes(con, limiter):
    auth.add_user(con, "rina", PW, ["*"])
    for _ in range(3):
        r = auth.sign_in(con, "rina", "wrong", limiter=limiter)
        assert not r.ok and r.retry_after == 0
    locked = auth.sign_in(con, "rina", PW, limiter=limiter)
    assert not locked.ok and 0 < locked.retry_after <= 60
    limiter.clock.now += 30
    assert not auth.sign_in(con, "rina", PW, limiter=limiter).ok, "still inside the window"
    limiter.clock.now += 31
    assert auth.sign_in(con, "rina", PW, limiter=limiter).ok, "the window has passed"


def test_rate_limit_is_per_name_and_per_client(con, limiter):
    auth.add_user(con, "rina", PW, ["*"])
    auth.add_user(con, "budi", PW, ["*"])
    for _ in range(3):
        auth.sign_in(con, "rina", "wrong", client="10.0.0.9", limiter=limiter)
    assert auth.sign_in(con, "budi", PW, client="10.0.0.1", limiter=limiter).ok, (
        "another name, another client"
    )
    assert not auth.sign_in(con, "budi", PW, client="10.0.0.9", limiter=limiter).ok, (
        "the same client is locked out"
    )


def test_success_resets_the_name_counter(con, limiter):
    auth.add_user(con, "rina", PW, ["*"])
    for _ in range(2):
        auth.sign_in(con, "rina", "wrong", limiter=limiter)
    assert auth.sign_in(con, "rina", PW, limiter=limiter).ok
    for _ in range(2):
        auth.sign_in(con, "rina", "wrong", limiter=limiter)
    assert auth.sign_in(con, "rina", PW, limiter=limiter).ok


def test_limits_come_from_settings(con, monkeypatch):
    monkeypatch.setenv("DOMINO_LOGIN_ATTEMPTS", "1")
    monkeypatch.setenv("DOMINO_LOGIN_WINDOW_SECONDS", "10")
    clock = Clock()
    lim = auth.RateLimiter(clock=clock)
    auth.add_user(con, "rina", PW, ["*"])
    auth.sign_in(con, "rina", "wrong", limiter=lim)
    r = auth.sign_in(con, "rina", PW, limiter=lim)
    assert not r.ok and r.retry_after == pytest.approx(10)
    clock.now += 10.5
    assert auth.sign_in(con, "rina", PW, limiter=lim).ok


# --- rights and forged identities ---------------------------------------------------------------


def test_event_rights(store, con):
    auth.add_user(con, "rina", PW, ["unhas-2024"])
    auth.add_user(con, "boss", PW, ["*"])
    rina, boss = auth.user_events(con, "rina"), auth.user_events(con, "boss")
    assert auth.may_write(rina, "unhas-2024") and not auth.may_write(rina, "pepet-2024")
    assert auth.may_write(boss, "anything")
    assert not auth.may_write(None, "unhas-2024") and not auth.may_write(set(), "unhas-2024")
    assert auth.forbidden_events(rina, ["unhas-2024", "pepet-2024", "x"]) == ["pepet-2024", "x"]


def test_a_forged_identity_is_not_accepted(con, limiter):
    auth.add_user(con, "rina", PW, ["*"])
    real = auth.sign_in(con, "rina", PW, limiter=limiter).identity
    assert auth.identity_ok(real) is real
    for fake in (
        "rina",
        {"name": "rina"},
        None,
        auth.Identity("rina", "made-up", 0.0),
        auth.Identity("boss", real.nonce, real.signed_in_at),
    ):
        assert auth.identity_ok(fake) is None
        with pytest.raises(auth.NotAllowed):
            auth.check_rights(con, fake, [])


def test_signing_out_ends_the_identity(con, limiter):
    auth.add_user(con, "rina", PW, ["*"])
    ident = auth.sign_in(con, "rina", PW, limiter=limiter).identity
    auth.sign_out(ident)
    assert auth.identity_ok(ident) is None


def test_rights_are_read_from_the_database_each_time(store, con, limiter):
    auth.add_user(con, "rina", PW, ["unhas-2024"])
    ident = auth.sign_in(con, "rina", PW, limiter=limiter).identity
    assert auth.check_rights(con, ident, ["unhas-2024"]) is ident
    auth.add_user(con, "rina", PW, ["pepet-2024"])  # rights changed after signing in
    with pytest.raises(auth.NotAllowed) as exc:
        auth.check_rights(con, ident, ["unhas-2024"])
    assert exc.value.events == ["unhas-2024"]
    con.execute("DELETE FROM user_events WHERE name = 'rina'")
    con.execute("DELETE FROM users WHERE name = 'rina'")
    with pytest.raises(auth.NotAllowed, match="no longer exists"):
        auth.check_rights(con, ident, [])


# --- the client address behind a reverse proxy (issue "Venue-ready" item 9) ----------------


def test_a_connection_from_this_machine_counts_as_loopback_not_as_no_client():
    """Streamlit reports a local connection without an address; it used to skip the
    per-address limit, so behind a proxy on the same host only the per-name limit held."""
    assert auth.client_address(None, None, trusted="") == "127.0.0.1"


def test_forwarded_for_is_honoured_only_from_a_trusted_proxy():
    xff = "203.0.113.9, 198.51.100.7"
    assert auth.client_address(None, xff, trusted="") == "127.0.0.1"  # nobody trusted
    assert (
        auth.client_address("192.0.2.1", xff, trusted="127.0.0.1") == "192.0.2.1"
    )  # not the proxy
    # from the trusted proxy: the right-most address that is not a proxy
    assert auth.client_address(None, xff, trusted="127.0.0.1") == "198.51.100.7"
    assert auth.client_address(None, xff, trusted="127.0.0.1, 198.51.100.7") == "203.0.113.9"
    assert auth.client_address(None, "", trusted="127.0.0.1") == "127.0.0.1"


def test_clients_behind_a_trusted_proxy_are_limited_one_by_one(monkeypatch):
    monkeypatch.setenv("DOMINO_TRUSTED_PROXIES", "127.0.0.1")
    limiter = auth.RateLimiter()
    one = f"client:{auth.client_address(None, '203.0.113.9')}"
    two = f"client:{auth.client_address(None, '203.0.113.10')}"
    attempts = int(auth.settings.get("login_attempts"))
    for _ in range(attempts):
        limiter.fail([one])
    assert limiter.retry_after([one]) > 0
    assert limiter.retry_after([two]) == 0
