"""The ``chaodipi`` command: run the bot, and look after its database.

Kept small on purpose; each subcommand is a few lines that call a package.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from storage.backup import backup_file, restore
from storage.config import DB_ENV_VAR, default_db_path
from storage.errors import StorageError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="chaodipi", description="A Telegram host for 炒地皮.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    db_help = f"the database file (default: ${DB_ENV_VAR}, else ./chaodipi.db)"
    backup = commands.add_parser(
        "backup", help="copy the database consistently, even while the bot runs"
    )
    backup.add_argument("path", help="where to write the copy (must not exist)")
    backup.add_argument("--db", help=db_help)

    restore_cmd = commands.add_parser(
        "restore", help="put a backup back as the database (stop the bot first)"
    )
    restore_cmd.add_argument("path", help="the backup to restore")
    restore_cmd.add_argument("--db", help=db_help)

    commands.add_parser(
        "run", help="run the bot (polling; a webhook when CHAODIPI_WEBHOOK_URL is set)",
        description="Run the bot. Settings come from the environment: TELEGRAM_BOT_TOKEN (required), "
                    "TELEGRAM_BASE_URL, CHAODIPI_DB, CHAODIPI_WEBHOOK_URL … (see the README).",
    )

    demo = commands.add_parser(
        "demo", help="watch four AI seats play in the terminal, as a group would see it (no token needed)"
    )
    demo.add_argument("--preset", default="yancheng",
                      help="yancheng (default), yangzhou, yangzhong, nantong, xin, chizhou, anhui; "
                           "Chinese names and 暗炒/扛旗/明炒 work too")
    demo.add_argument("--lang", choices=("zh", "en"), default="zh", help="language of the messages")
    demo.add_argument("--hands", type=int, default=1, help="how many hands to play (default 1)")
    demo.add_argument("--match", action="store_true", help="play a whole match to its end instead")
    demo.add_argument("--seed", type=int, help="seed of the deal, to see the same game again")
    demo.add_argument("--pause", type=float, default=0.0, help="seconds to pause after each trick")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: the process's arguments), run the command, return its exit status."""
    args = _parser().parse_args(argv)
    db_path = args.db if getattr(args, "db", None) else default_db_path()
    try:
        if args.command == "backup":
            done = asyncio.run(backup_file(db_path, args.path))
            print(f"Backed up {db_path} to {done} ({done.stat().st_size} bytes).")
            return 0
        if args.command == "restore":
            done = asyncio.run(restore(args.path, db_path))
            print(f"Restored {args.path} as {done}.")
            return 0
    except StorageError as exc:
        print(f"chaodipi {args.command}: {exc}", file=sys.stderr)
        return 1
    if args.command == "demo":
        return _demo(args)
    return _run()


def _demo(args: argparse.Namespace) -> int:
    from bot.demo import play
    from engine.ruleset import get_ruleset

    try:
        preset = get_ruleset(args.preset).name
    except ValueError as exc:
        print(f"chaodipi demo: {exc}", file=sys.stderr)
        return 2
    play(preset=preset, lang=args.lang, hands=max(1, args.hands), seed=args.seed, pause=args.pause,
         whole_match=args.match)
    return 0


def _run() -> int:
    from bot.app import run
    from bot.config import ConfigError, Settings

    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"chaodipi run: {exc}", file=sys.stderr)
        return 2
    run(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
