"""A seat's revision (bot.webapp.live.Live.revision): moved by that seat's own state only, and growing."""

from __future__ import annotations

import pytest

from bot.webapp import live as live_module
from bot.webapp.live import Live


def test_a_seats_revision_moves_with_its_own_state_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_module.time, "time", lambda: 1_000.0)
    live = Live()
    alice = {"seat": 0, "info": "your hand", "seq": 3}
    first = live.revision(7, 0, alice)
    for n in range(5):  # another seat's state changes (a card tapped there, say) ...
        live.revision(7, 1, {"seat": 1, "info": f"Selected: {n} cards", "seq": 3})
        assert live.revision(7, 0, dict(alice)) == first  # ... and this seat's revision stays
    moved = live.revision(7, 0, {**alice, "seq": 4})
    again = live.revision(7, 0, {**alice, "seq": 5})  # within the same millisecond too
    assert first < moved < again
    assert live.revision(8, 0, alice) != 0, "each table's seats have their own"


def test_a_revision_grows_across_a_restart(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1_000.0]
    monkeypatch.setattr(live_module.time, "time", lambda: now[0])
    before = Live()
    for n in range(50):
        last = before.revision(7, 0, {"seq": n})
    now[0] += 1.0  # the bot starts again a moment later: a page that kept its state still takes the new one
    assert Live().revision(7, 0, {"seq": 0}) > last
