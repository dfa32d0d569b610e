"""An undo inside an imagined game (imagine.determinized) brings back imagined hidden cards, never the true ones: the
state from before the action under way is re-dealt with the state itself, card for card (DESIGN: a bot decides from
its own view; the rulebooks' hidden information stays hidden in its look-ahead)."""

from __future__ import annotations

import random

import pytest
from scenario import ruleset

from engine.runtime import undo
from engine.runtime.game import Game


def _game_with_an_action_under_way(pack: str, players: int, seed: int) -> Game:
    game = Game.new(ruleset(pack), players, seed)
    rnd = random.Random(seed)
    while not game.over:
        decision = game.decision
        if game.state["attempt"] is not None and not decision.is_chance:
            return game
        if decision.is_chance:
            game.apply_chance()
            continue
        player = decision.players[0]
        game.apply(rnd.choice(game.legal(player)), player)
    raise AssertionError("no action was under way in the whole game")


def _hidden_cards(game: Game, player: str) -> dict[str, list]:
    return {
        key: [card for card in cards if card is not None and not game.can_see(card, player)]
        for key, cards in game.state["zones"].items()
    }


@pytest.mark.parametrize(("pack", "players"), [("cro-magnon", 4), ("cro-magnon-solo", 1)])
def test_an_undo_in_an_imagined_game_brings_back_imagined_hidden_cards(pack, players):
    """An action under way: undone in the real game and in imagined copies, the acting player's view is
    the same, while the hidden cards brought back differ from the true ones in some copies; the real game's own
    snapshot is untouched."""
    game = _game_with_an_action_under_way(pack, players, 3)
    player = game.state["turn"]["player"]
    before = [list(cards) for cards in game.state["attempt"]["snap"]["zones"].values()]
    truth = game.clone()
    undo.fail(truth)
    differ = 0
    for seed in range(8):
        imagined = game.determinized(player, seed)
        undo.fail(imagined)
        assert imagined.view(player) == truth.view(player)
        cards = [card for zone in imagined.state["zones"].values() for card in zone if card is not None]
        assert sorted(cards) == list(range(len(game.rules.instances)))  # every card once
        assert all(
            imagined.state["loc"][card] == key
            for key, zone in imagined.state["zones"].items()
            for card in zone
            if card is not None
        )
        differ += _hidden_cards(imagined, player) != _hidden_cards(truth, player)
    assert differ >= 4, "the undo brought back the true hidden cards"
    assert [list(cards) for cards in game.state["attempt"]["snap"]["zones"].values()] == before
