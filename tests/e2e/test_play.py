"""``chaodipi play``: the game in a browser without Telegram, and its local sign-in, which nothing else accepts.

Headless Chromium (as in ``test_webapp_browser.py``) opens the address
``chaodipi play`` gives and plays a whole hand against three casual AI seats
by tapping the page's buttons, then reads the result, the replay and the
league page in it.  The local sign-in is refused by the server
``chaodipi run`` builds (its settings read from the environment), from an
address other than the one listened on, under another ``Host``, and with a
wrong secret.  A table of ``chaodipi play`` and one of Telegram share a
database without either mode taking up the other's.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import make_mocked_request

from bot.app import build_application
from bot.config import Settings
from bot.local.play import LOCAL_CHAT, PlayOptions, person_id, playing
from bot.webapp.initdata import InitDataError
from bot.webapp.signin import LOCAL_SIGNIN, LocalPerson, LocalSignIn

from .botkit import bot_running, tables
from .chromium import Browser, chromium_path
from .fake_telegram import FakeTelegram, FloodLimits
from .test_webapp_browser import OFFER, OUT_OF_DATE, SHOTS, _moved, click

REPO = Path(__file__).resolve().parents[2]

needs_chromium = pytest.mark.skipif(chromium_path() is None,
                                    reason="Chromium is not installed (Debian package `chromium`; .ci/run installs "
                                           "it when apt-get can reach the archive)")

CSP_WATCH = ('document.addEventListener("securitypolicyviolation", '
             '(e) => console.log("csp: " + e.violatedDirective + " " + e.blockedURI));')


def quick(db: Path, **changes: Any) -> PlayOptions:
    """``chaodipi play --ai casual`` with no wait between AI moves or hands (a test taps at once)."""
    values: dict[str, Any] = dict(db_path=db, ai="casual", ai_delay=0.0, hand_pause=0.0)
    values.update(changes)
    return PlayOptions(**values)


def split(address: str) -> tuple[str, str, str]:
    """(the server's base, the page's path and query, the secret) of an address ``chaodipi play`` gave."""
    page, _, fragment = address.partition("#local=")
    base = page[:page.index("/app/")]
    return base, page[len(base):], fragment


@needs_chromium
async def test_play_a_hand_in_the_browser(tmp_path: Path) -> None:
    async with playing(quick(tmp_path / "chaodipi.db")) as session:
        table = session.table
        address = session.addresses[0]
        base, _, secret = split(address)
        async with Browser.launch(tmp_path / "profile") as browser:
            await browser.call("Network.enable")
            await browser.call("Network.setBlockedURLs", urls=["*telegram.org*"])  # no network: no Telegram
            await browser.call("Page.addScriptToEvaluateOnNewDocument", source=CSP_WATCH)
            await browser.call("Page.navigate", url=address)
            await browser.wait_for("document.querySelectorAll('#hand .card').length > 0", "the hand")
            # The secret left the address bar for the tab's sessionStorage; the outside-Telegram notice is hidden.
            assert await browser.evaluate("location.hash") == ""
            assert await browser.evaluate("sessionStorage.getItem('chaodipi-local')") == secret
            assert await browser.evaluate("document.querySelector('#no-telegram').hidden")
            assert "我" in await browser.evaluate("document.querySelector('#seat-me').textContent")

            hand = None
            for _ in range(600):
                assert table.match is not None
                if table.match.hand is not hand:
                    if hand is not None and hand.phase == "finished":
                        break
                    hand = table.match.hand
                events, phase = len(hand.events), hand.phase
                if hand.over or 0 not in hand.awaiting():
                    await browser.until(_moved(table, hand, events), "the AI seats' moves")
                    continue
                offered = await browser.wait_for(OFFER, "the person's buttons")
                events, phase = len(hand.events), hand.phase
                skip = next((t for t in offered if t.startswith(("不亮", "不抄"))), None)
                if skip is not None:
                    assert await browser.evaluate(click(skip))
                else:
                    assert await browser.evaluate(click("提示"))
                    await browser.wait_for("document.querySelectorAll('#hand .card.selected').length > 0",
                                           "the hint's cards raised")
                    verb = "扣底" if any(t.startswith("扣底") for t in offered) else "出牌"
                    await browser.wait_for(click(verb), f"the {verb} button")
                await browser.until(_moved(table, hand, events), f"the person's {phase} move to land")
                toast = await browser.evaluate("document.querySelector('#toast').hidden ? '' : "
                                               "document.querySelector('#toast').textContent")
                assert not toast or toast == OUT_OF_DATE, toast
            else:
                raise AssertionError("the hand did not end")
            assert hand is not None and hand.result is not None
            await browser.wait_for("document.querySelector('#info').textContent.includes('局结束')", "the result")
            await browser.screenshot(SHOTS / "play-1-result.png")

            assert await browser.evaluate(click("🎞"))
            await browser.wait_for("document.querySelector('#title').textContent.includes('回放')", "the replay")
            assert await browser.evaluate(click("下一轮"))
            await browser.wait_for("document.querySelector('#facts').textContent.startsWith('第 2 轮')", "trick 2")
            assert await browser.evaluate(click("关闭"))

            # The local group's league, and a link back to the table (no Telegram back button here).
            await browser.wait_for(click("📈"), "the league page's button")
            await browser.wait_for("document.body.dataset.ready === '1' && location.pathname.endsWith('league.html')",
                                   "the league page")
            assert await browser.evaluate("document.querySelector('#title').textContent.startsWith('联赛')")
            assert "我" in await browser.evaluate("document.querySelector('#table').textContent")
            await browser.screenshot(SHOTS / "play-2-league.png")
            await browser.evaluate("document.querySelector('#back').click()")
            await browser.wait_for(f"location.search === '?t={table.id}' && "
                                   "document.querySelectorAll('#hand .card').length > 0", "the table again")
            assert not [line for line in browser.console if line.startswith(("exception", "csp"))], browser.console
    assert base.startswith("http://127.0.0.1:")


async def _status(base: str, path: str, authorization: str, **headers: str) -> int:
    async with aiohttp.ClientSession() as client:
        async with client.get(base + path, headers={"Authorization": authorization, **headers}) as response:
            return response.status


async def test_the_local_sign_in_holds_only_its_own_secret_host_and_address(tmp_path: Path) -> None:
    async with playing(quick(tmp_path / "chaodipi.db")) as session:
        base, _, secret = split(session.addresses[0])
        path = f"/app/api/tables/{session.table.id}"
        assert await _status(base, path, f"local {secret}") == 200
        assert await _status(base, "/app/api/league", f"local {secret}") == 200
        assert await _status(base, path, f"local {secret[:-1]}x") == 401
        assert await _status(base, path, "local ") == 401
        assert await _status(base, path, f"tma {secret}") == 401
        # A page elsewhere whose name points at this address (DNS rebinding) names its own host.
        port = base.rsplit(":", 1)[1]
        assert await _status(base, path, f"local {secret}", Host=f"evil.example:{port}") == 401
        assert await _status(base, path, f"local {secret}", Host=f"localhost:{port}") == 401


class _Transport:
    """What a request's connection tells: the address it reached, and the one it came from."""

    def __init__(self, sockname: tuple[str, int], peername: tuple[str, int]) -> None:
        self.extra = {"sockname": sockname, "peername": peername}

    def get_extra_info(self, name: str, default: object = None) -> object:
        return self.extra.get(name, default)

    def is_closing(self) -> bool:
        return False


def _request(signin: LocalSignIn, secret: str, *, reached: str, came_from: str) -> Any:
    return make_mocked_request("GET", "/app/api/tables", headers={"Host": signin.host},
                               transport=_Transport((reached, signin.port), (came_from, 50000)))


def test_the_local_sign_in_is_refused_from_another_address() -> None:
    person = LocalPerson(person_id(0), "我", "zh")
    loopback = LocalSignIn("127.0.0.1", 8765)
    secret = loopback.issue(person)
    assert loopback.user(_request(loopback, secret, reached="127.0.0.1", came_from="127.0.0.1"), secret).id == person.id
    with pytest.raises(InitDataError):  # listening on loopback: nobody from elsewhere
        loopback.user(_request(loopback, secret, reached="127.0.0.1", came_from="192.168.1.9"), secret)
    with pytest.raises(InitDataError):  # a wrong secret from the right place
        loopback.user(_request(loopback, secret, reached="127.0.0.1", came_from="127.0.0.1"), "x" * 43)
    named = LocalSignIn("192.168.1.20", 8765)  # --listen 192.168.1.20: friends on the network
    secret = named.issue(person)
    assert named.user(_request(named, secret, reached="192.168.1.20", came_from="192.168.1.9"), secret).id == person.id
    with pytest.raises(InitDataError):  # the request reached another of the machine's addresses
        named.user(_request(named, secret, reached="10.0.0.5", came_from="10.0.0.9"), secret)
    for anywhere in ("0.0.0.0", "::", "localhost", ""):
        with pytest.raises(ValueError):
            LocalSignIn(anywhere, 8765)


@asynccontextmanager
async def run_server(server: FakeTelegram, db: Path, port: int) -> AsyncIterator[Any]:
    """The bot as ``chaodipi run`` builds it (:func:`bot.app.run`): settings from the environment only."""
    environment = {"TELEGRAM_BOT_TOKEN": server.token, "TELEGRAM_BASE_URL": server.base_url, "CHAODIPI_DB": str(db),
                   "CHAODIPI_PUBLIC_URL": "https://chaodipi.example", "CHAODIPI_WEBHOOK_LISTEN": "127.0.0.1",
                   "CHAODIPI_WEBHOOK_PORT": str(port), "CHAODIPI_FLOOD_PACING": "off", "CHAODIPI_AI_DELAY": "0",
                   "CHAODIPI_LOCAL": "1", "CHAODIPI_PLAY": "1"}  # no variable can make it chaodipi play
    settings = Settings.from_env(environment)
    assert settings.local is False
    app = build_application(settings)
    assert LOCAL_SIGNIN not in app.bot_data
    async with app:
        assert app.post_init is not None and app.post_shutdown is not None
        await app.post_init(app)
        await app.start()
        try:
            yield app
        finally:
            await app.stop()
            if app.post_stop is not None:
                await app.post_stop(app)
            await app.post_shutdown(app)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_chaodipi_run_refuses_the_local_sign_in(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "chaodipi.db"
    async with playing(quick(db)) as session:
        _, path, secret = split(session.addresses[0])
        table_id = session.table.id
    port = _free_port()
    async with run_server(fake_telegram, db, port) as app:
        # chaodipi run does not take up chaodipi play's table, though it is in the same database and unfinished.
        assert tables(app).get(table_id) is None and tables(app).in_chat(LOCAL_CHAT) is None
        base = f"http://127.0.0.1:{port}"
        assert await _status(base, f"/app/api/tables/{table_id}", f"local {secret}") == 401
        assert await _status(base, "/app/api/tables", f"local {secret}") == 401
        assert await _status(base, "/app/api/league", f"local {secret}") == 401
        async with aiohttp.ClientSession() as client:
            async with client.post(f"{base}/app/api/tables/{table_id}/ticket",
                                   headers={"Authorization": f"local {secret}"}) as response:
                assert response.status == 401
    # And chaodipi play takes its table up again where it was left; --new closes it for another.
    async with playing(quick(db)) as again:
        assert again.table.id == table_id and again.table.status == "playing"
    async with playing(quick(db, new=True)) as fresh:
        assert fresh.table.id != table_id and fresh.table.status == "playing"


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_chaodipi_play_leaves_telegrams_tables_alone(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    server = fake_telegram
    db = tmp_path / "chaodipi.db"
    alice = server.person("Alice", "alice", language_code="zh-hans", started=True)
    group = server.group("周五牌局", [alice])
    async with bot_running(server, db) as app:
        await alice.command(group, "newgame", "yancheng")
        await server.wait_for(lambda: tables(app).in_chat(group.id), what="the group's table")
    async with playing(quick(db)) as session:
        assert session.table.chat_id == LOCAL_CHAT
        assert session.app.bot_data["tables"].in_chat(group.id) is None
    async with bot_running(server, db) as app:
        assert tables(app).in_chat(group.id) is not None


async def test_the_command_prints_the_address_and_stops_on_a_signal(tmp_path: Path) -> None:
    port = _free_port()
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "CHAODIPI_"))}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "play", "--ai", "casual", "--lang", "en", "--db", str(tmp_path / "p.db"),
        "--port", str(port), cwd=REPO, env={**environment, "PYTHONPATH": str(REPO)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        assert process.stdout is not None
        said = (await asyncio.wait_for(process.stdout.readline(), 120)).decode()
        assert said.startswith("Play at this address"), said
        address = (await process.stdout.readline()).decode().strip()
        base, page, secret = split(address)
        assert base == f"http://127.0.0.1:{port}" and page.startswith("/app/?t=") and len(secret) >= 40
        async with aiohttp.ClientSession() as client:
            async with client.get(f"{base}/app/api/tables", headers={"Authorization": f"local {secret}"}) as response:
                body = await response.json()
        assert response.status == 200 and body["tables"][0]["status"] == "playing", body
        process.send_signal(signal.SIGINT)
        out, err = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == 0, err.decode()
        assert "Stopped; the table is kept in" in out.decode() and "Traceback" not in err.decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_two_people_get_a_seat_and_an_address_each(tmp_path: Path) -> None:
    async with playing(quick(tmp_path / "chaodipi.db", names=("Ann", "Bo"))) as session:
        base, _, _ = split(session.addresses[0])
        secrets = [split(address)[2] for address in session.addresses]
        path = f"/app/api/tables/{session.table.id}"
        assert len(set(secrets)) == 2
        assert [await _status(base, path, f"local {secret}") for secret in secrets] == [200, 200]
        seated = [(info.user_id, info.name) for info in session.table.seats if info is not None and not info.is_ai]
        assert seated == [(person_id(0), "Ann"), (person_id(1), "Bo")]
