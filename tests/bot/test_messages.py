"""The engine's refusals as players read them: the suit to follow, the bids a preset has."""

from __future__ import annotations

import pytest

from bot.i18n import translator
from bot.messages import refusal
from engine.cards import Card, parse_cards
from engine.errors import EngineError, IllegalActionError
from engine.follow import check_follow
from engine.hand import Action
from engine.ruleset import RULESETS
from engine.trump import trump_context
from tests.bot import builders as T
from tests.engine.rig import cards, full_deal, new_hand


def follow_error(lead: str, hand: str, play: str, trump: str = "S") -> EngineError:
    ctx = trump_context(RULESETS["yancheng"], 2, trump)
    with pytest.raises(EngineError) as err:
        check_follow(ctx, parse_cards(lead), parse_cards(hand), parse_cards(play))
    return err.value


@pytest.mark.parametrize(("lead", "hand", "play", "zh", "en"), [
    ("AC", "KC 3D", "3D", "有♣必须先出♣。", "You hold ♣: play ♣ first."),
    ("AH AH", "KH 3D 4D", "3D 4D", "有♥必须先出♥。", "You hold ♥: play ♥ first."),
    ("AS", "BJ 3D", "3D", "有主必须先出主。", "You hold trumps: play trumps first."),
])
def test_the_follow_refusal_names_the_suit(lead: str, hand: str, play: str, zh: str, en: str) -> None:
    error = follow_error(lead, hand, play)
    assert error.code == "must_follow_suit"
    assert refusal(translator("zh"), error) == zh
    assert refusal(translator("en"), error) == en


def not_a_bid(preset: str) -> EngineError:
    """The engine's refusal of a bid of two plain non-level cards in hand 1 of ``preset``."""
    table = T.make_table(preset, 1)
    hand = T.hand_of(table)
    level = hand.level
    cards = [c for c in hand.hands[0] if not c.is_joker and c.rank != level and c != Card.parse("5H")][:1]
    with pytest.raises(IllegalActionError) as err:
        hand.apply(Action("bid", 0, tuple(cards)))
    assert err.value.code == "not_a_bid"
    return err.value


@pytest.mark.parametrize(("preset", "zh", "en"), [
    ("yancheng", "这些牌不能亮主：请用级牌（单张或一对）、一对王或一对红5亮主。",
     "Those cards are not a bid: bid with level cards (one or a pair), a joker pair or a red-five pair."),
    ("nantong", "这些牌不能亮主：请用级牌（单张或一对）、一对王或一对红5亮主。",
     "Those cards are not a bid: bid with level cards (one or a pair), a joker pair or a red-five pair."),
    ("xin", "这些牌不能亮主：请用级牌（单张或一对）或一对王亮主。",
     "Those cards are not a bid: bid with level cards (one or a pair) or a joker pair."),
    ("chizhou", "这些牌不能亮主：请用级牌（单张或一对）或一对王亮主。",
     "Those cards are not a bid: bid with level cards (one or a pair) or a joker pair."),
    ("anhui", "这些牌不能亮主：请用级牌（单张或一对）亮主。对大王、对小王不能直接亮主，只能抄底打无主。",
     "Those cards are not a bid: bid with level cards (one or a pair). "
     "A big-joker or small-joker pair cannot bid: it only steals the kitty, for no trump."),
])
def test_the_not_a_bid_refusal_lists_only_the_presets_bids(preset: str, zh: str, en: str) -> None:
    error = not_a_bid(preset)
    ruleset = RULESETS[preset]
    assert refusal(translator("zh"), error, ruleset) == zh
    assert refusal(translator("en"), error, ruleset) == en


@pytest.mark.parametrize("joker", ["BJ", "SJ"])
def test_anhui_joker_pairs_only_steal(joker: str) -> None:
    table = T.make_table("anhui", T.seed_with_pair("anhui", joker, 0))
    with pytest.raises(IllegalActionError) as err:
        T.hand_of(table).apply(Action("bid", 0, (Card.parse(joker), Card.parse(joker))))
    ruleset = RULESETS["anhui"]
    assert refusal(translator("zh"), err.value, ruleset) == "对大王、对小王不能直接亮主，只能抄底打无主。"
    assert refusal(translator("en"), err.value, ruleset) == (
        "A big-joker or small-joker pair cannot bid: it only steals the kitty, for no trump.")


@pytest.mark.parametrize("preset", ["yancheng", "anhui"])
def test_a_single_card_steal_is_refused_for_want_of_a_pair(preset: str) -> None:
    """Not 「本玩法不允许这样亮主。」: a steal needs a pair."""
    hand = new_hand(preset, deal=full_deal({0: "2S 2S", 1: "2H 2D"}))
    hand.bid(0, cards("2S 2S"))
    hand.apply(Action("close"))
    hand.apply(Action("bury", 0, tuple([c for c in hand.hands[0] if c.rank != 2][:8])))
    with pytest.raises(IllegalActionError) as err:
        hand.apply(Action("steal", 1, tuple(cards("2H"))))
    ruleset = RULESETS[preset]
    assert refusal(translator("zh"), err.value, ruleset) == "抄底要用一对：单张不能抄底。"
    assert refusal(translator("en"), err.value, ruleset) == "A steal needs a pair: a single card cannot steal the kitty."
    no_single = ruleset.replace(single_bid=False)  # where a single cannot bid either, the popup says both
    assert refusal(translator("zh"), err.value, no_single) == "本玩法单张不能亮主：亮主、抄底都要用一对。"
