"""The fake Bot API server, driven by PTB's real Bot and Application over HTTP."""

from __future__ import annotations

import asyncio
import datetime as dtm
import warnings
from typing import Any

import pytest
import telegram
import telegram.warnings
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Conflict, EndPointNotFound, Forbidden, InvalidToken, RetryAfter
from telegram.ext import AIORateLimiter, CallbackQueryHandler, CommandHandler, ContextTypes

from .conftest import ServerFactory
from .fake_telegram import DeepLinkError, FakeClock, FakeTelegram, FloodLimits
from .fake_telegram.harness import builder_for, running, unhandled

Context = ContextTypes.DEFAULT_TYPE
# For tests about something else than flood control that send many messages at once.
no_flood_limits = pytest.mark.fake_telegram(limits=FloodLimits.unlimited())


# PTB capitalises Bad Request descriptions ("BUTTON_DATA_INVALID" becomes
# "Button_data_invalid"), so every match below ignores case.


def retry_seconds(exc: RetryAfter) -> float:
    """``RetryAfter.retry_after`` in seconds, whether PTB gives int or timedelta."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, dtm.timedelta) else float(value)


async def raw_call(bot: telegram.Bot, method: str, **params: Any) -> Any:
    """Call a method with hand-made parameters (PTB would refuse to build some of them)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Please use", telegram.warnings.PTBUserWarning)
        return await bot.do_api_request(method, api_kwargs=params)


def keyboard(*rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(t, callback_data=d) for t, d in row] for row in rows])


# --- toy bot ----------------------------------------------------------------------


async def newgame(update: Update, context: Context) -> None:
    assert update.effective_message is not None
    variant = " ".join(context.args or []) or "default"
    await update.effective_message.reply_text(
        f"<b>新局</b> · {variant}",
        parse_mode=ParseMode.HTML,
        reply_markup=keyboard([("入座", "sit:1"), ("观战", "watch:1")]),
    )


async def start(update: Update, context: Context) -> None:
    assert update.effective_message is not None
    await update.effective_message.reply_text(f"welcome {' '.join(context.args or []) or '-'}")


async def on_button(update: Update, context: Context) -> None:
    query = update.callback_query
    assert query is not None and query.data is not None
    if query.data.startswith("sit:"):
        await query.answer("已入座", show_alert=False)
        await query.edit_message_text(f"{query.from_user.first_name} 入座", reply_markup=keyboard([("离座", "leave:1")]))
    else:
        await query.answer(f"unknown button {query.data}", show_alert=True)


def toy_app(server: FakeTelegram, **builder: Any) -> Any:
    app = builder_for(server).concurrent_updates(True).build()
    app.add_handler(CommandHandler("newgame", newgame))
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CallbackQueryHandler(on_button))
    return app


# --- basics -----------------------------------------------------------------------


async def test_get_me_and_recording(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    me = await bot.get_me()
    assert me.username == "chaodipi_test_bot" and me.is_bot and me.can_join_groups
    assert me.can_read_all_group_messages is False  # privacy mode, Telegram's default
    assert fake_telegram.calls.count("getMe") >= 1
    assert all(r.ok for r in fake_telegram.calls)


async def test_wrong_token_is_unauthorized(fake_telegram: FakeTelegram) -> None:
    wrong = "7000000001:AAsomethingElseEntirely000000000000000"
    with pytest.raises(InvalidToken):
        async with telegram.Bot(wrong, base_url=fake_telegram.base_url):
            pass


async def test_unknown_method_is_loud(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    with pytest.raises(EndPointNotFound):
        await raw_call(bot, "sendDice", chat_id=1)
    assert fake_telegram.unknown_methods == ["sendDice"]
    assert fake_telegram.calls.calls("sendDice")[0].status == 404
    fake_telegram.unknown_methods.clear()  # the fixture would fail the test otherwise


# --- a running Application --------------------------------------------------------


async def test_command_reaches_handler_and_reply_is_recorded(fake_telegram: FakeTelegram) -> None:
    alice = fake_telegram.person("Alice", "alice")
    table = fake_telegram.group("牌桌", [alice])
    async with running(toy_app(fake_telegram)) as app:
        sent = await alice.send(table, "/newgame yancheng")
        assert sent.entities[0] == {"type": "bot_command", "offset": 0, "length": 8}
        call = await fake_telegram.wait_for_call("sendMessage")
        assert call.ok and call.chat_id == table.id and call.is_group
        reply = table.last_bot_message()
        assert reply.text == "新局 · yancheng"  # the HTML as people see it
        assert reply.entities == ({"offset": 0, "length": 2, "type": "bold"},)
        assert reply.labels == [["入座", "观战"]]
        assert alice.sees(table)[-1] == reply

        assert reply.reply_to_message_id == sent.message_id  # PTB quotes in groups

        # /cmd@ourbot is for us (as the command menu writes it in a group);
        # /cmd@otherbot never reaches us under privacy mode.
        picked = await alice.command(table, "newgame", "daily")
        assert picked.text == "/newgame@chaodipi_test_bot daily"
        assert picked.entities[0]["length"] == len("/newgame@chaodipi_test_bot")
        await fake_telegram.wait_for(lambda: table.last_bot_message().text == "新局 · daily")
        before = len(fake_telegram.state.updates.delivered)
        await alice.send(table, "/newgame@some_other_bot x")
        await alice.send(table, "just chatting")
        assert len(fake_telegram.state.updates.delivered) == before
        # Nothing was queued, and what was is handled: the bot has nothing it could answer.
        await fake_telegram.wait_for(lambda: not unhandled(fake_telegram, app), what="every update handled")
        assert fake_telegram.calls.count("sendMessage") == 2


async def test_press_is_answered_once_and_edits(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    bob = fake_telegram.person("Bob", "bob")
    table = fake_telegram.group("牌桌", [bob])
    async with running(toy_app(fake_telegram)):
        await bob.send(table, "/newgame")
        menu = await fake_telegram.wait_for(lambda: table.bot_messages() and table.last_bot_message())
        press = await bob.press(menu, "入座")
        answer = await press.answer()
        assert answer.text == "已入座" and not answer.show_alert
        edited = await fake_telegram.wait_for(lambda: table.last_bot_message().edited and table.last_bot_message())
        assert edited.message_id == menu.message_id
        assert edited.text == "Bob 入座" and edited.labels == [["离座"]]
        assert bob.popups()[-1].text == "已入座"
        stored = fake_telegram.state.messages[table.id][menu.message_id]
        assert [v.text for v in stored.history] == ["新局 · default", "Bob 入座"]

        # A second answer to the same query is refused, as on Telegram.
        with pytest.raises(BadRequest, match="(?i)query is too old"):
            await bot.answer_callback_query(press.query_id, text="again")

        # A forged press with data no button carries still reaches the bot.
        forged = await bob.forge_callback(edited, "x" * 64)
        assert (await forged.answer()).show_alert


async def test_stale_snapshot_press_sends_old_data(fake_telegram: FakeTelegram) -> None:
    carol = fake_telegram.person("Carol", "carol")
    table = fake_telegram.group("牌桌", [carol])
    async with running(toy_app(fake_telegram)):
        await carol.send(table, "/newgame")
        menu = await fake_telegram.wait_for(lambda: table.bot_messages() and table.last_bot_message())
        await (await carol.press(menu, "入座")).answer()
        # She taps the old keyboard she still had on screen: the data is the old one.
        late = await carol.press(menu, "入座")
        assert late.data == "sit:1"
        await late.answer()


async def test_deep_link_start(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    dave = fake_telegram.person("Dave", "dave")
    table = fake_telegram.group("牌桌", [dave])
    link = f"https://t.me/{fake_telegram.bot.username}?start=seat_1-abc"
    message = await bot.send_message(
        table.id, "join", reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("入座", url=link)]])
    )
    async with running(toy_app(fake_telegram)):
        view = table.messages()[-1]
        assert view.message_id == message.message_id
        with pytest.raises(ValueError, match="(?i)open_link"):
            await dave.press(view, "入座")
        await dave.open_link(view, "入座")
        reply = await fake_telegram.wait_for(lambda: dave.bot_private_messages() and dave.last_private_message())
        assert reply.text == "welcome seat_1-abc"
        assert dave.user.has_started_bot
        await bot.send_message(dave.id, "quiet", disable_notification=True)
        assert [m.text for m in dave.notifications()] == ["welcome seat_1-abc"]
    with pytest.raises(DeepLinkError):
        await dave.open_link(f"https://t.me/{fake_telegram.bot.username}?start=bad payload!")
    with pytest.raises(DeepLinkError):
        await dave.open_link("https://t.me/another_bot?start=x")


# --- Telegram's refusals ---------------------------------------------------------------


@no_flood_limits
async def test_identical_edit_is_not_modified(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    table = fake_telegram.group("牌桌")
    markup = keyboard([("a", "a")])
    sent = await bot.send_message(table.id, "<b>hand</b>", parse_mode=ParseMode.HTML, reply_markup=markup)
    with pytest.raises(BadRequest, match="(?i)not modified"):
        await bot.edit_message_text("<b>hand</b>", table.id, sent.message_id, parse_mode=ParseMode.HTML, reply_markup=markup)
    with pytest.raises(BadRequest, match="(?i)not modified"):
        await bot.edit_message_reply_markup(table.id, sent.message_id, reply_markup=markup)
    # Same text, different formatting is a change; so is omitting the keyboard,
    # which removes it, exactly like Telegram.
    await bot.edit_message_text("hand", table.id, sent.message_id, reply_markup=markup)
    await bot.edit_message_text("hand", table.id, sent.message_id)
    assert table.messages()[-1].buttons == ()
    with pytest.raises(BadRequest, match="(?i)Message to edit not found"):
        await bot.edit_message_text("x", table.id, 999)


async def test_private_messages_need_start_and_stop_after_block(
    fake_telegram: FakeTelegram, bot: telegram.Bot
) -> None:
    erin = fake_telegram.person("Erin", "erin")
    with pytest.raises(Forbidden, match="(?i)bot can't initiate conversation with a user"):
        await bot.send_message(erin.id, "hi")
    with pytest.raises(BadRequest, match="(?i)Chat not found"):
        await bot.get_chat(erin.id)
    with pytest.raises(RuntimeError, match="(?i)Start"):
        await erin.send(None, "hello?")
    await erin.start_private()
    sent = await bot.send_message(erin.id, "your hand")
    erin.block_bot()
    with pytest.raises(Forbidden, match="(?i)bot was blocked by the user"):
        await bot.send_message(erin.id, "still there?")
    with pytest.raises(Forbidden, match="(?i)blocked"):
        await bot.edit_message_text("edited", erin.id, sent.message_id)
    kinds = [next(k for k in u if k != "update_id") for u in fake_telegram.pending_updates]
    assert kinds == ["message", "my_chat_member"]
    await erin.start_private()  # "Restart" unblocks
    await bot.send_message(erin.id, "welcome back")
    assert [m.text for m in erin.bot_private_messages()] == ["your hand", "welcome back"]
    assert fake_telegram.calls.count("sendMessage", status=403) == 2


@no_flood_limits
async def test_callback_data_limits(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    table = fake_telegram.group("牌桌")
    await bot.send_message(table.id, "ok", reply_markup=keyboard([("x", "d" * 64)]))
    await bot.send_message(table.id, "ok", reply_markup=keyboard([("x", "炒" * 21)]))  # 63 bytes
    for data in ("d" * 65, "炒" * 22):  # 65 and 66 bytes
        with pytest.raises(BadRequest, match="(?i)BUTTON_DATA_INVALID"):
            await bot.send_message(table.id, "no", reply_markup=keyboard([("x", data)]))
    with pytest.raises(BadRequest, match="(?i)BUTTON_DATA_INVALID"):
        await raw_call(
            bot, "sendMessage", chat_id=table.id, text="x",
            reply_markup={"inline_keyboard": [[{"text": "x", "callback_data": ""}]]},
        )
    with pytest.raises(BadRequest, match="(?i)Text buttons are unallowed"):
        await raw_call(
            bot, "sendMessage", chat_id=table.id, text="x", reply_markup={"inline_keyboard": [[{"text": "x"}]]}
        )
    with pytest.raises(BadRequest, match="(?i)BUTTON_URL_INVALID"):
        await bot.send_message(
            table.id, "x", reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("x", url="ftp://a.b")]])
        )
    assert [m.text for m in table.messages()] == ["ok", "ok"]


@no_flood_limits
async def test_keyboard_shape_limits(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    table = fake_telegram.group("牌桌")

    def grid(rows: int, per_row: int) -> InlineKeyboardMarkup:
        return keyboard(*[[(f"{r}.{c}", f"{r}.{c}") for c in range(per_row)] for r in range(rows)])

    await bot.send_message(table.id, "8 a row", reply_markup=grid(3, 8))
    await bot.send_message(table.id, "100", reply_markup=grid(20, 5))
    with pytest.raises(BadRequest, match="(?i)reply markup is too long"):
        await bot.send_message(table.id, "9 a row", reply_markup=grid(1, 9))
    with pytest.raises(BadRequest, match="(?i)reply markup is too long"):
        await bot.send_message(table.id, "101", reply_markup=keyboard(*[[(str(i), str(i))] for i in range(101)]))
    sent = await bot.send_message(table.id, "edit", reply_markup=grid(1, 1))
    with pytest.raises(BadRequest, match="(?i)reply markup is too long"):
        await bot.edit_message_reply_markup(table.id, sent.message_id, reply_markup=grid(1, 9))


@no_flood_limits
async def test_text_limits_and_html(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    table = fake_telegram.group("牌桌")
    await bot.send_message(table.id, "牌" * 4096)
    # The limit applies to the text after HTML parsing.
    await bot.send_message(table.id, "<b>" + "a" * 4096 + "</b>", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match="(?i)Message is too long"):
        await bot.send_message(table.id, "牌" * 4097)
    sent = await bot.send_message(table.id, "short")
    with pytest.raises(BadRequest, match="(?i)MESSAGE_TOO_LONG"):
        await bot.edit_message_text("x" * 4097, table.id, sent.message_id)
    with pytest.raises(BadRequest, match=r"(?i)Can't parse entities: unsupported start tag \"br\" at byte offset 5"):
        await bot.send_message(table.id, "Alice<br>Bob", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match="(?i)Can't find end tag corresponding to start tag \"b\""):
        await bot.send_message(table.id, "<b>♠A", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match="(?i)Message text is empty"):
        await bot.send_message(table.id, "  <b> </b> ", parse_mode=ParseMode.HTML)
    message = await bot.send_message(
        table.id, '  ♠A &lt;<i>主</i>&gt; <a href="https://t.me/x">规则</a> ', parse_mode=ParseMode.HTML
    )
    assert message.text == "♠A <主> 规则"
    assert message.text_html == '♠A &lt;<i>主</i>&gt; <a href="https://t.me/x">规则</a>'


async def test_answer_text_limit_and_expiry(fake_telegram_factory: ServerFactory, fake_clock: FakeClock) -> None:
    server = await fake_telegram_factory(clock=fake_clock, callback_query_ttl=15.0)
    frank = server.person("Frank", started=True)
    async with telegram.Bot(server.token, base_url=server.base_url) as bot:
        await bot.send_message(frank.id, "hand", reply_markup=keyboard([("♠A", "p:1")]))
        view = frank.last_private_message()
        first = await frank.press(view, "♠A")
        with pytest.raises(BadRequest, match="(?i)MESSAGE_TOO_LONG"):
            await bot.answer_callback_query(first.query_id, text="长" * 201)
        await bot.answer_callback_query(first.query_id, text="长" * 200, show_alert=True)
        late = await frank.press(view, "♠A")
        fake_clock.advance(16)
        with pytest.raises(BadRequest, match="(?i)query is too old"):
            await bot.answer_callback_query(late.query_id)
        assert not late.answered


# --- flood control ---------------------------------------------------------------------


async def test_group_flood_limit_with_injected_clock(
    fake_telegram_factory: ServerFactory, fake_clock: FakeClock
) -> None:
    server = await fake_telegram_factory(clock=fake_clock)
    table = server.group("牌桌")
    async with telegram.Bot(server.token, base_url=server.base_url) as bot:
        for i in range(20):
            await bot.send_message(table.id, f"message {i}")
            fake_clock.advance(1)
        with pytest.raises(RetryAfter) as refused:
            await bot.send_message(table.id, "one too many")
        assert retry_seconds(refused.value) == 40  # the first of the 20 leaves the window at t=60
        # Edits count in a group too.
        with pytest.raises(RetryAfter):
            await bot.edit_message_text("edited", table.id, 1)
        fake_clock.advance(40)
        await bot.send_message(table.id, "after the wait")
    record = server.calls.calls("sendMessage", status=429)[0]
    assert record.description == "Too Many Requests: retry after 40"
    assert server.flood.rejections == 2 and server.flood.rejections_by_chat[table.id] == 2
    assert len(table.messages()) == 21


async def test_per_chat_and_global_limits(fake_telegram_factory: ServerFactory, fake_clock: FakeClock) -> None:
    server = await fake_telegram_factory(clock=fake_clock)
    people = [server.person(f"P{i}", started=True) for i in range(31)]
    async with telegram.Bot(server.token, base_url=server.base_url) as bot:
        for _ in range(3):  # a short burst in one chat is tolerated
            await bot.send_message(people[0].id, "burst")
        with pytest.raises(RetryAfter) as refused:
            await bot.send_message(people[0].id, "too fast")
        assert retry_seconds(refused.value) == 1
        # Private edits do not count by default.
        await bot.edit_message_text("edited", people[0].id, 1)
        fake_clock.advance(1)
        for person in people[1:31]:
            await bot.send_message(person.id, "news")
        # 30 messages within this second, so the 31st is refused though its own
        # chat would allow it.
        with pytest.raises(RetryAfter) as refused:
            await bot.send_message(people[0].id, "news")
        assert retry_seconds(refused.value) == 1
        fake_clock.advance(1)
        await bot.send_message(people[0].id, "news")
        fake_clock.advance(1)
        await bot.send_message(people[28].id, "news")


async def test_private_edits_can_count_in_the_overall_window(
    fake_telegram_factory: ServerFactory, fake_clock: FakeClock
) -> None:
    server = await fake_telegram_factory(clock=fake_clock, limits=FloodLimits(edits_count_overall=True))
    people = [server.person(f"P{i}", started=True) for i in range(30)]
    async with telegram.Bot(server.token, base_url=server.base_url) as bot:
        for person in people:
            await bot.send_message(person.id, "hand")
        fake_clock.advance(1)
        # Edits in one private chat are not held to its one-a-second rate ...
        for i in range(5):
            await bot.edit_message_text(f"edit {i}", people[0].id, 1)
        for person in people[1:26]:
            await bot.edit_message_text("edited", person.id, 1)
        # ... but 30 sends and edits within a second fill the overall window.
        with pytest.raises(RetryAfter) as refused:
            await bot.edit_message_text("one too many", people[29].id, 1)
        assert retry_seconds(refused.value) == 1
        with pytest.raises(RetryAfter):
            await bot.send_message(people[29].id, "news")
        fake_clock.advance(1)
        await bot.edit_message_text("after the wait", people[29].id, 1)
    assert server.flood.rejections == 2


async def test_aioratelimiter_absorbs_429(fake_telegram_factory: ServerFactory) -> None:
    # Small windows on the real clock: 5 messages per second in a group.
    limits = FloodLimits(group_max=5, group_window=1.0, per_chat_burst=100, per_chat_rate=100.0)
    server = await fake_telegram_factory(limits=limits)
    table = server.group("牌桌")
    limiter = AIORateLimiter(overall_max_rate=0, group_max_rate=0, max_retries=3)
    app = builder_for(server).rate_limiter(limiter).build()
    async with app:
        sent = await asyncio.gather(*(app.bot.send_message(table.id, f"m{i}") for i in range(8)))
    assert len(sent) == 8
    assert server.flood.rejections >= 1
    assert server.calls.count("sendMessage", status=429) == server.flood.rejections
    assert sorted(m.text or "" for m in table.messages()) == [f"m{i}" for i in range(8)]


# --- updates -------------------------------------------------------------------------


async def test_long_polling_returns_when_an_update_arrives(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    gina = fake_telegram.person("Gina", "gina", started=True)
    # A poll that would wait an hour: if it returns within the test, the update's arrival ended it.
    poll = asyncio.create_task(bot.get_updates(timeout=3600))
    await fake_telegram.wait_for(lambda: fake_telegram.api._poll_seq >= 1, what="the long poll to arrive")
    await asyncio.sleep(0)
    assert not poll.done()  # it waits: nothing to return yet
    await gina.send(None, "/start again")
    updates = await asyncio.wait_for(poll, 60)
    assert [u.message.text for u in updates if u.message] == ["/start again"]
    # Not confirmed yet: fetched again; confirmed by a higher offset: gone.
    assert [u.update_id for u in await bot.get_updates()] == [updates[0].update_id]
    assert await bot.get_updates(offset=updates[0].update_id + 1) == ()
    assert fake_telegram.pending_updates == []


async def test_second_long_poll_terminates_the_first(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=20))
    await fake_telegram.wait_for(lambda: fake_telegram.api._poll_seq >= 1)
    # A second instance of the bot polling at the same time, the classic deployment slip.
    async with telegram.Bot(fake_telegram.token, base_url=fake_telegram.base_url) as second:
        assert await second.get_updates(timeout=0) == ()
    with pytest.raises(Conflict, match="(?i)terminated by other getUpdates request"):
        await asyncio.wait_for(first, 5)


async def test_allowed_updates_filter(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    hank = fake_telegram.person("Hank", started=True)
    await bot.get_updates(allowed_updates=["callback_query"])
    await hank.send(None, "/start")
    assert fake_telegram.pending_updates == []
    assert len(fake_telegram.state.updates.dropped) == 1


async def test_group_to_supergroup_migration(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    ivy = fake_telegram.person("Ivy", "ivy")
    table = fake_telegram.group("牌桌", [ivy], creator=ivy)
    old_id = table.id
    await bot.send_message(old_id, "before")
    new_id = await table.migrate_to_supergroup(by=ivy)
    assert table.id == new_id and new_id < -1_000_000_000_000
    updates = await bot.get_updates()
    assert [u.message.migrate_to_chat_id for u in updates if u.message] == [new_id, None]
    assert [u.message.migrate_from_chat_id for u in updates if u.message] == [None, old_id]
    with pytest.raises(ChatMigrated) as migrated:
        await bot.send_message(old_id, "after")
    assert migrated.value.new_chat_id == new_id
    await bot.send_message(new_id, "after")
    await ivy.send(table, "/newgame")  # people follow the chat into the supergroup
    assert [m.text for m in table.messages() if m.text] == ["after", "/newgame"]
    assert [m.text for m in table.messages(chat_id=old_id) if m.text] == ["before"]
    chat = await bot.get_chat(new_id)
    assert chat.type == "supergroup" and chat.title == "牌桌"


# --- other methods -----------------------------------------------------------------------


async def test_commands_per_scope_and_language(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    from telegram import BotCommand, BotCommandScopeAllGroupChats

    await bot.set_my_commands([BotCommand("newgame", "Start a table")])
    await bot.set_my_commands([BotCommand("newgame", "开新局")], language_code="zh")
    await bot.set_my_commands([BotCommand("join", "入座")], scope=BotCommandScopeAllGroupChats())
    assert [c.description for c in await bot.get_my_commands()] == ["Start a table"]
    assert [c.description for c in await bot.get_my_commands(language_code="zh")] == ["开新局"]
    assert [c.command for c in await bot.get_my_commands(scope=BotCommandScopeAllGroupChats())] == ["join"]
    assert await bot.get_my_commands(scope=BotCommandScopeAllGroupChats(), language_code="zh") == ()
    with pytest.raises(BadRequest, match="(?i)BOT_COMMAND_INVALID"):
        await bot.set_my_commands([BotCommand("New-Game", "x")])
    await bot.delete_my_commands(language_code="zh")
    assert await bot.get_my_commands(language_code="zh") == ()


@no_flood_limits
async def test_members_chat_actions_pins_and_deletes(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    jo, kim = fake_telegram.person("Jo", "jo"), fake_telegram.person("Kim", "kim")
    outsider = fake_telegram.person("Lee")
    table = fake_telegram.group("牌桌", [kim], admins=[jo])
    assert (await bot.get_chat_member(table.id, jo.id)).status == "administrator"
    assert (await bot.get_chat_member(table.id, kim.id)).status == "member"
    assert (await bot.get_chat_member(table.id, outsider.id)).status == "left"
    assert (await bot.get_chat_member(table.id, fake_telegram.bot.id)).status == "member"
    assert [m.user.id for m in await bot.get_chat_administrators(table.id)] == [jo.id]
    with pytest.raises(BadRequest, match="(?i)User not found"):
        await bot.get_chat_member(table.id, 12345)
    with pytest.raises(BadRequest, match="(?i)Chat not found"):
        await bot.send_message(-42, "nowhere")
    assert await bot.send_chat_action(table.id, "typing")
    sent = await bot.send_message(table.id, "pin me")
    assert await bot.pin_chat_message(table.id, sent.message_id)
    assert await bot.unpin_chat_message(table.id)
    said = await kim.send(table, "/newgame")
    with pytest.raises(BadRequest, match="(?i)Message can't be deleted"):
        await bot.delete_message(table.id, said.message_id)  # not an admin
    assert await bot.delete_message(table.id, sent.message_id)
    with pytest.raises(BadRequest, match="(?i)Message to delete not found"):
        await bot.delete_message(table.id, sent.message_id)
    assert [m.text for m in kim.sees(table)] == ["/newgame"]
    assert outsider.sees(table) == []
    table.remove_bot()
    with pytest.raises(Forbidden, match="(?i)bot was kicked from the group chat"):
        await bot.send_message(table.id, "still here?")


async def test_call_log_queries(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    mia = fake_telegram.person("Mia", started=True)
    table = fake_telegram.group("牌桌", [mia])
    mark = fake_telegram.calls.mark()
    await bot.send_message(table.id, "group 1")
    await bot.send_message(table.id, "group 2")
    await bot.send_message(mia.id, "private")
    new = fake_telegram.calls.since(mark)
    assert [r.method for r in new] == ["sendMessage"] * 3
    assert len([r for r in new if r.is_group]) == 2
    assert len(fake_telegram.calls.private_calls()) == 1
    assert fake_telegram.calls.by_method()["sendMessage"] == 3
    assert fake_telegram.calls.calls("SENDMESSAGE", chat_id=mia.id)[0].params["text"] == "private"


async def test_chat_changed_is_set_by_a_call_in_that_chat(fake_telegram: FakeTelegram, bot: telegram.Bot) -> None:
    nina = fake_telegram.person("Nina", started=True)
    omar = fake_telegram.person("Omar", started=True)
    mine, other = fake_telegram.chat_changed(nina.id), fake_telegram.chat_changed(omar.id)
    assert fake_telegram.chat_changed(nina.id) is mine  # one event per chat until it is set
    await bot.send_message(nina.id, "hand")
    assert mine.is_set() and not other.is_set()
    again = fake_telegram.chat_changed(nina.id)
    assert again is not mine and not again.is_set()
    await bot.edit_message_text("edited", nina.id, 1)
    assert again.is_set() and not other.is_set()


async def test_call_log_forgets_old_records_and_keeps_counting(fake_telegram: FakeTelegram,
                                                               bot: telegram.Bot) -> None:
    mia = fake_telegram.person("Mia", started=True)
    await bot.send_message(mia.id, "one")
    await bot.send_message(mia.id, "two")
    log = fake_telegram.calls
    last = log.records[-1]
    assert log.forget(last.at) == log.total - len(log.records) == log.forgotten > 0
    assert log.records[-1] is last and all(r.at >= last.at for r in log.records)
    await bot.send_message(mia.id, "three")
    assert log.records[-1].seq == last.seq + 1 == log.total
