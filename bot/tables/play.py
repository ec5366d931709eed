"""Playing: check, store, then apply one action; a hand that ends is settled and the next one dealt.

Every change follows DESIGN.md's data flow: the caller holds the table's
lock; the engine checks the action; storage appends it to the hand's log
(before anything is shown); the engine applies it.  A finished hand is
stored with its announcement in one transaction (the outbox sends it), the
AI takes an escaper's seat, and the next hand is dealt, shown after a pause
(``table.between_hands``, which :mod:`bot.tables.turns` waits out).  Nothing
here arms a deadline or moves an AI seat: the caller does that next
(:func:`bot.tables.turns.after_change`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from functools import partial

import storage
from bot import logs, outcome, story
from bot.i18n import translator
from bot.labels import name_html
from bot.model import PACES, Seat, Table
from bot.ratelimit import PRESSER, PRIORITY
from bot.render_group import render_match_over, render_result
from bot.tables.hand_messages import freeze, retire, slot_key
from bot.tables.house import House, TableError
from bot.tables.nudges import clear, clear_left
from bot.tables.seats import hand_to_ai, leave_between_hands, match_extra, pause_if_empty, sat_again
from bot.tables.showing import show_last_time
from engine.hand import Action, Trick
from engine.match import Applied, HandRecord, Match
from engine.ruleset import Ruleset
from engine.views import view_for

log = logging.getLogger(__name__)


async def act(house: House, table: Table, action: Action) -> Applied:
    """Check, store, then apply one action; returns what the engine made of it.

    The caller holds ``table.lock``.  Raises the engine's typed errors
    (nothing is stored or changed then).
    """
    logs.bind(table=table.id, hand=table.hand_id)
    match = table.match
    if match is None or table.status != "playing":
        raise TableError("No hand is being played at this table.")
    if table.between_hands is not None and action.kind != "escape":  # leaving is never refused
        raise TableError("The next hand has not started yet.")
    match.hand.check(action)
    assert table.hand_id is not None
    seq = len(match.hand.events) + 1
    try:
        await storage.append_event(house.db, table.hand_id, seq, action.kind, action.to_dict())
    except storage.SequenceConflict:
        await reload(house, table)
        raise TableError("The table moved on; here is where it stands now.") from None
    outcome.stored()
    table.progress = time.time()
    hand = match.hand
    before = view_for(hand, None)
    applied = match.apply(action)
    log.debug("event %d: %s by seat %s", seq, action.kind, action.seat)  # never the cards
    after = view_for(hand, None)  # the acted-on hand, even when it ended and the next was dealt
    # A contested reveal, a failed throw, a red five: told as they happen (decision 17), through the
    # outbox, so that they come before the hand's result and each once.
    moments = story.moments(house.tr(table), before, after)
    if moments:
        async with house.db.transaction():
            for kind, text in moments:
                await storage.add_announcement(house.db, table.id, kind, text, hand_id=table.hand_id)
        if house.outbox is not None:
            house.outbox.wake(table.chat_id)
    if applied.record is not None:
        await hand_over(house, table, applied.record, after.last_trick, action.seat)
        logs.bind(table=table.id, hand=table.hand_id)  # what follows is about the next hand
    return applied


async def hand_over(house: House, table: Table, record: HandRecord, last: Trick | None = None,
                    ender: int | None = None) -> None:
    """Store a finished hand with its announcement (its last trick first), and deal the next (or end
    the match).  ``ender`` is the seat whose move ended the hand (its person hears first).

    The announcement goes into the outbox in the same transaction as the
    result, and is sent after the caller lets go (nobody waits for it).
    The next hand waits while the table reads the result (:func:`pause`).
    """
    match = table.match
    assert match is not None and table.hand_id is not None and table.match_id is not None
    result = record.result
    log.info("hand over: %s", "aborted" if result is None else f"attackers took {result.attacker_points}")
    hand_id = table.hand_id
    escaped = result.escaped if result is not None else None
    # Before anything awaits: from now on no render may show this seat's cards to the leaver.
    leaver = hand_to_ai(table, escaped) if escaped is not None else None
    if leaver is not None and escaped is not None:  # they may take the seat back (seats.ask_back)
        table.left[escaped] = leaver
        table.coming_back.discard(escaped)
    back = sorted(table.coming_back) if not match.over else []  # theirs again from the next hand
    players = tuple(table.seats)  # who hears the result: those who held the seats at the hand's end
    # Rendered now, stored with the result: the outbox announces exactly what was stored.
    tr = house.tr(table)
    announcement = render_result(tr, table, record, last, leaver.name if leaver is not None else None)
    if result is not None and last is not None and house.config.public_url:
        # The web app replays it (a hand with at least one trick), opened from a deep link.
        announcement += (f'\n<a href="https://t.me/{house.bot_username}?start=r{hand_id}">'
                         + tr("🎞 Replay hand {n}", n=record.number) + "</a>")
    if leaver is not None:
        announcement += "\n" + tr("{who} can take the seat back from the AI with /join.", who=name_html(leaver.name))
    news = [("result", announcement)]
    # Before anything awaits: the match has dealt the next hand already, and nothing may show it (the group's
    # table message, a hand message) before this hand's result is stored and announced.
    table.last_result = record
    if not match.over:
        table.between_hands = time.time() + pause_seconds(house, table)
    if match.over:
        news.append(("match_over", render_match_over(tr, table)))
    async with house.db.transaction():
        for kind, text in news:
            await storage.add_announcement(house.db, table.id, kind, text, hand_id=hand_id)
        if result is None:
            await storage.update_hand(house.db, table.hand_id, status="aborted")
        else:
            dealer_side = result.dealer_side if result.dealer_side is not None else 0
            scores = [result.scores[s] + record.bonus[s] for s in range(4)]
            changes = (record.moves[0].moved, record.moves[1].moved)
            await storage.record_hand_result(
                house.db, table.hand_id, attacker_points=result.attacker_points, dealer_side=dealer_side,
                winner_side=_winner_side(result.escaped, scores), level_changes=changes,
                scores=scores, special=result.to_dict(), outcomes=_outcomes(result.escaped, scores),
            )
            if escaped is not None:  # in the same transaction: a crash cannot leave the leaver seated
                await storage.set_seat(house.db, table.id, escaped, user_id=None, is_ai=True)
        for seat in back:  # whoever asked for their seat back has it from the next hand
            await storage.set_seat(house.db, table.id, seat, user_id=table.left[seat].user_id)
        await storage.update_match(
            house.db, table.match_id, levels=(match.sides[0].rank, match.sides[1].rank),
            laps=(match.sides[0].lap, match.sides[1].lap),
            status="finished" if match.over else "playing", winner_side=match.winner_side,
            extra=match_extra(table, back),
        )
        if not match.over:
            hand = await storage.create_hand(house.db, table.match_id, seed=match.hand.setup.seed,
                                             ruleset=match.ruleset.to_dict(), context={"deal": match.deals})
            table.hand_id = hand.hand_id
        else:
            await storage.update_table(house.db, table.id, status="finished", turn_deadline=None)
    if result is not None:
        for watcher in house.hand_watchers:
            watcher(table)
    table.presses.clear_all()
    if leaver is not None and escaped is not None:
        freeze(house, table, escaped, leaver)
        house.spawn("nudge", partial(clear_left, house, table, leaver), table, restart=False)  # not their turn
    for seat in back:
        who = name_html(table.left[seat].name)
        sat_again(table, seat)
        house.announce(table, tr("{who} is back in their seat.", who=who))
    if house.outbox is not None:
        house.outbox.wake(table.chat_id)
    house.spawn("tell", lambda: tell_players(house, table, record, players, ender), table, restart=False)
    await new_hand_messages(house, table, record.number)
    if match.over:
        table.status = "finished"
        table.deadline = None
        show_last_time(house, table)
        for seat, info in enumerate(table.seats):  # a 「我回来了」 notice (or a nudge) has no use now
            if info is not None and info.nudge_message_id is not None:
                house.spawn("nudge", partial(clear, house, table, seat), table, restart=False)
        house.unregister(table)
    else:
        pause(house, table)
        pause_if_empty(house, table)


async def tell_players(house: House, table: Table, record: HandRecord, players: Sequence[Seat | None],
                       ender: int | None = None) -> None:
    """Each person who held a seat at the hand's end (``players``) gets the result in one line in their
    private chat.

    The person whose move ended the hand hears first, before other messages under the overall limit:
    their hand message is not edited again (the next hand comes as a new message after a pause), so
    this line is what shows their press took effect.
    """
    if house.publisher is None:
        return
    laps = table.settings.ruleset().laps
    title = group_prefix(house, table)
    order = sorted(range(4), key=lambda seat: seat != ender)
    for seat in order:
        info = players[seat]
        if info is None or info.is_ai or info.user_id is None or not info.reachable:
            continue
        first = PRIORITY.set(PRESSER if seat == ender else None)
        try:
            await house.publisher.send(info.user_id,
                                       title + story.private_result(translator(info.lang), record, seat, laps),
                                       persist=True)
        finally:
            PRIORITY.reset(first)


def group_prefix(house: House, table: Table) -> str:
    """「<b>群名</b> · 」 before a line in someone's private chat: a person at two tables tells them apart by the
    group each names (issue 55)."""
    return "<b>" + name_html(house.group_titles.get(table.chat_id, table.title)) + "</b> · "


async def new_hand_messages(house: House, table: Table, number: int) -> None:
    """Hand ``number``'s private messages are retired (their buttons go); the next hand's is a new message
    (an edit would not notify anyone), unless the match is over."""
    last = table.match is not None and table.match.over
    for seat, info in enumerate(table.seats):
        if house.publisher is not None and info is not None and info.user_id is not None \
                and not retire(house, table, seat, info, number, last):
            house.publisher.forget(slot_key(table.id, seat, info.user_id))
        if info is not None and info.hand_message_id is not None:
            info.hand_message_id = None
            await storage.set_seat_messages(house.db, table.id, seat, hand_message_id=None)


def pause_seconds(house: House, table: Table) -> float:
    """How long the table reads a hand's result before the next hand: at the real-time pace a few seconds; at
    the relaxed and daily paces the next hand waits for a 「下一局」 press, or for a turn's time."""
    pace = table.settings.pace
    return house.config.hand_pause if pace == "realtime" else PACES[pace].turn


def pause(house: House, table: Table) -> None:
    """Let the table read the last trick and the result before the next hand: ``table.between_hands``, counted
    from now, when the result is stored (with no pause, the next hand is shown at once)."""
    seconds = pause_seconds(house, table)
    table.between_hands = time.time() + seconds if seconds > 0 else None


async def escape(house: House, table: Table, seat: int) -> None:
    """A player leaves mid-match: the hand is scored by the escape rule (free before any card is
    played), the AI takes the seat (see :func:`hand_over`) and the next hand is dealt.  Between hands
    nobody's hand is under way: the AI takes the seat for the next one (:func:`leave_between_hands`)."""
    if table.between_hands is not None:
        await leave_between_hands(house, table, seat)
        return
    await act(house, table, Action("escape", seat))


async def reload(house: House, table: Table) -> None:
    """Rebuild a table's match from storage (after a conflict)."""
    active = await storage.load_active_table(house.db, table.id)
    if active is None or active.match is None or active.hand is None:
        return
    await rebuild_match(house, table, active)


async def rebuild_match(house: House, table: Table, active: storage.ActiveTable) -> None:
    """Resume the engine match from its checkpoint and replay the current hand's log."""
    assert active.match is not None and active.hand is not None
    ruleset = Ruleset.from_dict(active.match.ruleset)
    match = Match.resume(ruleset, active.match.extra["checkpoint"], history=False)
    table.match, table.match_id, table.hand_id = match, active.match.match_id, active.hand.hand_id
    for event in active.events:
        hand = match.hand
        record = match.apply(Action.from_dict(event.payload)).record
        if record is not None:  # the crash came before the hand was settled
            await hand_over(house, table, record, view_for(hand, None).last_trick)


def _winner_side(escaped: int | None, scores: Sequence[int]) -> int:
    """The side that won a hand: the higher 积分 (an escape: the side the escaper left behind wins nothing,
    see :func:`_outcomes`, but the column needs a side)."""
    if escaped is not None:
        return 1 - escaped % 2
    return max((0, 1), key=lambda side: scores[side])


def _outcomes(escaped: int | None, scores: Sequence[int]) -> list[storage.Outcome | None] | None:
    """Who the hand counts for: an escape is a loss for the escaper if it cost anything, and nothing
    for anyone else; otherwise every seat's side won or lost (None: storage reads the winner side)."""
    if escaped is None:
        return None
    return ["lost" if seat == escaped and scores[seat] < 0 else None for seat in range(4)]
