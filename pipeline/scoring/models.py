"""Run the scoring models (``pipeline/sql/models``) over a batch of hand rows.

Scoring happens in a scratch in-memory DuckDB fed with polars frames, so the same code
scores an upload preview (nothing written), an ingest, and a full rescore; a bulk load's
big batch into a DuckDB file is scored by the same models on the load's own connection
instead, its hand points kept there for the commit (:func:`score_kept`). The models are
plain SELECTs over ``_hands`` and ``_params``, layered: staging → hand points → table
standings.
"""

import atexit
import threading
from importlib import resources

import duckdb
import polars as pl

from pipeline import rulesets
from pipeline.store.db import duckdb_config, frame, quiet, register

_MODELS = resources.files("pipeline.sql") / "models"

HAND_POINTS_COLUMNS = [
    "event",
    "round",
    "table",
    "version",
    "hand",
    "player_key",
    "chair",
    "category",
    "points",
    "game_points",
    "sanction_points",
    "value",
    "tiebreak",
]
TABLE_STANDINGS_COLUMNS = [
    "event",
    "round",
    "table",
    "version",
    "player_key",
    "points",
    "rank",
    "qualified",
    "needs_tiebreak",
    "tiebreak_points",
    "hands",
    "wins",
    "match_hands",
    "complete",
    "walkover",
]
SCORING_INPUT = [
    "event",
    "round",
    "table",
    "version",
    "hand",
    "ended_by",
    "ending",
    *[f"key_{c}" for c in "abcd"],
    *[f"value_{c}" for c in "abcd"],
    *[f"sanctions_{c}" for c in "abcd"],
]


_scratch: duckdb.DuckDBPyConnection | None = None
_scratch_lock = threading.Lock()


def _cursor() -> duckdb.DuckDBPyConnection:
    """A fresh connection to one in-memory DuckDB that lives as long as the process.

    Starting a DuckDB instance costs ~25 ms, a large share of a live upload; a cursor is
    a new connection to the same instance, so its temporary views and tables are its own
    (concurrent scorings do not see each other's) and vanish when it closes.
    """
    global _scratch
    with _scratch_lock:
        if _scratch is None:
            _scratch = duckdb.connect(":memory:", config=duckdb_config())
            atexit.register(_close_scratch)
        return quiet(_scratch.cursor())


def _close_scratch() -> None:
    global _scratch
    with _scratch_lock:
        if _scratch is not None:
            _scratch.close()
            _scratch = None


def model(name: str) -> str:
    return (_MODELS / name).read_text()


#: A batch of fewer hand rows than this (a live upload: one to a few hundred matches) is
#: scored with DuckDB's optimizer off and its seats materialised. Measured on one 10-hand
#: table: planning and optimising the models took 80 of 86 ms, executing them 5; off,
#: 48 ms. The optimizer only chooses how to run the same SELECTs, so the results are the
#: same (``tests/test_models_small_batch.py`` compares both ways); big batches keep it.
SMALL_BATCH = 2000


def layer_models(
    con: duckdb.DuckDBPyConnection, ruleset: str, *, stored: bool = False, small: bool = False
) -> None:
    """Build ``_seats``, ``_hand_points`` and ``_table_standings`` on ``con`` from its
    ``_hands`` and ``_params``: staging → hand points → table standings.

    Temporary tables by default; ``stored`` writes the two tables into the database
    itself (the benchmark's SQL-only bound measures that). ``small`` (a batch under
    :data:`SMALL_BATCH` rows) plans without the optimizer, from materialised seats.
    """
    kind = "TABLE" if stored else "TEMP TABLE"
    folder = rulesets.load(ruleset).models
    seats = "TABLE" if small else "VIEW"
    if small:
        con.execute("PRAGMA disable_optimizer")
    con.execute(f"CREATE TEMP {seats} _seats AS {model('staging/seats.sql')}")
    con.execute(f"CREATE {kind} _hand_points AS {model(f'{folder}/hand_points.sql')}")
    con.execute(f"CREATE {kind} _table_standings AS {model(f'{folder}/table_standings.sql')}")


def _put_inputs(con: duckdb.DuckDBPyConnection, hands: pl.DataFrame, ruleset: str) -> None:
    """The models' inputs on ``con`` for ``hands`` (rows of one ruleset's events): the view
    ``_hands`` of the registered frame ``_hands_in``, and the table ``_params``."""
    events = hands.get_column("event").unique().to_list()
    params = rulesets.params_frame({e: ruleset for e in events})
    # Integer ids for a match version (`mid`) and a hand row (`hid`): every window and
    # grouping in the models partitions by one integer rather than the text match key.
    inp = (
        hands.select(SCORING_INPUT)
        .cast({"hand": pl.Int32, "version": pl.Int32})
        .with_columns(
            pl.struct("event", "round", "table", "version")
            .rank("dense")
            .cast(pl.Int64)
            .alias("mid"),
            pl.int_range(pl.len(), dtype=pl.Int64).alias("hid"),
        )
    )
    register(con, "_hands_in", inp)
    register(con, "_params_in", params)
    con.execute("CREATE TEMP VIEW _hands AS SELECT * FROM _hands_in")
    con.execute("CREATE TEMP TABLE _params AS SELECT * FROM _params_in")


def score(hands: pl.DataFrame, ruleset: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Hand points and table standings for ``hands`` (rows of one ruleset's events)."""
    if hands.height == 0:
        return empty_results()
    with _cursor() as con:
        _put_inputs(con, hands, ruleset)
        small = hands.height < SMALL_BATCH
        layer_models(con, ruleset, small=small)
        hp = frame(con.sql("SELECT * FROM _hand_points"), small=small)
        ts = frame(con.sql("SELECT * FROM _table_standings"), small=small)
    return _cast(hp, ts)


#: A batch of at least this many hand rows, loaded into a DuckDB database, is scored on
#: the load's own connection and its hand points kept there (:func:`score_kept`).
KEPT_BATCH = 50_000


#: The temporary objects the models make on a connection, dropped again by
#: :func:`score_kept` (those made on a cursor vanish when it closes).
_DROP_MODEL_TEMPS = (
    "DROP VIEW IF EXISTS temp._seats",
    "DROP VIEW IF EXISTS temp._hands",
    "DROP TABLE IF EXISTS temp._hand_points",
    "DROP TABLE IF EXISTS temp._table_standings",
    "DROP TABLE IF EXISTS temp._params",
)


def kept_name(n: int) -> str:
    """The name of the ``n``-th temporary table of kept hand points (:func:`score_kept`)."""
    return f"_kept_points_{int(n)}"


def score_kept(
    con: duckdb.DuckDBPyConnection, hands: pl.DataFrame, ruleset: str, name: str
) -> pl.DataFrame:
    """:func:`score` on ``con`` itself, a DuckDB database's write connection: the hand
    points stay on it, in the temporary table ``name`` (replaced if it exists; the
    models' columns, version the one each row was scored under), and only the table
    standings are returned. A bulk load's commit then writes them into
    ``hand_points_t`` inside the database (:mod:`pipeline.ingest.writer`) instead of
    reading four rows a hand out into a frame and writing them back in: 0.4-0.6 s of a
    500,000-hand batch (docs/performance.md).

    Temporary tables belong to their connection, so this runs on ``con``, not on a cursor
    of it; the models' own temporary names are dropped again before it returns.
    """
    con.execute(f"DROP TABLE IF EXISTS temp.{name}")  # a plan made again replaces its own
    try:
        _put_inputs(con, hands, ruleset)
        layer_models(con, ruleset)
        con.execute(f"ALTER TABLE temp._hand_points RENAME TO {name}")
        ts = frame(con.sql("SELECT * FROM _table_standings"), small=False)
    finally:
        for stmt in _DROP_MODEL_TEMPS:
            con.execute(stmt)
        con.unregister("_hands_in")
        con.unregister("_params_in")
    return ts.select(TABLE_STANDINGS_COLUMNS).cast(STANDING_TYPES)


def kept_rows(con: duckdb.DuckDBPyConnection, name: str, matches: pl.DataFrame) -> pl.DataFrame:
    """The hand points of ``matches`` (``event, round, table``) kept in ``name`` by
    :func:`score_kept`, typed as :func:`score` gives them."""
    register(con, "_kept_of", matches.select("event", "round", "table"))
    try:
        hp = frame(
            con.sql(f'SELECT * FROM {name} SEMI JOIN _kept_of USING (event, round, "table")')
        )
    finally:
        con.unregister("_kept_of")
    return hp.select(HAND_POINTS_COLUMNS).cast(POINT_TYPES)


def empty_results() -> tuple[pl.DataFrame, pl.DataFrame]:
    hp = pl.DataFrame(schema={c: pl.String for c in HAND_POINTS_COLUMNS})
    ts = pl.DataFrame(schema={c: pl.String for c in TABLE_STANDINGS_COLUMNS})
    return _cast(hp, ts)


#: The types of the scored columns that are not text (the models' own are wider).
POINT_TYPES = pl.Schema(
    {
        "version": pl.Int32(),
        "hand": pl.Int32(),
        "points": pl.Int32(),
        "game_points": pl.Int32(),
        "sanction_points": pl.Int32(),
        "value": pl.Int32(),
        "tiebreak": pl.Boolean(),
    }
)
STANDING_TYPES = pl.Schema(
    {
        "version": pl.Int32(),
        "points": pl.Int32(),
        "rank": pl.Int32(),
        "qualified": pl.Boolean(),
        "needs_tiebreak": pl.Boolean(),
        "tiebreak_points": pl.Int32(),
        "hands": pl.Int32(),
        "wins": pl.Int32(),
        "match_hands": pl.Int32(),
        "complete": pl.Boolean(),
        "walkover": pl.Boolean(),
    }
)


def _cast(hp: pl.DataFrame, ts: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    return (
        hp.select(HAND_POINTS_COLUMNS).cast(POINT_TYPES),
        ts.select(TABLE_STANDINGS_COLUMNS).cast(STANDING_TYPES),
    )
