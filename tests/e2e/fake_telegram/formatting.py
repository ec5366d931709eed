"""Message text as Telegram treats it: HTML parsing, trimming, entities, commands.

The HTML parser follows tdlib's ``parse_html`` closely (same accepted tags, same
error sentences with byte offsets into the UTF-8 source) because a bot that sends
HTML Telegram refuses loses the whole message in production. Entity offsets and
lengths are in UTF-16 code units, as in the Bot API.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import errors

# tdlib accepts exactly these start tags.
SUPPORTED_TAGS = frozenset(
    {
        "a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins",
        "tg-spoiler", "tg-emoji", "span", "pre", "code", "blockquote",
    }
)
_SIMPLE_ENTITY = {
    "b": "bold", "strong": "bold",
    "i": "italic", "em": "italic",
    "u": "underline", "ins": "underline",
    "s": "strikethrough", "strike": "strikethrough", "del": "strikethrough",
    "tg-spoiler": "spoiler", "span": "spoiler",
}
_NAMED_CHARREFS = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
# A command as Telegram's clients mark it: "/" + up to 64 of [A-Za-z0-9_], an
# optional "@botname", not glued to a preceding word.
_COMMAND_RE = re.compile(r"(?<![\w/@])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w@])")


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units, the unit of Bot API entity offsets."""
    return len(text.encode("utf-16-le")) // 2


@dataclass
class _Open:
    tag: str
    attrs: dict[str, str]
    start: int  # UTF-16 offset in the output
    byte_offset: int


def _byte_offset(source: str, index: int) -> int:
    return len(source[:index].encode("utf-8"))


def _decode_charref(source: str, i: int) -> tuple[str, int] | None:
    """Decode ``&...;`` at ``source[i]``; None means the '&' stays literal."""
    end = source.find(";", i + 1, i + 12)
    if end == -1:
        return None
    name = source[i + 1 : end]
    if name in _NAMED_CHARREFS:
        return _NAMED_CHARREFS[name], end + 1
    try:
        if name.startswith(("#x", "#X")):
            code = int(name[2:], 16)
        elif name.startswith("#"):
            code = int(name[1:], 10)
        else:
            return None
        return chr(code), end + 1
    except (ValueError, OverflowError):
        return None


def _unescape(value: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(value):
        if value[i] == "&":
            decoded = _decode_charref(value, i)
            if decoded is not None:
                out.append(decoded[0])
                i = decoded[1]
                continue
        out.append(value[i])
        i += 1
    return "".join(out)


def parse_html(source: str) -> tuple[str, list[dict[str, Any]]]:
    """Parse Telegram HTML into (plain text, entities) or raise ``ApiError`` 400.

    The error details are tdlib's: "Unsupported start tag "br" at byte offset 5",
    "Can't find end tag corresponding to start tag "b"", "Unmatched end tag at byte
    offset 9, expected "</b>", found "</i>"", and so on.
    """

    def fail(detail: str) -> errors.ApiError:
        return errors.bad_request(errors.cant_parse_entities(detail))

    out: list[str] = []
    out_len = 0  # UTF-16 units emitted so far
    stack: list[_Open] = []
    entities: list[dict[str, Any]] = []
    n = len(source)
    i = 0
    while i < n:
        ch = source[i]
        if ch == "&":
            decoded = _decode_charref(source, i)
            if decoded is not None:
                out.append(decoded[0])
                out_len += utf16_len(decoded[0])
                i = decoded[1]
                continue
        if ch != "<":
            out.append(ch)
            out_len += utf16_len(ch)
            i += 1
            continue
        begin = i
        begin_bytes = _byte_offset(source, begin)
        i += 1
        if i < n and source[i] == "/":
            i += 1
            if not stack:
                raise fail(f"Unexpected end tag at byte offset {begin_bytes}")
            name_start = i
            while i < n and not source[i].isspace() and source[i] != ">":
                i += 1
            end_name = source[name_start:i].lower()
            while i < n and source[i].isspace():
                i += 1
            if i >= n or source[i] != ">":
                raise fail(f"Unclosed end tag at byte offset {begin_bytes}")
            i += 1
            opened = stack.pop()
            if end_name and end_name != opened.tag:
                raise fail(
                    f"Unmatched end tag at byte offset {begin_bytes}, "
                    f'expected "</{opened.tag}>", found "</{end_name}>"'
                )
            entity = _entity_for(opened, out_len, stack)
            if entity is not None:
                entities.append(entity)
            continue
        name_start = i
        while i < n and not source[i].isspace() and source[i] != ">":
            i += 1
        if i >= n:
            raise fail(f"Unclosed start tag at byte offset {begin_bytes}")
        tag = source[name_start:i].lower()
        if tag not in SUPPORTED_TAGS:
            raise fail(f'Unsupported start tag "{tag}" at byte offset {begin_bytes}')
        attrs: dict[str, str] = {}
        while True:
            while i < n and source[i].isspace():
                i += 1
            if i >= n:
                raise fail(f"Unclosed start tag at byte offset {begin_bytes}")
            if source[i] == ">":
                i += 1
                break
            attr_start = i
            while i < n and not source[i].isspace() and source[i] not in "=>":
                i += 1
            attr = source[attr_start:i].lower()
            if not attr:
                raise fail(f'Empty attribute name in the tag "{tag}" at byte offset {begin_bytes}')
            while i < n and source[i].isspace():
                i += 1
            if i < n and source[i] == "=":
                i += 1
                while i < n and source[i].isspace():
                    i += 1
                if i >= n:
                    raise fail(f"Unclosed start tag at byte offset {begin_bytes}")
                if source[i] in "'\"":
                    quote = source[i]
                    close = source.find(quote, i + 1)
                    if close == -1:
                        raise fail(f"Unclosed start tag at byte offset {begin_bytes}")
                    value = source[i + 1 : close]
                    i = close + 1
                else:
                    value_start = i
                    while i < n and not source[i].isspace() and source[i] != ">":
                        i += 1
                    value = source[value_start:i]
                attrs[attr] = _unescape(value)
            else:
                attrs[attr] = ""
        if tag == "span" and attrs.get("class") != "tg-spoiler":
            raise fail(f'Tag "span" must have class "tg-spoiler" at byte offset {begin_bytes}')
        stack.append(_Open(tag, attrs, out_len, begin_bytes))
    if stack:
        raise fail(f'Can\'t find end tag corresponding to start tag "{stack[-1].tag}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def _entity_for(opened: _Open, end: int, stack: list[_Open]) -> dict[str, Any] | None:
    length = end - opened.start
    if length <= 0:
        return None
    entity: dict[str, Any] = {"offset": opened.start, "length": length}
    tag = opened.tag
    if tag in _SIMPLE_ENTITY:
        entity["type"] = _SIMPLE_ENTITY[tag]
    elif tag == "a":
        href = opened.attrs.get("href", "")
        if not href:
            return None
        match = re.fullmatch(r"tg://user\?id=(\d+)", href)
        if match:
            entity["type"] = "text_mention"
            entity["user"] = {"id": int(match.group(1)), "is_bot": False, "first_name": ""}
        else:
            entity["type"] = "text_link"
            entity["url"] = href
    elif tag == "tg-emoji":
        entity["type"] = "custom_emoji"
        entity["custom_emoji_id"] = opened.attrs.get("emoji-id", "")
    elif tag == "code":
        if stack and stack[-1].tag == "pre":
            language = opened.attrs.get("class", "")
            if language.startswith("language-"):
                stack[-1].attrs["language"] = language.removeprefix("language-")
            return None
        entity["type"] = "code"
    elif tag == "pre":
        entity["type"] = "pre"
        if opened.attrs.get("language"):
            entity["language"] = opened.attrs["language"]
    elif tag == "blockquote":
        entity["type"] = "expandable_blockquote" if "expandable" in opened.attrs else "blockquote"
    else:  # pragma: no cover - SUPPORTED_TAGS and this function must agree
        raise AssertionError(tag)
    return entity


def trim(text: str, entities: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Strip leading and trailing whitespace as Telegram does, moving entities along."""
    stripped = text.strip()
    if stripped == text:
        return text, entities
    lead = utf16_len(text[: len(text) - len(text.lstrip())])
    limit = utf16_len(stripped)
    kept: list[dict[str, Any]] = []
    for entity in entities:
        start = max(entity["offset"] - lead, 0)
        end = min(entity["offset"] + entity["length"] - lead, limit)
        if end > start:
            kept.append({**entity, "offset": start, "length": end - start})
    return stripped, kept


def render_text(
    text: str | None, parse_mode: str | None, entities: list[dict[str, Any]] | None
) -> tuple[str, list[dict[str, Any]]]:
    """Turn sendMessage/editMessageText parameters into the (text, entities) people see.

    Raises 400 for empty text, unparsable HTML or an unsupported parse mode.
    Length limits are the caller's business (send and edit word them differently).
    """
    if text is None or text == "":
        raise errors.bad_request(errors.TEXT_EMPTY)
    mode = (parse_mode or "").lower()
    if mode == "html":
        plain, parsed = parse_html(text)
    elif mode == "":
        plain, parsed = text, list(entities or [])
    elif mode in ("markdown", "markdownv2"):
        # The bot uses HTML; a fake that silently accepted Markdown would hide a bug.
        raise errors.bad_request(
            f"Bad Request: fake server does not implement parse_mode {parse_mode!r}"
        )
    else:
        raise errors.bad_request(errors.UNSUPPORTED_PARSE_MODE)
    plain, parsed = trim(plain, parsed)
    if not plain:
        raise errors.bad_request(errors.TEXT_EMPTY)
    return plain, parsed


def command_entities(text: str) -> list[dict[str, Any]]:
    """The ``bot_command`` entities a Telegram client attaches to a typed message."""
    found: list[dict[str, Any]] = []
    for match in _COMMAND_RE.finditer(text):
        found.append(
            {
                "type": "bot_command",
                "offset": utf16_len(text[: match.start()]),
                "length": utf16_len(match.group(0)),
            }
        )
    return found
