"""Small helpers shared by the engine tests (not a test module)."""

from __future__ import annotations

from engine import get_ruleset, parse_cards
from engine.cards import Card
from engine.ruleset import Ruleset
from engine.trump import TrumpContext, parse_level, trump_context

PRESETS = ("yancheng", "yangzhou", "yangzhong", "nantong", "xin", "chizhou", "anhui")
R5_PRESETS = ("yancheng", "yangzhou", "yangzhong", "nantong")
PLAIN_PRESETS = ("xin", "chizhou", "anhui")
PAIRS_MUST_FOLLOW = ("yancheng", "yangzhou", "yangzhong", "nantong", "anhui")


def R(name: str) -> Ruleset:
    """A preset by name."""
    return get_ruleset(name)


def C(text: str) -> list[Card]:
    """Cards from notation."""
    return parse_cards(text)


def card(text: str) -> Card:
    (c,) = parse_cards(text)
    return c


def ctx(name: str | Ruleset, level: str | None, trump: str | None) -> TrumpContext:
    ruleset = R(name) if isinstance(name, str) else name
    return trump_context(ruleset, parse_level(level), trump)
