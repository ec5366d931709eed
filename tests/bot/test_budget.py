"""The command budget: per chat (a burst and a minute) and per person, one notice, then silence."""

from __future__ import annotations

from bot.budget import CommandBudget, Pacer


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_in_one_chat_gets_ten_answers_one_notice_then_silence() -> None:
    clock = Clock()
    budget = CommandBudget(clock=clock)
    verdicts = [budget.verdict(-1, person) for person in range(1, 41)]
    assert verdicts == ["answer"] * 10 + ["notice"] + ["drop"] * 29


def test_one_person_past_their_budget_gets_one_notice() -> None:
    clock = Clock()
    budget = CommandBudget(clock=clock)
    verdicts = []
    for _ in range(8):
        verdicts.append(budget.verdict(-1, 7))
        clock.now += 2.0  # within the chat's pace, past the person's 5 in 30 s
    assert verdicts == ["answer"] * 6 + ["notice", "drop"]
    clock.now += 30.0
    assert budget.verdict(-1, 7) == "answer"


def test_a_chat_gets_ten_answers_a_minute_from_many_people() -> None:
    clock = Clock()
    budget = CommandBudget(clock=clock)
    verdicts = []
    for person in range(14):
        verdicts.append(budget.verdict(-1, person))
        clock.now += 1.5
    assert verdicts == ["answer"] * 10 + ["notice"] + ["drop"] * 3
    assert budget.verdict(-2, 99) == "answer"  # another chat has its own budget


def test_replies_in_one_chat_are_spaced_a_second_apart() -> None:
    clock = Clock()
    pacer = Pacer(clock=clock)
    assert [pacer.delay(-1) for _ in range(4)] == [0.0, 1.0, 2.0, 3.0]
    assert pacer.delay(-2) == 0.0
    clock.now = 10.0
    assert pacer.delay(-1) == 0.0
