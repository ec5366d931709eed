"""Where the database lives, as the bot and the command line find it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DB_ENV_VAR = "CHAODIPI_DB"
"""The environment variable that names the database file."""

DEFAULT_DB_FILE = "chaodipi.db"
"""The file used when :data:`DB_ENV_VAR` is unset: relative to the working directory."""


def default_db_path(environ: Mapping[str, str] | None = None) -> Path:
    """The database path: ``$CHAODIPI_DB`` if set and non-empty, else ``./chaodipi.db``.

    ``environ`` defaults to :data:`os.environ`; tests pass their own mapping.
    """
    env = os.environ if environ is None else environ
    value = env.get(DB_ENV_VAR, "").strip()
    return Path(value) if value else Path(DEFAULT_DB_FILE)
