"""The 炒地皮 rules engine: pure, synchronous and deterministic.

No Telegram, asyncio, SQLite or logging set-up lives here.  The names below
are the stable entry points; the submodules hold the rest (``cards``,
``ruleset``, ``trump``, ``combos``, ``follow``, ``tricks``, ``throws``,
``scoring``).
"""

from engine.api import is_legal_follow, is_tractor, kitty_multiplier, resolve_throw, trick_winner
from engine.cards import DECK, Card, deal, format_cards, parse_cards
from engine.errors import (
    CardsNotHeldError,
    EngineError,
    IllegalActionError,
    IllegalPlayError,
    NotationError,
    RulesetError,
)
from engine.ruleset import RULESETS, Ruleset, get_ruleset
from engine.scoring import LevelOutcome, level_outcome

__all__ = [
    "DECK", "Card", "CardsNotHeldError", "EngineError", "IllegalActionError", "IllegalPlayError",
    "LevelOutcome", "NotationError", "RULESETS", "Ruleset", "RulesetError", "deal", "format_cards",
    "get_ruleset", "is_legal_follow", "is_tractor", "kitty_multiplier", "level_outcome",
    "parse_cards", "resolve_throw", "trick_winner",
]
