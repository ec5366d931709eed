"""The league end to end, against the fake Bot API: /leaderboard's picture and buttons, /history with its replay
links, /stats in private, the league page's link, /season, and the season's end told with its picture.

A group's past hands are stored before the bot starts (as if played this month); what each step costs in
calls to Telegram is counted, photos included: /leaderboard one sendPhoto, a button one editMessageMedia,
a season's end one sendPhoto.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.budget import CommandBudget
from bot.league import seasons as season_watcher
from bot.league.chart import png_size

from .appkit import webapp_running
from .botkit import settled
from .fake_telegram import FakeTelegram, FloodLimits, Group, Person
from .fake_telegram.people import MessageView
from .league_kit import past_hands


def from_bot(person: Person, wanted: str) -> MessageView | None:
    """The bot's last private message to this person with a button whose label holds ``wanted``."""
    return next((m for m in reversed(person.private_messages()) if m.from_bot
                 and any(wanted in label for row in m.labels for label in row)), None)


def group_calls(server: FakeTelegram, group: Group, since: int) -> list[str]:
    return [r.method for r in server.calls.since(since) if r.chat_id == group.id
            and r.method not in ("getUpdates", "getChatMember", "answerCallbackQuery")]


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())  # many replies in one group: no waiting for its limit
async def test_the_league_in_a_group(fake_telegram: FakeTelegram, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    server = fake_telegram
    monkeypatch.setattr(season_watcher, "GRACE", 0.2)  # a season that ends is told a moment later
    people = [server.person(name, name.lower(), language_code="zh-hans", started=True)
              for name in ("Alice", "Bob", "Carol", "Dave")]
    alice, bob = people[0], people[1]
    group = server.group("牌友群", people[1:], admins=[alice])
    await past_hands(tmp_path / "t.db", group, people)
    async with webapp_running(server, tmp_path / "t.db") as app:
        bot = app.bot.username
        # More commands than a chat's budget allows in a minute: this test is about what each one answers.
        app.bot_data["command_budget"] = CommandBudget(per_chat=(100, 60.0), per_person=(100, 30.0))

        # An admin ranks people from five hands on this season; then /leaderboard: the season's picture, its table
        # as the caption, buttons to all time and to the league page.
        await alice.command(group, "season", "min", "5")
        await server.wait_for(lambda: any("至少打满 5 局" in (m.text or "") for m in group.bot_messages()), timeout=30,
                              what="the minimum changed")
        mark = server.calls.mark()
        await alice.command(group, "leaderboard")
        board: MessageView = await server.wait_for(
            lambda: next((m for m in group.bot_messages() if m.photo_id), None), timeout=60, what="the picture")
        assert group_calls(server, group, mark) == ["sendPhoto"]
        png = server.state.files[board.photo_id]  # type: ignore[index]
        assert png_size(png)[0] == 1200 and len(png) <= 200 * 1024
        assert board.caption is not None and board.caption.startswith("联赛 · ")
        assert "1. Alice · +2 · 6 局，赢 4 局 · 赢得比赛 1 场\n1. Carol · +2 · 6 局，赢 4 局 · 赢得比赛 1 场" in board.caption
        assert "至少打满 5 局" in board.caption
        assert board.labels == [["总榜"], ["📈 联赛页面"]]

        # A button: all time, in the same message (its picture replaced).
        mark = server.calls.mark()
        answer = await (await bob.press(board, "总榜")).answer()
        assert not answer.show_alert
        edited = await server.wait_for(lambda: (m := group.last_bot_message()).caption and "总榜" in m.caption
                                       and m, timeout=60, what="all time")
        assert edited.message_id == board.message_id and edited.labels[0] == ["本赛季"]
        assert group_calls(server, group, mark) == ["editMessageMedia"]
        # A forged button (another group's season, a page of nothing) is refused and changes nothing.
        for forged in ("B:lb:999999", "B:hist:x", "B:zz:1"):
            refused = await (await bob.forge_callback(edited, forged)).answer()
            assert refused.show_alert and refused.text == "这个按钮无效。", forged
        assert group.last_bot_message().caption == edited.caption
        # The same again costs no upload: the picture goes by its file_id.
        mark = server.calls.mark()
        await alice.command(group, "leaderboard")
        await server.wait_for(lambda: len([m for m in group.bot_messages() if m.photo_id]) == 2, timeout=30)
        sent = [r for r in server.calls.since(mark) if r.method == "sendPhoto"]
        assert len(sent) == 1 and sent[0].params["photo"] == board.photo_id

        # /history: the match, its players, levels and winner, a replay link per hand.
        await bob.command(group, "history")
        history = await server.wait_for(lambda: (m := group.last_bot_message()).text and "最近的对局" in m.text
                                        and m, timeout=30, what="the history")
        assert "北 Alice · 东 Bob · 南 Carol · 西 Dave" in history.text
        assert "🏆 南北获胜：Alice & Carol" in history.text
        links = [e["url"] for e in history.entities if e.get("type") == "text_link"]
        assert len(links) == 6 and all(link.startswith(f"https://t.me/{bot}?start=r") for link in links)
        await bob.open_link(links[0])
        await server.wait_for(lambda: from_bot(bob, "回放"), timeout=30, what="the replay's button")  # he played it

        # /stats in private: every group Bob plays in.
        await bob.command(None, "stats")
        stats = await server.wait_for(lambda: next((m for m in bob.private_messages() if m.from_bot and m.text
                                                    and "牌友群" in m.text), None), timeout=30, what="Bob's stats")
        assert "共 6 局 · 赢 2 局" in stats.text and "最佳搭档：Dave" in stats.text
        assert stats.buttons[0][0].web_app_url is not None and stats.buttons[0][0].web_app_url.endswith(
            "/app/league.html")  # the league page lists his groups

        # The league page's link: a web app button in the private chat, for someone who played there.
        await alice.open_link(board, "📈 联赛页面")
        page = await server.wait_for(lambda: from_bot(alice, "联赛页面"), timeout=30, what="the league page's button")
        assert page.buttons[0][0].web_app_url is not None and page.buttons[0][0].web_app_url.endswith(
            f"/app/league.html?chat={group.id}")

        # /season: anyone may look; only an admin starts a season; the season that ends is told with its picture.
        for args, said in ((("tz", "Mars/Base"), "不认识这个时区"), (("min", "many"), "0 到 1000"),
                           (("new",), "1 到 32 个字"), (("later",), "用法：")):
            await alice.command(group, "season", *args)
            await server.wait_for(lambda said=said: said in (group.last_bot_message().text or ""), timeout=30,
                                  what=said)
        await bob.command(group, "season", "new", "春季赛")
        await server.wait_for(lambda: any("只有群管理员" in (m.text or "") for m in group.bot_messages()), timeout=30,
                              what="a refusal")
        mark = server.calls.mark()
        await alice.command(group, "season", "new", "春季赛")
        told = await server.wait_for(
            lambda: next((m for m in group.bot_messages() if m.caption and "结束了" in m.caption), None),
            timeout=60, what="the season's end")
        assert "🏆 冠军：Alice（+2）、Carol（+2） · 最佳搭档：Alice & Carol（+4）" in told.caption  # type: ignore[operator]
        assert png_size(server.state.files[told.photo_id])[1] > 700  # type: ignore[index]
        started = await server.wait_for(lambda: next((m for m in group.bot_messages()
                                                      if "赛季「春季赛」现在开始" in (m.text or "")), None),
                                        timeout=30, what="the new season's start")
        await settled(server, app)
        assert sorted(group_calls(server, group, mark)) == ["sendMessage", "sendPhoto"]  # the reply, the season's end
        assert told.message_id < started.message_id  # the old season's final table first (issue 55)
        await alice.command(group, "season")
        status = await server.wait_for(lambda: (m := group.last_bot_message()).text and "本赛季：春季赛" in m.text
                                       and m, timeout=30, what="the season")
        assert "持续到管理员开始下一个赛季" in status.text
