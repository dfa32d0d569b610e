"""What the text under a cursor means: which document, field and effect text it is in, what may be written
there (completion), what a word is (hover), and where an id is defined and used. Positions here are 0-based
(line, character), as the protocol counts them; characters are code points."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import yaml

from engine.content import schema as schema_check
from engine.content.yamlload import LoadedFile, node_at, text_position
from engine.dsl import builtins
from engine.lint.checks import dsl_texts

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_PROSE = {"name", "text", "description", "reason", "source", "provenance", "title", "summary"}
CATEGORIES = {"card": {"card"}, "prerequisite": {"card"}, "zone": {"zone"}, "counter": {"counter"}}
CATEGORIES["parameter"] = {"parameter"}


@dataclass
class Cursor:
    """Where a position falls in a file."""

    document: int | None = None  # index of the document
    kind: str | None = None
    path: tuple = ()  # the field the cursor is in (or, at a key, the mapping's path)
    at_key: bool = False  # on (or where one would write) a mapping key
    node: object = None
    mode: str | None = None  # the effect-language mode of a DSL text under the cursor
    text: str = ""  # the DSL text
    offset: int = 0  # the cursor's offset in the DSL text


# ------------------------------------------------------------------------------ where the cursor is
def _before(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a <= b


def _span(node) -> tuple[tuple[int, int], tuple[int, int]]:
    return (node.start_mark.line, node.start_mark.column), (node.end_mark.line, node.end_mark.column)


def cursor_at(loaded: LoadedFile, line: int, character: int) -> Cursor:
    at = (line, character)
    for document in loaded.documents:
        if document.node is None:
            continue
        start, end = _span(document.node)
        if not (start <= at <= end):
            continue
        cursor = Cursor(document.index, document.data.get("kind"))
        _descend(document.node, (), at, cursor)
        if not cursor.at_key and cursor.kind in schema_check.kinds():
            for path, mode, text in dsl_texts(document.data):
                if path == cursor.path and isinstance(cursor.node, yaml.ScalarNode):
                    cursor.mode, cursor.text = mode, text
                    cursor.offset = _offset_in(cursor.node, path, document.node, loaded.text, text, at)
        return cursor
    return Cursor()


_KIND_LINE = re.compile(r"^kind:[ \t]*[\"']?([A-Za-z_]+)")
_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):")


def guess_cursor(text: str, line: int, character: int) -> Cursor:
    """Where the cursor is in a document that does not parse (half typed): its kind from its `kind:` line,
    the top-level key it is under from the lines above."""
    lines = text.split("\n")
    kind = None
    above = range(line, -1, -1)
    below = range(line + 1, len(lines))
    for numbers in (above, below):
        for number in numbers:
            if lines[number].startswith("---"):
                break
            found = _KIND_LINE.match(lines[number])
            if found:
                kind = found.group(1)
                break
        if kind:
            break
    row = lines[line][:character]
    cursor = Cursor(-1, kind)
    if not row[:1].isspace():
        key = _KEY_LINE.match(row)
        if key is None:
            cursor.at_key = True
            return cursor
        cursor.path = (key.group(1),)
    else:
        for number in range(line - 1, -1, -1):
            key = _KEY_LINE.match(lines[number])
            if key or lines[number].startswith("---"):
                break
        cursor.path = (key.group(1), "*") if key else ()
    if kind in schema_check.kinds():
        for pattern, role, mode in schema_check.field_roles(kind):
            if role == "dsl" and pattern == cursor.path[:1]:
                cursor.mode, cursor.path = mode, pattern
    return cursor


def _descend(node, path: tuple, at, cursor: Cursor) -> None:
    cursor.node, cursor.path = node, path
    if isinstance(node, yaml.MappingNode):
        cursor.at_key = True
        for key, value in node.value:
            key_start, key_end = _span(key)
            if key_start <= at <= key_end:
                cursor.path, cursor.node = path, node
                return
            value_start, value_end = _span(value)
            if value_start <= at <= value_end and isinstance(key, yaml.ScalarNode):
                cursor.at_key = False
                _descend(value, path + (key.value,), at, cursor)
                return
            empty = isinstance(value, yaml.ScalarNode) and value.value == ""
            if key_end <= at and at[0] == key_end[0] and (at < value_start or empty):  # `key: ` typed, no value yet
                cursor.at_key, cursor.path, cursor.node = False, path + (key.value,), value
                return
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            start, end = _span(item)
            if start <= at <= end:
                _descend(item, path + (index,), at, cursor)
                return
        cursor.path = path + ("*",)


def _offset_in(node, path, root, source: str, text: str, at) -> int:
    """The offset in the parsed `text` of the file position `at`: the last offset yamlload.text_position places
    at or before it (that map only grows with the offset, so a binary search finds it)."""
    lines = source.splitlines()
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        line, col = text_position(root, path, lines, middle)
        if (line - 1, col - 1) <= at:
            low = middle
        else:
            high = middle - 1
    return low


ESCAPE = re.compile(r"\\.")  # `\n`, `\"`, ... in a double-quoted YAML text: not part of any word


def _words_only(line_text: str) -> str:
    """The raw line with each backslash escape blanked (same length, so spans stay where they were): the `n` of
    `\n` would otherwise join the next word (effect texts themselves never hold a backslash)."""
    return ESCAPE.sub("  ", line_text)


def word_at(line_text: str, character: int) -> tuple[str, int, int] | None:
    """The identifier under or just before the character, with its span."""
    for match in WORD.finditer(_words_only(line_text)):
        if match.start() <= character <= match.end():
            return match.group(), match.start(), match.end()
    return None


def prefix_at(line_text: str, character: int) -> tuple[str, str]:
    """(the word being typed, the character before it)."""
    line_text = _words_only(line_text)
    start = character
    while start > 0 and (line_text[start - 1].isalnum() or line_text[start - 1] == "_"):
        start -= 1
    return line_text[start:character], line_text[start - 1] if start > 0 else ""


# ------------------------------------------------------------------------------ words of the language
def verb_signature(verb: builtins.Verb) -> str:
    args = " ".join(p.name.upper() if p.required else f"[{p.name.upper()}]" for p in verb.args)
    parts = " ".join(
        f"{prep} {p.name.upper()}" if p.required else f"[{prep} {p.name.upper()}]" for prep, p in verb.clauses.items()
    )
    return " ".join(x for x in (verb.name, args, parts) if x)


def function_signature(func: builtins.Function) -> str:
    params = ", ".join((p.name if p.required else f"[{p.name}]") + ": " + p.type for p in func.params)
    if func.variadic:
        params += ", ..."
    return f"{func.name}({params}) -> {func.returns}"


def builtin_hover(word: str) -> str | None:
    """Markdown for a verb, function, built-in name or card field, from the one registry (dsl/builtins.py)."""
    if word in builtins.VERBS:
        verb = builtins.VERBS[word]
        rows = [f"- `{p.name.upper()}` ({p.type}{'' if p.required else ', optional'}): {p.doc}" for p in verb.args]
        rows += [f"- `{prep} {p.name.upper()}` ({p.type}): {p.doc}" for prep, p in verb.clauses.items()]
        example = f"\n\nExample: `{verb.example}`" if verb.example else ""
        return f"```\n{verb_signature(verb)}\n```\n{verb.summary}\n" + "\n".join(rows) + example
    if word in builtins.FUNCTIONS:
        func = builtins.FUNCTIONS[word]
        example = f"\n\nExample: `{func.example}`" if func.example else ""
        return f"```\n{function_signature(func)}\n```\n{func.summary}{example}"
    if word in builtins.CONSTANTS:
        constant = builtins.CONSTANTS[word]
        return f"`{word}`: {constant.type}\n\n{constant.summary}"
    return None


def dsl_words() -> list[tuple[str, str, str]]:
    """(word, what it is, one-line doc) for every word of the language."""
    words = [(v.name, "verb", f"{verb_signature(v)} -- {v.summary}") for v in builtins.VERBS.values()]
    words += [(f.name, "function", f"{function_signature(f)} -- {f.summary}") for f in builtins.FUNCTIONS.values()]
    words += [(c.name, "constant", f"{c.type} -- {c.summary}") for c in builtins.CONSTANTS.values()]
    return words


def field_words(card_stats) -> list[tuple[str, str, str]]:
    words = [(name, "field", f"{kind} -- {doc}") for name, (kind, doc) in builtins.CARD_FIELDS.items()]
    words += [(name, "field", "a stat or ref the pack's cards print") for name in sorted(card_stats)]
    return words


# ------------------------------------------------------------------------------ schemas
@cache
def _schema(kind: str) -> dict:
    return schema_check.inlined(f"{kind}.schema.json")


def schema_at(kind: str | None, path: tuple) -> dict | None:
    """The sub-schema describing the value at `path` of a document of `kind`."""
    if kind not in schema_check.kinds():
        return None
    node: dict | None = _schema(kind)
    for step in path:
        if node is None:
            return None
        node = _step(node, step)
    return node


def _step(node: dict, step) -> dict | None:
    for option in [node] + [o for key in ("anyOf", "oneOf", "allOf") for o in node.get(key, [])]:
        if not isinstance(option, dict):
            continue
        if isinstance(step, str) and step in option.get("properties", {}):
            return option["properties"][step]
        if (isinstance(step, int) or step == "*") and isinstance(option.get("items"), dict):
            return option["items"]
        if isinstance(step, str) and isinstance(option.get("additionalProperties"), dict):
            return option["additionalProperties"]
    return None


def properties(schema: dict) -> dict[str, dict]:
    found: dict[str, dict] = {}
    for option in [schema] + [o for key in ("anyOf", "oneOf", "allOf") for o in schema.get(key, [])]:
        if isinstance(option, dict):
            found.update(option.get("properties", {}))
    return found


def enum_values(schema: dict) -> list:
    values: list = []
    for option in [schema] + [o for key in ("anyOf", "oneOf") for o in schema.get(key, [])]:
        if isinstance(option, dict):
            values += option.get("enum", []) + ([option["const"]] if "const" in option else [])
            if isinstance(option.get("items"), dict):
                values += option["items"].get("enum", [])
    return values


def reference_target(kind: str | None, path: tuple) -> tuple[str, str] | None:
    """(role, category) when the field at `path` holds ids: `ref` (its value) or `refkey` (its keys)."""
    if kind not in schema_check.kinds():
        return None
    for pattern, role, target in schema_check.field_roles(kind):
        if role in ("ref", "refkey") and _matches(pattern, path):
            return role, target
        if role == "ref" and len(path) == len(pattern) + 1 and _matches(pattern, path[:-1]) and path[-1] == "*":
            return role, target
    return None


def _matches(pattern: tuple, path: tuple) -> bool:
    return len(pattern) == len(path) and all(p == "*" or p == s or s == "*" for p, s in zip(pattern, path, strict=True))


# ------------------------------------------------------------------------------ ids and their uses
@dataclass(frozen=True)
class Span:
    line: int  # 0-based
    start: int
    end: int


def occurrences(loaded: LoadedFile, name: str, kinds_of_ids: dict[str, str]) -> list[Span]:
    """Every place in a file that names the id `name`: its definition, reference fields (values and keys),
    and the names of effect texts. Prose (names, texts, reasons) and comments are left alone."""
    if name not in loaded.text:
        return []
    lines = loaded.text.splitlines()
    spans: list[Span] = []
    for document in loaded.documents:
        if document.node is None:
            continue
        kind = document.data.get("kind")
        root = document.node
        texts = {path: text for path, _, text in dsl_texts(document.data)} if kind in schema_check.kinds() else {}
        if kind == "patch":
            target = document.data.get("target")
            changes = document.data.get("changes")
            target_kind = kinds_of_ids.get(target) if isinstance(target, str) else None
            if isinstance(changes, dict) and target_kind in schema_check.kinds():
                texts.update({("changes",) + p: t for p, _, t in dsl_texts({**changes, "kind": target_kind})})
        _walk(root, (), kind, name, texts, root, lines, spans)
    return sorted(set(spans), key=lambda s: (s.line, s.start))


def _walk(node, path, kind, name, texts, root, lines, spans):
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode):
                continue
            if key.value == name and _is_id_key(kind, path):
                spans.append(_scalar_span(key))
            if path == () and key.value in _PROSE:
                continue
            _walk(value, path + (key.value,), kind, name, texts, root, lines, spans)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, path + (index,), kind, name, texts, root, lines, spans)
    elif isinstance(node, yaml.ScalarNode):
        if path in texts:
            spans.extend(_in_text(texts[path], name, root, path, lines))
        elif node.value == name and (path[-1:] != ("kind",)) and not (set(path) & _PROSE):
            spans.append(_scalar_span(node))


def _is_id_key(kind, path) -> bool:
    """Whether the keys of the mapping at `path` are ids (deck compositions, an action's cost...); in a patch's
    changes any key may be one."""
    if kind == "patch":
        return path[:1] == ("changes",)
    if kind == "pack" and path in (("parameters",), ("remove",)):  # a base's parameter again; what it removes
        return True
    if kind not in schema_check.kinds():
        return False
    return any(role == "refkey" and _matches(p, path) for p, role, _ in schema_check.field_roles(kind))


def _scalar_span(node) -> Span:
    start, end = node.start_mark, node.end_mark
    quoted = 1 if node.style in ("'", '"') else 0
    if start.line != end.line:
        return Span(start.line, start.column, start.column + len(node.value))
    return Span(start.line, start.column + quoted, end.column - quoted)


def _in_text(text: str, name: str, root, path, lines) -> list[Span]:
    masked = _STRING.sub(lambda m: " " * len(m.group()), text)
    spans = []
    for match in re.finditer(rf"(?<![A-Za-z0-9_.]){re.escape(name)}(?![A-Za-z0-9_])", masked):
        line, col = text_position(root, path, lines, match.start())
        spans.append(Span(line - 1, col - 1, col - 1 + len(name)))
    return spans


def names_id(loaded: LoadedFile, line: int, start: int, name: str, kinds_of_ids: dict[str, str]) -> bool:
    """Whether the word `name` at (line, start) is one of the id's uses (`occurrences`: its definition, a
    reference, a name in an effect text) and not prose or a comment that happens to hold its letters. In a
    document that does not parse (yet), whether it stands before any comment on its line."""
    if cursor_at(loaded, line, start).document is None:
        lines = loaded.text.split("\n")
        comment = _comment_start(lines[line]) if 0 <= line < len(lines) else None
        return comment is None or start < comment
    return any(s.line == line and s.start == start for s in occurrences(loaded, name, kinds_of_ids))


def _comment_start(line_text: str) -> int | None:
    """Where a YAML comment begins on a line (a `#` at its start or after a blank, outside quotes)."""
    quote = None
    for index, char in enumerate(line_text):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"" and (index == 0 or line_text[index - 1] in " \t[{,:"):
            quote = char
        elif char == "#" and (index == 0 or line_text[index - 1] in " \t"):
            return index
    return None


def definition(loaded: LoadedFile, name: str) -> Span | None:
    """Where the file defines the id (`id: NAME`), or a parameter of its manifest."""
    for document in loaded.documents:
        if document.node is None:
            continue
        if document.data.get("id") == name and document.data.get("kind") not in ("pack", "patch"):
            node, _ = node_at(document.node, ("id",))
            return _scalar_span(node)
        if document.data.get("kind") == "pack" and name in (document.data.get("parameters") or {}):
            _, key = node_at(document.node, ("parameters", name))
            if key is not None:
                return _scalar_span(key)
    return None


def summary(data: dict, file: str) -> str:
    """An id's card of facts for a hover: kind, name, cost, stats, provenance, file."""
    kind = data.get("kind", "?")
    lines = [f"**{data.get('id', '?')}** ({kind}{', ' + str(data['type']) if data.get('type') else ''})"]
    if data.get("name"):
        lines.append(f"*{data['name']}*")
    for key in ("deck", "cost", "requires", "stats", "refs", "tags", "owner", "copies", "default", "params"):
        if data.get(key) not in (None, [], {}):
            lines.append(f"- {key}: `{_short(data[key])}`")
    if data.get("text"):
        lines.append(f"\n{data['text']}")
    provenance = data.get("provenance", "rulebook")
    lines.append(f"\nprovenance: {provenance}" + (f" ({data['reason']})" if data.get("reason") else ""))
    lines.append(f"\n{file}")
    return "\n".join(lines)


def _short(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_short(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(map(_short, value)) + "]"
    return str(value)
