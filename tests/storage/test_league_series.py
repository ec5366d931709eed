"""The chart's lines sampled by SQLite (:func:`storage.jifen_lines`), and the read-only second connection."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

import storage
from storage import Database

from .league_kit import CHAT, at, hands_at


def dense(series: list[storage.SeriesPoint], user_ids: list[int]) -> dict[int, list[int]]:
    """Each person's 积分 after every hand of the series, counted the plain way (the reference)."""
    order: list[int] = []
    for point in series:
        if not order or order[-1] != point.hand_id:
            order.append(point.hand_id)
    lines = {user_id: [0] * len(order) for user_id in user_ids}
    for point in series:
        if point.user_id in lines:
            lines[point.user_id][order.index(point.hand_id)] += point.score
    for values in lines.values():
        for i in range(1, len(values)):
            values[i] += values[i - 1]
    return lines


async def a_league(db: Database, hands: int) -> list[int]:
    """``hands`` hands among six people, one of them (6) joining late, with AI seats and escapes; the people."""
    rng = random.Random(52)
    table = await hands_at(db)
    for user_id in (5, 6):
        await storage.upsert_user(db, user_id, f"p{user_id}")
    for number in range(hands):
        people: list[int | None] = list(rng.sample([1, 2, 3, 4, 5] + ([6] if number > hands // 2 else []), 4))
        if number % 7 == 3:
            people[rng.randrange(4)] = None  # an AI seat counts for nobody
        for seat in range(4):
            await storage.clear_seat(db, table.table_id, seat)
        await table.play(at(2026, 11, 1) + 60 * number, people, winner=rng.randint(0, 1),
                         escaped=1 if number % 11 == 5 else None, levels=rng.randint(1, 3))
    return [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("cap", [5, 8, 13, 400])
async def test_the_sampled_lines_keep_every_last_point_and_at_most_the_cap(db: Database, cap: int) -> None:
    people = await a_league(db, 41)
    series = await storage.jifen_series(db, CHAT)
    reference = dense(series, people)
    sampled = await storage.jifen_lines(db, CHAT, people, cap=cap)
    totals = {line.user_id: line.jifen for line in await storage.league_lines(db, CHAT)}
    assert sampled.hands == 41 == len(next(iter(reference.values())))
    assert set(sampled.lines) == set(people)
    for user_id, points in sampled.lines.items():
        assert len(points) == min(cap, 41)
        assert points[-1] == (41, totals[user_id])  # every line ends on the person's 积分 of the stretch
        assert all(value == reference[user_id][x - 1] for x, value in points)  # each point is the true 积分
        assert [x for x, _ in points] == [n + 1 for n in storage.sampled_hands(41, cap)]
    assert sampled == storage.sample_series(series, people, cap=cap)


async def test_the_sampled_lines_of_a_window_and_of_people_with_no_hand(db: Database) -> None:
    await a_league(db, 12)
    since = at(2026, 11, 1) + 60 * 4  # the hands from the fifth on
    sampled = await storage.jifen_lines(db, CHAT, [1, 99], cap=4, since=since)
    assert sampled.hands == 8
    assert sampled.lines[99] == ((1, 0), (3, 0), (6, 0), (8, 0))  # nobody's hand: a flat line at 0
    assert sampled.lines[1] == storage.sample_series(await storage.jifen_series(db, CHAT, since=since), [1],
                                                     cap=4).lines[1]
    nothing = await storage.jifen_lines(db, CHAT + 1, [1], cap=4)
    assert nothing.hands == 0 and nothing.lines == {1: ()}


def test_the_sampled_hands_are_spread_evenly() -> None:
    assert storage.sampled_hands(5, 8) == [0, 1, 2, 3, 4]
    for hands in (9, 100, 20_000, 100_001):
        for cap in (2, 8, 400, 800):
            kept = storage.sampled_hands(hands, cap)
            if hands <= cap:
                continue
            assert len(kept) <= cap and kept[0] == 0 and kept[-1] == hands - 1
            assert max(b - a for a, b in zip(kept, kept[1:])) <= hands // (cap - 1) + 1


async def test_a_reader_sees_what_was_committed_and_writes_nothing(db: Database, db_path: Path) -> None:
    table = await hands_at(db)
    await table.play(at(2026, 11, 1))
    reader = await storage.open_reader(db_path)
    try:
        assert await storage.counted_hands(reader, CHAT) == 1
        await table.play(at(2026, 11, 2))
        assert await storage.counted_hands(reader, CHAT) == 2
        with pytest.raises((sqlite3.Error, storage.StorageError)):
            await reader.fetchall("DELETE FROM hand_result_seats")
    finally:
        await reader.close()
    assert await storage.counted_hands(db, CHAT) == 2
