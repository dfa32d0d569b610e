"""End triggers that count zones, kept quiet (issue 16): `driver._check_end` no longer tests again a trigger that reads
only counters by name and zones' lengths (`count(ZONE(me))`, `count(ZONE)` of a zone without places: end_checks.py)
while those numbers and lengths are those with which every trigger was last found false; the work those tests charged
(a count pays the zone's length) is kept at the end of the key and charged again instead, unless it would run the
answer out of work, when the tests are made and run out where they do. Neolithibum's `count(skull(me)) >= ...` was
tested for every player after every action.

Held to the check of before, which tests every such trigger for every player at every check: the same games, answer
for answer, with the same work left (`test_games_play_as_with_every_trigger_tested`); the same error, at the same
place, and the same work left when the work runs out at a check (`test_a_check_that_would_run_out_of_work_tests`).
"""

from __future__ import annotations

import random

import pytest
from conftest import tiny_manifest, write_tree
from lockstep import play_side_by_side, swapped_in
from scenario import ruleset
from test_runtime_speed_zm_projection import triggers_tested_as_before

from engine.runtime import driver, end_checks, functions
from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly


# ---------------------------------------------------------------- the oracle: the check before this step
def _check_end_as_before(g, plan=None):
    """driver._check_end before this step, word for word, but for the plan it reads: triggers that count zones had no
    key then (`trigger_reads` None), and were tested at every check."""
    state = g.state
    plan = plan or driver.turn_plan(g.rules)
    reads, quiet = (plan.trigger_reads if not plan.trigger_zones else None), None
    if reads is not None and not state.get("out"):
        counters = state["counters"]
        quiet = [*counters]
        try:
            for read in reads:
                quiet += map(dict.get, counters.values(), *read)
        except TypeError:
            quiet = [*counters]
            for counter, absent in reads:
                quiet += [values.get(next(counter), next(absent)) for values in counters.values()]
        if quiet == g.ends_quiet:
            return
    triggers_tested_as_before(g, plan, state, quiet)


def _as_before():
    return swapped_in([(driver, "_check_end", _check_end_as_before)])


def _spied(plan, calls: list):
    """`plan` with each trigger noting the player it is tested for in `calls`."""
    spied = driver.TurnPlan.__new__(driver.TurnPlan)
    spied.trigger_reads, spied.trigger_zones = plan.trigger_reads, plan.trigger_zones
    spied.triggers = tuple((rule, lambda c, t=t: calls.append(c.me) or t(c)) for rule, t in plan.triggers)
    return spied


def _midway(pack="neolithibum", players=4, seed=0, answers=120) -> Game:
    """A game of `pack` some answers in, at a decision, with no end triggered and some skull pieces placed."""
    game = Game.new(ruleset(pack), players, seed)
    play_randomly(game, random.Random(seed), limit=answers)
    assert not game.over and game.state["ending"] is None
    return game


def _skull(game, player) -> list:
    return game.state["zones"][f"skull:{player}"]


# ---------------------------------------------------------------- what a trigger provably reads
def _pack(tmp_path, trigger: str):
    """A small pack whose one end rule has `trigger`: a `target` parameter, a player counter, a table counter, a deck
    of 12 cards, a hand each, rows with places, a pack function; its one action draws a card and gains 1 vp."""
    manifest = tiny_manifest() + "parameters:\n  target: {default: 3}\n"
    rules = (
        "kind: counter\nid: vp\nname: VP\nowner: player\n---\n"
        "kind: counter\nid: pool\nname: Pool\nowner: table\n---\n"
        "kind: zone\nid: deck\nname: Deck\ntype: deck\n---\n"
        "kind: zone\nid: hand\nname: Hand\ntype: hand\nowner: player\n---\n"
        "kind: zone\nid: row\nname: Row\ntype: row\nslots: 3\n---\n"
        "kind: zone\nid: mat\nname: Mat\ntype: row\nowner: player\nslots: 2\n---\n"
        "kind: function\nid: cards_of\nparams: [who]\nbody: hand(who)\n---\n"
        "kind: card\nid: bead\nname: Bead\ntype: gem\ndeck: deck\ncopies: 12\n---\n"
        f"kind: end\nid: goal\nname: Goal\ntrigger: {trigger}\nthen: immediate\nresult: most\ncounter: vp\n"
        "---\nkind: action\nid: act\nname: Act\neffect: |\n  draw 1 from deck to hand\n  gain 1 vp\n"
    )
    return load(write_tree(tmp_path / "pack", {"pack.yaml": manifest, "rules.yaml": rules}))


@pytest.mark.parametrize(
    ("trigger", "counters", "zones"),
    [
        ("count(hand(me)) >= target", set(), {("hand", True)}),
        ("count(deck) < 2", set(), {("deck", False)}),
        ("count(hand(me)) > 0 or me.vp >= 3", {"vp"}, {("hand", True)}),
        ("not (count(deck) = 0) and pool > 1", {"pool"}, {("deck", False)}),
        ("me.vp >= 3", {"vp"}, set()),
        ("count(row) >= 2", None, None),  # a row with places: its count is not its list's length
        ("count(mat(me)) >= 2", None, None),
        ("count(hand(current)) >= 3", None, None),  # another player's zone
        ("count(hand) >= 3", None, None),  # a player's zone without a player: an error, not a length
        ("count(cards_of(me)) >= 3", None, None),  # a pack function
        ("count(hand(me) where true) >= 1", None, None),
        ("count(hand(me)) = target", None, None),  # `=` of two values either of which may be a list
    ],
)
def test_what_a_trigger_provably_reads_zones_included(tmp_path, trigger, counters, zones):
    """Fails without this step (no zone was proven): the counters and the zones a trigger reads, or None."""
    rules = _pack(tmp_path, trigger)
    found = end_checks.inputs_read(rules, trigger)
    assert found == (None if counters is None else (counters, zones))
    assert end_checks.counters_read(rules, trigger) == (counters if not zones else None)  # (as before: counters only)
    plan = driver.turn_plan(rules)
    assert plan.trigger_zones == (None if zones is None else tuple(sorted(zones)))
    assert (plan.trigger_reads is None) == (counters is None)


def test_a_spy_of_count_is_never_read_as_a_length(tmp_path, monkeypatch):
    """`count` replaced (a test's spy) is not the `_count` whose work is a zone's length: nothing proven."""
    monkeypatch.setitem(functions.BUILTINS, "count", lambda c, items: 0)
    assert end_checks.inputs_read(_pack(tmp_path, "count(deck) < 2"), "count(deck) < 2") is None


# ---------------------------------------------------------------- the shortcut and what it charges
def test_a_quiet_check_tests_no_trigger_and_charges_their_work():
    """Fails without this step: the second check in a row tests no trigger, and charges what the first one's tests
    charged (each player's skull counted: its length); a piece placed on any skull, by hand too, tests them all."""
    game = _midway()
    plan = driver.turn_plan(game.rules)
    assert plan.trigger_zones == (("skull", True),)
    calls: list = []
    spied = _spied(plan, calls)
    game.ends_quiet = None
    before = game.work
    driver._check_end(game, spied)
    assert len(calls) == 4
    charged = before - game.work
    assert charged == sum(len(_skull(game, p)) for p in game.players) > 0
    assert game.ends_quiet[-1] == charged
    driver._check_end(game, spied)
    assert len(calls) == 4 and game.work == before - 2 * charged
    for player in game.players:
        _skull(game, player).append(0)  # (any card: the count alone is read)
        driver._check_end(game, spied)
        assert len(calls) == 4 + 4 * (1 + game.players.index(player))
        driver._check_end(game, spied)
        assert len(calls) == 4 + 4 * (1 + game.players.index(player))
        _skull(game, player).pop()


def test_a_zone_that_is_not_the_states_list_is_tested_every_time():
    """A zone the state does not hold (a state made by hand) keeps no key: every check tests the triggers."""
    game = _midway()
    calls: list = []
    spied = _spied(driver.turn_plan(game.rules), calls)
    game.ends_quiet = None
    del game.state["zones"][f"skull:{game.players[2]}"]
    for _ in range(2):
        driver._check_end(game, spied)
    assert len(calls) == 8 and game.ends_quiet is None


def test_a_check_that_would_run_out_of_work_tests():
    """The key's work is charged only where it leaves some: else the triggers are tested, and run out of work at the
    same place with the same error as before, the same work left; with just enough, none is left, as before."""
    game = _midway()
    driver._check_end(game)
    charged = game.ends_quiet[-1]
    for left, runs_out in ((charged - 1, True), (charged, False), (0, True)):
        now, before = game.clone(), game.clone()
        assert now.ends_quiet == game.ends_quiet
        errors = []
        for g, check in ((now, driver._check_end), (before, _check_end_as_before)):
            g.work = left
            try:
                check(g)
            except ContentError as error:
                errors.append((str(error), error.code, g.work))
        assert len(errors) == (2 if runs_out else 0)
        assert not errors or errors[0] == errors[1]
        assert now.work == before.work and now.state == before.state


@pytest.mark.parametrize(("players", "seed"), [(2, 0), (3, 1), (4, 2), (4, 5)])
def test_games_play_as_with_every_trigger_tested(players, seed):
    """Neolithibum answer for answer against the check of before: the same state and work left after every answer,
    the same end."""
    play_side_by_side(ruleset("neolithibum"), players, seed, _as_before)


def test_games_with_a_mixed_trigger_play_as_before(tmp_path):
    """A trigger of counters and zones: the key holds the players, each player's length by their seat; played to the
    end as with every trigger tested."""
    trigger = "count(hand(me)) >= 4 and me.vp >= 1 or count(deck) = 0"
    rules = _pack(tmp_path, trigger)
    assert driver.turn_plan(rules).trigger_zones == (("deck", False), ("hand", True))
    for seed in range(3):
        play_side_by_side(rules, 2, seed, _as_before)
