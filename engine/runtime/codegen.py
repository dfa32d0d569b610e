"""Expressions of the DSL compiled to Python source, once per pack, then run as plain Python.

An expression becomes one Python function `f(c)`; a `where` becomes a list comprehension. Nothing
of the content is spliced into the source as code: numbers and texts go in through `repr`, names
only after matching the DSL's own identifier pattern. (Jinja2 compiles templates the same way.)
"""
from __future__ import annotations

import re

from . import functions
from .errors import ContentError

MAX_LIST = 10_000
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*\Z")
_PYTHON_ERRORS = (TypeError, ValueError, ZeroDivisionError, IndexError, KeyError, AttributeError)

_CONSTANTS = {
    "me": "c.me", "card": "c.card", "true": "True", "false": "False", "none": "None", "all": "'all'",
    "upright": "0", "turned": "1", "reversed": "2",
    "current": "g.state['turn']['player']",
    "players": "g.players_from(g.state['turn']['player'])",
    "opponents": "[_p for _p in g.players_from(c.me) if _p != c.me]",
    "player_count": "len(g.state['players'])",
    "turn_number": "g.state['turn']['number']",
}


# ---------------------------------------------------------------- helpers the generated code calls
def _num(value) -> int:
    if value is None:
        return 0
    if isinstance(value, (bool, int)):
        return int(value)
    raise ContentError(f"expected a number, got {value!r}")


def _add(g, a, b):
    if type(a) is int and type(b) is int:
        return a + b
    if isinstance(a, (int, bool)) and isinstance(b, (int, bool)) or a is None or b is None:
        return _num(a) + _num(b)
    items = g.items_of(a) + g.items_of(b)
    if len(items) > MAX_LIST:
        raise ContentError(f"a list grew past {MAX_LIST} items")
    return items


def _sub(g, a, b):
    if isinstance(a, (int, bool)) and isinstance(b, (int, bool)) or a is None or b is None:
        return _num(a) - _num(b)
    drop = g.items_of(b)
    return [x for x in g.items_of(a) if x not in drop]


def _div(a, b):
    a, b = _num(a), _num(b)
    if b == 0:
        raise ContentError("division by zero")
    return a // b


def _mod(a, b):
    a, b = _num(a), _num(b)
    if b == 0:
        raise ContentError("division by zero")
    return a % b


def _ordered(compare):
    def test(a, b):
        if type(a) is int and type(b) is int:
            return compare(a, b)
        if a is None or b is None:
            return False
        return compare(_num(a), _num(b))
    return test


def _index(g, items, i):
    items = g.items_of(items)
    return items[i - 1] if isinstance(i, int) and 1 <= i <= len(items) else None


def _local(name):
    raise ContentError(f"`{name}` has no value here yet")


_HELPERS = {
    "_num": _num, "_add": _add, "_sub": _sub, "_div": _div, "_mod": _mod, "_index": _index,
    "_lt": _ordered(int.__lt__), "_le": _ordered(int.__le__), "_gt": _ordered(int.__gt__),
    "_ge": _ordered(int.__ge__), "ContentError": ContentError, "_PYTHON_ERRORS": _PYTHON_ERRORS,
}
_ORDERED = {"<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}


class ExpressionCompiler:
    """Source for one expression; `scope` holds the names bound earlier in its effect."""

    def __init__(self, rules, key: str, scope):
        self.rules = rules
        self.key = key
        self.scope = scope
        self.namespace = dict(_HELPERS)
        self.items: list[str] = []          # the loop variables of the enclosing `where`s

    def compile(self, node):
        body = self.src(node)
        source = (f"def _expression(c):\n"
                  f"    g = c.g\n"
                  f"    E = c.env\n"
                  f"    try:\n"
                  f"        return {body}\n"
                  f"    except _PYTHON_ERRORS as exc:\n"
                  f"        raise ContentError(f'this cannot be done with these values ({{exc}})', "
                  f"{self.key!r}, {int(node[1])}) from None\n")
        code = compile(source, f"<{self.key}>", "exec")
        namespace = self.namespace
        exec(code, namespace)   # noqa: S102 -- our own generated source; content enters only through repr
        return namespace["_expression"]

    def _ident(self, word: str) -> str:
        if not _IDENTIFIER.match(word):   # the grammar allows nothing else; refuse rather than trust
            raise ContentError(f"`{word}` is not a name", self.key)
        return word

    def _bind(self, prefix: str, word: str, value) -> str:
        name = f"{prefix}_{self._ident(word)}"
        self.namespace[name] = value
        return name

    def src(self, node) -> str:
        return getattr(self, "_x_" + node[0])(node)

    def _x_num(self, node):
        return repr(int(node[2]))

    def _x_str(self, node):
        return repr(str(node[2]))

    def _x_name(self, node):
        word = node[2]
        if word in self.scope:
            return f"(E[{word!r}] if {word!r} in E else _local({word!r}))"
        if self.items and word in ("card", "item"):
            return self.items[-1]
        if word == "item":
            raise ContentError("`item` is only meaningful inside `where`", self.key, node[1])
        if word in _CONSTANTS:
            return _CONSTANTS[word]
        category = self.rules.categories.get(word)
        if category == "parameter":
            return f"g.params[{word!r}]"
        if category is not None:
            return repr(word)
        if self.items:
            getter = self._bind("F", word, functions.field_getter(word))
            return f"{getter}(g, {self.items[-1]})"
        raise ContentError(f"unknown name `{word}`", self.key, node[1])

    def _x_list(self, node):
        return "[" + ", ".join(self.src(item) for item in node[2]) + "]"

    def _x_call(self, node):
        _, at, name, args = node
        if name in functions.BUILTINS:
            bare = functions.NAME_ARGS.get(name, ())
            parts = [repr(a[2]) if i in bare and a[0] == "name" and a[2] not in self.scope else self.src(a)
                     for i, a in enumerate(args)]
            builtin = self._bind("B", name, functions.BUILTINS[name])
            return f"{builtin}(c, {', '.join(parts)})" if parts else f"{builtin}(c)"
        parts = [self.src(a) for a in args]
        if name in self.rules.functions:
            return f"g.call_function({name!r}, [{', '.join(parts)}], c)"
        if name in self.rules.zones:
            return f"('{self._ident(name)}:%s' % ({parts[0]},))"
        raise ContentError(f"unknown function `{name}`", self.key, at)

    def _x_field(self, node):
        getter = self._bind("F", node[3], functions.field_getter(node[3]))
        return f"{getter}(g, {self.src(node[2])})"

    def _x_index(self, node):
        return f"_index(g, {self.src(node[2])}, {self.src(node[3])})"

    def _x_neg(self, node):
        return f"(-_num({self.src(node[2])}))"

    def _x_not(self, node):
        return f"(not {self.src(node[2])})"

    def _x_and(self, node):
        return "bool(" + " and ".join(f"({self.src(p)})" for p in node[2]) + ")"

    def _x_or(self, node):
        return "bool(" + " or ".join(f"({self.src(p)})" for p in node[2]) + ")"

    def _x_op(self, node):
        _, _, op, left, right = node
        a, b = self.src(left), self.src(right)
        if op == "+":
            return f"_add(g, {a}, {b})"
        if op == "-":
            return f"_sub(g, {a}, {b})"
        if op == "*":
            return f"(_num({a}) * _num({b}))"
        return f"_div({a}, {b})" if op == "/" else f"_mod({a}, {b})"

    def _x_cmp(self, node):
        _, _, op, left, right = node
        if self.items and left[0] == "name" and left[2] == "tag" and "tag" not in self.scope:
            test = "in" if op == "==" else "not in"
            return f"({self.src(right)} {test} g.tags_of({self.items[-1]}))"
        a, b = self.src(left), self.src(right)
        if op in ("==", "!="):
            return f"({a} {op} {b})"
        return f"{_ORDERED[op]}({a}, {b})"

    def _x_where(self, node):
        source = self.src(node[2])
        item = f"_i{len(self.items)}"
        self.items.append(item)
        test = self.src(node[3])
        self.items.pop()
        return f"[{item} for {item} in g.items_of({source}) if {test}]"


def compile_expression(rules, key: str, node, scope):
    """A Python function of the evaluation context computing the expression `node` (lowered DSL)."""
    compiler = ExpressionCompiler(rules, key, scope)
    compiler.namespace["_local"] = _local
    return compiler.compile(node)
