"""The legal answers of a decision are worked out once for it (Game._live_now, Game._legal_now) and kept with
all they are worked out from: a new decision, a dead end more (in place or a new list), an option more, each
gives the answers worked out afresh; what the game hands out is a copy no caller can spoil."""

from __future__ import annotations

import random

from scenario import ruleset

from engine.runtime.game import Game
from engine.runtime.protocol import allowed_for
from engine.runtime.session import play_randomly
from engine.runtime.undo import live_options


def _fresh(game, player):
    """The legal answers of `player`, worked out without anything kept."""
    pending = game.state["pending"]
    return allowed_for(pending, player, live_options(game, pending))


def _at_menu():
    """A Cro-Magnon game at a turn's menu of several actions, nothing under way."""
    game = Game.new(ruleset("cro-magnon"), 4, 3)
    rnd = random.Random(3)
    for _ in range(500):
        pending = game.state["pending"]
        if pending["kind"] == "action" and game.state["attempt"] is None and len(game.legal()) > 2:
            return game
        play_randomly(game, rnd, limit=1)
    raise AssertionError("no menu of several actions")


def test_a_dead_end_more_is_seen_whether_added_in_place_or_as_a_new_list():
    game = _at_menu()
    player = game.state["pending"]["by"][0]
    before = game.legal(player)
    game.state["dead"].append([before[0]])  # in place: the same list, one longer
    assert game.legal(player) == _fresh(game, player) == before[1:]
    assert game.decision.legal == before[1:]
    game.state["dead"] = [[before[1]]]  # a new list, as undo.fail makes it
    assert game.legal(player) == _fresh(game, player) == [before[0], *before[2:]]


def test_a_new_decision_or_an_option_more_is_worked_out_afresh():
    game = _at_menu()
    player = game.state["pending"]["by"][0]
    before = game.legal(player)
    game.state["pending"]["options"].append(game.state["pending"]["options"][-1])
    assert game.legal(player) == _fresh(game, player) == [*before, len(before)]
    game.state["pending"] = {**game.state["pending"], "options": game.state["pending"]["options"][:2]}
    assert game.legal(player) == _fresh(game, player) == [0, 1]


def test_what_callers_get_is_theirs_to_change():
    game = _at_menu()
    player = game.state["pending"]["by"][0]
    before = game.legal(player)
    game.legal(player).clear()
    game.decision.legal.clear()
    assert game.legal(player) == before == game.decision.legal


def test_secret_choices_answer_as_before():
    """A simultaneous decision answered one player after another: each one's answers, kept, are the fresh ones."""
    game = Game.new(ruleset("neolithibum"), 4, 5)
    rnd = random.Random(5)
    checked = 0
    while not game.over and checked < 200:
        decision = game.decision
        for player in decision.players:
            assert game.legal(player) == _fresh(game, player)
        checked += decision.kind == "secret"
        play_randomly(game, rnd, limit=1)
    assert checked >= 50
