"""bench/bench_speed.py: the work it counts, and the same checksum for the same code."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from bench_speed import selfplay_rate, strong_rate  # noqa: E402

from engine.ai import random_action  # noqa: E402


def test_the_random_hands_are_counted() -> None:
    hands, cpu, checksum = selfplay_rate(["xin", "anhui"], 2, 1, random_action)
    assert hands == 4 and cpu > 0
    assert selfplay_rate(["xin", "anhui"], 2, 1, random_action)[::2] == (hands, checksum)


def test_the_strong_search_counts_its_deals_and_plays_the_same_twice() -> None:
    first = strong_rate(["yancheng"], 1, 101, 1)
    deals, rollouts, decisions, checksum, cpu = first
    assert 0 < deals <= rollouts and decisions > 0 and cpu > 0
    assert strong_rate(["yancheng"], 1, 101, 1)[:4] == first[:4]


def test_bench_load_counts_the_deals_a_search_samples() -> None:
    """bench_load.py: a core shared many ways cuts a search in time alone to one deal, not one counted in work."""
    from bench_load import positions, searched

    from engine.ai import DEFAULT_CAP

    found = positions(["xin"], 40)[:2]
    timed, _ = searched(found, 1e6, None)
    worked, _ = searched(found, 1e6, DEFAULT_CAP * 1e9)
    assert timed and all(d == 1 for d in timed)
    assert all(w >= t for w, t in zip(worked, timed)) and sum(worked) > sum(timed)
