"""Settings from the environment: the logging ones are checked before anything starts."""

from __future__ import annotations

import pytest

from bot.config import ConfigError, Settings

TOKEN = {"TELEGRAM_BOT_TOKEN": "123:abc"}


def test_logging_defaults() -> None:
    settings = Settings.from_env(TOKEN)
    assert (settings.log_level, settings.log_format) == ("INFO", "text")


def test_logging_settings_are_read_case_insensitively() -> None:
    settings = Settings.from_env(TOKEN | {"CHAODIPI_LOG_LEVEL": "debug", "CHAODIPI_LOG_FORMAT": "JSON"})
    assert (settings.log_level, settings.log_format) == ("DEBUG", "json")


@pytest.mark.parametrize("name, value", [("CHAODIPI_LOG_LEVEL", "loud"), ("CHAODIPI_LOG_FORMAT", "xml")])
def test_a_bad_logging_setting_is_named(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env(TOKEN | {name: value})
