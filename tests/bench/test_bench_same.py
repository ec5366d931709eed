"""bench/bench_same.py: checksums that tell whether a change plays the same."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))

from bench_same import checksums  # noqa: E402

import engine.ai.rollout as rollout  # noqa: E402
import engine.ai.search as search  # noqa: E402


def test_the_same_code_gives_the_same_checksums_and_the_forced_play_shortcut_changes_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    first = checksums("yancheng", 1, 4, 101, 2)
    assert checksums("yancheng", 1, 4, 101, 2)[:3] == first[:3]
    monkeypatch.setattr(rollout, "forced_play", lambda hand, seat: None)  # ask the player every play
    assert checksums("yancheng", 1, 4, 101, 2)[:3] == first[:3]


def test_a_change_in_the_rollouts_values_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    first = checksums("xin", 1, 0, 101, 2)
    monkeypatch.setattr(search, "WIN_WEIGHT", 3.0)  # winning the hand weighs more against 积分
    changed = checksums("xin", 1, 0, 101, 2)
    assert changed[1] != first[1]
