"""Each group's season end is told on its own: one that cannot be told never holds up another group's."""

from __future__ import annotations

import logging

import pytest

import storage
from bot.league import board as board_module
from bot.league.board import League
from bot.league.chart import ChartData
from bot.league.seasons import GRACE, MOST_TRIES, RETRY_AFTER, SeasonWatcher
from tests.storage.league_kit import at, hands_at

FIRST = -1001
SECOND = -1002



async def two_groups_played_in_november(db: storage.Database) -> None:
    """Both groups play in November (their seasons end at the same midnight, told oldest first: the first
    group's before the second's); the first group's title and a player's name are ``$\\x$``."""
    first = await hands_at(db, FIRST, (1, 2, 3, 4))
    second = await hands_at(db, SECOND, (5, 6, 7, 8))
    for day in (3, 4):
        await first.play(at(2026, 11, day, 20), (1, 2, 3, 4))
        await second.play(at(2026, 11, day, 21), (5, 6, 7, 8))
    await storage.upsert_chat(db, FIRST, "$\\x$ 群")
    await storage.upsert_chat(db, SECOND, "牌友群")
    await storage.upsert_user(db, 1, "$\\x$")


def watcher_at(db: storage.Database, now: list[float], woken: list[int]) -> SeasonWatcher:
    league = League(db, bot_username="chaodipi_bot", public_url=None, clock=lambda: now[0])
    return SeasonWatcher(db, league.tell_season_end, woken.append, league.clock)


async def test_a_picture_that_cannot_be_drawn_holds_up_no_group_and_its_end_is_told_in_words(
        db: storage.Database, monkeypatch: pytest.MonkeyPatch) -> None:
    await two_groups_played_in_november(db)
    real_render = board_module.render

    def render(data: ChartData) -> bytes:
        if "$" in data.subtitle:  # the group's title
            raise ValueError("Unknown symbol: \\x")  # as matplotlib's mathtext did
        return real_render(data)

    monkeypatch.setattr(board_module, "render", render)
    now = [at(2026, 12, 1) + GRACE + 1]
    woken: list[int] = []
    watcher = watcher_at(db, now, woken)
    for chat in (FIRST, SECOND):
        await storage.current_season(db, chat, at(2026, 11, 30))
    assert await watcher.step() == 2
    assert sorted(woken) == [SECOND, FIRST]
    told = {a.kind: a for a in await storage.pending_announcements(db)}
    assert len(await storage.pending_announcements(db)) == 2 and set(told) == {"season_end"}
    by_text = sorted(await storage.pending_announcements(db), key=lambda a: a.text)
    assert [a.photo is None for a in by_text].count(True) == 1  # the first group's end, told in words
    assert all("2026年11月赛季结束了" in a.text for a in by_text)
    for chat in (FIRST, SECOND):
        november = (await storage.seasons_of(db, chat))[0]
        assert november.closed_at is not None, chat
    assert watcher.troubles() == []


async def test_a_season_end_that_keeps_failing_is_logged_once_tried_a_few_times_and_never_blocks_another(
        db: storage.Database, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    await two_groups_played_in_november(db)
    now = [at(2026, 12, 1) + GRACE + 1]
    woken: list[int] = []
    watcher = watcher_at(db, now, woken)
    real_tell = watcher.tell
    calls: list[int] = []

    async def tell(season: storage.Season) -> int | None:
        calls.append(season.chat_id)
        if season.chat_id == FIRST:
            raise KeyError("a bug in telling this group's season")
        return await real_tell(season)

    watcher.tell = tell  # type: ignore[method-assign]
    for chat in (FIRST, SECOND):
        await storage.current_season(db, chat, at(2026, 11, 30))
    with caplog.at_level(logging.ERROR, logger="bot.league.seasons"):
        assert await watcher.step() == 1  # the second group's end is told although the first one's failed
        assert woken == [SECOND]
        assert await watcher.step() == 0 and calls.count(FIRST) == 1  # not again before its retry time
        for attempt in range(2, MOST_TRIES + 3):
            now[0] += RETRY_AFTER * 2 ** attempt
            await watcher.step()
    assert calls.count(FIRST) == MOST_TRIES and calls.count(SECOND) == 1  # given up; never retried for ever
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 2  # the first failure (with its traceback) and the giving up
    assert errors[0].exc_info is not None and "given up" in errors[1].getMessage()
    assert len(watcher.troubles()) == 1 and "KeyError" in watcher.troubles()[0]
    first_season = (await storage.seasons_of(db, FIRST))[0]
    assert first_season.closed_at is None  # not told: it is not marked told either


async def test_a_season_given_up_on_does_not_put_off_another_groups_end(db: storage.Database) -> None:
    """Once the first group's season end was given up on (it stays due, never told), the watcher took it for the
    next end of any group, saw it past and slept its longest, an hour: the second group's season, ending ten
    minutes later at London's midnight, was told up to an hour late (every month, until the bot restarted).
    Now the watcher sleeps until the next end it has not looked at yet."""
    await two_groups_played_in_november(db)
    london_midnight = await storage.set_time_zone(db, SECOND, "Europe/London", at(2026, 11, 30))
    assert london_midnight.ends_at is not None
    now = [at(2026, 12, 1) + GRACE + 1]
    woken: list[int] = []
    watcher = watcher_at(db, now, woken)

    async def tell(season: storage.Season) -> int | None:
        raise KeyError("a bug in telling this group's season")

    watcher.tell = tell  # type: ignore[method-assign]
    await storage.current_season(db, FIRST, at(2026, 11, 30))
    for attempt in range(MOST_TRIES):
        await watcher.step()
        now[0] += RETRY_AFTER * 2 ** attempt + 1
    assert "after 4 tries" in watcher.troubles()[0]  # given up until the bot restarts
    now[0] = london_midnight.ends_at - 600
    await watcher.step()
    assert await watcher._sleep_for() == pytest.approx(600 + GRACE)


async def test_a_group_that_lets_nobody_send_photos_is_told_its_seasons_end_in_words(db: storage.Database) -> None:
    """A group whose members (the bot with them) may send no photos refuses the season's picture ("not enough
    rights to send photos"): the outbox gave the season's end up for good, and the group never heard its final
    table and champions.  Now the caption is sent as a message of its own."""
    from types import SimpleNamespace

    from telegram.error import BadRequest

    from bot.announcements import Outbox

    await two_groups_played_in_november(db)
    league = League(db, bot_username="chaodipi_bot", public_url=None, clock=lambda: at(2026, 12, 2))
    november = await storage.current_season(db, SECOND, at(2026, 11, 30))
    assert await league.tell_season_end(november) == SECOND
    sent: list[tuple[str, str]] = []

    class NoPhotos:
        async def send_photo(self, chat_id: int, photo: bytes, **kwargs: object) -> object:
            raise BadRequest("Not enough rights to send photos to the chat")

        async def send_message(self, chat_id: int, text: str, **kwargs: object) -> object:
            sent.append(("message", text))
            return SimpleNamespace(message_id=7)

    outbox = Outbox(db, NoPhotos())  # type: ignore[arg-type]
    outbox.wake(SECOND)
    await outbox.drain()
    assert len(sent) == 1 and "2026年11月赛季结束了" in sent[0][1], sent
    assert await storage.pending_announcements(db, SECOND) == []


async def test_a_season_the_watcher_tells_while_an_admin_ends_it_is_told_before_the_next_starts(
        db: storage.Database) -> None:
    """An admin's /season new while the season's picture took longer than the watcher's grace to draw: the watcher
    told the season's end first, the admin's telling found it told and took it for a season nobody played in,
    and the new season's start was sent at once as a reply, ahead of the old season's final table still
    uploading (the order issue 55 fixed).  Now the start is queued in the outbox after the end, as usual."""
    from bot.i18n import translator
    from bot.league.admin import change_season

    await two_groups_played_in_november(db)
    await storage.upsert_user(db, 9, "Admin")
    now = [at(2026, 11, 20)]
    league = League(db, bot_username="chaodipi_bot", public_url=None, clock=lambda: now[0])
    watcher = SeasonWatcher(db, league.tell_season_end, lambda chat_id: None, league.clock)
    real_draw = league.draw
    late: list[int] = []

    async def draw(*args: object) -> bytes | None:
        if not late:  # the admin's picture is slow: meanwhile the watcher's grace runs out and it looks
            late.append(1)
            now[0] += GRACE + 1
            assert await watcher.step() == 1
        return await real_draw(*args)  # type: ignore[arg-type]

    league.draw = draw  # type: ignore[method-assign]
    reply = await change_season(league, translator("en"), SECOND, 9, "new", "Spring")
    assert late and reply == "", reply  # queued, not a reply of its own
    assert [a.kind for a in await storage.pending_announcements(db, SECOND)] == ["season_end", "season_start"]
