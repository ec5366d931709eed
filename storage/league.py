"""A group's league over a stretch of time (a season, or all time), counted from the stored results.

Nothing here is stored: every figure is counted, each time, from
``hand_results`` and ``hand_result_seats`` (whom a hand counts for is the
seat's ``outcome``: an AI seat, a person the AI played for and everyone
but a costly escape's escaper count for nobody), from ``matches`` (who won
a match: the people who played its last hand on the winning side) and from
the engine's record of each hand kept with its result (``special``: the
escaper's seat, the 逼红5/保红5 notices).  Every query starts from the
group's own results in the stretch (``hand_results_by_chat``: the group and
the time its results were stored), so a group's season costs what its hands
in that season cost, whatever it played before or other groups play.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from storage.db import Database
from storage.records import PartnershipStanding
from storage.standings import FOREVER

# The group's scored hands in the window: one range of the index hand_results_by_chat, read once per statement.
_HANDS = """hs AS MATERIALIZED (
    SELECT r.hand_id AS hand_id, r.dealer_side AS dealer_side, r.created_at AS created_at
    FROM hand_results AS r
    WHERE r.chat_id = :chat AND r.created_at >= :since AND r.created_at < :until
)"""

_LINES_SQL = f"""
WITH {_HANDS},
counted AS (
    SELECT s.user_id AS user_id,
           COUNT(*) AS hands,
           SUM(s.outcome = 'won') AS hands_won,
           SUM(s.score) AS jifen,
           SUM(s.seat % 2 = hs.dealer_side) AS dealer_hands,
           SUM(s.seat % 2 = hs.dealer_side AND s.outcome = 'won') AS dealer_won,
           SUM(CASE WHEN s.seat % 2 = hs.dealer_side THEN s.score ELSE 0 END) AS dealer_jifen,
           MAX(hs.created_at) AS last_at
    FROM hs JOIN hand_result_seats AS s ON s.hand_id = hs.hand_id
    WHERE s.outcome IS NOT NULL AND s.user_id IS NOT NULL
    GROUP BY s.user_id
),
escapes AS (  -- from the partial index of escapes: the special records of other hands are never read
    SELECT s.user_id AS user_id, COUNT(*) AS escapes
    FROM hand_results AS r INDEXED BY hand_results_escapes
    JOIN hand_result_seats AS s ON s.hand_id = r.hand_id AND s.seat = json_extract(r.special, '$.escaped')
    WHERE json_extract(r.special, '$.escaped') IS NOT NULL AND s.outcome = 'lost'
      AND r.chat_id = :chat AND r.created_at >= :since AND r.created_at < :until
    GROUP BY s.user_id
),
wins AS (
    SELECT s.user_id AS user_id, COUNT(*) AS matches_won
    FROM tables AS t
    JOIN matches AS m ON m.table_id = t.table_id
    JOIN hand_results AS r ON r.hand_id = (
        SELECT h.hand_id FROM hands AS h JOIN hand_results AS hr ON hr.hand_id = h.hand_id
        WHERE h.match_id = m.match_id ORDER BY h.number DESC LIMIT 1)
    JOIN hand_result_seats AS s ON s.hand_id = r.hand_id
    WHERE t.chat_id = :chat AND m.status = 'finished' AND m.winner_side IS NOT NULL
      AND s.seat % 2 = m.winner_side AND s.outcome IS NOT NULL AND s.user_id IS NOT NULL
      AND r.created_at >= :since AND r.created_at < :until
    GROUP BY s.user_id
)
SELECT c.*, COALESCE(u.display_name, CAST(c.user_id AS TEXT)) AS display_name,
       COALESCE(e.escapes, 0) AS escapes, COALESCE(w.matches_won, 0) AS matches_won
FROM counted AS c
LEFT JOIN escapes AS e ON e.user_id = c.user_id
LEFT JOIN wins AS w ON w.user_id = c.user_id
LEFT JOIN users AS u ON u.user_id = c.user_id
ORDER BY c.jifen DESC, c.hands_won DESC, c.user_id
"""

_PAIRS_SQL = f"""
WITH {_HANDS},
pairs AS (
    SELECT MIN(a.user_id, b.user_id) AS first_id, MAX(a.user_id, b.user_id) AS second_id,
           a.outcome = 'won' AS won, a.seat % 2 = hs.dealer_side AS as_dealer, a.score + b.score AS score
    FROM hs
    JOIN hand_result_seats AS a ON a.hand_id = hs.hand_id AND a.seat < 2
    JOIN hand_result_seats AS b ON b.hand_id = hs.hand_id AND b.seat = a.seat + 2
    WHERE a.outcome IS NOT NULL AND b.outcome IS NOT NULL AND a.user_id IS NOT NULL AND b.user_id IS NOT NULL
)
SELECT p.first_id AS first_id, p.second_id AS second_id,
       COALESCE(u1.display_name, CAST(p.first_id AS TEXT)) AS first_name,
       COALESCE(u2.display_name, CAST(p.second_id AS TEXT)) AS second_name,
       COUNT(*) AS hands, SUM(p.won) AS hands_won, SUM(p.score) AS jifen,
       SUM(p.as_dealer) AS dealer_hands, SUM(p.as_dealer * p.won) AS dealer_won,
       SUM(p.as_dealer * p.score) AS dealer_jifen,
       SUM(1 - p.as_dealer) AS attacker_hands, SUM((1 - p.as_dealer) * p.won) AS attacker_won,
       SUM((1 - p.as_dealer) * p.score) AS attacker_jifen
FROM pairs AS p
LEFT JOIN users AS u1 ON u1.user_id = p.first_id
LEFT JOIN users AS u2 ON u2.user_id = p.second_id
GROUP BY p.first_id, p.second_id
ORDER BY jifen DESC, hands_won DESC, hands DESC, p.first_id, p.second_id
"""

_SERIES_SQL = f"""
WITH {_HANDS}
SELECT hs.hand_id AS hand_id, hs.created_at AS created_at, s.user_id AS user_id, s.score AS score
FROM hs JOIN hand_result_seats AS s ON s.hand_id = hs.hand_id
WHERE s.outcome IS NOT NULL AND s.user_id IS NOT NULL
ORDER BY hs.created_at, hs.hand_id, s.seat
"""

# The chart's lines, sampled in SQL: the group's counted hands numbered in order (n from 0), and each
# asked-for person's 积分 summed per sample bucket (the hands after one sampled hand up to the next, which
# shows them); the running totals are the sums of the buckets.  Rows: people asked for x sampled hands, at
# most, whatever the group's history.  :q is the cap less one; a stretch of at most :cap hands keeps them all.
_SAMPLED_SQL = f"""
WITH {_HANDS},
counted AS MATERIALIZED (
    SELECT hs.hand_id AS hand_id, ROW_NUMBER() OVER (ORDER BY hs.created_at, hs.hand_id) - 1 AS n
    FROM hs
    WHERE EXISTS (SELECT 1 FROM hand_result_seats AS s WHERE s.hand_id = hs.hand_id
                  AND s.outcome IS NOT NULL AND s.user_id IS NOT NULL)
),
total AS MATERIALIZED (SELECT COUNT(*) AS hands FROM counted),
sums AS (
    SELECT s.user_id AS user_id,
           CASE WHEN t.hands <= :cap THEN c.n
                WHEN (c.n * :q + t.hands - 1) / t.hands >= :q THEN t.hands - 1
                ELSE ((c.n * :q + t.hands - 1) / t.hands) * t.hands / :q END AS x,
           SUM(s.score) AS score
    FROM counted AS c JOIN hand_result_seats AS s ON s.hand_id = c.hand_id, total AS t
    WHERE s.outcome IS NOT NULL AND s.user_id IN (SELECT value FROM json_each(:users))
    GROUP BY s.user_id, x
)
SELECT (SELECT hands FROM total) AS hands, g.user_id AS user_id, g.x AS x, g.score AS score
FROM (SELECT 1) LEFT JOIN sums AS g
ORDER BY g.user_id, g.x
"""

_RED_FIVES_SQL = f"""
WITH {_HANDS}
SELECT json_extract(n.value, '$.kind') AS kind,
       json_extract(n.value, '$.seat') = s.seat AS mine,
       json_extract(n.value, '$.seat') % 2 = s.seat % 2 AS my_side,
       COUNT(*) AS times
FROM hs
JOIN hand_result_seats AS s ON s.hand_id = hs.hand_id
JOIN hand_results AS r ON r.hand_id = hs.hand_id,
json_each(r.special, '$.notices') AS n
WHERE s.user_id = :user AND s.outcome IS NOT NULL
  AND json_extract(n.value, '$.kind') IN ('red5_forced', 'red5_kept')
GROUP BY kind, mine, my_side
"""


@dataclass(frozen=True, slots=True)
class LeagueLine:
    """A person's line in a group's league over a stretch of time.

    "As dealer" counts the hands their side was the dealer side (庄家), the
    rest were played as attackers.  ``escapes`` counts the escapes that
    cost them something (a free leave before any card is no escape);
    ``matches_won`` the matches whose last hand they played on the winning
    side; ``last_at`` is when their last counted hand ended.
    """

    user_id: int
    display_name: str
    hands: int
    hands_won: int
    jifen: int
    matches_won: int
    escapes: int
    dealer_hands: int
    dealer_won: int
    dealer_jifen: int
    last_at: float

    @property
    def attacker_hands(self) -> int:
        """Hands played as attackers."""
        return self.hands - self.dealer_hands

    @property
    def attacker_won(self) -> int:
        """Hands won as attackers."""
        return self.hands_won - self.dealer_won

    @property
    def attacker_jifen(self) -> int:
        """积分 as attackers."""
        return self.jifen - self.dealer_jifen


@dataclass(frozen=True, slots=True)
class SeriesPoint:
    """One person's 积分 from one hand (the chart's raw data), in the order the hands ended."""

    hand_id: int
    created_at: float
    user_id: int
    score: int


@dataclass(frozen=True, slots=True)
class JifenSeries:
    """The chart's lines over a stretch, sampled: ``hands`` counted hands in all; for each person asked for,
    their 积分 after each sampled hand as (hand number from 1, 积分), in order.

    Every line has the same hand numbers: at most the cap of them, the
    stretch's last hand always among them (so each line ends on the person's
    积分 over the whole stretch).  A person's 积分 is 0 before their first hand.
    """

    hands: int
    lines: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RedFives:
    """A person's red fives over their counted hands: 逼红5 their side forced out of the other side, their own
    red fives forced out (被逼红5), and their red fives kept to the last trick (保红5)."""

    forced: int
    forced_out_of_me: int
    kept: int


def _window(chat_id: int, since: float, until: float | None) -> dict[str, object]:
    return {"chat": chat_id, "since": since, "until": FOREVER if until is None else until}


async def league_lines(db: Database, chat_id: int, *, since: float = 0.0,
                       until: float | None = None) -> list[LeagueLine]:
    """Every person with a counted hand in the group between ``since`` and ``until``, best 积分 first."""
    rows = await db.fetchall(_LINES_SQL, _window(chat_id, since, until))
    return [LeagueLine(row["user_id"], row["display_name"], row["hands"], row["hands_won"], row["jifen"],
                       row["matches_won"], row["escapes"], row["dealer_hands"], row["dealer_won"],
                       row["dealer_jifen"], row["last_at"]) for row in rows]


async def partnership_lines(db: Database, chat_id: int, *, since: float = 0.0,
                            until: float | None = None) -> list[PartnershipStanding]:
    """Every pair of partners who both counted in a hand of the window, best 积分 first (as
    :func:`storage.partnership_standings`, which reads the ``result_rows`` view)."""
    rows = await db.fetchall(_PAIRS_SQL, _window(chat_id, since, until))
    return [PartnershipStanding(
        (row["first_id"], row["second_id"]), (row["first_name"], row["second_name"]),
        row["hands"], row["hands_won"], row["jifen"], row["dealer_hands"], row["dealer_won"], row["dealer_jifen"],
        row["attacker_hands"], row["attacker_won"], row["attacker_jifen"]) for row in rows]


async def jifen_series(db: Database, chat_id: int, *, since: float = 0.0,
                       until: float | None = None) -> list[SeriesPoint]:
    """Each counted seat's 积分 of every hand in the window, in the order the hands ended."""
    rows = await db.fetchall(_SERIES_SQL, _window(chat_id, since, until))
    return [SeriesPoint(row["hand_id"], row["created_at"], row["user_id"], row["score"]) for row in rows]


def sampled_hands(hands: int, cap: int) -> list[int]:
    """The hands (numbered from 0) a chart of ``hands`` hands keeps with at most ``cap`` points: all of them,
    or ``cap - 1`` evenly spaced from the first, and the last."""
    if cap < 2:
        raise ValueError("a sampled line needs two points at least")
    if hands <= cap:
        return list(range(hands))
    q = cap - 1
    return sorted({i * hands // q for i in range(q)} | {hands - 1})


async def jifen_lines(db: Database, chat_id: int, user_ids: Iterable[int], *, cap: int, since: float = 0.0,
                      until: float | None = None) -> JifenSeries:
    """The sampled 积分 lines of these people over the window (see :class:`JifenSeries`), counted and sampled
    by SQLite: the rows read back are at most ``len(user_ids) x cap``, whatever the group's history."""
    wanted = sorted(set(user_ids))
    rows = await db.fetchall(_SAMPLED_SQL, {**_window(chat_id, since, until), "users": json.dumps(wanted),
                                            "cap": cap, "q": cap - 1})
    hands = int(rows[0]["hands"]) if rows else 0
    sums: dict[int, dict[int, int]] = {user_id: {} for user_id in wanted}
    for row in rows:
        if row["user_id"] is not None:
            sums[int(row["user_id"])][int(row["x"])] = int(row["score"])
    xs = sampled_hands(hands, cap) if hands else []
    return JifenSeries(hands, {user_id: _summed(xs, at) for user_id, at in sums.items()})


def sample_series(series: Sequence[SeriesPoint], user_ids: Iterable[int], *, cap: int) -> JifenSeries:
    """What :func:`jifen_lines` answers, from the whole series (:func:`jifen_series`) in Python: the
    reference the SQL is tested against, and for series made up by tests."""
    numbers: dict[int, int] = {}
    for point in series:
        numbers.setdefault(point.hand_id, len(numbers))
    hands = len(numbers)
    xs = sampled_hands(hands, cap) if hands else []
    wanted = set(user_ids)
    sums: dict[int, dict[int, int]] = {user_id: {} for user_id in wanted}
    for point in series:
        if point.user_id in wanted:
            x = _bucket(numbers[point.hand_id], hands, cap)
            sums[point.user_id][x] = sums[point.user_id].get(x, 0) + point.score
    return JifenSeries(hands, {user_id: _summed(xs, at) for user_id, at in sorted(sums.items())})


def _bucket(n: int, hands: int, cap: int) -> int:
    """The sampled hand that shows hand ``n`` (the first sampled hand at or after it), as in the SQL."""
    if hands <= cap:
        return n
    q = cap - 1
    i = (n * q + hands - 1) // hands
    return hands - 1 if i >= q else i * hands // q


def _summed(xs: Sequence[int], sums: dict[int, int]) -> tuple[tuple[int, int], ...]:
    """A line at every sampled hand: the person's 积分 up to it, the sum of the buckets so far (0 before their
    first hand)."""
    value, line = 0, []
    for x in xs:
        value += sums.get(x, 0)
        line.append((x + 1, value))
    return tuple(line)


async def red_fives(db: Database, chat_id: int, user_id: int, *, since: float = 0.0,
                    until: float | None = None) -> RedFives:
    """The 逼红5/保红5 of one person's counted hands, from the engine's notices stored with each result."""
    rows = await db.fetchall(_RED_FIVES_SQL, {**_window(chat_id, since, until), "user": user_id})
    forced = forced_out_of_me = kept = 0
    for row in rows:
        if row["kind"] == "red5_forced" and not row["my_side"]:
            forced += row["times"]
        elif row["kind"] == "red5_forced" and row["mine"]:
            forced_out_of_me += row["times"]
        elif row["kind"] == "red5_kept" and row["mine"]:
            kept += row["times"]
    return RedFives(forced, forced_out_of_me, kept)


async def counted_hands(db: Database, chat_id: int, *, since: float = 0.0, until: float | None = None) -> int:
    """How many of the group's hands in the window count for somebody."""
    row = await db.fetchone(
        f"""WITH {_HANDS} SELECT COUNT(*) FROM hs WHERE EXISTS (
                SELECT 1 FROM hand_result_seats AS s WHERE s.hand_id = hs.hand_id AND s.outcome IS NOT NULL
                AND s.user_id IS NOT NULL)""", _window(chat_id, since, until))
    return int(row[0]) if row is not None else 0


async def has_counted_hands(db: Database, chat_id: int, *, since: float = 0.0, until: float | None = None) -> bool:
    """True if a hand of the group in the window counts for somebody (stops at the first one found)."""
    row = await db.fetchone(
        """SELECT 1 FROM hand_results AS r
           WHERE r.chat_id = :chat AND r.created_at >= :since AND r.created_at < :until
             AND EXISTS (SELECT 1 FROM hand_result_seats AS s WHERE s.hand_id = r.hand_id
                         AND s.outcome IS NOT NULL AND s.user_id IS NOT NULL)
           LIMIT 1""", _window(chat_id, since, until))
    return row is not None


async def league_chats(db: Database, user_id: int) -> list[tuple[int, str]]:
    """The groups where this person held a seat in a scored hand (as :func:`played_in` says), with their titles,
    the most recent first."""
    rows = await db.fetchall(
        """SELECT r.chat_id AS chat_id, COALESCE(c.title, '') AS title, MAX(r.created_at) AS last_at
           FROM hand_result_seats AS s
           JOIN hand_results AS r ON r.hand_id = s.hand_id
           LEFT JOIN chats AS c ON c.chat_id = r.chat_id
           WHERE s.user_id = ?
           GROUP BY r.chat_id ORDER BY last_at DESC""", (user_id,))
    return [(int(row["chat_id"]), str(row["title"])) for row in rows]


async def played_in(db: Database, chat_id: int, user_id: int) -> bool:
    """True if this person held a seat in a scored hand of the group (counted or not)."""
    row = await db.fetchone(
        """SELECT 1 FROM hand_result_seats AS s JOIN hand_results AS r ON r.hand_id = s.hand_id
           WHERE s.user_id = ? AND r.chat_id = ? LIMIT 1""", (user_id, chat_id))
    return row is not None

