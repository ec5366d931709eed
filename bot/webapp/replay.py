"""A finished hand, trick by trick, rebuilt from the event log.

The match is dealt again from its start (the checkpoint keeps the match's
seed and starting levels) and every stored action of its hands is applied
in order, as at a restart; the hand asked for is then shown through the
spectator's view (:func:`engine.views.view_for` with no seat), which at the
end of a hand holds only what the whole table saw: every trick, the kitty
turned up, the result.
"""

from __future__ import annotations

from typing import Any

import storage
from bot.i18n import Translator
from bot.labels import name_html, seat_label
from bot.webapp.state import words
from engine.hand import Action, Hand
from engine.match import Match, MatchStart
from engine.ruleset import Ruleset
from engine.views import view_for


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


async def replay_hand(db: storage.Database, hand_id: int, user_id: int, tr: Translator) -> dict[str, Any] | None:
    """The replay of a finished hand for someone who sat at its table; None for anyone else."""
    record = await storage.get_hand(db, hand_id)
    match_record = await storage.get_match(db, record.match_id) if record is not None else None
    if match_record is None:
        return None
    seats = await storage.get_seats(db, match_record.table_id)
    if not any(s.user_id == user_id for s in seats):
        return None
    hand = await finished_hand(db, hand_id)
    if hand is None:
        return None
    names: list[str] = []
    for seat in range(4):
        taken = next((s for s in seats if s.seat == seat), None)
        user = await storage.get_user(db, taken.user_id) if taken is not None and taken.user_id else None
        names.append(name_html(user.display_name) if user is not None else "🤖 AI")  # HTML, as the state's
    return {"hand_id": hand_id, "view": view_for(hand, None).to_dict(), "words": words(tr), "lang": tr.lang,
            "seats": [{"label": seat_label(tr, s), "name": names[s]} for s in range(4)]}
