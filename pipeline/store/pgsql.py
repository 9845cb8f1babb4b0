"""One SQL source for both stores: DuckDB SQL turned into PostgreSQL SQL.

The migrations (``pipeline/store/migrations/*.sql``), the public views
(``pipeline/sql/views/*.sql``) and the queries in the code are written for DuckDB. For a
PostgreSQL store, :func:`to_postgres` transpiles them with sqlglot (read ``duckdb``,
write ``postgres``) and then applies the few fix-ups sqlglot does not make, each a
rewrite of the syntax tree that keeps DuckDB's meaning:

- ``GROUP BY ALL`` becomes the list of the select's expressions that hold no aggregate;
- ``arg_max(x, y)`` / ``arg_min(x, y)`` become the first of ``array_agg(x ORDER BY y)``
  over the rows where ``y`` is not NULL (DuckDB ignores those rows too);
- ``any_value(x)`` (PostgreSQL 16 and later only) becomes the first non-NULL of
  ``array_agg(x)``;
- ``round(x, n)`` rounds ``x`` as numeric (PostgreSQL has no ``round(double, int)``);
- ``contains(a, b)`` becomes ``strpos(a, b) > 0``;
- ``regexp_extract(s, p)`` becomes ``coalesce(substring(s from p), '')`` (DuckDB gives
  ``''`` when nothing matches, PostgreSQL NULL);
- a subquery in FROM without a name gets one (PostgreSQL 15 requires it);
- a select-list alias named in ``HAVING`` is replaced by its expression;
- ``CREATE OR REPLACE VIEW`` loses ``OR REPLACE``: views are dropped and re-created
  whole (PostgreSQL cannot replace a view whose columns change);
- ``INSERT OR REPLACE`` / ``INSERT OR IGNORE`` are refused here (PostgreSQL needs the
  conflict target): write ``ON CONFLICT (…) DO UPDATE`` / ``DO NOTHING`` instead.

A migration sqlglot cannot carry over at all has its PostgreSQL text beside it in
``pipeline/store/migrations/postgres/`` under the same file name (see
:func:`migration_text`); every other file, and every new one, needs no work.
"""

import functools
from importlib import resources

import sqlglot
from sqlglot import exp

_OVERRIDES = resources.files("pipeline.store") / "migrations" / "postgres"


_PARAM = "__domino_param__"


class NotPortable(ValueError):
    """DuckDB SQL that has no PostgreSQL form here; the message names the construct."""


def migration_text(name: str, duckdb_sql: str) -> str:
    """The PostgreSQL text of migration ``name``: its override file when there is one,
    else the DuckDB text transpiled."""
    override = _OVERRIDES / name
    if override.is_file():
        return override.read_text()
    return to_postgres(duckdb_sql)


@functools.lru_cache(maxsize=4096)
def to_postgres(sql: str) -> str:
    """DuckDB SQL (one or more statements, ``?`` or ``$name`` parameters) as PostgreSQL SQL
    with ``%s`` or ``%(name)s`` parameters, statements joined by ``;``."""
    upper = sql.upper()
    if "INSERT OR REPLACE" in upper or "INSERT OR IGNORE" in upper:
        raise NotPortable("INSERT OR REPLACE/IGNORE: write ON CONFLICT (...) DO ... instead")
    out = []
    for tree in sqlglot.parse(sql, read="duckdb"):
        if tree is None:
            continue
        tree = tree.transform(_fix)
        if isinstance(tree, exp.Create) and tree.args.get("replace") and _kind(tree) == "VIEW":
            tree.set("replace", value=False)
        named: list[str] = []
        params = False
        for node in list(tree.find_all(exp.Placeholder)):
            if node.this is None:  # ?
                node.replace(exp.Var(this=_PARAM))
            else:  # $name (DuckDB's named parameter; a dict of values is passed)
                named.append(str(node.this))
                node.replace(exp.Var(this=f"{_PARAM}{len(named) - 1}_"))
            params = True
        text = tree.sql(dialect="postgres", comments=False)
        if params:  # psycopg's placeholders: %s or %(name)s, and a literal % doubled
            text = text.replace("%", "%%")
            for i, name in reversed(list(enumerate(named))):
                text = text.replace(f"{_PARAM}{i}_", f"%({name})s")
            text = text.replace(_PARAM, "%s")
        if text.strip():
            out.append(text)
    return ";\n".join(out)


def _kind(tree: exp.Create) -> str:
    return str(tree.args.get("kind") or "").upper()


def _fix(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Select):
        _group_by_all(node)
        _having_aliases(node)
    if isinstance(node, exp.Subquery) and not node.alias and isinstance(node.parent, exp.From):
        node.set("alias", exp.TableAlias(this=exp.to_identifier("_sub")))
    if isinstance(node, (exp.ArgMax, exp.ArgMin)):
        return _arg_extreme(node)
    if isinstance(node, exp.Round) and node.args.get("decimals") is not None:
        if not (isinstance(node.this, exp.Cast) and node.this.to.is_type("decimal")):
            node.set("this", exp.cast(node.this, "DECIMAL"))
        return node
    if isinstance(node, exp.AnyValue):
        value = node.this.sql("postgres")
        return _parse(f"(array_agg({value}) FILTER (WHERE ({value}) IS NOT NULL))[1]")
    if type(node).__name__ == "Contains" or (
        isinstance(node, exp.Anonymous) and str(node.name).lower() == "contains"
    ):
        args = [node.this, node.expression] if node.expression else node.expressions
        return exp.GT(
            this=exp.Anonymous(this="strpos", expressions=list(args)),
            expression=exp.Literal.number(0),
        )
    if isinstance(node, exp.RegexpExtract):
        group = node.args.get("group")
        if group is None or group.name in ("0", ""):
            return _parse(
                f"coalesce(substring(({node.this.sql('postgres')}) from "
                f"({node.expression.sql('postgres')})), '')"
            )
    return node


def _group_by_all(select: exp.Select) -> None:
    group = select.args.get("group")
    if group is None:
        return
    if not (group.args.get("all") or _is_bare_all(group)):
        return
    keys = [
        e.unalias().copy()
        for e in select.expressions
        if not e.find(exp.AggFunc) and not e.find(exp.Window)
    ]
    select.set("group", exp.Group(expressions=keys) if keys else None)


def _having_aliases(select: exp.Select) -> None:
    """A name in HAVING that is an alias of the select list stands for its expression."""
    having = select.args.get("having")
    if having is None:
        return
    aliases = {e.alias: e.unalias() for e in select.expressions if isinstance(e, exp.Alias)}
    for col in list(having.find_all(exp.Column)):
        if not col.table and col.name in aliases:
            col.replace(aliases[col.name].copy())


def _is_bare_all(group: exp.Group) -> bool:
    exprs = group.expressions
    return len(exprs) == 1 and isinstance(exprs[0], exp.Column) and exprs[0].name.upper() == "ALL"


def _arg_extreme(node: exp.Expression) -> exp.Expression:
    value = node.this.sql("postgres")
    key = node.expression.sql("postgres")
    order = "DESC" if isinstance(node, exp.ArgMax) else "ASC"
    return _parse(
        f"(array_agg({value} ORDER BY {key} {order}) FILTER (WHERE ({key}) IS NOT NULL))[1]"
    )


def _parse(sql: str) -> exp.Expression:
    tree = sqlglot.parse_one(sql, read="postgres")
    assert isinstance(tree, exp.Expression)
    return tree
