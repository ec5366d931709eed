"""Texts of /help and /rules, and the command menus (the league's texts are in :mod:`bot.league`)."""

from __future__ import annotations

from collections.abc import Sequence

from telegram import BotCommand

from bot.i18n import Translator, translator
from bot.rules import rules_pages
from engine.ruleset import Ruleset

GROUP_COMMANDS = ("newgame", "join", "leave", "stop", "hand", "rules", "stats", "leaderboard", "history", "season",
                  "lang", "help")
PRIVATE_COMMANDS = ("start", "hand", "rules", "stats", "lang", "help")


def command_descriptions(tr: Translator) -> dict[str, str]:
    """The one-line description of every command."""
    return {
        "start": tr("start talking to me (needed to receive your cards)"),
        "newgame": tr("open a table: /newgame [preset]"),
        "join": tr("take a free seat"),
        "leave": tr("leave your seat (mid-hand: escape rules)"),
        "stop": tr("close the table (creator or admin)"),
        "hand": tr("send my hand again"),
        "rules": tr("the rules of a preset: /rules [preset]"),
        "stats": tr("my results: this season, all time, best partner"),
        "leaderboard": tr("this group's league: the season's table and chart"),
        "history": tr("this group's last matches, with replays"),
        "season": tr("the league's season (admins: new, monthly, min, tz)"),
        "lang": tr("language: /lang zh or /lang en"),
        "help": tr("how to play with this bot"),
    }


def menu(lang: str, names: Sequence[str]) -> list[BotCommand]:
    """The command menu for ``set_my_commands``."""
    descriptions = command_descriptions(translator(lang))
    return [BotCommand(name, descriptions[name]) for name in names]


def help_text(tr: Translator) -> str:
    """/help."""
    return "\n".join([
        "<b>" + tr("Chao Di Pi (炒地皮) for Telegram") + "</b>",
        tr("1. Add me to a group and send /newgame (or /newgame nantong, /newgame 安徽 …)."),
        tr("2. Take a seat with the buttons; partners sit across. Fill empty seats with the AI."),
        tr("3. Your cards come to our private chat: a ▶ button bids or plays in one tap; or tap cards to select "
           "them, then bid, bury or play."),
        tr("Commands: /join /leave /hand /rules /stats /leaderboard /history /season /lang /stop"),
        tr("The league runs in monthly seasons (or seasons your admins name with /season new): /leaderboard shows "
           "the season's table and chart, /stats your own figures."),
        tr("Presets: yancheng (盐城, default), yangzhou (扬州/镇江), yangzhong (扬中), nantong (南通/连云港), xin (新炒地皮), chizhou (池州), anhui (安徽)."),
    ])


def rules_text(tr: Translator, r: Ruleset) -> list[str]:
    """/rules: the preset's rules as a player reads them, in messages within Telegram's length limit."""
    return rules_pages(tr, r)
