"""Texts of the informational commands (/help, /rules, /stats, /leaderboard) and the command menus."""

from __future__ import annotations

from collections.abc import Sequence

from telegram import BotCommand

from bot.i18n import Translator, translator
from bot.labels import name_html, signed
from bot.rules import rules_pages
from engine.ruleset import Ruleset
from storage import PartnershipStanding, PlayerStanding

GROUP_COMMANDS = ("newgame", "join", "leave", "stop", "hand", "rules", "stats", "leaderboard", "lang", "help")
PRIVATE_COMMANDS = ("start", "hand", "rules", "lang", "help")


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
        "stats": tr("my results in this group"),
        "leaderboard": tr("this group's league table"),
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
        tr("3. Your cards come to our private chat: tap cards to select them, then bid, bury or play."),
        tr("Commands: /join /leave /hand /rules /stats /leaderboard /lang /stop"),
        tr("Presets: yancheng (盐城, default), yangzhou (扬州/镇江), yangzhong (扬中), nantong (南通/连云港), xin (新炒地皮), chizhou (池州), anhui (安徽)."),
    ])


def rules_text(tr: Translator, r: Ruleset) -> list[str]:
    """/rules: the preset's rules as a player reads them, in messages within Telegram's length limit."""
    return rules_pages(tr, r)


def stats_text(tr: Translator, rows: Sequence[PlayerStanding], user_id: int) -> str:
    """/stats: one person's line in the group's league."""
    mine = next((r for r in rows if r.user_id == user_id), None)
    if mine is None:
        return tr("You have not finished a hand in this group yet.")
    place = [r.user_id for r in rows].index(user_id) + 1
    return "\n".join([
        "<b>" + name_html(mine.display_name) + "</b> · " + tr("place {n} of {total}", n=place, total=len(rows)),
        tr("积分 {j} · hands {h} · won {w}", j=signed(mine.jifen), h=mine.hands, w=mine.hands_won),
        tr("As dealer side: {h} hands, won {w}, 积分 {j}", h=mine.dealer_hands, w=mine.dealer_won,
           j=signed(mine.dealer_jifen)),
        tr("As attackers: {h} hands, won {w}, 积分 {j}", h=mine.attacker_hands, w=mine.attacker_won,
           j=signed(mine.attacker_jifen)),
    ])


def leaderboard_text(tr: Translator, players: Sequence[PlayerStanding],
                     pairs: Sequence[PartnershipStanding]) -> str:
    """/leaderboard: the top players and partnerships of the group."""
    if not players:
        return tr("No hands have been finished in this group yet.")
    lines = ["<b>" + tr("League table") + "</b>"]
    for index, row in enumerate(players[:10], start=1):
        lines.append(f"{index}. {name_html(row.display_name)} · {signed(row.jifen)} · "
                     + tr("{h} hands, {w} won", h=row.hands, w=row.hands_won))
    if pairs:
        lines.append("")
        lines.append("<b>" + tr("Partnerships") + "</b>")
        for index, pair in enumerate(pairs[:5], start=1):
            names = " &amp; ".join(name_html(n) for n in pair.display_names)
            lines.append(f"{index}. {names} · {signed(pair.jifen)} · "
                         + tr("{h} hands, {w} won", h=pair.hands, w=pair.hands_won))
    return "\n".join(lines)
