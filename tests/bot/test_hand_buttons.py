"""The hand keyboard's handler itself (``bot/handlers/hand_buttons.py``): a press on a keyboard the bot has since
replaced is answered "out of date", its hand is shown again, and nothing else changes.

The end-to-end tests (``tests/e2e/test_refusals.py``, ``test_presses.py``) press old snapshots through the
fake Telegram; here the handler meets a fake query and a table service that records what it is asked, so a
press that got past the version check would fail loudly (the service has nothing to move with).
"""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import pytest

from bot import callbacks
from bot.handlers.hand_buttons import on_hand_button
from bot.i18n import translator
from bot.model import Table
from tests.bot import tables as T


class _Service:
    """The table service as the handler sees it, recording what it was asked; no move can be made with it."""

    def __init__(self) -> None:
        self.app_seats: dict[tuple[int, int, int], int] = {}
        self.refreshed: list[int | None] = []

    def refresh(self, _table: Table, *, pressed: int | None = None) -> None:
        self.refreshed.append(pressed)

    def __getattr__(self, name: str) -> Any:  # act, hint, come_back …: a stale press must reach none of them
        raise AssertionError(f"a stale press asked the service for {name!r}")


def _state(table: Table) -> tuple[object, ...]:
    """What a press could change: the hand, every seat's keyboard version, selection, ticks and last action."""
    assert table.match is not None
    hand = table.match.hand
    return (len(hand.events), hand.phase, hand.turn, tuple(len(h) for h in hand.hands),
            [table.version(s) for s in range(4)], copy.deepcopy(table.selection), copy.deepcopy(table.ticked),
            dict(table.acted), [(s.hand_message_id, s.timed_out) for s in table.seats if s is not None])


async def _press(table: Table, seat: int, data: str, lang: str) -> tuple[list[tuple[str | None, bool]], _Service]:
    """Seat ``seat``'s person presses a button carrying ``data`` on their private hand message."""
    info = table.seats[seat]
    assert info is not None and info.user_id is not None
    answers: list[tuple[str | None, bool]] = []

    async def answer(text: str | None = None, show_alert: bool = False) -> None:
        answers.append((text, show_alert))

    service = _Service()
    query = SimpleNamespace(from_user=SimpleNamespace(id=info.user_id), answer=answer,
                            message=SimpleNamespace(chat=SimpleNamespace(id=info.user_id), message_id=77))
    context = SimpleNamespace(bot_data={"tables": service})
    decoded = callbacks.decode(data)
    assert decoded is not None
    await on_hand_button(context, query, table, decoded, translator(lang))  # type: ignore[arg-type]
    return answers, service


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("op", ["play", "hint", "clear"])
async def test_a_press_with_an_old_keyboard_version_is_out_of_date_and_changes_nothing(lang: str, op: str) -> None:
    """An action (▶ play) carries the question's version, a selecting button (hint, clear) the hand's: each
    pressed with the version its keyboard had before the seat played a card is refused."""
    table = T.playing("yancheng", tricks=2)
    hand = T.hand_of(table)
    seat = next(s for s in range(4) if not table.seats[s].is_ai)  # type: ignore[union-attr]
    T.advance(table, lambda h: h.turn == seat)
    old = table.version(seat)
    before_len = len(hand.hands[seat])
    T.step(table)  # the seat plays a card (as the AI would): every button of its keyboard is now old
    T.advance(table, lambda h: h.turn == seat)
    assert len(hand.hands[seat]) < before_len and table.version(seat) != old
    before = _state(table)
    answers, service = await _press(table, seat, callbacks.hand(table.id, old, op), lang)
    tr = translator(lang)
    assert answers == [(tr("That button is out of date; your hand is shown again."), True)]
    assert service.refreshed == [seat]  # the hand message is brought up to date: that is all
    assert _state(table) == before


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_card_of_an_old_hand_is_out_of_date_and_changes_nothing(lang: str) -> None:
    """A card button of the keyboard before the last deal carries that hand's version: refused, nothing
    selected."""
    table = T.playing("yancheng", tricks=2)
    seat = next(s for s in range(4) if not table.seats[s].is_ai)  # type: ignore[union-attr]
    old = table.hand_version(seat)
    card = T.hand_of(table).hands[seat][0]
    T.advance(table, lambda h: table.hand_version(seat) != old)
    before = _state(table)
    answers, service = await _press(table, seat, callbacks.hand(table.id, old, "sel", f"{card}0"), lang)
    assert answers == [(translator(lang)("That button is out of date; your hand is shown again."), True)]
    assert service.refreshed == [seat]
    assert _state(table) == before
    assert not table.selected(seat)


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_press_with_the_current_version_reaches_the_move(lang: str) -> None:
    """The control: the same press with the keyboard's current version gets past the check (and asks the
    service to move, which this one cannot)."""
    table = T.playing("yancheng", tricks=2)
    seat = next(s for s in range(4) if not table.seats[s].is_ai)  # type: ignore[union-attr]
    T.advance(table, lambda h: h.turn == seat)
    with pytest.raises(AssertionError, match="a stale press asked the service"):
        await _press(table, seat, callbacks.hand(table.id, table.version(seat), "hint"), lang)
