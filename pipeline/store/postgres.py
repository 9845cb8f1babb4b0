"""The PostgreSQL store: a league's database on a PostgreSQL server.

``--db postgresql://USER@HOST:PORT/DB`` (or ``DOMINO_DB``) selects it. The engine speaks
to both stores through the same small surface a DuckDB connection offers it —
``execute`` / ``sql`` with ``?`` parameters, ``fetchall`` / ``fetchone`` / ``pl``,
``executemany``, ``register`` of a polars frame, ``close`` — so :class:`PgConnection`
offers exactly that over a psycopg connection: each statement is DuckDB SQL transpiled
once (:mod:`pipeline.store.pgsql`), a registered frame becomes a temporary table filled
by ``COPY``, and :func:`insert_frame` writes straight into a table with ``COPY``.
Reading, validation and scoring stay in DuckDB (the models run in an in-memory DuckDB
per upload); what reaches PostgreSQL is the commit, serialised per match
(:func:`claim_matches`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import polars as pl
import psycopg
from polars import DataFrame
from psycopg.adapt import Dumper, Loader
from psycopg_pool import ConnectionPool

from pipeline.store.pgsql import to_postgres

SCHEMES = ("postgresql://", "postgres://")


class StoreUnavailable(ConnectionError):
    """The PostgreSQL server cannot be reached or refuses the connection (one sentence;
    the CLI exits 2 with it)."""


class MatchesChanged(RuntimeError):
    """Another upload wrote one of these matches since this one was planned."""

    def __init__(self, matches: list[tuple[str, str, str]]) -> None:
        names = ", ".join(f"{e} {r} table {t}" for e, r, t in matches[:5])
        super().__init__(f"another upload changed {names} meanwhile; plan again")
        self.matches = matches


def is_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(SCHEMES)


def redact(url: str) -> str:
    """The URL without a password, for messages."""
    info = psycopg.conninfo.conninfo_to_dict(url)
    host = info.get("host", "")
    return f"postgresql://{info.get('user', '')}@{host}:{info.get('port', '5432')}/{info.get('dbname', '')}"


class _TextLoader(Loader):
    """JSON as its text (DuckDB gives JSON columns as strings)."""

    def load(self, data: Any) -> str:
        return bytes(data).decode()


class _NumberLoader(Loader):
    """numeric as int when whole, else float (DuckDB's sums are integers, averages doubles)."""

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode()
        return float(text) if any(c in text for c in ".eEN") else int(text)


class TextList(list[Any]):
    """A list of strings sent as ``text[]`` (a plain list of str has no type PostgreSQL
    can choose an ``unnest`` for)."""


class _TextListDumper(Dumper):
    oid = psycopg.postgres.types["text"].array_oid

    def dump(self, obj: Any) -> bytes:
        def one(v: Any) -> str:
            if v is None:
                return "NULL"
            return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'

        return ("{" + ",".join(one(v) for v in obj) + "}").encode()


def _param(value: Any) -> Any:
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(v, str) or v is None for v in value)
    ):
        return TextList(value)
    return value


def _configure(conn: psycopg.Connection[Any]) -> None:
    for name in ("json", "jsonb"):
        conn.adapters.register_loader(name, _TextLoader)
    conn.adapters.register_loader("numeric", _NumberLoader)
    conn.adapters.register_dumper(TextList, _TextListDumper)


_OID_TYPES: dict[int, Any] = {
    16: pl.Boolean,
    20: pl.Int64,
    21: pl.Int16,
    23: pl.Int32,
    25: pl.String,
    1043: pl.String,
    19: pl.String,
    114: pl.String,
    3802: pl.String,
    700: pl.Float32,
    701: pl.Float64,
    1082: pl.Date,
    1114: pl.Datetime("us"),
    1184: pl.Datetime("us", "UTC"),
}


def frame_of(cur: psycopg.Cursor[Any]) -> pl.DataFrame:
    """The cursor's remaining rows as a polars frame typed from the result's columns."""
    desc = cur.description or []
    schema = {d.name: _OID_TYPES.get(d.type_code) for d in desc}
    rows = cur.fetchall()
    if all(t is not None for t in schema.values()):
        return pl.DataFrame(rows, schema=schema, orient="row")
    frame = pl.DataFrame(rows, schema=list(schema), orient="row", infer_schema_length=None)
    return frame.cast({k: v for k, v in schema.items() if v is not None})


def _pg_type(dtype: pl.DataType) -> str:
    if dtype == pl.Boolean:
        return "boolean"
    if dtype in (pl.Int8, pl.Int16, pl.Int32, pl.UInt8, pl.UInt16):
        return "integer"
    if dtype.is_integer():
        return "bigint"
    if dtype.is_float():
        return "double precision"
    if dtype == pl.Date:
        return "date"
    if isinstance(dtype, pl.Datetime):
        return "timestamp"
    return "text"


class _Result:
    """What ``con.sql(...)`` gives: rows to fetch once, as tuples or a frame."""

    def __init__(self, cur: psycopg.Cursor[Any]) -> None:
        self._cur = cur

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self._cur.fetchall() if self._cur.description else []

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._cur.fetchone() if self._cur.description else None

    def pl(self) -> pl.DataFrame:
        return frame_of(self._cur)

    @property
    def description(self) -> Any:
        return self._cur.description

    @property
    def columns(self) -> list[str]:
        return [d.name for d in self._cur.description or []]


class PgConnection:
    """A psycopg connection (autocommit; ``BEGIN``/``COMMIT`` as the engine says them)
    that speaks the engine's DuckDB dialect."""

    def __init__(self, conn: psycopg.Connection[Any], url: str) -> None:
        self.raw = conn
        self.url = url
        self._last: _Result | None = None
        self._frames: set[str] = set()
        self._columns: dict[str, list[str]] = {}

    # --- statements -----------------------------------------------------------------
    def _run(self, sql: str, params: Sequence[Any] | None = None) -> psycopg.Cursor[Any]:
        text = to_postgres(sql)
        cur = self.raw.cursor()
        cur.execute(text.encode(), [_param(v) for v in params] if params else None)
        return cur

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> PgConnection:
        self._last = _Result(self._run(sql, params))
        return self

    def sql(self, sql: str, params: Sequence[Any] | None = None) -> _Result:
        return _Result(self._run(sql, params))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> PgConnection:
        with self.raw.cursor() as cur:
            cur.executemany(to_postgres(sql).encode(), [[_param(v) for v in r] for r in rows])
        return self

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self._last.fetchall() if self._last else []

    def fetchone(self) -> tuple[Any, ...] | None:
        return self._last.fetchone() if self._last else None

    def pl(self) -> pl.DataFrame:
        return self._last.pl() if self._last else pl.DataFrame()

    @property
    def description(self) -> Any:
        return self._last.description if self._last else None

    def close(self) -> None:
        for name in list(self._frames):
            self.unregister(name)
        self.raw.close()

    # --- frames -------------------------------------------------------------------------
    def register(self, name: str, frame: Any) -> None:
        """A polars frame as a temporary table ``name`` (filled with ``COPY``)."""
        df = frame if isinstance(frame, pl.DataFrame) else pl.from_arrow(frame)
        assert isinstance(df, pl.DataFrame)
        cols = ", ".join(f'"{c}" {_pg_type(t)}' for c, t in df.schema.items())
        with self.raw.cursor() as cur:
            cur.execute(f'DROP TABLE IF EXISTS pg_temp."{name}"'.encode())
            cur.execute(f'CREATE TEMP TABLE "{name}" ({cols})'.encode())
        self._frames.add(name)
        self.copy_in(name, df, list(df.columns))

    def unregister(self, name: str) -> None:
        self._frames.discard(name)
        if self.raw.closed:
            return
        with self.raw.cursor() as cur:
            cur.execute(f'DROP TABLE IF EXISTS pg_temp."{name}"'.encode())

    def table_columns(self, table: str) -> list[str]:
        if table not in self._columns:
            rows = self.raw.execute(
                "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass "
                "AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
                [table],
            ).fetchall()
            self._columns[table] = [r[0] for r in rows]
        return self._columns[table]

    def copy_in(self, table: str, frame: DataFrame, columns: list[str]) -> None:
        """``COPY table (columns) FROM STDIN`` with the frame as CSV (written by polars)."""
        if frame.height == 0:
            return
        for c, t in frame.schema.items():
            if isinstance(t, (pl.List, pl.Struct, pl.Array)):
                frame = frame.with_columns(pl.col(c).cast(pl.String, strict=False))
        buf = io.BytesIO()
        frame.write_csv(
            buf, include_header=False, null_value="\\N", datetime_format="%Y-%m-%d %H:%M:%S%.f"
        )
        names = ", ".join(f'"{c}"' for c in columns)
        with self.raw.cursor() as cur:
            with cur.copy(
                f"COPY \"{table}\" ({names}) FROM STDIN WITH (FORMAT csv, NULL '\\N')".encode()
            ) as cp:
                cp.write(buf.getvalue())


def insert_frame(
    con: PgConnection, table: str, frame: Any, columns: str = "*", *, on_conflict: str = ""
) -> None:
    """:func:`pipeline.store.db.insert_frame` on PostgreSQL: ``COPY`` straight into the
    table, or through a temporary table when rows may conflict."""
    df = frame if isinstance(frame, pl.DataFrame) else pl.from_arrow(frame)
    assert isinstance(df, pl.DataFrame)
    target = (
        con.table_columns(table)[: df.width]
        if columns == "*"
        else [c.strip().strip('"') for c in columns.split(",")]
    )
    if not on_conflict:
        con.copy_in(table, df.select(df.columns[: len(target)]), target)
        return
    name = f"_frame_{id(df)}"
    con.register(name, df)
    try:
        cols = ", ".join(f'"{c}"' for c in target)
        sel = "*" if columns == "*" else columns
        con.execute(f"INSERT INTO {table} ({cols}) SELECT {sel} FROM {name} {on_conflict}")
    finally:
        con.unregister(name)


def match_key(event: str, round_: str, table: str) -> int:
    """A signed 64-bit advisory lock key for one match."""
    digest = hashlib.sha256("\x1f".join((event, round_, table)).encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def claim_matches(con: PgConnection, writes: list[tuple[str, str, str, int]]) -> None:
    """Inside the commit's transaction: lock each match written (in one order, so two
    uploads never wait on each other in a circle) and check that its loaded version is
    still the one this plan replaces; else :class:`MatchesChanged`, nothing written."""
    if not writes:
        return
    keys = sorted({match_key(e, r, t) for e, r, t, _v in writes})
    con.raw.execute(
        "SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT unnest(%s::bigint[]) AS k ORDER BY 1) s",
        [keys],
    )
    rows = con.raw.execute(
        'SELECT event, round, "table", max(version) FROM match_versions '
        'WHERE (event, round, "table") IN (SELECT * FROM unnest(%s::text[], %s::text[], %s::text[])) '
        'GROUP BY event, round, "table"',
        [[w[0] for w in writes], [w[1] for w in writes], [w[2] for w in writes]],
    ).fetchall()
    loaded = {(e, r, t): int(v) for e, r, t, v in rows}
    changed = [(e, r, t) for e, r, t, v in writes if loaded.get((e, r, t), 0) != v - 1]
    if changed:
        raise MatchesChanged(changed)


# --- connections --------------------------------------------------------------------

_pools: dict[str, ConnectionPool[Any]] = {}
_pools_lock = threading.Lock()
_migrated: set[str] = set()


def _raw(url: str, timeout: float) -> psycopg.Connection[Any]:
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(timeout)))
    except psycopg.OperationalError as exc:
        raise StoreUnavailable(
            f"the PostgreSQL database {redact(url)} cannot be reached ({_first_line(exc)}); "
            "check that the server runs and the URL in --db or DOMINO_DB"
        ) from exc
    _configure(conn)
    return conn


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:160] if text else type(exc).__name__


def open_connection(url: str, *, read_only: bool = False, timeout: float = 10.0) -> PgConnection:
    """A new connection; a writer (and the first reader of the process) migrates."""
    con = PgConnection(_raw(url, timeout), url)
    if not read_only or url not in _migrated:
        try:
            from pipeline.store.pgmigrate import migrate

            migrate(con)
            _migrated.add(url)
        except BaseException:
            con.close()
            raise
    return con


@contextlib.contextmanager
def connect(url: str, *, read_only: bool = False, timeout: float = 10.0) -> Iterator[PgConnection]:
    con = open_connection(url, read_only=read_only, timeout=timeout)
    try:
        yield con
    finally:
        con.close()


def pool(url: str) -> ConnectionPool[Any]:
    """The process's small pool of reading connections to ``url``."""
    from pipeline import settings

    with _pools_lock:
        if url not in _pools:
            with connect(url):  # migrated once before the pool's connections read
                pass
            p: ConnectionPool[Any] = ConnectionPool(
                url,
                min_size=1,
                max_size=int(settings.get("pg_pool_size")),
                kwargs={"autocommit": True},
                configure=_configure,
                open=False,
                name="domino-read",
            )
            p.open(wait=True, timeout=10)
            _pools[url] = p
        return _pools[url]


@contextlib.contextmanager
def read(url: str, *, timeout: float = 10.0) -> Iterator[PgConnection]:
    """A pooled connection for one batch of reads (the dashboard)."""
    try:
        cm = pool(url).connection(timeout=timeout)
        raw = cm.__enter__()
    except psycopg.OperationalError as exc:
        raise StoreUnavailable(
            f"the PostgreSQL database {redact(url)} cannot be reached ({_first_line(exc)}); "
            "check that the server runs and the URL in --db or DOMINO_DB"
        ) from exc
    con = PgConnection(raw, url)
    try:
        yield con
    finally:
        for name in list(con._frames):
            con.unregister(name)
        cm.__exit__(None, None, None)


def close_pools() -> None:
    with _pools_lock:
        for p in _pools.values():
            p.close()
        _pools.clear()
