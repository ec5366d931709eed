"""Settings from the environment (never from files in the repository).

=========================  ===============================================================
``TELEGRAM_BOT_TOKEN``     the bot's token from @BotFather (required to run)
``TELEGRAM_BASE_URL``      a self-hosted Bot API server, e.g. ``http://127.0.0.1:8081/bot``, or the test
                           environment, ``https://api.telegram.org/bot{token}/test``
``CHAODIPI_DB``            the SQLite file (default ``./chaodipi.db``)
``CHAODIPI_WEBHOOK_URL``   public HTTPS URL for a webhook; polling when unset
``CHAODIPI_WEBHOOK_LISTEN`` address the bot's HTTP server binds (default ``0.0.0.0``)
``CHAODIPI_WEBHOOK_PORT``  port of the bot's HTTP server (webhook, health, web app; default ``8443``)
``CHAODIPI_WEBHOOK_SECRET`` secret token Telegram sends with each webhook call
``CHAODIPI_PUBLIC_URL``    public HTTPS base URL of the bot's HTTP server: serves the web app (Mini App)
``CHAODIPI_WEBAPP_MAX_AGE`` seconds a Mini App's ``initData`` stays valid (default ``86400``)
``CHAODIPI_AI_DELAY``      seconds between AI moves (default ``0.8``; 0 in tests)
``CHAODIPI_AI_WORKERS``    processes for the strong AI's searches (default: the cores less one, at least 1)
``CHAODIPI_GROUP_INTERVAL`` minimum seconds between edits of a group's table message (default ``3.5``)
``CHAODIPI_HAND_PAUSE``    seconds between hands at the real-time pace (default ``4``; 0 in tests)
``CHAODIPI_TAP_GAP``       seconds a hand message waits after its last edit before showing another tap (default ``1``)
``CHAODIPI_FLOOD_PACING``  ``on`` (default): calls paced by Telegram's flood limits; ``off``: a test server without them
``CHAODIPI_LOG_LEVEL``     ``INFO`` by default
``CHAODIPI_LOG_FORMAT``    ``text`` (one line per record, default) or ``json`` (JSON lines)
=========================  ===============================================================
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from storage import default_db_path

LOCAL_IDS: Final = 2**52
"""``chaodipi play``'s people, group and bot have ids beyond this: past Telegram's (52 bits at most) and
within JavaScript's exact integers (the page reads them)."""


def is_local(chat_or_user_id: int) -> bool:
    """True for an id of ``chaodipi play``'s world (its people, its group, its bot)."""
    return abs(chat_or_user_id) > LOCAL_IDS


class ConfigError(Exception):
    """A setting is missing or malformed; the message says which and how to fix it."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The bot's settings."""

    token: str
    base_url: str | None = None
    db_path: Path = Path("chaodipi.db")
    webhook_url: str | None = None
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    webhook_secret: str | None = None
    public_url: str | None = None
    """Where Telegram opens the web app (``<public_url>/app/``); None: the keyboard alone."""
    webapp_max_age: float = 86400.0
    ai_delay: float = 0.8
    ai_workers: int | None = None
    """Worker processes for the strong AI's searches; None: one fewer than the cores, at least one."""
    group_interval: float = 3.5
    hand_pause: float = 4.0
    """Seconds the table shows the last trick and the result before the next hand (real-time pace)."""
    tap_gap: float = 1.0
    """Seconds a private hand message waits after its last edit before it shows another tap (quick
    taps then cost one edit, not one each)."""
    flood_pacing: bool = True
    """Pace calls by Telegram's flood limits (off only for a test server without them; 429s are
    waited out chat by chat either way)."""
    log_level: str = "INFO"
    log_format: str = "text"
    local: bool = False
    """``chaodipi play``: the bot hosts the local group's tables only, the way ``chaodipi run`` hosts every
    other group's (never read from the environment: only ``chaodipi play`` sets it)."""

    def hosts(self, chat_id: int) -> bool:
        """True for a group this run hosts: the local group in ``chaodipi play``, any other in ``chaodipi run``
        (so a database both use keeps each one's tables, results and seasons with it)."""
        return is_local(chat_id) == self.local

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read the settings; raises :class:`ConfigError` with a readable message."""
        env = os.environ if environ is None else environ
        token = env.get("TELEGRAM_BOT_TOKEN", "").strip()
        if not token:
            raise ConfigError(
                "TELEGRAM_BOT_TOKEN is not set. Create a bot with @BotFather, then run:\n"
                "    export TELEGRAM_BOT_TOKEN=123456:ABC...\n"
                "To play without a token, in your browser, try:  chaodipi play --open"
            )
        _check_token(token)
        return cls(
            token=token,
            base_url=_base_url(env),
            db_path=default_db_path(env),
            webhook_url=_webhook_url(env),
            webhook_listen=env.get("CHAODIPI_WEBHOOK_LISTEN", "0.0.0.0"),
            webhook_port=_int(env, "CHAODIPI_WEBHOOK_PORT", 8443),
            webhook_secret=_webhook_secret(env),
            public_url=_public_url(env),
            webapp_max_age=_float(env, "CHAODIPI_WEBAPP_MAX_AGE", 86400.0),
            ai_delay=_float(env, "CHAODIPI_AI_DELAY", 0.8),
            ai_workers=_int(env, "CHAODIPI_AI_WORKERS", 0) or None,
            group_interval=_float(env, "CHAODIPI_GROUP_INTERVAL", 3.5),
            hand_pause=_float(env, "CHAODIPI_HAND_PAUSE", 4.0),
            tap_gap=_float(env, "CHAODIPI_TAP_GAP", 1.0),
            flood_pacing=_choice(env, "CHAODIPI_FLOOD_PACING", ("on", "off")) == "on",
            log_level=_log_level(env),
            log_format=_choice(env, "CHAODIPI_LOG_FORMAT", ("text", "json")),
        )


TOKEN_SHAPE = re.compile(r"\d+:[A-Za-z0-9_-]+")
"""What every token from @BotFather looks like: the bot's id, a colon, the secret."""

PLACEHOLDER = re.compile(r"^123456:|your[-_ ]?token", re.IGNORECASE)
"""The examples of the README and deploy/chaodipi.env.example (``123456:ABC-your-token``), left in by mistake.

Narrow on purpose: a real token's random secret must never look like a placeholder.
"""


def _check_token(token: str) -> None:
    if PLACEHOLDER.search(token) or not TOKEN_SHAPE.fullmatch(token):
        raise ConfigError(
            "TELEGRAM_BOT_TOKEN is not a bot token (it looks like the example or a placeholder): "
            "copy the token @BotFather gave you, e.g. 123456789:AAH4… (digits, a colon, about 35 characters)."
        )


TOKEN_SLOT = "/bot{token}"
"""Where python-telegram-bot puts the token in a URL that names its place: Telegram's test environment is
``https://api.telegram.org/bot{token}/test``."""


def _base_url(env: Mapping[str, str]) -> str | None:
    """``TELEGRAM_BASE_URL``: ending in ``/bot`` (the library appends the token right after it), or naming
    the token's place as ``/bot{token}`` (the test environment's ``…/bot{token}/test``)."""
    url = (env.get("TELEGRAM_BASE_URL") or "").strip().rstrip("/")
    if not url:
        return None
    if not url.endswith("/bot") and TOKEN_SLOT not in url:
        raise ConfigError(
            f"TELEGRAM_BASE_URL must end with /bot, as in http://127.0.0.1:8081/bot, or name the token's place as "
            f"in https://api.telegram.org/bot{{token}}/test; did you mean {url}/bot ?"
        )
    return url


def _webhook_url(env: Mapping[str, str]) -> str | None:
    # Telegram refuses a webhook that is not HTTPS; refused at each start, the bot would be restarted for ever
    # (exit status 1), where a setting to fix stops it (status 2).
    url = (env.get("CHAODIPI_WEBHOOK_URL") or "").strip()
    if not url:
        return None
    if not url.startswith("https://"):
        raise ConfigError(f"CHAODIPI_WEBHOOK_URL must be an https:// URL (Telegram sends webhooks over HTTPS only; "
                          f"the bot serves plain HTTP behind a TLS proxy), not {url!r}.")
    return url


SECRET_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,256}")
"""A webhook's secret token as Telegram takes it (``setWebhook``'s ``secret_token``)."""


def _webhook_secret(env: Mapping[str, str]) -> str | None:
    secret = env.get("CHAODIPI_WEBHOOK_SECRET") or ""
    if not secret:
        return None
    if not SECRET_SHAPE.fullmatch(secret):  # the secret itself is never printed
        raise ConfigError("CHAODIPI_WEBHOOK_SECRET may hold only A-Z, a-z, 0-9, _ and -, at most 256 characters "
                          "(Telegram's rule); leave it empty for a random one at each start.")
    return secret


def _public_url(env: Mapping[str, str]) -> str | None:
    # Telegram opens Mini Apps over HTTPS only; a plain-HTTP URL would give buttons that never open.
    url = (env.get("CHAODIPI_PUBLIC_URL") or "").strip().rstrip("/")
    if not url:
        return None
    if not url.startswith("https://"):
        raise ConfigError(f"CHAODIPI_PUBLIC_URL must be an https:// URL (Telegram opens web apps over HTTPS only), "
                          f"not {url!r}.")
    return url


def _log_level(env: Mapping[str, str]) -> str:
    level = (env.get("CHAODIPI_LOG_LEVEL") or "INFO").strip().upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise ConfigError(f"CHAODIPI_LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not {level!r}.")
    return level


def _choice(env: Mapping[str, str], name: str, choices: tuple[str, ...]) -> str:
    value = (env.get(name) or choices[0]).strip().lower()
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, not {value!r}.")
    return value


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, not {raw!r}.") from None
    if not math.isfinite(value):  # float() reads "nan" and "inf"; no age is more than NaN
        raise ConfigError(f"{name} must be a number, not {raw!r}.")
    if value < 0:
        raise ConfigError(f"{name} must not be negative.")
    return value


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    value = _float(env, name, default)
    if value != int(value):
        raise ConfigError(f"{name} must be a whole number.")
    return int(value)
