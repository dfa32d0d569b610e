"""A compiled function's whole expression as statements (codegen.ExpressionCompiler.statements), not one `return`:
- `LIST[i]` does `_index`'s work without its call (Paleo's `o_*` functions, `[c.a_food, c.b_food][k]`, are asked many
  times a decision);
- `SOURCE where TEST` does `_each`'s work without its call, and "has it an item?" of one (`count(...) > 0`, `empty`:
  exists.py's `any(True for ...)`) is a plain `for` loop that returns at the first item, without a generator (the
  `available` tests of Cro-Magnon's actions, asked at every menu).
The oracle is the same text compiled as before (`AsBefore`: the whole expression returned as it is): the same answer,
the same work charged, the same error at the same text, including running out of work at the very same point."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario import ROOT, ruleset

from engine import dsl
from engine.runtime import ahead, codegen, exists
from engine.runtime.errors import ContentError
from engine.runtime.game import Ctx, Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

KEY = "test/speed_ze"
# values of the names `a` and `k`: numbers, yes/no, none, text, a zone's key, lists with gaps and lists in them
VALUES = [0, 1, 2, 3, -1, True, None, "1", "river", "weapons_row", "hand:P1", [1, 2], [None, 5, None], [[1], 2]]
INDEXES = [
    "[1, 2, 3][k]",  # written out, static: its size known
    "[k, none, 7][2]",
    "[a, k][k]",  # written out with a name bound earlier in it: `_built`, size read
    "[[1, 2], [3]][k]",
    "a[k]",  # a list, zone, number or none bound earlier
    "a[2]",
    "river[k]",  # a zone of the table, read as its cards
    "numbers(1, 3)[k]",
]
WHERES = [
    "a where item > 1",
    "hand(me) where item > k",  # a zone's key made from a value
    "weapons_row where item != k",  # a zone of the table by its name
    "a where item > count(k where item > 1)",  # a value kept for the items (a cell)
    "count(a where item > 1) > 0",  # "has it an item?": exists.py's `any(...)`
    "count(a where item > 1) = 0",
    "empty(a where item != k)",
    "count(a where item > count(k where item > 1)) > 0",
    "count(hand(me) where item > 0) >= 1",
    "empty(a where item = k)",  # `k` bound earlier: not `_holds`'s search
]
# not the whole expression, or a search that is no loop (`_holds`): as they were
AS_BEFORE = ["[1, 2][a] + 0", "count(a where item > 1) + 1", "empty(a where item = 2)"]


class AsBefore(codegen.ExpressionCompiler):
    """The compiler as it was: the whole expression returned as it is (`_index`, `_each`, `any` called)."""

    def statements(self, node):
        return [], self.src(node)


class ExistsAsBefore(exists.ExistsCompiler, AsBefore):
    pass


def _compiled(text: str, compiler_class, names=("a", "k")):
    ir, problem = dsl.parse(text, dsl.EXPRESSION)
    assert problem is None, problem
    return compiler_class(ruleset("cro-magnon"), KEY, frozenset(names)).compile(ir)


def _outcome(expression, env, work=None):
    """The value or error of `expression` with the locals `env`, and the work it charged."""
    game = Game.new(ruleset("cro-magnon"), 2, 0)
    if work is not None:
        game.work = work
    before = game.work
    context = Ctx(game, dict(env), game.players[0], None)
    try:
        answer = ("value", expression(context))
    except ContentError as exc:
        answer = ("content error", exc.code, exc.code_key, exc.offset)
    return answer, before - game.work


def _source(text: str, compiler_class, monkeypatch) -> str:
    """The Python source the compiler makes of `text`."""
    made = []

    def recorded(source, filename):
        made.append(source)
        return compile(source, filename, "exec")

    monkeypatch.setattr(ahead, "compiled", recorded)
    _compiled(text, compiler_class)
    monkeypatch.undo()
    return made[-1]


def test_whole_expressions_compile_without_the_helpers_calls(monkeypatch):
    """The fast paths themselves: the list or the items worked out in statements (`_index`, `_each` not called for
    them), no generator for "has it an item?" (fails if they go); a part of a bigger expression is made as before."""
    for text in INDEXES:
        fast = _source(text, exists.ExistsCompiler, monkeypatch)
        assert "_listed = " in fast and "_index(" not in fast, text
        assert "return _index(" in _source(text, ExistsAsBefore, monkeypatch), text
    for text in WHERES:
        fast = _source(text, exists.ExistsCompiler, monkeypatch)
        assert "_items = " in fast and "any(" not in fast, text
        assert "_each(" in _source(text, ExistsAsBefore, monkeypatch), text
    for text in AS_BEFORE:
        fast = _source(text, exists.ExistsCompiler, monkeypatch)
        assert "_items = " not in fast and "_listed = " not in fast, text


@pytest.mark.parametrize("compilers", [(codegen.ExpressionCompiler, AsBefore), (exists.ExistsCompiler, ExistsAsBefore)])
@pytest.mark.parametrize("text", INDEXES + WHERES + AS_BEFORE)
def test_whole_expressions_answer_charge_and_fail_as_before(text, compilers):
    """Every value of the names (a list with gaps, a zone, a number, none, a place past either end): the same answer or
    error, and the same work, with codegen's compiler and with exists.py's."""
    fast, before = (_compiled(text, compiler) for compiler in compilers)
    for a in VALUES:
        for k in VALUES:
            env = {"a": a, "k": k}
            assert _outcome(fast, env) == _outcome(before, env), (text, a, k)


@settings(max_examples=200, deadline=None)
@given(
    text=st.sampled_from(INDEXES + WHERES),
    a=st.sampled_from(VALUES),
    k=st.sampled_from(VALUES),
    work=st.integers(min_value=-1, max_value=40),
)
def test_running_out_of_work_fails_as_before(text, a, k, work):
    """With little work left, the statements run out where the helpers ran out: the same error, placed at the same
    text."""
    env = {"a": a, "k": k}
    fast, before = _compiled(text, exists.ExistsCompiler), _compiled(text, ExistsAsBefore)
    assert _outcome(fast, env, work) == _outcome(before, env, work)


def test_an_items_expression_of_a_whole_where_answers_as_before():
    """`showing LABEL`'s per-item functions (the item a parameter of the function): the same answers and work."""
    ir, _ = dsl.parse("count(a where item > k) > 0", dsl.EXPRESSION)
    rules = ruleset("cro-magnon")
    fast = exists.ExistsCompiler(rules, KEY, frozenset({"a"})).compile(ir, per_item=True)
    before = ExistsAsBefore(rules, KEY, frozenset({"a"})).compile(ir, per_item=True)
    game = Game.new(rules, 2, 0)
    for a in VALUES:
        for k in VALUES:
            answers = []
            for function in (fast, before):
                spent = game.work
                try:
                    answers.append((function(Ctx(game, {"a": a}, game.players[0], None), k), spent - game.work))
                except ContentError as exc:
                    answers.append((exc.code, exc.code_key, exc.offset))
            assert answers[0] == answers[1], (a, k)


def test_pack_functions_of_a_whole_index_answer_as_before():
    """Paleo's `o_*` functions (`[c.a_x, c.b_x, c.c_x][k]`), made direct both ways: every card, every action number,
    and a value that is no card."""
    rules = ruleset("paleo-a-new-beginning")
    names = sorted(n for n in rules.functions if n.startswith("o_"))
    assert names
    for name in names:
        fast = codegen.direct_function(rules, name, codegen.ExpressionCompiler, 2)
        before = codegen.direct_function(rules, name, AsBefore, 2)
        assert fast is not None and before is not None
        assert "_index" not in fast.__code__.co_names
        game = Game.new(rules, 4, 0)
        context = Ctx(game, {}, game.players[0], None)
        for card in [*range(0, len(rules.cards) + 2, 7), -1, "wood", None]:
            for place in (0, 1, 2, 3, 4, True):
                answers = []
                for function in (fast, before):
                    spent = game.work
                    try:
                        answers.append((function(context, KEY, 5, card, place), spent - game.work))
                    except ContentError as exc:
                        answers.append((exc.code, exc.code_key, exc.offset))
                assert answers[0] == answers[1], (name, card, place)


@pytest.mark.parametrize("pack", ["paleo-a-new-beginning", "cro-magnon"])
def test_seeded_game_plays_the_same_either_way(pack, monkeypatch):
    """A whole seeded game, every expression compiled with and without the statements: the same state and work."""

    def played():
        rules = load(ROOT / "content" / pack)
        game = Game.new(rules, 4, 3)
        play_randomly(game, random.Random(3))
        return game.state, game.work

    fast = played()
    monkeypatch.setattr(codegen.ExpressionCompiler, "statements", AsBefore.statements)
    assert played() == fast
