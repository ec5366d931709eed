"""Texts of the informational commands (/help, /rules, /stats, /leaderboard) and the command menus."""

from __future__ import annotations

from collections.abc import Sequence

from telegram import BotCommand

from bot.i18n import Translator, translator
from bot.labels import name_html, preset_label, signed
from engine.cards import rank_name
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


def rules_text(tr: Translator, r: Ruleset) -> str:
    """A short summary of a preset's options."""
    yes, no = tr("yes"), tr("no")
    must = ", ".join(rank_name(m) for m in sorted(r.must_play)) or "—"
    after = {"game_over": tr("the match ends"), "next_lap": tr("the next lap (3 laps; lap-3 A ends it)"),
             "flag_hand": tr("the flag hand (扛旗): no-trump, no kitty, 100 to take over"),
             "anhui_bonus": tr("the match ends with a bonus by the losers' level")}[r.after_ace]
    lines = [
        "<b>" + preset_label(tr, r) + "</b>",
        tr("Red five (♥5) always trump: {v}", v=yes if r.red5_trump else no),
        tr("Bidding: {mode}", mode=tr("hidden bids") if r.hidden_bidding else tr("open bids")),
        tr("Kitty steals (抄底): {v}", v=yes if r.kitty_steal else no),
        tr("Pairs must follow pairs (逼对): {v}", v=yes if r.pairs_must_follow else no),
        tr("Hollow tractors over the level rank: {v}", v=yes if r.tractor_skip_level else no),
        tr("5-10-K combinations: {v}", v=yes if r.five_ten_king else no),
        tr("Failed throw: {n} points per card", n=r.throw_penalty),
        tr("Level table {t}; attackers take over at {theta}", t=r.level_table, theta=r.threshold),
        tr("Must-play levels: {levels}", levels=must),
        tr("After passing A: {what}", what=after),
    ]
    if r.heaven_and_earth != "none":
        lines.append(tr("上天入地 (heaven and earth): reward {n} 积分", n=r.heaven_and_earth_reward))
    if r.red5_bonus:
        lines.append(tr("逼红5 / 保红5: ±{n} points per red five", n=r.red5_bonus))
    if r.failed_steal_points:
        lines.append(tr("Failed hidden steal: ±{n} points", n=r.failed_steal_points))
    return "\n".join(lines)


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
