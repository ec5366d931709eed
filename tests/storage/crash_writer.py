"""Child process of the crash test: append events until killed.

Prints each event's sequence number only after the transaction that stored it
committed, so every number the parent reads must survive a SIGKILL.
Usage: python -m tests.storage.crash_writer DB_PATH HAND_ID
"""

from __future__ import annotations

import asyncio
import sys

import storage


async def main(path: str, hand_id: int) -> None:
    db = await storage.Database.open(path)
    seq = await storage.last_seq(db, hand_id) + 1
    print("ready", flush=True)
    while True:
        payload = {"n": seq, "pad": "炒" * 100}
        if seq % 25 == 0:
            # A transaction of several writes: a kill inside it must undo all of them.
            async with db.transaction():
                await storage.append_event(db, hand_id, seq, "play", payload)
                await storage.save_snapshot(db, hand_id, seq, 1, {"n": seq})
                await storage.update_table(db, 1, turn_deadline=float(seq))
        else:
            await storage.append_event(db, hand_id, seq, "play", payload)
        print(seq, flush=True)
        seq += 1


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
