"""Taking a seat from Telegram: only someone the bot can reach privately sits down.

Used by /newgame, /join, a seat button and a seat link's /start.
"""

from __future__ import annotations

from telegram import CallbackQuery, User
from telegram.error import Forbidden, TelegramError

from bot import links
from bot.handlers.common import Context, display_name, remember_user, storage_trouble, tables_of, user_translator
from bot.i18n import Translator
from bot.labels import name_html
from bot.model import Table
from bot.ratelimit import ANSWER, PRIORITY
from bot.tables import StorageError, TableError


async def seat_person(context: Context, table: Table, user: User, seat: int | None,
                      query: CallbackQuery | None = None, answer: Translator | None = None) -> str | None:
    """Seat someone the bot can reach privately; otherwise send them to the private chat.

    Returns what to tell them, or None if they were seated: in ``answer``'s language (a reply in a group is
    in the group's), else in theirs (a popup, a private reply).  "" when there is nothing to add: taking a
    seat back is told to the group by the tables service, and a reply in the group would say it twice.
    """
    tables = tables_of(context)
    own = await user_translator(context, user)  # their private chat and their seat speak their language
    tr = answer or own
    if user.is_bot:  # an anonymous admin (GroupAnonymousBot) or someone posting as a channel: no bot can write to it
        return tr("Send it as yourself, not as the group or a channel, to take a seat: your cards come to you.")
    mine = tables.left_seat(table, user.id)
    if mine is not None and table.playing:  # they left this seat mid-match: it is theirs to take back
        if mine in table.coming_back:
            return tr("Your seat is yours again when the next hand starts.")
        try:
            at_once = await tables.take_seat_back(table, mine)
        except StorageError as exc:
            return storage_trouble(tr, exc, move=False)
        if answer is not None:  # a reply in the group, which the tables service has just told
            return ""
        return tr("Your seat is yours again.") if at_once else tr("Your seat is yours again when the next hand starts.")
    try:
        tables.check_sit(table, user.id, seat)  # before writing to them: "joining" must be true
    except TableError as exc:
        return exc.text(tr)
    await remember_user(context, user)
    if not await tables.people.can_write(user.id):
        # Try once: people who opened the bot elsewhere can be reached without a link.  The press's
        # answer waits for this message (under the table's lock), so it goes before every other.
        first = PRIORITY.set(ANSWER)
        try:
            await _write_first(context, user, own, table)
            await tables.people.reachable(user.id)
        except Forbidden:
            tables.invite(table, user.id, seat, display_name(user))
            link = links.link(tables.bot_username, tables.config.token, table.id, seat)
            if query is not None:
                await query.answer(url=link)
                return ""
            return tr("First open a private chat with me and press Start: {link}", link=link)
        except TelegramError:
            return tr("I could not reach you privately; please try again.")
        finally:
            PRIORITY.reset(first)
    try:
        await tables.sit(table, user.id, display_name(user), own.lang, seat)
    except TableError as exc:
        return exc.text(tr)
    tables.refresh(table)
    return None


async def _write_first(context: Context, user: User, tr: Translator, table: Table) -> None:
    """The first private message to someone joining (in their language): it proves the bot can reach them."""
    await context.bot.send_message(user.id, tr("You are joining the table in {title}.",
                                               title=name_html(table.title or "?")))
