"""The hand keyboard's handler with the real table service (``bot/handlers/hand_buttons.py`` over
``bot/tables/perform.py``): a press on a keyboard the bot has since replaced is answered "out of date", its
hand is shown again, and nothing else changes; the same press with the current version is carried out.

The end-to-end tests (``tests/e2e/test_refusals.py``, ``test_presses.py``) press old snapshots through the
fake Telegram; here the handler meets a fake query and a service with no database and no publisher, so a
press that got past the version check to a move would fail loudly (there is nothing to store it in).
"""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import pytest

from bot import callbacks
from bot.config import Settings
from bot.handlers.hand_buttons import on_hand_button, request_of
from bot.i18n import translator
from bot.model import Table
from bot.render_private import ONE_TAP
from bot.tables import Clear, Hint, Move, NextHand, OneTap, Peek, Select, Tables
from engine.cards import Card
from tests.bot import builders as T


def _state(table: Table) -> tuple[object, ...]:
    """What a press could change: the hand, every seat's keyboard version, selection and keyboard state."""
    assert table.match is not None
    hand = table.match.hand
    return (len(hand.events), hand.phase, hand.turn, tuple(len(h) for h in hand.hands),
            [table.version(s) for s in range(4)], [+table.selected(s) for s in range(4)],
            copy.deepcopy(table.presses.__dict__),
            [(s.hand_message_id, s.timed_out) for s in table.seats if s is not None])


async def _press(table: Table, seat: int, data: str, lang: str) -> tuple[list[tuple[str | None, bool]], list[Table]]:
    """Seat ``seat``'s person presses a button carrying ``data`` on their private hand message; the answers,
    and the refreshes the service made."""
    info = table.seats[seat]
    assert info is not None and info.user_id is not None
    answers: list[tuple[str | None, bool]] = []

    async def answer(text: str | None = None, show_alert: bool = False) -> None:
        answers.append((text, show_alert))

    service = Tables(db=None, config=Settings(token="1:x"))  # type: ignore[arg-type]
    service.register(table)
    refreshed: list[Table] = []
    service.follow(refreshed.append)  # every refresh tells the watchers
    query = SimpleNamespace(from_user=SimpleNamespace(id=info.user_id), answer=answer,
                            message=SimpleNamespace(chat=SimpleNamespace(id=info.user_id), message_id=77))
    context: Any = SimpleNamespace(bot_data={"tables": service})
    decoded = callbacks.decode(data)
    assert decoded is not None
    await on_hand_button(context, query, table, decoded, translator(lang))  # type: ignore[arg-type]
    return answers, refreshed


def _seat(table: Table) -> int:
    return next(s for s in range(4) if not table.seats[s].is_ai)  # type: ignore[union-attr]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("op", ["play", "hint", "clear"])
async def test_a_press_with_an_old_keyboard_version_is_out_of_date_and_changes_nothing(lang: str, op: str) -> None:
    """An action (▶ play) carries the question's version, a selecting button (hint, clear) the hand's: each
    pressed with the version its keyboard had before the seat played a card is refused."""
    table = T.playing("yancheng", tricks=2)
    hand = T.hand_of(table)
    seat = _seat(table)
    T.advance(table, lambda h: h.turn == seat)
    old = table.version(seat)
    before_len = len(hand.hands[seat])
    T.step(table)  # the seat plays a card (as the AI would): every button of its keyboard is now old
    T.advance(table, lambda h: h.turn == seat)
    assert len(hand.hands[seat]) < before_len and table.version(seat) != old
    before = _state(table)
    answers, refreshed = await _press(table, seat, callbacks.hand(table.id, old, op), lang)
    tr = translator(lang)
    assert answers == [(tr("That button is out of date; your hand is shown again."), True)]
    assert refreshed == [table], "the hand message is brought up to date, once: that is all"
    assert _state(table) == before


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_card_of_an_old_hand_is_out_of_date_and_changes_nothing(lang: str) -> None:
    """A card button of the keyboard before the last deal carries that hand's version: refused, nothing
    selected."""
    table = T.playing("yancheng", tricks=2)
    seat = _seat(table)
    old = table.hand_version(seat)
    card = T.hand_of(table).hands[seat][0]
    T.advance(table, lambda h: table.hand_version(seat) != old)
    before = _state(table)
    answers, refreshed = await _press(table, seat, callbacks.hand(table.id, old, "sel", f"{card}0"), lang)
    assert answers == [(translator(lang)("That button is out of date; your hand is shown again."), True)]
    assert refreshed == [table]
    assert _state(table) == before
    assert not table.selected(seat)


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_press_with_the_current_version_is_carried_out(lang: str) -> None:
    """The control: the same hint with the keyboard's current version selects the suggested cards, with no
    popup, and the keyboard is redrawn once."""
    table = T.playing("yancheng", tricks=2)
    seat = _seat(table)
    T.advance(table, lambda h: h.turn == seat)
    answers, refreshed = await _press(table, seat, callbacks.hand(table.id, table.version(seat), "hint"), lang)
    assert answers == [(None, False)]
    assert sum(table.selected(seat).values()) >= 1
    assert refreshed == [table]


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_hand_button_in_the_group_is_not_valid(lang: str) -> None:
    """A private keyboard's button pressed where it was not sent (forwarded to a group) changes nothing."""
    table = T.playing("yancheng", tricks=2)
    seat = _seat(table)
    info = table.seats[seat]
    assert info is not None
    answers: list[tuple[str | None, bool]] = []

    async def answer(text: str | None = None, show_alert: bool = False) -> None:
        answers.append((text, show_alert))

    query = SimpleNamespace(from_user=SimpleNamespace(id=info.user_id), answer=answer,
                            message=SimpleNamespace(chat=SimpleNamespace(id=table.chat_id), message_id=5))
    context: Any = SimpleNamespace(bot_data={"tables": None})  # the service is never reached
    before = _state(table)
    decoded = callbacks.decode(callbacks.hand(table.id, table.version(seat), "hint"))
    assert decoded is not None
    await on_hand_button(context, query, table, decoded, translator(lang))  # type: ignore[arg-type]
    assert answers == [(translator(lang)("That button is not valid."), True)]
    assert _state(table) == before


def test_each_button_is_read_as_its_request() -> None:
    """The keyboard's buttons and the requests they make; a button the keyboard never draws makes none."""
    def read(op: str, arg: str = "") -> object:
        return request_of(callbacks.Callback("H", 1, op, arg, "1.25.p"))

    five = T.hand_of(T.make_table()).hands[0][0]
    assert read("sel", f"{five}1") == Select(five, 1, "1.25.p")
    assert read("clear") == Clear("1.25.p") and read("hint") == Hint("1.25.p", select=True)
    assert read("go", "2") == OneTap(2, "1.25.p") and read("go") == OneTap(0, "1.25.p")
    assert read("play") == Move("play", None, "1.25.p", None, "play")
    assert read("nosteal") == Move("pass_steal", None, "1.25.p", None, "nosteal")
    assert read("trump", "bid-NT") == Move("bid", None, "1.25.p", "NT", "trump")
    assert read("next") == NextHand("1.25.p") and read("peek") == Peek()
    assert read("tap", "bid-2D") == Move("bid", (Card.parse("2D"),), "1.25.p", None, "tap")
    assert read("tap", "steal-10H10H") == Move("steal", (Card.parse("10H"),) * 2, "1.25.p", None, "tap")
    assert read("tap", "bid-BJBJ") == Move("bid", (Card.parse("BJ"),) * 2, "1.25.p", None, "tap")
    for op, arg in (("trump", "play-S"), ("trump", "bid-X"), ("sel", "ZZ0"), ("drop", ""), ("tap", ""),
                    ("tap", "play-2D"), ("tap", "bid-"), ("tap", "bid-2D2D2D"), ("tap", "bid-2d"), ("tap", "bid-ZZ"),
                    ("tap", "bid-2D3D"), ("tap", "pass-2D")):
        assert read(op, arg) is None, (op, arg)
    assert read("go", "x") == OneTap(ONE_TAP, "1.25.p"), "an index the keyboard never drew: out of range, so stale"
