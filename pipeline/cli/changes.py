"""``domino requests``: the change requests coordinators made on the dashboard.

The command line has no sign-in: whoever runs it holds the database file, as an admin
does. It lists and shows requests; deciding them is the jury's, on the dashboard's
requests page. An admin or jury member corrects directly with ``domino ingest --reason``.
"""

import click

from pipeline.cli.common import db_option, format_option, out, reader


@click.group("requests")
def requests_group() -> None:
    """Change requests: coordinators' corrections and withdrawals waiting for the jury (rule 24)."""


@requests_group.command("list")
@click.option(
    "--status",
    type=click.Choice(["pending", "approved", "rejected", "stale", "cancelled"]),
    help="Only these.",
)
@format_option
@db_option
def requests_list(status, fmt, db) -> None:
    """Every change request, newest first: matches, who asked, why, and the decision."""
    from pipeline import change_requests

    with reader(db) as con:
        df = con.sql(change_requests.LIST).pl()
    if status:
        df = df.filter(df["status"] == status)
    from pipeline.cli.output import emit

    emit(df, fmt, title="change requests")


@requests_group.command("show")
@click.argument("request_id", type=int)
@format_option
@db_option
def requests_show(request_id, fmt, db) -> None:
    """One request: its matches and versions, its files, its attachment, its decision."""
    from pipeline import change_requests

    with reader(db) as con:
        try:
            req = change_requests.get(con, request_id)
        except change_requests.RequestRefused as exc:
            raise click.ClickException(str(exc)) from exc
        names = [n for n, _ in change_requests.files(con, request_id)]
        att = change_requests.attachment(con, request_id)
    decided = (
        f"; {req.status} by {req.decided_by} at {req.decided_at:%Y-%m-%d %H:%M}: {req.decision_reason}"
        if req.decided_by and req.decided_at
        else f"; {req.status}"
    )
    asks = "a withdrawal" if req.kind == change_requests.WITHDRAWAL else "a correction"
    out.print(
        f"request {req.request_id} ({asks}) by {req.requested_by} at {req.requested_at:%Y-%m-%d %H:%M}: "
        f"{req.reason}{decided}",
        markup=False,
        highlight=False,
    )
    if names:  # a withdrawal asks for no file
        out.print(f"files: {', '.join(names)}", markup=False, highlight=False)
    if att is not None:
        out.print(
            f"paper record: {att.name} ({att.content_type}, {len(att.content)} bytes)",
            markup=False,
            highlight=False,
        )
    from pipeline.cli.output import emit

    emit(req.matches, fmt, title="matches (version asked against, version applied)")
