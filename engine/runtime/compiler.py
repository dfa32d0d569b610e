"""Compile the DSL's instruction tree into flat code (statements) and Python functions (expressions).

Expressions are compiled to Python source once per pack (codegen.py). Statements become a flat list
of steps with jumps, and a tree of where those steps sit (blocks, ifs, loops) from which lowering.py
builds Python functions that run many steps at once; a frame in the game state is then just (code key,
step index, locals), plain data that survives save, load and clone at any decision. Values at run time are
plain data too: numbers, booleans, ids (text), card numbers (int), players ("P1"...), zone keys ("forest",
"hand:P2"), lists and None.
"""

from __future__ import annotations

import functools

from engine import dsl
from engine.content.schema import dsl_words, field_roles, values_at

from .codegen import function_body_ir
from .errors import ContentError
from .exists import compile_expression, compile_item_expression
from .verbs import compile_verb, holds_numbers, option_shape


class Code:
    """The compiled steps of one effect, the tree of their blocks, and (built on first use, lowering.py)
    the Python functions that run them from step 0 and from after each step that may wait."""

    __slots__ = ("entries", "key", "offsets", "steps", "tree")

    def __init__(self, key):
        self.key = key
        # ("verb", VerbStep) | ("let", name, expression) | ("unless", expression, jump pc) | ("jump", pc) |
        # ("repeat_init", slot, count) | ("repeat_next", slot, end pc) | ("for_init", slot, items) |
        # ("for_next", slot, name, end pc) | ("stop",): interpreter.interpret runs them, lowering.py as Python
        self.steps: list[tuple] = []
        self.offsets: list[int] = []
        # ("step", pc) | ("if", [(unless pc, body, jump pc)], else body or None) |
        # ("repeat" or "for", init pc, head pc, body, back-jump pc); a body is a list of nodes
        self.tree: list[tuple] = []
        self.entries: dict | None = None


class Compiler:
    def __init__(self, rules, key: str, scope=()):
        self.rules = rules
        self.key = key
        self.scope = set(scope)
        # names bound by `let` to lists of plain numbers, and "()NAME" for pack functions that make such lists
        self.numeric: set[str] = set(number_functions(rules))
        self.shapes: dict[str, list[bool]] = {}  # names bound by `let` to options that are lists (verbs.option_shape)
        self.slots = 0
        self._nodes: list = []  # where the statement being compiled goes in `Code.tree`

    # ------------------------------------------------------------ statements
    def effect(self, ir) -> Code:
        code = Code(self.key)
        self._nodes = code.tree
        self._block(ir, code)
        return code

    def _emit(self, code, step, offset):
        code.steps.append(step)
        code.offsets.append(offset)
        return len(code.steps) - 1

    def _block(self, node, code):
        for stmt in node[2]:
            self._statement(stmt, code)

    def _body(self, node, code) -> list:
        """The tree nodes of a nested block (an if's branch, a loop's body)."""
        outer, self._nodes = self._nodes, []
        try:
            self._block(node, code)
            return self._nodes
        finally:
            self._nodes = outer

    def _statement(self, node, code):
        op = node[0]
        if op == "block":
            self._block(node, code)
        elif op == "let":
            (self.numeric.add if holds_numbers(node[3], self.numeric) else self.numeric.discard)(node[2])
            shape = option_shape(node[3], self.numeric, self.shapes)
            if shape is None:
                self.shapes.pop(node[2], None)
            else:
                self.shapes[node[2]] = shape
            self.scope.add(node[2])
            value = self.expr(node[3])
            self._nodes.append(("step", self._emit(code, ("let", node[2], value), node[1])))
        elif op == "verb":
            step, binds = compile_verb(self, node)
            self.scope.update(binds)
            if node[2] == "roll":  # the faces rolled are plain numbers, never card numbers
                self.numeric.update(binds)
            self._nodes.append(("step", self._emit(code, step, node[1])))
        elif op == "if":
            ends, branches = [], []
            for cond, body in node[2]:
                test = self.expr(cond)
                jump = self._emit(code, ["unless", test, None], cond[1])
                nodes = self._body(body, code)
                ends.append(self._emit(code, ["jump", None], cond[1]))
                code.steps[jump][2] = len(code.steps)
                branches.append((jump, nodes, ends[-1]))
            otherwise = self._body(node[3], code) if node[3] is not None else None
            for at in ends:
                code.steps[at][1] = len(code.steps)
            self._nodes.append(("if", branches, otherwise))
        elif op == "repeat":
            slot = self._slot()
            count = self.expr(node[2])
            init = self._emit(code, ("repeat_init", slot, count), node[1])
            head = self._emit(code, ["repeat_next", slot, None], node[1])
            nodes = self._body(node[3], code)
            back = self._emit(code, ["jump", head], node[1])
            code.steps[head][2] = len(code.steps)
            self._nodes.append(("repeat", init, head, nodes, back))
        elif op == "for":
            slot = self._slot()
            items = self.expr(node[3])
            self.scope.add(node[2])
            init = self._emit(code, ("for_init", slot, items), node[1])
            head = self._emit(code, ["for_next", slot, node[2], None], node[1])
            nodes = self._body(node[4], code)
            back = self._emit(code, ["jump", head], node[1])
            code.steps[head][3] = len(code.steps)
            self._nodes.append(("for", init, head, nodes, back))
        elif op == "stop":
            self._nodes.append(("step", self._emit(code, ("stop",), node[1])))
        else:  # pragma: no cover -- the grammar has no other statements
            raise ContentError(f"unknown statement {op}", self.key, node[1], code="X502")

    def _slot(self):
        self.slots += 1
        return f"${self.slots}"

    # ------------------------------------------------------------ expressions
    def expr(self, node):
        """A Python function of the evaluation context (codegen.py; "is X empty?" stops early: exists.py)."""
        return compile_expression(self.rules, self.key, node, frozenset(self.scope))

    def item_expr(self, node):
        """A Python function of the evaluation context and one item, `item` bound to it (`showing`)."""
        return compile_item_expression(self.rules, self.key, node, frozenset(self.scope))


def number_functions(rules) -> frozenset:
    """ "()NAME" for each pack function whose body makes a list of plain numbers (`numbers(1, n) where ...`), so
    options taken from a call of it read as numbers, not as cards (verbs.holds_numbers); worked out once per
    pack, through functions calling functions."""
    found = rules.__dict__.get("_number_functions")
    if found is not None:
        return found
    bodies = {name: function_body_ir(rules, name) for name in rules.functions}
    known: set[str] = set()
    for _ in range(len(bodies)):  # each pass adds at least one, or nothing more will come
        more = {f"(){name}" for name, ir in bodies.items() if ir is not None and holds_numbers(ir, known)}
        if more <= known:
            break
        known |= more
    rules.__dict__["_number_functions"] = found = frozenset(known)
    return found


def compile_text(rules, key: str, text: str, mode: str, scope=()):
    ir, problem = dsl.parse(text, mode)
    if problem is not None:  # lint refuses such packs; a pack loaded without lint still fails clearly
        raise ContentError(problem.message, key, problem.offset, code="X502")
    compiler = Compiler(rules, key, scope)
    if mode == dsl.EFFECT:
        return compiler.effect(ir)
    return compiler.expr(ir)


@functools.cache
def behaviour_fields(kind: str) -> tuple[tuple[str, str], ...]:
    """(field, mode) of every DSL text a document of `kind` holds: the fields its schema marks `x-dsl`, the
    marks lint checks by, so what lint checks and what runs are one list."""
    return tuple((path[0], mode) for path, role, mode in field_roles(kind) if role == "dsl" and len(path) == 1)


@functools.cache
def _behaviour_patterns(kind: str) -> tuple[tuple[tuple, str, frozenset], ...]:
    """(path pattern, mode, plain words) of every DSL text of a `kind`, nested ones included (the entries of
    an end rule's `tiebreak` list); plain words (`x-dsl-words`, e.g. `end_turn: never`) are not DSL."""
    words = dsl_words(kind)
    return tuple((path, mode, words.get(path, frozenset())) for path, role, mode in field_roles(kind) if role == "dsl")


def behaviour_texts(kind: str, doc: dict):
    """(path, mode, text) of every DSL text `doc` holds, as lint checks them (lint/checks.dsl_texts)."""
    for pattern, mode, words in _behaviour_patterns(kind):
        for path, text in values_at(doc, pattern):
            if isinstance(text, str) and text not in words:
                yield path, mode, text


def code_key(kind: str, doc_id: str, path: tuple) -> str:
    """The key of a compiled text in `rules.code`: `action/explore/effect`, `end/goal/tiebreak/2/least`."""
    return f"{kind}/{doc_id}/" + "/".join(map(str, path))


def compile_rules(rules) -> None:
    """Compile every effect, condition and function body of the pack into `rules.code` (and the manifest's
    DSL fields, such as `end_turn`, under `pack/ID/...`)."""
    for kind, docs in (
        ("action", rules.actions.values()),
        ("function", rules.functions.values()),
        ("phase", [d for group in rules.phases.values() for d in group]),
        ("end", rules.ends),
        ("scoring", rules.scorings),
        ("card", rules.cards.values()),
        ("pack", [rules.manifest] if rules.manifest.get("id") else []),
    ):
        for doc in docs:
            scope = doc.get("params") or () if kind in ("function", "action") else ()
            for path, mode, text in behaviour_texts(kind, doc):
                key = code_key(kind, doc["id"], path)
                rules.code[key] = compile_text(rules, key, text, mode, scope)
