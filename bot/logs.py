"""Structured logs: every line names its table, hand and update, and never a card.

The service marks what it is working on with :func:`bind` (a context
variable, so each asyncio task carries its own table and a task started from
it inherits them); :class:`ContextFilter` copies those marks onto every log
record, PTB's and aiosqlite's included.  Two output formats::

    2026-11-29T14:00:00Z INFO bot.tables.lobby table=12 hand=34 update=5678: match started
    {"time": "2026-11-29T14:00:00Z", "level": "INFO", "logger": "bot.tables.lobby", "table": 12, ...}

Hidden cards stay out of the logs in three ways:

* our own log calls name tables, seats and error types, never cards;
* libraries that dump whole payloads at DEBUG (PTB logs every request and
  update, aiosqlite every SQL statement with its parameters, httpx every URL,
  which holds the bot token) are held at INFO or WARNING whatever the level;
* as a last line of defence, anything that still looks like a card (``♠A``,
  ``10H``, ``BJ``, ``大王``) is masked in the formatted line, tracebacks
  included.

The bot token is masked the same way (:func:`hide_secret`): python-telegram-bot
quotes a refused token in its ``InvalidToken`` message, and httpx puts it in
every URL it reports.

A library's network loop that gives up at start-up logs a whole traceback
and then raises to ``chaodipi run``, which says what went wrong in one
sentence; below ``DEBUG`` that record is dropped (:class:`StartupNoiseFilter`).
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
import time
from typing import Final, TextIO

LOG_FORMATS: Final = ("text", "json")
"""Values of ``CHAODIPI_LOG_FORMAT``."""

_TABLE: contextvars.ContextVar[int | None] = contextvars.ContextVar("chaodipi_table", default=None)
_HAND: contextvars.ContextVar[int | None] = contextvars.ContextVar("chaodipi_hand", default=None)
_UPDATE: contextvars.ContextVar[int | None] = contextvars.ContextVar("chaodipi_update", default=None)

QUIET_LOGGERS: Final[dict[str, int]] = {
    "telegram": logging.INFO,   # DEBUG: every request's parameters (hand messages) and every update
    "aiosqlite": logging.INFO,  # DEBUG: every statement with its parameters (event payloads)
    "httpx": logging.WARNING,   # INFO: every request URL, which contains the bot token
    "httpcore": logging.WARNING,
}
"""The least verbose level each chatty library is held at, whatever ``CHAODIPI_LOG_LEVEL`` says."""

CARD_PATTERN: Final = re.compile(
    r"[♠♥♦♣](?:10|[2-9JQKA])"             # labels shown to people: ♠A, ♥10
    r"|大王|小王"                            # jokers in Chinese labels
    r"|\b(?:10|[2-9JQKA])[SHDC]\b"          # the engine's notation: 10H, QS
    r"|\b[BS]J\b"                           # jokers in the engine's notation
)
"""Anything that looks like a card, in the bot's labels or the engine's notation."""

MASK: Final = "▒"
SECRET_MASK: Final = "***"
"""What a hidden secret (the bot token after its ``<bot id>:``) is replaced with."""

_SECRETS: set[str] = set()
TIME_FORMAT: Final = "%Y-%m-%dT%H:%M:%SZ"


def bind(*, table: int | None = None, hand: int | None = None) -> None:
    """Mark the current task (and tasks it starts from now on) as working on a table and hand."""
    _TABLE.set(table)
    _HAND.set(hand)


def bind_update(update_id: int | None) -> None:
    """Mark the current task as processing one Telegram update."""
    _UPDATE.set(update_id)


def current() -> tuple[int | None, int | None, int | None]:
    """The bound (table, hand, update) of the current task."""
    return _TABLE.get(), _HAND.get(), _UPDATE.get()


def hide_secret(token: str) -> None:
    """Mask ``token`` in every log line and in :func:`mask_secrets` from now on.

    The part after the colon is the secret (the bot id before it is public), and
    it is masked on its own too: a malformed URL can glue the id to other digits.
    """
    secret = token.partition(":")[2] or token
    if len(secret) >= 4:  # masking a one-letter test token would garble every line
        _SECRETS.add(secret)


def mask_secrets(text: str) -> str:
    """``text`` with every secret registered by :func:`hide_secret` masked."""
    for secret in sorted(_SECRETS, key=len, reverse=True):
        text = text.replace(secret, SECRET_MASK)
    return text


def redact(text: str) -> str:
    """``text`` with everything that looks like a card, and every hidden secret, masked."""
    return CARD_PATTERN.sub(MASK, mask_secrets(text))


class StartupNoiseFilter(logging.Filter):
    """Drops the traceback python-telegram-bot logs when a network loop gives up.

    The loop re-raises the error right after logging it, so the caller (at
    start-up, ``chaodipi run``) reports it in one sentence; the 50-odd lines of
    library traceback only matter to someone debugging, who sets ``DEBUG``.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name.startswith("telegram") and record.exc_info is not None
                    and "Aborting" in record.getMessage())


class ContextFilter(logging.Filter):
    """Adds ``table``, ``hand`` and ``update`` (None when unknown) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.table, record.hand, record.update = current()
        return True


def _dash(value: object) -> str:
    return "-" if value is None else str(value)


class TextFormatter(logging.Formatter):
    """``<UTC time> <LEVEL> <logger> table=<id> hand=<id>[ update=<id>]: <message>``, cards masked."""

    def __init__(self) -> None:
        super().__init__(datefmt=TIME_FORMAT)
        self.converter = time.gmtime

    def format(self, record: logging.LogRecord) -> str:
        where = f"table={_dash(getattr(record, 'table', None))} hand={_dash(getattr(record, 'hand', None))}"
        update = getattr(record, "update", None)
        if update is not None:
            where += f" update={update}"
        line = f"{self.formatTime(record, self.datefmt)} {record.levelname} {record.name} {where}: "
        line += record.getMessage()
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        if record.stack_info:
            line += "\n" + self.formatStack(record.stack_info)
        return redact(line)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, table, hand, update, message (and exc), cards masked."""

    def __init__(self) -> None:
        super().__init__(datefmt=TIME_FORMAT)
        self.converter = time.gmtime

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": self.formatTime(record, self.datefmt),
            "level": record.levelname,
            "logger": record.name,
            "table": getattr(record, "table", None),
            "hand": getattr(record, "hand", None),
            "update": getattr(record, "update", None),
            "message": redact(record.getMessage()),
        }
        if record.exc_info:
            entry["exc"] = redact(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False)


def setup_logging(level: str = "INFO", fmt: str = "text", stream: TextIO | None = None) -> logging.Handler:
    """Send every log record to ``stream`` (default: stderr) in ``fmt``; returns the handler.

    Replaces the root logger's handlers, so calling it twice does not double lines.
    """
    if fmt not in LOG_FORMATS:
        raise ValueError(f"unknown log format {fmt!r}; use one of {', '.join(LOG_FORMATS)}")
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.addFilter(ContextFilter())
    if logging.getLevelName(level) > logging.DEBUG:
        handler.addFilter(StartupNoiseFilter())
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)  # a library's warning goes through the masking formatters too
    quiet_libraries()
    return handler


def quiet_libraries() -> None:
    """Hold the libraries of :data:`QUIET_LOGGERS` at their level (or above, if the root is higher)."""
    for name, floor in QUIET_LOGGERS.items():
        logging.getLogger(name).setLevel(max(floor, logging.getLogger().getEffectiveLevel()))
