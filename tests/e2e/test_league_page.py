"""The web app's league page: its API (who may see which group's league) and the page itself in headless Chromium,
drawing the chart as SVG from the picture's data, under the web app's Content-Security-Policy (screenshot:
``build/webapp-screenshots/league.png``)."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from .appkit import AppClient, app_base, init_data_for, webapp_running
from .chromium import Browser, chromium_path
from .fake_telegram import FakeTelegram, FloodLimits
from .league_kit import past_hands
from .test_webapp_browser import DARK, SHOTS, telegram_stub

pytestmark = pytest.mark.fake_telegram(limits=FloodLimits.unlimited())


async def test_the_league_api_shows_a_groups_league_to_its_players_only(fake_telegram: FakeTelegram,
                                                                         tmp_path: Path) -> None:
    server = fake_telegram
    people = [server.person(name, language_code="zh-hans", started=True) for name in ("甲", "乙", "丙", "丁")]
    stranger = server.person("Eve", language_code="en", started=True)
    group = server.group("牌友群", people)
    await past_hands(tmp_path / "t.db", group, people)
    async with webapp_running(server, tmp_path / "t.db") as app, aiohttp.ClientSession() as session:
        base = app_base(app)
        player = AppClient(session, base, init_data_for(server, people[0]))
        status, body = await player.get("/app/api/league")
        assert status == 200 and body["groups"] == [{"chat": group.id, "title": "牌友群"}]
        status, body = await player.get(f"/app/api/league/{group.id}")
        assert status == 200 and body["stretch"] != "all"
        chart = body["chart"]
        assert chart["title"].startswith("联赛 · ") and chart["headers"][:2] == ["#", "玩家"]
        assert sorted(row["name"] for row in chart["rows"]) == ["丁", "丙", "乙", "甲"]
        # Six hands each, ten needed: nobody ranked, so everyone's line is drawn (a new season is worth a look).
        assert sorted(line["name"] for line in chart["lines"]) == ["丁", "丙", "乙", "甲"]
        assert all(len(line["points"]) == 6 for line in chart["lines"])
        assert [b["stretch"] for b in body["buttons"]] == ["all"]
        status, body = await player.get(f"/app/api/league/{group.id}?stretch=all")
        assert status == 200 and body["chart"]["title"] == "联赛 · 总榜"
        assert (await player.get(f"/app/api/league/{group.id}?stretch=999999"))[0] == 404
        assert (await AppClient(session, base, init_data_for(server, stranger)).get(
            f"/app/api/league/{group.id}"))[0] == 403
        assert (await AppClient(session, base, "forged").get(f"/app/api/league/{group.id}"))[0] == 401
        assert (await AppClient(session, base, init_data_for(server, people[0], auth_date=1)).get(
            "/app/api/league"))[0] == 401
        async with session.get(f"{base}/app/league.html") as response:
            assert response.status == 200 and "league.js" in await response.text()


@pytest.mark.skipif(chromium_path() is None, reason="Chromium is not installed (Debian package `chromium`)")
async def test_the_league_page_draws_the_chart_in_the_browser(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    server = fake_telegram
    people = [server.person(name, language_code="zh-hans", started=True) for name in ("张伟", "王芳", "李娜", "刘洋")]
    group = server.group("牌友群", people[1:], admins=people[:1])
    await past_hands(tmp_path / "t.db", group, people)
    async with webapp_running(server, tmp_path / "t.db") as app:
        await people[0].command(group, "season", "min", "3")  # everyone ranked: a line each
        user = {"id": people[0].id, "first_name": "张伟", "language_code": "zh-hans"}
        async with Browser.launch(tmp_path / "profile", height=900) as browser:
            await browser.call("Network.enable")
            await browser.call("Network.setBlockedURLs", urls=["*telegram.org*"])
            await browser.call("Page.addScriptToEvaluateOnNewDocument",
                               source=telegram_stub(init_data_for(server, people[0]), user, DARK))
            await browser.wait_for("true", "the browser")
            await server.wait_for(lambda: any("至少打满 3 局" in (m.text or "") for m in group.bot_messages()),
                                  timeout=30, what="the minimum changed")
            await browser.call("Page.navigate", url=f"{app_base(app)}/app/league.html?chat={group.id}")
            await browser.wait_for("document.body.dataset.ready === '1'", "the league page")
            assert await browser.evaluate("document.querySelectorAll('#chart path.line').length") == 4
            assert await browser.evaluate("document.querySelectorAll('#table tbody tr').length") == 4
            assert await browser.evaluate("document.querySelector('#title').textContent.startsWith('联赛 · ')")
            # Telegram's dark theme, as the table's page has it (the page's own default is white).
            assert await browser.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(23, 33, 43)"
            assert await browser.evaluate("getComputedStyle(document.body).color") == "rgb(245, 245, 245)"
            await browser.screenshot(SHOTS / "league.png")
            await browser.evaluate("document.querySelector('#stretches button').click()")
            await browser.wait_for("document.querySelector('#title').textContent === '联赛 · 总榜'", "all time")
            # Under the web app's Content-Security-Policy: no violation (nothing inline), no exception.
            assert not [line for line in browser.console if line.startswith(("exception", "csp"))], browser.console
