"""Which files of bot/ one move's path enters, in order: the map of docs/bot.md, measured.

Four people sit at a 盐城 table held by the real table service (with a
publisher talking to a stand-in Bot), play as the casual AI would until the
first card, then one more card is played under a profiler that notes every
call into a file of ``bot/`` (a coroutine resumed after an await is not a new
call): once pressed on the private keyboard (the handler with a stand-in
query), once sent from the Mini App (its ``POST …/act`` route with a
signed initData, no server).  Prints, for each, the refreshes of the
table's messages, the path (a file entered again after another counts
again) and the entries per file.

    PYTHONPATH=. python bench/bench_paths.py
"""

from __future__ import annotations

import asyncio
import dis
import functools
import itertools
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import CodeType, FrameType, SimpleNamespace
from typing import Any
from unittest import mock

from aiohttp import StreamReader
from aiohttp.test_utils import make_mocked_request

import storage
from bot import callbacks
from bot.config import Settings
from bot.handlers.hand_buttons import on_hand_button
from bot.i18n import translator
from bot.model import Table
from bot.publisher import Publisher
from bot.tables import Tables
from bot.webapp.initdata import sign
from bot.webapp.routes import WebAppRoutes
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


def _profiled() -> tuple[list[str], Any]:
    """A list the profiler fills with the files of bot/ entered (repeats of one file merged), and the hook."""
    entered: list[str] = []

    def note(frame: FrameType, event: str, arg: object) -> None:
        name = frame.f_code.co_filename
        if event == "call" and name.startswith(str(BOT)) and frame.f_lasti == _first_resume(frame.f_code):
            where = "bot/" + name[len(str(BOT)) + 1:]
            if not entered or entered[-1] != where:
                entered.append(where)

    return entered, note


async def _open_table(tables: Tables) -> Table:
    """Four people at a 盐城 table, played as the casual AI would until the first card of the first trick."""
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
        async with table.lock:
            await tables.act(table, action if hand.can(action) else Action("pass", seat))
    return table


async def _keyboard_press(tables: Tables, table: Table, note: Any) -> None:
    """The player to move selects the casual AI's cards and presses ▶ on their private keyboard."""
    assert table.match is not None
    hand = table.match.hand
    seat = hand.turn
    assert seat is not None
    play = choose_action(view_for(hand, seat), hand.ruleset, random.Random(1))
    table.presses.replace(seat, play.cards)
    user = seat + 1

    async def answer(*args: Any, **kwargs: Any) -> None:
        """The press's answer (nowhere to go)."""

    query = SimpleNamespace(from_user=SimpleNamespace(id=user), answer=answer,
                            message=SimpleNamespace(chat=SimpleNamespace(id=user), message_id=7))
    data = callbacks.decode(callbacks.hand(table.id, table.version(seat), "play"))
    assert data is not None
    context = SimpleNamespace(bot_data={"tables": tables})
    sys.setprofile(note)
    try:
        await on_hand_button(context, query, table, data, translator("en"))  # type: ignore[arg-type]
    finally:
        sys.setprofile(None)


async def _app_move(tables: Tables, table: Table, note: Any) -> None:
    """The player to move plays the casual AI's cards from the Mini App (``POST …/act``, signed initData)."""
    assert table.match is not None
    hand = table.match.hand
    seat = hand.turn
    assert seat is not None
    play = choose_action(view_for(hand, seat), hand.ruleset, random.Random(1))
    application = SimpleNamespace(bot_data={"tables": tables, "config": tables.config})
    routes = WebAppRoutes(application)  # type: ignore[arg-type]
    init_data = sign(tables.config.token, {"id": seat + 1, "first_name": f"P{seat + 1}"})
    body = json.dumps({"op": "play", "cards": [str(c) for c in play.cards], "version": table.version(seat),
                       "nonce": "bench-paths-1"}).encode()
    protocol = mock.Mock(_reading_paused=False)
    payload = StreamReader(protocol, 2 ** 16, loop=asyncio.get_running_loop())
    payload.feed_data(body)
    payload.feed_eof()
    request = make_mocked_request("POST", f"/app/api/tables/{table.id}/act", payload=payload,
                                  headers={"Authorization": f"tma {init_data}", "Content-Length": str(len(body))},
                                  match_info={"table": str(table.id)})
    sys.setprofile(note)
    try:
        response = await routes._act(request)  # noqa: SLF001 (the route itself, without a server)
    finally:
        sys.setprofile(None)
    assert response.status == 200, response.text


async def measure() -> dict[str, list[str]]:
    """The files of bot/ entered by one card played from the keyboard, and one from the Mini App."""
    paths: dict[str, list[str]] = {}
    for front, move in (("keyboard press", _keyboard_press), ("Mini App move", _app_move)):
        with tempfile.TemporaryDirectory() as folder:
            db = await storage.open_database(Path(folder) / "paths.db")
            await storage.upsert_chat(db, -1, "G")
            for user in range(1, 5):
                await storage.upsert_user(db, user, f"P{user}")
            tables = Tables(db, Settings(token="1:paths", hand_pause=0.0))

            async def blocked(chat_id: int) -> None:
                """Nobody blocks the stand-in bot."""

            tables.publisher = Publisher(StandInBot(), blocked, tables.tasks)  # type: ignore[arg-type]
            table = await _open_table(tables)
            refreshes: list[Table] = []
            tables.follow(refreshes.append)
            entered, note = _profiled()
            await move(tables, table, note)
            paths[front] = entered
            print(f"{front}: {len(refreshes)} refresh(es) of the table's messages")
            await tables.close()
            await tables.tasks.close(timeout=5)
            await db.close()
    return paths


def main() -> None:
    """Print each path and the entries per file."""
    for front, entered in asyncio.run(measure()).items():
        counts = Counter(entered)
        print(f"\n{front}: files entered: {len(counts)}; entries: {len(entered)}")
        print("path:", " → ".join(entered))
        for name, n in counts.most_common():
            print(f"  {n:3d}  {name}")


if __name__ == "__main__":
    main()
