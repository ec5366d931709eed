"""Giving the memory the bot freed back to the system.

Python hands the memory of objects over 512 bytes (dict tables, long strings,
buffers of Telegram's replies) to the C allocator, and glibc's ``malloc``
keeps the pages it gets back for later instead of returning them.  At 100
busy tables the bot's Python memory is flat after half an hour, yet its main
heap still crept up by about 6 MiB an hour; one ``malloc_trim(0)`` gave 5 MiB
of it back.  The heartbeat (:mod:`bot.health`) calls :func:`release_memory`
every few minutes, so the resident size follows what the bot really uses.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from typing import Final


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``; None with another C library (musl, macOS), which has nothing like it."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    trim.argtypes = [ctypes.c_size_t]  # type: ignore[attr-defined]
    trim.restype = ctypes.c_int  # type: ignore[attr-defined]
    return trim


_TRIM: Final = _malloc_trim()

AVAILABLE: Final = _TRIM is not None
"""True where :func:`release_memory` can do something (the C library is glibc)."""


def release_memory() -> bool:
    """Return the allocator's free pages to the system; True if any memory was released.

    Takes a few milliseconds for the bot's heap, during which other threads wait to allocate.
    """
    return bool(_TRIM(0)) if _TRIM is not None else False
