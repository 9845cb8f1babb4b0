"""Which ruleset each event plays under, and which player each name is."""

import duckdb
import polars as pl

from pipeline import problems, rulesets
from pipeline.ingest.columns import CHAIRS
from pipeline.ingest.drawcheck import drawn_events
from pipeline.ingest.match import FEW, MATCH, match_filter
from pipeline.ingest.normalize import CLOSE_PARAM, CLOSE_VARIANT, with_closest
from pipeline.players import alias_map, player_key, registered_like
from pipeline.store.db import for_events, frame, register


def resolve_rulesets(
    typed: pl.DataFrame, known: dict[str, str]
) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, str]]:
    """Add ``rs`` (the event's ruleset) to every row; returns the rows, the problems and
    the new events with their rulesets. A loaded event keeps the ruleset it has
    (``known``: event → ruleset of those of the rows that exist, :func:`resolve_events`)."""
    names = list(rulesets.names())
    found: list[pl.DataFrame] = []
    bad_name = typed.filter(pl.col("ruleset").is_not_null() & ~pl.col("ruleset").is_in(names))
    bad_name = with_closest(bad_name, "ruleset", names)
    found.append(
        problems.from_rows(
            bad_name,
            column="ruleset",
            code="unknown_ruleset",
            params={
                "value": pl.col("ruleset"),
                "rulesets": pl.lit(names, dtype=pl.List(pl.String)),
                "close": CLOSE_PARAM,
            },
            variant=CLOSE_VARIANT,
        )
    )
    declared = (
        typed.filter(pl.col("ruleset").is_in(names))
        .group_by("event", maintain_order=True)
        .agg(pl.col("ruleset").first().alias("declared"))
    )
    event_rs: dict[str, str] = {}
    new_events: dict[str, str] = {}
    for ev in typed.get_column("event").drop_nulls().unique(maintain_order=True).to_list():
        if ev in known:
            event_rs[ev] = known[ev]
    for row in declared.iter_rows(named=True):
        if row["event"] is not None and row["event"] not in event_rs:
            event_rs[row["event"]] = row["declared"]
            new_events[row["event"]] = row["declared"]
    mapping = pl.DataFrame(
        {"event": list(event_rs), "rs": list(event_rs.values())},
        schema={"event": pl.String, "rs": pl.String},
    )
    typed = typed.join(mapping, on="event", how="left")
    changed = typed.filter(
        pl.col("rs").is_not_null()
        & pl.col("ruleset").is_in(names)
        & (pl.col("ruleset") != pl.col("rs"))
    )
    found.append(
        problems.from_rows(
            changed,
            column="ruleset",
            code="ruleset_changed",
            params={"event": pl.col("event"), "rs": pl.col("rs"), "value": pl.col("ruleset")},
        )
    )
    missing = typed.filter(pl.col("rs").is_null() & pl.col("event").is_not_null())
    first = missing.unique("event", keep="first", maintain_order=True)
    found.append(
        problems.from_rows(
            missing.join(first.select("_row"), on="_row"),
            column="ruleset",
            code="missing_ruleset",
            params={"event": pl.col("event"), "choices": "|".join(names)},
        )
    )
    # the other rows of such an event are kept out by their match; say so once per match
    rest = missing.join(first.select("_row"), on="_row", how="anti").unique(MATCH, keep="first")
    found.append(
        problems.from_rows(
            rest,
            column="ruleset",
            code="missing_ruleset",
            params={"event": pl.col("event")},
            variant="rest",
        )
    )
    return typed, problems.concat(found), new_events


def _event_key(text: pl.Expr) -> pl.Expr:
    """What makes an event's id or title the one written: case and spacing aside."""
    return text.str.to_lowercase().str.replace_all(r"\s+", " ").str.strip_chars()


def resolve_events(
    con: duckdb.DuckDBPyConnection, typed: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, str]]:
    """An event written as its title (``Piala Dies Natalis 2026``, as a referee knows it)
    or its id in other capitals (``EV-1``) is that event (a ``label_spelling`` warning,
    once per file), where exactly one existing event is meant; before, it was a new event
    beside the real one. An event written as it is stored, or new, stays as written.
    Returns the rows, the warnings, and event → ruleset of the rows' events that exist."""
    uploaded = typed.get_column("event").drop_nulls().unique().to_list()
    if not uploaded:
        return typed, problems.empty(), {}
    known = known_events(con, uploaded)
    unknown = [e for e in uploaded if e not in known]
    if not unknown:  # nearly every load
        return typed, problems.empty(), known
    asked = pl.DataFrame({"written": unknown}, schema={"written": pl.String}).with_columns(
        _event_key(pl.col("written")).alias("_k")
    )
    register(con, "_asked_events", asked.select(pl.col("_k").unique()))
    try:
        events = frame(
            con.sql(
                "SELECT event, title, ruleset FROM events "
                "WHERE lower(event) IN (SELECT _k FROM _asked_events) "
                "OR lower(trim(regexp_replace(title, '\\s+', ' ', 'g'))) IN "
                "(SELECT _k FROM _asked_events)"
            )
        )
    finally:
        con.unregister("_asked_events")
    if events.height == 0:
        return typed, problems.empty(), known
    candidates = pl.concat(
        [
            events.select(_event_key(pl.col("event")).alias("_k"), "event"),
            events.filter(pl.col("title").is_not_null()).select(
                _event_key(pl.col("title")).alias("_k"), "event"
            ),
        ]
    ).unique()
    meant = (
        asked.join(candidates, on="_k")
        .filter(pl.col("event").n_unique().over("written") == 1)
        .unique("written")
        .select(pl.col("written").alias("event"), pl.col("event").alias("_meant"))
    )
    if meant.height == 0:
        return typed, problems.empty(), known
    rulesets_of = dict(events.select("event", "ruleset").iter_rows())
    known |= {str(e): rulesets_of[e] for e in meant.get_column("_meant").to_list()}
    keyed = typed.join(meant, on="event", how="left", maintain_order="left")
    shown = keyed.filter(pl.col("_meant").is_not_null()).unique(
        ["event", "_file"], keep="first", maintain_order=True
    )
    found = problems.from_rows(
        shown,
        column="event",
        code="label_spelling",
        severity=problems.WARNING,
        variant="event",
        params={"written": pl.col("event"), "label": pl.col("_meant")},
    )
    typed = keyed.with_columns(pl.coalesce("_meant", "event").alias("event")).drop("_meant")
    return typed, found, known


def known_events(con: duckdb.DuckDBPyConnection, uploaded: list[str]) -> dict[str, str]:
    """``event → ruleset`` of the loaded events among ``uploaded`` (not of every event)."""
    if not uploaded:
        return {}
    if len(uploaded) <= FEW:
        # the events table's primary key answers these without reading the whole table
        where, params = match_filter([{"event": e} for e in uploaded], ["event"])
        return dict(
            con.execute(f"SELECT event, ruleset FROM events WHERE {where}", params).fetchall()
        )
    known = frame(con.sql("SELECT event, ruleset FROM events"))
    return dict(known.filter(pl.col("event").is_in(uploaded)).iter_rows())


def resolve_players(
    con: duckdb.DuckDBPyConnection, typed: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Add ``key_a`` … ``key_d`` (the player each name is); names outside the registry are
    problems for rulesets that require registered players."""
    aliases = alias_map(con)
    typed = typed.with_columns(
        # normalize() cleaned the names (NFC, invisible characters, white space)
        player_key(pl.col(f"player_{c}"), aliases, clean=True).alias(f"key_{c}")
        for c in CHAIRS
    )
    # each event is checked against its own league's registry (an event not loaded yet is
    # in the default league); a league without a registry rejects nobody
    registry = frame(con.sql("SELECT league AS _league, player_key, player FROM league_players"))
    if registry.height == 0:
        return typed, problems.empty()
    events = typed.get_column("event").drop_nulls().unique().to_list()
    leagues = event_leagues(con, events)
    need = rulesets.registered_only()
    scope = typed.with_columns(league_column(leagues)).filter(
        pl.col("rs").is_in(need)
        & pl.col("_league").is_in(registry.get_column("_league").unique().implode())
    )
    names = registry.get_column("player").unique().sort().to_list()
    found = [_registered_elsewhere(typed, leagues, registry)]
    for c in CHAIRS:
        bad = scope.filter(pl.col(f"key_{c}").is_not_null()).join(
            registry.select("_league", pl.col("player_key").alias(f"key_{c}")),
            on=["_league", f"key_{c}"],
            how="anti",
        )
        if not bad.height:
            continue
        bad = bad.with_columns(
            registered_like(bad.get_column(f"player_{c}"), names).alias("_sugg")
        ).drop("_league")
        found.append(
            problems.from_rows(
                bad,
                column=f"player_{c}",
                code="unregistered_player",
                params={"player": pl.col(f"player_{c}"), "names": pl.col("_sugg")},
                variant=pl.when(pl.col("_sugg") == "").then(pl.lit("none")),
            )
        )
    return typed, problems.concat(found)


def _registered_elsewhere(
    typed: pl.DataFrame, leagues: dict[str, str], registry: pl.DataFrame
) -> pl.DataFrame:
    """A warning on the first row of each event of a rulebook with group (KG) standings
    whose league has no registry while another league's registry holds players it seats:
    its groups, reserves and registry checks read its own league only, so its group
    standings would stay empty (a registry imported with ``--league`` into a league the
    event is not in)."""
    grouped = rulesets.with_groups()
    rows = typed.with_columns(league_column(leagues)).filter(
        pl.col("rs").is_in(grouped)
        & pl.col("event").is_not_null()
        & ~pl.col("_league").is_in(registry.get_column("_league").unique().implode())
    )
    if rows.height == 0:  # nearly every load
        return problems.empty()
    seated = (
        rows.select("event", pl.concat_list(f"key_{c}" for c in CHAIRS).alias("player_key"))
        .explode("player_key")
        .drop_nulls()
        .unique()
    )
    held = (
        seated.join(
            registry.select(pl.col("_league").alias("_other"), "player_key"), on="player_key"
        )
        .group_by("event", "_other")
        .agg(pl.len().alias("_n"))
        .sort("_n", "_other", descending=[True, False])
        .unique("event", keep="first", maintain_order=True)
    )
    first = rows.unique("event", keep="first", maintain_order=True).join(held, on="event")
    return problems.from_rows(
        first,
        column="event",
        code="league_elsewhere",
        severity=problems.WARNING,
        params={
            "event": pl.col("event"),
            "league": pl.col("_league"),
            "n": pl.col("_n").cast(pl.String),
            "other": pl.col("_other"),
        },
    )


def league_column(leagues: dict[str, str]) -> pl.Expr:
    """``_league``: each row's event's league (``event_leagues``; an event not loaded yet
    is in the default league)."""
    return (
        pl.col("event").replace_strict(leagues, default="default", return_dtype=pl.String)
    ).alias("_league")


def event_leagues(con: duckdb.DuckDBPyConnection, events: list[str]) -> dict[str, str]:
    """``event → league`` of the loaded events among ``events``."""
    if not events:
        return {}
    where, params = match_filter([{"event": e} for e in events[:FEW]], ["event"])
    if len(events) <= FEW:
        rows = con.execute(f"SELECT event, league FROM events WHERE {where}", params).fetchall()
    else:
        rows = con.execute("SELECT event, league FROM events").fetchall()
    return {e: lg or "default" for e, lg in rows if e in set(events)}


#: Words a label may start with that only say what it is: ``Babak 1`` is round ``R1`` (or
#: ``1``), ``Meja 3`` is table ``3``. A pepet session is ``S1``, ``Sesi 1``.
LABEL_WORDS = {
    "round": ("babak", "ronde", "putaran", "round", "rd", "r", "sesi", "session", "s"),
    "table": ("meja", "table", "tabel", "tbl"),
}


def label_key(label: pl.Expr, words: tuple[str, ...] = ()) -> pl.Expr:
    """What makes two labels one: case, spaces and leading zeros of a number aside
    (``R1``, ``r1``, ``R 1`` and ``R01`` are one round), and one of ``words`` before a
    number, also in Roman numerals (with :data:`LABEL_WORDS`, ``Babak 1``, ``Babak II``
    and ``R1``, ``R2`` are the same rounds)."""
    key = (
        label.str.to_lowercase()
        .str.replace_all(r"\s+", "")
        .str.replace_all(r"(^|\D)0+(\d)", "$1$2")
    )
    if words:
        said = rf"^(?:{'|'.join(words)})[.:#-]?"
        roman = key.str.extract(said + _ROMAN).replace_strict(ROMAN, default=None)
        key = pl.coalesce(roman, key.str.replace(said + r"(\d+)$", "$1"))
    return key


#: Roman numerals as a round is often numbered (``Babak II``), up to 20
ROMAN = {
    r: str(n)
    for n, r in enumerate(
        "i ii iii iv v vi vii viii ix x xi xii xiii xiv xv xvi xvii xviii xix xx".split(), 1
    )
}
_ROMAN = r"(x{0,2}(?:ix|iv|v?i{0,3}))$"


def resolve_labels(
    con: duckdb.DuckDBPyConnection, typed: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Rounds and tables whose labels differ only in case, spaces, leading zeros or a word
    saying what they are (``Babak 1``, ``Meja 3``: :data:`LABEL_WORDS`) are one:
    each takes the first spelling loaded, else the spelling of the event's draws (``domino
    draw``), else the first in the upload, like player names; a row written differently
    is reported (a warning) and loads."""
    found: list[pl.DataFrame] = []
    events = typed.get_column("event").drop_nulls().unique().to_list()
    loaded = _loaded_matches(con, events)
    drawn = _drawn_matches(con, events)
    for col, scope in (("round", ["event"]), ("table", ["event", "round"])):
        # the distinct labels (a few thousand in a batch of 500,000 rows), not every row
        uploaded = typed.select(*scope, col).unique(maintain_order=True).drop_nulls(col)
        first = (
            pl.concat(
                [_loaded_labels(loaded, [*scope, col]), drawn.select(*scope, col), uploaded],
                how="vertical_relaxed",
            )
            .with_columns(label_key(pl.col(col), LABEL_WORDS[col]).alias("_label_key"))
            .unique([*scope, "_label_key"], keep="first", maintain_order=True)
            .rename({col: "_spelling"})
        )
        respelled = (
            uploaded.with_columns(label_key(pl.col(col), LABEL_WORDS[col]).alias("_label_key"))
            .join(first, on=[*scope, "_label_key"])
            .filter(pl.col("_spelling") != pl.col(col))
            .drop("_label_key")
        )
        if respelled.height == 0:
            continue  # every label is written as first loaded: the rows stay as they are
        keyed = typed.join(respelled, on=[*scope, col], how="left", maintain_order="left")
        shown = keyed.filter(pl.col("_spelling").is_not_null()).unique(
            [*MATCH, "_file"], keep="first", maintain_order=True
        )
        shown = shown.with_columns(pl.col(col).alias("_written"), pl.col("_spelling").alias(col))
        found.append(
            problems.from_rows(
                shown,
                column=col,
                code="label_spelling",
                severity=problems.WARNING,
                variant=col,
                params={"written": pl.col("_written"), "label": pl.col(col)},
            )
        )
        typed = keyed.with_columns(pl.coalesce("_spelling", col).alias(col)).drop("_spelling")
    return typed, problems.concat(found)


#: A match withdrawn (pipeline/ingest/withdraw.py) no longer sets how its labels are spelled.
_NOT_WITHDRAWN = "HAVING bool_or(current AND kind <> 'withdrawn')"


def _loaded_matches(con: duckdb.DuckDBPyConnection, events: list[str]) -> pl.DataFrame:
    """``event, round, table, first_at`` of every loaded match of ``events``."""
    schema = {"event": pl.String, "round": pl.String, "table": pl.String, "first_at": pl.Datetime}
    if not events:
        return pl.DataFrame(schema=schema)
    if len(events) <= FEW:
        # constant predicates: a live upload reads its event's row groups, not the table
        where, params = match_filter([{"event": e} for e in events], ["event"])
        return frame(
            con.sql(
                'SELECT event, round, "table", min(loaded_at) AS first_at FROM match_versions '
                f"WHERE {where} GROUP BY ALL {_NOT_WITHDRAWN}",
                params=params,
            )
        )
    return for_events(
        con,
        'SELECT event, round, "table", min(loaded_at) AS first_at FROM match_versions '
        f"WHERE event IN (SELECT event FROM _events) GROUP BY ALL {_NOT_WITHDRAWN}",
        events,
    )


def _drawn_matches(con: duckdb.DuckDBPyConnection, events: list[str]) -> pl.DataFrame:
    """``event, round, table`` of the current draws of ``events`` (one query per event
    that has a draw), in the order drawn."""
    schema = {"event": pl.String, "round": pl.String, "table": pl.String}
    found = [
        frame(
            con.sql(
                'SELECT s.event, s.round, s."table" FROM draw_seats s JOIN draws_t d '
                "ON d.event = s.event AND d.round = s.round AND d.draw_no = s.draw_no "
                'WHERE d.current AND s.event = ? GROUP BY s.event, s.round, s."table" '
                'ORDER BY min(d.drawn_at), s.round, s."table"',
                params=[event],
            )
        )
        for event in drawn_events(con, sorted(str(e) for e in events))
    ]
    frames = [f.cast(schema) for f in found if f.height]
    return pl.concat(frames) if frames else pl.DataFrame(schema=schema)


def _loaded_labels(loaded: pl.DataFrame, cols: list[str]) -> pl.DataFrame:
    """Distinct ``cols`` of the loaded matches, in the order they were first loaded."""
    return loaded.group_by(cols).agg(pl.col("first_at").min()).sort("first_at", *cols).select(cols)
