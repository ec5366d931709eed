"""What the fake Telegram remembers: users, chats, messages, callback queries, updates.

Plain data with small helpers; the rules of the Bot API live in ``methods.py``
(the bot's side) and ``people.py`` (the people's side). Everything runs on one
event loop, so nothing here needs a lock.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .markup import inline_buttons

BOT_ID = 7_000_000_001
ANONYMOUS_ADMIN_ID = 1_087_968_824
"""Telegram's GroupAnonymousBot, the sender shown for an anonymous admin's messages."""
DEFAULT_ALLOWED_UPDATES = frozenset(
    {
        "message", "edited_message", "channel_post", "edited_channel_post",
        "business_connection", "business_message", "edited_business_message",
        "deleted_business_messages", "inline_query", "chosen_inline_result",
        "callback_query", "shipping_query", "pre_checkout_query", "purchased_paid_media",
        "poll", "poll_answer", "my_chat_member", "chat_join_request", "chat_boost",
        "removed_chat_boost",
    }
)
"""What Telegram sends when a bot never set ``allowed_updates``: all but
chat_member, message_reaction and message_reaction_count."""


def unix_now() -> int:
    """The ``date`` field of messages: real wall-clock seconds (only for display)."""
    return int(time.time())


@dataclass
class User:
    """A Telegram account, a person or the bot itself."""

    id: int
    first_name: str
    username: str | None = None
    last_name: str | None = None
    language_code: str | None = None
    is_bot: bool = False
    has_started_bot: bool = False
    """Pressed Start in the private chat with the bot (so the bot may write to them)."""
    has_blocked_bot: bool = False

    def to_api(self) -> dict[str, Any]:
        """The Bot API ``User`` object."""
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code and not self.is_bot:
            data["language_code"] = self.language_code
        return data


@dataclass
class Chat:
    """A private chat (id == the user's id), a group or a supergroup."""

    id: int
    type: str  # "private", "group" or "supergroup"
    title: str | None = None
    username: str | None = None
    members: dict[int, str] = field(default_factory=dict)
    """user id -> status: "creator", "administrator", "member", "left" or "kicked"."""
    bot_status: str = "member"
    """The bot's own status in a group: "member", "administrator", "restricted" (muted: it may not send,
    though it may still edit its messages), "left" or "kicked"."""
    migrated_to: int | None = None
    migrated_from: int | None = None
    is_forum: bool = False
    """A supergroup with topics: messages go to a topic (``message_thread_id``) or to General (none)."""
    topics: dict[int, str] = field(default_factory=dict)
    """A forum's topics by thread id (the id of the message that created the topic), with their names."""
    closed_topics: set[int] = field(default_factory=set)
    """The topics an admin closed: only admins allowed to manage topics may write there."""
    bot_manages_topics: bool = False
    """Whether the bot, as an administrator of a forum, may manage topics (and so write in closed ones)."""
    pins_allowed: bool = True
    """Whether the bot may pin here (False: a group whose admins keep pinning to themselves, the bot not one)."""

    @property
    def is_group(self) -> bool:
        """True for groups and supergroups."""
        return self.type in ("group", "supergroup")

    def to_api(self, users: dict[int, User]) -> dict[str, Any]:
        """The Bot API ``Chat`` object."""
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.type == "private":
            user = users[self.id]
            data["first_name"] = user.first_name
            if user.last_name:
                data["last_name"] = user.last_name
            if user.username:
                data["username"] = user.username
        else:
            data["title"] = self.title or ""
            if self.username:
                data["username"] = self.username
            if self.type == "group":
                data["all_members_are_administrators"] = False
            if self.is_forum:
                data["is_forum"] = True
        return data


@dataclass(frozen=True)
class MessageVersion:
    """One state of a message's content, kept in its edit history."""

    text: str | None
    entities: tuple[dict[str, Any], ...]
    reply_markup: dict[str, Any] | None
    at: float
    """Server-clock time this version appeared."""


@dataclass
class Message:
    """A message in a chat, with the history of its edits."""

    chat_id: int
    message_id: int
    from_id: int
    date: int
    text: str | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    reply_markup: dict[str, Any] | None = None
    reply_to_message_id: int | None = None
    edit_date: int | None = None
    deleted: bool = False
    silent: bool = False
    """Sent with ``disable_notification``: arrives without a sound or push."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Service fields such as ``migrate_to_chat_id``, copied into the API object as is."""
    photo: list[dict[str, Any]] | None = None
    """A photo message's sizes (Bot API ``PhotoSize`` objects; one here, as sent); None for text."""
    caption: str | None = None
    caption_entities: list[dict[str, Any]] = field(default_factory=list)
    thread_id: int | None = None
    """The forum topic the message is in (None: General, or a chat without topics)."""
    history: list[MessageVersion] = field(default_factory=list)
    """Every version including the current one, oldest first."""

    @property
    def from_bot(self) -> bool:
        """Whether the bot sent this message."""
        return self.from_id == BOT_ID

    @property
    def buttons(self) -> list[list[dict[str, Any]]]:
        """The inline keyboard rows, [] when there is none."""
        return inline_buttons(self.reply_markup)

    @property
    def photo_id(self) -> str | None:
        """The ``file_id`` of a photo message's picture."""
        return self.photo[-1]["file_id"] if self.photo else None

    def content(self) -> tuple[object, ...]:
        """What "message is not modified" compares."""
        return (self.text, _frozen(self.entities), _frozen(self.reply_markup), self.photo_id, self.caption,
                _frozen(self.caption_entities))

    def to_api(self, state: State, *, with_reply: bool = True) -> dict[str, Any]:
        """The Bot API ``Message`` object as the bot receives it."""
        chat = state.chats[self.chat_id]
        data: dict[str, Any] = {
            "message_id": self.message_id,
            "date": self.date,
            "chat": chat.to_api(state.users),
        }
        sender = state.users.get(self.from_id)
        if sender is not None:
            data["from"] = sender.to_api()
        if self.text is not None:
            data["text"] = self.text
            if self.entities:
                data["entities"] = [dict(e) for e in self.entities]
        if self.photo is not None:
            data["photo"] = [dict(size) for size in self.photo]
            if self.caption:
                data["caption"] = self.caption
                if self.caption_entities:
                    data["caption_entities"] = [dict(e) for e in self.caption_entities]
        if self.reply_markup and "inline_keyboard" in self.reply_markup:
            data["reply_markup"] = self.reply_markup
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if self.thread_id is not None:
            data["message_thread_id"] = self.thread_id
            data["is_topic_message"] = True
        if with_reply and self.reply_to_message_id is not None:
            replied = state.messages.get(self.chat_id, {}).get(self.reply_to_message_id)
            if replied is not None and not replied.deleted:
                data["reply_to_message"] = replied.to_api(state, with_reply=False)
        data.update(self.extra)
        return data


def _frozen(value: object) -> object:
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


@dataclass
class CallbackQuery:
    """A button press and the bot's answer to it (at most one)."""

    id: str
    from_id: int
    chat_id: int
    message_id: int
    data: str
    created_at: float
    answered: bool = False
    answer_text: str | None = None
    show_alert: bool = False
    answer_url: str | None = None
    answered_at: float | None = None


@dataclass
class UpdateQueue:
    """The bot's pending updates, removed only when confirmed by a later ``offset``."""

    pending: list[dict[str, Any]] = field(default_factory=list)
    next_update_id: int = 100_000
    allowed_updates: frozenset[str] = DEFAULT_ALLOWED_UPDATES
    delivered: list[dict[str, Any]] = field(default_factory=list)
    """Every update ever queued (for tests), including confirmed ones."""
    dropped: list[dict[str, Any]] = field(default_factory=list)
    """Updates not queued because ``allowed_updates`` excluded their kind."""
    _arrived: asyncio.Event | None = None

    def push(self, kind: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        """Queue ``{"update_id": N, kind: payload}`` unless the bot does not want ``kind``."""
        update = {"update_id": self.next_update_id, kind: payload}
        self.next_update_id += 1
        if kind not in self.allowed_updates:
            self.dropped.append(update)
            return None
        self.pending.append(update)
        self.delivered.append(update)
        self.wake()
        return update

    def confirm(self, offset: int | None) -> None:
        """Forget updates below ``offset``; a negative offset keeps only the last -offset."""
        if offset is None or offset == 0:
            return
        if offset < 0:
            self.pending = self.pending[offset:]
        else:
            self.pending = [u for u in self.pending if u["update_id"] >= offset]

    def event(self) -> asyncio.Event:
        """An event set at the next push (or ``wake``)."""
        if self._arrived is None:
            self._arrived = asyncio.Event()
        return self._arrived

    def wake(self) -> None:
        """Wake every long poll waiting now."""
        if self._arrived is not None:
            self._arrived.set()
            self._arrived = None


@dataclass
class State:
    """Everything the fake server knows."""

    bot: User
    users: dict[int, User] = field(default_factory=dict)
    chats: dict[int, Chat] = field(default_factory=dict)
    messages: dict[int, dict[int, Message]] = field(default_factory=dict)
    callback_queries: dict[str, CallbackQuery] = field(default_factory=dict)
    commands: dict[tuple[str, str], list[dict[str, str]]] = field(default_factory=dict)
    menu_buttons: dict[int | None, dict[str, Any]] = field(default_factory=dict)
    """setChatMenuButton: per private chat id, None for the default of all of them."""
    """(scope as canonical JSON, language code or "") -> the command list."""
    descriptions: dict[tuple[str, str], str] = field(default_factory=dict)
    """setMyDescription / setMyShortDescription: ("description" or "short_description", language code or "")."""
    pinned: dict[int, list[int]] = field(default_factory=dict)
    """pinChatMessage / unpinChatMessage: per chat, the ids of its pinned messages, the latest last."""
    files: dict[str, bytes] = field(default_factory=dict)
    """Every file the bot uploaded (a photo), by the ``file_id`` it was given."""
    updates: UpdateQueue = field(default_factory=UpdateQueue)
    on_change: Callable[[], None] = lambda: None
    """Called after every change, so waiters can re-check their conditions."""
    _user_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(100_001))
    _group_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(4_000_000_001))
    _supergroup_ids: itertools.count[int] = field(
        default_factory=lambda: itertools.count(1_002_000_000_001)
    )
    _query_ids: itertools.count[int] = field(
        default_factory=lambda: itertools.count(4_200_000_000_000_000_001)
    )
    _next_message_id: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.users[self.bot.id] = self.bot

    def add_user(
        self,
        first_name: str,
        username: str | None = None,
        language_code: str | None = "en",
        last_name: str | None = None,
    ) -> User:
        """Create a person and their (not yet started) private chat with the bot."""
        user = User(
            id=next(self._user_ids),
            first_name=first_name,
            username=username,
            last_name=last_name,
            language_code=language_code,
        )
        self.users[user.id] = user
        self.chats[user.id] = Chat(id=user.id, type="private")
        self.messages[user.id] = {}
        return user

    def add_group(self, title: str, *, supergroup: bool = False, username: str | None = None) -> Chat:
        """Create a group (or supergroup) with the bot as a plain member."""
        if supergroup:
            chat_id = -next(self._supergroup_ids)
        else:
            chat_id = -next(self._group_ids)
        chat = Chat(id=chat_id, type="supergroup" if supergroup else "group", title=title, username=username)
        self.chats[chat_id] = chat
        self.messages[chat_id] = {}
        return chat

    def anonymous_admin(self) -> User:
        """GroupAnonymousBot: the ``from`` of every message an anonymous admin sends on behalf of a group."""
        found = self.users.get(ANONYMOUS_ADMIN_ID)
        if found is None:
            found = self.users[ANONYMOUS_ADMIN_ID] = User(ANONYMOUS_ADMIN_ID, "Group", "GroupAnonymousBot",
                                                          is_bot=True)
        return found

    def new_query_id(self) -> str:
        """A fresh callback query id (Telegram's are long decimal strings)."""
        return str(next(self._query_ids))

    def add_message(self, message_kwargs: dict[str, Any], at: float) -> Message:
        """Store a new message in its chat, giving it the chat's next message id."""
        chat_id = message_kwargs["chat_id"]
        message_id = self._next_message_id.get(chat_id, 1)
        self._next_message_id[chat_id] = message_id + 1
        message = Message(message_id=message_id, date=unix_now(), **message_kwargs)
        message.history.append(
            MessageVersion(message.text, tuple(message.entities), message.reply_markup, at)
        )
        self.messages[chat_id][message_id] = message
        return message

    def find_message(self, chat_id: int, message_id: int) -> Message | None:
        """A message that exists and is not deleted."""
        message = self.messages.get(chat_id, {}).get(message_id)
        if message is None or message.deleted:
            return None
        return message

    def current_chat_id(self, chat_id: int) -> int:
        """Follow group → supergroup migrations to the chat that is alive now."""
        seen = set()
        while chat_id in self.chats and self.chats[chat_id].migrated_to is not None:
            if chat_id in seen:  # pragma: no cover - defensive
                break
            seen.add(chat_id)
            migrated = self.chats[chat_id].migrated_to
            assert migrated is not None
            chat_id = migrated
        return chat_id

    def new_supergroup_id(self) -> int:
        """An id for a supergroup born from a migration."""
        return -next(self._supergroup_ids)
