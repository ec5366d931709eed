"""Tables in every moment of a match, built with the real engine (not a test module).

Each builder returns a :class:`bot.model.Table` whose match was driven with
the engine's own actions: explicit bids where a test needs one, and the
built-in AI (:func:`engine.ai.choose_action`, a legal player that sees only
its seat's view) for everything else.  Seeds that give a wanted deal (a
red-five pair, a steal) are searched once and cached, so the builders are
deterministic and fast.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import lru_cache

from bot.model import Seat, Table, TableSettings
from engine.ai import choose_action
from engine.bidding import read_step, step_allowed
from engine.cards import Card
from engine.hand import Action, Hand
from engine.match import Applied, HandRecord, Match, MatchStart, SideLevel
from engine.ruleset import RULESETS
from engine.views import view_for

PRESETS = tuple(RULESETS)
"""The seven presets: yancheng yangzhou yangzhong nantong xin chizhou anhui."""

LANGS = ("zh", "en")

NAMES = ("<b>Eve & co</b>", "Bob", "Carol", "Dave")
"""Seat 0's name is HTML that must come out escaped."""

GROUP_TITLE = "Friends & <family>"

TABLE_ID = 987654321


def make_table(preset: str = "yancheng", seed: int = 1, *, hidden: bool | None = None,
               start: MatchStart | None = None, ai_seats: tuple[int, ...] = (1,)) -> Table:
    """A playing table: four seats (people, and the AI in ``ai_seats``) and a fresh match."""
    settings = TableSettings(preset=preset, hidden=hidden)
    table = Table(id=TABLE_ID, chat_id=-1001234567890, creator_id=100, lang="zh", title=GROUP_TITLE,
                  status="playing", settings=settings)
    table.seats = [Seat(None, "AI", is_ai=True) if s in ai_seats else Seat(100 + s, NAMES[s], lang="zh")
                   for s in range(4)]
    table.match = Match(settings.ruleset(), seed, start)
    table.match_id = 1
    return table


def hand_of(table: Table) -> Hand:
    """The current hand of the table's match."""
    assert table.match is not None
    return table.match.hand


def ai_action(table: Table, seat: int) -> Action:
    """The AI's action for a seat, chosen from that seat's view alone."""
    hand = hand_of(table)
    return choose_action(view_for(hand, seat), hand.ruleset)


def step(table: Table) -> Applied:
    """One AI action by the seat to move (in the bidding: the first seat that has not passed)."""
    hand = hand_of(table)
    assert table.match is not None
    if hand.phase == "bidding":
        seat = next(s for s in range(4) if s not in hand.passed)
    else:
        assert hand.turn is not None
        seat = hand.turn
    return table.match.apply(ai_action(table, seat))


def advance(table: Table, until: Callable[[Hand], bool], limit: int = 3000) -> list[HandRecord]:
    """Let the AI play until ``until(hand)`` holds; returns the hand records produced on the way."""
    assert table.match is not None
    records: list[HandRecord] = []
    for _ in range(limit):
        if table.match.over or until(hand_of(table)):
            return records
        record = step(table).record
        if record is not None:
            records.append(record)
    raise AssertionError("the table never got there")


def pass_all(table: Table) -> None:
    """Every seat that has not passed since the last bid passes (closing the bidding)."""
    assert table.match is not None
    for seat in range(4):
        hand = hand_of(table)
        if hand.phase == "bidding" and seat not in hand.passed:
            table.match.apply(Action("pass", seat))


def level_bids(hand: Hand, seat: int, *, pair: bool) -> list[tuple[Card, ...]]:
    """Bids of level cards (a pair, or a single) this seat could make."""
    ruleset = hand.ruleset
    counts = Counter(hand.hands[seat])
    out: list[tuple[Card, ...]] = []
    for card, n in sorted(counts.items(), key=lambda cn: str(cn[0])):
        cards: tuple[Card, ...] = (card, card) if pair else (card,)
        if pair and n < 2:
            continue
        step_ = read_step(ruleset, hand.level, cards)
        if step_ is not None and step_ not in ("R52", "SJ2", "BJ2") and step_allowed(ruleset, step_, steal=False):
            out.append(cards)
    return out


# --- seeds with a wanted deal -------------------------------------------------------------

@lru_cache(maxsize=None)
def seed_with_pair(preset: str, card_text: str, seat: int = 0) -> int:
    """The first seed whose first deal gives ``seat`` both copies of a card."""
    card = Card.parse(card_text)
    for seed in range(1, 5000):
        match = Match(RULESETS[preset], seed)
        if match.hand.hands[seat].count(card) == 2:
            return seed
    raise AssertionError(f"no seed gives seat {seat} two {card_text}")


@lru_cache(maxsize=None)
def seed_with_bid(preset: str, *, pair: bool) -> int:
    """The first seed where seat 0 holds a level-card bid (a pair, or a single) and seat 2 another one."""
    for seed in range(1, 5000):
        hand = Match(RULESETS[preset], seed).hand
        if level_bids(hand, 0, pair=pair) and level_bids(hand, 2, pair=True):
            return seed
    raise AssertionError("no seed")


# --- the moments of a hand ------------------------------------------------------------------

def bidding_fresh(preset: str = "yancheng", seed: int = 1, **kw: object) -> Table:
    """Hand 1, nobody has bid or passed yet."""
    return make_table(preset, seed, **kw)  # type: ignore[arg-type]


def bidding_with_bid(preset: str = "yancheng", *, hidden: bool | None = None, pair: bool = True,
                     second: bool = False) -> tuple[Table, tuple[Card, ...]]:
    """Hand 1 with a level bid by seat 0 (and, with ``second``, a pair bid by seat 2 after it); seat 1 has passed.

    Returns the table and seat 0's bid.
    """
    seed = seed_with_bid(preset, pair=pair)
    table = make_table(preset, seed, hidden=hidden)
    hand = hand_of(table)
    bid = level_bids(hand, 0, pair=pair)[-1]
    assert table.match is not None
    table.match.apply(Action("bid", 0, bid))
    if second:
        other = next(c for c in level_bids(hand, 2, pair=True)
                     if hand.can(Action("bid", 2, c)))
        table.match.apply(Action("bid", 2, other))
    table.match.apply(Action("pass", 1))
    return table, bid


def burying(preset: str = "yancheng", *, hidden: bool | None = None) -> Table:
    """Seat 0 bid, everyone passed: the dealer is burying the kitty."""
    table, _bid = bidding_with_bid(preset, hidden=hidden)
    pass_all(table)
    assert hand_of(table).phase == "burying"
    return table


def stealing(preset: str = "yancheng", *, hidden: bool | None = None) -> Table:
    """The kitty is buried and the first seat after the burier may steal it."""
    table = burying(preset, hidden=hidden)
    step(table)
    assert hand_of(table).phase == "stealing", hand_of(table).phase
    return table


@lru_cache(maxsize=None)
def _steal_seed(preset: str) -> int:
    for seed in range(1, 3000):
        table = make_table(preset, seed)
        hand = hand_of(table)
        bids = level_bids(hand, 0, pair=False)
        if not bids:
            continue
        assert table.match is not None
        table.match.apply(Action("bid", 0, bids[0]))
        pass_all(table)
        step(table)  # the bury
        if hand.phase != "stealing":
            continue
        thief = hand.steal_queue[0]
        if _steal_options(hand, thief):
            return seed
    raise AssertionError("no seed")


def _steal_options(hand: Hand, seat: int) -> list[tuple[Card, ...]]:
    return [(c, c) for c, n in sorted(Counter(hand.hands[seat]).items(), key=lambda cn: str(cn[0]))
            if n == 2 and hand.can(Action("steal", seat, (c, c)))]


def steal_turn(preset: str = "yancheng") -> tuple[Table, int]:
    """Seat 0 bid a single and buried; the seat asked first may steal the kitty with a pair (and the seat)."""
    seed = _steal_seed(preset)
    table = make_table(preset, seed)
    hand = hand_of(table)
    assert table.match is not None
    table.match.apply(Action("bid", 0, level_bids(hand, 0, pair=False)[0]))
    pass_all(table)
    step(table)
    assert hand.phase == "stealing" and hand.turn == hand.steal_queue[0]
    return table, hand.steal_queue[0]


def stolen(preset: str = "yancheng") -> tuple[Table, int, tuple[Card, ...]]:
    """Seat 0 bid a single; after the bury the next seat stole the kitty with a pair and is burying."""
    table, thief = steal_turn(preset)
    hand = hand_of(table)
    assert table.match is not None
    cards = _steal_options(hand, thief)[0]
    table.match.apply(Action("steal", thief, cards))
    assert hand.phase == "burying" and hand.burier == thief
    return table, thief, cards


def playing(preset: str = "yancheng", seed: int = 3, *, tricks: int = 2, hidden: bool | None = None) -> Table:
    """Hand 1 in play: ``tricks`` tricks done and the next one under way (1 to 3 plays made)."""
    table = make_table(preset, seed, hidden=hidden)
    advance(table, lambda h: h.phase == "playing" and len(h.tricks) >= tricks and 1 <= len(h.current) <= 3)
    assert hand_of(table).setup.number == 1, "the first hand was redealt; pick another seed"
    return table


def finished(preset: str = "yancheng", seed: int = 3) -> tuple[Table, HandRecord]:
    """Hand 1 played to its end: the table now shows hand 2; returns the finished hand's record."""
    table = make_table(preset, seed)
    records = advance(table, lambda h: h.setup.number > 1 or h.over)
    records = [r for r in records if r.result is not None]
    assert records, "no hand finished"
    return table, records[-1]


def match_over(preset: str = "nantong", seed: int = 5) -> tuple[Table, HandRecord]:
    """Both sides start at A; play until a side passes A and wins the match."""
    top = RULESETS[preset].laps
    start = MatchStart((SideLevel(top, 14), SideLevel(top, 14)))
    table = make_table(preset, seed, start=start)
    assert table.match is not None
    records = advance(table, lambda h: False, limit=20000)
    assert table.match.over
    return table, records[-1]


def flag_hand(preset: str = "yangzhou", seed: int = 2, *, plays: int = 6) -> Table:
    """A flag hand (扛旗) of side 0 (N+S), ``plays`` cards played."""
    start = MatchStart((SideLevel(1, 14, at_flag=True), SideLevel(1, 9)), dealer_side=0, previous_dealer=0)
    table = make_table(preset, seed, start=start)
    hand = hand_of(table)
    assert hand.setup.flag and hand.phase == "playing"
    for _ in range(plays):
        step(table)
    return table


def flipped(preset: str = "yangzhou", seed: int = 1) -> Table:
    """A later hand (the dealer side known) where nobody bid: the kitty was turned up to set trump."""
    start = MatchStart((SideLevel(1, 4), SideLevel(1, 6)), dealer_side=1, previous_dealer=1)
    table = make_table(preset, seed, start=start)
    pass_all(table)
    hand = hand_of(table)
    assert hand.phase == "burying" and hand.flipped
    return table


def redeal(preset: str = "yancheng", seed: int = 1) -> tuple[Table, HandRecord]:
    """Hand 1 where everyone passed: redealt."""
    table = make_table(preset, seed)
    assert table.match is not None
    records = [table.match.apply(Action("pass", seat)).record for seat in range(4)]
    record = records[-1]
    assert record is not None and record.result is None
    return table, record


def escaped(preset: str = "yancheng", seed: int = 3) -> tuple[Table, HandRecord]:
    """Seat 3 leaves in the middle of hand 1."""
    table = playing(preset, seed)
    assert table.match is not None
    record = table.match.apply(Action("escape", 3)).record
    assert record is not None and record.result is not None and record.result.escaped == 3
    return table, record


def pair_selected(preset: str, card_text: str) -> tuple[Table, int]:
    """Hand 1 in bidding; seat 0 holds both copies of a card and has selected them."""
    seed = seed_with_pair(preset, card_text, 0)
    table = make_table(preset, seed)
    card = Card.parse(card_text)
    table.presses.replace(0, [card, card])
    return table, 0

