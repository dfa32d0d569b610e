"""The fixed cost of each answer (issue 16): `Game._live_now` answers a repeat ask of the same decision with no dead
end known from the decision and its number of options alone, and works the live options out afresh on each change
its docstring lists; `apply_chance` draws the outcome once, on the game's own stream, and puts the stream back when
that outcome is not taken; `Ruleset.in_rounds` is read from the manifest as the pack is built. Each test fails if
its mechanism skips an invalidation or moves the stream differently from the draw-twice way it replaces."""

from __future__ import annotations

import random

import pytest
from scenario import ruleset

from engine.runtime.errors import GameError, Stalled
from engine.runtime.game import CHANCE, Game
from engine.runtime.protocol import allowed_for
from engine.runtime.rng import Streams
from engine.runtime.session import play_randomly
from engine.runtime.undo import live_options


def _fresh(game, player):
    """The legal answers of `player`, worked out without anything kept."""
    pending = game.state["pending"]
    return allowed_for(pending, player, live_options(game, pending))


def _inside_an_action(pack="cro-magnon", seed=3):
    """A game waiting for one player's answer inside an action under way, of several options, no dead end known."""
    game = Game.new(ruleset(pack), 4, seed)
    rnd = random.Random(seed)
    while not game.over:
        pending, attempt = game.state["pending"], game.state["attempt"]
        if (
            attempt is not None
            and not game.state["dead"]
            and pending["kind"] not in ("action", "secret", "bid")
            and len(game.legal()) > 1
        ):
            return game
        play_randomly(game, rnd, limit=1)
    raise AssertionError("no question of several answers inside an action")


def test_a_dead_end_added_in_place_to_the_empty_list_counts():
    """Kept with no dead end known, then the same (empty) list of dead ends appended to: the answers are worked
    out again, and again when it is emptied in place."""
    game = _inside_an_action()
    player = game.state["pending"]["by"][0]
    everything = game.legal(player)
    dead, path = game.state["dead"], game.state["attempt"]["path"]
    dead.append([*path, everything[0]])
    assert game.legal(player) == _fresh(game, player) == everything[1:]
    dead.clear()
    assert game.legal(player) == _fresh(game, player) == everything


def test_an_option_added_in_place_counts_with_and_without_dead_ends():
    game = _inside_an_action()
    pending = game.state["pending"]
    player = pending["by"][0]
    everything = game.legal(player)
    pending["options"].append(pending["options"][-1])
    assert game.legal(player) == _fresh(game, player) == [*everything, len(everything)]
    game.state["dead"] = [[*game.state["attempt"]["path"], everything[0]]]
    assert game.legal(player) == _fresh(game, player)
    pending["options"].append(pending["options"][-1])
    assert game.legal(player) == _fresh(game, player) == [*everything[1:], len(everything), len(everything) + 1]


def test_a_new_decision_equal_to_the_last_is_worked_out_afresh():
    """A copy of the decision with fewer options: kept by identity, so the copy's own options are read."""
    game = _inside_an_action()
    pending = game.state["pending"]
    player = pending["by"][0]
    everything = game.legal(player)
    game.state["pending"] = {**pending, "options": pending["options"][:-1]}
    assert game.legal(player) == _fresh(game, player) == everything[:-1]


def _chance_games(seed):
    """Two Stone Age games of the same seed, each with its first chance decision pending."""
    games = []
    for _ in range(2):
        game = Game.new(ruleset("stone-age"), 4, seed)
        rnd = random.Random(seed)
        while game.state["pending"]["by"] != [CHANCE]:
            play_randomly(game, rnd, limit=1)
        games.append(game)
    return games


@pytest.mark.parametrize("seed", [0, 1])
def test_apply_chance_answers_as_the_draw_made_twice_did(seed):
    """Chance answered once by `apply_chance` and once the old way (the outcome peeked on a copy of the streams,
    then drawn again by `apply`): the same answers, streams and states, decision after decision."""
    game, old_way = _chance_games(seed)
    rnd_a, rnd_b = random.Random(seed), random.Random(seed)
    chances = 0
    while not game.over and chances < 30:
        pending = game.state["pending"]
        if pending["by"] == [CHANCE]:
            chances += 1
            game.apply_chance()
            peek = Streams(dict(old_way.state["rng"]), old_way.state["seed"])
            old_way.apply(peek.weighted(f"chance:{pending.get('stream', 'dice')}", pending["probs"]), CHANCE)
        else:
            play_randomly(game, rnd_a, limit=1)
            play_randomly(old_way, rnd_b, limit=1)
        assert game.state == old_way.state
    assert chances == 30


def test_an_outcome_not_taken_leaves_the_stream_as_it_was():
    """The first roll of the game (its stream not yet in the state): a drawn outcome that is not a legal answer
    raises as `apply` does and leaves no trace of the draw; so does an answer past the turn's limit."""
    game, _ = _chance_games(0)
    pending = game.state["pending"]
    before = game.save()
    assert "chance:dice" not in game.state["rng"]
    game.state["pending"] = {**pending, "probs": [0] * (len(pending["probs"]) - 1) + [1]}
    game.state["pending"]["options"] = pending["options"][:-1]  # the outcome drawn is no option
    with pytest.raises(GameError) as raised:
        game.apply_chance()
    assert raised.value.code == "X204" and "chance:dice" not in game.state["rng"]
    game.state["pending"] = pending
    assert game.save() == before
    game.max_answers_per_turn = 0
    with pytest.raises(Stalled):
        game.apply_chance()
    assert game.save() == before
    game.max_answers_per_turn = None
    game.apply_chance()
    assert "chance:dice" in game.state["rng"] and game.history[-1][0] == CHANCE


def test_in_rounds_follows_the_manifest():
    assert ruleset("stone-age").in_rounds is True
    assert ruleset("cro-magnon").in_rounds is False
    assert ruleset("stone-age-mammoth-herd").in_rounds is True  # inherited from the pack it extends
