"""The plainest expressions (a constant, a local read such as a loop's `p` in `gain ... for p`, `not n`, `n + 1`,
`n > 0`, `x == "a"`) are computed in the lowered code itself, without calling the expression (lowering._inlined,
codegen's `inline_body`); the expression is still called where it would raise or needs a helper (a local the frame
lacks, `n + 1` of a list), and gives its own error at its own text. The oracle is the same effect lowered with
every expression called (`lowering.INLINED_EXPRESSIONS` off): the same state, `steps`, log and work at every
decision, the same errors at the same text."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree
from lockstep import play_side_by_side
from lowered_code import both_ways, lowered_sources, switched_off

from engine.runtime import lowering
from engine.runtime.rules import load

CONTENT = Path(__file__).resolve().parents[1] / "content"

EXTRA = """kind: counter
id: food
name: Food
owner: player
min: 0
max: 9
visibility: owner
"""


SWITCH = "INLINED_EXPRESSIONS"  # off for the oracle: every expression of the lowered code called, as before they were written into it
called = functools.partial(switched_off, SWITCH)


def make_rules(tmp_path, effect: str):
    text = one_action_rules(effect, goal=99, extra=EXTRA)
    root = write_tree(tmp_path / "locals", {"pack.yaml": tiny_manifest("locals"), "rules.yaml": text})
    return load(root)


SCENARIOS = [
    "for each p in players:\n    gain 2 vp for p",
    "for each p in players:\n    gain 1 food for p\n    lose 1 vp for p",
    "let n = 3\ngain n vp\nlet m = n\nlose m food",
    "let n = 0\nif n:\n    gain 1 vp\nelse:\n    gain 2 vp",
    "let n = 2\nif n:\n    gain n vp\nlet n = 0\nif n:\n    lose 1 vp",
    'let who = next_player(me)\ngain 1 vp for who\nlog "{who}"',
    "for each p in players:\n    let q = p\n    if q:\n        gain 1 vp for q",
    "let n = 0\nrepeat 3 times:\n    let n = n + 1\n    if n > 1:\n        gain n vp\nif not n:\n    lose 1 vp",
    'let w = "a"\nif w == "a":\n    gain 1 vp\nlet n = -2\nlet m = n - 1\nif m < n:\n    gain 2 food',
    "let t = true\nlet f = false\nif t and not f:\n    gain 3 vp\nif f or t:\n    lose 1 vp",
    "let n = [1, 2]\nlet m = n + [3]\nlet k = 2\nif k >= 2:\n    gain k vp",
]


@pytest.mark.parametrize("effect", SCENARIOS)
def test_a_local_read_in_the_code_changes_logs_and_spends_as_the_called_expression(tmp_path, effect):
    rules = make_rules(tmp_path, effect)
    reference, now = both_ways(rules, SWITCH)
    assert reference[1] is None, reference[1]
    assert now == reference


ERRORS = [
    "let who = [me, 3]\nlet w = who[2]\ngain 1 vp for w",  # no such player: at the step
    "let n = [1]\ngain n vp",
    "let k = 0\nlet n = 6 / k\ngain n vp",
    'let l = ["a", 1]\nlet w = l[1]\nlet n = w + 1\ngain n vp',
    'let l = ["a", 1]\nlet w = l[1]\nif w > 1:\n    gain 1 vp',
    "let n = 9223372036854775807\nlet m = n * n\nlet k = m * m\nlet j = k + 1\ngain 1 vp",
]


@pytest.mark.parametrize("effect", ERRORS)
def test_an_error_after_a_local_read_has_the_called_expressions_code_text_and_offset(tmp_path, effect):
    rules = make_rules(tmp_path, effect)
    reference, now = both_ways(rules, SWITCH)
    assert reference[1] is not None
    assert now == reference


@pytest.mark.parametrize(
    "effect",
    [
        "if me.vp > 5:\n    let n = 2\ngain n vp",
        "if me.vp > 5:\n    let n = 2\nlet m = n + 1",
        "if me.vp > 5:\n    let n = 2\nif not n:\n    gain 1 vp",
        "if me.vp > 5:\n    let n = 2\nif n > 0:\n    gain 1 vp",
    ],
)
def test_a_local_the_frame_lacks_calls_the_expression_for_its_error(tmp_path, effect):
    """A local set in a branch not taken: the expression is called and raises its own X109 at its text."""
    rules = make_rules(tmp_path, effect)
    reference, now = both_ways(rules, SWITCH)
    assert reference[1] is not None and reference[1][1] == "X109", reference[1]
    assert now == reference


@pytest.mark.parametrize(
    "body, written",
    [
        ("0", "0"),
        ("c.me", "c.me"),
        ("(E['p'] if 'p' in E else _local('p'))", "E['p'] if 'p' in E else X1(c)"),
        (
            "(_t0 + 1 if type((_t0 := (E['n'] if 'n' in E else _local('n')))) is int else _add(g, _t0, 1))",
            "_t0 + 1 if type((_t0 := (E['n'] if 'n' in E else X1(c)))) is int else X1(c)",
        ),
        ("((E['w'] if 'w' in E else _local('w')) == 'a')", "(E['w'] if 'w' in E else X1(c)) == 'a'"),
        ("('hand:%s' % ((E['p'] if 'p' in E else _local('p')),))", "'hand:%s' % (E['p'] if 'p' in E else X1(c),)"),
    ],
)
def test_the_plainest_bodies_are_written_with_the_expressions_call_where_they_would_raise(body, written):
    assert lowering._inlined(body, "X1(c)") == written


@pytest.mark.parametrize(
    "body",
    [
        "B_count(c, 'hand')",  # a built-in: called
        "_index(g, (E['l'] if 'l' in E else _local('l')), 1)",  # nothing but a helper: the call as it is
        "g.params['limit']",  # a read that may raise at the expression's text
        "(not B_empty(c, 'deck'))",  # a helper whose value is not the expression's
        "(_t0 < 3 if type(_t0 := (E['a'] if 'a' in E else _local('a'))) is str else _lt(_t0, 3))",  # not tested int
        "((E['a'] if 'a' in E else _local('a')) < 3)",  # an order of values of any type
        "E.get('a')",
        "('hand:%d' % ((E['p'] if 'p' in E else _local('p')),))",  # `%d` raises for text
        "('hand:%s' % (E['p'] if 'p' in E else _local('p')))",  # a value, not a tuple: a tuple of two would raise
    ],
)
def test_other_bodies_stay_calls(body):
    assert lowering._inlined(body, "X1(c)") is None


def test_the_lowered_code_reads_a_loops_player_without_calling_its_expression(tmp_path, monkeypatch):
    rules = make_rules(tmp_path, "for each p in players:\n    gain 2 vp for p\n    let n = 3\n    let m = n + 1")
    source = lowered_sources(rules, monkeypatch)
    # (the loop's `p` and `n`, set by this very function, read from their Python variables: lowering._mirrored)
    assert "player = _e_p or c.me" in source
    assert "v = (3)\n" in source and "v = (_t0 + 1 if type((_t0 := _e_n)) is int else X" in source


@pytest.mark.parametrize("pack, seed", [("cro-magnon", 0), ("cro-magnon", 1), ("neolithibum", 0), ("neolithibum", 1)])
def test_shipped_packs_play_as_with_every_expression_called(pack, seed):
    rules = load(CONTENT / pack)
    kinds = play_side_by_side(rules, 4, seed, called)
    assert kinds.total() > 0
