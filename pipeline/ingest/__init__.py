"""From a sheet to the database: read → normalise → resolve → check → score → version → commit.

The rooms, in the order an upload passes through them (each imports only rooms before it):

- :mod:`~pipeline.ingest.read` and :mod:`~pipeline.ingest.columns`: bytes to text cells
  with file and line; :mod:`~pipeline.ingest.normalize` and :mod:`~pipeline.ingest.tiles`:
  typed cells and the problems of reading them;
- :mod:`~pipeline.ingest.resolve`: each event's ruleset, each name's player;
- :mod:`~pipeline.ingest.checks` (rows and matches, as the ruleset asks) and
  :mod:`~pipeline.ingest.cross` (across matches and against what is loaded);
- :mod:`~pipeline.ingest.plan`: the steps in order, scoring through
  :mod:`pipeline.scoring.models`; :mod:`~pipeline.ingest.versions`: new, update or
  correction; :mod:`~pipeline.ingest.commit`: one transaction per batch;
- :mod:`~pipeline.ingest.service`: the one service the CLI and the dashboard call.
"""

from pipeline.ingest.commit import begin_ingest, commit
from pipeline.ingest.outcome import MatchOutcome, Plan
from pipeline.ingest.plan import plan
from pipeline.ingest.service import (
    PlanChanged,
    Preview,
    ingest,
    load,
    merge,
    plan_events,
    preview,
    read_all,
    signature,
)

__all__ = [
    "MatchOutcome", "Plan", "PlanChanged", "Preview", "begin_ingest", "commit", "ingest",
    "load", "merge", "plan", "plan_events", "preview", "read_all", "signature",
]
