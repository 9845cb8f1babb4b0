"""The leaderboard's zone colours in Chromium: each table card's rows are painted by their
mark (green: qualified or in the zone; yellow: a tie-break hand is needed) through the
class of its row in the cards' HTML, not a pandas Styler per card."""

import pytest

from dashboard.views.leaderboard import ZONE_PAINT, mark_class
from tests.browser.support import UNHAS, build_samples, dashboard

pytestmark = pytest.mark.browser

ROWS = """() => [...document.querySelectorAll('.table-card')].map(card =>
  [...card.querySelectorAll('tbody tr')].map(tr => {
    const cells = [...tr.querySelectorAll('td')];
    return [cells[cells.length - 1].innerText.trim(), getComputedStyle(cells[0]).backgroundColor];
  }))"""


def _rgb(paint: str) -> str:
    """``rgba(46, 160, 67, 0.18)`` as Chromium reports a computed colour."""
    return paint.replace(" ", "").replace(",", ", ")


def test_every_row_is_painted_by_its_mark(tmp_path, new_page):
    db = tmp_path / "samples.duckdb"
    build_samples(db, only="unhas")
    with dashboard(db, tmp_path) as srv:
        page = new_page()
        page.goto(f"{srv.url}/?event={UNHAS}")
        page.locator(".table-card tbody tr").first.wait_for()
        page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for()
        cards = page.evaluate(ROWS)
    rows = [row for card in cards for row in card]
    assert rows, "no table card on the leaderboard"
    painted = 0
    for mark, colour in rows:
        kind = mark_class(mark)
        if kind:
            painted += 1
            assert colour == _rgb(ZONE_PAINT[kind]), (mark, colour)
        else:
            assert colour in ("rgba(0, 0, 0, 0)", "transparent"), (mark, colour)
    assert painted, "no row in the zone: the sample should have qualifiers"
