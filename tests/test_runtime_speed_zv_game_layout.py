"""A game's attributes kept in CPython's shared layout (issue 16): at most 30 of them (CPython 3.11's most for a shared
layout; 28 and an imagined game's `log`, test_runtime_speed_zu_greedy_options.py), the same in every game, and never read through the game's `__dict__` (log_words.seat_bits and lines_for,
Game._take_tables read and set them as attributes). Either would make every read of an attribute of the game slower:
a game whose `__dict__` is read keeps its attributes in a dict of their own, which the interpreter's fast reads of an
attribute (specialised for the shared layout) give up on."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest

from engine.runtime import agents
from engine.runtime.game import Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

CONTENT = Path(__file__).resolve().parents[1] / "content"
SHARED_LAYOUT_MOST = 30  # CPython 3.11: SHARED_KEYS_MAX_SIZE


class _Watched(Game):
    """A game that fails a test when anything reads its `__dict__` (`vars` included); its attributes are set and read
    as any game's."""

    @property
    def __dict__(self):
        raise AssertionError("a game's __dict__ is read")


@pytest.mark.parametrize(("pack", "players"), [("cro-magnon", 4), ("neolithibum", 3), ("stone-age-mammoth-herd", 2)])
def test_a_game_played_never_reads_its_dict(pack, players):
    """Played at random, its log read by a player and by a spectator (log_words.lines_for), cloned: fails with a read
    of the game's `__dict__`."""
    game = _Watched.new(load(CONTENT / pack), players, 1)
    play_randomly(game, random.Random(1))
    assert game.log_for("P1") and game.log_for(None)
    assert type(game.clone()) is _Watched


def test_a_greedy_game_never_reads_its_dict():
    """The greedy agent's look-ahead clones the game at each answer (Game._take_tables)."""
    game = _Watched.new(load(CONTENT / "cro-magnon"), 2, 2)
    bots = {p: agents.make("greedy", 2 * 31 + i) for i, p in enumerate(game.state["players"])}
    for _ in range(40):
        player = game.decision.players[0]
        legal = game.legal(player)
        model = functools.partial(game.determinized, player, len(game.state["history"]))
        game.apply(bots[player].act({"you": player}, legal, model), player)


def test_every_game_has_the_same_attributes_and_no_more_than_a_shared_layout_holds():
    """A new game, one played, a clone and a loaded one: the same attributes in the same order, at most 30."""
    rules = load(CONTENT / "cro-magnon")
    game = Game.new(rules, 4, 3)
    new = list(vars(game))
    play_randomly(game, random.Random(3), limit=300)
    for other in (game, game.clone(), Game.load(rules, game.save())):
        assert list(vars(other)) == new
    assert len(new) <= SHARED_LAYOUT_MOST
