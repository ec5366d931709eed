"""Translations: English message ids, 简体中文 from a gettext catalogue.

The catalogue ``bot/locale/zh_CN/LC_MESSAGES/chaodipi.po`` is read with Babel
and compiled in memory at start-up, so only the ``.po`` text is kept in the
repository.  :func:`translator` gives a callable that translates a message id
and fills its ``{placeholders}``.
"""

from __future__ import annotations

import gettext
import io
from functools import lru_cache
from pathlib import Path
from typing import Final, Protocol

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LANGUAGES: Final = ("zh", "en")
"""Supported languages: 简体中文 (the default for Chinese users) and English."""

_LOCALE_DIR: Final = Path(__file__).parent / "locale"
_CATALOGUES: Final = {"zh": "zh_CN"}


class Translator(Protocol):
    """Translate a message id and fill its placeholders."""

    lang: str

    def __call__(self, msgid: str, /, **values: object) -> str: ...


class _Translator:
    __slots__ = ("lang", "_gettext")

    def __init__(self, lang: str, translations: gettext.NullTranslations) -> None:
        self.lang = lang
        self._gettext = translations.gettext

    def __call__(self, msgid: str, /, **values: object) -> str:
        text = self._gettext(msgid)
        return text.format(**values) if values else text


def catalogue_path(lang: str) -> Path:
    """Where the ``.po`` file of a language lives."""
    return _LOCALE_DIR / _CATALOGUES[lang] / "LC_MESSAGES" / "chaodipi.po"


@lru_cache(maxsize=None)
def translator(lang: str) -> Translator:
    """The translator for ``"zh"`` or ``"en"`` (anything else falls back to English)."""
    if lang not in _CATALOGUES:
        return _Translator("en", gettext.NullTranslations())
    with catalogue_path(lang).open("rb") as po:
        catalog = read_po(po, locale=_CATALOGUES[lang])
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return _Translator(lang, gettext.GNUTranslations(buffer))


def pick_language(language_code: str | None) -> str:
    """The bot's language for a Telegram ``language_code``: Chinese for ``zh*``, else English."""
    if language_code and language_code.lower().startswith("zh"):
        return "zh"
    return "en"
