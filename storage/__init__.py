"""Persistence for chaodipi on SQLite (aiosqlite): chats, tables, the event log, standings.

Every function takes the open :class:`Database` first.  Events are opaque
here: storage keeps each hand's log in order and refuses a second move N, and
the caller's engine replays it (:func:`replay`).  See ``docs/storage.md``.
"""

from pathlib import Path

from storage.announcements import Announcement, add_announcement, mark_announced, pending_announcements
from storage.backup import backup, backup_file, restore
from storage.chats import (
    get_chat,
    get_user,
    migrate_chat,
    resolve_chat_id,
    set_user_language,
    set_user_reachability,
    update_chat,
    upsert_chat,
    upsert_user,
)
from storage.config import DB_ENV_VAR, default_db_path
from storage.db import Database, FaultObserver
from storage.errors import (
    CorruptLog,
    DatabaseLocked,
    HandClosed,
    NotFound,
    SchemaTooNew,
    SequenceConflict,
    StorageError,
    StorageFault,
    StorageFull,
    StorageIOFailure,
    TableAlreadyActive,
)
from storage.events import append_event, last_seq, load_events, load_snapshot, save_snapshot
from storage.hands import (
    create_hand,
    create_match,
    get_active_hand,
    get_hand,
    get_hand_result,
    get_match,
    get_playing_match,
    match_hands,
    record_hand_result,
    update_hand,
    update_match,
)
from storage.history import PastHand, PastMatch, match_history
from storage.league import (
    JifenSeries,
    LeagueLine,
    RedFives,
    SeriesPoint,
    counted_hands,
    has_counted_hands,
    jifen_lines,
    jifen_series,
    league_chats,
    league_lines,
    partnership_lines,
    played_in,
    red_fives,
    sample_series,
    sampled_hands,
)
from storage.loading import Replayer, check_log, load_active_table, load_active_tables, replay
from storage.migrations import SCHEMA_VERSION, migrate, schema_version
from storage.records import (
    ActiveTable,
    ChatRecord,
    HandRecord,
    HandResult,
    MatchRecord,
    Outcome,
    PartnershipStanding,
    PlayerStanding,
    SeatRecord,
    SeatResult,
    Snapshot,
    StoredEvent,
    TableRecord,
    UserRecord,
)
from storage.seasons import (
    MAX_NAME,
    Season,
    close_season,
    current_season,
    get_season,
    next_season_end,
    season_before,
    seasons_of,
    seasons_to_close,
    set_min_hands,
    set_time_zone,
    start_monthly_seasons,
    start_named_season,
    time_zone,
    zone,
)
from storage.shown import forget_old_shown, save_shown, shown_digests
from storage.standings import partnership_standings, player_standings
from storage.tables import (
    clear_seat,
    create_table,
    get_active_table,
    get_seats,
    get_table,
    set_seat,
    set_seat_messages,
    update_table,
)


async def open_reader(path: str | Path) -> Database:
    """A second, read-only connection to the database at ``path`` (see :meth:`Database.open_reader`)."""
    return await Database.open_reader(path)


async def open_database(path: str | Path | None = None) -> Database:
    """Open (creating and migrating if needed) the database at ``path`` or :func:`default_db_path`."""
    return await Database.open(path if path is not None else default_db_path())


__all__ = [
    "SCHEMA_VERSION", "ActiveTable", "Announcement", "ChatRecord", "CorruptLog", "Database", "DatabaseLocked",
    "FaultObserver", "HandClosed", "StorageFault", "StorageFull", "StorageIOFailure",
    "HandRecord", "HandResult", "MatchRecord", "NotFound", "Outcome", "PartnershipStanding",
    "PlayerStanding", "Replayer", "SchemaTooNew", "SeatRecord", "SeatResult",
    "DB_ENV_VAR", "SequenceConflict", "Snapshot", "StorageError", "StoredEvent", "TableAlreadyActive",
    "TableRecord", "UserRecord", "add_announcement", "append_event", "backup", "backup_file", "check_log",
    "clear_seat", "create_hand", "create_match", "create_table", "default_db_path",
    "get_active_hand", "match_hands", "get_active_table", "get_chat", "get_hand", "get_hand_result",
    "get_match", "get_playing_match", "get_seats", "get_table", "get_user", "last_seq",
    "load_active_table", "load_active_tables", "load_events", "load_snapshot", "mark_announced",
    "migrate", "migrate_chat", "open_database", "open_reader", "partnership_standings", "pending_announcements", "player_standings",
    "record_hand_result", "replay", "resolve_chat_id", "restore", "save_snapshot",
    "schema_version", "set_seat", "set_seat_messages", "set_user_language",
    "set_user_reachability", "update_chat", "update_hand", "update_match", "update_table",
    "upsert_chat", "upsert_user",
    # the league: seasons, standings over a stretch of time, history
    "MAX_NAME", "LeagueLine", "PastHand", "PastMatch", "RedFives",
    "Season", "SeriesPoint", "close_season", "counted_hands", "current_season", "get_season", "has_counted_hands",
    "JifenSeries", "jifen_lines", "jifen_series", "sample_series", "sampled_hands",
    "league_chats", "league_lines", "match_history", "next_season_end",
    "partnership_lines", "played_in", "red_fives", "season_before", "seasons_of", "seasons_to_close",
    "set_min_hands", "set_time_zone", "start_monthly_seasons", "start_named_season", "time_zone", "zone",
    "forget_old_shown", "save_shown", "shown_digests",
]
