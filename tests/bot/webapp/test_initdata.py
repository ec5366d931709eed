"""``initData`` as Telegram documents it: the bot's own signature, recent, unaltered."""

from __future__ import annotations

import hashlib
import hmac
import time
from urllib.parse import parse_qsl, urlencode

import pytest

from bot.config import ConfigError, Settings
from bot.webapp.initdata import InitDataError, secret_key, sign, validate

TOKEN = "123456:ABC-the-bots-token"
USER = {"id": 4242, "first_name": "爱丽丝", "language_code": "zh-hans"}
DAY = 86400.0


def test_good_init_data_names_its_person() -> None:
    user = validate(sign(TOKEN, USER), TOKEN, max_age=DAY)
    assert (user.id, user.first_name, user.language_code) == (4242, "爱丽丝", "zh-hans")


def test_the_signature_follows_telegrams_recipe() -> None:
    # Independently of sign(): secret = HMAC("WebAppData", token); hash = HMAC(secret, sorted "k=v" lines).
    fields = {"auth_date": str(int(time.time())), "query_id": "Q1", "user": '{"id":7,"first_name":"Bo"}',
              "chat_type": "private"}
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    assert secret == secret_key(TOKEN)
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    assert validate(urlencode(fields), TOKEN, max_age=DAY).id == 7


@pytest.mark.parametrize("change", ["user", "auth_date", "drop_hash", "hash", "extra_field"])
def test_altered_init_data_is_forged(change: str) -> None:
    fields = dict(parse_qsl(sign(TOKEN, USER)))
    if change == "user":
        fields["user"] = fields["user"].replace("4242", "4243")
    elif change == "auth_date":
        fields["auth_date"] = str(int(fields["auth_date"]) + 1)
    elif change == "drop_hash":
        del fields["hash"]
    elif change == "hash":
        fields["hash"] = "0" * 64
    else:
        fields["start_param"] = "t1"
    with pytest.raises(InitDataError):
        validate(urlencode(fields), TOKEN, max_age=DAY)


def test_another_bots_init_data_is_refused() -> None:
    with pytest.raises(InitDataError, match="signature"):
        validate(sign("654321:another-bot", USER), TOKEN, max_age=DAY)


def test_old_init_data_has_expired() -> None:
    now = time.time()
    data = sign(TOKEN, USER, auth_date=int(now - 3601))
    with pytest.raises(InitDataError, match="expired"):
        validate(data, TOKEN, max_age=3600, now=now)
    assert validate(data, TOKEN, max_age=3700, now=now).id == 4242


@pytest.mark.parametrize("raw", ["", "garbage", "user=%7B%7D&hash=1&hash=2"])
def test_not_init_data_at_all(raw: str) -> None:
    with pytest.raises(InitDataError):
        validate(raw, TOKEN, max_age=DAY)


def test_public_url_must_be_https() -> None:
    env = {"TELEGRAM_BOT_TOKEN": "1:a"}
    assert Settings.from_env(env).public_url is None
    assert Settings.from_env(env | {"CHAODIPI_PUBLIC_URL": "https://cdp.example/"}).public_url == "https://cdp.example"
    with pytest.raises(ConfigError, match="CHAODIPI_PUBLIC_URL"):
        Settings.from_env(env | {"CHAODIPI_PUBLIC_URL": "http://cdp.example"})
