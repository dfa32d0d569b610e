"""Cheaper built-ins of compiled menus (issue 16): cost_payable compares a cost's items by `map` (costs._split keeps
each cost split into its ids and how many of each), `count` reads a list without gaps as its length, and `own`
finds a zone every player has in the pack's table of keys. Each answers, charges and fails as before."""

from __future__ import annotations

import random

import pytest
from scenario import ruleset
from test_runtime_speed_a_costs import _payable_item_by_item

from engine.runtime import costs, functions
from engine.runtime.errors import ContentError
from engine.runtime.game import Ctx, Game


def test_cost_payable_answers_as_the_loop_did_with_and_without_jokers():
    rnd = random.Random(11)
    ids = ["wood", "stone", "flint", "food", "spoils"]
    for _ in range(5_000):
        items = [rnd.choice(ids) for _ in range(rnd.randrange(8))]
        counts = {i: rnd.randrange(5) for i in ids if rnd.random() < 0.7}
        joker, n = rnd.choice([(None, 0), ("spoils", 3), ("spoils", 1), ("spoils", 0), ("wood", 2)])
        assert costs.cost_payable(items, counts, joker, n) is _payable_item_by_item(items, counts, joker, n)
    assert costs.counted(["wood", "stone", "wood"], None) == ((("wood", 2), ("stone", 1)), 0)


def test_an_item_that_cannot_be_counted_fails_as_before():
    with pytest.raises(TypeError):
        costs.cost_payable([["wood"]], {}, None, 0)
    with pytest.raises(TypeError):  # a list as the joker, used: its count cannot be read
        costs.cost_payable(["wood"], {"wood": 0}, ["spoils"], 3)


def test_count_of_a_list_and_own_zone_keys_are_as_before():
    game = Game.new(ruleset("cro-magnon"), 2, 3)
    context = Ctx(game, {}, "P1", None)
    count, own = functions.BUILTINS["count"], functions.BUILTINS["own"]
    work = game.work
    assert count(context, [1, 2, 3]) == 3 and game.work == work - 3  # charged the items counted
    assert count(context, [1, None, 3]) == 2 and game.work == work - 5  # a gap is not counted
    assert own(context, "hand", "P2") == "hand:P2"
    for zone, player, error in (
        (["hand"], "P2", ContentError),
        (None, "P2", ContentError),
        ("hand", ["P2"], TypeError),
    ):
        with pytest.raises(error):  # not a key of the table: Table.zone_key says why, as before
            own(context, zone, player)
