"""The served app's middleware (dashboard/server.py): a page's address is answered with
Streamlit's page and the line of script that names the server's root; nothing else is."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from dashboard import server, shell

INDEX = "<html><head><title>x</title><script>a()</script><script type=module src=i.js></script></head></html>"


def call(mw, path: str, method: str = "GET", headers: dict[str, str] | None = None):
    """One request through ``mw``: (status, headers, body), or "passed" when it went on to
    the app behind it."""
    sent: list[dict] = []
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
    }

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        sent.append(message)

    step = mw(scope, receive, send)  # nothing in it waits: one step runs it to its end
    with pytest.raises(StopIteration):
        step.send(None)
    if sent == [{"passed": path}]:
        return "passed"
    start, body = sent
    return start["status"], dict(start["headers"]), body["body"]


def middleware(tmp_path: Path, base: str = "") -> server.PageAddress:
    async def app(scope, receive, send):
        await send({"passed": scope["path"]})

    index = tmp_path / "index.html"
    index.write_text(INDEX)
    return server.PageAddress(app, pages=["player", "stats"], index=index, base=base)


def test_the_script_comes_before_the_frontends_first_script():
    html = server.index_html(INDEX, ["player"])
    assert html.index("window.__streamlit") < html.index("<script>a()")
    assert html.count("<script") == INDEX.count("<script") + 1
    assert '["player"]' in html and "PAGES" not in html


def test_a_pages_address_gets_the_page_with_its_root_named(tmp_path):
    status, headers, body = call(middleware(tmp_path), "/stats")
    assert status == 200
    assert headers[b"content-type"] == b"text/html; charset=utf-8"
    assert headers[b"cache-control"] == b"no-cache"
    assert int(headers[b"content-length"]) == len(body)
    assert b"window.__streamlit" in body and b"<title>x</title>" in body


def test_a_returning_browser_gets_not_modified_and_a_head_no_body(tmp_path):
    mw = middleware(tmp_path)
    _, headers, _ = call(mw, "/player")
    etag = headers[b"etag"].decode()
    assert call(mw, "/player", headers={"If-None-Match": etag})[::2] == (304, b"")
    assert call(mw, "/player", headers={"If-None-Match": '"other"'})[0] == 200
    status, headers, body = call(mw, "/player", method="HEAD")
    assert (status, body) == (200, b"") and int(headers[b"content-length"]) > 0


@pytest.mark.parametrize(
    "path, method",
    [
        ("/", "GET"),  # the root page connects at once as it is
        ("/player/", "GET"),  # Streamlit redirects it
        ("/players/x", "GET"),
        ("/oauth2callback", "GET"),
        ("/favicon.png", "GET"),
        ("/_stcore", "GET"),
        ("/players", "POST"),
        ("/player/_stcore/health", "GET"),
        ("/static/js/index.js", "GET"),
        ("/_stcore/stream", "GET"),
        ("/player", "POST"),
    ],
)
def test_everything_else_goes_to_streamlit(tmp_path, path, method):
    assert call(middleware(tmp_path), path, method) == "passed"


def test_an_address_that_names_no_page_goes_to_the_root_which_says_so(tmp_path):
    """Before: Streamlit's English "Page not found" over the leaderboard, for a mistyped
    or old link on an Indonesian screen."""
    mw = middleware(tmp_path)
    status, headers, body = call(mw, "/statistik")
    assert (status, headers[b"location"], body) == (302, b"/?not_found=statistik", b"")
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    step = mw(
        {
            "type": "http",
            "method": "GET",
            "path": "/Pemain",
            "headers": [],
            "query_string": b"player=Ana+B",
        },
        receive,
        send,
    )
    with pytest.raises(StopIteration):
        step.send(None)
    assert dict(sent[0]["headers"])[b"location"] == b"/?not_found=Pemain&player=Ana+B"
    under = middleware(tmp_path, base="/domino/")
    assert call(under, "/domino/statistik")[1][b"location"] == b"/domino/?not_found=statistik"
    assert call(under, "/statistik") == "passed"  # not under the base: not ours


def test_the_root_says_once_that_the_address_named_no_page(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from dashboard import data
    from tests.browser.support import APP

    monkeypatch.setenv("DOMINO_DB", str(tmp_path / "none.duckdb"))
    data.clear()
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["not_found"] = "statistik"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (note,) = [w.value for w in at.warning]
    assert note.startswith(
        "Alamat “/statistik” tidak menunjuk halaman mana pun; yang ditampilkan: Klasemen langsung."
    )
    assert "/stats" in note and "/admin" not in note  # the pages this visitor has listed
    assert "not_found" not in at.query_params
    at.run()
    assert not at.warning


def test_under_a_base_path_only_its_pages_are_answered(tmp_path):
    mw = middleware(tmp_path, base="/domino/")
    assert call(mw, "/domino/player")[0] == 200
    assert call(mw, "/player") == "passed"


def test_the_middleware_knows_every_page_but_the_root():
    """Its list is the navigation's own (shell.PAGES): every page script but the
    leaderboard's, each under an address of its own."""
    scripts = {p.name for p in (shell.HERE / "page_scripts").glob("*.py")}
    assert scripts - {p[1] for p in shell.PAGES} == {"leaderboard.py"}
    assert len(set(shell.URL_PATHS)) == len(shell.PAGES)


@pytest.mark.parametrize(
    "address, root",
    [
        ("/player", "/"),
        ("/stats/", "/"),
        ("/domino/player", "/domino/"),
        ("/", None),
        ("/domino", None),
        ("/domino/players", None),
    ],
)
def test_the_script_names_the_root_from_the_address(address, root):
    """Run by the Node that Playwright carries: the root is the address without a page's
    name; at the root page, or any other address, the frontend is left to find it."""
    import playwright

    node = str(Path(playwright.__file__).parent / "driver" / "node")
    body = re.search(r"<script>(.*?)</script>", server.index_html(INDEX, ["player", "stats"]), re.S)
    assert body
    code = (
        f"var location = {{pathname: {json.dumps(address)}, origin: 'http://h:1'}}; var window = {{}};"
        + body.group(1)
        + "console.log(JSON.stringify(window.__streamlit || null));"
    )
    out = json.loads(subprocess.run([node, "-e", code], capture_output=True, text=True).stdout)
    assert out == (None if root is None else {"BACKEND_BASE_URL": "http://h:1" + root})
