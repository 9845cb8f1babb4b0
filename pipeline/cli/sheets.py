"""``domino sheets``: the pre-filled hand logs and the printable record of a drawn round;
``domino results``: a round's results for the notice board."""

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click

from pipeline.cli.common import db_option, err, note, out, reader


def _round_options(round_help: str, out_help: str) -> Callable[[Any], Any]:
    """``--event``, ``--round``, ``--out`` (a folder) and ``--db``."""

    def wrap(f: Any) -> Any:
        f = db_option(f)
        f = click.option(
            "--out",
            "out_dir",
            required=True,
            type=click.Path(file_okay=False),
            help=out_help,
        )(f)
        f = click.option("--round", "round_", required=True, help=round_help)(f)
        return click.option("--event", required=True, help="Event id.")(f)

    return wrap


@contextlib.contextmanager
def _refused(out_dir: str, refusal: type[Exception]) -> Iterator[None]:
    """``refusal`` (nothing to write) and a folder that cannot be written: one sentence on
    stderr, exit 1."""
    from rich.markup import escape

    try:
        yield
    except refusal as exc:
        err.print(f"[red]Error:[/] {escape(str(exc))}", highlight=False)
        sys.exit(1)
    except OSError as exc:
        err.print(
            f"[red]Error:[/] cannot write to {escape(str(out_dir))} ({exc.strerror}); "
            "choose another folder with --out",
            highlight=False,
        )
        sys.exit(1)


@click.command()
@_round_options("The drawn round (or session).", "Folder for the files (created if needed).")
def sheets(event, round_, out_dir, db) -> None:
    """Write a pre-filled .xlsx and .csv hand log for every table of the round's draw, one
    printable .pdf for the round (a page per table) and its seating list (.pdf, by name)."""
    from pipeline.sheets import NoDraw, drawn_round, write_sheets

    with _refused(out_dir, NoDraw), reader(db) as con:
        paths = write_sheets(con, event, round_, out_dir)
        drawn = drawn_round(con, event, round_)
    tables = sum(1 for p in paths if p.suffix == ".xlsx")
    out.print(
        f"wrote {tables} table sheet(s) (.xlsx and .csv), {paths[-2].name} (a page per "
        f"table) and {paths[-1].name} (who sits where) to {out_dir}",
        highlight=False,
        markup=False,
    )
    _lost_letters(drawn.texts, "the .xlsx and .csv sheets")


def _lost_letters(texts: list[str | None], whole: str) -> None:
    """A note naming what the PDFs wrote with letters lost (no font here has them)."""
    from pipeline.sheets.printable import find_font, unwritable

    lost = unwritable(texts)
    if not lost:
        return
    shown = ", ".join(lost[:5]) + (f" and {len(lost) - 5} more" if len(lost) > 5 else "")
    remedy = (
        "install a font that has them (fonts-noto-cjk for Chinese, Japanese, Korean)"
        if find_font() is not None
        else "install a Unicode font (fonts-dejavu-core)"
    )
    note(
        f"the PDFs write {shown} with letters no font on this machine has (as ?); {whole} "
        f"hold them as they are; {remedy} and write them again"
    )


@click.command()
@_round_options("A round (or session) with results.", "Folder for the PDF (created if needed).")
def results(event, round_, out_dir, db) -> None:
    """Write the round's results for the notice board as one printable .pdf: every table,
    places, points, who goes through to which table (provisional while a table is open)."""
    from pathlib import Path

    from pipeline.sheets import file_stem
    from pipeline.sheets.results import NoResults, results_pdf, round_results

    with _refused(out_dir, NoResults):
        with reader(db) as con:
            data = round_results(con, event, round_)
        folder = Path(out_dir)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{file_stem(event, round_, 'hasil')}.pdf"
        path.write_bytes(results_pdf(data))
    opened = ", ".join(data.open_tables)
    provisional = f" (provisional: table {opened} not finished)" if opened else ""
    out.print(f"wrote {path.name} to {out_dir}{provisional}", highlight=False, markup=False)
    _lost_letters(data.texts, "the dashboard and `domino standings`")
