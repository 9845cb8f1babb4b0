"""How the dashboard reaches the database without getting in the CLI's way.

DuckDB lets one process write a file, and any connection open in another process —
even a read-only one — blocks that writer. So the dashboard:

- **attaches the file read-only per batch of queries** and detaches it at once
  (:func:`read`, through :func:`pipeline.store.db.read`: one in-memory DuckDB lives as
  long as the process, so a refresh does not start a database instance), waiting at most
  ``READ_TIMEOUT`` seconds for a writer to finish;
- **caches** each batch's result keyed on :func:`pipeline.standings.stats.data_stamp` (the ingest
  counter plus registry and ruleset stamps: one cheap query), so an unchanged database
  costs one tiny query per refresh — and at most one per ``STAMP_TTL`` for all sessions
  together;
- when the database is **busy** (``domino ingest`` is writing), returns the last result
  it had for the same batch, marked stale, so a page shows its data with a small
  "updating…" note instead of failing;
- keeps its own write connections apart from its read-only ones with a process-wide
  readers-writer lock: inside one process DuckDB refuses a write connection while a
  read-only one to the same file is open (many reads may run at once; a waiting write
  goes first, and a read that cannot get in quickly is treated as busy);
- when the file cannot be the database (not a DuckDB file, read-only for an upload),
  shows the one sentence :class:`~pipeline.store.db.StoreError` carries in place of the
  page, instead of an error page (:func:`refuse`).
"""

import contextlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NoReturn

import duckdb
import polars as pl

from pipeline import settings
from pipeline.standings import stats
from pipeline.store.db import DatabaseBusy, StoreError, connect
from pipeline.store.db import read as attach

READ_TIMEOUT = 1.5
STAMP_TTL = 1.0  # seconds a data stamp is trusted without asking the database again
WRITE_TIMEOUT = 10.0
_MAX_ENTRIES = 256


class ReadWriteLock:
    """Many readers or one writer; a waiting writer keeps new readers out."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False
        self._waiting = 0

    def acquire_read(self, timeout: float | None = None) -> bool:
        with self._cond:
            ok = self._cond.wait_for(lambda: not self._writer and not self._waiting, timeout)
            if ok:
                self._readers += 1
            return ok

    def release_read(self) -> None:
        with self._cond:
            self._readers -= 1
            self._cond.notify_all()

    def acquire_write(self, timeout: float | None = None) -> bool:
        with self._cond:
            self._waiting += 1
            try:
                ok = self._cond.wait_for(lambda: not self._writer and self._readers == 0, timeout)
                if ok:
                    self._writer = True
                return ok
            finally:
                self._waiting -= 1
                self._cond.notify_all()

    def release_write(self) -> None:
        with self._cond:
            self._writer = False
            self._cond.notify_all()

    @contextlib.contextmanager
    def reading(self, timeout: float) -> Iterator[None]:
        if not self.acquire_read(timeout):
            raise DatabaseBusy("the dashboard is saving an upload; try again in a moment")
        try:
            yield
        finally:
            self.release_read()

    @contextlib.contextmanager
    def writing(self, timeout: float) -> Iterator[None]:
        if not self.acquire_write(timeout):
            raise DatabaseBusy("the dashboard is busy reading; try again in a moment")
        try:
            yield
        finally:
            self.release_write()


DB_LOCK = ReadWriteLock()
_cache: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_last: dict[tuple[Any, ...], Any] = {}
_stamps: dict[str, tuple[Any, float]] = {}  # db -> (stamp, when it was read)
_derived: OrderedDict[tuple[Any, ...], tuple[Any, Any]] = OrderedDict()
_cache_lock = threading.Lock()


@dataclass(frozen=True)
class Result:
    """A batch's value; ``stale`` when it is the last good one because the database was busy.
    ``value`` is None only when busy and nothing was read before."""

    value: Any
    stale: bool = False


def is_lock_error(exc: BaseException) -> bool:
    if isinstance(exc, DatabaseBusy):
        return True
    text = str(exc).lower()
    return (
        isinstance(exc, duckdb.Error)
        and "lock" in text
        and ("conflict" in text or "could not set" in text)
    )


def db_path() -> str:
    """The store: the database file, or the PostgreSQL URL (read through a small pool)."""
    return str(settings.db_target())


def refuse(exc: StoreError) -> NoReturn:
    """Inside the dashboard: show the sentence and stop the page; elsewhere: raise it."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:
        raise exc
    import streamlit as st

    from dashboard.i18n import language

    st.error(exc.sentence(language()))
    st.stop()
    raise exc  # pragma: no cover - st.stop() does not return


def read(batch: Callable[..., Any], *args: Any) -> Result:
    """Run ``batch(con, *args)`` with the file attached read-only for the batch, cached on
    the data stamp. Safe beside this process's own writes: :data:`DB_LOCK` keeps every
    write connection out while a batch has the file attached (see
    :func:`pipeline.store.db.read`)."""
    db = db_path()
    name = f"{batch.__module__}.{batch.__qualname__}"
    last_key = (db, name, args)
    with _cache_lock:
        # Many sessions refreshing at once share one stamp check per STAMP_TTL, so the
        # dashboard's connections stay rare however many screens are open.
        seen = _stamps.get(db)
        if seen is not None and time.monotonic() - seen[1] < STAMP_TTL:
            key = (db, seen[0], name, args)
            if key in _cache:
                _cache.move_to_end(key)
                _last[last_key] = _cache[key]
                return Result(_cache[key])
    try:
        with (
            DB_LOCK.reading(READ_TIMEOUT),
            attach(db, timeout=READ_TIMEOUT) as con,
        ):
            stamp = stats.data_stamp(con)
            key = (db, stamp, name, args)
            with _cache_lock:
                _stamps[db] = (stamp, time.monotonic())
                if key in _cache:
                    _cache.move_to_end(key)
                    value = _cache[key]
                    _last[last_key] = value
                    return Result(value)
            value = batch(con, *args)
    except StoreError as exc:
        refuse(exc)
    except Exception as exc:
        if not is_lock_error(exc):
            raise
        with _cache_lock:
            return Result(_last.get(last_key), stale=True)
    with _cache_lock:
        _cache[key] = value
        _last[last_key] = value
        while len(_cache) > _MAX_ENTRIES:
            _cache.popitem(last=False)
        if len(_last) > _MAX_ENTRIES * 4:
            _last.clear()
            _last[last_key] = value
    return Result(value)


def stamp(db: str, timeout: float = READ_TIMEOUT) -> Any:
    """The data stamp of ``db`` (one cheap query on a short read-only attach), or None
    when the file is missing or a writer holds it. The stamp is remembered for every
    session's :func:`read` (see :mod:`dashboard.live`, which calls this for the process)."""
    where = settings.db_target(db)
    if not isinstance(where, str) and not where.exists():  # a file not made yet
        return None
    try:
        with DB_LOCK.reading(timeout), attach(db, timeout=timeout) as con:
            value = stats.data_stamp(con)
    except Exception as exc:
        if is_lock_error(exc):
            return None
        raise
    with _cache_lock:
        _stamps[db] = (value, time.monotonic())
    return value


def uncached(batch: Callable[..., Any], *args: Any) -> Any:
    """``batch(con, *args)`` on a short read-only connection, no cache (upload previews).
    Raises :class:`DatabaseBusy` when a writer holds the database."""
    try:
        with (
            DB_LOCK.reading(READ_TIMEOUT * 2),
            connect(db_path(), read_only=True, timeout=READ_TIMEOUT * 2) as con,
        ):
            return batch(con, *args)
    except StoreError as exc:
        refuse(exc)
    except Exception as exc:
        if is_lock_error(exc) and not isinstance(exc, DatabaseBusy):
            raise DatabaseBusy(str(exc)) from exc
        raise


def write(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(con, …)`` on a short write connection (the dashboard's uploads)."""
    try:
        with DB_LOCK.writing(WRITE_TIMEOUT), connect(db_path(), timeout=WRITE_TIMEOUT) as con:
            return fn(con, *args, **kwargs)
    except StoreError as exc:
        refuse(exc)
    except Exception as exc:
        if is_lock_error(exc) and not isinstance(exc, DatabaseBusy):
            raise DatabaseBusy(str(exc)) from exc
        raise


def derived(source: Any, name: str, build: Callable[[], Any], *extra: Any) -> Any:
    """``build()`` made once per value :func:`read` returned (``source``) and ``extra``
    (the session's language…), then shared by every session and rerun that shows the same
    value: a chart or a table's display frame is not rebuilt for each visitor. Keyed on
    the identity of ``source``, which the entry holds so the identity stays its own; a new
    stamp gives a new value and so a new entry. What ``build`` returns must not be changed
    by its users (Streamlit only reads a figure or a frame)."""
    key = (id(source), name, extra)
    with _cache_lock:
        hit = _derived.get(key)
        if hit is not None and hit[0] is source:
            _derived.move_to_end(key)
            return hit[1]
    value = build()
    with _cache_lock:
        _derived[key] = (source, value)
        while len(_derived) > _MAX_ENTRIES * 4:
            _derived.popitem(last=False)
    return value


def clear() -> None:
    """Forget every cached batch (tests)."""
    with _cache_lock:
        _cache.clear()
        _last.clear()
        _stamps.clear()
        _derived.clear()


def event_titles() -> dict[str, str]:
    """``event → title`` (its id where it has none) of every event, cached like a batch:
    screens show an event by its title, never its slug."""
    from pipeline import events

    return dict(read(events.titles).value or {})


def titled(column: str = "event") -> pl.Expr:
    """``column`` of a frame with each event named as screens name it (:func:`title`)."""
    return pl.col(column).replace(event_titles())


def title(event: str | None) -> str:
    """How ``event`` is named on screens: its title, else its id."""
    if not event:
        return ""
    return event_titles().get(event, event)
