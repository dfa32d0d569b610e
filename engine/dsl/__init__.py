"""The effect DSL: texts parsed with the lark grammar into a plain-data instruction tree (parsing.py), then every
name, arity and type checked against the built-in tables and the pack's own ids (checking.py). builtins.py
declares every verb, function and built-in name once; docs.py writes docs/dsl.md from it.

The instruction tree (nested lists, JSON-serializable) is what the runtime compiles (engine/runtime/compiler.py).
"""

from __future__ import annotations

from .builtins import VERBS
from .checking import Checker, Symbols, check
from .parsing import CONDITION, EFFECT, EXPRESSION, MAX_NESTING, MAX_TEXT, Problem, parse, parser

__all__ = [
    "CONDITION",
    "EFFECT",
    "EXPRESSION",
    "MAX_NESTING",
    "MAX_TEXT",
    "VERBS",
    "Checker",
    "Problem",
    "Symbols",
    "check",
    "parse",
    "parse_and_check",
    "parser",
]


def parse_and_check(text: str, mode: str, symbols: Symbols, locals_=None):
    """Parse and check. Returns (instructions or None, problems)."""
    ir, problem = parse(text, mode)
    if problem is not None:
        return None, [problem]
    return ir, check(ir, mode, symbols, locals_)
