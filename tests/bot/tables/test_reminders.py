"""The reminder before a deadline: one group message, naming only the people the table still waits for,
with the time left as it is (seconds at the real-time pace, never 「还剩 0 分钟」)."""

from __future__ import annotations

import re
import time

from bot.config import Settings
from bot.model import Seat, Table
from bot.tables import Tables
from bot.tables.turns import remind
from tests.bot import builders as T


class Recorder:
    """Stands in for the publisher: records the group messages sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, str]] = []

    def post(self, chat_id: int, text: str, *args: object, **kwargs: object) -> None:
        self.sent.append((chat_id, text))


def service(table: Table) -> tuple[Tables, Recorder]:
    tables = Tables(db=None, config=Settings(token="x"))  # type: ignore[arg-type]
    recorder = Recorder()
    tables.publisher = recorder  # type: ignore[assignment]
    tables.register(table)
    return tables, recorder


def mentioned(text: str) -> set[int]:
    return {int(user) for user in re.findall(r'href="tg://user\?id=(\d+)"', text)}


async def test_in_the_bidding_nobody_must_act_so_nobody_is_pinged() -> None:
    """The bidding window closes by itself at its deadline (a pass for whoever did not bid): a reminder
    would ping everyone at the table for nothing."""
    table = T.make_table("nantong", 1, ai_seats=(1, 3))
    table.deadline = time.time() + 20.9
    tables, recorder = service(table)
    await remind(tables, table)
    assert recorder.sent == []


async def test_in_play_only_the_seat_to_move_is_reminded() -> None:
    table = T.playing("yangzhou")
    table.seats[1] = Seat(101, "Bob", lang="zh")  # four people: whoever's turn it is, a person waits
    table.deadline = time.time() + 3 * 3600 + 30  # the daily pace: hours
    tables, recorder = service(table)
    await remind(tables, table)
    hand = T.hand_of(table)
    assert hand.turn is not None
    assert [mentioned(text) for _chat, text in recorder.sent] == [{100 + hand.turn}]
    assert recorder.sent[0][1].endswith("（还剩 3 小时）。")


async def test_nobody_to_remind_sends_nothing() -> None:
    table = T.make_table("nantong", 1, ai_seats=(0, 1, 2, 3))
    tables, recorder = service(table)
    await remind(tables, table)
    assert recorder.sent == []


async def test_a_reminder_on_time_says_the_time_the_pace_gives() -> None:
    """The timer reminds a moment after the reminder's time (3 hours before a daily deadline): the text says
    3 hours, not the 「还剩 2 小时」 that 2 h 59 min 59 s read as."""
    table = T.playing("yangzhou")
    table.seats[1] = Seat(101, "Bob", lang="zh")
    table.deadline = time.time() + 3 * 3600 - 0.5
    tables, recorder = service(table)
    await remind(tables, table)
    assert recorder.sent[0][1].endswith("（还剩 3 小时）。")
