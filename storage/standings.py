"""League standings, derived with SQL from the stored hand results.

Nothing here is stored: standings are always recomputed from
``hand_result_seats`` (through the ``result_rows`` view), so they cannot
drift from the results.  A hand counts for a person only if they played it
to its end in that seat (its ``outcome`` is won or lost): AI seats, people the
AI was playing for when the hand ended, and everyone but the escaper in an
escape are left out, and redeals have no result at all.  A partnership line
needs both partners counted in the hand.
"""

from __future__ import annotations

from storage.db import Database
from storage.records import PartnershipStanding, PlayerStanding

_PLAYER_SQL = """
SELECT r.user_id AS user_id,
       COALESCE(u.display_name, CAST(r.user_id AS TEXT)) AS display_name,
       COUNT(*) AS hands,
       SUM(r.won) AS hands_won,
       SUM(r.score) AS jifen,
       SUM(r.as_dealer) AS dealer_hands,
       SUM(r.as_dealer * r.won) AS dealer_won,
       SUM(r.as_dealer * r.score) AS dealer_jifen,
       SUM(1 - r.as_dealer) AS attacker_hands,
       SUM((1 - r.as_dealer) * r.won) AS attacker_won,
       SUM((1 - r.as_dealer) * r.score) AS attacker_jifen
FROM result_rows AS r
LEFT JOIN users AS u ON u.user_id = r.user_id
WHERE r.chat_id = ? AND r.user_id IS NOT NULL AND r.created_at >= ? AND r.created_at < ?
GROUP BY r.user_id
ORDER BY jifen DESC, hands_won DESC, hands DESC, r.user_id
"""

# Partners are the two seats of a side (0+2, 1+3); the pair is keyed by its
# sorted user ids so "Ann & Bo" and "Bo & Ann" are one partnership.
_PARTNERSHIP_SQL = """
WITH pairs AS (
    SELECT MIN(a.user_id, b.user_id) AS first_id,
           MAX(a.user_id, b.user_id) AS second_id,
           a.won AS won, a.as_dealer AS as_dealer, a.score + b.score AS score
    FROM result_rows AS a
    JOIN result_rows AS b ON b.hand_id = a.hand_id AND b.seat = a.seat + 2
    WHERE a.chat_id = ? AND a.created_at >= ? AND a.created_at < ?
      AND a.user_id IS NOT NULL AND b.user_id IS NOT NULL
)
SELECT p.first_id AS first_id, p.second_id AS second_id,
       COALESCE(u1.display_name, CAST(p.first_id AS TEXT)) AS first_name,
       COALESCE(u2.display_name, CAST(p.second_id AS TEXT)) AS second_name,
       COUNT(*) AS hands,
       SUM(p.won) AS hands_won,
       SUM(p.score) AS jifen,
       SUM(p.as_dealer) AS dealer_hands,
       SUM(p.as_dealer * p.won) AS dealer_won,
       SUM(p.as_dealer * p.score) AS dealer_jifen,
       SUM(1 - p.as_dealer) AS attacker_hands,
       SUM((1 - p.as_dealer) * p.won) AS attacker_won,
       SUM((1 - p.as_dealer) * p.score) AS attacker_jifen
FROM pairs AS p
LEFT JOIN users AS u1 ON u1.user_id = p.first_id
LEFT JOIN users AS u2 ON u2.user_id = p.second_id
GROUP BY p.first_id, p.second_id
ORDER BY jifen DESC, hands_won DESC, hands DESC, p.first_id, p.second_id
"""


FOREVER = 1e18
"""An ``until`` later than any hand (unix time)."""


async def player_standings(
    db: Database, chat_id: int, *, since: float = 0.0, until: float | None = None
) -> list[PlayerStanding]:
    """Each person's line in the chat's league, best 积分 first.

    ``since`` and ``until`` (unix time) count only hands scored from ``since``
    on and before ``until``, for a season.
    """
    rows = await db.fetchall(_PLAYER_SQL, (chat_id, since, FOREVER if until is None else until))
    return [
        PlayerStanding(
            row["user_id"], row["display_name"], row["hands"], row["hands_won"], row["jifen"],
            row["dealer_hands"], row["dealer_won"], row["dealer_jifen"],
            row["attacker_hands"], row["attacker_won"], row["attacker_jifen"],
        )
        for row in rows
    ]


async def partnership_standings(
    db: Database, chat_id: int, *, since: float = 0.0, until: float | None = None
) -> list[PartnershipStanding]:
    """Each pair of partners' line in the chat's league, best 积分 first (``since``/``until`` as above)."""
    rows = await db.fetchall(_PARTNERSHIP_SQL, (chat_id, since, FOREVER if until is None else until))
    return [
        PartnershipStanding(
            (row["first_id"], row["second_id"]), (row["first_name"], row["second_name"]),
            row["hands"], row["hands_won"], row["jifen"],
            row["dealer_hands"], row["dealer_won"], row["dealer_jifen"],
            row["attacker_hands"], row["attacker_won"], row["attacker_jifen"],
        )
        for row in rows
    ]
