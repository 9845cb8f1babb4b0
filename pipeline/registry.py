"""The player registry (``domino players import``): groups (KG), cities and aliases.

Two spellings of one person are one player everywhere: an alias maps a folded name to
the registered player's key. Importing re-resolves every loaded hand (a rescore), so a
registry that arrives after the results still merges the spellings.
"""

from datetime import datetime
from pathlib import Path

import duckdb
import polars as pl

from pipeline.ingest.columns import header_key
from pipeline.ingest.normalize import name_expr
from pipeline.ingest.read import _csv_rows, _xlsx_rows, display_name
from pipeline.problems import FileRejected
from pipeline.store.db import insert_frame

_ALIASES = {"pemain": "player", "nama": "player", "kelompok": "group", "kg": "group", "kota": "city", "alias": "aliases"}


def read_registry(path: str | Path) -> pl.DataFrame:
    """Read a registry file (CSV or XLSX) into ``player, group, city, aliases`` (text)."""
    path = Path(path)
    data = path.read_bytes()
    label = display_name(path.name)
    header, body, _ = _xlsx_rows(data, label) if data.startswith(b"PK\x03\x04") else _csv_rows(data, label)
    names = [_ALIASES.get(header_key(h or ""), header_key(h or "")) for h in header]
    body.columns = [n or f"column_{i}" for i, n in enumerate(names)]
    if "player" not in body.columns:
        raise FileRejected(label, "missing_column", variant="registry", column="player")
    for c in ("group", "city", "aliases"):
        if c not in body.columns:
            body = body.with_columns(pl.lit(None, dtype=pl.String).alias(c))
    out = body.select(
        name_expr("player").alias("player"),
        pl.col("group").cast(pl.String).str.strip_chars().replace("", None),
        pl.col("city").cast(pl.String).str.strip_chars().replace("", None),
        pl.col("aliases").cast(pl.String),
    ).filter(pl.col("player").is_not_null())
    if out.height == 0:
        raise FileRejected(label, "header_only", variant="registry")
    return out


def import_registry(con: duckdb.DuckDBPyConnection, reg: pl.DataFrame) -> dict[str, int]:
    """Upsert players and aliases; returns counts. The caller rescores afterwards."""
    players = reg.with_columns(pl.col("player").str.to_lowercase().alias("player_key")).unique("player_key", keep="last")
    aliases = (
        players.select(
            "player_key",
            pl.col("aliases").str.split(";").alias("alias"),
        )
        .explode("alias")
        .with_columns(pl.col("alias").str.replace_all(r"\s+", " ").str.strip_chars().str.to_lowercase())
        .filter(pl.col("alias").is_not_null() & (pl.col("alias") != "") & (pl.col("alias") != pl.col("player_key")))
        .unique("alias", keep="last")
        .select(pl.col("alias").alias("alias_key"), "player_key")
    )
    now = datetime.now()
    new_players = players.select("player_key", "player", "group", "city", pl.lit(now).alias("imported_at"))
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute("DELETE FROM registry WHERE player_key IN (SELECT unnest(?))", [new_players["player_key"].to_list()])
        con.execute("DELETE FROM aliases WHERE alias_key IN (SELECT unnest(?))", [aliases["alias_key"].to_list()])
        insert_frame(con, "registry", new_players, 'player_key, player, "group", city, imported_at')
        insert_frame(con, "aliases", aliases, "alias_key, player_key")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return {"players": new_players.height, "aliases": aliases.height}
