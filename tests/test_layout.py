"""One-way doors between the top-level packages: the engine (``pipeline/``) imports neither
the dashboard nor the deal simulator at load time, and the benchmarks share helpers with
the tests through ``simulator/stress/``, never by importing ``tests``."""

import ast
import contextlib
import os
import subprocess
import sys

from click.testing import CliRunner

from pipeline.cli import cli
from tests.conftest import ROOT


def _imports(path) -> list[tuple[str, bool]]:
    """(module, imported at the top level of the file) for every import in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.module, id(node) in top))
    return found


def _root(module: str) -> str:
    return module.split(".", 1)[0]


def test_the_engine_never_imports_the_dashboard_and_loads_the_simulator_only_when_asked():
    bad = []
    for path in sorted((ROOT / "pipeline").rglob("*.py")):
        for module, at_top in _imports(path):
            if _root(module) == "dashboard" or (_root(module) == "simulator" and at_top):
                bad.append(f"{path.relative_to(ROOT)}: {module}")
    assert not bad, bad


def test_importing_the_cli_loads_neither_the_dashboard_nor_the_simulator():
    code = "import sys, pipeline.cli; print(sorted({m.split('.')[0] for m in sys.modules} & {'dashboard', 'simulator', 'streamlit'}))"
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert r.stdout.strip() == "[]", r.stdout


def test_the_benchmarks_do_not_import_the_tests():
    bad = [
        f"{path.relative_to(ROOT)}: {module}"
        for path in sorted((ROOT / "bench").rglob("*.py"))
        for module, _ in _imports(path)
        if _root(module) == "tests"
    ]
    assert not bad, bad


def test_domino_serve_hands_over_to_python_m_dashboard(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(os, "execv", lambda exe, argv: calls.append((exe, argv)))
    db = tmp_path / "d.duckdb"
    r = CliRunner().invoke(cli, ["serve", "--port", "8765", "--host", "127.0.0.1", "--db", str(db)])
    assert r.exit_code == 0, r.output
    assert calls == [
        (
            sys.executable,
            [
                sys.executable,
                "-m",
                "dashboard",
                "--port",
                "8765",
                "--host",
                "127.0.0.1",
                "--db",
                str(db.resolve()),
            ],
        )
    ]


def test_domino_serve_on_postgresql_hands_over_the_url_unchanged_and_out_of_sight(monkeypatch):
    # the URL was resolved as a file path (/cwd/postgresql:/…): the dashboard then showed
    # an empty league. It goes to the server as it is, through the environment, so that a
    # password in it is not in the process list
    from pipeline.store import db as store

    calls = []
    monkeypatch.setattr(os, "execv", lambda exe, argv: calls.append(argv))
    monkeypatch.setattr(store, "connect", lambda *a, **k: contextlib.nullcontext())
    monkeypatch.setenv("DOMINO_DB", "restored after the test")
    url = "postgresql://domino:s3cret@db.example:5432/liga"
    r = CliRunner().invoke(cli, ["serve", "--port", "8768", "--db", url])
    assert r.exit_code == 0, r.output
    (argv,) = calls
    assert "--db" not in argv and not any("s3cret" in a for a in argv)
    assert os.environ["DOMINO_DB"] == url


def test_domino_serve_on_a_missing_file_says_the_pages_start_empty(monkeypatch, tmp_path):
    monkeypatch.setattr(os, "execv", lambda exe, argv: None)
    typo = tmp_path / "hasil.duckbd"
    r = CliRunner().invoke(cli, ["serve", "--port", "8770", "--db", str(typo)])
    assert r.exit_code == 0, r.output
    assert f"{typo} does not exist yet: the dashboard shows no results" in " ".join(
        r.output.split()
    )
    assert not typo.exists()  # serving reads; the first upload creates the file


def test_domino_serve_with_a_setting_of_the_wrong_kind_says_which_before_starting(
    monkeypatch, tmp_path
):
    """Before, the server started and each visitor's page stopped on "could not convert
    string to float" when it first read the setting."""
    started = []
    monkeypatch.setattr(os, "execv", lambda exe, argv: started.append(argv))
    monkeypatch.setenv("DOMINO_LIVE_SECONDS", "dua")
    r = CliRunner().invoke(cli, ["serve", "--port", "8771", "--db", str(tmp_path / "d.duckdb")])
    assert r.exit_code == 2 and not started
    assert 'setting: DOMINO_LIVE_SECONDS is set to "dua", which is not a number' in " ".join(
        r.output.split()
    )
    assert "Traceback" not in r.output


def test_python_m_dashboard_takes_a_postgresql_url_as_it_is(monkeypatch):
    from streamlit.web.cli import main as streamlit_main

    import dashboard.__main__ as entry
    from dashboard import shell

    for name in ("freeze_imports", "stop_on_signals"):
        monkeypatch.setattr(entry, name, lambda: None)
    monkeypatch.setattr(shell, "preload", lambda: None)
    monkeypatch.setattr(streamlit_main, "main", lambda args, prog_name: None)
    monkeypatch.setenv("DOMINO_DB", "restored after the test")
    url = "postgresql://domino@db.example:5432/liga"
    entry.main(["--port", "8769", "--db", url])
    assert os.environ["DOMINO_DB"] == url


def test_a_dashboard_that_cannot_start_is_one_sentence_and_exit_1(monkeypatch):
    def fail(exe, argv):
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(os, "execv", fail)
    r = CliRunner().invoke(cli, ["serve", "--port", "8766"])
    assert r.exit_code == 1
    assert "could not start the dashboard" in r.output and "Traceback" not in r.output


def test_python_m_dashboard_preloads_every_page_before_serving(monkeypatch, tmp_path):
    """The server takes over the stop signals, imports every page before it opens its
    port (the first page then takes well under a second), and serves dashboard/asgi.py
    (app.py with its middleware)."""
    import dashboard.__main__ as entry
    from dashboard import shell

    order = []
    monkeypatch.setattr(shell, "preload", lambda: order.append("preload"))
    monkeypatch.setattr(entry, "freeze_imports", lambda: order.append("freeze"))
    monkeypatch.setattr(entry, "stop_on_signals", lambda: order.append("signals"))
    from streamlit.web.cli import main as streamlit_main

    monkeypatch.setattr(streamlit_main, "main", lambda args, prog_name: order.append(args))
    monkeypatch.setenv("DOMINO_DB", "restored after the test")
    entry.main(["--port", "8767", "--host", "127.0.0.1", "--db", str(tmp_path / "x.duckdb")])
    assert order[:3] == ["signals", "preload", "freeze"]
    assert order[3][:2] == ["run", str(ROOT / "dashboard" / "asgi.py")]
    assert order[3][2:6] == ["--server.port", "8767", "--server.address", "127.0.0.1"]
    assert os.environ["DOMINO_DB"] == str((tmp_path / "x.duckdb").resolve())


def test_the_servers_imports_are_kept_out_of_the_collections_and_exit_quietly():
    """After the preload the server freezes what exists (Streamlit's collection after
    every script run then skips it), and at exit hands it back: DuckDB's bindings would
    otherwise print a list of "leaked" objects when the server stops."""
    code = (
        "import gc\n"
        "from dashboard.shell import preload\n"
        "from dashboard.__main__ import freeze_imports\n"
        "preload()\n"
        "freeze_imports()\n"
        "print(gc.get_freeze_count())\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.split()[-1]) > 10_000
    assert "leaked" not in r.stderr, r.stderr[:500]
