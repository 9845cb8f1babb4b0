"""A round's results for the notice board (``domino results``, the Organiser page): one
portrait A4 PDF.

At a venue the results of a round are printed and pinned up before the next one starts:
every table of the round in table order, each player's place at the table, points,
tie-break points where a tie-break hand was played, and what the result means — through
to the next round (and the table drawn there), out, a place at the final table, or still
playing; a league's session adds the league standings after it, and its groups' (KG).
A round whose tables are not all finished is printed as provisional, naming the tables
still open.

Read side only: the rows are the road to the final's
(:func:`pipeline.standings.bracket.road`), the standings after the session
:func:`pipeline.standings.bracket.event_after` and ``groups_after``. Words are Indonesian
with the English beneath, as on the pre-filled sheets.
"""

from dataclasses import dataclass
from datetime import datetime

import duckdb
import polars as pl

from pipeline import events, rulesets
from pipeline import league as league_of
from pipeline.sheets import layout
from pipeline.sheets.printable import Page, find_font
from pipeline.standings import bracket, queries

#: What a result means, by the road's ``outcome`` (Indonesian / English).
OUTCOME = {
    "advanced": "lolos / through",
    "qualified": "lolos / through",
    "eliminated": "gugur / out",
    "playing": "masih main / playing",
    "drawn": "belum main / not played",
    "moved": "lanjut / next",
    "played": "selesai / played",
}
#: The league standings printed after a session: at most this many places.
LEAGUE_ROWS = 40
#: (column, header, width in mm) of a list; a width of 0 takes what the others leave.
Columns = list[tuple[str, str, float]]


class NoResults(LookupError):
    """The event or round has nothing to print: ``str()`` is one sentence."""


@dataclass(frozen=True)
class RoundResults:
    """One round's results: ``tables`` holds the road's rows of the round (``table, rank,
    player, points, tiebreak_points, outcome, next_round, next_table, complete,
    needs_tiebreak``) in table and rank order; ``league`` the league standings after it
    (a rulebook without qualification), else None; ``groups`` its groups' (KG) standings
    after it."""

    info: events.EventInfo
    ruleset: rulesets.Ruleset
    round: str
    final: bool
    tables: pl.DataFrame
    league: pl.DataFrame | None
    groups: pl.DataFrame | None = None
    tables_in: tuple[int, int] | None = None  # a session's (loaded, expected) tables

    @property
    def texts(self) -> list[str | None]:
        """What the notice writes that a user typed: the event's title and venue, the
        players and the groups (for :func:`pipeline.sheets.printable.unwritable`)."""
        names = [
            frame.get_column(c).cast(pl.String)
            for frame in (self.tables, self.league, self.groups)
            if frame is not None
            for c in ("player", "group")
            if c in frame.columns
        ]
        seen = pl.concat(names).drop_nulls().unique(maintain_order=True).to_list() if names else []
        return [self.info.shown, self.info.venue, *seen]

    @property
    def open_tables(self) -> list[str]:
        """Tables of the round not finished: hands still to come, or a tie-break owed."""
        done = pl.col("complete").fill_null(value=False)
        owed = pl.col("needs_tiebreak").fill_null(value=False)
        open_ = self.tables.filter(~done | owed)
        return open_.get_column("table").unique(maintain_order=True).to_list()


def round_results(con: duckdb.DuckDBPyConnection, event: str, round_: str) -> RoundResults:
    """The results of ``round_`` of ``event``; :class:`NoResults` when there are none yet."""
    info = events.get(con, event)
    if info is None:
        raise NoResults(f"there is no event {event!r}; `domino event list` shows the events")
    played = queries.rounds(con, event)
    if round_ not in played:
        shown = ", ".join(played) if played else "none yet"
        raise NoResults(  # its rounds: drawn or with results (the `rounds` view)
            f"round {round_!r} of event {event!r} is neither drawn nor played yet (its "
            f"rounds: {shown}); draw it with domino draw, or load its sheets with domino ingest"
        )
    book = rulesets.load(info.ruleset)
    final = bracket.final_round(con, event)
    rows = bracket.road(con, event, final=final).filter(pl.col("round") == round_)
    star = pl.lit(value=False)
    if book.shows("sessions"):  # a session's best earn a star (pepet rule 19)
        stars = queries.standings(con, event, "round", round_).filter(pl.col("star"))
        star = pl.col("player").is_in(stars.get_column("player").implode())
    rows = rows.with_columns(star.alias("star"))
    if info.ruleset in rulesets.with_groups():  # whom a reserve played for (rule 23)
        subs = league_of.substitutes(con, event).filter(pl.col("round") == round_)
        rows = rows.join(
            subs.select("table", "player_key", pl.col("replaces").alias("reserve_for")),
            on=["table", "player_key"],
            how="left",
        )
    league = groups = None
    if not book.shows("qualification"):
        after = bracket.event_after(con, event, round_)
        league = after.sort("rank", "player").head(LEAGUE_ROWS)
        groups = bracket.groups_after(con, event, round_).sort("rank", "group")
    return RoundResults(
        info=info,
        ruleset=book,
        round=round_,
        final=final == round_,
        tables=rows,
        league=league,
        groups=groups,
        tables_in=queries.tables_in(con, event, round_),
    )


def meaning(row: dict[str, object]) -> str:
    """What one player's result means: ``lolos / through → R2 meja 3``, ``gugur / out``,
    ``Peringkat 1 / place 1`` at the final table …"""
    if row["outcome"] == "placed":
        return f"Peringkat {row['rank']} / place {row['rank']}"
    text = OUTCOME.get(str(row["outcome"]), str(row["outcome"]))
    if row.get("walkover"):
        text = text.replace(" / ", " (WO) / ", 1) + " (walkover)"
    if row.get("next_table") is not None:
        text += f" → {row['next_round']} meja {row['next_table']}"
    if row.get("reserve_for"):  # a reserve's session is their only one: "played" goes
        reserve = f"cadangan untuk {row['reserve_for']} (reserve)"
        text = reserve if row["outcome"] == "played" else f"{reserve} · {text}"
    if row.get("star"):
        text = "★ bintang / star · " + text
    return text


def results_pdf(res: RoundResults, *, printed: datetime | None = None) -> bytes:
    """The notice: a block per table (kept on one page), then a league's standings."""
    pdf = Page(find_font(), orientation="P")
    pdf.set_auto_page_break(auto=True, margin=12)
    word = layout.round_words(res.ruleset)
    title = f"{res.info.shown} — {'Final' if res.final else word[0]} {res.round}"
    pdf.set_title(pdf.text_of(title))
    pdf.set_creator("domino results")
    pdf.add_page()
    _heading(pdf, res, word, printed or datetime.now().astimezone())
    tiebreak = False
    for label in res.tables.get_column("table").unique(maintain_order=True).to_list():
        rows = res.tables.filter(pl.col("table") == label)
        tiebreak |= _table(pdf, rows, str(label))
    if tiebreak:
        _small(pdf, "TB: poin kocokan penentu / tie-break hand points (break a tie on points).")
    if res.league is not None and res.league.height:
        _league(pdf, res, word)
    font_note = pdf.font_note()
    if font_note:
        _small(pdf, font_note)
    return bytes(pdf.output())


def _heading(pdf: Page, res: RoundResults, word: tuple[str, str], printed: datetime) -> None:
    pdf.style(16, bold=True)
    pdf.multi_cell(0, 8, pdf.text_of(res.info.shown), new_x="LMARGIN", new_y="NEXT")
    pdf.style(12, bold=True)
    what = f"Hasil {word[0]} {res.round} / results of {word[1]} {res.round}"
    if res.final:  # "Hasil final (R3)", or "Hasil final" when the round is called so
        named = "" if "final" in res.round.lower() else f" ({res.round})"
        what = f"Hasil final{named} / results of the final"
    pdf.cell(0, 7, pdf.text_of(what), new_x="LMARGIN", new_y="NEXT")
    pdf.style(9)
    info = res.info
    bits = [
        f"Tanggal: {info.event_date.isoformat()}" if info.event_date else "",
        f"Tempat: {info.venue}" if info.venue else "",
        f"Tingkat: {info.level}" if info.level else "",
        f"Dicetak / printed: {printed:%Y-%m-%d %H:%M %Z}".rstrip(),
    ]
    pdf.multi_cell(
        0, 5, pdf.text_of("  ·  ".join(b for b in bits if b)), new_x="LMARGIN", new_y="NEXT"
    )
    open_tables = res.open_tables
    done, total = res.tables_in or (0, 0)
    if open_tables or done < total:
        # a session not drawn and missing tables has none to name: its count says it
        said = (
            f"belum selesai / not finished: meja {', '.join(open_tables)}"
            if open_tables
            else f"{done} dari {total} meja masuk / {done} of {total} tables in"
        )
        pdf.style(10, bold=True)
        pdf.set_text_color(170, 0, 0)
        pdf.multi_cell(
            0,
            6,
            pdf.text_of(f"SEMENTARA / PROVISIONAL — {said}"),
            new_x="LMARGIN",
            new_y="NEXT",
        )
        pdf.set_text_color(0, 0, 0)
    pdf.ln(2)


def _widths(cols: Columns) -> Columns:
    """``cols`` across 190 mm (a portrait A4 within its margins): the column of width 0
    takes the rest."""
    rest = 190 - sum(w for _, _, w in cols)
    return [(c, head, w or rest) for c, head, w in cols]


def _columns(*, tiebreak: bool) -> Columns:
    """A table's block: the result's meaning takes the rest of the line."""
    cols: Columns = [("rank", "No.", 12), ("player", "Pemain / player", 78), ("points", "Poin", 18)]
    if tiebreak:
        cols.append(("tiebreak_points", "TB", 14))
    return _widths([*cols, ("meaning", "Keterangan / result", 0)])


def _table(pdf: Page, rows: pl.DataFrame, label: str) -> bool:
    """One table's block; whether it shows tie-break points (only a table that played a
    tie-break hand does)."""
    tiebreak = bracket.played_tiebreak(rows)
    cols = _columns(tiebreak=tiebreak)
    pdf.row_h = 7.0
    if pdf.will_page_break(9 + pdf.row_h * (rows.height + 1) + 4):
        pdf.add_page()
    pdf.style(11, bold=True)
    pdf.cell(0, 9, pdf.text_of(f"Meja {label} / table {label}"), new_x="LMARGIN", new_y="NEXT")
    _header(pdf, cols)
    for row in rows.iter_rows(named=True):
        for c, _, w in cols:
            if c == "meaning":
                pdf.box(w, meaning(row), align="L")
            elif c == "player":
                pdf.box(w, str(row["player"]), align="L", bold=row["rank"] == 1)
            else:
                value = row[c]
                pdf.box(w, "" if value is None else str(value))
        pdf.ln(pdf.row_h)
    pdf.ln(4)
    return tiebreak


def _league(pdf: Page, res: RoundResults, word: tuple[str, str]) -> None:
    """The league standings after the session, then its groups' (KG) where it has any."""
    after = f"setelah {word[0]} {res.round} / standings after {word[1]} {res.round}"
    assert res.league is not None
    league = res.league
    cols: Columns = [("rank", "No.", 12), ("player", "Pemain / player", 0), ("points", "Poin", 20)]
    if "stars" in league.columns:
        cols.append(("stars", "Bintang / stars", 30))
    if "hands" in league.columns:
        cols.append(("hands", "Kocokan / hands", 30))
    _ranking(pdf, f"Klasemen {after}", league, cols)
    if res.groups is not None and res.groups.height:
        cols = [
            ("rank", "No.", 12),
            ("group", "KG / group", 0),
            ("points", "Poin", 20),
            ("players", "Pemain / players", 30),
            ("hands", "Kocokan / hands", 30),
        ]
        _ranking(pdf, f"Klasemen KG {after}", res.groups, cols)


def _ranking(pdf: Page, heading: str, rows: pl.DataFrame, cols: Columns) -> None:
    """A ranked list under ``heading`` (its names in the column of width 0), continued on
    the next page with its headings."""
    cols = _widths(cols)
    pdf.row_h = 6.5
    if pdf.will_page_break(9 + pdf.row_h * min(rows.height + 1, 6)):
        pdf.add_page()
    pdf.style(11, bold=True)
    pdf.cell(0, 9, pdf.text_of(heading), new_x="LMARGIN", new_y="NEXT")
    _header(pdf, cols)
    for row in rows.iter_rows(named=True):
        if pdf.will_page_break(pdf.row_h):
            pdf.add_page()
            _header(pdf, cols)  # a continued list keeps its headings
        for c, _, w in cols:
            value = row.get(c)
            named = c in ("player", "group")
            pdf.box(w, "" if value is None else str(value), align="L" if named else "C")
        pdf.ln(pdf.row_h)
    pdf.ln(3)


def _header(pdf: Page, cols: Columns) -> None:
    for c, head, w in cols:
        named = c in ("player", "group", "meaning")
        pdf.box(w, head, size=8.5, bold=True, align="L" if named else "C")
    pdf.ln(pdf.row_h)


def _small(pdf: Page, text: str) -> None:
    pdf.style(8)
    pdf.multi_cell(0, 5, pdf.text_of(text), new_x="LMARGIN", new_y="NEXT")
