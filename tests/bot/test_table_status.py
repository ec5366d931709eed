"""What a player reads is true: hidden bids, the copy of a card they tapped, a setting they chose; the next
hand waits for the last one's news; a hand with no trick offers no replay.

Real engine hands (``tests/bot/builders.py``), rendered as the bot renders them.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path

import pytest

import storage
from bot import callbacks
from bot.config import Settings
from bot.i18n import translator
from bot.model import Seat, Table, TableSettings
from bot.render_group import setting_label
from bot.render_private import hand_keyboard, render_hand
from bot.tables import Done, Person, Select, Tables
from bot.tables.turns import wait_for_next_hand
from engine.hand import Action
from engine.match import Match
from tests.bot import builders as T


def _hidden_override() -> Table:
    """盐城 (hidden bids): North bids a single 2, East overrides with a pair of 2s of another suit."""
    settings = TableSettings(preset="yancheng")
    for seed in range(1, 5000):
        match = Match(settings.ruleset(), seed)
        hand = match.hand
        singles = [c for c in hand.hands[0] if c.rank == 2 and c.suit != "H"]
        pairs = [c for c, n in Counter(c for c in hand.hands[1] if c.rank == 2).items()
                 if n == 2 and singles and c.suit not in (singles[0].suit, "H")]
        if singles and pairs:
            break
    table = Table(id=1, chat_id=-1, creator_id=100, lang="zh", title="G", status="playing", settings=settings)
    table.seats = [Seat(100 + s, name, lang="zh") for s, name in enumerate(("Alice", "Bob", "Carol", "Dave"))]
    table.match = match
    hand.apply(Action("bid", 0, (singles[0],)))
    hand.apply(Action("bid", 1, (pairs[0], pairs[0])))
    for seat in range(4):
        if hand.phase == "bidding":
            hand.apply(Action("pass", seat))
    assert hand.phase == "burying" and hand.burier == 1
    return table


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_under_hidden_bidding_nobody_reads_a_trump_that_is_not_told(lang: str) -> None:
    """Alice, overridden in secret, does not read her bid as the trump; Bob, burying under his own bid, reads
    that his keyboard is sorted by it rather than "trump not known" alone."""
    table = _hidden_override()
    tr = translator(lang)
    alice, _ = render_hand(tr, table, 0, "G")
    bob, _ = render_hand(tr, table, 1, "G")
    assert tr("{who} bid too: which bid stands is told after the steal rounds (暗炒).", who="东 Bob"
              if lang == "zh" else "E Bob") in alice
    assert tr("{who} bid too: which bid stands is told after the steal rounds (暗炒).", who="北 Alice"
              if lang == "zh" else "N Alice") in bob
    bids = T.hand_of(table).bids
    for text, bid in ((alice, bids[0]), (bob, bids[1])):
        assert bid.trump is not None
        suit = "♠♥♦♣"["SHDC".index(bid.trump)]
        assert (f"→ 主 {suit}（手牌按此排列）" if lang == "zh" else f"→ trump {suit} (your cards are sorted by it)") in text
    # Neither names the other's cards.
    assert "♦2♦2" not in alice and "♣2♣2" not in alice


def test_the_copy_tapped_is_the_copy_ticked() -> None:
    """Two ♣4 buttons: tapping the second ticks the second (and untapping it unticks it)."""
    for seed in range(1, 2000):
        table = T.make_table("yancheng", seed)
        hand = T.hand_of(table)
        twins = [c for c, n in Counter(hand.hands[0]).items() if n == 2]
        if twins:
            break
    card = twins[0]
    tables = Tables(db=None, config=Settings(token="x"))  # type: ignore[arg-type]
    tr = translator("en")
    version = table.hand_version(0)

    def ticks() -> list[int]:
        keyboard = hand_keyboard(tr, table, 0, table.view(0))
        data = [(b.text, callbacks.decode(b.callback_data)) for row in keyboard.inline_keyboard for b in row]
        return [int(d.arg[-1]) for text, d in data if d is not None and d.op == "sel"
                and d.arg[:-1] == str(card) and text.startswith("✓")]

    tables.register(table)

    async def tap(copy: int) -> None:
        assert await tables.perform(Person(100, "keyboard"), table, Select(card, copy, version)) == Done()

    asyncio.run(tap(1))
    assert ticks() == [1]
    asyncio.run(tap(0))
    assert ticks() == [0, 1]
    asyncio.run(tap(1))
    assert ticks() == [0] and table.selected(0)[card] == 1


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_settings_tap_is_answered_with_the_choice_it_made(lang: str) -> None:
    """The lobby's handler itself: a settings tap changes the setting and is answered with a toast naming the
    choice; a button naming a preset that does not exist is an alert and changes nothing."""
    from types import SimpleNamespace

    from bot import callbacks
    from bot.handlers.lobby_buttons import on_lobby_button

    tr = translator(lang)
    table = T.make_table("yancheng", 1)
    changed: list[tuple[str, str]] = []
    answers: list[tuple[str | None, bool]] = []

    class Service:
        lobby_panels: set[int] = set()

        async def change_setting(self, _table: object, op: str, arg: str) -> None:
            changed.append((op, arg))

        def refresh(self, _table: object) -> None:
            pass

    async def answer(text: str | None = None, show_alert: bool = False) -> None:
        answers.append((text, show_alert))

    query = SimpleNamespace(from_user=SimpleNamespace(id=table.creator_id), answer=answer,
                            message=SimpleNamespace(chat=SimpleNamespace(id=table.chat_id)))
    context = SimpleNamespace(bot_data={"tables": Service()})
    for op, arg, label in (("preset", "yangzhou", setting_label(tr, "preset", "yangzhou")),
                           ("pace", "daily", tr("one move a day")), ("returns", "now", tr("back: at once"))):
        data = callbacks.decode(callbacks.lobby(table.id, op, arg))
        assert data is not None
        await on_lobby_button(context, query, table, data, tr)  # type: ignore[arg-type]
        assert changed[-1] == (op, arg) and answers[-1] == ("✓ " + label, False)
    assert setting_label(tr, "preset", "yangzhou") in ("扬州/镇江", "Yangzhou/Zhenjiang")
    forged = callbacks.decode(callbacks.lobby(table.id, "preset", "atlantis"))
    assert forged is not None
    await on_lobby_button(context, query, table, forged, tr)  # type: ignore[arg-type]
    assert len(changed) == 3 and answers[-1] == (tr("That button is out of date."), True)


async def test_the_next_hand_waits_for_the_last_hands_news() -> None:
    """The pause between hands ends only once the group's announcements (the result, a 保红5) went out."""
    class Outbox:
        busy = True

        def sending(self, chat_id: int) -> bool:
            return self.busy

    tables = Tables(db=None, config=Settings(token="x"))  # type: ignore[arg-type]
    tables.outbox = Outbox()  # type: ignore[assignment]
    table = T.make_table("yancheng", 1)
    table.between_hands = time.time()
    wait_for_next_hand(tables, table)
    await asyncio.sleep(1.2)
    assert table.between_hands is not None, "the next hand came before the news"
    tables.outbox.busy = False  # type: ignore[attr-defined]
    for _ in range(40):
        if table.between_hands is None:
            break
        await asyncio.sleep(0.1)
    assert table.between_hands is None
    await tables.tasks.close(timeout=1)


async def test_a_hand_with_no_trick_offers_no_replay(tmp_path: Path) -> None:
    db = await storage.open_database(tmp_path / "r.db")
    try:
        await storage.upsert_chat(db, -5, "R")
        await storage.upsert_user(db, 1, "Ann")
        tables = Tables(db, Settings(token="1:r", public_url="https://example.org", hand_pause=0.0))
        table = await tables.new_table(-5, "R", 1, "en", "yancheng")
        await tables.sit(table, 1, "Ann", "en", 0)
        while not table.full:
            await tables.add_ai(table)
        await tables.start(table)
        await tables.escape(table, 0)  # before any card: a free leave, a hand with no trick
        texts = [a.text for a in await storage.pending_announcements(db)]
        assert texts and not any("Replay" in text for text in texts), texts
        await tables.close()
        await tables.tasks.close(timeout=5)
    finally:
        await db.close()
