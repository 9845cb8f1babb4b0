"""Python's cyclic garbage collector during a load.

A load builds hundreds of thousands of small container objects that live until the
batch is written: a list of values per column read back from polars, an outcome per match
(each with its own list and dict). With the collector's default first threshold (700
new containers) a 1-million-hand rebuild ran 670 young, 61 middle and 4 full collections,
0.3 s in all, while the GIL stopped the rating thread beside them as well, and found 24
objects to free: these objects are released by their reference counts once the batch is
written. :func:`fewer_collections` raises the first threshold for as long as a load
runs, so the collector still runs, a hundred times less often (docs/performance.md,
5 December, second session; at ten million hands a rebuild took 135 s before this and
the string layout of :func:`pipeline.store.db.register`, 125 s after).

The threshold is the process's, shared by every thread: the dashboard may run several
loads at once, so the first to start saves the thresholds and the last to end puts them
back.
"""

import contextlib
import gc
import threading
from collections.abc import Iterator

#: The first generation's threshold while a load runs (Python's default is 700).
LOAD_THRESHOLD = 100_000

_lock = threading.Lock()
_running = 0
_saved: tuple[int, ...] = ()


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect young objects every :data:`LOAD_THRESHOLD` new containers inside the block."""
    global _running, _saved
    with _lock:
        if _running == 0:
            _saved = gc.get_threshold()
            if _saved[0]:  # (0: collection switched off by whoever runs us; left so)
                gc.set_threshold(max(LOAD_THRESHOLD, _saved[0]), *_saved[1:])
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                gc.set_threshold(*_saved)
