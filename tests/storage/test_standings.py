"""League standings derived from scripted hand results."""

from __future__ import annotations

import asyncio
import time

import pytest

import storage
from storage import Database, PartnershipStanding, PlayerStanding, SeatResult, StorageError

from .conftest import RULESET, start_game

ANN, BO, CY, DI = 1, 2, 3, 4


async def _score(
    db: Database, hand_id: int, dealer_side: int, winner_side: int, p: int, scores: tuple[int, int, int, int]
) -> None:
    changes = (1, 0) if winner_side == 0 else (0, 1)
    await storage.record_hand_result(
        db, hand_id, attacker_points=p, dealer_side=dealer_side, winner_side=winner_side,
        level_changes=changes, scores=scores,
    )


async def _next_hand(db: Database, match_id: int) -> int:
    return (await storage.create_hand(db, match_id, seed=1, ruleset=RULESET)).hand_id


async def _league(db: Database) -> float:
    """Three hands at one table, then one at a table with an AI; returns a time between them."""
    first = await start_game(db, -1, (ANN, BO, CY, DI))
    await _score(db, first.hand.hand_id, 0, 0, 40, (2, -2, 2, -2))
    await _score(db, await _next_hand(db, first.match.match_id), 0, 1, 120, (-3, 3, -3, 3))
    await _score(db, await _next_hand(db, first.match.match_id), 1, 1, 0, (-4, 4, -4, 4))
    await storage.update_table(db, first.table.table_id, status="finished")
    await asyncio.sleep(0.01)
    between = time.time()
    await asyncio.sleep(0.01)

    # Cy and Ann swap ends of the table; an AI partners Di.
    second = await start_game(db, -1, (CY, None, ANN, DI))
    await _score(db, second.hand.hand_id, 1, 0, 90, (1, -1, 1, -1))

    # The same people in another chat never count here.
    other = await start_game(db, -2, (ANN, BO, CY, DI))
    await _score(db, other.hand.hand_id, 0, 0, 10, (50, -50, 50, -50))
    return between


async def test_player_standings_after_scripted_hands(db: Database) -> None:
    await _league(db)
    standings = await storage.player_standings(db, -1)
    assert standings == [
        #              id   name       hands won 积分 | dealer h/w/积分 | attacker h/w/积分
        PlayerStanding(BO, "player2", 3, 2, 5, 1, 1, 4, 2, 1, 1),
        PlayerStanding(DI, "player4", 4, 2, 4, 2, 1, 3, 2, 1, 1),
        PlayerStanding(ANN, "player1", 4, 2, -4, 2, 1, -1, 2, 1, -3),
        PlayerStanding(CY, "player3", 4, 2, -4, 2, 1, -1, 2, 1, -3),
    ]
    for line in standings:
        assert line.hands == line.dealer_hands + line.attacker_hands
        assert line.jifen == line.dealer_jifen + line.attacker_jifen


async def test_partnerships_are_order_independent_and_exclude_the_ai(db: Database) -> None:
    await _league(db)
    assert await storage.partnership_standings(db, -1) == [
        PartnershipStanding((BO, DI), ("player2", "player4"), 3, 2, 10, 1, 1, 8, 2, 1, 2),
        PartnershipStanding((ANN, CY), ("player1", "player3"), 4, 2, -8, 2, 1, -2, 2, 1, -6),
    ]


async def test_a_season_counts_only_hands_since_its_start(db: Database) -> None:
    between = await _league(db)
    standings = await storage.player_standings(db, -1, since=between)
    assert [(s.user_id, s.hands, s.hands_won, s.jifen) for s in standings] == [
        (ANN, 1, 1, 1), (CY, 1, 1, 1), (DI, 1, 0, -1),
    ]
    assert await storage.partnership_standings(db, -1, since=between) == [
        PartnershipStanding((ANN, CY), ("player1", "player3"), 1, 1, 2, 0, 0, 0, 1, 1, 2),
    ]


async def test_a_chat_without_results_has_empty_standings(db: Database) -> None:
    await start_game(db, -3)
    assert await storage.player_standings(db, -3) == []
    assert await storage.partnership_standings(db, -3) == []


async def test_a_result_records_who_sat_where_and_closes_the_hand(db: Database) -> None:
    game = await start_game(db, -1, (ANN, None, CY, DI))
    result = await storage.record_hand_result(
        db, game.hand.hand_id, attacker_points=-20, dealer_side=1, winner_side=1,
        level_changes=(0, 4), scores=(-6, 6, -6, 6), special={"大光": True},
    )
    assert result.seats == (
        SeatResult(0, ANN, False, -6, "lost"), SeatResult(1, None, True, 6),
        SeatResult(2, CY, False, -6, "lost"), SeatResult(3, DI, False, 6, "won"),
    )
    assert await storage.get_hand_result(db, game.hand.hand_id) == result
    assert (await storage.get_hand(db, game.hand.hand_id)).status == "finished"  # type: ignore[union-attr]
    # Seat changes afterwards do not rewrite history.
    await storage.upsert_user(db, 9, "late")
    await storage.set_seat(db, game.table.table_id, 0, user_id=9)
    assert (await storage.get_hand_result(db, game.hand.hand_id)).seats[0].user_id == ANN  # type: ignore[union-attr]
    with pytest.raises(StorageError, match="already has a result"):
        await _score(db, game.hand.hand_id, 1, 1, -20, (0, 0, 0, 0))


async def test_a_result_needs_four_seats(db: Database) -> None:
    game = await start_game(db)
    await storage.clear_seat(db, game.table.table_id, 3)
    with pytest.raises(StorageError, match="four seats"):
        await _score(db, game.hand.hand_id, 0, 0, 0, (0, 0, 0, 0))
    assert await storage.get_hand_result(db, game.hand.hand_id) is None
