"""Expressions of the DSL compiled to Python source, once per pack, then run as plain Python.

An expression becomes one Python function `f(c)`; a `where` becomes a list comprehension. Nothing
of the content is spliced into the source as code: numbers and texts go in through `repr`, names
only after matching the DSL's own identifier pattern. (Jinja2 compiles templates the same way.)
"""

from __future__ import annotations

import ast
import functools
import re
import types
from typing import Any

from engine import dsl
from engine.dsl.builtins import CONSTANTS, FUNCTIONS, ORIENTATIONS, implemented

from . import functions, layout
from .ahead import define
from .budget import (
    CALL_COST,
    MAX_CALL_DEPTH,
    MAX_INT,
    MAX_SIZE,
    bounded_int,
    check_size,
    expanded_size,
    out_of_work,
    spend,
)
from .errors import PYTHON_ERRORS, ContentError, at_text, values_error

MAX_LIST = MAX_SIZE
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*\Z")
# generated source whose value may be read twice in one expression: a Python variable, or the context's card or player
_READ_TWICE = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*|c\.card|c\.me)\Z")
# an expression that only reads a name bound earlier (`_x_name`), its name's text the group
_LOCAL_READ = re.compile(r"\(E\[('[a-z_][a-z0-9_]*')\] if \1 in E else _local\(\1\)\)\Z")
# whether generated source reads the game `g` (a text that merely holds the letter as a word keeps it: harmless)
_READS_GAME = re.compile(r"\bg\b")

# `item` (and `card` inside `where`) is the thing a `where` tests: `_x_name` gives it.
_CONSTANTS = implemented(
    "constants",
    CONSTANTS,
    elsewhere=("item",),
    implementation={
        "me": "c.me",
        "card": "c.card",
        "true": "True",
        "false": "False",
        "none": "None",
        "all": "'all'",
        **{word: str(number) for number, word in enumerate(ORIENTATIONS)},
        "current": "g.state['turn']['player']",
        "players": "g.in_play_from(g.state['turn']['player'])",
        "opponents": "_opponents(g, c.me)",
        "all_players": "g.players_from(g.state['turn']['player'])",
        "player_count": "len(g.state['players'])",
        "table": "'table'",
        "turn_number": "g.state['turn']['number']",
    },
)


# ---------------------------------------------------------------- helpers the generated code calls
def _num(value) -> int:
    if value is None:
        return 0
    if isinstance(value, (bool, int)):
        return int(value)
    raise ContentError(f"expected a number, got {value!r}", code="X107")


def _add(g, a, b):
    if type(a) is int and type(b) is int:
        return a + b
    if isinstance(a, int) and isinstance(b, int) or a is None or b is None:  # numbers, yes/no (1 or 0), none (0)
        return _num(a) + _num(b)
    # the items of both, joined into a new list: a list without gaps is read as it is (as Table.items_read reads it)
    a_list, b_list = type(a) is list, type(b) is list
    items = (a if a_list and None not in a else g.items_read(a)) + (b if b_list and None not in b else g.items_read(b))
    if len(items) > MAX_LIST:
        raise ContentError(f"a list grew past {MAX_LIST} items", code="X103")
    if (a_list or b_list) and list in map(type, items):  # lists in it: count what they hold
        return check_size(items, g=g)
    g.work -= len(items)
    if g.work < 0:
        out_of_work()
    return items


def _sub(g, a, b):
    if type(a) is int and type(b) is int:
        return a - b
    if isinstance(a, (int, bool)) and isinstance(b, (int, bool)) or a is None or b is None:
        return _num(a) - _num(b)
    keep, drop = g.items_read(a), g.items_read(b)
    spend(g, len(keep) * (1 + expanded_size(drop)))  # each kept item is compared with what is dropped
    return [x for x in keep if x not in drop]


def _mul(a, b, key, at):
    product = _num(a) * _num(b)
    if -MAX_INT <= product <= MAX_INT:
        return product
    return bounded_int(product, key, at)


def _eq(g, a, b):
    """`a = b` of two values neither of which is written out in the text: two lists cost their length."""
    if type(a) is list and type(b) is list:
        spend(g, min(expanded_size(a), expanded_size(b)))
    return a == b


def _each(g, source, weight, key, at):
    """The items a `where` tests, paid for: the size of its test for each item. Only read (a zone's own list
    may come back: Table.items_read, without its call for a list without gaps or a zone without places, the
    commonest sources); the comprehension builds the new list. (`_each_lines` writes the same as statements.)"""
    kind = type(source)
    if kind is list:
        items = source if None not in source else g.items_read(source)
    elif kind is str:
        zones: dict = g.state["zones"]  # (a dict to Cython: `get` called in C, not looked up by name)
        items = zones.get(source)
        if items is None or source in g._slotted:
            items = g.items_read(source)
    else:
        items = g.items_read(source)
    g.work -= len(items) * weight
    if g.work < 0:
        out_of_work(key, at)
    return items


def _built(g, items, key, at):
    """A list written in the text whose items are values: lists inside it count for what they hold."""
    if list in map(type, items):
        return check_size(items, key, at, g)
    return items


def _div(a, b):
    a, b = _num(a), _num(b)
    if b == 0:
        raise ContentError("division by zero", code="X108")
    return a // b


def _mod(a, b):
    a, b = _num(a), _num(b)
    if b == 0:
        raise ContentError("division by zero", code="X108")
    return a % b


# `a < b` and the like: two numbers (the commonest case) compared at once; `none` has no order (false); a yes/no
# counts as 0 or 1; anything else is an error (_num)
def _lt(a, b):
    if type(a) is int and type(b) is int:
        return a < b
    return a is not None and b is not None and _num(a) < _num(b)


def _le(a, b):
    if type(a) is int and type(b) is int:
        return a <= b
    return a is not None and b is not None and _num(a) <= _num(b)


def _gt(a, b):
    if type(a) is int and type(b) is int:
        return a > b
    return a is not None and b is not None and _num(a) > _num(b)


def _ge(a, b):
    if type(a) is int and type(b) is int:
        return a >= b
    return a is not None and b is not None and _num(a) >= _num(b)


def _opponents(g, me) -> list:
    """`opponents`: the players in play from `me` on, less `me`, who comes first when in play (a new list, without a
    comprehension made and run at each read: a menu asks it again and again). With nobody out of the game or the round,
    the seats after `me`, then those before (`in_play_from` without its call, nor its list cut again)."""
    state: dict = g.state  # (a dict to Cython: `get` called in C)
    if not state.get("out"):
        order = state["players"]
        try:
            i = order.index(me)
        except ValueError:  # `me` is no seat: every seat
            return [p for p in order if p != me]
        return order[i + 1 :] + order[:i]
    players = g.in_play_from(me)
    if players and players[0] == me:
        return players[1:]
    return [p for p in players if p != me]


def _keep(cell: list, value):
    """`value`, kept in `cell` for the later items of the loop that made the cell (`Loop`)."""
    cell.append(value)
    return value


def _index(g, items, i):
    """`LIST[i]`, counting from 1: a list keeps its places, a `none` in it included (`[c.a_needs, none][2]` is
    the second item, never a later one moved up); a zone reads as its cards. (`ExpressionCompiler.statements`
    writes the same as statements.)"""
    if type(items) is not list:
        items = g.items_read(items)
    size = len(items)
    g.work -= size  # spend(), without its call: a menu reads many places
    if g.work < 0:
        out_of_work()
    return items[i - 1] if isinstance(i, int) and 0 < i <= size else None


def _position(g, low, high, items, value, weight, key, at):
    """`first(numbers(LOW, HIGH) where ITEMS[item] = VALUE)` in one call: the same answer, errors and work (charged at
    once: it only reads); ITEMS and VALUE are `_free`, worked out once."""
    if high - low > functions.MAX_NUMBERS:  # as `numbers` checks and pays
        raise ValueError(f"numbers({low}, {high}) would hold more than {functions.MAX_NUMBERS} numbers")
    count = high - low + 1
    if count <= 0:
        return None
    if type(items) is list and value is not None and type(value) is not list:  # the commonest: a list of places
        left = g.work - count * (1 + weight + len(items))  # `numbers`, the `where` and `_index`, at once ...
        if left >= 0:  # ... when the budget covers all three (else each as below, which says where it ran out)
            start, stop = max(low, 1), min(high, len(items))
            window = items[start - 1 : stop] if start <= stop else []
            matches = window.count(value)
            g.work = left - matches
            if g.work < 0:
                out_of_work()
            return window.index(value) + start if matches else None
    g.work -= count  # `numbers`' list
    if g.work < 0:
        out_of_work()
    g.work -= count * weight  # the `where`, paying its test for each of its items
    if g.work < 0:
        out_of_work(key, at)
    if type(items) is not list:
        items = g.items_read(items)
    size = len(items)
    g.work -= count * size  # `_index` for each number
    if g.work < 0:
        out_of_work()
    if value is None or type(value) is list:  # a number past the list reads `none`; two lists pay for their size
        found = []
        for number in range(low, high + 1):
            listed = items[number - 1] if 0 < number <= size else None
            if type(listed) is list and type(value) is list:
                spend(g, min(expanded_size(listed), expanded_size(value)))
            if listed == value:
                found.append(number)
        matches, first = len(found), found[0] if found else None
    else:  # only the numbers that name a place of the list may match
        start, stop = max(low, 1), min(high, size)
        window = items[start - 1 : stop] if start <= stop else []
        matches = window.count(value)
        first = window.index(value) + start if matches else None
    g.work -= matches  # `first` reads the list of the matching numbers
    if g.work < 0:
        out_of_work()
    return first


def _matches(g, source, weight, key, at, value):
    """`count(SOURCE where item = VALUE)` in one call: `_each`'s items and work, then VALUE's copies among them with no
    Python step per item (a pack function asks it of every place of a menu): the same answer, errors and work."""
    kind = type(source)  # (`_each`, then `_matches`)
    if kind is list:
        items = source if None not in source else g.items_read(source)
    elif kind is str:
        zones: dict = g.state["zones"]  # (a dict to Cython: `get` called in C, not looked up by name)
        items = zones.get(source)
        if items is None or source in g._slotted:
            items = g.items_read(source)
    else:
        items = g.items_read(source)
    g.work -= len(items) * weight
    if g.work < 0:
        out_of_work(key, at)
    count = sum(1 for item in items if _eq(g, item, value)) if type(value) is list else items.count(value)
    g.work -= count
    if g.work < 0:
        out_of_work()
    return count


def _holds(g, items, value):
    """`count(SOURCE where item = VALUE) > 0` of the items `_each` gave, with no Python step per item."""
    if type(value) is not list:
        return value in items
    return any(_eq(g, item, value) for item in items)


def text_keyed(names: dict) -> dict:
    """A namespace for generated code: a copy of `names` made key by key into a new dict, which CPython then knows
    holds only text keys, so that the code's reads of its globals and builtins specialise (3.11: LOAD_GLOBAL_MODULE,
    LOAD_GLOBAL_BUILTIN). A copy of a dict made otherwise keeps the kind of keys of its source, and a dict literal of
    more than 8 entries in a module compiled by Cython is made by `_PyDict_NewPresized`, of keys of any kind: the
    code run in a copy of it read every global by name, twice for a builtin (tests/test_runtime_speed_zn_namespaces.py)."""
    namespace: dict = {}
    for name, value in names.items():  # (not `dict(names)` nor `update`: they copy the kind with the keys)
        namespace[name] = value
    return namespace


def local_unset(name):
    raise ContentError(f"`{name}` has no value here yet", code="X109")


def pack_function(rules, name: str):
    """The caller of the pack function `name`, made once per pack: `caller(c, key, at, *args)` runs its
    body for the text `key` at offset `at`, its price paid. Its parameters, body and price are looked up
    once (the body is compiled after some of its callers: on the first call), and the caller's context is
    lent to the body with the parameters as its locals, then given back, rather than a new one made."""
    body_key = f"function/{name}/body"
    return function_caller(rules, name, "_pack_functions", lambda: rules.code[body_key])


def function_caller(rules, name: str, table: str, compile_body):
    """A caller of the pack function `name` whose body `compile_body()` gives on the first call, cached in
    the pack's `table`: the depth limit, the body's price and the lent context, in one place for every way
    a body is compiled (as written, or as "is the list not empty?" in exists.py)."""
    callers = rules.__dict__.setdefault(table, {})
    cached = callers.get(name)
    if cached is not None:
        return cached
    body_key = f"function/{name}/body"
    params = tuple(rules.functions[name].get("params") or ())
    body = None

    def caller(c, key, at, *args):
        nonlocal body
        if body is None:
            body = compile_body()
        depth = c.depth
        if depth >= MAX_CALL_DEPTH:
            raise ContentError(f"functions call each other more than {MAX_CALL_DEPTH} deep", body_key, code="X104")
        g = c.g
        g.work -= body.call_cost
        if g.work < 0:
            out_of_work(key, at)
        env = c.env
        c.env, c.depth = dict(zip(params, args, strict=False)), depth + 1
        try:
            return body(c)
        finally:
            c.env, c.depth = env, depth

    callers[name] = caller
    return caller


def direct_function(rules, name: str, compiler_class, arity: int, *, exists: bool = False):
    """The pack function `name` as one plain Python function `f(c, key, at, *params)`, for the compiled
    call sites of expressions: its parameters are Python arguments and variables (no environment of
    names made and swapped at each call), its price is paid as `function_caller` pays it, and its errors
    point into its own body as before. None for a function that may reach itself through calls (it keeps
    `pack_function`'s caller and its depth limit), one without a text body, or a call with another number
    of arguments than the function's parameters. `exists`: the function asked only "is your list not
    empty?", its body compiled as `count(BODY) > 0` by `compiler_class` (exists.py), at the price of the
    body itself. Made once per pack, compiler class and question."""
    params = tuple(rules.functions[name].get("params") or ())
    if len(params) != arity or name in _cyclic_functions(rules):
        return None
    made = rules.__dict__.setdefault("_direct_functions", {})
    key = (name, compiler_class, exists)
    if key in made:
        return made[key]
    ir = function_body_ir(rules, name)
    if ir is None:
        made[key] = None
        return None
    body_key = f"function/{name}/body"
    names = {p: f"v_{_name_checked(p)}" for p in params}
    compiler = compiler_class(rules, body_key, frozenset(params), names)
    at = int(ir[1])
    asked = ["cmp", at, ">", ["call", at, "count", [ir]], ["num", at, 0]] if exists else ir
    before, body = compiler.statements(asked)
    arguments = "".join(f", {names[p]}" for p in params)
    source = (
        f"def _function(c, _key, _at{arguments}):\n"
        f"    g = c.g\n"
        f"    g.work -= {CALL_COST + weight(ir)}\n"
        f"    if g.work < 0:\n"
        f"        out_of_work(_key, _at)\n" + _returned(before, body, body_key, at)
    )
    namespace = compiler.namespace
    namespace["out_of_work"] = out_of_work
    define(source, f"<direct {body_key}>", namespace)  # (generated; content only via repr)
    made[key] = namespace["_function"]
    return made[key]


def _returned(before: list[str], body: str, key: str, at: int) -> str:
    """The lines of a generated function that run the statements `before`, then return `body`, a Python error in
    them becoming the content's X106 and any ContentError without a place placed at the text `key`, offset `at`."""
    return (
        "    try:\n" + "".join(f"        {line}\n" for line in before) + f"        return {body}\n"
        f"    except _PYTHON_ERRORS as exc:\n"
        f"        raise _values_error(exc, {key!r}, {at}) from None\n"
        f"    except ContentError as exc:\n"
        f"        _at_text(exc, {key!r}, {at})\n"
        f"        raise\n"
    )


@functools.lru_cache(maxsize=4096)  # (a pack's bodies are the same at every load: looked at once)
def constant_of(body: str) -> tuple | None:
    """(value,) when the source `body` of an expression is one constant (a zone's or an action's name written
    bare, `true`, a number within the bounds): the expression's every call returns it, reads nothing and
    raises nothing, so a verb may read it once when it is built (`VerbStep.argument`); else None. A body is parsed only
    when it starts as a constant would (a quote, digits, a yes or no, nothing)."""
    if not (body[:1] in ("'", '"') or body.isdigit() or body in ("True", "False", "None")):
        return None
    try:
        tree = ast.parse(body, mode="eval").body
    except SyntaxError:  # pragma: no cover -- codegen's own source always parses
        return None
    if not isinstance(tree, ast.Constant):
        return None
    value = tree.value
    if value is None or type(value) in (str, bool) or type(value) is int and -MAX_INT <= value <= MAX_INT:
        return (value,)
    return None


def _always_text(source: str) -> bool:
    """Whether generated source is always a text when it has a value: a text written out, or one `%`-formatted from
    one (a zone's key made from a player, `_x_call`)."""
    tree = ast.parse(source, mode="eval").body
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.Mod):
        tree = tree.left
    return isinstance(tree, ast.Constant) and type(tree.value) is str


def _name_checked(word: str, key: str = "") -> str:
    if not _IDENTIFIER.match(word):  # the grammar allows nothing else; refuse rather than trust
        raise ContentError(f"`{word}` is not a name", key, code="X502")
    return word


def function_body_ir(rules, name: str):
    """The parsed body of the pack function `name` (None for one without a text body, or one that does not
    parse), parsed once per pack: the direct callers here and exists.py's short cuts read the same tree."""
    parsed = rules.__dict__.setdefault("_function_body_ir", {})
    if name not in parsed:
        text = rules.functions[name].get("body")
        ir, problem = dsl.parse(text, dsl.EXPRESSION) if isinstance(text, str) else (None, True)
        parsed[name] = None if problem is not None else ir
    return parsed[name]


def _cyclic_functions(rules) -> frozenset:
    """The pack functions that may call themselves again, through other functions or directly."""
    found = rules.__dict__.get("_cyclic_functions")
    if found is not None:
        return found
    import networkx as nx  # on first use: most packs have no recursion to find, and networkx takes ~0.1 s to load

    graph: nx.DiGraph[str] = nx.DiGraph()
    for name in rules.functions:
        graph.add_node(name)
        ir = function_body_ir(rules, name)
        stack = [ir] if ir is not None else []
        while stack:
            node = stack.pop()
            if isinstance(node, (list, tuple)):
                if len(node) >= 3 and node[0] == "call" and node[2] in rules.functions:
                    graph.add_edge(name, node[2])
                stack.extend(node)
    cyclic = {
        n
        for component in nx.strongly_connected_components(graph)
        for n in component
        if len(component) > 1 or graph.has_edge(n, n)
    }
    rules.__dict__["_cyclic_functions"] = frozenset(cyclic)
    return rules.__dict__["_cyclic_functions"]


_HELPERS: dict[str, Any] = {
    "_num": _num,
    "_add": _add,
    "_sub": _sub,
    "_div": _div,
    "_mod": _mod,
    "_index": _index,
    "_mul": _mul,
    "_eq": _eq,
    "_each": _each,
    "_position": _position,
    "_matches": _matches,
    "_holds": _holds,
    "_keep": _keep,
    "_opponents": _opponents,
    "_built": _built,
    "_local": local_unset,
    "_lt": _lt,
    "_le": _le,
    "_gt": _gt,
    "_ge": _ge,
    "ContentError": ContentError,
    "_PYTHON_ERRORS": PYTHON_ERRORS,
    "_values_error": values_error,
    "_at_text": at_text,
}
_ORDERED = {"<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}
# the flags or counters of a holder who has none yet
_EMPTY_MAPPING: types.MappingProxyType = types.MappingProxyType({})

# Whether a part of a loop's test that is the same for every item is worked out once per evaluation of the loop
# (`ExpressionCompiler.src`); off only in the tests that play whole games both ways.
HOISTING = True


class Loop:
    """A loop of the generated code (a `where`'s comprehension) that keeps values for its items: one cell each, a
    list made new and empty at each evaluation of the loop, filled where the test first works the value out."""

    __slots__ = ("cells",)

    def __init__(self):
        self.cells: list[str] = []

    def head(self) -> str:
        """The comprehension's first `for`, which makes the cells ("" when the loop keeps nothing)."""
        if not self.cells:
            return ""
        if len(self.cells) == 1:
            return f"for {self.cells[0]} in ([],) "
        return f"for {', '.join(self.cells)} in (({'[], ' * len(self.cells)}),) "


class ExpressionCompiler:
    """Source for one expression; `scope` holds the names bound earlier in its effect."""

    def __init__(self, rules, key: str, scope, python_locals: dict[str, str] | None = None):
        self.rules = rules
        self.key = key
        self.scope = scope
        self.python_locals = python_locals or {}  # names held in Python variables (a function's parameters)
        self.namespace = text_keyed(_HELPERS)
        self.items: list[str] = []  # the loop variables of the enclosing `where`s
        self.loops: list[Loop | None] = []  # per loop variable: its loop, None for one that keeps no values
        self.blocked: frozenset[int] = frozenset()  # loops that may keep no value now (`_kept`)
        self.item_reads = 0  # the loop variables the source made so far reads (bit i: `self.items[i]`)
        self.cells_made = 0
        self.reads_env = False  # whether the source made so far reads a name bound earlier (`E`, the frame's locals)
        self.temporaries = 0  # Python variables made for values read twice (`_temporary`)
        self.in_iterable = 0  # > 0 while making a comprehension's first iterable, where `:=` is refused
        self._reads_known: dict[tuple[int, int], tuple[list, int]] = {}
        self.read_only = None  # the argument being made for a built-in that only reads it (`_read_only`)
        self._wheres: dict[tuple[str, str], tuple] = {}  # (loops, test) of each `where` made: its parts (`statements`)
        self.exists_calls: dict[tuple[str, str], str] = {}  # (loops, test) of a `where`: "has it an item?" in a call

    def compile(self, node, per_item: bool = False):
        """`per_item`: a function of the context and one item, `item` bound to it (as inside `where`): how a
        `choose ... showing LABEL` words each option."""
        outer = self.items, self.loops
        if per_item:
            self.items, self.loops = ["_i0"], [None]
        before, body = self.statements(node)
        self.items, self.loops = outer
        head = "def _expression(c, _i0):\n" if per_item else "def _expression(c):\n"
        env = "    E = c.env\n" if self.reads_env else ""  # the frame's locals, read by names bound earlier only
        # the value as one Python expression, for lowering.py to write the plainest into its code without the call
        inline_body = body if not per_item and not before else None
        local = _LOCAL_READ.match(body) if not before else None
        if local is not None:  # only a name bound earlier (the commonest expression): one look-up, not `in` then `[]`
            env, word = "", local.group(1)
            before, body = ["try:", f"    return c.env[{word}]", "except KeyError:", "    pass"], f"_local({word})"
        returned = _returned(before, body, self.key, int(node[1]))
        game = "    g = c.g\n" if _READS_GAME.search(returned) else ""  # not read by a constant, `me`, a local...
        source = head + game + env + returned
        namespace = self.namespace
        define(source, f"<{self.key}>", namespace)  # (our own generated source; content enters only through repr)
        expression = namespace["_expression"]
        expression.call_cost = CALL_COST + weight(node)  # what calling it costs, as a pack function's body
        if inline_body is not None:
            expression.inline_body = inline_body
            # what its body reads (not `__globals__`: the globals of a function a factory made are its module's)
            expression.namespace = namespace
            expression.inline_at = (self.key, int(node[1]))  # where its errors are placed (`_returned`)
            value = constant_of(inline_body)
            if value is not None:
                expression.constant = value
        return expression

    def statements(self, node) -> tuple[list[str], str]:
        """(statements, value): the source of a function's whole expression `node`, as statements that run first and
        the value it returns. `LIST[i]` (a pack function `[c.a_food, c.b_food][k]`, asked many times a decision) does
        `_index`'s work in statements of its own, without the call: the same reads, work, errors and answer."""
        if node[0] in ("and", "or") and all(map(self._yes_no, node[2])):
            return self._joined_statements(node[0], node[2])
        if node[0] != "index":
            return self._where_statements(self.src(node))
        listed = node[2]
        lines = [f"_listed = {self.src(listed)}", f"_place = {self.src(node[3])}"]
        if listed[0] == "list" and all(self._static(item) for item in listed[2]):
            size = str(len(listed[2]))  # a list written out (`_x_list`, no `_built`): its places known
        else:
            size = "_size"
            lines += ["if type(_listed) is not list:", "    _listed = g.items_read(_listed)", "_size = len(_listed)"]
        self.namespace["out_of_work"] = out_of_work
        lines += [f"g.work -= {size}", "if g.work < 0:", "    out_of_work()"]
        return lines, f"_listed[_place - 1] if isinstance(_place, int) and 0 < _place <= {size} else None"

    def _where_statements(self, body: str) -> tuple[list[str], str]:
        """(statements, value) of a function whose whole expression is the source `body`. When that is a `where` made
        here (`[ITEM for ITEM in _each(...) if TEST]`) or "has it an item?" of one (`any(True for ...)`, exists.py),
        `_each`'s work is done in statements without its call, and "has it an item?" is a plain `for` loop that
        returns at the first item (no generator, no `any`), over `_cached_where`'s items for a cached `where`: the
        same items, work, errors and answer."""
        for (loops, test), (item, loop, source, cost, at) in self._wheres.items():
            if body == f"[{item} {loops} if {test}]":
                if cost is None:  # a cached `where`: already a comprehension over the kept items
                    break
                return self._each_lines(source, cost, at), f"[{item} {loop.head()}for {item} in _items if {test}]"
            for found, answer in (
                (f"any(True {loops} if {test})", True),
                (f"(not any(True {loops} if {test}))", False),
            ):
                if body == found:
                    lines = [f"{cell} = []" for cell in loop.cells]
                    if cost is None:  # a cached `where` (`_cached_where`): its items are `source`'s
                        lines.append(f"for {item} in {source}:")
                    else:
                        lines += self._each_lines(source, cost, at) + [f"for {item} in _items:"]
                    lines += [f"    if {test}:", f"        return {answer}"]
                    return lines, repr(not answer)
        return [], body

    def _joined_statements(self, joint: str, parts) -> tuple[list[str], str]:
        """(statements, value) of a function whose whole expression is `A and B ...` (or `or`) of tests that are each
        True or False (`_joined_tests` makes them `(A) and (B)`, no `bool`): each part's source made in the same order,
        tested in turn, the function returning at the first that decides; "has it an item?" of a `where` made here
        a plain `for` loop (as `_where_statements` makes it), not a generator asked by `any`: the same answer, work
        and errors."""
        deciding = joint == "or"  # the value of a part that decides the whole: True for `or`, False for `and`
        lines: list[str] = []
        for source in [self.src(part) for part in parts]:
            loop = self._exists_loop(source)
            if loop is None:
                lines += [f"if {'' if deciding else 'not '}({source}):", f"    return {deciding}"]
                continue
            head, test, answer = loop
            lines += head + [f"    if {test}:"]
            if answer is deciding:  # the first item found decides
                lines.append(f"        return {deciding}")
            else:  # no item found decides
                lines += ["        break", "else:", f"    return {deciding}"]
        return lines, repr(not deciding)

    def _exists_loop(self, source: str) -> tuple[list[str], str, bool] | None:
        """(statements up to the loop's `for` line, the test of each item, True for "has it an item?" or False for "has
        it none?") when `source` is one of these of a `where` made here (`_where_statements`' shapes), else None."""
        for (loops, test), (item, loop, items, cost, at) in self._wheres.items():
            for found, answer in (
                (f"any(True {loops} if {test})", True),
                (f"(not any(True {loops} if {test}))", False),
            ):
                if source == found:
                    lines = [f"{cell} = []" for cell in loop.cells]
                    if cost is None:  # a cached `where` (`_cached_where`): its items are `items`'
                        lines.append(f"for {item} in {items}:")
                    else:
                        lines += self._each_lines(items, cost, at) + [f"for {item} in _items:"]
                    return lines, test, answer
        return None

    def _each_lines(self, source: str, cost: int, at: int) -> list[str]:
        """`_items = _each(g, SOURCE, COST, KEY, AT)` as statements, without the call."""
        self.namespace["out_of_work"] = out_of_work
        if _always_text(source):  # a zone's name or key (`'hand:%s' % (c.me,)`): only `_each`'s branch for a text
            return [
                f"_source = {source}",
                "_items = g.state['zones'].get(_source)",
                "if _items is None or _source in g._slotted:",
                "    _items = g.items_read(_source)",
                f"g.work -= len(_items) * {cost}",
                "if g.work < 0:",
                f"    out_of_work({self.key!r}, {at})",
            ]
        return [
            f"_source = {source}",
            "if type(_source) is list:",
            "    _items = _source if None not in _source else g.items_read(_source)",
            "elif type(_source) is str:",
            "    _items = g.state['zones'].get(_source)",
            "    if _items is None or _source in g._slotted:",
            "        _items = g.items_read(_source)",
            "else:",
            "    _items = g.items_read(_source)",
            f"g.work -= len(_items) * {cost}",
            "if g.work < 0:",
            f"    out_of_work({self.key!r}, {at})",
        ]

    def _ident(self, word: str) -> str:
        return _name_checked(word, self.key)

    def _bind(self, prefix: str, word: str, value) -> str:
        name = f"{prefix}_{self._ident(word)}"
        self.namespace[name] = value
        return name

    def src(self, node) -> str:
        """Python source of `node`. Inside loops, a part of a test that reads no item of the loops around it up to
        some loop (nor anything that changes while an expression is worked out: the DSL's functions only read the
        state) is the same for every item of that loop: it is kept for them (`_kept`)."""
        if self.loops and node[0] not in _LEAVES:
            loop = self._keeping_loop(self._loop_reads(node, len(self.items)))
            if loop is not None and self._worth_keeping(node):
                return self._kept(loop, lambda: getattr(self, "_x_" + node[0])(node))
        return getattr(self, "_x_" + node[0])(node)

    def _keeping_loop(self, reads: int) -> int | None:
        """The outermost loop around the source being made that may keep a value reading the loop variables `reads`
        (bit i: `self.items[i]`): one inside the last loop read, that keeps values, and not blocked. None if none."""
        if not HOISTING:
            return None
        for index in range(reads.bit_length(), len(self.items)):
            if self.loops[index] is not None and index not in self.blocked:
                return index
        return None

    def _kept(self, index: int, made) -> str:
        """Source reading the value of the source `made()` makes, kept by the loop `index` (`Loop`): lazily, at the
        place and item where the test first works it out (an `and` that stops early, or a loop over no items, never
        does; an error surfaces where it did), then read back for the later items; its work charged once, when done.
        The loops from `index` to here are blocked inside it: it is worked out once for them already."""
        depth = len(self.items)
        blocked, reads = self.blocked, self.item_reads
        self.blocked, self.item_reads = blocked | frozenset(range(index, depth)), 0
        try:
            text = made()
            made_reads = self.item_reads
        finally:
            self.blocked, self.item_reads = blocked, reads | self.item_reads
        if made_reads >> index & ((1 << (depth - index)) - 1):  # _loop_reads missed an item read: a bug here
            raise AssertionError(f"{self.key}: a kept value reads a loop variable it was kept across: {text}")
        cell = f"_h{self.cells_made}"
        self.cells_made += 1
        loop = self.loops[index]
        assert loop is not None
        loop.cells.append(cell)
        return f"({cell}[0] if {cell} else _keep({cell}, {text}))"

    def _in_loop(self, item: str, nodes) -> tuple[list[str], Loop]:
        """Sources of `nodes`, the test of a loop whose variable is `item`, and that loop (its kept values)."""
        loop = Loop()
        self.items.append(item)
        self.loops.append(loop)
        try:
            return [self.src(node) for node in nodes], loop
        finally:
            self.items.pop()
            self.loops.pop()
            self.item_reads &= (1 << len(self.items)) - 1  # its own variable is bound by it

    def _loop_reads(self, node, depth: int) -> int:
        """The loop variables that `node`, inside `depth` loops, reads: bit i for the i-th loop's item (`item`,
        `card`, a card's field by its bare name, or `tag =`, each the innermost loop's). A loop inside `node` binds
        its own. Read from the tree before any source is made, as `_x_name` and `_x_cmp` will read it."""
        kind = node[0]
        if kind in ("num", "str"):
            return 0
        if kind == "name":
            return self._name_reads(node[2], depth)
        known = self._reads_known.get((id(node), depth))
        if known is not None:
            return known[1]
        found = 0
        if kind == "where":
            found = self._loop_reads(node[2], depth) | self._loop_reads(node[3], depth + 1) & ~(1 << depth)
        elif kind == "call" and node[2] in _PER_ITEM and len(node[3]) > 1:
            for i, arg in enumerate(node[3]):
                per_item = i in _PER_ITEM[node[2]]
                found |= self._loop_reads(arg, depth + per_item) & ~(per_item << depth)
        else:
            if kind == "cmp" and depth and node[3][0] == "name" and node[3][2] == "tag" and "tag" not in self.scope:
                found = 1 << (depth - 1)
            for child in _children(node):
                found |= self._loop_reads(child, depth)
        self._reads_known[(id(node), depth)] = (node, found)  # the node kept alive: its id names no other
        return found

    def _name_reads(self, word: str, depth: int) -> int:
        """`_loop_reads` of the name `word`: as `_x_name` reads it."""
        if not depth or word in self.python_locals or word in self.scope:
            return 0
        innermost = 1 << (depth - 1)
        if word in ("card", "item"):
            return innermost
        if word in _CONSTANTS and not (word == "table" and word in self.rules.categories):
            return 0
        category = self.rules.categories.get(word)
        if category == "counter":
            return innermost if self.rules.counters[word].get("owner") == "card" else 0
        return 0 if category is not None else innermost  # else a field of the item

    def _worth_keeping(self, node) -> bool:
        """Whether working `node` out costs more than reading a cell: it calls a function (a zone's key made from a
        value does not), filters a list or reads a field."""
        kind = node[0]
        if kind in _LEAVES:
            return False
        if kind in ("where", "field", "op", "index", "neg"):
            return True
        if kind == "call":
            name = node[2]
            key_only = name in self.rules.zones and name not in functions.BUILTINS and name not in self.rules.functions
            return not key_only or any(self._worth_keeping(arg) for arg in node[3])
        if kind == "cmp" and node[2] not in ("==", "!="):
            return True  # `_lt` and the like: a call
        if kind == "list" and not all(self._static(item) for item in node[2]):
            return True  # `_built`: a call
        return any(self._worth_keeping(child) for child in _children(node))

    def _item(self) -> str:
        """The innermost loop variable, its read recorded (`_kept` checks `_loop_reads` with it)."""
        self.item_reads |= 1 << (len(self.items) - 1)
        return self.items[-1]

    def _x_num(self, node):
        return repr(int(node[2]))

    def _x_str(self, node):
        return repr(str(node[2]))

    def _x_name(self, node):
        word = node[2]
        if word in self.python_locals:
            return self.python_locals[word]
        if word in self.scope:
            self.reads_env = True
            return f"(E[{word!r}] if {word!r} in E else _local({word!r}))"
        if self.items and word in ("card", "item"):
            return self._item()
        if word == "item":
            raise ContentError(
                "`item` is only meaningful inside `where`, `map`, `sort` or `showing`", self.key, node[1], code="X502"
            )
        if word in _CONSTANTS and not (word == "table" and word in self.rules.categories):  # a pack's own `table`
            return _CONSTANTS[word]
        category = self.rules.categories.get(word)
        if category == "parameter":
            return f"g.params[{word!r}]"
        if category == "counter":
            owner = self.rules.counters[word].get("owner")
            if owner == "table" and "keys" not in self.rules.counters[word]:
                # its value: where a counter is expected, `counter_name` names it
                return f"g.counter('table', {word!r})"
            if owner == "card" and self.items:
                return self._field_read(word, self._item())  # the item's own number, as a stat
        if category is not None:
            return repr(word)
        if self.items:
            return self._field_read(word, self._item())
        raise ContentError(f"unknown name `{word}`", self.key, node[1], code="X502")

    def _x_list(self, node):
        items = "[" + ", ".join(self.src(item) for item in node[2]) + "]"
        if all(self._static(item) for item in node[2]):
            return items
        return f"_built(g, {items}, {self.key!r}, {int(node[1])})"

    def _x_call(self, node):
        _, at, name, args = node
        if name in _PER_ITEM and len(args) > 1:
            return self._per_item_call(node)
        if name == "flagged" and name in functions.BUILTINS and self._flag_named(args):
            return self._flag_read(args)
        if name == "first" and (search := self._position_search(args) or self._slot_search(args)) is not None:
            return search
        if name == "count" and len(args) == 1 and functions.BUILTINS["count"] is functions._count:
            membership = self.membership(args[0])
            if membership is not None:  # the arguments of `_each(g, SOURCE, WEIGHT, KEY, AT)`, then VALUE: one call
                return f"_matches(g, {membership[0]}, {membership[1]})"
        if name in functions.BUILTINS:

            def argument(i, a):
                return self._builtin_argument(name, i, a)

            if self._count_own(name, args):
                zone, player = args[0][3]
                fused = self._bind("B", "count_own", functions.count_own)
                return f"{fused}(c, {self.src(zone)}, {self.src(player)})"

            prepared = functions.PREPARED.get(name)
            if prepared is not None and self.loops and len(args) > prepared[0]:
                kept = self._prepared_call(name, node, argument)
                if kept is not None:
                    return kept
            parts = [argument(i, a) for i, a in enumerate(args)]
            builtin = self._bind("B", name, functions.BUILTINS[name])
            return f"{builtin}(c, {', '.join(parts)})" if parts else f"{builtin}(c)"
        parts = [self.src(a) for a in args]
        if name in self.rules.functions:
            direct = direct_function(self.rules, name, type(self), len(args))
            if direct is not None:
                called = self._bind("D", name, direct)
            else:
                called = self._bind("P", name, pack_function(self.rules, name))
            return f"{called}(c, {self.key!r}, {int(at)}{''.join(', ' + p for p in parts)})"
        if name in self.rules.zones:
            return f"('{self._ident(name)}:%s' % ({parts[0]},))"
        raise ContentError(f"unknown function `{name}`", self.key, at, code="X502")

    def _builtin_argument(self, name: str, i: int, node) -> str:
        """Source of the argument `node` at position `i` of the built-in `name`: a bare word where the built-in takes
        one, a counter's name where it expects a counter, a printed list uncopied where it only reads it."""
        if i in functions.NAME_ARGS.get(name, ()) and node[0] == "name" and node[2] not in self.scope:
            return repr(node[2])
        if i in _COUNTER_ARGS.get(name, ()):
            return self.counter_name(node)
        return self._read_only(node) if (name, i) in _READ_ONLY_ARGS else self.src(node)

    @staticmethod
    def _count_own(name: str, args) -> bool:
        """Whether the call is `count(own(ZONE, PLAYER))` of the built-ins themselves (a test may put a spy in place of
        one), made one call: functions.count_own."""
        return (
            name == "count"
            and len(args) == 1
            and args[0][0] == "call"
            and args[0][2] == "own"
            and len(args[0][3]) == 2
            and functions.BUILTINS["count"] is functions._count
            and functions.BUILTINS["own"] is functions._own
        )

    def _position_search(self, args) -> str | None:
        """`first(numbers(LOW, HIGH) where LIST[item] = VALUE)`, LIST and VALUE `_free`, as one call of `_position`."""
        if len(args) != 1 or args[0][0] != "where":
            return None
        _, at, source, test = args[0]
        if source[0] != "call" or source[2] != "numbers" or len(source[3]) != 2 or test[0] != "cmp" or test[2] != "==":
            return None
        if (
            functions.BUILTINS["first"] is not functions._first
            or functions.BUILTINS["numbers"] is not functions._numbers
        ):
            return None
        for listed, value in ((test[3], test[4]), (test[4], test[3])):
            if listed[0] == "index" and self._is_item(listed[3]) and self._free(listed[2]) and self._free(value):
                low, high = (self.src(bound) for bound in source[3])
                return (
                    f"_position(g, {low}, {high}, {self.src(listed[2])}, {self.src(value)}, {weight(test)}, "
                    f"{self.key!r}, {int(at)})"
                )
        return None

    def _slot_search(self, args) -> str | None:
        """`first(SOURCE where slot(item) = VALUE)`, VALUE `_free`, as one call of functions.card_in_slot (the card in
        a place of a row). `slot` reads where the card lies: never a cached `where`."""
        if len(args) != 1 or args[0][0] != "where":
            return None
        _, at, source, test = args[0]
        if test[0] != "cmp" or test[2] != "==":
            return None
        if functions.BUILTINS["first"] is not functions._first or functions.BUILTINS["slot"] is not functions._slot:
            return None
        for slot, value in ((test[3], test[4]), (test[4], test[3])):
            if (
                slot[0] == "call"
                and slot[2] == "slot"
                and len(slot[3]) == 1
                and self._is_item(slot[3][0])
                and self._free(value)
            ):
                fused = self._bind("B", "card_in_slot", functions.card_in_slot)
                each = f"_each(g, {self._each_args(source, test, at)})"
                return f"{fused}(c, {each}, {self.src(value)})"
        return None

    def membership(self, node) -> tuple[str, str] | None:
        """(`_each`'s arguments after `g`: the items paid for; VALUE) of `SOURCE where item = VALUE`, VALUE `_free`: its
        matches are VALUE's copies."""
        if node[0] != "where" or node[3][0] != "cmp" or node[3][2] != "==":
            return None
        _, at, source, test = node
        for item, value in ((test[3], test[4]), (test[4], test[3])):
            if self._is_item(item) and self._free(value):
                return self._each_args(source, test, at), self.src(value)
        return None

    def _each_args(self, source, test, at) -> str:
        """The arguments of `_each(g, ...)` after `g` for `SOURCE where TEST`: the items, each paid for TEST's weight."""
        return f"{self._iterable(source)}, {weight(test)}, {self.key!r}, {int(at)}"

    def _held_where(self, node) -> str | None:
        """`SOURCE where count(own(item, PLAYER)) > 0` (or `= 0`), and the same with the item the player, ZONE or
        PLAYER `_free`, as one call of functions.places_held / players_holding: the same items, work and errors
        (such a test reads who holds what: never a cached `where`). Asked of a test `... CMP NUMBER` only."""
        _, at, source, test = node
        if test[2] not in (">", "==") or int(test[4][2]) != 0:
            return None
        counted = test[3]
        if counted[0] != "call" or not self._count_own(counted[2], counted[3]):
            return None
        zone, player = counted[3][0][3]
        if self._is_item(zone) and self._free(player):
            name, other = "places_held", player
        elif self._is_item(player) and self._free(zone):
            name, other = "players_holding", zone
        else:
            return None
        fused = self._bind("B", name, getattr(functions, name))
        each = f"_each(g, {self._each_args(source, test, at)})"
        return f"{fused}(c, {each}, {self.src(other)}, {test[2] == '>'})"

    def _is_item(self, node) -> bool:
        """Whether `node` is the item of a `where` around it (`item`, or `card`), not a name bound earlier."""
        return node[0] == "name" and node[2] in ("item", "card") and node[2] not in {*self.python_locals, *self.scope}

    def _free(self, node) -> bool:
        """Whether an expression reads nothing that may fail, cost or change per item: a number, text, parameter, id."""
        if node[0] in ("num", "str"):
            return True
        if node[0] != "name":
            return False
        word = node[2]
        if word in self.python_locals:
            return True
        if word in self.scope or word in ("card", "item") or self.rules.categories.get(word) == "counter":
            return False
        return self.rules.categories.get(word) == "parameter" or self._single(node)

    def _flag_named(self, args) -> bool:
        """Whether `flagged(FLAG)` or `flagged(FLAG, PLAYER)` names its flag in the text (not a name bound earlier), and,
        for a flag of the table, no player."""
        if not args or len(args) > 2 or args[0][0] != "name" or args[0][2] in self.scope:
            return False
        return len(args) == 1 or args[0][2] not in self.rules.table_flags

    def _flag_read(self, args) -> str:
        """`flagged(FLAG[, PLAYER])` read from the state without a call, whose holder (the table, or the player, else
        `me`: Ruleset.flag_holder) is known from the text: a menu asks it of every player again and again."""
        flag = self._ident(args[0][2])
        if flag in self.rules.table_flags:
            holder = "'table'"
        else:
            player = self.src(args[1]) if len(args) == 2 else "c.me"
            holder = player if player == "c.me" else f"({player} or c.me)"  # `flagged(F, me)`: `me` once
        self.namespace["_EMPTY_MAPPING"] = _EMPTY_MAPPING
        return f"bool(g.state['flags'].get({holder}, _EMPTY_MAPPING).get({flag!r}))"

    def _prepared_call(self, name: str, node, argument) -> str | None:
        """A call inside a loop of a built-in of functions.PREPARED whose later arguments read no item of the loops
        around it up to some loop: what the built-in makes of those arguments kept by that loop (`_kept`: lazily,
        worked out where the call first is, after its first arguments, as before), its first arguments worked out
        at each call. None when there is no such loop."""
        position, ready, with_ready = functions.PREPARED[name]
        args = node[3]
        depth = len(self.items)
        loop = self._keeping_loop(functools.reduce(int.__or__, (self._loop_reads(a, depth) for a in args[position:])))
        if loop is None:
            return None
        firsts = "".join(f"{argument(i, a)}, " for i, a in enumerate(args[:position]))
        made = self._bind("R", name, ready)

        def later() -> str:
            return f"{made}(c, {', '.join(argument(i, a) for i, a in enumerate(args) if i >= position)})"

        return f"{self._bind('W', name, with_ready)}(c, {firsts}{self._kept(loop, later)})"

    def _per_item_call(self, node) -> str:
        """A built-in whose later arguments are worked out per item of its first (`map`, `sort`): the items
        paid for as a `where` pays (their number times the size of those arguments), each such argument a
        Python function of the item."""
        _, at, name, args = node
        positions = _PER_ITEM[name]
        item = f"_i{len(self.items)}"
        parts = []
        for i, arg in enumerate(args[1:], start=1):
            if i in positions:
                self.items.append(item)
                self.loops.append(None)  # a function of the item keeps no values (the loops around it may)
                parts.append(f"lambda {item}: {self.src(arg)}")
                self.items.pop()
                self.loops.pop()
                self.item_reads &= (1 << len(self.items)) - 1  # its own variable is bound by it
            else:
                parts.append(self.src(arg))
        cost = sum(weight(args[i]) for i in positions if i < len(args))
        source = f"_each(g, {self.src(args[0])}, {cost}, {self.key!r}, {int(at)})"
        builtin = self._bind("B", name, functions.BUILTINS[name])
        return f"{builtin}(c, {', '.join([source, *parts])})"

    def _x_ifx(self, node):
        _, _, test, then, otherwise = node
        return f"(({self.src(then)}) if ({self.src(test)}) else ({self.src(otherwise)}))"

    def counter_name(self, node) -> str:
        """A verb's or function's argument where a counter is expected: a counter's bare name names it (a table
        counter's bare name elsewhere reads its value: `_x_name`)."""
        if node[0] == "name" and node[2] not in self.scope and self.rules.categories.get(node[2]) == "counter":
            return repr(node[2])
        return self.src(node)

    def _x_field(self, node):
        shared = node is self.read_only
        return self._field_read(node[3], self.src(node[2]), shared)

    def _read_only(self, node) -> str:
        """Source of `node` as the argument of a built-in that only reads it (the cost of `can_pay`): a printed list
        field is then passed as the pack's own tuple, not copied."""
        self.read_only = node
        try:
            return self.src(node)
        finally:
            self.read_only = None

    def _field_read(self, name: str, value: str, shared: bool = False) -> str:
        """The field `name` of the value `value` (Python source), without a call where the value is read twice freely
        (a Python variable, `c.card`, `c.me`): of a card number, a printed field from the pack's table and its
        orientation from the state; of the acting player (`me.vp`), the counter. Any other value (a card id, a zone,
        a number that is no card) goes through the field's getter, as before, which also reads those the same way."""
        getter = self._bind("F", name, functions.field_getter(name))
        plain = f"{getter}(g, {value})"
        if not _READ_TWICE.match(value):
            return self._worked_out_field_read(name, value, getter, shared) or plain
        if value == "c.me":  # a player (or, in a hand-made context, anything): the getter reads a counter first
            counter = f"g.counter(c.me, {name!r})"
            owner = _counter_kept_by(self.rules, name)
            if owner == "table":  # one for the whole table, read by anyone: a player holds none (Table.set_counter)
                table = f"g.state['counters']['table'].get({name!r}, 0)"
                return f"({table} if type(c.me) is str and c.me in g.counters_of else {plain})"
            if not self.in_iterable:  # the player's own counter without a call (Table.counter), else as it reads it
                held = self._temporary()
                self.namespace["_EMPTY_MAPPING"] = _EMPTY_MAPPING
                held_it = f"{name!r} in ({held} := g.state['counters'].get(c.me, _EMPTY_MAPPING))"
                if owner == "player":
                    # each player holds one from the start: a text that holds none is no player, read by the getter
                    # (which reads a counter as Table.counter does; the state keeps counters for `g.counters_of` only)
                    return f"({held}[{name!r}] if type(c.me) is str and {held_it} else {plain})"
                counter = f"({held}[{name!r}] if {held_it} else {counter})"
            return f"({counter} if type(c.me) is str and c.me in g.counters_of else {plain})"
        count = len(layout.cards_by_number(self.rules))
        if name == "orientation":
            return f"(g.state['orient'][{value}] if type({value}) is int and 0 <= {value} < {count} else {plain})"
        table = functions.static_field_table(self.rules, name)
        if table is None:
            return plain
        values, copied = table
        read = self._bind("T", name, values)
        fast = f"list({read}[{value}])" if copied and not shared else f"{read}[{value}]"
        return f"({fast} if type({value}) is int and 0 <= {value} < {len(values)} else {plain})"

    def _worked_out_field_read(self, name: str, value: str, getter: str, shared: bool) -> str | None:
        """A printed field of a value worked out first (`picks[n].id`): kept in a Python variable and read from the
        pack's table as a variable's is (`_field_read`), the getter called for anything but a card number. None
        inside a comprehension's first iterable (no `:=` there) or for a field that changes in play."""
        table = functions.static_field_table(self.rules, name) if not self.in_iterable else None
        if table is None:
            return None
        values, copied = table
        read = self._bind("T", name, values)
        kept = self._temporary()
        fast = f"list({read}[{kept}])" if copied and not shared else f"{read}[{kept}]"
        return f"({fast} if type({kept} := {value}) is int and 0 <= {kept} < {len(values)} else {getter}(g, {kept}))"

    def _x_index(self, node):
        return f"_index(g, {self.src(node[2])}, {self.src(node[3])})"

    def _x_neg(self, node):
        return f"(-_num({self.src(node[2])}))"

    def _x_not(self, node):
        return f"(not {self.src(node[2])})"

    def _x_and(self, node):
        return self._joined_tests(" and ", node[2])

    def _x_or(self, node):
        return self._joined_tests(" or ", node[2])

    def _joined_tests(self, joint: str, parts) -> str:
        """`a and b` / `a or b`: True or False, as `bool` makes it of values that may be anything else."""
        joined = joint.join(f"({self.src(p)})" for p in parts)
        return f"({joined})" if all(map(self._yes_no, parts)) else f"bool({joined})"

    def _yes_no(self, node) -> bool:
        """Whether an expression's value is always True or False: a comparison, a test, a built-in that answers one."""
        kind = node[0]
        if kind in ("cmp", "and", "or", "not"):
            return True
        return kind == "call" and node[2] in _YES_NO_BUILTINS and node[2] in functions.BUILTINS

    def _x_op(self, node):
        _, _, op, left, right = node
        a, b = self.src(left), self.src(right)
        if op in ("+", "-"):
            helper = "_add" if op == "+" else "_sub"
            if self._whole_number(left) and self._whole_number(right):
                return f"({a} {op} {b})"  # two numbers of Python's `int`: what the helper answers first
            if left[0] == "num" or right[0] == "num":  # `n + 1`: the helper's first answer, tested without its call
                inline = self._both_int(left, a, right, b)
                if inline is not None:
                    (a, b), test = inline
                    return f"({a} {op} {b} if {test} else {helper}(g, {a}, {b}))"
            return f"{helper}(g, {a}, {b})"
        if op == "*":
            helper = f"_mul({{}}, {{}}, {self.key!r}, {int(node[1])})"
            inline = self._both_int(left, a, right, b)
            if inline is not None:  # two `int`s within the bounds: `_mul`'s answer without its call
                (a, b), test = inline
                product = self._temporary()
                bound = f"{-MAX_INT} <= ({product} := {a} * {b}) <= {MAX_INT}"
                return f"({product} if {test} and {bound} else {helper.format(a, b)})"
            return helper.format(a, b)
        return f"_div({a}, {b})" if op == "/" else f"_mod({a}, {b})"

    def _both_int(self, left, a: str, right, b: str):
        """((a, b), test) for an operation whose helper answers two `int`s at once: each side worked out once, left
        first (a Python variable keeps one that is not one already), and the test that both are `int`, which works
        out both sides whatever the first is (`&`: the helper's sides are both set should it fail). None inside a
        comprehension's first iterable, where `:=` is refused, for a side that needs a variable."""
        sides, tests = [a, b], []
        for n, (node, source) in enumerate(((left, a), (right, b))):
            if node[0] == "num":
                continue
            if n == 1 and source == a and left[0] != "num":  # `x * x`: the same side, worked out once
                sides[1] = sides[0]
                continue
            if not _READ_TWICE.match(source):
                if self.in_iterable:
                    return None
                kept = sides[n] = self._temporary()
                source = f"({kept} := {source})"
                sides[n] = kept
            tests.append(f"type({source}) is int")
        if not tests:
            return None
        return (sides[0], sides[1]), " & ".join(f"({test})" for test in tests) if len(tests) > 1 else tests[0]

    def _x_cmp(self, node):
        _, _, op, left, right = node
        if self.items and left[0] == "name" and left[2] == "tag" and "tag" not in self.scope:
            test = "in" if op == "==" else "not in"
            return f"({self.src(right)} {test} {self._tags_read(self._item())})"
        a, b = self.src(left), self.src(right)
        if op in ("==", "!="):
            if self._never_list(left) or self._never_list(right):
                return f"({a} {op} {b})"  # one side is never a list: a constant cost
            return self._equal(op, a, b)
        if self._whole_number(left) and self._whole_number(right):
            return f"({a} {op} {b})"
        sides = (a, self._whole_number(left), left[0] == "num"), (b, self._whole_number(right), right[0] == "num")
        return self._ordered(op, *sides)

    def _tags_read(self, item: str) -> str:
        """The tags of the item `item` (a Python variable), as Table.tags_of reads them: of a card number, from a table
        made once per pack (the printed lists themselves, only read), without a call."""
        tags = self.rules.__dict__.get("_tags_by_number")
        if tags is None:
            defs = layout.cards_by_number(self.rules)
            tags = self.rules.__dict__["_tags_by_number"] = [d.get("tags") or () for d in defs]
        self.namespace["_TAGS"] = tags
        return f"(_TAGS[{item}] if type({item}) is int and 0 <= {item} < {len(tags)} else g.tags_of({item}))"

    def _equal(self, op: str, a: str, b: str) -> str:
        """`a = b` (or `!=`) of two values either of which may be a list: compared at once unless both are (`_eq`, which
        pays for two lists), each side worked out once, left first."""
        negated = "" if op == "==" else "not "
        if _READ_TWICE.match(b) or _READ_TWICE.match(a):
            checked = a if _READ_TWICE.match(a) else b  # a variable: its type read before the other side is worked out
            return f"({a} {op} {b} if type({checked}) is not list else {negated}_eq(g, {a}, {b}))"
        if self.in_iterable:
            return f"({negated}_eq(g, {a}, {b}))"
        kept = self._temporary()
        return f"({kept} {op} {b} if type({kept} := {a}) is not list else {negated}_eq(g, {kept}, {b}))"

    def _ordered(self, op: str, left: tuple[str, bool, bool], right: tuple[str, bool, bool]) -> str:
        """`a < b` and the like, each side (its source, whether it is always a whole number, whether a number written
        out) worked out once, left first: two whole numbers compared at once, anything else by the helper (`_lt`...),
        which knows what `none` and a yes/no compare as. A side read twice is kept in a Python variable, unless it is
        one already or a number written out (a comprehension's first `for` cannot assign: there, only the helper)."""
        sides, checks, known = [], [], False
        for source, whole, written in (left, right):
            if not (written or _READ_TWICE.match(source)):
                if self.in_iterable:
                    return f"{_ORDERED[op]}({left[0]}, {right[0]})"
                kept = self._temporary()
                sides.append(kept)
                checks.append(f"type({kept} := {source})")
                known = known or whole
            else:
                sides.append(source)
                if not written:
                    checks.append(f"type({source})")
        test = " is ".join(checks) + ("" if known else " is int")  # a side always `int`: the other of the same type
        return f"({sides[0]} {op} {sides[1]} if {test} else {_ORDERED[op]}({sides[0]}, {sides[1]}))"

    def _temporary(self) -> str:
        """A new Python variable of the generated function, for a value read twice (`:=`)."""
        self.temporaries += 1
        return f"_t{self.temporaries - 1}"

    def _never_list(self, node) -> bool:
        """Whether an expression's value is never a list: one value (`_single`), a whole number or a yes/no."""
        return self._yes_no(node) or self._single(node) or self._whole_number(node)

    def _whole_number(self, node) -> bool:
        """Whether an expression's value is always of Python's type `int` (never a yes/no, never `none`): a number
        written out, a product or quotient, a sum or difference of two such, a built-in that counts."""
        kind = node[0]
        if kind in ("num", "neg"):
            return True
        if kind == "op":
            return node[2] in "*/%" or self._whole_number(node[3]) and self._whole_number(node[4])
        if kind == "ifx":
            return self._whole_number(node[3]) and self._whole_number(node[4])
        return kind == "call" and node[2] in _WHOLE_NUMBER_BUILTINS and node[2] in functions.BUILTINS

    def _single(self, node) -> bool:
        """Whether an expression is one value, never a list, whatever the game: a number or text, a constant,
        an id of the pack."""
        if node[0] in ("num", "str"):
            return True
        if node[0] != "name":
            return False
        word = node[2]
        if word in self.scope or self.items and word in ("card", "item"):
            return False
        if word in _CONSTANTS:
            return word not in ("players", "opponents", "all_players", "card")  # `card` is what `perform ... with` gave
        category = self.rules.categories.get(word)
        return category is not None and category != "parameter"

    def _static(self, node) -> bool:
        """Whether an expression's value is never a list built while playing (a list of the pack's data, a
        number, a card...): a list literal of such values needs no size check (see budget.py)."""
        kind = node[0]
        if kind in ("cmp", "and", "or", "not", "neg", "field") or self._single(node):
            return True
        if kind == "name" and node[2] not in self.scope:  # a parameter: the pack's data
            return self.rules.categories.get(node[2]) == "parameter"
        if kind == "op":
            return node[2] in "*/%"
        if kind == "call":
            return node[2] in _SCALAR_BUILTINS
        if kind == "list":
            return all(self._static(item) for item in node[2])
        if kind == "ifx":
            return self._static(node[3]) and self._static(node[4])
        return False

    def _x_where(self, node):
        if node[3][0] == "cmp" and node[3][4][0] == "num":  # `... CMP NUMBER`: perhaps who holds what (`_held_where`)
            held = self._held_where(node)
            if held is not None:
                return held
        item, loops, test = self.where_parts(node)
        return f"[{item} {loops} if {test}]"

    def _iterable(self, node) -> str:
        """`src` of a part of a comprehension's first iterable (Python refuses `:=` there: `_temporary`)."""
        self.in_iterable += 1
        try:
            return self.src(node)
        finally:
            self.in_iterable -= 1

    def where_parts(self, node) -> tuple[str, str, str]:
        """(item, loops, test) of `SOURCE where TEST`: the `for` clauses of its comprehension (the cells of the
        values its test keeps, `Loop`, then the items tested, paid for) and the test of each. When
        the source and the first conjuncts of the test provably read only the contents of the table's zones
        and printed card fields (`_zone_reads`), those items come from a cache keyed by those zones' contents
        (`_cached_where`) and only the remaining conjuncts are tested here."""
        at = int(node[1])
        conjuncts = node[3][2] if node[3][0] == "and" else [node[3]]
        shadowed = frozenset(self.scope) | frozenset(self.python_locals)
        hoisted, reads = 0, _zone_reads(self.rules, node[2], False, shadowed)
        while reads is not None and hoisted < len(conjuncts):
            more = _zone_reads(self.rules, conjuncts[hoisted], True, shadowed)
            if more is None or any(zone != "parameter" for zone, _ in more[2] - reads[2]):
                break  # a player's zone reached through a name (a hand) changes at almost every answer: not kept
            reads = _joined(reads, more)
            hoisted += 1
        item = f"_i{len(self.items)}"
        cached = hoisted and reads is not None and any(_calls(conjunct) for conjunct in conjuncts[:hoisted])
        if not cached:  # nothing kept, or only tests cheaper than the cache's key
            (whole,), loop = self._in_loop(item, [node[3]])
            source = self._iterable(node[2])
            each = f"_each(g, {source}, {weight(node[3])}, {self.key!r}, {at})"
            loops = f"{loop.head()}for {item} in {each}"
            self._wheres[loops, whole] = (item, loop, source, weight(node[3]), at)
            self._fused_exists(loops, whole, node[3], each)
            return item, loops, whole
        self.in_iterable += 1  # the kept tests go into the cache's `compute`, inside the first iterable
        try:
            tests, kept_loop = self._in_loop(item, conjuncts[:hoisted])
        finally:
            self.in_iterable -= 1
        rests, rest_loop = self._in_loop(item, conjuncts[hoisted:])
        each = f"_each(g, {self._iterable(node[2])}, {weight(node[3])}, {self.key!r}, {at})"
        ident = repr((self.key, node[2], conjuncts[:hoisted]))
        self.namespace["_cached_where"] = _cached_where
        self.namespace["_WHERE_CACHE"] = self.rules.__dict__.setdefault("_where_cache", {})
        kept = " and ".join(f"({t})" for t in tests)
        compute = f"lambda: [{item} {kept_loop.head()}for {item} in {each} if {kept}]"
        owned = "".join(
            f"{self._iterable(['call', at, zone, [['name', at, local]]])}, "
            for zone, local in sorted(reads[2])
            if zone != "parameter"
        )
        values = "".join(f"repr(g.params[{word!r}]), " for zone, word in sorted(reads[2]) if zone == "parameter")
        wholes = tuple(zone for zone, whole in sorted(reads[0]) if whole)
        tops = tuple(zone for zone, whole in sorted(reads[0]) if not whole)
        items = (
            f"_cached_where(g, _WHERE_CACHE, {ident!r}, {wholes!r}, {tops!r}, {tuple(sorted(reads[1]))!r}, "
            f"({owned}), ({values}), {compute}, {self.key!r}, {at})"
        )
        rest = " and ".join(f"({t})" for t in rests) or "True"
        loops = f"{rest_loop.head()}for {item} in {items}"
        self._wheres[loops, rest] = (item, rest_loop, items, None, at)  # no cost: `_cached_where` pays
        if hoisted == len(conjuncts) - 1:
            self._fused_exists(loops, rest, conjuncts[-1], items)
        return item, loops, rest

    def _fused_exists(self, loops: str, test: str, tested, items: str) -> None:
        """Keeps in `exists_calls`, under the `where` made (its loops and test), "has it an item?" as one call of a
        built-in's loop in functions.py, when the test its loop makes for each item (`tested`) has a shape that has
        one: `can_pay(item.FIELD, ...)` (functions.some_payable), `lines_between(COUNTER, LOW, item) > 0`
        (functions.some_line_above); `items` are the items it tests, paid for. Only for a `where` in no loop."""
        if self.items or not HOISTING:
            return
        fused = self._payable_call(tested, items) or self._line_call(tested, items)
        if fused is not None:
            self.exists_calls[loops, test] = fused

    def _payable_call(self, tested, items: str) -> str | None:
        """`can_pay(item.FIELD, ZONE[, JOKER])` of the built-in itself, FIELD printed data, ZONE and JOKER the same for
        every item (the loop keeps what `_can_pay_ready` makes of them, worked out after the first item's FIELD)."""
        if tested[0] != "call" or tested[2] != "can_pay" or len(tested[3]) not in (2, 3):
            return None
        if functions.BUILTINS["can_pay"] is not functions._can_pay:
            return None
        cost, *later = tested[3]
        if cost[0] != "field" or not self._is_item(cost[2]) or any(self._loop_reads(a, 1) for a in later):
            return None
        table = functions.static_field_table(self.rules, cost[3])
        if table is None or cost[3] == "orientation":
            return None
        values = self._bind("T", cost[3], table[0])
        getter = self._bind("F", cost[3], functions.field_getter(cost[3]))
        ready = self._bind("R", "can_pay", functions._can_pay_ready)
        arguments = ", ".join(self._builtin_argument("can_pay", i, a) for i, a in enumerate(later, start=1))
        fused = self._bind("B", "some_payable", functions.some_payable)
        return f"{fused}(c, {items}, {values}, {len(table[0])}, {getter}, lambda: {ready}(c, {arguments}))"

    def _line_call(self, tested, items: str) -> str | None:
        """`lines_between(COUNTER, LOW, item) > 0` (or `>= 1`, `!= 0`) of the built-in itself, COUNTER (a counter's name)
        and LOW the same for every item and worked out before them without cost or failure (`_free`)."""
        if tested[0] != "cmp" or tested[4][0] != "num" or (tested[2], int(tested[4][2])) not in _ABOVE_NONE:
            return None
        between = tested[3]
        if between[0] != "call" or between[2] != "lines_between" or len(between[3]) != 3:
            return None
        if functions.BUILTINS["lines_between"] is not functions._lines_between:
            return None
        counter, low, high = between[3]
        named = (
            counter[0] == "name" and counter[2] not in self.scope and self.rules.categories.get(counter[2]) == "counter"
        )
        if not self._is_item(high) or not (named or self._free(counter)) or not self._free(low):
            return None
        fused = self._bind("B", "some_line_above", functions.some_line_above)
        counter_src = self._builtin_argument("lines_between", 0, counter)
        return f"{fused}(c, {items}, {counter_src}, {self._builtin_argument('lines_between', 1, low)})"


# comparisons of a whole number N with a number that say "N > 0": (operator, number)
_ABOVE_NONE = frozenset({(">", 0), (">=", 1), ("!=", 0)})

# built-in functions with arguments worked out per item (`map(players, item.vp)`): their positions
_PER_ITEM = {name: set(function.per_item) for name, function in FUNCTIONS.items() if function.per_item}

# the arguments of built-in functions where a counter is expected (`amount(round)`): a bare counter name names it
_COUNTER_ARGS = {
    name: positions
    for name, function in FUNCTIONS.items()
    if (positions := tuple(i for i, param in enumerate(function.params) if param.type == "counter"))
}

# built-in functions whose value is always a whole number of Python's type `int` / always True or False
_WHOLE_NUMBER_BUILTINS = frozenset(
    {
        "count",
        "sum",
        "min",
        "max",
        "copies",
        "lines_between",
        "requires_held",
        "index_of",
        "slot",
        "room",
        "compare_dice",
    }
)
# (built-in, argument position) of arguments the built-in only reads: a printed list field is passed uncopied
_READ_ONLY_ARGS = frozenset({("can_pay", 0)})
_YES_NO_BUILTINS = frozenset({"empty", "has", "contains", "can_pay", "requires_met", "flagged", "eliminated"})

# built-in functions whose value is never a list (or only one of the pack's data)
_SCALAR_BUILTINS = frozenset(
    {
        "count",
        "sum",
        "min",
        "max",
        "between",
        "top",
        "empty",
        "owner",
        "has",
        "contains",
        "can_pay",
        "copies",
        "requires_met",
        "requires_held",
        "lines_between",
        "flagged",
        "next_player",
        "zone_of",
        "slot",
        "index_of",
    }
)


_WHERE_CACHE_SIZE = 256  # entries kept per pack before the cache starts again
_PURE_BUILTINS = frozenset({"count", "empty", "can_pay"})
_NONE: frozenset = frozenset()
_NOTHING = (_NONE, _NONE, _NONE)  # reading only their arguments and zones
_PLAIN_NODES = frozenset({"num", "str", "list", "op", "cmp", "and", "or", "not", "neg", "ifx", "index", "where"})


def _zone_reads(rules, node, in_item: bool, shadowed: frozenset, seen: frozenset = frozenset()):
    """(table zones (each with whether all of it is read, or only its top card), zones read for every player, player
    zones read through a name bound earlier (zone, name): `hand(player)`, and ("parameter", name) for the game's
    parameters read) that the expression `node` reads, when that is all it reads
    (besides printed card fields of the item of an enclosing `where` inside it, the pack's ids and numbers); None
    when it may read anything else (a counter, a parameter, who is acting, a name bound earlier, a per-player zone
    through `me`, a pack function with parameters...): such an expression is not cached. `in_item`: `card` and
    `item` name the item tested."""
    kind = node[0]
    if kind == "name":
        word = node[2]
        if word in shadowed:
            return None
        if word in ("card", "item"):
            return _NOTHING if in_item else None
        if word in ("true", "false", "none"):
            return _NOTHING
        if word in _CONSTANTS:
            return None
        category = rules.categories.get(word)
        if category == "zone":
            return (frozenset({(word, True)}), _NONE, _NONE) if _table_zone(rules, word) else None
        if category == "parameter":  # the game's own value: in the key
            return _NONE, _NONE, frozenset({("parameter", word)})
        if category == "counter":
            return None
        if category is not None:
            return _NOTHING
        return _field_reads(rules, word) if in_item else None
    if kind == "field":
        inner = _zone_reads(rules, node[2], in_item, shadowed, seen)
        return inner if inner is not None and _field_reads(rules, node[3]) is not None else None
    if kind == "call":
        name, args = node[2], node[3]
        if name == "requires_met" and len(args) == 2 and args[1][0] == "name":
            zone = args[1][2]
            first = _zone_reads(rules, args[0], in_item, shadowed, seen)
            if first is None or rules.categories.get(zone) != "zone" or rules.zones[zone].get("owner") != "player":
                return None
            return first[0], first[1] | {zone}, first[2]
        if name == "top" and len(args) == 1 and args[0][0] == "name" and args[0][2] not in shadowed:
            zone = args[0][2]  # only its top card is read
            return (frozenset({(zone, False)}), _NONE, _NONE) if _table_zone(rules, zone) else None
        if (
            name in rules.zones
            and name not in rules.functions
            and rules.zones[name].get("owner") == "player"
            and len(args) == 1
        ):
            local = args[0][2] if args[0][0] == "name" else None  # `hand(player)`: that player's zone, at run time
            return (_NONE, _NONE, frozenset({(name, local)})) if local in shadowed else None
        if name in _PURE_BUILTINS:
            return _all_reads(rules, args, in_item, shadowed, seen)
        if name in rules.functions and not args and name not in functions.BUILTINS and name not in seen:
            if rules.functions[name].get("params") or name in _cyclic_functions(rules):
                return None
            body = function_body_ir(rules, name)
            return None if body is None else _zone_reads(rules, body, False, frozenset(), seen | {name})
        return None
    if kind not in _PLAIN_NODES:
        return None
    if kind == "where":
        source = _zone_reads(rules, node[2], in_item, shadowed, seen)
        test = _zone_reads(rules, node[3], True, shadowed, seen)
        return None if source is None or test is None else _joined(source, test)
    parts = [x for x in node[2:] if isinstance(x, list)]
    children = [x for part in parts for x in (part if part and isinstance(part[0], list) else [part])]
    return _all_reads(rules, [c for c in children if c and isinstance(c[0], str)], in_item, shadowed, seen)


_LEAVES = frozenset({"num", "str", "name"})


def _children(node):
    """The expressions directly inside the expression `node`."""
    for part in node[2:]:
        if isinstance(part, list) and part:
            if isinstance(part[0], str):
                yield part
            else:
                yield from (x for x in part if isinstance(x, list))


def _calls(node) -> bool:
    """Whether an expression calls a function (other than `top`) or filters a list: worth keeping."""
    if node[0] == "where" or node[0] == "call" and node[2] != "top":
        return True
    return any(
        isinstance(x, list) and x and (_calls(x) if isinstance(x[0], str) else any(map(_calls, x))) for x in node
    )


def _table_zone(rules, word: str) -> bool:
    """A zone of the table with one list (no keys): `state["zones"][word]`."""
    zone = rules.zones.get(word) if rules.categories.get(word) == "zone" else None
    return zone is not None and zone.get("owner") in (None, "table") and not zone.get("keys")


def _all_reads(rules, nodes, in_item: bool, shadowed: frozenset, seen: frozenset):
    found = _NOTHING
    for node in nodes:
        reads = _zone_reads(rules, node, in_item, shadowed, seen)
        if reads is None:
            return None
        found = _joined(found, reads)
    return found


def _joined(a: tuple, b: tuple) -> tuple:
    return a[0] | b[0], a[1] | b[1], a[2] | b[2]


def _field_reads(rules, name: str):
    """No zones, when the card field `name` is printed data (the same all game long); else None."""
    return _NOTHING if functions.static_field_table(rules, name) is not None else None


def _counter_kept_by(rules, name: str) -> str | None:
    """Who keeps the counter `name` in the state: "player" (each player, from the start: state.py), "table" (the table
    alone, whatever `owner` says besides: Table.set_counter), None for no counter or one kept on each card."""
    spec = rules.counters.get(name)
    if spec is None:
        return None
    owner = spec.get("owner")
    return None if owner == "card" else "player" if owner == "player" else "table"


def _held(cards):
    """A zone's cards (None: no such zone) as part of a key."""
    return None if cards is None else tuple(cards)


_NO_TOP = ("no top card",)  # `_cached_where`'s key: the top card of an empty zone (no card is a tuple)


def _cached_where(g, cache, ident, wholes, tops, everyones, owned, values, compute, key, at):
    """The items `compute()` gives, kept per pack under the contents of the zones it reads (codegen's
    `where_parts` proved it reads nothing else): the table zones `wholes` (all their cards) and `tops` (their
    top card), every player's zone of each id of `everyones`, the zones `owned` (keys); a menu asked again
    while those zones stay as they were reads them back, and pays the work the first answer cost.
    The key is made at every evaluation, one flat tuple: `ident`, `values`, then each zone read as its count of cards
    and its cards (None: no such zone), each top card (`_NO_TOP`: none), the count of every player's zones before
    theirs, each owned zone's key before its cards. Each part tells where it ends, so two keys are equal exactly when
    the zones read hold the same cards, as with a tuple a zone (tests/test_runtime_speed_zg3_where_key.py); one list
    made and one tuple, not one a zone and a slice a top card (issue 16: a bot's imagined games ask it at every menu).
    Every player's zones are read as they are, without a call per zone (`_held`) unless one is not made."""
    zones: dict = g.state["zones"]  # (a dict to Cython: read and `get` in C)
    parts = [ident, values]
    for zone in wholes:
        cards = zones[zone]
        parts.append(len(cards))
        parts.extend(cards)
    for zone in tops:
        cards = zones[zone]
        parts.append(cards[-1] if len(cards) else _NO_TOP)
    if everyones:
        players = _every_key(g, everyones)
        parts.append(len(players))
        at_players = len(parts)
        try:
            for zone in players:
                cards = zones[zone]
                parts.append(len(cards))
                parts.extend(cards)
        except (KeyError, TypeError):  # a player's zone not made (or none): None in its place
            del parts[at_players:]
            for zone in players:
                held = _held(zones.get(zone))
                if held is None:
                    parts.append(None)
                else:
                    parts.append(len(held))
                    parts.extend(held)
    if owned:
        for zone in owned:
            parts.append(zone)
            cards = zones.get(zone)
            if cards is None:
                parts.append(None)
            else:
                parts.append(len(cards))
                parts.extend(cards)
    known = tuple(parts)
    cache_of: dict = cache
    hit = cache_of.get(known)
    if hit is not None:
        items, spent = hit
        g.work -= spent
        if g.work < 0:
            out_of_work(key, at)
        return items
    before = g.work
    items = compute()
    if len(cache) >= _WHERE_CACHE_SIZE:
        cache.clear()
    cache[known] = (items, before - g.work)
    return items


def _every_key(g, zone_ids):
    """The keys of every player's zone of each id of `zone_ids`, in seating order."""
    lists = g.layout.key_lists
    return lists[zone_ids[0]] if len(zone_ids) == 1 else [key for zone in zone_ids for key in lists[zone]]


def weight(node) -> int:
    """The number of instructions in an expression: what evaluating it once costs, roughly."""
    if not isinstance(node, (list, tuple)):
        return 0
    total = 1 if node and isinstance(node[0], str) else 0
    for part in node:  # a word or number weighs nothing: no call for it (compiling asks this of every node)
        if isinstance(part, (list, tuple)):
            total += weight(part)
    return total


def compile_expression(rules, key: str, node, scope):
    """A Python function of the evaluation context computing the expression `node` (lowered DSL)."""
    return ExpressionCompiler(rules, key, scope).compile(node)
