"""A keyboard's version changes whenever the question its buttons answer changes.

A pass answers "do you bid in this round?": it is made once per round, and a
pass from an earlier round (a late or replayed press) must not count in the
next one; the same for 不抄 in each steal round.
"""

from __future__ import annotations

from engine.hand import Action

from . import builders as T


def test_a_pass_changes_the_passers_version_only() -> None:
    table = T.bidding_fresh("yancheng")
    before = [table.version(s) for s in range(4)]
    assert table.match is not None
    table.match.apply(Action("pass", 1))
    after = [table.version(s) for s in range(4)]
    assert after[1] != before[1]
    assert [after[s] for s in (0, 2, 3)] == [before[s] for s in (0, 2, 3)]  # the others may still pass
    assert not table.stale(1, before[1], selecting=True)  # a card button still means the same card
    assert table.stale(1, before[1], selecting=False)


def test_a_bid_opens_a_new_round_for_everyone() -> None:
    table = T.bidding_fresh("yancheng", seed=T.seed_with_bid("yancheng", pair=False))
    assert table.match is not None
    hand = table.match.hand
    table.match.apply(Action("pass", 2))
    round_one = [table.version(s) for s in range(4)]
    table.match.apply(Action("bid", 0, T.level_bids(hand, 0, pair=False)[0]))
    round_two = [table.version(s) for s in range(4)]
    assert all(a != b for a, b in zip(round_one, round_two, strict=True))
    assert 2 not in hand.passed and table.stale(2, round_one[2], selecting=False)


def test_each_steal_round_asks_again() -> None:
    table = T.make_table("yancheng", T._steal_seed("yancheng"))
    hand = T.hand_of(table)
    assert table.match is not None
    table.match.apply(Action("bid", 0, T.level_bids(hand, 0, pair=False)[0]))
    T.pass_all(table)
    T.step(table)  # the bury: the first steal round
    assert hand.phase == "stealing"
    thief = hand.steal_queue[0]
    round_one = {s: table.version(s) for s in range(4)}
    table.match.apply(Action("steal", thief, T._steal_options(hand, thief)[0]))
    T.step(table)  # the thief buries: a new steal round asks the others again
    assert hand.phase == "stealing"
    others = [s for s in range(4) if s != thief]
    assert all(len(hand.hands[s]) == int(round_one[s].split(".")[1]) for s in others)
    assert all(table.version(s) != round_one[s] for s in others)
