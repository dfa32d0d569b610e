"""The effect DSL: parse texts with the lark grammar, lower them to a plain-data instruction tree,
and check every name, arity and type against the built-in tables and the pack's own ids.

The instruction tree (nested tuples and lists, JSON-serializable) is what the runtime executes;
every node carries the character offset of its text so a problem points at its exact spot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import DedentError, Indenter

from engine import suggestions
from engine.files import resources

from .builtins import CARD_FIELDS, CONSTANTS, FUNCTIONS, RESERVED_WORDS, VERBS, ZONE_FIELDS

MAX_TEXT = 4000  # characters in one DSL text
MAX_NESTING = 24  # brackets or blocks inside each other

EFFECT, CONDITION, EXPRESSION = "effect", "condition", "expression"


class _Indent(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types: ClassVar[list[str]] = ["LPAR", "LSQB"]
    CLOSE_PAREN_types: ClassVar[list[str]] = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4


@lru_cache(maxsize=1)
def parser() -> Lark:
    """Built once per process: the LALR tables are the expensive part."""
    grammar = resources.read_text("grammar", "effects.lark")
    return Lark(
        grammar,
        parser="lalr",
        postlex=_Indent(),
        start=["start", "expression_only"],
        propagate_positions=False,
        maybe_placeholders=True,
        transformer=_Lower(),
    )


@dataclass
class Problem:
    """A DSL problem at a character offset of the text; the caller maps it into the YAML file."""

    code: str
    message: str
    offset: int
    hint: str = ""


# ---------------------------------------------------------------- words for the parser's terminals
_TERMINAL_WORDS = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": 'a quoted text ("...")',
    "PREP": "a word such as `from`, `to` or `as`",
    "COMPARE": "a comparison (`=`, `<`, `>=` ...)",
    "MUL": "`*`, `/` or `%`",
    "PLUS": "`+`",
    "_NL": "the end of the line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of the block",
    "COLON": "`:`",
    "LPAR": "`(`",
    "RPAR": "`)`",
    "LSQB": "`[`",
    "RSQB": "`]`",
    "COMMA": "`,`",
    "DOT": "`.`",
    "SEMICOLON": "`;`",
    "MINUS": "`-`",
    "EQUAL": "`=`",
    "$END": "the end of the text",
}


_OPERATORS = {"PLUS", "MUL", "COMPARE", "EQUAL", "AND", "OR", "WHERE", "DOT", "LSQB", "MINUS", "TIMES", "STAR", "SLASH"}
_STATEMENT_STARTS = {"IF", "ELIF", "ELSE", "FOR", "LET", "REPEAT", "STOP"}


def _expected_words(expected) -> str:
    """The parser's expected terminals in words, the long tail folded into families."""
    expected = set(expected)
    words = []
    if len(expected) > 5 and expected & _OPERATORS:
        expected -= _OPERATORS
        words.append("an operator")
    if len(expected) > 5 and expected & _STATEMENT_STARTS:
        expected -= _STATEMENT_STARTS
        words.append("a new statement")
    for term in sorted(expected):
        if term.startswith("__ANON") or term in ("_INDENT", "_DEDENT", "SEMICOLON"):
            continue
        word = _TERMINAL_WORDS.get(term)
        if word is None:
            word = f"`{term.lower()}`" if term.isalpha() else term.lower()
        if word not in words:
            words.append(word)
    if not words:
        return "something else"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


# Typical mistakes, matched by the parser state they leave (lark's match_examples).
_EXAMPLES = {
    "a line starting a block (`if`, `else`, `repeat`, `for each`) must end with `:`": [
        "if x > 1\n  gain 1 vp\n",
        "repeat 2 times\n  gain 1 vp\n",
        "for each p in players\n  gain 1 vp\n",
        "if x\n",
        "else\n",
    ],
    "`=` compares two values here; to give a name a value write `let NAME = ...`": ["x = 1\n"],
    "a text must be in double quotes and end on the same line": ['log "abc\n'],
}


def _label_for(exc: UnexpectedInput, text: str, start: str) -> str | None:
    try:
        return exc.match_examples(lambda t: parser().parse(t, start=start), _EXAMPLES, use_accepts=True)
    except Exception:  # noqa: BLE001 -- matching is best effort; the plain message stays
        return None


def _syntax_problem(exc: Exception, text: str, start: str) -> Problem:
    if isinstance(exc, DedentError):
        return Problem(
            "D001",
            "this line's indentation does not match any block above it",
            _bad_dedent(text),
            "indent blocks by the same number of spaces",
        )
    if isinstance(exc, UnexpectedCharacters):
        char = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
        hint = ""
        if char == "'":
            hint = 'texts use double quotes: "like this"'
        elif char.isupper():
            hint = "names are lower-case snake_case: `stone_knife`"
        elif char == "-" or char == ".":
            hint = "ids use underscores, not hyphens"
        else:
            hint = f"expected {_expected_words(exc.allowed or [])}"
        return Problem("D001", f"unexpected character `{char}`", exc.pos_in_stream, hint)
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        offset = token.start_pos if token.start_pos is not None else len(text)
        label = _label_for(exc, text, start)
        if token.type == "$END":
            found = "the end of the text"
            offset = len(text.rstrip())
        elif token.type == "_NL":
            found = "the end of the line"
        elif token.type == "_INDENT":
            offset = _next_content(text, offset)
            return Problem(
                "D001",
                "this line is indented, but the line before does not open a block",
                offset,
                label or "indent only the lines under a line that ends with `:`",
            )
        else:
            found = f"`{token.value}`"
        expected = _expected_words(exc.expected)
        if token.type == "NAME" and token.value in RESERVED_WORDS:
            found = f"the word `{token.value}`"
        message = f"found {found}, expected {expected}"
        if not label and text.count("(", 0, offset) > text.count(")", 0, offset):
            label = "a `(` before this point is not closed"
        elif not label and text.count("[", 0, offset) > text.count("]", 0, offset):
            label = "a `[` before this point is not closed"
        return Problem("D001", message, offset, label or "")
    if isinstance(exc, UnexpectedEOF):
        return Problem("D001", f"the text ends too early, expected {_expected_words(exc.expected)}", len(text.rstrip()))
    return Problem("D001", f"cannot parse: {exc}", 0)


def _next_content(text: str, offset: int) -> int:
    """Skip from a line break to the first character of the next non-blank line."""
    while offset < len(text) and text[offset] in "\r\n\t ":
        offset += 1
    return offset


def _bad_dedent(text: str) -> int:
    """The offset of the first line that dedents to a level no open block has (as the Indenter sees it)."""
    levels = [0]
    offset = 0
    depth = 0
    for line in text.splitlines(keepends=True):
        content = line.strip()
        if content and not content.startswith("#") and depth == 0:
            indent = len(line) - len(line.lstrip(" \t"))
            if indent > levels[-1]:
                levels.append(indent)
            else:
                while indent < levels[-1]:
                    levels.pop()
                if indent != levels[-1]:
                    return offset + indent
        depth += line.count("(") + line.count("[") - line.count(")") - line.count("]")
        offset += len(line)
    return 0


def _nesting(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in "([":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]":
            depth -= 1
    indents = {len(line) - len(line.lstrip(" ")) for line in text.splitlines() if line.strip()}
    return max(deepest, len(indents))


# ---------------------------------------------------------------- lowering the tree to instructions
def _at(children) -> int:
    """The text offset of the first child: a token's own, an instruction's second item."""
    for child in children:
        if isinstance(child, Token):
            return child.start_pos or 0
        if isinstance(child, list) and len(child) > 1 and isinstance(child[1], int):
            return child[1]
    return 0


class _Lower(Transformer):
    """Turns each grammar rule into an instruction as the parser reduces it (no parse tree is built)."""

    def start(self, ch):
        return ["block", _at(ch), [c for c in ch if isinstance(c, list)]]

    def suite(self, ch):
        statements = []
        for c in ch:
            if isinstance(c, list):
                statements.extend(c[2] if c[0] == "block" else [c])
        return ["block", _at(ch), statements]

    def simple_line(self, ch):
        statements = [c for c in ch if isinstance(c, list)]
        return statements[0] if len(statements) == 1 else ["block", _at(ch), statements]

    def clause(self, ch):
        return ("clause", str(ch[0]), ch[0].start_pos, ch[1])

    def verb_call(self, ch):
        verb, args, clauses = ch[0], [], []
        for c in ch[1:]:
            if isinstance(c, tuple):
                clauses.append([c[1], c[2], c[3]])
            elif c is not None:
                args.append(c)
        return ["verb", verb.start_pos, str(verb), args, clauses]

    def let_stmt(self, ch):
        return ["let", ch[0].start_pos, str(ch[0]), ch[2]]

    def stop_stmt(self, ch):
        return ["stop", 0]

    def elif_part(self, ch):
        return ("elif", ch[0], ch[1])

    def else_part(self, ch):
        return ("else", ch[0])

    def if_stmt(self, ch):
        branches, otherwise = [[ch[0], ch[1]]], None
        for c in ch[2:]:
            if c is None:
                continue
            if c[0] == "elif":
                branches.append([c[1], c[2]])
            else:
                otherwise = c[1]
        return ["if", _at(ch), branches, otherwise]

    def repeat_stmt(self, ch):
        return ["repeat", _at(ch), ch[0], ch[1]]

    def for_stmt(self, ch):
        return ["for", ch[0].start_pos, str(ch[0]), ch[1], ch[2]]

    def expression_only(self, ch):
        return ch[0]

    def number(self, ch):
        return ["num", ch[0].start_pos, int(ch[0])]

    def negative_number(self, ch):
        return ["num", ch[0].start_pos, -int(ch[1])]

    def string(self, ch):
        return ["str", ch[0].start_pos, str(ch[0])[1:-1]]

    def name(self, ch):
        return ["name", ch[0].start_pos, str(ch[0])]

    def call(self, ch):
        return ["call", ch[0].start_pos, str(ch[0]), [c for c in ch[1:] if c is not None]]

    def list(self, ch):
        return ["list", _at(ch), [c for c in ch if c is not None]]

    def field(self, ch):
        return ["field", ch[1].start_pos, ch[0], str(ch[1])]

    def index(self, ch):
        return ["index", _at(ch), ch[0], ch[1]]

    def neg(self, ch):
        return ["neg", ch[0].start_pos, ch[1]]

    def not_(self, ch):
        return ["not", _at(ch), ch[0]]

    def where(self, ch):
        return ["where", _at(ch), ch[0], ch[1]]

    def or_expr(self, ch):
        return ["or", _at(ch), list(ch)]

    def and_expr(self, ch):
        return ["and", _at(ch), list(ch)]

    def _arithmetic(self, ch):
        result = ch[0]
        for op, right in zip(ch[1::2], ch[2::2], strict=True):  # operand (op operand)*: the grammar's shape
            result = ["op", op.start_pos, str(op), result, right]
        return result

    sum = product = _arithmetic

    def comparison(self, ch):
        op = str(ch[1])
        return ["cmp", ch[1].start_pos, "==" if op == "=" else op, ch[0], ch[2]]


@lru_cache(maxsize=65536)
def parse(text: str, mode: str = EFFECT):
    """Parse a DSL text. Returns (instructions, None) or (None, Problem). Cached: packs repeat texts."""
    if len(text) > MAX_TEXT:
        return None, Problem(
            "D005",
            f"the text is {len(text)} characters long; the limit is {MAX_TEXT}",
            0,
            "split it into several rules or functions",
        )
    if _nesting(text) > MAX_NESTING:
        return None, Problem(
            "D005",
            f"the text nests brackets or blocks deeper than {MAX_NESTING} levels",
            0,
            "simplify the expression with `let`",
        )
    start = "start" if mode == EFFECT else "expression_only"
    source = text if text.endswith("\n") else text + "\n"
    if mode != EFFECT:
        stripped = source.lstrip()
        shift = len(source) - len(stripped)
        source = stripped.replace("\n", " ").rstrip() + "\n"
    else:
        shift = 0
    try:
        ir = parser().parse(source, start=start)
    except (UnexpectedInput, DedentError) as exc:
        problem = _syntax_problem(exc, source, start)
        problem.offset = min(problem.offset + shift, max(len(text) - 1, 0))
        return None, problem
    if shift:
        ir = _shift(ir, shift)
    return ir, None


def _shift(ir, by):
    if isinstance(ir, list) and len(ir) >= 2 and isinstance(ir[0], str) and isinstance(ir[1], int):
        return [ir[0], ir[1] + by] + [_shift(x, by) for x in ir[2:]]
    if isinstance(ir, list):
        return [_shift(x, by) for x in ir]
    return ir


# ---------------------------------------------------------------- checking names, arity and types
@dataclass
class Symbols:
    """What a pack defines, as the checker sees it."""

    ids: dict[str, str] = field(default_factory=dict)  # id -> category (card, zone, counter, ...)
    zone_owner: dict[str, str] = field(default_factory=dict)  # zone id -> table | player
    counter_owner: dict[str, str] = field(default_factory=dict)
    functions: dict[str, int] = field(default_factory=dict)  # pack function id -> number of params
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


# "did you mean `x`?" for the closest candidate, or nothing: one for every check (engine/suggestions.py)
suggest = suggestions.suggest


class Checker:
    def __init__(self, symbols: Symbols, locals_: dict[str, str] | None = None):
        self.symbols = symbols
        self.scope: dict[str, str] = dict(locals_ or {})
        self.problems: list[Problem] = []
        self.in_where = 0
        self.where_items: list[str] = []  # the type of `item` in each enclosing `where`

    def problem(self, code, message, offset, hint=""):
        self.problems.append(Problem(code, message, offset, hint))
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
        # With an optional first argument, the arguments given fill the parameters from the end.
        params = (
            verb.args[len(verb.args) - len(args) :]
            if len(args) < len(verb.args) and not verb.args[0].required
            else verb.args
        )
        bindings = []
        for param, arg in zip(params, args, strict=False):  # a wrong count is D003 above; check what there is
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
        return self.problem("D002", f"unknown name `{word}`", node[1], hint)

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
                        )
                    continue
                self.expect(arg, param.type, f"argument {i + 1} of `{name}`")
            return func.returns
        if name in self.symbols.functions:
            expected = self.symbols.functions[name]
            if len(args) != expected:
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
        self.problem("D002", f"unknown function `{name}`", at, hint or "see docs/dsl.md for the functions")
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


def compile_text(text: str, mode: str, symbols: Symbols, locals_=None):
    """Parse and check. Returns (instructions or None, problems)."""
    ir, problem = parse(text, mode)
    if problem is not None:
        return None, [problem]
    return ir, check(ir, mode, symbols, locals_)
