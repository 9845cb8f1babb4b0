"""Events as records: created before any result, with a title, date, venue, level and
ruleset, and their entrants (``domino event create`` and ``domino event roster``).

A load of an event created here plays under the event's ruleset (the loader reads the
``events`` table first, pipeline/ingest/resolve.py); its writer leaves the row as it is.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from importlib import resources
from pathlib import Path

import duckdb
import polars as pl

from pipeline import messages, ratings_due, rulesets
from pipeline.players import (
    alias_map,
    column_label,
    has_registry,
    player_key,
    read_registry,
    registered_like,
)
from pipeline.problems import FileRejected
from pipeline.store.db import frame, insert_frame

LEVELS = ("group", "kabupaten", "kota", "provinsi", "nasional")
_REPORTS = resources.files("pipeline.sql") / "reports"


class EventRefused(messages.Refused):
    """A change to an event, its roster or its round order refused whole, in one sentence."""


@dataclass(frozen=True)
class EventInfo:
    event: str
    ruleset: str
    title: str | None
    event_date: date | None
    venue: str | None
    level: str | None
    league: str = "default"

    @property
    def in_league(self) -> str | None:
        """``league L`` for an event outside the league ``default`` (else None): what a
        summary line says of its league."""
        return None if self.league == "default" else f"league {self.league}"

    @property
    def shown(self) -> str:
        """How the event is named on screens: its title, else its id."""
        return self.title or self.event


def unknown(con: duckdb.DuckDBPyConnection, names: Iterable[str]) -> list[str]:
    """Those of ``names`` that no event is called, each once, in the order given (a typo
    in a command's ``--event``, a user's scope, a league's events)."""
    wanted = list(dict.fromkeys(names))
    if not wanted:
        return []
    known = {
        r[0]
        for r in con.execute(
            "SELECT event FROM events WHERE event IN (SELECT unnest(?))", [wanted]
        ).fetchall()
    }
    return [e for e in wanted if e not in known]


def get(con: duckdb.DuckDBPyConnection, event: str) -> EventInfo | None:
    # every row fetched: a result left open would refuse the connection's next ``sql()``
    rows = con.execute(
        "SELECT event, ruleset, title, event_date, venue, level, coalesce(league, 'default') FROM events WHERE event = ?",
        [event],
    ).fetchall()
    return EventInfo(*rows[0]) if rows else None


def has_results(con: duckdb.DuckDBPyConnection, event: str) -> bool:
    """Whether a match of ``event`` counts (loaded and not withdrawn)."""
    return bool(
        con.execute(
            "SELECT count(*) FROM match_versions WHERE event = ? AND current "
            "AND kind <> 'withdrawn'",
            [event],
        ).fetchall()[0][0]
    )


def titles(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """``event → title`` of every event (its id where it has no title)."""
    rows = con.execute("SELECT event, coalesce(title, event) FROM events").fetchall()
    return {str(e): str(t) for e, t in rows}


def find(con: duckdb.DuckDBPyConnection, text: str) -> list[str]:
    """Events whose id or title contains ``text`` in any case: those it names whole first
    (a dashboard address carries an event's title), then newest first (the order of
    :func:`pipeline.standings.queries.events`). What a person typed to find an event."""
    rows = con.execute(
        "SELECT event FROM events WHERE contains(lower(event), lower(?)) "
        "OR contains(lower(coalesce(title, '')), lower(?)) "
        "ORDER BY lower(event) = lower(?) OR lower(coalesce(title, '')) = lower(?) DESC, "
        "created_at DESC, event",
        [text, text, text, text],
    ).fetchall()
    return [str(r[0]) for r in rows]


def undated(con: duckdb.DuckDBPyConnection, names: list[str]) -> list[tuple[str, str, date]]:
    """Of ``names``, the events without a date: ``(event, ruleset, the day it was created)``,
    in name order. The rating ladders take such an event's tables as played that day."""
    if not names:
        return []
    rows = con.execute(
        "SELECT event, ruleset, CAST(created_at AS DATE) FROM events "
        "WHERE event_date IS NULL AND event IN (SELECT unnest(?)) ORDER BY event",
        [sorted(names)],
    ).fetchall()
    return [(str(e), str(r), d) for e, r, d in rows]


def undated_warning(found: list[tuple[str, str, date]], lang: str = "en") -> str:
    """One sentence for the events :func:`undated` found (at least one)."""
    if len(found) == 1:
        event, _ruleset, day = found[0]
        return messages.render("undated.one", {"event": event, "day": str(day)}, lang)
    return messages.render(
        "undated.many",
        {"count": len(found), "events": [e for e, _, _ in found[:3]]},
        lang,
    )


def save(
    con: duckdb.DuckDBPyConnection,
    event: str,
    ruleset: str,
    *,
    title: str | None = None,
    event_date: date | None = None,
    venue: str | None = None,
    level: str | None = None,
    league: str | None = None,
    by: str | None = None,
) -> str:
    """Create ``event`` or update the fields given; returns ``created`` or ``updated``.

    A field left ``None`` keeps its stored value. Changing the ruleset of an event with
    loaded matches is refused (its results were scored under the old one).
    """
    event = event.strip()
    if not event:
        raise EventRefused("event.no_id")
    if level is not None and level not in LEVELS:
        raise EventRefused("event.bad_level", {"level": repr(level), "levels": list(LEVELS)})
    book = rulesets.load(ruleset)
    old = get(con, event)
    if old is None:
        frame = pl.DataFrame(
            [
                {
                    "event": event,
                    "ruleset": book.name,
                    "params_hash": book.hash,
                    "models": book.models,
                    "created_at": datetime.now(),
                    "created_by": by,
                    "title": title,
                    "event_date": event_date,
                    "venue": venue,
                    "level": level,
                    "league": league,
                }
            ],
            schema={
                "event": pl.String,
                "ruleset": pl.String,
                "params_hash": pl.String,
                "models": pl.String,
                "created_at": pl.Datetime,
                "created_by": pl.String,
                "title": pl.String,
                "event_date": pl.Date,
                "venue": pl.String,
                "level": pl.String,
                "league": pl.String,
            },
        )
        insert_frame(
            con,
            "events",
            frame,
            "event, ruleset, params_hash, models, created_at, created_by, title, event_date, "
            "venue, level, league",
        )
        return "created"
    loaded = has_results(con, event)
    if old.ruleset != book.name:
        if loaded:
            raise EventRefused(
                "event.ruleset_fixed", {"event": event, "old": old.ruleset, "new": book.name}
            )
        con.execute(
            "UPDATE events SET ruleset = ?, params_hash = ?, models = ? WHERE event = ?",
            [book.name, book.hash, book.models, event],
        )
    if league is not None and league != old.league and loaded:
        # its groups would be read from another registry: domino league set shows the diff
        raise EventRefused(
            "event.league_loaded", {"event": event, "old": old.league, "new": league}
        )
    moved = event_date is not None and event_date != old.event_date
    # a new date places the event's tables elsewhere in play order: its ladder follows
    with ratings_due.moving(con, [book.name] if moved else []):
        con.execute(
            "UPDATE events SET title = coalesce(?, title), event_date = coalesce(?, event_date), "
            "venue = coalesce(?, venue), level = coalesce(?, level), "
            "league = coalesce(?, league) WHERE event = ?",
            [title, event_date, venue, level, league, event],
        )
    return "updated"


# --- the roster ------------------------------------------------------------------------


def read_roster(path: str | Path) -> pl.DataFrame:
    """A roster file (CSV/XLSX/ODS: ``player``, optional ``group``, and for a reserve
    ``replaces``, the member they play for, and ``consent``, how the member agreed: RULES
    rule 23) as ``player, group, replaces, consent, _file, _line``; a file that cannot be
    a roster raises :class:`FileRejected`, a row that cannot be one raises
    :class:`EventRefused` naming its file, line and column."""
    try:
        rows = read_registry(path)
    except FileRejected as exc:
        if exc.code in ("missing_column", "header_only"):
            raise FileRejected(
                exc.file, exc.code, exc.params, variant="roster", column=exc.column
            ) from exc
        raise
    keyed = rows.with_columns(pl.col("player").str.to_lowercase().alias("_key"))
    twice = keyed.filter(pl.col("_key").is_duplicated()).sort("_line")
    if twice.height:
        first, again = twice.row(0, named=True), twice.row(1, named=True)
        raise EventRefused(
            "roster.twice",
            {
                "file": again["_file"],
                "line": again["_line"],
                "column": column_label(again["_spelled"], "player"),
                "player": again["player"],
                "first": first["_line"],
            },
        )
    return rows.select("player", "group", "replaces", "consent", "_file", "_line", "_spelled")


def event_groups(
    con: duckdb.DuckDBPyConnection, event: str, *, entrants: bool = False
) -> pl.DataFrame:
    """``player_key, player, group, reserve_for`` of every player of the
    registry of ``event``'s league (with ``entrants``, of those on its roster only),
    ``group`` the one they belong to on the event's date
    (``pipeline/sql/reports/event_groups.sql``); empty for a league without a registry."""
    return frame(
        con.sql(
            (_REPORTS / "event_groups.sql").read_text(),
            params={"event": event, "entrants": entrants},
        )
    )


def checked_league(con: duckdb.DuckDBPyConnection, event: str) -> str | None:
    """The league whose registry a load of ``event`` checks every name against: its
    rulebook's ``require_registered``, and a registry in its league; else None. A name
    outside it is rejected on load, so a roster and a draw refuse it before anyone plays."""
    rows = con.execute(
        "SELECT ruleset, coalesce(league, 'default') FROM events WHERE event = ?", [event]
    ).fetchall()
    if not rows or rows[0][0] not in rulesets.registered_only():
        return None
    league = str(rows[0][1])
    return league if has_registry(con, league) else None


def unregistered(keyed: pl.DataFrame, registry: pl.DataFrame) -> pl.DataFrame:
    """The rows of ``keyed`` (with ``player_key``) whose player is not in ``registry``
    (:func:`event_groups`)."""
    return keyed.join(registry.select("player_key"), on="player_key", how="anti")


def set_roster(
    con: duckdb.DuckDBPyConnection, event: str, roster: pl.DataFrame, source: str
) -> int:
    """Replace ``event``'s entrants with ``roster``; names are keyed as a load keys them
    (the registry's aliases); the registry's spelling and group where the file has none."""
    if get(con, event) is None:
        raise EventRefused("roster.no_event", {"event": event})
    aliases = alias_map(con)
    keyed = roster.with_columns(
        player_key(pl.col("player"), aliases, clean=True).alias("player_key")
    )
    dup = keyed.filter(pl.col("player_key").is_duplicated()).sort("_line")
    if dup.height:
        row = dup.row(1, named=True)
        raise EventRefused(
            "roster.same_player",
            {
                "file": row["_file"],
                "line": row["_line"],
                "column": column_label(row.get("_spelled"), "player"),
                "player": row["player"],
                "first": dup["_line"][0],
            },
        )
    registry = event_groups(con, event)
    league = checked_league(con, event)
    if league is not None:
        _refuse_unregistered(league, keyed, registry)
    reg = frame(con.sql("SELECT player_key, player AS reg_player FROM registry"))
    for c in ("replaces", "consent"):  # a roster read elsewhere may not have them
        if c not in keyed.columns:
            keyed = keyed.with_columns(pl.lit(None, dtype=pl.String).alias(c))
    keyed = keyed.with_columns(
        player_key(pl.col("replaces"), aliases, clean=True).alias("replaces_key")
    )
    _refuse_unknown_replaced(keyed, reg)
    # the roster's own group is kept (the registry's, where the file gives none, is read
    # when the roster is: roster(), the draw), in the registry's spelling where only the
    # capitals differ
    grouped = registry.select("player_key", pl.col("group").alias("reg_group"))
    rows = (
        keyed.join(reg, on="player_key", how="left")
        .join(grouped, on="player_key", how="left")
        .select(
            pl.lit(event).alias("event"),
            "player_key",
            pl.coalesce("reg_player", "player").alias("player"),
            pl.when(pl.col("group").str.to_lowercase() == pl.col("reg_group").str.to_lowercase())
            .then(pl.col("reg_group"))
            .otherwise(pl.col("group"))
            .alias("group"),
            pl.lit(source).alias("source"),
            pl.lit(datetime.now()).alias("added_at"),
            pl.col("replaces_key").alias("replaces"),
            pl.col("consent").cast(pl.String),
        )
    )
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute("DELETE FROM entrants WHERE event = ?", [event])
        insert_frame(
            con,
            "entrants",
            rows,
            'event, player_key, player, "group", source, added_at, replaces, consent',
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return rows.height


def _refuse_unregistered(league: str, keyed: pl.DataFrame, registry: pl.DataFrame) -> None:
    """An entrant outside the registry of a league whose loads reject such names is
    refused with the roster's file, line and column: else they would be drawn, their
    sheet printed and played, and their table's result rejected on load."""
    outside = unregistered(keyed, registry)
    if outside.height == 0:
        return
    row = outside.sort("_line").row(0, named=True)
    names = registry.get_column("player").unique().sort().to_list()
    close = registered_like(pl.Series([row["player"]]), names, cutoff=0.6)[0]
    raise EventRefused(
        "roster.unregistered.more" if outside.height > 1 else "roster.unregistered",
        {
            "file": row["_file"],
            "line": row["_line"],
            "column": column_label(row.get("_spelled"), "player"),
            "player": row["player"],
            "league": league,
            "names": close or "-",
            "more": outside.height - 1,
        },
    )


def _refuse_unknown_replaced(keyed: pl.DataFrame, reg: pl.DataFrame) -> None:
    """A ``replaces`` cell naming the entrant of its own row, or someone outside the
    registry (where there is one), is refused with its file and line: the record of whom
    a reserve played for would name nobody (a misspelt member, a cell on the wrong row)."""
    itself = keyed.filter(pl.col("replaces_key") == pl.col("player_key")).sort("_line")
    if itself.height:
        row = itself.row(0, named=True)
        raise EventRefused(
            "roster.replaces_self",
            {
                "file": row["_file"],
                "line": row["_line"],
                "column": column_label(row.get("_spelled"), "replaces"),
                "player": row["player"],
            },
        )
    if reg.height == 0:
        return
    unknown = keyed.filter(pl.col("replaces_key").is_not_null()).join(
        reg.select(pl.col("player_key").alias("replaces_key")), on="replaces_key", how="anti"
    )
    if unknown.height == 0:
        return
    row = unknown.sort("_line").row(0, named=True)
    names = reg.get_column("reg_player").drop_nulls().unique().sort().to_list()
    close = registered_like(pl.Series([row["replaces"]]), names, cutoff=0.6)[0]
    raise EventRefused(
        "roster.replaces_unknown",
        {
            "file": row["_file"],
            "line": row["_line"],
            "column": column_label(row.get("_spelled"), "replaces"),
            "player": row["player"],
            "name": row["replaces"],
            "names": close or "-",
        },
    )


def clear_roster(con: duckdb.DuckDBPyConnection, event: str) -> int:
    """Remove every entrant of ``event`` (a roster set on the wrong event, before the event
    made by mistake is deleted); returns how many there were. Refused while a round of it
    has a current draw: its seating came from this roster (cancel the draw first)."""
    if get(con, event) is None:
        raise EventRefused("roster.no_event", {"event": event})
    from pipeline.draws import drawn_rounds

    drawn = drawn_rounds(con, event)
    if drawn:
        raise EventRefused("roster.drawn", {"event": event, "round": min(drawn)})
    n = int(con.execute("SELECT count(*) FROM entrants WHERE event = ?", [event]).fetchall()[0][0])
    con.execute("DELETE FROM entrants WHERE event = ?", [event])
    return n


def roster(con: duckdb.DuckDBPyConnection, event: str) -> pl.DataFrame:
    """``player_key, player, group, replaces, consent, registered`` of ``event``'s
    entrants, by name; ``registered`` is the group in force on the event's date in its
    league's registry (read now: a registry imported after the roster counts), ``group``
    the roster's, else that one; ``replaces`` is the name of the member a reserve plays for
    (rule 23): the registry's spelling, else the roster's, else the key as stored."""
    rows = frame(
        con.sql(
            'SELECT e.player_key, e.player, e."group", '
            "coalesce(r.player, m.player, e.replaces) AS replaces, e.consent FROM entrants e "
            "LEFT JOIN registry r ON r.player_key = e.replaces "
            "LEFT JOIN entrants m ON m.event = e.event AND m.player_key = e.replaces "
            "WHERE e.event = ? ORDER BY e.player_key",
            params=[event],
        )
    )
    grouped = event_groups(con, event, entrants=True).select(
        "player_key", pl.col("group").alias("registered")
    )
    return rows.join(grouped, on="player_key", how="left", maintain_order="left").with_columns(
        pl.coalesce("group", "registered").alias("group")
    )


def all_events(con: duckdb.DuckDBPyConnection) -> list[EventInfo]:
    """Every event, the newest first."""
    rows = con.execute(
        "SELECT event, ruleset, title, event_date, venue, level, coalesce(league, 'default') FROM events "
        "ORDER BY created_at DESC, event"
    ).fetchall()
    return [EventInfo(*r) for r in rows]


def overview(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every event, the newest first: ``event, title, ruleset, event_date, venue, level,
    entrants, rounds_drawn, rounds_played, matches`` (``domino event list``)."""
    return frame(con.sql((_REPORTS / "events_overview.sql").read_text()))


def round_status(con: duckdb.DuckDBPyConnection, event: str) -> pl.DataFrame:
    """Where ``event`` stands, round by round in round order: ``round, seed, tables_drawn,
    tables_loaded, tables_complete, tiebreaks_owed`` (``domino event show``)."""
    from pipeline.standings.queries import rounds

    rows = frame(con.sql((_REPORTS / "event_rounds.sql").read_text(), params={"event": event}))
    order = {r: i for i, r in enumerate(rounds(con, event))}
    return rows.sort(pl.col("round").replace_strict(order, default=len(order)), "round")


#: What stands for a deleted event's file in the ingest log (no file brought it).
DELETED_FILE = "(event deleted)"


class DeleteRefused(EventRefused):
    """An event that may not be deleted now: one sentence (``str()`` in English,
    :meth:`render` in another language)."""

    def render(self, lang: str = "en") -> str:
        params = dict(self.params)
        if "what" in params:  # the things that hold the event, said in the language
            joiner = messages.render("event_delete.and", {}, lang)
            params["what"] = joiner.join(
                messages.render(f"event_delete.what.{w}", {}, lang) for w in params["what"]
            )
        return messages.render(self.message_id, params, lang)


def delete(con: duckdb.DuckDBPyConnection, event: str, *, reason: str, by: str) -> int:
    """Delete an event made by mistake (a mistyped id on an upload, whose matches were
    then withdrawn; a ``domino event create`` with the wrong id): its row, its round
    order and its withdrawn match versions with their hand rows. Returns the number of
    match versions deleted.

    Refused (:class:`DeleteRefused`) while anything of it counts or was prepared: a match
    counted in the standings (withdraw it first), a draw, a roster, a table open for
    hand entry, a change request waiting, or a user whose rights name it. The database is
    copied aside first (as before a correction) and the ingest log keeps a line with who,
    when and why."""
    from pipeline.ingest.writer import backup_before_correction

    event = event.strip()
    reason = (reason or "").strip()
    if not reason:
        raise DeleteRefused("event_delete.no_reason")
    if get(con, event) is None:
        raise DeleteRefused("event_delete.no_event", {"event": event})
    _nothing_holds(con, event)
    versions = int(
        con.execute("SELECT count(*) FROM match_versions WHERE event = ?", [event]).fetchall()[0][0]
    )
    backup_before_correction(con)
    now = datetime.now()
    ingest_id = int(con.execute("SELECT nextval('ingest_seq')").fetchall()[0][0])
    con.execute("BEGIN TRANSACTION")
    try:
        _nothing_holds(con, event)  # read again inside the transaction that deletes
        for table in (
            "hands",
            "hand_points_t",
            "table_standings_t",
            "rating_tables",
            "match_entry",
            "match_versions",
            "event_rounds",
            "draw_seats",  # cancelled draws only: a current one refuses the deletion
            "draws_t",
            "events",
        ):
            con.execute(f"DELETE FROM {table} WHERE event = ?", [event])
        con.execute(
            "INSERT INTO ingests (ingest_id, file, sha256, rows, matches_loaded, "
            "matches_unchanged, matches_rejected, loaded_by, started_at, finished_at, reason, "
            "status) VALUES (?, ?, NULL, 0, 0, 0, 0, ?, ?, ?, ?, 'done')",
            [ingest_id, f"{DELETED_FILE} {event}", by, now, now, reason],
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return versions


def _nothing_holds(con: duckdb.DuckDBPyConnection, event: str) -> None:
    """Refuse to delete ``event`` while anything of it counts or was prepared."""
    counted = con.execute(
        "SELECT count(*), min(round || ' ' || \"table\") FROM match_versions "
        "WHERE event = ? AND current AND kind <> 'withdrawn'",
        [event],
    ).fetchall()[0]
    if counted[0]:
        rnd, table = str(counted[1]).split(" ", 1)
        raise DeleteRefused(
            "event_delete.counts",
            {"event": event, "matches": int(counted[0]), "round": rnd, "table": table},
        )
    from pipeline.entry import open_entries  # it loads the ingest service

    def count(sql: str) -> int:
        return int(con.execute(sql, [event]).fetchall()[0][0])

    held = {
        "draw": count("SELECT count(*) FROM draws_t WHERE event = ? AND current"),
        "roster": count("SELECT count(*) FROM entrants WHERE event = ?"),
        "entry": open_entries(con, event),
        "request": count(
            "SELECT count(*) FROM change_requests r JOIN change_request_matches m "
            "USING (request_id) WHERE r.status = 'pending' AND m.event = ?"
        ),
    }
    found = [what for what, n in held.items() if n]
    if found:
        raise DeleteRefused("event_delete.prepared", {"event": event, "what": found})
    users = [
        u
        for (u,) in con.execute(
            "SELECT DISTINCT name FROM user_events WHERE event = ? ORDER BY name", [event]
        ).fetchall()
    ]
    if users:
        raise DeleteRefused("event_delete.users", {"event": event, "users": ", ".join(users)})
