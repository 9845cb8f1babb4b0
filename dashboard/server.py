"""The served app: Streamlit's own (``st.App``) with one middleware, :class:`PageAddress`.

Streamlit's frontend does not know where the server's root is. Opened at a page's address
(``/player``), it first asks ``/player/_stcore/health``, gets a 404, waits its minimum
retry period (100 ms), and only then connects at the root. The leaderboard, the root page,
connects at once. :class:`PageAddress` answers a page's address with Streamlit's own
``index.html`` plus one line of script that names the root (``window.__streamlit``, the
setting Streamlit's frontend reads for where its server is), so every page connects at once.
Measured on the 1M unhas database, this server and the one before served in turn (ten
visits each, median): the player page 2.13 → 2.03 s for a new visitor and 1.72 → 1.61 s
for a returning one; the statistics page 2.17 → 2.00 s and 1.69 → 1.54 s; the
leaderboard unchanged (docs/performance.md, 3 December, second session).

The root is worked out in the browser, from the page's own address with the page's name
taken off. So it is right behind a proxy that serves the dashboard under a path of its
own, with or without ``server.baseUrlPath``.
"""

import hashlib
import json
import re
import urllib.parse
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: the line put before the frontend's first script: when the address ends in a page's
#: name, the server's root is the address without it
ROOT_SCRIPT = """<script>
(function () {
  var parts = location.pathname.replace(/\\/+$/, "").split("/");
  if (PAGES.indexOf(parts[parts.length - 1]) >= 0) {
    parts.pop();
    window.__streamlit = {BACKEND_BASE_URL: location.origin + parts.join("/") + "/"};
  }
})();
</script>
"""


def index_html(static_index: str, pages: list[str]) -> str:
    """Streamlit's ``index.html`` with :data:`ROOT_SCRIPT` (knowing ``pages``) placed
    before its first script, which reads the setting when it loads."""
    script = ROOT_SCRIPT.replace("PAGES", json.dumps(pages))
    at = static_index.index("<script")
    return static_index[:at] + script + static_index[at:]


#: the query parameter that carries an address that names no page to the root page
NOT_FOUND_KEY = "not_found"
#: one path segment that could be a page's name (Streamlit's own routes have a dot, an
#: underscore first, or more than one segment)
_PAGE_LIKE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
#: single-segment routes of Streamlit's own that are not pages
_STREAMLIT_ROUTES = frozenset({"oauth2callback", "healthz", "static", "media", "component", "app"})


class PageAddress:
    """ASGI middleware: a ``GET`` or ``HEAD`` of a page's address (``/<url_path>`` under
    ``base``, by default Streamlit's ``server.baseUrlPath``) is answered with
    :func:`index_html` and Streamlit's headers for it: never cached without asking, an
    ``ETag`` so that a returning browser gets a 304. An address that looks like a page's
    but names none (a mistyped or old link, ``/statistik``) is sent to the root page with
    ``?not_found=statistik`` (its other parameters kept), which says so in the page's
    language, instead of Streamlit's English "Page not found". Everything else, the root
    page included, goes on to Streamlit as it came."""

    def __init__(
        self, app: ASGIApp, pages: list[str], index: Path, base: str | None = None
    ) -> None:
        if base is None:  # built when the server starts, its settings read
            from streamlit import config

            base = str(config.get_option("server.baseUrlPath") or "")
        self.app = app
        prefix = "/" + base.strip("/") if base.strip("/") else ""
        self.prefix = prefix
        self.pages = set(pages)
        self.paths = {f"{prefix}/{p}" for p in pages}
        self.body = index_html(index.read_text(encoding="utf-8"), pages).encode()
        self.etag = '"' + hashlib.sha256(self.body).hexdigest()[:32] + '"'

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        if scope["path"] not in self.paths:
            missing = self.missing_page(scope["path"])
            if missing is None:
                await self.app(scope, receive, send)
                return
            query = urllib.parse.urlencode({NOT_FOUND_KEY: missing})
            rest = (scope.get("query_string") or b"").decode("latin-1")
            where = f"{self.prefix}/?{query}" + (f"&{rest}" if rest else "")
            await send(
                {
                    "type": "http.response.start",
                    "status": 302,
                    "headers": [(b"location", where.encode("latin-1")), (b"content-length", b"0")],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        headers = dict(scope.get("headers") or [])
        fresh = headers.get(b"if-none-match", b"").decode("latin-1") == self.etag
        out = [
            (b"content-type", b"text/html; charset=utf-8"),
            (b"cache-control", b"no-cache"),
            (b"etag", self.etag.encode()),
        ]
        body = b"" if fresh or scope["method"] == "HEAD" else self.body
        if not fresh:
            out.append((b"content-length", str(len(self.body)).encode()))
        await send({"type": "http.response.start", "status": 304 if fresh else 200, "headers": out})
        await send({"type": "http.response.body", "body": body})

    def missing_page(self, path: str) -> str | None:
        """The name in ``path`` when it is one segment under the base that could be a page's
        but is none of them (nor one of Streamlit's own routes); else None."""
        if not path.startswith(self.prefix + "/"):
            return None
        name = path[len(self.prefix) + 1 :]
        if (
            not _PAGE_LIKE.fullmatch(name)
            or name in self.pages
            or name.lower() in _STREAMLIT_ROUTES
        ):
            return None
        return name


def middleware() -> list[Any]:
    """The served app's middleware: :class:`PageAddress` for every page of the navigation,
    on Streamlit's own ``index.html``."""
    from starlette.middleware import Middleware
    from streamlit import file_util

    from dashboard.shell import URL_PATHS

    index = Path(file_util.get_static_dir()) / "index.html"
    return [Middleware(PageAddress, pages=URL_PATHS, index=index)]
