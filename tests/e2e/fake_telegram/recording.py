"""The log of every Bot API call the fake server answered."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CallRecord:
    """One request and its answer."""

    seq: int
    method: str
    """As the client spelled it, e.g. "sendMessage"."""
    params: dict[str, Any]
    chat_id: int | None
    """The chat the call concerns (for answerCallbackQuery: the pressed message's chat)."""
    chat_type: str | None
    """"private", "group", "supergroup" or None."""
    at: float
    """Server-clock time of the request."""
    status: int
    """HTTP status of the answer: 200, 400, 403, 404, 409, 429, ..."""
    description: str | None = None
    result: Any = None

    @property
    def ok(self) -> bool:
        """Whether Telegram would have said ``"ok": true``."""
        return self.status == 200

    @property
    def is_group(self) -> bool:
        """Whether the call concerns a group or supergroup."""
        return self.chat_type in ("group", "supergroup")


class CallLog:
    """Every call in order, with small query helpers for tests and benchmarks."""

    def __init__(self) -> None:
        self.records: list[CallRecord] = []
        self.forgotten = 0
        """How many of the oldest records :meth:`forget` dropped."""

    def __iter__(self) -> Iterator[CallRecord]:
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)

    @property
    def total(self) -> int:
        """Every call ever recorded, forgotten ones included (sequence numbers go on from it)."""
        return self.forgotten + len(self.records)

    def forget(self, before: float) -> int:
        """Drop the records of calls made before server time ``before``; how many were dropped.

        For a long benchmark, so the log does not grow for an hour; tests keep everything.
        """
        kept = [r for r in self.records if r.at >= before]
        dropped = len(self.records) - len(kept)
        self.records = kept
        self.forgotten += dropped
        return dropped

    def add(self, record: CallRecord) -> None:
        """Append one record."""
        self.records.append(record)

    def calls(
        self,
        method: str | None = None,
        *,
        chat_id: int | None = None,
        ok: bool | None = None,
        status: int | None = None,
    ) -> list[CallRecord]:
        """Calls filtered by method (case-insensitive), chat, success or HTTP status."""
        wanted = method.lower() if method else None
        return [
            r
            for r in self.records
            if (wanted is None or r.method.lower() == wanted)
            and (chat_id is None or r.chat_id == chat_id)
            and (ok is None or r.ok == ok)
            and (status is None or r.status == status)
        ]

    def count(self, method: str | None = None, **filters: Any) -> int:
        """How many calls match (same filters as :meth:`calls`)."""
        return len(self.calls(method, **filters))

    def by_method(self, *, include_polling: bool = False) -> Counter[str]:
        """Number of calls per method; getUpdates is left out unless asked for."""
        return Counter(
            r.method for r in self.records if include_polling or r.method.lower() != "getupdates"
        )

    def group_calls(self) -> list[CallRecord]:
        """Calls concerning a group or supergroup."""
        return [r for r in self.records if r.is_group]

    def private_calls(self) -> list[CallRecord]:
        """Calls concerning a private chat."""
        return [r for r in self.records if r.chat_type == "private"]

    def errors(self) -> list[CallRecord]:
        """Calls Telegram would have refused (any status but 200)."""
        return [r for r in self.records if not r.ok]

    def since(self, seq: int) -> list[CallRecord]:
        """Calls after a mark taken with :meth:`mark`."""
        return [r for r in self.records if r.seq > seq]

    def mark(self) -> int:
        """A mark for :meth:`since`: the sequence number of the last call so far."""
        return self.records[-1].seq if self.records else 0
