"""A crash mid-load (issue #7): ``domino ingest`` killed with SIGKILL at random moments.

After every kill the database opens (read-only, as the dashboard opens it), every match
is whole — the version before the load or the one it brings, never a mix — and the
ingest log marks a load that started writing but never finished as ``interrupted``.
Loading the same files again completes the work, and the standings then equal those of
a clean load. The loads alternate between a large first load and a correction of it
(with ``--reason``, so the automatic backup before a correction is killed too); every
backup file left with its final name must open and be consistent.

See :func:`simulator.stress.crash.crash_campaign` for the checks made after each kill.

The tests taking ``store`` run once on a file and once on a PostgreSQL database of their
own (tests/pg.py), with a second database of that store as the clean reference. On
PostgreSQL a kill aimed "while it writes" lands while the commit holds its match locks,
and no backup file is made before a correction (the server keeps its own backups).
"""

import pytest

from simulator.stress import crash_campaign
from simulator.stress.runs import is_url


def targets(store, request) -> dict[str, str]:
    """The campaign's database and its clean reference, both on ``store``'s kind."""
    if not is_url(store):
        return {}
    return {"db": store, "ref": request.getfixturevalue("pg_cluster").new_database()}


def test_a_few_kills_while_loading_leave_every_match_whole(store, tmp_path, request):
    figures = crash_campaign(
        tmp_path, kills=5, seed=7, hands=1500, say=lambda _m: None, **targets(store, request)
    )
    assert figures["matches_lost"] == 0
    # kills 1, 3 and 5 by the process itself (pipeline/failpoints.py): after the log's first
    # row, before its commit, and after the commit but before the rating update
    assert figures["kills"] >= 3
    assert figures["outcomes"]["killed while writing (log says interrupted)"] >= 2
    assert figures["outcomes"]["load finished (kill came after the commit)"] >= 1


@pytest.mark.slow
def test_two_dozen_kills_of_a_20000_hand_load(tmp_path):
    """File only: on PostgreSQL one clean load of these 20,000 hands took 15 s here, so two
    dozen kills would take minutes; the quick campaign above and test_postgres.py's kill -9
    loop cover PostgreSQL."""
    lines: list[str] = []

    def say(line: str) -> None:  # printed too: pytest shows them if the campaign raises
        lines.append(line)
        print(line)

    figures = crash_campaign(tmp_path, kills=24, seed=2024, hands=20_000, say=say)
    assert figures["hands"] >= 20_000
    assert figures["matches_lost"] == 0
    # every other kill is made by the process itself at a named moment (pipeline/failpoints.py),
    # the three points in turn: 4 each; the others land at random and count only if the
    # load was still running
    outcomes = figures["outcomes"]
    assert figures["kills"] >= 12, "\n".join(lines)
    assert outcomes.get("killed while writing (log says interrupted)", 0) >= 8, "\n".join(lines)
    assert outcomes.get("load finished (kill came after the commit)", 0) >= 4, "\n".join(lines)
    assert figures["interrupted_in_log"] >= 8
