"""People at a table, pressing the buttons the bot shows them: the moves of the scenario tests.

The test knows the bot's state (``tables(app)``) to decide who must move and
to wait for the bot, but every move goes through Telegram as a person makes
it: the lobby buttons and commands in the group, the deep link to the
private chat, card buttons to select, then Bid / Bury / Steal / Play on the
private hand message once it carries the seat's current version.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from telegram.ext import Application

from bot import callbacks
from bot.i18n import translator
from bot.model import Table
from engine.ai import choose_action
from engine.cards import Card
from engine.hand import Hand
from engine.views import view_for

from .botkit import current_hand_message, hand_message, table_message, tables
from .fake_telegram import FakeTelegram
from .fake_telegram.people import Button, CallbackAnswer, Group, MessageView, Person
from .plans import Move, Plan

App = Application[Any, Any, Any, Any, Any, Any]

Settle = Callable[[], Awaitable[None]]
"""Awaited before a press: e.g. until the bot has shown everything (a person at human pace)."""

ANSWER_TIMEOUT = 5.0
"""How long a person waits for the bot to answer a press (Telegram gives up after some seconds)."""

OUT_OF_DATE = frozenset(translator(lang)("That button is out of date; your hand is shown again.") for lang in ("zh", "en"))
CHOOSE = frozenset(translator(lang)("Choose the trump suit for this bid.") for lang in ("zh", "en"))
"""The answer to a press made for a question the table no longer asks."""


def lobby_button(message: MessageView, op: str, arg: str = "") -> Button | None:
    """The lobby button doing ``op`` (``sit``, ``ai``, ``start``, …) on the table message."""
    for button in message.all_buttons():
        data = callbacks.decode(button.callback_data)
        if data is not None and data.kind == "L" and data.op == op and (not arg or data.arg == arg):
            return button
    return None


def hand_button(message: MessageView, op: str, arg: str = "") -> Button | None:
    """The hand-keyboard button doing ``op`` (``sel``, ``bid``, ``play``, …), if shown."""
    for button in message.all_buttons():
        data = callbacks.decode(button.callback_data)
        if data is not None and data.kind == "H" and data.op == op and (not arg or data.arg == arg):
            return button
    return None


async def press_lobby(server: FakeTelegram, person: Person, group: Group, op: str, arg: str = "",
                      timeout: float = 5.0) -> CallbackAnswer:
    """Press a lobby button on the group's table message as it looks now (waiting until it is shown)."""
    message = await server.wait_for(lambda: group.bot_messages() and lobby_button(table_message(group), op, arg)
                                    and table_message(group), timeout, what=f"the lobby button {op} {arg}")
    button = lobby_button(message, op, arg)
    assert button is not None
    return await (await person.press(message, lambda b: b.callback_data == button.callback_data)).answer(ANSWER_TIMEOUT)


async def sit_from_group(server: FakeTelegram, person: Person, group: Group, seat: int) -> CallbackAnswer:
    """Press "Sit <seat>"; someone the bot cannot reach yet gets the deep link, opens it and presses Start."""
    answer = await press_lobby(server, person, group, "sit", str(seat))
    if answer.url is not None:
        await person.open_link(answer.url)
    return answer


async def wait_seated(server: FakeTelegram, app: App, group: Group, person: Person) -> int:
    """Wait until the bot has seated this person; their seat."""
    def seated() -> int | None:
        table = tables(app).in_chat(group.id)
        seat = table.seat_of(person.id) if table is not None else None
        return None if seat is None else seat + 1
    return int(await server.wait_for(seated, what=f"{person.name} seated")) - 1


async def fill_with_ai(server: FakeTelegram, person: Person, group: Group, count: int) -> None:
    """Press "+ AI" ``count`` times."""
    for _ in range(count):
        answer = await press_lobby(server, person, group, "ai")
        assert not answer.show_alert, answer.text


async def choose_setting(server: FakeTelegram, person: Person, group: Group, op: str, arg: str) -> None:
    """The creator opens the table's settings, presses one choice (e.g. ``strength``, ``casual``) and goes back.

    Each step waits for the group's message to show its button: at Telegram's limits an edit of the
    group's message may wait seconds for its turn.
    """
    for step, choice in (("set", ""), (op, arg), ("back", "")):
        answer = await press_lobby(server, person, group, step, choice, timeout=60)
        assert not answer.show_alert, answer.text


async def start_match(server: FakeTelegram, app: App, person: Person, group: Group,
                      seed_index: int | None = None) -> Table:
    """Press Start (after seeding the deal if asked); the table, once its match is under way."""
    table = tables(app).in_chat(group.id)
    assert table is not None

    def full() -> bool:
        text = table_message(group).text or ""
        return (table.full and lobby_button(table_message(group), "start") is not None
                and "(empty)" not in text and "（空位）" not in text and "⚠️" not in text)
    await server.wait_for(full, what="a full table")
    if seed_index is not None:
        tables(app).rng = random.Random(seed_index)
    answer = await press_lobby(server, person, group, "start")
    assert not answer.show_alert, answer.text
    await server.wait_for(lambda: table.match is not None, what="the match to start")
    return table


async def table_of_one(server: FakeTelegram, app: App, person: Person, group: Group, seed_index: int,
                       pace: str | None = None) -> Table:
    """``person`` opens a table in ``group``, three casual AI seats fill it (at ``pace`` if given), the match
    starts."""
    await person.command(group, "newgame", "yancheng")
    await wait_seated(server, app, group, person)
    await fill_with_ai(server, person, group, 3)
    await choose_setting(server, person, group, "strength", "casual")
    if pace is not None:
        await choose_setting(server, person, group, "pace", pace)
    return await start_match(server, app, person, group, seed_index)


# --- the private hand keyboard ------------------------------------------------------------------

async def up_to_date_hand(server: FakeTelegram, person: Person, table: Table, seat: int,
                          timeout: float = 10.0) -> MessageView:
    """The person's hand message once it shows the seat's current buttons."""
    message: MessageView = await server.wait_for(lambda: current_hand_message(person, table, seat), timeout,
                                                 what=f"{person.name}'s up-to-date hand message")
    return message


async def press_hand(server: FakeTelegram, person: Person, table: Table, seat: int, op: str,
                     arg: str = "", *, timeout: float = 10.0) -> CallbackAnswer:
    """Press the ``op`` button of the person's current hand keyboard (waiting until it is shown)."""
    def ready() -> MessageView | None:
        message = current_hand_message(person, table, seat)
        return message if message is not None and hand_button(message, op, arg) is not None else None

    message = await server.wait_for(ready, timeout, what=f"{person.name}'s {op} {arg} button")
    button = hand_button(message, op, arg)
    assert button is not None
    return await (await person.press(message, lambda b: b.callback_data == button.callback_data)).answer(ANSWER_TIMEOUT)


RESHOWN = frozenset(translator(lang)("That button is out of date; your hand is shown again.") for lang in ("zh", "en"))
"""The answer to a tap on a keyboard the bot had just replaced, in either language."""


async def select_cards(server: FakeTelegram, person: Person, table: Table, seat: int,
                       cards: tuple[Card, ...], settle: Settle | None = None) -> None:
    """Tap card buttons until exactly ``cards`` are selected (and the keyboard shows it); ``settle`` before each tap."""
    assert not +table.selected(seat), "start from an empty selection"
    copies: dict[Card, int] = {}
    for card in cards:
        if settle is not None:
            await settle()
        copy = copies.get(card, 0)
        copies[card] = copy + 1
        answer = await press_hand(server, person, table, seat, "sel", f"{card}{copy}")
        if answer.show_alert and answer.text in RESHOWN:  # the hand changed under the tap: tap the one shown now
            answer = await press_hand(server, person, table, seat, "sel", f"{card}{copy}")
        assert not answer.show_alert, answer.text

    def shown() -> bool:
        message = hand_message(person)
        if message is None:
            return False
        marked = [b for b in message.all_buttons() if b.text.startswith("✓")]
        return len(marked) == len(cards)
    await server.wait_for(shown, what=f"{person.name}'s selection shown")


async def move_landed(server: FakeTelegram, table: Table, hand: Hand, events: int) -> None:
    """Wait until the hand has one more event (or the next hand is dealt)."""
    assert table.match is not None
    await server.wait_for(lambda: len(hand.events) > events or table.match.hand is not hand,  # type: ignore[union-attr]
                          what="the move to land")


async def make_move(server: FakeTelegram, person: Person, table: Table, seat: int, move: Move | None,
                    kind: str, settle: Settle | None = None, *, one_tap: bool = False) -> None:
    """Bid or steal with the move's cards (``kind`` "bid" or "steal"), or pass (``move`` None); with ``one_tap``,
    by the ▶ button that names the cards (and then the trump, where they name none)."""
    assert table.match is not None
    hand = table.match.hand
    events = len(hand.events)
    if move is None:
        op, arg = ("pass" if kind == "bid" else "nosteal"), ""
    elif one_tap:
        for _ in range(5):  # someone else's bid a moment earlier: press the keyboard shown now (as below)
            answer = await press_hand(server, person, table, seat, "tap", callbacks.tap_arg(kind, move.cards))
            if not (answer.show_alert and answer.text in OUT_OF_DATE):
                break
        if move.trump is None:
            assert not answer.show_alert, f"{person.name}: {answer.text}"
            await move_landed(server, table, hand, events)
            return
        assert answer.show_alert and answer.text in CHOOSE, f"{person.name}: {answer.text}"
        op, arg = "trump", f"{kind}-{move.trump}"
    else:
        await select_cards(server, person, table, seat, move.cards, settle)
        op, arg = (("trump", f"{kind}-{move.trump}") if move.trump is not None else (kind, ""))
    # Someone else's bid a moment earlier asks the question again (the keyboard's version
    # changes, and a press made for the old question is refused): press the new keyboard.
    for _ in range(5):
        answer = await press_hand(server, person, table, seat, op, arg)
        if not (answer.show_alert and answer.text in OUT_OF_DATE):
            break
    assert not answer.show_alert, f"{person.name}: {answer.text}"
    await move_landed(server, table, hand, events)


async def bury(server: FakeTelegram, person: Person, table: Table, seat: int, settle: Settle | None = None) -> None:
    """Tap the eight cards the AI would bury (there is no hint for burying), then Bury (8/8)."""
    assert table.match is not None
    hand = table.match.hand
    events = len(hand.events)
    cards = choose_action(view_for(hand, seat), hand.ruleset, random.Random(0)).cards
    await select_cards(server, person, table, seat, cards, settle)
    answer = await press_hand(server, person, table, seat, "bury")
    assert not answer.show_alert, f"{person.name}: {answer.text}"
    await move_landed(server, table, hand, events)


async def hint_and_do(server: FakeTelegram, person: Person, table: Table, seat: int) -> None:
    """Press Hint, then the Play button it prepared (burying: select the cards, then Bury)."""
    assert table.match is not None
    hand = table.match.hand
    if hand.phase == "burying":
        await bury(server, person, table, seat)
        return
    events = len(hand.events)
    op = "play"
    answer = await press_hand(server, person, table, seat, "hint")
    assert not answer.show_alert, f"{person.name}: {answer.text}"
    # A quick tapper: Play right away (its button is the same before and after the hint's edit).
    answer = await press_hand(server, person, table, seat, op)
    assert not answer.show_alert, f"{person.name}: {answer.text}"
    await move_landed(server, table, hand, events)


async def tap_and_play(server: FakeTelegram, person: Person, table: Table, seat: int,
                       settle: Settle | None = None) -> None:
    """Press the one-tap play (▶ Play …: what the hint would select); burying: Hint, then Bury (8/8)."""
    assert table.match is not None
    hand = table.match.hand
    events = len(hand.events)
    if hand.phase == "burying":
        answer = await press_hand(server, person, table, seat, "hint")
        assert not answer.show_alert, f"{person.name}: {answer.text}"
        await server.wait_for(lambda: sum(table.selected(seat).values()) == 8 and (
            (message := hand_message(person)) is not None
            and sum(b.text.startswith("✓") for b in message.all_buttons()) == 8), what="the hint's 8 cards shown")
        if settle is not None:
            await settle()
        answer = await press_hand(server, person, table, seat, "bury")
    else:
        answer = await press_hand(server, person, table, seat, "go")
    assert not answer.show_alert, f"{person.name}: {answer.text}"
    await move_landed(server, table, hand, events)


@dataclass
class PlayLog:
    """What happened while people played a hand through the buttons."""

    bids: list[Move] = field(default_factory=list)
    steals: list[Move] = field(default_factory=list)
    moves: int = 0


async def play_hand(server: FakeTelegram, table: Table, people: Mapping[int, Person], plan: Plan | None = None,
                    *, until: Callable[[Hand], bool] | None = None, max_moves: int = 400,
                    settle: Settle | None = None, one_tap: bool = False) -> PlayLog:
    """The people (seat → person) play the current hand to its end, or until ``until(hand)``.

    Seats not in ``people`` are the AI's; the loop waits for them.  With a
    plan, its bidders bid and its stealer steals; everyone else passes, and
    every bury and play is the hint's (Hint then Play, or the one-tap play
    with ``one_tap``).  ``settle`` is awaited before each person's move
    and tap (human pace: the bot shows every state before the next press).
    """
    assert table.match is not None
    hand = table.match.hand
    log = PlayLog()
    # A plan may be played in parts (``until``): what is already done is not done again.
    pending_bids = list(plan.bids[len(hand.bids):]) if plan is not None else []
    stolen = any(b.kind == "steal" for b in hand.bids)
    steal = plan.steal if plan is not None and not stolen else None
    for _ in range(max_moves):
        if table.match.hand is not hand or hand.over or (until is not None and until(hand)):
            return log
        actor = _next_person(hand, people)
        if actor is None:
            events = len(hand.events)
            await server.wait_for(lambda: len(hand.events) > events or hand.over or table.match.hand is not hand  # type: ignore[union-attr]
                                  or _next_person(hand, people) is not None, timeout=10, what="the AI's move")
            continue
        if settle is not None:
            await settle()
        if hand.phase == "bidding":
            move = None
            if pending_bids:  # the plan's bidders go first, in order
                move = pending_bids.pop(0)
                actor = move.seat
                log.bids.append(move)
            await make_move(server, people[actor], table, actor, move, "bid", settle, one_tap=one_tap)
        elif hand.phase == "stealing":
            person = people[actor]
            move = steal if steal is not None and steal.seat == actor and not log.steals else None
            if move is not None:
                log.steals.append(move)
            await make_move(server, person, table, actor, move, "steal", settle, one_tap=one_tap)
        elif one_tap:
            await tap_and_play(server, people[actor], table, actor, settle)
        else:
            await hint_and_do(server, people[actor], table, actor)
        log.moves += 1
    raise AssertionError("the hand did not end")


async def play_until(server: FakeTelegram, table: Table, people: Mapping[int, Person],
                     until: Callable[[Hand], bool], *, hands: int = 5) -> Hand:
    """Play on (over redeals and hands if need be) until ``until(hand)`` holds; that hand."""
    assert table.match is not None
    for _ in range(hands):
        await play_hand(server, table, people, until=until)
        if until(table.match.hand):
            return table.match.hand
    raise AssertionError(f"no hand came to the wanted point in {hands} hands")


def _next_person(hand: Hand, people: Mapping[int, Person]) -> int | None:
    """The seat of a person whose move the hand waits for, if any."""
    if hand.over:
        return None
    if hand.phase == "bidding":
        waiting = [s for s in range(4) if s not in hand.passed and s in people]
        return waiting[0] if waiting else None
    turn = hand.turn
    return turn if turn in people else None


async def press_back(server: FakeTelegram, person: Person) -> CallbackAnswer:
    """Press 「我回来了」 / "I'm back" on the newest private message that offers it."""
    def offered() -> MessageView | None:
        for message in reversed(person.bot_private_messages()):
            if any(b.callback_data and b.callback_data.endswith(":return") for b in message.all_buttons()):
                return message
        return None
    message = await server.wait_for(offered, what=f"{person.name}'s I'm back button")
    pressed = await person.press(message, lambda b: (b.callback_data or "").endswith(":return"))
    return await pressed.answer(ANSWER_TIMEOUT)


def announced(group: Group, *needles: str) -> bool:
    """True if a bot message in the group (or a picture's caption) contains any of these texts."""
    return any(any(n in (m.text or m.caption or "") for n in needles) for m in group.bot_messages())


# --- a player who knows only what the screen shows (the bot may run in another process) -----------

def keyboard_version(message: MessageView) -> str:
    """The version of the question a hand keyboard asks (its action buttons'; card buttons carry the hand's)."""
    found = ""
    for button in message.all_buttons():
        data = callbacks.decode(button.callback_data) if button.callback_data else None
        if data is not None and data.kind == "H":
            if data.op != "sel":
                return data.version
            found = found or data.version
    return found


def offered_move(message: MessageView) -> str | None:
    """What the hand message asks of its reader now: "play", "bury", "steal", "bid", or None.

    In the bidding window everyone sees Bid and Pass; only those who have not
    passed in this round (their keyboard's version says so) still have to answer.
    """
    if hand_button(message, "play") is not None:
        return "play"
    if hand_button(message, "bury") is not None:
        return "bury"
    if hand_button(message, "nosteal") is not None:
        return "steal"
    pass_button = hand_button(message, "pass")
    if pass_button is not None and pass_button.callback_data is not None:
        # The keyboard's version ends in "p" once its reader passed in this round of the bidding.
        if not pass_button.callback_data.split(":")[2].endswith("p"):
            return "bid"
    return None


async def take_offered_move(person: Person, message: MessageView) -> list[CallbackAnswer]:
    """Make the move the message offers, as a person would: Pass, Don't steal, Hint then Play,
    or eight cards then Bury.  The answers to the presses, in order."""
    async def press(op: str, arg: str = "") -> CallbackAnswer:
        button = hand_button(message, op, arg)
        assert button is not None, (op, message.labels)
        return await (await person.press(message, lambda b: b.callback_data == button.callback_data)).answer(ANSWER_TIMEOUT)

    move = offered_move(message)
    if move == "bid":
        return [await press("pass")]
    if move == "steal":
        return [await press("nosteal")]
    if move == "play":
        return [await press("hint"), await press("play")]
    if move == "bury":
        cards = [b for b in message.all_buttons() if ":sel:" in (b.callback_data or "")][-8:]
        answers = []
        for card in cards:
            data = card.callback_data
            answers.append(await (await person.press(message, lambda b: b.callback_data == data)).answer(ANSWER_TIMEOUT))
        return answers + [await press("bury")]
    return []


async def play_what_is_offered(server: FakeTelegram, person: Person, *, until: Callable[[], bool],
                               timeout: float = 30.0, think: float = 0.0) -> int:
    """Keep making the moves the person's hand message offers until ``until()``; the number of moves.

    A move is made once per keyboard version: the version changes with every
    question (a new bidding round, one's own pass, a steal round, a trick), so
    a keyboard already answered is never answered twice.
    """
    moves = 0
    seen: tuple[int, int] | None = None
    acted: tuple[str, str] | None = None

    def changed() -> MessageView | bool | None:
        if until():
            return True
        message = hand_message(person)
        if message is None:
            return None
        version = (message.message_id, len(server.state.messages[person.id][message.message_id].history))
        move = offered_move(message)
        if move is None or version == seen:
            return None
        if (keyboard_version(message), move) == acted:
            return None  # the keyboard this person already answered (the bot's edit is yet to come)
        return message

    while True:
        found = await server.wait_for(changed, timeout, what=f"a move for {person.name}")
        if found is True:
            return moves
        assert isinstance(found, MessageView)
        # The version acted on, not the one after the presses: the bot's next edit (the person's turn
        # again) may already be there, and it must not be skipped.
        seen = (found.message_id, len(server.state.messages[person.id][found.message_id].history))
        if think:
            await asyncio.sleep(think)
        move = offered_move(found)
        answers = await take_offered_move(person, found)
        acted = (keyboard_version(found), move or "")
        if answers and not answers[-1].show_alert:
            moves += 1
