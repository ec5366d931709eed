"""Headless Chromium driven over the DevTools protocol (an aiohttp websocket; no new dependency).

``async with Browser.launch(tmp_path) as browser`` starts Debian's
``chromium`` with ``--remote-debugging-port=0``, reads the port it chose, and
connects to its first page.  :meth:`Browser.call` sends one protocol command
and returns its result; :meth:`Browser.evaluate` runs JavaScript in the page;
:meth:`Browser.screenshot` saves a PNG.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import re
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp

LISTENING = re.compile(r"DevTools listening on ws://[^:]+:(\d+)/")


def chromium_path() -> str | None:
    """The Chromium executable, if installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One page of a headless Chromium."""

    def __init__(self, process: asyncio.subprocess.Process, session: aiohttp.ClientSession,
                 socket: aiohttp.ClientWebSocketResponse) -> None:
        self.process = process
        self.session = session
        self.socket = socket
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.console: list[str] = []
        """Console messages and page errors, for a failing test to show."""
        self._reader = asyncio.create_task(self._read())

    @classmethod
    @asynccontextmanager
    async def launch(cls, profile: Path, *, width: int = 390, height: int = 844) -> AsyncIterator[Browser]:
        """A fresh headless Chromium with a phone-sized window."""
        path = chromium_path()
        assert path is not None
        process = await asyncio.create_subprocess_exec(
            path, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
            f"--user-data-dir={profile}", "--remote-debugging-port=0", f"--window-size={width},{height}",
            "about:blank", stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        try:
            port = await asyncio.wait_for(_devtools_port(process), 60)
            assert process.stderr is not None
            drain = asyncio.create_task(process.stderr.read())  # a full pipe would stall Chromium
            session = aiohttp.ClientSession()
            try:
                async with session.get(f"http://127.0.0.1:{port}/json/list") as response:
                    targets = await response.json()
                page = next(t for t in targets if t["type"] == "page")
                socket = await session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)
                browser = cls(process, session, socket)
                try:
                    await browser.call("Page.enable")
                    await browser.call("Runtime.enable")
                    await browser.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                                       deviceScaleFactor=2, mobile=True)
                    yield browser
                finally:
                    browser._reader.cancel()
                    await asyncio.gather(browser._reader, return_exceptions=True)
                    await socket.close()
            finally:
                await session.close()
        finally:
            if process.returncode is None:
                process.terminate()
                await process.wait()
            if "drain" in locals():
                await asyncio.gather(drain, return_exceptions=True)

    async def _read(self) -> None:
        async for message in self.socket:
            data = json.loads(message.data)
            if "id" in data and data["id"] in self._waiting:
                self._waiting.pop(data["id"]).set_result(data)
            elif data.get("method") == "Runtime.consoleAPICalled":
                self.console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in data["params"]["args"]))
            elif data.get("method") == "Runtime.exceptionThrown":
                self.console.append("exception: " + json.dumps(data["params"]["exceptionDetails"])[:500])

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        """One DevTools command; its result (raises on a protocol error)."""
        ident = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = future
        await self.socket.send_json({"id": ident, "method": method, "params": params})
        answer = await asyncio.wait_for(future, 30)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})  # type: ignore[no-any-return]

    async def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, expression: str, what: str, timeout: float = 20.0) -> Any:
        """Poll a JavaScript condition until it is truthy; its value."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        error = ""
        while True:
            try:
                value = await self.evaluate(expression)
            except RuntimeError as exc:  # the page is still loading (its elements are not there yet)
                value, error = None, str(exc)[:300]
            if value:
                return value
            if loop.time() > end:
                shown = await self.evaluate("document.body.innerText.slice(0, 800)")
                raise TimeoutError(f"waited {timeout}s in the page for {what}; {error} console: {self.console[-5:]}"
                                   f"; the page shows: {shown!r}")
            await asyncio.sleep(0.05)

    async def until(self, condition: Callable[[], Awaitable[bool]], what: str, timeout: float = 20.0) -> None:
        """Poll an async condition until it holds."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not await condition():
            if loop.time() > end:
                raise TimeoutError(f"waited {timeout}s for {what}; console: {self.console[-5:]}")
            await asyncio.sleep(0.05)

    async def screenshot(self, path: Path) -> Path:
        """Save what the page shows now as a PNG (its folder made if missing: any test may be the first)."""
        result = await self.call("Page.captureScreenshot", format="png")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(result["data"]))
        return path


async def _devtools_port(process: asyncio.subprocess.Process) -> int:
    assert process.stderr is not None
    while True:
        line = await process.stderr.readline()
        if not line:
            raise RuntimeError("chromium exited before it opened the DevTools port")
        found = LISTENING.search(line.decode(errors="replace"))
        if found:
            return int(found.group(1))
