"""bench/bench_sprt.py and bench/remote_player.py: the sequential test's ratio, and a deal against another checkout."""

from __future__ import annotations

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from bench_sprt import LOWER, UPPER, llr, play_deal, report, verdict  # noqa: E402
from remote_player import RemotePlayer  # noqa: E402

from engine.ai import casual_action, heuristic_action  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def test_the_ratio_follows_the_normal_approximation() -> None:
    shares = [0.75, 0.5, 0.5, 0.75, 0.25, 1.0]
    mean = sum(shares) / 6
    var = sum((x - mean) ** 2 for x in shares) / 6
    assert var > 0.02 and math.isclose(llr(shares), 6 * 0.05 * (2 * mean - 1.05) / (2 * var))
    assert llr([0.5] * 3 + [0.75] * 3) > 0 > llr([0.5] * 3 + [0.25] * 3)
    assert llr([0.5]) == 0.0


def test_the_bounds_decide() -> None:
    assert math.isclose(UPPER, math.log(19)) and math.isclose(LOWER, -math.log(19))
    assert verdict(3.0) == "H1" and verdict(-3.0) == "H0" and verdict(0.1) is None
    assert verdict(3.0, 10) is None  # too few deals to decide
    assert abs(llr([0.5, 0.5, 0.5])) < 1  # no variance yet: the floor keeps the ratio finite
    assert llr([0.75, 0.5, 1.0, 0.75] * 60) > UPPER  # about 75 % won over 240 deals
    assert llr([0.25, 0.5, 0.0, 0.5] * 60) < LOWER


def test_a_deal_against_another_checkout_is_played_and_reported() -> None:
    """Four hands of one deal, the heuristics against the casual player of a checkout run in a child process."""
    other = RemotePlayer(ROOT, player="casual")
    try:
        record = play_deal(4, 5, lambda v, r, _g: heuristic_action(v, r), other)
    finally:
        other.close()
    assert record["preset"] == "xin" and len(record["won"]) == 4 and len(record["score"]) == 4
    assert all(phase in ("bidding", "burying", "stealing", "playing") for phase, _t in other.times)
    same = play_deal(4, 5, lambda v, r, _g: heuristic_action(v, r), lambda v, r, g: casual_action(v, r, g))
    assert same["won"] == record["won"] and same["score"] == record["score"]  # the child played as casual_action
    lines = report([record, same])
    assert lines[0].startswith("2 deals, 8 hands") and any(line.strip().startswith("xin") for line in lines)


def test_a_class_kept_elsewhere_by_the_other_checkout_is_found() -> None:
    import io
    import pickle

    from remote_player import _Unpickler

    from engine.scoring import Adjustment

    adjustment = Adjustment("throw", 1, -10)
    moved = pickle.dumps(adjustment, protocol=0).replace(b"engine.scoring\nAdjustment", b"engine.cards\nAdjustment")
    assert b"engine.cards\nAdjustment" in moved  # a module without it (5 December's checkout kept it in engine.hand)
    assert _Unpickler(io.BytesIO(moved)).load() == adjustment
