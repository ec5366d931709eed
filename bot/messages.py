"""The engine's refusals, and storage's faults, said to the player in their language.

The engine raises typed errors with a stable ``code``; this maps each code to
a message id of the catalogue.  An unknown code falls back to a general
sentence, never to the engine's English text with card details.
"""

from __future__ import annotations

from typing import Final

from bot.i18n import Translator
from bot.labels import SUIT_SYMBOLS, or_list
from engine.bidding import step_allowed
from engine.errors import EngineError
from engine.ruleset import Ruleset
from engine.trump import TRUMP
from storage import StorageFault

REASONS: Final = {
    "empty_play": "Select the cards to play first.",
    "cards_not_held": "You do not hold those cards.",
    "lead_mixed_suits": "A lead must be all of one suit, or all trumps.",
    "wrong_count": "Play exactly {count} cards, as many as the lead.",
    "must_follow_suit": "You must follow suit (有牌必须跟).",
    "must_follow_pair": "You hold pairs: you must follow with them (有对必须出对).",
    "must_follow_tractor": "You hold a tractor: you must follow with it (有拖拉机必须出).",
    "must_play_ftk": "You hold the trump 5-10-K: you must play it.",
    "must_play_highest_trumps": "A trump 5-10-K forces your highest trumps (逼大牌).",
    "not_a_bid": "Those cards are not a bid: bid with level cards (one or a pair), a joker pair or a red-five pair.",
    "bid_not_allowed": "That bid is not allowed in these rules.",
    "bid_not_higher": "Your bid must be higher than the standing bid.",
    "override_self": "You cannot override your own bid.",
    "card_already_shown": "Those cards were shown in an earlier bid; they cannot be bid again.",
    "choose_suit": "Choose the trump suit for this bid.",
    "choose_trump": "Choose the trump suit or no-trump for this bid.",
    "bury_count": "Bury exactly 8 cards.",
    "not_your_turn": "It is not your turn.",
    "wrong_phase": "That is not possible at this moment of the hand.",
    "hand_over": "This hand is over.",
    "match_over": "The match is over.",
}


def refusal(tr: Translator, error: EngineError, ruleset: Ruleset | None = None) -> str:
    """A short popup text explaining why the engine refused an action.

    With the table's ``ruleset``, a refused bid names the bids that preset has.
    """
    if error.code == "must_follow_suit" and error.params.get("group") is not None:
        group = error.params["group"]
        suit = tr("trumps") if group == TRUMP else SUIT_SYMBOLS.get(group, group)
        return tr("You hold {suit}: play {suit} first.", suit=suit)
    if error.code == "not_a_bid" and ruleset is not None:
        if error.params.get("steal"):
            return not_a_steal(tr, ruleset)
        return not_a_bid(tr, ruleset)
    if error.code == "bid_not_allowed" and ruleset is not None and _steal_only(ruleset, error.params.get("step")):
        return tr("A big-joker or small-joker pair cannot bid: it only steals the kitty, for no trump.")
    if error.code == "bid_not_allowed" and error.params.get("step") == "single":
        # Where a single level card may bid (every preset), only a steal refuses it; a ruleset without
        # single bids refuses both.
        if ruleset is not None and not ruleset.single_bid:
            return tr("A single card is not a bid here: bid and steal with a pair.")
        return tr("A steal needs a pair: a single card cannot steal the kitty.")
    msgid = REASONS.get(error.code, "That move is not allowed.")
    try:
        return tr(msgid, **error.params)
    except (KeyError, IndexError):
        return tr(msgid) if "{" not in msgid else tr("That move is not allowed.")


def _steal_only(ruleset: Ruleset, step: object) -> bool:
    """True if ``step`` is a joker pair that this ruleset lets steal the kitty but not bid (安徽)."""
    return ((step == "SJ2" and ruleset.small_joker_pair_bid == "steal_only")
            or (step == "BJ2" and ruleset.big_joker_pair_bid == "steal_only"))


def not_a_bid(tr: Translator, ruleset: Ruleset) -> str:
    """What a bid may be in this preset: no red five where it has none, no joker pair where it only steals."""
    ladder = ruleset.bid_ladder
    kinds = [tr("level cards (one or a pair)") if ruleset.single_bid else tr("a pair of level cards")]
    joker_bids = ruleset.small_joker_pair_bid != "steal_only" or ruleset.big_joker_pair_bid != "steal_only"
    if joker_bids and (ladder is None or {"SJ2", "BJ2"} & set(ladder)):
        kinds.append(tr("a joker pair"))
    if ladder is not None and "R52" in ladder:
        kinds.append(tr("a red-five pair"))
    text = tr("Those cards are not a bid: bid with {kinds}.", kinds=or_list(tr, kinds))
    if not joker_bids:
        text += ("" if tr.lang == "zh" else " ") + tr("A big-joker or small-joker pair cannot bid: it only steals the kitty, for no trump.")
    return text


def not_a_steal(tr: Translator, ruleset: Ruleset) -> str:
    """What a steal (抄底) may be in this preset, as the engine allows it: a level pair, a joker pair where
    one steals, a red-five pair where the preset has one."""
    kinds = [tr("a pair of level cards")]
    if step_allowed(ruleset, "SJ2", steal=True) or step_allowed(ruleset, "BJ2", steal=True):
        kinds.append(tr("a joker pair"))
    if step_allowed(ruleset, "R52", steal=True):
        kinds.append(tr("a red-five pair"))
    return tr("Those cards cannot steal the kitty: a steal needs {kinds}.", kinds=or_list(tr, kinds))


def storage_refusal(tr: Translator, fault: StorageFault) -> str:
    """Why a move or a change was not saved, when storage failed for a reason that can pass: what is known
    of the move, and that trying again in a moment will do."""
    if fault.written is None:
        return tr("I could not confirm that your move was saved (storage trouble); your hand is shown again as it stands. Please check it and try again in a moment if needed.")
    if fault.kind == "locked":
        return tr("The table's records are busy (another program holds the database); nothing changed. Please try again in a moment.")
    if fault.kind == "full":
        return tr("The bot's storage is full; nothing changed. Please try again in a moment.")
    return tr("The bot could not write its records; nothing changed. Please try again in a moment.")


def closed_text(tr: Translator, window: str | None) -> str | None:
    """What a press for a timed window that has closed since it was drawn is told
    (:meth:`bot.model.Table.window_closed`): "closed", not "out of date"."""
    if window == "bidding":
        return tr("Bidding is closed; your hand is shown again.")
    if window == "stealing":
        return tr("Your steal turn is closed; your hand is shown again.")
    return None
