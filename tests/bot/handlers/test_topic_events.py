"""A forum topic closed or reopened (``forum_topic_closed``, ``forum_topic_reopened``): its table pauses unless the
bot may still write there, and goes on when it reopens."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from telegram import ChatMemberAdministrator, ChatMemberMember, ChatMemberOwner, Update, User
from telegram.error import NetworkError

from bot.handlers import topic_events
from bot.tasks import Supervisor
from bot.topics import Topics

GROUP = -1001234
TOPIC = 5
BOT = User(1, "Bot", True)


class _Bot:
    """Telegram, as far as the handler asks it: the bot's own membership."""

    def __init__(self, member: Any) -> None:
        self.id = BOT.id
        self.member = member
        self.asked = 0

    async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
        self.asked += 1
        if isinstance(self.member, Exception):
            raise self.member
        return self.member


def _admin(*, topics: bool) -> ChatMemberAdministrator:
    return ChatMemberAdministrator(BOT, False, False, True, True, True, True, True, True, True, True, True, True,
                                   can_manage_topics=topics)


def _update(kind: str, thread: int | None = TOPIC) -> Update:
    message: dict[str, Any] = {"message_id": 9, "date": 0, "chat": {"id": GROUP, "type": "supergroup", "title": "F",
                                                                    "is_forum": True},
                               "from": {"id": 7, "is_bot": False, "first_name": "Boss"}, kind: {}}
    if thread is not None:
        message.update(message_thread_id=thread, is_topic_message=True)
    update = Update.de_json({"update_id": 1, "message": message}, None)
    assert update is not None
    return update


def _context(member: Any, *, table: bool = True) -> Any:
    service = SimpleNamespace(topics=Topics(Supervisor()),
                              in_chat=lambda chat_id, thread_id: object() if table else None)
    return SimpleNamespace(bot_data={"tables": service}, bot=_Bot(member))


@pytest.mark.parametrize(("member", "paused"), [
    (ChatMemberMember(BOT), True),
    (_admin(topics=False), True),
    (NetworkError("down"), True),  # its rights unknown: paused all the same (a message that goes through unpauses)
    (_admin(topics=True), False),  # it may still write in a closed topic: the table plays on
    (ChatMemberOwner(BOT, False), False),
])
async def test_a_topic_closed_pauses_its_table_unless_the_bot_may_still_write_there(member: Any,
                                                                                   paused: bool) -> None:
    context = _context(member)
    await topic_events.on_topic_closed(_update("forum_topic_closed"), context)
    topics: Topics = context.bot_data["tables"].topics
    assert topics.closed == ({(GROUP, TOPIC)} if paused else set())
    await topic_events.on_topic_reopened(_update("forum_topic_reopened"), context)
    assert topics.closed == set()


async def test_a_topic_without_a_table_costs_no_call_and_the_general_topic_is_its_own() -> None:
    context = _context(ChatMemberMember(BOT), table=False)
    await topic_events.on_topic_closed(_update("forum_topic_closed"), context)
    assert context.bot.asked == 0 and context.bot_data["tables"].topics.closed == set()
    context = _context(ChatMemberMember(BOT))
    await topic_events.on_topic_closed(_update("forum_topic_closed", thread=None), context)
    assert context.bot_data["tables"].topics.closed == {(GROUP, None)}
