"""A connection to the PostgreSQL store that speaks the engine's DuckDB dialect.

:class:`PgConnection` offers what the engine uses of a DuckDB connection — ``execute`` /
``sql`` with ``?`` parameters, ``fetchall`` / ``fetchone`` / ``pl``, ``executemany``,
``register`` of a polars frame, ``close`` — over a psycopg connection in autocommit mode
(``BEGIN`` / ``COMMIT`` as the engine says them). Each statement is DuckDB SQL transpiled
once (:mod:`pipeline.store.pgsql`); a registered frame becomes a temporary table filled
with ``COPY``; values come back as DuckDB gives them (JSON as text, whole sums as int).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl
import psycopg
from polars import DataFrame
from psycopg.adapt import Dumper, Loader
from psycopg.copy import QueuedLibpqWriter

from pipeline.store.pgsql import to_postgres


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
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) or v is None for v in value):
        return TextList(value)  # an empty list too: text[] is what our lists of keys are
    return value


def configure(conn: psycopg.Connection[Any]) -> None:
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


#: Rows per slice of a big ``COPY`` (see :meth:`PgConnection.copy_in`).
COPY_SLICE = 100_000


def _csv(frame: DataFrame) -> bytes:
    """Rows as ``COPY … (FORMAT csv, NULL '\\N')`` reads them."""
    buf = io.BytesIO()
    frame.write_csv(
        buf, include_header=False, null_value="\\N", datetime_format="%Y-%m-%d %H:%M:%S%.f"
    )
    return buf.getvalue()


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
    def _run(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None
    ) -> psycopg.Cursor[Any]:
        text = to_postgres(sql)
        cur = self.raw.cursor()
        values: Any = None
        if isinstance(params, Mapping):  # $name parameters
            values = {k: _param(v) for k, v in params.items()}
        elif params:
            values = [_param(v) for v in params]
        cur.execute(text.encode(), values)
        return cur

    def execute(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None
    ) -> PgConnection:
        self._last = _Result(self._run(sql, params))
        return self

    def sql(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> _Result:
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
        """``COPY table (columns) FROM STDIN`` with the frame as CSV (written by polars).

        A big frame goes in slices of :data:`COPY_SLICE` rows through psycopg's queued
        writer, which sends from a thread of its own: polars writes the next slice while
        the server parses this one (a million-hand load spends about half a second per
        two million rows writing CSV, which then no longer adds to the server's time)."""
        if frame.height == 0:
            return
        for c, t in frame.schema.items():
            if isinstance(t, (pl.List, pl.Struct, pl.Array)):
                frame = frame.with_columns(pl.col(c).cast(pl.String, strict=False))
        names = ", ".join(f'"{c}"' for c in columns)
        statement = f"COPY \"{table}\" ({names}) FROM STDIN WITH (FORMAT csv, NULL '\\N')"
        with self.raw.cursor() as cur:
            if frame.height <= COPY_SLICE:
                with cur.copy(statement.encode()) as cp:
                    cp.write(_csv(frame))
                return
            with cur.copy(statement.encode(), writer=QueuedLibpqWriter(cur)) as cp:
                for part in frame.iter_slices(COPY_SLICE):
                    cp.write(_csv(part))
