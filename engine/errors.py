"""The engine's errors: one small family of ``ValueError`` subclasses.

Every error carries a stable ``code`` (for the bot to translate) and
``params`` (the cards or values it names), besides an English sentence.  A
message may name the cards of the player who caused it; it is only ever shown
to that player.
"""

from __future__ import annotations

from typing import Any


class EngineError(ValueError):
    """Base of every error the engine raises for bad input."""

    code: str = "engine_error"

    def __init__(self, message: str, *, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.params: dict[str, Any] = params


class NotationError(EngineError):
    """A card token or card list that does not parse."""

    code = "bad_notation"


class RulesetError(EngineError):
    """A ruleset whose options contradict each other, or an unknown preset."""

    code = "bad_ruleset"


class IllegalPlayError(EngineError):
    """A play (lead or follow) that the rules forbid; ``code`` names the rule."""

    code = "illegal_play"


class IllegalActionError(EngineError):
    """An action that is not allowed now (wrong phase, wrong seat, bad bid…)."""

    code = "illegal_action"


class CardsNotHeldError(IllegalPlayError):
    """The player does not hold the cards they tried to use.

    ``missing`` names them in card notation (:func:`engine.cards.format_cards`):
    this module is the bottom of the engine and knows no card.
    """

    code = "cards_not_held"

    def __init__(self, missing: str) -> None:
        super().__init__(f"You do not hold {missing}.", cards=missing)
