"""The rules of a preset as a player reads them, written from its :class:`Ruleset` options.

Every sentence is chosen or filled in from an option, and the level-table
figures come from the engine's own :func:`engine.scoring.level_outcome`, so
each preset's text says what that preset's engine does.  The same sections
feed ``/rules`` (pages within Telegram's 4,096-character limit) and
``docs/rules.md`` (``python -m bot.rules > docs/rules.md``; a test keeps the
committed file equal to the output).
"""

from __future__ import annotations

import html
import sys
from dataclasses import dataclass
from typing import Final

from bot.i18n import Translator, translator
from bot.labels import SUIT_SYMBOLS, and_list, preset_label
from bot.render_group import room
from engine.cards import rank_name
from engine.ruleset import RULESETS, Ruleset, suit_of_bid_step
from engine.scoring import level_outcome

PAGE_LIMIT: Final = 4000
"""Characters a page may hold: Telegram's 4,096 less room for the page header."""


@dataclass(frozen=True, slots=True)
class Section:
    """A titled group of rule sentences."""

    title: str
    lines: tuple[str, ...]


def _gap(tr: Translator) -> str:
    """Between two sentences: a space in English, nothing after a Chinese full stop."""
    return "" if tr.lang == "zh" else " "


def rule_sections(tr: Translator, r: Ruleset) -> list[Section]:
    """Every section of the rules of ``r``, in the order a player needs them."""
    return [
        Section(tr("Cards and trumps"), tuple(_cards(tr, r))),
        Section(tr("Bidding (亮主)"), tuple(_bidding(tr, r))),
        Section(tr("The kitty: bury and steal (扣底、抄底)"), tuple(_kitty(tr, r))),
        Section(tr("Playing"), tuple(_playing(tr, r))),
        Section(tr("Combinations"), tuple(_combinations(tr, r))),
        Section(tr("Points"), tuple(_points(tr, r))),
        Section(tr("Levels (升级)"), tuple(_levels(tr, r))),
        Section(tr("The end of the match"), tuple(_end(tr, r))),
        Section(tr("Leaving (逃跑)"), tuple(_escape(tr, r))),
    ]


# --- the sections ------------------------------------------------------------------------------

def _cards(tr: Translator, r: Ruleset) -> list[str]:
    out = [tr("Two decks, 108 cards, four players; partners sit across: N+S against E+W. "
              "Each player gets 25 cards; 8 go to the kitty (底牌).")]
    out.append(tr("Each side has a level, from 2 up to A; the dealer side's level is the level rank (级牌) of the hand."))
    if r.red5_trump and r.red5_above_big_joker:
        out.append(tr("The red five (红5, ♥5) is always a trump and the highest card: "
                      "红5 > big joker > small joker > level cards of the trump suit > other level cards > "
                      "the trump suit from A down."))
    if r.red5_trump and not r.red5_above_big_joker:
        out.append(tr("The red five (红5, ♥5) is always a trump: big joker > 红5 > small joker > level cards of "
                      "the trump suit > other level cards > the trump suit from A down."))
    if r.red5_trump:
        out.append(tr("No trump (打无主): only the red fives, the jokers and the level cards are trumps."))
    else:
        out.append(tr("There is no red five. Trumps rank: big joker > small joker > level cards of the trump suit > "
                      "other level cards > the trump suit from A down."))
        out.append(tr("No trump (打无主): only the jokers and the level cards are trumps."))
    out.append(tr("Points: each 5 is worth 5, each 10 and K 10; 200 in all."))
    return out


def _step(tr: Translator, step: str) -> str:
    suit = suit_of_bid_step(step)
    if suit is not None:
        return tr("{suit} pair", suit=SUIT_SYMBOLS[suit])
    return {"single": tr("a single level card"), "SJ2": tr("small-joker pair"), "BJ2": tr("big-joker pair"),
            "R52": tr("red-five pair"), "LB": tr("回头望 (look back)")}[step]


def _bidding(tr: Translator, r: Ruleset) -> list[str]:
    out = [tr("After the deal all four bid at once, from their private chats; "
              "the bidding closes when everyone has passed since the last bid, or when the time runs out.")]
    if r.bid_ladder is not None:
        ladder = " < ".join(_step(tr, s) for s in r.bid_ladder)
        out.append(tr("Bids, from low to high: {ladder} (♣ pair: a pair of ♣ level cards).", ladder=ladder))
        out.append(tr("A level card bids its suit as trump."))
        if "SJ2" in r.bid_ladder:
            out.append(tr("A small-joker pair bids no trump."))
        if "BJ2" in r.bid_ladder:
            out.append(tr("A big-joker pair bids no trump.") if r.big_joker_pair_bid == "no_trump" else
                       tr("A big-joker pair lets the bidder choose the trump suit (not no trump)."))
        if "R52" in r.bid_ladder:
            out.append(tr("A red-five pair lets the bidder choose a trump suit or no trump."))
        out.append(tr("反主 (override): show a bid higher on the ladder. A single never overrides a single, "
                      "and nobody overrides their own bid."))
        if r.club_pair_overrides_big_joker:
            out.append(tr("Exception: a ♣ pair may override a big-joker pair."))
        if r.reinforce:
            out.append(tr("加固 (reinforce): you may turn your own single into a pair of the same card."))
        if r.look_back:
            out.append(tr("回头望 (look back): if your single level card was the standing bid when someone "
                          "overrode it, you may bid the pair of that same card while that override stands; "
                          "it is the top of the ladder and nothing overrides it."))
    else:
        out.append(tr("Open with a level card (one or a pair); its suit becomes trump. Any pair of level cards "
                      "overrides, whatever the suit: the latest bid counts."))
        out.append(tr("对大王、对小王 (joker pairs) cannot bid directly: they can only steal the kitty, for no trump."))
    out.append(tr("A card shown in a bid cannot be used again in another bid."))
    if r.hidden_bidding:
        out.append(tr("暗炒 (hidden bids): bids, overrides and steals stay secret; the group only sees that "
                      "someone bid. After the steal rounds the whole history is shown."))
        if r.bid_ladder is not None:
            out.append(tr("The highest bid of the hand sets the trump; a lower bid made later simply does not count."))
        if r.failed_steal_points:
            out.append(tr("抄底失败 (failed steal): a steal lower than the best bid before it fails; "
                          "each costs {n} points: attackers −{n} when an attacker stole, "
                          "attackers +{n} when the dealer side stole.", n=r.failed_steal_points))
    if r.first_dealer == "first_level_bidder":
        out.append(tr("Hand 1: the first player to bid a 2 is the dealer; later overrides change the trump, "
                      "not the dealer."))
    else:
        out.append(tr("Hand 1: whoever holds the standing bid when the bidding closes is the dealer."))
    out.append(tr("Later hands: the level result says which side deals; the bidder deals if on that side "
                  "(自放自打), else the next player of that side (上放下打)."))
    out += _no_bid(tr, r)
    return out


def _no_bid(tr: Translator, r: Ruleset) -> list[str]:
    flip = tr("in turn each player turns up a kitty card; the first level card sets the trump suit, else the "
              "highest plain card does (a joker does not count); no steals this hand.")
    later = {
        "first_level_card": tr("the kitty is turned up; the first level card or joker decides: a level card's suit "
                               "is trump, a joker means no trump (neither: the first card's suit); "
                               "no steals this hand."),
        "first_card": tr("the first kitty card sets the trump suit, a joker means no trump; no steals this hand."),
        "flip_in_turn": flip,
    }[r.later_no_bid]
    if r.later_no_bid == "first_card" and r.flipped_joker_threshold is not None:
        later += _gap(tr) + tr("In that no-trump hand the attackers take over at {n}.", n=r.flipped_joker_threshold)
    if r.first_hand_no_bid == "flip_in_turn" and r.later_no_bid == "flip_in_turn":
        out = [tr("Nobody bid: {what}", what=flip)]
    else:
        first = tr("the cards are dealt again.") if r.first_hand_no_bid == "redeal" else flip
        out = [tr("Hand 1, nobody bid: {what}", what=first), tr("Later hands, nobody bid: {what}", what=later)]
    if r.first_hand_no_bid == "flip_in_turn":
        out.append(tr("Hand 1 decided by the flip: whoever turned the deciding card deals."))
    return out


def _kitty(tr: Translator, r: Ruleset) -> list[str]:
    out = [tr("The dealer takes the 8 kitty cards and buries 8 (point cards may be buried).")]
    if r.kitty_steal:
        out.append(tr("抄底 (steal): after each bury the other three are asked in turn, from the burier's next "
                      "seat; a higher bid takes the kitty and buries again, and the trump changes with it, "
                      "not the dealer. After a steal the asking starts again from the stealer's next seat; "
                      "the steals end when all three have passed."))
        if r.steal_with_any_trump_pair:
            out.append(tr("Any trump pair steals: a pair of level cards sets its suit, a joker pair means "
                          "no trump; the latest steal counts."))
        out.append(tr("No steals when a kitty flip set the trump, nor in the flag hand.") if r.after_ace == "flag_hand"
                   else tr("No steals when a kitty flip set the trump."))
    else:
        out.append(tr("There are no steals."))
    return out


def _playing(tr: Translator, r: Ruleset) -> list[str]:
    out = [tr("The dealer leads the first trick; whoever wins a trick leads the next. "
              "Everyone plays as many cards as the leader.")]
    out.append(tr("Follow the led suit (trumps count as one suit): with enough cards of it you must play them; "
                  "with fewer, play them all and add any cards."))
    if r.pairs_must_follow:
        out.append(tr("逼对: to a pair you must follow with a pair of the suit if you hold one; to a tractor "
                      "with a tractor, else with pairs (even broken out of a tractor)."))
    else:
        out.append(tr("不逼对: you need not follow pairs or tractors with pairs; singles of the suit will do."))
    out.append(tr("毙 (ruff): with none of a plain suit led you may play trumps. A ruff needs at least as many "
                  "tractors and pairs as the lead, else it is a discard (垫牌); a later ruff must be higher "
                  "(盖毙). Equal cards: the first played wins."))
    if r.five_ten_king:
        if r.ftk_forces_highest:
            out.append(tr("A trump-suit 5-10-K lead wins the trick; a follower holding the other trump 5-10-K "
                          "must play it, else must play their three highest trumps (逼大牌)."))
        else:
            out.append(tr("A trump-suit 5-10-K lead wins the trick; it does not force high trumps (不逼大牌)."))
        out.append(tr("A plain 5-10-K lead can be beaten only by a trump-suit 5-10-K of a player void in that suit."))
    out.append(tr("甩牌 (throw): the leader may play several singles, pairs and tractors of one suit at once, "
                  "if nobody else holds a higher single, pair or tractor of that suit."))
    out.append(tr("甩牌失败 (failed throw): only the part that can be beaten is played (the one with the fewest "
                  "cards, then the lowest), the rest goes back to the hand; {n} points per card of that part: "
                  "attackers −{n}×cards when an attacker threw, +{n}×cards when the dealer side threw.",
                  n=r.throw_penalty))
    return out


def _combinations(tr: Translator, r: Ruleset) -> list[str]:
    out = [tr("Pair: two identical cards (same suit and rank).")]
    line = tr("Tractor (拖拉机): two or more pairs of adjacent ranks in one suit, e.g. ♠5566.")
    if r.joker_tractor:
        line += _gap(tr) + tr("A small-joker pair and a big-joker pair also make one.")
    line += _gap(tr) + (tr("A is high (KKAA) or low (AA22), but KKAA22 is not a tractor.") if r.ace_low_tractor
                        else tr("A is high only (KKAA); AA22 is not a tractor."))
    out.append(line + _gap(tr) + tr("Level pairs do not join plain tractors."))
    if r.red5_trump:
        out.append(tr("A red-five pair joins no tractor."))
    if r.tractor_skip_level:
        line = tr("Hollow tractors (空心拖拉机): plain pairs either side of the level rank are adjacent "
                  "(at level 5: ♠4466).")
        if r.red5_trump:
            line += _gap(tr) + tr("When hearts are plain, ♥4466 is a tractor too (the red five is not a plain heart).")
        if r.tractor_skip_level_in_trump:
            line += _gap(tr) + tr("The same holds inside the trump suit.")
        else:
            line += _gap(tr) + tr("Not inside the trump suit: there the level pair counts at face value.")
        out.append(line)
    else:
        out.append(tr("No hollow tractors: plain pairs either side of the level rank are not adjacent."))
    if not r.level_pair_in_trump_tractor:
        out.append(tr("The trump-suit level pair does not count at face value: at level 6, 6677 of the trump suit "
                      "is not a tractor."))
    if r.top_chain:
        out.append(tr("Top chain: the trump suit's top pair (A pair; K pair at level A) → off-suit level pair → "
                      "trump-suit level pair → small-joker pair → big-joker pair, each next to the one before, "
                      "make tractors."))
    if r.five_ten_king:
        out.append(tr("5-10-K (五十K): the 5, 10 and K of one suit may be led together, and so may their pairs "
                      "(55 1010 KK). A 5-10-K plus other cards is an ordinary throw."))
        if r.red5_in_plain_ftk:
            out.append(tr("When hearts are plain, the red five completes ♥5 ♥10 ♥K."))
    return out


def _points(tr: Translator, r: Ruleset) -> list[str]:
    out = [tr("The attackers (抓分方) score the point cards of the tricks they win; a trick the dealer side "
              "wins scores nothing (逃分).")]
    mult = tr("抠底: when the attackers win the last trick, the kitty's points count multiplied by the lead's "
              "largest part as the winner matched it: single ×2, pair ×4, tractor ×2 per card "
              "(two pairs ×8, three ×12).")
    if r.five_ten_king:
        mult += _gap(tr) + tr("A 5-10-K counts as singles (×2), its pair form as pairs (×4).")
    if r.kitty_multiplier_cap is not None:
        mult += _gap(tr) + tr("At most ×{n}.", n=r.kitty_multiplier_cap)
    out.append(mult)
    if r.red5_bonus:
        out.append(tr("逼红5: a red five forced out (its player had no legal play without it) in a trick the other "
                      "side wins: {n} points each, attackers −{n} for an attacker's red five, +{n} for the dealer "
                      "side's.", n=r.red5_bonus))
        out.append(tr("保红5: a player whose last card (or last pair) is a red five, led after winning the trick "
                      "before: {n} points each, attackers +{n} when an attacker keeps it, −{n} when the dealer "
                      "side does.", n=r.red5_bonus))
    if r.heaven_and_earth == "exact_either_side":
        out.append(tr("上天入地: the last trick won with exactly the 5, 10 and K of one suit (no other card; "
                      "not the pairs), by either side: the winners go to A of the last lap, the losers to 2 of "
                      "lap 1; the winners get at least {n} 积分.", n=r.heaven_and_earth_reward)
                   if r.laps > 1 else
                   tr("上天入地: the last trick won with exactly the 5, 10 and K of one suit, by either side: "
                      "the winners go to A, the losers to 2; the winners get at least {n} 积分.",
                      n=r.heaven_and_earth_reward))
    elif r.heaven_and_earth == "attackers_containing":
        out.append(tr("上天入地: the attackers win the last trick with a play containing the 5, 10 and K of one "
                      "suit: they go to A, the dealer side to 2; the attackers get at least {n} 积分.",
                      n=r.heaven_and_earth_reward))
    if r.j_to_bottom == "nantong":
        out.append(tr("J到底: at level J, the attackers win the last trick with a J or a pair of J (the highest "
                      "play) and score at least {t}: the dealer side drops back to 2. At level A, the same with a "
                      "pair of A: it drops back to J.", t=r.threshold))
    elif r.j_to_bottom == "chizhou":
        out.append(tr("J/A 抠底: at level J, the attackers win the last trick with a J or a pair of J: the dealer "
                      "side goes back to 2. At level A, with a single A: back to J; with a pair of A: back to 2. "
                      "The attackers' 积分 are the levels removed plus, when they reached {t}, the table's.",
                      t=r.threshold))
        if r.chizhou_fixed_nine:
            out.append(tr("A pair of A counts as 9 levels removed, as the seed prints."))
    return out


def _levels(tr: Translator, r: Ruleset) -> list[str]:
    theta = r.threshold
    up = level_outcome(r, theta + 10)
    hold = level_outcome(r, theta - 10)
    five = level_outcome(r, 5)
    shutout = level_outcome(r, 0)
    below = level_outcome(r, -10)
    out = [tr("{t} points take the deal (上台): at {t}–{t5} the attackers take over without rising (换庄); "
              "each further 10 is one level ({t10}: +{up}).",
              t=theta, t5=theta + 5, t10=theta + 10, up=up.levels)]
    out.append(tr("Below {t} the dealer side keeps the deal (保庄) and rises one level per 10 short: "
                  "{h}: +{n1}, 5: +{n5}, 0 (大光): +{n0}, −10: +{nb}.",
                  t=theta, h=theta - 10, n1=hold.levels, n5=five.levels, n0=shutout.levels, nb=below.levels))
    if r.level_table == "B":
        out.append(tr("At 0 (大光) or less the dealer side rises one level more; 大光 means the attackers took no points from cards."))
    out.append(tr("积分 each hand: every player of the winning side gets +the levels risen (+1 when the attackers "
                  "take over), the losers as much less."))
    if r.must_play:
        levels = and_list(tr, [rank_name(m) for m in sorted(r.must_play)])
        out.append(tr("Must-play levels (必打): {levels}. A jump stops at them and the side must win a hand there "
                      "as the dealer side before it moves on; a side that takes over while stopped there does "
                      "not rise.", levels=levels))
    if r.laps > 1:
        out.append(tr("A match is {n} laps of 2…A. In laps 1–{m} a jump may cross A into 2 of the next lap; "
                      "in lap {n}, A must be played.", n=r.laps, m=r.laps - 1))
    return out


def _end(tr: Translator, r: Ruleset) -> list[str]:
    last_a = tr("A of lap {n}", n=r.laps) if r.laps > 1 else "A"
    out = [tr("No jump carries a side past {a}: it stops there. 过A (passing A) means winning a hand there as "
              "the dealer side.", a=last_a)]
    if r.after_ace == "flag_hand":
        out.append(tr("扛旗 (flag hand): a side that passes A deals one no-trump hand where only the red fives and "
                      "the jokers are trumps and there is no kitty (27 cards each); the attackers need {n} to "
                      "take over. If the flag side holds, it wins the match; if it fails, the attackers take the "
                      "deal at their own level and the flag side must carry the flag again when it next deals.",
                      n=r.flag_threshold))
    elif r.after_ace == "anhui_bonus":
        out.append(tr("The side that passes A wins the match. The losers then pay by their own level, and each "
                      "winner gains as much: at 2: 5 积分, at 3–6: 4, at 7–10: 3, at J–K: 2, at A: 1."))
    else:
        out.append(tr("The side that passes {a} wins the match.", a=last_a))
    return out


def _escape(tr: Translator, r: Ruleset) -> list[str]:
    back = tr("The AI takes the empty seat. The one who left may take it back with /join: from the next hand (at "
              "once if the hand has not started, or if the table's settings say so). The escape still costs what "
              "it cost, and the hands the AI plays for the seat count for nobody.")
    if r.escape == "anhui":
        return [tr("Leaving in the middle of a hand is an escape (逃跑): the hand is void and only the escaper "
                   "loses 积分: 15, or 20 once either side has reached J."), back]
    return [tr("Leaving before any card of the hand is played costs nothing."),
            tr("After that it is an escape (逃跑): the hand is void and only the escaper loses 积分: exactly 15 if "
               "their side is ahead at that moment, else 15 or what the level table would take from their side "
               "now, whichever is more."), back]


# --- output -----------------------------------------------------------------------------------

def rules_title(tr: Translator, r: Ruleset) -> str:
    """「盐城（暗炒）· 规则」, 「安徽 · 规则」."""
    mode = room(tr, r)
    if not mode:
        return tr("{preset} · rules", preset=preset_label(tr, r))
    return tr("{preset} ({mode}) · rules", preset=preset_label(tr, r), mode=mode)


def rules_pages(tr: Translator, r: Ruleset, limit: int = PAGE_LIMIT) -> list[str]:
    """The rules as Telegram HTML messages, each within ``limit`` characters, split between sections."""
    blocks = ["<b>" + html.escape(s.title, quote=False) + "</b>\n" + "\n".join("• " + html.escape(line, quote=False) for line in s.lines)
              for s in rule_sections(tr, r)]
    pages: list[list[str]] = [[]]
    size = 0
    for block in blocks:
        if pages[-1] and size + len(block) + 2 > limit:
            pages.append([])
            size = 0
        pages[-1].append(block)
        size += len(block) + 2
    title = html.escape(rules_title(tr, r), quote=False)
    count = len(pages)
    return ["<b>" + title + (f" ({i}/{count})" if count > 1 else "") + "</b>\n\n" + "\n\n".join(page)
            for i, page in enumerate(pages, start=1)]


def rules_markdown() -> str:
    """``docs/rules.md``: the rules of all seven presets, in 简体中文 and English."""
    out = ["# The rules of each preset · 各玩法规则", "",
           "<!-- Generated by `python -m bot.rules > docs/rules.md` from the presets' options; do not edit. -->",
           "", "The same text as `/rules <preset>` in the bot. Presets: "
           + ", ".join(f"[{r.zh_name} `{r.name}`](#{r.name})" for r in RULESETS.values()) + ".", ""]
    for r in RULESETS.values():
        out += [f'<a id="{r.name}"></a>', "", f"## {r.zh_name} · {r.en_name} (`{r.name}`)", ""]
        for lang in ("zh", "en"):
            tr = translator(lang)
            out += [f"### {rules_title(tr, r)}", ""]
            for section in rule_sections(tr, r):
                out += [f"**{section.title}**", ""]
                out += [f"- {line}" for line in section.lines]
                out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(rules_markdown())
