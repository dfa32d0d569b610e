"""The work budget of one answer, and the size bounds of values: untrusted content cannot make one answer
run for ever, nor build a number or a list that takes for ever to print, save or compare.

`STEP_BUDGET` counts statements (the steps of effects); this budget counts what happens inside expressions.
`Game.work` starts at `WORK_BUDGET` at each answer and every costly piece of expression evaluation spends from it: one
unit per item a `where` tests (times the size of its test), per item a built-in function walks or a list
operation builds, CALL_COST plus one per expression node of a pack function called, per element compared when two lists are
compared. When it runs out, the answer stops with a content error at the spot. Plain lookups, arithmetic
and comparisons of single values cost nothing: they are bounded by the length of the text.

Numbers stay within ±2^MAX_INT_BITS (checked on products and on every value kept by `let` or put on a
counter), and a list holds at most MAX_SIZE items counting those of the lists inside it, as many times as
they appear (checked where a list is built from other lists), so a list cannot contain itself many times
over through sharing.
"""

from __future__ import annotations

from .errors import ContentError

MAX_CALL_DEPTH = 32  # pack functions calling functions
STEP_BUDGET = 200_000  # steps of effects per answer: a looping effect stops with an error
WORK_BUDGET = 2_000_000  # units of work per answer; the built-in packs use at most 2,000 (0.1 %)
CALL_COST = 50  # a pack function's call, besides one unit per instruction of its body
MAX_INT_BITS = 64  # numbers stay within ±2^64: no rule needs more
MAX_INT = 1 << MAX_INT_BITS
MAX_SIZE = 10_000  # items in a list, counting those of nested lists as often as they appear
MAX_ANSWERS_PER_TURN = 1_000  # `knap sim`/`play`: a longer turn stalls; the built-in packs' longest has under 100


def out_of_work(key: str = "", at: int = 0):
    raise ContentError(
        f"this answer ran out of work: more than {WORK_BUDGET:,} units (items visited, lists "
        "built, functions called) without a decision; does an expression grow with itself?",
        key,
        at,
        code="X101",
    )


def spend(g, units: int, key: str = "", at: int = 0):
    """Take `units` from the answer's budget (`g.work`); stop the answer when it is spent."""
    g.work -= units
    if g.work < 0:
        out_of_work(key, at)


def bounded_int(value: int, key: str = "", at: int = 0) -> int:
    """`value`, if it is within the bounds of numbers; else a content error."""
    if -MAX_INT <= value <= MAX_INT:
        return value
    raise ContentError(
        f"a number too large ({value.bit_length()} bits): numbers stay within ±2^{MAX_INT_BITS}", key, at, code="X102"
    )


def bounded(value, key: str = "", at: int = 0):
    """A value about to be kept (by `let`, on a counter, in a flag): numbers within their bounds."""
    if type(value) is int and not -MAX_INT <= value <= MAX_INT:
        bounded_int(value, key, at)
    return value


def expanded_size(items: list, limit: int = MAX_SIZE) -> int:
    """How many items `items` holds, counting those of the lists inside it as often as they appear; the
    count stops soon after passing `limit`, so a list shared with itself many times over costs little."""
    total = 0
    pending = [items]
    while pending:
        current = pending.pop()
        total += len(current)
        if total > limit:
            return total
        if list in map(type, current):
            pending.extend(x for x in current if type(x) is list)
    return total


def check_size(items: list, key: str = "", at: int = 0, g=None) -> list:
    """A list just built from other values: refused when its expanded size passes MAX_SIZE; with `g`, the
    walk is paid from the answer's budget."""
    size = expanded_size(items)
    if size > MAX_SIZE:
        raise ContentError(
            f"a list too large: more than {MAX_SIZE:,} items, counting those of the lists inside "
            "it as often as they appear",
            key,
            at,
            code="X103",
        )
    if g is not None:
        spend(g, size, key, at)
    return items
