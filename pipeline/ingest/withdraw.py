"""Withdraw a loaded match: a table loaded under the wrong event, round or table label (or
a match that was never played) taken out of every standing and rating ladder, its
versions kept.

A withdrawal is one more version of the match, written like any other
(:func:`pipeline.ingest.writer.commit`: one transaction, a line in the ingest log, the
database copied aside first as for a correction, the rating ladders replayed after it):
kind ``withdrawn``, no hands, the reason and who withdrew it. The versions before it stay
in the history; its hand points and standings rows go, as a superseded version's do.
Loading the match's file again afterwards brings it back as the next version.
"""

import duckdb
import polars as pl

from pipeline import problems
from pipeline.ingest.match import HAND_COLUMNS, VERSION_SCHEMA
from pipeline.ingest.outcome import MatchOutcome, Plan, default_user
from pipeline.ingest.writer import commit
from pipeline.scoring.models import empty_results
from pipeline.store.db import frame

#: A withdrawal's version: its kind in ``match_versions``, and what stands for its file
#: there and in the ingest log (no file brought it).
WITHDRAWN = "withdrawn"
WITHDRAWN_FILE = "(withdrawn)"


class WithdrawRefused(ValueError):
    """Nothing to withdraw, or no reason given: one sentence saying what to do."""


def withdraw(
    con: duckdb.DuckDBPyConnection,
    event: str,
    round_: str,
    table: str,
    *,
    reason: str | None,
    by: str | None = None,
) -> Plan:
    """Withdraw the current version of ``event``, ``round_``, ``table`` (see the module);
    returns the committed plan, whose one outcome is the withdrawal."""
    reason = (reason or "").strip()
    if not reason:
        raise WithdrawRefused(
            "a withdrawal needs a reason (--reason): it is kept in the match's history"
        )
    key = [event, round_, table]
    found = con.execute(
        "SELECT version, kind, hands FROM match_versions "
        'WHERE current AND event = ? AND round = ? AND "table" = ?',
        key,
    ).fetchall()
    if not found:
        raise WithdrawRefused(
            f"event {event} has no match at round {round_!r}, table {table!r} to withdraw; "
            f"`domino history --event {event}` lists its matches"
        )
    version, kind, hands = found[0]
    if kind == WITHDRAWN:
        raise WithdrawRefused(
            f"{event} round {round_} table {table} is already withdrawn (version {version}); "
            "loading its file again brings it back"
        )
    previous = frame(
        con.sql(
            'SELECT * FROM hands WHERE event = ? AND round = ? AND "table" = ? AND version = ?',
            params=[*key, version],
        )
    )
    out = MatchOutcome(
        event=event,
        round=round_,
        table=table,
        status=WITHDRAWN,
        file=WITHDRAWN_FILE,
        hands=0,
        version=int(version) + 1,
    )
    out.say("match.withdrawn", {"version": int(version), "hands": int(hands), "reason": reason})
    hand_points, table_standings = empty_results()
    plan = Plan(
        files=[{"file": WITHDRAWN_FILE, "sha256": None, "rows": 0, "error": None}],
        problems=problems.empty(),
        outcomes=[out],
        hands=pl.DataFrame(schema={c: previous.schema.get(c, pl.String) for c in HAND_COLUMNS}),
        hand_points=hand_points,
        table_standings=table_standings,
        previous=previous,
        new_events={},
        names=pl.DataFrame(schema={"player_key": pl.String, "player": pl.String}),
        reason=reason,
        by=by or default_user(),
        versions=pl.DataFrame(
            [[event, round_, table, int(version) + 1, WITHDRAWN]],
            schema=VERSION_SCHEMA,
            orient="row",
        ),
    )
    return commit(con, plan)
