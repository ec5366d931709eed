"""The private hand message carries the web app's button only when the web app is on."""

from __future__ import annotations

from bot.i18n import translator
from bot.render_private import render_hand
from tests.bot.builders import make_table


def test_no_web_app_button_without_a_public_url() -> None:
    _text, keyboard = render_hand(translator("zh"), make_table(), 0, "牌桌")
    assert not [b for row in keyboard.inline_keyboard for b in row if b.web_app is not None]


def test_the_web_app_button_closes_the_keyboard() -> None:
    url = "https://cdp.example/app/?t=1"
    for lang, label in (("zh", "🃏 打开牌桌"), ("en", "🃏 Open the table")):
        _text, keyboard = render_hand(translator(lang), make_table(), 0, "牌桌", app_url=url)
        last = keyboard.inline_keyboard[-1]
        assert len(last) == 1 and last[0].text == label and last[0].web_app is not None
        assert last[0].web_app.url == url
        assert sum(b.web_app is not None for row in keyboard.inline_keyboard for b in row) == 1
