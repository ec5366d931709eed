"""Hidden bidding (暗炒, the default preset): nothing hidden is ever shown before it is public.

Four people play a hand of 盐城 in which two of them bid (hidden) and one
steals the kitty (hidden); a spectator and a player peek with the group's
🃏 button meanwhile.  Every version of every message the group and each
person ever saw (the fake keeps every edit) and every popup is checked
against what its reader could know at that moment: no card of a hidden bid,
of another player's hand or of the kitty before it is public.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from bot.labels import card_label
from engine.hand import Action
from engine.match import Match
from engine.ruleset import get_ruleset

from .botkit import bot_running, table_message
from .fake_telegram import FakeTelegram, FloodLimits
from .leaks import Timeline, cards_in, find_leaks
from .plans import find_plan
from .scenario import hand_button, play_hand, sit_from_group, start_match, wait_seated


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_hidden_bids_hands_and_kitty_never_leak(fake_telegram: FakeTelegram, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    server = fake_telegram
    alice = server.person("Alice", "alice", language_code="zh-hans", started=True)
    bob = server.person("Bob", "bob", language_code="en", started=True)
    carol = server.person("Carol", "carol", language_code="en", started=True)
    dave = server.person("Dave", "dave", language_code="zh-hans", started=True)
    eve = server.person("Eve", "eve", language_code="en", started=True)  # watches, does not play
    group = server.group("暗炒俱乐部", [alice, bob, carol, dave, eve])
    plan = find_plan("yancheng", bidders=2)
    assert plan.steal is not None
    timeline = Timeline()
    timeline.install(monkeypatch)

    async with bot_running(server, tmp_path / "t.db") as app:  # the group's message changes once a trick
        await alice.command(group, "newgame")  # the default preset: 盐城, hidden bids
        await wait_seated(server, app, group, alice)
        for seat, person in ((1, bob), (2, carol), (3, dave)):
            await sit_from_group(server, person, group, seat)
            await wait_seated(server, app, group, person)
        table = await start_match(server, app, alice, group, plan.seed_index)
        assert table.settings.hidden_bidding
        assert table.match is not None
        hand = table.match.hand
        people = {0: alice, 1: bob, 2: carol, 3: dave}

        # Both bids go in; then, before anyone passes, Eve and Alice peek from the group.
        await play_hand(server, table, people, plan, until=lambda h: len(h.bids) == 2)
        assert [b.seat for b in hand.bids] == plan.bidders
        peek = await server.wait_for(lambda: hand_button(table_message(group), "peek") and table_message(group),
                                     what="the table message of the match")
        eve_peek = await (await eve.press(peek, lambda b: "peek" in (b.callback_data or ""))).answer()
        assert eve_peek.show_alert and not cards_in(eve_peek.text or ""), eve_peek
        alice_peek = await (await alice.press(peek, lambda b: "peek" in (b.callback_data or ""))).answer()
        assert cards_in(alice_peek.text or "") and not cards_in(alice_peek.text or "") - Counter(hand.hands[0])

        # The group hears that two bids were made, without their cards.
        await server.wait_for(lambda: (table_message(group).text or "").count("亮主了") == 2,
                              what="the group told of two hidden bids")

        log = await play_hand(server, table, people, plan)
        assert log.steals == [plan.steal]
        assert hand.phase == "finished"
        await server.wait_for(lambda: any("第 1 局结束" in (m.text or "") for m in group.bot_messages()),
                              what="the result")
        # The kitty is public at the end: the result names it.
        result = next(m for m in group.bot_messages() if "第 1 局结束" in (m.text or ""))
        assert not Counter(hand.kitty) - cards_in(result.text or "")

        viewers: dict[int, int | None] = {group.id: None, eve.id: None}
        viewers.update({person.id: seat for seat, person in people.items()})
        leaks = find_leaks(server, timeline, hand, viewers)
        assert not leaks, "\n".join(map(str, leaks[:10]))
        # The check had something to check: card-showing versions before the end, in every chat.
        end = timeline.end(hand)
        for chat_id in (group.id, alice.id, bob.id, carol.id, dave.id):
            versions = [v for m in server.state.messages[chat_id].values() if m.from_bot for v in m.history
                        if v.at < end and cards_in((v.text or "") + str(v.reply_markup))]
            assert len(versions) >= (3 if chat_id == group.id else 10), (chat_id, len(versions))


def test_the_leak_check_finds_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker flags a hidden bid shown to another player and a hand's card shown to the group."""
    server = FakeTelegram()  # only its state is used: nothing is started
    reader = server.person("Reader", started=True)
    group = server.group("g", [reader])
    timeline = Timeline()
    timeline.install(monkeypatch)
    for seed in range(100):
        hand = Match(get_ruleset("yancheng"), seed).hand
        bid = [c for c in hand.hands[1] if c.rank == hand.level and c.suit is not None and c not in hand.hands[0]]
        if bid:
            break
    hand.apply(Action("bid", 1, (bid[0],)))
    secret = hand.hands[2][0]

    def show(chat_id: int, text: str) -> None:
        server.state.add_message({"chat_id": chat_id, "from_id": server.bot.id, "text": text}, time.monotonic())

    show(reader.id, f"You hold {card_label(hand.hands[0][0], 'en')}")  # fair
    show(reader.id, f"East bid {card_label(bid[0], 'en')}")            # a hidden bid, to another player
    show(group.id, f"West holds {card_label(secret, 'zh')}")          # a card of a hand, to the group
    leaks = find_leaks(server, timeline, hand, {reader.id: 0, group.id: None})
    assert sorted((leak.viewer, leak.text) for leak in leaks) == [
        ("seat 0", f"East bid {card_label(bid[0], 'en')}"),
        ("the group", f"West holds {card_label(secret, 'zh')}"),
    ]
