"""Private messages that stop being true go (issue 55): a "your turn" nudge once the turn is over, and the
notice with 「我回来了」 once its person is back.  At the daily pace a chat's last message must not say
"Your turn" when it is not, nor offer a way back to someone already back."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.i18n import translator
from bot.tables.turns import set_timer

from .botkit import bot_running, hand_message, settled, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Person
from .scenario import (
    choose_setting,
    fill_with_ai,
    play_until,
    press_back,
    sit_from_group,
    start_match,
    wait_seated,
)

EN = translator("en")


def nudges(person: Person) -> list[str]:
    """The "your turn" messages the person can see now."""
    return [m.text or "" for m in person.bot_private_messages() if (m.text or "").startswith("Your turn · ")]


def back_offers(person: Person) -> int:
    """Visible private messages that offer 「我回来了」."""
    return sum(any((b.callback_data or "").endswith(":return") for b in m.all_buttons())
               for m in person.bot_private_messages())


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_nudge_goes_when_its_turn_is_over_and_the_way_back_when_used(fake_telegram: FakeTelegram,
                                                                             tmp_path: Path) -> None:
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    bo = server.person("Bo", None, language_code="en", started=True)
    group = server.group("Daily", [ann, bo])
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await sit_from_group(server, bo, group, 2)
        await wait_seated(server, app, group, bo)
        await fill_with_ai(server, ann, group, 2)
        await choose_setting(server, ann, group, "pace", "daily")
        table = await start_match(server, app, ann, group, seed_index=3)
        people = {0: ann, 2: bo}
        # Ann's turn comes after the others': she is nudged.
        await play_until(server, table, people, lambda h: h.phase == "playing" and h.turn == 0 and len(h.tricks) >= 1
                         and bool(h.current))
        await server.wait_for(lambda: len(nudges(ann)) == 1, what="Ann's nudge")
        # She plays; the table waits for Bo now: her nudge is gone, Bo's is there.
        await play_until(server, table, {0: ann}, lambda h: h.turn == 2)
        await server.wait_for(lambda: not nudges(ann), what="Ann's nudge gone once she played")
        await server.wait_for(lambda: len(nudges(bo)) == 1, what="Bo's nudge")
        # Bo runs out of time: the notice with 「我回来了」 takes his nudge's place; pressed, it goes.
        service = tables(app)
        async with table.lock:
            table.deadline = time.time() - 1
            set_timer(service, table)
        await server.wait_for(lambda: table.seats[2] is not None and table.seats[2].timed_out,  # type: ignore[union-attr]
                              what="the AI playing for Bo")
        await server.wait_for(lambda: back_offers(bo) == 1, what="the notice with I'm back")
        await server.wait_for(lambda: not nudges(bo), what="his nudge replaced by the notice")
        answer = await press_back(server, bo)
        assert not answer.show_alert, answer.text
        await server.wait_for(lambda: back_offers(bo) == 0, what="the way back gone once used")
        await settled(server, app)
        assert len(nudges(ann)) + len(nudges(bo)) <= 1  # only whoever the table waits for now is nudged


def backdate(server: FakeTelegram, person: Person, message_id: int) -> None:
    """The message was sent two days ago: Telegram no longer lets the bot delete it."""
    server.state.messages[person.id][message_id].date -= 49 * 3600


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_private_messages_too_old_to_delete_lose_their_buttons(fake_telegram: FakeTelegram,
                                                                      tmp_path: Path) -> None:
    """A daily table: Ann's hand message and the notice with 「我回来了」 are days old when they should go (a
    bot may delete its message for 48 hours only).  Her /hand leaves one keyboard, not a second, dead one;
    once she is back, no way back is offered any more."""
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    group = server.group("Daily", [ann])
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        await fill_with_ai(server, ann, group, 3)
        await choose_setting(server, ann, group, "pace", "daily")
        table = await start_match(server, app, ann, group, seed_index=3)
        first = await server.wait_for(lambda: hand_message(ann), what="Ann's hand message")
        await server.wait_for(lambda: table.seats[0] is not None and table.seats[0].hand_message_id == first.message_id,
                              what="its id stored")
        backdate(server, ann, first.message_id)
        await ann.command(None, "hand")
        await server.wait_for(lambda: (m := hand_message(ann)) is not None and m.message_id != first.message_id,
                              what="the hand message sent anew")
        await settled(server, app)
        keyboards = [m for m in ann.bot_private_messages() if m.all_buttons()]
        assert len(keyboards) == 1, [(m.message_id, m.text) for m in keyboards]
        # Ann runs out of time: the notice with 「我回来了」; days later she is back, and it offers nothing.
        await play_until(server, table, {0: ann}, lambda h: h.turn == 0 and h.phase in ("playing", "bidding"))
        service = tables(app)
        async with table.lock:
            table.deadline = time.time() - 1
            set_timer(service, table)
        await server.wait_for(lambda: back_offers(ann) == 1, what="the notice with I'm back")
        notice = await server.wait_for(lambda: table.seats[0].nudge_message_id,  # type: ignore[union-attr]
                                       what="the notice's id stored")
        backdate(server, ann, notice)
        answer = await press_back(server, ann)
        assert not answer.show_alert, answer.text
        await server.wait_for(lambda: back_offers(ann) == 0, what="the way back gone once used")
