"""The protocol's fixed cost per answer (issue 16): the legal answers of a decision are kept under one key
(Game._live_now) that holds the pending decision, its number of options and, only when dead ends are known, the
dead ends and the answers so far of the action under way; the turn's menu asks each action's checks once
(driver._refusal), as `refusal` does for a view. Each test fails if the key leaves out something it must hold."""

from __future__ import annotations

import copy
import random

from scenario import ruleset

from engine.runtime import driver
from engine.runtime.game import Game
from engine.runtime.protocol import END_TURN, allowed_for
from engine.runtime.session import play_randomly
from engine.runtime.undo import live_options


def _fresh(game, player):
    """The legal answers of `player`, worked out without anything kept."""
    pending = game.state["pending"]
    return allowed_for(pending, player, live_options(game, pending))


def _playing(pack, seed, players=4):
    """Each state of a seeded random game, the game answered one step further each time."""
    game = Game.new(ruleset(pack), players, seed)
    rnd = random.Random(seed)
    while not game.over:
        yield game
        play_randomly(game, rnd, limit=1)


def _inside_an_action(pack="cro-magnon"):
    """A game waiting for one player's answer inside an action under way, of several options."""
    for game in _playing(pack, 3):
        pending, attempt = game.state["pending"], game.state["attempt"]
        if attempt is not None and pending["kind"] not in ("action", "secret", "bid") and len(game.legal()) > 1:
            return game
    raise AssertionError("no question of several answers inside an action")


def test_answers_so_far_count_when_dead_ends_are_known():
    """With a dead end known, the action's path appended to in place (the same pending decision and the same
    list of dead ends) gives the answers worked out afresh."""
    game = _inside_an_action()
    player = game.state["pending"]["by"][0]
    everything = game.legal(player)
    path = game.state["attempt"]["path"]
    game.state["dead"] = [[*path, everything[0]]]  # the first answer, from here, leads to a dead end
    assert game.legal(player) == _fresh(game, player) == everything[1:]
    path.append(everything[0])  # another point of the action: that dead end is not this question's
    assert game.legal(player) == _fresh(game, player) == everything
    path.pop()
    assert game.legal(player) == _fresh(game, player) == everything[1:]


def test_without_dead_ends_the_path_does_not_matter():
    game = _inside_an_action()
    player = game.state["pending"]["by"][0]
    everything = game.legal(player)
    game.state["attempt"]["path"].append(0)
    assert game.legal(player) == _fresh(game, player) == everything


def test_an_equal_copy_of_the_decision_answers_the_same_and_a_changed_one_afresh():
    """A secret choice whose players may each pick among their own options (`allowed`): a copy equal to it has
    the same answers; a copy in which one player's own options changed has that player's new ones."""
    game = next(g for g in _playing("neolithibum", 5) if g.state["pending"]["kind"] == "secret")
    pending = game.state["pending"]
    players = list(pending["by"])
    before = {p: game.legal(p) for p in players}
    game.state["pending"] = copy.deepcopy(pending)
    assert {p: game.legal(p) for p in players} == before == {p: _fresh(game, p) for p in players}
    changed = copy.deepcopy(pending)
    who = next(p for p in players if len(before[p]) > 1)
    changed.setdefault("allowed", {})[who] = before[who][1:]
    game.state["pending"] = changed
    assert game.legal(who) == _fresh(game, who) == before[who][1:]


def test_the_menu_offers_what_refusal_allows():
    """Every menu just worked out (no dead end known yet) offers exactly the actions `refusal` finds nothing
    against, in the pack's order, and "end turn" exactly when `end_refusal` allows it."""
    menus = 0
    for pack, players in (("cro-magnon", 4), ("cro-magnon", 2), ("cro-magnon-solo", 1)):
        for seed in (0, 1):
            for game in _playing(pack, seed, players):
                state = game.state
                pending = state["pending"]
                if pending is None or pending["kind"] != "action" or state["attempt"] is not None or state["dead"]:
                    continue
                me = pending["by"][0]
                plan = driver.turn_plan(game.rules)
                allowed = [a for a, _ in plan.offered if driver.refusal(game, a, me) is None]
                if driver.end_refusal(game, me) is None:
                    allowed.append(END_TURN)
                assert pending["options"] == allowed, (pack, seed, state["turn"]["number"])
                menus += 1
    assert menus >= 150
