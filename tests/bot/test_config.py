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


def test_flood_pacing_is_on_unless_turned_off() -> None:
    assert Settings.from_env(TOKEN).flood_pacing
    assert not Settings.from_env(TOKEN | {"CHAODIPI_FLOOD_PACING": "OFF"}).flood_pacing


def test_the_tap_gap_is_a_second_unless_set() -> None:
    assert Settings.from_env(TOKEN).tap_gap == 1.0
    assert Settings.from_env(TOKEN | {"CHAODIPI_TAP_GAP": "0.25"}).tap_gap == 0.25
    with pytest.raises(ConfigError, match="CHAODIPI_TAP_GAP"):
        Settings.from_env(TOKEN | {"CHAODIPI_TAP_GAP": "soon"})


def test_ai_workers_default_to_the_cores_less_one_unless_set() -> None:
    assert Settings.from_env(TOKEN).ai_workers is None
    assert Settings.from_env(TOKEN | {"CHAODIPI_AI_WORKERS": "0"}).ai_workers is None
    assert Settings.from_env(TOKEN | {"CHAODIPI_AI_WORKERS": "3"}).ai_workers == 3
    with pytest.raises(ConfigError, match="CHAODIPI_AI_WORKERS"):
        Settings.from_env(TOKEN | {"CHAODIPI_AI_WORKERS": "1.5"})


@pytest.mark.parametrize("name", ["CHAODIPI_WEBAPP_MAX_AGE", "CHAODIPI_AI_WORKERS"])
@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity"])
def test_a_number_setting_that_is_no_number_is_named(name: str, value: str) -> None:
    """``float()`` reads 「nan」 and 「inf」: a web app ``initData`` age of NaN made every one young enough (no age is
    more than NaN), and a whole number of them stopped the start with a traceback."""
    with pytest.raises(ConfigError, match=name):
        Settings.from_env(TOKEN | {name: value})


@pytest.mark.parametrize("name, value", [("CHAODIPI_LOG_LEVEL", "loud"), ("CHAODIPI_LOG_FORMAT", "xml"),
                                         ("CHAODIPI_FLOOD_PACING", "maybe")])
def test_a_bad_logging_setting_is_named(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env(TOKEN | {name: value})


@pytest.mark.parametrize("token", ["123456:ABC-your-token", "123456:ABC-DEF...", "<your token>", "your-token",
                                   "7000000001:has space"])
def test_a_placeholder_or_malformed_token_is_refused(token: str) -> None:
    with pytest.raises(ConfigError, match="TELEGRAM_BOT_TOKEN is not a bot token"):
        Settings.from_env({"TELEGRAM_BOT_TOKEN": token})


@pytest.mark.parametrize("token", ["7000000001:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw", "1:x", "987654321:AAyourABCDEFxxxx"])
def test_real_tokens_pass(token: str) -> None:
    assert Settings.from_env({"TELEGRAM_BOT_TOKEN": token}).token == token


@pytest.mark.parametrize(("url", "kept"), [("http://127.0.0.1:8081/bot", "http://127.0.0.1:8081/bot"),
                                          ("https://api.telegram.org/bot/", "https://api.telegram.org/bot")])
def test_the_base_url_ends_with_bot(url: str, kept: str) -> None:
    assert Settings.from_env(TOKEN | {"TELEGRAM_BASE_URL": url}).base_url == kept
    with pytest.raises(ConfigError, match="did you mean http://127.0.0.1:8081/bot"):
        Settings.from_env(TOKEN | {"TELEGRAM_BASE_URL": "http://127.0.0.1:8081"})


def test_the_test_environments_url_is_accepted_and_reaches_it() -> None:
    """The library's documented form for Telegram's test environment names the token's place."""
    from bot.app import build_application

    url = "https://api.telegram.org/bot{token}/test"
    settings = Settings.from_env({"TELEGRAM_BOT_TOKEN": "123:abc", "TELEGRAM_BASE_URL": url})
    assert settings.base_url == url
    app = build_application(settings)
    assert app.bot.base_url == "https://api.telegram.org/bot123:abc/test"
    assert app.bot.base_file_url == "https://api.telegram.org/file/bot123:abc/test"


@pytest.mark.parametrize("url", ["http://bot.example", "bot.example", "ftp://bot.example"])
def test_a_webhook_url_must_be_https(url: str) -> None:
    """Telegram would refuse it at each start (exit status 1: restarted for ever); a setting to fix is status 2."""
    with pytest.raises(ConfigError, match="CHAODIPI_WEBHOOK_URL must be an https:// URL"):
        Settings.from_env({"TELEGRAM_BOT_TOKEN": "1:x", "CHAODIPI_WEBHOOK_URL": url})
    kept = Settings.from_env({"TELEGRAM_BOT_TOKEN": "1:x", "CHAODIPI_WEBHOOK_URL": " https://bot.example/ "})
    assert kept.webhook_url == "https://bot.example/"
    assert Settings.from_env({"TELEGRAM_BOT_TOKEN": "1:x", "CHAODIPI_WEBHOOK_URL": ""}).webhook_url is None


@pytest.mark.parametrize("secret", ["has space", "semi;colon", "ä", "x" * 257])
def test_a_webhook_secret_telegram_would_refuse_is_named_not_printed(secret: str) -> None:
    with pytest.raises(ConfigError, match="CHAODIPI_WEBHOOK_SECRET may hold only") as refused:
        Settings.from_env({"TELEGRAM_BOT_TOKEN": "1:x", "CHAODIPI_WEBHOOK_SECRET": secret})
    assert secret not in str(refused.value)
    good = "s3cret-Token_1" + "x" * 242
    assert Settings.from_env({"TELEGRAM_BOT_TOKEN": "1:x", "CHAODIPI_WEBHOOK_SECRET": good}).webhook_secret == good
    assert Settings.from_env({"TELEGRAM_BOT_TOKEN": "1:x", "CHAODIPI_WEBHOOK_SECRET": ""}).webhook_secret is None
