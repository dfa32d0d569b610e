"""A game's attributes are all made in `Game.__init__`, in one order, whether the game is new, loaded or cloned
(issue 16). CPython keeps the attributes of instances made alike in one shared table of names and reads them at a
fixed place; an attribute first set later (`g.settled = ...` during play, `ends_quiet` for clones only) gives that
instance an ordinary dict, and every `g.x` read of the hot loop gets slower: Cro-Magnon -2.7 % instructions when
fixed."""

from __future__ import annotations

import json
import random

import pytest
from scenario import ruleset

from engine.runtime.game import Game
from engine.runtime.session import play_randomly

PACKS = ("cro-magnon", "neolithibum", "stone-age-mammoth-herd", "paleo-a-new-beginning")


@pytest.mark.parametrize("pack", PACKS)
def test_playing_adds_no_attribute_and_every_way_of_making_a_game_makes_the_same(pack):
    rules = ruleset(pack)
    game = Game.new(rules, 4, 3)
    made = list(vars(game))
    play_randomly(game, random.Random(3), limit=150)
    assert list(vars(game)) == made  # nothing first set during play
    assert list(vars(game.clone())) == made
    assert list(vars(Game.from_save(rules, json.loads(game.save())))) == made
    imagined = game.determinized(game.players[0], 1)
    assert list(vars(imagined)) == made
    play_randomly(imagined, random.Random(4), limit=50)
    assert list(vars(imagined)) == made
