"""Whether an exception is a failure to report, a Rust extension's panic included, and
whether it says a disk is full.

A panic inside polars or the workbook reader reaches Python as pyo3's ``PanicException``,
which derives from ``BaseException``, not ``Exception``: an ``except Exception`` lets it
through as a traceback. This module imports nothing but the standard library, so the
command line can ask it on any error without loading the engine.
"""

import errno
import re

#: How DuckDB, PostgreSQL and the C library say a write found its disk full.
NO_SPACE = "No space left on device"
#: PostgreSQL's SQLSTATE ``disk_full``.
DISK_FULL_SQLSTATE = "53100"
#: :func:`disk_full`'s answer for a full disk on a PostgreSQL server.
POSTGRES = "postgres"


def is_failure(exc: BaseException) -> bool:
    """Any ``Exception``, or a Rust extension's panic; not Ctrl-C or an exit."""
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"


def disk_full(exc: BaseException) -> str | None:
    """Where a write found no space left, when ``exc`` or an error it was raised from
    says so: the file it names (an ``OSError``'s, the destination of a copy, or DuckDB's
    quoted ``Could not write file "…"``, its write-ahead log named as the database),
    :data:`POSTGRES` for a PostgreSQL server's disk, ``""`` when it names no file; None
    for any other error."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if getattr(e, "sqlstate", None) == DISK_FULL_SQLSTATE:
            return POSTGRES
        if isinstance(e, OSError) and e.errno == errno.ENOSPC:
            # a copy names its source first and what it was writing second (shutil)
            return str(e.filename2 or e.filename or "")
        text = str(e)
        if NO_SPACE in text:
            if type(e).__module__.startswith("psycopg"):
                return POSTGRES
            quoted = re.search(r'"([^"]+)"', text)
            return quoted.group(1).removesuffix(".wal") if quoted else ""
        e = e.__cause__ or e.__context__
    return None


def disk_full_params(where: str) -> dict[str, object]:
    """The parameters of the messages ``store.disk_full``: ``where`` (:func:`disk_full`'s
    answer) said as a message of its own."""
    if where == POSTGRES:
        place = {"id": "disk.postgres", "params": {}}
    elif where:
        place = {"id": "disk.file", "params": {"file": where}}
    else:
        place = {"id": "disk.unnamed", "params": {}}
    return {"where": [place]}
