"""The Bot API methods the bot may call, with Telegram's checks and error answers.

Each method takes decoded :class:`Params` and returns the ``result`` of a
successful answer or raises :class:`~.errors.ApiError`. Validation comes first,
flood control next, and only then is anything changed, so a refused request
leaves no trace but its entry in the call log.

Photos (``sendPhoto``, ``editMessageMedia``) are an upload (a PNG or JPEG of
at most 10 MB, width + height at most 10,000, sides at most 20 to 1, as
Telegram checks) or the ``file_id`` of one sent before; a URL is refused (the
fake fetches nothing). A caption has at most 1024 characters after parsing.
The server keeps every upload by its ``file_id`` (``State.files``).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from . import errors
from .errors import ApiError, bad_request, forbidden
from .formatting import render_text
from .limits import Clock, FloodControl
from .markup import parse_reply_markup
from .state import DEFAULT_ALLOWED_UPDATES, Chat, Message, MessageVersion, State, unix_now

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_ANSWER_TEXT = 200
MAX_PHOTO_BYTES = 10 * 1024 * 1024
DELETE_WINDOW = 48 * 3600  # seconds after which a bot may no longer delete a message (unless a group's admin)
# Parameters whose form value is the raw string (PTB does not JSON-encode strings);
# every other form value is JSON, e.g. chat_id "123" or reply_markup "{...}".
STRING_PARAMS = frozenset(
    {
        "text", "parse_mode", "callback_query_id", "url", "language_code", "action",
        "inline_message_id", "business_connection_id", "emoji", "caption", "title",
        "description", "short_description", "secret_token", "message_effect_id",
    }
)
_COMMAND_NAME = re.compile(r"[a-z0-9_]{1,32}")

Handler = Callable[["Params"], Awaitable[Any]]


class Params:
    """The parameters of one request, decoded as Telegram decodes them."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values
        self.files: dict[str, bytes] = {}
        """Uploaded files by form field name (a multipart request)."""

    @classmethod
    def from_form(cls, form: dict[str, str]) -> Params:
        """Decode form fields: strings stay raw, everything else is JSON (as PTB sends it)."""
        values: dict[str, Any] = {}
        for name, raw in form.items():
            if name in STRING_PARAMS:
                values[name] = raw
                continue
            try:
                values[name] = json.loads(raw)
            except ValueError:
                values[name] = raw
        return cls(values)

    def get(self, name: str) -> Any:
        """The decoded value, or None."""
        return self.values.get(name)

    def get_str(self, name: str, *, required: bool = False) -> str | None:
        """A string parameter (numbers are accepted and turned into strings)."""
        value = self.values.get(name)
        if value is None:
            if required:
                raise bad_request(errors.required(name))
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise bad_request(f'Bad Request: field "{name}" must be of type String')
        return str(value)

    def get_int(self, name: str, *, required: bool = False) -> int | None:
        """An integer parameter."""
        value = self.values.get(name)
        if value is None:
            if required:
                raise bad_request(errors.required(name))
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
            return int(value)
        raise bad_request(f'Bad Request: field "{name}" must be a valid Number')

    def get_float(self, name: str) -> float | None:
        """A number parameter (e.g. a long-polling timeout)."""
        value = self.values.get(name)
        if value is None:
            return None
        try:
            return float(value)
        except (TypeError, ValueError):
            raise bad_request(f'Bad Request: field "{name}" must be a valid Number') from None

    def get_bool(self, name: str) -> bool:
        """A boolean parameter; missing means False."""
        value = self.values.get(name)
        if isinstance(value, str):
            return value.lower() in ("true", "1")
        return bool(value)

    def get_json(self, name: str) -> Any:
        """A JSON parameter (object or array), decoded if it arrived as a string."""
        value = self.values.get(name)
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                raise bad_request(f"Bad Request: can't parse {name} JSON object") from None
        return value


class BotApi:
    """The methods, bound to one server's state, flood control and clock."""

    def __init__(
        self,
        state: State,
        flood: FloodControl,
        clock: Clock,
        *,
        callback_query_ttl: float | None,
        privacy_mode: bool,
    ) -> None:
        self.state = state
        self.flood = flood
        self.clock = clock
        self.callback_query_ttl = callback_query_ttl
        self.privacy_mode = privacy_mode
        self.closing = False
        self._poll_seq = 0
        self.handlers: dict[str, Handler] = {
            "getme": self.get_me,
            "getupdates": self.get_updates,
            "deletewebhook": self.delete_webhook,
            "getwebhookinfo": self.get_webhook_info,
            "sendmessage": self.send_message,
            "sendphoto": self.send_photo,
            "editmessagemedia": self.edit_message_media,
            "editmessagecaption": self.edit_message_caption,
            "editmessagetext": self.edit_message_text,
            "editmessagereplymarkup": self.edit_message_reply_markup,
            "answercallbackquery": self.answer_callback_query,
            "deletemessage": self.delete_message,
            "deletemessages": self.delete_messages,
            "setmycommands": self.set_my_commands,
            "getmycommands": self.get_my_commands,
            "deletemycommands": self.delete_my_commands,
            "getchatmember": self.get_chat_member,
            "getchatadministrators": self.get_chat_administrators,
            "getchat": self.get_chat,
            "sendchataction": self.send_chat_action,
            "pinchatmessage": self.pin_chat_message,
            "unpinchatmessage": self.unpin_chat_message,
            "unpinallchatmessages": self.unpin_all_chat_messages,
            "setchatmenubutton": self.set_chat_menu_button,
            "setmydescription": self.set_my_description,
            "getmydescription": self.get_my_description,
            "setmyshortdescription": self.set_my_short_description,
            "getmyshortdescription": self.get_my_short_description,
        }

    # --- chats -----------------------------------------------------------

    def chat(self, p: Params, name: str = "chat_id") -> Chat:
        """The chat a request names, or 400 "chat not found"."""
        raw = p.get(name)
        if raw is None or raw == "":
            raise bad_request(f"Bad Request: {name} is empty")
        if isinstance(raw, str) and raw.startswith("@"):
            for chat in self.state.chats.values():
                if chat.username and chat.username.lower() == raw[1:].lower():
                    return chat
            raise bad_request(errors.CHAT_NOT_FOUND)
        try:
            chat_id = p.get_int(name)
        except ApiError:
            raise bad_request(errors.CHAT_NOT_FOUND) from None
        found = self.state.chats.get(chat_id) if chat_id is not None else None
        if found is None:
            raise bad_request(errors.CHAT_NOT_FOUND)
        return found

    def writable_chat(self, p: Params) -> Chat:
        """The chat of a request that writes to it: 403/400 where Telegram refuses."""
        raw = p.get("chat_id")
        target = self.state.users.get(int(raw)) if isinstance(raw, int | str) and str(raw).lstrip("-").isdigit() \
            else None
        if target is not None and target.is_bot:  # GroupAnonymousBot, say: the sender of an anonymous admin
            raise forbidden(errors.TO_BOTS)
        chat = self.chat(p)
        if chat.migrated_to is not None:
            raise bad_request(errors.UPGRADED, {"migrate_to_chat_id": chat.migrated_to})
        if chat.type == "private":
            user = self.state.users[chat.id]
            if user.has_blocked_bot:
                raise forbidden(errors.BLOCKED)
            if not user.has_started_bot:
                raise forbidden(errors.CANT_INITIATE)
        elif chat.bot_status == "kicked":
            raise forbidden(errors.kicked(chat.type))
        elif chat.bot_status == "left":
            raise forbidden(errors.not_member(chat.type))
        return chat

    def _flood(self, chat: Chat, *, is_edit: bool) -> None:
        retry_after = self.flood.acquire(chat.id, is_group=chat.is_group, is_edit=is_edit)
        if retry_after is not None:
            raise ApiError(429, errors.too_many_requests(retry_after), {"retry_after": retry_after})

    def _text(self, p: Params, too_long: str) -> tuple[str, list[dict[str, Any]]]:
        entities = p.get_json("entities")
        text, parsed = render_text(p.get_str("text"), p.get_str("parse_mode"), entities)
        if len(text) > MAX_TEXT:
            raise bad_request(too_long)
        return text, parsed

    def _editable(self, p: Params) -> tuple[Chat, Message]:
        if p.get("inline_message_id") is not None:
            raise bad_request("Bad Request: fake server does not implement inline_message_id")
        chat = self.writable_chat(p)
        message_id = p.get_int("message_id", required=True)
        assert message_id is not None
        message = self.state.find_message(chat.id, message_id)
        if message is None:
            raise bad_request(errors.EDIT_NOT_FOUND)
        if not message.from_bot:
            raise bad_request(errors.CANT_EDIT)
        return chat, message

    # --- methods -----------------------------------------------------------

    async def get_me(self, p: Params) -> dict[str, Any]:
        """getMe."""
        return {
            **self.state.bot.to_api(),
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    async def get_updates(self, p: Params) -> list[dict[str, Any]]:
        """getUpdates with long polling; a newer call ends an older waiting one with 409."""
        queue = self.state.updates
        offset = p.get_int("offset")
        limit = max(1, min(100, p.get_int("limit") or 100))
        timeout = max(0.0, p.get_float("timeout") or 0.0)
        allowed = p.get_json("allowed_updates")
        if allowed is not None:
            queue.allowed_updates = frozenset(allowed) if allowed else DEFAULT_ALLOWED_UPDATES
        queue.confirm(offset)
        self._poll_seq += 1
        mine = self._poll_seq
        queue.wake()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if mine != self._poll_seq:
                raise ApiError(409, errors.CONFLICT)
            if queue.pending:
                return [dict(u) for u in queue.pending[:limit]]
            remaining = deadline - loop.time()
            if self.closing or remaining <= 0:
                return []
            event = queue.event()
            try:
                await asyncio.wait_for(event.wait(), remaining)
            except TimeoutError:
                pass

    async def delete_webhook(self, p: Params) -> bool:
        """deleteWebhook (there is never a webhook here); may drop pending updates."""
        if p.get_bool("drop_pending_updates"):
            self.state.updates.pending.clear()
        return True

    async def get_webhook_info(self, p: Params) -> dict[str, Any]:
        """getWebhookInfo: no webhook, N pending updates."""
        return {
            "url": "",
            "has_custom_certificate": False,
            "pending_update_count": len(self.state.updates.pending),
        }

    async def send_message(self, p: Params) -> dict[str, Any]:
        """sendMessage."""
        chat = self.writable_chat(p)
        if chat.bot_status == "restricted":
            raise bad_request(errors.NO_TEXT_RIGHTS)
        text, entities = self._text(p, errors.TEXT_TOO_LONG)
        markup = parse_reply_markup(p.get("reply_markup"))
        reply_to = None
        reply_parameters = p.get_json("reply_parameters")
        if isinstance(reply_parameters, dict):
            reply_to = reply_parameters.get("message_id")
            allow_missing = bool(reply_parameters.get("allow_sending_without_reply"))
        else:
            reply_to = p.get_int("reply_to_message_id")
            allow_missing = p.get_bool("allow_sending_without_reply")
        if reply_to is not None and self.state.find_message(chat.id, int(reply_to)) is None:
            if not allow_missing:
                raise bad_request(errors.REPLY_NOT_FOUND)
            reply_to = None
        thread = self._thread(p, chat, reply_to)
        self._flood(chat, is_edit=False)
        message = self.state.add_message(
            {
                "chat_id": chat.id,
                "from_id": self.state.bot.id,
                "text": text,
                "entities": entities,
                "reply_markup": markup,
                "reply_to_message_id": None if reply_to is None else int(reply_to),
                "silent": p.get_bool("disable_notification"),
                "thread_id": thread,
            },
            self.clock(),
        )
        return message.to_api(self.state)

    def _thread(self, p: Params, chat: Chat, reply_to: object) -> int | None:
        """The forum topic a new message goes to: ``message_thread_id`` (which must be one of the chat's
        topics), else the topic of the message it replies to, else General (None); refused in a closed topic
        unless the bot is an admin allowed to manage topics."""
        thread = p.get_int("message_thread_id")
        if thread is not None:
            if thread not in chat.topics:
                raise bad_request(errors.THREAD_NOT_FOUND)
        elif reply_to is not None:
            replied = self.state.find_message(chat.id, int(str(reply_to)))
            thread = replied.thread_id if replied is not None else None
        if thread in chat.closed_topics and not (chat.bot_status == "administrator" and chat.bot_manages_topics):
            raise bad_request(errors.TOPIC_CLOSED)
        return thread

    def _caption(self, p: Params, caption: str | None, parse_mode: str | None,
                 entities: list[dict[str, Any]] | None = None) -> tuple[str | None, list[dict[str, Any]]]:
        if not caption:
            return None, []
        text, parsed = render_text(caption, parse_mode, entities)
        if len(text) > MAX_CAPTION:
            raise bad_request(errors.CAPTION_TOO_LONG)
        return text, parsed

    def _photo(self, p: Params, value: object) -> tuple[list[dict[str, Any]], bytes]:
        """The PhotoSize list of a photo given as an upload (a field, or ``attach://<field>``) or a file_id."""
        if isinstance(value, str) and value.startswith("attach://"):
            value = p.files.get(value[len("attach://"):])
        elif isinstance(value, str) and value.startswith("<file "):
            value = p.files.get(value[len("<file "):-1])
        if isinstance(value, str):
            if value not in self.state.files:
                raise bad_request(errors.WRONG_FILE)
            data, file_id = self.state.files[value], value
        elif isinstance(value, bytes):
            data, file_id = value, None
        else:
            raise bad_request(errors.required("photo"))
        if len(data) > MAX_PHOTO_BYTES:
            raise bad_request(errors.PHOTO_TOO_BIG)
        size = image_size(data)
        if size is None:
            raise bad_request(errors.PHOTO_INVALID)
        width, height = size
        if width + height > 10_000 or max(width, height) > 20 * min(width, height):
            raise bad_request(errors.PHOTO_DIMENSIONS)
        if file_id is None:
            file_id = f"AgACAgQAAxkDAAI{len(self.state.files) + 1:06d}fake"
        return [{"file_id": file_id, "file_unique_id": f"u{file_id[-12:]}", "width": width, "height": height,
                 "file_size": len(data)}], data

    async def send_photo(self, p: Params) -> dict[str, Any]:
        """sendPhoto."""
        chat = self.writable_chat(p)
        if chat.bot_status == "restricted":
            raise bad_request(errors.NO_PHOTO_RIGHTS)
        photo, data = self._photo(p, p.get("photo"))
        caption, entities = self._caption(p, p.get_str("caption"), p.get_str("parse_mode"),
                                          p.get_json("caption_entities"))
        markup = parse_reply_markup(p.get("reply_markup"))
        reply_to = None
        reply_parameters = p.get_json("reply_parameters")
        if isinstance(reply_parameters, dict):
            reply_to = reply_parameters.get("message_id")
        if reply_to is not None and self.state.find_message(chat.id, int(reply_to)) is None:
            raise bad_request(errors.REPLY_NOT_FOUND)
        thread = self._thread(p, chat, reply_to)
        self._flood(chat, is_edit=False)
        self.state.files[photo[-1]["file_id"]] = data
        message = self.state.add_message(
            {
                "chat_id": chat.id,
                "from_id": self.state.bot.id,
                "photo": photo,
                "caption": caption,
                "caption_entities": entities,
                "reply_markup": markup,
                "reply_to_message_id": None if reply_to is None else int(reply_to),
                "silent": p.get_bool("disable_notification"),
                "thread_id": thread,
            },
            self.clock(),
        )
        return message.to_api(self.state)

    async def edit_message_media(self, p: Params) -> dict[str, Any]:
        """editMessageMedia (photos only): a new picture and caption; omitting reply_markup removes it."""
        chat, message = self._editable(p)
        if message.photo is None:
            raise bad_request(errors.NO_MEDIA)
        media = p.get_json("media")
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise bad_request("Bad Request: can't parse InputMedia: media type not supported here")
        photo, data = self._photo(p, media.get("media"))
        caption, entities = self._caption(p, media.get("caption"), media.get("parse_mode"),
                                          media.get("caption_entities"))
        markup = parse_reply_markup(p.get("reply_markup"), inline_only=True)
        if (photo[-1]["file_id"], caption, _plain(entities), _plain(markup)) == (
                message.photo_id, message.caption, _plain(message.caption_entities), _plain(message.reply_markup)):
            raise bad_request(errors.NOT_MODIFIED)
        self._flood(chat, is_edit=True)
        self.state.files[photo[-1]["file_id"]] = data
        message.photo, message.caption, message.caption_entities = photo, caption, entities
        return self._edited(message, markup)

    async def edit_message_caption(self, p: Params) -> dict[str, Any]:
        """editMessageCaption; omitting reply_markup removes the keyboard."""
        chat, message = self._editable(p)
        if message.photo is None:
            raise bad_request(errors.NO_CAPTION)
        caption, entities = self._caption(p, p.get_str("caption"), p.get_str("parse_mode"),
                                          p.get_json("caption_entities"))
        markup = parse_reply_markup(p.get("reply_markup"), inline_only=True)
        if (caption, _plain(entities), _plain(markup)) == (
                message.caption, _plain(message.caption_entities), _plain(message.reply_markup)):
            raise bad_request(errors.NOT_MODIFIED)
        self._flood(chat, is_edit=True)
        message.caption, message.caption_entities = caption, entities
        return self._edited(message, markup)

    def _edited(self, message: Message, markup: dict[str, Any] | None) -> dict[str, Any]:
        message.reply_markup = markup
        message.edit_date = unix_now()
        message.history.append(MessageVersion(message.caption, tuple(message.caption_entities), markup,
                                              self.clock()))
        return message.to_api(self.state)

    async def edit_message_text(self, p: Params) -> dict[str, Any]:
        """editMessageText; omitting reply_markup removes the keyboard, as on Telegram."""
        chat, message = self._editable(p)
        if message.text is None:
            raise bad_request("Bad Request: there is no text in the message to edit")
        text, entities = self._text(p, errors.EDIT_TOO_LONG)
        markup = parse_reply_markup(p.get("reply_markup"), inline_only=True)
        return self._apply_edit(chat, message, text, entities, markup)

    async def edit_message_reply_markup(self, p: Params) -> dict[str, Any]:
        """editMessageReplyMarkup; omitting reply_markup removes the keyboard."""
        chat, message = self._editable(p)
        markup = parse_reply_markup(p.get("reply_markup"), inline_only=True)
        return self._apply_edit(chat, message, message.text, list(message.entities), markup)

    def _apply_edit(
        self,
        chat: Chat,
        message: Message,
        text: str | None,
        entities: list[dict[str, Any]],
        markup: dict[str, Any] | None,
    ) -> dict[str, Any]:
        before = message.content()
        candidate = Message(
            chat_id=message.chat_id,
            message_id=message.message_id,
            from_id=message.from_id,
            date=message.date,
            text=text,
            entities=entities,
            reply_markup=markup,
        )
        if candidate.content() == before:
            raise bad_request(errors.NOT_MODIFIED)
        self._flood(chat, is_edit=True)
        message.text = text
        message.entities = entities
        message.reply_markup = markup
        message.edit_date = unix_now()
        message.history.append(MessageVersion(text, tuple(entities), markup, self.clock()))
        return message.to_api(self.state)

    async def answer_callback_query(self, p: Params) -> bool:
        """answerCallbackQuery: once per query, within ``callback_query_ttl`` seconds."""
        query_id = p.get_str("callback_query_id", required=True)
        assert query_id is not None
        query = self.state.callback_queries.get(query_id)
        if query is None or query.answered:
            raise bad_request(errors.QUERY_TOO_OLD)
        if self.callback_query_ttl is not None and self.clock() - query.created_at > self.callback_query_ttl:
            raise bad_request(errors.QUERY_TOO_OLD)
        text = p.get_str("text")
        if text is not None and len(text) > MAX_ANSWER_TEXT:
            raise bad_request(errors.ANSWER_TOO_LONG)
        query.answered = True
        query.answer_text = text or None
        query.show_alert = p.get_bool("show_alert")
        query.answer_url = p.get_str("url")
        query.answered_at = self.clock()
        return True

    async def delete_message(self, p: Params) -> bool:
        """deleteMessage: own messages sent less than 48 hours ago (by their ``date``); in groups, others'
        and older ones only as an admin."""
        chat = self.writable_chat(p)
        message_id = p.get_int("message_id", required=True)
        assert message_id is not None
        message = self.state.find_message(chat.id, message_id)
        if message is None:
            raise bad_request(errors.DELETE_NOT_FOUND)
        admin = chat.is_group and chat.bot_status == "administrator"
        if chat.is_group and not message.from_bot and not admin:
            raise bad_request(errors.CANT_DELETE)
        if unix_now() - message.date >= DELETE_WINDOW and not admin:
            raise bad_request(errors.CANT_DELETE_FOR_EVERYONE)
        message.deleted = True
        return True

    async def delete_messages(self, p: Params) -> bool:
        """deleteMessages: messages that cannot be found are skipped."""
        chat = self.writable_chat(p)
        ids = p.get_json("message_ids")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
            raise bad_request('Bad Request: parameter "message_ids" is required')
        for message_id in ids:
            message = self.state.find_message(chat.id, int(message_id))
            if message is None:
                continue
            if chat.is_group and not message.from_bot and chat.bot_status != "administrator":
                raise bad_request(errors.CANT_DELETE)
            message.deleted = True
        return True

    @staticmethod
    def _commands_key(p: Params) -> tuple[str, str]:
        scope = p.get_json("scope") or {"type": "default"}
        if not isinstance(scope, dict) or "type" not in scope:
            raise bad_request("Bad Request: can't parse BotCommandScope JSON object")
        return json.dumps(scope, sort_keys=True), p.get_str("language_code") or ""

    async def set_my_commands(self, p: Params) -> bool:
        """setMyCommands, stored per (scope, language_code)."""
        commands = p.get_json("commands")
        if not isinstance(commands, list):
            raise bad_request(errors.required("commands"))
        if len(commands) > 100:
            raise bad_request("Bad Request: too many commands")
        clean: list[dict[str, str]] = []
        for command in commands:
            name = command.get("command") if isinstance(command, dict) else None
            description = command.get("description") if isinstance(command, dict) else None
            if not isinstance(name, str) or not _COMMAND_NAME.fullmatch(name):
                raise bad_request(errors.COMMAND_INVALID)
            if not isinstance(description, str) or not 1 <= len(description) <= 256:
                raise bad_request(errors.COMMAND_DESCRIPTION_INVALID)
            clean.append({"command": name, "description": description})
        key = self._commands_key(p)
        if clean:
            self.state.commands[key] = clean
        else:
            self.state.commands.pop(key, None)
        return True

    async def get_my_commands(self, p: Params) -> list[dict[str, str]]:
        """getMyCommands for exactly the given scope and language (no fallback)."""
        return list(self.state.commands.get(self._commands_key(p), []))

    async def delete_my_commands(self, p: Params) -> bool:
        """deleteMyCommands."""
        self.state.commands.pop(self._commands_key(p), None)
        return True

    async def set_my_description(self, p: Params) -> bool:
        """setMyDescription: at most 512 characters, per language code ("" removes it)."""
        return self._describe(p, "description", 512)

    async def set_my_short_description(self, p: Params) -> bool:
        """setMyShortDescription: at most 120 characters, per language code ("" removes it)."""
        return self._describe(p, "short_description", 120)

    def _describe(self, p: Params, field: str, most: int) -> bool:
        text = p.get_str(field) or ""
        if len(text) > most:
            raise bad_request(f"Bad Request: {field.upper()}_INVALID")
        key = (field, p.get_str("language_code") or "")
        if text:
            self.state.descriptions[key] = text
        else:
            self.state.descriptions.pop(key, None)
        return True

    async def get_my_description(self, p: Params) -> dict[str, str]:
        """getMyDescription: the one set for the language code, else the default."""
        return {"description": self._description(p, "description")}

    async def get_my_short_description(self, p: Params) -> dict[str, str]:
        """getMyShortDescription: the one set for the language code, else the default."""
        return {"short_description": self._description(p, "short_description")}

    def _description(self, p: Params, field: str) -> str:
        found = self.state.descriptions
        return found.get((field, p.get_str("language_code") or ""), found.get((field, ""), ""))

    def _member(self, chat: Chat, user_id: int) -> dict[str, Any]:
        user = self.state.users.get(user_id)
        if user is None:
            raise bad_request(errors.USER_NOT_FOUND)
        if chat.type == "private":
            if user_id not in (chat.id, self.state.bot.id):
                raise bad_request(errors.USER_NOT_FOUND)
            status = "member"
        elif user_id == self.state.bot.id:
            status = chat.bot_status
        else:
            status = chat.members.get(user_id, "left")
        member = chat_member(user.to_api(), status)
        if chat.is_forum and status == "administrator":
            member["can_manage_topics"] = user_id != self.state.bot.id or chat.bot_manages_topics
        return member

    async def get_chat_member(self, p: Params) -> dict[str, Any]:
        """getChatMember."""
        chat = self.chat(p)
        user_id = p.get_int("user_id", required=True)
        assert user_id is not None
        return self._member(chat, user_id)

    async def get_chat_administrators(self, p: Params) -> list[dict[str, Any]]:
        """getChatAdministrators (people only, as the bot itself is listed only if admin)."""
        chat = self.chat(p)
        if not chat.is_group:
            return []
        admins = [uid for uid, status in chat.members.items() if status in ("creator", "administrator")]
        if chat.bot_status == "administrator":
            admins.append(self.state.bot.id)
        return [self._member(chat, uid) for uid in admins]

    async def get_chat(self, p: Params) -> dict[str, Any]:
        """getChat (a ChatFullInfo); a user who never opened the bot is "chat not found"."""
        chat = self.chat(p)
        if chat.type == "private" and not self.state.users[chat.id].has_started_bot:
            raise bad_request(errors.CHAT_NOT_FOUND)
        info = chat.to_api(self.state.users)
        info.pop("all_members_are_administrators", None)
        info.update(
            {
                "accent_color_id": 0,
                "max_reaction_count": 11,
                "accepted_gift_types": {
                    "unlimited_gifts": False,
                    "limited_gifts": False,
                    "unique_gifts": False,
                    "premium_subscription": False,
                    "gifts_from_channels": False,
                },
            }
        )
        if chat.migrated_to is not None:
            raise bad_request(errors.UPGRADED, {"migrate_to_chat_id": chat.migrated_to})
        return info

    async def set_chat_menu_button(self, p: Params) -> bool:
        """setChatMenuButton: a web_app button needs text and an https URL, as Telegram checks."""
        button = p.get_json("menu_button") or {"type": "default"}
        if not isinstance(button, dict) or button.get("type") not in ("commands", "web_app", "default"):
            raise bad_request("Bad Request: can't parse menu button")
        if button["type"] == "web_app":
            url = (button.get("web_app") or {}).get("url", "")
            if not button.get("text") or not isinstance(url, str) or not url.startswith("https://"):
                raise bad_request("Bad Request: BUTTON_URL_INVALID")
        chat_id = p.get_int("chat_id")
        self.state.menu_buttons[chat_id] = button
        return True

    async def send_chat_action(self, p: Params) -> bool:
        """sendChatAction (shows nothing here)."""
        self.writable_chat(p)
        p.get_str("action", required=True)
        return True

    async def pin_chat_message(self, p: Params) -> bool:
        """pinChatMessage: kept in ``state.pinned``; refused where ``Chat.pins_allowed`` is False."""
        chat = self.writable_chat(p)
        if chat.is_group and not chat.pins_allowed:
            raise bad_request(errors.CANT_PIN)
        message_id = p.get_int("message_id", required=True)
        assert message_id is not None
        if self.state.find_message(chat.id, message_id) is None:
            raise bad_request("Bad Request: message to pin not found")
        pins = self.state.pinned.setdefault(chat.id, [])
        if message_id in pins:
            pins.remove(message_id)
        pins.append(message_id)
        self.state.on_change()
        return True

    async def unpin_chat_message(self, p: Params) -> bool:
        """unpinChatMessage: the message given, else the latest pinned."""
        chat = self.writable_chat(p)
        pins = self.state.pinned.setdefault(chat.id, [])
        message_id = p.get_int("message_id")
        if message_id is None and pins:
            pins.pop()
        elif message_id in pins:
            pins.remove(message_id)
        self.state.on_change()
        return True

    async def unpin_all_chat_messages(self, p: Params) -> bool:
        """unpinAllChatMessages."""
        self.state.pinned.pop(self.writable_chat(p).id, None)
        self.state.on_change()
        return True


_ADMIN_RIGHTS = {
    "can_be_edited": False,
    "is_anonymous": False,
    "can_manage_chat": True,
    "can_delete_messages": True,
    "can_manage_video_chats": True,
    "can_restrict_members": True,
    "can_promote_members": False,
    "can_change_info": True,
    "can_invite_users": True,
    "can_post_stories": False,
    "can_edit_stories": False,
    "can_delete_stories": False,
    "can_pin_messages": True,
}


def _plain(value: object) -> str:
    """A comparable form of a JSON value."""
    return json.dumps(value, sort_keys=True)


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG or a baseline/progressive JPEG; None for anything else."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] == b"\xff\xd8":
        at = 2
        while at + 9 < len(data):
            if data[at] != 0xFF:
                return None
            marker, length = data[at + 1], int.from_bytes(data[at + 2:at + 4], "big")
            if marker in (0xC0, 0xC1, 0xC2):
                return int.from_bytes(data[at + 7:at + 9], "big"), int.from_bytes(data[at + 5:at + 7], "big")
            at += 2 + length
    return None


def chat_member(user: dict[str, Any], status: str) -> dict[str, Any]:
    """A Bot API ``ChatMember`` object for ``status``."""
    member: dict[str, Any] = {"status": status, "user": user}
    if status == "creator":
        member["is_anonymous"] = False
    elif status == "administrator":
        member.update(_ADMIN_RIGHTS)
    elif status == "kicked":
        member["until_date"] = 0
    elif status == "restricted":  # the bot muted: a member still, without the right to send anything
        member.update(MUTED)
    return member


MUTED: dict[str, Any] = {
    "is_member": True, "until_date": 0, "can_send_messages": False, "can_send_audios": False,
    "can_send_documents": False, "can_send_photos": False, "can_send_videos": False,
    "can_send_video_notes": False, "can_send_voice_notes": False, "can_send_polls": False,
    "can_send_other_messages": False, "can_add_web_page_previews": False, "can_change_info": False,
    "can_invite_users": False, "can_pin_messages": False, "can_manage_topics": False, "can_edit_tag": False,
    "can_react_to_messages": False,
}
"""The rights of a member restricted from sending anything (``ChatMemberRestricted``), as Telegram lists them."""
