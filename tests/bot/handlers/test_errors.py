"""A button answered after Telegram's window: a warning without a traceback, and no second answer (Telegram
would refuse it too); any other failure is still an error, and the presser is told."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest
from telegram import CallbackQuery, Update, User
from telegram.error import BadRequest

from bot.handlers.errors import answered_too_late, on_error

TOO_OLD = "Query is too old and response timeout expired or query id is invalid"


class Query(CallbackQuery):
    """A press whose answers are recorded."""

    def __init__(self) -> None:
        super().__init__("1", User(7, "Ann", False, language_code="en"), "c")
        self._unfreeze()
        self.answers: list[Any] = []

    async def answer(self, text: str | None = None, show_alert: bool | None = None, **_: Any) -> bool:
        self.answers.append((text, show_alert))
        return True


@pytest.mark.parametrize("error, late", [(BadRequest(TOO_OLD), True), (BadRequest("Query ID is invalid"), True),
                                         (BadRequest("Message is not modified"), False), (ValueError("x"), False)])
async def test_an_answer_after_telegrams_window_is_a_warning_and_not_answered_again(
        error: Exception, late: bool, caplog: pytest.LogCaptureFixture) -> None:
    assert answered_too_late(error) is late
    query = Query()
    update = Update(1, callback_query=query)
    with caplog.at_level(logging.WARNING, logger="bot.handlers"):
        await on_error(update, SimpleNamespace(error=error))  # type: ignore[arg-type]
    levels = [r.levelno for r in caplog.records if r.name == "bot.handlers.errors"]
    if late:
        assert levels == [logging.WARNING] and query.answers == []
        assert not any(r.exc_info for r in caplog.records)
    else:
        assert levels == [logging.ERROR] and query.answers == [("Something went wrong; nothing changed.", True)]


async def test_a_failure_after_the_move_was_stored_does_not_claim_nothing_changed() -> None:
    """The error handler runs in the update's own task: it knows whether the update stored a move."""
    from bot import outcome

    async def handle(stored: bool) -> Any:
        outcome.begin()  # as the bot does first for every update
        if stored:
            outcome.stored()  # as the tables service does once the move is in the log
        query = Query()
        await on_error(Update(1, callback_query=query), SimpleNamespace(error=RuntimeError("after")))  # type: ignore[arg-type]
        return query.answers

    import asyncio

    saved, nothing = await asyncio.gather(asyncio.create_task(handle(True)), asyncio.create_task(handle(False)))
    assert saved == [("Something went wrong after your move was saved: it stands. Send /hand if your cards do "
                      "not show it.", True)]
    assert nothing == [("Something went wrong; nothing changed.", True)]


async def test_polling_that_cannot_reach_telegram_is_no_error(caplog: pytest.LogCaptureFixture) -> None:
    """getUpdates failing on the network is a fault (logged once by bot.faults), not an update that failed."""
    from telegram.error import NetworkError, TimedOut

    with caplog.at_level(logging.WARNING):
        for error in (NetworkError("Bad Gateway"), TimedOut()):
            await on_error(None, SimpleNamespace(error=error))  # type: ignore[arg-type]
    assert caplog.records == []


@pytest.mark.parametrize("kind", ["telegram", "locked"])
async def test_an_update_stopped_by_a_fault_that_passes_is_no_traceback_and_the_presser_is_told(
        kind: str, caplog: pytest.LogCaptureFixture) -> None:
    """A press handled as Telegram becomes unreachable (its answer fails), or as the database is locked: the
    fault is logged once by bot.faults, not once more per update with a traceback (issue 45)."""
    from telegram.error import NetworkError

    from storage import DatabaseLocked

    error = NetworkError("Bad Gateway") if kind == "telegram" else DatabaseLocked("SQLite: database is locked")
    query = Query()
    with caplog.at_level(logging.INFO):
        await on_error(Update(1, callback_query=query), SimpleNamespace(error=error))  # type: ignore[arg-type]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info], caplog.records
    assert query.answers == [("Something went wrong; nothing changed.", True)]
