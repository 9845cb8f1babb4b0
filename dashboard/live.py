"""Live screens without every screen asking the database: one watcher per server process.

A background thread reads the data stamp (:func:`pipeline.standings.stats.data_stamp`, one
cheap query on a read-only attach of a few milliseconds) every half ``live_seconds`` —
once for the whole process, however many screens are open — and counts the changes it
sees. A save from anywhere (a dashboard upload, ``domino ingest`` in another process)
bumps the count within one poll.

Each open page keeps what it showed in its session (:func:`mark`) and runs a tiny
fragment (:func:`follow`) every ``live_seconds`` that compares that with the count in
memory — no query, nothing drawn — and reruns the page only when it differs. (A check
is a fragment run: cheap, but a browser and the server both do it, so not much more
often than once a second.) The page
then reads its data through :mod:`dashboard.data`, whose cache the watcher keeps keyed
on the current stamp, so only the first screen after a change runs the page's queries.

When the database is busy (a writer holds it) a poll is skipped; when it cannot be read
at all (a PostgreSQL server down, a file that cannot be the database) the watcher waits
and the page says so itself; the first poll that reads it again counts a change, so every
page that said so reads again by itself (a big screen, a phone left open), even when
nothing was saved meanwhile.
"""

import atexit
import threading
import time
from typing import Any

from dashboard import data
from pipeline import settings

#: A watcher nobody asked about for this long stops its thread (a server left open all
#: night with no screen costs nothing); the next page starts it again.
IDLE_SECONDS = 300.0


def live_seconds() -> float:
    """How often each open page compares its change count (the watcher polls twice as often)."""
    return min(10.0, max(0.2, float(settings.get("live_seconds"))))


class Watcher:
    """The change count of one database file, kept current by one thread."""

    def __init__(self, db: str, every: float) -> None:
        self.db = db
        self.every = every
        self.stamp: Any = None
        self.changes = 0
        self.unreadable = False  # the last poll could not read the stamp at all
        self.asked = time.monotonic()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def version(self) -> int:
        """How many changes were seen: what a page compares (no query)."""
        self.asked = time.monotonic()
        self._ensure_running()
        return self.changes

    def poll(self) -> None:
        """Read the stamp once; count a change. Busy or unreadable: try at the next poll."""
        try:
            stamp = data.stamp(self.db, timeout=min(self.every, 0.5))
        except Exception:  # a page shows the database's problem itself
            self.unreadable = True
            return
        if stamp is None:
            return
        with self._lock:
            back, self.unreadable = self.unreadable, False
            if stamp != self.stamp or back:
                first = self.stamp is None
                self.stamp = stamp
                if not first or back:  # pages that said it could not be read read again
                    self.changes += 1

    def _ensure_running(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(
                target=self._run, name=f"domino-live:{self.db}", daemon=True
            )
            self._thread.start()

    def _run(self) -> None:
        while time.monotonic() - self.asked < IDLE_SECONDS and not self._stop.is_set():
            started = time.monotonic()
            self.poll()
            self._stop.wait(max(0.0, self.every - (time.monotonic() - started)))

    def stop(self) -> None:
        """End the thread (waits for a poll under way: DuckDB must not be mid-query when
        the interpreter exits)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)


_watchers: dict[str, Watcher] = {}
_watchers_lock = threading.Lock()


def stop_all() -> None:
    with _watchers_lock:
        watchers = list(_watchers.values())
        _watchers.clear()
    for w in watchers:
        w.stop()


atexit.register(stop_all)


def watcher() -> Watcher:
    """The process's watcher of the dashboard's database (started on first use)."""
    db = data.db_path()
    with _watchers_lock:
        w = _watchers.get(db)
        if w is None:
            w = _watchers[db] = Watcher(db, live_seconds() / 2)
    return w


def _seen_key(name: str) -> str:
    return f"_live_seen_{name}"


def mark(name: str) -> None:
    """Call before a live part of a page reads its data: what it shows is this change."""
    import streamlit as st

    st.session_state[_seen_key(name)] = watcher().version()


def follow(name: str) -> None:
    """Place once per page, after the live part: every ``live_seconds`` it compares the
    change count with the one :func:`mark` kept and reruns the page when they differ."""
    from dashboard import failures

    failures.fragment(_check, run_every=live_seconds())(name)


def _check(name: str) -> None:
    import streamlit as st

    key = _seen_key(name)
    now = watcher().version()
    seen = st.session_state.get(key)
    if seen is None:
        st.session_state[key] = now
    elif now != seen:
        st.session_state[key] = now
        # a fragment cannot rerun another one from its body: the page reruns, and reads
        # its data from the cache the watcher's stamp keys (one query per change, not per
        # screen)
        st.rerun()
