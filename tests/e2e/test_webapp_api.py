"""The web app's API against the real bot: who may ask, what each seat sees, and that the app and keyboard agree.

Four people sit at a table; the bot serves the web app (``CHAODIPI_PUBLIC_URL``
set) on loopback.  Requests carry ``initData`` signed as Telegram signs it.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.labels import card_label
from bot.model import Table, TableSettings
from bot.render_private import one_tap_bids
from bot.webapp.initdata import sign
from engine.cards import RED_FIVE, Card
from engine.hand import Action, Hand
from engine.match import Match

from .appkit import PUBLIC_URL, AppClient, app_base, init_data_for, play_through_app, stream, webapp_running
from .botkit import hand_message, settled
from .fake_telegram import FakeTelegram, FloodLimits
from .fake_telegram.people import Group, Person
from .leaks import cards_in
from .plans import Plan, find_plan, rng_for
from .scenario import press_hand, select_cards, sit_from_group, start_match, wait_seated

pytestmark = pytest.mark.fake_telegram(limits=FloodLimits.unlimited())



class Table4:
    """Four people at a table whose match has started, each with their web app."""

    def __init__(self, server: FakeTelegram, app: Any, group: Group, people: list[Person], table: Table,
                 clients: list[AppClient]) -> None:
        self.server, self.app, self.group, self.people, self.table, self.clients = (
            server, app, group, people, table, clients)

    @property
    def hand(self) -> Hand:
        """The hand being played."""
        assert self.table.match is not None
        return self.table.match.hand


def red_five_pair_deal() -> int:
    """A ``Tables.rng`` seed whose first deal gives someone both ♥5 (盐城: a bid whose trump the bidder picks)."""
    ruleset = TableSettings("yancheng").ruleset()
    for n in range(500):
        hands = Match(ruleset, rng_for(n).getrandbits(62)).hand.hands
        if any(Counter(cards)[RED_FIVE] == 2 for cards in hands):
            return n
    raise AssertionError("no deal with a red-five pair")


@pytest.fixture
async def four(request: pytest.FixtureRequest, fake_telegram: FakeTelegram, tmp_path: Path) -> AsyncIterator[Table4]:
    """Four people seated (N, E, S, W) and the first hand dealt: the deal of ``find_plan("yancheng")``, or
    of ``@pytest.mark.deal(seed_index)``."""
    server = fake_telegram
    people = [server.person(name, name.lower(), language_code=lang, started=True)
              for name, lang in (("Alice", "zh-hans"), ("Bob", "en"), ("Carol", "zh-hans"), ("Dave", "en"))]
    group = server.group("牌桌", people)
    plan = find_plan("yancheng", bidders=1)
    marker = request.node.get_closest_marker("deal")
    if marker is not None:
        plan = Plan(marker.args[0])
    async with webapp_running(server, tmp_path / "t.db", group_interval=0.5) as app:
        await people[0].command(group, "newgame", "yancheng")
        await server.wait_for(lambda: group.bot_messages(), what="the table message")
        await wait_seated(server, app, group, people[0])
        for seat in (1, 2, 3):
            await sit_from_group(server, people[seat], group, seat)
            await wait_seated(server, app, group, people[seat])
        table = await start_match(server, app, people[0], group, plan.seed_index)
        async with aiohttp.ClientSession() as session:
            clients = [AppClient(session, app_base(app), init_data_for(server, p)) for p in people]
            four = Table4(server, app, group, people, table, clients)
            four.plan = plan  # type: ignore[attr-defined]
            yield four


# --- who may ask ----------------------------------------------------------------------------------------

async def test_forged_expired_foreign_and_replayed_requests_are_refused_and_change_nothing(four: Table4) -> None:
    table, alice, server = four.table, four.clients[0], four.server
    person = four.people[0]
    user = {"id": person.id, "first_name": person.name}
    signed = init_data_for(server, person)
    forged = signed.replace("Alice", "Mallory")  # the user changed after signing
    expired = sign(server.token, user, auth_date=int(time.time()) - 2 * 86400)
    other_bot = sign("999999:another-bots-token", user)
    events_before = len(four.hand.events)
    base = f"/app/api/tables/{table.id}"
    for init_data in ("", forged, expired, other_bot, signed.split("&hash=")[0]):
        client = AppClient(alice.session, alice.base, init_data)
        assert (await client.get(base))[0] == 401
        assert (await client.get("/app/api/tables"))[0] == 401
        status, _ = await client.post(base + "/act", {"op": "pass", "cards": [], "nonce": "n" * 16,
                                                      "version": table.version(0)})
        assert status == 401
        async with stream(client, table.id) as events:
            await server.wait_for(lambda: events.status is not None, what="the stream's answer")
        assert events.status == 401 and not events.states

    # Someone not seated, another table's id: 403.
    stranger = server.person("Eve", "eve", started=True)
    eve = AppClient(alice.session, alice.base, init_data_for(server, stranger))
    assert (await eve.get(base))[0] == 403
    assert (await eve.act(table.id, "pass", version=table.version(0)))[0] == 403
    assert (await alice.get(f"/app/api/tables/{table.id + 1}"))[0] == 403

    # A captured move sent again: the first goes through, the replay is refused.
    body = {"op": "pass", "cards": [], "trump": None, "version": table.version(0), "nonce": "0123456789abcdef"}
    status, answer = await alice.post(base + "/act", body)
    assert status == 200 and answer["ok"], answer
    after_one = len(four.hand.events)
    status, _ = await alice.post(base + "/act", body)
    assert status == 403
    assert len(four.hand.events) == after_one == events_before + 1


# --- what each seat sees ------------------------------------------------------------------------------

def _allowed(hand: Hand, seat: int, held: set[Card]) -> set[Card]:
    """The cards a seat may know now: any it held in this hand, and every card shown to all."""
    known = set(held) | set(hand.hands[seat])
    known |= {card for _seat, card in hand.flipped}
    for trick in hand.tricks:
        for _s, cards in trick.plays:
            known |= set(cards)
    for _s, cards in hand.current:
        known |= set(cards)
    hidden = hand.ruleset.hidden_bidding and not hand.trump_decided
    for bid in hand.bids:
        if not hidden or bid.seat == seat:
            known |= set(bid.cards)
    if hand.over:
        known |= set(hand.kitty)
    return known


def _cards_of(state: dict[str, Any]) -> set[Card]:
    """Every card a state names: its hand, every card of its view, and the labels in its texts."""
    found = {Card.parse(c) for c in state["hand"]}
    view = state["view"] or {}

    def tokens(value: Any) -> Iterable[str]:
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for key, item in value.items():
                if key not in ("phase", "preset", "reason", "kind", "step", "trump", "my_bid_trump"):
                    yield from tokens(item)
        elif isinstance(value, list):
            for item in value:
                yield from tokens(item)

    for text in tokens(view):
        for token in text.split():
            try:
                found.add(Card.parse(token))
            except ValueError:
                pass
    for text in (state["info"], state["last_result"] or ""):
        found |= set(cards_in(text))
    return found


async def test_each_seat_sees_only_its_own_cards_over_a_whole_hand(four: Table4) -> None:
    hand, table, server = four.hand, four.table, four.server
    held: list[set[Card]] = [set(hand.hands[s]) for s in range(4)]
    allowed: dict[tuple[int, int], list[set[Card]]] = {}
    checked: Counter[str] = Counter()

    def step() -> None:
        for s in range(4):
            held[s] |= set(hand.hands[s])
        allowed[(hand.setup.number, len(hand.events))] = [_allowed(hand, s, held[s]) for s in range(4)]

    async def check(seat: int, state: dict[str, Any], where: str) -> None:
        if state["view"] is None or state["view"]["number"] != hand.setup.number:
            return  # the next hand's deal: checked by its own seat's hand below
        known = allowed[(hand.setup.number, state["seq"])][seat]
        leaked = _cards_of(state) - known
        assert not leaked, f"seat {seat} was shown {sorted(map(str, leaked))} in {where} at event {state['seq']}"
        assert Counter(state["hand"]) == Counter(str(c) for c in state["view"]["hand"].split())
        checked[where] += 1

    streams = [stream(c, table.id) for c in four.clients]
    for s in streams:
        await s.__aenter__()
    try:
        await server.wait_for(lambda: all(s.states for s in streams), what="every stream's first state")

        async def step_and_check() -> None:
            step()
            for seat, client in enumerate(four.clients):
                await check(seat, await client.state(table.id), "the state")

        await play_through_app(four.table, four.clients, four.plan, step_and_check)  # type: ignore[attr-defined]
        step()
        assert hand.over and hand.result is not None
        await server.wait_for(lambda: all(s.states[-1]["view"]["number"] == 2 for s in streams),
                              what="every stream showing the next deal")
    finally:
        for s in streams:
            await s.__aexit__(None, None, None)
    for seat, s in enumerate(streams):
        for state in s.states:
            await check(seat, state, "the event stream")
        assert any(st["last_result"] for st in s.states), "the result reached the app"
    # A stream sees many states of the hand (every move at least coalesced into one), all checked.
    assert checked["the event stream"] > 4 * 20 and checked["the state"] > 4 * 40


# --- moves and refusals, app and keyboard -------------------------------------------------------------

async def test_refusals_read_as_on_the_keyboard(four: Table4) -> None:
    table, server, hand = four.table, four.server, four.hand
    alice_app, alice = four.clients[0], four.people[0]
    events = len(hand.events)
    not_a_bid = next(c for c in hand.hands[0] if c.rank != hand.level and not c.is_joker)

    # A card that is no bid: the app and the keyboard give the same words.
    status, answer = await alice_app.act(table.id, "bid", [str(not_a_bid)])
    assert status == 409
    await select_cards(server, alice, table, 0, (not_a_bid,))
    popup = await press_hand(server, alice, table, 0, "bid")
    assert popup.show_alert and popup.text == answer["refusal"]
    assert "级牌" in answer["refusal"]  # Alice reads Chinese

    # Nothing selected; an out-of-date version; an unknown op; a card nobody holds in that count.
    status, answer = await alice_app.act(table.id, "bid")
    assert (status, answer["refusal"]) == (409, "请先选牌。")
    status, answer = await alice_app.act(table.id, "pass", version="0.0.x")
    assert status == 409 and answer["refusal"]
    assert (await alice_app.post(f"/app/api/tables/{table.id}/act",
                                 {"op": "cheat", "cards": [], "nonce": "x" * 12}))[0] == 400
    assert len(hand.events) == events, "no refusal changed the hand"

    # A play while the hand is still bidding (Bob reads English).
    bob_app = four.clients[1]
    status, answer = await bob_app.act(table.id, "play", [str(hand.hands[1][0])])
    assert status == 409 and answer["refusal"] == "That is not possible at this moment of the hand."


async def test_a_hint_out_of_turn_is_refused_in_words_not_a_500(four: Table4, caplog: pytest.LogCaptureFixture) -> None:
    """The page offers the hint on the seat's turn only, but the API takes it at any moment: past the bidding,
    a seat whose turn it is not was answered 500, with the AI's traceback in the log."""
    table, hand = four.table, four.hand
    for move in four.plan.bids:  # type: ignore[attr-defined]
        status, answer = await four.clients[move.seat].act(table.id, "bid", [str(c) for c in move.cards], move.trump)
        assert status == 200 and answer["ok"], answer
    while hand.phase == "bidding":
        seat = next(s for s in range(4) if s not in hand.passed)
        status, answer = await four.clients[seat].act(table.id, "pass")
        assert status == 200 and answer["ok"], answer
    events = len(hand.events)
    other = (hand.turn + 1) % 4
    status, answer = await four.clients[other].post(f"/app/api/tables/{table.id}/hint", {})
    assert status == 409 and answer["refusal"] in ("It is not your turn.", "还没轮到你。"), answer
    assert len(hand.events) == events
    assert not [r for r in caplog.records if r.exc_info is not None], "a traceback in the log"


@pytest.mark.deal(red_five_pair_deal())
async def test_a_bid_needing_a_trump_choice_offers_it(four: Table4) -> None:
    table, hand = four.table, four.hand
    seat = next(s for s in range(4) if Counter(hand.hands[s])[RED_FIVE] == 2)
    events = len(hand.events)
    status, answer = await four.clients[seat].act(table.id, "bid", ["5H", "5H"])
    assert status == 200 and not answer["ok"] and answer["choose"] == ["S", "H", "D", "C", "NT"], answer
    assert len(hand.events) == events, "offering the choice changed nothing"
    status, answer = await four.clients[seat].act(table.id, "bid", ["5H", "5H"], "NT")
    assert status == 200 and answer["ok"], answer
    assert hand.bids[-1].seat == seat and hand.bids[-1].trump is None


@pytest.mark.deal(red_five_pair_deal())
async def test_the_app_offers_each_bid_the_rules_take_now_as_one_tap_as_the_keyboard_does(four: Table4) -> None:
    table, hand = four.table, four.hand
    seat = next(s for s in range(4) if Counter(hand.hands[s])[RED_FIVE] == 2)
    state = await four.clients[seat].state(table.id)
    assert state["mode"] == "bid" and ["5H", "5H"] in state["taps"], state["taps"]
    offered = [tuple(Card.parse(c) for c in tap) for tap in state["taps"]]
    assert offered == one_tap_bids(table, table.view(seat))
    for cards in offered:  # each one a bid the engine takes (with some trump where the cards name none)
        assert any(hand.can(Action("bid", seat, cards, t)) for t in (None, "S", "H", "D", "C"))
    others = [await four.clients[s].state(table.id) for s in range(4) if s != seat]
    assert all(all(tuple(Card.parse(c) for c in tap) == cards for tap, cards in
                   zip(other["taps"], one_tap_bids(table, table.view(s)), strict=True))
               for other, s in zip(others, [s for s in range(4) if s != seat], strict=True))


async def test_between_hands_the_app_shows_the_result_and_next_hand_not_the_next_deal(four: Table4) -> None:
    """At the relaxed pace the next hand waits for 「下一局」: the app shows the result and the button, as the
    group's table message does, and nothing of the next deal (which no move may touch yet) until it starts."""
    table, server, group = four.table, four.server, four.group
    table.settings = replace(table.settings, pace="relaxed")
    alice_app, bob_app = four.clients[0], four.clients[1]
    await four.people[3].command(group, "leave")  # before any card: a free leave, and the hand is over
    await server.wait_for(lambda: table.between_hands is not None, what="the pause after the hand")
    assert table.match is not None
    deal = str(table.match.deals)
    state = await alice_app.state(table.id)
    assert state["view"] is None and state["hand"] == [] and state["mode"] is None and state["taps"] == []
    assert state["last_result"] and "第 1 局结束" in state["last_result"], state["last_result"]
    assert "Dave" in state["last_result"], "the result names who left (the AI holds the seat now)"
    assert "点「下一局」" in state["info"] and state["next_deal"] == deal, state
    assert not _cards_of(state), "a card of the next deal before it starts"
    # A move of the next hand is refused in words, a stale or malformed 「下一局」 too, and nothing changes.
    status, answer = await bob_app.act(table.id, "pass")
    assert status == 409 and answer["refusal"] == "The next hand has not started yet.", answer
    status, answer = await bob_app.post(f"/app/api/tables/{table.id}/hint", {})
    assert status == 409 and answer["refusal"] == "The next hand has not started yet.", answer
    status, answer = await alice_app.post(f"/app/api/tables/{table.id}/next", {"deal": "0", "nonce": "n" * 12})
    assert status == 409 and answer["refusal"], answer
    for bad in ("", "1e3", "²", "1" * 10, 3, None):
        status, _answer = await alice_app.post(f"/app/api/tables/{table.id}/next", {"deal": bad, "nonce": "m" * 12})
        assert status == 400, bad
    assert table.between_hands is not None and not table.match.hand.events
    # 「下一局」 in the app starts the hand: the next deal is shown, and the button is gone.
    status, answer = await alice_app.post(f"/app/api/tables/{table.id}/next", {"deal": deal, "nonce": "k" * 12})
    assert status == 200 and answer["ok"], answer
    assert table.between_hands is None
    state = answer["state"]
    assert state["view"]["number"] == 2 and state["mode"] == "bid" and state["next_deal"] is None
    assert len(state["hand"]) == 25


async def test_keyboard_and_app_agree(four: Table4) -> None:
    table, server, hand = four.table, four.server, four.hand
    alice_app, alice, bob = four.clients[0], four.people[0], four.people[1]
    # The hand message carries the web app button, and the menu button opens the app.
    message = await server.wait_for(lambda: hand_message(alice), what="Alice's hand message")
    app_buttons = [b for b in message.all_buttons() if b.web_app_url]
    assert app_buttons and app_buttons[0].text == "🃏 打开牌桌"
    assert app_buttons[0].web_app_url == f"{PUBLIC_URL}/app/?t={table.id}"
    assert server.state.menu_buttons[None]["web_app"]["url"] == f"{PUBLIC_URL}/app/"

    async with stream(alice_app, table.id) as alice_stream:
        await server.wait_for(lambda: alice_stream.states, what="Alice's first state")
        # Bob passes on his keyboard: Alice's app shows it.
        answer = await press_hand(server, bob, table, 1, "pass")
        assert not answer.show_alert, answer.text
        await server.wait_for(lambda: 1 in (alice_stream.states[-1]["view"]["passed"]), what="Bob's pass in the app")
        # Alice passes in the app: her keyboard message is not edited while the app is open...
        edits = server.calls.count("editMessageText", chat_id=alice.id)
        status, answer = await alice_app.act(table.id, "pass")
        assert status == 200 and answer["ok"]
        assert 0 in answer["state"]["view"]["passed"]
        assert server.calls.count("editMessageText", chat_id=alice.id) == edits
    # ... and catches up once the app is closed.
    await server.wait_for(lambda: server.calls.count("editMessageText", chat_id=alice.id) > edits,
                          what="Alice's keyboard catching up")
    assert 0 in hand.passed


async def test_a_keyboard_press_keeps_the_keyboard_current_while_the_app_is_open(four: Table4) -> None:
    table, server = four.table, four.server
    alice_app, alice = four.clients[0], four.people[0]
    await server.wait_for(lambda: hand_message(alice), what="Alice's hand message")
    async with stream(alice_app, table.id) as alice_stream:
        await server.wait_for(lambda: alice_stream.states, what="Alice's first state")
        await settled(server, four.app)
        edits = server.calls.count("editMessageText", chat_id=alice.id)
        card = four.hand.hands[0][0]
        answer = await press_hand(server, alice, table, 0, "sel", f"{card}0")  # a tap on the keyboard
        assert not answer.show_alert, answer.text
        await server.wait_for(lambda: server.calls.count("editMessageText", chat_id=alice.id) > edits,
                              what="the keyboard showing the tap")
        # The selection shows in the app's text too (Alice reads Chinese).
        await server.wait_for(lambda: card_label(card, "zh") in alice_stream.states[-1]["info"], what="the app too")


async def test_hand_while_the_app_is_open_sends_the_hand_message_again(four: Table4) -> None:
    """/hand asks for the hand message: it comes again, as a new message, while the app is open on the seat too
    (the old code deleted the old one and sent nothing until the app closed, and the group was told it was
    sent)."""
    table, server = four.table, four.server
    alice_app, alice = four.clients[0], four.people[0]
    old = await server.wait_for(lambda: hand_message(alice), what="Alice's hand message")
    async with stream(alice_app, table.id) as alice_stream:
        await server.wait_for(lambda: alice_stream.states, what="Alice's first state")
        await settled(server, four.app)
        await alice.command(four.group, "hand")
        await settled(server, four.app)
        again = hand_message(alice)
        assert again is not None and again.message_id != old.message_id, "no hand message after /hand"


# --- what a seat's stream shows of the others ------------------------------------------------------------

async def test_a_card_tapped_on_another_seats_keyboard_reaches_no_other_stream(four: Table4) -> None:
    """The bidder taps their bid's cards (and clears and taps them again) on the keyboard while the three
    others' app streams are open.  Every stream handles every tap (the bot's own signal, not a quiet
    window), and only the bidder's shows one; the others' receive nothing, and their revision stays put,
    until the bid is made: then the first frame each receives is the bid, hidden (盐城: hidden bidding), so
    the taps cannot tell them it was a pair.  The old code sent every seat a frame for every tap."""
    table, server, hand = four.table, four.server, four.hand
    live = four.app.bot_data["webapp"].live
    move = four.plan.bids[0]  # type: ignore[attr-defined]
    bidder = move.seat
    others = [s for s in range(4) if s != bidder]
    streams = {s: stream(four.clients[s], table.id) for s in range(4)}
    for s in streams.values():
        await s.__aenter__()
    try:
        await server.wait_for(lambda: all(s.states for s in streams.values()) and live.caught_up(table.id),
                              what="every stream's first state")
        before = {s: len(streams[s].frames) for s in others}
        revs = {s: streams[s].states[-1]["rev"] for s in others}
        seq = len(hand.events)
        taps = [f"{card}{n}" for n, card in enumerate(move.cards)] if len(set(move.cards)) == 1 \
            else [f"{card}0" for card in move.cards]
        for op, arg in [("sel", tap) for tap in taps] + [("clear", "")] + [("sel", tap) for tap in taps]:
            answer = await press_hand(server, four.people[bidder], table, bidder, op, arg)
            assert not answer.show_alert, answer.text
            await server.wait_for(lambda: live.caught_up(table.id), what="every stream handling the tap")
        assert Counter(table.selected(bidder).elements()) == Counter(move.cards)
        assert len(hand.events) == seq, "nothing but taps happened"
        own = [f for f in streams[bidder].frames if f.event == "state"]
        labels = [card_label(move.cards[0], lang) for lang in ("zh", "en")]
        assert any(label in f.data["info"] for f in own for label in labels), "the bidder's app shows the taps"
        for s in others:
            assert len(streams[s].frames) == before[s], (s, streams[s].frames[before[s]:])
            assert (await four.clients[s].state(table.id))["rev"] == revs[s], "a tap moved another seat's rev"
        op, arg = ("trump", f"bid-{move.trump}") if move.trump is not None else ("bid", "")
        answer = await press_hand(server, four.people[bidder], table, bidder, op, arg)
        assert not answer.show_alert, answer.text
        await server.wait_for(lambda: all(len(streams[s].frames) > before[s] for s in others),
                              what="the bid in every other stream")
        for s in others:
            first = streams[s].frames[before[s]]
            assert first.event == "state" and first.data["seq"] == seq + 1, (s, first)
            assert first.data["rev"] > revs[s]
            bid = first.data["view"]["bids"][-1]
            assert bid["seat"] == bidder and bid["hidden"] and bid["cards"] is None, bid
    finally:
        for s in streams.values():
            await s.__aexit__(None, None, None)


async def test_the_menu_button_speaks_each_persons_language(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    server = fake_telegram
    ann = server.person("Ann", "ann", language_code="en", started=False)
    li = server.person("李", "li", language_code="zh-hans", started=False)
    async with webapp_running(server, tmp_path / "t.db"):
        default = server.state.menu_buttons.get(None)
        assert default is not None and default["text"] == "🃏 打开牌桌"
        await ann.start_private()
        await server.wait_for(lambda: ann.id in server.state.menu_buttons, what="Ann's menu button")
        assert server.state.menu_buttons[ann.id]["text"] == "🃏 Open the table"
        await li.start_private()
        await server.wait_for(lambda: any(m.from_bot for m in li.private_messages()), what="the answer to 李")
        assert li.id not in server.state.menu_buttons  # the default speaks Chinese already
        await li.command(None, "lang", "en")
        await server.wait_for(lambda: li.id in server.state.menu_buttons, what="李's menu button after /lang en")
        assert server.state.menu_buttons[li.id]["text"] == "🃏 Open the table"
