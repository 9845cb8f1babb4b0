"""Read the next batch while this one is planned and committed.

Reading a file (parsing its CSV or workbook, hashing it) needs nothing from the
database, so :func:`read_ahead` runs a batch iterator one batch ahead in a thread of its
own: while the database takes a batch's rows (on PostgreSQL the client only waits for
the server then), the next file is already being parsed. Batches come out in order, and
an error raised while reading one is raised where that batch would have come out. At
most one batch waits, so memory holds two batches at most; a consumer that stops early
(an error, a refused plan) stops the reader too.
"""

import queue
import threading
from collections.abc import Iterator
from typing import TypeVar, cast

T = TypeVar("T")

_DONE = object()
#: Seconds between the reader's checks that its consumer is still there.
_POLL = 0.1


def read_ahead(items: Iterator[T]) -> Iterator[T]:
    """``items``, produced one ahead in a background thread."""
    waiting: queue.Queue[object] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def hand_over(item: object) -> bool:
        while not stop.is_set():
            try:
                waiting.put(item, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not hand_over(item):
                    return
        except BaseException as exc:  # raised on the consumer's side, in order
            hand_over(_Raised(exc))
            return
        finally:
            close = getattr(items, "close", None)
            if close is not None:  # a generator's own clean-up runs now, here
                close()
        hand_over(_DONE)

    worker = threading.Thread(target=produce, name="domino-read-ahead", daemon=True)
    worker.start()
    try:
        while True:
            item = waiting.get()
            if item is _DONE:
                return
            if isinstance(item, _Raised):
                raise item.exc
            yield cast(T, item)
    finally:
        stop.set()
        worker.join()


class _Raised:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc
