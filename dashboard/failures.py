"""An error no part of the dashboard expected (a bug), said as one sentence.

Streamlit's own box would show only the exception's class, in English, and leave the
rest of the screen blank. :func:`guarded` says in the page's language that the page
stopped, that no result is half saved and where the details are (the traceback goes to
the server's log). It wraps each page's run and each fragment, which reruns on its own.
With ``DOMINO_DEBUG`` set the error goes through to Streamlit, as it does on the command
line; the page tests set it, so a crash fails them.
"""

import functools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import streamlit as st
from streamlit.logger import get_logger

from dashboard import i18n
from dashboard.i18n import t
from pipeline import messages
from pipeline.messages import Refused
from pipeline.panics import disk_full, disk_full_params, is_failure
from pipeline.store.db import DatabaseBusy

_LOG = get_logger(__name__)


@contextmanager
def guarded(where: str) -> Iterator[None]:
    """Run the block; an unexpected error in it becomes the one sentence and a log entry
    naming ``where`` (a page's address, a fragment's function). A refusal no page caught
    (:class:`pipeline.messages.Refused`: a setting of the wrong kind, a correction's copy
    that could not be taken) is its own sentence, and so is a database a load is writing
    (:class:`DatabaseBusy`) that no page caught, and a write that found its disk full:
    what the user entered stays on the page (widgets keep their state), to be saved again
    once there is room. Streamlit's rerun and stop (not ``Exception``) and Ctrl-C pass
    through."""
    try:
        yield
    except Refused as exc:  # a refusal no page expected (a setting of the wrong kind)
        if exc.message_id == UNREACHABLE:  # on a page: what happens to what was entered
            _unreachable(exc.params)
        else:
            st.error(exc.sentence(i18n.language()), icon="⚠️")
    except DatabaseBusy:
        # a load began writing between two of the page's reads or as it saved: not a bug,
        # and nothing is half saved (each write is one transaction)
        st.warning(t("up.busy"))
    except BaseException as exc:
        if not is_failure(exc):
            raise
        if (full := disk_full(exc)) is not None:
            _LOG.error("%s: a write found no space left on a disk", where, exc_info=exc)
            _said("store.disk_full.page", disk_full_params(full))
            return
        if (lost := _connection_lost(exc)) is not None:
            _LOG.error("%s: the PostgreSQL server went away", where, exc_info=exc)
            _unreachable(lost)
            return
        if os.environ.get("DOMINO_DEBUG"):
            raise
        _LOG.error("%s stopped on an unexpected error", where, exc_info=exc)
        st.error(t("app.unexpected", what=type(exc).__name__), icon="⚠️")


def fragment(body: Callable[..., Any], *, run_every: float | None = None) -> Callable[..., Any]:
    """``st.fragment(body, run_every=...)`` whose every run is :func:`guarded`."""

    @functools.wraps(body)
    def run(*args: Any, **kwargs: Any) -> None:
        with guarded(body.__qualname__):
            body(*args, **kwargs)

    return st.fragment(run, run_every=run_every)


#: The message of a PostgreSQL store that cannot be reached (pipeline.store.postgres).
UNREACHABLE = "store.unreachable"


def _said(mid: str, params: dict[str, Any]) -> None:
    """The sentence of ``mid`` in the page's language, in an error box on its own."""
    lang = i18n.language()
    st.error(messages.on_its_own(messages.render(mid, params, lang), mid, lang), icon="⚠️")


def _unreachable(params: dict[str, Any]) -> None:
    """The PostgreSQL store cannot be reached, said on a page: nothing saved is lost, and
    what was entered is still there to save once the server is back."""
    _said(f"{UNREACHABLE}.page", params)


def _connection_lost(exc: BaseException) -> dict[str, Any] | None:
    """The message's parameters when ``exc`` is a PostgreSQL connection lost in the middle
    of a page (the server restarted or stopped), as the store says one it cannot reach;
    else None. psycopg is asked only when it is loaded: a file store never imports it."""
    pg = sys.modules.get("psycopg")
    if pg is None or not isinstance(exc, pg.OperationalError):
        return None
    from pipeline import settings
    from pipeline.store.postgres import StoreUnavailable

    return StoreUnavailable(str(settings.db_target()), exc).params
