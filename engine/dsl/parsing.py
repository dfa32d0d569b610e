"""Parsing: an effect text through the lark grammar (grammar/effects.lark) to the instruction tree, a plain-data
tree of nested lists whose every node carries the character offset of its text, so that a problem points at
its exact spot. A syntax error becomes one Problem that says what was expected there, with an example.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import DedentError, Indenter

from engine.files import resources

from .builtins import RESERVED_WORDS

MAX_TEXT = 4000  # characters in one DSL text
MAX_NESTING = 24  # brackets or blocks inside each other

EFFECT, CONDITION, EXPRESSION = "effect", "condition", "expression"
TEXT = "text"  # a text in the players' words with `{EXPRESSION}` values in it (an action's `why_not`)


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
    unknown: str = ""  # "name" or "function": a D002 about a word the pack does not define (lint may know why)


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
_OPERATORS |= {"THEN"}
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
        # lark declares `pos_in_stream = None` on UnexpectedInput; its lexer's error always sets an int
        pos: int = exc.pos_in_stream  # type: ignore[assignment]
        char = text[pos] if pos < len(text) else ""
        hint = ""
        if char == "'":
            hint = 'texts use double quotes: "like this"'
        elif char.isupper():
            hint = "names are lower-case snake_case: `stone_knife`"
        elif char == "-" or char == ".":
            hint = "ids use underscores, not hyphens"
        else:
            hint = f"expected {_expected_words(exc.allowed or [])}"
        return Problem("D001", f"unexpected character `{char}`", pos, hint)
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
        text = str(ch[0])[1:-1]
        if "{" in text or "}" in text:  # its values are parsed once the whole text has been (`_templates`)
            return ["template", ch[0].start_pos, text]
        return ["str", ch[0].start_pos, text]

    def if_expr(self, ch):
        return ["ifx", _at(ch), ch[0], ch[1], ch[2]]

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
    if mode == TEXT:
        try:
            return template(text, 0), None
        except TemplateError as exc:
            return None, exc.problem
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
        if "{" in source or "}" in source:
            ir = _templates(ir)
    except (UnexpectedInput, DedentError) as exc:
        problem = _syntax_problem(exc, source, start)
        problem.offset = min(problem.offset + shift, max(len(text) - 1, 0))
        return None, problem
    except TemplateError as exc:
        exc.problem.offset = min(exc.problem.offset + shift, max(len(text) - 1, 0))
        return None, exc.problem
    if shift:
        ir = _shift(ir, shift)
    return ir, None


class TemplateError(Exception):
    """A text's `{...}` that does not parse: its problem, at its offset in the whole source."""

    def __init__(self, problem: Problem):
        super().__init__(problem.message)
        self.problem = problem


def _templates(ir):
    """The tree with each text holding `{...}` (a "template" node the parser left) made the text's parts:
    a parse of the whole source first, then of each value inside it (the parser is not re-entrant)."""
    if isinstance(ir, list):
        if len(ir) == 3 and ir[0] == "template" and isinstance(ir[1], int):
            return template(ir[2], ir[1] + 1)
        return [_templates(x) for x in ir]
    return ir


def template(text: str, at: int):
    """The instructions of a text in which `{EXPRESSION}` is a value put into its words and `{{`/`}}` are
    braces themselves; `at` is the offset of the text's first character in the source. A text with no
    values is a plain text (`str`); one with values is `words(...)` of its parts, so a value is worded as
    `words` words it."""
    parts: list = []
    literal, start, i = [], at, 0
    while i < len(text):
        char = text[i]
        if char in "{}" and text[i + 1 : i + 2] == char:
            literal.append(char)
            i += 2
            continue
        if char == "}":
            raise TemplateError(
                Problem("D001", "a `}` in a text closes no `{`", at + i, "write `}}` for a brace itself")
            )
        if char == "{":
            end = text.find("}", i + 1)
            if end < 0:
                raise TemplateError(
                    Problem(
                        "D001",
                        "a `{` in a text opens a value that is not closed with `}`",
                        at + i,
                        "write `{{` for a brace itself, or close the value: `{card.name}`",
                    )
                )
            if literal:
                parts.append(["str", start, "".join(literal)])
                literal = []
            parts.append(_value_in_text(text[i + 1 : end], at + i + 1))
            i = end + 1
            start = at + i
            continue
        literal.append(char)
        i += 1
    if literal or not parts:
        parts.append(["str", start, "".join(literal)])
    if len(parts) == 1 and parts[0][0] == "str":
        return ["str", at - 1 if at else 0, parts[0][2]]
    return ["call", at - 1 if at else 0, "words", parts]


def _value_in_text(inner: str, at: int):
    """The expression of one `{...}` of a text, its offsets those of the whole source."""
    if not inner.strip():
        raise TemplateError(
            Problem(
                "D001", "an empty `{}` in a text", at - 1, "put a value in it (`{pot}`), or write `{{}}` for braces"
            )
        )
    source = inner.replace("\n", " ") + "\n"  # a value may run over a line break of a YAML text (`why_not`)
    try:
        ir = parser().parse(source, start="expression_only")
    except (UnexpectedInput, DedentError) as exc:
        problem = _syntax_problem(exc, source, "expression_only")
        problem.offset = at + min(problem.offset, len(inner))
        problem.message = problem.message.replace("the end of the line", "the end of the value (`}`)")
        if problem.hint.startswith("expected") or not problem.hint:
            problem.hint = (problem.hint + "; " if problem.hint else "") + "inside `{...}` goes one value"
        raise TemplateError(problem) from None
    return _shift(ir, at)


def _shift(ir, by):
    if isinstance(ir, list) and len(ir) >= 2 and isinstance(ir[0], str) and isinstance(ir[1], int):
        return [ir[0], ir[1] + by] + [_shift(x, by) for x in ir[2:]]
    if isinstance(ir, list):
        return [_shift(x, by) for x in ir]
    return ir


# ---------------------------------------------------------------- checking names, arity and types
