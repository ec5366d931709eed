"""The league of a group as the bot answers it: /leaderboard (text, picture, buttons) and a season's end.

:class:`League` holds what the answers share: the database, the pictures'
cache, the clock, and how to reach the bot (its username, for deep links,
and the web app's address).  Each answer is built from the stored results
by :mod:`storage`, ranked by :mod:`bot.league.standings` and drawn by
:mod:`bot.league.chart` in a worker thread, one picture at a time.

What costs more the longer a group has played (its standings, its lines)
is read on ``reader``, a second connection that only reads, so the tables'
moves never queue behind a long history; the lines are sampled by SQLite
(:func:`storage.jifen_lines`), so what comes back is bounded; and every
answer is kept until the group's next hand ends, counted once however many
people ask for it at the same moment.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import storage
from bot import untrusted
from bot.i18n import Translator, translator
from bot.labels import hands_phrase, name_html
from bot.league.chart import MAX_POINTS, ChartData, render
from bot.league.pictures import Board, Picture, PictureCache, Stretch, chart_data, ranked_ids
from bot.league.seasons import season_dates, season_title
from bot.league.standings import CAPTION_LIMIT, Standings, champions_text, rank, table_text
from bot.tasks import Supervisor
from bot.untrusted import parse_id

WARM: Final = 6 * 3600.0
"""A group whose league was asked for in the last six hours gets its new picture drawn as soon as a hand ends."""
CURRENT: Final = "cur"
ALL_TIME: Final = "all"
LOOK_BACK: Final = 24
"""Seasons looked through, at most, for the last one somebody played in (a group idle for months)."""
PAGE_POINTS: Final = 400
"""Points per line in the league page's answer at most (a long stretch is sampled, the last point kept)."""

log = logging.getLogger(__name__)
T = TypeVar("T")


class _Turn:
    """The queue of the requests for one answer of one group (see :meth:`League._once`)."""

    __slots__ = ("lock", "waiting")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.waiting = 0


@dataclass(frozen=True, slots=True)
class Answer:
    """What /leaderboard (or one of its buttons) shows: a caption, a picture (or its ``file_id``), buttons."""

    text: str
    stretch: Stretch
    photo: bytes | None = None
    """The picture to send, when Telegram has not taken it yet; None with ``file_id`` None: text only."""
    file_id: str | None = None
    buttons: tuple[tuple[str, str], ...] = ()
    """(label, stretch key) of the other stretches worth a look."""
    link: tuple[str, str] | None = None
    """(label, URL) of the league page in the web app, when it is on."""


class League:
    """Every group's league, as the handlers, the web app and the season watcher ask for it."""

    def __init__(self, db: storage.Database, *, bot_username: str, public_url: str | None,
                 clock: Callable[[], float] = time.time,
                 live_language: Callable[[int], str | None] = lambda chat_id: None,
                 tasks: Supervisor | None = None, reader: storage.Database | None = None) -> None:
        self.db = db
        self.reader = reader or db
        """Where the long reads go: a read-only second connection (:meth:`storage.Database.open_reader`), or
        ``db`` itself."""
        self.tasks = tasks
        """Where the pictures of a hand that ended are drawn ahead of the next /leaderboard (None: never)."""
        self._asked: dict[int, float] = {}
        self.bot_username = bot_username
        self.public_url = public_url
        self.clock = clock
        self.live_language = live_language
        """The language of the group's live table, if it has one (it follows the group's /lang)."""
        self.cache = PictureCache()
        self._drawing = asyncio.Lock()
        self._making: dict[tuple[Any, ...], _Turn] = {}

    def asked(self, chat_id: int) -> None:
        """Somebody looked at the group's league: for a while, its pictures are drawn as soon as a hand ends."""
        self._asked[chat_id] = self.clock()

    def hand_ended(self, chat_id: int) -> None:
        """A hand of the group ended: its current pictures and tables are out of date; if the group looks at its
        league, the season's are counted and drawn again now, in the background, so that the next /leaderboard
        is answered at once."""
        self.cache.hand_ended(chat_id)
        if self.tasks is not None and self.clock() - self._asked.get(chat_id, -WARM) < WARM:
            self.tasks.start(f"league {chat_id}", lambda: self._prepare(chat_id), restart=False)

    async def _prepare(self, chat_id: int) -> None:
        await leaderboard(self, chat_id, await self.language(chat_id), CURRENT)

    async def language(self, chat_id: int) -> str:
        """The group's language: its live table's, else its /lang, else its last table's creator's, else 中文."""
        live = self.live_language(chat_id)
        if live is not None:
            return live
        chat = await storage.get_chat(self.db, chat_id)
        if chat is not None and chat.language:
            return chat.language
        row = await self.db.fetchone(
            """SELECT u.language FROM tables AS t JOIN users AS u ON u.user_id = t.creator_id
               WHERE t.chat_id = ? ORDER BY t.table_id DESC LIMIT 1""", (chat_id,))
        return str(row[0]) if row is not None and row[0] else "zh"

    async def stretch(self, chat_id: int, key: str) -> Stretch | None:
        """The stretch a button names (``cur``, ``all`` or a season of this group); None for another group's."""
        current = await storage.current_season(self.db, chat_id, self.clock())
        if key == CURRENT:
            return Stretch(str(current.season_id), current, True)
        if key == ALL_TIME:
            return Stretch(ALL_TIME, None, True)
        season_id = parse_id(key)
        season = await storage.get_season(self.db, season_id) if season_id is not None else None
        if season is None or season.chat_id != chat_id:
            return None
        return Stretch(key, season, season.season_id == current.season_id)

    async def standings(self, chat_id: int, stretch: Stretch) -> Standings:
        """The stretch's table (all time ranks with the current season's minimum)."""
        minimum = (stretch.season or await storage.current_season(self.db, chat_id, self.clock())).min_hands
        lines = await storage.league_lines(self.reader, chat_id, since=stretch.since, until=stretch.until)
        pairs = await storage.partnership_lines(self.reader, chat_id, since=stretch.since, until=stretch.until)
        return rank(lines, pairs, minimum)

    async def headings(self, tr: Translator, chat_id: int, stretch: Stretch) -> tuple[str, str]:
        """The title and the line under it, as plain text (a group's title and a season's name are the people's
        words: escape them for HTML): 「联赛 · 2026年12月赛季」, 「牌友群 · 12月1日 – 12月31日 · 312 局」."""
        chat = await storage.get_chat(self.db, chat_id)
        hands = await storage.counted_hands(self.reader, chat_id, since=stretch.since, until=stretch.until)
        parts = [chat.title] if chat is not None and chat.title else []
        if stretch.season is not None:
            title = tr("League · {season}", season=season_title(tr, stretch.season))
            parts.append(season_dates(tr, stretch.season, await storage.time_zone(self.db, chat_id)))
        else:
            title = tr("League · all time")
        parts.append(hands_phrase(tr, hands))
        return title, " · ".join(parts)

    async def _once(self, key: tuple[Any, ...], kept: Callable[[], T | None], make: Callable[[], Awaitable[T]]) -> T:
        """What is kept, else ``make()``: one at a time per key, so a burst of requests counts once (the ones
        that waited find what the first one kept)."""
        turn = self._making.get(key)
        if turn is None:
            turn = self._making[key] = _Turn()
        turn.waiting += 1
        try:
            async with turn.lock:
                found = kept()
                return found if found is not None else await make()
        finally:
            turn.waiting -= 1
            if turn.waiting == 0:
                del self._making[key]

    async def board(self, tr: Translator, chat_id: int, stretch: Stretch) -> Board:
        """The stretch's table, headings and buttons: kept until the group's next hand ends."""
        kept = self.cache.board(chat_id, stretch, tr.lang)
        if kept is not None:
            return kept
        return await self._once(("board", chat_id, stretch.key, stretch.current, tr.lang),
                                lambda: self.cache.board(chat_id, stretch, tr.lang),
                                lambda: self._count_board(tr, chat_id, stretch))

    async def _count_board(self, tr: Translator, chat_id: int, stretch: Stretch) -> Board:
        version = self.cache.version(chat_id)
        standings = await self.standings(chat_id, stretch)
        title, subtitle = await self.headings(tr, chat_id, stretch)
        board = Board(standings, title, subtitle, tuple(await other_stretches(self, tr, chat_id, stretch)))
        self.cache.keep_board(chat_id, stretch, tr.lang, board, version=version)
        return board

    async def page(self, tr: Translator, chat_id: int, stretch: Stretch,
                   encode: Callable[[Board, ChartData], bytes]) -> bytes:
        """The league page's answer for the stretch (``encode`` makes it of the table and of the picture's data,
        its lines sampled to :data:`PAGE_POINTS` points): kept until the group's next hand ends."""
        kept = self.cache.page(chat_id, stretch, tr.lang)
        if kept is not None:
            return kept
        return await self._once(("page", chat_id, stretch.key, stretch.current, tr.lang),
                                lambda: self.cache.page(chat_id, stretch, tr.lang),
                                lambda: self._make_page(tr, chat_id, stretch, encode))

    async def _make_page(self, tr: Translator, chat_id: int, stretch: Stretch,
                         encode: Callable[[Board, ChartData], bytes]) -> bytes:
        version = self.cache.version(chat_id)
        board = await self.board(tr, chat_id, stretch)
        series = await storage.jifen_lines(self.reader, chat_id, ranked_ids(board.standings), cap=PAGE_POINTS,
                                           since=stretch.since, until=stretch.until)
        # Worded and encoded in a worker thread: tens of KB of JSON, and the event loop has moves to answer.
        body = await asyncio.to_thread(
            lambda: encode(board, chart_data(tr, board.title, board.subtitle, board.standings, series,
                                             finished=stretch.finished)))
        self.cache.keep_page(chat_id, stretch, tr.lang, body, version=version)
        return body

    async def draw(self, chat_id: int, tr: Translator, stretch: Stretch, standings: Standings,
                   title: str, subtitle: str) -> bytes | None:
        """The stretch's picture: from the cache, else drawn (in a worker thread) and kept; None if it cannot be
        drawn (remembered too: logged once, and not tried again until the group's data changes)."""
        kept = self.cache.get(chat_id, stretch, tr.lang)
        if kept is not None:
            return kept.png
        picture = await self._once(("picture", chat_id, stretch.key, stretch.current, tr.lang),
                                   lambda: self.cache.get(chat_id, stretch, tr.lang),
                                   lambda: self._draw(chat_id, tr, stretch, standings, title, subtitle))
        return picture.png

    async def _draw(self, chat_id: int, tr: Translator, stretch: Stretch, standings: Standings,
                    title: str, subtitle: str) -> Picture:
        version = self.cache.version(chat_id)
        series = await storage.jifen_lines(self.reader, chat_id, ranked_ids(standings), cap=MAX_POINTS,
                                           since=stretch.since, until=stretch.until)
        data = chart_data(tr, title, subtitle, standings, series, finished=stretch.finished)
        png: bytes | None
        async with self._drawing:  # one at a time: matplotlib's fonts are shared, and the CPU with the tables
            try:
                png = await asyncio.to_thread(render, data)
            except Exception:
                log.exception("the league picture of chat %s (stretch %s, %s) cannot be drawn: the table is sent "
                              "as text until the group's data changes", chat_id, stretch.key, tr.lang)
                png = None
        self.cache.store(chat_id, stretch, tr.lang, png, version=version)
        return Picture(png)

    def sent(self, chat_id: int, stretch: Stretch, lang: str, file_id: str, png: bytes) -> None:
        """Telegram took the stretch's picture ``png``: send its ``file_id`` from now on, if it is still the one
        kept (a hand that ended while it was uploading has had a new one drawn, which this id does not show)."""
        kept = self.cache.get(chat_id, stretch, lang)
        if kept is not None and kept.png == png:
            kept.file_id = file_id

    async def tell_season_end(self, season: storage.Season) -> int | None:
        """Queue the season's final table, champions and picture in its group's outbox, closing the season in
        the same transaction; the chat to wake (also when it was queued there already: the watcher and an
        admin's /season at once), or None if nobody played in it (it is closed silently)."""
        chat_id = season.chat_id
        self.cache.forget(chat_id)  # the seasons changed: what was kept names the one under way as current
        stretch = Stretch(str(season.season_id), season, False)
        standings = await self.standings(chat_id, stretch)
        if not standings.everyone:
            await storage.close_season(self.db, season.season_id)
            return None
        tr = translator(await self.language(chat_id))
        title, subtitle = await self.headings(tr, chat_id, stretch)
        png = await self.draw(chat_id, tr, stretch, standings, title, subtitle)
        head = "\n".join(["🏁 <b>" + tr("{season} is over!", season=name_html(season_title(tr, season))) + "</b>",
                          "🏆 " + champions_text(tr, standings, finished=True)])
        text = table_text(tr, head, standings, limit=CAPTION_LIMIT)
        async with self.db.transaction():
            table = await self.db.fetchone("SELECT MAX(table_id) FROM tables WHERE chat_id = ?", (chat_id,))
            closed = await storage.close_season(self.db, season.season_id)
            if table is None or table[0] is None:
                return None
            if not closed:  # told by the other path meanwhile: what follows it is queued after it
                return chat_id
            await storage.add_announcement(self.db, int(table[0]), "season_end", text, photo=png)
        return chat_id

    async def announce(self, chat_id: int, kind: str, text: str) -> bool:
        """Queue ``text`` in the group's outbox, after what is queued there already (a season's end before the
        next season's start); False for a group that never had a table (it has no outbox)."""
        async with self.db.transaction():
            table = await self.db.fetchone("SELECT MAX(table_id) FROM tables WHERE chat_id = ?", (chat_id,))
            if table is None or table[0] is None:
                return False
            await storage.add_announcement(self.db, int(table[0]), kind, text)
        return True

    async def knows(self, chat_id: int) -> bool:
        """True for a group the bot has stored (one where a table was opened or a hand finished)."""
        return await storage.get_chat(self.db, chat_id) is not None

    async def group_title(self, chat_id: int) -> str | None:
        """The group's title as last seen (None if unknown or empty)."""
        chat = await storage.get_chat(self.db, chat_id)
        return chat.title if chat is not None and chat.title else None

    def page_link(self, tr: Translator, chat_id: int) -> tuple[str, str] | None:
        """The league page's deep link (through the private chat, as a group cannot hold a web app button)."""
        if self.public_url is None:
            return None
        return tr("📈 League page"), f"https://t.me/{self.bot_username}?start=l{chat_id}"


async def leaderboard(league: League, chat_id: int, lang: str, key: str = CURRENT) -> Answer | None:
    """/leaderboard (or a button of it): the stretch's table as a caption, its picture, and the buttons to the
    season before, the current one and all time; None for a stretch not of this group.  A stretch nobody
    played in is told in words, without a picture."""
    stretch = await league.stretch(chat_id, key)
    if stretch is None:
        return None
    tr = translator(lang)
    board = await league.board(tr, chat_id, stretch)
    link = league.page_link(tr, chat_id)
    head = f"<b>{name_html(board.title)}</b>\n{name_html(board.subtitle)}"
    if not board.standings.everyone:
        text = head + "\n" + (tr("No hands have been finished this season yet.") if stretch.season is not None
                              else tr("No hands have been finished in this group yet."))
        return Answer(text, stretch, buttons=board.buttons, link=link)
    text = table_text(tr, head, board.standings)
    kept = league.cache.get(chat_id, stretch, lang)
    if kept is not None and kept.file_id is not None:
        return Answer(text, stretch, file_id=kept.file_id, buttons=board.buttons, link=link)
    png = await league.draw(chat_id, tr, stretch, board.standings, board.title, board.subtitle)
    return Answer(text, stretch, photo=png, buttons=board.buttons, link=link)


async def other_stretches(league: League, tr: Translator, chat_id: int, stretch: Stretch) -> list[tuple[str, str]]:
    """The season before the one shown (or the current one's, for all time) if somebody played in it, the
    current season (when another is shown) and all time."""
    db = league.db
    shown = stretch.season or await storage.current_season(db, chat_id, league.clock())
    buttons: list[tuple[str, str]] = []
    before = shown
    for _ in range(LOOK_BACK):
        found = await storage.season_before(db, before)
        if found is None:
            break
        before = found
        if await storage.has_counted_hands(league.reader, chat_id, since=before.starts_at, until=before.ends_at):
            buttons.append(("◀ " + untrusted.shown(season_title(tr, before)), str(before.season_id)))
            break
    if not stretch.current or stretch.season is None:
        buttons.append((tr("This season"), CURRENT))
    if stretch.season is not None:
        buttons.append((tr("All time"), ALL_TIME))
    return buttons
