"""After a long Telegram outage the bot polls again at once, not up to 30 s later; an update the library
cannot read does not stop it.

python-telegram-bot's polling loop waits longer after each failed
``getUpdates`` (1, 1.5, 2.25 … up to 30 s) unless the failure is a timeout.
After an outage of a minute or more the bot would then sit out most of 30 s
while Telegram is back, every press of every table unanswered meanwhile
(``bench/bench_faults.py`` measured 25 s after 120 and 300 s outages).  The
bot's polling request turns an unreachable Telegram into a pause of a second
and a timeout, which the loop retries at once.

The test proves it by what the loop decided, not by a stopwatch: every pause
python-telegram-bot's retry loop asks for is recorded, and through failed
polls enough for its back-off to have grown to seconds it asked for none.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from telegram.ext._utils import networkloop

from .botkit import bot_running, settled, tables
from .fake_telegram import FakeTelegram, FloodLimits

RESTRICTED_WITHOUT_NEW_FIELDS: dict[str, Any] = {
    "chat": {"id": -4000000099, "type": "supergroup", "title": "Old API"},
    "from": {"id": 77, "is_bot": False, "first_name": "Boss"},
    "date": 0,
    "old_chat_member": {"status": "member", "user": {"id": 1, "is_bot": True, "first_name": "Bot"}},
    # A restricted member as an older Bot API describes it: python-telegram-bot 22.8 requires
    # can_react_to_messages and can_edit_tag, and cannot read the update.
    "new_chat_member": {"status": "restricted", "user": {"id": 1, "is_bot": True, "first_name": "Bot"},
                        "is_member": True, "until_date": 0, "can_send_messages": False,
                        **{f"can_{right}": False for right in (
                            "send_audios", "send_documents", "send_photos", "send_videos", "send_video_notes",
                            "send_voice_notes", "send_polls", "send_other_messages", "add_web_page_previews",
                            "change_info", "invite_users", "pin_messages", "manage_topics")}},
}
"""A ``my_chat_member`` update the library cannot read."""


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_an_update_the_library_cannot_read_is_skipped_not_fetched_for_ever(
        fake_telegram: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The library's polling confirms a batch only once it has read it: one update it cannot read was fetched
    again and again (a critical log line each time) and no update after it reached the bot.  It is skipped,
    said once as an error, and the next update is answered."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    async with bot_running(server, tmp_path / "t.db") as app:
        server.state.updates.push("my_chat_member", dict(RESTRICTED_WITHOUT_NEW_FIELDS))
        await alice.command(None, "help")
        await server.wait_for(lambda: alice.bot_private_messages(), timeout=30, what="the answer to /help")
        await settled(server, app)
        assert not server.state.updates.pending, "every update confirmed"
    skipped = [r for r in caplog.records if "cannot be read and is skipped" in r.getMessage()]
    assert len(skipped) == 1 and skipped[0].levelname == "ERROR", [r.getMessage() for r in skipped]
    assert "my_chat_member" in skipped[0].getMessage()

FAILED_POLLS = 6
"""Failed polls in the outage: after as many the library's back-off would wait 1 + 1.5 + … ≈ 12 s in all, and
7.6 s after the next."""


class _RecordingAsyncio:
    """The ``asyncio`` the retry loop sees: itself, but every ``sleep`` it asks for is written down."""

    def __init__(self) -> None:
        self.pauses: list[float] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, delay: float, result: Any = None) -> Any:
        self.pauses.append(delay)
        return await asyncio.sleep(delay, result)


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_bot_polls_again_at_once_after_a_long_outage(fake_telegram: FakeTelegram, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    server = fake_telegram
    loop_asyncio = _RecordingAsyncio()
    monkeypatch.setattr(networkloop, "asyncio", loop_asyncio)
    async with bot_running(server, tmp_path / "t.db") as app:
        await server.set_outage("502")
        await server.wait_for(lambda: "telegram" in tables(app).faults.open, timeout=10, what="the outage noticed")
        fault = tables(app).faults.open["telegram"]
        await server.wait_for(lambda: fault.failures >= FAILED_POLLS, timeout=60, what="polls failing")
        # Telegram comes back just after a poll failed: the worst moment for a growing back-off.
        failures = fault.failures
        await server.wait_for(lambda: fault.failures > failures, timeout=30, what="the next failed poll")
        mark = server.calls.mark()
        await server.set_outage(None)
        poll = await server.wait_for_call("getUpdates", after=mark, timeout=40)
        assert poll.ok
        # The library's loop never backed off: each failure reached it as a timeout, retried at once.
        assert not [pause for pause in loop_asyncio.pauses if pause > 0], loop_asyncio.pauses
        # And the bot is back: a command sent now is answered.
        ann = server.person("Ann", None, language_code="en", started=True)
        group = server.group("Back", [ann])
        await ann.command(group, "help")
        await server.wait_for(lambda: group.bot_messages(), timeout=30, what="the answer after the outage")
        await settled(server, app)
