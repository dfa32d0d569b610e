"""The plainest verbs written into the lowered code (lowering._Lowering._inlined) play as the verbs' own `run`:
`flag`/`unflag` of a flag named in the text, `gain`/`lose` of a counter named in the text (neither `on` a card
nor `at` a key), `log`; and a verb whose `run` only ever returns None is called without testing what it returns.
The oracle is the same effect lowered with the verbs called (`lowering.INLINING` off): the same state, `steps`
and log at every decision, the same work spent, the same errors at the same text."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lowered_code import act_twice as act
from lowered_code import both_ways, lowered_sources
from python_source import source_of

from engine.runtime import lowering, verbs
from engine.runtime.game import Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

CONTENT = Path(__file__).resolve().parents[1] / "content"
PACKS = sorted(p.name for p in CONTENT.iterdir() if (p / "pack.yaml").exists())

EXTRA = """kind: counter
id: food
name: Food
owner: player
min: 0
max: 9
visibility: owner
---
kind: counter
id: round_no
name: Round
owner: table
---
kind: counter
id: stash
name: Stash
owner: player
keys: [wood, stone]
---
kind: flag
id: settled
name: Settled
---
kind: flag
id: open_season
name: Open season
owner: table
"""


SWITCH = "INLINING"  # off for the oracle: every verb step lowered as a call of the verb's `run`, as before inlining


def make_rules(tmp_path, effect: str):
    text = one_action_rules(effect, goal=99, extra=EXTRA)
    root = write_tree(tmp_path / "inlined", {"pack.yaml": tiny_manifest("inlined"), "rules.yaml": text})
    return load(root)


# ---------------------------------------------------------------- small scenarios against the called verbs
SCENARIOS = [
    "flag settled",
    "flag settled\nunflag settled",
    "flag settled for next_player(me)\nunflag settled for me",
    "flag open_season\nunflag settled for next_player(me)",
    "unflag open_season\nflag settled\nflag settled",
    "gain 2 vp",
    "lose 3 vp",
    "gain 0 vp\nlose 0 food",
    "gain 4 food\nlose 7 food\ngain 20 food",
    "gain 2 vp for next_player(me)\nlose 1 vp for next_player(me)",
    "gain 1 round_no\nlose 3 round_no",
    "let n = me.vp + 2\ngain n vp\nlose n - 3 food",
    "gain me.food + 1 vp",
    'gain 1 stash at "wood"\nlose 1 stash at "stone"',
    'log "plain words"',
    'log "{me} has {vp} VP"',
    'gain 1 vp\nlog "then"\nflag settled\nlose 1 vp for me',
    "repeat 3 times:\n    gain 1 vp\n    if me.vp > 1:\n        flag settled\n    else:\n        unflag settled",
]


@pytest.mark.parametrize("effect", SCENARIOS)
def test_each_inlined_shape_changes_logs_and_spends_as_the_called_verb(tmp_path, effect):
    """Same state (flags, counters, log, `steps`) and work left after each `act`, inlined or called."""
    rules = make_rules(tmp_path, effect)
    reference, inlined = both_ways(rules, SWITCH, act)
    assert reference[1] is None, reference[1]
    assert inlined == reference


ERRORS = [
    "gain 18446744073709551616 vp\ngain 18446744073709551616 vp",  # past the bounds of numbers: X102
    "repeat 70 times:\n    lose 1 - 2 * me.vp vp",
    "let who = [me, 3]\ngain 1 vp\nlose 1 vp for who[2]",  # no such player: X106 at the step
    "let who = [me, [me]]\nflag settled\nunflag settled for who[2]",  # unhashable
    "gain 1 vp for [1, 2]",
    "flag settled for [1, 2]",
    "let k = 0\ngain 6 / k vp",
    'log "{1 / 0}"',
]


@pytest.mark.parametrize("effect", ERRORS)
def test_an_error_inside_an_inlined_verb_has_the_called_verbs_code_text_and_offset(tmp_path, effect):
    """A bad counter value or player raises the same code, message and `file:offset` both ways."""
    rules = make_rules(tmp_path, effect)
    reference, inlined = both_ways(rules, SWITCH, act)
    assert reference[1] is not None
    assert inlined == reference


@pytest.mark.parametrize("effect", ["gain 1 vp", "lose 2 vp for me", 'log "x"\nlose 2 vp'])
def test_a_counter_holding_a_number_per_key_raises_x107_inlined_as_called(tmp_path, effect):
    """A counter named in the text read as one number while it holds one per key (a state no lint-clean pack
    makes: set here by hand) fails as `Gain.run` fails, with `_one_number`'s X107 at the step."""
    rules = make_rules(tmp_path, effect)

    def keyed_vp(rules):
        original, saved = Game.new, vars(Game)["new"]  # put back as found: the classmethod, not a method bound to Game

        def new(*args, **kwargs):
            game = original(*args, **kwargs)
            for owner in game.state["players"]:
                game.state["counters"][owner]["vp"] = {"wood": 1}
            return game

        Game.new = new  # type: ignore[method-assign]
        try:
            return act(rules)
        finally:
            Game.new = saved  # type: ignore[method-assign]

    reference, inlined = both_ways(rules, SWITCH, keyed_vp)
    assert reference[1] is not None and reference[1][1] == "X107", reference[1]
    assert inlined == reference


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["gain", "lose", "flag", "unflag", "log"]),
            st.sampled_from(["vp", "food", "round_no", "settled", "open_season"]),
            st.integers(-3, 12),
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_any_run_of_plain_verbs_plays_as_the_called_verbs(tmp_path_factory, steps):
    lines = []
    for verb, target, amount, other in steps:
        player = " for next_player(me)" if other else ""
        if verb in ("gain", "lose"):
            counter = target if target in ("vp", "food", "round_no") else "vp"
            lines.append(f"{verb} {amount} {counter}{player}")
        elif verb == "log":
            lines.append(f'log "{target} {amount}"')
        else:
            flag = "open_season" if target == "open_season" and not other else "settled"  # (a table flag: no `for`)
            lines.append(f"{verb} {flag}{player}")
    rules = make_rules(tmp_path_factory.mktemp("any"), "\n".join(lines))
    reference, inlined = both_ways(rules, SWITCH, act)
    assert inlined == reference


# ---------------------------------------------------------------- whole games of every pack
@pytest.mark.parametrize("pack", PACKS)
def test_seeded_games_of_every_pack_are_the_same_inlined_or_called(pack):
    """Every decision of a seeded random game: the same state, `steps` and log."""
    rules = load(CONTENT / pack)

    def game(rules):
        low = rules.players[0]
        g = Game.new(rules, max(low, 2) if rules.players[1] >= 2 else low, 3)
        seen = []
        play_randomly(g, random.Random(3), limit=300, after=lambda g: seen.append(json.dumps(g.state, sort_keys=True)))
        return seen, g.state_hash()

    reference, inlined = both_ways(rules, SWITCH, game)
    assert len(inlined[0]) == len(reference[0])
    for i, (a, b) in enumerate(zip(reference[0], inlined[0], strict=True)):
        assert a == b, f"{pack}: state {i} differs"
    assert inlined[1] == reference[1]


# ---------------------------------------------------------------- the fast path is there
def test_the_emitted_code_of_flag_gain_and_log_calls_no_verb(tmp_path, monkeypatch):
    """Fails if the inlining goes: no step of these calls its verb (`V<pc>`) or tests an outcome."""
    rules = make_rules(tmp_path, 'flag open_season\nunflag settled for me\ngain 2 vp\nlose 1 food for me\nlog "x"')
    source = lowered_sources(rules, monkeypatch)
    assert "run_from_0" in source
    assert "V0" not in source and "V4" not in source and "out = " not in source
    assert "['open_season'] = True" in source and ".pop('settled', None)" in source
    assert "g.set_counter(c.me, 'vp', v)" in source and "g.log('x')" in source


def test_a_verb_that_returns_nothing_is_called_without_testing_its_outcome(tmp_path, monkeypatch):
    """`gain ... at KEY` stays a call (not inlined) but its outcome is not tested; `require` may fail: tested."""
    rules = make_rules(tmp_path, 'gain 1 stash at "wood"\nrequire me.vp > 5')
    source = lowered_sources(rules, monkeypatch)
    assert "pc = 0; V0(g, c, frame)" in source and "out = V0" not in source
    assert "out = V1(g, c, frame)" in source


def test_a_patched_verb_is_called_and_its_outcome_tested(tmp_path, monkeypatch):
    """A verb whose `run` is no longer the one read (a test's patch) keeps the call and the test."""
    rules = make_rules(tmp_path, "flag settled")

    def failing(self, g, c, frame):
        return "fail"

    monkeypatch.setattr(verbs.Flag, "run", failing)
    source = lowered_sources(rules, monkeypatch)
    assert "out = V0(g, c, frame)" in source


def test_the_verbs_called_without_a_test_return_nothing():
    """Every `run` of lowering.RETURNS_NOTHING returns no value anywhere (read from its source): should one
    start to, it must leave the list."""

    def own_nodes(function):  # the nodes of the function itself, not of functions defined inside it
        for node in ast.iter_child_nodes(function):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield node
                yield from own_nodes(node)

    for cls, run in lowering.RETURNS_NOTHING.items():
        function = ast.parse(source_of(run)).body[0]
        nodes = list(own_nodes(function))
        assert all(node.value is None for node in nodes if isinstance(node, ast.Return)), cls.__name__
        assert not any(isinstance(node, ast.Yield | ast.YieldFrom) for node in nodes), cls.__name__


# ---------------------------------------------------------------- the tree's depth and size in one walk
def _depth_before(nodes) -> int:
    """lowering._depth before `_shape` (the oracle)."""
    deepest = 0
    for node in nodes:
        if node[0] == "if":
            inner = [b for _, b, _ in node[1]] + ([node[2]] if node[2] is not None else [])
            deepest = max(deepest, 1 + max(_depth_before(b) for b in inner))
        elif node[0] in ("repeat", "for"):
            deepest = max(deepest, 1 + _depth_before(node[3]))
    return deepest


def _size_before(nodes) -> int:
    """lowering._size before `_shape` (the oracle)."""
    total = 0
    for node in nodes:
        if node[0] == "step":
            total += 1
        elif node[0] == "if":
            total += sum(2 + _size_before(body) for _, body, _ in node[1]) + (
                _size_before(node[2]) if node[2] is not None else 0
            )
        else:
            total += 3 + _size_before(node[3])
    return total


@pytest.mark.parametrize("pack", ["cro-magnon", "neolithibum", "paleo", "stone-age"])
def test_one_walk_gives_the_depth_and_size_the_two_walks_gave(pack):
    """`_shape` (asked by every entry: done in one walk, to pay for the inlining's own work) agrees with the
    two walks before it on every effect of the pack."""
    rules = load(CONTENT / pack)
    trees = [code.tree for code in rules.code.values() if hasattr(code, "tree")]
    assert trees
    for tree in trees:
        assert lowering._shape(tree) == (_depth_before(tree), _size_before(tree))


_TREES = st.recursive(
    st.just(("step", 0)),
    lambda inner: st.one_of(
        st.tuples(
            st.just("if"),
            st.lists(st.tuples(st.just(0), st.lists(inner, max_size=3), st.just(0)), min_size=1, max_size=3),
            st.none() | st.lists(inner, max_size=3),
        ),
        st.tuples(st.sampled_from(["repeat", "for"]), st.just(0), st.just(0), st.lists(inner, max_size=3), st.just(0)),
    ),
    max_leaves=25,
)


@given(st.lists(_TREES, max_size=4))
def test_one_walk_agrees_with_the_two_walks_on_any_tree(tree):
    assert lowering._shape(tree) == (_depth_before(tree), _size_before(tree))
