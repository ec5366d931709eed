"""Rulesets: the rows of RULES.md §3 as named options, and the seven presets.

Behaviour differs by option, never by subclass.  A :class:`Ruleset` is a frozen
dataclass checked on construction; :data:`RULESETS` holds the presets of
binding decision 1 and :func:`get_ruleset` finds one by name or alias.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal

from engine.cards import ACE, SUITS
from engine.errors import RulesetError

BID_STEPS: Final = ("single", "C2", "D2", "S2", "H2", "SJ2", "BJ2", "R52", "LB")
"""Names of the steps a bid ladder may hold.

``"single"`` is any single level card, ``"C2"``…``"H2"`` a pair of level cards
of that suit, ``"SJ2"``/``"BJ2"``/``"R52"`` a pair of small jokers, big jokers
or red fives, and ``"LB"`` the 回头望 look-back.
"""

HeavenAndEarth = Literal["none", "exact_either_side", "attackers_containing"]
JToBottom = Literal["none", "nantong", "chizhou"]
AfterAce = Literal["game_over", "next_lap", "flag_hand", "anhui_bonus"]


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A complete set of rule options (one column of the RULES.md §3 matrix).

    Field names follow the ``config_key`` of each matrix row.  Use
    :func:`dataclasses.replace` to derive a table's own variant of a preset;
    the result is checked again.
    """

    name: str
    """The preset's identifier, e.g. ``"yancheng"``."""
    zh_name: str
    """Chinese display name, e.g. ``"盐城"``."""
    en_name: str
    """English display name, e.g. ``"Yancheng"``."""

    # --- trump and ranking (§2.4)
    red5_trump: bool
    """♥5 is a permanent trump, the red five (R5 family)."""
    red5_above_big_joker: bool = True
    """``red5_rank``: R5 > BJ (the default); if false, BJ > R5 > SJ."""

    # --- bidding (§2.6.1)
    bid_ladder: tuple[str, ...] | None = None
    """Bid steps from low to high; ``None`` means any level pair overrides and the latest bid wins (安徽)."""
    single_bid: bool = True
    """A single level card may open the bidding (it never overrides a single)."""
    reinforce: bool = False
    """A bidder may turn their own single into a pair (加固)."""
    look_back: bool = False
    """回头望: an overridden single bidder holding the pair may re-bid it, top of the ladder."""
    club_pair_overrides_big_joker: bool = False
    """新炒地皮's extra edge: a ♣ level pair may override a big-joker pair."""
    small_joker_pair_bid: Literal["no_trump", "steal_only"] = "no_trump"
    """What an SJ pair bids: no-trump, or (安徽) no-trump in a steal only."""
    big_joker_pair_bid: Literal["no_trump", "choose_suit", "steal_only"] = "no_trump"
    """What a BJ pair bids: no-trump; a suit of the bidder's choice (新炒地皮); or no-trump in a steal only."""
    hidden_bidding: bool = False
    """暗炒: bids are hidden until the steal rounds end."""
    failed_steal_points: int = 0
    """Points on p for each failed hidden steal (+ for a dealer-side stealer, − for an attacker)."""
    kitty_steal: bool = True
    """抄底: steal rounds follow the bury."""
    steal_with_any_trump_pair: bool = False
    """安徽: any level pair or joker pair steals, the latest steal setting trump; on exactly where there is no
    bid ladder (the ladder orders steals where there is one)."""
    first_hand_no_bid: Literal["redeal", "flip_in_turn"] = "redeal"
    """Hand 1 with no bid: redeal, or flip kitty cards in turn (安徽)."""
    later_no_bid: Literal["first_level_card", "first_card", "flip_in_turn"] = "first_level_card"
    """Later hands with no bid: how the kitty flip sets trump."""
    flipped_joker_threshold: int | None = None
    """θ for a hand whose kitty flip turned a joker (60 in 新炒地皮/池州), or None to keep θ."""
    first_dealer: Literal["standing_bid", "first_level_bidder"] = "standing_bid"
    """Hand 1's dealer: the holder of the standing bid at the close (A9), or the first player to
    bid a level card (新炒地皮/池州, decision 14; the standing bid still sets trump)."""

    # --- thresholds
    threshold: int = 80
    """θ: the attackers take over at p ≥ θ."""
    flag_threshold: int = 100
    """θ in the flag hand (扛旗)."""

    # --- following and combinations (§2.7, §2.8)
    pairs_must_follow: bool = True
    """逼对: followers must play pairs and tractors to pairs and tractors (F2)."""
    tractor_skip_level: bool = False
    """Hollow tractors: plain pairs either side of a missing rank are adjacent."""
    tractor_skip_level_in_trump: bool = False
    """Hollow tractors inside the trump suit too (安徽)."""
    level_pair_in_trump_tractor: bool = True
    """The trump-suit level pair joins trump-suit tractors at face value."""
    top_chain: bool = False
    """安徽's chain: trump-suit top pair → off-suit level pair → trump-suit level pair → SJ pair → BJ pair."""
    joker_tractor: bool = True
    """An SJ pair and a BJ pair form a tractor."""
    ace_low_tractor: bool = True
    """AA22 is a tractor (ranked with the ace as 1); KKAA22 never is."""
    five_ten_king: bool = False
    """5-10-K and its pair form exist (R5 family)."""
    red5_in_plain_ftk: bool = False
    """The red five may complete a plain-hearts 5-10-K."""
    ftk_forces_highest: bool = True
    """A trump-suit 5-10-K lead forces followers' highest trumps (逼大牌)."""

    # --- scoring (§2.11–2.14)
    throw_penalty: int = 10
    """Points per card of the forced component of a failed throw."""
    kitty_multiplier_cap: int | None = None
    """Highest kitty multiplier (8 in 安徽), or None."""
    heaven_and_earth: HeavenAndEarth = "none"
    """上天入地 trigger: none; exactly 5-10-K by either side; an attackers' capture containing one."""
    heaven_and_earth_reward: int = 16
    """上天入地's minimum 积分."""
    red5_bonus: int = 0
    """逼红5 / 保红5 points per red five (50 in 盐城), 0 for none."""
    must_play: frozenset[int] = field(default_factory=frozenset)
    """Level ranks (11 = J, 14 = A) that a jump may not pass."""
    laps: int = 1
    """Laps of 2…A in a match (3 in 盐城); A is must-play in the last lap."""
    j_to_bottom: JToBottom = "none"
    """J到底: none; 南通's (needs p ≥ θ); 池州's J/A rule."""
    chizhou_fixed_nine: bool = False
    """Compatibility: 池州's A→2 demotion scores a fixed 9 levels as the seed prints."""
    after_ace: AfterAce = "game_over"
    """What passing A leads to: the match ends; the next lap; the flag hand; 安徽's end bonus."""
    level_table: Literal["A", "B"] = "B"
    """Level table A (池州) or B (with the 大光 extra level)."""
    escape: Literal["fifteen", "anhui"] = "fifteen"
    """Escape rule: the 15-积分 rule, or 安徽's 15×/20× base stake."""

    def __post_init__(self) -> None:
        problems = list(_problems(self))
        if problems:
            raise RulesetError(f"Ruleset {self.name!r} is inconsistent: " + " ".join(problems))

    def __hash__(self) -> int:
        """Hashed by name alone (equal rulesets share a name): every trump-context lookup hashes one."""
        return hash(self.name)

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with some options changed (checked again)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every option (``must_play`` as a sorted list)."""
        out = dataclasses.asdict(self)
        out["must_play"] = sorted(self.must_play)
        out["bid_ladder"] = list(self.bid_ladder) if self.bid_ladder is not None else None
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        """The inverse of :meth:`to_dict`; unknown keys are refused."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise RulesetError(f"Unknown ruleset options: {', '.join(sorted(unknown))}.")
        values = dict(data)
        if "must_play" in values:
            values["must_play"] = frozenset(values["must_play"])
        if values.get("bid_ladder") is not None:
            values["bid_ladder"] = tuple(values["bid_ladder"])
        try:
            return cls(**values)
        except TypeError as exc:
            raise RulesetError(f"Stored ruleset options are incomplete or malformed: {exc}.") from None


def _problems(r: Ruleset) -> list[str]:
    out: list[str] = []
    if r.bid_ladder is not None:
        bad = [s for s in r.bid_ladder if s not in BID_STEPS]
        if bad:
            out.append(f"The bid ladder names unknown steps {bad}; steps are {', '.join(BID_STEPS)}.")
        if len(set(r.bid_ladder)) != len(r.bid_ladder):
            out.append("The bid ladder lists a step twice.")
        if "R52" in r.bid_ladder and not r.red5_trump:
            out.append("A red-five pair can only bid where the red five is a trump.")
        if "LB" in r.bid_ladder and not r.look_back:
            out.append("The ladder holds the look-back step but look_back is off.")
        if r.look_back and "LB" not in r.bid_ladder:
            out.append("look_back is on but the ladder has no LB step.")
    elif r.look_back or r.club_pair_overrides_big_joker:
        out.append("Without a bid ladder (latest bid wins) there is no look-back or ♣-over-BJ edge.")
    if r.red5_in_plain_ftk and not (r.red5_trump and r.five_ten_king):
        out.append("The red five can join a plain 5-10-K only where both the red five and 5-10-K exist.")
    if r.heaven_and_earth != "none" and not r.five_ten_king:
        out.append("上天入地 needs the 5-10-K combination.")
    if r.failed_steal_points and not r.hidden_bidding:
        out.append("Failed steals are scored only under hidden bidding.")
    if r.steal_with_any_trump_pair and not r.kitty_steal:
        out.append("steal_with_any_trump_pair needs kitty_steal.")
    # The engine steals by the ladder where there is one, and with any trump pair (the latest standing) where
    # there is none (bidding.step_allowed, ranks_above): the flag says which, for the rules players read.
    if r.kitty_steal and r.steal_with_any_trump_pair != (r.bid_ladder is None):
        out.append("Any trump pair steals (steal_with_any_trump_pair) exactly where there is no bid ladder.")
    if r.red5_bonus and not r.red5_trump:
        out.append("The red-five bonus needs the red five.")
    if r.laps < 1:
        out.append("A match has at least one lap.")
    if (r.after_ace == "next_lap") != (r.laps > 1):
        out.append("after_ace='next_lap' goes with laps > 1, and only with it.")
    for name in ("threshold", "flag_threshold"):
        value = getattr(r, name)
        if not 0 < value <= 200 or value % 5:
            out.append(f"{name} must be a multiple of 5 between 5 and 200, not {value}.")
    if r.flipped_joker_threshold is not None and (r.flipped_joker_threshold % 5 or not 0 < r.flipped_joker_threshold <= 200):
        out.append("flipped_joker_threshold must be a multiple of 5 between 5 and 200.")
    if any(not 2 <= m <= ACE for m in r.must_play):
        out.append("must_play holds rank ordinals from 2 to 14.")
    if r.throw_penalty < 0 or r.failed_steal_points < 0 or r.red5_bonus < 0:
        out.append("Penalties are given as non-negative amounts; their sign follows the side.")
    if r.kitty_multiplier_cap is not None and r.kitty_multiplier_cap < 2:
        out.append("The kitty multiplier cap is at least 2.")
    if r.j_to_bottom == "nantong" and not {11, 14} <= r.must_play:
        out.append("南通's J到底 rule needs J and A to be must-play levels.")
    if r.after_ace == "flag_hand" and r.must_play & {14}:
        out.append("A flag-hand ruleset passes A by the flag hand; A cannot also be must-play.")
    return out


_R5_BASE: Final = dict(
    red5_trump=True,
    five_ten_king=True,
    pairs_must_follow=True,
    level_table="B",
)

_PRESETS: Final = (
    Ruleset(
        name="yancheng", zh_name="盐城", en_name="Yancheng",
        bid_ladder=("single", "C2", "D2", "S2", "H2", "SJ2", "BJ2", "R52", "LB"),
        look_back=True, hidden_bidding=True, failed_steal_points=80,
        red5_in_plain_ftk=True, heaven_and_earth="exact_either_side", heaven_and_earth_reward=16,
        red5_bonus=50, laps=3, after_ace="next_lap",
        **_R5_BASE,  # type: ignore[arg-type]
    ),
    Ruleset(
        name="yangzhou", zh_name="扬州/镇江", en_name="Yangzhou/Zhenjiang",
        bid_ladder=("single", "D2", "C2", "H2", "S2", "SJ2", "BJ2", "R52"),
        tractor_skip_level=True, heaven_and_earth="attackers_containing", heaven_and_earth_reward=16,
        after_ace="flag_hand",
        **_R5_BASE,  # type: ignore[arg-type]
    ),
    Ruleset(
        name="yangzhong", zh_name="扬中", en_name="Yangzhong",
        bid_ladder=("single", "D2", "C2", "H2", "S2", "SJ2", "BJ2", "R52"),
        tractor_skip_level=True, ftk_forces_highest=False,
        heaven_and_earth="attackers_containing", heaven_and_earth_reward=16,
        after_ace="flag_hand",
        **_R5_BASE,  # type: ignore[arg-type]
    ),
    Ruleset(
        name="nantong", zh_name="南通/连云港", en_name="Nantong/Lianyungang",
        bid_ladder=("single", "D2", "C2", "H2", "S2", "SJ2", "BJ2", "R52", "LB"),
        look_back=True, red5_in_plain_ftk=True,
        heaven_and_earth="attackers_containing", heaven_and_earth_reward=13,
        must_play=frozenset({11, 14}), j_to_bottom="nantong",
        **_R5_BASE,  # type: ignore[arg-type]
    ),
    Ruleset(
        name="xin", zh_name="新炒地皮", en_name="New Chao Di Pi",
        red5_trump=False,
        bid_ladder=("single", "C2", "D2", "S2", "H2", "SJ2", "BJ2"),
        reinforce=True, club_pair_overrides_big_joker=True, big_joker_pair_bid="choose_suit",
        later_no_bid="first_card", flipped_joker_threshold=60, first_dealer="first_level_bidder",
        pairs_must_follow=False, tractor_skip_level=True, throw_penalty=5, level_table="A",
    ),
    Ruleset(
        name="chizhou", zh_name="池州", en_name="Chizhou",
        red5_trump=False,
        bid_ladder=("single", "C2", "D2", "S2", "H2", "SJ2", "BJ2"),
        reinforce=True, club_pair_overrides_big_joker=True, big_joker_pair_bid="choose_suit",
        later_no_bid="first_card", flipped_joker_threshold=60, first_dealer="first_level_bidder",
        pairs_must_follow=False, tractor_skip_level=True, throw_penalty=5,
        must_play=frozenset({11, 14}), j_to_bottom="chizhou", level_table="A",
    ),
    Ruleset(
        name="anhui", zh_name="安徽", en_name="Anhui",
        red5_trump=False, bid_ladder=None,
        small_joker_pair_bid="steal_only", big_joker_pair_bid="steal_only",
        hidden_bidding=True, steal_with_any_trump_pair=True,
        first_hand_no_bid="flip_in_turn", later_no_bid="flip_in_turn",
        tractor_skip_level=True, tractor_skip_level_in_trump=True,
        level_pair_in_trump_tractor=False, top_chain=True,
        kitty_multiplier_cap=8, must_play=frozenset({11, 14}), after_ace="anhui_bonus",
        level_table="A", escape="anhui",
    ),
)

RULESETS: Final[Mapping[str, Ruleset]] = MappingProxyType({r.name: r for r in _PRESETS})
"""The seven presets by name; ``yancheng`` (盐城) is the default."""

DEFAULT_RULESET: Final = "yancheng"
"""Name of the default preset."""

ALIASES: Final[Mapping[str, str]] = MappingProxyType({
    "暗炒": "yancheng", "盐城": "yancheng", "an": "yancheng", "anchao": "yancheng",
    "扛旗": "yangzhou", "扬州": "yangzhou", "镇江": "yangzhou", "扬州/镇江": "yangzhou",
    "kangqi": "yangzhou", "zhenjiang": "yangzhou",
    "扬中": "yangzhong",
    "明炒": "nantong", "南通": "nantong", "连云港": "nantong", "南通/连云港": "nantong",
    "mingchao": "nantong", "lianyungang": "nantong",
    "新炒地皮": "xin", "new": "xin", "新": "xin",
    "池州": "chizhou",
    "安徽": "anhui",
})
"""Other names accepted by :func:`get_ruleset` (room names, Chinese names)."""


def get_ruleset(name: str) -> Ruleset:
    """The preset called ``name`` (an identifier, a Chinese name or a room alias).

    Raises ``ValueError`` (a :class:`RulesetError`) naming the valid presets.
    """
    key = name.strip()
    key = ALIASES.get(key, ALIASES.get(key.lower(), key.lower()))
    try:
        return RULESETS[key]
    except KeyError:
        valid = ", ".join(f"{r.name} ({r.zh_name})" for r in _PRESETS)
        raise RulesetError(
            f"There is no preset called {name!r}. The presets are: {valid}; "
            "the room names 暗炒, 扛旗 and 明炒 are also accepted."
        ) from None


def suit_of_bid_step(step: str) -> str | None:
    """The suit a level-pair step names (``"S2"`` → ``"S"``), else None."""
    return step[0] if len(step) == 2 and step[0] in SUITS and step[1] == "2" else None
