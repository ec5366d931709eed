"""Which files of bot/ one move's path enters, in order: the map of docs/bot.md, measured.

Four people sit at a 盐城 table held by the real table service (with a
publisher talking to a stand-in Bot), play as the casual AI would until the
first card, then one more card is played through :meth:`Tables.move` under
a profiler that notes every call into a file of ``bot/`` (a coroutine resumed
after an await is not a new call).  Prints the path (a file entered again
after another counts again) and the entries per file.

    PYTHONPATH=. python bench/bench_paths.py
"""

from __future__ import annotations

import asyncio
import dis
import functools
import itertools
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import CodeType, FrameType, SimpleNamespace
from typing import Any

import storage
from bot.config import Settings
from bot.publisher import Publisher
from bot.tables import Tables
from engine.ai import choose_action
from engine.hand import Action
from engine.views import view_for

BOT = Path(__file__).resolve().parents[1] / "bot"


class StandInBot:
    """Answers the publisher's calls at once (no network)."""

    rate_limiter = None

    def __init__(self) -> None:
        self.ids = itertools.count(1)

    async def send_message(self, *args: Any, **kwargs: Any) -> SimpleNamespace:
        return SimpleNamespace(message_id=next(self.ids))

    async def edit_message_text(self, *args: Any, **kwargs: Any) -> bool:
        return True

    async def delete_message(self, *args: Any, **kwargs: Any) -> bool:
        return True


@functools.cache
def _first_resume(code: CodeType) -> int:
    """Where a call of ``code`` starts; a coroutine resumed after an await starts at a later RESUME."""
    return next(i.offset for i in dis.get_instructions(code) if i.opname == "RESUME")


async def measure() -> list[str]:
    """The files of bot/ entered while one card is played, in order (repeats of one file merged)."""
    with tempfile.TemporaryDirectory() as folder:
        db = await storage.open_database(Path(folder) / "paths.db")
        await storage.upsert_chat(db, -1, "G")
        for user in range(1, 5):
            await storage.upsert_user(db, user, f"P{user}")
        tables = Tables(db, Settings(token="1:paths", hand_pause=0.0))

        async def blocked(chat_id: int) -> None:
            """Nobody blocks the stand-in bot."""

        tables.publisher = Publisher(StandInBot(), blocked, tables.tasks)  # type: ignore[arg-type]
        table = await tables.new_table(-1, "G", 1, "en", "yancheng")
        for seat in range(4):
            await tables.sit(table, seat + 1, f"P{seat + 1}", "en", seat)
        tables.rng = random.Random(3)
        await tables.start(table)
        assert table.match is not None
        hand = table.match.hand
        rng = random.Random(1)
        while hand.phase != "playing":
            seat = hand.awaiting()[0]
            action = choose_action(view_for(hand, seat), hand.ruleset, rng)
            await tables.act(table, action if hand.can(action) else Action("pass", seat))
        seat = hand.turn
        assert seat is not None
        play = choose_action(view_for(hand, seat), hand.ruleset, rng)
        entered: list[str] = []

        def note(frame: FrameType, event: str, arg: object) -> None:
            name = frame.f_code.co_filename
            if event == "call" and name.startswith(str(BOT)) and frame.f_lasti == _first_resume(frame.f_code):
                where = "bot/" + name[len(str(BOT)) + 1:]
                if not entered or entered[-1] != where:
                    entered.append(where)

        sys.setprofile(note)
        try:
            async with table.lock:
                await tables.move(table, seat, "play", play.cards, None)
        finally:
            sys.setprofile(None)
        await tables.close()
        await tables.tasks.close(timeout=5)
        await db.close()
    return entered


def main() -> None:
    """Print the path and the entries per file."""
    entered = asyncio.run(measure())
    print("path:", " → ".join(entered))
    counts = Counter(entered)
    print(f"files entered: {len(counts)}; entries: {len(entered)}")
    for name, n in counts.most_common():
        print(f"  {n:3d}  {name}")


if __name__ == "__main__":
    main()
