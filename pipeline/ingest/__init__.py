"""From a sheet to the database: read → normalise → resolve → check → score → version → commit.

The rooms, in the order an upload passes through them (each imports only rooms before it):

- :mod:`~pipeline.ingest.read` (CSV; workbooks in :mod:`~pipeline.ingest.workbook`, their
  sheet XML scanned in :mod:`~pipeline.ingest.sheetxml`), :mod:`~pipeline.ingest.sheet` and
  :mod:`~pipeline.ingest.columns`: bytes to text cells with file and line; :mod:`~pipeline.ingest.normalize` and :mod:`~pipeline.ingest.tiles`:
  typed cells and the problems of reading them;
- :mod:`~pipeline.ingest.resolve`: each event's ruleset, each name's player;
- :mod:`~pipeline.ingest.checks` (rows and matches, as the ruleset asks) and
  :mod:`~pipeline.ingest.cross` (across matches and against what is loaded);
- :mod:`~pipeline.ingest.planner`: the steps in order, scoring through
  :mod:`pipeline.scoring.models`; :mod:`~pipeline.ingest.versions`: new, update or
  correction; :mod:`~pipeline.ingest.writer`: one transaction per batch;
- :mod:`~pipeline.ingest.service`: the one service the CLI and the dashboard call.
"""

from typing import Any

#: The public names and the room each lives in; imported when first asked for, so that a
#: room (or :mod:`pipeline.players`) can import another room without the whole package.
_ROOMS = {
    "begin_ingest": "writer",
    "commit": "writer",
    "MatchOutcome": "outcome",
    "Plan": "outcome",
    "plan": "planner",
    "PlanChanged": "service",
    "Preview": "service",
    "ingest": "service",
    "load": "service",
    "merge": "service",
    "plan_events": "service",
    "preview": "service",
    "read_all": "service",
    "signature": "service",
}
__all__ = sorted(_ROOMS)


def __getattr__(name: str) -> Any:
    room = _ROOMS.get(name)
    if room is None:
        raise AttributeError(f"module 'pipeline.ingest' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"pipeline.ingest.{room}"), name)
