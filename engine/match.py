"""A match: both sides' levels (and laps), hand after hand, to the preset's end (RULES.md §2.14–2.15).

Level movement lives here: the climb ends at A (decision 13), must-play
levels stop a jump (A29), 盐城's laps 1–2 wrap A to 2 of the next lap, only
winning as the dealer side at A passes it and the preset's ``after_ace``
follows (the match is won, the flag hand (扛旗) is dealt, or 安徽 pays its end
bonus), 上天入地 and J到底 set levels outright.  Each :class:`HandRecord`
tells both sides' :class:`LevelMove`.  A :class:`Match` is rebuilt from its start and the actions of its
hands, like a hand.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.cards import ACE
from engine.errors import IllegalActionError
from engine.frozen import builder
from engine.hand import Action, Event, Hand, HandSetup, next_seat, side_of
from engine.levels import RANKS_PER_LAP, LevelMove, MoveReason, SideLevel
from engine.notices import Notice
from engine.ruleset import Ruleset
from engine.special import HandResult

__all__ = ["Applied", "HandRecord", "LevelMove", "Match", "MatchStart", "MoveReason", "SideLevel"]

@dataclass(frozen=True, slots=True)
class MatchStart:
    """Where a match starts: both sides' levels, and (to continue a league) who deals."""

    sides: tuple[SideLevel, SideLevel] = (SideLevel(), SideLevel())
    dealer_side: int | None = None
    previous_dealer: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"sides": [[s.lap, s.rank, s.at_flag] for s in self.sides],
                "dealer_side": self.dealer_side, "previous_dealer": self.previous_dealer}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchStart:
        """The inverse of :meth:`to_dict`."""
        a, b = (SideLevel(int(s[0]), int(s[1]), bool(s[2])) for s in data["sides"])
        return cls((a, b), data["dealer_side"], data["previous_dealer"])


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A hand played in the match, with the levels before and after it."""

    number: int
    seed: int
    setup: HandSetup
    result: HandResult | None
    """None for a redeal."""
    before: tuple[SideLevel, SideLevel]
    after: tuple[SideLevel, SideLevel]
    moves: tuple[LevelMove, LevelMove]
    """Each side's level move as it happened (decision 17)."""
    bonus: tuple[int, int, int, int] = (0, 0, 0, 0)
    """安徽's end-of-game bonus paid with this hand."""
    winner_side: int | None = None
    """The side that won the match with this hand, if it did."""


@dataclass(frozen=True, slots=True)
class Applied:
    """What one action did to the match: the hand's event and, if the action ended the hand, its record."""

    event: Event
    record: HandRecord | None = None
    """The hand's record when this action ended it (the next hand is then dealt, unless the match is won)."""

    @property
    def notices(self) -> tuple[Notice, ...]:
        """The public facts the action told (a failed throw, red fives), as the event carries them."""
        return self.event.notices


_APPLIED = builder(Applied)
"""An :class:`Applied` from both its fields (built at every action of a match)."""


class Match:
    """A match of hands; the current hand is :attr:`hand`."""

    def __init__(self, ruleset: Ruleset, seed: int, start: MatchStart | None = None, *,
                 history: bool = True) -> None:
        self.ruleset = ruleset
        self.history = history
        """Keep every finished hand's record and actions (:attr:`records`, :meth:`to_dict`).  A host that
        stores each hand itself passes False: a match may last many hands, and a long-running process
        would otherwise hold them all."""
        self.seed = seed
        self.start = start or MatchStart()
        for side in self.start.sides:
            if side.lap > ruleset.laps or not 2 <= side.rank <= ACE:
                raise IllegalActionError("A starting level is outside this preset's laps or ranks.", code="bad_setup")
        self.sides: tuple[SideLevel, SideLevel] = self.start.sides
        self.dealer_side: int | None = self.start.dealer_side
        self.previous_dealer: int | None = self.start.previous_dealer
        self.previous_last_winner: int | None = None
        self.records: list[HandRecord] = []
        self.scores = [0, 0, 0, 0]
        self.winner_side: int | None = None
        self.deals = 0
        self.hands_played = 0
        self.past_actions: list[list[Action]] = []
        """The actions of every finished hand (redeals and escapes included)."""
        self.checkpoint: dict[str, Any] = self._checkpoint()
        """The match's state before the current hand was dealt (see :meth:`resume`)."""
        self.hand: Hand = self._deal()

    @property
    def over(self) -> bool:
        """True once a side has won the match."""
        return self.winner_side is not None

    def hand_seed(self, index: int) -> int:
        """The seed of the index-th deal of the match (redeals included)."""
        return random.Random(f"{self.seed}/{index}").getrandbits(63)

    def _deal(self) -> Hand:
        seed = self.hand_seed(self.deals)
        self.deals += 1
        number = self.hands_played + 1
        levels = (self.sides[0].rank, self.sides[1].rank)
        flag = self.dealer_side is not None and self.sides[self.dealer_side].at_flag
        flag_dealer = None
        if flag:
            assert self.dealer_side is not None
            flag_dealer = self._flag_dealer(self.dealer_side)
        setup = HandSetup(self.ruleset, seed, number, levels, self.dealer_side, self.previous_dealer,
                          flag, flag_dealer)
        return Hand(setup)

    def _flag_dealer(self, side: int) -> int:
        """A30: the side's winner of the last trick, else the previous dealer (or the seat after)."""
        if self.previous_last_winner is not None and side_of(self.previous_last_winner) == side:
            return self.previous_last_winner
        prev = self.previous_dealer if self.previous_dealer is not None else side
        return prev if side_of(prev) == side else next_seat(prev)

    def apply(self, action: Action) -> Applied:
        """Apply an action to the current hand; when the hand ends, settle it and deal the next.

        Returns the hand's event, with the :class:`HandRecord` if the hand ended.
        """
        if self.over:
            raise IllegalActionError("The match is over.", code="match_over")
        event = self.hand.apply(action)
        if not self.hand.over:
            return _APPLIED(event, None)
        if self.history:
            self.past_actions.append(self.hand.actions)
        record = self._settle(self.hand)
        self.checkpoint = self._checkpoint()
        if not self.over:
            self.hand = self._deal()
        return Applied(event, record)

    # --- settlement -------------------------------------------------------------------
    def _settle(self, hand: Hand) -> HandRecord:
        before = self.sides
        setup = hand.setup
        result = hand.result
        bonus = (0, 0, 0, 0)
        if hand.phase == "redeal":
            return self._record(setup, None, before, self._still(before, MoveReason.REDEAL))
        assert result is not None
        self.hands_played += 1
        for seat in range(4):
            self.scores[seat] += result.scores[seat]
        if hand.phase == "abandoned":
            return self._record(setup, result, before, self._still(before, MoveReason.ESCAPE))
        assert hand.dealer_side is not None and result.outcome is not None
        dealer_side = hand.dealer_side
        attackers = 1 - dealer_side
        outcome = result.outcome
        self.previous_dealer = hand.dealer
        self.previous_last_winner = hand.tricks[-1].winner if hand.tricks else None
        sides = list(self.sides)
        table = [0, 0]
        table[dealer_side if outcome.dealer_keeps else attackers] = outcome.levels
        reasons: list[MoveReason | None] = [None, None]
        next_dealer_side = dealer_side if outcome.dealer_keeps else attackers
        passed_ace: int | None = None
        if setup.flag:
            if outcome.dealer_keeps:
                self.winner_side = dealer_side
                reasons = [MoveReason.FLAG_WON, MoveReason.FLAG_WON]
            else:
                # A failed flag side keeps owing the flag hand; the attackers take over at their level.
                reasons = [MoveReason.FLAG_FAILED, MoveReason.FLAG_FAILED]
        elif result.heaven_and_earth_side is not None:
            winners = result.heaven_and_earth_side
            sides[winners] = SideLevel(self.ruleset.laps, ACE)
            sides[1 - winners] = SideLevel(1, 2)
            next_dealer_side = winners
            reasons = [MoveReason.HEAVEN_AND_EARTH, MoveReason.HEAVEN_AND_EARTH]
        elif result.demoted_to is not None:
            sides[dealer_side] = replace(sides[dealer_side], rank=result.demoted_to)
            reasons[dealer_side] = MoveReason.DEMOTED
            if not outcome.dealer_keeps:
                sides[attackers], _, reasons[attackers] = self._rise(sides[attackers], outcome.levels,
                                                                    as_dealer=False)
        elif outcome.dealer_keeps:
            sides[dealer_side], passed, reasons[dealer_side] = self._rise(sides[dealer_side], outcome.levels,
                                                                          as_dealer=True)
            if passed:
                passed_ace = dealer_side
        else:
            sides[attackers], _, reasons[attackers] = self._rise(sides[attackers], outcome.levels, as_dealer=False)
        if passed_ace is not None:
            after_ace = self.ruleset.after_ace
            if after_ace == "flag_hand":
                sides[passed_ace] = replace(sides[passed_ace], at_flag=True)
            else:
                self.winner_side = passed_ace
                if after_ace == "anhui_bonus":
                    bonus = self._anhui_bonus(passed_ace, sides[1 - passed_ace].rank)
                    for seat in range(4):
                        self.scores[seat] += bonus[seat]
        self.sides = (sides[0], sides[1])
        self.dealer_side = next_dealer_side
        moves = (LevelMove(0, before[0], self.sides[0], table[0], reasons[0]),
                 LevelMove(1, before[1], self.sides[1], table[1], reasons[1]))
        return self._record(setup, result, before, moves, bonus)

    @staticmethod
    def _still(sides: tuple[SideLevel, SideLevel], reason: MoveReason) -> tuple[LevelMove, LevelMove]:
        """Both sides' moves for a hand that moved no level (a redeal, an escape)."""
        return (LevelMove(0, sides[0], sides[0], 0, reason), LevelMove(1, sides[1], sides[1], 0, reason))

    def _record(self, setup: HandSetup, result: HandResult | None, before: tuple[SideLevel, SideLevel],
                moves: tuple[LevelMove, LevelMove], bonus: tuple[int, int, int, int] = (0, 0, 0, 0)) -> HandRecord:
        record = HandRecord(setup.number, setup.seed, setup, result, before, self.sides, moves, bonus,
                            self.winner_side)
        if self.history:
            self.records.append(record)
        return record

    def _must_play(self) -> set[int]:
        """Absolute positions that a jump may not pass."""
        r = self.ruleset
        stops = {(lap - 1) * RANKS_PER_LAP + m - 2 for lap in range(1, r.laps + 1) for m in r.must_play}
        if r.laps > 1:
            stops.add(r.laps * RANKS_PER_LAP - 1)  # A of the last lap
        return stops

    def _rise(self, side: SideLevel, levels: int, *, as_dealer: bool) -> tuple[SideLevel, bool, MoveReason | None]:
        """Move a side up; return its new level, whether it passed the last A, and why the move
        is not ``levels`` when it is not.

        Decision 13: the climb ends at A.  A jump stops at the first must-play
        level above the start and never goes beyond the last A (盐城's laps 1–2
        wrap instead); a side that takes over at an unpassed must-play level
        stays there; only the dealer side winning while at the last A passes it.
        """
        last = self.ruleset.laps * RANKS_PER_LAP - 1
        start = side.index()
        if levels <= 0:
            return side, False, None
        if as_dealer and start == last:
            return side, True, MoveReason.PASSED_ACE
        stops = self._must_play()
        if not as_dealer and start in stops:
            return side, False, MoveReason.MUST_PLAY
        target = start + levels
        reason: MoveReason | None = None
        stop = min((m for m in stops if start < m), default=None)
        if stop is not None and target > stop:
            target, reason = stop, MoveReason.MUST_PLAY
        if target > last:
            target, reason = last, MoveReason.STOPPED_AT_ACE
        after = SideLevel.at(target, side.at_flag)
        if reason is None and after.lap != side.lap:
            reason = MoveReason.LAP_WRAP
        return after, False, reason

    @staticmethod
    def _anhui_bonus(winners: int, loser_rank: int) -> tuple[int, int, int, int]:
        """安徽's end bonus by the losers' level: 2 → 5, 3–6 → 4, 7–10 → 3, J–K → 2, A → 1 (A37)."""
        if loser_rank == 2:
            amount = 5
        elif loser_rank <= 6:
            amount = 4
        elif loser_rank <= 10:
            amount = 3
        elif loser_rank < ACE:
            amount = 2
        else:
            amount = 1
        return tuple(amount if seat % 2 == winners else -amount for seat in range(4))  # type: ignore[return-value]

    # --- persistence --------------------------------------------------------------------
    def _checkpoint(self) -> dict[str, Any]:
        return {
            "version": 1, "seed": self.seed, "start": self.start.to_dict(),
            "sides": [x.to_list() for x in self.sides],
            "dealer_side": self.dealer_side, "previous_dealer": self.previous_dealer,
            "previous_last_winner": self.previous_last_winner, "scores": list(self.scores),
            "winner_side": self.winner_side, "deals": self.deals, "hands_played": self.hands_played,
        }

    @classmethod
    def resume(cls, ruleset: Ruleset, checkpoint: Mapping[str, Any], actions: Sequence[Action] = (), *,
               history: bool = True) -> Match:
        """Rebuild a match from a :attr:`checkpoint` and the current hand's actions.

        A checkpoint is taken at every hand boundary, so a long match need not
        be replayed from its first hand; the current hand still replays from
        its log.  Past hands' records are not restored; ``history`` is as for
        a new match.
        """
        if checkpoint.get("version") != 1:
            raise IllegalActionError("Unknown match checkpoint version.", code="bad_version")
        match = cls.__new__(cls)
        match.ruleset = ruleset
        match.history = history
        match.seed = int(checkpoint["seed"])
        match.start = MatchStart.from_dict(checkpoint["start"])
        a, b = (SideLevel(int(x[0]), int(x[1]), bool(x[2])) for x in checkpoint["sides"])
        match.sides = (a, b)
        match.dealer_side = checkpoint["dealer_side"]
        match.previous_dealer = checkpoint["previous_dealer"]
        match.previous_last_winner = checkpoint["previous_last_winner"]
        match.records = []
        match.scores = [int(x) for x in checkpoint["scores"]]
        match.winner_side = checkpoint["winner_side"]
        match.deals = int(checkpoint["deals"])
        match.hands_played = int(checkpoint["hands_played"])
        match.past_actions = []
        match.checkpoint = dict(checkpoint)
        match.hand = match._deal()
        for action in actions:
            match.apply(action)
        return match

    def to_dict(self) -> dict[str, Any]:
        """Ruleset, seed, start and every hand's actions: enough to replay the match.

        Raises :class:`ValueError` for a match that keeps no history.
        """
        if not self.history:
            raise ValueError("This match keeps no history of its hands.")
        hands = self.past_actions + ([] if self.over else [self.hand.actions])
        return {"version": 1, "ruleset": self.ruleset.to_dict(), "seed": self.seed,
                "start": self.start.to_dict(), "hands": [[a.to_dict() for a in h] for h in hands]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Match:
        """Replay a match from :meth:`to_dict` data."""
        if data.get("version") != 1:
            raise IllegalActionError("Unknown match format version.", code="bad_version")
        match = cls(Ruleset.from_dict(data["ruleset"]), int(data["seed"]), MatchStart.from_dict(data["start"]))
        match.replay([[Action.from_dict(a) for a in hand] for hand in data["hands"]])
        return match

    def replay(self, hands: Sequence[Sequence[Action]]) -> None:
        """Apply the actions of each hand in turn (the current hand last)."""
        for actions in hands:
            for action in actions:
                self.apply(action)
