"""Standings count a hand for a person only if they played it to its end in that seat.

A league of mixed hands: normal ones, escapes that cost something and free
ones (before any card), a redeal, a person the AI finished the hand for, and
the AI's own seats.  Every figure of the player and partnership lines is
checked, first as the bot records results now, then as the version-4
migration recomputes results stored the old way.
"""

from __future__ import annotations

import time
from pathlib import Path

import storage
from storage import Database, PartnershipStanding, PlayerStanding
from storage.migrations import migrate

from .conftest import RULESET, start_game

ANN, BO, CY, DI = 1, 2, 3, 4
CHAT = -7

# Hand by hand (seats: Ann 0, Bo 1, Cy 2, Di 3; side 0 = Ann + Cy, side 1 = Bo + Di):
#   1 normal, side 0 deals and wins:            +2 −2 +2 −2
#   2 Bo escapes while cards are played: −15 for Bo only; counts for Bo alone (lost)
#   3 Cy leaves in the bidding (free): 0 for all; counts for nobody
#   4 a redeal (no result)
#   5 normal, side 1 deals and wins, Di was away (the AI finished for him): −3 +3 −3 +3
#   6 normal, side 0 attacks and wins, seat 1 is the AI's:              +1 −1 +1 −1
EXPECTED_PLAYERS = [
    #              id   name      hands won 积分 | dealer h/w/积分 | attacker h/w/积分
    PlayerStanding(ANN, "player1", 3, 2, 0, 1, 1, 2, 2, 1, -2),
    PlayerStanding(CY, "player3", 3, 2, 0, 1, 1, 2, 2, 1, -2),
    PlayerStanding(DI, "player4", 2, 0, -3, 1, 0, -1, 1, 0, -2),
    PlayerStanding(BO, "player2", 3, 1, -14, 1, 1, 3, 2, 0, -17),
]
EXPECTED_PAIRS = [
    PartnershipStanding((ANN, CY), ("player1", "player3"), 3, 2, 0, 1, 1, 4, 2, 1, -4),
    PartnershipStanding((BO, DI), ("player2", "player4"), 1, 0, -4, 0, 0, 0, 1, 0, -4),
]


async def _league(db: Database, *, old_way: bool = False) -> None:
    game = await start_game(db, CHAT, (ANN, BO, CY, DI))
    table, match = game.table.table_id, game.match.match_id
    record = _record_old_way if old_way else _record

    async def next_hand() -> int:
        return (await storage.create_hand(db, match, seed=1, ruleset=RULESET)).hand_id

    await record(db, game.hand.hand_id, dealer_side=0, winner_side=0, scores=(2, -2, 2, -2))
    await record(db, await next_hand(), dealer_side=0, winner_side=0, scores=(0, -15, 0, 0), escaped=1)
    await record(db, await next_hand(), dealer_side=0, winner_side=1, scores=(0, 0, 0, 0), escaped=2)
    await storage.update_hand(db, await next_hand(), status="aborted")  # a redeal: no result
    hand = await next_hand()
    await storage.set_seat(db, table, 3, user_id=DI, is_ai=True)  # away: the AI finishes for Di
    await record(db, hand, dealer_side=1, winner_side=1, scores=(-3, 3, -3, 3))
    await storage.set_seat(db, table, 3, user_id=DI)
    hand = await next_hand()
    await storage.set_seat(db, table, 1, user_id=None, is_ai=True)  # Bo's seat is the AI's now
    await record(db, hand, dealer_side=1, winner_side=0, scores=(1, -1, 1, -1))
    # Another chat never counts here.
    other = await start_game(db, -8, (ANN, BO, CY, DI))
    await record(db, other.hand.hand_id, dealer_side=0, winner_side=0, scores=(9, -9, 9, -9))


async def _record(db: Database, hand_id: int, *, dealer_side: int, winner_side: int,
                  scores: tuple[int, int, int, int], escaped: int | None = None) -> None:
    """As the bot records a result: an escape names whom it counts for."""
    outcomes: list[storage.Outcome | None] | None = None
    if escaped is not None:
        outcomes = ["lost" if s == escaped and scores[s] < 0 else None for s in range(4)]
    await storage.record_hand_result(
        db, hand_id, attacker_points=0, dealer_side=dealer_side, winner_side=winner_side,
        level_changes=(0, 0), scores=scores, special={"escaped": escaped}, outcomes=outcomes,
    )


async def _record_old_way(db: Database, hand_id: int, *, dealer_side: int, winner_side: int,
                          scores: tuple[int, int, int, int], escaped: int | None = None) -> None:
    """As a version-3 bot stored it: the seats' occupants, their 积分, no outcome; an escape's
    winner side picked by the 积分 of seats 0 and 1 (the bug the migration undoes)."""
    if escaped is not None:
        winner_side = max((0, 1), key=lambda side: scores[side])
    now = time.time()
    async with db.transaction():
        await db.execute(
            """INSERT INTO hand_results (hand_id, attacker_points, dealer_side, winner_side, special, created_at)
               VALUES (?, 0, ?, ?, ?, ?)""",
            (hand_id, dealer_side, winner_side, '{"escaped": %s}' % ("null" if escaped is None else escaped), now),
        )
        await db.execute(
            """INSERT INTO hand_result_seats (hand_id, seat, user_id, is_ai, score)
               SELECT ?, s.seat, s.user_id, s.is_ai, json_extract(?, '$[' || s.seat || ']')
               FROM seats AS s JOIN matches AS m ON m.table_id = s.table_id
               JOIN hands AS h ON h.match_id = m.match_id WHERE h.hand_id = ?""",
            (hand_id, "[%d,%d,%d,%d]" % scores, hand_id),
        )
        await db.execute("UPDATE hands SET status = 'finished' WHERE hand_id = ?", (hand_id,))


async def test_every_figure_of_a_mixed_league(db: Database) -> None:
    await _league(db)
    assert await storage.player_standings(db, CHAT) == EXPECTED_PLAYERS
    assert await storage.partnership_standings(db, CHAT) == EXPECTED_PAIRS


async def test_the_migration_recomputes_standings_stored_the_old_way(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = await Database.open(path, migrate=False)
    try:
        await migrate(db, target=3)
        await _league(db, old_way=True)
        # What version 3 showed: Bo's escape and Cy's free leave both won by Ann (5 hands, 4 won).
        old = {row[0]: tuple(row[1:]) for row in await db.fetchall(
            "SELECT user_id, COUNT(*), SUM(won) FROM result_rows WHERE chat_id = ? AND user_id IS NOT NULL"
            " GROUP BY user_id", (CHAT,))}
        assert old[ANN] == (5, 4)
    finally:
        await db.close()
    db = await Database.open(path)  # migrates to the current version
    try:
        assert await storage.player_standings(db, CHAT) == EXPECTED_PLAYERS
        assert await storage.partnership_standings(db, CHAT) == EXPECTED_PAIRS
    finally:
        await db.close()
