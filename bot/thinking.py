"""The strong AI's searches, in worker processes, with a budget of work that shrinks as searches queue up.

A search samples :data:`engine.ai.DEFAULT_DEALS` deals a play (about 0.4 s,
:data:`engine.ai.DEFAULT_BUDGET`, of an idle core).  In the event loop it
would hold every other table back, so it runs in a worker process, and only
the seat's view goes there.  With many tables of one person and three AI
seats the searches queue for the workers: at 0.4 s each, thirty tables would
keep a person waiting many seconds for their three AI opponents.  So each
search gets the share its place in the queue allows: the full budget while a
worker is free, and the workers' time shared out among the searches waiting
(``budget × workers / waiting``) when they are not.  The share is counted in
work, deals to sample (:func:`search_work`), not in seconds: a host busy
with other work then makes the AI slower, not weaker, up to the wall-clock
cap (three times the share) a person waits at most.  Below
:data:`LEAST_BUDGET` (two deals a play) a search would finish too few deals
to beat its own heuristics, so the seat plays the heuristics alone (a
millisecond).  The AI then answers about as fast at thirty tables as at one,
a little less deep; people never wait for a queue.

The workers end with the bot, however it ends (a SIGKILL or an out-of-memory
kill included): each asks Linux to kill it when its parent dies, and watches
its parent besides (:func:`die_with`).  With the workers gone,
multiprocessing's resource tracker, which they keep open, ends too.
"""

from __future__ import annotations

import asyncio
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Final

from engine.ai import DEFAULT_BUDGET, DEFAULT_CANDIDATES, DEFAULT_CAP, DEFAULT_DEALS, StrongPlayer
from engine.ai.playing import CANDIDATES
from engine.hand import Action
from engine.ruleset import Ruleset
from engine.views import HandView

PR_SET_PDEATHSIG: Final = 1
"""Linux's prctl option: the signal the kernel sends a process when its parent dies."""

LEAST_BUDGET = 0.05
"""Seconds below which a search is not worth starting: the seat plays the strong heuristics alone."""


def die_with(parent: int) -> None:
    """Runs first in each worker: the worker ends when the process ``parent`` (the bot) ends.

    On Linux the kernel kills it at once (``PR_SET_PDEATHSIG``); everywhere, a
    thread that sees its parent change ends it within a second.
    """
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass  # the watching thread below still ends it
    if os.getppid() != parent:  # the bot was gone before the line above took effect
        os._exit(0)
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)  # no clean-up: the bot that wanted the search is gone


def default_workers() -> int:
    """Worker processes for searches: one core is left to the bot's event loop (at least one worker)."""
    return max(1, (os.cpu_count() or 2) - 1)


def search_budget(waiting: int, workers: int, full: float = DEFAULT_BUDGET) -> float:
    """Seconds a search may take when ``waiting`` searches (this one not counted) are already queued or running.

    The full budget while a worker is free; else the workers' time shared
    out, so that the whole queue drains in about ``full`` seconds; 0 (the
    heuristics alone) when that share falls below :data:`LEAST_BUDGET`.
    """
    if waiting < workers:
        return full
    share = full * workers / (waiting + 1)
    return share if share >= LEAST_BUDGET else 0.0


def search_work(budget: float) -> tuple[int, float, int]:
    """The deals a search with this share of the budget samples a play, the seconds it may take at most, and the
    plays it compares.

    Deals and seconds in proportion to the share: :data:`engine.ai.DEFAULT_DEALS`
    deals and :data:`engine.ai.DEFAULT_CAP` seconds for the full budget, an
    eighth at :data:`LEAST_BUDGET` (two deals of the pure engine's 16, six of the
    compiled one's 44).  The compiled engine's :data:`engine.ai.DEFAULT_CANDIDATES`
    plays are compared while a search samples at least half its deals; with
    fewer, the four of :data:`engine.ai.playing.CANDIDATES` (more plays over
    few deals let the noise pick: with eight tables searching, six plays over
    six deals put points third in hand five times as often as four did, 10 times in 56 hands against 2).
    """
    share = budget / DEFAULT_BUDGET
    deals = max(1, round(DEFAULT_DEALS * share))
    return deals, DEFAULT_CAP * share, DEFAULT_CANDIDATES if 2 * deals >= DEFAULT_DEALS else CANDIDATES


class Thinking:
    """The pool of search workers (started at the first search) and the count of searches in it."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers if workers is not None else default_workers()
        self.waiting = 0
        """Searches submitted and not yet finished (running or queued)."""
        self._pool: ProcessPoolExecutor | None = None

    def budget(self) -> float:
        """The budget the next search gets (see :func:`search_budget`)."""
        return search_budget(self.waiting, self.workers)

    async def play(self, view: HandView, ruleset: Ruleset) -> Action:
        """The strong AI's action for the viewing seat, searched in a worker with :meth:`budget`'s work
        (at a budget of 0, the heuristics alone, here: a millisecond, not worth a place in the queue)."""
        budget = self.budget()
        if budget <= 0:
            return StrongPlayer(deals=0)(view, ruleset)  # the heuristics alone: no need to queue for a worker
        deals, cap, candidates = search_work(budget)
        player = StrongPlayer(deals, budget, cap=cap, candidates=candidates)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=die_with, initargs=(os.getpid(),))
        self.waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, player, view, ruleset, None)
        finally:
            self.waiting -= 1

    async def close(self) -> None:
        """Stop the workers (a search running finishes first, waited for in a thread so the event loop
        goes on meanwhile: the last edits of the shut-down go out; queued searches are dropped)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
