"""A bot far behind Telegram's overall limit starts no new match: the tables playing keep their pace,
and whoever pressed Start is told to press it again in a minute (nothing else changes)."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.config import Settings
from bot.i18n import translator
from bot.model import Seat, Table
from bot.tables import FAR_BEHIND, TableError, Tables
from bot.tables.admission import ADMIT_BACKLOG, ADMIT_RATE, ADMIT_WAIT, TABLE_RATE, YOUNG


class Behind:
    """Stands in for the publisher and its rate limiter: only the backlog (seconds of messages waiting), how
    long the next movers' messages waited lately and the messages a second sent lately are read."""

    def __init__(self, backlog: float, movers: float = 0.0, rate: float = 0.0) -> None:
        self.backlog = backlog
        self.movers = movers
        self.rate = rate
        self.kept = 0

    @property
    def limiter(self) -> Behind:
        return self

    def movers_wait(self) -> float:
        return self.movers

    def sent_rate(self) -> float:
        return self.rate


def lobby() -> Table:
    table = Table(id=5, chat_id=-100, creator_id=100, lang="zh", title="G", status="open")
    table.seats = [Seat(100 + s, f"P{s}", lang="zh") for s in range(4)]
    return table


class Started(Exception):
    """Raised by the stand-in database: the start went past the check."""


class Database:
    def transaction(self) -> object:
        raise Started


@pytest.mark.parametrize("backlog, movers, refused", [
    (FAR_BEHIND + 1, 0.0, True), (ADMIT_BACKLOG + 0.1, 0.0, True), (ADMIT_BACKLOG - 0.1, 0.0, False),
    (0.0, 0.0, False),
    (0.0, ADMIT_WAIT + 0.05, True),  # nothing queued this instant, but the next movers have been waiting
    (0.5, ADMIT_WAIT - 0.05, False)])
async def test_no_new_match_starts_while_telegrams_limit_has_no_room(backlog: float, movers: float,
                                                                     refused: bool) -> None:
    tables = Tables(db=Database(), config=Settings(token="x"))  # type: ignore[arg-type]
    tables.publisher = Behind(backlog, movers)  # type: ignore[assignment]
    table = lobby()
    if refused:
        with pytest.raises(TableError) as caught:
            await tables.start(table)
        assert caught.value.text(translator("zh")) == \
            "Telegram 限制了我一次能发的消息量，现在先留给正在打的牌桌：等有余量，这一桌会自动开始（前面还有 0 桌在等）。"
        assert "starts by itself as soon as there is room (0 waiting before it)" in caught.value.text(translator("en"))
        assert table.status == "open" and table.match is None and list(tables.waiting_starts) == [table.id]
    else:
        with pytest.raises(Started):
            await tables.start(table)
        assert not tables.waiting_starts


async def test_waiting_tables_start_in_turn_as_soon_as_there_is_room(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three tables press Start while the bot is behind: each is told its place and none jumps the queue (a
    fourth pressing once there is room waits too); when the backlog falls they start oldest first, by
    themselves, one a look; a table stopped meanwhile is dropped; /health counts the backlog and the queue."""
    from bot.tables import admission

    tables = Tables(db=Database(), config=Settings(token="x"))  # type: ignore[arg-type]
    behind = Behind(ADMIT_BACKLOG + 5)
    tables.publisher = behind  # type: ignore[assignment]
    started: list[int] = []

    async def start_now(house: object, table: Table) -> None:
        table.status = "playing"
        started.append(table.id)

    monkeypatch.setattr(admission.lobby, "start", start_now)
    monkeypatch.setattr(admission, "after_change", lambda house, table: None)
    monkeypatch.setattr(admission, "LOOK_EVERY", 0.01)
    waiting = []
    for table_id in (11, 12, 13):
        table = lobby()
        table.id = table_id
        tables.by_id[table_id] = table
        with pytest.raises(TableError) as caught:
            await tables.start(table)
        assert caught.value.values == {"n": len(waiting)}
        waiting.append(table_id)
    assert tables.load()["waiting_tables"] == 3 and tables.load()["backlog"] == ADMIT_BACKLOG + 5
    behind.movers = 0.7
    assert tables.load()["movers_wait"] == 0.7
    tables.by_id[12].status = "finished"  # stopped while it waited
    runner = asyncio.create_task(tables.admit())
    try:
        await asyncio.sleep(0.05)
        assert started == []  # still no room
        behind.backlog = 0.0
        await asyncio.sleep(0.05)
        assert started == []  # the queue is empty, but the next movers still waited too long lately
        behind.movers = 0.0
        late = lobby()
        late.id = 14
        tables.by_id[14] = late
        with pytest.raises(TableError) as caught:  # room now, but two tables wait before it
            await tables.start(late)
        assert caught.value.values == {"n": 2}
        async with asyncio.timeout(10):
            while len(started) < 3:
                await asyncio.sleep(0.01)
        assert started == [11, 13, 14] and not tables.waiting_starts
    finally:
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)


def playing_tables(tables: Tables, n: int) -> None:
    """``n`` tables with a match under way (only whether they play is read)."""
    for table_id in range(1000, 1000 + n):
        table = lobby()
        table.id, table.status, table.match = table_id, "playing", object()  # type: ignore[assignment]
        tables.by_id[table_id] = table


async def test_tables_started_lately_are_forecast_at_what_a_table_playing_costs() -> None:
    """A table's deal and bidding cost little, so the rate measured shows its play only a minute or so after
    its start: the forecast counts each table started lately, and the new one, at what the tables playing
    longer cost (at least a real-time table's), and refuses a start that would take it past the mark."""
    from bot.tables.admission import crowded, forecast

    tables = Tables(db=Database(), config=Settings(token="x"))  # type: ignore[arg-type]
    tables.publisher = Behind(0.0, rate=21.0)  # type: ignore[assignment]
    playing_tables(tables, 60)
    now = 10_000.0
    assert forecast(tables, now) == pytest.approx(21.0 + 21.0 / 60)  # nobody young: the new table alone
    assert not crowded(tables)
    tables.started.extend([now - YOUNG - 1] * 5 + [now - 10.0] * 10)  # five started long ago, ten lately
    assert forecast(tables, now) == pytest.approx(21.0 + 11 * 21.0 / 60)  # 24.85: ten young and the new one
    assert len(tables.started) == 10  # the old starts are forgotten
    tables.started.clear()
    tables.started.extend([time.time()] * 10)
    assert crowded(tables)
    table = lobby()
    with pytest.raises(TableError):
        await tables.start(table)
    assert list(tables.waiting_starts) == [table.id]


async def test_with_few_tables_measured_a_new_table_costs_a_real_time_tables_rate() -> None:
    """At the start (or after quiet hours), the rate says nothing of what a table costs: each table started
    lately counts at :data:`TABLE_RATE` a second, so the first minute's starts cannot overshoot the mark."""
    from bot.tables.admission import forecast

    tables = Tables(db=Database(), config=Settings(token="x"))  # type: ignore[arg-type]
    tables.publisher = Behind(0.0, rate=0.5)  # type: ignore[assignment]
    playing_tables(tables, 40)
    now = 10_000.0
    tables.started.extend([now - 5.0] * 40)  # every table playing started lately: still dealing and bidding
    assert forecast(tables, now) == pytest.approx(0.5 + 41 * TABLE_RATE)
    assert int((ADMIT_RATE - 0.5) / TABLE_RATE) == 71  # so about 71 tables start within a minute and a half, not 150


async def test_a_ramp_of_young_tables_is_not_charged_their_bidding_as_if_few_tables_made_it() -> None:
    """Most tables playing started lately: their deals and bidding are in the rate, spread over every table
    playing, so the few older ones do not make each young table look several times as dear (as a first
    version, which divided by the older tables alone, did: here 1.2 messages a second each, not 0.3)."""
    from bot.tables.admission import crowded, forecast

    tables = Tables(db=Database(), config=Settings(token="x"))  # type: ignore[arg-type]
    tables.publisher = Behind(0.0, rate=6.0)  # type: ignore[assignment]
    playing_tables(tables, 30)
    tables.started.extend([time.time()] * 25)
    assert forecast(tables) == pytest.approx(6.0 + 26 * TABLE_RATE)
    assert not crowded(tables)


async def test_a_match_started_is_counted_as_started_lately(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.tables import admission

    tables = Tables(db=Database(), config=Settings(token="x"))  # type: ignore[arg-type]
    tables.publisher = Behind(0.0)  # type: ignore[assignment]

    async def start_now(house: object, table: Table) -> None:
        table.status = "playing"

    monkeypatch.setattr(admission.lobby, "start", start_now)
    await tables.start(lobby())
    assert len(tables.started) == 1 and time.time() - tables.started[0] < 5
    assert tables.load()["sent_rate"] == 0.0
