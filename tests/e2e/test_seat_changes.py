"""Seats change hands at random moments and no private chat or web app stream shows a card its reader may not.

A CI-sized run of ``seat_changes.seat_change_run`` (``bench/bench_seat_leaks.py``
runs hundreds of hands): leaves (free and confirmed escapes, one right after
the leaver's own move), timeouts and blocks with the way back, restarts, the
web app opened and closed at random (moves made in it while open); then every
version of every message and every popup in each person's private chat, and
every frame of every stream, is read against the seat they held at that moment.
With seed 3 a stream that did not end at its seat's loss is caught (the scan
found a leaver's stream showing the seat's next hand when the per-frame check
was taken out).  One run has the AI search (「高手」, the default), one plays
it at once (「轻松」: a table nobody is left at plays its hand out quickly).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from . import seat_changes
from .fake_telegram import FakeTelegram, FloodLimits
from .seat_changes import seat_change_run


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize(("seed", "strength"), [(3, "strong"), (11, "casual")])
async def test_no_private_chat_sees_cards_it_may_not_as_seats_change(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                    seed: int, strength: str) -> None:
    figures = await seat_change_run(fake_telegram, tmp_path / "t.db", random.Random(seed), hands=3,
                                    strength=strength)
    assert figures.hands >= 1 and figures.scanned > 10 and figures.streams >= 1 and figures.frames >= 1, figures
    assert not figures.leaks, "\n".join(map(str, figures.leaks[:10]))


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_leaving_right_after_ones_own_move_shows_nothing_of_the_next_hand(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reported leak: /leave while the edit after one's own move is pending drew the AI's next hand
    into the leaver's message (10 leaked card labels with seed 1 before the fix)."""
    monkeypatch.setattr(seat_changes, "EVENTS", ("leave_after_own_move",))
    figures = await seat_change_run(fake_telegram, tmp_path / "t.db", random.Random(1), hands=3)
    assert figures.seat_changes >= 1, figures
    assert not figures.leaks, "\n".join(map(str, figures.leaks[:10]))
