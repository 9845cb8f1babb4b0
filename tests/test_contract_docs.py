"""The contract's docs cannot drift from the code: every view column, problem code,
command, ruleset key and ingest room the code has is named in docs/."""

import ast
import re

import click

from pipeline import rulesets
from pipeline.cli import cli
from pipeline.standings.queries import CONTRACT
from tests.conftest import ROOT

DOCS = ROOT / "docs"


def _doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _names(text: str) -> set[str]:
    """Every `code-quoted` word of a page (so a word in prose does not count)."""
    return set(re.findall(r"`([^`\n]+)`", text)) | {
        w
        for span in re.findall(r"`([^`\n]+)`", text)
        for w in re.findall(r"[a-z_][a-z0-9_]*", span)
    }


def _view(level: str) -> str:
    return level if level == "hand_points" else f"{level}_standings"


def problem_codes() -> set[str]:
    """Every problem code the pipeline can emit, read from its source: ``code="…"`` and
    ``"code": "…"``, ``FileRejected(file, "code", …)`` and the checks' ``add(rows, column,
    "code", …)``."""
    codes: set[str] = set()
    positional = {"FileRejected": 1, "add": 2}
    for path in (ROOT / "pipeline").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                codes |= {
                    k.value.value
                    for k in node.keywords
                    if k.arg == "code" and isinstance(k.value, ast.Constant)
                }
                f = node.func
                name = (
                    f.id
                    if isinstance(f, ast.Name)
                    else f.attr
                    if isinstance(f, ast.Attribute)
                    else ""
                )
                i = positional.get(name)
                if i is not None and len(node.args) > i and isinstance(node.args[i], ast.Constant):
                    codes.add(node.args[i].value)
            elif isinstance(node, ast.Dict):
                codes |= {
                    v.value
                    for k, v in zip(node.keys, node.values, strict=True)
                    if isinstance(k, ast.Constant)
                    and k.value == "code"
                    and isinstance(v, ast.Constant)
                }
    return {c for c in codes if isinstance(c, str)}


def commands(group: click.Group = cli, prefix: str = "domino") -> list[str]:
    out = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):  # the top group resolves its commands lazily
        cmd = group.get_command(ctx, name)
        out.append(f"{prefix} {name}")
        if isinstance(cmd, click.Group):
            out += commands(cmd, f"{prefix} {name}")
    return out


def test_every_view_and_contract_column_is_in_handlog():
    doc = _doc("handlog.md")
    missing = [_view(level) for level in CONTRACT if f"| `{_view(level)}`" not in doc]
    assert not missing, f"the views table of docs/handlog.md lacks these views: {missing}"
    for level, cols in CONTRACT.items():
        row = f"`{', '.join(cols)}`"
        assert row in doc, (
            f"docs/handlog.md must list {_view(level)}'s contract columns in order: {row}"
        )


def test_every_rulesets_extra_column_is_in_handlog():
    names = _names(_doc("handlog.md"))
    for rs in rulesets.names():
        book = rulesets.load(rs)
        for view in ("hand_points", "table", "round", "event", "group"):
            missing = [c for c in book.columns(view) if c not in names]
            assert not missing, f"docs/handlog.md does not name {rs}'s {view} columns {missing}"


def test_the_views_table_says_what_each_rulebook_adds_exactly():
    """The views table's "unhas adds" / "pepet adds" cells are each ruleset's ``[columns]``,
    in order: the docs listed pepet's ``reserves`` of group_standings, which `domino
    standings` did not print (its ``[columns]`` did not name it)."""
    doc = _doc("handlog.md")
    header = re.search(r"^\| view \| contract columns \| (.+) \|$", doc, re.M)
    assert header, "docs/handlog.md has no views table"
    books = [c.split()[0] for c in header.group(1).split(" | ")]
    assert sorted(books) == sorted(rulesets.names())
    for level in CONTRACT:
        row = re.search(rf"^\| `{_view(level)}`[^|]*\| `[^`]+` \| (.+) \|$", doc, re.M)
        assert row, f"docs/handlog.md has no row for {_view(level)}"
        for rs, cell in zip(books, row.group(1).split(" | "), strict=True):
            listed = re.match(r"`([^`]+)`", cell)
            said = listed.group(1).split(", ") if listed else []
            assert said == rulesets.load(rs).columns(level), (rs, level, cell)


def test_every_problem_code_is_in_handlog():
    codes = problem_codes()
    # the extraction itself must see the codes of every kind of call
    assert {"missing_pips", "empty", "correction_needs_reason", "session_shape"} <= codes
    table = set(re.findall(r"^\| `([a-z_]+)` \|", _doc("handlog.md"), re.M))
    missing = sorted(codes - table)
    assert not missing, f"add these problem codes to the table in docs/handlog.md: {missing}"


def test_every_domino_command_is_in_handlog():
    doc = _doc("handlog.md")
    found = commands()
    assert {"domino ingest", "domino event rounds", "domino players import"} <= set(found)
    missing = [c for c in found if f"`{c}" not in doc]
    assert not missing, f"document these commands in docs/handlog.md: {missing}"


def test_every_ruleset_key_is_in_rulesets_doc():
    names = _names(_doc("rulesets.md"))
    for what, keys in (
        ("REQUIRED", rulesets.REQUIRED),
        ("CHECKS", rulesets.CHECKS),
        ("LEVELS", rulesets.LEVELS),
        ("CHOICES", tuple(rulesets.CHOICES)),
        ("TYPES", tuple(rulesets.TYPES)),
    ):
        missing = [k for k in keys if k not in names]
        assert not missing, f"docs/rulesets.md does not describe these {what} keys: {missing}"


def test_every_builtin_ruleset_key_is_in_rulesets_doc():
    names = _names(_doc("rulesets.md"))
    for rs in ("unhas", "pepet"):
        book = rulesets.load(rs)
        top = [k for k in book.params if k != "name"]
        missing = [k for k in top if k not in names]
        assert not missing, f"docs/rulesets.md does not describe these keys of {rs}.toml: {missing}"


def test_every_ingest_room_is_in_architecture():
    doc = _doc("architecture.md")
    rooms = sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / "pipeline" / "ingest").glob("*.py")
    )
    assert "pipeline/ingest/service.py" in rooms
    missing = [r for r in rooms if f"`{r}`" not in doc]
    assert not missing, f"describe these modules in docs/architecture.md: {missing}"


def test_readme_points_to_the_projects_own_contract_and_rules():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in (
        "handlog.md",
        "rules-unhas.md",
        "rules-pepet.md",
        "rulesets.md",
        "architecture.md",
    ):
        assert f"docs/{page}" in readme, page
        assert (DOCS / page).is_file(), page
    # users have no copy of the workspace's RULES.md or HANDLOG.md: the README names the docs
    assert "RULES.md" not in readme and "HANDLOG.md" not in readme


def _helps(group: click.Group = cli) -> dict[str, str]:
    """Every command's ``--help`` text, by its name (``domino event rounds``)."""
    out = {}
    for name in commands(group):
        parts = name.split()[1:]
        cmd: click.Command = cli
        ctx = click.Context(cli, info_name="domino")
        for part in parts:
            assert isinstance(cmd, click.Group)
            nxt = cmd.get_command(ctx, part)
            assert nxt is not None, name
            ctx = click.Context(nxt, info_name=part, parent=ctx)
            cmd = nxt
        out[name] = cmd.get_help(ctx)
    return out


def test_what_users_read_points_to_the_projects_own_docs():
    # RULES.md and HANDLOG.md are the project's sources, not files a user has: the docs
    # and every command's help name docs/rules-*.md and docs/handlog.md instead
    said = {f"docs/{p.name}": p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    said |= {f"{name} --help": text for name, text in _helps().items()}
    assert "domino draw --help" in said and "docs/rules-unhas.md" in said
    named = [where for where, text in said.items() if "RULES.md" in text or "HANDLOG.md" in text]
    # the performance log quotes what earlier measurements were taken against
    assert [w for w in named if w != "docs/performance.md"] == []
