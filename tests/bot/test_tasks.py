"""The supervisor: a task that fails is logged once with its table, runs again with backoff, and says so
when it works again; a cancelled task stays cancelled; the heartbeat's summary lists what runs."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.tasks import Supervisor, came_through


async def test_failing_work_is_logged_once_with_its_table_and_runs_again_until_it_works(
        caplog: pytest.LogCaptureFixture) -> None:
    tasks = Supervisor(first_backoff=0.01, last_backoff=0.04)
    runs = 0

    async def flaky() -> None:
        nonlocal runs
        runs += 1
        if runs <= 4:
            raise RuntimeError("database is locked")

    with caplog.at_level(logging.INFO, logger="bot.tasks"):
        task = tasks.start("ai 12", flaky, table=12)
        await asyncio.wait_for(task, 5)
    assert runs == 5
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and "'ai 12' of table 12 failed: RuntimeError" in errors[0].getMessage()
    assert errors[0].exc_info is not None  # the traceback, once
    recovered = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(recovered) == 1 and "works again after 4 failures" in recovered[0]
    assert tasks.failed == 4 and tasks.summary()["failing"] == []


async def test_work_that_must_not_run_twice_is_logged_and_not_restarted(caplog: pytest.LogCaptureFixture) -> None:
    tasks = Supervisor(first_backoff=0.01)
    runs = 0

    async def send_once() -> None:
        nonlocal runs
        runs += 1
        raise ValueError("boom")

    with caplog.at_level(logging.ERROR, logger="bot.tasks"):
        await asyncio.wait_for(tasks.start("nudge 3", send_once, table=3, restart=False), 5)
    assert runs == 1 and len(caplog.records) == 1


async def test_a_loop_that_never_ends_says_when_it_came_through(caplog: pytest.LogCaptureFixture) -> None:
    tasks = Supervisor(first_backoff=0.01)
    rounds = 0
    done = asyncio.Event()

    async def heartbeat() -> None:
        nonlocal rounds
        while True:
            rounds += 1
            if rounds == 1:
                raise OSError("disk full")
            came_through()
            if rounds == 3:
                done.set()
            await asyncio.sleep(0.01)

    with caplog.at_level(logging.WARNING, logger="bot.tasks"):
        task = tasks.start("heartbeat", heartbeat)
        await asyncio.wait_for(done.wait(), 5)
        assert tasks.summary()["failing"] == []
        assert tasks.summary()["running"] == {"heartbeat": 1}
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert [r.getMessage().split(" works")[0] for r in caplog.records if r.levelno == logging.WARNING] == \
        ["task 'heartbeat'"]
    assert tasks.running() == []


async def test_the_summary_names_work_that_keeps_failing() -> None:
    tasks = Supervisor(first_backoff=0.01, last_backoff=0.01)

    async def broken() -> None:
        raise KeyError("x")

    task = tasks.start("timer 7", broken, table=7)
    await asyncio.sleep(0.1)
    failing = tasks.summary()["failing"]
    assert failing and failing[0]["name"] == "timer 7" and failing[0]["table"] == 7
    assert failing[0]["error"] == "KeyError" and failing[0]["failures"] >= 2
    assert tasks.get("timer 7") is task and tasks.of_table(7) == [task]
    await tasks.close(timeout=1)
    assert task.cancelled() and tasks.get("timer 7") is None


async def test_cancel_by_name_stops_the_last_task_started_under_it() -> None:
    tasks = Supervisor()
    first = tasks.start("timer 1", lambda: asyncio.sleep(10), table=1)
    second = tasks.start("timer 1", lambda: asyncio.sleep(10), table=1)
    assert tasks.cancel("timer 1") is second
    await asyncio.gather(second, return_exceptions=True)
    assert second.cancelled() and not first.done()
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)


async def until(condition: object, timeout: float = 10.0) -> None:
    """Wait (on the event loop, without a fixed sleep) until ``condition()`` is true."""
    async with asyncio.timeout(timeout):
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.005)


async def test_health_names_a_task_that_keeps_failing_and_a_fault_that_passes_is_left_to_the_faults() -> None:
    from bot.faults import passes
    from bot.health import Health, troubles
    from bot.tasks import KEEPS_FAILING
    from storage.errors import DatabaseLocked

    tasks = Supervisor(first_backoff=0.001, last_backoff=0.001)
    health = Health("polling", lambda: 0, failing=tasks.troubles)

    async def locked() -> None:
        raise DatabaseLocked("database is locked")

    locked_task = tasks.start("ai 3", locked, table=3)
    await until(lambda: tasks.summary()["failing"] and tasks.summary()["failing"][0]["failures"] > KEEPS_FAILING)
    assert passes(DatabaseLocked("database is locked"))
    assert health.status()["ok"] and tasks.troubles() == []  # told as a fault by bot.faults, not as a task's
    locked_task.cancel()

    async def broken() -> None:
        raise KeyError("a bug")

    tasks.start("timer 9", broken, table=9)
    await until(lambda: any(e["name"] == "timer 9" and e["failures"] >= KEEPS_FAILING
                            for e in tasks.summary()["failing"]))
    status = health.status()
    assert not status["ok"] and any("'timer 9' of table 9 failed" in t and "KeyError" in t for t in status["failing"])
    assert any("timer 9" in phrase for phrase in troubles(status))
    await tasks.close(timeout=1)
    assert not any("timer 9" in t for t in tasks.troubles())  # cancelled: no longer failing


async def test_many_short_lived_failures_in_a_minute_make_health_unhealthy() -> None:
    from bot.tasks import MOST_FAILURES

    tasks = Supervisor()

    async def fails_once() -> None:
        raise RuntimeError("403: Forbidden")

    for n in range(MOST_FAILURES - 1):
        await asyncio.wait([tasks.start(f"send {n}", fails_once, restart=False)])
    assert tasks.troubles() == []
    await asyncio.wait([tasks.start("send last", fails_once, restart=False)])
    assert tasks.troubles() == [f"{MOST_FAILURES} task failures in the last 60 s"]
