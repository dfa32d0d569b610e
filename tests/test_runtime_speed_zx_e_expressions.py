"""Cheaper generated expressions and built-ins (codegen.py, functions.py):
- an expression that reads no game (a constant, `me`, a name bound earlier) does not read `c.g` first;
- an expression that only reads a name bound earlier looks it up once (`c.env[NAME]`), not `in` then `[]`;
- `flagged(FLAG, me)` reads `me` once;
- `_each`'s statements for a zone named in the text (or a zone's key made from a player) keep only the branch of a
  text;
- `opponents` is one call (`_opponents`), not a comprehension made and run at each read;
- `empty`, `min` and `max` are plain functions with `_count`'s fast path and a loop.
The oracle is the code as it was (`AsBefore` and the old built-ins): the same answer, work and error at the same text."""

from __future__ import annotations

import pytest
from scenario import ruleset

from engine import dsl
from engine.runtime import ahead, codegen, exists, functions
from engine.runtime.errors import ContentError
from engine.runtime.game import Ctx, Game

KEY = "test/speed_zx_e"
VALUES = [0, 3, True, None, "P1", "P2", "river", "hand:P1", "hand:P2", "tableau:P1", [], [1, 2], [None, 4], [[1], 2]]


class AsBefore(codegen.ExpressionCompiler):
    """The compiler as it was: `opponents` a comprehension, `_each`'s statements with every branch, `c.g` always read,
    a name bound earlier looked up with `in` first, a whole `and` (`or`) one expression."""

    def statements(self, node):
        if node[0] in ("and", "or"):
            return self._where_statements(self.src(node))
        return super().statements(node)

    def compile(self, node, per_item=False):
        saved = codegen._CONSTANTS["opponents"], codegen._always_text, codegen._LOCAL_READ, codegen._READS_GAME
        codegen._CONSTANTS["opponents"] = "[_p for _p in g.in_play_from(c.me) if _p != c.me]"
        codegen._always_text = lambda source: False
        codegen._LOCAL_READ = codegen.re.compile(r"(?!)")
        codegen._READS_GAME = codegen.re.compile(r"")
        try:
            return super().compile(node, per_item)
        finally:
            codegen._CONSTANTS["opponents"] = saved[0]
            codegen._always_text, codegen._LOCAL_READ, codegen._READS_GAME = saved[1:]


OLD_BUILTINS = {
    "empty": lambda c, items: not functions._items(c.g, items),
    "min": lambda c, *xs: min(int(x or 0) for x in xs),
    "max": lambda c, *xs: max(int(x or 0) for x in xs),
}

TEXTS = [
    "opponents",
    "count(opponents)",
    "opponents where item != a",
    "a",
    '"hand"',
    "me",
    "flagged(done, me)",
    "flagged(done, a)",
    "count(hand(me) where item != a)",
    "count(hand(me) where item = a) > 0",
    'count("river" where item != a)',
    "empty(a)",
    "empty(hand(me))",
    "not empty(a)",
    "min(a, 2)",
    "max(a, 2, k)",
    "min(a)",
    "a = 1 and count(hand(me) where item != k) > 0",
    "count(hand(me) where item != k) > 0 or a = 1",
    "count(hand(me) where item = a) = 0 and a != 2 and count(tableau(me) where item = a) > 0",
    "a = 1 or count(hand(me) where item = a) = 0 or count(opponents where item = a) > 0",
    "count(hand(me) where item = a) > 0 and count(hand(me) where item = k + a) > 0",
]


class ExistsAsBefore(exists.ExistsCompiler, AsBefore):
    pass


def _compiled(text: str, compiler_class, pack: str = "cro-magnon"):
    ir, problem = dsl.parse(text, dsl.EXPRESSION)
    assert problem is None, problem
    return compiler_class(ruleset(pack), KEY, frozenset({"a", "k"})).compile(ir)


def _outcome(expression, env, me="P1", work=None, out=()):
    """The value or error of `expression` with the locals `env` (or `env` itself when it is no dict), and the work
    it charged."""
    game = Game.new(ruleset("cro-magnon"), 3, 0)
    if out:
        game.state["out"] = list(out)
    if work is not None:
        game.work = work
    before = game.work
    try:
        answer = ("value", expression(Ctx(game, dict(env) if isinstance(env, dict) else env, me, None)))
    except ContentError as exc:
        answer = ("content error", str(exc), exc.code, exc.code_key, exc.offset)
    return answer, before - game.work


@pytest.mark.parametrize("compilers", [(codegen.ExpressionCompiler, AsBefore), (exists.ExistsCompiler, ExistsAsBefore)])
@pytest.mark.parametrize("text", TEXTS)
def test_answers_charges_and_fails_as_before(text, compilers):
    fast = _compiled(text, compilers[0])
    saved = {name: functions.BUILTINS[name] for name in OLD_BUILTINS}
    functions.BUILTINS.update(OLD_BUILTINS)
    try:
        before = _compiled(text, compilers[1])
    finally:
        functions.BUILTINS.update(saved)
    for a in VALUES:
        for env in ({"a": a, "k": 5}, {"k": 5}, {}):
            for me, out in (("P1", ()), ("P2", ()), ("P1", ("P1",)), ("P2", ("P3",)), (None, ())):
                assert _outcome(fast, env, me, out=out) == _outcome(before, env, me, out=out), (text, env, me, out)
            for work in (-1, 0, 1, 2):
                assert _outcome(fast, env, work=work) == _outcome(before, env, work=work), (text, env, work)


@pytest.mark.parametrize("text", ["a", "count(hand(me) where item != a)"])
def test_an_environment_that_is_no_mapping_fails_as_before(text):
    """The frame's locals are always a dict (every `Ctx` is made with one); were they not, the same error at the same
    text (X106), Python's words about it aside."""
    fast, before = _compiled(text, codegen.ExpressionCompiler), _compiled(text, AsBefore)
    for env in (None, 3, ["a"]):
        (answer, work), (answer_before, work_before) = _outcome(fast, env), _outcome(before, env)
        assert (answer[0], answer[2:]) == (answer_before[0], answer_before[2:]), (text, env)
        assert work == work_before


def test_the_shapes_themselves():
    """The fast paths themselves (fail if they go)."""
    source = {}
    real = ahead.compiled.__wrapped__

    def spy(text, filename):
        source[filename] = text
        return real(text, filename)

    ahead.compiled, saved = spy, ahead.compiled
    try:  # (a test pack's sources: none is among those compiled ahead)
        for text in ['"hand"', "me", "a", "opponents", "flagged(done, me)", "count(hand(me) where item != a)"]:
            _compiled(text, codegen.ExpressionCompiler)
            made = source.pop(f"<{KEY}>")
            assert ("g = c.g" in made) == (
                text in ("opponents", "flagged(done, me)", "count(hand(me) where item != a)")
            )
            assert "_p for _p" not in made and (text != "a" or "in E else" not in made), made
            assert "c.me or c.me" not in made and "type(_source) is list" not in made, made
        _compiled(TEXTS[-1], exists.ExistsCompiler)  # two `where`s asked "has it an item?": two loops, no `any`
        made = source.pop(f"<{KEY}>")
        assert "any(" not in made and made.count("for _i0 in _items:") == 2, made
    finally:
        ahead.compiled = saved
    assert functions.BUILTINS["empty"] is functions._empty
    assert functions.BUILTINS["min"] is functions._min and functions.BUILTINS["max"] is functions._max


def test_min_and_max_of_values_as_before():
    game = Game.new(ruleset("cro-magnon"), 2, 0)
    c = Ctx(game, {}, "P1", None)
    for values in [(), (3,), (3, 1), (1, 3), (None, -2), (True, False, 4), ("7", 2), ([1], 2), (2, [1]), (1.5, 1)]:
        for name in ("min", "max"):
            outcomes = []
            for function in (OLD_BUILTINS[name], functions.BUILTINS[name]):
                try:
                    outcomes.append(("value", function(c, *values)))
                except (TypeError, ValueError) as exc:
                    outcomes.append((type(exc), str(exc)))
            assert outcomes[0] == outcomes[1], (name, values)
