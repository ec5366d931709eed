"""The storage layer's errors: one small family under :class:`StorageError`.

The bot catches :class:`SequenceConflict` to reload a table whose log moved on
under it, and :class:`StorageFault` (SQLite could not do it now, for a reason
that can pass) to answer "try again in a moment" and retry in the background;
every other error means a bug or a broken database and is reported.
"""

from __future__ import annotations


class StorageError(Exception):
    """Base of every error that the storage layer raises on purpose."""


class SchemaTooNew(StorageError):
    """The database was written by a newer version of chaodipi than this one."""

    def __init__(self, path: str, found: int, known: int) -> None:
        super().__init__(
            f"The database {path} has schema version {found}, but this chaodipi only knows "
            f"versions up to {known}. It was written by a newer chaodipi: upgrade chaodipi, "
            f"or restore a backup made by this version. The database was not changed."
        )
        self.path = path
        self.found = found
        self.known = known


class SequenceConflict(StorageError):
    """An event was appended with a sequence number that is no longer next.

    Another writer appended first (or the caller's state is stale): the hand
    moved on, so the caller must reload the hand from its log and try again.
    """

    def __init__(self, hand_id: int, expected_seq: int, last_seq: int) -> None:
        super().__init__(
            f"Hand {hand_id} moved on: event {expected_seq} was expected to be next, but the "
            f"log already ends at event {last_seq}. Reload the hand from its log and retry."
        )
        self.hand_id = hand_id
        self.expected_seq = expected_seq
        self.last_seq = last_seq


class NotFound(StorageError):
    """A row that the caller named (a chat, table, match or hand) does not exist."""


class TableAlreadyActive(StorageError):
    """A chat already has an open or playing table; a chat holds one at a time."""

    def __init__(self, chat_id: int) -> None:
        super().__init__(
            f"Chat {chat_id} already has an active table; finish or stop it before opening another."
        )
        self.chat_id = chat_id


class CorruptLog(StorageError):
    """A hand's event log is not the contiguous run 1..n that replay needs."""


class HandClosed(StorageError):
    """An event was appended to a hand that is finished or aborted."""


class StorageFault(StorageError):
    """SQLite could not do what was asked, for a reason that can pass: another process holds the database's
    lock past the busy timeout, the disk is full, or the disk failed a read or write.

    ``kind`` names the reason (``"locked"``, ``"full"``, ``"io"``); ``written`` is False when nothing
    was written (the transaction is known to have rolled back, or never began) and None when that is not
    known (the rollback itself failed).  Nothing here is a bug of the caller: try again later.
    """

    kind = "io"

    def __init__(self, message: str, *, written: bool | None = None) -> None:
        super().__init__(message)
        self.written = written


class DatabaseLocked(StorageFault):
    """Another process held the database's write lock for longer than the busy timeout."""

    kind = "locked"


class StorageFull(StorageFault):
    """The disk (or the database's size limit) is full: nothing more can be written."""

    kind = "full"


class StorageIOFailure(StorageFault):
    """The disk failed a read or a write, or the database file cannot be opened or written."""

    kind = "io"
