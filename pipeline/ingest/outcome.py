"""What an upload would do and did: one outcome per match, and the plan that holds them."""

import getpass
import os
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from pipeline import messages
from pipeline.ingest.match import VERSION_SCHEMA, WRITES
from pipeline.problems import ERROR


@dataclass(slots=True)
class MatchOutcome:
    event: str
    round: str
    table: str
    status: str  # new | update | correction | unchanged | rejected
    file: str
    hands: int = 0
    version: int | None = None
    message: str = ""  # English, rendered from message_id and params
    changed_hands: list[int] = field(default_factory=list)
    message_id: str = ""
    params: dict[str, Any] = field(default_factory=dict)

    def say(self, mid: str, params: dict[str, Any]) -> None:
        """Set the outcome's message from its id and parameters."""
        self.message_id, self.params = mid, params
        self.message = messages.render(mid, params)

    def render(self, lang: str = "en") -> str:
        return (
            messages.render(self.message_id, self.params, lang) if self.message_id else self.message
        )


@dataclass
class Plan:
    files: list[dict[str, object]]
    problems: pl.DataFrame
    outcomes: list[MatchOutcome]
    hands: pl.DataFrame
    hand_points: pl.DataFrame
    table_standings: pl.DataFrame
    previous: pl.DataFrame  # loaded hands of the matches this plan replaces
    new_events: dict[str, str]
    names: pl.DataFrame
    reason: str | None
    by: str
    ingest_id: int | None = None
    #: ``event, round, table, version, content_hash`` of every match this plan writes
    versions: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=VERSION_SCHEMA))
    #: temporary tables on the planning connection that hold hand points in place of
    #: ``hand_points`` (a bulk batch's, :func:`pipeline.scoring.models.score_kept`), for
    #: every match scored: the commit writes those of the matches in ``versions`` and
    #: drops the tables
    kept_points: list[str] = field(default_factory=list)
    #: each choice given for rows that do not say (``event``, ``ruleset``) -> its value and
    #: the rows it filled: one that filled none was ignored, and the load says so
    filled: dict[str, tuple[str, int]] = field(default_factory=dict)

    @property
    def errors(self) -> pl.DataFrame:
        return self.problems.filter(pl.col("severity") == ERROR)

    @property
    def warnings(self) -> pl.DataFrame:
        return self.problems.filter(pl.col("severity") != ERROR)

    def release(self) -> "Plan":
        """Drop the row frames once written (the database has them); keep the report."""
        for name in ("hands", "hand_points", "table_standings", "previous", "names", "versions"):
            setattr(self, name, getattr(self, name).head(0))
        return self

    @property
    def unused_choices(self) -> dict[str, str]:
        """The choices given for rows that do not say that no row took (``--event`` for
        files whose every row names its event), by name."""
        return {name: value for name, (value, n) in self.filled.items() if n == 0}

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def writes(self) -> list[MatchOutcome]:
        return [o for o in self.outcomes if o.status in WRITES]

    @property
    def written_events(self) -> list[str]:
        """The events this plan writes a match of, by name."""
        return sorted({o.event for o in self.writes if o.event})

    @property
    def exit_code(self) -> int:
        """0 when every match loaded (or was already loaded), 1 when anything was rejected."""
        file_errors = any(f.get("error") for f in self.files)
        return 1 if file_errors or self.count("rejected") or self.errors.height else 0


def default_user() -> str:
    try:
        return os.environ.get("DOMINO_USER") or getpass.getuser()
    except Exception:
        return "unknown"
