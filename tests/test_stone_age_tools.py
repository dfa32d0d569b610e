"""Stone Age's 18 tool tiles (shared/reference/stone-age-base.md, points "Supply" and "Tools"): the 1st-3rd
tools are new tiles of 1, the 4th-6th turn a 1 into a 2, the 7th-9th replace a 2 with a 3, the 10th-12th turn
a 3 into a 4. Tiles have two sides (1/2 and 3/4, 12 and 6 of them: a placeholder split); each side is a card,
the side a tile does not show lies in `tool_sides`. What follows: the supply and the players always hold 18
tiles, and once the six 3/4 tiles are taken a player whose lowest tile is a 2 gains nothing."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from scenario import ids, saved_and_loaded
from test_stone_age_rules import new_game, place, play_on

from engine.runtime import session
from engine.runtime.game import Game

TILES = {1: 2, 2: 1, 3: 4, 4: 3}  # a side and the other side of its tile


def give_tiles(game, player, values):
    """Hand a player tiles showing `values`, as the supply would: a tile showing its upper side (2 or 4) is
    taken from the supply showing its lower side and turned over, so every tile stays one card in play."""
    for value in values:
        lower = min(value, TILES[value])
        tile = next(n for n in game.state["zones"]["tool_supply"] if game.rules.instances[n] == f"tool_{lower}")
        game.move(tile, f"tools:{player}")
        if value != lower:
            game.move(tile, "tool_sides")
            other = next(n for n in game.state["zones"]["tool_sides"] if game.rules.instances[n] == f"tool_{value}")
            game.move(other, f"tools:{player}")


def tiles(game, zone):
    return Counter(int(card.removeprefix("tool_")) for card in ids(game, zone))


def tiles_in_play(game):
    """The sides showing, in the supply and in the players' tools: one per tile."""
    shown = tiles(game, "tool_supply")
    for player in game.state["players"]:
        shown += tiles(game, f"tools:{player}")
    return shown


def assert_eighteen_tiles(game):
    shown = tiles_in_play(game)
    assert shown[1] + shown[2] == 12 and shown[3] + shown[4] == 6, shown
    hidden = tiles(game, "tool_sides")
    assert all(hidden[TILES[value]] == shown[value] for value in TILES), (shown, hidden)


def visit_tool_maker(players, prepare):
    game = new_game(players)
    prepare(game)
    game = saved_and_loaded(game)
    place(game, "Tool maker")
    play_on(game, lambda g: g.state["turn"]["number"] == 2 or g.over)
    return game


def test_the_supply_holds_eighteen_tiles_showing_their_lower_sides():
    """ "Supply": 18 tool tiles; a new tool is a tile of 1 ("Tools")."""
    game = new_game(4)
    assert tiles(game, "tool_supply") == Counter({1: 12, 3: 6})
    assert tiles(game, "tool_sides") == Counter({2: 12, 4: 6})
    assert_eighteen_tiles(game)


@pytest.mark.parametrize(
    "before, after",
    [
        ([], [1]),  # the 1st tool: a new tile of 1
        ([1, 1, 1], [1, 1, 2]),  # the 4th: a 1 turned over to its 2
        ([2, 2, 2], [2, 2, 3]),  # the 7th: a 2 replaced with a 3 from the supply
        ([3, 3, 3], [3, 3, 4]),  # the 10th: a 3 turned over to its 4
        ([4, 4, 4], [4, 4, 4]),  # the 13th: nothing more
    ],
)
def test_each_tool_is_a_new_tile_or_an_upgrade_of_one(before, after):
    """ "Tools": 1st-3rd new tiles of 1, 4th-6th a 1 into a 2, 7th-9th a 2 into a 3, 10th-12th a 3 into a 4;
    the tiles stay 18 whatever happens."""
    game = visit_tool_maker(2, lambda g: give_tiles(g, "P1", before))
    assert sorted(tiles(game, "tools:P1").elements()) == after
    assert_eighteen_tiles(game)


def test_a_two_goes_back_to_the_supply_as_a_one():
    """ "Tools": the 7th-9th tools replace a 2 with a 3; the 2 returns to the supply (showing 1)."""
    game = visit_tool_maker(2, lambda g: give_tiles(g, "P1", [2, 2, 2]))
    assert tiles(game, "tool_supply") == Counter({1: 10, 3: 5})


def test_no_three_left_means_no_tool():
    """The limit that follows from 6 tiles of 3/4: when the other players hold them all, a player whose
    lowest tile is a 2 gains nothing at the tool maker (placeholder: the reference does not say)."""

    def prepare(game):
        give_tiles(game, "P1", [2, 2, 2])
        give_tiles(game, "P2", [3, 3, 4])
        give_tiles(game, "P3", [4, 4, 3])

    game = visit_tool_maker(4, prepare)
    assert sorted(tiles(game, "tools:P1").elements()) == [2, 2, 2]
    assert tiles(game, "tool_supply")[3] == 0
    assert any("No better tool tile" in str(entry) for entry in game.state["log"])
    assert_eighteen_tiles(game)


def test_the_six_threes_are_shared_by_all_players():
    """With a 3 left, the same player at the same place gets it: the limit is the supply, not the player."""

    def prepare(game):
        give_tiles(game, "P1", [2, 2, 2])
        give_tiles(game, "P2", [3, 3, 4])
        give_tiles(game, "P3", [4, 4])

    game = visit_tool_maker(4, prepare)
    assert sorted(tiles(game, "tools:P1").elements()) == [2, 2, 3]
    assert_eighteen_tiles(game)


@pytest.mark.parametrize("seed", [0, 1])
def test_random_games_keep_the_eighteen_tiles(seed):
    """Whatever a game does with tools (the tool maker, dice for everyone, the art card), the tiles stay 18."""
    game = Game.new(new_game(4).rules, 4, seed)
    session.play_randomly(game, random.Random(seed), after=assert_eighteen_tiles)
    assert game.over
