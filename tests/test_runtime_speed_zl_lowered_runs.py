"""Three steps of the lowered code (lowering.py), each against its switch off as the oracle (the code before it):
the step budget tested once for the most steps a function may count before a loop, the later runs counting theirs
untested (`TESTED_ONCE`: the interpreter, left a run near the budget, stops at the very step); a local the function
itself set read from a Python variable, not looked up in the frame twice (`MIRRORED_LOCALS`: until a verb that may bind
it); an expression of one Python expression written into the code, in a `try` that places its errors at its own text
(`INLINED_CALLS`). The same state, `steps` and work included, and the same errors, at the same texts."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DECK_AND_HAND, one_action_rules, tiny_manifest, write_tree
from lockstep import play_side_by_side
from lowered_code import act_once, act_twice, both_ways, forget, lowered_sources, switched_off

from engine.runtime import lowering
from engine.runtime.budget import STEP_BUDGET
from engine.runtime.rules import load

CONTENT = Path(__file__).resolve().parents[1] / "content"
SWITCHES = ("TESTED_ONCE", "MIRRORED_LOCALS", "INLINED_CALLS")


CARDS = DECK_AND_HAND + "---\nkind: card\nid: bead\nname: Bead\ntype: gem\ndeck: deck\ncopies: 12\n"


def make_rules(tmp_path, effect: str):
    text = one_action_rules(effect, goal=99, extra=CARDS)
    root = write_tree(tmp_path / "zl", {"pack.yaml": tiny_manifest("zl"), "rules.yaml": text})
    return load(root)


BRANCHES = (
    "for each p in players:\n"
    "    let n = count(deck)\n"
    "    if n > 0:\n"
    "        gain 1 vp for p\n"
    "        let m = n + 1\n"
    "    else:\n"
    "        gain 2 vp for p\n"
    "        if p == me:\n"
    "            lose 1 vp\n"
)


def test_the_budget_is_tested_once_before_a_loop_and_once_a_round(tmp_path, monkeypatch):
    source = lowered_sources(make_rules(tmp_path, BRANCHES), monkeypatch)
    # the for's init, then each round: its head and the most steps of its body (its branches' longest path)
    assert source.count("> BUDGET") == 2
    # head, let, test (the first run, counted), then the longest path: else's gain and test, its gain and jump, back
    assert "if steps + 8 > BUDGET" in source and "steps += 3\n" in source and "steps -= 2\n" in source
    assert "    steps += 2\n" in source  # (a branch's run, counted without a test)


# A round of the outer loop: the repeat's head, the for's init, 2 players x (head, let, unless, gain, let or gain,
# unless, jump...), the for's last head, the repeat's back. Shifting the start by 0..13 steps makes the budget run
# out at every step of a round, inside the branches too.
ENDLESS = "repeat 1000000 times:\n" + "".join("    " + line + "\n" for line in BRANCHES.splitlines())


@pytest.mark.parametrize("shift", range(14))
def test_the_budget_runs_out_at_the_same_step_as_when_each_run_tests_it(tmp_path, shift):
    rules = make_rules(tmp_path, "let x = 0\n" * shift + ENDLESS)
    with switched_off("TESTED_ONCE", rules):
        reference = act_once(rules)
    assert reference[1] is not None and f"more than {STEP_BUDGET} steps" in reference[1][0]
    assert act_once(rules) == reference


@pytest.mark.parametrize(
    "effect",
    [
        BRANCHES,
        "let n = 0\nfor each p in players:\n    let n = n + 1\n    gain n vp for p\nlet k = n * 2\ngain k vp",
        'let q = 1\nrepeat 3 times:\n    if q < 3:\n        let q = q + 1\n    gain q vp\nlog "q"',
        "for each p in players:\n    draw 1 from deck as p\n    if p == none:\n        gain 1 vp\n",
    ],
)
@pytest.mark.parametrize("switch", SWITCHES)
def test_effects_leave_the_same_state_and_work(tmp_path, effect, switch):
    rules = make_rules(tmp_path, effect)
    reference, lowered = both_ways(rules, switch)
    assert reference[1] is None, reference[1]
    assert lowered == reference


def test_a_local_the_function_set_is_read_from_its_variable(tmp_path, monkeypatch):
    effect = "let n = 0\nfor each p in players:\n    let n = n + 1\n    gain n vp for p\n"
    source = lowered_sources(make_rules(tmp_path, effect), monkeypatch)
    assert "E['p'] = _e_p = items0[i0]" in source and "E['n'] = _e_n = v" in source
    assert "type((_t0 := _e_n)) is int" in source and "player = _e_p or c.me" in source
    assert "'n' in E" not in source and "'p' in E" not in source


def test_a_local_a_verb_may_bind_is_read_from_the_frame_again(tmp_path, monkeypatch):
    """`draw ... as p` binds `p` (the only local a verb sets): after it, and at the head of every round of a loop
    holding it, `p` is read from the frame; `n`, that no verb binds, still from its variable."""
    effect = "let n = 1\nlet p = 0\nrepeat 2 times:\n    let k = p + n\n    draw 1 from deck as p\n    gain k vp\n"
    rules = make_rules(tmp_path, effect)
    source = lowered_sources(rules, monkeypatch)
    assert "(E['p'] if 'p' in E else " in source and "_e_n" in source
    reference, lowered = both_ways(rules, "MIRRORED_LOCALS")
    assert lowered == reference


def test_a_text_that_reads_like_a_local_read_is_left_as_it_is():
    line = "g.log(\"(E['p'] if 'p' in E else X1(c))\"); v = (E['p'] if 'p' in E else X1(c))"
    assert lowering._mirrored(line, {"p"}) == "g.log(\"(E['p'] if 'p' in E else X1(c))\"); v = _e_p"
    assert lowering._mirrored(line, {"q"}) == line


def test_an_expression_is_written_into_the_code_with_its_errors_place(tmp_path, monkeypatch):
    rules = make_rules(tmp_path, "let n = count(deck) + count(deck)\nif count(deck) > n:\n    gain 1 vp\n")
    source = lowered_sources(rules, monkeypatch)
    assert "v = X0(c)" not in source and "if X1(c)" not in source
    assert "except PYTHON_ERRORS as exc:\n            raise values_error(exc, 'action/act/effect', " in source


@pytest.mark.parametrize(
    "effect",
    [
        "let n = count(deck) + (2 / count(deck))\ngain n vp",  # division by zero, at the expression's text
        "let l = [1, 2]\nif count(deck) + l[3] > 1:\n    gain 1 vp",  # a number and a none
        "for each p in count(deck) + 1:\n    gain 1 vp",  # no list to go through
    ],
)
def test_an_expression_written_in_fails_as_its_call(tmp_path, effect):
    rules = make_rules(tmp_path, effect)
    reference, lowered = both_ways(rules, "INLINED_CALLS", act_twice)
    assert lowered == reference


@pytest.mark.parametrize("pack", ["cro-magnon", "neolithibum"])
def test_shipped_packs_play_state_for_state_as_with_the_three_steps_off(pack):
    rules = load(CONTENT / pack)

    class Off:
        def __enter__(self):
            forget(rules)
            for switch in SWITCHES:
                setattr(lowering, switch, False)

        def __exit__(self, *exc):
            for switch in SWITCHES:
                setattr(lowering, switch, True)
            forget(rules)

    kinds = play_side_by_side(rules, 3, 0, Off)
    assert kinds.total() > 0
