"""Seasons: monthly at the group's local midnight, seasons the admins name, hands straddling a boundary, and the
league's lines of a season (escapes, matches won, AI seats, the last hand's time)."""

from __future__ import annotations

from pathlib import Path

import pytest

import storage
from storage import Database
from storage.migrations import migrate

from .conftest import start_game
from .league_kit import CHAT, LONDON, at, hands_at


async def test_monthly_seasons_roll_over_at_the_groups_local_midnight(db: Database) -> None:
    hands = await hands_at(db)
    await hands.play(at(2026, 11, 30, 23, 59, 59))  # the last second of November in Shanghai
    await hands.play(at(2026, 12, 1, 0, 0, 0))  # its first of December
    november = await storage.current_season(db, CHAT, at(2026, 11, 15))
    assert (november.kind, november.name, november.starts_at, november.ends_at) == (
        "monthly", "2026-11", at(2026, 11, 1), at(2026, 12, 1))
    december = await storage.current_season(db, CHAT, at(2026, 12, 20))
    assert (december.name, december.starts_at, december.ends_at) == ("2026-12", at(2026, 12, 1), at(2027, 1, 1))
    assert [s.name for s in await storage.seasons_of(db, CHAT)] == ["2026-11", "2026-12"]
    for season in (november, december):
        lines = await storage.league_lines(db, CHAT, since=season.starts_at, until=season.ends_at)
        assert [line.hands for line in lines] == [1, 1, 1, 1], season.name
    # Asking about November again changes nothing: the seasons are kept.
    assert (await storage.current_season(db, CHAT, at(2026, 12, 20))).season_id == december.season_id


async def test_a_group_in_another_time_zone_rolls_over_at_its_own_midnight(db: Database) -> None:
    hands = await hands_at(db)
    await storage.current_season(db, CHAT, at(2026, 11, 10, tz=LONDON))
    season = await storage.set_time_zone(db, CHAT, "Europe/London", at(2026, 11, 10, tz=LONDON))
    assert season.ends_at == at(2026, 12, 1, tz=LONDON)  # eight hours after Shanghai's midnight
    await hands.play(at(2026, 11, 30, 23, 30, tz=LONDON))  # December in Shanghai, still November in London
    after = await storage.current_season(db, CHAT, at(2026, 12, 2, tz=LONDON))
    assert (after.name, after.starts_at, after.ends_at) == ("2026-12", at(2026, 12, 1, tz=LONDON),
                                                            at(2027, 1, 1, tz=LONDON))
    november = (await storage.seasons_of(db, CHAT))[0]
    assert await storage.counted_hands(db, CHAT, since=november.starts_at, until=november.ends_at) == 1
    assert await storage.time_zone(db, CHAT) == "Europe/London"
    with pytest.raises(ValueError):
        await storage.set_time_zone(db, CHAT, "Mars/Olympus_Mons")


async def test_a_group_that_played_before_seasons_existed_gets_every_month_since_its_first_hand(db: Database) -> None:
    hands = await hands_at(db)
    await hands.play(at(2026, 9, 14, 20))
    season = await storage.current_season(db, CHAT, at(2026, 12, 3))
    assert [s.name for s in await storage.seasons_of(db, CHAT)] == ["2026-09", "2026-10", "2026-11", "2026-12"]
    seasons = await storage.seasons_of(db, CHAT)
    assert all(a.ends_at == b.starts_at for a, b in zip(seasons, seasons[1:]))  # no gap, no overlap
    assert season.name == "2026-12"
    with pytest.raises(storage.NotFound):
        await storage.current_season(db, -999, at(2026, 12, 3))


async def test_admins_start_a_named_season_and_go_back_to_monthly_ones(db: Database) -> None:
    hands = await hands_at(db)
    await hands.play(at(2027, 3, 2, 12))  # in March's monthly season
    ended, spring = await storage.start_named_season(db, CHAT, "  春季赛 ", by=1, now=at(2027, 3, 5, 18))
    assert (ended.name, ended.ends_at) == ("2027-03", at(2027, 3, 5, 18))
    assert (spring.kind, spring.name, spring.starts_at, spring.ends_at, spring.started_by) == (
        "named", "春季赛", at(2027, 3, 5, 18), None, 1)
    await hands.play(at(2027, 3, 5, 18, 0, 1), winner=1)
    await hands.play(at(2027, 4, 20, 9), winner=1)  # no monthly roll-over during a named season
    assert (await storage.current_season(db, CHAT, at(2027, 5, 1, 12))).season_id == spring.season_id
    assert await storage.counted_hands(db, CHAT, since=spring.starts_at, until=spring.ends_at) == 2
    assert await storage.counted_hands(db, CHAT, since=ended.starts_at, until=ended.ends_at) == 1
    assert await storage.seasons_to_close(db, at(2027, 3, 5, 18, 0, 10)) == [ended]
    ended_spring, may = await storage.start_monthly_seasons(db, CHAT, by=1, now=at(2027, 5, 10)) or (None, None)
    assert ended_spring is not None and may is not None
    assert (ended_spring.season_id, ended_spring.ends_at) == (spring.season_id, at(2027, 5, 10))
    assert (may.kind, may.name, may.starts_at, may.ends_at) == ("monthly", "2027-05", at(2027, 5, 10), at(2027, 6, 1))
    assert await storage.start_monthly_seasons(db, CHAT, by=1, now=at(2027, 5, 11)) is None
    for bad in ("", "   ", "名" * (storage.MAX_NAME + 1)):
        with pytest.raises(ValueError):
            await storage.start_named_season(db, CHAT, bad, by=1, now=at(2027, 5, 12))
    # The minimum of hands is the season's, and the next season keeps it.
    assert (await storage.set_min_hands(db, CHAT, 4, at(2027, 5, 12))).min_hands == 4
    assert (await storage.current_season(db, CHAT, at(2027, 6, 2))).min_hands == 4


async def test_a_season_is_told_once(db: Database) -> None:
    hands = await hands_at(db)
    await hands.play(at(2026, 11, 20))
    november = await storage.current_season(db, CHAT, at(2026, 11, 21))
    assert await storage.next_season_end(db) == at(2026, 12, 1)
    assert await storage.seasons_to_close(db, at(2026, 11, 30, 23)) == []
    assert await storage.seasons_to_close(db, at(2026, 12, 1, 0, 0, 5)) == [november]
    assert await storage.close_season(db, november.season_id, at(2026, 12, 1, 0, 0, 5))
    assert not await storage.close_season(db, november.season_id)
    assert await storage.seasons_to_close(db, at(2026, 12, 2)) == []
    assert await storage.next_season_end(db) is None


async def test_the_leagues_lines_count_escapes_matches_won_and_never_the_ai(db: Database) -> None:
    hands = await hands_at(db)
    ann, bo, cy, di = 1, 2, 3, 4
    await hands.play(at(2026, 12, 2), winner=0, levels=2)
    await hands.play(at(2026, 12, 3), winner=1, away=3)  # Di away: the AI finished it for him
    await hands.play(at(2026, 12, 4), escaped=1)  # Bo escaped: a loss for him, nothing for anyone else
    await hands.play(at(2026, 12, 5), (ann, None, cy, di), winner=0)  # an AI seat
    last = await hands.play(at(2026, 12, 6), winner=0)  # the match's last hand, won by Ann and Cy
    await storage.update_match(db, hands.match_id, status="finished", winner_side=0)
    lines = {line.user_id: line for line in await storage.league_lines(db, CHAT)}
    assert set(lines) == {ann, bo, cy, di}
    figures = {uid: (one.hands, one.hands_won, one.jifen, one.matches_won, one.escapes, one.dealer_hands)
               for uid, one in lines.items()}
    assert figures[ann] == figures[cy] == (4, 3, 2 - 1 + 1 + 1, 1, 0, 4)
    assert figures[bo] == (4, 1, -2 + 1 - 3 - 1, 0, 1, 0)  # the escape is a loss, and an escape
    assert figures[di] == (3, 0, -2 - 1 - 1, 0, 0, 0)  # the hand the AI finished for him is not his
    assert lines[ann].last_at == at(2026, 12, 6) and lines[di].last_at == at(2026, 12, 6)
    assert lines[bo].attacker_hands == 4 and lines[bo].attacker_won == 1
    pairs = {p.user_ids: (p.hands, p.hands_won, p.jifen) for p in await storage.partnership_lines(db, CHAT)}
    assert pairs == {(ann, cy): (4, 3, 2 * (2 - 1 + 1 + 1)), (bo, di): (2, 0, -2 * 2 - 1 * 2)}
    assert pairs == {p.user_ids: (p.hands, p.hands_won, p.jifen)
                     for p in await storage.partnership_standings(db, CHAT)}
    assert await storage.counted_hands(db, CHAT) == 5
    assert await storage.league_chats(db, bo) == [(CHAT, f"chat {CHAT}")]
    assert await storage.played_in(db, CHAT, bo) and not await storage.played_in(db, CHAT, 99)
    history = await storage.match_history(db, CHAT)
    assert len(history) == 1 and history[0].hands[-1].hand_id == last and history[0].winner_side == 0
    assert history[0].players == (("player1",), ("player2", None), ("player3",), ("player4",))


async def test_a_group_that_becomes_a_supergroup_keeps_its_seasons(db: Database) -> None:
    hands = await hands_at(db)
    await hands.play(at(2026, 12, 2))
    await storage.start_named_season(db, CHAT, "冬季赛", by=1, now=at(2026, 12, 5))
    await storage.set_time_zone(db, CHAT, "Europe/London", at(2026, 12, 6))
    await storage.update_table(db, hands.table_id, status="finished")
    await storage.migrate_chat(db, CHAT, -100_777)
    assert [s.name for s in await storage.seasons_of(db, -100_777)] == ["2026-12", "冬季赛"]
    assert await storage.time_zone(db, -100_777) == "Europe/London"
    assert await storage.seasons_of(db, CHAT) == []


async def test_a_season_somebody_played_in(db: Database) -> None:
    hands = await hands_at(db)
    await hands.play(at(2026, 11, 5), (1, None, None, None))  # three AI seats: it counts for Ann
    await hands.play(at(2026, 12, 5), (None, None, None, None))  # four AI seats: it counts for nobody
    assert await storage.has_counted_hands(db, CHAT, since=at(2026, 11, 1), until=at(2026, 12, 1))
    assert not await storage.has_counted_hands(db, CHAT, since=at(2026, 12, 1), until=at(2027, 1, 1))
    assert await storage.counted_hands(db, CHAT) == 1


async def test_results_stored_before_migration_7_count_in_their_groups_league(tmp_path: Path) -> None:
    path = tmp_path / "v6.db"
    db = await Database.open(path, migrate=False)
    await migrate(db, target=6)
    game = await start_game(db, CHAT)
    async with db.transaction():  # as a version-6 bot stored a result: no chat_id column yet
        await db.execute("""INSERT INTO hand_results (hand_id, attacker_points, dealer_side, winner_side, special,
                            created_at) VALUES (?, 40, 0, 0, '{}', ?)""", (game.hand.hand_id, at(2026, 10, 3)))
        await db.executemany(
            "INSERT INTO hand_result_seats (hand_id, seat, user_id, is_ai, score, outcome) VALUES (?, ?, ?, 0, ?, ?)",
            [(game.hand.hand_id, seat, seat + 1, 2 if seat % 2 == 0 else -2, "won" if seat % 2 == 0 else "lost")
             for seat in range(4)])
    await db.close()
    db = await Database.open(path)
    try:
        lines = await storage.league_lines(db, CHAT, since=at(2026, 10, 1), until=at(2026, 11, 1))
        assert [(one.user_id, one.jifen) for one in lines] == [(1, 2), (3, 2), (2, -2), (4, -2)]
        assert (await storage.current_season(db, CHAT, at(2026, 12, 2))).name == "2026-12"
        assert [s.name for s in await storage.seasons_of(db, CHAT)] == ["2026-10", "2026-11", "2026-12"]
        await storage.update_table(db, game.table.table_id, status="finished")
        await storage.migrate_chat(db, CHAT, -100_888)  # the results move with the group
        assert len(await storage.league_lines(db, -100_888)) == 4 and await storage.league_lines(db, CHAT) == []
    finally:
        await db.close()


async def test_a_time_zone_already_past_the_month_ends_the_month_now(db: Database) -> None:
    """A London group switched to Asia/Shanghai at 20:00 on 31 December (already 1 January in Shanghai): its
    December season was given Shanghai's next first of the month, 1 February, and ran through January as
    「2026年12月赛季」, no January season and no end told on 1 January; now it ends at once and January's
    season starts."""
    hands = await hands_at(db)
    await storage.current_season(db, CHAT, at(2026, 12, 10, tz=LONDON))
    await storage.set_time_zone(db, CHAT, "Europe/London", at(2026, 12, 10, tz=LONDON))
    await hands.play(at(2026, 12, 20, tz=LONDON))
    switched = at(2026, 12, 31, 20, tz=LONDON)
    december = await storage.set_time_zone(db, CHAT, "Asia/Shanghai", switched)
    assert (december.name, december.ends_at) == ("2026-12", switched)
    january = await storage.current_season(db, CHAT, switched + 60)
    assert (january.name, january.starts_at, january.ends_at) == ("2027-01", switched, at(2027, 2, 1))
