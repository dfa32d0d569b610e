"""A round of a lowered loop counts its head's step and the first straight run of its body with one test of the
step budget (lowering._Lowering._emit_loop; the round that ends the loop takes the run's steps back), and a `for`
keeps its [items, index] in a Python variable as well as in the frame. A round that would pass the budget is left
to the interpreter from the loop's head: it stops at the very step the interpreter alone stops at. The oracle is
the interpreter (every frame run step by step): the same state, `steps` included, and the same error."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree
from lockstep import play_side_by_side
from lowered_code import act_once, forget, lowered_sources

from engine.runtime import lowering
from engine.runtime.budget import STEP_BUDGET
from engine.runtime.rules import load

CONTENT = Path(__file__).resolve().parents[1] / "content"


@contextlib.contextmanager
def interpreted(rules):
    """Every frame runs step by step (no lowered function made)."""
    original = lowering.entry
    forget(rules)
    lowering.entry = lambda code, pc: None
    try:
        yield
    finally:
        lowering.entry = original
        forget(rules)


def make_rules(tmp_path, effect: str):
    text = one_action_rules(effect, goal=99)
    root = write_tree(tmp_path / "rounds", {"pack.yaml": tiny_manifest("rounds"), "rules.yaml": text})
    return load(root)


def both_ways(rules):
    with interpreted(rules):
        reference = act_once(rules, work=False)
    return reference, act_once(rules, work=False)


# An outer round: the repeat's head, the for's init, 2 players x (head, 2 lets, back), the for's last head, the
# repeat's back: 12 steps. Shifting the start by 0..11 steps makes the budget run out at every step of a round.
ENDLESS = "repeat 1000000 times:\n    for each p in players:\n        let z = 2\n        let y = p\n"


@pytest.mark.parametrize("shift", range(12))
def test_the_budget_runs_out_at_the_same_step_of_a_round_as_in_the_interpreter(tmp_path, shift):
    rules = make_rules(tmp_path, "let x = 0\n" * shift + ENDLESS)
    reference, lowered = both_ways(rules)
    assert reference[1] is not None and f"more than {STEP_BUDGET} steps" in reference[1][0]
    assert lowered == reference


@pytest.mark.parametrize(
    "effect",
    [
        "for each p in players:\n    gain 1 vp for p\n    let n = 2\nlet m = 3\ngain m vp",
        "for each p in players:\n    if p == me:\n        gain 1 vp\n    else:\n        lose 1 vp\n",
        "repeat 3 times:\n    for each p in players:\n        gain 1 vp for p\n    gain 1 vp\n",
        "for each p in players:\n    for each q in players:\n        if p == q:\n            gain 1 vp for q\n",
        "for each p in []:\n    gain 1 vp\ngain 2 vp",
        "repeat 0 times:\n    gain 1 vp\nrepeat 2 times:\n    gain 1 vp\n",
    ],
)
def test_loops_count_the_same_steps_as_the_interpreter(tmp_path, effect):
    rules = make_rules(tmp_path, effect)
    reference, lowered = both_ways(rules)
    assert reference[1] is None, reference[1]
    assert lowered == reference


def test_a_round_tests_the_budget_once_before_its_first_run(tmp_path, monkeypatch):
    rules = make_rules(tmp_path, "for each p in players:\n    gain 1 vp for p\n    let n = 2\n")
    source = lowered_sources(rules, monkeypatch)
    assert source.count("> BUDGET") == 2  # the for's init, then each round: its head and its body's 3 steps at once
    assert "steps += 4" in source and "steps -= 3" in source


@pytest.mark.parametrize("pack", ["cro-magnon", "neolithibum"])
def test_shipped_packs_play_state_for_state_as_the_interpreter(pack):
    rules = load(CONTENT / pack)
    kinds = play_side_by_side(rules, 3, 0, lambda: interpreted(rules))
    assert kinds.total() > 0
