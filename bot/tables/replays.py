"""Finished hands, trick by trick, rebuilt from the event log, for the people who played them.

The match is dealt again from its start (the checkpoint keeps the match's
seed and starting levels) and every stored action of its hands is applied
in order, as at a restart; the hand asked for is then shown through the
spectator's view (:func:`engine.views.view_for` with no seat), which at the
end of a hand holds only what the whole table saw: every trick, the kitty
turned up, the result.

Who may replay a hand: the people who held its seats when it was played
(the hand's stored result names them, escapers and people the AI stood in
for included), and nobody else; a hand still in play is nobody's to replay.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import storage
from engine.hand import Action, Hand
from engine.match import Match, MatchStart
from engine.ruleset import Ruleset
from engine.views import HandView, view_for


@dataclass(frozen=True, slots=True)
class Replay:
    """A finished hand as the table saw it at its end, and who sat where."""

    hand_id: int
    number: int
    view: HandView
    """The spectator's view at the hand's end."""
    names: tuple[str | None, ...]
    """Per seat, the name of the person who played it (None: the AI)."""


async def finished_hand(db: storage.Database, hand_id: int) -> Hand | None:
    """The hand as it ended, or None if it is not over (or not there)."""
    record = await storage.get_hand(db, hand_id)
    if record is None or record.status != "finished":
        return None
    match_record = await storage.get_match(db, record.match_id)
    if match_record is None:
        return None
    checkpoint = match_record.extra["checkpoint"]
    match = Match(Ruleset.from_dict(match_record.ruleset), int(checkpoint["seed"]),
                  MatchStart.from_dict(checkpoint["start"]))
    for dealt in await storage.match_hands(db, record.match_id):
        hand = match.hand
        for event in await storage.load_events(db, dealt.hand_id):
            match.apply(Action.from_dict(event.payload))
        if dealt.hand_id == hand_id:
            return hand if hand.over else None
    return None


async def players(db: storage.Database, hand_id: int) -> tuple[int | None, ...] | None:
    """Who held each seat when the hand was played (None: the AI); None if the hand has no result."""
    result = await storage.get_hand_result(db, hand_id)
    if result is None:
        return None
    return tuple(seat.user_id for seat in result.seats)


async def number_for(db: storage.Database, hand_id: int, user_id: int) -> int | None:
    """The hand's number in its match, if this person played it and it is over; else None."""
    held = await players(db, hand_id)
    record = await storage.get_hand(db, hand_id) if held is not None and user_id in held else None
    return record.number if record is not None and record.status == "finished" else None


class Ended:
    """The spectator's views of the hands replayed lately, by hand id: a finished hand never changes, and dealing
    its match again up to it costs tens of milliseconds in a long match, so the people of a table who open the
    same hand's replay (or one person stepping back to it) make one rebuild.  At most :attr:`size` kept."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._views: OrderedDict[int, tuple[int, HandView]] = OrderedDict()

    def get(self, hand_id: int) -> tuple[int, HandView] | None:
        """The hand's number and view, if kept (now the most recent)."""
        found = self._views.get(hand_id)
        if found is not None:
            self._views.move_to_end(hand_id)
        return found

    def keep(self, hand_id: int, number: int, view: HandView) -> None:
        """Keep a finished hand's number and view, forgetting the least recent past :attr:`size`."""
        self._views[hand_id] = (number, view)
        self._views.move_to_end(hand_id)
        while len(self._views) > self.size:
            self._views.popitem(last=False)


async def replay_for(db: storage.Database, hand_id: int, user_id: int, ended: Ended | None = None) -> Replay | None:
    """The replay of a finished hand for someone who played it; None for anyone else (or no such hand).  Its view
    is taken from ``ended`` where kept there, and kept there once rebuilt; the names are read each time."""
    held = await players(db, hand_id)
    if held is None or user_id not in held:
        return None
    kept = ended.get(hand_id) if ended is not None else None
    if kept is None:
        hand = await finished_hand(db, hand_id)
        record = await storage.get_hand(db, hand_id)
        if hand is None or record is None:
            return None
        kept = (record.number, view_for(hand, None))
        if ended is not None:
            ended.keep(hand_id, *kept)
    names: list[str | None] = []
    for user in held:
        found = await storage.get_user(db, user) if user is not None else None
        names.append(found.display_name if found is not None else None)
    return Replay(hand_id, kept[0], kept[1], tuple(names))
