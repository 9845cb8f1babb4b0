"""A crash mid-load (issue #7): ``domino ingest`` killed with SIGKILL at random moments.

After every kill the database opens (read-only, as the dashboard opens it), every match
is whole — the version before the load or the one it brings, never a mix — and the
ingest log marks a load that started writing but never finished as ``interrupted``.
Loading the same files again completes the work, and the standings then equal those of
a clean load. The loads alternate between a large first load and a correction of it
(with ``--reason``, so the automatic backup before a correction is killed too); every
backup file left with its final name must open and be consistent.

See :func:`simulator.stress.crash.crash_campaign` for the checks made after each kill.
"""

import pytest

from simulator.stress import crash_campaign


def test_a_few_kills_while_loading_leave_every_match_whole(tmp_path):
    figures = crash_campaign(tmp_path, kills=3, seed=7, hands=1500, say=lambda _m: None)
    assert figures["matches_lost"] == 0
    assert figures["kills"] >= 1


@pytest.mark.slow
def test_two_dozen_kills_of_a_20000_hand_load(tmp_path):
    lines: list[str] = []
    figures = crash_campaign(tmp_path, kills=24, seed=2024, hands=20_000, say=lines.append)
    assert figures["hands"] >= 20_000
    assert figures["matches_lost"] == 0
    assert figures["kills"] >= 20, "\n".join(lines)
    # Kills aimed at the write phase must have caught some loads mid-transaction.
    assert figures["outcomes"].get("killed while writing (log says interrupted)", 0) >= 1, (
        "\n".join(lines)
    )
    assert figures["interrupted_in_log"] >= 1
