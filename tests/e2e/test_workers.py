"""The strong AI's worker processes die with the bot, however it ends: SIGKILL leaves nothing behind.

A real ``chaodipi run`` hosts a table of one person and three strong AI
seats until its searches run in worker processes (and multiprocessing's
resource tracker beside them); then the bot is killed with SIGKILL, as an
out-of-memory killer or a ``docker kill`` would.  Every process it started
ends with it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from .botkit import hand_message, table_message
from .fake_telegram import FakeTelegram, FloodLimits
from .scenario import lobby_button, play_what_is_offered

ROOT = Path(__file__).resolve().parents[2]


def descendants(pid: int) -> dict[int, str]:
    """Every live process below ``pid`` (children, their children …), with its command line."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            parents[int(entry.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError):
            continue  # gone meanwhile
    found: dict[int, str] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, of in parents.items():
            if of == parent and child not in found:
                try:
                    found[child] = (Path("/proc") / str(child) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                except OSError:
                    continue
                frontier.append(child)
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] != "Z"


@pytest.mark.long
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc (Linux)")
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_sigkill_of_the_bot_leaves_no_worker_or_tracker_alive(fake_telegram: FakeTelegram,
                                                                   tmp_path: Path) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Kill", [alice])
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TELEGRAM_BOT_TOKEN": server.token,
           "TELEGRAM_BASE_URL": server.base_url, "CHAODIPI_DB": str(tmp_path / "k.db"), "CHAODIPI_AI_DELAY": "0",
           "CHAODIPI_AI_WORKERS": "1"}
    bot = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot.cli", "run", cwd=ROOT, env=env,
                                               stderr=asyncio.subprocess.DEVNULL)
    started: dict[int, str] = {}
    try:
        await alice.command(group, "newgame")
        await server.wait_for(lambda: group.bot_messages() and lobby_button(table_message(group), "ai"),
                              timeout=30, what="the lobby")
        for _ in range(3):
            assert not (await (await alice.press(table_message(group), "+ AI")).answer()).show_alert
        await server.wait_for(lambda: "(empty)" not in (table_message(group).text or ""), timeout=20,
                              what="a full table")
        assert not (await (await alice.press(table_message(group), "▶️ Start")).answer()).show_alert

        def searching() -> bool:  # a search worker is up (the strong AI plays its first cards)
            return any("multiprocessing" in cmd and "resource_tracker" not in cmd
                       for cmd in descendants(bot.pid).values())
        await play_what_is_offered(server, alice, until=searching, timeout=90)
        assert hand_message(alice) is not None
        started = descendants(bot.pid)
        assert any("resource_tracker" in cmd for cmd in started.values()), started
    finally:
        bot.send_signal(signal.SIGKILL)
        await bot.wait()
    # Each worker asked the kernel to kill it with its parent, and the resource tracker ends when its pipe
    # closes: they end because the bot did, not on any timer, so the test waits for that (the timeout is
    # only there so that a leak fails rather than hangs).
    left: dict[int, str] = {}
    try:
        await server.wait_for(lambda: not any(alive(pid) for pid in started), timeout=60,
                              what="every process the bot started to end")
    except TimeoutError:
        left = {pid: cmd for pid, cmd in started.items() if alive(pid)}
    for pid in left:  # do not leave them running after a failed test either
        os.kill(pid, signal.SIGKILL)
    assert not left, f"still alive after the bot's SIGKILL: {left}"
