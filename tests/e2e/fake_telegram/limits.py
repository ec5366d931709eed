"""Flood control: Telegram's 429 "Too Many Requests: retry after N".

Telegram publishes only rough figures: about one message a second in one chat
(short bursts tolerated), 20 messages a minute in one group, about 30 a second
overall. This module enforces exactly those, with every figure configurable per
server and time taken from an injectable clock, so a test can step a
:class:`FakeClock` a minute forward instead of sleeping, or shrink the windows.

What counts: every new message; edits count in groups (DESIGN.md: "edits count in
practice"), and in private chats only when ``edits_count_in_private`` is set, or,
with ``edits_count_overall``, in the overall 30-a-second window alone (as issue 13
reads Telegram: sends and edits together are capped over all chats).
Rejected requests consume nothing. ``retry_after`` is whole seconds, at least 1,
the time until every limit involved would let the request through.
"""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

Clock = Callable[[], float]
"""A function returning seconds as a float; only differences matter."""


class FakeClock:
    """A clock that moves only when told to: ``clock.advance(60)``."""

    def __init__(self, start: float = 1_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` (never backwards)."""
        if seconds < 0:
            raise ValueError("a clock does not run backwards")
        self.now += seconds


@dataclass(frozen=True)
class FloodLimits:
    """The figures flood control enforces; ``FloodLimits.unlimited()`` turns it off."""

    per_chat_rate: float = 1.0
    """Messages per second sustained in one chat."""
    per_chat_burst: int = 3
    """Messages one chat may take at once before the per-second rate applies."""
    group_max: int = 20
    """Messages per ``group_window`` in one group or supergroup."""
    group_window: float = 60.0
    global_max: int = 30
    """Messages per ``global_window`` over all chats."""
    global_window: float = 1.0
    edits_count_in_groups: bool = True
    edits_count_in_private: bool = False
    edits_count_overall: bool = False
    """Private-chat edits take a slot of the overall window (not of their chat's own rate)."""
    enabled: bool = True

    @classmethod
    def unlimited(cls) -> FloodLimits:
        """No flood control at all."""
        return cls(enabled=False)


@dataclass
class _Bucket:
    tokens: float
    updated: float


@dataclass
class FloodControl:
    """Decides, request by request, whether Telegram would answer 429."""

    limits: FloodLimits = field(default_factory=FloodLimits)
    clock: Clock = time.monotonic
    rejections: int = 0
    """How many 429 answers were given."""
    rejections_by_chat: Counter[int] = field(default_factory=Counter)
    _buckets: dict[int, _Bucket] = field(default_factory=dict)
    _group_windows: dict[int, deque[float]] = field(default_factory=dict)
    _global_window: deque[float] = field(default_factory=deque)

    def counts(self, *, is_group: bool, is_edit: bool) -> bool:
        """Whether a request of this kind is subject to flood control."""
        if not self.limits.enabled:
            return False
        if not is_edit:
            return True
        return self.limits.edits_count_in_groups if is_group else self.limits.edits_count_in_private

    def acquire(self, chat_id: int, *, is_group: bool, is_edit: bool = False) -> int | None:
        """Take a slot for one message; return None if allowed, else ``retry_after`` seconds."""
        limits = self.limits
        in_chat = self.counts(is_group=is_group, is_edit=is_edit)
        if not in_chat and not (limits.enabled and is_edit and limits.edits_count_overall):
            return None
        now = self.clock()
        waits: list[float] = []

        bucket = self._buckets.get(chat_id)
        if bucket is None:
            bucket = _Bucket(float(limits.per_chat_burst), now)
        tokens = min(float(limits.per_chat_burst), bucket.tokens + (now - bucket.updated) * limits.per_chat_rate)
        if in_chat and tokens < 1.0:
            waits.append((1.0 - tokens) / limits.per_chat_rate)

        group = None
        if in_chat and is_group:
            group = self._group_windows.setdefault(chat_id, deque())
            _expire(group, now - limits.group_window)
            if len(group) >= limits.group_max:
                waits.append(group[0] + limits.group_window - now)

        _expire(self._global_window, now - limits.global_window)
        if len(self._global_window) >= limits.global_max:
            waits.append(self._global_window[0] + limits.global_window - now)

        if waits:
            self.rejections += 1
            self.rejections_by_chat[chat_id] += 1
            return max(1, math.ceil(max(waits) - 1e-9))
        if in_chat:
            self._buckets[chat_id] = _Bucket(tokens - 1.0, now)
        if group is not None:
            group.append(now)
        self._global_window.append(now)
        return None

    def forget_chat(self, chat_id: int) -> None:
        """Drop the history of one chat (after a group migrates, its old id is dead)."""
        self._buckets.pop(chat_id, None)
        self._group_windows.pop(chat_id, None)


def _expire(window: deque[float], before: float) -> None:
    while window and window[0] <= before:
        window.popleft()
