"""A table whose forum topic is closed to the bot (``bot/tables/topics.py``) and whose group mutes it too: it goes
on only once both let the bot write, whichever comes first.  A real table service over a real database; no
Telegram."""

from __future__ import annotations

import storage
from bot.i18n import translator
from bot.render_group import render_table
from bot.tables import NextHand, Refused, Tables

from .test_perform import person, started

GROUP = -1  # the group of started()'s table, no topics: its topic is None


async def _mute(tables: Tables, muted: bool) -> None:
    if muted:
        tables.muting.muted.add(GROUP)
        await tables.group_muted(GROUP)
    else:
        tables.muting.muted.discard(GROUP)
        await tables.group_unmuted(GROUP)


async def _close_topic(tables: Tables, closed: bool) -> None:
    if closed:
        tables.topics.closed.add((GROUP, None))
        await tables.topic_closed(GROUP, None)
    else:
        tables.topics.closed.discard((GROUP, None))
        await tables.topic_reopened(GROUP, None)


async def test_a_closed_topic_pauses_the_table_and_refuses_the_next_hand_in_its_words(db: storage.Database) -> None:
    async with started(db, pace="relaxed") as (tables, table):
        async with table.lock:
            await tables.escape(table, 0)  # before any card: hand 1 ends, hand 2 is dealt, the pause begins
        assert table.match is not None and table.between_hands is not None
        await _close_topic(tables, True)
        assert table.topic_closed and table.silenced and not table.muted
        text, markup = render_table(translator("en"), table)
        assert "this topic is closed" in text and markup is None
        outcome = await tables.perform(person(1, "app"), table, NextHand(str(table.match.deals)))
        assert isinstance(outcome, Refused) and "this topic is closed" in outcome.text(translator("en"))
        await _close_topic(tables, False)
        assert not table.silenced


async def test_unmuted_with_its_topic_closed_the_table_waits_for_the_topic(db: storage.Database) -> None:
    async with started(db) as (tables, table):
        await _mute(tables, True)
        await _close_topic(tables, True)
        table.progress, deadline = 1.0, table.deadline
        await _mute(tables, False)
        assert table.silenced and not table.muted and table.topic_closed
        assert (table.progress, table.deadline) == (1.0, deadline), "no word that it goes on, no clock anew"
        await _close_topic(tables, False)
        assert not table.silenced and table.progress > 1.0


async def test_its_topic_reopened_while_the_group_mutes_the_bot_the_table_waits_for_the_unmute(
        db: storage.Database) -> None:
    async with started(db) as (tables, table):
        await _close_topic(tables, True)
        await _mute(tables, True)
        assert table.muted and table.topic_closed
        table.progress, deadline = 1.0, table.deadline
        await _close_topic(tables, False)
        assert table.silenced and table.muted and not table.topic_closed
        assert (table.progress, table.deadline) == (1.0, deadline), "no word that it goes on, no clock anew"
        await _mute(tables, False)
        assert not table.silenced and table.progress > 1.0
