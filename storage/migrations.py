"""Ordered schema migrations, each committed together with its version.

Policy: a migration, once released, never changes; a schema change is a new
migration at the end of :data:`MIGRATIONS`.  Each one runs in its own
``BEGIN IMMEDIATE`` transaction that also records its version in
``schema_migrations``, so a crash leaves the file at an old version or the new
one, never between.  A database whose version is above :data:`SCHEMA_VERSION`
was written by a newer chaodipi and is refused untouched.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from storage.errors import SchemaTooNew, StorageError

log = logging.getLogger(__name__)


class Migratable(Protocol):
    """What the migrations need of a database (:class:`storage.db.Database` is one).

    Declared here, not imported: :meth:`storage.db.Database.open` migrates the
    file it opens, so ``storage.db`` imports this module and not the reverse.
    """

    path: Path

    async def fetchone(self, sql: str, params: Sequence[Any] = ...) -> sqlite3.Row | None:
        """Run a query and return its first row, or ``None``."""

    async def execute(self, sql: str, params: Sequence[Any] = ...) -> list[sqlite3.Row]:
        """Run a writing statement inside the current transaction."""

    def transaction(self, *, write: bool = True) -> AbstractAsyncContextManager[None]:
        """A block that commits if it ends normally and rolls back if it raises."""


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: its version, a name, and its SQL statements in order."""

    version: int
    name: str
    statements: tuple[str, ...]


_V1_CORE = (
    # Telegram users.  can_message_privately: the user opened the bot's private
    # chat, so it can send them their hand; blocked: a send came back 403.
    """CREATE TABLE users (
        user_id INTEGER PRIMARY KEY,
        display_name TEXT NOT NULL,
        language TEXT,
        can_message_privately INTEGER NOT NULL DEFAULT 0 CHECK (can_message_privately IN (0, 1)),
        blocked INTEGER NOT NULL DEFAULT 0 CHECK (blocked IN (0, 1)),
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    )""",
    # Group chats.  language NULL: the bot's default.
    """CREATE TABLE chats (
        chat_id INTEGER PRIMARY KEY,
        title TEXT NOT NULL DEFAULT '',
        language TEXT,
        default_preset TEXT NOT NULL DEFAULT 'yancheng',
        settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    )""",
    """CREATE TABLE tables (
        table_id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL REFERENCES chats (chat_id),
        status TEXT NOT NULL DEFAULT 'open'
            CHECK (status IN ('open', 'playing', 'finished', 'stopped')),
        creator_id INTEGER REFERENCES users (user_id),
        settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
        turn_deadline REAL,
        message_id INTEGER,
        thread_id INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    )""",
    # The rule "one active table per group chat" lives in the schema, so two
    # racing /new commands cannot both win.
    """CREATE UNIQUE INDEX tables_one_active_per_chat ON tables (chat_id)
        WHERE status IN ('open', 'playing')""",
    "CREATE INDEX tables_by_chat ON tables (chat_id, table_id)",
    # user_id NULL with is_ai: an AI seat; a user_id with is_ai: the AI plays
    # for that absent player.
    """CREATE TABLE seats (
        table_id INTEGER NOT NULL REFERENCES tables (table_id) ON DELETE CASCADE,
        seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
        user_id INTEGER REFERENCES users (user_id),
        is_ai INTEGER NOT NULL DEFAULT 0 CHECK (is_ai IN (0, 1)),
        hand_message_id INTEGER,
        nudge_message_id INTEGER,
        PRIMARY KEY (table_id, seat),
        UNIQUE (table_id, user_id),
        CHECK (is_ai = 1 OR user_id IS NOT NULL)
    ) WITHOUT ROWID""",
    # Side 0 is seats 0 and 2, side 1 seats 1 and 3.  Levels are rank ordinals
    # (2..14 = 2..A); extra holds whatever else the engine keeps per match.
    """CREATE TABLE matches (
        match_id INTEGER PRIMARY KEY,
        table_id INTEGER NOT NULL REFERENCES tables (table_id) ON DELETE CASCADE,
        preset TEXT NOT NULL,
        ruleset TEXT NOT NULL CHECK (json_valid(ruleset)),
        level0 INTEGER NOT NULL DEFAULT 2 CHECK (level0 BETWEEN 2 AND 14),
        level1 INTEGER NOT NULL DEFAULT 2 CHECK (level1 BETWEEN 2 AND 14),
        laps0 INTEGER NOT NULL DEFAULT 0 CHECK (laps0 >= 0),
        laps1 INTEGER NOT NULL DEFAULT 0 CHECK (laps1 >= 0),
        status TEXT NOT NULL DEFAULT 'playing'
            CHECK (status IN ('playing', 'finished', 'abandoned')),
        winner_side INTEGER CHECK (winner_side IN (0, 1)),
        extra TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(extra)),
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    )""",
    "CREATE UNIQUE INDEX matches_one_playing_per_table ON matches (table_id) WHERE status = 'playing'",
    "CREATE INDEX matches_by_table ON matches (table_id, match_id)",
    # seed + ruleset + context are everything the engine needs to deal the
    # hand again; the event log then replays every action on top.
    """CREATE TABLE hands (
        hand_id INTEGER PRIMARY KEY,
        match_id INTEGER NOT NULL REFERENCES matches (match_id) ON DELETE CASCADE,
        number INTEGER NOT NULL CHECK (number >= 1),
        seed INTEGER NOT NULL,
        ruleset TEXT NOT NULL CHECK (json_valid(ruleset)),
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished', 'aborted')),
        dealer_seat INTEGER CHECK (dealer_seat BETWEEN 0 AND 3),
        context TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(context)),
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        UNIQUE (match_id, number)
    )""",
    "CREATE UNIQUE INDEX hands_one_active_per_match ON hands (match_id) WHERE status = 'active'",
    # The log: the primary key makes (hand, seq) unique, so even a writer that
    # skipped the sequence check could not store move N twice.  WITHOUT ROWID
    # keeps a hand's events together on disk for replay.
    """CREATE TABLE events (
        hand_id INTEGER NOT NULL REFERENCES hands (hand_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL CHECK (seq >= 1),
        kind TEXT NOT NULL,
        payload TEXT NOT NULL CHECK (json_valid(payload)),
        created_at REAL NOT NULL,
        PRIMARY KEY (hand_id, seq)
    ) WITHOUT ROWID""",
    """CREATE TRIGGER events_append_only BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END""",
    # p is the attackers' signed score; level changes are signed per side.
    """CREATE TABLE hand_results (
        hand_id INTEGER PRIMARY KEY REFERENCES hands (hand_id) ON DELETE CASCADE,
        attacker_points INTEGER NOT NULL,
        dealer_side INTEGER NOT NULL CHECK (dealer_side IN (0, 1)),
        winner_side INTEGER NOT NULL CHECK (winner_side IN (0, 1)),
        level_change0 INTEGER NOT NULL DEFAULT 0,
        level_change1 INTEGER NOT NULL DEFAULT 0,
        special TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(special)),
        created_at REAL NOT NULL
    )""",
    # Who sat where when the hand ended, copied here so that standings do not
    # change when a seat is later taken by someone else.
    """CREATE TABLE hand_result_seats (
        hand_id INTEGER NOT NULL REFERENCES hand_results (hand_id) ON DELETE CASCADE,
        seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
        user_id INTEGER REFERENCES users (user_id),
        is_ai INTEGER NOT NULL DEFAULT 0 CHECK (is_ai IN (0, 1)),
        score INTEGER NOT NULL,
        PRIMARY KEY (hand_id, seat)
    ) WITHOUT ROWID""",
    "CREATE INDEX hand_result_seats_by_user ON hand_result_seats (user_id)",
    # One row per seat per scored hand, with the chat it was played in: the
    # base of every standings query.
    """CREATE VIEW result_rows AS
        SELECT t.chat_id AS chat_id,
               r.hand_id AS hand_id,
               s.seat AS seat,
               s.seat % 2 AS side,
               s.user_id AS user_id,
               s.is_ai AS is_ai,
               s.score AS score,
               (s.seat % 2 = r.winner_side) AS won,
               (s.seat % 2 = r.dealer_side) AS as_dealer,
               r.created_at AS created_at
        FROM hand_result_seats AS s
        JOIN hand_results AS r ON r.hand_id = s.hand_id
        JOIN hands AS h ON h.hand_id = r.hand_id
        JOIN matches AS m ON m.match_id = h.match_id
        JOIN tables AS t ON t.table_id = m.table_id""",
)

_V2_SNAPSHOTS = (
    # A cache of a hand's state after event `seq`, so start-up need not replay
    # long logs.  The log stays the truth: a snapshot whose version the engine
    # does not know is ignored and rebuilt.
    """CREATE TABLE snapshots (
        hand_id INTEGER PRIMARY KEY REFERENCES hands (hand_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL CHECK (seq >= 0),
        version INTEGER NOT NULL,
        state TEXT NOT NULL CHECK (json_valid(state)),
        created_at REAL NOT NULL
    )""",
)

_V3_CHAT_MIGRATIONS = (
    # Telegram moves a group to a new id when it becomes a supergroup; this
    # remembers the move so an update that still carries the old id finds it.
    """CREATE TABLE chat_migrations (
        old_chat_id INTEGER PRIMARY KEY,
        new_chat_id INTEGER NOT NULL,
        migrated_at REAL NOT NULL
    )""",
)

_V4_ANNOUNCEMENTS = (
    # The outbox of group announcements (a hand's result, the match's end),
    # written in the transaction that stores what they announce; sent_at is
    # set once Telegram took the message (or refused the chat for good).
    """CREATE TABLE announcements (
        announcement_id INTEGER PRIMARY KEY,
        table_id INTEGER NOT NULL REFERENCES tables (table_id) ON DELETE CASCADE,
        hand_id INTEGER REFERENCES hands (hand_id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        text TEXT NOT NULL,
        created_at REAL NOT NULL,
        sent_at REAL,
        message_id INTEGER
    )""",
    # One announcement of each kind per hand, however often a hand is settled.
    """CREATE UNIQUE INDEX announcements_once_per_hand ON announcements (hand_id, kind)
        WHERE hand_id IS NOT NULL""",
    "CREATE INDEX announcements_pending ON announcements (announcement_id) WHERE sent_at IS NULL",
)

_RESULT_ROWS_COUNTED = """CREATE VIEW result_rows AS
        SELECT t.chat_id AS chat_id,
               r.hand_id AS hand_id,
               s.seat AS seat,
               s.seat % 2 AS side,
               s.user_id AS user_id,
               s.is_ai AS is_ai,
               s.score AS score,
               (s.outcome = 'won') AS won,
               (s.seat % 2 = r.dealer_side) AS as_dealer,
               r.created_at AS created_at
        FROM hand_result_seats AS s
        JOIN hand_results AS r ON r.hand_id = s.hand_id
        JOIN hands AS h ON h.hand_id = r.hand_id
        JOIN matches AS m ON m.match_id = h.match_id
        JOIN tables AS t ON t.table_id = m.table_id
        WHERE s.outcome IS NOT NULL"""

_V5_HONEST_STANDINGS = (
    # Whom a hand counts for, per seat: 'won' or 'lost' for the person who
    # played the seat to the end, NULL for nobody (an AI seat, an absent
    # person the AI played for, everyone but the escaper in an escape).
    """ALTER TABLE hand_result_seats ADD COLUMN outcome TEXT CHECK (outcome IN ('won', 'lost'))""",
    # Recomputed from the stored results: a hand scored by the escape rule
    # (its special record names the escaper) is a loss for the escaper if it
    # cost anything and nothing for anyone else; any other hand is won by
    # the stored winner side.  Redeals never had a result, so count nowhere.
    """UPDATE hand_result_seats SET outcome = (
        SELECT CASE
            WHEN json_extract(r.special, '$.escaped') IS NULL THEN
                CASE WHEN hand_result_seats.seat % 2 = r.winner_side THEN 'won' ELSE 'lost' END
            WHEN json_extract(r.special, '$.escaped') = hand_result_seats.seat
                 AND hand_result_seats.score < 0 THEN 'lost'
        END
        FROM hand_results AS r WHERE r.hand_id = hand_result_seats.hand_id)
    WHERE user_id IS NOT NULL AND is_ai = 0""",
    "DROP VIEW result_rows",
    _RESULT_ROWS_COUNTED,
)

_V6_SHOWN_MESSAGES = (
    # What each message the bot keeps current shows now, as a digest of its text and buttons: after a
    # restart an edit that would change nothing is not sent ("message is not modified").
    """CREATE TABLE shown_messages (
        chat_id INTEGER NOT NULL,
        message_id INTEGER NOT NULL,
        digest TEXT NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (chat_id, message_id)
    ) WITHOUT ROWID""",
)

_V7_SEASONS = (
    # The group's time zone (an IANA name; NULL: Asia/Shanghai): a monthly season ends at its midnight.
    "ALTER TABLE chats ADD COLUMN time_zone TEXT",
    # A group's league runs in seasons: calendar months in its time zone ('monthly', named by the
    # month 'YYYY-MM'), or one its admins started and named ('named', open-ended: ends_at NULL until
    # they start the next).  A hand counts in the season in which its result was stored.  closed_at
    # is set when the season's end was told in the group (in the transaction that queued the telling).
    """CREATE TABLE seasons (
        season_id INTEGER PRIMARY KEY,
        chat_id INTEGER NOT NULL REFERENCES chats (chat_id),
        kind TEXT NOT NULL CHECK (kind IN ('monthly', 'named')),
        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
        starts_at REAL NOT NULL,
        ends_at REAL,
        min_hands INTEGER NOT NULL CHECK (min_hands BETWEEN 0 AND 10000),
        started_by INTEGER REFERENCES users (user_id),
        closed_at REAL,
        created_at REAL NOT NULL,
        CHECK (ends_at IS NULL OR ends_at >= starts_at),
        CHECK (kind = 'named' OR ends_at IS NOT NULL)
    )""",
    "CREATE UNIQUE INDEX seasons_by_chat ON seasons (chat_id, starts_at)",
    "CREATE INDEX seasons_to_close ON seasons (ends_at) WHERE closed_at IS NULL AND ends_at IS NOT NULL",
    # A season's end is told with a picture (its chart and final table), sent from the outbox.
    "ALTER TABLE announcements ADD COLUMN photo BLOB",
    # The group a hand was played in, recorded with its result (as its seats' people are), so that a
    # group's league reads the results of a season by one index range instead of every hand it ever
    # played; migrate_chat moves it with the group's tables.  Filled here for the results before it.
    "ALTER TABLE hand_results ADD COLUMN chat_id INTEGER",
    """UPDATE hand_results SET chat_id = (
        SELECT t.chat_id FROM hands AS h JOIN matches AS m ON m.match_id = h.match_id
        JOIN tables AS t ON t.table_id = m.table_id WHERE h.hand_id = hand_results.hand_id)""",
    "CREATE INDEX hand_results_by_chat ON hand_results (chat_id, created_at, dealer_side)",
    # The escapes of a group's league: a small partial index over the results scored by the escape
    # rule, so counting them never reads any other result's special record.
    """CREATE INDEX hand_results_escapes ON hand_results (chat_id, created_at)
        WHERE json_extract(special, '$.escaped') IS NOT NULL""",
)

_V8_TOPICS = (
    # A forum supergroup runs one table per topic: "one active table" is per (group, topic) now, the
    # group's General topic (and a group without topics) counting as topic 0.
    "DROP INDEX tables_one_active_per_chat",
    """CREATE UNIQUE INDEX tables_one_active_per_topic ON tables (chat_id, COALESCE(thread_id, 0))
        WHERE status IN ('open', 'playing')""",
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "core tables, event log, results and the result_rows view", _V1_CORE),
    Migration(2, "snapshot cache of hand states", _V2_SNAPSHOTS),
    Migration(3, "record of group → supergroup chat moves", _V3_CHAT_MIGRATIONS),
    Migration(4, "outbox of group announcements", _V4_ANNOUNCEMENTS),
    Migration(5, "hand outcomes per seat: escapes, voided hands and the AI's seats count for nobody",
              _V5_HONEST_STANDINGS),
    Migration(6, "what each message kept current shows (a digest)", _V6_SHOWN_MESSAGES),
    Migration(7, "league seasons, the group's time zone, announcements with a picture, results by group",
              _V7_SEASONS),
    Migration(8, "one active table per topic of a forum group", _V8_TOPICS),
)
"""Every migration, in order; ``MIGRATIONS[i].version == i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)
"""The schema version this code writes and understands."""

_BOOKKEEPING = """CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at REAL NOT NULL
)"""


async def schema_version(db: Migratable) -> int:
    """The highest migration applied to the database; 0 for a fresh file."""
    row = await db.fetchone(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    )
    if row is None:
        return 0
    row = await db.fetchone("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
    return int(row[0]) if row is not None else 0


async def migrate(db: Migratable, *, target: int | None = None) -> int:
    """Apply every pending migration up to ``target`` (default: all); return the version.

    Safe to run from two processes at once: each step re-reads the version
    after taking the write lock and skips what the other already did.
    """
    target = SCHEMA_VERSION if target is None else target
    if not 0 <= target <= SCHEMA_VERSION:
        raise ValueError(f"target must be between 0 and {SCHEMA_VERSION}, not {target}")
    current = await schema_version(db)
    if current > SCHEMA_VERSION:
        raise SchemaTooNew(str(db.path), current, SCHEMA_VERSION)
    for migration in MIGRATIONS[current:target]:
        async with db.transaction():
            # Read again under the write lock: another process may have
            # migrated since, and its tables must not look foreign.
            now = await schema_version(db)
            if now > SCHEMA_VERSION:
                raise SchemaTooNew(str(db.path), now, SCHEMA_VERSION)
            if now == 0:
                await _refuse_foreign_database(db)
            if now >= migration.version:
                continue
            await db.execute(_BOOKKEEPING)
            for statement in migration.statements:
                await db.execute(statement)
            await db.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, time.time()),
            )
        log.info("Applied schema migration %d (%s) to %s", migration.version, migration.name, db.path)
    return await schema_version(db)


async def _refuse_foreign_database(db: Migratable) -> None:
    # A file with tables but no migration record is someone else's database:
    # adding ours to it would mix two applications' data.
    row = await db.fetchone(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' LIMIT 1"
    )
    if row is not None and row[0] != "schema_migrations":
        raise StorageError(
            f"{db.path} is an SQLite database without chaodipi's schema_migrations table "
            f"(it has a table {row[0]!r}); refusing to add chaodipi's tables to it."
        )
