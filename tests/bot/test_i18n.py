"""The 简体中文 catalogue is complete, has nothing stale, and keeps every placeholder."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from bot.i18n import catalogue_path, pick_language, translator
from bot.messages import REASONS
from bot.tables.requests import REFUSALS
from bot.webapp.state import WORDS

BOT_DIR = Path(__file__).resolve().parents[2] / "bot"

TR_CALL = re.compile(r'\btr\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')
"""A literal message id passed to a translator: ``tr("...")``, or ``tr("..." "...")`` over several lines."""

LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')

TABLE_ERROR = re.compile(r'\bTableError\(\s*"((?:[^"\\]|\\.)*)"')
"""A literal message id of a refusal, translated later by ``TableError.text(tr)``."""

FALLBACK = "That move is not allowed."
"""The refusal used for an engine error code that REASONS does not know."""


def used_msgids() -> dict[str, set[str]]:
    """Every message id the bot's code uses, with the files that use it."""
    found: dict[str, set[str]] = {}
    for path in sorted(BOT_DIR.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        for pattern in (TR_CALL, TABLE_ERROR):
            for match in pattern.finditer(source):
                parts = LITERAL.findall(match.group(1)) if pattern is TR_CALL else [match.group(1)]
                msgid = "".join(ast.literal_eval('"' + part + '"') for part in parts)
                found.setdefault(msgid, set()).add(path.name)
    for msgid in [*REASONS.values(), FALLBACK]:
        found.setdefault(msgid, set()).add("messages.py")
    for msgid in REFUSALS.values():  # the service's refusals, said by either front end
        found.setdefault(msgid, set()).add("requests.py")
    for msgid in WORDS:  # the web app's words, translated together for the page
        found.setdefault(msgid, set()).add("state.py")
    return found


def catalogue() -> dict[str, str]:
    """The zh_CN catalogue's entries (msgid → msgstr), header excluded."""
    with catalogue_path("zh").open("rb") as po:
        catalog = read_po(po, locale="zh_CN")
    return {str(m.id): str(m.string or "") for m in catalog if m.id}


def fields(text: str) -> set[str]:
    """The names of the ``{placeholders}`` in a format string."""
    return {name for _literal, name, _spec, _conv in string.Formatter().parse(text) if name is not None}


def test_extraction_finds_the_code() -> None:
    used = used_msgids()
    assert len(used) > 100
    assert "hand {n}" in used and "Your turn" in used


def test_every_used_msgid_is_translated() -> None:
    entries = catalogue()
    missing = {msgid: files for msgid, files in used_msgids().items() if not entries.get(msgid, "").strip()}
    assert not missing, "message ids without a translation in {}:\n{}".format(
        catalogue_path("zh"), "\n".join(f"  {m!r}  ({', '.join(sorted(f))})" for m, f in sorted(missing.items())))


def test_no_stale_entries() -> None:
    used = used_msgids()
    stale = sorted(msgid for msgid in catalogue() if msgid not in used)
    assert not stale, "entries in the catalogue that no code uses:\n" + "\n".join(f"  {m!r}" for m in stale)


def test_no_duplicate_entries() -> None:
    text = catalogue_path("zh").read_text(encoding="utf-8")
    ids = re.findall(r'^msgid "((?:[^"\\]|\\.)*)"$', text, flags=re.MULTILINE)
    duplicates = sorted({m for m in ids if ids.count(m) > 1})
    assert not duplicates, f"message ids listed twice: {duplicates}"


def test_header() -> None:
    text = catalogue_path("zh").read_text(encoding="utf-8")
    for line in ("Language: zh_CN", "Content-Type: text/plain; charset=UTF-8", "Plural-Forms: nplurals=1; plural=0;"):
        assert f'"{line}\\n"' in text, f"header line missing: {line}"
    with catalogue_path("zh").open("rb") as po:
        catalog = read_po(po, locale="zh_CN")
    fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
    assert not fuzzy, f"fuzzy entries are left out by gettext: {fuzzy}"


def test_placeholders_are_kept() -> None:
    wrong = {msgid: (fields(msgid), fields(msgstr))
             for msgid, msgstr in catalogue().items() if msgstr and fields(msgid) != fields(msgstr)}
    assert not wrong, "translations whose {placeholders} differ from the message id:\n" + "\n".join(
        f"  {m!r}: id has {sorted(a)}, translation has {sorted(b)}" for m, (a, b) in sorted(wrong.items()))


def test_every_translation_formats() -> None:
    zh = translator("zh")
    for msgid in used_msgids():
        values = {name: "X" for name in fields(msgid)}
        assert zh(msgid, **values) if values else zh(msgid), msgid


@pytest.mark.parametrize(("msgid", "values", "zh"), [
    ("hand {n}", {"n": 3}, "第 3 局"),
    ("Your turn", {}, "轮到你了"),
    ("trick {n}", {"n": 7}, "第 7 轮"),
    ("Your turn · {what} · {title}", {"what": "第 7 轮", "title": "牌友群"}, "轮到你了 · 第 7 轮 · 牌友群"),
    ("Bid {cards}", {"cards": "♠5♠5"}, "亮主 ♠5♠5"),
    ("Bury ({n}/8)", {"n": 8}, "扣底（8/8）"),
    ("Pass", {}, "不亮"),
    ("Don't steal", {}, "不抄"),
    ("no-trump", {}, "无主"),
    ("N", {}, "北"),
    ("E", {}, "东"),
    ("S", {}, "南"),
    ("W", {}, "西"),
    ("You hold pairs: you must follow with them (有对必须出对).", {}, "有对必须出对。"),
    ("Your language is now English.", {}, "你的语言已切换为中文。"),
])
def test_translator(msgid: str, values: dict[str, object], zh: str) -> None:
    assert translator("zh")(msgid, **values) == zh
    assert translator("zh").lang == "zh"
    english = translator("en")
    assert english.lang == "en"
    assert english(msgid, **values) == (msgid.format(**values) if values else msgid)


def test_unknown_language_is_english() -> None:
    assert translator("fr").lang == "en"
    assert translator("fr")("hand {n}", n=2) == "hand 2"


def test_unknown_msgid_passes_through() -> None:
    assert translator("zh")("not a message id {x}", x=1) == "not a message id 1"


@pytest.mark.parametrize(("code", "lang"), [
    ("zh-hans", "zh"), ("zh", "zh"), ("zh-TW", "zh"), ("ZH-HANS", "zh"),
    ("en", "en"), ("en-GB", "en"), ("de", "en"), ("", "en"), (None, "en"),
])
def test_pick_language(code: str | None, lang: str) -> None:
    assert pick_language(code) == lang
