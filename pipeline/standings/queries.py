"""Read-side queries shared by the CLI and the dashboard. Every statement is parameterised.

polars is imported where a frame is made, not at the top: ``domino standings`` reads
through :func:`standings_rows` without it (issue: speed people feel).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import duckdb

from pipeline import rounds as round_order
from pipeline import rulesets
from pipeline.store.db import frame

if TYPE_CHECKING:
    import polars as pl

LEVELS = ("table", "round", "event", "group")

#: The contract's columns per view (HANDLOG.md), in order; ruleset-specific ones follow.
CONTRACT = {
    "hand_points": ["event", "round", "table", "hand", "player", "chair", "category", "points"],
    "table": ["event", "round", "table", "player", "points", "rank", "qualified", "needs_tiebreak"],
    "round": ["event", "round", "player", "points", "rank", "star"],
    "event": ["event", "player", "points", "rank"],
    "group": ["event", "group", "points", "hands", "players", "rank"],
}


class NotFound(LookupError):
    pass


def events(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    return frame(
        con.sql(
            "SELECT e.event, e.ruleset, e.created_at, "
            "(SELECT count(DISTINCT round) FROM table_standings_t t WHERE t.event = e.event)::INTEGER AS rounds, "
            "(SELECT count(*) FROM match_versions v WHERE v.event = e.event AND v.current "
            "AND v.kind <> 'withdrawn')::INTEGER AS matches "
            "FROM events e ORDER BY e.created_at DESC, e.event"
        )
    )


def ruleset_of(con: duckdb.DuckDBPyConnection, event: str) -> str:
    rows = con.execute("SELECT ruleset FROM events WHERE event = ?", [event]).fetchall()
    if not rows:
        raise NotFound(f"no event {event!r} is loaded")
    return str(rows[0][0])


def rounds(con: duckdb.DuckDBPyConnection, event: str) -> list[str]:
    return [
        r[0]
        for r in con.execute(
            "SELECT round FROM rounds WHERE event = ? ORDER BY round_no", [event]
        ).fetchall()
    ]


def rounds_to_come(con: duckdb.DuckDBPyConnection, event: str) -> list[str]:
    """The rounds of ``event``'s order (drawn, or listed by the organiser) with no result,
    in that order."""
    played = {
        r[0]
        for r in con.execute(
            "SELECT DISTINCT round FROM table_standings_t WHERE event = ?", [event]
        ).fetchall()
    }
    return [r for r in rounds(con, event) if r not in played]


def tables_in(con: duckdb.DuckDBPyConnection, event: str, round_: str) -> tuple[int, int] | None:
    """``(loaded, expected)``: the tables of session ``round_`` with results, and those it
    should have: its current draw's, else the ruleset's ``session_tables``, never fewer
    than are loaded (RULES, decided: a session still missing tables is shown as in
    progress, "2 of 3 tables in"). None where the rulebook has no sessions."""
    rows = con.execute("SELECT ruleset FROM events WHERE event = ?", [event]).fetchall()
    if not rows:
        return None
    book = rulesets.load(rows[0][0])
    if not book.shows("sessions"):
        return None
    loaded, drawn = con.execute(
        'SELECT (SELECT count(DISTINCT "table") FROM table_standings_t WHERE event = ? '
        'AND round = ?), (SELECT count(DISTINCT "table") FROM seatings WHERE event = ? '
        "AND round = ?)",
        [event, round_, event, round_],
    ).fetchall()[0]
    expected = int(drawn) or int(book.flat.get("session_tables") or 0)
    return int(loaded), max(expected, int(loaded))


def standings(
    con: duckdb.DuckDBPyConnection,
    event: str,
    level: str = "event",
    round: str | None = None,
    table: str | None = None,
) -> pl.DataFrame:
    """Standings at ``level`` with the contract's columns first, then ruleset-specific ones."""
    df = _standings_result(con, event, level, round, table).pl()
    if df.height == 0 and (round is not None or table is not None):
        _known_match(con, event, round, table)
    if level == "table" and df.height:
        df = _natural_sort(df, ["round", "table"], ["rank", "player"], con=con, event=event)
    elif level == "round" and df.height:
        df = _natural_sort(df, ["round"], ["rank", "player"], con=con, event=event)
    return df


class Rows:
    """A small result without polars: column names, numeric flags and row tuples."""

    __slots__ = ("columns", "numeric", "rows")

    def __init__(self, columns: list[str], numeric: list[bool], rows: list[tuple[Any, ...]]):
        self.columns, self.numeric, self.rows = columns, numeric, rows

    @property
    def height(self) -> int:
        return len(self.rows)

    def to_polars(self) -> pl.DataFrame:
        import polars as pl

        return pl.DataFrame(self.rows, schema=self.columns, orient="row", infer_schema_length=None)


def standings_rows(
    con: duckdb.DuckDBPyConnection,
    event: str,
    level: str = "event",
    round: str | None = None,
    table: str | None = None,
) -> Rows:
    """:func:`standings` as plain rows in the same order, for the command line."""
    cur = _standings_result(con, event, level, round, table)
    desc = cur.description or []
    rows = cur.fetchall()
    if not rows and (round is not None or table is not None):
        _known_match(con, event, round, table)
    columns = [d[0] for d in desc]
    # numbers right-aligned, as for a frame's numeric columns (a flag is not a number)
    numeric = (
        [
            any(v is not None for v in col)
            and all(
                v is None or (isinstance(v, int | float | Decimal) and not isinstance(v, bool))
                for v in col
            )
            for col in zip(*rows, strict=True)
        ]
        if rows
        else [False] * len(columns)
    )
    labels = {"table": ["round", "table"], "round": ["round"]}.get(level, [])
    if rows and labels:
        order = _natural_order(rows, columns, labels, ["rank", "player"], con, event)
        rows = [rows[i] for i in order]
    return Rows(columns, numeric, rows)


def level_of(
    con: duckdb.DuckDBPyConnection, event: str, round: str | None, table: str | None
) -> str:
    """The standings level a question asks for when it names none: a table's rows with
    ``table``, a round's with ``round`` (its round standings where the rulebook has them,
    pepet's sessions, else its tables'), else the event's."""
    if table is not None:
        return "table"
    if round is None:
        return "event"
    return "round" if "round" in rulesets.load(ruleset_of(con, event)).levels else "table"


def _standings_result(
    con: duckdb.DuckDBPyConnection, event: str, level: str, round: str | None, table: str | None
) -> duckdb.DuckDBPyRelation:
    """The standings query on ``con``: its rows are read with ``.pl()`` or ``fetchall()``
    (a relation runs when read, once)."""
    rs = ruleset_of(con, event)
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}")
    book = rulesets.load(rs)
    if level not in book.levels:
        raise ValueError(
            f"ruleset {rs} has no {level} standings (it has {', '.join(book.levels)}); {event} is played under {rs}"
        )
    view = f"{level}_standings"
    where, params = _where(
        event, round if level in ("table", "round") else None, table if level == "table" else None
    )
    order = {
        "table": 'round, "table", rank, player',
        "round": "round, rank, player",
        "event": "rank, player",
        "group": 'rank, "group"',
    }[level]
    cols = CONTRACT[level] + book.columns(level)
    # The event's rows first, on their own: a lone `event = ?` is answered from the index
    # on table_standings_t (migration 003) instead of a scan of every event's rows (string
    # zone maps cannot tell events with a common prefix apart); round and table filter
    # that small set. With both filters in one scan DuckDB would not use the index.
    return con.sql(
        f"WITH scope AS MATERIALIZED (SELECT * FROM {view} WHERE {where[0]}) "
        f"SELECT {', '.join(_q(c) for c in cols)} FROM scope WHERE {' AND '.join(['true', *where[1:]])} ORDER BY {order}",
        params=params,
    )


def _known_match(
    con: duckdb.DuckDBPyConnection, event: str, round: str | None, table: str | None
) -> None:
    """Raise :class:`NotFound` naming what exists when a round or table asked for does not."""
    known = rounds(con, event)
    if round is not None and round not in known:
        raise NotFound(
            f"event {event} has no round {round!r}; its rounds are {', '.join(known) or 'none yet'}"
        )
    if table is not None:
        if round is None:
            found = con.execute(
                "SELECT DISTINCT \"table\" FROM match_versions WHERE current AND kind <> 'withdrawn' "
                "AND event = ? ORDER BY 1",
                [event],
            )
        else:
            found = con.execute(
                "SELECT DISTINCT \"table\" FROM match_versions WHERE current AND kind <> 'withdrawn' "
                "AND event = ? AND round = ? ORDER BY 1",
                [event, round],
            )
        tables = [r[0] for r in found.fetchall()]
        if table not in tables:
            where = f"round {round} of event {event}" if round is not None else f"event {event}"
            raise NotFound(
                f"{where} has no table {table!r}; its tables are {', '.join(tables) or 'none yet'}"
            )


def _natural_sort(
    df: pl.DataFrame,
    labels: list[str],
    then: list[str],
    *,
    con: duckdb.DuckDBPyConnection | None = None,
    event: str | None = None,
) -> pl.DataFrame:
    """Sort on label columns in their natural order (``2`` before ``10``), then ``then``.

    A ``round`` column sorts in the event's round order: the ``rounds`` view's when
    ``con`` and ``event`` are given (the organiser's order included), else the default rule
    of :mod:`pipeline.rounds`. A frame of up to :data:`SMALL` rows (a leaderboard's) is
    ordered in Python, which costs less than building the sort keys as columns.
    """
    if df.height <= SMALL:
        return df[_natural_order(df.rows(), df.columns, labels, then, con, event)]
    import polars as pl

    keys: list[pl.Expr] = []
    order: list[str] = []
    for c in labels:
        if c == "round":
            if df.get_column(c).n_unique() <= 1:
                continue  # one round (a leaderboard's): nothing to order, no query
            # Ranked on the distinct labels (a handful), then looked up per row.
            known = rounds(con, event) if con is not None and event else []
            seen = set(known)
            rest = round_order.in_order(
                [r for r in df.get_column(c).unique().to_list() if r is not None and r not in seen]
            )
            place = {r: i for i, r in enumerate(known + rest)}
            keys.append(
                pl.col(c)
                .replace_strict(place, default=None, return_dtype=pl.Int64)
                .alias("_round_no")
            )
            order.append("_round_no")
            continue
        keys += [
            pl.col(c).str.replace_all(r"\d+", "").alias(f"_{c}_p"),
            pl.col(c).str.extract(r"(\d+)").cast(pl.Int64, strict=False).alias(f"_{c}_n"),
        ]
        order += [f"_{c}_p", f"_{c}_n"]
    tmp = df.with_columns(keys)
    return tmp.sort(order + then, nulls_last=False).select(df.columns)


_NUMBER = re.compile(r"\d+")
#: Frames of at most this many rows are sorted in Python (:func:`_natural_order`).
SMALL = 2000


def _natural_order(
    rows: list[tuple[Any, ...]],
    columns: list[str],
    labels: list[str],
    then: list[str],
    con: duckdb.DuckDBPyConnection | None,
    event: str | None,
) -> list[int]:
    """The positions of ``rows`` in :func:`_natural_sort`'s order: the same keys, nulls first."""
    at = {c: i for i, c in enumerate(columns)}

    def nullable(v: Any) -> tuple[int, Any]:
        return (0, 0) if v is None else (1, v)

    places: dict[int, dict[str, int]] = {}  # round column -> the event's round order
    plain: list[int] = []  # other label columns: natural order
    for c in labels:
        i = at[c]
        if c == "round":
            distinct = {r[i] for r in rows}
            if len(distinct) <= 1:
                continue
            known = rounds(con, event) if con is not None and event else []
            seen = set(known)
            rest = round_order.in_order([r for r in distinct if r is not None and r not in seen])
            places[i] = {r: n for n, r in enumerate(known + rest)}
        else:
            plain.append(i)
    tail = [at[c] for c in then]

    def key(r: tuple[Any, ...]) -> tuple[Any, ...]:
        out: list[Any] = []
        for i in (at[c] for c in labels):
            if i in places:
                out.append(nullable(places[i].get(r[i])))
            elif i in plain:
                out.extend(_label_key(r[i]))
        return (*out, *(nullable(r[i]) for i in tail))

    return sorted(range(len(rows)), key=lambda n: key(rows[n]))


def _label_key(v: str | None) -> tuple[tuple[int, Any], tuple[int, Any]]:
    """(the label without its digits, its first number): nulls first, as polars sorts."""
    if v is None:
        return (0, 0), (0, 0)
    m = _NUMBER.search(v)
    number = None
    if m and m.group().isascii():
        number = int(m.group())
        if number >= 2**63:
            number = None
    return (1, _NUMBER.sub("", v)), ((0, 0) if number is None else (1, number))


def hand_points(
    con: duckdb.DuckDBPyConnection, event: str, round: str | None = None, table: str | None = None
) -> pl.DataFrame:
    rs = ruleset_of(con, event)
    cols = CONTRACT["hand_points"] + rulesets.load(rs).columns("hand_points")
    where, params = _where(event, round, table)
    df = frame(
        con.sql(
            f"SELECT {', '.join(_q(c) for c in cols)} FROM hand_points WHERE {' AND '.join(where)} "
            'ORDER BY round, "table", hand, chair',
            params=params,
        )
    )
    if df.height == 0 and (round is not None or table is not None):
        _known_match(con, event, round, table)  # a mistyped round or table is said
    return (
        _natural_sort(df, ["round", "table"], ["hand", "chair"], con=con, event=event)
        if df.height
        else df
    )


def history(
    con: duckdb.DuckDBPyConnection, event: str, round: str | None = None, table: str | None = None
) -> pl.DataFrame:
    where, params = _where(event, round, table)
    # a version a change request brought names its requester and approver (rule 24)
    df = frame(
        con.sql(
            'SELECT v.event, v.round, v."table", v.version, v.kind, v.current, v.hands, '
            "v.changed_hands, v.file, v.loaded_by, v.loaded_at, v.reason, v.superseded_at, "
            "v.ingest_id, r.request_id, r.requested_by, r.requested_at, r.decided_by AS approved_by, "
            "r.decided_at AS approved_at, r.decision_reason AS approval_reason "
            "FROM match_versions v LEFT JOIN change_request_matches m ON m.event = v.event "
            'AND m.round = v.round AND m."table" = v."table" AND m.applied_version = v.version '
            "LEFT JOIN change_requests r ON r.request_id = m.request_id AND r.status = 'approved' "
            f'WHERE {" AND ".join("v." + w for w in where)} ORDER BY v.round, v."table", v.version',
            params=params,
        )
    )
    if df.height == 0:
        ruleset_of(con, event)  # an unknown event is said, as by the standings
        if round is not None or table is not None:
            _known_match(con, event, round, table)  # so is a mistyped round or table
    return (
        _natural_sort(df, ["round", "table"], ["version"], con=con, event=event)
        if df.height
        else df
    )


def ingest_log(con: duckdb.DuckDBPyConnection, limit: int = 200) -> pl.DataFrame:
    """The ingest log, newest first: its newest ``limit`` entries (0: all of them)."""
    return frame(
        con.sql(
            "SELECT ingest_id, file, sha256, rows, matches_loaded, matches_unchanged, matches_rejected, "
            "loaded_by, started_at, finished_at, reason, "
            "CASE WHEN finished_at IS NULL THEN 'interrupted' ELSE status END AS status "
            "FROM ingests ORDER BY ingest_id DESC, file LIMIT ?",
            params=[limit or None],  # LIMIT NULL: every entry
        )
    )


def loaded_hands(
    con: duckdb.DuckDBPyConnection, event: str, round: str, table: str
) -> pl.DataFrame:
    """The current version's hand rows of one match (for diffs and the upload preview)."""
    return frame(
        con.sql(
            'SELECT h.* FROM hands h JOIN match_versions v USING (event, round, "table", version) '
            'WHERE v.current AND h.event = ? AND h.round = ? AND h."table" = ? ORDER BY h.hand',
            params=[event, round, table],
        )
    )


def data_version(con: duckdb.DuckDBPyConnection) -> int:
    """Grows whenever anything is loaded: the dashboard's cache key."""
    return int(con.execute("SELECT coalesce(max(ingest_id), 0) FROM ingests").fetchall()[0][0])


def _where(
    event: str, round: str | None = None, table: str | None = None
) -> tuple[list[str], list[str]]:
    """Filters on a match key, as parameterised predicates."""
    where, params = ["event = ?"], [event]
    for col, value in (("round", round), ('"table"', table)):
        if value is not None:
            where.append(f"{col} = ?")
            params.append(value)
    return where, params


def _q(c: str) -> str:
    return f'"{c}"'
