"""One place for every setting, its default and its help text.

Modelled on datasette's ``SETTINGS``: each setting has a name, a default and a sentence
of help; ``tests/test_docs.py`` proves that every one is documented in
``docs/settings.md``. Values can be overridden with environment variables named
``DOMINO_<NAME>`` (upper case).
"""

import os
from dataclasses import dataclass
from pathlib import Path

from pipeline.messages import Refused

ROOT = Path(__file__).resolve().parent.parent

# What a setting holds: its default's type, which an environment override keeps.
Value = str | int | float | bool


@dataclass(frozen=True)
class Setting:
    name: str
    default: Value
    help: str
    choices: tuple[str, ...] = ()  # a text setting that takes only these


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "db",
        str(ROOT / "data" / "domino.duckdb"),
        "The DuckDB database file, or a PostgreSQL database as postgresql://USER@HOST:PORT/DB.",
    ),
    Setting(
        "pg_pool_size",
        4,
        "Most connections each dashboard process keeps open to a PostgreSQL store.",
    ),
    Setting("max_file_bytes", 20 * 1024 * 1024, "Largest hand-log file accepted, in bytes."),
    Setting("max_rows", 2_000_000, "Most rows one hand-log file may hold."),
    Setting("max_columns", 500, "Most columns one hand-log file may hold."),
    Setting(
        "max_xlsx_expanded_bytes",
        200 * 1024 * 1024,
        "Most bytes an .xlsx file, or a .zip of hand logs, may expand to when unzipped (guards against zip bombs).",
    ),
    Setting("max_xlsx_ratio", 200, "Highest compression ratio allowed for one .xlsx member."),
    Setting("max_archive_files", 2_000, "Most files one .zip of hand logs may hold."),
    Setting(
        "max_sheet_cells",
        20_000_000,
        "Most cells (rows times columns, from A1 to the farthest cell) one workbook sheet may span.",
    ),
    Setting(
        "memory_limit",
        "2GB",
        "DuckDB's memory limit per connection (it spills to disk beyond it).",
    ),
    Setting(
        "batch_rows",
        500_000,
        "Rows planned and committed together when one command loads many files.",
    ),
    Setting(
        "batch_files",
        500,
        "Most files planned and committed together when one command loads many files.",
    ),
    Setting(
        "progress_files",
        500,
        "`domino ingest` away from a terminal prints a progress line on stderr every this many files.",
    ),
    Setting(
        "lock_timeout",
        30.0,
        "Seconds a command waits for another process to release the database before giving up.",
    ),
    Setting(
        "refresh_seconds",
        10,
        "How often big-screen mode re-reads its data between slides (a new result shows at once without it).",
    ),
    Setting(
        "live_seconds",
        1.0,
        "How often an open leaderboard asks the server whether a result was saved (the server checks the database twice as often, once for every screen); a save shows within about one and a half times this.",
    ),
    Setting("bigscreen_seconds", 15, "Seconds each table stays on screen in big-screen mode."),
    Setting("login_attempts", 5, "Failed sign-ins allowed per user within the lock-out window."),
    Setting("login_window_seconds", 300, "Length of the sign-in lock-out window, in seconds."),
    Setting(
        "sign_in_days",
        14,
        "Days a dashboard sign-in lasts across reloads and tabs before the password is asked again.",
    ),
    Setting(
        "attachment_max_bytes",
        10 * 1024 * 1024,
        "Largest photo or scan of a paper record a change request may carry, in bytes.",
    ),
    Setting(
        "trusted_proxies",
        "",
        "Comma-separated addresses of reverse proxies whose X-Forwarded-For names the client "
        "(for the per-address sign-in limit); empty: none is trusted.",
    ),
    Setting(
        "backup_dir",
        "",
        "Folder for every database's backups; empty: a backups folder beside each database file.",
    ),
    Setting(
        "backup_keep",
        30,
        "Automatic backups before corrections kept per database (the newest); 0 keeps all.",
    ),
    Setting(
        "provisional_matches",
        5,
        "A player's rating is provisional until they have played this many rated tables.",
    ),
    Setting(
        "picker_events",
        100,
        "Newest events an event picker lists; typing part of a name finds any other (0: all).",
    ),
    Setting(
        "picker_players",
        100,
        "Players a player picker lists, those who played most; typing part of a name finds any other (0: all).",
    ),
    Setting("form_matches", 10, "Tables shown as a player's recent form on their page."),
    Setting(
        "language",
        "id",
        "Default dashboard language: id (Indonesian) or en (English).",
        choices=("id", "en"),
    ),
)

_BY_NAME = {s.name: s for s in SETTINGS}


_YES, _NO = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


class SettingError(Refused, ValueError):
    """An environment value a setting cannot take: the sentence names the variable, the
    value, what it must be and the default."""

    def __init__(self, setting: Setting, raw: str, kind: str) -> None:
        super().__init__(
            f"setting.{kind}",
            {
                "var": f"DOMINO_{setting.name.upper()}",
                "value": raw,
                "default": str(setting.default),
                "choices": list(setting.choices),
            },
        )


def get(name: str) -> Value:
    """Return a setting's value: ``DOMINO_<NAME>`` from the environment, else the default.
    A value of the wrong kind (a word for a number, a negative count) is refused with
    :class:`SettingError`."""
    setting = _BY_NAME[name]
    raw = os.environ.get(f"DOMINO_{name.upper()}")
    if raw is None or raw.strip() == "":
        return setting.default
    if isinstance(setting.default, str):
        if setting.choices and raw.strip() not in setting.choices:
            raise SettingError(setting, raw, "choice")
        return raw.strip() if setting.choices else raw
    text = raw.strip().lower()
    if isinstance(setting.default, bool):
        if text not in _YES + _NO:
            raise SettingError(setting, raw, "flag")
        return text in _YES
    kind = "whole" if isinstance(setting.default, int) else "number"
    try:
        value: int | float = int(text) if kind == "whole" else float(text)
    except ValueError:
        raise SettingError(setting, raw, kind) from None
    if not value >= 0:  # a negative count or time, or NaN
        raise SettingError(setting, raw, kind)
    return value


def check() -> None:
    """Read every setting once: a value it cannot take is refused now (:class:`SettingError`),
    not when a page first asks for it."""
    for setting in SETTINGS:
        get(setting.name)


def db_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The database file: an explicit path, else ``DOMINO_DB``, else ``data/domino.duckdb``."""
    return Path(explicit) if explicit else Path(str(get("db")))


def db_target(explicit: str | os.PathLike[str] | None = None) -> str | Path:
    """The store: a ``postgresql://`` URL as it is, else the database file (:func:`db_path`)."""
    raw = str(explicit) if explicit else str(get("db"))
    if raw.startswith(("postgresql://", "postgres://")):
        return raw
    return db_path(explicit)
