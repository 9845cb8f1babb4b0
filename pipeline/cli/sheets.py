"""``domino sheets``: the pre-filled hand logs and the printable record of a drawn round."""

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
    """Write a pre-filled .xlsx and .csv hand log for every table of the round's draw, and
    one printable .pdf for the round (a page per table)."""
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
        f"wrote {tables} table sheet(s) (.xlsx and .csv) and {paths[-1].name} to {out_dir}",
        highlight=False,
        markup=False,
    )
