"""Ratings: OpenSkill Plackett–Luce over each table's finishing order, one ladder per ruleset.

Each rated table (complete, not a walkover) is one update of the ``openskill`` package's
``PlackettLuce`` model with its defaults (mu 25, sigma 25/3), every player a team of one,
ranked by ``table_standings.rank`` (ties share a rank), in play order: the event's date
(else the day it was first loaded), the event name, the round order, the table.

Stored in three tables (migration 007): ``rating_tables`` (the tables rated, in order,
with the finishing order each was rated with), ``rating_history_t`` (every player's rating
after every table) and ``ratings_t`` (the current rating). After a load, :func:`update`
appends when the new tables all come after every rated table; otherwise (a correction, a
table loaded out of order, a changed date or round order) it keeps the longest prefix of
rated tables that is still the same and replays the rest — the result is the same as a
full :func:`recompute`, which ``domino rescore`` runs.

The loop (:mod:`pipeline.ladder`) is the package's step written out, one table at a time
over lists read in one query (never per hand), equal to the package's to the last bit.
"""

from collections.abc import Iterable, Set
from importlib import resources
from typing import Any

import duckdb
import polars as pl
from openskill.models import PlackettLuce

from pipeline import ladder, ratings_due, settings
from pipeline.store.db import frame, insert_frame, is_postgres, register

_SQL = resources.files("pipeline.sql") / "ratings"
TABLE_KEY = ["event", "round", "table"]

#: The model every ladder uses: the package's defaults.
MODEL = PlackettLuce()

State = ladder.State


def _sql(name: str) -> str:
    return (_SQL / f"{name}.sql").read_text()


def _tables(rows: pl.DataFrame) -> pl.DataFrame:
    """One row per table of ``rows`` (already in play order), with its fingerprint."""
    return rows.group_by(TABLE_KEY, maintain_order=True).agg(
        pl.col("played_on").first(),
        pl.col("round_no").first(),
        pl.col("version").first(),
        (pl.col("player_key") + "=" + pl.col("rank").cast(pl.String))
        .str.join(",")
        .alias("fingerprint"),
        pl.len().alias("n"),
    )


def _replay(rows: pl.DataFrame, tables: pl.DataFrame, state: State, first_seq: int) -> pl.DataFrame:
    """Rate ``tables`` in order from ``state`` (updated in place); the history rows."""
    return ladder.replay(
        rows.get_column("player_key").to_list(),
        rows.get_column("rank").to_list(),
        tables.get_column("n").to_list(),
        state,
        first_seq,
        MODEL,
    )


#: Each player of the list ``?``: the last rating at or before position ``?`` of ladder
#: ``?``, read from the history (what :func:`_state_at` falls back on).
_STATE_OF = (
    "SELECT player_key, mu, sigma, matches, seq FROM ("
    "SELECT player_key, mu, sigma, matches, seq, row_number() OVER "
    "(PARTITION BY player_key ORDER BY seq DESC) AS rn "
    "FROM rating_history_t WHERE ruleset = ? AND seq <= ? "
    "AND player_key IN (SELECT unnest(?))) AS h WHERE rn = 1"
)
#: Each player of the list ``?``: the current rating in ladder ``?`` and where it was set.
_CURRENT_OF = (
    "SELECT player_key, mu, sigma, matches, last_seq FROM ratings_t "
    "WHERE ruleset = ? AND player_key IN (SELECT unnest(?))"
)
#: Each player of the list ``?``: the rating they brought to their first table after
#: position ``?`` of ladder ``?`` (their rating at that position), and their tables so far.
_BROUGHT_AFTER = (
    "SELECT player_key, mu_before, sigma_before, matches - 1 FROM ("
    "SELECT player_key, mu_before, sigma_before, matches, row_number() OVER "
    "(PARTITION BY player_key ORDER BY seq) AS rn "
    "FROM rating_history_t WHERE ruleset = ? AND seq > ? "
    "AND player_key IN (SELECT unnest(?))) AS h WHERE rn = 1"
)
#: Each player of the list ``?``: the last position at or before ``?`` where ladder ``?``
#: rated them.
_LAST_AT = (
    "SELECT player_key, max(seq) FROM rating_history_t WHERE ruleset = ? AND seq <= ? "
    "AND player_key IN (SELECT unnest(?)) GROUP BY player_key"
)


def _state_at(
    con: duckdb.DuckDBPyConnection, ruleset: str, seq: int, players: set[str]
) -> tuple[State, dict[str, int]]:
    """``players``' ratings after the first ``seq`` tables of the ladder, and where each
    was last rated (not always: see :func:`_fill_last`): what a replay from there needs.

    Read without going through the players' whole history, which grows with every table
    they play (0.1 s at a million hands): a player not rated since ``seq`` has it as
    their current rating; a player rated since brought it to their first table after
    ``seq`` (its ``mu_before``, ``sigma_before``; the history keeps both bit for bit).
    Only a player with no current rating is looked up in the history itself."""
    if not players:
        return {}, {}
    state: State = {}
    last: dict[str, int] = {}
    later: list[str] = []
    for k, mu, sg, m, at in con.execute(_CURRENT_OF, [ruleset, sorted(players)]).fetchall():
        if at <= seq:
            state[k], last[k] = (mu, sg, m), at
        else:
            later.append(k)
    found: set[str] = set()
    if later:
        for k, mu, sg, m in con.execute(_BROUGHT_AFTER, [ruleset, seq, later]).fetchall():
            found.add(k)
            if m > 0:  # else their first rated table comes after ``seq``
                state[k] = (mu, sg, m)
    rest = sorted(players - state.keys() - found)
    if rest:
        for k, mu, sg, m, at in con.execute(_STATE_OF, [ruleset, seq, rest]).fetchall():
            state[k], last[k] = (mu, sg, m), at
    return state, last


def _fill_last(
    con: duckdb.DuckDBPyConnection, ruleset: str, seq: int, state: State, last: dict[str, int]
) -> None:
    """Where each player of ``state`` without it in ``last`` was last rated at or before
    ``seq``: a player rated after ``seq`` whom the replay from there no longer rates
    (a correction took them off a table); rare, so read from the history then."""
    missing = sorted(state.keys() - last.keys())
    if missing:
        last.update(dict(con.execute(_LAST_AT, [ruleset, seq, missing]).fetchall()))


def _write(
    con: duckdb.DuckDBPyConnection,
    ruleset: str,
    tables: pl.DataFrame,
    history: pl.DataFrame,
    first_seq: int,
) -> None:
    """Append rated tables and their history rows to the ladder."""
    if tables.height == 0:
        return
    t = tables.with_columns(
        pl.lit(ruleset).alias("ruleset"),
        pl.int_range(first_seq, first_seq + tables.height, dtype=pl.Int64).alias("seq"),
    )
    insert_frame(
        con,
        "rating_tables",
        t,
        'ruleset, seq, event, round, "table", version, played_on, fingerprint',
    )
    insert_frame(
        con,
        "rating_history_t",
        history.with_columns(pl.lit(ruleset).alias("ruleset")),
        "ruleset, seq, player_key, rank, mu, sigma, mu_before, sigma_before, matches",
    )


def _put_ratings(
    con: duckdb.DuckDBPyConnection,
    ruleset: str,
    state: State,
    last: dict[str, int],
    *,
    only: Iterable[str] | None = None,
) -> None:
    """Write the current ratings of ``only`` these players (all when None); a player of
    ``only`` with no rated table left loses the row."""
    gone = [] if only is None else sorted(set(only) - set(state))
    keys = list(state) if only is None else sorted(set(only) & set(state))
    frame = pl.DataFrame(
        {
            "ruleset": [ruleset] * len(keys),
            "player_key": keys,
            "mu": [state[k][0] for k in keys],
            "sigma": [state[k][1] for k in keys],
            "matches": [state[k][2] for k in keys],
            "last_seq": [last[k] for k in keys],
        },
        schema={
            "ruleset": pl.String,
            "player_key": pl.String,
            "mu": pl.Float64,
            "sigma": pl.Float64,
            "matches": pl.Int32,
            "last_seq": pl.Int64,
        },
    )
    if only is None:
        con.execute("DELETE FROM ratings_t WHERE ruleset = ?", [ruleset])
    else:
        every = pl.concat(
            [
                frame.select("player_key"),
                pl.DataFrame({"player_key": gone}, schema={"player_key": pl.String}),
            ]
        )
        register(con, "_rating_keys", every)
        try:
            con.execute(
                "DELETE FROM ratings_t WHERE ruleset = ? AND player_key IN "
                "(SELECT player_key FROM _rating_keys)",
                [ruleset],
            )
        finally:
            con.unregister("_rating_keys")
    insert_frame(con, "ratings_t", frame, "ruleset, player_key, mu, sigma, matches, last_seq")


def _last_seqs(history: pl.DataFrame) -> dict[str, int]:
    last = history.group_by("player_key").agg(pl.col("seq").max())
    return dict(zip(last["player_key"].to_list(), last["seq"].to_list(), strict=True))


def _rebuild_from_diff(con: duckdb.DuckDBPyConnection, ruleset: str, *, full: bool = False) -> int:
    """Keep the rated prefix still the same (none when ``full``), replay the rest."""
    rows = frame(con.sql(_sql("rated_tables"), params={"ruleset": ruleset}), small=False)
    current = _tables(rows)
    keep = 0
    if not full:
        stored = frame(
            con.sql(
                'SELECT event, round, "table", fingerprint FROM rating_tables WHERE ruleset = ? ORDER BY seq',
                params=[ruleset],
            ),
            small=False,
        )
        n = min(stored.height, current.height)
        cols = [*TABLE_KEY, "fingerprint"]
        same = pl.DataFrame([stored[c][:n] == current[c][:n] for c in cols]).select(
            pl.all_horizontal(pl.all()).alias("same")
        )["same"]
        keep = n if same.all() else int(same.arg_min() or 0)
        if keep == stored.height == current.height:
            return 0
    return _replay_from(con, ruleset, keep, rows.slice(int(current["n"][:keep].sum())))


#: The advisory lock every rating transaction holds on PostgreSQL (class, key): "rate".
LADDER_LOCK = (0x646F6D69, 0x72617465)


def _transaction(con: duckdb.DuckDBPyConnection, work: Any) -> int:
    """Run ``work`` in a transaction of its own. On PostgreSQL, where several processes
    write, it first takes the ladders' lock: two uploads' ratings would otherwise both
    read the same last rated table and append at the same position. The file store has
    one writer at a time already."""
    con.execute("BEGIN TRANSACTION")
    try:
        if is_postgres(con):
            con.execute(
                "SELECT pg_advisory_xact_lock(CAST(? AS integer), CAST(? AS integer))",
                list(LADDER_LOCK),
            )
        n = int(work())
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return n


def recompute(con: duckdb.DuckDBPyConnection, rulesets: Iterable[str] | None = None) -> int:
    """Rate every table again from the start (all ladders when None); returns the tables rated.

    Ladders of rulesets no longer played by any event are removed.
    """

    def work() -> int:
        played = [r for (r,) in con.execute("SELECT DISTINCT ruleset FROM events").fetchall()]
        todo = played if rulesets is None else [r for r in rulesets if r in played]
        # nothing is owed to a ladder rebuilt whole (these rows go before the results are read)
        ratings_due.clear(con, None if rulesets is None else todo)
        if rulesets is None:
            for t in ("rating_tables", "rating_history_t", "ratings_t"):
                con.execute(
                    f"DELETE FROM {t} WHERE ruleset NOT IN (SELECT DISTINCT ruleset FROM events)"
                )
        return sum(_rebuild_from_diff(con, rs, full=True) for rs in sorted(todo))

    return _transaction(con, work)


def refresh(
    con: duckdb.DuckDBPyConnection,
    rulesets: Iterable[str] | None = None,
    *,
    owner: int | None = None,
) -> int:
    """Bring the ladders of ``rulesets`` (all when None) in line with the tables as they
    are now, keeping the longest prefix that is still the same: after an event's date,
    a round order or the registry changed. In its own transaction; ``owner`` is the
    token the change marked the ladders with (:mod:`pipeline.ratings_due`)."""

    def work() -> int:
        todo = None if rulesets is None else set(rulesets)
        if owner is not None:
            _mine, left = ratings_due.settle(con, owner)
            todo = None if todo is None else todo | left
        return refresh_within(con, todo)

    return _transaction(con, work)


def refresh_within(con: duckdb.DuckDBPyConnection, rulesets: Iterable[str] | None = None) -> int:
    """:func:`refresh` inside the caller's transaction."""
    played = [r for (r,) in con.execute("SELECT DISTINCT ruleset FROM events").fetchall()]
    todo = played if rulesets is None else [r for r in rulesets if r in played]
    return sum(_rebuild_from_diff(con, rs) for rs in sorted(todo))


def backfill(con: duckdb.DuckDBPyConnection) -> int:
    """Rate a database made before ratings existed (no table rated, results loaded);
    returns the tables rated (0 when there was nothing to do)."""
    rated = con.execute("SELECT count(*) FROM rating_tables").fetchall()[0][0]
    loaded = con.execute("SELECT count(*) FROM table_standings_t").fetchall()[0][0]
    return recompute(con) if not rated and loaded else 0


def update(
    con: duckdb.DuckDBPyConnection,
    written: pl.DataFrame,
    standings: pl.DataFrame,
    *,
    owner: int | None = None,
) -> int:
    """Bring the ladders up to date after ``written`` tables (event, round, table, and the
    version written) changed; ``standings`` are the stored standings of exactly those
    tables (the load's own rows).

    Appends when every newly rated table comes after every rated one and none was rated
    before; otherwise replays the ladder from the first table that differs. ``owner`` is
    the load's ingest id, which marked the ladders it owes (:mod:`pipeline.ratings_due`):
    a ladder another load left owing is rebuilt first, and a ladder whose mark another
    update already took in is not touched again.
    """
    if written.height == 0:
        return 0
    scope = written.select(TABLE_KEY).unique()
    # a table written for the first time (version 1) was never rated: the ladder holds
    # loaded versions only, so no stored row needs looking for
    fresh = bool((written.get_column("version") == 1).all())
    rounds = _rounds_of(con, scope.get_column("event").unique().to_list())

    def work() -> int:
        if owner is None:
            return _update_scope(con, rounds, standings, fresh=fresh)
        mine, left = ratings_due.settle(con, owner)
        done = sum(_rebuild_from_diff(con, rs) for rs in sorted(left))
        return done + _update_scope(con, rounds, standings, fresh=fresh, only=mine - left)

    register(con, "_rating_scope", scope)
    try:
        return _transaction(con, work)
    finally:
        con.unregister("_rating_scope")


def _scope_events(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """``ruleset, event, played_on`` of every event in ``_rating_scope``."""
    return pl.DataFrame(
        con.execute(
            "SELECT ruleset, event, coalesce(event_date, cast(created_at AS date)) FROM events "
            "WHERE event IN (SELECT event FROM _rating_scope)"
        ).fetchall(),
        schema={"ruleset": pl.String, "event": pl.String, "played_on": pl.Date},
        orient="row",
    )


def _scope_rows(
    ruleset: str, played: pl.DataFrame, rounds: pl.DataFrame, standings: pl.DataFrame
) -> pl.DataFrame:
    """The rows of ``rated_tables.sql`` for one ladder's tables in ``_rating_scope``, with
    the same columns and order, built from ``standings`` (the load's own rows) rather than
    read back from the store; ``played`` is :func:`_scope_events`, ``rounds`` holds the
    rounds of the scope's events."""
    return (
        standings.filter(pl.col("complete") & ~pl.col("walkover"))
        .join(played.filter(pl.col("ruleset") == ruleset).select("event", "played_on"), on="event")
        .join(rounds, on=["event", "round"])
        .select(
            "played_on",
            "event",
            "round",
            pl.col("round_no").cast(pl.Int64),
            "table",
            pl.col("version").cast(pl.Int32),
            "player_key",
            pl.col("rank").cast(pl.Int32),
        )
        .sort("played_on", "event", "round_no", "table", "rank", "player_key")
    )


#: An upload of this many events or fewer reads their rounds one event at a time: the
#: ``rounds`` view answers one event from its own rows, but orders every event's rounds
#: when asked for a set of them.
FEW_EVENTS = 8


_ROUNDS_OF_EVENTS = "SELECT event, round, round_no FROM rounds WHERE event = ANY(?)"


def _rounds_of(con: duckdb.DuckDBPyConnection, events: list[str]) -> pl.DataFrame:
    """``event, round, round_no`` of ``events`` (the rows of the ``rounds`` view)."""
    schema = {"event": pl.String, "round": pl.String, "round_no": pl.Int64}
    if len(events) > FEW_EVENTS and is_postgres(con):
        # PostgreSQL takes the list into the view, to each of its sources' event indexes
        return frame(con.sql(_ROUNDS_OF_EVENTS, params=[sorted(events)])).cast(schema)
    if len(events) > FEW_EVENTS:
        every = frame(con.sql("SELECT event, round, round_no FROM rounds")).cast(schema)
        return every.filter(pl.col("event").is_in(events))
    rows = [
        row
        for event in sorted(events)
        for row in con.execute(
            "SELECT event, round, round_no FROM rounds WHERE event = ?", [event]
        ).fetchall()
    ]
    return pl.DataFrame(rows, schema=schema, orient="row")


def _update_scope(
    con: duckdb.DuckDBPyConnection,
    rounds: pl.DataFrame,
    standings: pl.DataFrame,
    *,
    fresh: bool = False,
    only: Set[str] | None = None,
) -> int:
    """Rate the tables of ``_rating_scope``, ladder by ladder (only those of ``only`` when
    given: the others were rebuilt whole, or another update took this load in)."""
    played = _scope_events(con)
    done = 0
    todo = set(played.get_column("ruleset").to_list())
    for rs in sorted(todo if only is None else todo & only):
        rows = _scope_rows(rs, played, rounds, standings)
        rated_before = (
            None
            if fresh
            else con.execute(
                "SELECT min(t.seq) FROM rating_tables t JOIN _rating_scope s "
                'ON s.event = t.event AND s.round = t.round AND s."table" = t."table" '
                "WHERE t.ruleset = ?",
                [rs],
            ).fetchall()[0][0]
        )
        if rated_before is None and rows.height:
            top, last = _last_rated(con, rs, rounds)
            if last is not None and _first_key(rows) > last:
                done += _append(con, rs, rows, top + 1)
                continue
        if rated_before is not None or rows.height:
            done += _replay_tail(con, rs, rows, rated_before, rounds)
    return done


#: The rated tables played at or after ``($d, $e, $r, $t)``: of later events (by date,
#: then name), and of the event ``$e`` itself from round ``$r``, table ``$t`` on; their
#: number and their first place in the ladder. Counted from the end, so that a live upload
#: reads the tables after its own (the ladder's tail), not every table before it: at ten
#: million hands, counting the tables before took about half a second per count. Two
#: counts, so that only that one event's rounds are ordered: the later events' tables
#: (:func:`_later_events`, then :data:`_IN_EVENTS`), and the event's own from there on.
_LATER_EVENTS = (
    "SELECT event FROM events WHERE ruleset = ? AND "
    "(coalesce(event_date, cast(created_at AS date)) > ? OR "
    "(coalesce(event_date, cast(created_at AS date)) = ? AND event > ?))"
)
_IN_EVENTS = (
    "SELECT count(*), min(seq) FROM rating_tables WHERE ruleset = ? AND event IN (SELECT unnest(?))"
)
_AFTER_IN_EVENT = (
    "SELECT count(*), min(t.seq) FROM rating_tables t "
    "JOIN (SELECT round, round_no FROM rounds WHERE event = $e) AS r ON r.round = t.round "
    "WHERE t.ruleset = $ruleset AND t.event = $e AND "
    '(r.round_no > $r OR (r.round_no = $r AND t."table" >= $t))'
)


def _later_events(con: duckdb.DuckDBPyConnection, ruleset: str, key: tuple[Any, ...]) -> list[str]:
    """The ladder's events played after the event of ``key`` (by date, then name)."""
    d, e = key[0], key[1]
    return [str(x) for (x,) in con.execute(_LATER_EVENTS, [ruleset, d, d, e]).fetchall()]


def _kept_before(
    con: duckdb.DuckDBPyConnection,
    ruleset: str,
    key: tuple[Any, ...],
    last: int,
    later: list[str],
) -> int | None:
    """How many rated tables come before ``key`` in play order: the ladder's places
    1 … n, when the tables from ``key`` on are exactly its places n + 1 … ``last`` (the
    ladder's places are 1 … ``last``, each once). None when they are not: something
    reordered the ladder without a load. ``later`` is :func:`_later_events` of ``key``:
    their tables are counted by event, since the events' dates alone may not narrow
    anything down (a league's sessions on one day)."""
    _d, e, r, t = key
    c1, m1 = con.execute(_IN_EVENTS, [ruleset, later]).fetchall()[0] if later else (0, None)
    in_event = {"ruleset": ruleset, "e": e, "r": r, "t": t}
    c2, m2 = con.execute(_AFTER_IN_EVENT, in_event).fetchall()[0]
    after = int(c1) + int(c2)
    if after == 0:
        return last
    first = min(int(m) for m in (m1, m2) if m is not None)
    return last - after if first == last - after + 1 else None


def _replay_tail(
    con: duckdb.DuckDBPyConnection,
    ruleset: str,
    rows: pl.DataFrame,
    first_rated: int | None,
    rounds: pl.DataFrame,
) -> int:
    """Replay the ladder from the first table this load wrote: the earlier of the first
    written table in play order and the first written table that was rated before.
    ``rounds`` holds the rounds of the load's events (read again only for other events).

    The stored prefix before that point is kept as it is; when it is no longer the first
    tables in play order (something reordered them without a load), the whole ladder is
    compared instead (:func:`_rebuild_from_diff`).
    """
    starts: list[tuple[Any, ...]] = []
    if rows.height:
        starts.append(_first_key(rows))
    if first_rated is not None:
        at = _position(con, ruleset, first_rated)
        if at is None:  # its round is gone: compare everything
            return _rebuild_from_diff(con, ruleset)
        starts.append(at)
    best: tuple[int, tuple[Any, ...], list[str]] | None = None
    newest = con.execute(LAST_RATED_SQL, [ruleset]).fetchall()
    last = int(newest[0][0]) if newest else 0
    for key in starts:
        later = _later_events(con, ruleset, key)
        n = _kept_before(con, ruleset, key, last, later)
        if n is None:  # the stored prefix is not the first tables in play order
            return _rebuild_from_diff(con, ruleset)
        if best is None or n < best[0]:
            best = (n, key, later)
    assert best is not None
    keep, key, later = best
    if first_rated is not None and keep > first_rated - 1:
        return _rebuild_from_diff(con, ruleset)
    # the rounds of the events from the start on (its own event and the later ones), read
    # one event at a time when they are few (a live upload's): the rounds view orders every
    # event's rounds when joined
    events = [str(key[1]), *later]
    # a first load's tail is its own events: their rounds are known already
    known = set(rounds.get_column("event").to_list())
    tail_rounds = (
        rounds.filter(pl.col("event").is_in(events))
        if known.issuperset(events)
        else _rounds_of(con, events)
    )
    register(con, "_tail_rounds", tail_rounds)
    try:
        tail = frame(
            con.sql(
                _sql("rated_tail"),
                params={"ruleset": ruleset, **dict(zip("dert", key, strict=True))},
            )
        )
    finally:
        con.unregister("_tail_rounds")
    return _replay_from(con, ruleset, keep, tail)


def _position(con: duckdb.DuckDBPyConnection, ruleset: str, seq: int) -> tuple[Any, ...] | None:
    """(played_on, event, round_no, table) of the ``seq``-th rated table as ordered now;
    None when its round is gone."""
    at = con.execute(
        'SELECT coalesce(e.event_date, cast(e.created_at AS date)), t.event, t.round, t."table" '
        "FROM rating_tables t JOIN events e ON e.event = t.event WHERE t.ruleset = ? AND t.seq = ?",
        [ruleset, seq],
    ).fetchall()
    if not at:
        return None
    played_on, event, round_, table = at[0]
    round_no = _round_no(con, event, round_, None)
    return None if round_no is None else (played_on, event, round_no, table)


def _replay_from(
    con: duckdb.DuckDBPyConnection, ruleset: str, keep: int, rows: pl.DataFrame
) -> int:
    """Keep the first ``keep`` rated tables, rate ``rows`` (every table after them, in
    play order) from there, and rewrite the current rating of every player touched (of
    every player when ``keep`` is 0: the whole ladder)."""
    touched: set[str] | None = None
    state: State = {}
    last: dict[str, int] = {}
    if keep:
        moved = {
            k
            for (k,) in con.execute(
                "SELECT player_key FROM ratings_t WHERE ruleset = ? AND last_seq > ?",
                [ruleset, keep],
            ).fetchall()
        }
        touched = moved | set(rows.get_column("player_key"))
        state, last = _state_at(con, ruleset, keep, touched)
    con.execute("DELETE FROM rating_tables WHERE ruleset = ? AND seq > ?", [ruleset, keep])
    con.execute("DELETE FROM rating_history_t WHERE ruleset = ? AND seq > ?", [ruleset, keep])
    todo = _tables(rows)
    history = _replay(rows, todo, state, keep + 1)
    _write(con, ruleset, todo, history, keep + 1)
    last.update(_last_seqs(history))
    _fill_last(con, ruleset, keep, state, last)
    _put_ratings(con, ruleset, state, last, only=touched)
    return todo.height


# The last rated table of a ladder with its event's date. ``seq`` is never NULL; NULLS
# FIRST is the order a backward scan of PostgreSQL's (ruleset, seq) index gives, so it
# reads one index entry. DuckDB's default for DESC (NULLS LAST, which the dialect carries
# over) made PostgreSQL sort the whole ladder instead: 30 ms per upload at a million hands.
LAST_RATED_SQL = (
    "SELECT t.seq, coalesce(e.event_date, cast(e.created_at AS date)), e.event, t.round, "
    't."table" FROM (SELECT * FROM rating_tables WHERE ruleset = ? '
    "ORDER BY seq DESC NULLS FIRST LIMIT 1) AS t LEFT JOIN events e ON e.event = t.event"
)


def _last_rated(
    con: duckdb.DuckDBPyConnection, ruleset: str, rounds: pl.DataFrame
) -> tuple[int, tuple[Any, ...] | None]:
    """The last rated table of a ladder: its ``seq`` (0 for an empty ladder) and its place
    in play order as ordered now (:func:`_position`; None for an empty ladder, a database
    from before ratings, or a table whose round is gone: the ladder is then replayed)."""
    at = con.execute(LAST_RATED_SQL, [ruleset]).fetchall()
    if not at:
        return 0, None
    seq, played_on, event, round_, table = at[0]
    if event is None:  # its event is gone
        return int(seq), None
    round_no = _round_no(con, event, round_, rounds)
    return int(seq), None if round_no is None else (played_on, event, round_no, table)


def _round_no(
    con: duckdb.DuckDBPyConnection, event: str, round_: str, rounds: pl.DataFrame | None
) -> int | None:
    """A round's place in its event: from ``rounds`` when it holds that event's rounds,
    else from the ``rounds`` view for that one event (it orders every event's otherwise)."""
    if rounds is not None and event in rounds.get_column("event"):
        known = rounds.filter(pl.col("event") == event, pl.col("round") == round_)
        found = known.get_column("round_no").to_list()
    else:
        found = [
            n
            for (n,) in con.execute(
                "SELECT round_no FROM rounds WHERE event = ? AND round = ?", [event, round_]
            ).fetchall()
        ]
    return found[0] if found else None


def _first_key(rows: pl.DataFrame) -> tuple[Any, ...]:
    """(played_on, event, round_no, table) of the first of ``rows``: its place in play order."""
    first = rows.row(0, named=True)
    return (first["played_on"], first["event"], first["round_no"], first["table"])


def _append(
    con: duckdb.DuckDBPyConnection, ruleset: str, rows: pl.DataFrame, first_seq: int
) -> int:
    tables = _tables(rows)
    register(con, "_rating_players", rows.select("player_key").unique())
    try:
        known = con.execute(
            "SELECT player_key, mu, sigma, matches, last_seq FROM ratings_t WHERE ruleset = ? "
            "AND player_key IN (SELECT player_key FROM _rating_players)",
            [ruleset],
        ).fetchall()
    finally:
        con.unregister("_rating_players")
    state: State = {k: (mu, sg, m) for k, mu, sg, m, _ in known}
    history = _replay(rows, tables, state, first_seq)
    _write(con, ruleset, tables, history, first_seq)
    last = _last_seqs(history)
    _put_ratings(con, ruleset, state, last, only=last)
    return tables.height


def provisional_matches() -> int:
    """Fewer rated tables than this: the rating is shown as provisional."""
    return int(settings.get("provisional_matches"))
