"""What every handler leans on (``bot/handlers/common.py``), met with fakes of Telegram's objects and of the
table service: who asks and in which language, admins, topics, the name shown, paced replies that never raise,
the menu button, and what a failed write is answered.  The end-to-end tests go through all of it; here each
piece is pinned on its own."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest
from telegram import Chat, InlineKeyboardMarkup, MenuButtonWebApp, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, Forbidden

from bot.handlers import common
from bot.i18n import translator
from bot.messages import storage_refusal
from bot.tasks import Supervisor
from bot.topics import Topics
from storage.errors import StorageError, StorageFault

GROUP = -100123


class _People:
    def __init__(self, *, chat_lang: str | None = None, person_lang: str = "en") -> None:
        self.chat_lang = chat_lang
        self.person_lang = person_lang
        self.remembered: list[tuple[int, str, str | None]] = []
        self.asked: list[tuple[int, str | None]] = []

    async def chat_language(self, chat_id: int) -> str | None:
        assert chat_id == GROUP
        return self.chat_lang

    async def translator(self, user_id: int, code: str | None) -> Any:
        self.asked.append((user_id, code))
        return translator(self.person_lang)

    async def remember(self, user_id: int, name: str, code: str | None) -> None:
        self.remembered.append((user_id, name, code))


class _Muting:
    def __init__(self) -> None:
        self.wrote_to: list[int] = []

    def wrote(self, chat_id: int) -> None:
        self.wrote_to.append(chat_id)


def _context(*, tables_lang: str | None = None, people: _People | None = None, bot: Any = None,
             public_url: str | None = None) -> Any:
    tables = [SimpleNamespace(lang=tables_lang)] if tables_lang else []
    service = SimpleNamespace(all_in_chat=lambda chat_id: tables if chat_id == GROUP else [],
                              people=people or _People(), config=SimpleNamespace(public_url=public_url),
                              muting=_Muting(), topics=Topics(Supervisor()))
    return SimpleNamespace(bot_data={"tables": service}, bot=bot)


def _user(first: str = "Ann", last: str | None = None, code: str | None = "en", uid: int = 7) -> User:
    return User(uid, first, False, last_name=last, language_code=code)


# --- who is shown, and where ---------------------------------------------------------------------------------

def test_the_name_shown_drops_control_characters_and_falls_back_to_the_id() -> None:
    assert common.display_name(_user("\u202eAnn\u0007")) == "Ann"
    assert common.display_name(_user("Ann", last="Lee")) == "Ann"  # the first name alone, as at a table
    assert common.display_name(_user("", uid=41)) == "41"
    assert common.display_name(_user("  ", uid=42)) == "42"
    assert common.display_name(_user("\u202e", uid=43)) == "43"


@pytest.mark.parametrize(("kind", "expected"), [(ChatType.GROUP, True), (ChatType.SUPERGROUP, True),
                                                (ChatType.PRIVATE, False), (ChatType.CHANNEL, False)])
def test_groups_and_supergroups_are_groups(kind: str, expected: bool) -> None:
    assert common.in_group(Chat(GROUP, kind)) is expected
    assert common.in_group(None) is False


def _update(message: Any) -> Any:
    return SimpleNamespace(effective_message=message)


def test_the_topic_is_a_forum_topics_thread_only() -> None:
    assert common.topic_of(_update(SimpleNamespace(message_thread_id=5, is_topic_message=True))) == 5
    assert common.topic_of(_update(SimpleNamespace(message_thread_id=5, is_topic_message=False))) is None
    assert common.topic_of(_update(None)) is None


def test_a_message_sent_as_the_group_is_the_groups_own() -> None:
    assert common.sent_as_group(_update(SimpleNamespace(sender_chat=SimpleNamespace(id=GROUP))), GROUP)
    assert not common.sent_as_group(_update(SimpleNamespace(sender_chat=SimpleNamespace(id=-1))), GROUP)
    assert not common.sent_as_group(_update(SimpleNamespace(sender_chat=None)), GROUP)
    assert not common.sent_as_group(_update(None), GROUP)


class _Bot:
    def __init__(self, status: str | None = None) -> None:
        self.status = status
        self.menu: list[tuple[int, MenuButtonWebApp]] = []
        self.refuse = False

    async def get_chat_member(self, chat_id: int, user_id: int) -> Any:
        assert (chat_id, user_id) == (GROUP, 7)
        if self.status is None:
            raise Forbidden("bot was kicked")
        return SimpleNamespace(status=self.status)

    async def set_chat_menu_button(self, *, chat_id: int, menu_button: MenuButtonWebApp) -> None:
        if self.refuse:
            raise BadRequest("chat not found")
        self.menu.append((chat_id, menu_button))


@pytest.mark.parametrize(("status", "expected"), [
    (ChatMemberStatus.OWNER, True), (ChatMemberStatus.ADMINISTRATOR, True), (ChatMemberStatus.MEMBER, False),
    (ChatMemberStatus.RESTRICTED, False), (None, False),  # None: Telegram refused to say
])
async def test_admins_are_the_owner_and_the_administrators(status: str | None, expected: bool) -> None:
    assert await common.is_admin(_context(bot=_Bot(status)), GROUP, 7) is expected


async def test_a_command_sent_as_the_group_is_an_admins_without_asking_telegram() -> None:
    as_group = _update(SimpleNamespace(sender_chat=SimpleNamespace(id=GROUP)))
    assert await common.is_admin(_context(bot=_Bot(None)), GROUP, 7, as_group) is True
    someone = _update(SimpleNamespace(sender_chat=None))
    assert await common.is_admin(_context(bot=_Bot(None)), GROUP, 7, someone) is False


# --- the language of a reply -----------------------------------------------------------------------------------

async def test_a_groups_reply_is_in_its_tables_language_then_its_own_then_the_persons() -> None:
    group = Chat(GROUP, ChatType.SUPERGROUP)
    people = _People(chat_lang="en", person_lang="en")
    assert (await common.chat_translator(_context(tables_lang="zh", people=people), _user(), group)).lang == "zh"
    people = _People(chat_lang="zh", person_lang="en")
    assert (await common.chat_translator(_context(people=people), _user(), group)).lang == "zh"
    assert people.asked == []
    people = _People(chat_lang=None, person_lang="zh")
    assert (await common.chat_translator(_context(people=people), _user(code="zh-hans"), group)).lang == "zh"
    assert people.asked == [(7, "zh-hans")]


async def test_a_private_reply_is_in_the_persons_language() -> None:
    people = _People(chat_lang="en", person_lang="zh")
    private = Chat(7, ChatType.PRIVATE)
    assert (await common.chat_translator(_context(tables_lang="en", people=people), _user(), private)).lang == "zh"
    assert people.asked == [(7, "en")]


async def test_who_asks_is_the_user_the_chat_and_the_replys_language() -> None:
    user, chat = _user(), Chat(7, ChatType.PRIVATE)
    update = SimpleNamespace(effective_user=user, effective_chat=chat)
    asked = await common.who_asks(update, _context(people=_People(person_lang="zh")))  # type: ignore[arg-type]
    assert asked is not None and asked[:2] == (user, chat) and asked[2].lang == "zh"
    group = Chat(GROUP, ChatType.GROUP)
    in_group = SimpleNamespace(effective_user=user, effective_chat=group)
    context = _context(tables_lang="en", people=_People(person_lang="zh"))
    asked = await common.who_asks(in_group, context)  # type: ignore[arg-type]
    assert asked is not None and asked[1] is group and asked[2].lang == "en"  # the group's language
    for missing in (SimpleNamespace(effective_user=None, effective_chat=chat),
                    SimpleNamespace(effective_user=user, effective_chat=None)):
        assert await common.who_asks(missing, _context()) is None  # type: ignore[arg-type]


async def test_a_person_is_remembered_by_the_name_shown_and_their_language_code() -> None:
    people = _People()
    await common.remember_user(_context(people=people), _user("\u202eBo", code="zh-hans", uid=9))
    assert people.remembered == [(9, "Bo", "zh-hans")]
    assert (await common.user_translator(_context(people=people), _user(code="de"))).lang == "en"
    assert people.asked == [(7, "de")]


# --- replies and the menu button ------------------------------------------------------------------------------

class _Message:
    def __init__(self, chat_id: int, refuse: bool = False, *, thread: int | None = None,
                 refusal: Exception | None = None) -> None:
        self.chat_id = chat_id
        self.refuse = refuse
        self.refusal = refusal if refusal is not None else Forbidden("bot was blocked by the user")
        self.message_thread_id, self.is_topic_message = thread, thread is not None
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def reply_html(self, text: str, **kwargs: Any) -> None:
        if self.refuse:
            raise self.refusal
        self.sent.append((text, kwargs))


async def test_replies_are_paced_per_chat_and_a_refused_one_is_logged_not_raised(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    waits: list[float] = []

    async def sleep(delay: float) -> None:
        waits.append(delay)

    monkeypatch.setattr(common.asyncio, "sleep", sleep)
    context = _context()
    markup = InlineKeyboardMarkup([])
    first, again, other = _Message(GROUP), _Message(GROUP), _Message(-5)
    await common.reply(_update(first), context, "<b>one</b>", markup)
    assert first.sent == [("<b>one</b>", {"disable_web_page_preview": True, "reply_markup": markup,
                                          "allow_sending_without_reply": True})]
    assert waits == []  # the chat's first reply goes at once
    await common.reply(_update(other), context, "elsewhere")
    assert waits == [] and other.sent == [("elsewhere", {"disable_web_page_preview": True, "reply_markup": None,
                                                         "allow_sending_without_reply": True})]
    await common.reply(_update(again), context, "two")
    assert len(waits) == 1 and waits[0] > 0 and again.sent[0][0] == "two"  # the same chat waits its turn
    refused = _Message(-6, refuse=True)
    with caplog.at_level(logging.WARNING, logger="bot.handlers.common"):
        await common.reply(_update(refused), context, "blocked")
    assert [r.getMessage() for r in caplog.records] == ["reply failed in chat -6: Forbidden"]
    await common.reply(_update(None), context, "nowhere")  # a channel post: nothing to reply to
    # Each reply that went through tells bot.muting the bot may write there (a group whose permissions came
    # back, or whose timed mute ran out, sends the bot no update); the refused one does not.
    assert context.bot_data["tables"].muting.wrote_to == [GROUP, -5, GROUP]


async def test_a_reply_refused_in_a_closed_topic_closes_it_and_one_that_goes_through_opens_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An admin's command in a closed topic the bot missed the closing of: its refused reply pauses that topic's
    table (bot.topics), not the group's others; a reply there that goes through later lets it go on."""
    async def sleep(delay: float) -> None:
        pass

    monkeypatch.setattr(common.asyncio, "sleep", sleep)
    context = _context()
    topics: Topics = context.bot_data["tables"].topics
    await common.reply(_update(_Message(GROUP, True, thread=5, refusal=BadRequest("TOPIC_CLOSED"))), context, "no")
    assert topics.closed == {(GROUP, 5)}
    await common.reply(_update(_Message(GROUP, thread=6)), context, "another topic")
    await common.reply(_update(_Message(GROUP)), context, "General")
    assert topics.closed == {(GROUP, 5)}
    await common.reply(_update(_Message(GROUP, thread=5)), context, "open again")
    assert topics.closed == set()


async def test_the_menu_button_opens_the_app_in_the_persons_language_where_the_app_is_on(
        caplog: pytest.LogCaptureFixture) -> None:
    bot = _Bot()
    await common.menu_in_language(_context(bot=bot), 7, translator("en"))
    assert bot.menu == []  # no public address: no web app
    await common.menu_in_language(_context(bot=bot, public_url="https://bot.example"), 7, translator("zh"))
    ((chat_id, button),) = bot.menu
    assert chat_id == 7 and button.web_app.url == "https://bot.example/app/"
    assert button.text == translator("zh")("🃏 Open the table") != "🃏 Open the table"
    bot.refuse = True
    with caplog.at_level(logging.WARNING, logger="bot.handlers.common"):
        await common.menu_in_language(_context(bot=bot, public_url="https://bot.example"), 7, translator("en"))
    assert [r.getMessage() for r in caplog.records] == ["menu button refused in a private chat: BadRequest"]


# --- a failed write --------------------------------------------------------------------------------------------

def test_a_fault_that_can_pass_is_said_as_such_and_a_bug_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    tr = translator("en")
    fault = StorageFault("disk full", written=False)
    with caplog.at_level(logging.ERROR, logger="bot.handlers.common"):
        assert common.storage_trouble(tr, fault) == storage_refusal(tr, fault)
    assert caplog.records == []  # logged once where it happened, not again here
    try:
        raise StorageError("a bug")
    except StorageError as bug:
        with caplog.at_level(logging.ERROR, logger="bot.handlers.common"):
            move, other = common.storage_trouble(tr, bug), common.storage_trouble(tr, bug, move=False)
    assert move == "I could not save your move; nothing changed. Please try again."
    assert other == "I could not save that; nothing changed. Please try again."
    assert [r.getMessage() for r in caplog.records] == ["storage error", "storage error"]
    assert all(r.exc_info is not None for r in caplog.records)
