"""Run the scoring models (``pipeline/sql/models``) over a batch of hand rows.

Scoring happens in a scratch in-memory DuckDB fed with polars frames, so the same code
scores an upload preview (nothing written), an ingest, and a full rescore. The models
are plain SELECTs over ``_hands`` and ``_params``, layered: staging → hand points →
table standings.
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


def score(hands: pl.DataFrame, ruleset: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Hand points and table standings for ``hands`` (rows of one ruleset's events)."""
    if hands.height == 0:
        return empty_results()
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
    with _cursor() as con:
        register(con, "_hands_in", inp)
        register(con, "_params_in", params)
        con.execute("CREATE TEMP VIEW _hands AS SELECT * FROM _hands_in")
        con.execute("CREATE TEMP TABLE _params AS SELECT * FROM _params_in")
        small = hands.height < SMALL_BATCH
        layer_models(con, ruleset, small=small)
        hp = frame(con.sql("SELECT * FROM _hand_points"), small=small)
        ts = frame(con.sql("SELECT * FROM _table_standings"), small=small)
    return _cast(hp, ts)


def empty_results() -> tuple[pl.DataFrame, pl.DataFrame]:
    hp = pl.DataFrame(schema={c: pl.String for c in HAND_POINTS_COLUMNS})
    ts = pl.DataFrame(schema={c: pl.String for c in TABLE_STANDINGS_COLUMNS})
    return _cast(hp, ts)


def _cast(hp: pl.DataFrame, ts: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    ints = pl.Int32
    hp = hp.select(HAND_POINTS_COLUMNS).cast(
        {
            "version": ints,
            "hand": ints,
            "points": ints,
            "game_points": ints,
            "sanction_points": ints,
            "value": ints,
            "tiebreak": pl.Boolean,
        }
    )
    ts = ts.select(TABLE_STANDINGS_COLUMNS).cast(
        {
            "version": ints,
            "points": ints,
            "rank": ints,
            "qualified": pl.Boolean,
            "needs_tiebreak": pl.Boolean,
            "tiebreak_points": ints,
            "hands": ints,
            "wins": ints,
            "match_hands": ints,
            "complete": pl.Boolean,
            "walkover": pl.Boolean,
        }
    )
    return hp, ts
