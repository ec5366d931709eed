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


def _signed(fields: dict[str, str]) -> str:
    """``fields`` signed as Telegram signs them (independently of sign())."""
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    return urlencode({**fields, "hash": hmac.new(secret_key(TOKEN), check.encode(), hashlib.sha256).hexdigest()})


@pytest.mark.parametrize(("data", "reason"), [
    ("", "no initData"),
    ("user=%7B%7D&&auth_date=1", "initData is not a query string"),  # an empty segment
    ("no-equals-sign", "initData is not a query string"),
    (urlencode([("auth_date", "1"), ("auth_date", "2"), ("hash", "0")]), "a field is repeated"),
    (urlencode({"auth_date": "1", "hash": "0" * 64}), "the signature does not match"),
])
def test_each_refusal_says_why(data: str, reason: str) -> None:
    """The reason goes back to the page (401) and into the log: each is the right one."""
    with pytest.raises(InitDataError) as refused:
        validate(data, TOKEN, max_age=DAY)
    assert str(refused.value) == reason


def test_signed_data_without_a_user_is_refused_saying_so() -> None:
    with pytest.raises(InitDataError) as refused:
        validate(_signed({"auth_date": str(int(time.time())), "query_id": "Q"}), TOKEN, max_age=DAY)
    assert str(refused.value) == "auth_date or user is missing"


def test_a_field_telegram_signed_empty_is_kept_in_the_check() -> None:
    """Telegram signs every field, empty ones included (``start_param=``): dropping it breaks the check."""
    data = _signed({"auth_date": str(int(time.time())), "start_param": "", "user": '{"id":7}'})
    user = validate(data, TOKEN, max_age=DAY)
    assert (user.id, user.first_name, user.language_code) == (7, "", None)  # no name given: empty, not None


def test_the_age_is_measured_at_the_moment_given_with_its_edges() -> None:
    auth = 1_800_000_000
    data = sign(TOKEN, USER, auth_date=auth)
    user = validate(data, TOKEN, max_age=100, now=auth + 100)  # exactly max_age old: still good
    assert (user.auth_date, user.hash) == (auth, dict(parse_qsl(data))["hash"])
    with pytest.raises(InitDataError) as expired:
        validate(data, TOKEN, max_age=100, now=auth + 101)
    assert str(expired.value) == "initData has expired"
    assert validate(data, TOKEN, max_age=100, now=auth - 60).id == 4242  # a clock a minute behind: fine
    with pytest.raises(InitDataError) as future:
        validate(data, TOKEN, max_age=100, now=auth - 61)
    assert str(future.value) == "auth_date is in the future"
