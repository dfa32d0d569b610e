"""An expression that only reads but may raise (`players`, `flagged(settled, p)`, `n < limit` of a pack's parameter,
`[me]`) is computed in the lowered code itself, in a `try` (lowering `_read_only`, `_Lowering._read`): any error,
and any helper whose value would be the whole expression's, has the expression called after all, which reads the
same again and raises its own error at its own text (its body changed nothing, charged no work, before). The
oracle is the same effect lowered with those expressions called (`lowering.INLINED_READS` off): the same state,
`steps`, log and work at every decision, the same errors at the same text."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from conftest import one_action_rules, write_tree
from lockstep import play_side_by_side
from lowered_code import both_ways, lowered_sources, switched_off

from engine.runtime import lowering
from engine.runtime.rules import load

CONTENT = Path(__file__).resolve().parents[1] / "content"

MANIFEST = (
    "kind: pack\nid: reads\nname: Reads\nversion: 1.0.0\nplayers: {min: 1, max: 2}\n"
    "parameters:\n  limit:\n    description: A limit.\n    default: 2\n"
)
FLAGS = """kind: flag
id: settled
name: Settled
"""
PLAYERS = "g.in_play_from(g.state['turn']['player'])"
MY_P, MY_N = "(E['p'] if 'p' in E else _local('p'))", "(E['n'] if 'n' in E else _local('n'))"
LOCALS = "bool(g.state['flags'].get(((E['p'] if 'p' in E else _local('p')) or c.me), _EMPTY_MAPPING).get('settled'))"
LIMIT = (
    "(_t0 < _t1 if type((_t0 := (E['n'] if 'n' in E else _local('n')))) is type((_t1 := g.params['limit'])) is int"
    " else _lt(_t0, _t1))"
)


SWITCH = "INLINED_READS"  # off for the oracle: every expression that only reads called again, as before it was written in a `try`
called = functools.partial(switched_off, SWITCH)


def make_rules(tmp_path, effect: str):
    text = one_action_rules(effect, goal=99, extra=FLAGS)
    root = write_tree(tmp_path / "reads", {"pack.yaml": MANIFEST, "rules.yaml": text})
    return load(root)


EFFECTS = [
    "for each p in players:\n    if flagged(settled, p):\n        gain 1 vp for p\n    flag settled for p",
    "let n = 0\nrepeat 3 times:\n    if n < limit:\n        gain 1 vp\n    let n = n + 1",
    "let who = [me]\nfor each p in who:\n    gain 2 vp for p",
    "let n = 0\nif n < limit:\n    for each p in players:\n        let n = n + 1\n        gain n vp for p",
]


@pytest.mark.parametrize("effect", EFFECTS)
def test_an_expression_that_only_reads_plays_in_the_code_as_the_called_expression(tmp_path, effect):
    rules = make_rules(tmp_path, effect)
    reference, now = both_ways(rules, SWITCH)
    assert reference[1] is None, reference[1]
    assert now == reference


ERRORS = [
    "let p = [me]\nif flagged(settled, p):\n    gain 1 vp",  # `get` of a list: unhashable, at the test's text
    'let n = "a"\nif n < limit:\n    gain 1 vp',  # text and number: `_lt`'s error
    "if me.vp > 5:\n    let n = 2\nif n < limit:\n    gain 1 vp",  # a local the frame lacks: X109
    "if me.vp > 5:\n    let p = me\nif flagged(settled, p):\n    gain 1 vp",
]


@pytest.mark.parametrize("effect", ERRORS)
def test_an_error_in_the_try_is_the_called_expressions_at_its_text(tmp_path, effect):
    rules = make_rules(tmp_path, effect)
    reference, now = both_ways(rules, SWITCH)
    assert reference[1] is not None
    assert now == reference


def test_the_lowered_code_reads_players_flags_and_parameters_without_calling_their_expressions(tmp_path, monkeypatch):
    effect = "let n = 0\nfor each p in players:\n    if flagged(settled, p):\n        gain 1 vp for p\n    if n < limit:\n        lose 1 vp"
    source = lowered_sources(make_rules(tmp_path, effect), monkeypatch)
    assert f"    items = {PLAYERS}\n" in source
    assert "items = g.items_of(items)" not in source  # (a new list of names: as `items_of` would copy it)
    # (the loop's `p` and the `n` set before it, read from their Python variables: lowering._mirrored)
    assert f"    v = {LOCALS.replace(MY_P, '_e_p')}\n" in source
    assert f"    v = {LIMIT.replace('_lt(_t0, _t1)', '_REDO').replace(MY_N, '_e_n')[1:-1]}\n" in source


@pytest.mark.parametrize(
    "body, written",
    [
        (PLAYERS, PLAYERS),
        (LOCALS, LOCALS),
        (LIMIT, LIMIT.replace("_lt(_t0, _t1)", "_REDO")[1:-1]),
        ("(T_vp[c.card] if type(c.card) is int and 0 <= c.card < 3 else F_vp(g, c.card))", None),
        ("[c.me]", "[c.me]"),
        (
            "((T_type[c.card] if type(c.card) is int and 0 <= c.card < 3 else F_type(g, c.card)) == 'x')",
            "(T_type[c.card] if type(c.card) is int and 0 <= c.card < 3 else _redo()) == 'x'",
        ),
    ],
)
def test_a_body_that_only_reads_is_written_with_redo_for_its_helpers(body, written):
    found = lowering._read_only(body)
    assert found is not None
    if written is not None:
        assert found[0] == written
    assert "g" not in found[1] and "c" not in found[1]


@pytest.mark.parametrize(
    "body",
    [
        "B_count(c, 'hand')",  # nothing but a built-in: called
        "(B_count(c, 'hand') > 2)",  # a built-in charges work: not before what may raise
        "_index(g, (E['l'] if 'l' in E else _local('l')), 1) == 2",  # a helper whose value is not the whole
        "[_i0 for _i0 in _each(g, 'hand', 3, 'k', 1)]",  # a comprehension: `_each` charges work
        "g.state.clear()",  # a method that changes the state
        "g.move(1, 'hand')",  # a game's method that is not a read
        "c.g.state['flags']",  # (the game is `g`)
        "E['a'][1:2]",  # a slice
        "(E['a'] if 'a' in E else _local('a')) ** 3",
        "len(*E['a'])",
        "((T_type[c.card] if type(c.card) is int else B_type(c, c.card)) == 'x')",  # a built-in: it may charge work
        "(F_type(g, c.card) == 'x')",  # a getter called where no table was read
    ],
)
def test_other_bodies_are_not_written_into_a_try(body):
    assert lowering._read_only(body) is None


@pytest.mark.parametrize("pack, seed", [("cro-magnon", 0), ("neolithibum", 0), ("neolithibum", 1)])
def test_shipped_packs_play_as_with_those_expressions_called(pack, seed):
    rules = load(CONTENT / pack)
    kinds = play_side_by_side(rules, 4, seed, called)
    assert kinds.total() > 0
