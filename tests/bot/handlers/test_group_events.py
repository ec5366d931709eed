"""The bot's own membership in a group (``my_chat_member``): removed, muted, or let write again."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from telegram import Update

from bot.handlers import group_events

GROUP = -1001234
BOT = {"id": 1, "is_bot": True, "first_name": "Bot"}
RIGHTS = ("send_messages", "send_audios", "send_documents", "send_photos", "send_videos", "send_video_notes",
          "send_voice_notes", "send_polls", "send_other_messages", "add_web_page_previews", "react_to_messages",
          "change_info", "invite_users", "pin_messages", "manage_topics", "edit_tag")


class _Service:
    """What the handler asks of the tables: it records what it was told."""

    def __init__(self) -> None:
        self.told: list[tuple[str, int]] = []
        self.muting = SimpleNamespace(mute=lambda chat_id, why: self.told.append(("mute", chat_id)),
                                      unmute=lambda chat_id, why: self.told.append(("unmute", chat_id)))

    async def group_lost(self, chat_id: int) -> None:
        self.told.append(("lost", chat_id))

    def group_back(self, chat_id: int) -> None:
        self.told.append(("back", chat_id))


def _update(new: dict[str, Any]) -> Update:
    update = Update.de_json({"update_id": 1, "my_chat_member": {
        "chat": {"id": GROUP, "type": "supergroup", "title": "G"},
        "from": {"id": 7, "is_bot": False, "first_name": "Boss"}, "date": 0,
        "old_chat_member": {"status": "member", "user": BOT}, "new_chat_member": new}}, None)
    assert update is not None
    return update


def _restricted(*, member: bool, send: bool) -> dict[str, Any]:
    return {"status": "restricted", "user": BOT, "is_member": member, "until_date": 0,
            **{f"can_{right}": send if right == "send_messages" else False for right in RIGHTS}}


@pytest.mark.parametrize(("new", "told"), [
    # Restricted and no longer a member: the bot is out of the group, as when removed (its table closes).
    (_restricted(member=False, send=True), [("lost", GROUP)]),
    (_restricted(member=True, send=False), [("mute", GROUP)]),
    (_restricted(member=True, send=True), [("unmute", GROUP)]),
    ({"status": "kicked", "user": BOT, "until_date": 0}, [("lost", GROUP)]),
])
async def test_the_bots_membership_tells_the_tables(new: dict[str, Any], told: list[tuple[str, int]],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    async def no_hello(update: Update, context: Any) -> None:
        return None

    monkeypatch.setattr(group_events, "on_bot_added", no_hello)
    service = _Service()
    await group_events.on_bot_status(_update(new), SimpleNamespace(bot_data={"tables": service}))
    assert service.told == told
