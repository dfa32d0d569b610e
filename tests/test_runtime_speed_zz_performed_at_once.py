"""A lowered effect that performs another runs that effect at once, and goes on itself after the `perform` when it
ended asking nothing (`lowering.PERFORMED_AT_ONCE`, `lowering.run_performed`), rather than stop for `advance` to
run the effect pushed and then run the caller again from the next step (Neolithibum performs about 850 effects a
game). The oracle is the same code with the switch off: the same state (`steps` included) and work at every
decision, the same errors at the same text, the budget stopping at the very step."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree
from lowered_code import act_twice, assert_same_games, both_ways, every_decision, forget, lowered_sources

from engine.runtime import lowering
from engine.runtime.game import Game
from engine.runtime.rules import load

CONTENT = Path(__file__).resolve().parents[1] / "content"
PACKS = sorted(p.name for p in CONTENT.iterdir() if (p / "pack.yaml").exists())

SWITCH = "PERFORMED_AT_ONCE"  # off for the oracle: a `perform` stops the run, and `advance` runs what it pushed


def _subroutine(name: str, effect: str) -> str:
    body = "\n".join("  " + line for line in effect.splitlines())
    return f"---\nkind: action\nid: {name}\nname: {name}\nsubroutine: true\neffect: |\n{body}\n"


def _rules(tmp_path, effect: str, *, helpers: str = "", before: str = "", goal=99):
    text = one_action_rules(effect, goal=goal, before=before) + helpers
    return load(write_tree(tmp_path / "performs", {"pack.yaml": tiny_manifest("performs"), "rules.yaml": text}))


@pytest.mark.parametrize("pack", PACKS)
def test_seeded_games_of_every_pack_play_as_when_a_perform_stops_the_run(pack):
    """Every decision of a seeded random game of every pack: the same state (`steps` included) and work left."""
    rules = load(CONTENT / pack)
    reference, at_once = both_ways(rules, SWITCH, lambda rules: every_decision(rules, 7))
    assert_same_games(reference, at_once, pack)


HELPERS = (
    _subroutine("quiet", "gain 1 vp")
    + _subroutine("asks", "choose 1 from numbers(1, 3) as n\ngain n vp")
    + _subroutine("nested", "perform quiet\ngain 2 vp\nperform quiet")
    + _subroutine("picky", "gain 1 vp\nrequire me.vp > 40")
)


def test_effects_performed_in_a_loop_that_ask_nest_and_fail_play_as_when_a_perform_stops_the_run(tmp_path):
    """Performs in a loop and in branches, of an effect that asks nothing, one that asks, one that performs others,
    and one that fails inside the action (undone, its answer a dead end): the same state and work after each answer."""
    effect = """let total = 0
for each k in numbers(1, 3):
    perform quiet
    let total = total + k
    if k = 2:
        perform nested
    else:
        perform asks
choose 1 from numbers(0, 1) as risky
if risky = 1:
    perform picky
gain total vp"""
    rules = _rules(tmp_path, effect, helpers=HELPERS)

    def play(rules):
        game = Game.new(rules, 2, 0)
        seen = []
        rnd = random.Random(3)
        for _ in range(40):
            if game.over:
                break
            decision = game.decision
            player = decision.players[0]
            legal = game.legal(player)
            game.apply(legal[rnd.randrange(len(legal))], player)
            seen.append((json.dumps(game.state), game.work))
        return seen

    reference, at_once = both_ways(rules, SWITCH, play)
    assert any("takes back" in state for state, _ in at_once)  # the failure was met
    assert at_once == reference


def test_an_effect_that_fails_outside_an_action_stops_and_its_caller_goes_on_the_same(tmp_path):
    """Outside an action (a phase) a failed effect just stops (undo.fail): the caller, innermost again, goes on."""
    phase = (
        "kind: phase\nid: start\nname: Start\nwhen: turn_start\neffect: |\n"
        "  perform picky\n  gain 5 vp\n  perform quiet\n  perform picky\n"
    )
    rules = _rules(tmp_path, "gain 1 vp", helpers=HELPERS, before=phase)
    reference, at_once = both_ways(rules, SWITCH)
    assert reference[1] is None and reference[0][-1] != reference[0][0]  # played on, no error
    assert at_once == reference


@pytest.mark.parametrize("shift", range(10))
def test_a_loop_of_performs_stops_at_the_budget_at_the_same_step(tmp_path, shift):
    """The steps counted after each effect performed are tested again against the budget before the run goes on: a
    loop of performs passes the step budget at the very step it passed it before, with the same error. Shifting the
    start by 0..9 steps makes it run out at each step of a round (the loop's head, the perform, each step of the effect
    performed and each gain after it, the jump back)."""
    effect = (
        "let x = 0\n" * shift + "repeat 1000000 times:\n    perform busy\n    gain 1 vp\n    gain 2 vp\n    gain 3 vp"
    )
    rules = _rules(tmp_path, effect, helpers=_subroutine("busy", "gain 1 vp\ngain 1 vp\ngain 1 vp"))
    reference, at_once = both_ways(rules, SWITCH, act_twice)
    assert reference[1] is not None and reference[1][1] == "X105"
    assert at_once == reference


@pytest.mark.parametrize("start", [0, 3, 9])
def test_the_budget_passed_inside_a_performed_effect_stops_at_the_same_step(tmp_path, start):
    """The budget passed in the effect performed (the caller's budget tested at its start left room for the caller
    only), from a few starting counts: the same error at the same text."""
    spin = _subroutine("spin", "repeat 1000000 times:\n    gain 1 vp")
    rules = _rules(tmp_path, "let x = 0\n" * start + "perform spin\ngain 1 vp", helpers=spin)
    reference, at_once = both_ways(rules, SWITCH, act_twice)
    assert reference[1] is not None and reference[1][1] == "X105"
    assert at_once == reference


def test_effects_performing_themselves_stop_at_the_frame_limit_as_before(tmp_path):
    """An effect that performs itself runs nested in its caller's run: the frame limit (interpreter.MAX_FRAMES) stops
    it with the same error, long before Python's own recursion limit."""
    rules = _rules(tmp_path, "perform deeper", helpers=_subroutine("deeper", "gain 1 vp\nperform deeper"))
    reference, at_once = both_ways(rules, SWITCH, act_twice)
    assert reference[1] is not None and reference[1][1] == "X104"
    assert at_once == reference


def test_the_caller_goes_on_itself_after_an_effect_that_asks_nothing(tmp_path, monkeypatch):
    """Fails without the fast path: the caller's run is never started again from the step after a `perform` whose
    effect asked nothing (no entry made for it), and `advance` runs no frame the caller's run could run itself."""
    rules = _rules(tmp_path, "gain 1 vp\nperform nested\ngain 1 vp\nperform quiet\ngain 1 vp", helpers=HELPERS)
    source = lowered_sources(rules, monkeypatch)
    assert "performed(g, frame)" in source
    forget(rules)
    game = Game.new(rules, 2, 0)
    game.apply(game.decision.options.index("act"), game.decision.players[0])
    act = rules.code["action/act/effect"]
    assert set(act.entries) == {0}  # run once, from its start: no run from the step after either `perform`
    assert set(rules.code["action/nested/effect"].entries) == {0}
    assert game.state["counters"][game.state["players"][0]]["vp"] == 3 + 1 + 2 + 1 + 1


def test_an_effect_performed_that_is_not_lowered_is_left_to_advance(tmp_path, monkeypatch):
    """`run_performed` runs the pushed frame's lowered function, and leaves a frame without one to `advance` (which
    interprets it): a pack whose performed effects cannot be lowered (`lowering.entry` gives None) plays the same."""
    effect = "perform asks\nperform quiet\ngain 1 vp"
    rules = _rules(tmp_path, effect, helpers=HELPERS)
    original = lowering.entry

    def only_the_caller(code, pc):
        return original(code, pc) if code.key == "action/act/effect" else None

    monkeypatch.setattr(lowering, "entry", only_the_caller)
    reference, at_once = both_ways(rules, SWITCH, act_twice)
    assert at_once == reference
