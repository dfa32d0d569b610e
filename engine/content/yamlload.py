"""Read YAML files into plain data, safely, keeping a way back to each value's line and column.

libyaml's C composer builds the node graph (fast, and it refuses nesting deeper than 1000 levels
instead of crashing); we construct the Python values ourselves so that duplicate keys, non-string
keys, tags and alias bombs become diagnostics with positions instead of surprises. Positions are
not copied out eagerly: the composed nodes are kept and a value's position is looked up by its
path only when a diagnostic needs it.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

import yaml

from engine.diagnostics import Diagnostic
from engine.files.confine import LinkOutside, Root

from . import generate
from .roots import read_root

_Loader: type[yaml.CSafeLoader | yaml.SafeLoader]
try:  # the C composer ships in PyYAML's wheels; the pure one is a fallback
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader

MAX_FILE_BYTES = 1 << 20  # Y006
MAX_DEPTH = 64  # Y007
MAX_EXPANDED_NODES = 100_000  # Y005, per document, counting aliases by what they expand to

_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_TAG + t for t in ("str", "int", "float", "bool", "null", "timestamp")}
_SAFE = yaml.constructor.SafeConstructor()  # only its int/float readers are used
_TRUE = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"}


@dataclass
class Document:
    file: str
    index: int  # position of the document in its file (0-based)
    data: dict  # a mapping: other documents are refused (Y009)
    node: yaml.Node | None  # the composed node, for positions; None when loaded from the cache


@dataclass
class LoadedFile:
    path: str
    text: str
    documents: list[Document] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # (index, what could be read of it) for each document a YAML error left out: its kind, id and the fields that
    # give names (`recovered`), so that lint knows the pack is incomplete rather than the names undefined
    recovered: list[tuple[int, dict]] = field(default_factory=list)


class _Abort(Exception):
    def __init__(self, diagnostic: Diagnostic):
        self.diagnostic = diagnostic


def _shown_tag(tag: str) -> str:
    return "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag


def _pos(node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _diag(code, message, file, node=None, hint="", line=None, col=None):
    if node is not None:
        line, col = _pos(node)
    return Diagnostic(code, message, file, line or 1, col or 1, hint)


class _Constructor:
    """Turns composed nodes into dicts, lists, strings, ints, floats, bools and None."""

    def __init__(self, file: str):
        self.file = file
        self.diagnostics: list[Diagnostic] = []
        self.expanded = 0
        self.sizes: dict[int, int] = {}
        self.seen: dict[int, object] = {}

    def build(self, node, depth=0):
        if depth > MAX_DEPTH:
            raise _Abort(
                _diag(
                    "Y007",
                    f"the document nests deeper than {MAX_DEPTH} levels",
                    self.file,
                    node,
                    "flatten the structure; content never needs this depth",
                )
            )
        key = id(node)
        if key in self.seen:  # an alias: the same node again
            self.expanded += self.sizes.get(key, 1)
            if self.expanded > MAX_EXPANDED_NODES:
                raise _Abort(
                    _diag(
                        "Y005",
                        f"aliases expand this document past {MAX_EXPANDED_NODES:,} values",
                        self.file,
                        node,
                        "write the data out instead of repeating anchors",
                    )
                )
            return self.seen[key]
        before = self.expanded
        self.expanded += 1
        if self.expanded > MAX_EXPANDED_NODES:
            raise _Abort(
                _diag(
                    "Y005",
                    f"the document holds more than {MAX_EXPANDED_NODES:,} values",
                    self.file,
                    node,
                    "split it into smaller documents",
                )
            )
        tag = node.tag or ""
        if isinstance(node, yaml.ScalarNode):
            value = self._scalar(node, tag)
        elif isinstance(node, yaml.SequenceNode):
            self._check_tag(node, tag, "seq")
            value = [self.build(child, depth + 1) for child in node.value]
        else:
            self._check_tag(node, tag, "map")
            value = self._mapping(node, depth)
        self.seen[key] = value
        self.sizes[key] = self.expanded - before
        return value

    def _refused_tag(self, node, tag) -> _Abort:
        return _Abort(
            _diag(
                "Y004",
                f"the tag `{_shown_tag(tag)}` is not allowed in content",
                self.file,
                node,
                "remove the tag; content is plain lists, mappings and scalars",
            )
        )

    def _check_tag(self, node, tag, expected):
        if tag != _TAG + expected:
            raise self._refused_tag(node, tag)

    def _scalar(self, node, tag):
        text = node.value
        if tag == _TAG + "str" or tag == _TAG + "timestamp":
            return text
        if tag == _TAG + "int":
            if len(text) > 30:  # also keeps Python's int-from-text limit (4300 digits) from raising
                raise _Abort(
                    _diag(
                        "S006",
                        f"the number has {len(text)} digits; content numbers are small",
                        self.file,
                        node,
                        "quote it if it is meant as text",
                    )
                )
            return _SAFE.construct_yaml_int(node)
        if tag == _TAG + "float":
            try:
                value = _SAFE.construct_yaml_float(node)
            except (ValueError, OverflowError):
                raise _Abort(
                    _diag("S006", "the number is out of range", self.file, node, "quote it if it is meant as text")
                ) from None
            if not math.isfinite(value):  # nan or an infinity
                raise _Abort(
                    _diag("S003", f"`{text}` is not a finite number", self.file, node, "use an ordinary number")
                )
            return value
        if tag == _TAG + "bool":
            return text in _TRUE
        if tag == _TAG + "null":
            return None
        raise self._refused_tag(node, tag)

    def _mapping(self, node, depth):
        result: dict = {}
        merges = []
        for key_node, value_node in node.value:
            if key_node.tag == _TAG + "merge":
                merges.append(value_node)
                continue
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _TAG + "str":
                shown = key_node.value if isinstance(key_node, yaml.ScalarNode) else "a collection"
                self.diagnostics.append(
                    _diag(
                        "Y003",
                        f"the key `{shown}` is not a string",
                        self.file,
                        key_node,
                        f'quote it: `"{shown}":`'
                        if isinstance(key_node, yaml.ScalarNode)
                        else "keys must be plain text",
                    )
                )
                continue
            key = key_node.value
            if key in result:
                first = next(k for k, _ in node.value if isinstance(k, yaml.ScalarNode) and k.value == key)
                self.diagnostics.append(
                    _diag(
                        "Y002",
                        f"the key `{key}` appears twice in this mapping (first at line {first.start_mark.line + 1})",
                        self.file,
                        key_node,
                        "remove or rename one of them",
                    )
                )
                continue
            result[key] = self.build(value_node, depth + 1)
        for merge in merges:  # `<<: *base` copies keys the mapping does not set itself
            sources = merge.value if isinstance(merge, yaml.SequenceNode) else [merge]
            for src in sources:
                built = self.build(src, depth + 1)
                if not isinstance(built, dict):
                    raise _Abort(_diag("Y001", "`<<` must merge a mapping", self.file, src))
                for k, v in built.items():
                    result.setdefault(k, v)
        return result


def _point_at_overflowing_alias(diag: Diagnostic, text: str, document: int):
    """Composed aliases are the anchored node itself and carry no position; replay the parser's events,
    counting what each alias expands to, to find the alias that crosses the limit."""
    sizes: dict[str, int] = {}
    open_: list[list] = []  # [anchor, values counted when it started]
    total = 0
    current = -1
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.DocumentStartEvent):
            current += 1
            total, sizes, open_ = 0, {}, []
        if current != document:
            continue
        if isinstance(event, yaml.AliasEvent):
            assert event.anchor is not None and event.start_mark is not None  # an alias, as parsed: both are set
            total += sizes.get(event.anchor, 1)
            if total > MAX_EXPANDED_NODES:
                diag.line, diag.col = event.start_mark.line + 1, event.start_mark.column + 1
                return
        elif isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            total += 1
            if isinstance(event, yaml.ScalarEvent):
                if event.anchor:
                    sizes[event.anchor] = 1
            else:
                open_.append([event.anchor, total - 1])
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)) and open_:
            anchor, before = open_.pop()
            if anchor:
                sizes[anchor] = total - before


def load_text(text: str, path: str) -> LoadedFile:
    """Parse every document of `text`; problems become diagnostics, never exceptions."""
    loaded = LoadedFile(path, text)
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if exc.context_mark is not None and (exc.context or "").startswith(("while scanning", "while parsing a flow")):
            # the problem mark lies after the mistake (often on a later line); the context mark is where
            # the unfinished key, quote or bracket starts
            mark = exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or "invalid YAML"
        code, hint = "Y001", _yaml_hint(problem, exc.context)
        if "nesting depth" in problem:
            code, hint = "Y007", "flatten the structure; content never needs this depth"
        loaded.diagnostics.append(
            Diagnostic(code, f"{problem}" + (f" ({exc.context})" if exc.context else ""), path, line, col, hint)
        )
        loaded.recovered = _recover_all(text, path)
        return loaded
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        loaded.diagnostics.append(
            Diagnostic("Y001", f"invalid YAML: {str(exc).splitlines()[0]}", path, 1, 1, "check the file's structure")
        )
        loaded.recovered = _recover_all(text, path)
        return loaded
    for index, node in enumerate(nodes):
        if node is None:
            continue
        builder = _Constructor(path)
        try:
            data = builder.build(node)
        except _Abort as abort:
            loaded.diagnostics.extend(builder.diagnostics)
            if abort.diagnostic.code == "Y005" and "aliases" in abort.diagnostic.message:
                _point_at_overflowing_alias(abort.diagnostic, text, index)
            loaded.diagnostics.append(abort.diagnostic)
            lines = text.split("\n")[node.start_mark.line : node.end_mark.line + 1]
            doc = recovered("\n".join(lines), path, parse=False)
            if doc:
                loaded.recovered.append((index, doc))
            continue
        loaded.diagnostics.extend(builder.diagnostics)
        if data is None:  # an empty document, as between two `---`
            continue
        if not isinstance(data, dict):
            loaded.diagnostics.append(
                _diag(
                    "Y009",
                    f"this document is a {'list' if isinstance(data, list) else 'single value'}, not a mapping",
                    path,
                    node,
                    "start the document with `kind: ...`",
                )
            )
            continue
        if data.get("kind") == "card" and "generate" in data:
            _generate(loaded, index, data, node)
            continue
        loaded.documents.append(Document(path, index, data, node))
    return loaded


def _generate(loaded: LoadedFile, index: int, data: dict, node) -> None:
    """The cards a card document with `generate:` stands for, each a document holding the generating one's node
    (generate.py); a `generate` that cannot make cards is a finding at its place, and the document is left out
    as a broken one without its id (the pack is incomplete, not wrong elsewhere)."""
    made = generate.expand(data)
    if isinstance(made, generate.Problem):
        line, col = position(node, made.path)
        loaded.diagnostics.append(Diagnostic(made.code, made.message, loaded.path, line, col, made.hint))
        loaded.recovered.append((index, {k: v for k, v in data.items() if k in NAMING_FIELDS and k != "id"}))
        return
    for number, card in enumerate(made):
        loaded.documents.append(Document(loaded.path, index + number * generate.INDEX_STRIDE, card, node))


# the fields of a document that give or use names other documents read (ids, owners, decks, tags, card fields,
# parameters, a function's parameters, a counter's keys): what lint needs of a document it could not read whole
NAMING_FIELDS = ("kind", "id", "owner", "deck", "type", "tags", "stats", "refs", "params", "parameters", "keys")
_TOP_LEVEL = re.compile(r"^(kind|id|owner|deck|type):[ \t]*[\"']?([A-Za-z0-9_-]+)", re.MULTILINE)
_SEPARATOR = re.compile(r"^---(?:[ \t].*)?$", re.MULTILINE)


def _recover_all(text: str, path: str) -> list[tuple[int, dict]]:
    """(index, what could be read of it) for each document of a file the YAML parser refused whole."""
    return [(i, doc) for i, chunk in enumerate(_chunks(text)) if (doc := recovered(chunk, path))]


def _chunks(text: str) -> list[str]:
    """The documents of a file, as texts split at its `---` lines, in the order YAML numbers them (a first
    `---` with nothing but comments before it starts the first document)."""
    parts = _SEPARATOR.split(text)
    first = [line for line in parts[0].splitlines() if line.strip() and not line.lstrip().startswith(("#", "%"))]
    return parts[1:] if len(parts) > 1 and not first else parts


def recovered(chunk: str, path: str, *, parse: bool = True) -> dict:
    """What can be read of a document a YAML error left out of its file: the whole document when it parses on
    its own (the mistake is in another), else its top-level `kind:`, `id:`, ... lines; only NAMING_FIELDS."""
    if parse:
        try:
            node = yaml.compose(chunk, Loader=_Loader)
            data = _Constructor(path).build(node) if node is not None else None
        except (yaml.YAMLError, RecursionError, ValueError, _Abort):
            data = None
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if k in NAMING_FIELDS}
    found: dict = {}
    for key, value in _TOP_LEVEL.findall(chunk):
        found.setdefault(key, value)
    if found.get("kind") == "function":
        found["params"] = None  # not known: any number of arguments (lint's S003 `params` case)
    return found if "kind" in found else {}


def _yaml_hint(problem: str, context: str | None) -> str:
    if "mapping values are not allowed" in problem:
        return "a value may not contain `: `; quote it, or fix the indentation of the line above"
    if "could not find expected ':'" in problem:
        return "a key needs a `:` after it; or a text spanning lines needs quotes or `|`"
    if "found character '\\t'" in problem:
        return "YAML indents with spaces, not tabs"
    if "did not find expected" in problem:
        return "check that brackets and quotes are closed and that items line up"
    if "found undefined alias" in problem:
        return "define the anchor (`&name`) before using `*name`"
    return "check indentation, quotes and brackets around this position"


def read_regular(path: str, root: Root | None = None) -> bytes | None:
    """At most one byte past the size limit of a regular file (enough to tell it is too large); None for
    anything else (a FIFO or a device would block or never end) and for a link leading out of `root`
    (by default the file's pack, else its folder: confine.py)."""
    try:
        return (root or read_root(path)).read(path, MAX_FILE_BYTES + 1)
    except LinkOutside:
        return None


def _link_outside(path: str) -> LoadedFile:
    """The result for a link leading out of its pack: one finding at the link, nothing of the target."""
    return LoadedFile(
        path,
        "",
        [],
        [
            Diagnostic(
                "P009",
                "this is a link leading out of the pack; knap does not follow it",
                path,
                1,
                1,
                "copy the file into the pack (a pack may itself be a link to a folder, as a whole)",
            )
        ],
    )


def load_file(path: str, root: Root | None = None) -> LoadedFile:
    """Read and parse one file, with type, size and encoding checks before any parsing. `root`: the
    folder it must not lead out of (confine.py); by default its pack's folder."""
    try:
        raw = (root or read_root(path)).read(path, MAX_FILE_BYTES + 1)
    except LinkOutside:
        return _link_outside(path)
    if raw is None:
        return LoadedFile(
            path,
            "",
            [],
            [
                Diagnostic(
                    "P003", "cannot read this as a regular file", path, 1, 1, "packs hold plain, readable files only"
                )
            ],
        )
    if len(raw) > MAX_FILE_BYTES:
        return oversize(path, os.path.getsize(path))
    return load_bytes(raw, path)


def _line_col(before: str) -> tuple[int, int]:
    """Line and column (1-based, in characters) of the position just after `before`."""
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


def oversize(path: str, size: int) -> LoadedFile:
    """The result for a file over the size limit: one diagnostic, nothing parsed."""
    return LoadedFile(
        path,
        "",
        [],
        [
            Diagnostic(
                "Y006",
                f"the file is {size / (1 << 20):.1f} MiB; the limit is {MAX_FILE_BYTES / (1 << 20):.0f} MiB",
                path,
                1,
                1,
                "split it into several files",
            )
        ],
    )


def load_bytes(raw: bytes, path: str) -> LoadedFile:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(raw[: exc.start].decode("utf-8", "replace"))
        return LoadedFile(
            path,
            "",
            [],
            [
                Diagnostic(
                    "Y008", f"byte 0x{raw[exc.start]:02x} is not UTF-8", path, line, col, "save the file as UTF-8"
                )
            ],
        )
    if "\x00" in text:
        line, col = _line_col(text[: text.index("\x00")])
        return LoadedFile(
            path,
            "",
            [],
            [
                Diagnostic(
                    "Y008", "the file contains a NUL byte (binary data)", path, line, col, "save the file as UTF-8 text"
                )
            ],
        )
    text = text.removeprefix("\ufeff")
    return load_text(text, path)


def node_at(node, path) -> tuple[object, object]:
    """The node at `path` (keys and indexes) and, for mapping entries, the key node. Stops where the
    path leaves the document, so a diagnostic about a missing key points at its parent mapping."""
    key_node = None
    for step in path:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == step:
                    key_node, node = k, v
                    break
            else:
                return node, key_node
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
            key_node, node = None, node.value[step]
        else:
            return node, key_node
    return node, key_node


def position(node, path, *, key=False) -> tuple[int, int]:
    value, key_node = node_at(node, path)
    target = key_node if key and key_node is not None else value
    return _pos(target)


def text_position(node, path, source_lines: list[str], offset: int) -> tuple[int, int]:
    """Line and column (1-based) in the file of character `offset` inside the scalar at `path`.

    Whatever the scalar's style (literal, folded, plain or quoted over several lines), each source
    line's content appears in the parsed text in order; finding each line's content in the text gives
    a piecewise map from text offsets back to the file. Escapes of a double-quoted line are walked."""
    value, _ = node_at(node, path)
    if not isinstance(value, yaml.ScalarNode):
        return _pos(value)
    text = value.value
    first, last = value.start_mark.line, min(value.end_mark.line, len(source_lines) - 1)
    if value.style == '"' and first == last and first < len(source_lines):
        return first + 1, _escaped_column(source_lines[first], value.start_mark.column + 1, offset) + 1
    segments = []  # (offset in text, line, column) where a source line's content starts
    searched = 0
    for number in range(first, last + 1):
        raw = source_lines[number]
        start = 0
        if number == first:
            if value.style in ("|", ">"):
                continue  # the header line: `key: |`
            start = value.start_mark.column + (1 if value.style in ("'", '"') else 0)
        content = raw[start:]
        stripped = content.lstrip(" \t")
        column = start + len(content) - len(stripped)
        probe = stripped.rstrip()[:24].rstrip("'\"")
        if not probe:
            continue
        found = text.find(probe, searched)
        if found < 0:
            continue
        segments.append((found, number, column))
        searched = found + 1
    if not segments:
        return _pos(value)
    at, line, column = segments[0]
    for seg in segments:
        if seg[0] <= offset:
            at, line, column = seg
        else:
            break
    return line + 1, column + (offset - at) + 1


_ESCAPE_WIDTH = {"x": 4, "u": 6, "U": 10}


def _escaped_column(raw: str, start: int, offset: int) -> int:
    """The 0-based column in `raw` of text character `offset` of a double-quoted scalar starting at `start`."""
    column, seen = start, 0
    while column < len(raw) and seen < offset:
        if raw[column] == "\\" and column + 1 < len(raw):
            column += _ESCAPE_WIDTH.get(raw[column + 1], 2)
        else:
            column += 1
        seen += 1
    return column
