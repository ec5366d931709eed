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
