"""Scored hands stored at chosen moments, for the tests of seasons and of the league (storage and bot)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

import storage
from storage import Database

from .conftest import RULESET, start_game

CHAT = -1001
SHANGHAI = ZoneInfo("Asia/Shanghai")
LONDON = ZoneInfo("Europe/London")


def at(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0,
       tz: ZoneInfo = SHANGHAI) -> float:
    return datetime(year, month, day, hour, minute, second, tzinfo=tz).timestamp()


class Hands:
    """Scored hands at one table, each stored at a chosen moment."""

    def __init__(self, db: Database, table_id: int, match_id: int, first_hand: int) -> None:
        self.db, self.table_id, self.match_id = db, table_id, match_id
        self.next_hand: int | None = first_hand

    async def play(self, when: float, players: Sequence[int | None] = (1, 2, 3, 4), winner: int = 0,
                   *, escaped: int | None = None, away: int | None = None, levels: int = 1,
                   notices: Sequence[dict[str, object]] = ()) -> int:
        """One hand, won by ``winner``'s side (or escaped from, at a cost of 3), ended at ``when``."""
        for seat, person in enumerate(players):
            await storage.set_seat(self.db, self.table_id, seat, user_id=person,
                                   is_ai=person is None or seat == away)
        if self.next_hand is None:
            self.next_hand = (await storage.create_hand(self.db, self.match_id, seed=1, ruleset=RULESET)).hand_id
        hand_id, self.next_hand = self.next_hand, None
        if escaped is None:
            scores = [levels if seat % 2 == winner else -levels for seat in range(4)]
            outcomes = None
        else:
            scores = [-3 if seat == escaped else 0 for seat in range(4)]
            outcomes = ["lost" if seat == escaped else None for seat in range(4)]
        await storage.record_hand_result(
            self.db, hand_id, attacker_points=40, dealer_side=0, winner_side=winner if escaped is None else
            1 - escaped % 2, level_changes=(0, 0), scores=scores, outcomes=outcomes,
            special={"escaped": escaped, "notices": list(notices)})
        async with self.db.transaction():
            await self.db.execute("UPDATE hand_results SET created_at = ? WHERE hand_id = ?", (when, hand_id))
        return hand_id


async def hands_at(db: Database, chat_id: int = CHAT, players: Sequence[int] = (1, 2, 3, 4)) -> Hands:
    """A table of four people in the chat, ready for :meth:`Hands.play`."""
    game = await start_game(db, chat_id, players)
    return Hands(db, game.table.table_id, game.match.match_id, game.hand.hand_id)
