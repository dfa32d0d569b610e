"""Two fast paths of compiled expressions:
- `+` and `-` with a number written out (`n + 1`), and `*` (`6 * size`, `stones * stones`), compiled to Python's own
  `int` arithmetic when both sides are `int`s (codegen.ExpressionCompiler._both_int), the helpers (`_add`, `_sub`,
  `_mul`) called only for anything else: Neolithibum's counters and its oracle's model (`landing_weights`) are worked
  out at nearly every decision;
- a printed field of a value worked out first (`picks[n].id`, `first(a).cost`) read from the pack's table, as a
  variable's is, the getter called only for what is no card number (`_worked_out_field_read`).
The oracle is the same text compiled as before (`AsBefore`: the helper and the getter always called): the same
answer, the same work charged, the same error at the same text."""

from __future__ import annotations

import random

import pytest
from scenario import ROOT, ruleset

from engine import dsl
from engine.runtime import codegen, exists
from engine.runtime.errors import ContentError
from engine.runtime.game import Ctx, Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

KEY = "test/speed_zu"
BIG = 1 << 64  # budget.MAX_INT: a product past it is an error
# values of the names `a` and `k`: numbers (at and past the bounds), yes/no, none, text, a zone's key, lists
VALUES = [0, 1, 2, -3, BIG, -BIG, BIG // 2, True, False, None, "1", "river", "hand:P1", "P1", "axe", 999]
VALUES += [[1, 2], [None, 5], [[1], 2], [7, 0], [-1], [999], ["axe"]]
TEXTS = [
    "a + 1",
    "1 + a",
    "a - 2",
    "2 - a",
    "a * 3",
    "3 * a",
    "a * a",
    "a * k",
    "(a + 1) * (k - 1)",  # two sides worked out: the helper, as before
    "count(a) * 2 + k",
    "a[1] + 1",  # a side with work of its own, kept in a variable
    "count(numbers(1, k + 1))",  # inside a comprehension's first iterable (no `:=` there)
    "count(numbers(1, 3) where item * k > 1)",
    "map(numbers(1, 2), item * a + 1)",
    "a[1].id",  # fields of a value worked out first: printed, a printed list (copied), a stat (the getter's)
    "a[k].name = k",
    "first(a).cost",
    "count(a[1].cost) + 1",
    "a[1].vp + 1",
    "(a + 1).type",
    "count(numbers(1, 2) where a[item].id = k)",
    "count(numbers(1, first(a).vp) where item > 0)",  # inside a comprehension's first iterable: the getter
]


class AsBefore(codegen.ExpressionCompiler):
    """The compiler as it was: every `+`, `-` (of sides not both whole numbers) and `*` by its helper, and the field of
    a value worked out first by its getter."""

    def _both_int(self, left, a, right, b):
        return None

    def _worked_out_field_read(self, name, value, getter, shared):
        return None


class ExistsAsBefore(exists.ExistsCompiler, AsBefore):
    pass


def _compiled(text: str, compiler_class):
    ir, problem = dsl.parse(text, dsl.EXPRESSION)
    assert problem is None, problem
    return compiler_class(ruleset("cro-magnon"), KEY, frozenset({"a", "k"})).compile(ir)


def _outcome(expression, env, work=None):
    """The value or error of `expression` with the locals `env`, and the work it charged."""
    game = Game.new(ruleset("cro-magnon"), 2, 0)
    if work is not None:
        game.work = work
    before = game.work
    try:
        answer = ("value", expression(Ctx(game, dict(env), game.players[0], None)))
    except ContentError as exc:
        answer = ("content error", exc.code, exc.code_key, exc.offset)
    return answer, before - game.work


def _counted(name: str, helper, calls: list):
    def counted(*args):
        calls.append(name)
        return helper(*args)

    return counted


def test_whole_numbers_are_worked_out_without_the_helpers():
    """The fast path itself (fails if it goes): `n + 1` and `x * y` of `int`s call no helper."""
    game = Game.new(ruleset("cro-magnon"), 2, 0)
    for text in ["a + 1", "1 + a", "a - 2", "a * 3", "a * a", "a * k", "a[1] + 1"]:
        fast, before = _compiled(text, exists.ExistsCompiler), _compiled(text, ExistsAsBefore)
        env = {"a": [5] if "[" in text else 5, "k": 2}
        calls: list[str] = []
        namespace = fast.__globals__  # the compiled function's own namespace: its helpers counted there
        for name in ("_add", "_sub", "_mul"):
            namespace[name] = _counted(name, namespace[name], calls)
        assert fast(Ctx(game, dict(env), game.players[0], None)) == before(Ctx(game, dict(env), game.players[0], None))
        assert calls == [], text


def test_a_printed_field_of_a_worked_out_card_is_read_without_the_getter():
    """The fast path itself (fails if it goes): `a[1].id` and `first(a).cost` of a card number call no getter."""
    game = Game.new(ruleset("cro-magnon"), 2, 0)
    for text, getter in [("a[1].id", "F_id"), ("first(a).cost", "F_cost")]:
        fast, before = _compiled(text, exists.ExistsCompiler), _compiled(text, ExistsAsBefore)
        calls: list[str] = []
        fast.__globals__[getter] = _counted(getter, fast.__globals__[getter], calls)
        env = {"a": [3, 4]}
        assert fast(Ctx(game, dict(env), game.players[0], None)) == before(Ctx(game, dict(env), game.players[0], None))
        assert calls == [], text


@pytest.mark.parametrize("compilers", [(codegen.ExpressionCompiler, AsBefore), (exists.ExistsCompiler, ExistsAsBefore)])
@pytest.mark.parametrize("text", TEXTS)
def test_arithmetic_answers_charges_and_fails_as_before(text, compilers):
    """Every pair of values (past the bounds, yes/no, none, text, lists): the same answer or error, and the same work."""
    fast, before = (_compiled(text, compiler) for compiler in compilers)
    for a in VALUES:
        for k in VALUES:
            env = {"a": a, "k": k}
            assert _outcome(fast, env) == _outcome(before, env), (text, a, k)


@pytest.mark.parametrize("text", ["a[1] + 1", "count(numbers(1, 3) where item * k > 1)"])
def test_running_out_of_work_fails_as_before(text):
    for work in range(-1, 12):
        for a in ([1, 2], [None, 5], 3):
            env = {"a": a, "k": 2}
            fast, before = _compiled(text, exists.ExistsCompiler), _compiled(text, ExistsAsBefore)
            assert _outcome(fast, env, work) == _outcome(before, env, work), (text, work, a)


def test_neolithibum_landing_model_answers_as_before():
    """The oracle's model (`landing_weights`, a direct pack function: its parameters are Python variables), both ways:
    every size, stones and burden, and values that are no numbers."""
    rules = ruleset("neolithibum")
    fast = codegen.direct_function(rules, "landing_weights", codegen.ExpressionCompiler, 3)
    before = codegen.direct_function(rules, "landing_weights", AsBefore, 3)
    assert fast is not None and before is not None
    assert "_mul" in before.__code__.co_names
    game = Game.new(rules, 4, 0)
    context = Ctx(game, {}, game.players[0], None)
    for size in (1, 2, 3, None, True, BIG):
        for stones in (0, 5, 17, -1, BIG // 8, "temple"):
            for burden in (0, 2, 9, None):
                answers = []
                for function in (fast, before):
                    spent = game.work
                    try:
                        answers.append((function(context, KEY, 5, size, stones, burden), spent - game.work))
                    except ContentError as exc:
                        answers.append((exc.code, exc.code_key, exc.offset))
                assert answers[0] == answers[1], (size, stones, burden)


@pytest.mark.parametrize("pack", ["neolithibum", "stone-age-mammoth-herd", "cro-magnon", "paleo-a-new-beginning"])
def test_seeded_game_plays_the_same_either_way(pack, monkeypatch):
    """A whole seeded game, every expression compiled with and without the fast path: the same state and work."""

    def played():
        rules = load(ROOT / "content" / pack)
        game = Game.new(rules, 4, 1)
        play_randomly(game, random.Random(1))
        return game.state, game.work

    fast = played()
    monkeypatch.setattr(codegen.ExpressionCompiler, "_both_int", AsBefore._both_int)
    monkeypatch.setattr(codegen.ExpressionCompiler, "_worked_out_field_read", AsBefore._worked_out_field_read)
    assert played() == fast
