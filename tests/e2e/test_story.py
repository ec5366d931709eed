"""The table tells the whole story (decision 17), through the fake Bot API, in 简体中文 and English,
under hidden bidding (盐城 暗炒) and open bidding (南通, 扬州, 池州).

Four people sit at a table; once the match starts, its hands are rigged with
the deals of :mod:`tests.bot.story_cases` and the people make the same moves
through their private keyboards (select the cards, then Bid / Bury / Steal /
Play; the bidding window closes when everyone passes).  What the bot tells
the group, the popups and the private chats are compared with the texts of
:mod:`bot.story` rendered from the engine's own run of the same hands.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot import story
from bot.i18n import translator
from bot.model import Table
from engine.cards import Card
from engine.hand import Action, Hand
from engine.match import Match
from engine.notices import ThrowFailed
from engine.views import view_for
from tests.bot import story_cases as C
from tests.engine.rig import rig

from .botkit import bot_running, hand_message, table_message, tables
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import CallbackAnswer, Group, Person
from .plans import Move
from .scenario import (
    App,
    make_move,
    move_landed,
    press_hand,
    press_lobby,
    select_cards,
    sit_from_group,
    start_match,
    wait_seated,
)

TAGS = re.compile(r"<[^>]+>")
LANG_CODES = {"zh": "zh-hans", "en": "en"}


def plain(text: str) -> str:
    """What a reader sees of the bot's HTML."""
    return html.unescape(TAGS.sub("", text))


async def _table(server: FakeTelegram, app: App, lang: str, preset: str,
                 pace: str = "realtime") -> tuple[Table, Group, dict[int, Person]]:
    people = {seat: server.person(name, name.lower(), language_code=LANG_CODES[lang], started=True)
              for seat, name in enumerate(("Alice", "Bob", "Carol", "Dave"))}
    group = server.group("Story", list(people.values()))
    await people[0].command(group, "newgame", preset)
    await wait_seated(server, app, group, people[0])
    if pace != "realtime":
        for op, arg in (("set", ""), ("pace", pace), ("back", "")):
            await press_lobby(server, people[0], group, op, arg)
    for seat in (1, 2, 3):
        await sit_from_group(server, people[seat], group, seat)
        await wait_seated(server, app, group, people[seat])
    table = await start_match(server, app, people[0], group)
    return table, group, people


def _sel_cards(person: Person) -> Counter[Card]:
    message = hand_message(person)
    out: Counter[Card] = Counter()
    for button in message.all_buttons() if message is not None else ():
        parts = (button.callback_data or "").split(":")
        if len(parts) == 5 and parts[3] == "sel":
            out[Card.parse(parts[4][:-1])] += 1
    return out


async def _rig(server: FakeTelegram, app: App, table: Table, people: dict[int, Person],
               deal: C.Deal, match: Match | None = None) -> None:
    """Give the current hand (of ``match``, installed first if given) the case's deal; wait until each
    person's keyboard shows their cards."""
    async with table.lock:
        if match is not None:
            table.match = match
        assert table.match is not None and not table.match.hand.events
        rig(table.match.hand, [list(h) for h in deal[0]], list(deal[1]))
        tables(app).refresh(table, urgent=[0, 1, 2, 3])
    for seat, person in people.items():
        want = Counter(deal[0][seat])
        await server.wait_for(lambda p=person, w=want: _sel_cards(p) == w, what=f"{person.name}'s rigged hand")


async def _replay(server: FakeTelegram, table: Table, people: dict[int, Person], actions: list[Action],
                  until: Callable[[Action], bool] | None = None,
                  after_bid: Callable[[], Awaitable[None]] | None = None) -> tuple[list[Action], dict[int, list[str]]]:
    """The people make the hand's moves through their keyboards, up to (not including) the first action
    ``until`` picks; returns the actions left and the popups each seat got.  ``after_bid`` runs after
    each bid."""
    assert table.match is not None
    hand = table.match.hand
    popups: dict[int, list[str]] = {}
    for i, act in enumerate(actions):
        if until is not None and until(act):
            return actions[i:], popups
        seat = act.seat
        if act.kind == "close":  # the window closes when everyone has passed
            while hand.phase == "bidding":
                waiting = next(s for s in range(4) if s not in hand.passed)
                await make_move(server, people[waiting], table, waiting, None, "bid")
            continue
        assert seat is not None
        person = people[seat]
        if act.kind in ("bid", "steal"):
            await make_move(server, person, table, seat, Move(seat, act.cards, act.trump), act.kind)
            if act.kind == "bid" and after_bid is not None:
                await after_bid()
        elif act.kind in ("pass", "pass_steal"):
            await make_move(server, person, table, seat, None, "bid" if act.kind == "pass" else "steal")
        else:
            events = len(hand.events)
            await select_cards(server, person, table, seat, act.cards)
            answer: CallbackAnswer = await press_hand(server, person, table, seat, act.kind)
            if answer.text:
                popups.setdefault(seat, []).append(answer.text)
            await move_landed(server, table, hand, events)
    return [], popups


def _turning_point(case: C.Case, number: int) -> int | None:
    """The index of the action after which the trump's story is public: the end of the steal rounds
    under hidden bidding (the reveal), or the flip of the kitty."""
    hand = Hand(case.record.setup if number == len(case.deals) - 1 else case.match.records[number].setup)
    rig(hand, [list(h) for h in case.deals[number][0]], list(case.deals[number][1]))
    for i, act in enumerate(case.actions[number]):
        hand.apply(act)
        if hand.flipped or (hand.ruleset.hidden_bidding and hand.bid_history):
            return i
    return None


def _trump_story(text: str) -> bool:
    return any(line.startswith(("亮主经过", "How the trump was bid", "无人亮主，翻底", "Nobody bid: the kitty"))
               for line in text.split("\n"))


def _group_texts(group: Group) -> list[str]:
    return [m.text or "" for m in group.bot_messages()[1:]]  # after the table message


async def _told(server: FakeTelegram, group: Group, text: str) -> None:
    await server.wait_for(lambda: text in _group_texts(group), what=f"the group told {text!r}")


CASES = {
    # name: (builder, preset)
    "failed_steal": C.failed_steal,
    "throw_failed": C.throw_failed,
    "red5_forced": C.red5_forced,
    "red5_kept": C.red5_kept,
    "heaven_and_earth": C.heaven_and_earth,
    "lap_wrap": C.lap_wrap,
    "open_bids": C.open_bids,
    "flip_open": C.flip_open,
    "flip_hidden": C.flip_hidden,
    "throw_failed_open": lambda: C.throw_failed("nantong"),
    "must_play_j": C.must_play_j,
    "stopped_at_a": C.stopped_at_a,
    "climb_ends_at_a": C.climb_ends_at_a,
    "flag_failed": C.flag_failed,
    "chizhou_ace_pair": C.chizhou_ace_pair,
}


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("name", list(CASES))
async def test_each_moment_is_told(fake_telegram: FakeTelegram, tmp_path: Path, name: str, lang: str) -> None:
    server = fake_telegram
    case = CASES[name]()
    ruleset = case.match.ruleset
    tr = translator(lang)
    async with bot_running(server, tmp_path / "t.db") as app:
        table, group, people = await _table(server, app, lang, ruleset.name)
        assert table.settings.ruleset() == ruleset
        match = Match(ruleset, case.match.seed, case.start)
        for number, (deal, actions) in enumerate(zip(case.deals, case.actions)):
            await _rig(server, app, table, people, deal, match if number == 0 else None)
            hand = match.hand
            old_messages = {seat: hand_message(person) for seat, person in people.items()}
            rest = actions

            async def bid_told(h: Hand = hand) -> None:  # open bidding: each bid in its word, as it happens
                history = view_for(h, None).bid_history
                if ruleset.hidden_bidding or not history:
                    return
                words = story.bid_phrase(tr, history[-1], first_word=True)
                await server.wait_for(lambda: words in (table_message(group).text or ""),
                                      what=f"the table message telling the bid {words}")
            turn = _turning_point(case, number)
            if turn is not None:  # the reveal, or the flip: nothing of it before, then told at once
                head, rest = actions[:turn], actions[turn:]
                await _replay(server, table, people, head, after_bid=bid_told)
                assert not any(_trump_story(t) for t in _group_texts(group) + [table_message(group).text or ""])
                await _replay(server, table, people, rest[:1])
                rest = rest[1:]
                view = view_for(hand, None)
                if view.flipped or len(view.bid_history or ()) == 1:  # told in the table message
                    line = view.bid_history and story.reveal(tr, view.bid_history, view.trump) if not view.flipped \
                        else story.flip(tr, view.flipped, view.flipped_by, view.flip_decider, view.trump)
                    assert line
                    await server.wait_for(lambda t=line: t in (table_message(group).text or "").split("\n"),
                                          what="the table message telling how the trump was set")
                elif view.bid_history:  # a contested reveal is a message of its own
                    await _told(server, group, story.reveal(tr, view.bid_history, view.trump))
            rest, popups = await _replay(server, table, people, rest, after_bid=bid_told)
            engine_hand = case.match.records[number]
            record = match.records[number]
            assert record.moves == engine_hand.moves and record.result == engine_hand.result
            expected = story.result_text(tr, record, ruleset.laps, hand.tricks[-1])
            await _told(server, group, plain(expected))
            texts = _group_texts(group)
            for notice in hand.notices:
                said = story.notice_text(tr, notice, hand.dealer_side)
                assert said in texts
                assert texts.index(said) < texts.index(plain(expected))  # as it happened, before the result
                if isinstance(notice, ThrowFailed):  # and the thrower had it in a popup
                    assert popups.get(notice.seat) == [said]
            for seat, person in people.items():  # everyone has the result in one line, privately
                line = story.private_result(tr, record, seat, ruleset.laps)
                await server.wait_for(lambda p=person, t=line: any(m.text == f"{group.chat.title} · {t}"
                                                                              for m in p.bot_private_messages()),
                                      what=f"{person.name}'s result line")
            if not match.over:  # the next hand's private message is a new message: it notifies
                for seat, person in people.items():
                    await server.wait_for(lambda p=person, old=old_messages[seat]: hand_message(p) is not None
                                          and old is not None and hand_message(p).message_id != old.message_id,
                                          what=f"{person.name}'s new hand message")


async def _play_case(server: FakeTelegram, app: App, table: Table, people: dict[int, Person],
                     case: C.Case) -> dict[int, int]:
    """Install the case's match on the table and play its first hand through the keyboards; the ids of
    the hand messages it was played on."""
    match = Match(case.match.ruleset, case.match.seed, case.start)
    await _rig(server, app, table, people, case.deals[0], match)
    played_on = {}
    for seat, person in people.items():
        message = hand_message(person)
        assert message is not None
        played_on[seat] = message.message_id
    await _replay(server, table, people, case.actions[0])
    return played_on


def _newer_hand(person: Person, old: int) -> bool:
    message = hand_message(person)
    return message is not None and message.message_id > old


@pytest.mark.long
@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_at_relaxed_pace_the_next_hand_waits_for_next_hand(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                 lang: str) -> None:
    """After the result the table shows 「下一局」; nothing of the next hand is dealt to anyone until it is
    pressed; then everyone gets the next hand as a new message."""
    server = fake_telegram
    case = C.must_play_j()
    async with bot_running(server, tmp_path / "t.db") as app:
        table, group, people = await _table(server, app, lang, case.match.ruleset.name, pace="relaxed")
        old = await _play_case(server, app, table, people, case)
        next_label = "▶️ 下一局" if lang == "zh" else "▶️ Next hand"
        await server.wait_for(lambda: next_label in [b.text for b in table_message(group).all_buttons()],
                              what="the 「下一局」 button")
        text = table_message(group).text or ""
        assert ("点「下一局」" in text) if lang == "zh" else ("presses 「Next hand」" in text), text
        assert table.between_hands is not None and not tables(app).waiting_humans(table)
        # The result is out, and every private line too; still no keyboard of the next hand anywhere.
        for seat, person in people.items():
            line = story.private_result(translator(lang), case.record, seat, case.match.ruleset.laps)
            await server.wait_for(lambda p=person, t=line: any(m.text == f"{group.chat.title} · {t}"
                                                                              for m in p.bot_private_messages()),
                                  what=f"{person.name}'s result line")
        assert not any(_newer_hand(p, old[s]) for s, p in people.items())
        # /hand meanwhile: Bob is told when the next hand comes, and still sees nothing of it.
        await people[1].command(group, "hand")
        note = "点「下一局」" if lang == "zh" else "presses 「Next hand」"
        await server.wait_for(lambda: any(note in (m.text or "") for m in people[1].bot_private_messages()),
                              what="Bob told when the next hand comes")
        assert not any(_newer_hand(p, old[s]) for s, p in people.items())
        pressed = await (await people[2].press(table_message(group), next_label)).answer()
        assert not pressed.show_alert, pressed.text
        for seat, person in people.items():
            await server.wait_for(lambda p=person, o=old[seat]: _newer_hand(p, o), what=f"{person.name}'s next hand")
        assert table.between_hands is None
        await server.wait_for(lambda: next_label not in [b.text for b in table_message(group).all_buttons()],
                              what="the button gone once the hand is dealt")


@pytest.mark.fake_telegram(limits=FloodLimits.unlimited())
async def test_at_real_time_pace_the_next_hand_follows_a_pause(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """The next hand starts by itself after the pause, with new hand messages (what the table message says
    meanwhile is checked in tests/bot/test_story.py)."""
    server = fake_telegram
    case = C.must_play_j()
    async with bot_running(server, tmp_path / "t.db", hand_pause=1.0) as app:
        table, group, people = await _table(server, app, "zh", case.match.ruleset.name)
        old = await _play_case(server, app, table, people, case)
        for seat, person in people.items():
            await server.wait_for(lambda p=person, o=old[seat]: _newer_hand(p, o), what=f"{person.name}'s next hand")
        assert table.between_hands is None
