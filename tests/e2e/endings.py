"""A table stored one press before the end of a hand (or of the whole match), for the bot to load.

:func:`find_ending` searches, with the engine alone, a ``Tables.rng`` seed
whose first hand, played by the AI at every seat, ends with seat 0 playing
its last card (and, if asked, that card ends the match).
:func:`store_table` then plays every move but that last one through the
bot's own :class:`~bot.tables.Tables` (no Telegram) into a database file:
a bot started on it shows seat 0 the one card left to play.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest

import storage
from bot.config import Settings
from bot.tables import Tables
from bot.tables import lobby as service
from engine.ai import choose_action
from engine.hand import Action
from engine.match import Match, MatchStart, SideLevel
from engine.ruleset import Ruleset, get_ruleset
from engine.views import view_for


@dataclass(frozen=True)
class Ending:
    """A deal and the moves that bring its first hand to seat 0's last card."""

    preset: str
    seed_index: int
    start: MatchStart | None
    moves: tuple[Action, ...]
    """Every move before the last one."""
    last: Action
    """Seat 0's last card, which ends the hand (and the match, if asked)."""


def _start(ruleset: Ruleset, match_point: bool) -> MatchStart | None:
    # Both sides at A on their last lap: the first hand a dealer side keeps ends the match.
    return MatchStart((SideLevel(ruleset.laps, 14), SideLevel(ruleset.laps, 14))) if match_point else None


def find_ending(preset: str = "nantong", *, match_point: bool = False, tries: int = 400) -> Ending:
    """The first seed index whose first hand ends with seat 0's press (ending the match if ``match_point``)."""
    ruleset = get_ruleset(preset)
    start = _start(ruleset, match_point)
    for seed_index in range(tries):
        match = Match(ruleset, random.Random(seed_index).getrandbits(62), start)
        hand = match.hand
        choices = random.Random(seed_index)
        moves: list[Action] = []
        while not hand.over:
            seat = hand.awaiting()[0]
            action = choose_action(view_for(hand, seat), ruleset, choices)
            if not hand.can(action):
                action = Action("pass", seat)
            if hand.phase == "playing" and seat == 0 and len(hand.hands[0]) == 1 and len(hand.current) == 3:
                final = Match.from_dict(match.to_dict())
                final.apply(action)
                if final.hand is not hand and (final.over or not match_point):
                    return Ending(preset, seed_index, start, tuple(moves), action)
            match.apply(action)
            moves.append(action)
    raise AssertionError(f"no {preset} deal in {tries} ends with seat 0's press")


async def store_table(ending: Ending, db_path: Path, chat_id: int, title: str, user_id: int, name: str,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Open a table in ``chat_id`` with the person in seat 0 and the AI elsewhere, and play up to the last card."""
    db = await storage.open_database(db_path)
    try:
        await storage.upsert_user(db, user_id, name, language="en")
        await storage.set_user_reachability(db, user_id, can_message_privately=True, blocked=False)
        tables = Tables(db, Settings(token="0:none", db_path=db_path))
        table = await tables.new_table(chat_id, title, user_id, "en", ending.preset)
        await tables.sit(table, user_id, name, "en", 0)
        for _ in range(3):
            await tables.add_ai(table)
        tables.rng = random.Random(ending.seed_index)
        start = ending.start
        with monkeypatch.context() as patch:
            patch.setattr(service, "Match", lambda ruleset, seed, **kw: Match(ruleset, seed, start, **kw))
            await tables.start(table)
        for move in ending.moves:
            await tables.act(table, move)
        assert table.match is not None and table.match.hand.can(ending.last)
        await tables.close()
    finally:
        await db.close()
