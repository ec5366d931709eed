"""The ``chaodipi`` command: run the bot, and look after its database.

Kept small on purpose; each subcommand is a few lines that call a package.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import faulthandler
import signal
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from storage import DB_ENV_VAR, StorageError, backup_file, default_db_path, restore

RUN_SETTINGS = """\
settings (environment variables):
  TELEGRAM_BOT_TOKEN        the bot's token from @BotFather (required)
  TELEGRAM_BASE_URL         a self-hosted Bot API server, e.g. http://127.0.0.1:8081/bot
  CHAODIPI_DB               the SQLite database file (default ./chaodipi.db)
  CHAODIPI_WEBHOOK_URL      public HTTPS base URL: serve a webhook at <url>/telegram
                            instead of polling (plain HTTP here, a TLS proxy in front)
  CHAODIPI_WEBHOOK_LISTEN   address the bot's HTTP server binds (default 0.0.0.0)
  CHAODIPI_WEBHOOK_PORT     port of the bot's HTTP server (default 8443): webhook, GET /health, web app
  CHAODIPI_WEBHOOK_SECRET   secret token Telegram sends with each call (default: random per start)
  CHAODIPI_PUBLIC_URL       public HTTPS base URL of that server: serve the web app (Mini App) at <url>/app/
                            (polling mode then starts the server too); unset: the keyboard alone
  CHAODIPI_WEBAPP_MAX_AGE   seconds a web app's Telegram initData stays valid (default 86400)
  CHAODIPI_AI_DELAY         seconds between AI moves (default 0.8)
  CHAODIPI_AI_WORKERS       processes for the strong AI's searches (default: the cores less one, at least 1)
  CHAODIPI_GROUP_INTERVAL   minimum seconds between edits of a group's table message (default 3.5)
  CHAODIPI_HAND_PAUSE       seconds between a hand's result and the next hand at real-time pace (default 4)
  CHAODIPI_TAP_GAP          seconds a hand message waits after its last edit before showing another tap (default 1)
  CHAODIPI_FLOOD_PACING     on: pace calls by Telegram's flood limits (default); off: only for a test server
  CHAODIPI_LOG_LEVEL        DEBUG (or --verbose: with library tracebacks), INFO (default), WARNING, ERROR
  CHAODIPI_LOG_FORMAT       text (default) or json (one JSON object a line)

SIGTERM or Ctrl-C stops the bot gracefully: no new updates, the moves in
progress are stored, pending edits are sent, the database is closed.
While it runs, `chaodipi health` checks that it is alive.
Without a token, try `chaodipi play` (in your browser) or `chaodipi demo`.
"""

DEMO_EXAMPLES = """\
examples:
  chaodipi demo                         one hand of 盐城 (暗炒), in Chinese, the strong AI
  chaodipi demo --seed 1 --lang en      the same deal every time, in English
  chaodipi demo --preset nantong --hands 3 --pause 0.5
  chaodipi demo --preset 安徽 --match --ai casual   a whole match to its end, quickly

The strong AI (a new table's default) searches before each play, so a hand
takes a few seconds; its search is timed, so on a busy machine a seed may
now and then give another play. The casual AI answers at once and repeats
a seed exactly.
"""

PLAY_NOTES = """\
examples:
  chaodipi play --open                  a table of you and three AI seats, in your browser
  chaodipi play --lang en --ai casual   in English, with quick AI seats
  chaodipi play --listen 192.168.1.20 --name Ann --name Bo
                                        two people on your network, each with an address of their own

The address it prints carries a secret in its fragment (after #): whoever has it
plays that seat, so keep it to yourself. The sign-in works only in chaodipi play
and only on the address it listens on. Ctrl-C stops; a match left unfinished goes
on at the next chaodipi play with the same database.
"""

BACKUP_NOTES = """\
The copy is taken with SQLite's online backup API, from one consistent
snapshot, checked with PRAGMA integrity_check, and only then renamed to PATH.
The bot may keep running. To restore: stop the bot, move the database and its
-wal and -shm files away, run `chaodipi restore PATH`, start the bot
(the README's "Running in production" walks through the drill).
"""

RESTORE_NOTES = """\
Refuses while the database or its -wal/-shm files exist: a stale -wal beside
a restored database would be replayed into it. Stop the bot and move them away first.
"""

HEALTH_NOTES = """\
The running bot rewrites <database>.heartbeat every 15 seconds (and removes it
when it stops); each beat also takes the database connection once. Exit status
0 when the heartbeat is fresh and the connection usable, 1 otherwise (a stale
heartbeat, or a connection stuck in a transaction or held too long, with the
reason); fit for a Docker HEALTHCHECK or a monitoring cron job. In webhook mode,
and with the web app on (CHAODIPI_PUBLIC_URL), the bot also answers GET /health
on its HTTP server's port (CHAODIPI_WEBHOOK_PORT).
"""


def _version() -> str:
    """The installed package's version (``unknown`` when run from a tree that was never installed)."""
    try:
        return metadata.version("chaodipi")
    except metadata.PackageNotFoundError:
        return "unknown"


def _parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="chaodipi", formatter_class=raw,
        description="A Telegram bot that hosts games of 炒地皮 (Chao Di Pi).",
        epilog="examples:\n"
               "  chaodipi play --open                play in your browser against three AI seats (no token)\n"
               "  chaodipi demo --lang en             watch four AI seats play one hand (no token needed)\n"
               "  TELEGRAM_BOT_TOKEN=... chaodipi run   run the bot\n"
               "  chaodipi backup /backups/chaodipi-$(date +%F).db\n\n"
               "`chaodipi COMMAND --help` tells more about each command.",
    )
    parser.add_argument("--version", action="version", version=f"chaodipi {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    db_help = f"the database file (default: ${DB_ENV_VAR}, else ./chaodipi.db)"
    run_cmd = commands.add_parser(
        "run", formatter_class=raw,
        help="run the bot (polling; a webhook when CHAODIPI_WEBHOOK_URL is set)",
        description="Run the bot until SIGTERM or Ctrl-C: long polling by default, a webhook server\n"
                    "when CHAODIPI_WEBHOOK_URL is set. All settings come from the environment.",
        epilog=RUN_SETTINGS,
    )
    run_cmd.add_argument("--verbose", action="store_true",
                         help="log at DEBUG, with the library's tracebacks (same as CHAODIPI_LOG_LEVEL=DEBUG)")

    demo = commands.add_parser(
        "demo", formatter_class=raw,
        help="watch four AI seats play in the terminal, as a group would see it (no token needed)",
        description="Four AI seats play in the terminal; you see the table and each trick as the group\n"
                    "would, what the bot announces as it happens (甩牌失败, 逼红5 …), and the hand's\n"
                    "result. No token, no network, no database.",
        epilog=DEMO_EXAMPLES,
    )
    demo.add_argument("--preset", default="yancheng",
                      help="yancheng (default), yangzhou, yangzhong, nantong, xin, chizhou, anhui; "
                           "Chinese names and 暗炒/扛旗/明炒 work too")
    demo.add_argument("--lang", choices=("zh", "en"), default="zh", help="language of the messages (default zh)")
    demo.add_argument("--hands", type=int, default=1, help="how many hands to play (default 1)")
    demo.add_argument("--match", action="store_true", help="play a whole match to its end instead")
    demo.add_argument("--seed", type=int, help="seed of the deals, to see the same game again")
    demo.add_argument("--pause", type=float, default=0.0, help="seconds to pause after each trick")
    demo.add_argument("--ai", choices=("strong", "casual"), default="strong",
                      help="how well the AI seats play: strong (default, as a new table) or casual (instant)")

    play = commands.add_parser(
        "play", formatter_class=raw,
        help="play in your browser against three AI seats (no token, no Telegram)",
        description="Start the bot's own service on this machine and open a table of you and three AI\n"
                    "seats; play the whole match in the browser, with the page, rules, hints, results,\n"
                    "replays and league of the Telegram bot, stored in the same database.",
        epilog=PLAY_NOTES,
    )
    play.add_argument("--preset", default="yancheng",
                      help="yancheng (default), yangzhou, yangzhong, nantong, xin, chizhou, anhui; "
                           "Chinese names and 暗炒/扛旗/明炒 work too")
    play.add_argument("--ai", choices=("strong", "casual"), default="strong",
                      help="how well the AI seats play: strong (default) or casual (instant)")
    play.add_argument("--lang", choices=("zh", "en"), default="zh", help="language of the table (default zh)")
    play.add_argument("--db", help=db_help)
    play.add_argument("--listen", default="127.0.0.1",
                      help="the address to serve on (default 127.0.0.1; name this machine's address on your "
                           "network for friends to join; never 0.0.0.0)")
    play.add_argument("--port", type=int, default=0, help="the port to serve on (default 0: a free one)")
    play.add_argument("--name", action="append", metavar="NAME",
                      help="your name at the table; give it up to four times to seat that many people, "
                           "each with an address of their own")
    play.add_argument("--new", action="store_true", help="close a match left unfinished and start a new one")
    play.add_argument("--open", action="store_true", help="open the page in your web browser")

    backup = commands.add_parser(
        "backup", formatter_class=raw,
        help="copy the database consistently, even while the bot runs",
        description="Copy the database to PATH, consistently, while the bot runs.",
        epilog=BACKUP_NOTES,
    )
    backup.add_argument("path", metavar="PATH", help="where to write the copy (must not exist)")
    backup.add_argument("--db", help=db_help)

    restore_cmd = commands.add_parser(
        "restore", formatter_class=raw,
        help="put a backup back as the database (stop the bot first)",
        description="Put the backup PATH back as the database.",
        epilog=RESTORE_NOTES,
    )
    restore_cmd.add_argument("path", metavar="PATH", help="the backup to restore")
    restore_cmd.add_argument("--db", help=db_help)

    health = commands.add_parser(
        "health", formatter_class=raw,
        help="exit 0 if the bot using this database is alive (its heartbeat is fresh)",
        description="Check that the bot using the database is alive, from its heartbeat file.",
        epilog=HEALTH_NOTES,
    )
    health.add_argument("--db", help=db_help)
    health.add_argument("--max-age", type=float, default=60.0,
                        help="seconds after which the heartbeat counts as stale (default 60)")
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
    if args.command == "play":
        return _play(args, Path(db_path))
    if args.command == "health":
        return _health(db_path, args.max_age)
    return _run(verbose=args.verbose)


def _demo(args: argparse.Namespace) -> int:
    from bot.demo import play
    from engine.ruleset import get_ruleset

    try:
        preset = get_ruleset(args.preset).name
    except ValueError as exc:
        print(f"chaodipi demo: {exc}", file=sys.stderr)
        return 2
    play(preset=preset, lang=args.lang, hands=max(1, args.hands), seed=args.seed, pause=args.pause,
         whole_match=args.match, strength=args.ai)
    return 0


def _play(args: argparse.Namespace, db_path: Path) -> int:
    from bot.local.play import PlayOptions, serve
    from engine.ruleset import get_ruleset

    try:
        preset = get_ruleset(args.preset).name
    except ValueError as exc:
        print(f"chaodipi play: {exc}", file=sys.stderr)
        return 2
    if len(args.name or ()) > 4:
        print("chaodipi play: a table has four seats: at most four --name", file=sys.stderr)
        return 2
    options = PlayOptions(db_path=db_path, preset=preset, ai=args.ai, lang=args.lang, listen=args.listen,
                          port=args.port, names=tuple(args.name or ()), new=args.new)
    try:
        asyncio.run(serve(options, open_browser=args.open))
    except KeyboardInterrupt:  # Ctrl-C while it was starting: nothing was played yet
        return 130
    except (ValueError, StorageError, OSError) as exc:  # an address that is not one, a database or port refused
        print(f"chaodipi play: {exc}", file=sys.stderr)
        return 1
    return 0


def _health(db_path: str | Path, max_age: float) -> int:
    from bot.health import check_heartbeat, heartbeat_path

    alive, message = check_heartbeat(heartbeat_path(db_path), max_age)
    print(f"chaodipi health: {message}", file=sys.stdout if alive else sys.stderr)
    return 0 if alive else 1


def _run(*, verbose: bool = False) -> int:
    import dataclasses

    from telegram.error import BadRequest, InvalidToken, NetworkError, TelegramError

    from bot.app import run
    from bot.config import ConfigError, Settings
    from bot.logs import hide_secret, mask_secrets
    from engine.compiled import stale_builds, stale_message

    def fail(message: str, status: int) -> int:
        print(f"chaodipi run: {mask_secrets(message)}", file=sys.stderr)  # the token is never printed
        return status

    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        return fail(str(exc), 2)
    stale = stale_builds()
    if stale:  # a compiled module would play the code it was built from, not the source beside it
        return fail(stale_message(stale), 2)
    hide_secret(settings.token)
    if hasattr(signal, "SIGUSR1"):  # `kill -USR1 <pid>`: every thread's stack to the log, the bot running on
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    if verbose:
        settings = dataclasses.replace(settings, log_level="DEBUG")
    try:
        run(settings)
    except InvalidToken:
        return fail("Telegram refused TELEGRAM_BOT_TOKEN; copy it again from @BotFather.", 2)
    except BadRequest as exc:  # a NetworkError for PTB, but Telegram did answer
        return fail(f"Telegram refused a start-up call: {exc}", 1)
    except NetworkError as exc:
        where = settings.base_url or "api.telegram.org"
        return fail(f"cannot reach Telegram ({where}): {exc}", 1)
    except TelegramError as exc:
        return fail(f"Telegram refused a start-up call: {exc}", 1)
    except OSError as exc:
        if exc.errno in (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES):  # the bot's HTTP server's address
            return fail(f"the bot's HTTP server cannot listen on {settings.webhook_listen} port "
                        f"{settings.webhook_port} ({exc}): set CHAODIPI_WEBHOOK_LISTEN or CHAODIPI_WEBHOOK_PORT.", 1)
        return fail(str(exc), 1)
    except StorageError as exc:
        return fail(str(exc), 1)
    return 0


if __name__ == "__main__":  # python -m bot.cli
    sys.exit(main())
