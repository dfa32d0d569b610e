"""Checking: every name, arity and type of an instruction tree against the built-in tables (builtins.py) and
the pack's own ids (`Symbols`), as problems with a code, the offset and a hint.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.suggestions import suggest

from .builtins import CARD_FIELDS, CONSTANTS, FUNCTIONS, MOMENTS, VERBS, ZONE_FIELDS
from .parsing import EFFECT, Problem


@dataclass
class Symbols:
    """What a pack defines, as the checker sees it."""

    ids: dict[str, str] = field(default_factory=dict)  # id -> category (card, zone, counter, ...)
    zone_owner: dict[str, str] = field(default_factory=dict)  # zone id -> table | player
    counter_owner: dict[str, str] = field(default_factory=dict)
    unread: set[str] = field(default_factory=set)  # counters not everyone may read (`visibility: owner|hidden`)
    functions: dict[str, int | None] = field(
        default_factory=dict
    )  # pack function id -> number of params (None: unknown)
    # action id -> how many values `perform ACTION(...)` gives it (`params`; None: unknown, 0: none)
    action_params: dict[str, int | None] = field(default_factory=dict)
    card_stats: set[str] = field(default_factory=set)  # stat and ref names usable as card.FIELD
    keyed: set[str] = field(default_factory=set)  # counters with `keys`: a number per key
    on_card: set[str] = field(default_factory=set)  # counters with `owner: card`: a number on each card
    table_flags: set[str] = field(default_factory=set)  # flags with `owner: table`: one for the whole table

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


def _same_items(kind: str) -> str:
    """The type of a list of a group's own items, fewer or in another order (`unique`, `sort`): cards stay cards."""
    return kind if kind in ("cards", "players") else "cards" if kind == "zone" else "any"


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
        checked = 1 if name == "perform" and args and self.performed(args[0]) else 0
        # not strict: a wrong count of arguments is D003 above; the ones there are are still checked
        for param, arg in list(zip(verb.params_for(len(args)), args, strict=False))[checked:]:
            if param.type == "name":
                if arg[0] != "name":
                    self.problem("D004", f"`{name}` needs a plain name for its {param.name}", arg[1])
                elif name in ("flag", "unflag"):
                    self.flag_name(arg)
                    given = next((offset for prep, offset, _ in clauses if prep == "for"), None)
                    if arg[2] in self.symbols.table_flags and given is not None:
                        self.problem(
                            "D003",
                            f"`{arg[2]}` is the table's flag (`owner: table`), no player's",
                            given,
                            f"write `{name} {arg[2]}` alone",
                        )
                else:
                    bindings.append((arg[2], arg[1]))
            else:
                self.expect(arg, param.type, f"the {param.name} of `{name}`")
        seen = set()
        options, labels = "any", []  # the type of `from`; `showing` labels its items, checked once it is known
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
            elif param.type == "moment":  # a plain word: `until round_end`
                if value[0] != "name" or value[2] not in MOMENTS:
                    words = " or ".join(f"`{m}`" for m in MOMENTS)
                    self.problem("D004", f"the `{prep}` part of `{name}` must be {words}", value[1])
            elif prep == "showing":
                labels.append(value)
            elif prep == "from" and param.type == "any":
                options = self.expr(value)
            else:
                self.expect(value, param.type, f"the `{prep}` part of `{name}`")
        for label in labels:
            self.per_item(options, label)
        for prep, param in verb.clauses.items():
            if param.required and prep not in seen:
                self.problem(
                    "D003", f"`{name}` needs a `{prep}` part ({param.name})", at, f"for example: {verb.example}"
                )
        if name == "log" and args:
            self.told_to_all(args[0])
        if name in ("gain", "lose", "set", "pay") and args:
            counter = args[0] if name == "set" else args[-1]
            self.keyed_change(name, counter, clauses, at)
            self.card_change(name, counter, clauses, at)
        for binding, offset in bindings:
            self.bind(binding, verb.binds, offset)

    def performed(self, target) -> bool:
        """The action of a `perform` and the values it is given: `perform suffer(3)` gives `suffer` its `params`
        (as many as it declares), `perform suffer` none. True when the target was checked here."""
        if target[0] == "call" and self.symbols.ids.get(target[2]) == "action":
            values = target[3]
        elif target[0] == "name" and target[2] not in self.scope and self.symbols.action_params.get(target[2]):
            values = []
        else:
            return False
        _, at, action = target[:3]
        expected = self.symbols.action_params.get(action, 0)
        if expected is not None and len(values) != expected:
            self.problem(
                "D003",
                f"`{action}` takes {expected} value{'s' if expected != 1 else ''} (its `params`), "
                f"got {len(values) or 'none'}",
                at,
                f"give them in parentheses: perform {action}({', '.join(['...'] * expected)})"
                if expected
                else f"write `perform {action}`, or give the action `params:`",
            )
        for value in values:
            self.expr(value)
        return True

    def told_to_all(self, node):
        """A log line is read by every player: a value in it that reads a counter not everyone may read tells
        them what its `visibility` hides (D011)."""
        if not isinstance(node, list):
            return
        if len(node) >= 3 and isinstance(node[0], str) and isinstance(node[1], int):  # a node: [kind, offset, ...]
            kind = node[0]
            word = node[3] if kind == "field" else node[2]
            if kind == "call" and word == "amount" and node[3] and node[3][0][0] == "name":
                word = node[3][0][2]
            if kind in ("field", "name", "call") and word in self.symbols.unread and word not in self.scope:
                self.problem(
                    "D011",
                    f"this log line shows `{word}` to every player, though its `visibility` hides it from some",
                    node[1],
                    "log that it changed, not its value; or show the value only to its owner (`ask`, a `with` "
                    "question)",
                )
                return
        for part in node:
            self.told_to_all(part)

    def keyed_change(self, verb, counter, clauses, at):
        """A counter with `keys` changes at one key (`gain 1 progress at 7`); `set` without one sets every key.
        A counter without keys has no key to name."""
        if not self.names_counter(counter):
            return  # a counter named by an expression, or a flag (`set`): not known here
        given = next((offset for prep, offset, _ in clauses if prep == "at"), None)
        if counter[2] in self.symbols.keyed:
            if given is None and verb != "set":
                self.problem(
                    "D003",
                    f"`{counter[2]}` holds a number per key: `{verb}` "
                    + ("cannot pay it" if verb == "pay" else "needs `at KEY`"),
                    at,
                    f"for example: {verb} 1 {counter[2]} at KEY" if verb != "pay" else f"lose 1 {counter[2]} at KEY",
                )
        elif given is not None:
            self.problem(
                "D003", f"`{counter[2]}` has no keys, so `{verb}` takes no `at` part", given, "declare `keys:` on it"
            )

    def card_change(self, verb, counter, clauses, at):
        """A counter kept on cards (`owner: card`) changes on one card (`gain 1 wounds on hit`); any other
        counter is on no card, and neither is a flag."""
        given = next((offset for prep, offset, _ in clauses if prep == "on"), None)
        if given is not None and counter[0] == "name" and self.symbols.ids.get(counter[2]) == "flag":
            self.problem("D003", f"`{counter[2]}` is a flag, kept on no card: `{verb}` takes no `on` part", given)
            return
        if not self.names_counter(counter):
            return
        if counter[2] in self.symbols.on_card:
            if given is None:
                self.problem(
                    "D003",
                    f"`{counter[2]}` is a number on each card: `{verb}` "
                    + ("cannot pay it" if verb == "pay" else "needs `on CARD`"),
                    at,
                    f"for example: {verb if verb != 'pay' else 'lose'} 1 {counter[2]} on card"
                    if verb != "set"
                    else f"set {counter[2]} to 0 on card",
                )
        elif given is not None:
            self.problem(
                "D003",
                f"`{counter[2]}` is not kept on cards, so `{verb}` takes no `on` part",
                given,
                "declare it with `owner: card` to keep a number on each card",
            )

    @staticmethod
    def _count(params):
        low = sum(1 for p in params if p.required)
        high = len(params)
        if low == high:
            return f"{high} argument{'s' if high != 1 else ''}"
        return f"{low} to {high} arguments"

    def expect(self, node, expected, what):
        if expected == "counter" and self.names_counter(node):
            return  # where a counter is expected, a counter's bare name names it (a table counter's too)
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
            self.field_hidden_by_id(node[3], node[4])
            for side in (node[3], node[4]):
                if self.expr(side) == "counter" and node[2] in ("<", "<=", ">", ">="):
                    self.problem(
                        "D004",
                        f"`{node[2]}` compares numbers, and `{side[2] if side[0] == 'name' else 'this'}` is a counter",
                        side[1],
                        "read a player's counter as `me.NAME` (or `amount(NAME, PLAYER)`)",
                    )
            return "bool"
        if op == "where":
            kind = self.expr(node[2])
            self.per_item(kind, node[3])
            return kind if kind in ("cards", "players") else "cards" if kind == "zone" else kind
        if op == "ifx":
            self.expr(node[2])
            then, otherwise = self.expr(node[3]), self.expr(node[4])
            if then == otherwise or "any" in (then, otherwise):
                return then if otherwise == "any" else otherwise
            return then if _fits(otherwise, then) else "any"
        return "any"

    def field_hidden_by_id(self, left, right):
        """D012: inside `where` over cards, `flute = 1` with `flute` both an id of the pack and a stat cards print
        compares the id, never the card's stat. A side compared with `id`, `type`, `tag`, `tags` or `back` is
        meant as the id (`where id = axe`)."""
        if not (self.in_where and self.where_items[-1] == "card"):
            return
        for side, other in ((left, right), (right, left)):
            word = side[2] if side[0] == "name" else None
            meant_as_id = other[0] == "name" and other[2] in ("id", "type", "tag", "tags", "back")
            category = self.symbols.ids.get(word) if word and word not in self.scope else None
            if category is not None and word in self.symbols.card_stats and not meant_as_id:
                self.problem(
                    "D012",
                    f"`{word}` is a {category} of this pack and also a field cards print: here it reads the "
                    f"{category}, not the card's `{word}`",
                    side[1],
                    f"write `card.{word}` (or `item.{word}`) for the field, or rename one of the two",
                )

    def per_item(self, kind, node) -> str:
        """Check `node` as worked out once per item of a group of type `kind`, with `item` the item (and a
        card's fields bare names), as inside `where`, `map(...)` and `showing`; returns its type."""
        self.in_where += 1
        self.where_items.append(
            "player" if kind in ("players", "player") else "card" if kind in ("cards", "card", "zone") else "any"
        )
        try:
            return self.expr(node)
        finally:
            self.where_items.pop()
            self.in_where -= 1

    def name(self, node):
        word = node[2]
        if word in self.scope:
            return self.scope[word]
        if word == "item":
            if not self.where_items:
                return self.problem(
                    "D002",
                    "`item` names the thing being tested inside `where` (or mapped by `map`, sorted by `sort`, "
                    "labelled by `showing`), and there is none here",
                    node[1],
                    "write `... where <condition on item>`",
                )
            return self.where_items[-1]
        if word in CONSTANTS and not (word == "table" and word in self.symbols.ids):  # a pack's `table` stays its own
            return CONSTANTS[word].type
        category = self.symbols.ids.get(word)
        if category == "counter" and self.symbols.counter_owner.get(word) == "table" and word not in self.symbols.keyed:
            return "number"  # a table counter's bare name reads its value where a counter is not expected
        if category == "counter" and word in self.symbols.on_card and self.in_where:
            return "number"  # inside `where`, a card's own number, as a stat is read
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
            if func.per_item:
                return self.per_item_call(func, args)
            if name == "unique" and len(args) == 1:  # the same items, fewer: cards stay cards
                kind = self.expr(args[0])
                return _same_items(kind)
            if name == "words":  # also every text with `{...}` values (parsing.template)
                for arg in args:
                    card_id = arg[0] == "name" and arg[2] not in self.scope and self.symbols.ids.get(arg[2]) == "card"
                    if self.expr(arg) in ("card", "cards") and not card_id:  # an id is worded by its card's name
                        self.problem(
                            "D004",
                            "a card put into words reads as its number, not as its name",
                            arg[1],
                            "write its name: `{card.name}` (for several cards, `{map(cards, item.name)}`)",
                        )
                return func.returns
            if name == "amount" and args and self.names_counter(args[0]) and args[0][2] in self.symbols.on_card:
                self.problem(
                    "D003",
                    f"`{args[0][2]}` is a number on each card, no player's: read it as `CARD.{args[0][2]}`",
                    at,
                    f"for example: card.{args[0][2]}",
                )
            elif name == "amount" and args and self.names_counter(args[0]):
                keyed = args[0][2] in self.symbols.keyed
                if keyed != (len(args) == 3):
                    self.problem(
                        "D003",
                        f"`{args[0][2]}` holds a number per key: read it with `amount({args[0][2]}, PLAYER, KEY)`"
                        if keyed
                        else f"`{args[0][2]}` has no keys: `amount` takes the counter and a player",
                        at,
                    )
            for i, arg in enumerate(args):
                param = func.params[min(i, len(func.params) - 1)]
                if param.type == "name" and arg[0] == "name":
                    if param.name == "flag":
                        if arg[2] not in self.scope:  # a bound name: its value names the flag
                            self.flag_name(arg)
                    elif (
                        arg[2] not in self.symbols.ids
                        and arg[2] not in self.symbols.card_stats
                        and arg[2] not in self.scope
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

    def per_item_call(self, func, args) -> str:
        """`map(ITEMS, EXPR)`, `sort(ITEMS, KEY)`: EXPR checked per item; the type of the list they make."""
        kind = self.expr(args[0]) if args else "any"
        values = [self.per_item(kind, arg) if i in func.per_item else self.expr(arg) for i, arg in enumerate(args) if i]
        if func.name != "map":  # the same items, in another order
            return _same_items(kind)
        value = values[0] if values else "any"
        return "cards" if value == "card" else "players" if value == "player" else "any"

    def flag_name(self, node):
        """A flag named by `flag`, `unflag` or `flagged(...)`: a `kind: flag` document must declare it."""
        if self.symbols.ids.get(node[2]) == "flag":
            return
        flags = [i for i, category in self.symbols.ids.items() if category == "flag"]
        self.problem(
            "D002",
            f"unknown flag `{node[2]}`",
            node[1],
            suggest(node[2], flags) or f"declare it: `kind: flag`, `id: {node[2]}`, `name: ...` (docs/authoring.md)",
            unknown="name",
        )

    def names_counter(self, node) -> bool:
        """Whether an argument is a counter's bare name (not a name the text bound): it names the counter where
        a counter is expected (`gain 1 round`), and reads a table counter's value elsewhere (`round >= 3`)."""
        return node[0] == "name" and node[2] not in self.scope and self.symbols.ids.get(node[2]) == "counter"

    def field(self, node):
        _, at, target, name = node
        kind = self.expr(target)
        if kind in ("table", "player") and (name in self.symbols.keyed or name in self.symbols.on_card):
            what, hint = (
                ("holds a number per key, not one number", f"read one key's number: amount({name}, me, KEY)")
                if name in self.symbols.keyed
                else (
                    f"is a number on each card, not the {kind}'s",
                    f"read it on a card: `card.{name}` (inside `where`, `{name}` alone)",
                )
            )
            return self.problem("D004", f"`{name}` {what}", at, hint)
        if kind == "table":
            if self.symbols.counter_owner.get(name) == "table":
                return "number"
            tables = [c for c, owner in self.symbols.counter_owner.items() if owner == "table"]
            return self.problem(
                "D002",
                f"the table has no counter `{name}`",
                at,
                suggest(name, tables) or "`table.NAME` reads a counter with `owner: table`; a player's is `me.NAME`",
            )
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
            if name in self.symbols.card_stats or name in self.symbols.on_card:
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
