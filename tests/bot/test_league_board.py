"""The league as the bot tells it: the ranking rule, the season watcher, the picture, the cache, /stats, /history.

The pictures of a fixture league (Chinese names; 1 and 20 players; a season and all time) are written to
``build/league-charts/`` to be looked at.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import storage
from bot.i18n import translator
from bot.league.board import ALL_TIME, CURRENT, League, leaderboard
from bot.league.chart import ChartData, Line, Row, drawable, png_size, render
from bot.league.history import history_text
from bot.league.personal import group_stats, private_stats
from bot.league.pictures import Stretch, chart_data
from bot.league.seasons import GRACE, SeasonWatcher, season_dates, season_title
from bot.league.standings import champions_text, rank, table_text
from bot.tasks import Supervisor
from storage import LeagueLine
from tests.storage.league_kit import CHAT, Hands, at, hands_at

SHOTS = Path(__file__).resolve().parents[2] / "build" / "league-charts"
NAMES = ("张伟", "王芳", "李娜", "刘洋", "陈静", "杨帆", "赵磊", "黄婷", "周杰", "吴敏", "徐璐", "孙琦", "马瑶",
         "朱婷婷", "胡歌🎸", "郭靖", "何炅", "高圆圆", "林俊杰", "Alice")


def line(uid: int, jifen: int, hands: int = 10, won: int = 5, matches: int = 0, escapes: int = 0,
         last: float = 0.0) -> LeagueLine:
    return LeagueLine(uid, f"p{uid}", hands, won, jifen, matches, escapes, 0, 0, 0, last)


def test_the_ranking_rule_breaks_ties_in_its_stated_order() -> None:
    lines = [
        line(1, 10, won=4),
        line(2, 10, won=5),  # more hands won
        line(3, 10, won=4, matches=1),  # as many hands won, a match more
        line(4, 10, won=4, escapes=1, last=1.0),  # an escape more than 1
        line(5, 10, won=4, last=5.0),  # level with 1 but got there later
        line(6, 10, won=4),  # level with 1 in everything: they share the place
        line(7, 99, hands=9),  # the best 积分, but under the minimum: below the line
        line(8, -3, hands=2),
    ]
    standings = rank(lines, [], 10)
    assert [(p.place, p.line.user_id) for p in standings.ranked] == [
        (1, 2), (2, 3), (3, 1), (3, 6), (5, 5), (6, 4)]
    assert [(p.place, p.line.user_id) for p in standings.unranked] == [(None, 7), (None, 8)]
    assert [c.user_id for c in standings.champions] == [2]
    assert rank(lines, [], 100).ranked == () and rank(lines, [], 100).champions == ()
    pairs = [storage.PartnershipStanding((1, 2), ("a", "b"), 5, 3, 8, 0, 0, 0, 0, 0, 0),
             storage.PartnershipStanding((3, 4), ("c", "d"), 4, 4, 20, 0, 0, 0, 0, 0, 0)]
    assert [p.user_ids for p in rank(lines, pairs, 10).pairs] == [(1, 2)]  # (3, 4) played under half of 10
    assert [p.user_ids for p in rank(lines, pairs, 8).pairs] == [(3, 4), (1, 2)]


def test_partnerships_level_in_积分_and_hands_won_share_the_place_and_the_title() -> None:
    """Two partnerships level in 积分 and hands won (the partnerships' whole rule): the table numbered them 1 and 2
    and the season's end named only the one whose Telegram ids were smaller its best partnership; now they share
    first place, as people level in all of their rule do, and both are named."""
    lines = [line(uid, 4) for uid in (1, 2, 3, 4)]
    pairs = [storage.PartnershipStanding((1, 2), ("a", "b"), 6, 4, 8, 0, 0, 0, 0, 0, 0),
             storage.PartnershipStanding((3, 4), ("c", "d"), 5, 4, 8, 0, 0, 0, 0, 0, 0),
             storage.PartnershipStanding((1, 3), ("a", "c"), 5, 3, 8, 0, 0, 0, 0, 0, 0)]
    standings = rank(lines, pairs, 10)
    tr = translator("en")
    told = champions_text(tr, standings, finished=True)
    assert told.endswith(" · Best partnerships: a &amp; b (+8), c &amp; d (+8)"), told
    zh = champions_text(translator("zh"), standings, finished=True)
    assert zh.endswith(" · 最佳搭档：a &amp; b（+8）、c &amp; d（+8）"), zh
    table = table_text(tr, "<b>League</b>", standings)
    assert "1. a &amp; b · +8" in table and "1. c &amp; d · +8" in table and "3. a &amp; c · +8" in table, table


def fixture_chart(players: int, hands: int = 240, lang: str = "zh", *, minimum: int | None = None,
                  finished: bool = False) -> ChartData:
    """A league of ``players`` with Chinese names over ``hands`` hands, made up deterministically: four of them
    play each hand, two win and two lose."""
    rng = random.Random(players)
    series: list[storage.SeriesPoint] = []
    totals = {uid: [0, 0, 0] for uid in range(1, players + 1)}  # 积分, hands, won
    for hand in range(hands):
        sitting = rng.sample(sorted(totals), min(4, players))
        levels = rng.choice((1, 1, 2, 3))
        for seat, uid in enumerate(sitting):
            won = seat % 2 == hand % 2
            series.append(storage.SeriesPoint(hand, float(hand), uid, levels if won else -levels))
            totals[uid][0] += levels if won else -levels
            totals[uid][1] += 1
            totals[uid][2] += int(won)
    lines = [LeagueLine(uid, NAMES[uid - 1], hands_, won, jifen, uid % 3, uid % 2, hands_ // 2, won // 2,
                        jifen // 2, float(uid)) for uid, (jifen, hands_, won) in totals.items()]
    if minimum is None:
        minimum = sorted(one.hands for one in lines)[min(2, players - 1)] if players > 2 else 0
    standings = rank(lines, [], minimum)  # the two who played least are below the line
    tr = translator(lang)
    drawn = [p.line.user_id for p in (standings.ranked or standings.everyone)]
    sampled = storage.sample_series(series, drawn, cap=800)
    return chart_data(tr, "联赛 · 2026年12月赛季", f"牌友群 · 12月1日 – 12月31日 · {hands} 局", standings, sampled,
                      finished=finished)


def test_a_season_under_way_has_a_leader_not_a_champion() -> None:
    """「冠军」 mid-season: the first place of a season under way (or all time) leads; a season over has champions."""
    under_way = fixture_chart(6)
    assert under_way.footer[0].startswith("领先：") and not any("冠军" in line for line in under_way.footer)
    assert fixture_chart(6, finished=True).footer[0].startswith("冠军：")
    assert fixture_chart(6, lang="en").footer[0].startswith("Leading: ")


def test_a_leaders_name_that_reads_like_markup_is_shown_as_typed() -> None:
    """The footer (the picture's and the league page's) took the champions' HTML back to text one entity too many:
    a name typed as 「a&lt;b」 read 「a<b」 there."""
    leader = LeagueLine(1, "a&lt;b &amp; c&gt;", 10, 8, 5, 0, 0, 0, 0, 0, 0.0)
    data = chart_data(translator("en"), "t", "s", rank([leader], [], 0), storage.sample_series([], [1], cap=10),
                      finished=False)
    assert data.footer[0] == "Leading: a&lt;b &amp; c&gt; (+5)"


def test_a_new_season_is_drawn_before_anyone_has_the_minimum() -> None:
    """After 8 hands with a minimum of 10 the chart was empty (「还没有人打满 10 局」): everyone's line is drawn
    while nobody is ranked, and the footer says why nobody leads."""
    data = fixture_chart(4, hands=8, minimum=10)
    assert len(data.lines) == 4 and all(len(line.points) == 8 for line in data.lines)
    assert data.footer[0] == "还没有人打满 10 局。"
    assert png_size(render(data))[0] == 1200


def test_the_last_hand_is_a_step_as_wide_as_any_other() -> None:
    """The last hand was only a tick at the chart's edge: each hand i is drawn from i − 1 to i."""
    from matplotlib.figure import Figure

    from bot.league.chart import _draw_lines

    data = fixture_chart(4, hands=8, minimum=0)
    axes = Figure().add_subplot()
    _draw_lines(axes, data, [(0.0, 0.0, 0.0, 1.0)] * len(data.lines))
    assert axes.get_xlim() == (0.0, 8.0)
    step = axes.lines[1]  # the first player's (the first line is the zero line)
    assert [int(x) for x in step.get_xdata()] == list(range(9))  # from no hand played to the last hand's end
    assert step.get_drawstyle() == "steps-pre"  # hand i's value is drawn from i − 1 to i
    assert [int(y) for y in step.get_ydata()] == [0, *data.lines[0].points]


@pytest.mark.parametrize("players", [1, 20])
def test_the_picture_of_a_fixture_league(players: int) -> None:
    data = fixture_chart(players)
    assert len(data.rows) == players and all(row.name in NAMES for row in data.rows)
    png = render(data)
    width, height = png_size(png)
    assert width == 1200
    assert (700 <= height <= 950) if players == 1 else (1400 <= height <= 1700)
    assert len(png) <= 200 * 1024
    SHOTS.mkdir(parents=True, exist_ok=True)
    (SHOTS / f"league-{players}-players.png").write_bytes(png)


def test_names_keep_only_what_the_fonts_can_draw() -> None:
    assert drawable("胡歌🎸") == "胡歌"
    assert drawable("🎸🎸") == "?"
    assert drawable("Zoë 张") == "Zoë 张"
    assert drawable("一二三四五六七八九十一二三四五六") == "一二三四五六七八九十一二三…"
    empty = ChartData("t", "s", "x", "y", ("#", "n", "a"), (), (Row(None, "x", ("1",)),), "below", ("f",), "none")
    assert png_size(render(empty))[0] == 1200
    assert png_size(render(ChartData("t", "s", "x", "y", ("#", "n", "a"), (Line("a", (1,)),),
                                     (Row(1, "a", ("1",), 0),), "below", ("f",))))[0] == 1200



def league_at(db: storage.Database, moment: list[float], public_url: str | None = None) -> League:
    return League(db, bot_username="chaodipi_bot", public_url=public_url, clock=lambda: moment[0])


async def november(db: storage.Database) -> Hands:
    """Ann and Cy beat Bo and Di three hands to one in November (Shanghai); Bo escapes once in December."""
    hands = await hands_at(db)
    for day, winner in ((3, 0), (4, 0), (5, 1), (6, 0)):
        await hands.play(at(2026, 11, day, 20), winner=winner,
                         notices=[{"kind": "red5_forced", "seat": 1, "trick": 4, "cards": "5H", "points": 50},
                                  {"kind": "red5_kept", "seat": 0, "trick": 25, "cards": "5H", "points": -50}])
    await storage.set_min_hands(db, CHAT, 2, at(2026, 11, 7))
    return hands


async def test_the_season_watcher_tells_a_seasons_end_once_with_its_picture(db: storage.Database) -> None:
    hands = await november(db)
    now = [at(2026, 11, 30, 23)]
    league = league_at(db, now)
    woken: list[int] = []
    watcher = SeasonWatcher(db, league.tell_season_end, woken.append, league.clock)
    watcher.hand_ended(CHAT)
    assert await watcher.step() == 0  # before midnight: nothing to tell, the season is there
    assert [s.name for s in await storage.seasons_of(db, CHAT)] == ["2026-11"]
    now[0] = at(2026, 12, 1) + GRACE + 1
    await hands.play(at(2026, 12, 1, 0, 0, 1), escaped=1)  # a hand that ended after midnight counts in December
    assert await watcher.step() == 1 and woken == [CHAT]
    assert await watcher.step() == 0  # told once
    told = await storage.pending_announcements(db)
    assert len(told) == 1 and told[0].kind == "season_end" and told[0].photo is not None
    assert png_size(told[0].photo)[0] == 1200 and len(told[0].photo) <= 200 * 1024
    text = told[0].text
    assert "2026年11月赛季结束了！" in text and "冠军：player1（+2）、player3（+2）" in text
    assert "逃跑 1 次" not in text  # Bo's escape was in December
    assert len(text) <= 1024
    # December: nobody else played; its end is told, January (nobody played) ends silently.
    watcher.hand_ended(CHAT)
    now[0] = at(2027, 2, 1) + GRACE + 1
    await storage.current_season(db, CHAT, now[0])
    assert await watcher.step() == 1
    december = (await storage.pending_announcements(db))[-1]
    assert december.text.split("\n")[:3] == ["🏁 <b>2026年12月赛季结束了！</b>", "🏆 没有冠军：没有人打满 2 局。",
                                             "未满 2 局，不排名：player2"]
    assert all(s.closed_at is not None for s in (await storage.seasons_of(db, CHAT))[:-1])


async def test_a_past_seasons_button_shows_its_name_without_bidi_or_control_characters(db: storage.Database) -> None:
    """A named season's name is an admin's words: its 「◀」 button (in the group and on the league page) drops
    the bidi controls and control characters, as every other place that shows it does."""
    hands = await hands_at(db)
    await storage.start_named_season(db, CHAT, "\u202eSpring\x07 cup", by=1, now=at(2026, 11, 1))
    await hands.play(at(2026, 11, 3, 20), winner=0)
    await storage.start_monthly_seasons(db, CHAT, by=1, now=at(2026, 11, 10))
    answer = await leaderboard(league_at(db, [at(2026, 11, 12)]), CHAT, "en", CURRENT)
    assert answer is not None
    assert [label for label, _key in answer.buttons] == ["◀ Spring  cup", "All time"]


async def test_leaderboard_answers_and_its_picture_is_kept_until_the_next_hand_ends(db: storage.Database) -> None:
    hands = await november(db)
    now = [at(2026, 12, 10)]
    league = league_at(db, now, public_url="https://example.org")
    await hands.play(at(2026, 12, 9), winner=1)
    await hands.play(at(2026, 12, 9, 1), winner=1)
    first = await leaderboard(league, CHAT, "en", CURRENT)
    assert first is not None and first.photo is not None and first.file_id is None
    assert first.stretch.current and first.stretch.season is not None
    assert [label for label, _key in first.buttons] == ["◀ November 2026 season", "All time"]
    assert first.link == ("📈 League page", f"https://t.me/chaodipi_bot?start=l{CHAT}")
    assert "1. player2 · +2" in first.text and "Ranked by 积分 with at least 2 hands" in first.text
    league.sent(CHAT, first.stretch, "en", "file-1", first.photo)
    again = await leaderboard(league, CHAT, "en", CURRENT)
    assert again is not None and again.file_id == "file-1" and again.photo is None
    past_key = first.buttons[0][1]
    past = await leaderboard(league, CHAT, "en", past_key)
    assert past is not None and past.photo is not None and not past.stretch.current
    assert [key for _label, key in past.buttons] == [CURRENT, ALL_TIME]
    league.sent(CHAT, past.stretch, "en", "file-past", past.photo)
    league.cache.hand_ended(CHAT)  # a hand ended: the season's picture is drawn again, November's is kept
    assert (await leaderboard(league, CHAT, "en", CURRENT)).photo is not None  # type: ignore[union-attr]
    assert (await leaderboard(league, CHAT, "en", past_key)).file_id == "file-past"  # type: ignore[union-attr]
    assert await leaderboard(league, CHAT, "en", "999") is None  # not a season of this group
    everything = await leaderboard(league, CHAT, "zh", ALL_TIME)
    assert everything is not None and "联赛 · 总榜" in everything.text
    now[0] = at(2027, 1, 3)  # nobody played in January yet: said in words, no picture
    empty = await leaderboard(league, CHAT, "zh", CURRENT)
    assert empty is not None and empty.photo is None and empty.file_id is None
    assert "本赛季还没有打完的局" in empty.text and [k for _l, k in empty.buttons][-1] == ALL_TIME


async def test_stats_in_a_group_and_in_private(db: storage.Database) -> None:
    await november(db)
    league = league_at(db, [at(2026, 11, 20)])
    zh = translator("zh")
    ann = await group_stats(league, zh, CHAT, 1)
    assert ann is not None
    assert ann.split("\n") == [
        "<b>player1</b>",
        "2026年11月赛季：第 1 名（共 4 人）",
        "积分 +2 · 共 4 局 · 赢 3 局 · 赢得比赛 0 场 · 逃跑 0",
        "总计：积分 +2 · 共 4 局 · 赢 3 局 · 第 1 名（共 4 人）",
        "做庄家方：4 局，胜率 75%，积分 +2",
        "做抓分方：0 局，胜率 —，积分 0",
        "最佳搭档：player3（同打 4 局，赢 3 局，积分 +4）",
        "逼红5 4 次 · 被逼红5 0 次 · 保红5 4 次",
    ]
    bo = await group_stats(league, translator("en"), CHAT, 2)
    assert bo is not None and "逼红5 0 · 被逼红5 4 · 保红5 0" in bo and "4 hands, 25% won" in bo
    assert await group_stats(league, zh, CHAT, 99) is None
    mine = await private_stats(league, translator("en"), 1)
    assert mine.startswith(f"<b>chat {CHAT}</b>\n") and "place 1 of 4" in mine
    assert await private_stats(league, translator("en"), 99) == "You have not finished a hand in any group yet."


async def test_history_lists_matches_with_a_replay_link_per_hand_where_the_web_app_is_on(
        db: storage.Database) -> None:
    hands = await november(db)
    await storage.update_match(db, hands.match_id, status="finished", winner_side=0, levels=(14, 9))
    with_app = league_at(db, [at(2026, 12, 1)], public_url="https://example.org")
    text, more = await history_text(with_app, translator("zh"), CHAT)
    assert more is None
    lines = text.split("\n")
    assert lines[:2] == ["<b>最近的对局</b>", ""]
    assert lines[2] == "<b>2026年11月6日 20:00</b> · 盐城 · 4 局"
    assert lines[3] == "北 player1 · 东 player2 · 南 player3 · 西 player4"
    assert lines[4].startswith("南北 打 A（第 1 圈） · 东西 打 9（第 1 圈） · 🏆 南北获胜：player1 &amp; player3")
    assert lines[5].startswith("回放：<a href=\"https://t.me/chaodipi_bot?start=r") and lines[5].count("<a ") == 4
    plain, _ = await history_text(league_at(db, [at(2026, 12, 1)]), translator("en"), CHAT)
    assert "start=r" not in plain and "N–S won: player1 &amp; player3" in plain
    assert (await history_text(with_app, translator("en"), -5))[0] == "No match has been played in this group yet."


async def test_history_names_the_lap_the_results_named(db: storage.Database) -> None:
    """「打 3（第 3 圈）」 where the result said 第 2 圈: the match's laps are stored as the engine's lap (from 1),
    as the tables service writes them after each hand (``SideLevel.lap``), and shown as they are."""
    hands = await november(db)
    await storage.update_match(db, hands.match_id, status="finished", winner_side=1, levels=(3, 14), laps=(2, 3))
    text, _ = await history_text(league_at(db, [at(2026, 12, 1)]), translator("zh"), CHAT)
    assert "南北 打 3（第 2 圈） · 东西 打 A（第 3 圈）" in text


def test_season_words() -> None:
    season = storage.Season(1, CHAT, "monthly", "2026-12", at(2026, 12, 1), at(2027, 1, 1), 10, None, None)
    spring = storage.Season(2, CHAT, "named", "春季赛", at(2027, 3, 5, 18), None, 10, 1, None)
    zh, en = translator("zh"), translator("en")
    assert (season_title(zh, season), season_title(en, season)) == ("2026年12月赛季", "December 2026 season")
    assert season_dates(zh, season, "Asia/Shanghai") == "12月1日 – 12月31日"
    assert season_dates(en, season, "Asia/Shanghai") == "Dec 1 – Dec 31"
    assert (season_title(en, spring), season_dates(zh, spring, "Asia/Shanghai")) == ("春季赛", "3月5日起")
    assert Stretch("all", None, True).until is None


async def test_a_group_that_looks_at_its_league_gets_its_new_picture_drawn_when_a_hand_ends(
        db: storage.Database) -> None:
    hands = await november(db)
    now = [at(2026, 11, 20)]
    tasks = Supervisor()
    league = League(db, bot_username="b", public_url=None, clock=lambda: now[0], tasks=tasks)
    first = await leaderboard(league, CHAT, "zh", CURRENT)
    assert first is not None and first.photo is not None
    league.hand_ended(CHAT)  # nobody asked yet: nothing is drawn ahead
    assert league.cache.get(CHAT, first.stretch, "zh") is None and tasks.get(f"league {CHAT}") is None
    league.asked(CHAT)
    await hands.play(at(2026, 11, 20, 1), winner=1)
    league.hand_ended(CHAT)
    task = tasks.get(f"league {CHAT}")
    assert task is not None
    await task
    kept = league.cache.get(CHAT, first.stretch, "zh")
    assert kept is not None and kept.png != first.photo  # the new hand is in it
    assert league.cache.board(CHAT, first.stretch, "zh") is not None
    now[0] += 7 * 3600  # six hours later nobody has looked: no more drawing ahead
    league.hand_ended(CHAT)
    assert tasks.get(f"league {CHAT}") is None
    await tasks.close(timeout=5)


async def test_a_group_that_lets_nobody_send_photos_gets_its_leaderboard_in_words() -> None:
    """/leaderboard in a group whose members (the bot with them) may send no photos: Telegram refused the picture
    ("not enough rights to send photos"), the refusal was logged and the group saw nothing at all; now the
    table is sent as text, with its buttons."""
    from types import SimpleNamespace

    from telegram.error import BadRequest

    from bot.handlers.league_buttons import send_board
    from bot.league.board import Answer

    sent: list[str] = []

    class Message:
        chat_id = CHAT
        message_thread_id, is_topic_message = None, False

        async def reply_photo(self, *args: object, **kwargs: object) -> object:
            raise BadRequest("Not enough rights to send photos to the chat")

        async def reply_html(self, text: str, **kwargs: object) -> object:
            sent.append(text)
            return None

    update = SimpleNamespace(effective_message=Message())
    wrote: list[int] = []  # the text went through: bot.muting hears the bot may write there (bot.topics too)
    context = SimpleNamespace(bot_data={"tables": SimpleNamespace(muting=SimpleNamespace(wrote=wrote.append),
                                                                  topics=SimpleNamespace(wrote=lambda *topic: None))})
    answer = Answer("<b>League</b>\n1. Ann · +3", Stretch("all", None, True), photo=b"png",
                    buttons=(("This season", CURRENT),))
    await send_board(update, context, answer, "en")  # type: ignore[arg-type]
    assert sent == ["<b>League</b>\n1. Ann · +3"] and len(wrote) == 1


async def test_a_button_from_a_text_table_to_a_picture_shows_the_table_in_words_where_photos_are_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same group: its leaderboard is text, and its 「All time」 button led to a new photo message, refused;
    the press was answered and nothing else happened.  Now the pressed message shows the table in words."""
    from datetime import datetime
    from types import SimpleNamespace

    from telegram import Chat, Message
    from telegram.error import BadRequest

    from bot import callbacks
    from bot.handlers import league_buttons
    from bot.league.board import Answer

    edited: list[str] = []

    class Refusing:
        async def send_photo(self, *args: object, **kwargs: object) -> object:
            raise BadRequest("Not enough rights to send photos to the chat")

    message = Message(5, datetime.now(), Chat(CHAT, "supergroup"), text="<b>League</b>")

    async def edit_text(text: str, **kwargs: object) -> bool:
        edited.append(text)
        return True

    class League:
        async def language(self, chat_id: int) -> str:
            return "en"

        def asked(self, chat_id: int) -> None:
            pass

    async def leaderboard(*args: object) -> Answer:
        return Answer("<b>All time</b>\n1. Ann · +3", Stretch("all", None, True), photo=b"png",
                      buttons=(("This season", CURRENT),))

    monkeypatch.setattr(league_buttons, "leaderboard", leaderboard)
    monkeypatch.setattr(Message, "edit_text", lambda self, text, **kwargs: edit_text(text, **kwargs))
    answered: list[object] = []

    async def answer(*args: object, **kwargs: object) -> None:
        answered.append(args)

    query = SimpleNamespace(from_user=SimpleNamespace(id=1), message=message, answer=answer)
    context = SimpleNamespace(bot_data={"league": League()}, bot=Refusing())
    data = callbacks.decode(callbacks.league("lb", "all"))
    assert data is not None
    await league_buttons.on_league_button(context, query, data, translator("en"))  # type: ignore[arg-type]
    assert answered == [()] and edited == ["<b>All time</b>\n1. Ann · +3"]


async def test_a_picture_uploaded_while_a_hand_ended_does_not_stand_in_for_the_new_one(db: storage.Database) -> None:
    """/leaderboard's picture was still uploading when a hand ended and the group's new picture was drawn: the
    old picture's file_id, once Telegram gave it, was kept with the new picture, and every /leaderboard until
    the next hand sent the old standings' picture under the new standings' caption.  Now a file_id is kept only
    with the picture that was sent."""
    hands = await november(db)
    now = [at(2026, 12, 10)]
    league = league_at(db, now)
    await hands.play(at(2026, 12, 9), winner=1)
    await hands.play(at(2026, 12, 9, 1), winner=1)
    uploading = await leaderboard(league, CHAT, "en", CURRENT)
    assert uploading is not None and uploading.photo is not None
    await hands.play(at(2026, 12, 9, 2), winner=1)  # meanwhile a hand ends, and the new picture is drawn
    league.hand_ended(CHAT)
    drawn = await leaderboard(league, CHAT, "en", CURRENT)
    assert drawn is not None and drawn.photo is not None and drawn.photo != uploading.photo
    league.sent(CHAT, uploading.stretch, "en", "file-old", uploading.photo)  # the upload of the old one ends
    asked = await leaderboard(league, CHAT, "en", CURRENT)
    assert asked is not None and asked.file_id is None and asked.photo == drawn.photo
    league.sent(CHAT, drawn.stretch, "en", "file-new", drawn.photo)
    assert (await leaderboard(league, CHAT, "en", CURRENT)).file_id == "file-new"  # type: ignore[union-attr]
