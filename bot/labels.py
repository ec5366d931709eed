"""Short labels shared by every message: cards, suits, seats, presets, levels."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Final

from bot.i18n import Translator
from bot.untrusted import shown
from engine.cards import BIG_JOKER, SMALL_JOKER, Card, rank_name
from engine.ruleset import Ruleset, get_ruleset

SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def card_label(card: Card, lang: str) -> str:
    """``♠A``, ``♥10``; jokers ``大王``/``小王`` in Chinese, ``BJ``/``SJ`` in English."""
    if card.rank == BIG_JOKER:
        return "大王" if lang == "zh" else "BJ"
    if card.rank == SMALL_JOKER:
        return "小王" if lang == "zh" else "SJ"
    assert card.suit is not None
    return SUIT_SYMBOLS[card.suit] + rank_name(card.rank)


def cards_label(cards: Iterable[Card], lang: str, sep: str = "") -> str:
    """Cards side by side: ``♠A♠A`` (or with ``sep`` between them, where they would run together)."""
    return sep.join(card_label(c, lang) for c in cards)


def trump_label(tr: Translator, trump: str | None) -> str:
    """``♠`` or 无主 / no-trump."""
    return SUIT_SYMBOLS[trump] if trump is not None else tr("no-trump")


def trump_phrase(tr: Translator, trump: str | None, *, capital: bool = True) -> str:
    """The trump as players say it: 「主 ♠」, or 「打无主」 (never 「主 无主」)."""
    if trump is None:
        return tr("No trump") if capital else tr("no trump")
    if capital:
        return tr("Trump {trump}", trump=SUIT_SYMBOLS[trump])
    return tr("trump {trump}", trump=SUIT_SYMBOLS[trump])


def flag_phrase(tr: Translator) -> str:
    """The flag hand where a level would stand: 「扛旗（无主）」."""
    return tr("flag hand (no trump)")


def level_label(rank: int | None) -> str:
    """``5``, ``J``, ``A`` (``—`` for the flag hand)."""
    return rank_name(rank) if rank is not None else "—"


def seat_label(tr: Translator, seat: int) -> str:
    """北 / 东 / 南 / 西 (N, E, S, W); partners sit across (0+2, 1+3)."""
    return (tr("N"), tr("E"), tr("S"), tr("W"))[seat]


def side_label(tr: Translator, side: int) -> str:
    """A partnership as players name it: 南北 / 东西 (N–S, E–W)."""
    return (tr("N–S"), tr("E–W"))[side]


def and_list(tr: Translator, items: list[str]) -> str:
    """``a, b and c`` / 「a、b、c」 (how players list levels: 「J、A」)."""
    if tr.lang == "zh" or len(items) < 2:
        return "、".join(items)
    return tr("{items} and {last}", items=", ".join(items[:-1]), last=items[-1])


def or_list(tr: Translator, items: list[str]) -> str:
    """``a, b or c`` / 「a、b或c」."""
    if len(items) < 2:
        return "".join(items)
    sep = "、" if tr.lang == "zh" else ", "
    return tr("{items} or {last}", items=sep.join(items[:-1]), last=items[-1])


def hands_phrase(tr: Translator, n: int) -> str:
    """「1 局」, 「12 局」; "1 hand", "12 hands"."""
    return tr("1 hand") if n == 1 else tr("{n} hands", n=n)


def preset_label(tr: Translator, preset: str | Ruleset) -> str:
    """The preset's name in the reader's language."""
    ruleset = get_ruleset(preset) if isinstance(preset, str) else preset
    return ruleset.zh_name if tr.lang == "zh" else ruleset.en_name


def name_html(name: str) -> str:
    """A person's words (a display name, a group's title, a season's name) for HTML parse mode: bidi and
    control characters dropped (:func:`bot.untrusted.shown`), then escaped."""
    return html.escape(shown(name), quote=False)


def signed(value: int) -> str:
    """``+3``, ``−2``, ``0``."""
    if value > 0:
        return f"+{value}"
    if value < 0:
        return f"−{-value}"
    return "0"
