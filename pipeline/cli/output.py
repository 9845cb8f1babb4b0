"""How results are printed: a table readable at 80 columns, CSV or JSON; an ingest report.

A terminal table of plain rows (:class:`pipeline.standings.queries.Rows`) is printed
without importing polars, so that ``domino standings`` starts quickly.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rich import box
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from pipeline.cli.common import out

if TYPE_CHECKING:
    import polars as pl

    from pipeline.standings.queries import Rows


def emit(df: pl.DataFrame | Rows, fmt: str, title: str | None = None) -> None:
    """Print a frame as a terminal table, CSV (header row, contract columns first) or JSON."""
    from pipeline.standings.queries import Rows

    if isinstance(df, Rows) and fmt == "table":
        _table(df.columns, df.numeric, df.rows, title)
    else:
        _emit_frame(df.to_polars() if isinstance(df, Rows) else df, fmt, title)


def _emit_frame(df: pl.DataFrame, fmt: str, title: str | None) -> None:
    from pipeline.standings import exports

    if fmt == "csv":
        # a spreadsheet opens CSV: text that would start a formula gets a leading ', as in
        # the dashboard's downloads (JSON is data for programs and stays exactly as stored)
        df = exports.neutralise(df)
        buf = io.StringIO()
        df.write_csv(buf)
        sys.stdout.write(buf.getvalue())
    elif fmt == "json":
        sys.stdout.write(json_text(df.to_dicts()))
    else:
        numeric = [df[c].dtype.is_numeric() for c in df.columns]
        _table(df.columns, numeric, df.rows(), title)


def _table(
    columns: list[str], numeric: list[bool], rows: Sequence[tuple[Any, ...]], title: str | None
) -> None:
    """Readable at 80 columns: headers never cut, long cells wrap, timestamps to the second."""
    # a column holding one value for every row (the event) is said in the title instead
    keep = [
        i
        for i, c in enumerate(columns)
        if not (c == "event" and rows and len({r[i] for r in rows}) == 1)
    ]
    if len(keep) < len(columns):
        columns = [columns[i] for i in keep]
        numeric = [numeric[i] for i in keep]
        rows = [tuple(r[i] for i in keep) for r in rows]
    t = Table(
        title=title, show_lines=False, header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False
    )
    for c, num in zip(columns, numeric, strict=True):
        t.add_column(Text(c), justify="right" if num else "left", no_wrap=True)
    cells = [[_cell(v) for v in row] for row in rows]
    for row in cells:
        t.add_row(*[Text(v) for v in row])
    with out.capture() as shown:
        # the width rich itself needs, padding and the spaces between columns included
        natural = Measurement.get(out.real(), out.options.update_width(10**6), t).maximum
        if natural <= out.width:
            out.print(t)
        else:
            _records(columns, cells, title)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in shown.get().splitlines()))


def _records(columns: list[str], cells: list[list[str]], title: str | None) -> None:
    """A table too wide for the terminal, one row at a time (``column  value`` lines),
    so nothing is cut and every header stays whole (as psql's expanded display)."""
    if title:
        out.print(Text(title, style="bold"))
    width = max((len(c) for c in columns), default=0)
    for i, row in enumerate(cells, start=1):
        out.print(Text(f"-- {i} --", style="dim"))
        for c, v in zip(columns, row, strict=True):
            out.print(Text(f"{c.ljust(width)}  {v}", overflow="fold"), soft_wrap=False)


def _cell(v: object) -> str:
    if v is None or v is False:
        return ""
    if v is True:
        return "✓"
    if isinstance(v, datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S")
    return str(v)


_json = json.JSONEncoder(default=str, ensure_ascii=False).encode


def json_text(doc: list[Any] | dict[str, Any]) -> str:
    """``doc`` (a list of rows, or an object of values and lists of rows) as JSON text,
    each row on a line of its own. Each row is written by the json module's C encoder:
    its pretty printer (``indent``) is pure Python and took 5 s for the report of a
    100,000-match load."""

    def rows(items: list[Any], pad: str) -> str:
        if not items:
            return "[]"
        return "[\n" + ",\n".join(pad + " " + _json(x) for x in items) + "\n" + pad + "]"

    if isinstance(doc, list):
        return rows(doc, "") + "\n"
    fields = [
        f" {_json(k)}: {rows(v, ' ') if isinstance(v, list) else _json(v)}" for k, v in doc.items()
    ]
    return "{\n" + ",\n".join(fields) + "\n}\n"


#: Each match's line of a load's report, by its status; a dry run says what would happen.
MARKS = {
    "new": "[green]loaded[/]",
    "update": "[green]updated[/]",
    "correction": "[magenta]corrected[/]",
    "unchanged": "[dim]unchanged[/]",
    "rejected": "[red]rejected[/]",
    "withdrawn": "[yellow]withdrawn[/]",
}
DRY_RUN_MARKS = {
    **MARKS,
    "new": "[green]would load[/]",
    "update": "[green]would update[/]",
    "correction": "[magenta]would correct[/]",
}


def _file_json(f: dict[str, object]) -> dict[str, object]:
    """A file of a load as ``--format json`` lists it: name, digest, rows and why it was
    refused (what else is said of it is among the problems)."""
    error = f.get("error")
    return {
        "file": f.get("file"),
        "sha256": f.get("sha256"),
        "rows": f.get("rows"),
        "error": str(getattr(error, "message", error)) if error else None,
    }


def report(p, fmt: str, *, dry_run: bool = False) -> None:
    from pipeline import problems as problems_mod

    rows = [
        {
            "file": o.file,
            "event": o.event,
            "round": o.round,
            "table": o.table,
            "status": o.status,
            "version": o.version,
            "hands": o.hands,
            "message": o.message,
        }
        for o in p.outcomes
    ]
    if fmt == "json":
        sys.stdout.write(
            json_text(
                {
                    "ingest_id": p.ingest_id,
                    "dry_run": dry_run,
                    "files": [_file_json(f) for f in p.files],
                    "matches": rows,
                    "problems": p.problems.to_dicts(),
                }
            )
        )
        return
    if fmt == "csv":
        emit(p.problems, "csv")
        return
    for pr in p.problems.head(500).to_dicts():
        color = "red" if pr["severity"] == "error" else "yellow"
        out.print(
            f"[{color}]{pr['severity']}[/] {escape(problems_mod.describe(pr))}", highlight=False
        )
    shown = (
        rows if len(rows) <= 40 else [r for r in rows if r["status"] in ("rejected", "correction")]
    )
    if len(shown) < len(rows):
        out.print(
            f"({len(rows) - len(shown)} matches loaded or unchanged without remarks are not listed; --format json lists all)",
            highlight=False,
        )
    marks = DRY_RUN_MARKS if dry_run else MARKS
    for r in shown[:200]:
        mark = marks[r["status"]]
        extra = f" — {r['message']}" if r["message"] else ""
        v = f" v{r['version']}" if r["version"] else ""
        rows_text = "1 row" if r["hands"] == 1 else f"{r['hands']} rows"
        source = "" if r["status"] == "withdrawn" else f" ({rows_text}, {r['file']})"
        what = f"{r['event']} {r['round']} table {r['table']}{v}{source}{extra}"
        out.print(f"{mark} {escape(what)}", highlight=False)
    if p.problems.height > 500:
        out.print(f"… and {p.problems.height - 500} more problems (--format json or csv lists all)")
    withdrawn = p.count("withdrawn")
    if withdrawn:  # domino withdraw: nothing loaded, one match taken out
        out.print(
            f"withdrew {withdrawn} match(es); its versions stay listed by domino history",
            highlight=False,
        )
        return
    n = {s: p.count(s) for s in ("new", "update", "correction", "unchanged", "rejected")}
    prefix = "dry run, nothing written: would load" if dry_run else "loaded"
    summary = (
        f"{prefix} {n['new'] + n['update'] + n['correction']} match(es) "
        f"({n['new']} new, {n['update']} updated, {n['correction']} corrected), "
        f"{n['unchanged']} unchanged, {n['rejected']} rejected"
    )
    refused = sum(1 for f in p.files if f.get("error"))
    if refused:
        summary += f"; {refused} file(s) refused whole"
    if p.outcomes and n["unchanged"] == len(p.outcomes):
        summary += " — nothing changed: every match in these files is already loaded"
    out.print(summary, highlight=False)
