"""The league against hostile people: names that are maths, markup or bidi controls, and ids, numbers and time
zones that are not what they seem.  Every one gets an answer (a 4xx with a reason, a picture, a one-line reply),
never a 5xx, a silence or a traceback in the log."""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import quote

import aiohttp
import pytest
from yarl import URL

from bot.budget import CommandBudget, PersonBudget
from bot.league.chart import png_size

from .appkit import AppClient, app_base, init_data_for, webapp_running
from .fake_telegram import FakeTelegram, FloodLimits, Group, Person
from .league_kit import past_hands
from .odd_inputs import ODD_IDS

pytestmark = pytest.mark.fake_telegram(limits=FloodLimits.unlimited())

HOSTILE_NAMES = ("$\\x$", "<b>Bob</b>", "\u202eCarol", "D" * 300)
ODD_NUMBERS = ("²", "١٢", "۳", "--5", "-", "", "99999999999999999999", str(2**63), "9" * 24, "-" + "9" * 24)


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    bad = [(r.name, r.getMessage()[:200]) for r in caplog.records
           if r.levelno >= logging.ERROR or r.exc_info is not None or "Traceback" in r.getMessage()]
    assert not bad, bad


def replies_after(person_or_group: Person | Group, count: int) -> list[str]:
    messages = (person_or_group.bot_messages() if isinstance(person_or_group, Group)
                else [m for m in person_or_group.private_messages() if m.from_bot])
    return [m.text or m.caption or "" for m in messages[count:]]


async def test_hostile_names_get_their_leaderboard_picture_and_page(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server = fake_telegram
    people = [server.person(name, language_code="zh-hans", started=True) for name in HOSTILE_NAMES]
    group = server.group("$\\frac{a}{b}$ \u202e群", people)
    await past_hands(tmp_path / "t.db", group, people)
    async with webapp_running(server, tmp_path / "t.db") as app, aiohttp.ClientSession() as session:
        await people[0].command(group, "leaderboard")
        board = await server.wait_for(lambda: next((m for m in group.bot_messages() if m.photo_id), None),
                                      timeout=60, what="the picture")
        assert png_size(server.state.files[board.photo_id])[0] == 1200  # type: ignore[index]
        caption = board.caption or ""
        assert "<b>Bob</b>" in caption  # shown as text (the fake parses the HTML: the tags were escaped)
        assert "\u202e" not in caption and "$\\x$" in caption
        client = AppClient(session, app_base(app), init_data_for(server, people[0]))
        for stretch in ("cur", "all"):
            status, body = await client.get(f"/app/api/league/{group.id}?stretch={stretch}")
            assert status == 200, body
            names = [row["name"] for row in body["chart"]["rows"]]
            assert "$\\x$" in names and all("\u202e" not in name for name in names)
            assert "\u202e" not in body["chart"]["subtitle"]
        status, body = await client.get("/app/api/league")
        assert status == 200 and all("\u202e" not in g["title"] for g in body["groups"])
    no_tracebacks(caplog)


async def test_odd_ids_and_numbers_on_every_league_route_and_command_get_an_answer(
        fake_telegram: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server = fake_telegram
    people = [server.person(name, language_code="en", started=True) for name in ("Ann", "Bo", "Cy", "Di")]
    ann = people[0]
    group = server.group("Odd", people[1:], admins=[ann])
    await past_hands(tmp_path / "t.db", group, people)
    async with webapp_running(server, tmp_path / "t.db") as app, aiohttp.ClientSession() as session:
        app.bot_data["command_budget"] = CommandBudget(per_chat=(1000, 60.0), per_person=(1000, 30.0))
        app.bot_data["league_budget"] = PersonBudget(per_person=(10_000, 30.0))  # every odd input is answered
        base = app_base(app)
        auth = {"Authorization": f"tma {init_data_for(server, ann)}"}
        answers: dict[str, int] = {}
        for odd in ODD_IDS + ODD_NUMBERS + ("%C2%B2", "--5", "-0", "0"):
            raw = odd if odd.startswith("%") else quote(odd, safe="")  # as a browser sends it
            for path in (f"/app/api/league/{raw}", f"/app/api/league/{group.id}?stretch={raw}"):
                async with session.get(URL(base + path, encoded=True), headers=auth) as response:
                    answers[path] = response.status
        wrong = {path: status for path, status in answers.items() if not 400 <= status < 500}
        assert not wrong, wrong
        assert answers[f"/app/api/league/{group.id}?stretch=%C2%B2"] in (400, 404)
        assert answers["/app/api/league/%C2%B2"] == 400 and answers["/app/api/league/--5"] == 400

        # Deep links: an odd league or replay payload is answered (with the help, or a clear line).
        for payload in ("l²", "l--5", "l" + "9" * 24, "r²", "r" + "9" * 24, "r-1", "l"):
            seen = len(replies_after(ann, 0))
            await ann.start_private(payload)
            await server.wait_for(lambda: len(replies_after(ann, 0)) > seen, timeout=20, what=f"/start {payload}")

        # League buttons with odd arguments: an alert, nothing else.
        await ann.command(group, "leaderboard")
        board = await server.wait_for(lambda: next((m for m in group.bot_messages() if m.photo_id), None),
                                      timeout=60, what="the picture")
        for forged in ("B:lb:" + "9" * 24, "B:hist:" + "9" * 24, "B:lb:-5", "B:hist:-1", "B:lb:0"):
            answer = await (await ann.forge_callback(board, forged)).answer()
            assert answer.show_alert and answer.text == "That button is not valid.", forged

        # Admin commands with odd numbers and zones: a one-line reply each, nothing changed.
        tries = [("min", n) for n in ODD_NUMBERS if n] + [("tz", z) for z in ("Asia", "Asia/", "../../etc/passwd",
                                                                             "x" * 300, "Asia/" + "y" * 300, "上海")]
        for verb, arg in tries:
            seen = len(group.bot_messages())
            await ann.command(group, "season", verb, arg)
            reply = await server.wait_for(lambda: len(group.bot_messages()) > seen and group.bot_messages()[-1],
                                          timeout=20, what=f"/season {verb} {arg[:20]}")
            expected = "Give the minimum" if verb == "min" else "Unknown time zone"
            assert (reply.text or "").startswith(expected), (verb, arg, reply.text)
        seen = len(group.bot_messages())
        await ann.command(group, "season", "tz", "Asia/Shanghai")
        reply = await server.wait_for(lambda: len(group.bot_messages()) > seen and group.bot_messages()[-1],
                                      timeout=20, what="a real zone")
        assert "Asia/Shanghai" in (reply.text or "")
    no_tracebacks(caplog)


async def test_league_access_ends_when_a_player_leaves_the_group(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.league import members

    monkeypatch.setattr(members, "REMEMBER_IN", 0.0)  # ask Telegram every time: the test is about the answer
    monkeypatch.setattr(members, "REMEMBER_OUT", 0.0)
    server = fake_telegram
    people = [server.person(name, language_code="en", started=True) for name in ("Ann", "Bo", "Cy", "Di")]
    group = server.group("Leavers", people)
    await past_hands(tmp_path / "t.db", group, people)
    async with webapp_running(server, tmp_path / "t.db") as app, aiohttp.ClientSession() as session:
        client = AppClient(session, app_base(app), init_data_for(server, people[1]))
        assert (await client.get(f"/app/api/league/{group.id}"))[0] == 200
        assert (await client.get("/app/api/league"))[1]["groups"] == [{"chat": group.id, "title": "牌友群"}]  # the title past_hands stored
        group.chat.members[people[1].id] = "left"
        status, body = await client.get(f"/app/api/league/{group.id}")
        assert status == 403, body
        assert (await client.get("/app/api/league"))[1]["groups"] == []  # the list and the page agree
        seen = len(people[1].private_messages())
        await people[1].start_private(f"l{group.id}")
        reply = await server.wait_for(lambda: len(people[1].private_messages()) > seen + 1
                                      and people[1].private_messages()[-1], timeout=20, what="the refusal")
        assert "Only members of a group who played in it" in (reply.text or "")
