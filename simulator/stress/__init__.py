"""Stress helpers shared by the reliability tests and ``bench/reliability_run.py``.

Everything here drives the engine from outside, as a referee's file or a second process
would, and checks one property: **a match is in the database whole or not at all**.

* :mod:`simulator.stress.checks` — that property as code (``check_consistent``,
  ``check_load``), and the example logs in ``tests/data/fuzz``;
* :mod:`simulator.stress.runs` — a large file made from the examples, ``domino`` in a
  subprocess, snapshots of the results;
* :mod:`simulator.stress.crash` — ``domino ingest`` killed at random moments;
* :mod:`simulator.stress.fuzz` — hostile inputs (hypothesis strategies) and one checked load;
* :mod:`simulator.stress.races` — two or three writers at once.

The first three are re-exported here; ``fuzz`` (which needs hypothesis) and ``races`` are
imported by name.
"""

from simulator.stress.checks import (
    FUZZ,
    LOGS,
    ROOT,
    UNHAS_LOGS,
    MatchKey,
    check_consistent,
    check_load,
    check_problems,
    current_matches,
    file_matches,
    memory_db,
    ruleset_of,
)
from simulator.stress.crash import crash_campaign
from simulator.stress.runs import (
    cli_env,
    correct_frame,
    current_content,
    domino,
    domino_cmd,
    domino_popen,
    finish,
    popen,
    replicated_frame,
    snapshot,
    write_csv,
)

__all__ = [
    "FUZZ",
    "LOGS",
    "ROOT",
    "UNHAS_LOGS",
    "MatchKey",
    "check_consistent",
    "check_load",
    "check_problems",
    "cli_env",
    "correct_frame",
    "crash_campaign",
    "current_content",
    "current_matches",
    "domino",
    "domino_cmd",
    "domino_popen",
    "file_matches",
    "finish",
    "memory_db",
    "popen",
    "replicated_frame",
    "ruleset_of",
    "snapshot",
    "write_csv",
]
