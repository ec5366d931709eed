"""The transaction helper: commit, roll back, nest, and keep tasks apart."""

from __future__ import annotations

import asyncio
import time

import pytest

from storage import Database, StorageError


async def _add_chat(db: Database, chat_id: int) -> None:
    now = time.time()
    await db.execute(
        "INSERT INTO chats (chat_id, created_at, updated_at) VALUES (?, ?, ?)", (chat_id, now, now)
    )


async def _chat_ids(db: Database) -> list[int]:
    return [r[0] for r in await db.fetchall("SELECT chat_id FROM chats ORDER BY chat_id")]


async def test_commit_and_rollback(db: Database) -> None:
    async with db.transaction():
        await _add_chat(db, 1)
    with pytest.raises(RuntimeError):
        async with db.transaction():
            await _add_chat(db, 2)
            raise RuntimeError("boom")
    assert await _chat_ids(db) == [1]
    assert not db.in_transaction()


async def test_a_failed_nested_block_undoes_only_itself(db: Database) -> None:
    async with db.transaction():
        await _add_chat(db, 1)
        with pytest.raises(ValueError):
            async with db.transaction():
                await _add_chat(db, 2)
                async with db.transaction():
                    await _add_chat(db, 3)
                raise ValueError("inner")
        async with db.transaction():
            await _add_chat(db, 4)
        assert await _chat_ids(db) == [1, 4]
    assert await _chat_ids(db) == [1, 4]


async def test_an_error_in_a_nested_block_that_escapes_undoes_everything(db: Database) -> None:
    with pytest.raises(ValueError):
        async with db.transaction():
            await _add_chat(db, 1)
            async with db.transaction():
                await _add_chat(db, 2)
                raise ValueError("inner")
    assert await _chat_ids(db) == []


async def test_writing_outside_a_transaction_is_refused(db: Database) -> None:
    with pytest.raises(StorageError, match="inside Database.transaction"):
        await _add_chat(db, 1)
    assert await _chat_ids(db) == []


async def test_another_task_never_sees_uncommitted_writes(db: Database) -> None:
    inside = asyncio.Event()
    release = asyncio.Event()

    async def writer() -> None:
        async with db.transaction():
            await _add_chat(db, 1)
            inside.set()
            await release.wait()
            await _add_chat(db, 2)

    task = asyncio.create_task(writer())
    await inside.wait()
    reader = asyncio.create_task(_chat_ids(db))
    await asyncio.sleep(0.05)
    assert not reader.done()  # it waits for the writer instead of reading half its work
    release.set()
    await task
    assert await reader == [1, 2]


async def test_a_task_started_inside_a_transaction_waits_for_it(db: Database) -> None:
    async with db.transaction():
        await _add_chat(db, 1)

        async def child() -> None:
            async with db.transaction():
                await _add_chat(db, 2)

        task = asyncio.create_task(child())
        await asyncio.sleep(0.02)
        assert not task.done()
        assert await _chat_ids(db) == [1]
    await task
    assert await _chat_ids(db) == [1, 2]


async def test_cancelling_a_task_rolls_its_transaction_back(db: Database) -> None:
    started = asyncio.Event()

    async def writer() -> None:
        async with db.transaction():
            await _add_chat(db, 1)
            started.set()
            await asyncio.sleep(10)

    task = asyncio.create_task(writer())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _chat_ids(db) == []
    async with db.transaction():
        await _add_chat(db, 5)
    assert await _chat_ids(db) == [5]


async def test_committed_writes_are_seen_by_a_second_connection(db: Database) -> None:
    async with db.transaction():
        await _add_chat(db, 9)
    other = await Database.open(db.path)
    try:
        assert await _chat_ids(other) == [9]
    finally:
        await other.close()
