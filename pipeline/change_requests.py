"""Change requests (RULES.md, pepet rule 24): a coordinator's correction waits for the jury.

A coordinator who uploads on the dashboard a file that corrects a loaded match does not
load it: :func:`create` keeps the upload byte for byte, with a reason, the version each
match was at, and optionally a photo or scan of the paper record
(:mod:`pipeline.attachments`). A jury member of every event it touches (or an admin)
looks at it through the ingest service's preview — the same plan, hand diff and points
before and after an upload shows (:func:`review`) — and :func:`approve` or
:func:`reject` it with a reason of their own. Only approval writes: it loads the kept
bytes through :func:`pipeline.ingest.load` as a correction with the coordinator's
reason, as the approver, and only when the plan is exactly the one reviewed. A request
made against version v of a match that has moved on since is refused as stale and
closed: it would overwrite a change nobody reviewed against it.

A match the coordinator loaded by mistake (the wrong round or table, a mistyped event,
never played) is a *withdrawal* request (:func:`ask_withdrawal`): the match and a reason,
no file. The jury sees the points that would leave the standings, and approving withdraws
it (:func:`pipeline.ingest.withdraw.withdraw`) with the coordinator's reason, as the
approver. Bringing a withdrawn match back without its file (:func:`ask_reinstatement`) is
a correction request whose file is the rows the database kept.

Nothing here is shown to anyone who may not see it: :func:`visible` lists the requests
whose events are all the user's (their own requests too); an admin sees every one.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

import duckdb
import polars as pl

from pipeline import auth, messages
from pipeline.attachments import Attachment
from pipeline.draws.followed import withdrawn_ahead
from pipeline.ingest.outcome import Plan
from pipeline.ingest.planner import plan
from pipeline.ingest.service import (
    PlanChanged,
    Preview,
    Source,
    Upload,
    load,
    preview,
    signature,
)
from pipeline.ingest.withdraw import (
    WITHDRAWN_FILE,
    WithdrawRefused,
    kept_file,
    to_bring_back,
    to_withdraw,
    withdraw,
)
from pipeline.standings import queries, stats
from pipeline.store.db import frame

PENDING, APPROVED, REJECTED, STALE = "pending", "approved", "rejected", "stale"
#: taken back by the coordinator who asked, before the jury decided (:func:`cancel`)
CANCELLED = "cancelled"
#: what the jury decided (or found stale): news for the coordinator who asked
DECIDED = (APPROVED, REJECTED, STALE)
#: What a request asks for: a correction (an upload) or a withdrawal (one loaded match).
CORRECTION, WITHDRAWAL = "correction", "withdrawal"


class RequestRefused(messages.Refused, ValueError):
    """A request cannot be made or decided; ``render(lang)`` says why in one sentence."""


@dataclass(frozen=True)
class Request:
    request_id: int
    status: str
    event_choice: str | None
    ruleset_choice: str | None
    requested_by: str
    requested_at: datetime
    reason: str
    decided_by: str | None
    decided_at: datetime | None
    decision_reason: str | None
    matches: pl.DataFrame  # event, round, table, base_version, applied_version
    kind: str = CORRECTION
    seen_at: datetime | None = None  # when the coordinator who asked saw the decision

    @property
    def unseen(self) -> bool:
        """Decided by the jury, and not yet seen by the coordinator who asked."""
        return self.status in DECIDED and self.seen_at is None

    @property
    def events(self) -> list[str]:
        return sorted(set(self.matches.get_column("event").to_list()))


# --- making one -----------------------------------------------------------------------------


def create(
    con: duckdb.DuckDBPyConnection,
    identity: object,
    files: list[Upload],
    *,
    reason: str,
    event: str | None = None,
    ruleset: str | None = None,
    attachment: Attachment | None = None,
    expected: tuple[Any, ...] | None = None,
) -> int:
    """Keep an upload that corrects loaded matches as a pending request; its id.

    The whole upload is the request: its other matches wait with it, so the jury
    approves what the coordinator checked, as one."""
    who = auth.check_rights(con, identity, [])
    reason = (reason or "").strip()
    pv = preview(
        con, list[Source](files), event=event, ruleset=ruleset, reason=reason or None, by=who.name
    )
    if pv.forbidden:
        auth.check_rights(con, identity, pv.forbidden)  # raises NotAllowed naming them
    if not reason:
        raise RequestRefused("request.needs_reason", {"id": "-"})
    _whole(pv)
    if not any(o.status == "correction" for o in pv.plan.outcomes):
        raise RequestRefused("request.no_correction", {})
    if expected is not None and pv.signature != expected:
        raise PlanChanged("the plan changed since the preview")
    now = datetime.now()
    con.execute("BEGIN TRANSACTION")
    try:
        rid = int(con.execute("SELECT nextval('change_request_seq')").fetchall()[0][0])
        con.execute(
            "INSERT INTO change_requests (request_id, status, event_choice, ruleset_choice, "
            "requested_by, requested_at, reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [rid, PENDING, event or None, ruleset or None, who.name, now, reason],
        )
        con.executemany(
            'INSERT INTO change_request_matches (request_id, event, round, "table", base_version) '
            "VALUES (?, ?, ?, ?, ?)",
            [[rid, o.event, o.round, o.table, (o.version or 1) - 1] for o in pv.plan.writes],
        )
        con.executemany(
            "INSERT INTO change_request_files (request_id, file_no, name, content) VALUES (?, ?, ?, ?)",
            [[rid, i, name, blob] for i, (name, blob) in enumerate(files)],
        )
        if attachment is not None:
            con.execute(
                "INSERT INTO change_request_attachments (request_id, name, content_type, size, content) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    rid,
                    attachment.name,
                    attachment.content_type,
                    len(attachment.content),
                    attachment.content,
                ],
            )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return rid


def _asking(
    con: duckdb.DuckDBPyConnection, identity: object, event: str, reason: str, needs_reason: str
) -> tuple[auth.Identity, str]:
    """Who asks (their rights on ``event`` read again) and the reason, refused with
    ``needs_reason`` when empty."""
    who = auth.check_rights(con, identity, [event])
    reason = (reason or "").strip()
    if not reason:
        raise RequestRefused(needs_reason, {})
    return who, reason


def ask_withdrawal(
    con: duckdb.DuckDBPyConnection,
    identity: object,
    event: str,
    round_: str,
    table: str,
    *,
    reason: str,
) -> int:
    """Ask the jury to withdraw one loaded match of the coordinator's events (a table
    loaded under the wrong event, round or table, or never played); the request's id.
    Refused, and nothing kept, without a reason or when the match is not loaded or is
    already withdrawn."""
    who, reason = _asking(con, identity, event, reason, "request.withdrawal_needs_reason")
    version, _ = to_withdraw(con, event, round_, table)
    waiting = con.execute(
        "SELECT min(r.request_id) FROM change_requests r JOIN change_request_matches m "
        "USING (request_id) WHERE r.status = 'pending' AND r.kind = 'withdrawal' "
        'AND m.event = ? AND m.round = ? AND m."table" = ?',
        [event, round_, table],
    ).fetchall()[0][0]
    if waiting is not None:
        raise RequestRefused(
            "request.withdrawal_waiting",
            {"event": event, "round": round_, "table": table, "id": int(waiting)},
        )
    con.execute("BEGIN TRANSACTION")
    try:
        rid = int(con.execute("SELECT nextval('change_request_seq')").fetchall()[0][0])
        con.execute(
            "INSERT INTO change_requests (request_id, status, kind, requested_by, requested_at, "
            "reason) VALUES (?, ?, ?, ?, ?, ?)",
            [rid, PENDING, WITHDRAWAL, who.name, datetime.now(), reason],
        )
        con.execute(
            'INSERT INTO change_request_matches (request_id, event, round, "table", base_version) '
            "VALUES (?, ?, ?, ?, ?)",
            [rid, event, round_, table, version],
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return rid


def ask_reinstatement(
    con: duckdb.DuckDBPyConnection,
    identity: object,
    event: str,
    round_: str,
    table: str,
    *,
    reason: str,
) -> int:
    """Ask the jury to bring back a withdrawn match of the coordinator's events without
    its file: the rows the database kept, as the file they came from
    (:func:`pipeline.ingest.withdraw.kept_file`), make an ordinary correction request,
    reviewed and approved as an upload is. Refused, and nothing kept, without a reason
    or when the match is not withdrawn."""
    _, reason = _asking(con, identity, event, reason, "request.reinstatement_needs_reason")
    to_bring_back(con, event, round_, table)
    return create(con, identity, [kept_file(con, event, round_, table)], reason=reason)


def _whole(pv: Preview) -> None:
    """Refuse an upload that would not load whole: the jury approves all of it or nothing."""
    bad = pv.plan.errors.height + sum(1 for o in pv.plan.outcomes if o.status == "rejected")
    bad += sum(1 for f in pv.files if f.get("error") is not None)
    if bad:
        raise RequestRefused("request.refused", {"problems": bad})


# --- reading --------------------------------------------------------------------------------

LIST = (
    "SELECT r.request_id, r.status, coalesce(r.kind, 'correction') AS kind, string_agg(DISTINCT m.event, ', ') AS events, "
    "string_agg(m.event || ' ' || m.round || ' ' || m.\"table\", '; ') AS matches, "
    "r.requested_by, r.requested_at, r.reason, r.decided_by, r.decided_at, r.decision_reason, "
    "r.seen_at, max(a.content_type) AS attachment "
    "FROM change_requests r JOIN change_request_matches m USING (request_id) "
    "LEFT JOIN change_request_attachments a USING (request_id) "
    "GROUP BY r.request_id, r.status, r.kind, r.requested_by, r.requested_at, r.reason, r.decided_by, "
    "r.decided_at, r.decision_reason, r.seen_at ORDER BY r.request_id DESC"
)


def may_see(
    con: duckdb.DuckDBPyConnection, name: str, requested_by: str, events: list[str]
) -> bool:
    """An admin, the requester, or a user whose events include every one of ``events``."""
    key = auth.normalize_name(name)
    allowed = auth.user_events(con, key)
    if allowed is None:
        return False
    return key == requested_by or not auth.forbidden_events(allowed, events)


def visible(con: duckdb.DuckDBPyConnection, name: str, status: str | None = None) -> pl.DataFrame:
    """The requests ``name`` may see, newest first (``status`` keeps only those), with
    ``news``: a decision on their own request they have not seen (:attr:`Request.unseen`)."""
    df = frame(con.sql(LIST)).with_columns(
        (
            pl.col("status").is_in(list(DECIDED))
            & pl.col("seen_at").is_null()
            & (pl.col("requested_by") == auth.normalize_name(name))
        ).alias("news")
    )
    if status:
        df = df.filter(pl.col("status") == status)
    keep = [
        may_see(con, name, r["requested_by"], r["events"].split(", "))
        for r in df.select("requested_by", "events").iter_rows(named=True)
    ]
    return df.filter(pl.Series(keep, dtype=pl.Boolean)) if df.height else df


#: the jury decided a request of the user (parameters: their name, :data:`DECIDED`) and
#: they have not seen it: :attr:`Request.unseen` in SQL (``change_requests`` columns)
_UNSEEN = "requested_by = ? AND seen_at IS NULL AND status IN (SELECT unnest(?))"


class Waiting(NamedTuple):
    """What waits for one user, for the sidebar."""

    decide: int  # pending requests they may decide
    mine: int  # their own requests still pending
    decided: int  # their own requests the jury decided since they last looked


def waiting(con: duckdb.DuckDBPyConnection, name: str) -> Waiting:
    """How many pending requests ``name`` may decide (a jury member of every event each
    touches, or an admin), how many of their own wait for the jury, and how many of their
    own the jury decided that they have not seen yet (:func:`seen`)."""
    key = auth.normalize_name(name)
    rows = con.execute(
        "SELECT r.requested_by, r.status = 'pending', list(DISTINCT m.event) "
        "FROM change_requests r JOIN change_request_matches m USING (request_id) "
        f"WHERE r.status = 'pending' OR ({_UNSEEN}) "
        "GROUP BY r.request_id, r.requested_by, r.status",
        [key, list(DECIDED)],
    ).fetchall()
    if not rows:  # nearly always: one query, and nothing more to ask
        return Waiting(0, 0, 0)
    mine = sum(1 for by, pending, _ in rows if pending and by == key)
    decided = sum(1 for _, pending, _ in rows if not pending)
    role = auth.user_role(con, key)
    if role not in (auth.JURY, auth.ADMIN):
        return Waiting(0, mine, decided)
    allowed = auth.user_events(con, key)
    decide = sum(1 for _, pending, evs in rows if pending and _decides(role, allowed, evs))
    return Waiting(decide, mine, decided)


def seen(con: duckdb.DuckDBPyConnection, name: str, request_id: int) -> None:
    """``name`` saw the jury's decision on their request ``request_id`` (the change
    requests page): it no longer counts as news. Anyone else's look changes nothing."""
    con.execute(
        f"UPDATE change_requests SET seen_at = ? WHERE request_id = ? AND {_UNSEEN}",
        [datetime.now(), int(request_id), auth.normalize_name(name), list(DECIDED)],
    )


def _decides(role: str | None, allowed: set[str] | None, events: list[str]) -> bool:
    """Whether a user of ``role`` and ``allowed`` events decides a request on ``events``:
    a jury member of every one of them, or an admin."""
    return role in (auth.JURY, auth.ADMIN) and not auth.forbidden_events(allowed, events)


def get(con: duckdb.DuckDBPyConnection, request_id: int, name: str | None = None) -> Request:
    """One request; :class:`RequestRefused` when there is none, or ``name`` may not see it
    (the same sentence: who may not see a request does not learn that it exists)."""
    rows = con.execute(
        "SELECT request_id, status, event_choice, ruleset_choice, requested_by, requested_at, "
        "reason, decided_by, decided_at, decision_reason, coalesce(kind, 'correction'), seen_at "
        "FROM change_requests WHERE request_id = ?",
        [int(request_id)],
    ).fetchall()
    if not rows:
        raise RequestRefused("request.unknown", {"id": request_id})
    matches = frame(
        con.sql(
            'SELECT event, round, "table", base_version, applied_version FROM change_request_matches '
            'WHERE request_id = ? ORDER BY event, round, "table"',
            params=[int(request_id)],
        )
    )
    *fields, kind, seen_at = rows[0]
    req = Request(*fields, matches=matches, kind=kind, seen_at=seen_at)  # type: ignore[misc]
    if name is not None and not may_see(con, name, req.requested_by, req.events):
        raise RequestRefused("request.unknown", {"id": request_id})
    return req


def files(con: duckdb.DuckDBPyConnection, request_id: int) -> list[Upload]:
    rows = con.execute(
        "SELECT name, content FROM change_request_files WHERE request_id = ? ORDER BY file_no",
        [int(request_id)],
    ).fetchall()
    return [(str(n), bytes(c)) for n, c in rows]


def attachment(con: duckdb.DuckDBPyConnection, request_id: int) -> Attachment | None:
    rows = con.execute(
        "SELECT name, content_type, content FROM change_request_attachments WHERE request_id = ?",
        [int(request_id)],
    ).fetchall()
    return Attachment(str(rows[0][0]), str(rows[0][1]), bytes(rows[0][2])) if rows else None


def review(con: duckdb.DuckDBPyConnection, req: Request) -> Preview:
    """What approving would do, planned now by the ingest service (nothing is written):
    the hand-by-hand diff and every player's points before and after. A withdrawal's
    points go (after: none) and each of its hands is dropped."""
    if req.kind == WITHDRAWAL:
        return _withdrawal_review(con, req)
    return preview(
        con,
        list[Source](files(con, req.request_id)),
        event=req.event_choice,
        ruleset=req.ruleset_choice,
        reason=req.reason,
        by=req.requested_by,
    )


def _withdrawal_review(con: duckdb.DuckDBPyConnection, req: Request) -> Preview:
    m = req.matches.row(0, named=True)
    event, round_, table = m["event"], m["round"], m["table"]
    nothing = plan(con, [])
    # the next round's draw seating players of it, said as the withdrawal itself says it
    nothing.problems = withdrawn_ahead(con, event, round_, table, WITHDRAWN_FILE)
    old = queries.loaded_hands(con, event, round_, table)
    pv = Preview(plan=nothing, sheets=[], files=[], allowed=None, forbidden=[])
    pv.diffs.append(
        {
            "event": event,
            "round": round_,
            "table": table,
            "version": m["base_version"],
            "withdrawal": True,  # every hand goes: the page says so instead of listing them
            "diff": stats.hand_diff(old, old.head(0)),
            "points": stats.points_change(
                con,
                event,
                round_,
                table,
                nothing.table_standings.select("player_key", "points", "rank"),
            ),
        }
    )
    return pv


# --- deciding -------------------------------------------------------------------------------


def _decider(con: duckdb.DuckDBPyConnection, identity: object, req: Request) -> str:
    who = auth.check_rights(con, identity, [])
    role = auth.user_role(con, who.name)
    allowed = auth.user_events(con, who.name)
    if not _decides(role, allowed, req.events):
        if not may_see(con, who.name, req.requested_by, req.events):
            raise RequestRefused("request.unknown", {"id": req.request_id})
        raise RequestRefused(
            "request.not_jury",
            {"name": who.name, "events": ", ".join(req.events), "id": req.request_id},
        )
    if req.status != PENDING:
        raise RequestRefused("request.decided", {"id": req.request_id, "status": req.status})
    return who.name


def _close(
    con: duckdb.DuckDBPyConnection,
    request_id: int,
    status: str,
    by: str,
    reason: str | None,
    ingest_id: int | None = None,
) -> None:
    con.execute(
        "UPDATE change_requests SET status = ?, decided_by = ?, decided_at = ?, "
        "decision_reason = ?, ingest_id = ? WHERE request_id = ? AND status = ?",
        [status, by, datetime.now(), reason, ingest_id, request_id, PENDING],
    )


def stale_match(con: duckdb.DuckDBPyConnection, req: Request) -> dict[str, Any] | None:
    """The first match of ``req`` whose loaded version is no longer the one asked against."""
    for m in req.matches.iter_rows(named=True):
        rows = con.execute(
            'SELECT max(version) FROM match_versions WHERE event = ? AND round = ? AND "table" = ?',
            [m["event"], m["round"], m["table"]],
        ).fetchall()
        now = int(rows[0][0] or 0)
        if now != m["base_version"]:
            return {
                "match": f"{m['event']} {m['round']} {m['table']}",
                "base": m["base_version"],
                "now": now,
            }
    return None


def approve(con: duckdb.DuckDBPyConnection, identity: object, request_id: int, reason: str) -> Plan:
    """Apply a pending request as the jury member ``identity``; the loaded plan.

    Refused (and nothing written) when the approver is not on the jury of its events, the
    reason is empty, or the upload no longer plans as it did; refused and closed as stale
    when a match moved on since the request was made."""
    req = get(con, request_id)
    by = _decider(con, identity, req)
    reason = (reason or "").strip()
    if not reason:
        raise RequestRefused("request.needs_reason", {"id": request_id})
    moved = stale_match(con, req)
    if moved is not None:
        _close(con, req.request_id, STALE, by, reason)
        raise RequestRefused("request.stale", {"id": request_id, **moved})
    if req.kind == WITHDRAWAL:
        return _withdraw_approved(con, req, by, reason)
    pv = review(con, req)
    _whole(pv)
    loaded = load(
        con,
        files(con, req.request_id),
        event=req.event_choice,
        ruleset=req.ruleset_choice,
        reason=req.reason,
        identity=identity,
        expected=signature(pv.plan),
    )
    _applied(con, req, by, reason, loaded)
    return loaded


def _withdraw_approved(con: duckdb.DuckDBPyConnection, req: Request, by: str, reason: str) -> Plan:
    """Withdraw the request's match, with the coordinator's reason, as the approver."""
    m = req.matches.row(0, named=True)
    try:
        done = withdraw(
            con,
            m["event"],
            m["round"],
            m["table"],
            reason=req.reason,
            by=by,
            expected_version=int(m["base_version"]),
        )
    except WithdrawRefused as exc:  # another writer moved it since the check (PostgreSQL)
        if exc.message_id != "withdraw.moved":
            raise
        _close(con, req.request_id, STALE, by, reason)
        match = f"{m['event']} {m['round']} {m['table']}"
        raise RequestRefused(
            "request.stale",
            {
                "id": req.request_id,
                "match": match,
                "base": exc.params["version"],
                "now": exc.params["now"],
            },
        ) from exc
    _applied(con, req, by, reason, done)
    return done


def _applied(
    con: duckdb.DuckDBPyConnection, req: Request, by: str, reason: str, done: Plan
) -> None:
    """Close an approved request with the versions it wrote (its match history names the
    requester and the approver from them)."""
    con.execute("BEGIN TRANSACTION")
    try:
        _close(con, req.request_id, APPROVED, by, reason, done.ingest_id)
        con.executemany(
            "UPDATE change_request_matches SET applied_version = ? "
            'WHERE request_id = ? AND event = ? AND round = ? AND "table" = ?',
            [[o.version, req.request_id, o.event, o.round, o.table] for o in done.writes],
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def cancel(
    con: duckdb.DuckDBPyConnection, identity: object, request_id: int, reason: str = ""
) -> None:
    """The coordinator who asked takes a pending request back (the wrong file sent, the
    match set right another way); nothing changes, and the request stays listed as
    cancelled. Only its requester may, and only before the jury decides."""
    who = auth.check_rights(con, identity, [])
    req = get(con, request_id, who.name)  # who may not see it does not learn it exists
    if auth.normalize_name(who.name) != req.requested_by:
        raise RequestRefused("request.not_yours", {"id": req.request_id, "by": req.requested_by})
    if req.status != PENDING:
        raise RequestRefused("request.decided", {"id": req.request_id, "status": req.status})
    _close(con, req.request_id, CANCELLED, req.requested_by, (reason or "").strip() or None)


def reject(con: duckdb.DuckDBPyConnection, identity: object, request_id: int, reason: str) -> None:
    """Close a pending request without changing any result."""
    req = get(con, request_id)
    by = _decider(con, identity, req)
    reason = (reason or "").strip()
    if not reason:
        raise RequestRefused("request.needs_reason", {"id": request_id})
    _close(con, req.request_id, REJECTED, by, reason)
