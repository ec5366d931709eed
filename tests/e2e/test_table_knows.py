"""Everyone at the table knows where the game stands: whose turn it is, and which hand message is live.

Two people and two AI seats play a hand through their keyboards.  Whenever
a person has been at their turn for a while (the real-time pace's
:data:`~bot.model.THINKING`, shortened here), the group's table message and
the waiting person's own message both name the person to move; at the
hand's end the old hand messages lose their buttons and say the hand is
over.  Quick moves cost no extra calls (``tests/e2e/test_budget.py``).
At the match's end the last hand message says the match is over, and
promises no next hand.  A /stop mid-hand, or the bot removed from the group,
leaves no live keyboard and no 「轮到你了」 in anyone's private chat; an away
notice's 「I'm back」 goes when the match ends.  A table paused for want of
anyone present says so in the group, not that bidding is open.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from bot.model import THINKING, Table
from bot.tables.turns import set_timer

from .botkit import bot_running, hand_message, settled, table_message, tables
from .endings import find_ending, store_table
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group, MessageView, Person
from .scenario import (
    App,
    announced,
    choose_setting,
    fill_with_ai,
    play_hand,
    play_until,
    press_hand,
    press_lobby,
    start_match,
    table_of_one,
    up_to_date_hand,
    wait_seated,
)

THINK = 1.0


async def _nudged(server: FakeTelegram, app: App, ann: Person, group: Group) -> Table:
    """Ann and three casual AI seats at a relaxed table: an AI led, and her turn's 「轮到你了」 came."""
    table = await table_of_one(server, app, ann, group, seed_index=3, pace="relaxed")
    await play_until(server, table, {0: ann}, lambda h: h.phase == "playing" and h.turn == 0
                     and bool(h.current))  # an AI led: her turn began with someone else's move
    await server.wait_for(lambda: any("Your turn" in (m.text or "") for m in ann.bot_private_messages()),
                          what="Ann nudged")
    await settled(server, app)
    return table


def _closed_in_private(person: Person) -> list[str]:
    """The person's private messages, once their table closed: no 「轮到你了」, no keyboard, and their hand
    message says the table is closed."""
    texts = [m.text or "" for m in person.bot_private_messages()]
    assert not any("Your turn" in t for t in texts), texts
    keyboards = [m for m in person.bot_private_messages() if m.buttons]
    assert not keyboards, [m.text for m in keyboards]
    assert any("This table is closed." in t for t in texts), texts
    return texts


def _names(text: str | None, who: str) -> bool:
    """True if the message says that ``who`` is to play."""
    return re.search(rf"{who}\b[^\n]* to play", text or "") is not None


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_group_and_a_waiting_player_see_whose_turn_it_is_while_someone_thinks(
        fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(THINKING, "realtime", THINK)
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    bo = server.person("Bo", None, language_code="en", started=True)
    group = server.group("Slow thinkers", [ann, bo])
    people: dict[int, Person] = {0: ann, 2: bo}
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        assert not (await press_lobby(server, bo, group, "sit", "2")).show_alert
        await wait_seated(server, app, group, bo)
        await fill_with_ai(server, ann, group, 2)
        await choose_setting(server, ann, group, "strength", "casual")
        table = await start_match(server, app, ann, group, seed_index=3)
        assert table.match is not None
        for trick in (1, 4, 7, 10):
            hand = await play_until(server, table, people, lambda h, k=trick: h.phase == "playing"  # type: ignore[misc]
                                    and len(h.tricks) >= k and h.turn in people)
            assert hand.turn is not None
            name, waiting = people[hand.turn].user.first_name, people[2 - hand.turn]
            # The mover thinks: the group and the other person are told whose turn it is.
            await server.wait_for(lambda: _names(table_message(group).text, name), timeout=THINK + 10,
                                  what="the group told whose turn it is")
            await server.wait_for(lambda: (m := hand_message(waiting)) is not None and _names(m.text, name),
                                  timeout=THINK + 10, what="the waiting player told whose turn it is")
        number = hand.setup.number
        await play_hand(server, table, people)
        # The hand is over: each person's hand message has lost its buttons and says so.
        for person in people.values():
            await server.wait_for(lambda p=person: _retired(p, number), what="a retired hand message")  # type: ignore[misc]


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_last_hand_message_of_a_match_promises_no_next_hand(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The hand that ends the match: its message loses its buttons and says the match is over, not that the
    next hand comes as a new message (none comes)."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Last hand", [alice])
    db_path = tmp_path / "t.db"
    await store_table(find_ending("nantong", match_point=True), db_path, group.id, "Last hand", alice.id, "Alice",
                      monkeypatch)
    async with bot_running(server, db_path, ai_delay=3600.0) as app:
        table = tables(app).in_chat(group.id)
        assert table is not None and table.match is not None
        played_on = (await up_to_date_hand(server, alice, table, 0)).message_id
        answer = await press_hand(server, alice, table, 0, "go", "0")  # her last card ends the match
        assert not answer.show_alert, answer.text
        await server.wait_for(lambda: announced(group, "win the match!"), what="the end of the match")
        await settled(server, app)
        assert table.match.over
        last = next(m for m in alice.bot_private_messages() if m.message_id == played_on)
        assert not last.buttons and "Hand 1 is over" in (last.text or ""), last.text
        assert "next hand" not in (last.text or ""), last.text
        assert "and so is the match" in (last.text or ""), last.text


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_stop_mid_hand_leaves_no_keyboard_and_no_your_turn_in_private(fake_telegram: FakeTelegram,
                                                                             tmp_path: Path) -> None:
    """At the relaxed pace Ann is nudged 「轮到你了」 when her turn comes; the table is stopped meanwhile: her
    nudge goes (a chat's last message never says it is her turn when it is not), and her hand message loses
    its buttons and says the table is closed (its buttons would only answer that the table is closed)."""
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    group = server.group("Stopped", [ann])
    async with bot_running(server, tmp_path / "t.db") as app:
        await _nudged(server, app, ann, group)
        await ann.command(group, "stop")
        await server.wait_for(lambda: tables(app).in_chat(group.id) is None, what="the table closed")
        await settled(server, app)
        _closed_in_private(ann)


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_leaving_at_ones_turn_leaves_no_your_turn_in_private(fake_telegram: FakeTelegram,
                                                                   tmp_path: Path) -> None:
    """At the relaxed pace Ann is nudged 「轮到你了」 when her turn comes, and she leaves the table instead
    (/leave, the escape confirmed): her nudge goes with her seat (it stayed as her chat's last message,
    saying it was her turn at a seat the AI holds)."""
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    group = server.group("Leaving", [ann])
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await _nudged(server, app, ann, group)
        await ann.command(group, "leave")
        question = await server.wait_for(
            lambda: next((m for m in reversed(group.bot_messages())
                          if any(":esc:" in (b.callback_data or "") for b in m.all_buttons())), None),
            what="the escape question")
        answer = await (await ann.press(question, lambda b: ":esc:" in (b.callback_data or ""))).answer()
        assert not answer.show_alert, answer.text
        await server.wait_for(lambda: table.seat_of(ann.id) is None, what="Ann's escape")
        await settled(server, app)
        texts = [m.text or "" for m in ann.bot_private_messages()]
        assert not any("Your turn" in t for t in texts), texts


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_leaving_between_hands_while_away_takes_the_away_notice_along(fake_telegram: FakeTelegram,
                                                                           tmp_path: Path) -> None:
    """Ann ran out of time (the AI plays for her, her notice offers 「I'm back」) and leaves the table in the
    pause between hands: the notice goes (it stayed, its 「I'm back」 for a seat the AI holds from then on)."""
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    bob = server.person("Bob", None, language_code="en", started=True)
    group = server.group("Away, then gone", [ann, bob])
    async with bot_running(server, tmp_path / "t.db") as app:
        await ann.command(group, "newgame")
        await wait_seated(server, app, group, ann)
        assert not (await press_lobby(server, bob, group, "sit", "2")).show_alert
        await wait_seated(server, app, group, bob)
        await fill_with_ai(server, ann, group, 2)
        await choose_setting(server, ann, group, "strength", "casual")
        await choose_setting(server, ann, group, "pace", "relaxed")
        table = await start_match(server, app, ann, group, seed_index=3)
        people = {0: ann, 2: bob}
        await play_until(server, table, people, lambda h: h.phase == "playing" and h.turn == 0)
        await settled(server, app)
        async with table.lock:  # her deadline passes now
            table.deadline = time.time() - 1
            set_timer(tables(app), table)
        await server.wait_for(lambda: any("I'm back" in b.text for m in ann.bot_private_messages()
                                          for b in m.all_buttons()), what="the away notice")
        await play_hand(server, table, {2: bob})
        await server.wait_for(lambda: table.between_hands is not None, what="the pause between hands")
        await ann.command(group, "leave")
        await server.wait_for(lambda: table.seat_of(ann.id) is None, what="Ann gone")
        await settled(server, app)
        offers = [m.text for m in ann.bot_private_messages() if any("I'm back" in b.text for b in m.all_buttons())]
        assert not offers, offers


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_bot_removed_mid_hand_leaves_no_keyboard_and_no_your_turn_in_private(fake_telegram: FakeTelegram,
                                                                                      tmp_path: Path) -> None:
    """As at a /stop mid-hand, when the bot is removed from the group: Ann's nudge goes, her hand message loses
    its buttons and says the table is closed, and she is told why (the removal kept both, so her chat went on
    saying 「轮到你了」 over a keyboard whose every press answered that the table is closed)."""
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    group = server.group("Removed", [ann])
    async with bot_running(server, tmp_path / "t.db") as app:
        await _nudged(server, app, ann, group)
        group.remove_bot(by=ann, tell=True)
        await server.wait_for(lambda: tables(app).in_chat(group.id) is None, what="the table closed")
        await settled(server, app)
        texts = _closed_in_private(ann)
        assert texts[-1] == "I was removed from Removed, so the table there is closed. The hands already played " \
                            "are kept.", texts


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_stop_between_hands_tells_the_players_no_next_hand_comes(fake_telegram: FakeTelegram,
                                                                       tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The table reads hand 1's result (each hand message says the next hand comes as a new message) and is
    stopped: each player is told privately that the table is closed, not left waiting for a hand."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Pause then stop", [alice])
    db_path = tmp_path / "t.db"
    await store_table(find_ending("nantong"), db_path, group.id, "Pause then stop", alice.id, "Alice", monkeypatch)
    async with bot_running(server, db_path, hand_pause=3600.0) as app:
        table = tables(app).in_chat(group.id)
        assert table is not None
        answer = await press_hand(server, alice, table, 0, "go", "0")  # her last card ends hand 1
        assert not answer.show_alert, answer.text
        await server.wait_for(lambda: _retired(alice, 1), what="hand 1's message retired")
        await settled(server, app)
        await alice.command(group, "stop")
        await server.wait_for(lambda: tables(app).in_chat(group.id) is None, what="the table closed")
        await settled(server, app)
        last = alice.bot_private_messages()[-1].text or ""
        assert last == "Pause then stop · This table is closed.", last


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_the_away_notice_goes_when_the_match_ends(fake_telegram: FakeTelegram, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Alice runs out of time on the match's last card: the AI plays it for her and the match ends.  Her
    「I'm back」 notice goes with it (it stayed, and pressing it answered 'That table is closed.')."""
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="en", started=True)
    group = server.group("Away at the end", [alice])
    db_path = tmp_path / "t.db"
    await store_table(find_ending("nantong", match_point=True), db_path, group.id, "Away at the end", alice.id,
                      "Alice", monkeypatch)
    async with bot_running(server, db_path) as app:
        table = tables(app).in_chat(group.id)
        assert table is not None and table.match is not None
        await up_to_date_hand(server, alice, table, 0)
        async with table.lock:  # her deadline passes now
            table.deadline = time.time() - 1
            set_timer(tables(app), table)
        await server.wait_for(lambda: announced(group, "win the match!"), what="the end of the match")
        await settled(server, app)
        assert table.match.over
        offers = [m.text for m in alice.bot_private_messages() if any("I'm back" in b.text for b in m.all_buttons())]
        assert not offers, offers


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_a_table_paused_for_want_of_anyone_says_so_once_the_pause_between_hands_is_over(
        fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """Ann, with three AI seats, runs out of time: the AI finishes the hand for her and the table pauses.  Once
    the pause between hands is over, the group's table message says the table is paused, not that bidding is
    open (it did, with nothing moving: no clock, no AI)."""
    server = fake_telegram
    ann = server.person("Ann", None, language_code="en", started=True)
    group = server.group("Nobody here", [ann])
    paused = ("The table is paused: nobody is left playing. It resumes when someone comes back (/hand, or "
              "「I'm back」) or takes a seat (/join); /stop closes it.")
    async with bot_running(server, tmp_path / "t.db") as app:
        table = await table_of_one(server, app, ann, group, seed_index=3)
        await play_until(server, table, {0: ann}, lambda h: h.phase == "playing" and h.turn == 0)
        async with table.lock:  # her deadline passes now
            table.deadline = time.time() - 1
            set_timer(tables(app), table)
        await server.wait_for(lambda: table.paused and table.between_hands is None, timeout=30,
                              what="the pause between hands over, the table paused")
        await settled(server, app)
        text = table_message(group).text or ""
        assert "Bidding is open" not in text and paused in text, text


def _retired(person: Person, number: int) -> MessageView | None:
    for message in person.bot_private_messages():
        if f"Hand {number} is over" in (message.text or "") and not message.buttons:
            return message
    return None
