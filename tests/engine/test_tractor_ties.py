"""Regression: splitting a play into tractors must not depend on where cards sit in memory."""

from __future__ import annotations

import os
import subprocess
import sys

from engine.cards import format_cards, parse_cards
from engine.combos import classify, decompose
from engine.ruleset import RULESETS
from engine.throws import judge_throw
from engine.trump import trump_context

_SCRIPT = """
import sys
class Pad:
    __slots__ = ("a", "b", "c", "d", "e")
pad = [Pad() for _ in range(int(sys.argv[1]))]  # moves the interned cards to other addresses
from engine.cards import format_cards, parse_cards
from engine.combos import classify
from engine.ruleset import RULESETS
from engine.throws import judge_throw
from engine.trump import trump_context
ctx = trump_context(RULESETS["anhui"], 6, "S")
shape = classify(ctx, parse_cards("AS AS 6H 6H 6C 6C 6S 6S"))
print(format_cards(judge_throw(ctx, shape, [parse_cards("SJ SJ 3D")]).played))
"""


def test_top_chain_tie_is_broken_by_the_card_not_its_address() -> None:
    """安徽, level 6, ♠ trump: ♠AA ♥66 ♣66 ♠66 holds one tractor through one off-suit level pair."""
    ctx = trump_context(RULESETS["anhui"], 6, "S")
    throw = parse_cards("AS AS 6H 6H 6C 6C 6S 6S")
    comps = [format_cards(c.cards) for c in decompose(ctx, throw)]
    assert comps == ["6S 6S 6H 6H AS AS", "6C 6C"]
    shape = classify(ctx, throw)
    assert shape is not None
    assert format_cards(judge_throw(ctx, shape, [parse_cards("SJ SJ 3D")]).played) == "6C 6C"


def test_failed_throw_is_the_same_in_every_process() -> None:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root)
    seen = {
        subprocess.run([sys.executable, "-c", _SCRIPT, str(n)], capture_output=True, text=True, env=env,
                       check=True).stdout.strip()
        for n in (0, 1, 2, 3, 5)
    }
    assert seen == {"6C 6C"}
