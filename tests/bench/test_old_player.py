"""Today's 高手 (the tag strong-2026-12-05) at the blunder positions of tests/engine/ai/test_blunders.py.

It runs only where a worktree of the tag exists (``OLD_STRONG_ROOT``, by
default ``/work/wt-strong-old``: ``git worktree add --detach PATH
strong-2026-12-05``), through ``bench/remote_player.py``; elsewhere it is
skipped.  With no time cap the old player decides the same every time.
"""

from __future__ import annotations

import os
import sys
from collections import Counter

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from blunders import judge_play  # noqa: E402
from remote_player import RemotePlayer  # noqa: E402

from engine.cards import parse_cards  # noqa: E402
from engine.views import view_for  # noqa: E402
from tests.engine.ai.test_blunders import POSITIONS, position  # noqa: E402

OLD = os.environ.get("OLD_STRONG_ROOT", "/work/wt-strong-old")

pytestmark = pytest.mark.skipif(not os.path.isdir(os.path.join(OLD, "engine", "ai")),
                                reason="no worktree of the tag strong-2026-12-05")


def test_todays_player_made_each_blunder_and_the_judge_calls_it_one() -> None:
    old = RemotePlayer(OLD, budget=float("inf"))
    try:
        for name, (_p, _s, _l, _e, seat, _c, _t, blunder, clean) in POSITIONS.items():
            hand = position(name)
            assert Counter(old(view_for(hand, seat), hand.ruleset).cards) == Counter(parse_cards(blunder)), name
            judged = judge_play(hand, seat, parse_cards(blunder))
            assert any(judged[f"{kind}.4"] for kind in ("gift", "lost", "joker")), (name, judged)
            assert not any(judge_play(hand, seat, parse_cards(clean))[f"{kind}.4"] for kind in ("gift", "lost", "joker"))
    finally:
        old.close()
