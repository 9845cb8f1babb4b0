"""``domino sheets``: the pre-filled hand logs and the printable record of a drawn round;
``domino results``: a round's results for the notice board."""

import sys

import click

from pipeline.cli.common import db_option, err, out, reader


@click.command()
@click.option("--event", required=True, help="Event id.")
@click.option("--round", "round_", required=True, help="The drawn round (or session).")
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Folder for the files (created if needed).",
)
@db_option
def sheets(event, round_, out_dir, db) -> None:
    """Write a pre-filled .xlsx and .csv hand log for every table of the round's draw, one
    printable .pdf for the round (a page per table) and its seating list (.pdf, by name)."""
    from rich.markup import escape

    from pipeline.sheets import NoDraw, write_sheets

    try:
        with reader(db) as con:
            paths = write_sheets(con, event, round_, out_dir)
    except NoDraw as exc:
        err.print(f"[red]Error:[/] {escape(str(exc))}", highlight=False)
        sys.exit(1)
    except OSError as exc:
        err.print(
            f"[red]Error:[/] cannot write to {escape(str(out_dir))} ({exc.strerror}); "
            "choose another folder with --out",
            highlight=False,
        )
        sys.exit(1)
    tables = sum(1 for p in paths if p.suffix == ".xlsx")
    out.print(
        f"wrote {tables} table sheet(s) (.xlsx and .csv), {paths[-2].name} (a page per "
        f"table) and {paths[-1].name} (who sits where) to {out_dir}",
        highlight=False,
        markup=False,
    )


@click.command()
@click.option("--event", required=True, help="Event id.")
@click.option("--round", "round_", required=True, help="A round (or session) with results.")
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Folder for the PDF (created if needed).",
)
@db_option
def results(event, round_, out_dir, db) -> None:
    """Write the round's results for the notice board as one printable .pdf: every table,
    places, points, who goes through to which table (provisional while a table is open)."""
    from pathlib import Path

    from rich.markup import escape

    from pipeline.sheets import file_stem
    from pipeline.sheets.results import NoResults, results_pdf, round_results

    try:
        with reader(db) as con:
            data = round_results(con, event, round_)
        folder = Path(out_dir)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{file_stem(event, round_, 'hasil')}.pdf"
        path.write_bytes(results_pdf(data))
    except NoResults as exc:
        err.print(f"[red]Error:[/] {escape(str(exc))}", highlight=False)
        sys.exit(1)
    except OSError as exc:
        err.print(
            f"[red]Error:[/] cannot write to {escape(str(out_dir))} ({exc.strerror}); "
            "choose another folder with --out",
            highlight=False,
        )
        sys.exit(1)
    note = (
        ""
        if not data.open_tables
        else f" (provisional: table {', '.join(data.open_tables)} not finished)"
    )
    out.print(f"wrote {path.name} to {out_dir}{note}", highlight=False, markup=False)
