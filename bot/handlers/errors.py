"""The one error handler: an update whose handler failed is logged (never a hidden card) and its presser told."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import BadRequest, NetworkError, TelegramError

from bot import outcome
from bot.handlers.common import Context
from bot.i18n import pick_language, translator
from bot.tables import StorageFault

log = logging.getLogger(__name__)


def answered_too_late(error: object) -> bool:
    """True if Telegram refused a button's answer because it came after its window (about 15 s)."""
    text = error.message.lower() if isinstance(error, BadRequest) else ""
    return "query is too old" in text or "query id is invalid" in text


def logged_as_fault(error: object) -> bool:
    """True for a failure that bot.faults logs once for the whole fault: storage failing for a reason that can
    pass, or Telegram unreachable (a network error, a timeout, a 5xx; not a refusal, which is Telegram's answer)."""
    return isinstance(error, StorageFault) or (isinstance(error, NetworkError) and not isinstance(error, BadRequest))


async def on_error(update: object, context: Context) -> None:
    """Log the failure (never a hidden card) and tell the person something went wrong."""
    if answered_too_late(context.error):
        # The press was handled (a move it made stands) and only its answer came too late, or the update
        # reached the bot after its window: another answer would be refused too.
        log.warning("a button's answer came too late for Telegram: %s", context.error)
        return
    if update is None and isinstance(context.error, NetworkError):
        return  # polling could not reach Telegram: bot.faults logged it once, and polling goes on
    if logged_as_fault(context.error):
        # bot.faults logged the fault once and counts its failures: a traceback per update it stopped would
        # bury the log.
        log.info("update stopped by a fault that passes: %s", type(context.error).__name__)
    else:
        log.error("update failed: %s", type(context.error).__name__, exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        try:
            tr = translator(pick_language(update.callback_query.from_user.language_code))
            # "Nothing changed" only while it is true: a move stored before the failure stands.
            text = (tr("Something went wrong after your move was saved: it stands. Send /hand if your cards do not show it.")
                    if outcome.did_store() else tr("Something went wrong; nothing changed."))
            await update.callback_query.answer(text, show_alert=True)
        except TelegramError:
            pass
