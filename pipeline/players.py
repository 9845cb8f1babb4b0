"""Players: the key of a name, aliases and the registry (`domino players import`).

Two spellings of one person are one player everywhere: an alias maps a folded name to
the registered player's key. Importing re-resolves every loaded hand (a rescore), so a
registry that arrives after the results still merges the spellings.
"""

import difflib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from pipeline import messages
from pipeline.ingest.columns import CHAIRS, canonical_name
from pipeline.ingest.normalize import MAX_CELL, MAX_NOTE, name_expr
from pipeline.ingest.read import _csv_rows, display_name, file_bytes, refuse_unread_kinds
from pipeline.ingest.sheet import _short, lift_header
from pipeline.ingest.workbook import _xlsx_tables
from pipeline.problems import FileRejected
from pipeline.store.db import frame, register

_ALIASES = {
    "pemain": "player",
    "nama": "player",
    "nama_pemain": "player",
    "nama_lengkap": "player",
    "nama_peserta": "player",
    "nama_anggota": "player",
    "peserta": "player",
    "kelompok": "group",
    "kg": "group",
    "kelompok_kg": "group",
    "nama_kelompok": "group",
    "grup": "group",
    "kota": "city",
    "asal_kota": "city",
    "alias": "aliases",
    "anggota_sejak": "member_since",
    "sejak": "member_since",
    "tanggal_lahir": "birth_date",
    "tgl_lahir": "birth_date",
    "lahir": "birth_date",
    "kewarganegaraan": "citizenship",
    "warga_negara": "citizenship",
    "cadangan": "reserve_for",
    "cadangan_untuk": "reserve_for",
    # a roster's: whom a reserve plays for, and how the member agreed (rule 23)
    "ganti": "replaces",
    "menggantikan": "replaces",
    "persetujuan": "consent",
}
#: Optional registry columns (HANDLOG.md, Registry), read as text; dates as YYYY-MM-DD.
#: ``replaces`` and ``consent`` are a roster's (a registry import does not read them).
OPTIONAL = (
    "group",
    "city",
    "aliases",
    "member_since",
    "birth_date",
    "citizenship",
    "reserve_for",
    "replaces",
    "consent",
)
#: The registry's date columns.
DATES = ("member_since", "birth_date")
_COLUMNS = frozenset({"player", *OPTIONAL})


def is_player_list(header: list[str]) -> bool:
    """Whether a file's header is a roster's or a registry's (a column ``player`` under
    any of its names): a hand log's reader names it, so that such a file given to it is
    told where it belongs rather than which hand-log column it lacks."""
    return _names_player(header)


def date_text(expr: pl.Expr) -> pl.Expr:
    """A registry date as ``YYYY-MM-DD`` text: written so, as a spreadsheet's date cell
    reads (``2020-01-01 00:00:00``), or day first as Indonesia writes dates
    (``5/12/1990``, ``05-12-1990``, ``05.12.1990``: 5 December). Anything else stays as
    written, for the import's check to refuse with its line."""
    as_date = pl.coalesce(
        expr.str.to_date("%Y-%m-%d", strict=False),
        expr.str.to_datetime("%Y-%m-%d %H:%M:%S%.f", strict=False).dt.date(),
        *(expr.str.to_date(f"%d{sep}%m{sep}%Y", strict=False) for sep in "/-."),
    )
    return pl.coalesce(as_date.dt.to_string("%Y-%m-%d"), expr)


# Every seat of the current versions of the rounds where a name about to become an alias
# (table ``_merging``) has played.
_MERGED_SEATS = (
    'WITH cur AS (SELECT h.event, h.round, h."table", h.hand, h.player_a, h.player_b, h.player_c, h.player_d '
    'FROM hands h JOIN match_versions v USING (event, round, "table", version) WHERE v.current), '
    "touched AS (SELECT DISTINCT event, round FROM cur WHERE lower(player_a) IN (SELECT alias_key FROM _merging) "
    "OR lower(player_b) IN (SELECT alias_key FROM _merging) OR lower(player_c) IN (SELECT alias_key FROM _merging) "
    "OR lower(player_d) IN (SELECT alias_key FROM _merging)) "
    "SELECT cur.* FROM cur JOIN touched USING (event, round)"
)


def registered_like(written: pl.Series, names: list[str], *, cutoff: float = 0.5) -> pl.Series:
    """For each value of ``written`` (names not in the registry), the up to three
    registered ``names`` most like it, comma-separated ("" for none): worked out once per
    distinct value, for a message to say (``unregistered_player``, ``replaces.unknown``)."""
    distinct = written.unique().drop_nulls().to_list()
    like = {v: ", ".join(difflib.get_close_matches(v, names, n=3, cutoff=cutoff)) for v in distinct}
    return written.replace_strict(like, default="", return_dtype=pl.String)


def key_expr(expr: pl.Expr) -> pl.Expr:
    """The player key of a name: its one spelling (:func:`pipeline.ingest.normalize.name_expr`:
    NFC, invisible characters removed, white space collapsed) in lower case."""
    return name_expr(expr).str.to_lowercase()


class RegistryConflict(messages.Refused):
    """An import refused whole, for one or more conflicts (messages naming the file's
    rows): :meth:`lines` says each in a language, ``reasons`` in English."""

    def __init__(self, conflicts: list[dict[str, Any]]) -> None:
        super().__init__("registry_conflict", {"conflicts": conflicts})

    def lines(self, lang: str = "en") -> list[str]:
        return [messages.render(c["id"], c["params"], lang) for c in self.params["conflicts"]]

    @property
    def reasons(self) -> list[str]:
        return self.lines()


def _registry_names(header: list[str]) -> list[str]:
    """The registry's column of each header cell ("" for a blank one): its name or an
    Indonesian one (``Nama Pemain``, ``Kelompok (KG)``), in any case, punctuation read as
    a space where that makes a registry column, as a hand log's headers are read."""
    return [canonical_name(h or "", _ALIASES, _COLUMNS) for h in header]


def column_label(spelled: str | None, column: str) -> str:
    """How a message names a registry or roster column: as the file's header wrote it,
    the registry's name beside it where they differ (``Tanggal Lahir (birth_date)``), as
    hand-log messages name theirs. ``spelled`` is a row's ``_spelled`` (JSON: column ->
    header as written; absent for a frame not read from a file)."""
    written = json.loads(spelled).get(column) if spelled else None
    return column if not written or written == column else f"{written} ({column})"


def _names_player(header: list[str]) -> bool:
    return "player" in _registry_names(header)


def read_registry(path: str | Path) -> pl.DataFrame:
    """Read a registry file (CSV, XLSX or ODS) into ``player`` and the :data:`OPTIONAL` columns
    (text) with ``_file`` and ``_line`` (where each row is, for messages). A workbook's
    every visible sheet whose header names a player column is read (one sheet per group is
    common), each row named with its sheet (``players.xlsx [KG B]``) where there are several."""
    path = Path(path)
    label = display_name(path.name)
    data = file_bytes(path, label)
    refuse_unread_kinds(data, label, hand_log=False)
    if not data.startswith(b"PK\x03\x04"):
        return _registry_table(_lifted((*_csv_rows(data, label), [])), label)
    tables = [(sheet, _lifted(rows)) for sheet, rows in _xlsx_tables(data, label)]
    named = [(sheet, rows) for sheet, rows in tables if _names_player(rows[0])]
    if len(named) <= 1:
        return _registry_table(named[0][1] if named else tables[0][1], label)
    return pl.concat(
        [_registry_table(rows, f"{label} [{_short(sheet, 40)}]") for sheet, rows in named],
        how="vertical",
    )


def _lifted(
    rows: tuple[list[str], pl.DataFrame, int, list],
) -> tuple[list[str], pl.DataFrame, int, list]:
    """A table's rows with a title above its header (``DAFTAR PESERTA``) left out: when the
    first row names no player column, the first of the rows under it that does."""
    return lift_header(rows, first=_names_player, header=_names_player)[0]


def _registry_table(rows: tuple[list[str], pl.DataFrame, int, list], label: str) -> pl.DataFrame:
    """One table of a registry file (a CSV, a workbook's sheet with its marks: hidden rows,
    formulas saved without a value), its header lifted (:func:`_lifted`), as
    :func:`read_registry` reads it; ``label`` names it in messages."""
    header, body, header_line, marks = rows
    names = _registry_names(header)
    if "player" not in names:
        raise FileRejected(
            label,
            "missing_column",
            {"line": header_line, "header": _header_text(header)},
            variant="registry",
            column="player",
        )
    spelled: dict[str, str] = {}
    for i, name in enumerate(names):
        written = str(header[i] or "").strip()
        if name and name in spelled:
            # two headers meaning one column: which one holds the player's value?
            raise FileRejected(
                label,
                "duplicate_column",
                {"a": repr(spelled[name]), "b": repr(written), "column": name},
                column=name,
            )
        if name:
            spelled[name] = written
    body.columns = [n or f"column_{i}" for i, n in enumerate(names)]
    _refuse_unnamed_values(body, [i for i, n in enumerate(names) if not n], label, header_line)
    for c in OPTIONAL:
        if c not in body.columns:
            body = body.with_columns(pl.lit(None, dtype=pl.String).alias(c))
    out = (
        body.with_row_index("_line", offset=header_line + 1)
        .select(
            name_expr(pl.col("player").cast(pl.String)).alias("player"),
            name_expr(pl.col("group").cast(pl.String)).alias("group"),
            name_expr(pl.col("city").cast(pl.String)).alias("city"),
            pl.col("aliases").cast(pl.String),
            *(date_text(name_expr(pl.col(c).cast(pl.String))).alias(c) for c in DATES),
            *(
                name_expr(pl.col(c).cast(pl.String)).alias(c)
                for c in ("citizenship", "reserve_for", "replaces", "consent")
            ),
            pl.lit(label).alias("_file"),
            pl.col("_line").cast(pl.Int64),
            pl.lit(json.dumps(spelled, ensure_ascii=False)).alias("_spelled"),
        )
        .filter(pl.col("player").is_not_null())
    )
    if out.height == 0:
        raise FileRejected(label, "header_only", variant="registry")
    _refuse_long_cells(out, label)
    _refuse_marked(out, marks, header, label)
    return out


def _refuse_marked(out: pl.DataFrame, marks: list, header: list[str], label: str) -> None:
    """A hidden row holding a player, or a cell whose formula was saved without its value,
    refuses the file naming the row, as a hand log's match is kept out: a hidden player
    may have left, and a formula's cell would be read empty (a player in no group, or a
    row without its player left out)."""
    players = set(out.get_column("_line").to_list())
    for line, col, code, params in sorted(marks, key=lambda m: (m[0], m[2] != "hidden_row")):
        if code == "hidden_row" and line not in players:
            continue  # a hidden empty row holds nobody
        said = dict(params)
        if code == "formula_without_value":
            said["column"] = str(header[col] or col + 1) if col is not None else "?"
        raise FileRejected(label, code, said, variant="registry")


def _refuse_unnamed_values(
    body: pl.DataFrame, unnamed: list[int], label: str, header_line: int
) -> None:
    """A value in a column without a header refuses the file, naming its line and column:
    most often a name with an unquoted comma (``Smith, John`` read as ``Smith``), which
    would otherwise enter the roster or the registry cut short without a word."""
    for i in unnamed:
        c = body.columns[i]
        filled = body.with_row_index("_at").filter(
            pl.col(c).cast(pl.String).str.strip_chars().str.len_chars() > 0
        )
        if filled.height:
            raise FileRejected(
                label,
                "unnamed_value",
                {
                    "line": header_line + 1 + int(filled["_at"][0]),
                    "column": i + 1,
                    "value": str(filled[c][0]).strip(),
                },
                variant="registry",
                column=str(i + 1),
            )


def _refuse_long_cells(rows: pl.DataFrame, label: str) -> None:
    """The first cell longer than a hand log's cells may be (the aliases, several names, and
    a roster's consent, a sentence, as long as a note) refuses the file, naming its line and
    column."""
    limits = {
        c: MAX_NOTE if c in ("aliases", "consent") else MAX_CELL
        for c, kind in rows.schema.items()
        if kind == pl.String and not c.startswith("_")
    }
    for c, n in limits.items():
        long = rows.filter(pl.col(c).str.len_chars() > n)
        if long.height:
            raise FileRejected(
                label,
                "too_long",
                {
                    "line": long["_line"][0],
                    "column": column_label(long["_spelled"][0], c),
                    "length": long[c].str.len_chars()[0],
                    "limit": n,
                },
                variant="registry",
                column=c,
            )


def _header_text(header: list[str]) -> str:
    """A header row as a message quotes it: its cells, the first eight, each cut short."""
    cells = [str(h).strip() for h in header if h is not None and str(h).strip()]
    shown = [c if len(c) <= 30 else c[:29] + "…" for c in cells[:8]]
    return " | ".join(shown) + (" | …" if len(cells) > 8 else "") if shown else "(empty)"


def _rows(reg: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The file's players (one row per file row, keyed) and its aliases (one per alias)."""
    if "_line" not in reg.columns:
        reg = reg.with_row_index("_line", offset=2).with_columns(pl.col("_line").cast(pl.Int64))
    if "_file" not in reg.columns:
        reg = reg.with_columns(pl.lit("registry").alias("_file"))
    rows = reg.with_columns(
        pl.format("{}:{}", pl.col("_file"), pl.col("_line")).alias("_at"),
        key_expr(pl.col("player")).alias("player_key"),
    )
    aliases = (
        rows.select(
            "_at", "_line", "player", "player_key", pl.col("aliases").str.split(";").alias("alias")
        )
        .explode("alias")
        .with_columns(name_expr(pl.col("alias")).alias("alias"))
        .with_columns(pl.col("alias").str.to_lowercase().alias("alias_key"))
        .filter(pl.col("alias_key").is_not_null() & (pl.col("alias_key") != pl.col("player_key")))
    )
    return rows, aliases


def _rows_text(ats: list[str]) -> list[str]:
    """The file's rows (``file:line``) in order, each once."""
    return sorted(set(ats), key=lambda a: (a.rsplit(":", 1)[0], int(a.rsplit(":", 1)[1])))


def _conflict(variant: str, **params: Any) -> dict[str, Any]:
    return messages.ref(f"registry_conflict.{variant}", params)


def conflicts(con: duckdb.DuckDBPyConnection, reg: pl.DataFrame) -> list[dict[str, Any]]:
    """Why the import of ``reg`` must be refused (empty when it may go in), one message
    each (:func:`pipeline.messages.ref`)."""
    rows, aliases = _rows(reg)
    known = frame(con.sql("SELECT player_key, player FROM registry"))
    known_aliases = frame(
        con.sql(
            "SELECT a.alias_key, a.player_key, coalesce(r.player, a.player_key) AS player FROM aliases a LEFT JOIN registry r USING (player_key)"
        )
    )
    found: list[dict[str, Any]] = []

    # the same player (one key) in two groups from one date
    if "member_since" not in rows.columns:
        rows = rows.with_columns(pl.lit(None, dtype=pl.String).alias("member_since"))
    for r in (
        rows.filter(pl.col("group").is_not_null())
        .group_by("player_key", "member_since")
        .agg(
            pl.col("_at"),
            pl.col("player").first(),
            pl.col("group").unique(maintain_order=True),
            pl.col("group").str.to_lowercase().n_unique().alias("n"),
        )
        .filter(pl.col("n") > 1)
        .sort("player_key")
        .iter_rows(named=True)
    ):
        found.append(
            _conflict(
                "groups",
                at_rows=_rows_text(r["_at"]),
                player=r["player"],
                n=len(r["group"]),
                group_list=r["group"],
            )
        )

    # one alias for two players, in the file
    for r in (
        aliases.group_by("alias_key")
        .agg(
            pl.col("_at"),
            pl.col("alias").first(),
            pl.col("player").unique(maintain_order=True),
            pl.col("player_key").n_unique().alias("n"),
        )
        .filter(pl.col("n") > 1)
        .sort("alias_key")
        .iter_rows(named=True)
    ):
        found.append(
            _conflict(
                "alias_twice",
                at_rows=_rows_text(r["_at"]),
                alias=r["alias"],
                n=len(r["player"]),
                player_list=r["player"],
            )
        )
    # ... and against the registry
    for r in (
        aliases.join(
            known_aliases.rename({"player_key": "reg_key", "player": "reg_player"}), on="alias_key"
        )
        .filter(pl.col("reg_key") != pl.col("player_key"))
        .unique(["_at", "alias_key"], maintain_order=True)
        .iter_rows(named=True)
    ):
        found.append(
            _conflict(
                "alias_taken",
                at=r["_at"],
                alias=r["alias"],
                player=r["player"],
                reg_player=r["reg_player"],
            )
        )

    # a name both an alias and a player: in the file …
    for r in (
        aliases.join(
            rows.select(
                pl.col("_at").alias("_at_p"), "player_key", pl.col("player").alias("as_player")
            ),
            left_on="alias_key",
            right_on="player_key",
        )
        .unique(["_at", "_at_p", "alias_key"], maintain_order=True)
        .iter_rows(named=True)
    ):
        found.append(
            _conflict(
                "player_and_alias",
                at_player=r["_at_p"],
                as_player=r["as_player"],
                at=r["_at"],
                player=r["player"],
            )
        )
    # … an alias of the file that is a registered player …
    file_players = rows.get_column("player_key").unique()
    for r in (
        aliases.filter(~pl.col("alias_key").is_in(file_players.implode()))
        .join(known.rename({"player_key": "alias_key", "player": "reg_player"}), on="alias_key")
        .unique(["_at", "alias_key"], maintain_order=True)
        .iter_rows(named=True)
    ):
        found.append(
            _conflict(
                "alias_is_player",
                at=r["_at"],
                alias=r["alias"],
                player=r["player"],
                reg_player=r["reg_player"],
            )
        )
    # … a player of the file that is an alias in the registry
    for r in (
        rows.join(
            known_aliases.rename({"player_key": "reg_key", "player": "reg_player"}),
            left_on="player_key",
            right_on="alias_key",
        )
        .unique(["_at", "player_key"], maintain_order=True)
        .iter_rows(named=True)
    ):
        found.append(
            _conflict(
                "player_is_alias", at=r["_at"], player=r["player"], reg_player=r["reg_player"]
            )
        )
    # the seat checks need each alias to name one player: they leave out the aliases above
    unclear = (
        aliases.group_by("alias_key")
        .agg(pl.col("player_key").n_unique().alias("n"))
        .filter(pl.col("n") > 1)
        .get_column("alias_key")
    )
    unclear = pl.concat(
        [
            unclear,
            known.get_column("player_key"),
            file_players,
            known_aliases.get_column("alias_key"),
        ]
    )
    return found + _seat_conflicts(
        con, aliases.filter(~pl.col("alias_key").is_in(unclear.implode())), known_aliases
    )


def _seat_conflicts(
    con: duckdb.DuckDBPyConnection, aliases: pl.DataFrame, known_aliases: pl.DataFrame
) -> list[dict[str, Any]]:
    """Merges that would seat one person twice in one hand, or at two tables of one round,
    in the loaded matches (their current versions)."""
    new = aliases.unique("alias_key")
    old_map = dict(known_aliases.select("alias_key", "player_key").iter_rows())
    changes = new.filter(
        pl.col("player_key")
        != pl.col("alias_key").replace_strict(old_map, default=pl.col("alias_key"))
    )
    if changes.height == 0:
        return []
    new_map = {**old_map, **dict(changes.select("alias_key", "player_key").iter_rows())}
    register(con, "_merging", changes.select("alias_key"))
    try:
        seats = frame(con.sql(_MERGED_SEATS))
    finally:
        con.unregister("_merging")
    if seats.height == 0:
        return []
    long = pl.concat(
        [
            seats.select(
                "event",
                "round",
                "table",
                "hand",
                pl.lit(c.upper()).alias("chair"),
                pl.col(f"player_{c}").alias("name"),
            )
            for c in CHAIRS
        ]
    ).drop_nulls("name")
    folded = key_expr(pl.col("name"))
    long = long.with_columns(
        folded.replace(old_map).alias("old_key"),
        folded.replace(new_map).alias("new_key"),
        folded.alias("name_key"),
    )
    at = changes.group_by("alias_key").agg(pl.col("_at"))
    who = changes.unique("player_key").select("player_key", pl.col("player").alias("who"))
    found: list[dict[str, Any]] = []

    def rows_of(name_keys: list[str]) -> list[str]:
        hit = at.filter(pl.col("alias_key").is_in(name_keys)).get_column("_at").explode().to_list()
        return _rows_text(hit)

    twice = (
        long.filter(pl.col("hand").is_not_null())
        .group_by("event", "round", "table", "hand", "new_key")
        .agg(
            pl.col("chair").sort(),
            pl.col("name").unique(maintain_order=True).alias("names"),
            pl.col("name_key").unique(),
            pl.col("old_key").n_unique().alias("n"),
        )
        .filter(pl.col("n") > 1)
        .sort("event", "round", "table", "hand")
        .group_by("event", "round", "table", "new_key", maintain_order=True)
        .agg(pl.all().first(), pl.col("hand").alias("hands"))
        .join(who, left_on="new_key", right_on="player_key", how="left")
    )
    for r in twice.iter_rows(named=True):
        more = len(r["hands"]) - 1
        found.append(
            _conflict(
                "seat_twice.more" if more else "seat_twice",
                at_rows=rows_of(r["name_key"]),
                name_list=r["names"],
                who=r["who"],
                event=r["event"],
                round=r["round"],
                table=r["table"],
                hand=r["hand"],
                chair_list=r["chair"],
                more=more,
            )
        )
    two_tables = (
        long.group_by("event", "round", "new_key")
        .agg(
            pl.col("table").unique().sort().alias("tables"),
            pl.col("name").unique(maintain_order=True).alias("names"),
            pl.col("name_key").unique(),
            pl.col("old_key").n_unique().alias("n"),
        )
        .filter((pl.col("tables").list.len() > 1) & (pl.col("n") > 1))
        .sort("event", "round", "new_key")
        .join(who, left_on="new_key", right_on="player_key", how="left")
    )
    for r in two_tables.iter_rows(named=True):
        found.append(
            _conflict(
                "two_tables",
                at_rows=rows_of(r["name_key"]),
                name_list=r["names"],
                who=r["who"],
                table_list=r["tables"],
                event=r["event"],
                round=r["round"],
            )
        )
    return found


#: Each league's registered players: the newest group of their memberships there (the
#: latest valid_from; a dated one before an undated one), city and reserve_for.
_LISTING = (
    'WITH newest AS (SELECT league, player_key, "group", row_number() OVER ('
    "PARTITION BY league, player_key ORDER BY valid_from DESC NULLS LAST, imported_at DESC) AS k "
    "FROM memberships) "
    'SELECT lp.player, n."group", lp.city, lp.reserve_for, lp.league FROM league_players lp '
    "LEFT JOIN newest n ON n.league = lp.league AND n.player_key = lp.player_key AND n.k = 1 "
    "WHERE lp.league = coalesce(?, lp.league) "
    'ORDER BY lp.league, n."group" NULLS LAST, lp.reserve_for NULLS LAST, lp.player'
)


def has_registry(con: duckdb.DuckDBPyConnection, league: str) -> bool:
    """Whether ``league`` has a registry (a league without one checks nobody, groups nobody)."""
    rows = con.execute("SELECT count(*) FROM league_players WHERE league = ?", [league])
    return bool(rows.fetchall()[0][0])


def group_spellings(con: duckdb.DuckDBPyConnection, league: str | None = None) -> dict[str, str]:
    """Each group the registry writes (``league``'s, or every league's), by its name in
    lower case: ``kg tallo`` → ``KG Tallo``; of two spellings already held, the first in
    sort order."""
    held = con.execute(
        'SELECT DISTINCT "group" FROM memberships WHERE league = coalesce(?, league) '
        "ORDER BY 1 DESC",
        [league],
    ).fetchall()
    return {str(g).lower(): str(g) for (g,) in held}


def listing(con: duckdb.DuckDBPyConnection, league: str | None = None) -> pl.DataFrame:
    """``player, group, city, reserve_for, league`` of every league's registry (or only
    ``league``'s): `domino players list`. A player registered in two leagues is listed
    once in each, with that league's group."""
    return frame(con.sql(_LISTING, params=[league]))


def import_registry(
    con: duckdb.DuckDBPyConnection, reg: pl.DataFrame, league: str = "default"
) -> dict[str, int]:
    """Merge ``reg`` into ``league``'s registry at once; returns counts. The caller rescores.

    Raises :class:`RegistryConflict`, changing nothing, when the import must be refused.
    The command's path (a diff, ``--apply`` and a reason kept in the history) is
    :mod:`pipeline.registry`.
    """
    from pipeline.registry import check, write  # noqa: PLC0415 - registry imports this module

    check(con, reg, league)
    con.execute("BEGIN TRANSACTION")
    try:
        counts = write(con, reg, league, datetime.now())
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return counts


# --- keys of loaded names ---------------------------------------------------------------


def alias_map(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    return dict(con.execute("SELECT alias_key, player_key FROM aliases").fetchall())


def player_key(name: pl.Expr, aliases: dict[str, str], *, clean: bool = False) -> pl.Expr:
    """A player's identity: the name folded to lower case, then through the registry's aliases.

    ``clean``: the names already went through :func:`name_expr` (a hand log just read), so
    folding the case is all that is left; stored names are cleaned again (:func:`key_expr`).
    """
    key = name.str.to_lowercase() if clean else key_expr(name)
    return key.replace(aliases) if aliases else key


def first_spellings(hands: pl.DataFrame) -> pl.DataFrame:
    """``player_key, player``: how each player was first written in these hand rows."""
    indexed = hands.with_row_index("_first_row")
    per_chair = [
        indexed.select(
            "_first_row",
            pl.lit(i).alias("_chair"),
            pl.col(f"key_{c}").alias("player_key"),
            pl.col(f"player_{c}").alias("player"),
        )
        .drop_nulls("player_key")
        .unique("player_key", keep="first", maintain_order=True)
        for i, c in enumerate(CHAIRS)
    ]
    return (
        pl.concat(per_chair)
        .sort("_first_row", "_chair")
        .unique("player_key", keep="first", maintain_order=True)
        .select("player_key", "player")
    )
