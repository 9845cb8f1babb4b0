"""Withdraw a loaded match: a table loaded under the wrong event, round or table label (or
a match that was never played) taken out of every standing and rating ladder, its
versions kept.

A withdrawal is one more version of the match, written like any other
(:func:`pipeline.ingest.writer.commit`: one transaction, a line in the ingest log, the
database copied aside first as for a correction, the rating ladders replayed after it):
kind ``withdrawn``, no hands, the reason and who withdrew it. The versions before it stay
in the history; its hand points and standings rows go, as a superseded version's do.
Bringing it back is a correction: its file again with a reason, or :func:`reinstate`
(``domino withdraw --undo``), which loads the rows the database kept.
"""

import duckdb
import polars as pl

from pipeline import auth, messages
from pipeline.draws.followed import withdrawn_ahead
from pipeline.ingest.match import HAND_COLUMNS, VERSION_SCHEMA, WITHDRAWN, hand_log
from pipeline.ingest.outcome import MatchOutcome, Plan, default_user
from pipeline.ingest.writer import commit
from pipeline.scoring.models import empty_results
from pipeline.store.db import frame

#: What stands for a withdrawal's file in ``match_versions`` and the ingest log (no file
#: brought it).
WITHDRAWN_FILE = "(withdrawn)"


class WithdrawRefused(messages.Refused, ValueError):
    """Nothing to withdraw, no reason given, or not the user's to withdraw: one sentence
    saying what to do (``str()`` in English, :meth:`render` in another language)."""


def withdraw(
    con: duckdb.DuckDBPyConnection,
    event: str,
    round_: str,
    table: str,
    *,
    reason: str | None,
    by: str | None = None,
    expected_version: int | None = None,
) -> Plan:
    """Withdraw the current version of ``event``, ``round_``, ``table`` (see the module);
    returns the committed plan, whose one outcome is the withdrawal. ``expected_version``
    (an approved request's): refused when the match has moved on from it since."""
    reason = _reason(reason)
    version, hands = to_withdraw(con, event, round_, table, expected_version)
    # a withdrawal writes no rows and is never previewed: its row frames stay empty
    no_rows = frame(con.sql("SELECT * FROM hands LIMIT 0"))
    out = MatchOutcome(
        event=event,
        round=round_,
        table=table,
        status=WITHDRAWN,
        file=WITHDRAWN_FILE,
        hands=0,
        version=version + 1,
    )
    out.say("match.withdrawn", {"version": version, "hands": hands, "reason": reason})
    hand_points, table_standings = empty_results()
    plan = Plan(
        files=[{"file": WITHDRAWN_FILE, "sha256": None, "rows": 0, "error": None}],
        # its players seated in the next round's draw: said, the draw left as it is
        problems=withdrawn_ahead(con, event, round_, table, WITHDRAWN_FILE),
        outcomes=[out],
        hands=no_rows.select(HAND_COLUMNS),
        hand_points=hand_points,
        table_standings=table_standings,
        previous=no_rows,
        new_events={},
        names=pl.DataFrame(schema={"player_key": pl.String, "player": pl.String}),
        reason=reason,
        by=by or default_user(),
        versions=pl.DataFrame(
            [[event, round_, table, version + 1, WITHDRAWN]],
            schema=VERSION_SCHEMA,
            orient="row",
        ),
    )
    return commit(con, plan)


def to_withdraw(
    con: duckdb.DuckDBPyConnection,
    event: str,
    round_: str,
    table: str,
    expected_version: int | None = None,
) -> tuple[int, int]:
    """``(version, hands)`` of the loaded match that a withdrawal (or a request for one)
    would take out; :class:`WithdrawRefused` when it was never loaded, has moved on from
    ``expected_version``, or is withdrawn already."""
    shown: dict[str, object] = {"event": event, "round": round_, "table": table}
    found = loaded_version(con, [event, round_, table])
    if not found:
        from pipeline.events import unknown  # it reads registries: loaded when refusing

        # an event not loaded at all (a typo) is said as such, not as a match it lacks
        raise WithdrawRefused(
            "withdraw.no_match.no_event" if unknown(con, [event]) else "withdraw.no_match", shown
        )
    version, kind, hands = int(found[0]), found[1], int(found[2])
    if expected_version is not None and version != expected_version:
        raise WithdrawRefused(
            "withdraw.moved", {**shown, "version": expected_version, "now": version}
        )
    if kind == WITHDRAWN:
        raise WithdrawRefused("withdraw.already", {**shown, "version": version})
    return version, hands


def to_bring_back(con: duckdb.DuckDBPyConnection, event: str, round_: str, table: str) -> None:
    """:class:`WithdrawRefused` unless the match's current version is a withdrawal (what
    :func:`reinstate`, or a request for it, brings back)."""
    found = loaded_version(con, [event, round_, table])
    if not found or found[1] != WITHDRAWN:
        raise WithdrawRefused(
            "withdraw.not_withdrawn", {"event": event, "round": round_, "table": table}
        )


def withdraw_as(
    con: duckdb.DuckDBPyConnection,
    ident: object,
    event: str,
    round_: str,
    table: str,
    reason: str | None,
) -> Plan:
    """:func:`withdraw` for a dashboard sign-in, the rights read again from the database:
    a jury member of the event or an admin. A coordinator's mistake goes to them (a
    coordinator corrects a loaded match only through the jury, pepet rule 24)."""
    return withdraw(con, event, round_, table, reason=reason, by=_jury(con, ident, event))


def reinstate_as(
    con: duckdb.DuckDBPyConnection,
    ident: object,
    event: str,
    round_: str,
    table: str,
    reason: str | None,
) -> Plan:
    """:func:`reinstate` for a dashboard sign-in: as :func:`withdraw_as`, the jury of the
    event or an admin."""
    by = _jury(con, ident, event)
    return reinstate(con, event, round_, table, reason=reason, by=by, identity=ident)


def withdrawable(
    con: duckdb.DuckDBPyConnection, allowed: set[str] | None, event: str | None = None
) -> dict[str, list[str]]:
    """What a user of ``allowed`` events (:func:`pipeline.auth.user_events`) may withdraw:
    without ``event`` the events with a loaded match (``{"events": [...]}``); with it, each
    of its rounds' loaded tables (``{round: [table, ...]}``), rounds in play order."""
    if not allowed:
        return {}
    if event is None:
        rows = con.execute(
            "SELECT DISTINCT event FROM match_versions WHERE current AND kind <> 'withdrawn' "
            "ORDER BY event"
        ).fetchall()
        return {"events": [e for (e,) in rows if auth.may_write(allowed, e)]}
    if not auth.may_write(allowed, event):
        return {}
    rows = con.execute(
        'SELECT v.round, v."table" FROM match_versions v JOIN rounds r '
        "ON r.event = v.event AND r.round = v.round "
        "WHERE v.current AND v.kind <> 'withdrawn' AND v.event = ? ORDER BY r.round_no",
        [event],
    ).fetchall()
    out: dict[str, list[str]] = {}
    for rnd, tbl in rows:
        out.setdefault(rnd, []).append(tbl)
    return {r: sorted(ts, key=lambda x: (len(x), x)) for r, ts in out.items()}


def reinstate(
    con: duckdb.DuckDBPyConnection,
    event: str,
    round_: str,
    table: str,
    *,
    reason: str | None,
    by: str | None = None,
    identity: object = None,
) -> Plan:
    """Undo a withdrawal without the match's file: the hand rows of the version before it
    (kept in the database, with the file's own extra columns) loaded again as the match's
    next version, through the ingest
    service, so they are checked and scored as any upload is (a player loaded at another
    table of the round meanwhile refuses it, as it would refuse the file). ``identity``:
    a dashboard sign-in, whose rights the load checks."""
    from pipeline.ingest import service  # the service imports the writer this room uses

    reason = _reason(reason)
    to_bring_back(con, event, round_, table)
    return service.load(
        con, [kept_file(con, event, round_, table)], reason=reason, by=by, identity=identity
    )


def kept_file(
    con: duckdb.DuckDBPyConnection, event: str, round_: str, table: str
) -> tuple[str, bytes]:
    """The hand rows of the version before a withdrawal, as the CSV file they came from
    (the file's own extra columns too): an upload's name and bytes, which loaded again
    bring the match back (:func:`reinstate`, or a coordinator's change request)."""
    before = con.execute(
        "SELECT max(version) FROM match_versions WHERE event = ? AND round = ? "
        "AND \"table\" = ? AND kind <> 'withdrawn'",
        [event, round_, table],
    ).fetchall()[0][0]
    ruleset = con.execute("SELECT ruleset FROM events WHERE event = ?", [event]).fetchall()[0][0]
    rows = frame(
        con.sql(
            'SELECT * FROM hands WHERE event = ? AND round = ? AND "table" = ? AND version = ? '
            "ORDER BY line",
            params=[event, round_, table, before],
        )
    )
    data = hand_log(rows.with_columns(pl.lit(ruleset).alias("ruleset")))
    name = f"reinstated {event} {round_} {table} v{before}.csv"
    return name, data


def withdrawn(
    con: duckdb.DuckDBPyConnection, allowed: set[str] | None
) -> list[tuple[str, str, str, str, str]]:
    """``(event, round, table, by, reason)`` of every withdrawn match a user of ``allowed``
    events may bring back (:func:`reinstate`): who withdrew it and why, the latest first."""
    if not allowed:
        return []
    rows = con.execute(
        "SELECT event, round, \"table\", coalesce(loaded_by, ''), coalesce(reason, '') "
        "FROM match_versions WHERE current AND kind = 'withdrawn' "
        'ORDER BY loaded_at DESC, event, round, "table"'
    ).fetchall()
    return [tuple(r) for r in rows if auth.may_write(allowed, r[0])]


def _reason(reason: str | None) -> str:
    """The reason a withdrawal, or its undoing, is kept with; refused when there is none."""
    reason = (reason or "").strip()
    if not reason:
        raise WithdrawRefused("withdraw.no_reason")
    return reason


def loaded_version(con: duckdb.DuckDBPyConnection, key: list[str]) -> tuple | None:
    """``(version, kind, hands)`` of the current version of the match ``key`` (event,
    round, table), or None when it was never loaded."""
    found = con.execute(
        "SELECT version, kind, hands FROM match_versions "
        'WHERE current AND event = ? AND round = ? AND "table" = ?',
        key,
    ).fetchall()
    return tuple(found[0]) if found else None


def _jury(con: duckdb.DuckDBPyConnection, ident: object, event: str) -> str:
    """The name of a dashboard sign-in who may withdraw in ``event``, the rights read again:
    a jury member of it or an admin (a coordinator's mistake goes to them: a coordinator
    corrects a loaded match only through the jury, pepet rule 24)."""
    who = auth.check_rights(con, ident, [event])
    if auth.user_role(con, who.name) == auth.COORDINATOR:
        raise WithdrawRefused("withdraw.not_jury", {"name": who.name})
    return who.name
