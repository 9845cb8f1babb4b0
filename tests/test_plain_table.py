"""A plain table (``ui.table(static=True)``) is one HTML table: what it writes in each cell."""

from datetime import date, datetime

import polars as pl

from dashboard import i18n, ui
from tests.test_dashboard import _HtmlTables


def _read(body: str) -> _HtmlTables:
    parser = _HtmlTables()
    parser.feed(body)
    return parser


def test_cells_are_written_as_a_reader_reads_them():
    df = pl.DataFrame(
        {
            "player": ["<b>Eko</b> & *Budi*", None],
            "points": [12, None],
            "points_per_hand": [68.5, 0.1 + 0.2],
            "qualified": [True, False],
            "played_on": [date(2026, 3, 14), None],
            "drawn_at": [datetime(2026, 12, 3, 7, 1, 59, 123456), None],
        }
    )
    body = ui.plain_table(df, labels={"player": "Pemain"}, links=True, event="ev-1")
    (table,) = _read(body).tables
    assert table["head"][0] == "Pemain"
    # decimals with the page's decimal mark: a comma in Indonesian (the default)
    assert table["rows"] == [
        ["<b>Eko</b> & *Budi*", "12", "68,5", "✓", "2026-03-14", "2026-12-03 07:01"],
        ["", "", "0,3", "", "", ""],
    ]
    # escaped, not read as HTML; the name links to its page, with the event chosen there
    assert "<b>Eko" not in body and "&lt;b&gt;Eko&lt;/b&gt; &amp; *Budi*" in body
    assert _read(body).links == [ui.profile_url("<b>Eko</b> & *Budi*", "ev-1")]


def test_numbers_and_their_headers_are_aligned_right_and_columns_chosen_in_order():
    df = pl.DataFrame({"rank": [1, 2], "player": ["Ana", "Budi"], "note": ["x", "y"]})
    body = ui.plain_table(df, ["player", "rank", "missing"], labels={"rank": "#"})
    (table,) = _read(body).tables
    assert table["head"] == [i18n.column("player"), "#"]  # no "note", no "missing"
    assert table["rows"] == [["Ana", "1"], ["Budi", "2"]]
    assert '<th class="num">#</th>' in body and '<td class="num">1</td>' in body
    assert f"<th>{i18n.column('player')}</th>" in body  # a column of text: left


def test_a_column_of_fixed_decimals_writes_every_number_with_them():
    # ratings side by side: 7.7 above 5.89 reads as a different precision; 7.70 does not
    df = pl.DataFrame({"ordinal": [7.7, 5.891, -0.9, None, 3.0], "mu": [31.8, 30.0, 1.0, 2.0, 3.0]})
    (table,) = _read(ui.plain_table(df, decimals={"ordinal": 2})).tables
    assert [r[0] for r in table["rows"]] == ["7,70", "5,89", "-0,90", "", "3,00"]
    assert [r[1] for r in table["rows"]] == ["31,8", "30", "1", "2", "3"]  # as they are


def test_an_english_page_writes_decimals_with_a_point(monkeypatch):
    monkeypatch.setattr(i18n, "language", lambda: "en")
    df = pl.DataFrame({"ordinal": [7.7, -0.9], "mu": [31.8, 30.0], "label": ["R1.5", "2.0"]})
    (table,) = _read(ui.plain_table(df, decimals={"ordinal": 2})).tables
    assert table["rows"] == [["7.70", "31.8", "R1.5"], ["-0.90", "30", "2.0"]]
    monkeypatch.setattr(i18n, "language", lambda: "id")
    (table,) = _read(ui.plain_table(df, decimals={"ordinal": 2})).tables
    # a label is text: its dots stay, whatever the language
    assert table["rows"] == [["7,70", "31,8", "R1.5"], ["-0,90", "30", "2.0"]]
