"""What an end trigger reads, proven from its text, for the driver's shortcut (driver._check_end): a trigger that reads
only counters by name (numbers, parameters, `me.COUNTER`, table counters, compared, negated, joined by and/or/not)
and charges no work has, for each player, a value fixed by those counters' numbers of the players and the table."""

from __future__ import annotations

from itertools import repeat

from engine import dsl
from engine.dsl.builtins import CONSTANTS

ABSENT = object()  # in the driver's key: a counter its owner does not hold (a player's read falls back to the table's)


def trigger_reads(rules, texts: list) -> tuple | None:
    """For each counter the triggers `texts` read, when all read counters only (else None), the arguments that follow
    an owner's counters in `dict.get(counters, counter, ABSENT)`, each repeated without end (never used up): the
    driver reads every owner's number in C, `map(dict.get, owners' counters, *arguments)`, with no call of a
    `methodcaller` (which, in CPython 3.11, makes a bound method and a tuple at each call)."""
    read: set[str] = set()
    for text in texts:
        found = counters_read(rules, text) if isinstance(text, str) else None
        if not found:
            return None
        read |= found
    return tuple((repeat(counter), repeat(ABSENT)) for counter in sorted(read))


def counters_read(rules, text: str) -> set[str] | None:
    """The counters the condition `text` reads, when it provably reads nothing else that changes in a game, compiled
    as codegen.py compiles it; else None."""
    read: set[str] = set()

    def proven(node) -> bool:
        kind, word = node[0], node[2]
        if kind == "name":
            spec = rules.counters.get(word) or {}
            if word in CONSTANTS:  # `current`, `players`... (codegen._x_name reads them first)
                return word in ("true", "false", "none")
            if spec.get("owner") == "table" and "keys" not in spec and rules.categories.get(word) == "counter":
                read.add(word)  # Table.counter("table", word)
                return True
            return rules.categories.get(word) == "parameter"
        if kind == "field" and word[:1] == ["name"] and word[2] == "me":  # the player's counter (codegen._field_read)
            read.add(node[3])
            return True
        if kind == "cmp":  # no list compared: ordered, or with a number (codegen._x_cmp)
            return (word in ("<", "<=", ">", ">=") or "num" in (node[3][0], node[4][0])) and all(map(proven, node[3:]))
        if kind in ("not", "neg"):
            return proven(word)
        return kind == "num" or kind in ("and", "or") and all(map(proven, word))

    ir, problem = dsl.parse(text, dsl.CONDITION)
    return read if problem is None and proven(ir) else None
