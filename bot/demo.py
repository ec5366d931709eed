"""``chaodipi demo``: four AI seats play in the terminal, shown as the group would see it.

No token and no network: the same renderers as the bot, printed as text, and
the same AI a new table gets (the strong one, unless told otherwise).  What
the bot announces as it happens (a contested reveal, 甩牌失败, 逼红5/保红5) is
printed where it happens, from the same :func:`bot.story.moments`.
"""

from __future__ import annotations

import random
import re
import sys
import time
from collections.abc import Callable
from typing import TextIO

from bot import story
from bot.i18n import translator
from bot.labels import cards_label, seat_label, trump_phrase
from bot.model import Seat, Table, TableSettings
from bot.render_group import render_match_over, render_result, render_table, seat_name
from engine.ai import Strength, choose_action
from engine.hand import Action, side_of
from engine.match import Match
from engine.views import view_for

NAMES = ("Alice", "Bob", "Carol", "Dave")
_TAG = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """HTML message text as a terminal shows it."""
    return _TAG.sub("", text).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def next_action(match: Match, rng: random.Random, strength: Strength = "strong") -> Action:
    """The AI's move for whichever seat must act (in bidding, the first who has not passed)."""
    hand = match.hand
    seat = hand.awaiting()[0]
    action = choose_action(view_for(hand, seat), hand.ruleset, rng, strength)
    if not hand.can(action):
        action = Action("pass", seat) if hand.phase == "bidding" else action
    return action


def play(preset: str = "yancheng", lang: str = "zh", hands: int = 1, seed: int | None = None,
         out: TextIO = sys.stdout, pause: float = 0.0, whole_match: bool = False,
         strength: Strength = "strong") -> Table:
    """Play ``hands`` hands (or a whole match) with four AI seats of the given strength, printing the
    group's view and what the group is told as it happens."""
    tr = translator(lang)
    seed = random.randrange(1 << 30) if seed is None else seed
    rng = random.Random(seed)
    settings = TableSettings(preset=preset, ai_strength=strength)
    table = Table(id=0, chat_id=0, creator_id=0, lang=lang, title="demo", status="playing", settings=settings,
                  seats=[Seat(None, name, is_ai=False) for name in NAMES])
    table.match = Match(settings.ruleset(), seed)
    say: Callable[[str], None] = lambda text: print(plain(text), file=out, flush=True)  # noqa: E731
    say(render_table(tr, table)[0])
    say("")
    finished = 0
    while not table.match.over and (whole_match or finished < hands):
        hand = table.match.hand
        before_phase = hand.phase
        action = next_action(table.match, rng, strength)
        before = view_for(hand, None)
        applied = table.match.apply(action)
        event = applied.event
        if action.kind == "bid":
            bid = hand.bids[-1]
            who = f"{seat_label(tr, bid.seat)} {seat_name(tr, table, bid.seat)}"
            if hand.ruleset.hidden_bidding:
                say(tr("{who} made a bid.", who=who))
            else:
                say(tr("{who} bid {cards} → {trump}.", who=who, cards=cards_label(bid.cards, lang),
                       trump=trump_phrase(tr, bid.trump, capital=False)))
        elif action.kind == "steal":
            say(tr("{who} stole the kitty.", who=seat_name(tr, table, action.seat or 0)))
        table_shown = before_phase == "bidding" and hand.phase != "bidding" or (
            before_phase == "stealing" and hand.phase == "playing")
        if table_shown:
            say(render_table(tr, table)[0])
            say("")
        if "winner" in event.info:
            trick = hand.tricks[-1]
            plays = " → ".join(f"{seat_label(tr, s)} {cards_label(c, lang)}" for s, c in trick.plays)
            scored = trick.points and side_of(trick.winner) != hand.dealer_side  # the dealer side's tricks score nothing
            say(tr("Trick {n}: {plays} …", n=len(hand.tricks), plays=plays).rstrip(" …")
                + f"  ⇒ {seat_label(tr, trick.winner)}" + (f" +{trick.points}" if scored else ""))
            if pause:
                time.sleep(pause)
        # After the trick's line: a 逼红5 is news of the trick just won (a failed throw, of a trick begun).
        # A reveal is left out where the table message just printed shows it already.
        for kind, text in story.moments(tr, before, view_for(hand, None)):
            if kind != "reveal" or not table_shown:
                say(text)
        if applied.record is not None:
            say("")
            say(render_result(tr, table, applied.record))
            say("")
            finished += 1
            if not table.match.over and (whole_match or finished < hands):
                say(render_table(tr, table)[0])
                say("")
    if table.match.over:
        say(render_match_over(tr, table))
    return table
