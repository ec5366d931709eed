"""Chats, users, tables and seats, and following a group to its supergroup."""

from __future__ import annotations

import pytest

import storage
from storage import Database, NotFound, StorageError, TableAlreadyActive

from .conftest import start_game


async def test_users_keep_their_language_and_reachability(db: Database) -> None:
    user = await storage.upsert_user(db, 42, "Ann", language="zh-hans")
    assert (user.can_message_privately, user.blocked) == (False, False)
    await storage.set_user_reachability(db, 42, can_message_privately=True)
    user = await storage.upsert_user(db, 42, "Ann Li")  # a later update without a language
    assert (user.display_name, user.language, user.can_message_privately) == ("Ann Li", "zh-hans", True)
    user = await storage.set_user_reachability(db, 42, blocked=True)
    assert (user.can_message_privately, user.blocked) == (True, True)
    assert (await storage.set_user_language(db, 42, "en")).language == "en"
    assert await storage.get_user(db, 43) is None
    with pytest.raises(NotFound):
        await storage.set_user_reachability(db, 43, blocked=True)


async def test_chat_settings_survive_title_changes(db: Database) -> None:
    chat = await storage.upsert_chat(db, -7, "Friday league")
    assert (chat.language, chat.default_preset, chat.settings) == (None, "yancheng", {})
    await storage.update_chat(db, -7, language="zh", default_preset="nantong", settings={"pace": "daily"})
    chat = await storage.upsert_chat(db, -7, "Friday league 2")
    assert (chat.title, chat.language, chat.default_preset, chat.settings) == (
        "Friday league 2", "zh", "nantong", {"pace": "daily"},
    )
    assert (await storage.update_chat(db, -7, language=None)).language is None
    with pytest.raises(NotFound):
        await storage.update_chat(db, -8, language="en")


async def test_one_active_table_per_chat(db: Database) -> None:
    await storage.upsert_chat(db, -1, "g")
    first = await storage.create_table(db, -1)
    assert first.status == "open"
    with pytest.raises(TableAlreadyActive):
        await storage.create_table(db, -1)
    await storage.update_table(db, first.table_id, status="playing")
    with pytest.raises(TableAlreadyActive):
        await storage.create_table(db, -1)
    await storage.update_table(db, first.table_id, status="finished")
    second = await storage.create_table(db, -1)
    assert (await storage.get_active_table(db, -1)) == second
    # The schema itself refuses a second active table, whatever the code path.
    with pytest.raises(TableAlreadyActive):
        await storage.update_table(db, first.table_id, status="open")
    assert (await storage.get_table(db, first.table_id)).status == "finished"  # type: ignore[union-attr]


async def test_a_table_needs_a_known_chat(db: Database) -> None:
    with pytest.raises(NotFound):
        await storage.create_table(db, -404)


async def test_table_timer_and_messages(db: Database) -> None:
    await storage.upsert_chat(db, -1, "g")
    table = await storage.create_table(db, -1, settings={"timer": 86400}, thread_id=5)
    table = await storage.update_table(db, table.table_id, turn_deadline=1_900_000_000.5, message_id=77)
    assert (table.turn_deadline, table.message_id, table.thread_id, table.settings) == (
        1_900_000_000.5, 77, 5, {"timer": 86400},
    )
    table = await storage.update_table(db, table.table_id, turn_deadline=None)
    assert table.turn_deadline is None and table.message_id == 77
    with pytest.raises(NotFound):
        await storage.update_table(db, 999, message_id=1)


async def test_seats_hold_people_and_ai(db: Database) -> None:
    await storage.upsert_chat(db, -1, "g")
    for user_id in (1, 2):
        await storage.upsert_user(db, user_id, f"p{user_id}")
    table = await storage.create_table(db, -1)
    t = table.table_id
    await storage.set_seat(db, t, 0, user_id=1)
    await storage.set_seat(db, t, 1, user_id=None, is_ai=True)
    await storage.set_seat_messages(db, t, 0, hand_message_id=100, nudge_message_id=101)
    with pytest.raises(StorageError, match="already sits"):
        await storage.set_seat(db, t, 2, user_id=1)
    with pytest.raises(ValueError):
        await storage.set_seat(db, t, 4, user_id=2)
    with pytest.raises(ValueError):
        await storage.set_seat(db, t, 2, user_id=None)

    same = await storage.set_seat(db, t, 0, user_id=1, is_ai=True)  # the AI plays for Ann
    assert (same.hand_message_id, same.nudge_message_id, same.is_ai) == (100, 101, True)
    other = await storage.set_seat(db, t, 0, user_id=2)  # Bo takes the seat: Ann's messages go
    assert (other.user_id, other.hand_message_id, other.nudge_message_id) == (2, None, None)
    await storage.clear_seat(db, t, 1)
    seats = await storage.get_seats(db, t)
    assert [(s.seat, s.user_id, s.is_ai) for s in seats] == [(0, 2, False)]
    with pytest.raises(NotFound):
        await storage.set_seat_messages(db, t, 3, hand_message_id=1)


async def test_a_migrated_chat_takes_its_tables_and_standings_along(db: Database) -> None:
    game = await start_game(db, chat_id=-100)
    await storage.update_chat(db, -100, language="zh", settings={"pace": "daily"})
    await storage.record_hand_result(
        db, game.hand.hand_id, attacker_points=40, dealer_side=0, winner_side=0,
        level_changes=(1, 0), scores=(2, -2, 2, -2),
    )
    before = await storage.player_standings(db, -100)
    # The bot met the new supergroup before the migration message arrived.
    await storage.upsert_chat(db, -1009, "league (supergroup)")

    chat = await storage.migrate_chat(db, -100, -1009)
    assert (chat.chat_id, chat.language, chat.settings) == (-1009, "zh", {"pace": "daily"})
    assert chat.title == "league (supergroup)"
    assert await storage.get_chat(db, -100) is None
    assert (await storage.get_active_table(db, -1009)).table_id == game.table.table_id  # type: ignore[union-attr]
    assert await storage.player_standings(db, -1009) == before
    assert await storage.player_standings(db, -100) == []
    assert await storage.resolve_chat_id(db, -100) == -1009
    assert await storage.resolve_chat_id(db, -1009) == -1009
    # Telegram sends the move twice (from both chats); the second is harmless.
    assert (await storage.migrate_chat(db, -100, -1009)).chat_id == -1009
    with pytest.raises(NotFound):
        await storage.migrate_chat(db, -555, -556)


async def test_a_migration_that_would_give_a_chat_two_active_tables_is_refused(db: Database) -> None:
    await start_game(db, chat_id=-100, players=(1, 2, 3, 4))
    await start_game(db, chat_id=-1009, players=(5, 6, 7, 8))
    with pytest.raises(StorageError, match="both have an active table"):
        await storage.migrate_chat(db, -100, -1009)
    assert await storage.get_active_table(db, -100) is not None
    assert await storage.get_chat(db, -100) is not None


async def test_matches_and_hands(db: Database) -> None:
    game = await start_game(db)
    with pytest.raises(StorageError, match="already has a playing match"):
        await storage.create_match(db, game.table.table_id, preset="yancheng", ruleset={})
    with pytest.raises(StorageError, match="already has an active hand"):
        await storage.create_hand(db, game.match.match_id, seed=1, ruleset={})
    with pytest.raises(ValueError):
        await storage.create_hand(db, game.match.match_id, seed=2**64, ruleset={})
    hand = await storage.update_hand(db, game.hand.hand_id, dealer_seat=2, context={"level": 2})
    assert (hand.dealer_seat, hand.context, hand.number) == (2, {"level": 2}, 1)
    await storage.update_hand(db, hand.hand_id, status="finished")
    second = await storage.create_hand(db, game.match.match_id, seed=-(2**63), ruleset={"x": 1})
    assert (second.number, second.seed) == (2, -(2**63))
    assert await storage.get_active_hand(db, game.match.match_id) == second
    hands = await storage.match_hands(db, game.match.match_id)
    assert [h.hand_id for h in hands] == [hand.hand_id, second.hand_id]  # in the order dealt
    assert await storage.match_hands(db, game.match.match_id + 1) == []
    match = await storage.update_match(db, game.match.match_id, levels=(5, 3), laps=(1, 0))
    assert (match.levels, match.laps) == ((5, 3), (1, 0))
    with pytest.raises(StorageError):
        await storage.update_match(db, game.match.match_id, levels=(15, 2))
    match = await storage.update_match(db, game.match.match_id, status="finished", winner_side=0)
    assert await storage.get_playing_match(db, game.table.table_id) is None
    assert (match.status, match.winner_side) == ("finished", 0)
