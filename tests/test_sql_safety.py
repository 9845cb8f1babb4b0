"""Safe SQL (issue #7): every value a user sends reaches the database as a parameter.

Two halves. A *static scan* of ``pipeline/`` and ``dashboard/`` finds every SQL call
(``execute``, ``executemany``, ``sql``, ``query``) whose text is not a plain string: each
piece of text put into it must be a module constant or sit on the allow-list below,
which says why it can only be an identifier or SQL from a fixed set. A *round trip* then
loads a file whose event, round, table, names and notes are SQL-injection strings and
reads them back, exactly, through the queries and the real command line.
"""

import ast
import json
from pathlib import Path

import polars as pl
import pytest

from pipeline.ingest import ingest
from pipeline.standings import queries
from pipeline.store.backup import backup
from pipeline.store.db import connect
from simulator.stress import ROOT, check_consistent, domino

SCANNED = ["pipeline", "dashboard"]
SQL_METHODS = {"execute", "executemany", "sql", "query"}

#: Text that may be put into SQL, per file: the expression as written, and why it can only
#: be an identifier or SQL from a fixed set (never a value a user sent).
ALLOWED: dict[tuple[str, str], str] = {
    (
        "pipeline/cli/changes.py",
        "change_requests.LIST",
    ): "a constant query text in pipeline/change_requests.py",
    (
        "pipeline/entry.py",
        "cols",
    ): "the hand-log contract's fixed column names (COLUMNS), quoted",
    (
        "pipeline/events.py",
        "(_REPORTS / 'events_overview.sql').read_text()",
    ): "SQL file shipped in pipeline/sql/reports/; no values",
    (
        "pipeline/events.py",
        "(_REPORTS / 'event_rounds.sql').read_text()",
    ): "SQL file shipped in pipeline/sql/reports/; the event goes in params",
    (
        "pipeline/events.py",
        "(_REPORTS / 'event_groups.sql').read_text()",
    ): "SQL file shipped in pipeline/sql/reports/; the event goes in params",
    (
        "pipeline/events.py",
        "table",
    ): "delete() loops over the fixed names of the tables holding an event's rows",
    (
        "pipeline/events.py",
        "sql",
    ): "_nothing_holds() loops over its own fixed counting queries; the event goes in params",
    (
        "pipeline/ratings.py",
        "_sql('rated_tables')",
    ): "SQL file shipped in pipeline/sql/ratings/; the ruleset goes in params",
    (
        "pipeline/ratings.py",
        "t",
    ): "loops over the three fixed rating table names",
    (
        "pipeline/ratings.py",
        "_sql('rated_tail')",
    ): "SQL file shipped in pipeline/sql/ratings/; the ruleset and the start in params",
    (
        "pipeline/store/postgres.py",
        "statement.encode()",
    ): "analysing()'s ANALYZE text, a constant of its caller (pipeline/ingest/writer.py ANALYZED)",
    (
        "pipeline/standings/bracket.py",
        "_sql('after_round.sql')",
    ): "SQL file shipped beside bracket.py; values in params",
    (
        "pipeline/standings/bracket.py",
        "_sql('groups_after_round.sql')",
    ): "SQL file shipped beside bracket.py; values in params",
    (
        "pipeline/standings/bracket.py",
        "_sql('bracket.sql')",
    ): "SQL file shipped beside bracket.py; values in params",
    (
        "pipeline/standings/crosstable.py",
        "(_SQL / 'crosstable.sql').read_text()",
    ): "SQL file shipped in pipeline/sql/reports/; values in params",
    (
        "pipeline/standings/h2h.py",
        "(_SQL / 'h2h_tables.sql').read_text()",
    ): "SQL file shipped in pipeline/sql/reports/; the players go in params",
    (
        "pipeline/standings/h2h.py",
        "sql",
    ): "the shipped h2h_fed.sql with the constant list of winning categories put in",
    (
        "pipeline/standings/profile.py",
        "(_SQL / 'reports' / 'rating_board.sql').read_text()",
    ): "SQL file shipped in pipeline/sql/reports/; filters go in params",
    (
        "pipeline/standings/profile.py",
        "(_SQL / 'achievements' / f'{code}.sql').read_text()",
    ): "one shipped SQL file per code of the constant ACHIEVEMENTS list; the player goes in params",
    (
        "pipeline/standings/queries.py",
        "' AND '.join(('v.' + w for w in where))",
    ): "from _where: constant conditions over fixed column names; the values go in params",
    (
        "pipeline/users.py",
        "table",
    ): "loops over the four fixed user table names",
    (
        "pipeline/users.py",
        "_GROUP_EVENTS.read_text()",
    ): "SQL file shipped in pipeline/sql/reports/; the rights go in params",
    (
        "pipeline/ingest/planner.py",
        "marks",
    ): "one '?' per event an untouched pre-filled sheet names; the events go in params",
    (
        "pipeline/ingest/writer.py",
        "t",
    ): "loops over the two fixed table names ('hand_points_t', 'table_standings_t')",
    (
        "pipeline/ingest/writer.py",
        "where",
    ): "from match_filter: constant '(\"col\" = ? AND …)' groups over fixed column names; the values go in params",
    (
        "pipeline/ingest/resolve.py",
        "where",
    ): "from match_filter: constant '(\"col\" = ? AND …)' groups over fixed column names; the values go in params",
    (
        "pipeline/ingest/versions.py",
        "where",
    ): "from match_filter: constant '(\"col\" = ? AND …)' groups over fixed column names; the values go in params",
    (
        "pipeline/ingest/cross.py",
        "where or 'false'",
    ): "from match_filter over the fixed columns event, round; 'false' when no keys; the values go in params",
    (
        "pipeline/store/db.py",
        "target",
    ): "insert_frame: a literal table name and, when given, its literal column list (test_insert_frame_gets_literals)",
    (
        "pipeline/store/db.py",
        "columns",
    ): "insert_frame: callers pass a literal column list (test_insert_frame_gets_literals)",
    (
        "pipeline/store/db.py",
        "on_conflict",
    ): "insert_frame: callers pass a literal clause (test_insert_frame_gets_literals)",
    (
        "pipeline/store/db.py",
        "name",
    ): "insert_frame: f'_frame_{id(frame)}', a name made from an integer",
    (
        "pipeline/standings/queries.py",
        "', '.join((_q(c) for c in cols))",
    ): "cols come from the CONTRACT constants and a ruleset's [columns], which rulesets.check holds to plain identifiers ([a-z_][a-z0-9_]*); quoted by _q",
    (
        "pipeline/standings/queries.py",
        "view",
    ): "f'{level}_standings' after `level in LEVELS` is checked",
    (
        "pipeline/standings/queries.py",
        "' AND '.join(where)",
    ): "where holds only constant 'col = ?' strings; the values go in params",
    ("pipeline/standings/queries.py", "where[0]"): "_where's first piece, the constant 'event = ?'",
    (
        "pipeline/standings/queries.py",
        "' AND '.join(['true', *where[1:]])",
    ): "the rest of _where's constant 'col = ?' strings; the values go in params",
    ("pipeline/standings/queries.py", "order"): "picked from a constant dict by the checked level",
    (
        "pipeline/scoring/models.py",
        "model('staging/seats.sql')",
    ): "SQL text of a model file shipped in the package",
    (
        "pipeline/scoring/models.py",
        "name",
    ): "a kept table's name, kept_name(n): '_kept_points_' and an integer",
    ("pipeline/scoring/models.py", "stmt"): "loops over the constant _DROP_MODEL_TEMPS statements",
    (
        "pipeline/ingest/writer.py",
        "name",
    ): "Plan.kept_points: names made by pipeline.scoring.models.kept_name ('_kept_points_' and an integer)",
    (
        "pipeline/ingest/writer.py",
        "_KEPT_PICKED",
    ): "a module constant made from the constant HAND_POINTS_COLUMNS, quoted",
    ("pipeline/scoring/models.py", "kind"): "one of the two constants 'TABLE' and 'TEMP TABLE'",
    ("pipeline/scoring/models.py", "seats"): "one of the two constants 'TABLE' and 'VIEW'",
    (
        "pipeline/scoring/models.py",
        "model(f'{folder}/hand_points.sql')",
    ): "model file; folder is a ruleset's `models`, checked to name a folder of pipeline/sql/models",
    (
        "pipeline/scoring/models.py",
        "model(f'{folder}/table_standings.sql')",
    ): "model file; folder is a ruleset's `models`, checked to name a folder of pipeline/sql/models",
    (
        "pipeline/standings/stats.py",
        "_WIN_LIST",
    ): "a constant list of category names built from the WINNING tuple",
    ("pipeline/store/db.py", "sql"): "migration and view files shipped in the package",
    (
        "pipeline/store/pgconn.py",
        "text.encode()",
    ): "PgConnection._run: the caller's SQL transpiled (to_postgres); its values stay parameters",
    (
        "pipeline/store/pgconn.py",
        "to_postgres(sql).encode()",
    ): "PgConnection.executemany: the caller's SQL transpiled; its values stay parameters",
    (
        "pipeline/store/pgconn.py",
        "f'DROP TABLE IF EXISTS pg_temp.\"{name}\"'.encode()",
    ): "register/unregister: the frame names our code registers ('_w', '_keys', '_frame_<int>'), quoted",
    (
        "pipeline/store/pgconn.py",
        "f'CREATE TEMP TABLE \"{name}\" ({cols})'.encode()",
    ): "register: a registered frame name, and its column names (quoted) with types from a fixed map",
    (
        "pipeline/store/pgmigrate.py",
        "stmt.encode()",
    ): "migration and view files shipped in the package, transpiled",
    (
        "pipeline/store/pgmigrate.py",
        "f'DROP VIEW IF EXISTS \"{view}\" CASCADE'.encode()",
    ): "view names parsed from the view files shipped in the package",
    ("pipeline/store/postgres.py", "table"): "insert_frame: the literal table name of its callers",
    (
        "pipeline/store/postgres.py",
        "cols",
    ): "insert_frame: the literal column list of its callers, quoted",
    (
        "pipeline/store/postgres.py",
        "sel",
    ): "insert_frame: '*' or the literal column list of its callers",
    (
        "pipeline/store/postgres.py",
        "name",
    ): "insert_frame: f'_frame_{id(df)}', a name made from an integer",
    (
        "pipeline/store/postgres.py",
        "on_conflict",
    ): "insert_frame: the literal clause of its callers",
    ("pipeline/store/transfer.py", "last + 1"): "an integer (the last ingest id plus one)",
    (
        "pipeline/store/transfer.py",
        "table",
    ): "table names read from the store's own catalogue, quoted",
    (
        "pipeline/store/transfer.py",
        "quoted",
    ): "column names read from the store's own catalogue, quoted",
    (
        "pipeline/store/transfer.py",
        "view",
    ): "view names parsed from the view files shipped in the package, quoted",
    ("pipeline/store/backup.py", "table"): "loops over the constant REQUIRED_TABLES",
}


def _module_constants(tree: ast.Module) -> set[str]:
    """Names bound once, at module level, to a string literal (or literals joined)."""
    out: dict[str, int] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            if _literal(node.value):
                out[node.targets[0].id] = out.get(node.targets[0].id, 0) + 1
            else:
                out[node.targets[0].id] = 99
    return {k for k, n in out.items() if n == 1}


def _literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal(node.left) and _literal(node.right)
    return isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values)


def sql_pieces() -> list[tuple[str, int, str]]:
    """Every non-literal piece of SQL text in the scanned code: (file, line, expression)."""
    found = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(), filename=rel)
            constants = _module_constants(tree)
            for node in ast.walk(tree):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in SQL_METHODS
                ):
                    continue
                arg = (
                    node.args[0]
                    if node.args
                    else next((k.value for k in node.keywords if k.arg == "query"), None)
                )
                if arg is None or _literal(arg):
                    continue
                if isinstance(arg, ast.JoinedStr):
                    pieces = [v.value for v in arg.values if isinstance(v, ast.FormattedValue)]
                else:  # a name, a concatenation, a .format(), a % …: the whole expression
                    pieces = [arg]
                for piece in pieces:
                    if isinstance(piece, ast.Name) and piece.id in constants:
                        continue
                    found.append((rel, node.lineno, ast.unparse(piece)))
    return found


def test_sql_text_holds_only_fixed_identifiers_and_shipped_sql():
    pieces = sql_pieces()
    assert pieces, "the scan found no SQL at all: it is not looking at the code"
    unexplained = [
        f"{f}:{line}: {{{expr}}}" for f, line, expr in pieces if (f, expr) not in ALLOWED
    ]
    assert not unexplained, (
        "SQL built from text that is not on the allow-list; pass values as parameters (?), "
        "or add the piece to ALLOWED with the reason it can only be a fixed identifier:\n"
        + "\n".join(unexplained)
    )


def test_the_allow_list_has_no_stale_entries():
    used = {(f, expr) for f, _line, expr in sql_pieces()}
    stale = [k for k in ALLOWED if k not in used]
    assert not stale, f"allow-list entries no longer in the code (remove them): {stale}"


def test_insert_frame_gets_literals():
    """``insert_frame`` puts its table, columns and conflict clause into SQL: every call
    must pass them as literals (the frame itself goes by reference)."""
    calls = 0
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", getattr(node.func, "attr", None)) == "insert_frame"
                ):
                    calls += 1
                    pieces = [a for i, a in enumerate(node.args) if i in (1, 3)]
                    pieces += [
                        k.value
                        for k in node.keywords
                        if k.arg in ("table", "columns", "on_conflict")
                    ]
                    bad = [ast.unparse(a) for a in pieces if not _literal(a)]
                    assert not bad, (
                        f"{path.relative_to(ROOT)}:{node.lineno}: insert_frame with non-literal SQL {bad}"
                    )
    assert calls >= 1


def test_the_scan_catches_interpolated_values(tmp_path, monkeypatch):
    """The scanner itself: a value in an f-string, a concatenation and a .format are flagged."""
    bad = tmp_path / "pipeline"
    bad.mkdir()
    (bad / "bad.py").write_text(
        "FIXED = 'SELECT 1'\n"
        "def f(con, name):\n"
        "    con.execute(f\"SELECT * FROM hands WHERE player_a = '{name}'\")\n"
        "    con.sql('SELECT * FROM hands WHERE event = ' + name)\n"
        "    con.execute('SELECT {}'.format(name))\n"
        "    con.execute(f'{FIXED}')\n"
        "    con.execute('SELECT ?', [name])\n"
    )
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    monkeypatch.setattr(f"{__name__}.SCANNED", ["pipeline"])
    got = [(line, expr) for _f, line, expr in sql_pieces()]
    assert got == [
        (3, "name"),
        (4, "'SELECT * FROM hands WHERE event = ' + name"),
        (5, "'SELECT {}'.format(name)"),
    ]


# --- injection strings round-trip as data -----------------------------------------------------

EVENT = "x'); DROP TABLE hands; --"
ROUND = "R1' OR '1'='1"
TABLE = '1"; DELETE FROM match_versions; --'
PLAYERS = ["Robert'); DROP TABLE hands;--", "O'Brien \\ back\\slash", '"dq" %_wild', "$1 ? :name"]
NOTE = "'; UPDATE events SET ruleset = 'pepet'; --"
REASON = "koreksi'); DELETE FROM hands WHERE ('1'='1"


def injection_file(path: Path, *, note: str = NOTE) -> Path:
    rows = [
        {
            "event": EVENT,
            "ruleset": "unhas",
            "round": ROUND,
            "table": TABLE,
            "hand": h,
            "player_a": PLAYERS[0],
            "player_b": PLAYERS[1],
            "player_c": PLAYERS[2],
            "player_d": PLAYERS[3],
            "ended_by": "ABCD"[h % 4],
            "ending": "biasa",
            "note": note if h == 1 else None,
        }
        for h in range(1, 4)
    ]
    pl.DataFrame(rows).write_csv(path)
    return path


def test_injection_strings_round_trip_through_the_queries(tmp_path):
    db = tmp_path / "domino.duckdb"
    with connect(db) as con:
        p = ingest(con, [injection_file(tmp_path / "inj.csv")], by="O'Hara; --")
        assert p.errors.height == 0, p.errors.to_dicts()
        check_consistent(con)
        assert con.execute("SELECT count(*) FROM hands").fetchall() == [(3,)]
        assert con.execute("SELECT event, ruleset FROM events").fetchall() == [(EVENT, "unhas")]
        ts = queries.standings(con, EVENT, "table", ROUND, TABLE)
        assert sorted(ts.get_column("player").to_list()) == sorted(PLAYERS)
        assert set(ts.select("event", "round", "table").unique().rows()) == {(EVENT, ROUND, TABLE)}
        hp = queries.hand_points(con, EVENT, ROUND, TABLE)
        assert hp.height == 12
        hist = queries.history(con, EVENT, ROUND, TABLE)
        assert hist.get_column("loaded_by").to_list() == ["O'Hara; --"]
        assert con.execute("SELECT note FROM hands WHERE hand = 1").fetchall() == [(NOTE,)]
        # values that look like patterns or other rows match nothing
        for event in ("%", "_", "x'%", EVENT.upper()):
            with pytest.raises(queries.NotFound):
                queries.standings(con, event, "event")
        # a round or table that only looks like one loaded is unknown: said, not matched
        for rnd, table in (("R1", None), (ROUND, "1")):
            with pytest.raises(queries.NotFound, match="has no (round|table)"):
                queries.standings(con, EVENT, "table", rnd, table)
        with pytest.raises(ValueError, match="level must be one of"):
            queries.standings(con, EVENT, "event_standings; DROP TABLE hands; --")
        assert con.execute("SELECT count(*) FROM hands").fetchall() == [(3,)]


def test_injection_strings_round_trip_through_the_command_line(tmp_path):
    db = tmp_path / "domino.duckdb"
    src = injection_file(tmp_path / "inj.csv")
    r = domino("ingest", src, "--format", "json", db=db)
    assert r.returncode == 0, r.stdout + r.stderr
    assert {
        (m["event"], m["round"], m["table"], m["status"]) for m in json.loads(r.stdout)["matches"]
    } == {(EVENT, ROUND, TABLE, "new")}

    fixed = injection_file(tmp_path / "inj2.csv", note="dikoreksi")
    r = domino(
        "ingest", fixed, "--reason", REASON, "--by", "Pak 'Wasit'", "--format", "json", db=db
    )
    assert r.returncode == 0, r.stdout + r.stderr

    r = domino(
        "standings",
        "--event",
        EVENT,
        "--level",
        "table",
        "--round",
        ROUND,
        "--table",
        TABLE,
        "--format",
        "json",
        db=db,
    )
    assert r.returncode == 0, r.stderr
    assert sorted(row["player"] for row in json.loads(r.stdout)) == sorted(PLAYERS)
    r = domino(
        "history", "--event", EVENT, "--round", ROUND, "--table", TABLE, "--format", "json", db=db
    )
    hist = json.loads(r.stdout)
    assert [(h["version"], h["reason"], h["loaded_by"]) for h in hist] == [
        (1, None, "reliability-test"),
        (2, REASON, "Pak 'Wasit'"),
    ]
    r = domino("hands", "--event", EVENT, "--format", "csv", db=db)
    assert pl.read_csv(r.stdout.encode()).height == 12
    r = domino("standings", "--event", "' OR 1=1; --", db=db)
    assert r.returncode == 1 and "not found" in r.stderr
    with connect(db, read_only=True) as con:
        check_consistent(con)
        assert {t for (t,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()} >= {
            "hands",
            "match_versions",
            "events",
        }
        assert con.execute("SELECT reason FROM ingests WHERE reason IS NOT NULL").fetchall() == [
            (REASON,)
        ]


def test_paths_with_quotes_are_paths_not_sql(tmp_path):
    odd = tmp_path / "it's; DROP TABLE hands; --"
    odd.mkdir()
    db = odd / "domino'; --.duckdb"
    with connect(db) as con:
        ingest(con, [injection_file(tmp_path / "inj.csv")])
    copy = backup(db, odd / "copy'.duckdb")
    with connect(copy, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM hands").fetchall() == [(3,)]
