"""The answer path and the undo snapshot made cheaper (issue 16), each part held to what it replaced:

- the turn's menu (`driver._on_menu`) tests the actions in one loop over the plan: the very actions `refusal` finds
  nothing against, in the pack's order, at every decision of seeded games;
- `state.copy_state` (copies.py) works out once per shape of state (its keys, `shared`, `skip`) which part goes where
  (`_copy_plan`): a state of another shape gets its own plan, never another's;
- the phases pushed at each moment of the turn are worked out once per pack (`TurnPlan.pushed_at`);
- `interpreter.advance` answers a decision with one option and no dead end known without working out its live
  options: whole games end as before (tools/same_games.py), and a dead end known still goes the long way.
"""

from __future__ import annotations

import random

import pytest
from scenario import ruleset

from engine.runtime import copies, driver
from engine.runtime.context import Ctx
from engine.runtime.game import Game
from engine.runtime.session import play_randomly
from engine.runtime.state import copy_state, plain_copy


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_menu_offers_what_refusal_allows_in_the_packs_order(seed):
    rules = ruleset("cro-magnon")
    plan = driver.turn_plan(rules)
    checked = 0

    def check(game):
        nonlocal checked
        if game.state["stage"] != "main" or game.over:
            return
        me = game.turn_player
        expected = [a for a, _ in plan.offered if driver.refusal(game, a, me) is None]
        assert driver._on_menu(game, plan, me, Ctx(game, {}, me, None)) == expected
        checked += 1

    game = Game.new(rules, 4, seed)
    play_randomly(game, random.Random(seed), after=check, limit=250)
    assert checked > 100


def test_limits_and_whole_turn_actions_leave_the_menu_as_refusal_says():
    """An action taken once this turn (once_per_turn), once this game (once_per_game), a whole-turn action after
    something was done, and costs not payable: each left off exactly when `refusal` gives a reason."""
    rules = ruleset("cro-magnon")
    plan = driver.turn_plan(rules)
    game = Game.new(rules, 4, 0)
    me = game.turn_player
    for acted, spent in ((False, False), (True, False), (True, True)):
        game.state["turn"]["acted"] = acted
        for action_id, check in plan.offered:
            if check[2] == "once_per_turn":
                game.state["turn"]["used"][action_id] = 1
            elif check[2] == "once_per_game":
                game.state["used"][me][action_id] = 1
        if spent:
            for counter in game.state["counters"][me]:
                if not isinstance(game.state["counters"][me][counter], dict):
                    game.state["counters"][me][counter] = 0
        expected = [a for a, _ in plan.offered if driver.refusal(game, a, me) is None]
        assert driver._on_menu(game, plan, me, Ctx(game, {}, me, None)) == expected
    assert expected == [] or all(driver.refusal(game, a, me) is None for a in expected)


def test_a_state_of_another_shape_is_copied_by_its_own_plan():
    """The plan is keyed by the state's keys, `shared` and `skip`: after copying a game's state, a state with a key
    more, one less, or in another order is copied with its own keys, in its own order."""
    real = Game.new(ruleset("cro-magnon"), 2, 0).state
    for data in (
        real,
        {**real, "extra": {"x": [1]}},
        {k: v for k, v in real.items() if k != "orient"},
        dict(reversed(real.items())),
        {"a": [1], "zones": {"x": [1, 2]}},
    ):
        for shared, skip in (((), ()), (("params",), ("log", "history")), (("zones", "loc"), ("orient",))):
            copied = copy_state(data, shared=shared, skip=skip)
            assert list(copied) == [k for k in data if k not in skip]
            for key in copied:
                if key in shared:
                    assert copied[key] is data[key]
                else:
                    assert copied[key] == plain_copy(data[key])
                    assert copied[key] is not data[key] or not isinstance(data[key], (list, dict))


def test_the_copy_plans_are_bounded():
    for n in range(copies._MOST_PLANS + 5):
        copy_state({f"k{n}": [n]})
    assert len(copies._COPY_PLANS) <= copies._MOST_PLANS


def test_the_phases_pushed_at_a_moment_are_worked_out_once_in_the_order_they_run():
    rules = ruleset("cro-magnon")
    plan = driver.turn_plan(rules)
    frames = plan.pushed_at(rules, ("setup", "game_start"))
    assert plan.pushed_at(rules, ("setup", "game_start")) is frames
    runs = [key for key, _ in reversed(frames)]  # pushed last to first: run first to last
    expected = [
        f"phase/{phase['id']}/effect" for when in ("setup", "game_start") for phase in rules.phases.get(when, [])
    ]
    assert runs == [key for key in expected if key in runs] and len(runs) == len(
        [p for when in ("setup", "game_start") for p in rules.phases.get(when, []) if p.get("effect")]
    )
    assert all(nobodys for _, nobodys in frames)  # setup and game_start are nobody's turn
    turn_start = plan.pushed_at(rules, ("turn_start",))
    assert not any(nobodys for _, nobodys in turn_start)


def test_a_single_option_with_a_dead_end_known_still_fails_the_action():
    """With a dead end known, the one option of a decision may be dead: `advance` works out the live options then,
    and an action under way whose question has none left is undone (undo.fail), as before."""
    rules = ruleset("cro-magnon")
    game = Game.new(rules, 4, 0)
    rnd = random.Random(0)
    while not (game.state["attempt"] is not None and game.state["pending"]["kind"] == "choose"):
        decision = game.decision
        if decision.is_chance:
            game.apply_chance()
            continue
        legal = game.legal(decision.players[0])
        game.apply(legal[rnd.randrange(len(legal))], decision.players[0])
    attempt, pending = game.state["attempt"], game.state["pending"]
    action = attempt["action"]
    pending["options"] = pending["options"][:1]
    game.state["dead"] = [[*attempt["path"], 0]]  # its one option known to lead to a dead end
    game._advance()
    assert (
        game.state["attempt"] is None
        or game.state["attempt"]["action"] != action
        or len(game.state["attempt"]["path"]) < len(attempt["path"])
    )
    assert action in game.state["undone"]
    assert any("takes back" in str(entry) for entry in game.state["log"][-3:])


def test_the_random_streams_are_copied_apart_and_deep():
    """`rng` (stream -> an integer state) is copied as a dict, not by marshal: a copy that shares nothing with the
    state; one holding anything but integers (a state built by hand) goes through marshal, deep all the same."""
    real = Game.new(ruleset("cro-magnon"), 2, 0).state
    assert real["rng"]
    copied = copy_state(real)
    assert copied["rng"] == real["rng"] and copied["rng"] is not real["rng"]
    odd = {**real, "rng": {"dice": [1, 2]}}
    copied = copy_state(odd)
    assert copied["rng"] == {"dice": [1, 2]} and copied["rng"]["dice"] is not odd["rng"]["dice"]
    assert list(copied) == list(odd)
