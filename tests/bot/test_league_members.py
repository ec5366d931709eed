"""bot/league/members.py: Telegram's word on membership, kept a while; a fault keeps the last answer."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from telegram.error import BadRequest, Forbidden, NetworkError

import storage
from bot.league.members import REMEMBER_IN, REMEMBER_OUT, Members


class Bot:
    """Answers getChatMember from a script: a status, or an error to raise."""

    def __init__(self) -> None:
        self.answer: Any = "member"
        self.calls = 0

    async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
        self.calls += 1
        if isinstance(self.answer, Exception):
            raise self.answer
        return SimpleNamespace(status=self.answer, is_member=self.answer == "restricted")



async def test_answers_are_kept_for_a_while_and_a_fault_keeps_the_last_one(db: storage.Database) -> None:
    bot, now = Bot(), [0.0]
    members = Members(bot, db, clock=lambda: now[0])  # type: ignore[arg-type]
    assert await members.in_group(-1, 7) and await members.in_group(-1, 7) and bot.calls == 1
    now[0] += REMEMBER_IN + 1
    bot.answer = NetworkError("down")
    assert await members.in_group(-1, 7) and bot.calls == 2  # the last answer stands while Telegram is away
    bot.answer = "left"
    assert not await members.in_group(-1, 7) and bot.calls == 3
    now[0] += REMEMBER_OUT + 1
    bot.answer = "restricted"
    assert await members.in_group(-1, 7)  # restricted, but a member
    for refusal in (BadRequest("Chat not found"), Forbidden("bot was kicked from the group chat")):
        now[0] += REMEMBER_IN + 1
        bot.answer = refusal
        assert not await members.in_group(-1, 7)
    bot.answer = NetworkError("down")
    assert not await members.in_group(-2, 8)  # nothing known: no


async def test_only_people_who_played_and_are_in_the_group_may_see(db: storage.Database) -> None:
    from tests.storage.league_kit import at, hands_at

    hands = await hands_at(db, -1001, (1, 2, 3, 4))
    await hands.play(at(2026, 11, 3, 20), (1, 2, 3, 4))
    bot = Bot()
    members = Members(bot, db)  # type: ignore[arg-type]
    assert await members.may_see(-1001, 1) and not await members.may_see(-1001, 9)
    assert [chat for chat, _ in await members.groups(1)] == [-1001]
    bot.answer = "kicked"
    members = Members(bot, db)  # type: ignore[arg-type]
    assert not await members.may_see(-1001, 1) and await members.groups(1) == []
