"""Whether an exception is a failure to report, a Rust extension's panic included.

A panic inside polars or the workbook reader reaches Python as pyo3's ``PanicException``,
which derives from ``BaseException``, not ``Exception``: an ``except Exception`` lets it
through as a traceback. This module imports nothing, so the command line can ask it on
any error without loading the engine.
"""


def is_failure(exc: BaseException) -> bool:
    """Any ``Exception``, or a Rust extension's panic; not Ctrl-C or an exit."""
    return isinstance(exc, Exception) or type(exc).__name__ == "PanicException"
