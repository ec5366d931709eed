"""The story of a hand as the table tells it (decision 17): bids, failed throws, red fives, the flip, the result.

Pure functions of the engine's records — :class:`engine.bidding.BidRecord`,
the notices of :mod:`engine.notices`, :class:`engine.match.HandRecord` and its
:class:`engine.levels.LevelMove` — and a translator.  They never work a rule
out: a level move is told as the engine recorded it, a penalty with the sign
the engine gave it (always from the attackers' side, like p).  Seats are
named by their labels (北/东/南/西), as players call them across the table.
How the hand settled (the deal, the level moves, the 积分) is worded by
:mod:`bot.settlement`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.i18n import Translator
from bot.labels import SUIT_SYMBOLS, card_label, cards_label, seat_label, signed, trump_phrase
from bot.settlement import (
    TOP_ROWS,
    deal_line,
    end_bonus_line,
    extrapolation_line,
    levels_phrase,
    move_line,
    scores_line,
    standing,
)
from engine.bidding import BidRecord
from engine.cards import Card
from engine.hand import Trick, side_of
from engine.match import HandRecord
from engine.notices import Notice, RedFive, ThrowFailed
from engine.ruleset import Ruleset
from engine.scoring import Adjustment
from engine.special import HandResult
from engine.views import HandView

# --- bids ------------------------------------------------------------------------------------------


def bid_cards(tr: Translator, record: BidRecord) -> str:
    """What was shown, as players say it: 「♠2♠2」, 「对小王」, 「红5对（选♣）」."""
    if record.step == "SJ2":
        return tr("small-joker pair")
    if record.step == "BJ2":
        return tr("big-joker pair")
    if record.step == "R52":
        choice = (tr("chose {suit}", suit=SUIT_SYMBOLS[record.trump]) if record.trump is not None
                  else tr("no trump"))
        return tr("red-five pair ({choice})", choice=choice)
    return cards_label(record.cards, tr.lang)


def _kind_word(tr: Translator, record: BidRecord, *, first_word: bool) -> str:
    if record.kind == "steal":
        if record.failed_steal and record.points:
            return tr("failed steal ({points})", points=signed(record.points))
        if record.failed_steal:  # where a failed steal costs nothing (安徽)
            return tr("failed steal")
        return tr("steal")
    if not record.stood:  # a hidden bid no higher than the standing one did not count
        return tr("(too low, did not count)")
    return {"declare": tr("declare") if first_word else "", "override": tr("override"),
            "reinforce": tr("reinforce"), "look_back": tr("look back")}[record.kind]


def bid_words(tr: Translator, record: BidRecord, *, first_word: bool = False) -> str:
    """One bid: 「西 红5对（选♣）反主」, 「南 ♦2♦2 抄底失败（−80）」.

    ``first_word``: name a plain declaration too (「北 ♣2 亮主」), as a bid told on its own does.
    """
    return f"{seat_label(tr, record.seat)} {bid_phrase(tr, record, first_word=first_word)}"


def bid_phrase(tr: Translator, record: BidRecord, *, first_word: bool = False) -> str:
    """A bid without its seat: 「红5对（选♣）反主」, 「♠2 亮主」 (``first_word``)."""
    word = _kind_word(tr, record, first_word=first_word)
    text = bid_cards(tr, record)
    if not word:
        return text
    if text.endswith("）") or word.startswith("（"):  # no space beside a full-width bracket
        return text + word
    return f"{text} {word}"


def reveal(tr: Translator, history: Sequence[BidRecord], trump: str | None) -> str:
    """The whole bid history at the end of the steal rounds (暗炒), in order, and the trump it set.

    「亮主经过：北 ♣2 → 西 红5对（选♣）反主 → 东 ♠2♠2 抄底 → 南 ♦2♦2 抄底失败（−80）；主 ♠」
    """
    steps = " → ".join(bid_words(tr, record) for record in history)
    return tr("How the trump was bid: {steps}; {trump}", steps=steps, trump=trump_phrase(tr, trump, capital=False))


def flip(tr: Translator, cards: Sequence[Card], by: Sequence[int | None], decider: int | None,
         trump: str | None, threshold: int | None = None) -> str:
    """Nobody bid: which kitty cards were turned (and by whom), the one that set the trump marked in place.

    「无人亮主，翻底：♣3 ♦7 ♠2（定主）；主 ♠」.  ``threshold`` is the hand's takeover score when the flip
    changed it (新炒地皮 and 池州: a joker turned up makes a no-trump hand taken over at 60):
    「…；无主；本局抓分方 60 分上台」.
    """
    lang = tr.lang
    shown = []
    for i, (card, seat) in enumerate(zip(cards, by)):
        text = (f"{seat_label(tr, seat)} " if seat is not None else "") + card_label(card, lang)
        shown.append(text + tr(" (sets the trump)") if i == decider else text)
    text = tr("Nobody bid: the kitty turned up {cards}; {trump}", cards=" ".join(shown),
              trump=trump_phrase(tr, trump, capital=False))
    if threshold is not None:
        text += tr("; this hand the attackers take the deal at {n} points", n=threshold)
    return text


def flip_news(tr: Translator, view: HandView, ruleset_threshold: int) -> str:
    """The flip as a view shows it, naming the hand's takeover score where the flip changed it."""
    changed = view.threshold if view.threshold != ruleset_threshold else None
    return flip(tr, view.flipped, view.flipped_by, view.flip_decider, view.trump, changed)


# --- notices ---------------------------------------------------------------------------------------


def _side_word(tr: Translator, seat: int, dealer_side: int | None) -> str:
    return tr("dealer side") if side_of(seat) == dealer_side else tr("attackers")


def throw_failed(tr: Translator, notice: ThrowFailed) -> str:
    """「东 甩牌失败：♠A♠8♠6 里 ♠8 被 北 ♠10 管住，只出 ♠8，抓分方 +10」."""
    lang = tr.lang
    return tr("{seat} failed a throw: of {thrown}, {beaten} is beaten by {by} with {cards}; only {forced} is played, "
              "attackers {points}",
              seat=seat_label(tr, notice.seat), thrown=cards_label(notice.thrown, lang),
              beaten=cards_label(notice.beaten, lang), by=seat_label(tr, notice.beaten_by),
              cards=cards_label(notice.beaten_with, lang), forced=cards_label(notice.forced, lang),
              points=signed(notice.points))


def red_five(tr: Translator, notice: RedFive, dealer_side: int | None) -> str:
    """「逼红5：西（抓分方）的 ♥5 被逼出，抓分方 −50」 or 「保红5：南（庄家方）的 ♥5 留到最后一轮，抓分方 −50」."""
    values = {"seat": seat_label(tr, notice.seat), "side": _side_word(tr, notice.seat, dealer_side),
              "cards": cards_label(notice.cards, tr.lang), "points": signed(notice.points)}
    if notice.kind == "red5_forced":
        return tr("Red five forced out (逼红5): {seat} ({side}) had to play {cards} and lost the trick, attackers {points}",
                  **values)
    return tr("Red five kept (保红5): {seat} ({side}) led {cards} in the last trick, attackers {points}", **values)


def notice_text(tr: Translator, notice: Notice, dealer_side: int | None) -> str:
    """Any notice, as the group is told it."""
    if isinstance(notice, ThrowFailed):
        return throw_failed(tr, notice)
    return red_five(tr, notice, dealer_side)


# --- the result ------------------------------------------------------------------------------------


def final_trick(tr: Translator, trick: Trick, dealer_side: int | None) -> str:
    """The last trick of the hand, who won it, and its points for the attackers."""
    plays = " → ".join(f"{seat_label(tr, seat)} {cards_label(cards, tr.lang)}" for seat, cards in trick.plays)
    seat = seat_label(tr, trick.winner)
    if trick.points and side_of(trick.winner) != dealer_side:
        return tr("Final trick: {plays} · {seat} won: attackers +{points}", plays=plays, seat=seat,
                  points=trick.points)
    return tr("Final trick: {plays} · {seat} won", plays=plays, seat=seat)


def _point_parts(tr: Translator, result: HandResult) -> list[str]:
    """What made p besides the tricks, each kind summed with the engine's sign: 「抠底 +40」, 「逼红5 −100」."""
    names = {"throw": tr("failed throw"), "failed_steal": tr("failed steal"), "red5_forced": "逼红5",
             "red5_kept": "保红5"}
    parts: dict[tuple[str, bool], int] = {}
    if result.kitty_bonus:
        parts[("抠底", True)] = result.kitty_bonus
    for adj in result.adjustments:  # a +50 and a −50 stay two parts: each is someone's red five
        key = (names[adj.reason], adj.points > 0)
        parts[key] = parts.get(key, 0) + adj.points
    return [f"{name} {signed(points)}" for (name, _), points in parts.items()]


def points_line(tr: Translator, record: HandRecord) -> str:
    """The attackers' total p, with its parts when it is not just the tricks' points (decision 18, amended).

    「抓分方共得 60 分。」; 「抓分方共得 0 分。大光！」 only when the attackers took no points from cards;
    any other total of 0 or below is told with its parts and the table's row for it:
    「抓分方出牌得 50 分，逼红5 −50，合计 0 分（按 0 分算，庄家方升 9 级）。」.  Beyond the printed rows
    the arithmetic has a line of its own (:func:`bot.settlement.extrapolation_line`).  When 上天入地
    decides the hand, its line tells the levels instead: neither is said.
    """
    result = record.result
    assert result is not None
    p = result.attacker_points
    shown = signed(p) if p < 0 else p
    outcome = result.outcome
    shutout = p == 0 and result.trick_points == 0 and result.kitty_bonus == 0 and result.heaven_and_earth_side is None
    note = ""
    if (p <= 0 and not shutout and outcome is not None and outcome.dealer_keeps and not record.setup.flag
            and result.heaven_and_earth_side is None and outcome.levels <= TOP_ROWS[True]):
        note = tr(" (counted as {p} points: the dealer side rises {levels})", p=shown,
                  levels=levels_phrase(tr, outcome.levels))
    parts = _point_parts(tr, result)
    if parts:
        line = tr("Attackers scored {t} from tricks, {parts}: {p} points in all{note}.", t=result.trick_points,
                  parts=("，" if tr.lang == "zh" else ", ").join(parts), p=shown, note=note)
    else:
        line = tr("Attackers scored {p} points{note}.", p=shown, note=note)
    if shutout:
        line += ("" if tr.lang == "zh" else " ") + tr("Shut out (大光)!")
    return line


def _adjustment_line(tr: Translator, adj: Adjustment, dealer_side: int | None) -> str:
    """Who caused a change to p, and by how much: 「逼红5（西，抓分方）：抓分方 −50」."""
    values = {"seat": seat_label(tr, adj.seat), "side": _side_word(tr, adj.seat, dealer_side),
              "points": signed(adj.points)}
    if adj.reason == "red5_forced":  # the seat's own red five was forced out: it forced nothing
        return tr("逼红5: the red five of {seat} ({side}) was forced out: attackers {points}", **values)
    if adj.reason == "red5_kept":
        return tr("保红5: the red five of {seat} ({side}) was kept to the last trick: attackers {points}", **values)
    what = tr("failed throw") if adj.reason == "throw" else tr("failed steal")
    return tr("{what} by {seat} ({side}): attackers {points}", what=what, **values)


def escape_lines(tr: Translator, name: str, points: int) -> list[str]:
    """What a hand someone escaped from says (the one text of an escape's result): what it cost them (nothing
    before the first card: the 15 rule), and that the AI sits down."""
    if points:
        told = tr("{who} left the table (escape): {points} 积分.", who=name, points=signed(points))
    else:
        told = tr("{who} left the table before any card was played: it costs nothing, and the hand counts for nobody.", who=name)  # noqa: E501
    return [told, tr("The AI takes the seat; the next hand is dealt.")]


def result_lines(tr: Translator, record: HandRecord, laps: int, last: Trick | None = None,
                 who: Callable[[int], str] | None = None) -> list[str]:
    """The result of a finished hand, line by line: what happened, exactly as recorded.

    ``last`` is the hand's final trick (shown first, and naming the capture of a demotion);
    ``who`` names the player who escaped (the seat label otherwise).
    """
    lang = tr.lang
    lines = ["<b>" + tr("Hand {n} is over", n=record.number) + "</b>"]
    result = record.result
    if result is None:
        lines.append(deal_line(tr, record, laps))
        return lines
    dealer_side = result.dealer_side
    if result.escaped is not None:
        name = who(result.escaped) if who is not None else seat_label(tr, result.escaped)
        return lines + escape_lines(tr, name, result.scores[result.escaped])
    if last is not None:
        lines.append(final_trick(tr, last, dealer_side))
    lines.append(points_line(tr, record))
    if result.kitty:
        kitty = cards_label(result.kitty, lang)
        if result.kitty_multiplier:
            lines.append(tr("Kitty {cards}: 抠底 (kitty capture) ×{m} = {bonus} points.",
                            cards=kitty, m=result.kitty_multiplier, bonus=result.kitty_bonus))
        else:
            lines.append(tr("Kitty {cards}: kept by the dealer side.", cards=kitty))
    lines += [_adjustment_line(tr, adj, dealer_side) for adj in result.adjustments]
    lines.append(deal_line(tr, record, laps))
    arithmetic = extrapolation_line(tr, record)
    if arithmetic is not None:
        lines.append(arithmetic)
    winning = dict(last.plays)[last.winner] if last is not None else None
    for move in record.moves:
        line = move_line(tr, record, move, laps, winning)
        if line is not None:
            lines.append(line)
    bonus = end_bonus_line(tr, record, laps)
    if bonus is not None:
        lines.append(bonus)
    lines.append(scores_line(tr, record))
    lines.append(standing(tr, record.after, laps))
    return lines


def result_text(tr: Translator, record: HandRecord, laps: int, last: Trick | None = None,
                who: Callable[[int], str] | None = None) -> str:
    """The group's announcement of a finished hand."""
    return "\n".join(result_lines(tr, record, laps, last, who))


def private_result(tr: Translator, record: HandRecord, seat: int, laps: int) -> str:
    """One line for a player's private chat: the hand's p, the deal, and their 积分."""
    result = record.result
    deal = deal_line(tr, record, laps)
    if result is None:
        return tr("Hand {n}: {deal}", n=record.number, deal=deal)
    p = result.attacker_points
    return tr("Hand {n}: attackers {p} points · {deal} · you {score} 积分", n=record.number,
              p=signed(p) if p < 0 else p, deal=deal, score=signed(result.scores[seat] + record.bonus[seat]))


# --- what one action tells the group ----------------------------------------------------------------


def table_news(tr: Translator, view: HandView, ruleset: Ruleset) -> str | None:
    """What the table message says of how the trump was set, while the first trick is played:
    the flipped kitty, or (暗炒) the revealed bids."""
    if view.phase != "playing" or view.tricks:
        return None
    if view.flipped:
        return flip_news(tr, view, ruleset.threshold)
    if ruleset.hidden_bidding and view.bid_history:
        return reveal(tr, view.bid_history, view.trump)
    return None


def news(tr: Translator, before: HandView, after: HandView, record: HandRecord | None, laps: int) -> list[str]:
    """The short messages the group is told after one action, in order (decision 17).

    ``before`` and ``after`` are the group's views of the acted-on hand just
    before and just after the action (the finished hand's, when the action
    ended it); ``record`` is the hand's record when it ended.  The reveal
    comes when the bid history turns public under hidden bidding (the end of
    the steal rounds) — never earlier, since the views carry nothing before.

    The group's budget is about 20 messages a minute, and the table message
    is edited anyway: a reveal of a single bid and a flipped kitty are told
    there (:func:`table_news`); a contested reveal, which may move p by 80,
    is a message of its own.
    """
    out = [text for _kind, text in moments(tr, before, after)]
    if record is not None:
        out.append(result_text(tr, record, laps, after.last_trick))
    return out


def moments(tr: Translator, before: HandView, after: HandView) -> list[tuple[str, str]]:
    """:func:`news` without the result, each with a kind that is unique within the hand
    (``reveal``, ``notice1``, ``notice2`` …: the outbox keeps one of each per hand)."""
    out: list[tuple[str, str]] = []
    history = after.bid_history
    if before.bid_history is None and history is not None and len(history) > 1:
        out.append(("reveal", reveal(tr, history, after.trump)))
    for index in range(len(before.notices), len(after.notices)):
        out.append((f"notice{index + 1}", notice_text(tr, after.notices[index], after.dealer_side)))
    return out
