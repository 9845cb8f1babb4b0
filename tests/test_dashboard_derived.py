"""What the dashboard makes from a cached batch value is made once per value and
language (``data.derived``), and the leaderboard's table cards are one element of HTML
whose rows carry their zone's class."""

import polars as pl

from dashboard import data
from dashboard.views.leaderboard import cards_html


def test_derived_is_built_once_per_value_and_extra():
    data.clear()
    calls: list[str] = []
    value = {"rows": pl.DataFrame({"a": [1, 2]})}

    def build(tag: str):
        def make():
            calls.append(tag)
            return f"figure-{tag}"

        return make

    assert data.derived(value, "chart", build("id"), "id") == "figure-id"
    assert data.derived(value, "chart", build("id"), "id") == "figure-id"
    assert calls == ["id"], "a second session reuses the first one's figure"
    assert data.derived(value, "chart", build("en"), "en") == "figure-en"
    assert calls == ["id", "en"], "another language is another figure"
    newer = {"rows": pl.DataFrame({"a": [1, 2, 3]})}  # what a new stamp reads
    data.derived(newer, "chart", build("new"), "id")
    assert calls == ["id", "en", "new"], "a new data value is never served the old figure"
    data.clear()
    data.derived(value, "chart", build("after-clear"), "id")
    assert calls[-1] == "after-clear"


def _round(players: list[str], table: str, **cols) -> pl.DataFrame:
    n = len(players)
    base = {
        "table": [table] * n,
        "rank": list(range(1, n + 1)),
        "player": players,
        "points": [9 - 3 * i for i in range(n)],
        "tiebreak_points": [None] * n,
        "qualified": [False] * n,
        "needs_tiebreak": [False] * n,
        "complete": [True] * n,
        "walkover": [False] * n,
        "match_hands": [10] * n,
        "hands": [10] * n,
        "wins": [3] * n,
    }
    return pl.DataFrame({**base, **cols})


def test_the_cards_class_rows_by_their_mark_and_keep_names_inert():
    hostile = "<img src=x onerror=alert(1)>"
    tables = pl.concat(
        [
            _round([hostile, "Budi", "Citra", "Dedi"], "1", qualified=[True, True, False, False]),
            # a complete match tied for second: a tie-break hand is needed
            _round(
                ["Eka", "Fajar", "Gita", "Hadi"], "2", needs_tiebreak=[False, True, True, False]
            ),
            # a match in progress tied for first: a tie, not painted
            _round(
                ["Ika", "Joko", "Kiki", "Lina"], "3", needs_tiebreak=[True, True, False, False]
            ).with_columns(complete=pl.lit(value=False), match_hands=pl.lit(4, dtype=pl.Int64)),
        ]
    )
    d = {"ruleset": "unhas", "qualifiers": 2, "event": "e&1", "tables": tables, "regular_hands": 10}
    out = cards_html(d, qualification=True)
    assert out.count('class="table-card"') == 3
    assert "<img" not in out and "&lt;img src=x onerror=alert(1)&gt;" in out
    rows = out.split("<tbody>")
    card1, card2, card3 = (r.split("</tbody>")[0] for r in rows[1:])
    assert card1.count('<tr class="zone">') == 2 and card1.count("<tr>") == 2
    assert card2.count('<tr class="tie">') == 2 and card2.count('<tr class="zone">') == 1
    assert "class=" not in card3.replace('class="num"', ""), "a tie while playing is not painted"
    # the name links to its page, the event's & escaped in the address
    assert '<a href="player?player=Budi&amp;event=e%261" target="_self">Budi</a>' in card1
    assert '<td class="num">9</td>' in card1
    captions = [c.split("</p>")[0] for c in out.split('<p class="table-card-caption">')[1:]]
    assert [c.split(" ")[0] for c in captions] == ["10/10", "10/10", "4/10"]
