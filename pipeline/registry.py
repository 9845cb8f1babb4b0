"""A league's registry with history: what an import would change, and applying it.

A registry belongs to a league (``events.league``); memberships have a valid-from date
and the group an event counts a player for is read on the event's date (view
``event_members``). An import is tried inside a transaction that is rolled back: the
standings before and after are compared, so the diff names exactly the rows that move.
One that changes nothing loaded matches use applies at once; otherwise the caller needs a
reason (``domino players import --apply --reason``), which the history keeps.
"""

import difflib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import duckdb
import polars as pl

from pipeline import messages, ratings
from pipeline.players import (
    DATES,
    RegistryConflict,
    _rows,
    alias_map,
    column_label,
    conflicts,
    group_spellings,
)
from pipeline.scoring.rescore import event_sizes, rescore_within
from pipeline.store.db import frame, insert_frame, register

DEFAULT_LEAGUE = "default"
_MAX_REASONS = 20
_MEMBERS = 'SELECT m.event, m.player_key, m."group", m.role FROM event_members m'
_NAMES = (
    "SELECT DISTINCT t.player_key, p.player FROM table_standings_t t "
    "JOIN players p ON p.player_key = t.player_key"
)
_EVENT_ROWS = "SELECT event, player_key, player, points, rank FROM event_standings"
_GROUP_ROWS = 'SELECT event, "group", points, rank FROM group_standings'
# the same rows of some events only (a league move): the events as one list parameter
_MEMBERS_OF = (
    'SELECT m.event, m.player_key, m."group", m.role FROM event_members m '
    "WHERE m.event IN (SELECT unnest(?))"
)
_EVENT_ROWS_OF = (
    "SELECT event, player_key, player, points, rank FROM event_standings "
    "WHERE event IN (SELECT unnest(?))"
)
_GROUP_ROWS_OF = (
    'SELECT event, "group", points, rank FROM group_standings WHERE event IN (SELECT unnest(?))'
)


class DiffChanged(Exception):
    """The loaded events changed since the diff was shown: show the new one (``plan``)."""

    def __init__(self, plan: "ImportPlan") -> None:
        super().__init__("the import would now change other rows; check it again")
        self.plan = plan


@dataclass
class ImportPlan:
    """What an import would change in loaded events (empty frames: nothing)."""

    league: str
    players: int
    added: list[str]
    moved: pl.DataFrame = field(default_factory=pl.DataFrame)  # event, player, old, new
    renamed: pl.DataFrame = field(default_factory=pl.DataFrame)  # player_key, old, new
    merged: pl.DataFrame = field(default_factory=pl.DataFrame)  # event, player
    standings: pl.DataFrame = field(default_factory=pl.DataFrame)
    leagues: pl.DataFrame = field(default_factory=pl.DataFrame)  # event, old, new (a move)

    @property
    def needs_reason(self) -> bool:
        return any(f.height for f in (self.moved, self.renamed, self.merged, self.standings))

    def lines(self, lang: str = "en") -> list[str]:
        """The diff, one sentence each: players, groups, then the standings rows."""

        def say(mid: str, **params: object) -> str:
            return messages.render(f"registry_diff.{mid}", params, lang)

        none = say("no_group")
        out = [
            say("league", event=r["event"], old=r["old"], new=r["new"])
            for r in self.leagues.iter_rows(named=True)
        ]
        out += [
            say(
                "moved",
                player=r["player"],
                old=r["old"] or none,
                new=r["new"] or none,
                event=r["event"],
            )
            for r in self.moved.iter_rows(named=True)
        ]
        out += [
            say("renamed", old=r["old"], new=r["new"]) for r in self.renamed.iter_rows(named=True)
        ]
        out += [
            say("merged", player=r["player"], event=r["event"])
            for r in self.merged.iter_rows(named=True)
        ]
        for r in self.standings.iter_rows(named=True):
            old, new = (
                say("no_row")
                if r[f"{w}_points"] is None
                else say("points", points=r[f"{w}_points"], rank=r[f"{w}_rank"])
                for w in ("old", "new")
            )
            level = say(f"level.{r['level']}")
            out.append(say("row", event=r["event"], level=level, who=r["who"], old=old, new=new))
        return out


def check(con: duckdb.DuckDBPyConnection, reg: pl.DataFrame, league: str = DEFAULT_LEAGUE) -> None:
    """Raise :class:`RegistryConflict` (rows named) when the import of ``reg`` into
    ``league`` must be refused whole."""
    found = conflicts(con, reg)
    for c in DATES:
        bad = reg.filter(
            pl.col(c).is_not_null() & pl.col(c).str.to_date("%Y-%m-%d", strict=False).is_null()
        )
        found += [
            messages.ref(
                "registry_conflict.date",
                {
                    "at": f"{r['_file']}:{r['_line']}",
                    "column": column_label(r.get("_spelled"), c),
                    "value": repr(r[c]),
                },
            )
            for r in bad.iter_rows(named=True)
        ]
    found += _reserve_groups(con, reg)
    found += _group_spellings(con, reg, league)
    if found:
        if len(found) > _MAX_REASONS:
            more = len(found) - _MAX_REASONS
            found = [*found[:_MAX_REASONS], messages.ref("registry_conflict.more", {"more": more})]
        raise RegistryConflict(found)


def _reserve_groups(con: duckdb.DuckDBPyConnection, reg: pl.DataFrame) -> list[dict[str, Any]]:
    """A reserve of a group no player of the file or the registry is a member of: most
    often a misspelt group (``KG Tamalatte``), which would make a group of its own in the
    group standings, holding the reserve alone (rule 23: a reserve plays for a group)."""
    if "reserve_for" not in reg.columns:
        return []
    asked = reg.filter(pl.col("reserve_for").is_not_null())
    if asked.height == 0:
        return []
    groups = set(reg.get_column("group").drop_nulls().to_list()) | {
        str(g) for (g,) in con.execute('SELECT DISTINCT "group" FROM memberships').fetchall()
    }
    known = sorted(groups)
    unknown = asked.filter(~pl.col("reserve_for").is_in(known))
    return [
        messages.ref(
            "registry_conflict.reserve_group",
            {
                "at": f"{r['_file']}:{r['_line']}",
                "player": r["player"],
                "group": r["reserve_for"],
                "close": ", ".join(_closest_groups(r["reserve_for"], known)) or "-",
            },
        )
        for r in unknown.iter_rows(named=True)
    ]


#: Rows of one group written another way that a conflict names (the rest are counted).
_SPELLING_ROWS = 3


def _group_spellings(
    con: duckdb.DuckDBPyConnection, reg: pl.DataFrame, league: str
) -> list[dict[str, Any]]:
    """A group written in other capitals (``kg a`` beside ``KG A``) in the file, or than
    ``league``'s registry writes it: each spelling would be a group of its own in the group
    (KG) standings, splitting its members' points between two rows without a word."""
    rows = reg.filter(pl.col("group").is_not_null()).select(
        "_file", "_line", "group", pl.col("group").str.to_lowercase().alias("_key")
    )
    if rows.height == 0:
        return []
    registered = group_spellings(con, league)
    first = rows.sort("_line").unique("_key", keep="first", maintain_order=True)
    found: list[dict[str, Any]] = []
    for key, part in rows.sort("_line").group_by("_key", maintain_order=True):
        spelled = registered.get(str(key[0]))
        where = None
        if spelled is None:
            head = first.filter(pl.col("_key") == key[0]).row(0, named=True)
            spelled, where = head["group"], f"{head['_file']}:{head['_line']}"
        for (group,), other in part.filter(pl.col("group") != spelled).group_by(
            "group", maintain_order=True
        ):
            ats = [f"{f}:{n}" for f, n in other.select("_file", "_line").iter_rows()]
            params = {
                "at_rows": ats[:_SPELLING_ROWS],
                "n": len(ats),
                "group": group,
                "spelled": spelled,
            }
            if where is None:
                found.append(
                    messages.ref(
                        "registry_conflict.group_spelling.registry", {**params, "league": league}
                    )
                )
            else:
                found.append(
                    messages.ref("registry_conflict.group_spelling", {**params, "at": where})
                )
    return found


def _closest_groups(group: str, known: list[str]) -> list[str]:
    """The known groups most like ``group``, the same one in other capitals first."""
    same = [g for g in known if g.lower() == group.lower()]
    return same or difflib.get_close_matches(group, known, n=3, cutoff=0.6)


def plan_import(
    con: duckdb.DuckDBPyConnection, reg: pl.DataFrame, league: str = DEFAULT_LEAGUE
) -> ImportPlan:
    """What importing ``reg`` into ``league`` would change; writes nothing (tried inside a
    transaction that is rolled back). Raises :class:`RegistryConflict` first."""
    check(con, reg, league)
    before = _snapshot(con)
    known = {
        k
        for (k,) in con.execute(
            "SELECT player_key FROM league_players WHERE league = ?", [league]
        ).fetchall()
    }
    con.execute("BEGIN TRANSACTION")
    try:
        _write_and_rescore(con, reg, league, datetime.now())
        counts = {"players": _rows(reg)[0].get_column("player_key").n_unique()}
        after = _snapshot(con)
    finally:
        con.execute("ROLLBACK")
    rows, _ = _rows(reg)
    added = (
        rows.filter(~pl.col("player_key").is_in(list(known)))
        .get_column("player")
        .unique(maintain_order=True)
    )
    return ImportPlan(
        league=league,
        players=counts["players"],
        added=added.to_list(),
        **_diff(before, after),
    )


def apply_import(
    con: duckdb.DuckDBPyConnection,
    reg: pl.DataFrame,
    league: str = DEFAULT_LEAGUE,
    *,
    plan: ImportPlan | None = None,
    reason: str | None = None,
    by: str | None = None,
    shown: list[str] | None = None,
) -> dict[str, int]:
    """Import ``reg`` into ``league``, rescore, and keep the import in the history with the
    diff and ``reason``; one transaction. Raises :class:`RegistryConflict` first, and
    :class:`DiffChanged` when ``shown`` (the diff a person confirmed) is no longer what
    the import would change."""
    if shown is not None:
        plan = plan_import(con, reg, league)
        if plan.lines() != shown:
            raise DiffChanged(plan)
    check(con, reg, league)
    now = datetime.now()
    con.execute("BEGIN TRANSACTION")
    try:
        counts = _write_and_rescore(con, reg, league, now)
        changes = "\n".join(plan.lines()) if plan is not None and plan.needs_reason else None
        file = reg["_file"][0] if "_file" in reg.columns and reg.height else None
        _record(con, league, file, now, by, reason, counts["players"], changes)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return counts


def _record(
    con: duckdb.DuckDBPyConnection,
    league: str,
    file: str | None,
    now: datetime,
    by: str | None,
    reason: str | None,
    players: int,
    changes: str | None,
) -> None:
    """One row of the registry history, inside the caller's transaction."""
    change_no = con.execute(
        "SELECT coalesce(max(change_no), 0) + 1 FROM registry_history"
    ).fetchall()[0]
    con.execute(
        "INSERT INTO registry_history (change_no, league, file, applied_at, applied_by, reason, players, changes) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [change_no[0] if change_no else 1, league, file, now, by, reason, players, changes],
    )


# --- moving events into a league -----------------------------------------------------------


def plan_move(con: duckdb.DuckDBPyConnection, events: list[str], league: str) -> ImportPlan:
    """What putting ``events`` in ``league`` would change in their standings (their groups
    are read from the league's registry on each event's date); writes nothing (tried
    inside a transaction that is rolled back)."""
    now = frame(
        con.sql(
            "SELECT event, coalesce(league, 'default') AS old FROM events "
            "WHERE event IN (SELECT unnest(?)) ORDER BY event",
            params=[events],
        )
    )
    moving = now.filter(pl.col("old") != league).with_columns(pl.lit(league).alias("new"))
    keys = moving.get_column("event").to_list()
    if not keys:
        return ImportPlan(league=league, players=0, added=[], leagues=moving)
    before = _snapshot(con, keys)
    con.execute("BEGIN TRANSACTION")
    try:
        _move(con, keys, league)
        after = _snapshot(con, keys)
    finally:
        con.execute("ROLLBACK")
    return ImportPlan(league=league, players=0, added=[], leagues=moving, **_diff(before, after))


def apply_move(
    con: duckdb.DuckDBPyConnection,
    events: list[str],
    league: str,
    *,
    reason: str | None = None,
    by: str | None = None,
    shown: list[str] | None = None,
) -> ImportPlan:
    """Put ``events`` in ``league``; a move that changes loaded standings is kept in the
    registry history with the diff and ``reason``. Raises :class:`DiffChanged` when
    ``shown`` (the diff a person confirmed) is no longer what the move would change."""
    plan = plan_move(con, events, league)
    if shown is not None and plan.lines() != shown:
        raise DiffChanged(plan)
    keys = plan.leagues.get_column("event").to_list() if plan.leagues.height else []
    if not keys:
        return plan
    con.execute("BEGIN TRANSACTION")
    try:
        _move(con, keys, league)
        if plan.needs_reason:
            _record(con, league, None, datetime.now(), by, reason, 0, "\n".join(plan.lines()))
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return plan


def _move(con: duckdb.DuckDBPyConnection, events: list[str], league: str) -> None:
    con.execute("UPDATE events SET league = ? WHERE event IN (SELECT unnest(?))", [league, events])


def history(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every import: ``change_no, league, file, applied_at, applied_by, reason, players, changes``."""
    return frame(con.sql("SELECT * FROM registry_history ORDER BY change_no"))


# --- writing ------------------------------------------------------------------------------


def _write_and_rescore(
    con: duckdb.DuckDBPyConnection, reg: pl.DataFrame, league: str, now: datetime
) -> dict[str, int]:
    """Write, then rescore every loaded event when the aliases changed (a merge changes
    whose hands are whose; groups and spellings are read by the views)."""
    before = alias_map(con)
    counts = write(con, reg, league, now)
    if alias_map(con) != before:
        rescore_within(con, event_sizes(con))
        ratings.refresh_within(con)  # merged players rated as one from their first table
    return counts


def write(
    con: duckdb.DuckDBPyConnection, reg: pl.DataFrame, league: str, now: datetime
) -> dict[str, int]:
    """Merge ``reg`` into ``league``'s registry inside the caller's transaction (no rescore).

    A player's fields not in the file keep their registered values; a row with a group
    replaces the membership of the same valid-from date (none: the one that holds always).
    """
    rows, aliases = _rows(reg)
    for c in ("member_since", "birth_date", "citizenship", "reserve_for"):
        if c not in rows.columns:
            rows = rows.with_columns(pl.lit(None, dtype=pl.String).alias(c))
    rows = rows.with_columns(pl.col(c).str.to_date("%Y-%m-%d", strict=False) for c in DATES)
    given = rows.group_by("player_key", maintain_order=True).agg(
        pl.col("player").last(),
        *(
            pl.col(c).drop_nulls().last()
            for c in ("city", "birth_date", "citizenship", "reserve_for")
        ),
    )
    old = frame(
        con.sql(
            "SELECT player_key, city, birth_date, citizenship, reserve_for FROM league_players WHERE league = ?",
            params=[league],
        )
    )
    old = old.select("player_key", *(pl.col(c).alias(f"_old_{c}") for c in old.columns[1:]))
    players = given.join(old, on="player_key", how="left").select(
        pl.lit(league).alias("league"),
        "player_key",
        "player",
        *(
            pl.coalesce(c, f"_old_{c}").alias(c)
            for c in ("city", "birth_date", "citizenship", "reserve_for")
        ),
        pl.lit(now).alias("imported_at"),
    )
    members = (
        rows.filter(pl.col("group").is_not_null())
        .unique(["player_key", "member_since"], keep="last", maintain_order=True)
        .select(
            pl.lit(league).alias("league"),
            "player_key",
            "group",
            pl.col("member_since").alias("valid_from"),
            pl.lit(now).alias("imported_at"),
        )
    )
    aliases = aliases.unique("alias_key", keep="last").select("alias_key", "player_key")
    keys = players.get_column("player_key").to_list()
    con.execute(
        "DELETE FROM league_players WHERE league = ? AND player_key IN (SELECT unnest(?))",
        [league, keys],
    )
    insert_frame(
        con,
        "league_players",
        players,
        "league, player_key, player, city, birth_date, citizenship, reserve_for, imported_at",
    )
    register(con, "_new_members", members)
    try:
        con.execute(
            "DELETE FROM memberships WHERE league = ? AND EXISTS (SELECT 1 FROM _new_members n "
            "WHERE n.player_key = memberships.player_key AND n.valid_from IS NOT DISTINCT FROM memberships.valid_from)",
            [league],
        )
    finally:
        con.unregister("_new_members")
    insert_frame(
        con, "memberships", members, 'league, player_key, "group", valid_from, imported_at'
    )
    con.execute(
        "DELETE FROM aliases WHERE alias_key IN (SELECT unnest(?))",
        [aliases["alias_key"].to_list()],
    )
    insert_frame(con, "aliases", aliases, "alias_key, player_key")
    # the registry table: each player's spelling, group in force today and city (any league)
    con.execute("DELETE FROM registry WHERE player_key IN (SELECT unnest(?))", [keys])
    con.execute(
        'INSERT INTO registry (player_key, player, "group", city, imported_at) '
        'SELECT lp.player_key, lp.player, (SELECT m."group" FROM memberships m WHERE m.league = lp.league '
        "AND m.player_key = lp.player_key AND (m.valid_from IS NULL OR m.valid_from <= current_date) "
        "ORDER BY m.valid_from DESC NULLS LAST LIMIT 1), lp.city, lp.imported_at "
        "FROM league_players lp WHERE lp.league = ? AND lp.player_key IN (SELECT unnest(?))",
        [league, keys],
    )
    return {"players": players.height, "aliases": aliases.height}


# --- the diff ------------------------------------------------------------------------------


def _snapshot(
    con: duckdb.DuckDBPyConnection, events: list[str] | None = None
) -> dict[str, pl.DataFrame]:
    """Memberships, names and standings rows of every loaded event (or only ``events``)."""
    if events is None:
        return {
            "members": frame(con.sql(_MEMBERS)),
            "names": frame(con.sql(_NAMES)),
            "event": frame(con.sql(_EVENT_ROWS)),
            "group": frame(con.sql(_GROUP_ROWS)),
        }
    return {
        "members": frame(con.sql(_MEMBERS_OF, params=[events])),
        "names": frame(con.sql(_NAMES)),
        "event": frame(con.sql(_EVENT_ROWS_OF, params=[events])),
        "group": frame(con.sql(_GROUP_ROWS_OF, params=[events])),
    }


def _diff(
    before: dict[str, pl.DataFrame], after: dict[str, pl.DataFrame]
) -> dict[str, pl.DataFrame]:
    names = before["names"].vstack(after["names"]).unique("player_key", keep="first")
    shown = dict(names.iter_rows())
    moved = (
        before["members"]
        .join(after["members"], on=["event", "player_key"], how="inner", suffix="_new")
        .filter(pl.col("group") != pl.col("group_new"))
        .select(
            "event",
            pl.col("player_key").replace_strict(shown, default=None).alias("player"),
            pl.col("group").alias("old"),
            pl.col("group_new").alias("new"),
        )
    )
    joined_in = (
        after["members"]
        .join(before["members"], on=["event", "player_key"], how="anti")
        .join(after["event"].select("event", "player_key"), on=["event", "player_key"], how="semi")
        .join(before["event"].select("event", "player_key"), on=["event", "player_key"], how="semi")
        .select(
            "event",
            pl.col("player_key").replace_strict(shown, default=None).alias("player"),
            pl.lit(None, dtype=pl.String).alias("old"),
            pl.col("group").alias("new"),
        )
    )
    left = (
        before["members"]
        .join(after["members"], on=["event", "player_key"], how="anti")
        .join(after["event"].select("event", "player_key"), on=["event", "player_key"], how="semi")
        .select(
            "event",
            pl.col("player_key").replace_strict(shown, default=None).alias("player"),
            pl.col("group").alias("old"),
            pl.lit(None, dtype=pl.String).alias("new"),
        )
    )
    renamed = (
        before["names"]
        .join(after["names"], on="player_key", suffix="_new")
        .filter(pl.col("player") != pl.col("player_new"))
        .select("player_key", pl.col("player").alias("old"), pl.col("player_new").alias("new"))
    )
    merged = (
        before["event"]
        .join(after["event"], on=["event", "player_key"], how="anti")
        .select("event", "player")
        .sort("event", "player")
    )
    return {
        "moved": pl.concat([moved, joined_in, left]).sort("event", "player"),
        "renamed": renamed.sort("old"),
        "merged": merged,
        "standings": _moved_rows(before, after),
    }


def _moved_rows(before: dict[str, pl.DataFrame], after: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """``event, level, who, old_points, new_points, old_rank, new_rank`` of every standings
    row that appears, disappears or changes points or rank."""
    parts = []
    for level, key, who in (
        ("group", ["event", "group"], "group"),
        ("event", ["event", "player_key"], "player"),
    ):
        b = before[level].rename({"points": "old_points", "rank": "old_rank"})
        a = after[level].rename({"points": "new_points", "rank": "new_rank"})
        both = b.join(a, on=key, how="full", coalesce=True, suffix="_new")
        if level == "event":
            both = both.with_columns(pl.coalesce("player_new", "player").alias("player"))
        parts.append(
            both.filter(
                pl.col("old_points").ne_missing(pl.col("new_points"))
                | pl.col("old_rank").ne_missing(pl.col("new_rank"))
            ).select(
                "event",
                pl.lit(level).alias("level"),
                pl.col(who).alias("who"),
                *(
                    pl.col(c).cast(pl.Int64)
                    for c in ("old_points", "new_points", "old_rank", "new_rank")
                ),
            )
        )
    return pl.concat(parts).sort("event", "level", "who")
