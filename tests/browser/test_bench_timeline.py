"""The timeline probe (``bench/timeline.py``) runs in the suite once on the sample events,
so it cannot rot: it still sees the WebSocket, each kind of element and the scripts of a
chart page and of the leaderboard. Nothing here is timed."""

import pytest

from bench.browser import serve
from bench.timeline import timelines
from tests.browser.support import UNHAS, build_samples

pytestmark = pytest.mark.browser


def test_the_timeline_sees_the_socket_the_elements_and_the_scripts(tmp_path, browser):
    db = tmp_path / "samples.duckdb"
    build_samples(db, only="unhas")
    with serve(db, tmp_path / "serve.log") as url:
        res = timelines(url, ["/player", f"/?event={UNHAS}"], 1, browser)
    for visitor in ("new", "returning"):
        player = res["/player"][visitor]
        assert 0 < player["ws_open"] <= player["first_msg"] <= player["last_msg"], player
        assert player["messages"] >= 10 and player["bytes"] > 0, player
        for kind in ("title", "picker", "metric", "tabs", "chart"):
            assert player[kind] > 0, (kind, player)
        board = res[f"/?event={UNHAS}"][visitor]
        assert board["card"] > 0 and "chart" not in board, board
        assert player["chart_drawn"] >= player["chart"], player
    # a new visitor fetches its components' scripts (names without the address), and no
    # chart library: the charts come drawn from the server
    new = [name for name, start, end in res["/player"]["new"]["scripts"]]
    assert new and all("/" not in n for n in new), new
    # (the metric's 1 KB loader, loadVegaEmbed, comes with every page that has one)
    charting = ("ArrowVegaLiteChart", "vega-", "PlotlyChart")
    assert not [n for n in new if n.startswith(charting)], new
