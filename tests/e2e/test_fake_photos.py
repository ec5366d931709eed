"""The fake Bot API's photos: sendPhoto, editMessageMedia and editMessageCaption, with Telegram's checks."""

from __future__ import annotations

import io

import pytest
import telegram
from PIL import Image
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto
from telegram.constants import ParseMode
from telegram.error import BadRequest

from .fake_telegram import FakeTelegram, FloodLimits

pytestmark = pytest.mark.fake_telegram(limits=FloodLimits.unlimited())  # several calls a second in one chat


def png(width: int, height: int, colour: str = "red") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, format="PNG")
    return out.getvalue()


def markup(label: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data="x")]])


async def test_a_photo_is_sent_kept_and_sent_again_by_its_file_id(fake_telegram: FakeTelegram,
                                                                   bot: telegram.Bot) -> None:
    group = fake_telegram.group("Photos")
    picture = png(120, 80)
    sent = await bot.send_photo(group.id, picture, caption="<b>联赛</b> · 1", parse_mode=ParseMode.HTML,
                                reply_markup=markup("总榜"))
    assert sent.photo[-1].width == 120 and sent.photo[-1].height == 80 and sent.caption == "联赛 · 1"
    file_id = sent.photo[-1].file_id
    assert fake_telegram.state.files[file_id] == picture
    message = group.last_bot_message()
    assert message.photo_id == file_id and message.caption == "联赛 · 1" and message.text is None
    again = await bot.send_photo(group.id, file_id)
    assert again.photo[-1].file_id == file_id
    assert fake_telegram.calls.count("sendPhoto", chat_id=group.id) == 2


async def test_photos_telegram_refuses(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    group = fake_telegram.group("Photos")
    refused = [
        (b"not an image", "image_process_failed"),
        (png(9000, 1200), "photo_invalid_dimensions"),
        (png(2100, 100), "photo_invalid_dimensions"),
    ]
    for data, reason in refused:
        with pytest.raises(BadRequest, match=f"(?i){reason}"):
            await bot.send_photo(group.id, data)
    with pytest.raises(BadRequest, match="(?i)wrong file identifier"):
        await bot.send_photo(group.id, "AgACAgQAAxkDAAI999999fake")
    with pytest.raises(BadRequest, match="(?i)caption is too long"):
        await bot.send_photo(group.id, png(10, 10), caption="字" * 1025)
    assert not group.bot_messages()


async def test_a_photo_is_replaced_and_its_caption_edited(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    group = fake_telegram.group("Photos")
    sent = await bot.send_photo(group.id, png(100, 100), caption="本赛季", reply_markup=markup("总榜"))
    edited = await sent.edit_media(InputMediaPhoto(png(100, 60, "blue"), caption="总榜"), reply_markup=markup("本赛季"))
    assert isinstance(edited, telegram.Message) and edited.photo[-1].height == 60 and edited.caption == "总榜"
    with pytest.raises(BadRequest, match="(?i)not modified"):  # the same picture, caption and buttons
        await sent.edit_media(InputMediaPhoto(edited.photo[-1].file_id, caption="总榜"), reply_markup=markup("本赛季"))
    await sent.edit_caption("还没有打完的局", reply_markup=markup("本赛季"))
    message = group.last_bot_message()
    assert message.caption == "还没有打完的局" and message.edited
    assert len(fake_telegram.state.messages[group.id][message.message_id].history) == 3
    text = await bot.send_message(group.id, "文字")
    with pytest.raises(BadRequest, match="(?i)no media"):
        await text.edit_media(InputMediaPhoto(png(10, 10)))
