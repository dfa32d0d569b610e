"""Compile the DSL's instruction tree into Python closures (expressions) and flat code (statements).

Expressions become nested closures `f(ctx) -> value`, built once per pack, so evaluating one is a
few Python calls rather than a walk over lists. Statements become a flat list of steps with jumps;
a frame in the game state is then just (code key, step index, locals), plain data that survives
save, load and clone at any decision. Values at run time are plain data too: numbers, booleans,
ids (text), card numbers (int), players ("P1"...), zone keys ("forest", "hand:P2"), lists and None.
"""
from __future__ import annotations

from .. import dsl
from . import functions

CONSTANT_NAMES = {"me", "current", "players", "opponents", "player_count", "card", "item", "turn_number", "true",
                  "false", "none", "upright", "turned", "reversed", "all"}
ORIENTATIONS = {"upright": 0, "turned": 1, "reversed": 2}
MAX_LIST = 10_000


class ContentError(Exception):
    """Content asked for something impossible at run time (a bad value, a limit); it names the spot."""

    def __init__(self, message: str, code_key: str = "", offset: int = 0):
        super().__init__(message)
        self.message = message
        self.code_key = code_key
        self.offset = offset


class Code:
    """The compiled steps of one effect, and the names its verbs bind."""
    __slots__ = ("key", "steps", "offsets")

    def __init__(self, key):
        self.key = key
        self.steps: list[tuple] = []
        self.offsets: list[int] = []


class Compiler:
    def __init__(self, rules, key: str, scope=()):
        self.rules = rules
        self.key = key
        self.scope = set(scope)
        self.slots = 0

    # ------------------------------------------------------------ statements
    def effect(self, ir) -> Code:
        code = Code(self.key)
        self._block(ir, code)
        return code

    def _emit(self, code, step, offset):
        code.steps.append(step)
        code.offsets.append(offset)
        return len(code.steps) - 1

    def _block(self, node, code):
        for stmt in node[2]:
            self._statement(stmt, code)

    def _statement(self, node, code):
        op = node[0]
        if op == "block":
            self._block(node, code)
        elif op == "let":
            self.scope.add(node[2])
            value = self.expr(node[3])
            self._emit(code, ("let", node[2], value), node[1])
        elif op == "verb":
            from .verbs import compile_verb
            step, binds = compile_verb(self, node)
            self.scope.update(binds)
            self._emit(code, step, node[1])
        elif op == "if":
            ends = []
            for cond, body in node[2]:
                test = self.expr(cond)
                jump = self._emit(code, ["unless", test, None], cond[1])
                self._block(body, code)
                ends.append(self._emit(code, ["jump", None], cond[1]))
                code.steps[jump][2] = len(code.steps)
            if node[3] is not None:
                self._block(node[3], code)
            for at in ends:
                code.steps[at][1] = len(code.steps)
        elif op == "repeat":
            slot = self._slot()
            count = self.expr(node[2])
            self._emit(code, ("repeat_init", slot, count), node[1])
            head = self._emit(code, ["repeat_next", slot, None], node[1])
            self._block(node[3], code)
            self._emit(code, ["jump", head], node[1])
            code.steps[head][2] = len(code.steps)
        elif op == "for":
            slot = self._slot()
            items = self.expr(node[3])
            self.scope.add(node[2])
            self._emit(code, ("for_init", slot, items), node[1])
            head = self._emit(code, ["for_next", slot, node[2], None], node[1])
            self._block(node[4], code)
            self._emit(code, ["jump", head], node[1])
            code.steps[head][3] = len(code.steps)
        elif op == "stop":
            self._emit(code, ("stop",), node[1])
        else:  # pragma: no cover -- the grammar has no other statements
            raise ContentError(f"unknown statement {op}", self.key, node[1])

    def _slot(self):
        self.slots += 1
        return f"${self.slots}"

    # ------------------------------------------------------------ expressions
    def expr(self, node, where=False):
        op = node[0]
        method = getattr(self, "_x_" + op)
        return method(node, where)

    def _x_num(self, node, where):
        value = node[2]
        return lambda c: value

    def _x_str(self, node, where):
        value = node[2]
        return lambda c: value

    def _x_name(self, node, where):
        word = node[2]
        if word in self.scope:
            def local(c):
                try:
                    return c.env[word]
                except KeyError:
                    raise ContentError(f"`{word}` has no value here yet", self.key, node[1]) from None
            return local
        if where and word in ("card", "item"):
            return lambda c: c.item
        if word in CONSTANT_NAMES:
            return _constant(word)
        category = self.rules.categories.get(word)
        if category == "parameter":
            return lambda c: c.g.params[word]
        if category is not None:
            return lambda c: word
        if where:
            getter = functions.field_getter(word)
            return lambda c: getter(c.g, c.item)
        raise ContentError(f"unknown name `{word}`", self.key, node[1])

    def _x_list(self, node, where):
        items = [self.expr(item, where) for item in node[2]]
        return lambda c: [f(c) for f in items]

    def _x_call(self, node, where):
        _, at, name, args = node
        if name in functions.BUILTINS:
            impl = functions.BUILTINS[name]
            bare = functions.NAME_ARGS.get(name, ())   # stat and flag names are written bare: pass the word
            compiled = [(lambda w: (lambda c: w))(a[2]) if i in bare and a[0] == "name" and a[2] not in self.scope
                        else self.expr(a, where) for i, a in enumerate(args)]
            key = self.key

            if len(compiled) == 1:
                (a,) = compiled
                evaluate = lambda c: impl(c, a(c))  # noqa: E731 -- the common arities, without a list
            elif len(compiled) == 2:
                a, b = compiled
                evaluate = lambda c: impl(c, a(c), b(c))  # noqa: E731
            else:
                evaluate = lambda c: impl(c, *[f(c) for f in compiled])  # noqa: E731

            def call(c):
                try:
                    return evaluate(c)
                except ContentError:
                    raise
                except (TypeError, ValueError, ZeroDivisionError, IndexError, KeyError) as exc:
                    raise ContentError(f"`{name}` failed: {exc}", key, at) from None
            return call
        compiled = [self.expr(a, where) for a in args]
        if name in self.rules.functions:
            return lambda c: c.g.call_function(name, [f(c) for f in compiled], c)
        if name in self.rules.zones:
            player = compiled[0]
            return lambda c: f"{name}:{player(c)}"
        raise ContentError(f"unknown function `{name}`", self.key, at)

    def _x_field(self, node, where):
        target = self.expr(node[2], where)
        getter = functions.field_getter(node[3])
        return lambda c: getter(c.g, target(c))

    def _x_index(self, node, where):
        target, index = self.expr(node[2], where), self.expr(node[3], where)

        def get(c):
            items = c.g.items_of(target(c))
            i = index(c)
            return items[i - 1] if isinstance(i, int) and 1 <= i <= len(items) else None
        return get

    def _x_neg(self, node, where):
        inner = self.expr(node[2], where)
        return lambda c: -_number(inner(c))

    def _x_not(self, node, where):
        inner = self.expr(node[2], where)
        return lambda c: not inner(c)

    def _x_and(self, node, where):
        parts = [self.expr(p, where) for p in node[2]]
        if len(parts) == 2:
            a, b = parts
            return lambda c: bool(a(c) and b(c))
        return lambda c: all(p(c) for p in parts)

    def _x_or(self, node, where):
        parts = [self.expr(p, where) for p in node[2]]
        if len(parts) == 2:
            a, b = parts
            return lambda c: bool(a(c) or b(c))
        return lambda c: any(p(c) for p in parts)

    def _x_op(self, node, where):
        _, at, op, left_node, right_node = node
        left, right = self.expr(left_node, where), self.expr(right_node, where)
        key = self.key
        if op == "+":
            def add(c):
                a, b = left(c), right(c)
                if type(a) is int and type(b) is int:
                    return a + b
                if isinstance(a, (int, bool)) and isinstance(b, (int, bool)) or a is None or b is None:
                    return _number(a) + _number(b)
                return _cap(c.g.items_of(a) + c.g.items_of(b), key, at)
            return add
        if op == "-":
            def sub(c):
                a, b = left(c), right(c)
                if isinstance(a, (int, bool)) and isinstance(b, (int, bool)) or a is None or b is None:
                    return _number(a) - _number(b)
                drop = c.g.items_of(b)
                return [x for x in c.g.items_of(a) if x not in drop]
            return sub
        if op == "*":
            return lambda c: _number(left(c)) * _number(right(c))

        def divide(c):
            a, b = _number(left(c)), _number(right(c))
            if b == 0:
                raise ContentError(f"division by zero in `{op}`", key, at)
            return a // b if op == "/" else a % b
        return divide

    def _x_cmp(self, node, where):
        _, at, op, left_node, right_node = node
        if where and left_node[0] == "name" and left_node[2] == "tag" and "tag" not in self.scope:
            wanted = self.expr(right_node, where)
            if op == "==":
                return lambda c: wanted(c) in c.g.tags_of(c.item)
            return lambda c: wanted(c) not in c.g.tags_of(c.item)
        left, right = self.expr(left_node, where), self.expr(right_node, where)
        if op == "==":
            return lambda c: left(c) == right(c)
        if op == "!=":
            return lambda c: left(c) != right(c)
        compare = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__}[op]

        def ordered(c):
            a, b = left(c), right(c)
            if a is None or b is None:
                return False
            return compare(_number(a), _number(b))
        return ordered

    def _x_where(self, node, where):
        source = self.expr(node[2], where)
        test = self.expr(node[3], True)

        def keep(c):
            outer = c.item
            kept = []
            for item in c.g.items_of(source(c)):
                if item is None:
                    continue
                c.item = item
                if test(c):
                    kept.append(item)
            c.item = outer
            return kept
        return keep


def _constant(word):
    fixed = {"true": True, "false": False, "none": None, "all": "all", **ORIENTATIONS}
    if word in fixed:
        value = fixed[word]
        return lambda c: value
    return {
        "me": lambda c: c.me,
        "item": lambda c: c.item,
        "card": lambda c: c.card,
        "current": lambda c: c.g.state["turn"]["player"],
        "players": lambda c: c.g.players_from(c.g.state["turn"]["player"]),
        "opponents": lambda c: [p for p in c.g.players_from(c.me) if p != c.me],
        "player_count": lambda c: len(c.g.state["players"]),
        "turn_number": lambda c: c.g.state["turn"]["number"],
    }[word]


def _number(value) -> int:
    if value is None:
        return 0
    if isinstance(value, (bool, int)):
        return int(value)
    raise ContentError(f"expected a number, got {value!r}")


def _cap(items, key, at):
    if len(items) > MAX_LIST:
        raise ContentError(f"a list grew past {MAX_LIST} items", key, at)
    return items


def compile_text(rules, key: str, text: str, mode: str, scope=()):
    ir, problem = dsl.parse(text, mode)
    if problem is not None:  # lint refuses such packs; a pack loaded without lint still fails clearly
        raise ContentError(problem.message, key, problem.offset)
    compiler = Compiler(rules, key, scope)
    if mode == dsl.EFFECT:
        return compiler.effect(ir)
    return compiler.expr(ir)


def compile_rules(rules) -> None:
    """Compile every effect, condition and function body of the pack into `rules.code`."""
    for kind, docs in (("action", rules.actions.values()), ("function", rules.functions.values()),
                       ("phase", [d for group in rules.phases.values() for d in group]),
                       ("end", rules.ends), ("scoring", rules.scorings),
                       ("card", rules.cards.values())):
        for doc in docs:
            for fld, mode in (("effect", dsl.EFFECT), ("available", dsl.CONDITION), ("trigger", dsl.CONDITION),
                              ("body", dsl.EXPRESSION)):
                text = doc.get(fld)
                if isinstance(text, str):
                    key = f"{kind}/{doc['id']}/{fld}"
                    scope = doc.get("params") or () if kind == "function" else ()
                    rules.code[key] = compile_text(rules, key, text, mode, scope)

