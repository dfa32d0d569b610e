"""What an end trigger reads, proven from its text, for the driver's shortcut (driver._check_end): a trigger that reads
only counters by name (numbers, parameters, `me.COUNTER`, table counters, compared, negated, joined by and/or/not)
and charges no work has, for each player, a value fixed by those counters' numbers of the players and the table; one
that also counts zones (`count(ZONE(me))`, `count(ZONE)`: a zone's length, and as much work) has a value and a work
fixed by those numbers and those zones' lengths."""

from __future__ import annotations

from engine import dsl
from engine.dsl.builtins import CONSTANTS

from . import functions
from .layout import is_slotted

ABSENT = object()  # in the driver's key: a counter its owner does not hold (a player's read falls back to the table's)


def trigger_inputs(rules, texts: list) -> tuple[tuple, tuple] | None:
    """What the triggers `texts` read, when each reads counters or counts zones and nothing else that changes in a game
    (`inputs_read`), else None: (the counters read, in order; the zones counted, each (zone id, whether each player's:
    `ZONE(me)`, else the zone itself), in order)."""
    read: set[str] = set()
    counted: set[tuple[str, bool]] = set()
    for text in texts:
        found = inputs_read(rules, text) if isinstance(text, str) else None
        if found is None or not (found[0] or found[1]):
            return None
        read |= found[0]
        counted |= found[1]
    return tuple(sorted(read)), tuple(sorted(counted))


def counters_read(rules, text: str) -> set[str] | None:
    """The counters the condition `text` reads, when it provably reads nothing else that changes in a game, compiled
    as codegen.py compiles it; else None."""
    found = inputs_read(rules, text)
    return found[0] if found is not None and not found[1] else None


def inputs_read(rules, text: str) -> tuple[set[str], set[tuple[str, bool]]] | None:
    """(the counters, the zones counted) the condition `text` reads, when it provably reads nothing else that changes in
    a game, compiled as codegen.py compiles it (a zone counted: `count` of the zone's key, `_count`, whose work is its
    length); else None."""
    read: set[str] = set()
    counted: set[tuple[str, bool]] = set()

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
        if kind == "call" and word == "count" and len(node[3]) == 1:
            zone = zone_counted(rules, node[3][0])
            if zone is not None:
                counted.add(zone)
            return zone is not None
        return kind == "num" or kind in ("and", "or") and all(map(proven, word))

    ir, problem = dsl.parse(text, dsl.CONDITION)
    return (read, counted) if problem is None and proven(ir) else None


def zone_counted(rules, node) -> tuple[str, bool] | None:
    """(zone id, whether each player's) of `count(node)` when codegen compiles it as `_count` of the zone's key, a zone
    without places (its list's length: items_read reads a row with places otherwise): `ZONE(me)`, a player's zone
    (`'ZONE:%s' % (c.me,)`: codegen._x_call, the zone neither a built-in nor a pack function), or `ZONE`, the table's
    (its name: codegen._x_name); else None."""
    if functions.BUILTINS.get("count") is not functions._count:  # (a test's spy: not the count read here)
        return None
    kind, word = node[0], node[2]
    if kind == "call":
        args, per_player = node[3], True
        if len(args) != 1 or args[0][:1] != ["name"] or args[0][2] != "me" or word in functions.BUILTINS:
            return None
    elif kind == "name":
        args, per_player = (), False
        if word in CONSTANTS or rules.categories.get(word) != "zone":
            return None
    else:
        return None
    zone = rules.zones.get(word)
    if zone is None or word in rules.functions or is_slotted(zone) or (zone.get("owner") == "player") != per_player:
        return None
    if ":" in word:  # (a zone's key is its id, then `:` and its player: Table.zone_def)
        return None
    return word, per_player
