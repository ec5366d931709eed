"""Each seat's keyboard state between presses (``bot/presses.py``): the copy tapped is the copy ticked, a
hint's selection shows its first copies, a restart's loss is told once, and a repeated press is known."""

from __future__ import annotations

from collections import Counter

from bot.presses import Presses
from engine.cards import Card

FOUR = Card.parse("4C")
FIVE = Card.parse("5H")


def test_the_copy_tapped_is_the_copy_ticked_and_a_second_tap_unticks_it() -> None:
    presses = Presses()
    presses.toggle(0, FOUR, 1, held=2)
    assert presses.selected(0) == Counter({FOUR: 1}) and presses.ticks(0, FOUR) == {1}
    presses.toggle(0, FOUR, 0, held=2)
    assert presses.selected(0) == Counter({FOUR: 2}) and presses.ticks(0, FOUR) == {0, 1}
    presses.toggle(0, FOUR, 1, held=2)
    assert presses.selected(0) == Counter({FOUR: 1}) and presses.ticks(0, FOUR) == {0}
    presses.toggle(0, FOUR, 0, held=2)
    assert presses.selected(0) == Counter() and presses.ticks(0, FOUR) == frozenset()


def test_no_more_copies_are_selected_than_the_hand_holds() -> None:
    presses = Presses()
    presses.toggle(2, FIVE, 0, held=1)
    presses.toggle(2, FIVE, 1, held=1)  # a second button for a card held once: an old keyboard's
    assert presses.selected(2) == Counter({FIVE: 1})


def test_a_hint_replaces_the_selection_and_shows_its_first_copies() -> None:
    presses = Presses()
    presses.toggle(1, FOUR, 1, held=2)
    presses.replace(1, [FOUR, FIVE])
    assert presses.selected(1) == Counter({FOUR: 1, FIVE: 1})
    assert presses.ticks(1, FOUR) is None, "selected by a hint: the renderer ticks the first copies"
    presses.toggle(1, FOUR, 1, held=2)  # a tap after a hint starts from the first copies
    assert presses.ticks(1, FOUR) == {0, 1}


def test_seats_are_apart_and_readers_get_copies() -> None:
    presses = Presses()
    presses.replace(0, [FOUR])
    presses.selected(0)[FIVE] += 1
    assert presses.selected(0) == Counter({FOUR: 1}) and presses.selected(3) == Counter()
    presses.clear(0)
    assert presses.selected(0) == Counter()
    presses.replace(0, [FOUR])
    presses.replace(1, [FIVE])
    presses.clear_all()
    assert presses.selected(0) == presses.selected(1) == Counter()


def test_a_restart_loss_is_told_once_and_not_after_a_new_selection() -> None:
    presses = Presses()
    presses.restarted()
    assert presses.lost(0) and not presses.lost(0)
    presses.toggle(1, FOUR, 0, held=1)
    assert not presses.lost(1)
    presses.touched(2)
    assert not presses.lost(2)
    assert presses.lost(3)


def test_the_press_that_made_the_last_move_is_known_again_while_nothing_else_changed() -> None:
    presses = Presses()
    presses.acted(0, "1.25.p", "play", "1.24.p")
    assert presses.already(0, "1.25.p", "play", "1.24.p")
    assert not presses.already(0, "1.25.p", "go", "1.24.p")
    assert not presses.already(0, "1.25.p", "play", "1.23.p"), "the hand moved on since"
    assert not presses.already(1, "1.25.p", "play", "1.24.p")
