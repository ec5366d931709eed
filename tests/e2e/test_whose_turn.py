"""Whose turn, at the relaxed pace (issue 55): at every moment of a scripted hand (its bidding, burying,
steal rounds and first five tricks), the group's table message and every waiting player's hand message
name the person to move.

Moves at the relaxed pace are minutes apart, so each change shows at once (the group's limit does not
bind); the check is made once the bot has settled (every edit made), never after a quiet window.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.model import Table

from .botkit import bot_running, table_message
from .fake_telegram import FakeTelegram
from .plans import find_plan
from .scenario import play_hand, press_lobby, sit_from_group, start_match, wait_seated
from .test_budget import four_people, settled


def mover_line(table: Table) -> tuple[int, str] | None:
    """The seat to move and how a line naming them begins (None in the bidding, where everyone may bid)."""
    assert table.match is not None
    hand = table.match.hand
    waiting = hand.awaiting()
    if hand.over or hand.phase == "bidding" or len(waiting) != 1:
        return None
    seat = waiting[0]
    info = table.seats[seat]
    assert info is not None
    begins = {"burying": f"{info.name} is burying the kitty.",
              "stealing": f"Kitty buried. {info.name} may steal it or pass.",
              "playing": f"{info.name} to play"}[hand.phase]
    return seat, begins


@pytest.mark.long
async def test_at_the_relaxed_pace_everyone_sees_whose_turn_it_is_at_every_moment(fake_telegram: FakeTelegram,
                                                                                   tmp_path: Path) -> None:
    server = fake_telegram
    people, group = four_people(server, "Relaxed")
    plan = find_plan("yancheng", bidders=2)  # a steal round with a steal, and a second round after it
    seen: dict[str, int] = {}
    async with bot_running(server, tmp_path / "t.db", group_interval=0.5) as app:
        await people[0].command(group, "newgame", "yancheng")
        assert await wait_seated(server, app, group, people[0]) == 0
        for op, arg in (("set", ""), ("pace", "relaxed"), ("back", "")):
            await press_lobby(server, people[0], group, op, arg)
        for seat in (1, 2, 3):
            await sit_from_group(server, people[seat], group, seat)
            assert await wait_seated(server, app, group, people[seat]) == seat
        table = await start_match(server, app, people[0], group, plan.seed_index)
        assert table.settings.pace == "relaxed" and table.match is not None

        async def check() -> None:
            await settled(server, app)
            found = mover_line(table)
            if found is None:
                return
            mover, begins = found
            assert any(line.startswith(begins) for line in (table_message(group).text or "").split("\n")), \
                (begins, table_message(group).text)
            for seat, person in people.items():
                if seat == mover:
                    continue
                # The hand message (with no button left once its cards are played): the newest one that
                # names the table, not a "your turn" message.
                message = next((m for m in reversed(person.bot_private_messages())
                                if (m.text or "").startswith("Chao Di Pi · Relaxed")), None)
                assert message is not None, person.name
                assert any(line.startswith(begins) for line in (message.text or "").split("\n")), \
                    (person.name, begins, message.text)
            assert table.match is not None
            seen[table.match.hand.phase] = seen.get(table.match.hand.phase, 0) + 1

        # The bidding, the burying, both steal rounds and the first five tricks: every turn of each.
        await play_hand(server, table, people, plan, settle=check, one_tap=True, until=lambda h: len(h.tricks) >= 5)
    assert seen.get("stealing", 0) >= 2 and seen.get("playing", 0) >= 20 and seen.get("burying", 0) >= 1, seen
