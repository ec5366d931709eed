"""A search's rollout: a sampled world played out by the strong player's heuristics on a light hand state.

A :class:`engine.hand.Hand` checks every action, records its event and
tells its notices: what a table needs, and much of the cost of a
rollout's play.  A :class:`Rollout` keeps only what playing out and scoring the hand
needs (the cards in hand, the trick so far, the points, the adjustments to
p, the red fives forced out and not yet settled) and applies the same rules
through the same functions (:func:`engine.throws.judge_throw`,
:func:`engine.follow.red_fives_forced`, :func:`engine.tricks.trick_winner_in`,
:mod:`engine.settle`), without checks: its players make legal plays by
construction, and a test plays rollouts through a checked :class:`Hand` too.
Its only check is of the searched play, the first (:meth:`Rollout.play_first`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.ai.following import single_choice
from engine.ai.memory import Knowledge
from engine.ai.playing import candidates
from engine.cards import RED_FIVE, Card
from engine.combos import classify
from engine.follow import check_follow, check_lead, red_fives_forced
from engine.hand import Trick
from engine.ruleset import Ruleset
from engine.scoring import Adjustment, trick_points
from engine.settle import red_fives_forced_out, red_fives_kept, score_last_trick
from engine.special import HandResult
from engine.throws import judge_throw, throw_penalty
from engine.tricks import trick_winner_in
from engine.trump import TrumpContext
from engine.views import HandView


class Table(Protocol):
    """What :func:`forced_play` asks of a hand in play: a :class:`engine.hand.Hand` or a :class:`Rollout`."""

    @property
    def ctx(self) -> TrumpContext:
        """The hand's trump context."""

    @property
    def hands(self) -> list[list[Card]]:
        """Each seat's cards."""

    @property
    def current(self) -> list[tuple[int, tuple[Card, ...]]]:
        """The trick so far."""


def forced_play(hand: Table, seat: int) -> tuple[Card, ...] | None:
    """The seat's one legal play, where the rules leave no choice (else None).

    A last card led; the last cards of a hand; as many cards of the led
    suit-group as the lead has (rule F1 asks for all of them); a single
    followed from both copies of one card and nothing else of the group; a
    pair followed where pairs must follow (rule F2) from the group's one
    pair.  About three in ten of a rollout's plays: the rollout plays them
    without asking its player, who could only give the same cards.
    """
    cards = hand.hands[seat]
    if not hand.current:
        return (cards[0],) if len(cards) == 1 else None
    lead = hand.current[0][1]
    if len(cards) == len(lead):
        return tuple(cards)
    ctx = hand.ctx
    group_of = ctx.group
    n = len(lead)
    if n == 1:  # a single led (most tricks): the group's one card, or both copies of one card
        group = group_of(lead[0])
        only: Card | None = None
        for c in cards:
            if group_of(c) == group:
                if only is None:
                    only = c
                elif c is not only:
                    return None  # two different cards of the group: a choice
        return None if only is None else (only,)
    shape = classify(ctx, lead)  # not the first card's group: a 5-10-K of hearts may hold the red five, a trump
    assert shape is not None
    group = shape.group
    in_group = tuple([c for c in cards if group_of(c) == group])
    if len(in_group) == n:
        return in_group
    if len(in_group) > n:
        if shape.kind == "pair" and ctx.ruleset.pairs_must_follow:
            pairs = [c for c in set(in_group) if in_group.count(c) == 2]
            if len(pairs) == 1:  # rule F2: the one pair of the group
                return (pairs[0], pairs[0])
    return None


class Rollout:
    """The play phase of a sampled world, for a rollout: what :class:`engine.hand.Hand` keeps to play and score it."""

    __slots__ = ("ctx", "ruleset", "hands", "kitty", "holder", "tricks", "current", "leader", "dealer_side",
                 "trick_points", "adjustments", "pending", "threshold", "levels", "flag", "knowledge", "result")

    def __new__(cls, *_args: object) -> Rollout:
        """An instance not yet initialised: :meth:`copy` fills one in without :meth:`__init__` (a class compiled
        by mypyc runs ``__init__`` in its allocator unless it has a ``__new__`` of its own)."""
        return object.__new__(cls)

    def __init__(self, view: HandView, ruleset: Ruleset, ctx: TrumpContext, hands: Sequence[Sequence[Card]],
                 kitty: Sequence[Card]) -> None:
        """The hand at the view's point of play, holding a sampled world's ``hands`` and ``kitty``."""
        assert view.dealer_side is not None and view.dealer is not None
        self.ctx = ctx
        self.ruleset = ruleset
        self.hands = [list(h) for h in hands]
        self.kitty = list(kitty)
        self.holder = view.kitty_holder
        """The seat that buried the kitty (and knows it), if any."""
        self.tricks: Sequence[Trick] = view.tricks
        """The tricks finished before the rollout (what the seats remember)."""
        self.current = [(s, tuple(c)) for s, c in view.current]
        self.leader = view.current[0][0] if view.current else (view.turn if view.turn is not None else view.dealer)
        self.dealer_side = view.dealer_side
        self.trick_points = view.trick_points
        self.adjustments: list[Adjustment] = list(view.adjustments)
        self.pending: list[tuple[int, int]] = []
        """Red fives forced out in the trick so far (seat, how many), settled when it ends (逼红5)."""
        self.threshold = view.threshold
        self.levels = view.levels
        self.flag = view.flag
        if view.current and ruleset.red5_bonus:
            lead = view.current[0][1]
            for s, played in view.current[1:]:
                forced = red_fives_forced(ctx, lead, self.hands[s] + list(played), played)
                if forced:
                    self.pending.append((s, forced))
        self.knowledge: Knowledge | None = None
        """Every seat's memory, once asked for (at the first play, or by :meth:`copy`)."""
        self.result: HandResult | None = None

    def copy(self) -> Rollout:
        """The same hand, to be played apart (every seat's memory worked out once, here, and copied)."""
        other = Rollout.__new__(Rollout)
        other.ctx, other.ruleset, other.holder, other.tricks = self.ctx, self.ruleset, self.holder, self.tricks
        other.hands = [list(h) for h in self.hands]
        other.kitty = list(self.kitty)
        other.current = list(self.current)
        other.leader, other.dealer_side, other.trick_points = self.leader, self.dealer_side, self.trick_points
        other.adjustments = list(self.adjustments)
        other.pending = list(self.pending)
        other.threshold, other.levels, other.flag = self.threshold, self.levels, self.flag
        other.knowledge = self._knowledge().copy()
        other.result = self.result
        return other

    def play_first(self, seat: int, cards: tuple[Card, ...]) -> None:
        """Play the searched play (by the seat to play), checked by the lead or follow rules as
        :meth:`engine.hand.Hand.apply` checks it (raising :class:`engine.errors.IllegalPlayError`)."""
        if not self.current:
            check_lead(self.ctx, self.hands[seat], cards)
        else:
            check_follow(self.ctx, self.current[0][1], self.hands[seat], cards)
        self._play(seat, cards, self._knowledge())

    def _knowledge(self) -> Knowledge:
        """The seats' memories, worked out of the hand as it stands the first time they are asked for."""
        if self.knowledge is None:
            self.knowledge = Knowledge(self.ctx, self.tricks, self.current, self.hands, self.kitty, self.holder)
        return self.knowledge

    def _play(self, seat: int, played: tuple[Card, ...], knowledge: Knowledge) -> None:
        """Apply a play as :meth:`engine.hand.Hand._do_play` does and tell every seat's memory what the table saw
        (a failed throw plays only part of what was led); :attr:`result` once the hand is over."""
        hand = self.hands[seat]
        current = self.current
        if current:
            lead: tuple[Card, ...] | None = current[0][1]
        else:
            lead = None
            if len(played) > 1:
                played = self._judged(seat, played)
        if RED_FIVE in played and self.ruleset.red5_bonus:  # cards are interned: `in` asks identity
            forced = red_fives_forced(self.ctx, lead, hand, played)
            if forced:
                self.pending.append((seat, forced))
        if len(played) == 1:
            hand.remove(played[0])
        else:
            for card in played:
                hand.remove(card)
        current.append((seat, played))
        knowledge.played(seat, played, lead)
        if len(current) == 4:
            self._finish_trick()

    def _judged(self, seat: int, led: tuple[Card, ...]) -> tuple[Card, ...]:
        """What a lead of several cards plays: all of it, or the forced part of a failed throw (with its penalty)."""
        ctx = self.ctx
        shape = classify(ctx, led)
        if shape is None or shape.kind != "throw":
            return led
        judged = judge_throw(ctx, shape, [self.hands[(seat + i) % 4] for i in (1, 2, 3)])
        if not judged.failed:
            return led
        self.adjustments.append(Adjustment("throw", seat, throw_penalty(
            self.ruleset.throw_penalty, judged.penalty_cards, seat % 2 != self.dealer_side)))
        return tuple(judged.played)

    def _finish_trick(self) -> None:
        """Settle the trick as :meth:`engine.hand.Hand._finish_trick` does; :attr:`result` if it was the last."""
        current = self.current
        plays = [cards for _seat, cards in current]
        winner = current[trick_winner_in(self.ctx, plays)][0]
        dealer_side = self.dealer_side
        if winner % 2 != dealer_side:
            self.trick_points += trick_points(plays)
        if self.pending:
            self.adjustments += [a for a, _n in red_fives_forced_out(self.ruleset, self.pending, winner, dealer_side)]
            self.pending = []
        self.current = []
        self.leader = winner
        if self.hands[0] or self.hands[1] or self.hands[2] or self.hands[3]:
            return
        lead_seat, lead_cards = current[0]
        kept = red_fives_kept(self.ctx, lead_seat, lead_cards, dealer_side)
        if kept is not None:
            self.adjustments.append(kept)
        self.result = score_last_trick(self.ctx, current, winner, dealer_side=dealer_side,
                                       threshold=self.threshold, trick_points=self.trick_points, kitty=self.kitty,
                                       adjustments=self.adjustments, levels=self.levels, flag=self.flag)

    def play_out(self) -> HandResult:
        """Play the hand out with the strong player's heuristics on every seat; its result.

        Each seat plays from its memory of the hand, kept up to date play by
        play (:class:`engine.ai.memory.Knowledge`) rather than worked out of
        a fresh view: the plays are those of :func:`engine.ai.heuristic_action`
        given each seat's view (a test compares them).  A play the rules force
        (:func:`forced_play`) is made without asking the player.
        """
        knowledge = self._knowledge()
        memory = knowledge.memory
        play = self._play
        hands = self.hands
        ruleset = self.ruleset
        dealer_side = self.dealer_side
        group_of = self.ctx.group
        while self.result is None:
            current = self.current
            turn = (self.leader + len(current)) % 4
            hand = hands[turn]
            if current and len(current[0][1]) == 1 and len(hand) > 1:
                # A single led (most plays): forced_play and single_choice on the group's cards, found once.
                group = group_of(current[0][1][0])
                mine = [c for c in hand if group_of(c) == group]
                if mine and mine.count(mine[0]) == len(mine):
                    cards: tuple[Card, ...] = (mine[0],)  # the group's one card, or both copies of it
                else:
                    cards = tuple(single_choice(memory(turn, hands), current, mine))
            else:
                forced = forced_play(self, turn)
                if forced is None:
                    forced = tuple(candidates(memory(turn, hands), current, dealer_side, ruleset, 1)[0])
                cards = forced
            play(turn, cards, knowledge)
        return self.result
