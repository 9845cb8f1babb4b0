"""Named points where a process can be made to die on purpose, for crash tests.

``DOMINO_FAILPOINT=<name>`` in a process's environment makes it kill itself with SIGKILL
when it reaches the point of that name: exactly the moment a test wants to prove safe,
with none of the luck of a kill sent from outside at a chosen time. Unset (always, in
use), a point costs one lookup in the environment.

The points (:mod:`pipeline.ingest.writer`):

- ``load-started``: the ingest log's row for the load is committed, nothing else;
- ``load-writing``: every row of the load is written inside its transaction, which is
  not committed;
- ``load-committed``: the load is committed, its rating update has not begun.
"""

import os
import signal

#: The environment variable naming the point to die at.
ENV = "DOMINO_FAILPOINT"

POINTS = ("load-started", "load-writing", "load-committed")


def reach(name: str) -> None:
    """Die here (SIGKILL, no clean-up of any kind) when the environment names this point."""
    if os.environ.get(ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
