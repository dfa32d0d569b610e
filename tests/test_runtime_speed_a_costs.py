"""Cost checks counted once (issue 16): costs.counted keeps each cost's items counted under the cost itself, and a
zone's cards counted by id (functions._tally, in `held_memo`) serve `can_pay` and `copies` until a card moves. The
answers are those of counting afresh: a cost checked again after a move, or with other cards at hand, is checked anew."""

from __future__ import annotations

import random

from scenario import ruleset

from engine.runtime import costs, functions
from engine.runtime.game import Ctx, Game


def _payable_item_by_item(items, counts, joker=None, n=0) -> bool:
    """cost_payable as it was before its counts were kept: one pass over the items, each counted as it comes."""
    with_jokers = bool(joker and n)
    taken: dict = {}
    short = jokers_named = 0
    for item in items:
        if item == joker:
            jokers_named += 1
            continue
        k = taken[item] = taken.get(item, 0) + 1
        if k > counts.get(item, 0):
            if not with_jokers:
                return False
            short += 1
    if not with_jokers:
        return True
    spare = counts.get(joker, 0) - jokers_named
    return spare >= 0 and short * n <= spare


def test_cost_payable_is_as_before_and_its_counts_are_kept_per_cost():
    rnd = random.Random(5)
    ids = ["wood", "stone", "flint", "spoils"]
    for _ in range(3_000):
        items = [rnd.choice(ids) for _ in range(rnd.randrange(5))]
        counts = {i: rnd.randrange(4) for i in ids if rnd.random() < 0.8}
        joker, n = rnd.choice([(None, 0), ("spoils", 3), ("spoils", 1), ("spoils", 0)])
        assert costs.cost_payable(items, counts, joker, n) == _payable_item_by_item(items, counts, joker, n), (
            items,
            counts,
            joker,
            n,
        )
    assert costs.counted(["wood", "wood", "spoils"], "spoils") == ((("wood", 2),), 1)
    assert costs.counted(["wood", "wood", "spoils"], None) == ((("wood", 2), ("spoils", 1)), 0)  # not the same cost
    assert costs.cost_payable(["wood"], {"wood": 1}, ["spoils"], 0) is True  # an unhashable joker: counted, not kept


def test_the_tally_of_a_hand_follows_every_move():
    """`copies` and `can_pay` read the hand's tally; a card moved into the hand is counted by both at once."""
    rules = ruleset("cro-magnon")
    game = Game.new(rules, 2, 3)
    hand = "hand:P1"
    card = next(c for c in game.state["zones"]["forest"] if c is not None)
    kind = rules.instances[card]
    context = Ctx(game, {}, "P1", None)
    copies, can_pay = functions.BUILTINS["copies"], functions.BUILTINS["can_pay"]
    mine = [c for c in game.state["zones"][hand] if rules.instances[c] == kind]
    before = copies(context, card, hand)
    assert before == len(mine)
    assert can_pay(context, [kind] * (before + 1), hand) is False
    game.move(card, hand)  # the tally is worked out again: not the one kept before the move
    probe = game.state["zones"][hand][-1]
    assert copies(context, probe, hand) == before + 1
    assert can_pay(context, [kind] * (before + 1), hand) is True
