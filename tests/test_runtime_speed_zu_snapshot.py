"""The undo snapshot made cheaper (issue 16), held to the old start_action, which copied all but the parameters and the
menu: the same states (the snapshot under way included) after every answer, undos included; and every snapshot taken
keeps what it held to the end of the game, whatever the state goes through in place.

- The zones copied on write: `driver.start_action` keeps the state's zone lists in a map of the snapshot's own
  (`Table.sharing_snapshot`) instead of copying each, and a list the snapshot holds is copied before the state
  changes it (`Table.move`, `Table.own_zone`: a shuffle, a refill, a slide);
- the counters the same way, by owner: the state's maps of numbers in a map of the snapshot's own, a map copied before
  a number of it is set (`Table.set_counter`, `Table._own_counters`);
- `known` (seats that know where a card lies): the snapshot's own map of the state's lists, which nothing changes in
  place (log_words.remember replaces one);
- the turn and the actions used: the snapshot keeps the state's maps, and the state takes new ones of what the start
  changes (the turn, its actions used, the player's actions used), so that no map a snapshot holds is changed again."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest
from lockstep import play_side_by_side, swapped_in

from engine.runtime import agents, driver, interpreter, places, undo
from engine.runtime.game import Game
from engine.runtime.rules import load
from engine.runtime.state import copy_state, plain_copy

CONTENT = Path(__file__).resolve().parents[1] / "content"
ACTION_PACKS = (("cro-magnon", 4), ("cro-magnon", 2), ("cro-magnon-solo", 1))  # the packs with a menu of actions


def _start_action_before(g, action_id, pending, answer):
    """driver.start_action before: the snapshot a copy of every zone's list."""
    state = g.state
    me = state["turn"]["player"]
    base, g.undo_base = g.undo_base, None
    if action_id == driver.END_TURN:
        state["turn"]["closing"] = True
        state["dead"], state["undone"] = [], {}
        return
    if base is not None:
        snap = base.copy()
        for key in driver._LEFT_OUT_OF_SNAPSHOT:
            snap.pop(key, None)
    else:
        snap = copy_state(state, shared=("params", "pending"), skip=driver._LEFT_OUT_OF_SNAPSHOT)
    snap["pending"] = pending
    snap["attempt"] = None
    state["attempt"] = {
        "snap": snap,
        "log": len(state["log"]),
        "path": [answer],
        "counts": [len(pending["options"])],
        "action": action_id,
    }
    action = g.rules.actions[action_id]
    for counter, amount in (action.get("cost") or {}).items():
        g.set_counter(me, counter, g.counter(me, counter) - amount)
    state["turn"]["used"][action_id] = state["turn"]["used"].get(action_id, 0) + 1
    state["used"][me][action_id] = state["used"][me].get(action_id, 0) + 1
    g.log(f"{me}: {action.get('name', action_id)}")
    g.push(f"action/{action_id}/effect", me)


def _as_before():
    return swapped_in([(interpreter, "start_action", _start_action_before)])


@pytest.mark.parametrize(("pack", "players"), ACTION_PACKS)
def test_games_go_as_before(pack, players):
    """Random games, answer for answer with the old snapshot: the same state after every answer (the snapshot under
    way included, so one the state's changes reached would differ), the same undos."""
    rules = load(CONTENT / pack)
    for seed in range(3):
        assert play_side_by_side(rules, players, seed, _as_before)["action"] > 10


def _every_snapshot_kept(game: Game, answer) -> int:
    """`game` played to its end by `answer(game)` (an option and its player), every snapshot start_action takes kept
    with a plain copy of it as taken; at the end each must still equal its copy. Returns how many were taken."""
    taken: list[tuple[dict, dict]] = []
    start = interpreter.start_action

    def start_and_keep(g, action_id, pending, option):
        start(g, action_id, pending, option)
        attempt = g.state["attempt"]
        if action_id != driver.END_TURN and g is game:
            taken.append((attempt["snap"], plain_copy(attempt["snap"])))

    with swapped_in([(interpreter, "start_action", start_and_keep)]):
        while not game.over:
            if game.decision.is_chance:
                game.apply_chance()
                continue
            game.apply(*answer(game))
    assert all(snap == copy for snap, copy in taken)
    return len(taken)


@pytest.mark.parametrize("seed", range(3))
def test_every_snapshot_keeps_what_it_held_in_random_games(seed):
    rules = load(CONTENT / "cro-magnon")
    rnd = random.Random(seed)

    def at_random(game):
        player = game.decision.players[0]
        legal = game.legal(player)
        return legal[rnd.randrange(len(legal))], player

    assert _every_snapshot_kept(Game.new(rules, 4, seed), at_random) > 50


def test_every_snapshot_keeps_what_it_held_in_a_greedy_game():
    """The greedy agent's look-ahead gives start_action its imagined state as the snapshot (`undo_base`), now and
    then: the state's lists then stay shared with the snapshot taken before, and the maps made new all the same."""
    rules = load(CONTENT / "cro-magnon")
    game = Game.new(rules, 2, 3)
    bots = {p: agents.make("greedy", 3 * 31 + i) for i, p in enumerate(game.state["players"])}

    def greedily(game):
        player = game.decision.players[0]
        legal = game.legal(player)
        model = functools.partial(game.determinized, player, len(game.state["history"]))
        return bots[player].act({"you": player}, legal, model), player

    assert _every_snapshot_kept(game, greedily) > 20


def _in_an_action(seed: int) -> Game:
    """A 4-player Cro-Magnon game played at random until a decision inside an action, its snapshot taken by a copy
    (not the greedy agent's undo base)."""
    rules = load(CONTENT / "cro-magnon")
    game, rnd = Game.new(rules, 4, seed), random.Random(seed)
    for _ in range(400):
        if game.state["attempt"] is not None and game.decision is not None and game.state["turn"]["number"] > 2:
            return game
        legal = game.legal(game.decision.players[0])
        game.apply(legal[rnd.randrange(len(legal))], game.decision.players[0])
    raise AssertionError("no decision inside an action")


def test_the_snapshot_shares_the_lists_in_a_map_of_its_own():
    """At an action's start the snapshot's zones are a map of its own holding the state's lists (fails with a copy of
    every list); after a move, the two lists it changed are the state's own copies."""
    rules = load(CONTENT / "cro-magnon")
    game, rnd = Game.new(rules, 4, 5), random.Random(5)
    while game.decision.kind != "action" or game.state["turn"]["number"] < 2:
        legal = game.legal(game.decision.players[0])
        game.apply(legal[rnd.randrange(len(legal))], game.decision.players[0])
    state, before = game.state, plain_copy(game.state["zones"])
    lists = dict(state["zones"])
    interpreter.start_action(game, "explore", game.state["pending"], 0)
    snap = state["attempt"]["snap"]["zones"]
    assert snap is not state["zones"] and game.sharing_snapshot is state["attempt"]["snap"]
    assert all(snap[key] is cards for key, cards in lists.items())
    card = next(card for card in state["zones"]["forest"])
    game.move(card, "_removed")
    assert state["zones"]["forest"] is not snap["forest"] and state["zones"]["_removed"] is not snap["_removed"]
    assert snap == before
    assert card in state["zones"]["_removed"] and card not in state["zones"]["forest"]


@pytest.mark.parametrize("seed", range(4))
def test_the_snapshot_keeps_what_it_held(seed):
    """Inside an action, every zone changed in place by the ways the engine changes one (moves, a shuffle's and a
    slide's `own_zone`): the snapshot as it was, and an undo puts back its zones."""
    game = _in_an_action(seed)
    state = game.state
    snap = state["attempt"]["snap"]
    held = plain_copy(snap)
    for key in list(state["zones"]):
        game.own_zone(key).reverse()
    for card in [card for card in state["zones"]["forest"] if card is not None][:3]:
        game.move(card, "_removed")
    places.slide(game, next(key for key in state["zones"] if game.slotted(key)), None)
    assert snap == held
    assert all(state["zones"][key] is not cards for key, cards in snap["zones"].items())
    undo.fail(game, "test")
    assert state["zones"] == held["zones"] and state["loc"] == held["loc"]
    assert all(state["zones"][key] is not cards for key, cards in snap["zones"].items())


def test_a_clone_and_an_undone_state_hold_lists_of_their_own():
    """A clone mid-action and the state an undo puts back share no list with the snapshot: changing them in place,
    as `move` does once it found no list to copy, leaves the snapshot as it was."""
    game = _in_an_action(7)
    snap = game.state["attempt"]["snap"]
    held = plain_copy(snap)
    clone = game.clone()
    assert clone.sharing_snapshot is None
    for cards in clone.state["zones"].values():
        cards.append(-1)
    undo.fail(game, "test")
    for cards in game.state["zones"].values():
        cards.append(-1)
    assert snap == held


def test_the_start_gives_the_state_new_maps_of_what_it_changes():
    """The snapshot holds the turn and the actions used the state held (fails with a copy of them), the state new ones
    counting the action, the other players' maps of actions used shared (nothing changes them)."""
    rules = load(CONTENT / "cro-magnon")
    game, rnd = Game.new(rules, 4, 2), random.Random(2)
    while game.decision.kind != "action" or game.state["turn"]["number"] < 2:
        legal = game.legal(game.decision.players[0])
        game.apply(legal[rnd.randrange(len(legal))], game.decision.players[0])
    state = game.state
    turn, used, me = state["turn"], state["used"], state["turn"]["player"]
    before = plain_copy({"turn": turn, "used": used})
    interpreter.start_action(game, "explore", state["pending"], 0)
    snap = state["attempt"]["snap"]
    assert snap["turn"] is turn and snap["used"] is used and snap["turn"]["used"] is turn["used"]
    assert {"turn": turn, "used": used} == before
    assert state["turn"] is not turn and state["turn"]["used"] is not turn["used"] and state["used"][me] is not used[me]
    assert state["turn"]["used"]["explore"] == turn["used"].get("explore", 0) + 1
    assert state["used"][me]["explore"] == used[me].get("explore", 0) + 1
    assert all(state["used"][p] is used[p] for p in used if p != me)


def test_the_snapshot_shares_the_counters_until_one_is_set():
    """At an action's start the snapshot's counters are a map of its own holding the state's maps by owner (fails with
    a copy of them); the action's cost, then any number set, gives the owner a copy and leaves the snapshot as it was;
    an undo puts back its numbers."""
    game = _in_an_action(11)
    state = game.state
    snap = state["attempt"]["snap"]
    held = plain_copy(snap)
    me = state["turn"]["player"]
    assert game.sharing_snapshot is snap and snap["counters"] is not state["counters"]
    assert snap["known"] is not state["known"]
    assert state["counters"][me] is not snap["counters"][me]  # its action's cost is paid
    players = game.state["players"]
    for owner in players:
        game.set_counter(owner, "vp", game.counter(owner, "vp") + 3)
    assert all(state["counters"][owner] is not snap["counters"][owner] for owner in players)
    assert state["counters"]["table"] is snap["counters"]["table"]  # none of its numbers was set
    assert snap == held
    undo.fail(game, "test")
    assert state["counters"] == held["counters"]
