"""The 炒地皮 rules engine: pure, synchronous and deterministic.

No Telegram, asyncio, SQLite or logging set-up lives here.
"""
