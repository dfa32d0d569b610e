"""The Language Server Protocol side: pygls over stdio, turning requests into questions for model.py and
language.py. A request the server cannot answer (an unknown or outside URI, a position off the document) gets a
JSON-RPC error; a notification it cannot use is logged to the client; a body that is not JSON gets a parse
error. None of them stops the server.

Positions: model.py and language.py count characters in code points (Python's `str`); the protocol counts
UTF-16 code units unless the client offers UTF-32, which the server then takes. Every position crossing the
boundary is converted here (`points`, `units`), so a character outside the BMP (an emoji in a card's text)
shifts nothing after it."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from engine import __version__
from engine.diagnostics import Diagnostic, Severity
from engine.lint import fix as lint_fix

from . import language
from .model import RequestError, Workspace, cache_folder, uri_of

_log = logging.getLogger(__name__)
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
WATCHED = "knap-watched-yaml"  # the id of the file watcher the server registers with the client
QUICK_WATCHED = 20  # a disk change of more files than this (a checkout) waits for the full check alone
SETTLE_SECONDS = 0.4  # a full check of the pack starts once typing has paused this long
CHECKED = "knap/checked"  # a notification after each full check: clients and tests may wait for it

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}
_KIND = {
    "verb": types.CompletionItemKind.Keyword,
    "function": types.CompletionItemKind.Function,
    "constant": types.CompletionItemKind.Constant,
    "field": types.CompletionItemKind.Field,
    "card": types.CompletionItemKind.Class,
    "zone": types.CompletionItemKind.Folder,
    "counter": types.CompletionItemKind.Variable,
    "parameter": types.CompletionItemKind.Constant,
    "action": types.CompletionItemKind.Method,
}


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, answering a request whose parameters do not fit the protocol's types (a negative
    line...) with an error instead of dropping it, so the client is not left waiting."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        """Positions in UTF-32 when the client offers it (the server's own unit: nothing to convert), else in
        UTF-16, the protocol's default; pygls would take the client's first choice, UTF-8 included."""
        general = params.capabilities.general
        offered = general.position_encodings if general is not None else None
        if general is not None and offered:
            utf32 = types.PositionEncodingKind.Utf32
            general.position_encodings = [utf32 if utf32 in offered else types.PositionEncodingKind.Utf16]
        return (yield from super().lsp_initialize(params))

    def handle_message(self, message):
        """A body that is JSON but no JSON-RPC message (an array, a number, an object without `jsonrpc`):
        an Invalid Request error, as JSON-RPC 2.0 says, with the message's id when it has a usable one."""
        if isinstance(message, (dict, list, str, int, float, bool)) or message is None:
            found = message.get("id") if isinstance(message, dict) else None
            reply = found if isinstance(found, (str, int)) and not isinstance(found, bool) else None
            _send_error(self, reply, INVALID_REQUEST, "knap: the body is not a JSON-RPC 2.0 message")
            return
        super().handle_message(message)

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                self._send_response(data["id"], None, exc.to_response_error())
            raise

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        """pygls applies a change whatever its range; one off the document (a start after its end, a line past
        the last) would garble the text, so such a notification is refused whole and the client told."""
        document = self.workspace.text_documents.get(unquote(params.text_document.uri))
        if document is not None:
            lines = document.lines
            for change in params.content_changes:
                utf16 = self.workspace.position_encoding != types.PositionEncodingKind.Utf32
                if isinstance(change, types.TextDocumentContentChangePartial) and not _fits(change.range, lines, utf16):
                    message = "knap: a change's range lies outside the document; it is ignored"
                    self.notify(types.WINDOW_LOG_MESSAGE, types.LogMessageParams(types.MessageType.Error, message))
                    return
        yield from super().lsp_text_document__did_change(params)


def _send_error(protocol, reply, code: int, message: str) -> None:
    protocol._send_data({"jsonrpc": "2.0", "id": reply, "error": {"code": code, "message": message}})


def _fits(range_: types.Range, lines: list[str], utf16: bool = True) -> bool:
    start, end = range_.start, range_.end
    if (start.line, start.character) > (end.line, end.character) or end.line > len(lines):
        return False
    for position in (start, end):
        if (
            position.line < len(lines)
            and points(lines[position.line].rstrip("\r\n"), position.character, utf16) is None
        ):
            return False
        if position.line == len(lines) and position.character != 0:
            return False
    return True


def points(line: str, units: int, utf16: bool = True) -> int | None:
    """The code points of `line` before the protocol's `units` (UTF-16 code units, or code points when not
    `utf16`); None when that is past the line's end. A position inside a surrogate pair falls after it."""
    if units < 0:
        return None
    if not utf16 or line.isascii():
        return units if units <= len(line) else None
    count = 0
    for index, char in enumerate(line):
        if count >= units:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(line) if units <= count else None


def units(line: str, character: int, utf16: bool = True) -> int:
    """The protocol's units (UTF-16 code units, or code points) before the code point `character` of `line`."""
    if not utf16 or line.isascii():
        return character
    return character + sum(1 for char in line[:character] if ord(char) > 0xFFFF)


class KnapServer(LanguageServer):
    def __init__(self):
        super().__init__(
            "knap",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=_Protocol,
        )
        self.model = Workspace([Path.cwd()])
        self.settle: asyncio.Task | None = None
        self.dirty: set[str] = set()
        self.checking = False  # a full check is running in a worker thread
        self.last: dict[str, list[Diagnostic]] = {}  # per file, the findings last published (for code actions)

    def report_server_error(self, error: Exception, source) -> None:
        """A body that is not JSON (or not UTF-8) gets a Parse error with a null id (JSON-RPC 2.0: the id
        cannot be read); the server reads on."""
        if isinstance(error, (json.JSONDecodeError, UnicodeDecodeError)):
            _send_error(self.protocol, None, PARSE_ERROR, f"knap: the body is not JSON: {error}")
            return
        super().report_server_error(error, source)

    # ---------------------------------------------------------------------- helpers
    def path(self, uri: str) -> str:
        try:
            return self.model.path_of(uri)
        except RequestError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None

    def open_path(self, uri: str) -> str:
        path = self.path(uri)
        if path not in self.model.open and not os.path.isfile(path):
            raise JsonRpcInvalidParams(f"unknown document {uri!r}")
        return path

    @property
    def utf16(self) -> bool:
        """Whether the client counts characters in UTF-16 code units (else in code points)."""
        return self.workspace.position_encoding != types.PositionEncodingKind.Utf32

    def line_at(self, path: str, position: types.Position) -> tuple[str, int]:
        """The text of the position's line and its character in code points; an error when it is off the
        document."""
        lines = self.model.text(path).split("\n")
        text = lines[position.line].rstrip("\r") if 0 <= position.line < len(lines) else None
        character = points(text, position.character, self.utf16) if text is not None else None
        if text is None or character is None:
            raise JsonRpcInvalidParams(f"position {position.line}:{position.character} is outside the document")
        return text, character

    def range_of(self, lines: list[str], line: int, start: int, end: int, end_line: int | None = None) -> types.Range:
        """The protocol's range of code points `start` (on `line`) to `end` (on `end_line`, else `line`)."""
        end_line = line if end_line is None else end_line

        def position(row: int, character: int) -> types.Position:
            text = lines[row] if 0 <= row < len(lines) else ""
            return types.Position(row, units(text, character, self.utf16))

        return types.Range(position(line, start), position(end_line, end))

    def lines(self, path: str) -> list[str]:
        return self.model.text(path).split("\n")

    def publish(self, path: str, diags: list[Diagnostic], always: bool = False) -> None:
        """Tell the client a file's findings; an empty list only when it had findings (or `always`: the file
        just changed, and an editor waits to hear it is clean)."""
        before = self.last.get(path)
        self.last[path] = diags
        if not diags and not before and not always:
            return
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri_of(path), diagnostics=[self.lsp_diagnostic(path, d) for d in diags])
        )

    def lsp_diagnostic(self, path: str, d: Diagnostic) -> types.Diagnostic:
        line = max(d.line - 1, 0)
        col = max(d.col - 1, 0)
        lines = self.lines(path)
        text = lines[line] if line < len(lines) else ""
        word = language.WORD.match(text, col)
        end = word.end() if word else min(col + 1, max(len(text), col + 1))
        message = d.message + (f"\n{d.hint}" if d.hint else "")
        return types.Diagnostic(
            range=self.range_of(lines, line, col, end),
            message=message,
            severity=_SEVERITY.get(d.severity, types.DiagnosticSeverity.Error),
            code=d.code,
            source="knap",
        )

    def changed(self, path: str, quick: bool = True) -> None:
        """Publish the quick findings of a changed file now, and check its packs fully once typing pauses."""
        found = self.model.quick(path) if quick else None
        if found is not None:
            self.publish(path, found, always=True)
        self.dirty.add(path)
        if self.checking:
            return  # the check running now sees the change, gives up, and starts again once typing pauses
        if self.settle is not None:
            self.settle.cancel()
        self.settle = asyncio.get_running_loop().create_task(self.settled())

    async def settled(self) -> None:
        await asyncio.sleep(SETTLE_SECONDS)
        paths, self.dirty = sorted(self.dirty), set()
        loop = asyncio.get_running_loop()
        self.checking = True
        try:
            found = await loop.run_in_executor(None, self.model.full, paths)
        except Exception as exc:  # noqa: BLE001 -- a bug in a check must not stop the server
            _log.exception("full check failed")
            self.window_log_message(types.LogMessageParams(types.MessageType.Error, f"knap: check failed: {exc}"))
            return
        finally:
            self.checking = False
        if found is None:  # the text changed meanwhile: check again after the next pause
            self.dirty |= set(paths)
            self.settle = loop.create_task(self.settled())
            return
        for path, diags in found.items():
            if path not in self.dirty:  # a file changed since the check began keeps its quick findings
                self.publish(path, diags)
        if self.dirty:
            self.settle = loop.create_task(self.settled())
            return
        self.protocol.notify(CHECKED, {"files": len(found)})


server = KnapServer()


def _roots(params: types.InitializeParams) -> list[Path]:
    roots = []
    for folder in params.workspace_folders or []:
        roots.append(folder.uri)
    if not roots and params.root_uri:
        roots.append(params.root_uri)
    paths = []
    for uri in roots:
        parsed = urlparse(uri)
        if parsed.scheme == "file":
            paths.append(Path(unquote(parsed.path)))
    if not paths and params.root_path:
        paths.append(Path(params.root_path))
    return paths or [Path.cwd()]


@server.feature(types.INITIALIZE)
def initialize(ls: KnapServer, params: types.InitializeParams):
    """The workspace roots, and lint's cache in the first one's `.knap_cache` (`initializationOptions`
    `{"cache": false}`: none)."""
    roots = _roots(params)
    options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
    cache = cache_folder(roots[0]) if options.get("cache", True) is not False else None
    ls.model = Workspace(roots, cache)


@server.feature(types.INITIALIZED)
def initialized(ls: KnapServer, params: types.InitializedParams):
    """Ask the client to tell of YAML files changed on disk (a checkout, another tool), when it can be asked
    (dynamic registration); a client that cannot may still send the notification."""
    capabilities = ls.client_capabilities.workspace
    watched = capabilities.did_change_watched_files if capabilities is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern="**/*.{yaml,yml}")]
    )
    registration = types.Registration(WATCHED, types.WORKSPACE_DID_CHANGE_WATCHED_FILES, options)
    ls.client_register_capability(types.RegistrationParams([registration]))


def _notified_path(ls: KnapServer, uri: str) -> str | None:
    """The file a notification names, or None (told to the client's log: a notification gets no error reply)."""
    try:
        return ls.model.path_of(uri)
    except RequestError as exc:
        ls.window_log_message(types.LogMessageParams(types.MessageType.Warning, f"knap: {exc}"))
        return None


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: KnapServer, params: types.DidOpenTextDocumentParams):
    path = _notified_path(ls, params.text_document.uri)
    if path is None:
        return
    ls.model.set_text(path, params.text_document.text)
    ls.changed(path)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: KnapServer, params: types.DidChangeTextDocumentParams):
    path = _notified_path(ls, params.text_document.uri)
    if path is None:
        return
    if path not in ls.model.open:
        ls.window_log_message(types.LogMessageParams(types.MessageType.Warning, f"knap: {path} is not open"))
        return
    document = ls.workspace.get_text_document(params.text_document.uri)
    ls.model.set_text(path, document.source)
    ls.changed(path)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: KnapServer, params: types.DidCloseTextDocumentParams):
    try:
        path = ls.model.path_of(params.text_document.uri)
    except RequestError:
        return
    ls.model.set_text(path, None)
    ls.changed(path)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: KnapServer, params: types.DidSaveTextDocumentParams):
    """Saved text is the editor's text already; nothing to read."""


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched(ls: KnapServer, params: types.DidChangeWatchedFilesParams):
    """Files changed on disk: a closed one is read again (an open one stays as the editor holds it), and the
    packs holding them are checked again; a deleted file's findings are withdrawn."""
    quick = len(params.changes) <= QUICK_WATCHED
    for change in params.changes:
        try:
            path = ls.model.path_of(change.uri)
        except RequestError:
            continue
        if path in ls.model.open:
            continue
        ls.model.forget(path)
        if change.type == types.FileChangeType.Deleted:
            ls.publish(path, [])
            ls.last.pop(path, None)
            ls.changed(path, quick=False)
        else:
            ls.changed(path, quick=quick)


# ---------------------------------------------------------------------------- completion
@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[".", " ", "[", ","]))
def completion(ls: KnapServer, params: types.CompletionParams):
    path = ls.open_path(params.text_document.uri)
    line, character = ls.line_at(path, params.position)
    prefix, before = language.prefix_at(line, character)
    loaded = ls.model.loaded_file(path)
    cursor = language.cursor_at(loaded, params.position.line, character)
    if cursor.document is None:  # a document that does not parse (yet)
        cursor = language.guess_cursor(loaded.text, params.position.line, character)
    symbols = ls.model.symbols_for(path)
    items: list[types.CompletionItem] = []

    def add(label, kind, doc):
        if label.startswith(prefix) or not prefix:
            items.append(
                types.CompletionItem(
                    label=label, kind=_KIND.get(kind, types.CompletionItemKind.Text), detail=f"{kind}: {doc}"
                )
            )

    details = ls.model.details(path)

    def ids(categories=None):
        for name, category in sorted(symbols.ids.items()):
            if categories is None or category in categories:
                add(name, category, details.get(name) or f"a {category} of the pack")

    if cursor.mode is not None:
        if before == ".":
            for name, kind, doc in language.field_words(symbols.card_stats):
                add(name, kind, doc)
            for name, category in sorted(symbols.ids.items()):
                if category == "counter":
                    add(name, "counter", "a counter: a player's or the table's field")
        else:
            for name, kind, doc in language.dsl_words():
                add(name, kind, doc)
            ids()
        return types.CompletionList(is_incomplete=False, items=items)
    if cursor.at_key:
        schema = language.schema_at(cursor.kind, cursor.path) or {}
        for name, sub in sorted(language.properties(schema).items()):
            add(name, "property", (sub.get("description") or "").split("\n")[0] if isinstance(sub, dict) else "")
        target = language.reference_target(cursor.kind, cursor.path)
        if target is not None and target[0] == "refkey":
            ids(language.CATEGORIES.get(target[1]))
        return types.CompletionList(is_incomplete=False, items=items)
    target = language.reference_target(cursor.kind, cursor.path)
    if cursor.path[:1] == ("extends",):
        root = ls.model.pack_root(path)
        for folder in sorted(root.parent.iterdir()) if root is not None else ():
            if folder != root and (folder / "pack.yaml").is_file() and ls.model.inside(folder):
                add(folder.name.replace("-", "_"), "pack", f"the pack in {folder.name}/")
    elif target is not None:
        ids(language.CATEGORIES.get(target[1]))
    value_schema = language.schema_at(cursor.kind, cursor.path)
    for value in language.enum_values(value_schema or {}):
        add(str(value), "value", "a value the schema allows")
    return types.CompletionList(is_incomplete=False, items=items)


# ---------------------------------------------------------------------------- hover
def _document_of(ls: KnapServer, path: str, name: str):
    """(file, data) of the document defining `name` in the pack family of `path`."""
    for file in ls.model.family_files(path):
        loaded = ls.model.loaded_file(file)
        if name not in loaded.text:
            continue
        for document in loaded.documents:
            if document.data.get("id") == name and document.data.get("kind") not in ("pack", "patch"):
                return file, document.data
            parameters = document.data.get("parameters") if document.data.get("kind") == "pack" else None
            if isinstance(parameters, dict) and isinstance(parameters.get(name), dict):
                return file, {"id": name, "kind": "parameter", **parameters[name]}
    return None


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: KnapServer, params: types.HoverParams):
    path = ls.open_path(params.text_document.uri)
    line, character = ls.line_at(path, params.position)
    found = language.word_at(line, character)
    if found is None:
        return None
    word, start, end = found
    loaded = ls.model.loaded_file(path)
    cursor = language.cursor_at(loaded, params.position.line, character)
    text = None
    if cursor.mode is not None or cursor.document is None:  # the language's words, in its texts
        text = language.builtin_hover(word)
    if text is None and word in ls.model.symbols_for(path).ids:
        if not language.names_id(loaded, params.position.line, start, word, ls.model.family_ids(path)):
            return None  # prose (a name, a text, a reason) or a comment that happens to hold an id's letters
        defined = _document_of(ls, path, word)
        if defined is not None:
            text = language.summary(defined[1], defined[0])
        else:
            text = f"`{word}`: a {ls.model.symbols_for(path).ids[word]} of the pack"
    if text is None:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
        range=ls.range_of(ls.lines(path), params.position.line, start, end),
    )


# ---------------------------------------------------------------------------- ids: definition, references, rename
def _id_span_at(ls: KnapServer, path: str, position: types.Position) -> tuple[str, int, int] | None:
    """The pack id the cursor is on, with its span, where the text really names it: not in prose or a comment
    that happens to hold its letters (as hover)."""
    found = language.word_at(*ls.line_at(path, position))
    ids = ls.model.family_ids(path)
    if found is None or found[0] not in ids:
        return None
    if not language.names_id(ls.model.loaded_file(path), position.line, found[1], found[0], ids):
        return None
    return found


def _id_at(ls: KnapServer, path: str, position: types.Position) -> str | None:
    found = _id_span_at(ls, path, position)
    return None if found is None else found[0]


def _location(ls: KnapServer, path: str, span: language.Span, lines: list[str] | None = None) -> types.Location:
    lines = ls.lines(path) if lines is None else lines
    return types.Location(uri=uri_of(path), range=ls.range_of(lines, span.line, span.start, span.end))


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
def definition(ls: KnapServer, params: types.DefinitionParams):
    path = ls.open_path(params.text_document.uri)
    name = _id_at(ls, path, params.position)
    if name is None:
        return None
    for file in ls.model.family_files(path):
        span = language.definition(ls.model.loaded_file(file), name)
        if span is not None:
            return [_location(ls, file, span)]
    return None


def _references(ls: KnapServer, path: str, name: str) -> dict[str, list[language.Span]]:
    ids = ls.model.family_ids(path)
    found = {}
    for file in ls.model.family_files(path):
        spans = language.occurrences(ls.model.loaded_file(file), name, ids)
        if spans:
            found[file] = spans
    return found


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
def references(ls: KnapServer, params: types.ReferenceParams):
    path = ls.open_path(params.text_document.uri)
    name = _id_at(ls, path, params.position)
    if name is None:
        return []
    found = []
    for file, spans in _references(ls, path, name).items():
        lines = ls.lines(file)
        found += [_location(ls, file, span, lines) for span in spans]
    return found


@server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
def prepare_rename(ls: KnapServer, params: types.PrepareRenameParams):
    path = ls.open_path(params.text_document.uri)
    found = _id_span_at(ls, path, params.position)
    if found is None:
        return None
    return ls.range_of(ls.lines(path), params.position.line, found[1], found[2])


@server.feature(types.TEXT_DOCUMENT_RENAME)
def rename(ls: KnapServer, params: types.RenameParams):
    path = ls.open_path(params.text_document.uri)
    name = _id_at(ls, path, params.position)
    if name is None:
        raise JsonRpcInvalidParams("there is no id of the pack at this position")
    new = params.new_name
    if not language.WORD.fullmatch(new or ""):
        raise JsonRpcInvalidParams(f"`{new}` is not an id: letters, digits and `_`, not starting with a digit")
    if new in ls.model.family_ids(path):
        raise JsonRpcInvalidParams(f"`{new}` is already an id of the pack")
    changes = {}
    for file, spans in _references(ls, path, name).items():
        lines = ls.lines(file)
        changes[uri_of(file)] = [
            types.TextEdit(range=ls.range_of(lines, s.line, s.start, s.end), new_text=new) for s in spans
        ]
    return types.WorkspaceEdit(changes=changes)


# ---------------------------------------------------------------------------- code actions
@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
)
def code_action(ls: KnapServer, params: types.CodeActionParams):
    path = ls.open_path(params.text_document.uri)
    for position in (params.range.start, params.range.end):
        ls.line_at(path, position)
    text = ls.model.text(path)
    lines = text.split("\n")
    loaded = ls.model.loaded_file(path)
    nodes = {document.index: document.node for document in loaded.documents}
    actions = []
    first, last = params.range.start.line + 1, params.range.end.line + 1
    for d in ls.last.get(path, []):
        if not d.fix or not (first <= d.line <= last):
            continue
        edit, _ = lint_fix._edit(nodes, text, d.fix)
        if edit is None or not lint_fix._verified(path, text, [(edit, d)], loaded):
            continue
        (line, col), (end_line, end_col) = _line_col(text, edit.start), _line_col(text, edit.end)
        text_edit = types.TextEdit(range=ls.range_of(lines, line, col, end_col, end_line), new_text=edit.content)
        actions.append(
            types.CodeAction(
                title=f"{d.code}: {d.fix.get('message', 'apply the fix')}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[ls.lsp_diagnostic(path, d)],
                edit=types.WorkspaceEdit(changes={params.text_document.uri: [text_edit]}),
                is_preferred=True,
            )
        )
    return actions


def _line_col(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n"), offset - (before.rfind("\n") + 1)


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    server.start_io()
