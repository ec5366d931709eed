"""Wiring: build the python-telegram-bot Application, load tables, run.

Updates are processed concurrently (one table never stalls another); each
table serialises its own changes with its lock.  The bot asks only for the
update kinds its handlers use (:data:`bot.updates.UPDATE_KINDS`), and a
command runs only from a new message, never from an edited one.  :class:`bot.ratelimit.ChatRateLimiter`
throttles chat by chat and retries after flood-control answers (a 429 delays its chat only).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

from telegram import (
    Bot,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    MenuButtonWebApp,
    Update,
    WebAppInfo,
)
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

import storage
from bot import logs, outcome
from bot.announcements import Outbox
from bot.command_texts import GROUP_COMMANDS, PRIVATE_COMMANDS, menu
from bot.config import Settings
from bot.faults import Faults
from bot.handlers.buttons import on_callback
from bot.handlers.commands import cmd_hand, cmd_join, cmd_leave, cmd_newgame, cmd_start, cmd_stop
from bot.handlers.errors import on_error
from bot.handlers.group_events import on_bot_status, on_migrate
from bot.handlers.info import cmd_help, cmd_history, cmd_lang, cmd_leaderboard, cmd_rules, cmd_season, cmd_stats
from bot.handlers.throttle import within_budget
from bot.handlers.topic_events import on_topic_closed, on_topic_reopened
from bot.health import Health, beat, heartbeat_path
from bot.i18n import translator
from bot.league.board import League
from bot.league.members import Members
from bot.league.seasons import SeasonWatcher
from bot.publisher import Publisher
from bot.ratelimit import ChatRateLimiter
from bot.reachability import WatchedRequest
from bot.tables import Tables
from bot.tasks import Supervisor
from bot.updates import UPDATE_KINDS
from bot.webapp.league import LeagueRoutes
from bot.webapp.routes import WebAppRoutes
from bot.webhook import Routes, WebhookServer, serve_webhook

log = logging.getLogger(__name__)

STOP_TIMEOUT: Final = 15.0
"""Seconds the shut-down waits for moves in progress and the last edits before closing anyway."""


def build_application(config: Settings) -> Application:  # type: ignore[type-arg]
    """The bot, ready to run: handlers, rate limiter, the web app's routes, start-up and shut-down hooks."""
    tasks = Supervisor()
    faults = Faults()
    limiter = ChatRateLimiter(max_retries=8, paced=config.flood_pacing, tasks=tasks)
    builder: ApplicationBuilder = (  # type: ignore[type-arg]
        Application.builder()
        .token(config.token)
        # Every Bot API call (getUpdates too) tells the faults whether Telegram answered.
        .request(WatchedRequest(faults, connection_pool_size=256))
        # Two connections for getUpdates: at a stop the library cancels the long poll without awaiting it and
        # at once sends the getUpdates confirming what was fetched; a poll cancelled just as its answer arrives
        # may keep its connection past the pool's timeout, and with one alone that call failed (PoolTimeout).
        .get_updates_request(WatchedRequest(faults, polling=True, connection_pool_size=2))
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
    app.bot_data["tasks"] = tasks
    app.bot_data["faults"] = faults
    if config.public_url is not None:
        webapp = WebAppRoutes(app)
        app.bot_data["webapp"] = webapp  # the table's page and its streams (benches and tests count them)
        app.bot_data["http_routes"] = _every(webapp.install, LeagueRoutes(app).install)
    app.bot_data["health"] = Health("webhook" if config.webhook_url else "polling",
                                    lambda: len(app.bot_data["tables"].by_id) if "tables" in app.bot_data else 0,
                                    lambda: app.bot_data.get("db"),
                                    lambda: {**(app.bot_data["tables"].load() if "tables" in app.bot_data else {}),
                                             "calls": limiter.in_flight},
                                    faults=faults,
                                    watch=lambda: app.bot_data["tables"].watch() if "tables" in app.bot_data else [],
                                    failing=lambda: _failing(app))
    app.add_handler(TypeHandler(Update, _bind_update), group=-1)
    command_handlers = {
        "start": cmd_start, "newgame": cmd_newgame, "join": cmd_join, "leave": cmd_leave, "stop": cmd_stop,
        "hand": cmd_hand, "rules": cmd_rules, "stats": cmd_stats, "leaderboard": cmd_leaderboard,
        "history": cmd_history, "season": cmd_season, "lang": cmd_lang, "help": cmd_help,
    }
    for name, callback in command_handlers.items():
        # A new message only: correcting a typo in an old /leave must not run it again.
        app.add_handler(CommandHandler(name, callback, filters=filters.UpdateType.MESSAGE))
    app.add_handler(CallbackQueryHandler(on_callback))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_handler(MessageHandler(filters.StatusUpdate.FORUM_TOPIC_CLOSED, on_topic_closed))
    app.add_handler(MessageHandler(filters.StatusUpdate.FORUM_TOPIC_REOPENED, on_topic_reopened))
    app.add_handler(ChatMemberHandler(on_bot_status, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(on_error)
    return app


async def _post_init(app: Application) -> None:  # type: ignore[type-arg]
    config: Settings = app.bot_data["config"]
    db = app.bot_data.get("db") or await storage.open_database(config.db_path)
    app.bot_data["db"] = db
    tasks: Supervisor = app.bot_data["tasks"]
    faults: Faults = app.bot_data["faults"]
    db.observer = faults  # storage faults are logged once, reported by /health, and end at the next write
    tables = Tables(db, config, tasks, faults)
    tables.bot_username = app.bot.username
    tables.publisher = Publisher(app.bot, lambda chat_id: _blocked(tables, chat_id), tasks,
                                 lambda chat_id, message_id, digest: storage.save_shown(db, chat_id, message_id, digest),
                                 tap_gap=config.tap_gap)
    await storage.forget_old_shown(db)
    tables.publisher.known = await storage.shown_digests(db)  # a restart re-sends no message unchanged
    tables.outbox = Outbox(db, app.bot, tasks)
    for sender in (tables.publisher, tables.outbox):  # a group lost or moved, found by a refused call
        sender.on_group_lost, sender.on_moved = tables.group_lost, tables.group_moved
    tables.publisher.muting = tables.outbox.muting = tables.muting  # a group that mutes the bot: its tables pause
    tables.muting.on_muted, tables.muting.on_unmuted = tables.group_muted, tables.group_unmuted
    tables.publisher.topics = tables.outbox.topics = tables.topics  # a forum topic closed: its table pauses
    tables.topics.on_closed, tables.topics.on_reopened = tables.topic_closed, tables.topic_reopened
    tables.topics.on_deleted = tables.topic_deleted  # a forum topic gone: its table closes
    faults.listeners += [tables.publisher.telegram_back, tables.outbox.telegram_back]
    app.bot_data["tables"] = tables
    app.bot_data["reader"] = await _open_reader(db)
    _start_league(app, tables)
    await tables.load_tables()
    pending = await tables.outbox.resume(config.hosts)
    if pending:
        log.info("announcing %d stored results the last run did not get to", pending)
    await _publish_commands(app)
    await publish_profile(app.bot)
    await _open_webapp(app)
    tables.restore_timers()
    tasks.start("admission", tables.admit)  # tables whose Start waits for room under Telegram's limit
    for table in tables.by_id.values():
        tables.refresh(table, urgent=range(4))  # hand messages at once: any selection shown is gone
    health: Health = app.bot_data["health"]
    if not config.local:  # `chaodipi health` tells of chaodipi run, which may use the same database meanwhile
        app.bot_data["heartbeat"] = tasks.start("heartbeat", lambda: beat(heartbeat_path(config.db_path), health))
    log.info("ready: %d active tables", len(tables.by_id))


def _failing(app: Application) -> list[str]:  # type: ignore[type-arg]
    """The background work that keeps failing (for ``/health``): supervised tasks, and seasons not told."""
    found: list[str] = []
    if "tasks" in app.bot_data:
        found.extend(app.bot_data["tasks"].troubles())
    if "seasons" in app.bot_data:
        found.extend(app.bot_data["seasons"].troubles())
    return found


def _every(*installs: Routes) -> Routes:
    """One installer of the web app's routes: the table's and the league's pages."""
    def install(web_app: Any) -> None:
        for each in installs:
            each(web_app)
    return install


async def _open_reader(db: storage.Database) -> storage.Database | None:
    """The league's read-only second connection (its long reads never hold up the tables' writes); None, and
    the league reads on ``db``, if it cannot be opened."""
    try:
        return await storage.open_reader(db.path)
    except storage.StorageError as exc:
        log.warning("the league reads on the main connection: no read-only connection to %s (%s)", db.path, exc)
        return None


def _start_league(app: Application, tables: Tables) -> None:  # type: ignore[type-arg]
    """The league (its answers and pictures) and the season watcher, told of every hand that ends."""
    config: Settings = app.bot_data["config"]
    league = League(tables.db, bot_username=tables.bot_username, public_url=config.public_url,
                    live_language=lambda chat_id: next((table.lang for table in tables.all_in_chat(chat_id)), None),
                    tasks=tables.tasks, reader=app.bot_data.get("reader"))
    assert tables.outbox is not None
    watcher = SeasonWatcher(tables.db, league.tell_season_end, tables.outbox.wake, league.clock, config.hosts)
    tables.hand_watchers.append(lambda table: league.hand_ended(table.chat_id))
    tables.hand_watchers.append(lambda table: watcher.hand_ended(table.chat_id))
    app.bot_data["league"] = league
    app.bot_data["members"] = Members(app.bot, league.reader)  # long histories: off the tables' connection
    app.bot_data["seasons"] = watcher
    app.bot_data["tasks"].start("seasons", watcher.run)


async def _bind_update(update: Update, context: Any) -> None:
    """Runs first for every update: its id goes on every log line written while it is handled, and a
    command past its chat's or sender's budget goes no further."""
    logs.bind_update(update.update_id)
    outcome.begin()
    if not await within_budget(update, context):
        raise ApplicationHandlerStop


async def _post_stop(app: Application) -> None:  # type: ignore[type-arg]
    """Updates have stopped and the handlers in flight are done: finish the tables' work."""
    await _stop_tables(app)


async def _post_shutdown(app: Application) -> None:  # type: ignore[type-arg]
    await _stop_tables(app)  # already done when post_stop ran; tests that skip post_stop rely on this
    tasks: Supervisor | None = app.bot_data.get("tasks")
    if tasks is not None:
        await tasks.close(timeout=STOP_TIMEOUT)  # what is left (edits given up on): nothing outlives the bot
    reader: storage.Database | None = app.bot_data.pop("reader", None)
    if reader is not None:
        await reader.close()
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
    button = MenuButtonWebApp(translator("zh")("🃏 Open the table"), WebAppInfo(f"{config.public_url}/app/"))
    await app.bot.set_chat_menu_button(menu_button=button)
    if config.webhook_url is None:  # in webhook mode serve_webhook runs the server, with the web app
        server = WebhookServer(app, listen=config.webhook_listen, port=config.webhook_port, secret=None,
                               health=app.bot_data["health"], routes=app.bot_data["http_routes"])
        await server.start()
        app.bot_data["http"] = server


async def _publish_commands(app: Application) -> None:  # type: ignore[type-arg]
    for lang, code in (("en", None), ("zh", "zh")):
        await app.bot.set_my_commands(menu(lang, GROUP_COMMANDS), scope=BotCommandScopeAllGroupChats(),
                                      language_code=code)
        await app.bot.set_my_commands(menu(lang, PRIVATE_COMMANDS), scope=BotCommandScopeAllPrivateChats(),
                                      language_code=code)


async def publish_profile(bot: Bot) -> None:
    """The bot's description (shown in its empty private chat before Start) and short description (its
    profile, and shared links), in Chinese and English.  A refusal is logged: the bot runs without them."""
    try:
        for lang, code in (("en", None), ("zh", "zh")):
            tr = translator(lang)
            await bot.set_my_description(tr(
                "I host 炒地皮 (Chao Di Pi) tables in group chats. Add me to a group and send /newgame there; "
                "each player presses Start here once, and their cards come to this chat as buttons."),
                language_code=code)
            await bot.set_my_short_description(tr(
                "炒地皮 (Chao Di Pi) tables for your group chats: add me to a group and send /newgame."),
                language_code=code)
    except TelegramError as exc:
        log.warning("could not publish the bot's description: %s", exc)


async def _blocked(tables: Tables, chat_id: int) -> None:
    """A person blocked the bot (or never started it): report it, and let the AI or the clock decide."""
    await storage.set_user_reachability(tables.db, chat_id, blocked=True)
    await tables.cannot_reach(chat_id)


def run(config: Settings) -> None:
    """Run until SIGINT or SIGTERM: polling by default, a webhook when configured.

    On a stop signal the bot stops taking updates, lets the handlers in
    flight and the moves in progress store their writes, sends the pending
    message edits and closes the database, then returns.
    """
    logs.setup_logging(config.log_level, config.log_format)
    app = build_application(config)
    if config.webhook_url:
        asyncio.run(serve_webhook(app, config))
    else:
        app.run_polling(allowed_updates=list(UPDATE_KINDS))
    log.info("stopped")
