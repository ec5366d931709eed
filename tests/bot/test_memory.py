"""Freed memory goes back to the system (glibc's malloc_trim) when the heartbeat asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.memory import AVAILABLE, release_memory

MiB = 2**20


def _resident() -> int:
    """This process's resident memory in bytes (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not AVAILABLE, reason="the C library is not glibc: nothing to release")
def test_freed_heap_pages_go_back_to_the_system() -> None:
    # 64 MiB in 2 KiB strings (from the C heap, not pymalloc), then all but one in 64 freed: the heap keeps
    # its size (the survivors pin it) but most of its pages are free, and only a trim returns them.
    strings = [bytes(2048) + i.to_bytes(4, "little") for i in range(32 * 1024)]
    pinned = strings[::64]
    del strings
    before = _resident()
    release_memory()
    after = _resident()
    assert pinned
    assert before - after > 16 * MiB, f"resident {before / MiB:.0f} → {after / MiB:.0f} MiB"

