"""Running the real chaodipi bot against the fake Telegram, and playing as a person would."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

from telegram.ext import Application

from bot.app import build_application
from bot.budget import CommandBudget
from bot.config import Settings
from bot.handlers.throttle import Later
from bot.model import Table
from bot.ratelimit import ChatRateLimiter
from bot.tables import Tables
from bot.tasks import Supervisor
from bot.updates import UPDATE_KINDS

from .fake_telegram import FakeClock, FakeTelegram
from .fake_telegram.harness import unhandled
from .fake_telegram.people import Group, MessageView, Person

HAND_ACTIONS = ("Hint", "提示", "Pass", "不亮", "Don't steal", "不抄")


def settings_for(server: FakeTelegram, db_path: Path, **changes: object) -> Settings:
    """Bot settings pointing at the fake server, with no AI delay, a short group interval, no pause
    between hands at the real-time pace and no wait between a hand message's edits (a test taps at
    once; the budget tests keep the real gap); the bot paces its calls when the server has flood limits."""
    values: dict[str, object] = dict(token=server.token, base_url=server.base_url, db_path=db_path,
                                     ai_delay=0.0, group_interval=0.3, hand_pause=0.0, tap_gap=0.0,
                                     flood_pacing=server.flood.limits.enabled)
    values.update(changes)
    return Settings(**values)  # type: ignore[arg-type]


@asynccontextmanager
async def bot_running(server: FakeTelegram, db_path: Path, **changes: object) -> AsyncIterator[Application]:  # type: ignore[type-arg]
    """The real bot application, polling the fake server, for the duration of the block."""
    app = build_application(settings_for(server, db_path, **changes))
    async with app:
        # What run_polling does around the loop: post_init, polling, post_stop, (shutdown), post_shutdown.
        assert app.post_init is not None and app.post_shutdown is not None and app.updater is not None
        await app.post_init(app)
        await app.start()

        def polling_failed(exc: Exception) -> None:  # as run_polling passes it: to the bot's error handler
            app.create_task(app.process_error(error=exc, update=None))
        # The update kinds the bot asks for, as run_polling and the webhook ask for them.
        await app.updater.start_polling(timeout=1, error_callback=polling_failed, allowed_updates=list(UPDATE_KINDS))
        try:
            yield app
        finally:
            await app.updater.stop()
            await app.stop()
            if app.post_stop is not None:
                await app.post_stop(app)
            await app.post_shutdown(app)


def tables(app: Application) -> Tables:  # type: ignore[type-arg]
    """The bot's table service (for the test to know when a hand is over)."""
    return app.bot_data["tables"]  # type: ignore[no-any-return]


WAITING_KINDS: Final = frozenset({"timer", "heartbeat", "next-hand", "seasons", "admission"})
"""Supervised tasks that only wait for a clock (a turn's deadline, the heartbeat, the pause between hands, a
season's end) or for a table to wait its turn to start (``admission``, counted apart below): while they wait
the bot does nothing; every other running task is work under way."""


def busy(server: FakeTelegram, app: Application, *, commands_held: bool = False,  # type: ignore[type-arg]
         polling: bool = True) -> list[str]:
    """What the bot is still doing, from its own signals; empty when it will do nothing more until a clock
    (a deadline, the pause between hands) or a person acts.

    * every update the fake queued was fetched (the bot confirmed it by asking for the next ones) and PTB
      finished handling it (``update_queue`` counts each update until its handling ended: what
      ``Queue.join`` waits for);
    * the publisher settled (no edit waits, every message shows its latest content), no notice or
      announcement is on its way (every supervised task other than :data:`WAITING_KINDS` ended: edits,
      notices, outbox senders, AI loops, nudges, stored writes, the overall limit's server);
    * the rate limiter has no request in flight or waiting;
    * the command throttle holds no command back to answer later, unless ``commands_held``: the test made
      the budget's clock stand still, so what it holds stays held (the held commands are
      ``bot_data["commands_later"].waiting``).

    ``polling=False``: the bot takes its updates by webhook, from whoever posts them, so what the fake
    queued says nothing; only ``update_queue`` counts.
    """
    found: list[str] = []
    if updates := unhandled(server, app) if polling else getattr(app.update_queue, "_unfinished_tasks"):  # noqa: B009
        found.append(f"{updates} updates not handled yet")
    service = tables(app) if "tables" in app.bot_data else None
    if service is not None and service.publisher is not None and not service.publisher.settled:
        found.append("the publisher has edits to make")
    if service is not None and service.waiting_starts:
        found.append(f"{len(service.waiting_starts)} tables waiting to start")
    tasks: Supervisor = app.bot_data["tasks"]
    running = {kind: n for kind, n in tasks.summary()["running"].items()
               if kind not in WAITING_KINDS and not (commands_held and kind == "commands")}
    if running:
        found.append(f"tasks running: {running}")
    limiter = app.bot.rate_limiter
    if isinstance(limiter, ChatRateLimiter) and (limiter.in_flight or limiter.backlog):
        found.append(f"{limiter.in_flight} requests in the rate limiter")
    later: Later | None = app.bot_data.get("commands_later")
    if later is not None and later.waiting and not commands_held:
        found.append(f"{len(later.waiting)} commands held back")
    return found


async def settled(server: FakeTelegram, app: Application, *, timeout: float = 30.0,  # type: ignore[type-arg]
                  commands_held: bool = False, polling: bool = True) -> None:
    """Wait until the bot will do nothing more by itself (:func:`busy` is empty): the proof that something
    did *not* happen, where a quiet moment proves nothing on a slow machine.

    Checked after every call the fake sees, and once more after yielding to the event loop, so work a
    finished task hands on (a task it starts as it ends) is seen."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            await server.wait_for(lambda: not busy(server, app, commands_held=commands_held, polling=polling),
                                  timeout=max(0.0, deadline - loop.time()), what="the bot to settle")
        except TimeoutError as exc:
            raise TimeoutError(f"{exc}\nstill busy: {busy(server, app, commands_held=commands_held, polling=polling)}") from None
        for _ in range(3):
            await asyncio.sleep(0)
        if not busy(server, app, commands_held=commands_held, polling=polling):
            return


def command_budget_on(app: Application, clock: FakeClock) -> CommandBudget:  # type: ignore[type-arg]
    """Give the bot a command budget that reads ``clock`` (before the first command): time passes for the
    budget only when the test advances it, so what the throttle answers, notices and holds back depends on
    the order of the commands alone, never on how long a loaded machine took to send them; held commands
    stay held (``settled(..., commands_held=True)``)."""
    budget = CommandBudget(clock=clock)
    assert "command_budget" not in app.bot_data, "a command was budgeted already"
    app.bot_data["command_budget"] = budget
    return budget


def table_message(group: Group) -> MessageView:
    """The bot's first message in the group: the table message, as it looks now."""
    return group.bot_messages()[0]


def hand_message(person: Person, table: int | None = None) -> MessageView | None:
    """The person's current hand message (the newest private message with card buttons; of table ``table`` if
    given, for someone seated at two tables)."""
    prefix = "H:" if table is None else f"H:{table}:"
    for message in reversed(person.bot_private_messages()):
        if message.buttons and any(b.callback_data and b.callback_data.startswith(prefix) for b in message.all_buttons()):
            return message
    return None


def current_hand_message(person: Person, table: Table, seat: int) -> MessageView | None:
    """The hand message once its buttons carry the seat's current version (the bot has caught up)."""
    message = hand_message(person, table.id)
    if message is None:
        return None
    # Card buttons carry the hand's version, the others the question's.
    data = [b.callback_data for b in message.all_buttons() if b.callback_data]
    actions = [d for d in data if ":sel:" not in d]
    version = f":{table.version(seat)}:" if actions else f":{table.hand_version(seat)}:"
    if not any(version in d for d in (actions or data)):
        return None
    return message


async def play_my_turn(server: FakeTelegram, person: Person, table: Table) -> bool:
    """If it is this person's move, make one sensible move through the buttons; True if they moved."""
    assert table.match is not None
    seat = table.seat_of(person.id)
    hand = table.match.hand
    if seat is None or hand.over:
        return False
    if hand.phase == "bidding":
        if seat in hand.passed:
            return False
    elif hand.turn != seat:
        return False
    message = await server.wait_for(lambda: current_hand_message(person, table, seat), what="an up-to-date hand message")
    labels = [b.text for b in message.all_buttons()]
    # Decide from what the person sees (the snapshot), not from the live engine, which may have moved on.
    skip = next((t for t in labels if t in ("Pass", "不亮", "Don't steal", "不抄")), None)
    if skip is not None:
        await (await person.press(message, skip)).answer()
        return True
    hint = next((t for t in labels if t in ("Hint", "提示")), None)
    if hint is None:
        # The keyboard offers no move: the edit saying it is their turn is on its way,
        # or the hand moved on meanwhile.  Wait for either rather than spin.
        edits = len(server.state.messages[person.id][message.message_id].history)
        events = len(hand.events)
        def changed() -> bool:
            edited = len(server.state.messages[person.id][message.message_id].history) > edits
            return edited or len(hand.events) != events or table.match is None or table.match.hand is not hand
        await server.wait_for(changed, timeout=10, what=f"{person.name}'s keyboard to offer a move")
        return False
    burying = any(t.startswith(("Bury", "扣底")) for t in labels)
    events = len(hand.events)
    answer = await (await person.press(message, hint)).answer()
    assert not answer.show_alert, answer.text
    verb = ("Bury", "扣底") if burying else ("Play", "出牌")

    def action_button() -> MessageView | None:
        current = hand_message(person, table.id)
        if current is None:
            return None
        ready = [b for b in current.all_buttons() if b.text.startswith(verb) and "(select" not in b.text
                 and "(0/8)" not in b.text]
        return current if ready else None

    current = await server.wait_for(action_button, what="the action button after a hint")
    button = next(b.text for b in current.all_buttons() if b.text.startswith(verb))
    answer = await (await person.press(current, button)).answer()
    assert not answer.show_alert, answer.text
    await server.wait_for(lambda: len(hand.events) > events or table.match.hand is not hand, what="the move to land")
    return True
