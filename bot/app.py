"""Wiring: build the python-telegram-bot Application, load tables, run.

Updates are processed concurrently (one table never stalls another); each
table serialises its own changes with its lock.  :class:`bot.ratelimit.ChatRateLimiter`
throttles chat by chat and retries after flood-control answers (a 429 delays its chat only).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

from telegram import (
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    MenuButtonWebApp,
    Update,
    WebAppInfo,
)
from telegram.ext import (
    Application,
    ApplicationBuilder,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

import storage
from bot import handlers, logs, seats
from bot.announcements import Outbox
from bot.ratelimit import ChatRateLimiter
from bot.commands import GROUP_COMMANDS, PRIVATE_COMMANDS, menu
from bot.config import Settings
from bot.health import Health, beat, heartbeat_path
from bot.labels import name_html
from bot.model import Seat, Table, TableSettings
from bot.publisher import Publisher
from bot.service import Tables
from bot.webhook import WebhookServer

log = logging.getLogger(__name__)

STOP_TIMEOUT: Final = 15.0
"""Seconds the shut-down waits for moves in progress and the last edits before closing anyway."""


def build_application(config: Settings) -> Application:  # type: ignore[type-arg]
    """The bot, ready to run: handlers, rate limiter, start-up and shut-down hooks."""
    limiter = ChatRateLimiter(max_retries=8, paced=config.flood_pacing)
    builder: ApplicationBuilder = (  # type: ignore[type-arg]
        Application.builder()
        .token(config.token)
        .rate_limiter(limiter)
        .concurrent_updates(True)
        .post_init(_post_init)
        .post_stop(_post_stop)
        .post_shutdown(_post_shutdown)
    )
    if config.base_url:
        builder = builder.base_url(config.base_url).base_file_url(config.base_url.replace("/bot", "/file/bot"))
    app = builder.build()
    app.bot_data["config"] = config
    app.bot_data["health"] = Health("webhook" if config.webhook_url else "polling",
                                    lambda: len(app.bot_data["tables"].by_id) if "tables" in app.bot_data else 0,
                                    lambda: app.bot_data.get("db"),
                                    lambda: {**(app.bot_data["tables"].load() if "tables" in app.bot_data else {}),
                                             "calls": limiter.in_flight})
    app.add_handler(TypeHandler(Update, _bind_update), group=-1)
    command_handlers = {
        "start": handlers.cmd_start, "newgame": handlers.cmd_newgame, "join": handlers.cmd_join,
        "leave": handlers.cmd_leave, "stop": handlers.cmd_stop, "hand": handlers.cmd_hand,
        "rules": handlers.cmd_rules, "stats": handlers.cmd_stats, "leaderboard": handlers.cmd_leaderboard,
        "lang": handlers.cmd_lang, "help": handlers.cmd_help,
    }
    for name, callback in command_handlers.items():
        app.add_handler(CommandHandler(name, callback))
    app.add_handler(CallbackQueryHandler(handlers.on_callback))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, handlers.on_migrate))
    app.add_error_handler(handlers.on_error)
    return app


async def _post_init(app: Application) -> None:  # type: ignore[type-arg]
    config: Settings = app.bot_data["config"]
    db = app.bot_data.get("db") or await storage.open_database(config.db_path)
    app.bot_data["db"] = db
    tables = Tables(db, config)
    tables.bot_username = app.bot.username
    tables.publisher = Publisher(app.bot, lambda chat_id: _blocked(tables, chat_id))
    tables.outbox = Outbox(db, app.bot)
    app.bot_data["tables"] = tables
    await load_tables(tables)
    pending = await tables.outbox.resume()
    if pending:
        log.info("announcing %d stored results the last run did not get to", pending)
    await _publish_commands(app)
    await _open_webapp(app)
    await tables.restore_timers()
    for table in tables.by_id.values():
        tables.refresh(table, urgent=range(4))  # hand messages at once: any selection shown is gone
    app.bot_data["heartbeat"] = asyncio.create_task(beat(heartbeat_path(config.db_path), app.bot_data["health"]))
    log.info("ready: %d active tables", len(tables.by_id))


async def _bind_update(update: Update, context: Any) -> None:
    """Runs first for every update: its id goes on every log line written while it is handled, and a
    command past its chat's or sender's budget goes no further."""
    logs.bind_update(update.update_id)
    if not await handlers.within_budget(update, context):
        raise ApplicationHandlerStop


async def _post_stop(app: Application) -> None:  # type: ignore[type-arg]
    """Updates have stopped and the handlers in flight are done: finish the tables' work."""
    await _stop_tables(app)


async def _post_shutdown(app: Application) -> None:  # type: ignore[type-arg]
    await _stop_tables(app)  # already done when post_stop ran; tests that skip post_stop rely on this
    db = app.bot_data.get("db")
    if db is not None and app.bot_data.get("own_db", True):
        await db.close()
        log.info("database closed")


async def _stop_tables(app: Application) -> None:  # type: ignore[type-arg]
    """Once: let moves in progress be stored, stop AI seats and timers, send the last edits, stop the heartbeat.

    Runs while the bot can still talk to Telegram (``post_stop``), and gives
    up after :data:`STOP_TIMEOUT` seconds so an unreachable Telegram cannot
    hold the shut-down past the service manager's patience.
    """
    if app.bot_data.get("stopped"):
        return
    app.bot_data["stopped"] = True
    server: WebhookServer | None = app.bot_data.pop("http", None)
    if server is not None:
        await server.stop()  # the web app's streams end; no move comes in while the tables close
    heartbeat: asyncio.Task[None] | None = app.bot_data.pop("heartbeat", None)
    if heartbeat is not None:
        heartbeat.cancel()
        await asyncio.gather(heartbeat, return_exceptions=True)
    tables: Tables | None = app.bot_data.get("tables")
    if tables is None:
        return
    try:
        async with asyncio.timeout(STOP_TIMEOUT):  # not wait_for, which in 3.11 can drop a cancellation
            await _finish(tables)
    except TimeoutError:
        log.warning("shut-down: gave up waiting after %.0f s; unsent edits are redone at the next start",
                    STOP_TIMEOUT)


async def _finish(tables: Tables) -> None:
    await tables.close()
    if tables.outbox is not None:
        await tables.outbox.drain()
    if tables.publisher is not None:
        await tables.publisher.drain()


async def _open_webapp(app: Application) -> None:  # type: ignore[type-arg]
    """With ``CHAODIPI_PUBLIC_URL``: the menu button opens the web app; in polling mode, start its server."""
    config: Settings = app.bot_data["config"]
    if config.public_url is None:
        return
    from bot.i18n import translator

    button = MenuButtonWebApp(translator("zh")("🃏 Open the table"), WebAppInfo(f"{config.public_url}/app/"))
    await app.bot.set_chat_menu_button(menu_button=button)
    if config.webhook_url is None:  # in webhook mode serve_webhook runs the server, with the web app
        server = WebhookServer(app, listen=config.webhook_listen, port=config.webhook_port, secret=None,
                               health=app.bot_data["health"], webapp=True)
        await server.start()
        app.bot_data["http"] = server


async def _publish_commands(app: Application) -> None:  # type: ignore[type-arg]
    for lang, code in (("en", None), ("zh", "zh")):
        await app.bot.set_my_commands(menu(lang, GROUP_COMMANDS), scope=BotCommandScopeAllGroupChats(),
                                      language_code=code)
        await app.bot.set_my_commands(menu(lang, PRIVATE_COMMANDS), scope=BotCommandScopeAllPrivateChats(),
                                      language_code=code)


async def _blocked(tables: Tables, chat_id: int) -> None:
    """A person blocked the bot (or never started it): report it, and let the AI or the clock decide."""
    await storage.set_user_reachability(tables.db, chat_id, blocked=True)
    for table, seat in tables.tables_of(chat_id):
        info = table.seats[seat]
        if info is None or not info.reachable:
            continue
        info.reachable = False
        from bot.i18n import translator

        tr = translator(table.lang)
        if table.settings.on_timeout == "ai" and table.playing:
            info.timed_out = True
            await storage.set_seat(tables.db, table.id, seat, user_id=chat_id, is_ai=True)
            text = tr("{who} cannot receive my messages (blocked?): the AI plays for them.", who=name_html(info.name))
        else:
            text = tr("{who} cannot receive my messages (blocked?): the table waits for them.",
                      who=name_html(info.name))
        if tables.publisher is not None:
            await tables.publisher.send(table.chat_id, text)
        tables.kick_ai(table)


async def load_tables(tables: Tables) -> None:
    """Bring back every open or playing table, replaying each current hand's log."""
    for active in await storage.load_active_tables(tables.db):
        record = active.table
        chat = await storage.get_chat(tables.db, record.chat_id)
        # As new_table chose it: the group's /lang, else its creator's language.
        creator = await storage.get_user(tables.db, record.creator_id) if record.creator_id else None
        lang = (chat.language if chat is not None and chat.language else
                creator.language if creator is not None and creator.language else "zh")
        table = Table(
            id=record.table_id, chat_id=record.chat_id, creator_id=record.creator_id or 0,
            lang=lang,
            title=chat.title if chat is not None else "", status=record.status,
            settings=TableSettings.from_dict(record.settings), message_id=record.message_id,
            deadline=record.turn_deadline,
        )
        for seat_record in active.seats:
            table.seats[seat_record.seat] = await _seat(tables, seat_record)
        tables._register(table)
        tables.group_titles[table.chat_id] = table.title
        if active.match is not None and active.hand is not None:
            await tables._rebuild_match(table, active)
            table.turn_key = tables.turn_key(table)
            # Nobody left between two hands: stay paused (mid-hand, the AI finishes the hand first).
            table.paused = table.playing and seats.nobody_left(table) and not table.match.hand.events  # type: ignore[union-attr]
            table.restarted = set(range(4))


async def _seat(tables: Tables, record: Any) -> Seat:
    if record.user_id is None:
        return Seat(None, "AI", is_ai=True)
    user = await storage.get_user(tables.db, record.user_id)
    name = user.display_name if user is not None else str(record.user_id)
    lang = user.language if user is not None and user.language else "zh"
    reachable = user is None or (user.can_message_privately and not user.blocked)
    return Seat(record.user_id, name, lang=lang, reachable=reachable, timed_out=record.is_ai,
                hand_message_id=record.hand_message_id, nudge_message_id=record.nudge_message_id)


def run(config: Settings) -> None:
    """Run until SIGINT or SIGTERM: polling by default, a webhook when configured.

    On a stop signal the bot stops taking updates, lets the handlers in
    flight and the moves in progress store their writes, sends the pending
    message edits and closes the database, then returns.
    """
    logs.setup_logging(config.log_level, config.log_format)
    app = build_application(config)
    if config.webhook_url:
        from bot.webhook import serve_webhook

        asyncio.run(serve_webhook(app, config))
    else:
        app.run_polling(allowed_updates=Update.ALL_TYPES)
    log.info("stopped")
