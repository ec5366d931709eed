"""The league page of the web app: a group's table and chart, drawn in the page (SVG), from the bot's own data.

=====================================================  ========================================================
``GET  /app/league.html``, ``league.js``, ``league.css``  the page (package data, no third-party assets)
``GET  /app/api/league``                               the groups whose league the person may see
``GET  /app/api/league/{chat}?stretch=cur|all|<id>``   a stretch's table and lines (what the picture shows)
=====================================================  ========================================================

Every answer carries the web app's security headers (its Content-Security-Policy: nothing inline, so the
page's styles are a file of their own).  Every API request carries Telegram's ``initData`` (``Authorization: tma
<initData>``), checked by :mod:`bot.webapp.initdata` as it is (``chaodipi play``'s local sign-in:
:mod:`bot.webapp.signin`): 401 when it
does not prove who asks.  A person sees the league of a group they played
in (held a seat in one of its scored hands) and is in now (:mod:`bot.league.members`): 403 for any other.  The page's
data is the picture's (:func:`bot.league.pictures.chart_data`), so the page
and the picture the bot sends never disagree.  A stretch's answer is counted
once and kept until the group's next hand ends (:meth:`League.page`); a
person asking faster than the league's budget (shared with its buttons) gets
429 with the reason and when to try again, and costs nothing more.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict
from importlib import resources
from typing import Any, Final

from aiohttp import web
from telegram.ext import Application

from bot.budget import league_budget
from bot.i18n import Translator
from bot.league.board import CURRENT, League
from bot.league.chart import ChartData
from bot.league.members import Members
from bot.league.pictures import Board
from bot.tables import People
from bot.untrusted import shown
from bot.webapp.initdata import InitDataError, WebAppUser
from bot.webapp.inputs import parse_chat_id, refuse_too_many
from bot.webapp.signin import who_asks

log = logging.getLogger(__name__)

PREFIX: Final = "/app"
STATIC: Final = {"league.html": "text/html", "league.js": "text/javascript", "league.css": "text/css"}


class LeagueRoutes:
    """The league page's handlers, bound to the running bot."""

    def __init__(self, application: Application) -> None:  # type: ignore[type-arg]
        self.application = application

    def install(self, web_app: web.Application) -> None:
        """Add the page and its API to an aiohttp application."""
        for name in STATIC:
            web_app.router.add_get(f"{PREFIX}/{name}", self._static)
        web_app.router.add_get(f"{PREFIX}/api/league", self._groups)
        web_app.router.add_get(PREFIX + "/api/league/{chat}", self._league)

    @property
    def league(self) -> League:
        """The bot's league (there once ``post_init`` ran)."""
        league = self.application.bot_data.get("league")
        if league is None:
            raise web.HTTPServiceUnavailable(text="starting")
        return league  # type: ignore[no-any-return]

    @property
    def members(self) -> Members:
        """Who may read which group's league (there once ``post_init`` ran)."""
        members = self.application.bot_data.get("members")
        if members is None:
            raise web.HTTPServiceUnavailable(text="starting")
        return members  # type: ignore[no-any-return]

    def _user(self, request: web.Request) -> WebAppUser:
        try:
            return who_asks(request, self.application.bot_data)
        except InitDataError as exc:
            log.warning("league page request refused: %s (from %s)", exc, request.remote)
            raise web.HTTPUnauthorized(text=_dumps({"ok": False, "error": str(exc)}),
                                       content_type="application/json") from None

    async def _translator(self, user: WebAppUser) -> Translator:
        return await People(self.league.db).translator(user.id, user.language_code)

    async def _static(self, request: web.Request) -> web.Response:
        name = request.path[len(PREFIX) + 1:]
        body = resources.files("bot.webapp").joinpath("static").joinpath(name).read_bytes()
        return web.Response(body=body, content_type=STATIC[name], charset="utf-8",
                            headers={"Cache-Control": "no-cache"})

    async def _groups(self, request: web.Request) -> web.Response:
        user = self._user(request)
        self._within_budget(user)
        chats = await self.members.groups(user.id)  # read on the league's reader, off the tables' connection
        return web.json_response({"ok": True, "groups": [{"chat": chat_id, "title": shown(title)}
                                                         for chat_id, title in chats]}, dumps=_dumps)

    async def _league(self, request: web.Request) -> web.Response:
        user = self._user(request)
        self._within_budget(user)
        chat_id = parse_chat_id(request.match_info["chat"])
        league = self.league
        if not await self.members.may_see(chat_id, user.id):
            raise web.HTTPForbidden(text=_dumps({"ok": False, "error": "not a group of yours"}),
                                    content_type="application/json")
        tr = await self._translator(user)
        stretch = await league.stretch(chat_id, request.query.get("stretch", CURRENT))
        if stretch is None:
            raise web.HTTPNotFound(text=_dumps({"ok": False, "error": "no such season"}),
                                   content_type="application/json")

        def encode(board: Board, data: ChartData) -> bytes:
            return _dumps({"ok": True, "chat": chat_id, "stretch": stretch.key, "lang": tr.lang,
                           "chart": page_data(data),
                           "buttons": [{"label": label, "stretch": k} for label, k in board.buttons]}).encode()

        body = await league.page(tr, chat_id, stretch, encode)
        return web.Response(body=body, content_type="application/json", charset="utf-8")

    def _within_budget(self, user: WebAppUser) -> None:
        """Refuse (429, with when to try again) a request past the person's league budget, before any work."""
        refuse_too_many(user, league_budget(self.application.bot_data))


def page_data(data: ChartData) -> dict[str, Any]:
    """The picture's data for the page: each line as [hand, 积分] points (sampled already, to at most
    :data:`bot.league.board.PAGE_POINTS` of them); the people's words (names, the group's title, a season's
    name) without bidi or control characters."""
    out = asdict(data)
    out["title"], out["subtitle"] = shown(data.title), shown(data.subtitle)
    for item in out["lines"] + out["rows"]:
        item["name"] = shown(item["name"])
    for line, drawn in zip(out["lines"], data.lines):
        hands = drawn.hands or tuple(range(1, len(drawn.points) + 1))
        line["points"] = [[x, value] for x, value in zip(hands, drawn.points)]
        del line["hands"]
    return out


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
