"""What the rating ladders owe: results committed whose rating update has not run yet.

The ladders (:mod:`pipeline.ratings`) are updated in a transaction of their own, right
after the results that move them are committed: a load's matches, an event's new date,
an event's new round order. Between the two commits a process can die (SIGKILL, a power
cut, a lost connection to PostgreSQL), and an update that only adds the tables it was
given would never see the ones that process committed. So the change writes a row of
``ratings_due`` (migration 015) in the same transaction as the results, and its rating
update removes it. A row whose owner is gone is found by the next rating update of the
same ruleset, which rebuilds that ladder from the first table that differs.

Who is gone: on a DuckDB file one process writes at a time, so every row but the
caller's own is left over. On PostgreSQL several processes write at once; each holds a
session advisory lock on its owner token from before its results' commit until its
rating update is done (:func:`owing`), and the server drops the lock with the session.
A row whose owner's lock can be taken is left over.

Rating a table twice is harmless (an update of tables already rated replays them in
place), so a race only costs work, never a wrong ladder.
"""

import contextlib
import random
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any

import duckdb

from pipeline.store.db import is_postgres

#: PostgreSQL advisory lock class (int4) of the owner tokens: "due ".
DUE_LOCK_CLASS = 0x64756520

_LOCK = "SELECT pg_advisory_lock(CAST(? AS integer), CAST(? AS integer))"
_UNLOCK = "SELECT pg_advisory_unlock(CAST(? AS integer), CAST(? AS integer))"
_GONE = "SELECT pg_try_advisory_xact_lock(CAST(? AS integer), CAST(? AS integer))"
_MARK_EVENTS = (
    "INSERT INTO ratings_due (ruleset, owner, marked_at) "
    "SELECT DISTINCT ruleset, ?, ? FROM events WHERE event IN (SELECT unnest(?))"
)
_MARK = "INSERT INTO ratings_due (ruleset, owner, marked_at) VALUES (?, ?, ?)"
_ROWS = "SELECT DISTINCT ruleset, owner FROM ratings_due"
_CLEAR = "DELETE FROM ratings_due WHERE owner = ? OR ruleset IN (SELECT unnest(?))"


def new_owner() -> int:
    """A token for a change that is not a load (a load's token is its ingest id): negative,
    so it never equals one."""
    return -random.randrange(1, 2**31)


def _key(owner: int) -> int:
    """The owner token as the int4 of an advisory lock key."""
    return (owner + 2**31) % 2**32 - 2**31


@contextlib.contextmanager
def owing(con: duckdb.DuckDBPyConnection, owner: int) -> Iterator[None]:
    """Around a change's results commit and its rating update: on PostgreSQL, hold the
    session lock that tells other writers this owner is still at work."""
    if not is_postgres(con):
        yield
        return
    con.execute(_LOCK, [DUE_LOCK_CLASS, _key(owner)])
    try:
        yield
    finally:
        con.execute(_UNLOCK, [DUE_LOCK_CLASS, _key(owner)])


def mark(
    con: duckdb.DuckDBPyConnection,
    owner: int,
    *,
    events: Iterable[str] = (),
    rulesets: Iterable[str] = (),
) -> None:
    """Inside the change's transaction: the ladders of ``rulesets`` and of the rulesets
    of ``events`` owe this change."""
    now = datetime.now()
    events = sorted(set(events))
    if events:
        con.execute(_MARK_EVENTS, [owner, now, events])
    for rs in sorted(set(rulesets)):
        con.execute(_MARK, [rs, owner, now])


@contextlib.contextmanager
def moving(
    con: duckdb.DuckDBPyConnection,
    rulesets: list[str],
    follow: Callable[[int], object] | None = None,
) -> Iterator[None]:
    """One transaction around a change that moves rated tables without a load (an event's
    new date, a round order, new scores): the statements of the ``with`` body run in it.
    The ladders of ``rulesets`` are marked in the same transaction and, right after the
    commit, follow the change: ``follow(owner)`` when given (a rescore recomputes them
    whole), else a refresh. No rulesets and no ``follow``: a plain transaction, nothing
    owed."""
    owner = new_owner()
    follows = bool(rulesets) or follow is not None
    with owing(con, owner) if follows else contextlib.nullcontext():
        con.execute("BEGIN TRANSACTION")
        try:
            yield
            if rulesets:
                mark(con, owner, rulesets=rulesets)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        if follow is not None:
            follow(owner)
        elif rulesets:
            from pipeline import ratings  # it imports this module

            ratings.refresh(con, rulesets, owner=owner)


def any_owed(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether any ladder is owed an update (by a live writer or one that is gone)."""
    return bool(con.execute("SELECT count(*) FROM ratings_due").fetchall()[0][0])


def settle(con: duckdb.DuckDBPyConnection, owner: int) -> tuple[set[str], set[str]]:
    """Inside the rating transaction (on PostgreSQL under the ladders' lock): remove this
    owner's rows, every row left over, and every row of a ladder left owing (the caller
    rebuilds that ladder whole, which takes in every change committed so far). Returns the
    rulesets this owner's rows named and the rulesets whose ladders were left owing; the
    rows are removed before the caller reads the results, so a change committed meanwhile
    keeps its own row and is rated by its own update."""
    rows: list[tuple[Any, ...]] = con.execute(_ROWS).fetchall()
    mine = {rs for rs, o in rows if o == owner}
    others = [(rs, o) for rs, o in rows if o != owner]
    if is_postgres(con):  # only owners whose session is gone
        others = [
            (rs, o)
            for rs, o in others
            if con.execute(_GONE, [DUE_LOCK_CLASS, _key(int(o))]).fetchall()[0][0]
        ]
    left = {rs for rs, _ in others}
    if mine or left:
        con.execute(_CLEAR, [owner, sorted(left)])
    return mine, left


def clear(con: duckdb.DuckDBPyConnection, rulesets: list[str] | None) -> None:
    """Before the ladders of ``rulesets`` (all when None) are rebuilt whole: nothing is
    owed to them any more."""
    if rulesets is None:
        con.execute("DELETE FROM ratings_due")
    elif rulesets:
        con.execute("DELETE FROM ratings_due WHERE ruleset IN (SELECT unnest(?))", [rulesets])
