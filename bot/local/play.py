"""``chaodipi play``: the game in a browser, without Telegram or a token.

The bot's whole service runs as in ``chaodipi run`` (:func:`bot.app.build_application`:
the tables, the AI seats, storage, the web app and the league), against
:class:`~bot.local.sink.BotApiSink` instead of Telegram, with its HTTP server
on a loopback address (or one named with ``--listen``).  A table opens in
the local group (ids of :data:`bot.config.LOCAL_IDS`'s world, which
``chaodipi run`` never hosts) with the person, or people, and AI seats in the
others, and starts at once, through the table service's calls that
/newgame, the AI-seat buttons and 「开始」 make.  Each person gets an
address of the page with a secret of their own in its fragment
(:class:`bot.webapp.signin.LocalSignIn`).  A match left unfinished goes on
at the next ``chaodipi play`` on the same database.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import signal
import socket
import webbrowser
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from telegram.ext import Application

import storage
from bot import logs
from bot.app import build_application
from bot.config import LOCAL_IDS, Settings
from bot.i18n import translator
from bot.local.sink import BotApiSink
from bot.model import AiStrength, Table
from bot.tables import Tables
from bot.untrusted import shown
from bot.webapp.signin import LOCAL_SIGNIN, LocalPerson, LocalSignIn

log = logging.getLogger(__name__)

LOCAL_CHAT: Final = -(LOCAL_IDS + 1)
"""The local group's chat id."""


def person_id(index: int) -> int:
    """The id of the ``index``-th person at the local table (0 for the first)."""
    return LOCAL_IDS + 1 + index


@dataclass(frozen=True, slots=True)
class PlayOptions:
    """What ``chaodipi play`` was asked for."""

    db_path: Path
    preset: str = "yancheng"
    ai: AiStrength = "strong"
    lang: str = "zh"
    listen: str = "127.0.0.1"
    port: int = 0
    """0: a free port."""
    names: tuple[str, ...] = ()
    """The people at the table, one seat each (none given: one person, named in the language's word)."""
    new: bool = False
    """Close a match left unfinished and open a new table."""
    ai_delay: float = 0.8
    hand_pause: float = 4.0


@dataclass
class Session:
    """A running ``chaodipi play``: the bot, its table and each person's address of the page."""

    app: Application  # type: ignore[type-arg]
    table: Table
    people: list[LocalPerson] = field(default_factory=list)
    addresses: list[str] = field(default_factory=list)
    """Per person: the page with their sign-in's secret in the fragment."""


def _port(listen: str, port: int) -> int:
    """The port to serve on: ``port``, or a free one if 0.  Raises OSError saying what to change when this
    machine cannot listen there (an address of another machine, as the README's example names; a port in use)."""
    family = socket.AF_INET6 if ":" in listen else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((listen, port))
        except OSError as exc:
            where = f"{listen} port {port}" if port else listen
            if exc.errno == errno.EADDRINUSE:
                hint = "another program uses that port: name another with --port, or leave --port out"
            elif exc.errno == errno.EADDRNOTAVAIL:
                hint = ("it is not an address of this machine: name one of its own (`hostname -I` lists them), "
                        "or leave --listen out to play on this machine alone")
            else:
                hint = "name another address with --listen, or another port with --port"
            raise OSError(f"cannot listen on {where} ({exc.strerror or exc}): {hint}.") from None
        return int(probe.getsockname()[1])


@asynccontextmanager
async def playing(options: PlayOptions) -> AsyncIterator[Session]:
    """The bot's service with the local table, for the duration of the block."""
    LocalSignIn(options.listen, options.port)  # first, ValueError for an address that is not one (0.0.0.0, ::)
    port = _port(options.listen, options.port)  # then OSError where this machine cannot listen
    signin = LocalSignIn(options.listen, port)
    sink = BotApiSink()
    await sink.start()
    try:
        config = Settings(token=sink.token, base_url=sink.base_url, db_path=options.db_path,
                          webhook_listen=options.listen, webhook_port=port, public_url=f"http://{signin.host}",
                          ai_delay=options.ai_delay, hand_pause=options.hand_pause, group_interval=1.0,
                          flood_pacing=False, local=True)
        app = build_application(config)
        app.bot_data[LOCAL_SIGNIN] = signin
        async with app:
            # What run_polling does around its loop, without the polling: nothing comes from the sink.
            assert app.post_init is not None and app.post_stop is not None and app.post_shutdown is not None
            try:
                await app.post_init(app)
            except BaseException:  # as run_polling does: what it opened closes (the database's thread would
                await app.post_shutdown(app)  # keep the process alive after the error is told)
                raise
            await app.start()
            try:
                tables: Tables = app.bot_data["tables"]
                people = _people(options)
                table = await _open_table(tables, options, people)
                addresses = [f"{config.public_url}/app/?t={table.id}#local={signin.issue(person)}"
                             for person in people]
                yield Session(app, table, people, addresses)
            finally:
                await app.stop()
                await app.post_stop(app)
                await app.post_shutdown(app)
    finally:
        await sink.stop()


def _people(options: PlayOptions) -> list[LocalPerson]:
    tr = translator(options.lang)
    you = tr("You")
    names = [shown(name).strip() or you for name in options.names] or [you]
    return [LocalPerson(person_id(i), name, options.lang) for i, name in enumerate(names[:4])]


async def _open_table(tables: Tables, options: PlayOptions, people: list[LocalPerson]) -> Table:
    """The local group's table with these people: the one left unfinished, else a new one, started."""
    existing = tables.in_chat(LOCAL_CHAT)
    if existing is not None and existing.status != "finished":
        async with existing.lock:
            seats = [existing.seat_of(person.id) for person in people]
            if existing.status == "playing" and not options.new and None not in seats:
                for seat in seats:  # they are back (as /start in the private chat says): the AI stops for them
                    assert seat is not None
                    await tables.come_back(existing, seat)
                tables.resume(existing)
                return existing
            await tables.stop(existing)
    db = tables.db
    for person in people:
        await storage.upsert_user(db, person.id, person.first_name, language=options.lang)
        await storage.set_user_reachability(db, person.id, can_message_privately=True, blocked=False)
    tr = translator(options.lang)
    title = tr("On this computer")
    await storage.upsert_chat(db, LOCAL_CHAT, title)
    await storage.update_chat(db, LOCAL_CHAT, language=options.lang)
    table = await tables.new_table(LOCAL_CHAT, title, people[0].id, options.lang, options.preset)
    async with table.lock:
        for person in people:
            await tables.sit(table, person.id, person.first_name, options.lang, None)
        await tables.change_setting(table, "strength", options.ai)
        while not table.full:
            await tables.add_ai(table)
        await tables.start(table)
        tables.after_change(table)
    log.info("local table %s opened: %d people, %s", table.id, len(people), options.preset)
    return table


async def serve(options: PlayOptions, *, open_browser: bool) -> None:
    """``chaodipi play``: run until Ctrl-C or SIGTERM, telling each person where to play."""
    logs.setup_logging("WARNING")
    tr = translator(options.lang)
    async with playing(options) as session:
        print(tr("Play at this address (keep it to yourself; Ctrl-C stops, the match goes on next time):"))
        for person, address in zip(session.people, session.addresses, strict=True):
            print(f"  {person.first_name}: {address}" if len(session.addresses) > 1 else f"  {address}")
        if open_browser:  # in a thread: a browser that runs in the terminal must not hold up the service
            await asyncio.to_thread(webbrowser.open, session.addresses[0])
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
    print(tr("Stopped; the table is kept in {path}.", path=str(options.db_path)))
