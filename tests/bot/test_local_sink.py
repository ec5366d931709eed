"""The Bot API that goes nowhere: python-telegram-bot takes each answer the bot's calls get for what it is."""

from __future__ import annotations

import io

import pytest
from telegram import Bot, BotCommand, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import InvalidToken

from bot.config import is_local
from bot.local.sink import BOT_USERNAME, BotApiSink

GROUP = -4503599627370497
PERSON = 4503599627370498


async def test_every_call_the_bot_makes_gets_an_answer_the_library_accepts() -> None:
    sink = BotApiSink()
    await sink.start()
    try:
        async with Bot(sink.token, base_url=sink.base_url) as bot:
            assert bot.username == BOT_USERNAME and is_local(bot.id)
            keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("出牌", callback_data="H:1:2")]])
            sent = await bot.send_message(GROUP, "<b>第 1 局</b>", parse_mode="HTML", reply_markup=keyboard)
            again = await bot.send_message(PERSON, "你的手牌")
            assert sent.chat.id == GROUP and again.message_id == sent.message_id + 1
            edited = await bot.edit_message_text("第 1 局结束", chat_id=GROUP, message_id=sent.message_id)
            assert not isinstance(edited, bool) and edited.message_id == sent.message_id
            photo = await bot.send_photo(GROUP, io.BytesIO(b"\x89PNG\r\n\x1a\n"), caption="联赛")
            assert photo.photo and photo.caption == "联赛"
            member = await bot.get_chat_member(GROUP, PERSON)
            assert member.status == "member" and member.user.id == PERSON
            assert await bot.set_my_commands([BotCommand("newgame", "开一桌")])
            assert await bot.delete_message(GROUP, sent.message_id)
            assert await bot.answer_callback_query("1")
            assert await bot.get_updates(timeout=0) == ()
        with pytest.raises(InvalidToken):  # a token of another run
            async with Bot("1:another", base_url=sink.base_url):
                pass
    finally:
        await sink.stop()
