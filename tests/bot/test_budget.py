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


def test_one_notice_a_run_whichever_window_fills_and_the_wait_for_room() -> None:
    """A person's window fills, then the chat's: that person is told once, not once per window (issue 55);
    :meth:`wait` says when a waiting command can be answered."""
    clock = Clock()
    budget = CommandBudget(per_chat=(4, 60.0), per_person=(2, 10.0), clock=clock)
    assert [budget.verdict(-1, 7) for _ in range(3)] == ["answer", "answer", "notice"]
    assert budget.wait(-1, 7) == 10.0
    assert [budget.verdict(-1, 8) for _ in range(2)] == ["answer", "answer"]
    assert budget.verdict(-1, 7) == "drop"  # the chat is full now too: no second notice to the same person
    assert budget.verdict(-1, 9) == "notice"  # someone else, not told yet, is named once
    assert budget.verdict(-1, 9) == "drop"
    clock.now = 10.0
    assert budget.wait(-1, 7) == 50.0  # the person has room again, the chat not until its first command leaves
    budget.take(-2, 7)  # a command that waited, answered elsewhere, counts like any other
    assert budget.wait(-2, 7) == 0.0
