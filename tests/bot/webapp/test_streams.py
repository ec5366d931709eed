"""Stream tickets (one use, short-lived, one table) and the caps on open streams (bot.webapp.streams)."""

from __future__ import annotations

import pytest

from bot.webapp import streams
from bot.webapp.streams import StreamCapError, Streams


def test_a_ticket_opens_one_stream_of_its_table_once() -> None:
    hub = Streams()
    token = hub.issue(7, 1, 2, auth_date=1_000, language_code="en")
    assert len(token) >= 40 and hub.issue(7, 1, 2, 1_000, "en") != token
    assert hub.redeem(token, 2) is None, "another table's stream"
    token = hub.issue(7, 1, 2, 1_000, "en")
    ticket = hub.redeem(token, 1)
    assert ticket is not None and (ticket.user_id, ticket.table_id, ticket.seat, ticket.auth_date) == (7, 1, 2, 1_000)
    assert hub.redeem(token, 1) is None, "used already"
    assert hub.redeem("", 1) is None and hub.redeem("A" * 43, 1) is None


def test_a_ticket_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    hub = Streams()
    now = [100.0]
    monkeypatch.setattr(streams.time, "monotonic", lambda: now[0])
    token = hub.issue(7, 1, 0, 1_000, None)
    now[0] += streams.TICKET_LIFE + 1
    assert hub.redeem(token, 1) is None


def test_unused_tickets_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streams, "TICKETS_KEPT", 5)
    hub = Streams()
    tokens = [hub.issue(person, 1, 0, 1_000, None) for person in range(20)]
    assert len(hub._tickets) <= 5
    assert hub.redeem(tokens[0], 1) is None and hub.redeem(tokens[-1], 1) is not None


def test_tickets_and_open_streams_share_the_caps_per_person_and_per_table(monkeypatch: pytest.MonkeyPatch) -> None:
    hub = Streams()
    tokens = [hub.issue(7, 1, 0, 1_000, None) for _ in range(streams.PER_PERSON)]
    with pytest.raises(StreamCapError):
        hub.issue(7, 1, 0, 1_000, None)  # a burst of tickets opens no more streams than the cap
    with pytest.raises(StreamCapError):
        hub.issue(7, 2, 0, 1_000, None)  # the person's cap counts every table
    hub.issue(8, 1, 1, 1_000, None)  # someone else at the same table may
    opened = [hub.redeem(token, 1) for token in tokens]
    assert all(opened) and hub.open_count() == streams.PER_PERSON
    with pytest.raises(StreamCapError):
        hub.issue(7, 1, 0, 1_000, None)
    ticket = opened.pop()
    assert ticket is not None
    hub.closed(ticket)
    assert hub.open_count() == streams.PER_PERSON - 1
    hub.issue(7, 1, 0, 1_000, None)
    monkeypatch.setattr(streams, "PER_TABLE", streams.PER_PERSON + 1)
    with pytest.raises(StreamCapError):
        hub.issue(9, 1, 2, 1_000, None)
    hub.issue(9, 3, 2, 1_000, None)


def test_an_unused_ticket_gives_its_place_back_when_it_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    hub = Streams()
    now = [100.0]
    monkeypatch.setattr(streams.time, "monotonic", lambda: now[0])
    for _ in range(streams.PER_PERSON):
        hub.issue(7, 1, 0, 1_000, None)
    with pytest.raises(StreamCapError):
        hub.issue(7, 1, 0, 1_000, None)
    now[0] += streams.TICKET_LIFE + 1
    hub.issue(7, 1, 0, 1_000, None)
    assert hub.open_count() == 0


def test_the_places_of_people_who_left_never_lock_out_whoever_sits_next(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streams, "PER_TABLE", 2 * streams.PER_PERSON)
    hub = Streams()
    seated = {0: 7, 1: 8}

    def holds(user_id: int, seat: int) -> bool:
        return seated.get(seat) == user_id

    waiting = [hub.issue(7, 1, 0, 1_000, None, holds) for _ in range(streams.PER_PERSON)]
    opened = [hub.redeem(hub.issue(8, 1, 1, 1_000, None, holds), 1) for _ in range(streams.PER_PERSON)]
    assert all(opened)
    with pytest.raises(StreamCapError):
        hub.issue(9, 1, 2, 1_000, None, holds)  # the table is full while 7 and 8 sit there
    seated = {0: 10, 1: 11}  # 7 (tickets waiting) and 8 (streams open) leave; 10 and 11 sit down
    assert hub.seated_places(1, holds) == 0
    for person, seat in ((10, 0), (11, 1)):
        for _ in range(streams.PER_PERSON):
            hub.issue(person, 1, seat, 1_000, None, holds)
    assert all(hub.redeem(token, 1) is None for token in waiting), "a leaver's ticket opens nothing"
    for _ in range(streams.PER_PERSON):
        hub.issue(7, 2, 0, 1_000, None)  # the leaver's places are his again, at any table
    for ticket in opened:
        assert ticket is not None
        hub.closed(ticket)
    assert hub.open_count() == 0 and hub.seated_places(1, holds) == 2 * streams.PER_PERSON
