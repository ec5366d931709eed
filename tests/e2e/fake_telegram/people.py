"""Simulated people: they type, tap buttons, open deep links, block the bot, and look.

A :class:`Person` acts through the fake server exactly as a Telegram client
would, turning each action into the update Telegram would send the bot. What
they see is read back as :class:`MessageView` snapshots (text and keyboard of a
message at the moment of looking): pressing a button on an old snapshot models
the real race of tapping a keyboard that the bot is just replacing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from .formatting import command_entities
from .methods import MUTED
from .state import CallbackQuery, Chat, Message, MessageVersion, User, unix_now

if TYPE_CHECKING:
    from .server import FakeTelegram

_DEEP_LINK_PAYLOAD = re.compile(r"[A-Za-z0-9_-]{1,64}")


class DeepLinkError(ValueError):
    """A t.me link a Telegram client would not turn into /start payload for this bot."""


@dataclass(frozen=True)
class Button:
    """One inline button as a person sees it."""

    text: str
    callback_data: str | None
    url: str | None
    row: int
    column: int
    web_app_url: str | None = None
    """The page a ``web_app`` button opens."""


@dataclass(frozen=True)
class MessageView:
    """A message as seen at one moment: its text and keyboard, after any edits so far."""

    chat_id: int
    message_id: int
    sender_id: int
    from_bot: bool
    text: str | None
    entities: tuple[dict[str, Any], ...]
    buttons: tuple[tuple[Button, ...], ...]
    edited: bool
    deleted: bool
    reply_to_message_id: int | None
    photo_id: str | None = None
    """A photo message's picture (its bytes: ``State.files[photo_id]``)."""
    caption: str | None = None
    thread_id: int | None = None
    """The forum topic the message is in (None: General, or a chat without topics)."""

    @classmethod
    def of(cls, message: Message) -> MessageView:
        """Snapshot a stored message."""
        rows = tuple(
            tuple(
                Button(b["text"], b.get("callback_data"), b.get("url"), r, c,
                       (b.get("web_app") or {}).get("url"))
                for c, b in enumerate(row)
            )
            for r, row in enumerate(message.buttons)
        )
        return cls(
            chat_id=message.chat_id,
            message_id=message.message_id,
            sender_id=message.from_id,
            from_bot=message.from_bot,
            text=message.text,
            entities=tuple(message.entities),
            buttons=rows,
            edited=message.edit_date is not None,
            deleted=message.deleted,
            reply_to_message_id=message.reply_to_message_id,
            photo_id=message.photo_id,
            caption=message.caption,
            thread_id=message.thread_id,
        )

    @property
    def labels(self) -> list[list[str]]:
        """The button texts, row by row."""
        return [[b.text for b in row] for row in self.buttons]

    def all_buttons(self) -> list[Button]:
        """Every button, row by row."""
        return [b for row in self.buttons for b in row]

    def button(self, which: str | Callable[[Button], bool]) -> Button:
        """The button with exactly this text, or the first one matching a predicate."""
        for b in self.all_buttons():
            if (b.text == which) if isinstance(which, str) else which(b):
                return b
        raise LookupError(f"no button {which!r} on message {self.message_id}: {self.labels}")


@dataclass(frozen=True)
class CallbackAnswer:
    """What a person saw after a press: a toast, an alert, or nothing."""

    text: str | None
    show_alert: bool
    url: str | None


class CallbackPress:
    """A pressed button, waiting for the bot's ``answerCallbackQuery``."""

    def __init__(self, server: FakeTelegram, query_id: str, data: str) -> None:
        self.server = server
        self.query_id = query_id
        self.data = data

    @property
    def answered(self) -> bool:
        """Whether the bot answered (the client stops its spinner)."""
        return self.server.state.callback_queries[self.query_id].answered

    async def answer(self, timeout: float = 5.0) -> CallbackAnswer:
        """Wait for the bot's answer and return what the person saw."""
        await self.server.wait_for(lambda: self.answered, timeout, what=f"an answer to {self.data!r}")
        query = self.server.state.callback_queries[self.query_id]
        return CallbackAnswer(query.answer_text, query.show_alert, query.answer_url)


class Group:
    """A group chat as its members see it; follows the chat into its supergroup."""

    def __init__(self, server: FakeTelegram, chat_id: int) -> None:
        self.server = server
        self.original_id = chat_id

    @property
    def id(self) -> int:
        """The chat id now (a supergroup's after migration)."""
        return self.server.state.current_chat_id(self.original_id)

    @property
    def chat(self) -> Chat:
        """The stored chat."""
        return self.server.state.chats[self.id]

    def messages(self, *, include_deleted: bool = False, chat_id: int | None = None) -> list[MessageView]:
        """Every message in the chat (people's too), as it looks now."""
        stored = self.server.state.messages[chat_id if chat_id is not None else self.id]
        return [MessageView.of(m) for m in stored.values() if include_deleted or not m.deleted]

    def topic_messages(self, topic: int | None) -> list[MessageView]:
        """The visible messages of one forum topic (None: General), as people see them there."""
        stored = self.server.state.messages[self.id]
        return [MessageView.of(m) for m in stored.values() if not m.deleted and m.thread_id == topic]

    def create_topic(self, name: str, by: Person) -> int:
        """``by`` opens a topic in this forum; its thread id (the id of the service message opening it)."""
        state = self.server.state
        if not self.chat.is_forum:
            raise ValueError("only a forum supergroup has topics")
        message = state.add_message({"chat_id": self.id, "from_id": by.id,
                                     "extra": {"forum_topic_created": {"name": name, "icon_color": 7322096}}},
                                    self.server.clock())
        message.thread_id = message.message_id
        self.chat.topics[message.message_id] = name
        state.updates.push("message", message.to_api(state))
        state.on_change()
        return message.message_id

    def close_topic(self, thread_id: int, by: Person, *, tell: bool = True) -> None:
        """``by`` (an admin) closes a topic: Telegram then refuses the bot's new messages there with 400
        "TOPIC_CLOSED" (unless it is an admin allowed to manage topics; its edits still pass), and people not
        admins may not write there.  With ``tell`` the topic gets a ``forum_topic_closed`` service message,
        which reaches the bot; without, the bot finds out only from the refusals (it was offline)."""
        self.chat.closed_topics.add(thread_id)
        self._topic_service(thread_id, by, "forum_topic_closed", tell=tell)

    def reopen_topic(self, thread_id: int, by: Person, *, tell: bool = True) -> None:
        """``by`` reopens a closed topic: the bot may write there again (``forum_topic_reopened`` if ``tell``)."""
        self.chat.closed_topics.discard(thread_id)
        self._topic_service(thread_id, by, "forum_topic_reopened", tell=tell)

    def delete_topic(self, thread_id: int) -> None:
        """An admin deletes a topic with every message in it: Telegram sends the bot no update; its messages
        there are gone ("message to edit not found") and a new one is refused with 400 "message thread not
        found"."""
        del self.chat.topics[thread_id]
        self.chat.closed_topics.discard(thread_id)
        for message in self.server.state.messages[self.id].values():
            if message.thread_id == thread_id:
                message.deleted = True
        self.server.state.on_change()

    def _topic_service(self, thread_id: int, by: Person, kind: str, *, tell: bool) -> None:
        state = self.server.state
        if thread_id not in self.chat.topics:
            raise ValueError(f"{self.chat.title!r} has no topic {thread_id}")
        message = state.add_message({"chat_id": self.id, "from_id": by.id, "extra": {kind: {}},
                                     "thread_id": thread_id}, self.server.clock())
        if tell:
            state.updates.push("message", message.to_api(state))
        state.on_change()

    def bot_messages(self) -> list[MessageView]:
        """The bot's visible messages, oldest first."""
        return [m for m in self.messages() if m.from_bot]

    def last_bot_message(self) -> MessageView:
        """The bot's newest visible message here."""
        found = self.bot_messages()
        if not found:
            raise LookupError(f"the bot has no message in group {self.chat.title!r}")
        return found[-1]

    def add(self, person: Person, status: str = "member") -> None:
        """Make ``person`` a member (or "administrator", "creator") without any update."""
        self.chat.members[person.id] = status

    def remove_bot(self, *, kicked: bool = True, by: Person | None = None, tell: bool = False) -> None:
        """Take the bot out of the group (Telegram then answers 403 to it).  With ``tell`` (a member ``by``
        removed it), Telegram sends the bot a ``my_chat_member`` update: member → kicked (or left); without,
        the bot finds out only from the 403s (it was offline, or the update was not asked for)."""
        old = self.chat.bot_status
        self.chat.bot_status = "kicked" if kicked else "left"
        if tell:
            state = self.server.state
            bot = state.bot.to_api()
            new: dict[str, Any] = {"status": self.chat.bot_status, "user": bot}
            if kicked:
                new["until_date"] = 0
            sender = by.user.to_api() if by is not None else bot
            state.updates.push("my_chat_member", {
                "chat": self.chat.to_api(state.users), "from": sender, "date": unix_now(),
                "old_chat_member": {"status": old, "user": bot}, "new_chat_member": new,
            })
            state.on_change()

    def mute_bot(self, by: Person, *, tell: bool = True) -> None:
        """``by`` (an admin) restricts the bot from sending messages: Telegram then refuses its sendMessage
        with 400 "not enough rights to send text messages to the chat" (its edits still pass).  With ``tell``
        it sends the bot a ``my_chat_member`` update: member → restricted; without, the bot finds out only
        from the refusals (it was offline)."""
        self._bot_becomes("restricted", by, tell=tell)

    def unmute_bot(self, by: Person, *, tell: bool = True) -> None:
        """``by`` lifts the bot's restriction: it may send again, and is told (restricted → member)."""
        self._bot_becomes("member", by, tell=tell)

    def _bot_becomes(self, status: str, by: Person, *, tell: bool) -> None:
        old = self.chat.bot_status
        self.chat.bot_status = status
        if not tell:
            return
        state = self.server.state
        bot = state.bot.to_api()

        def member(status: str) -> dict[str, Any]:
            return {"status": status, "user": bot, **(MUTED if status == "restricted" else {})}
        state.updates.push("my_chat_member", {
            "chat": self.chat.to_api(state.users), "from": by.user.to_api(), "date": unix_now(),
            "old_chat_member": member(old), "new_chat_member": member(status),
        })
        state.on_change()

    def add_bot(self, by: Person) -> None:
        """``by`` adds the bot to the group: Telegram sends the bot a ``my_chat_member`` update."""
        old = self.chat.bot_status
        self.chat.bot_status = "member"
        state = self.server.state
        bot = state.bot.to_api()
        state.updates.push("my_chat_member", {
            "chat": self.chat.to_api(state.users), "from": by.user.to_api(), "date": unix_now(),
            # Telegram always sends a removed member's until_date (0: for ever); PTB requires it.
            "old_chat_member": {"status": old, "user": bot, **({"until_date": 0} if old == "kicked" else {})},
            "new_chat_member": {"status": "member", "user": bot},
        })

    async def migrate_to_supergroup(self, by: Person, *, tell: bool = True, joined: str | None = None) -> int:
        """Upgrade to a supergroup as Telegram does; returns the new chat id.

        The old chat gets a service message with ``migrate_to_chat_id`` and the
        new one a message with ``migrate_from_chat_id`` (both reach the bot
        unless ``tell`` is false: the bot was offline, or privacy mode hid
        them); afterwards writing to the old id is 400 with ``migrate_to_chat_id``.
        ``joined`` ("before" or "after" those messages): Telegram also sends the
        bot a ``my_chat_member`` update for the new chat, left → member, as if
        it had just been added there (tdlib/telegram-bot-api issue #266).
        """
        if joined not in (None, "before", "after"):
            raise ValueError("joined: None, 'before' or 'after'")
        state = self.server.state
        old = self.chat
        if old.type != "group":
            raise ValueError("only a basic group can be upgraded")
        new = Chat(
            id=state.new_supergroup_id(),
            type="supergroup",
            title=old.title,
            members=dict(old.members),
            bot_status=old.bot_status,
            migrated_from=old.id,
        )
        state.chats[new.id] = new
        state.messages[new.id] = {}
        at = self.server.clock()
        to_msg = state.add_message(
            {"chat_id": old.id, "from_id": by.id, "extra": {"migrate_to_chat_id": new.id}}, at
        )
        old.migrated_to = new.id
        from_msg = state.add_message(
            {"chat_id": new.id, "from_id": by.id, "extra": {"migrate_from_chat_id": old.id}}, at
        )
        joined_update = {
            "chat": new.to_api(state.users), "from": by.user.to_api(), "date": unix_now(),
            "old_chat_member": {"status": "left", "user": state.bot.to_api()},
            "new_chat_member": {"status": new.bot_status, "user": state.bot.to_api()},
        }
        if joined == "before":  # and fetched before the service messages exist: a poll of its own
            update = state.updates.push("my_chat_member", joined_update)
            state.on_change()
            await self.server.wait_for(lambda: update not in state.updates.pending, 10.0,
                                       what="the bot to fetch its 'joined' update")
        if tell:
            state.updates.push("message", to_msg.to_api(state))
            state.updates.push("message", from_msg.to_api(state))
        if joined == "after":
            state.updates.push("my_chat_member", joined_update)
        self.server.flood.forget_chat(old.id)
        state.on_change()
        return new.id


class Person:
    """Someone using Telegram: ``await alice.send(group, "/newgame")``."""

    def __init__(self, server: FakeTelegram, user: User) -> None:
        self.server = server
        self.user = user
        self.popups_seen: list[CallbackAnswer] = []

    def __repr__(self) -> str:
        return f"<Person {self.user.first_name} id={self.user.id}>"

    @property
    def id(self) -> int:
        """The user id (also the id of their private chat with the bot)."""
        return self.user.id

    @property
    def name(self) -> str:
        """First name."""
        return self.user.first_name

    def _chat_id(self, chat: Group | int | None) -> int:
        if chat is None:
            return self.id
        if isinstance(chat, Group):
            return chat.id
        return self.server.state.current_chat_id(chat)

    # --- actions ------------------------------------------------------------

    async def send(
        self, chat: Group | int | None, text: str, *, reply_to: MessageView | None = None,
        as_group: bool = False, topic: int | None = None,
    ) -> MessageView:
        """Type ``text`` into ``chat`` (None: the private chat with the bot).

        Commands get their ``bot_command`` entities as a client sets them. In a
        group under privacy mode the bot gets only what Telegram would give it.
        With ``as_group`` an anonymous admin sends it on behalf of the group:
        ``from`` is GroupAnonymousBot and ``sender_chat`` the group.  In a
        forum, ``topic`` is the thread id of the topic typed in (None: General).
        """
        state = self.server.state
        chat_id = self._chat_id(chat)
        target = state.chats[chat_id]
        if target.type == "private":
            if chat_id != self.id:
                raise ValueError("people can only write to their own chat with the bot")
            if self.user.has_blocked_bot or not self.user.has_started_bot:
                if not (text == "/start" or text.startswith("/start ")):
                    raise RuntimeError(
                        f"{self.name} must press Start first (use start_private): "
                        "a client shows only the START button before that"
                    )
        elif target.members.get(self.id) in (None, "left", "kicked"):
            raise RuntimeError(f"{self.name} is not a member of {target.title!r}")
        if topic is not None and topic not in target.topics:
            raise RuntimeError(f"{target.title!r} has no topic {topic}")
        if topic in target.closed_topics and target.members.get(self.id) not in ("creator", "administrator"):
            raise RuntimeError(f"the topic {topic} of {target.title!r} is closed: only its admins may write there")
        if as_group and target.members.get(self.id) not in ("creator", "administrator"):
            raise RuntimeError(f"only an admin of {target.title!r} can post as the group")
        entities = command_entities(text)
        if target.type == "private" and text.split(" ", 1)[0] == "/start":
            self._mark_started()
        message = state.add_message(
            {
                "chat_id": chat_id,
                "from_id": state.anonymous_admin().id if as_group else self.id,
                "text": text,
                "entities": entities,
                "reply_to_message_id": reply_to.message_id if reply_to else None,
                "extra": {"sender_chat": target.to_api(state.users)} if as_group else {},
                "thread_id": topic,
            },
            self.server.clock(),
        )
        if self._bot_receives(target, message):
            state.updates.push("message", message.to_api(state))
        state.on_change()
        return MessageView.of(message)

    async def command(self, chat: Group | int | None, command: str, *args: str,
                      as_group: bool = False, topic: int | None = None) -> MessageView:
        """Pick ``command`` from the bot's command menu and send it with ``args`` (``as_group``: as an
        anonymous admin, on behalf of the group).

        In a group the client writes ``/command@botname``, in private ``/command``.
        """
        chat_id = self._chat_id(chat)
        name = command.removeprefix("/")
        if self.server.state.chats[chat_id].is_group:
            name = f"{name}@{self.server.bot.username}"
        return await self.send(chat, " ".join([f"/{name}", *args]), as_group=as_group, topic=topic)

    async def edit(self, message: MessageView, text: str) -> MessageView:
        """Edit one of their own messages (a typo corrected): Telegram sends the bot an ``edited_message``
        update (if it asked for that kind) with the new text and its entities."""
        state = self.server.state
        stored = state.messages[message.chat_id][message.message_id]
        if stored.from_id != self.id or stored.deleted:
            raise RuntimeError(f"{self.name} can edit only their own messages that are still there")
        stored.text = text
        stored.entities = command_entities(text)
        stored.edit_date = unix_now()
        stored.history.append(MessageVersion(text, tuple(stored.entities), None, self.server.clock()))
        if self._bot_receives(state.chats[message.chat_id], stored):
            state.updates.push("edited_message", stored.to_api(state))
        state.on_change()
        return MessageView.of(stored)

    def _bot_receives(self, chat: Chat, message: Message) -> bool:
        if chat.type == "private" or not self.server.privacy_mode:
            return True
        if chat.bot_status in ("left", "kicked"):
            return False
        if chat.bot_status == "administrator":
            return True
        if message.reply_to_message_id is not None:
            replied = self.server.state.messages[chat.id].get(message.reply_to_message_id)
            if replied is not None and replied.from_bot:
                return True
        text = message.text or ""
        for entity in message.entities:
            if entity["type"] == "bot_command" and entity["offset"] == 0:
                command = text[: entity["length"]]
                if "@" not in command:
                    return True
                mention = command.split("@", 1)[1]
                return mention.lower() == (self.server.bot.username or "").lower()
        return False

    def _mark_started(self) -> None:
        user = self.user
        was_blocked = user.has_blocked_bot
        user.has_started_bot = True
        user.has_blocked_bot = False
        if was_blocked:
            self._push_my_chat_member("kicked", "member")

    def _push_my_chat_member(self, old: str, new: str) -> None:
        state = self.server.state
        bot = state.bot.to_api()

        def member(status: str) -> dict[str, Any]:
            data: dict[str, Any] = {"status": status, "user": bot}
            if status == "kicked":
                data["until_date"] = 0
            return data

        state.updates.push(
            "my_chat_member",
            {
                "chat": state.chats[self.id].to_api(state.users),
                "from": self.user.to_api(),
                "date": unix_now(),
                "old_chat_member": member(old),
                "new_chat_member": member(new),
            },
        )

    async def start_private(self, payload: str | None = None) -> MessageView:
        """Open the private chat and press Start (with a deep-link payload if given).

        Also how a person who blocked the bot restarts it.
        """
        text = "/start" if payload is None else f"/start {payload}"
        return await self.send(None, text)

    async def open_link(self, link: str | MessageView, button: str | None = None) -> MessageView:
        """Open a ``t.me/<bot>?start=<payload>`` link (or a URL button's) like a client.

        Raises :class:`DeepLinkError` where Telegram would not start this bot with
        that payload (another bot, a payload outside [A-Za-z0-9_-]{1,64}).
        """
        if isinstance(link, MessageView):
            if button is None:
                raise ValueError("name the URL button to open")
            url = link.button(button).url
            if url is None:
                raise DeepLinkError(f"button {button!r} is not a URL button")
        else:
            url = link
        parts = urlsplit(url)
        bot_username = (self.server.bot.username or "").lower()
        if parts.scheme in ("http", "https") and parts.netloc.lower() in ("t.me", "telegram.me"):
            target = parts.path.strip("/").lower()
        elif parts.scheme == "tg" and parts.netloc == "resolve":
            target = (parse_qs(parts.query).get("domain") or [""])[0].lower()
        else:
            raise DeepLinkError(f"not a Telegram link: {url}")
        if target != bot_username:
            raise DeepLinkError(f"link to @{target}, not to @{bot_username}: {url}")
        query = parse_qs(parts.query, keep_blank_values=True)
        if "startgroup" in query:
            raise DeepLinkError("startgroup links are not simulated")
        payload: str | None = (query.get("start") or [""])[0] or None
        if payload is not None and not _DEEP_LINK_PAYLOAD.fullmatch(payload):
            raise DeepLinkError(f"invalid start payload {payload!r}: Telegram allows [A-Za-z0-9_-]{{1,64}}")
        return await self.start_private(payload)

    async def press(self, message: MessageView, which: str | Callable[[Button], bool]) -> CallbackPress:
        """Tap a callback button on ``message`` (a snapshot: as the person saw it).

        Returns a handle; ``await handle.answer()`` gives the toast or alert shown.
        """
        button = message.button(which)
        if button.callback_data is None:
            raise ValueError(
                f"button {button.text!r} is not a callback button (url={button.url!r}); "
                "use open_link for links"
            )
        return await self.forge_callback(message, button.callback_data)

    async def forge_callback(self, message: MessageView, data: str) -> CallbackPress:
        """Send a callback query with arbitrary ``data`` on ``message`` (a tampered client)."""
        state = self.server.state
        stored = state.messages.get(message.chat_id, {}).get(message.message_id)
        if stored is None or stored.deleted:
            raise RuntimeError("the message is gone: nothing left to press")
        chat = state.chats[message.chat_id]
        if chat.type == "private" and chat.id != self.id:
            raise RuntimeError("people can press buttons only in chats they are in")
        if chat.migrated_to is not None:
            raise RuntimeError("the group was upgraded; its old messages are not shown any more")
        query_id = state.new_query_id()
        query_payload = {
            "id": query_id,
            "from": self.user.to_api(),
            "message": stored.to_api(state),
            "chat_instance": str(abs(chat.id) * 7919 % 10**18),
            "data": data,
        }
        state.callback_queries[query_id] = CallbackQuery(
            id=query_id,
            from_id=self.id,
            chat_id=chat.id,
            message_id=stored.message_id,
            data=data,
            created_at=self.server.clock(),
        )
        state.updates.push("callback_query", query_payload)
        state.on_change()
        return CallbackPress(self.server, query_id, data)

    def block_bot(self) -> None:
        """Block the bot (Telegram then answers 403 to it and sends my_chat_member)."""
        if self.user.has_blocked_bot:
            return
        self.user.has_blocked_bot = True
        self._push_my_chat_member("member", "kicked")
        self.server.state.on_change()

    # --- what they see --------------------------------------------------------

    def private_messages(self, *, include_deleted: bool = False) -> list[MessageView]:
        """The private chat with the bot as it looks now (both sides), oldest first."""
        stored = self.server.state.messages[self.id]
        return [MessageView.of(m) for m in stored.values() if include_deleted or not m.deleted]

    def bot_private_messages(self) -> list[MessageView]:
        """The bot's visible messages in the private chat."""
        return [m for m in self.private_messages() if m.from_bot]

    def last_private_message(self) -> MessageView:
        """The bot's newest visible private message."""
        found = self.bot_private_messages()
        if not found:
            raise LookupError(f"the bot has not written to {self.name}")
        return found[-1]

    def sees(self, chat: Group | int | None = None) -> list[MessageView]:
        """What this person sees in ``chat`` now (None: the private chat)."""
        chat_id = self._chat_id(chat)
        if chat_id == self.id:
            return self.private_messages()
        if self.server.state.chats[chat_id].members.get(self.id) in (None, "left", "kicked"):
            return []
        return [MessageView.of(m) for m in self.server.state.messages[chat_id].values() if not m.deleted]

    def popups(self) -> list[CallbackAnswer]:
        """Every toast or alert the bot showed this person, oldest first."""
        return [
            CallbackAnswer(q.answer_text, q.show_alert, q.answer_url)
            for q in self.server.state.callback_queries.values()
            if q.from_id == self.id and q.answered and q.answer_text
        ]

    def notifications(self) -> list[MessageView]:
        """Bot messages that would have notified this person: new (not edited, not
        silent) private messages, and group messages that mention them by @username
        or text mention. Deleted ones count: the notification already went out."""
        found: list[MessageView] = []
        for chat_id, messages in self.server.state.messages.items():
            chat = self.server.state.chats[chat_id]
            for message in messages.values():
                if not message.from_bot or message.silent:
                    continue
                if chat_id == self.id or (chat.is_group and self._mentioned(message)):
                    found.append(MessageView.of(message))
        return found

    def _mentioned(self, message: Message) -> bool:
        text = message.history[0].text or ""
        if self.user.username and f"@{self.user.username}".lower() in text.lower():
            return True
        return any(
            e.get("type") == "text_mention" and e.get("user", {}).get("id") == self.id
            for e in message.history[0].entities
        )
