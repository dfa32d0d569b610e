"""Conditions that ask "is there some X?" compiled to stop at the first X that qualifies.

`count(X) > 0` (also `>= 1`, `!= 0`, `= 0`, `< 1`, `<= 0`, either way round) and `empty(X)` need only to
know whether X is empty. When X is a `where`, a pack function whose body is one (through functions
calling functions), or lists of those joined with `+`, the condition becomes Python's `any(...)` over the
same items with the same test (`A + B`: A's, then B's), instead of a list built in full and then counted.
Everything else compiles exactly as codegen.py compiles it, so the answer is the same: only the cards after
the first that qualifies are no longer examined, and less work is charged for them. Every expression of a
pack is compiled this way (`compile_expression`): the menu's `available:` texts, end triggers, effects and
functions alike.
"""

from __future__ import annotations

from engine import dsl

from . import functions
from .budget import CALL_COST
from .codegen import ExpressionCompiler, direct_function, function_body_ir, function_caller, weight
from .errors import ContentError

# `count(X) OP N` that says "X is not empty" (True) or "X is empty" (False), and the same written N OP count(X)
_NOT_EMPTY = {(">", 0): True, (">=", 1): True, ("!=", 0): True, ("==", 0): False, ("<", 1): False, ("<=", 0): False}
_MIRRORED = {">": "<", "<": ">", ">=": "<=", "<=": ">=", "==": "==", "!=": "!="}


def compile_condition(rules, key: str, text: str):
    """A Python function of the evaluation context: the condition `text`, short-cut where it asks "is
    there some X?". The same values as rules.code[key], compiled by codegen.py."""
    ir, problem = dsl.parse(text, dsl.CONDITION)
    if problem is not None:  # lint refuses such packs; one loaded without lint still fails clearly
        raise ContentError(problem.message, key, problem.offset, code="X502")
    return ExistsCompiler(rules, key, frozenset()).compile(ir)


def compile_expression(rules, key: str, node, scope):
    """A Python function of the evaluation context computing the expression `node` (lowered DSL), as
    codegen.py compiles it but for "X is (not) empty", which stops at X's first item."""
    return ExistsCompiler(rules, key, scope).compile(node)


def compile_item_expression(rules, key: str, node, scope):
    """A Python function of the evaluation context and one item: `node` worked out with `item` bound to the
    item (as inside `where`), as `choose ... showing LABEL` words each option."""
    return ExistsCompiler(rules, key, scope).compile(node, per_item=True)


class ExistsCompiler(ExpressionCompiler):
    """codegen's compiler, with "X is (not) empty" compiled to `any(...)` where X allows it."""

    def _x_cmp(self, node):
        _, _, op, left, right = node
        shape = _emptiness(op, left, right)
        if shape is not None and _can_short_cut(self.rules, shape[0], set()):
            listed, not_empty = shape
            test = self._exists(listed)
            return test if not_empty else f"(not {test})"
        return super()._x_cmp(node)

    def _x_call(self, node):
        _, _, name, args = node
        if name == "empty" and len(args) == 1 and _can_short_cut(self.rules, args[0], set()):
            return f"(not {self._exists(args[0])})"
        return super()._x_call(node)

    def _exists(self, node) -> str:
        """Source of "the list `node` has an item": `node` passed _can_short_cut."""
        if node[0] == "op":  # A + B, two lists: A has an item, or else B has
            return f"({self._exists(node[3])} or {self._exists(node[4])})"
        if node[0] == "where":
            membership = self.membership(node)
            if membership is not None:  # `SOURCE where item = VALUE`: VALUE among the items, found by `in`
                each, value = membership
                return f"_holds(g, _each(g, {each}), {value})"
            _, loops, test = self.where_parts(node)
            fused = self.exists_calls.get((loops, test))
            if fused is not None:  # a test with a loop of its own in functions.py (codegen `_fused_exists`)
                return fused
            return f"any(True {loops} if {test})"
        _, at, name, args = node
        direct = direct_function(self.rules, name, ExistsCompiler, len(args), exists=True)
        caller = self._bind("X", name, direct if direct is not None else _exists_caller(self.rules, name))
        return f"{caller}(c, {self.key!r}, {int(at)}{''.join(', ' + self.src(a) for a in args)})"


def _emptiness(op, left, right):
    """(X, True) for `count(X) > 0` and the like, (X, False) for `count(X) = 0` and the like, else None."""
    if _is_count(right) and left[0] == "num":
        op, left, right = _MIRRORED[op], right, left
    if not (_is_count(left) and right[0] == "num"):
        return None
    not_empty = _NOT_EMPTY.get((op, int(right[2])))
    return None if not_empty is None else (left[3][0], not_empty)


def _is_count(node) -> bool:
    return node[0] == "call" and node[2] == "count" and len(node[3]) == 1


def _can_short_cut(rules, node, seen: set) -> bool:
    """Whether "`node` has an item" can stop at the first: a `where`, or a call of a pack function whose
    body is such (a function that calls itself on the way is left as it is)."""
    if node[0] == "where":
        return True
    if node[0] == "op":  # `+` of two such lists is a list (numbers are never `where`s)
        return node[2] == "+" and _can_short_cut(rules, node[3], seen) and _can_short_cut(rules, node[4], seen)
    if node[0] != "call" or node[2] in functions.BUILTINS or node[2] not in rules.functions or node[2] in seen:
        return False
    body = function_body_ir(rules, node[2])
    return (
        body is not None
        and len(node[3]) == len(rules.functions[node[2]].get("params") or [])
        and _can_short_cut(rules, body, seen | {node[2]})
    )


def _exists_caller(rules, name: str):
    """The caller of the pack function `name` asked only "is your list not empty?", made once per pack:
    its body compiled as `count(BODY) > 0` on the first call (functions may call each other), at the price
    of the body itself, through codegen.function_caller (the depth limit and the lent context)."""
    params = frozenset(rules.functions[name].get("params") or ())

    def compile_body():
        ir = function_body_ir(rules, name)
        at = ir[1]
        body = ExistsCompiler(rules, f"function/{name}/body", params).compile(
            ["cmp", at, ">", ["call", at, "count", [ir]], ["num", at, 0]]
        )
        body.call_cost = CALL_COST + weight(ir)
        return body

    return function_caller(rules, name, "_exists_callers", compile_body)
