"""Which edit the publisher asks the rate limiter to serve first: the presser's, then the next mover's."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.publisher import Publisher
from bot.ratelimit import MOVER, PRESSER, PRIORITY


class Bot:
    """Records the priority each edit was made under (what the rate limiter reads)."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int | None]] = []

    async def edit_message_text(self, text: str, chat_id: int, message_id: int, **_: Any) -> None:
        self.seen.append((chat_id, PRIORITY.get()))


async def _blocked(chat_id: int) -> None:
    return None


async def test_a_press_is_served_before_a_move_and_a_move_before_the_rest() -> None:
    bot = Bot()
    publisher = Publisher(bot, _blocked)  # type: ignore[arg-type]
    slots = {chat: publisher.slot((1, str(chat)), chat, 60.0, message_id=7) for chat in (1, 2, 3)}
    publisher.schedule(slots[1], lambda: ("pressed", None), now=True, pressed=True)
    publisher.schedule(slots[2], lambda: ("your move", None), now=True)
    publisher.schedule(slots[3], lambda: ("news", None))
    publisher.schedule(slots[1], lambda: ("pressed, then moved", None), now=True)  # stays the presser's
    await asyncio.wait_for(asyncio.gather(*(s.task for s in slots.values() if s.task is not None)), 10)
    assert sorted(bot.seen) == [(1, PRESSER), (2, MOVER), (3, None)]
    assert all(slot.priority is None for slot in slots.values())  # spent with the edit


class SlowBot(Bot):
    """Its first edit waits (behind other messages under the overall limit) until released or cancelled."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.texts: list[str] = []
        self.cancelled = 0
        self.calls = 0

    async def edit_message_text(self, text: str, chat_id: int, message_id: int, **_: Any) -> None:
        self.calls += 1
        if self.calls == 1 and not self.release.is_set():
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
        self.texts.append(text)
        await super().edit_message_text(text, chat_id, message_id)


async def test_a_press_does_not_wait_behind_its_own_messages_older_less_urgent_edit() -> None:
    bot = SlowBot()
    publisher = Publisher(bot, _blocked)  # type: ignore[arg-type]
    slot = publisher.slot((1, "1"), 1, 60.0, message_id=7)
    publisher.schedule(slot, lambda: ("your move", None), now=True)  # waits, as the next mover's
    for _ in range(20):
        await asyncio.sleep(0)
    assert slot.busy and not bot.texts
    publisher.schedule(slot, lambda: ("your move, a card selected", None), now=True, pressed=True)
    assert slot.task is not None
    await asyncio.wait_for(slot.task, 10)
    assert bot.cancelled == 1  # the waiting edit gave way
    assert bot.texts == ["your move, a card selected"] and bot.seen == [(1, PRESSER)]


async def test_an_edit_already_as_urgent_is_let_finish() -> None:
    bot = SlowBot()
    publisher = Publisher(bot, _blocked)  # type: ignore[arg-type]
    slot = publisher.slot((1, "1"), 1, 60.0, message_id=7)
    publisher.schedule(slot, lambda: ("one card selected", None), now=True, pressed=True)
    for _ in range(20):
        await asyncio.sleep(0)
    publisher.schedule(slot, lambda: ("two cards selected", None), now=True, pressed=True)
    bot.release.set()
    for _ in range(100):
        if len(bot.texts) == 2:
            break
        await asyncio.sleep(0.01)
    assert bot.cancelled == 0 and bot.texts == ["one card selected", "two cards selected"]


async def test_whoever_ended_the_hand_hears_the_result_first_as_their_press_s_own_update() -> None:
    """Their hand message is not edited again (the next hand is a new message after a pause): the result
    line is what shows their last card was taken, so it goes first, before other messages."""
    from bot.config import Settings
    from bot.model import Seat
    from bot.tables import Tables
    from bot.tables.play import tell_players
    from tests.bot import builders as T

    class Sender:
        def __init__(self) -> None:
            self.sent: list[tuple[int, int | None]] = []

        async def send(self, chat_id: int, text: str, *args: object, **kwargs: object) -> None:
            self.sent.append((chat_id, PRIORITY.get()))

    table, record = T.finished()
    table.seats[1] = Seat(101, "Bob", lang="zh")
    tables = Tables(db=None, config=Settings(token="x"))  # type: ignore[arg-type]
    sender = Sender()
    tables.publisher = sender  # type: ignore[assignment]
    await tell_players(tables, table, record, tuple(table.seats), 2)
    assert sender.sent == [(102, PRESSER), (100, None), (101, None), (103, None)]
    assert PRIORITY.get() is None  # the caller's context is left as it was


async def test_settled_waits_for_the_last_edit_of_a_retired_message() -> None:
    """A closed table's message is retired with its last content still to show (the group's budget may hold
    it for a minute): the publisher is not settled until that edit is made."""
    bot = SlowBot()
    publisher = Publisher(bot, _blocked)  # type: ignore[arg-type]
    slot = publisher.slot((1, "group"), -5, 0.05, message_id=7)
    assert publisher.settled
    publisher.schedule(slot, lambda: ("trick 6", None), now=True)
    await asyncio.sleep(0)
    assert not publisher.settled  # the edit waits
    publisher.retire(slot, (1, "group"), lambda: ("the match is over", None))
    assert not publisher.settled  # gone from the live slots, its last edit still to come
    bot.release.set()
    for _ in range(100):
        if publisher.settled:
            break
        await asyncio.sleep(0.01)
    assert publisher.settled
    assert bot.texts[-1] == "the match is over"


async def test_the_shut_down_does_not_lose_an_edit_waiting_under_the_limits() -> None:
    """Ctrl-C while the group's edit waits its turn under the flood limits (a busy machine): the drain lets
    it go out rather than dropping it; the group would otherwise be left showing an older table."""
    bot = SlowBot()
    publisher = Publisher(bot, _blocked)  # type: ignore[arg-type]
    slot = publisher.slot((1, "group"), -5, 3.5, message_id=7)
    publisher.schedule(slot, lambda: ("trick 3 won by Bob", None), now=True)
    for _ in range(20):
        await asyncio.sleep(0)
    assert slot.busy and not slot.dirty and not bot.texts  # in flight, nothing newer to show
    draining = asyncio.create_task(publisher.drain())
    for _ in range(20):
        await asyncio.sleep(0)
    bot.release.set()  # its turn comes
    await asyncio.wait_for(draining, 10)
    assert bot.texts == ["trick 3 won by Bob"]
    assert publisher.settled
