"""What holds after every decision of every Paleo pack (tests/pack_invariants.py), checked by random games of the
base game, the expansion, each module and each scenario at 1-4 players ("the graveyard never returns")."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import invariants
import pytest
from pack_invariants import CemeteryOnlyGrows

from engine.runtime import rules as rules_module
from engine.runtime import session
from engine.runtime.game import Game

CONTENT = Path(__file__).resolve().parent.parent / "content"
PACKS = sorted(p.name for p in CONTENT.glob("paleo*") if (p / "pack.yaml").exists())


@cache
def ruleset(name):
    return rules_module.load(CONTENT / name)


def test_a_card_leaving_the_cemetery_is_caught():
    game = Game.new(ruleset("paleo"), 2, 0)
    check = CemeteryOnlyGrows()
    buried = game.state["zones"]["people"][0]
    game.move(buried, "cemetery")
    check(game)
    game.move(buried, "people")
    with pytest.raises(AssertionError, match="left the cemetery"):
        check(game)


@pytest.mark.parametrize("pack", PACKS)
def test_random_games_keep_every_invariant(pack):
    """Reference, "Night" ("the graveyard never returns"), besides every card in one place, resources within
    their bounds and pools kept (invariants.py): 1-4 players, a few rounds each."""
    assert len(PACKS) == 14
    for players in (1, 2, 3, 4):
        game = Game.new(ruleset(pack), players, players, max_rounds=6)
        watch = invariants.Watch(game, by_the_rules=False)
        assert watch.pack_checks, "the Paleo checks run"
        session.play_randomly(game, random.Random(players), after=watch)
        assert game.over
