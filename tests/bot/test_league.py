"""A league of mixed hands played by the real service and engine; every figure of /stats and /leaderboard.

Two matches in one group: a redeal, normal hands, an escape in each phase
(bidding, burying, stealing: free; playing: it costs), and a hand the AI
finished for an absent person.  The expected lines are worked out here from
the engine's own hand records and who held each seat when each hand ended:
a hand counts for a person only if they played it to its end in that seat;
an escape is a loss for the escaper (if it cost anything) and nothing for
anyone else; redeals count for nobody.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest

import storage
from bot.config import Settings
from bot.i18n import translator
from bot.league.standings import rank, table_text
from bot.model import Table
from bot.tables import Tables, seats
from engine.ai import choose_action
from engine.hand import Action, Hand
from engine.match import HandRecord
from engine.views import view_for

CHAT = -100777
PEOPLE = {1: "Ann", 2: "Bo", 3: "Cy", 4: "Di"}


class League:
    """The service, and the hands it settled with who was present in each seat at the end."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.settled: list[tuple[HandRecord, tuple[int | None, ...]]] = []
        self.rng = random.Random(5)

    async def open(self, seed: int) -> Table:
        table = await self.tables.new_table(CHAT, "League", 1, "en", "yancheng")
        for seat, (user_id, name) in enumerate(PEOPLE.items()):
            await self.tables.sit(table, user_id, name, "en", seat)
        self.tables.rng = random.Random(seed)
        await self.tables.start(table)
        return table

    async def act(self, table: Table, action: Action) -> None:
        present = tuple(info.user_id if seats.present(info) else None for info in table.seats)
        record = (await self.tables.act(table, action)).record
        if record is not None:
            self.settled.append((record, present))

    async def play(self, table: Table, until: Callable[[Hand], bool]) -> None:
        """Everyone plays as the AI would until ``until(hand)`` holds for the hand under way."""
        for _ in range(2000):
            assert table.match is not None
            hand = table.match.hand
            if until(hand):
                return
            seat = hand.awaiting()[0]
            action = choose_action(view_for(hand, seat), hand.ruleset, self.rng)
            await self.act(table, action if hand.can(action) else Action("pass", seat))
        raise AssertionError("never reached")

    async def next_hand(self, table: Table) -> None:
        assert table.match is not None
        number = table.match.deals
        await self.play(table, lambda h: table.match is not None and table.match.deals > number)

    async def escape(self, table: Table, seat: int) -> None:
        info = table.seats[seat]
        assert info is not None and info.user_id is not None
        await self.act(table, Action("escape", seat))
        assert table.seats[seat] is not None and table.seats[seat].is_ai  # type: ignore[union-attr]
        # The escaper was present when the hand ended: the record names them.
        record, present = self.settled[-1]
        self.settled[-1] = (record, tuple(info.user_id if s == seat else p for s, p in enumerate(present)))

    def expected(self) -> tuple[list[storage.PlayerStanding], list[storage.PartnershipStanding]]:
        """The league lines worked out from the engine's records."""
        lines: dict[int, list[int]] = defaultdict(lambda: [0] * 9)
        self.escapes: dict[int, int] = defaultdict(int)
        pairs: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0] * 9)

        def add(line: list[int], won: bool, score: int, dealer: bool) -> None:
            part = 3 if dealer else 6
            for base in (0, part):
                line[base] += 1
                line[base + 1] += int(won)
                line[base + 2] += score

        for record, present in self.settled:
            result = record.result
            if result is None:
                continue
            scores = [result.scores[s] + record.bonus[s] for s in range(4)]
            dealer_side = result.dealer_side if result.dealer_side is not None else 0
            if result.escaped is not None:
                who = present[result.escaped]
                if who is not None and scores[result.escaped] < 0:
                    add(lines[who], False, scores[result.escaped], result.escaped % 2 == dealer_side)
                    self.escapes[who] += 1
                continue
            winner = max((0, 1), key=lambda side: scores[side])
            for seat, who in enumerate(present):
                if who is not None:
                    add(lines[who], seat % 2 == winner, scores[seat], seat % 2 == dealer_side)
            for seat in (0, 1):
                a, b = present[seat], present[seat + 2]
                if a is not None and b is not None:
                    add(pairs[(min(a, b), max(a, b))], seat % 2 == winner, scores[seat] + scores[seat + 2],
                        seat % 2 == dealer_side)
        players = [storage.PlayerStanding(uid, PEOPLE[uid], *line) for uid, line in lines.items()]
        players.sort(key=lambda p: (-p.jifen, -p.hands_won, -p.hands, p.user_id))
        duos = [storage.PartnershipStanding(ids, (PEOPLE[ids[0]], PEOPLE[ids[1]]), *line)
                for ids, line in pairs.items()]
        duos.sort(key=lambda p: (-p.jifen, -p.hands_won, -p.hands, p.user_ids))
        return players, duos


@pytest.fixture
async def league(tmp_path: Path):  # type: ignore[no-untyped-def]
    db = await storage.open_database(tmp_path / "league.db")
    await storage.upsert_chat(db, CHAT, "League")
    for user_id, name in PEOPLE.items():
        await storage.upsert_user(db, user_id, name)
    try:
        yield League(Tables(db, Settings(token="1:league", hand_pause=0.0)))
    finally:
        await db.close()


async def test_every_figure_of_stats_and_leaderboard_after_a_mixed_league(league: League) -> None:
    tables = league.tables
    table = await league.open(seed=11)
    assert table.match is not None
    # Hand 1: nobody bids, the cards are dealt again (a redeal).
    for seat in range(4):
        await league.act(table, Action("pass", seat))
    assert league.settled[-1][0].result is None
    await league.next_hand(table)  # a normal hand
    # An escape in each phase before any card is played (free): bidding, burying, stealing.
    phases = []
    for phase in ("bidding", "burying", "stealing"):
        await league.play(table, lambda h, phase=phase: h.phase == phase or h.cards_played)
        hand = table.match.hand
        if hand.phase == phase:
            phases.append(phase)
            await league.escape(table, next(s for s in range(4) if seats.present(table.seats[s])))
    await tables.stop(table)

    table = await league.open(seed=12)
    await league.next_hand(table)
    await league.next_hand(table)  # two normal hands
    # An escape during the tricks costs.
    await league.play(table, lambda h: h.phase == "playing" and len(h.tricks) >= 2)
    phases.append("playing")
    await league.escape(table, 2)
    # Bo is away (the AI plays for him) when the next hand ends: it does not count for him.
    bo = table.seats[1]
    assert bo is not None
    await league.play(table, lambda h: h.phase == "playing")
    await seats.set_away(tables, table, 1, bo, True)
    await league.next_hand(table)
    await seats.set_away(tables, table, 1, bo, False)
    await league.next_hand(table)

    kinds = [("redeal" if r.result is None else "escape" if r.result.escaped is not None else "normal")
             for r, _present in league.settled]
    assert phases == ["bidding", "burying", "stealing", "playing"], phases
    assert kinds.count("redeal") >= 1 and kinds.count("escape") == 4 and kinds.count("normal") >= 4, kinds
    costly = [r for r, _p in league.settled if r.result is not None and r.result.escaped is not None
              and r.result.scores[r.result.escaped] < 0]
    assert len(costly) == 1, "only the escape during the tricks costs"

    players, pairs = league.expected()
    assert await storage.player_standings(tables.db, CHAT) == players
    assert await storage.partnership_standings(tables.db, CHAT) == pairs
    # The league's own lines: the same figures, the escapes that cost, no match won (none was finished).
    lines = await storage.league_lines(tables.db, CHAT)
    assert [(one.user_id, one.hands, one.hands_won, one.jifen, one.dealer_hands, one.dealer_won, one.dealer_jifen,
             one.attacker_hands, one.attacker_won, one.attacker_jifen, one.escapes, one.matches_won) for one in lines] == [
        (p.user_id, p.hands, p.hands_won, p.jifen, p.dealer_hands, p.dealer_won, p.dealer_jifen,
         p.attacker_hands, p.attacker_won, p.attacker_jifen, league.escapes.get(p.user_id, 0), 0) for p in players]
    assert sum(one.escapes for one in lines) == 1
    assert await storage.partnership_lines(tables.db, CHAT) == pairs
    expected_lines = [storage.LeagueLine(p.user_id, p.display_name, p.hands, p.hands_won, p.jifen, 0,
                                         league.escapes.get(p.user_id, 0), p.dealer_hands, p.dealer_won,
                                         p.dealer_jifen, line.last_at)
                      for p, line in zip(players, lines)]
    for lang in ("zh", "en"):
        tr = translator(lang)
        for minimum in (0, 3, 100):
            assert table_text(tr, "League", rank(lines, pairs, minimum)) == table_text(
                tr, "League", rank(expected_lines, pairs, minimum))


async def test_history_names_the_lap_the_last_result_named(league: League) -> None:
    """Issue 55: /history said 「打 3（第 3 圈）」 where the result said 第 2 圈.  The service stores each side's
    lap after a hand; /history shows it as the result's standing line does."""
    from bot.league.board import League as Board
    from bot.league.history import history_text
    from bot.story import standing
    from engine.levels import SideLevel

    table = await league.open(3)
    assert table.match is not None
    table.match.sides = (SideLevel(2, 9), SideLevel(3, 5))  # a match far on: laps 2 and 3
    number = table.match.deals
    await league.play(table, lambda h: table.match is not None and table.match.deals > number)
    record = next(r for r, _ in reversed(league.settled) if r.result is not None)
    zh = translator("zh")
    said = standing(zh, record.after, 3)  # 「南北 打 J（第 2 圈）  ·  东西 打 5（第 3 圈）」
    text, _ = await history_text(Board(league.tables.db, bot_username="b", public_url=None), zh, CHAT)
    for side in (0, 1):
        lap = f"（第 {record.after[side].lap} 圈）"
        assert lap in said and lap in text.split("\n")[4], (said, text)
