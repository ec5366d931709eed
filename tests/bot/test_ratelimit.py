"""The per-chat rate limiter: a 429 in one chat delays that chat only."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from telegram.error import RetryAfter

from bot.ratelimit import ChatRateLimiter

GROUP_A, GROUP_B, PERSON = -1001, -1002, 42


class Telegram:
    """Stands in for PTB's request callback: answers 429 for the chats told to, records the rest."""

    def __init__(self) -> None:
        self.flooded: dict[int, int] = {}
        """chat id → retry_after Telegram answers for it (once)."""
        self.calls: list[tuple[str, int | None]] = []
        self.refused: list[int | None] = []

    async def __call__(self, endpoint: str, data: dict[str, Any]) -> bool:
        chat_id = data.get("chat_id")
        if chat_id in self.flooded:
            self.refused.append(chat_id)
            raise RetryAfter(self.flooded.pop(chat_id))
        self.calls.append((endpoint, chat_id))
        return True


async def request(limiter: ChatRateLimiter, telegram: Telegram, endpoint: str, chat_id: int | None,
                  retries: int | None = None) -> Any:
    data: dict[str, Any] = {} if chat_id is None else {"chat_id": chat_id}
    return await limiter.process_request(telegram, (endpoint, data), {}, endpoint, data, retries)


async def test_a_429_in_one_group_does_not_delay_another_chat() -> None:
    limiter, telegram = ChatRateLimiter(), Telegram()
    telegram.flooded[GROUP_A] = 30  # group A must wait half a minute
    stuck = asyncio.create_task(request(limiter, telegram, "editMessageText", GROUP_A))
    await asyncio.wait_for(_until(lambda: telegram.refused == [GROUP_A]), 10)
    # Group A waits; group B, a private chat and a button answer go at once.
    assert await asyncio.wait_for(request(limiter, telegram, "editMessageText", GROUP_B), 10)
    assert await asyncio.wait_for(request(limiter, telegram, "sendMessage", PERSON), 10)
    assert await asyncio.wait_for(request(limiter, telegram, "answerCallbackQuery", None), 10)
    # A second request to group A waits behind the first one's "retry after" instead of meeting a 429.
    second = asyncio.create_task(request(limiter, telegram, "sendMessage", GROUP_A))
    await asyncio.sleep(0)
    assert not stuck.done() and not second.done()
    assert telegram.calls == [("editMessageText", GROUP_B), ("sendMessage", PERSON), ("answerCallbackQuery", None)]
    assert telegram.refused == [GROUP_A]
    assert limiter.in_flight == 2  # the two requests to group A (a button answer is no chat's)
    stuck.cancel()
    second.cancel()
    await asyncio.gather(stuck, second, return_exceptions=True)
    assert limiter.in_flight == 0


async def test_a_429_is_waited_out_and_retried_then_given_up() -> None:
    limiter, telegram = ChatRateLimiter(max_retries=1), Telegram()
    telegram.flooded[PERSON] = 0  # "retry after 0": retried at once
    assert await asyncio.wait_for(request(limiter, telegram, "editMessageText", PERSON), 10)
    assert telegram.refused == [PERSON] and telegram.calls == [("editMessageText", PERSON)]
    telegram.flooded[PERSON] = 0
    with pytest.raises(RetryAfter):  # no retry left (PTB's per-call argument)
        await asyncio.wait_for(request(limiter, telegram, "editMessageText", PERSON, retries=0), 10)


async def test_quiet_chats_are_forgotten() -> None:
    now = [0.0]
    limiter, telegram = ChatRateLimiter(overall=(20_000, 1.0, 10_000), clock=lambda: now[0]), Telegram()
    for chat_id in range(1, 1001):
        await request(limiter, telegram, "sendMessage", chat_id)
    now[0] = 1_000.0
    await request(limiter, telegram, "sendMessage", PERSON)
    for _ in range(999):
        await request(limiter, telegram, "answerCallbackQuery", None)
    assert set(limiter._chats) == {PERSON}


async def _until(condition: Any) -> None:
    while not condition():
        await asyncio.sleep(0.01)


async def test_a_group_never_has_more_than_twenty_calls_in_a_sliding_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst, then paced: the twenty-first call goes more than a minute after the first (PTB's limiter: 3 s)."""
    now = [0.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    limiter, telegram = ChatRateLimiter(clock=lambda: now[0]), Telegram()
    monkeypatch.setattr("bot.ratelimit.asyncio.sleep", sleep)  # time moves only when the limiter waits
    for _ in range(21):
        await request(limiter, telegram, "editMessageText", GROUP_A)
    monkeypatch.undo()
    assert len(telegram.calls) == 21
    assert slept and now[0] >= 60.0


async def test_a_group_gets_at_most_three_messages_in_any_second(monkeypatch: pytest.MonkeyPatch) -> None:
    """One a second in a chat, after a short burst of three (as Telegram and the fake count it): a hand's end
    (the table message, the result, a notice or two) must not go out as one burst of five."""
    now = [0.0]
    sent: list[float] = []

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    limiter, telegram = ChatRateLimiter(clock=lambda: now[0]), Telegram()
    monkeypatch.setattr("bot.ratelimit.asyncio.sleep", sleep)  # time moves only when the limiter waits
    for _ in range(8):
        await request(limiter, telegram, "sendMessage" if len(sent) % 2 else "editMessageText", GROUP_A)
        sent.append(now[0])
    monkeypatch.undo()
    assert max(sum(1 for t in sent if start <= t < start + 1.0) for start in sent) <= 3


async def test_edits_in_a_private_chat_are_not_held_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """A player's own message is edited at once however often they tap; new messages keep one a second."""
    now = [0.0]

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    limiter, telegram = ChatRateLimiter(overall=(20_000, 1.0, 10_000), clock=lambda: now[0]), Telegram()
    monkeypatch.setattr("bot.ratelimit.asyncio.sleep", sleep)
    for _ in range(10):
        await request(limiter, telegram, "editMessageText", PERSON)
    assert now[0] == 0.0
    for _ in range(4):
        await request(limiter, telegram, "sendMessage", PERSON)
    monkeypatch.undo()
    assert now[0] > 2.0  # two at once, then paced


async def test_under_the_overall_limit_a_message_someone_waits_for_goes_first() -> None:
    """Waiting for the overall limit: the presser's own message, the next mover's, other private chats,
    then groups; a lookup (not a message) does not wait at all."""
    from bot.ratelimit import MOVER, PRESSER, PRIORITY

    limiter, telegram = ChatRateLimiter(overall=(21, 1.0, 1)), Telegram()
    await request(limiter, telegram, "sendMessage", PERSON)  # the burst is spent: what follows waits

    async def edit(priority: int, chat_id: int, endpoint: str = "editMessageText") -> Any:
        PRIORITY.set(priority)  # as the publisher sets it in its own task
        return await request(limiter, telegram, endpoint, chat_id)

    waiting = [asyncio.create_task(request(limiter, telegram, "editMessageText", GROUP_A)),
               asyncio.create_task(request(limiter, telegram, "sendMessage", PERSON + 2)),
               asyncio.create_task(edit(MOVER, PERSON + 3)),
               asyncio.create_task(edit(PRESSER, PERSON + 1)),
               asyncio.create_task(edit(PRESSER, PERSON + 4, "sendMessage"))]  # a message a press waits for
    await asyncio.sleep(0)
    assert await asyncio.wait_for(request(limiter, telegram, "getChatMember", GROUP_B), 10)
    assert telegram.calls[1:] == [("getChatMember", GROUP_B)]  # ahead of every message waiting
    await asyncio.wait_for(asyncio.gather(*waiting), 30)
    assert telegram.calls[2:] == [("editMessageText", PERSON + 1), ("sendMessage", PERSON + 4),
                                  ("editMessageText", PERSON + 3), ("sendMessage", PERSON + 2),
                                  ("editMessageText", GROUP_A)]


async def test_a_cancelled_request_gives_its_turn_to_the_next() -> None:
    limiter, telegram = ChatRateLimiter(overall=(21, 1.0, 1)), Telegram()
    await request(limiter, telegram, "sendMessage", PERSON)
    obsolete = asyncio.create_task(request(limiter, telegram, "editMessageText", PERSON + 1))
    kept = asyncio.create_task(request(limiter, telegram, "editMessageText", PERSON + 2))
    await asyncio.sleep(0)
    obsolete.cancel()
    await asyncio.wait_for(kept, 30)
    assert telegram.calls[1:] == [("editMessageText", PERSON + 2)]
    assert obsolete.cancelled()


async def test_unpaced_nothing_waits_but_a_429_still_holds_its_chat_only() -> None:
    limiter, telegram = ChatRateLimiter(paced=False), Telegram()
    for _ in range(30):  # far past a group's twenty a minute: nothing is held back
        await asyncio.wait_for(request(limiter, telegram, "editMessageText", GROUP_A), 10)
    telegram.flooded[GROUP_B] = 30
    stuck = asyncio.create_task(request(limiter, telegram, "sendMessage", GROUP_B))
    await asyncio.wait_for(_until(lambda: telegram.refused == [GROUP_B]), 10)
    assert await asyncio.wait_for(request(limiter, telegram, "sendMessage", GROUP_A), 10)
    assert not stuck.done()
    stuck.cancel()
    await asyncio.gather(stuck, return_exceptions=True)


@pytest.mark.parametrize("press_at, answer, first", [(34.0, False, "press"), (36.0, False, "group"),
                                                      (600.0, True, "press")])
async def test_a_group_message_that_waited_long_enough_goes_before_a_new_press(press_at: float, answer: bool,
                                                                               first: str) -> None:
    """Served by arrival plus a head start (a press 0 s, a group 34 s): a busy bot never starves a group.
    A message a button's answer waits for goes first however long the others waited (Telegram takes no
    answer after 15 s)."""
    import time

    from bot.ratelimit import ANSWER, GROUP, PRESSER, Bucket, Queue

    start, jump = time.monotonic(), [0.0]

    def clock() -> float:  # real time, which the test can move forward at once
        return time.monotonic() - start + jump[0]

    queue = Queue(Bucket(2, 1.0, 1))
    queue.bucket.tokens, queue.bucket.updated = 0.0, clock()  # empty: whoever comes waits
    served: list[str] = []

    async def wait(name: str, priority: int) -> None:
        await queue.acquire(clock, priority)
        served.append(name)

    group = asyncio.create_task(wait("group", GROUP))  # arrives now
    await asyncio.sleep(0.05)  # it waits for the next token (about a second)
    jump[0] = press_at
    press = asyncio.create_task(wait("press", ANSWER if answer else PRESSER))  # arrives press_at seconds later
    await asyncio.wait_for(asyncio.gather(group, press), 30)
    assert served[0] == first


@pytest.mark.parametrize("other, mover_at, first", [("private", 3.5, "mover"), ("private", 4.5, "private"),
                                                     ("group", 4.5, "mover"), ("group", 5.5, "group")])
async def test_the_next_mover_goes_before_other_messages_unless_they_waited_seconds(other: str, mover_at: float,
                                                                                    first: str) -> None:
    """The next player first: a result, a new hand, a clock or a group line that arrived a few seconds before
    a next mover's edit still waits behind it (4 s for a private message, 5 s for a group's); longer, it goes
    first, so nothing starves."""
    import time

    from bot.ratelimit import GROUP, MOVER, PRIVATE, Bucket, Queue

    start, jump = time.monotonic(), [0.0]

    def clock() -> float:
        return time.monotonic() - start + jump[0]

    queue = Queue(Bucket(2, 1.0, 1))
    queue.bucket.tokens, queue.bucket.updated = 0.0, clock()
    served: list[str] = []

    async def wait(name: str, priority: int) -> None:
        await queue.acquire(clock, priority)
        served.append(name)

    earlier = asyncio.create_task(wait(other, PRIVATE if other == "private" else GROUP))
    await asyncio.sleep(0.05)
    jump[0] = mover_at
    mover = asyncio.create_task(wait("mover", MOVER))
    await asyncio.wait_for(asyncio.gather(earlier, mover), 30)
    assert served[0] == first


async def test_behind_while_more_messages_wait_than_a_second_lets_through() -> None:
    limiter, telegram = ChatRateLimiter(overall=(12, 1.0, 2)), Telegram()  # 10 a second after the burst
    assert not limiter.behind
    waiting = [asyncio.create_task(request(limiter, telegram, "sendMessage", PERSON + n)) for n in range(14)]
    await asyncio.sleep(0)
    assert limiter.behind  # 12 wait for a limit that lets 10 through in a second
    await asyncio.wait_for(asyncio.gather(*waiting), 30)
    assert not limiter.behind and limiter.in_flight == 0


def test_waits_read_the_wait_nine_in_ten_did_not_exceed_over_the_last_twenty_seconds() -> None:
    from bot.ratelimit import WAITS_SPAN, Waits

    waits = Waits()
    assert waits.high(0.0) == 0.0
    for n in range(20):
        waits.add(n * 0.1, 0.05 * n)  # 0.0, 0.05 … 0.95
    assert waits.high(2.0) == pytest.approx(0.9)  # two of twenty waited longer
    assert waits.high(2.0, share=0.5) == pytest.approx(0.5)
    waits.add(WAITS_SPAN + 1.0, 0.0)  # the first ten are past the window
    assert waits.high(WAITS_SPAN + 1.0) == pytest.approx(0.9)
    assert waits.high(3 * WAITS_SPAN) == 0.0  # nothing lately: nobody waits


async def test_the_movers_wait_counts_the_next_movers_messages_alone() -> None:
    """What admission watches: how long the next movers' messages waited for the overall limit lately;
    other messages' waits do not count."""
    from bot.ratelimit import MOVER, PRIORITY, WAITS_SPAN

    limiter, telegram = ChatRateLimiter(overall=(21, 1.0, 1)), Telegram()  # 20 a second once the burst is spent

    async def message(priority: int | None, chat_id: int) -> Any:
        PRIORITY.set(priority)  # as the publisher sets it in its own task
        return await request(limiter, telegram, "editMessageText", chat_id)

    await message(MOVER, PERSON)  # the burst: at once
    assert limiter.movers_wait() == 0.0
    await asyncio.wait_for(asyncio.gather(*(message(None, PERSON + n) for n in range(1, 8))), 30)
    assert limiter.movers_wait() == 0.0  # they waited, but they were not next movers
    await asyncio.wait_for(asyncio.gather(*(message(MOVER, PERSON + n) for n in range(10, 18))), 30)
    assert limiter.movers_wait() >= 0.2  # eight at once at twenty a second: the later ones waited
    assert limiter.sent_rate() == pytest.approx(16 / WAITS_SPAN)  # every message counts in the rate, movers or not


def test_retry_after_is_read_from_ptbs_public_attribute_without_a_warning() -> None:
    import warnings
    from datetime import timedelta

    from telegram.error import RetryAfter

    from bot.ratelimit import retry_seconds

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PTB 22 itself reads the deprecated attribute as it builds the error
        as_int, as_delta = RetryAfter(7), RetryAfter(timedelta(seconds=3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a deprecation warning (or PTB renaming the attribute) fails here
        assert retry_seconds(as_int) == 7.0
        assert retry_seconds(as_delta) == 3.0
