"""Checking: every name, arity and type of an instruction tree against the built-in tables (builtins.py) and
the pack's own ids (`Symbols`), as problems with a code, the offset and a hint.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.suggestions import suggest

from .builtins import CARD_FIELDS, CONSTANTS, FUNCTIONS, VERBS, ZONE_FIELDS
from .parsing import EFFECT, Problem


@dataclass
class Symbols:
    """What a pack defines, as the checker sees it."""

    ids: dict[str, str] = field(default_factory=dict)  # id -> category (card, zone, counter, ...)
    zone_owner: dict[str, str] = field(default_factory=dict)  # zone id -> table | player
    counter_owner: dict[str, str] = field(default_factory=dict)
    functions: dict[str, int | None] = field(
        default_factory=dict
    )  # pack function id -> number of params (None: unknown)
    card_stats: set[str] = field(default_factory=set)  # stat and ref names usable as card.FIELD

    def all_names(self):
        return set(self.ids) | set(CONSTANTS)


_CATEGORY_TYPES = {
    "card": "card",
    "zone": "zone",
    "counter": "counter",
    "tag": "name",
    "type": "name",
    "component": "any",
    "parameter": "any",
    "action": "any",
    "phase": "any",
    "function": "any",
    "end": "any",
    "scoring": "any",
    "pack": "any",
}

_COMPATIBLE = {
    ("card", "cards"),
    ("player", "players"),
    ("number", "range"),
    ("name", "text"),
    ("text", "name"),
    ("cards", "card"),
    ("players", "player"),
    ("range", "number"),
    ("zone", "cards"),
    ("number", "bool"),
    ("bool", "number"),
}


def _fits(actual: str, expected: str) -> bool:
    return actual == expected or "any" in (actual, expected) or (actual, expected) in _COMPATIBLE


class Checker:
    def __init__(self, symbols: Symbols, locals_: dict[str, str] | None = None):
        self.symbols = symbols
        self.scope: dict[str, str] = dict(locals_ or {})
        self.problems: list[Problem] = []
        self.in_where = 0
        self.where_items: list[str] = []  # the type of `item` in each enclosing `where`

    def problem(self, code, message, offset, hint="", unknown=""):
        self.problems.append(Problem(code, message, offset, hint, unknown))
        return "any"

    def bind(self, name, kind, at):
        """A name the text gives a value (`let`, `for each`, `as`). Reusing an id of the pack hides that id
        for the rest of the text, where it would read the bound value (or none yet) instead."""
        category = self.symbols.ids.get(name)
        if category is not None and name not in self.scope:
            self.problem(
                "D006",
                f"`{name}` is a {category} of this pack; naming a value `{name}` hides it for the rest of the text",
                at,
                f"choose another name, such as `{name}_{kind if kind != 'any' else 'value'}`",
            )
        self.scope[name] = kind

    # statements
    def block(self, node):
        for stmt in node[2]:
            self.statement(stmt)

    def statement(self, node):
        op = node[0]
        if op == "block":
            self.block(node)
        elif op == "verb":
            self.verb(node)
        elif op == "let":
            self.bind(node[2], self.expr(node[3]), node[1])
        elif op == "if":
            for cond, body in node[2]:
                self.expr(cond)
                self.block(body)
            if node[3] is not None:
                self.block(node[3])
        elif op == "repeat":
            self.expect(node[2], "number", "the repeat count")
            self.block(node[3])
        elif op == "for":
            kind = self.expr(node[3])
            self.bind(node[2], {"players": "player", "cards": "card"}.get(kind, "any"), node[1])
            self.block(node[4])

    def verb(self, node):
        _, at, name, args, clauses = node
        verb = VERBS.get(name)
        if verb is None:
            hint = suggest(name, VERBS) or "see docs/dsl.md for the verbs"
            self.problem("D002", f"unknown verb `{name}`", at, hint)
            for arg in args:
                self.expr(arg)
            return
        required = [p for p in verb.args if p.required]
        if not (len(required) <= len(args) <= len(verb.args)):
            shown = " ".join(p.name if p.required else f"[{p.name}]" for p in verb.args)
            self.problem(
                "D003",
                f"`{name}` takes {self._count(verb.args)}, got {len(args)}",
                at,
                f"write it as: {name} {shown}".rstrip(),
            )
        bindings = []
        # not strict: a wrong count of arguments is D003 above; the ones there are are still checked
        for param, arg in zip(verb.params_for(len(args)), args, strict=False):
            if param.type == "name":
                if arg[0] != "name":
                    self.problem("D004", f"`{name}` needs a plain name for its {param.name}", arg[1])
                elif name in ("flag", "unflag"):
                    pass
                else:
                    bindings.append((arg[2], arg[1]))
            else:
                self.expect(arg, param.type, f"the {param.name} of `{name}`")
        seen = set()
        for prep, offset, value in clauses:
            param = verb.clauses.get(prep)
            if param is None:
                allowed = ", ".join(f"`{p}`" for p in verb.clauses) or "none"
                self.problem("D003", f"`{name}` takes no `{prep}` part", offset, f"its parts are: {allowed}")
                self.expr(value)
                continue
            if prep in seen:
                self.problem("D003", f"`{prep}` is given twice", offset)
            seen.add(prep)
            if param.type == "name":
                if value[0] != "name":
                    self.problem("D004", f"`{prep}` needs a plain name to bind", value[1])
                else:
                    bindings.append((value[2], value[1]))
            else:
                self.expect(value, param.type, f"the `{prep}` part of `{name}`")
        for prep, param in verb.clauses.items():
            if param.required and prep not in seen:
                self.problem(
                    "D003", f"`{name}` needs a `{prep}` part ({param.name})", at, f"for example: {verb.example}"
                )
        for binding, offset in bindings:
            self.bind(binding, verb.binds, offset)

    @staticmethod
    def _count(params):
        low = sum(1 for p in params if p.required)
        high = len(params)
        if low == high:
            return f"{high} argument{'s' if high != 1 else ''}"
        return f"{low} to {high} arguments"

    def expect(self, node, expected, what):
        actual = self.expr(node)
        if not _fits(actual, expected):
            self.problem("D004", f"{what} must be a {expected}, not a {actual}", node[1])

    # expressions: return a type name
    def expr(self, node):
        op = node[0]
        if op == "num":
            return "number"
        if op == "str":
            return "text"
        if op == "name":
            return self.name(node)
        if op == "list":
            types = {self.expr(item) for item in node[2]}
            return "cards" if types == {"card"} else "players" if types == {"player"} else "any"
        if op == "call":
            return self.call(node)
        if op == "field":
            return self.field(node)
        if op == "index":
            self.expr(node[2])
            self.expr(node[3])
            return "any"
        if op == "neg":
            self.expect(node[2], "number", "`-`")
            return "number"
        if op == "not":
            self.expr(node[2])
            return "bool"
        if op in ("and", "or"):
            for item in node[2]:
                self.expr(item)
            return "bool"
        if op == "op" and node[2] in "+-":
            left, right = self.expr(node[3]), self.expr(node[4])
            if left == right == "any":  # lists built with `let` are not typed further
                return "any"
            collections = {"cards", "players", "zone", "card", "player"}
            if left in collections or right in collections:  # union (+) or difference (-) of groups
                if not (left in collections | {"any"} and right in collections | {"any"}):
                    self.problem("D004", f"`{node[2]}` cannot combine a {left} and a {right}", node[1])
                return "players" if "player" in left or "player" in right else "cards"
            for side, kind in (("left", left), ("right", right)):
                if not _fits(kind, "number"):
                    self.problem("D004", f"the {side} side of `{node[2]}` must be a number, not a {kind}", node[1])
            return "number"
        if op == "op":
            self.expect(node[3], "number", f"the left side of `{node[2]}`")
            self.expect(node[4], "number", f"the right side of `{node[2]}`")
            return "number"
        if op == "cmp":
            self.expr(node[3])
            self.expr(node[4])
            return "bool"
        if op == "where":
            kind = self.expr(node[2])
            self.in_where += 1
            self.where_items.append(
                "player" if kind in ("players", "player") else "card" if kind in ("cards", "card", "zone") else "any"
            )
            self.expr(node[3])
            self.where_items.pop()
            self.in_where -= 1
            return kind if kind in ("cards", "players") else "cards" if kind == "zone" else kind
        return "any"

    def name(self, node):
        word = node[2]
        if word in self.scope:
            return self.scope[word]
        if word == "item":
            if not self.where_items:
                return self.problem(
                    "D002",
                    "`item` names the thing being tested inside `where`, and there is no `where` here",
                    node[1],
                    "write `... where <condition on item>`",
                )
            return self.where_items[-1]
        if word in CONSTANTS:
            return CONSTANTS[word].type
        category = self.symbols.ids.get(word)
        if category is not None:
            return _CATEGORY_TYPES.get(category, "any")
        if self.in_where and (word in CARD_FIELDS or word in self.symbols.card_stats):
            return CARD_FIELDS.get(word, ("number",))[0]
        candidates = set(self.scope) | self.symbols.all_names()
        if self.in_where:
            candidates |= set(CARD_FIELDS) | self.symbols.card_stats
        hint = (
            suggest(word, candidates)
            or "names are ids of the pack, built-ins (docs/dsl.md) or names bound "
            "earlier with `let`, `choose` or `for each`"
        )
        return self.problem("D002", f"unknown name `{word}`", node[1], hint, unknown="name")

    def call(self, node):
        _, at, name, args = node
        func = FUNCTIONS.get(name)
        if func is not None:
            low = sum(1 for p in func.params if p.required)
            if len(args) < low or (len(args) > len(func.params) and not func.variadic):
                self.problem(
                    "D003",
                    f"`{name}` takes {Checker._count(func.params)}"
                    f"{' or more' if func.variadic else ''}, got {len(args)}",
                    at,
                    f"for example: {func.example}",
                )
            for i, arg in enumerate(args):
                param = func.params[min(i, len(func.params) - 1)]
                if param.type == "name" and arg[0] == "name":
                    if (
                        arg[2] not in self.symbols.ids
                        and arg[2] not in self.symbols.card_stats
                        and arg[2] not in self.scope
                        and name != "flagged"
                    ):
                        self.problem(
                            "D002",
                            f"unknown name `{arg[2]}`",
                            arg[1],
                            suggest(arg[2], set(self.symbols.ids) | self.symbols.card_stats),
                            unknown="name",
                        )
                    continue
                self.expect(arg, param.type, f"argument {i + 1} of `{name}`")
            return func.returns
        if name in self.symbols.functions:
            expected = self.symbols.functions[name]
            if expected is not None and len(args) != expected:
                self.problem(
                    "D003", f"`{name}` takes {expected} argument{'s' if expected != 1 else ''}, got {len(args)}", at
                )
            for arg in args:
                self.expr(arg)
            return "any"
        if self.symbols.ids.get(name) == "zone":
            if self.symbols.zone_owner.get(name) != "player":
                return self.problem(
                    "D003", f"the zone `{name}` is shared, so it takes no player", at, f"write `{name}` alone"
                )
            if len(args) != 1:
                return self.problem("D003", f"`{name}(...)` takes one player", at, f"for example: {name}(me)")
            self.expect(args[0], "player", f"the player of `{name}`")
            return "zone"
        hint = suggest(
            name,
            set(FUNCTIONS)
            | set(self.symbols.functions)
            | {z for z, owner in self.symbols.zone_owner.items() if owner == "player"},
        )
        self.problem(
            "D002", f"unknown function `{name}`", at, hint or "see docs/dsl.md for the functions", unknown="function"
        )
        for arg in args:
            self.expr(arg)
        return "any"

    def field(self, node):
        _, at, target, name = node
        kind = self.expr(target)
        if kind == "player":
            if name in self.symbols.counter_owner:  # its own counter, or a shared one anyone reads
                return "number"
            return self.problem(
                "D002",
                f"players have no `{name}`",
                at,
                suggest(name, list(self.symbols.counter_owner))
                or "a player's fields are its counters and the shared counters",
            )
        if kind in ("card", "cards"):
            if name in CARD_FIELDS:
                return CARD_FIELDS[name][0]
            if name in self.symbols.card_stats:
                return "number"
            return self.problem(
                "D002",
                f"cards have no field `{name}`",
                at,
                suggest(name, set(CARD_FIELDS) | self.symbols.card_stats)
                or "card fields are its built-in fields, stats and refs",
            )
        if kind == "zone":
            if name in ZONE_FIELDS:
                return ZONE_FIELDS[name][0]
            return self.problem("D002", f"zones have no field `{name}`", at, suggest(name, ZONE_FIELDS))
        known = set(CARD_FIELDS) | set(ZONE_FIELDS) | self.symbols.card_stats | set(self.symbols.counter_owner)
        if kind == "any" and name not in known:
            return self.problem("D002", f"unknown field `{name}`", at, suggest(name, known))
        return "any"


def check(ir, mode: str, symbols: Symbols, locals_: dict[str, str] | None = None) -> list[Problem]:
    checker = Checker(symbols, locals_)
    try:
        if mode == EFFECT:
            checker.block(ir)
        else:
            checker.expr(ir)
    except RecursionError:
        checker.problem("D005", "the text nests too deeply", 0, "simplify it with `let`")
    return checker.problems
