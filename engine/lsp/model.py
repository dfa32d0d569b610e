"""The workspace as the server holds it: every file's text, parse and per-file lint result in memory, and
each pack's last full check (its symbols, and which findings came from which check).

A keystroke re-checks one file: its YAML and schemas (lint's `check_file`), then its references and effect
texts against the symbols of the last full check (`quick`). A full check of the pack (lint's own pack checks,
on the in-memory results of every file) follows once typing pauses (`full`), so what settles is exactly
what `knap lint` says. Before the first full check of a pack a file's own findings are all `quick` gives.
Nothing outside the workspace roots is read.

The first full check reads every file no editor holds: those come from lint's cache (a file whose content
hash is unchanged keeps its recorded result, engine/lint/cache.py) and the others are checked as lint
checks them, on every core for a large pack (runner._check_files); the cache is written back for the next
start and for `knap lint`.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

from engine import dsl
from engine.content import schema as schema_check
from engine.content.packs import PackFiles, display, pack_files, pack_order
from engine.content.roots import MANIFEST, pack_root_of
from engine.content.yamlload import MAX_FILE_BYTES, LoadedFile, load_bytes, load_text
from engine.diagnostics import Diagnostic
from engine.files import confine
from engine.lint import cache as lint_cache
from engine.lint import runner
from engine.lint.cache import Cache
from engine.lint.checks import FileResult, PackChecker, check_file, dsl_texts, locate
from engine.lint.suppressions import apply_suppressions


class RequestError(Exception):
    """What the client asked cannot be answered (an unknown or outside URI, a bad position): an LSP error."""


# ------------------------------------------------------------------------------ the checkers
class _Tagging(PackChecker):
    """Lint's pack checker, remembering which findings came from the per-document checks (references and
    effect texts): those a quick check of one file recomputes; the others (decks, graph...) it keeps."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.per_document: list[Diagnostic] = []
        self._recording = False

    def add(self, *args, **kwargs):
        super().add(*args, **kwargs)
        if self._recording:
            self.per_document.append(self.diags[-1])

    def check_references(self, symbols):
        self._recording = True
        try:
            super().check_references(symbols)
        finally:
            self._recording = False

    def check_dsl(self, symbols):
        self._recording = True
        try:
            super().check_dsl(symbols)
        finally:
            self._recording = False

    def check_flags(self, flags_set, flags_read):
        recording, self._recording = self._recording, False
        try:
            super().check_flags(flags_set, flags_read)
        finally:
            self._recording = recording


class _OneFile(PackChecker):
    """The per-document checks of one file, against the symbols of the pack's last full check."""

    def __init__(self, full: PackChecker, result: FileResult, broken_elsewhere: list):
        super().__init__(full.pack, [result])
        self.symbols = full.symbols
        self.name_indexes = full.name_indexes
        self.nameless = {d["kind"] for _, _, d in broken_elsewhere if not isinstance(d.get("id"), str)}
        kinds = schema_check.kinds()
        for index, data in result.documents:
            if data.get("kind") not in kinds or data.get("kind") in ("pack", "patch"):
                continue
            (self.broken if index in result.invalid else self.docs).append((result.path, index, data))
        self.nameless |= {d["kind"] for _, _, d in self.broken if not isinstance(d.get("id"), str)}

    def nameless_kinds(self) -> set[str]:
        return self.nameless

    def check_flags(self, flags_set, flags_read):
        """Whether a flag is set or read is a question for the whole pack: left to the full check."""

    def run_one(self) -> list[Diagnostic]:
        self.check_references(self.symbols)
        self.check_dsl(self.symbols)
        return self.diags


class _Packs(runner._Packs):
    """lint's pack walker (bases, cycles, what a base already said) on the workspace's in-memory files."""

    def __init__(self, workspace: Workspace):
        super().__init__(Cache(None), runner.Positions(), 1)
        self.workspace = workspace
        self.checkers: dict[Path, _Tagging] = {}
        for loaded in list(workspace.loaded.values()):
            self.positions.remember(loaded)

    def pack(self, root: Path) -> PackFiles:
        if root not in self.packs:
            self.packs[root] = self.workspace.pack(root)
        return self.packs[root]

    def bases(self, pack: PackFiles):
        if pack.root not in self.bases_of:
            ids: list[str] = []
            manifest = self.workspace.loaded_file(display(pack.manifest)) if pack.manifest.is_file() else None
            for doc in manifest.documents if manifest else ():
                if doc.data.get("kind") == "pack" and isinstance(doc.data.get("extends"), list):
                    ids = [x for x in doc.data["extends"] if isinstance(x, str)]
                    break
            found = []
            for base_id in ids:
                base = runner.find_pack(base_id, pack.root)
                found.append((base_id, base if base is not None and self.workspace.inside(base) else None))
            self.bases_of[pack.root] = found
        return self.bases_of[pack.root]

    def file_results(self, pack: PackFiles) -> list:
        self.reader(pack)  # Positions learns the pack's folder, to place a finding in a file it did not parse
        return self.workspace.file_results(pack, self.positions)

    def lint(self, pack: PackFiles) -> runner._Outcome:
        """runner._Packs.lint without the cache, with a checker that tags its findings."""
        if pack.root in self.outcomes:
            return self.outcomes[pack.root]
        self.packs.setdefault(pack.root, pack)
        results = self.file_results(pack)
        bases = self.base_infos(pack)
        checker = _Tagging(pack, results, bases)
        cross, stats = checker.run()
        known = {
            runner._same(d)
            for base in bases
            if base.effective is not None
            for d in self.lint(self.pack(base.root)).diagnostics
        }
        cross = [d for d in map(self.positions.resolve, cross) if runner._same(d) not in known]
        diags = list({runner._same(d): d for d in [d for r in results for d in r.diagnostics] + cross}.values())
        assert checker.effective is not None  # run() composed it
        outcome = runner._Outcome(diags, stats, "", runner._errors(diags), checker.effective)
        self.effectives[pack.root] = checker.effective
        self.checkers[pack.root] = checker
        self.outcomes[pack.root] = outcome
        return outcome


# ------------------------------------------------------------------------------ the workspace
@dataclass
class PackState:
    """A pack's last full check."""

    root: Path
    checker: PackChecker | None = None
    per_document: set[int] = field(default_factory=set)  # id() of the per-document findings
    kept: dict[str, list[Diagnostic]] = field(default_factory=dict)  # path -> findings a quick check keeps
    signatures: dict[str, tuple] = field(default_factory=dict)  # path -> what the file gives the symbols
    details: dict[str, str] | None = None  # id -> one line about it, for completion (made when first asked)


class Workspace:
    """The files of the packs under the workspace roots, as the editor and the disk have them."""

    def __init__(self, roots: list[Path], cache_dir: Path | None = None, jobs: int | None = None):
        self.roots = [confine.Root(os.path.realpath(r)) for r in roots]
        self.cache = Cache(cache_dir)  # lint's cache, for the files no editor holds
        self.jobs = jobs  # worker processes for a large batch of files (None: one per core, as lint)
        self.changes: dict[str, int] = {}  # path -> how often it changed: a result checked meanwhile is stale
        self.open: dict[str, str] = {}  # display path -> the editor's text
        self.loaded: dict[str, LoadedFile] = {}
        self.results: dict[str, FileResult] = {}
        self.packs: dict[Path, PackState] = {}
        self.published: dict[str, list[Diagnostic]] = {}  # what the client was last told, per file
        self.lock = threading.RLock()
        self.generation = 0  # bumped by every change: a full check of an older generation is not published

    # paths and reading
    def inside(self, path) -> bool:
        real = os.path.realpath(path)
        return any(root.contains(real) for root in self.roots)

    def path_of(self, uri: str) -> str:
        """The display path of a `file:` URI inside the workspace roots; RequestError for anything else."""
        if not isinstance(uri, str):
            raise RequestError("the document URI is not a text")
        parsed = urlparse(uri)
        if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
            raise RequestError(f"only file: URIs inside the workspace are served, not {uri!r}")
        path = unquote(parsed.path)
        if os.name == "nt" and path.startswith("/") and len(path) > 2 and path[2] == ":":
            path = path[1:]
        if "\0" in path or not os.path.isabs(path):
            raise RequestError(f"not an absolute file path: {uri!r}")
        path = os.path.normpath(path)
        if not self.inside(path):
            raise RequestError(f"{uri!r} lies outside the workspace roots; the server reads nothing there")
        if not path.endswith((".yaml", ".yml")):
            raise RequestError(f"{uri!r} is not a YAML file of a pack")
        return display(path)

    def root_of(self, path: str) -> confine.Root | None:
        real = os.path.realpath(path)
        holders = [root for root in self.roots if root.contains(real)]
        return max(holders, key=lambda root: len(root.real)) if holders else None

    def loaded_file(self, path: str) -> LoadedFile:
        loaded = self.loaded.get(path)
        if loaded is None:
            generation = self.generation
            loaded = load_text(self.open[path], path) if path in self.open else self._from_disk(path)
            if generation == self.generation:
                self.loaded[path] = loaded
        return loaded

    def _from_disk(self, path: str) -> LoadedFile:
        root = self.root_of(path)
        raw = None
        if root is not None:
            try:
                raw = root.read(path, MAX_FILE_BYTES + 1)
            except confine.LinkOutside:
                raw = None
        if raw is None:
            return LoadedFile(path, "", diagnostics=[Diagnostic("Y001", "the file cannot be read", path, 1, 1)])
        return load_bytes(raw, path)

    def result(self, path: str) -> FileResult:
        found = self.results.get(path)
        if found is None:
            generation = self.generation
            found = check_file(self.loaded_file(path))
            if generation == self.generation:  # a full check in its thread must not keep an edited file's old result
                self.results[path] = found
        return found

    def file_results(self, pack: PackFiles, positions: runner.Positions) -> list[FileResult]:
        """Every file's own result, for a full check: from memory, else (files no editor holds) from lint's
        cache or checked as lint checks them. Positions learns the texts in memory, where findings are placed."""
        shown = [display(path) for path in pack.files]
        with self.lock:
            todo = [f for f in shown if f not in self.open and f not in self.results]
            before = {f: self.changes.get(f, 0) for f in todo}
        fresh = self._check_closed(pack.root, todo, positions) if todo else {}
        with self.lock:  # a file changed while it was checked keeps no result: it is checked again below
            self.results.update({f: r for f, r in fresh.items() if self.changes.get(f, 0) == before[f]})
        results = []
        for path in shown:
            results.append(self.result(path))
            if path in self.open or path in self.loaded:
                positions.remember(self.loaded_file(path))
        return results

    def _check_closed(self, root: Path, paths: list[str], positions: runner.Positions) -> dict[str, FileResult]:
        """Files read from disk: a file whose content hash lint's cache knows keeps its recorded result; the
        others are checked (in worker processes for a large batch), and the cache learns them."""
        reader = confine.Root(root)
        hashes: dict[str, str] = {}
        stored = self.cache.load(root, "files").get("results", {}) if self.cache.directory else {}
        found: dict[str, FileResult] = {}
        todo = []
        for path in paths:
            if self.cache.directory:
                hashes[path] = runner._content_hash(reader, path)
                entry = stored.get(path)
                if entry and entry.get("hash") == hashes[path]:
                    found[path] = FileResult.from_json(path, entry["result"])
                    continue
            todo.append(path)
        for result in _check_files(todo, positions, self.jobs, reader):
            found[result.path] = result
        if self.cache.directory and todo:
            entries = dict(stored)
            entries.update({p: {"hash": hashes[p], "result": r.to_json()} for p, r in found.items() if p in todo})
            self.cache.save(root, "files", {"results": entries})
        return found

    def text(self, path: str) -> str:
        return self.open[path] if path in self.open else self.loaded_file(path).text

    def pack(self, root: Path) -> PackFiles:
        """A pack's files: those on disk (inside the roots) and those open in the editor but not saved yet."""
        files = [f for f in pack_files(root) if self.inside(f)]
        for path in list(self.open):  # the editor may open a file while a check runs in its thread
            absolute = Path(os.path.abspath(path))
            if absolute.is_relative_to(root) and pack_root_of(absolute) == root:
                files.append(absolute)
        return PackFiles(root, pack_order(root, files))

    def pack_root(self, path: str) -> Path | None:
        root = pack_root_of(Path(os.path.abspath(path)))
        return root if root is not None and self.inside(root) else None

    # changes
    def set_text(self, path: str, text: str | None) -> None:
        """The editor's text of a file (None: closed, the disk's text again)."""
        with self.lock:
            if text is None:
                self.open.pop(path, None)
            else:
                self.open[path] = text
            self.loaded.pop(path, None)
            self.results.pop(path, None)
            self.changes[path] = self.changes.get(path, 0) + 1
            self.generation += 1

    def forget(self, path: str) -> None:
        """A file changed on disk (or was made or deleted there)."""
        if path not in self.open:
            self.set_text(path, None)

    # checking
    def full(self, paths: list[str]) -> dict[str, list[Diagnostic]] | None:
        """Check the packs holding `paths` (and those of the workspace's packs that extend them) as lint does.
        Returns the findings of every file of those packs, files without findings included; None when the
        text changed while it ran (a newer check follows). Runs in a worker thread: the lock is taken only to
        keep what it found."""
        generation = self.generation
        roots = {r for r in map(self.pack_root, paths) if r is not None}
        roots |= {root for root in list(self.packs) if self._extends_any(root, roots)}
        walker = _Packs(self)
        found: list[Diagnostic] = []
        files: set[str] = set()
        for root in sorted(roots):
            found += walker.lint(walker.pack(root)).diagnostics
        states = []
        for root, checker in walker.checkers.items():
            state = PackState(root, checker)
            state.per_document = {id(d) for d in checker.per_document}
            files |= {display(p) for p in walker.pack(root).files}
            local = {id(d) for r in checker.results for d in r.diagnostics}
            state.signatures = {r.path: signature(r) for r in checker.results}
            for d in walker.outcomes[root].diagnostics:
                if id(d) not in local and id(d) not in state.per_document:
                    state.kept.setdefault(d.file, []).append(d)
            states.append(state)
            if root not in roots:  # a base checked on the way: its own findings are shown too
                found += walker.outcomes[root].diagnostics
        with self.lock:
            if generation != self.generation:
                return None
            for state in states:
                self.packs[state.root] = state
        return self._by_file(found, files, walker.positions)

    def _extends_any(self, root: Path, targets: set[Path]) -> bool:
        checker = self.packs[root].checker
        bases = checker.base_list if checker is not None else []
        return any(base.root in targets for base in bases)

    def quick(self, path: str) -> list[Diagnostic] | None:
        """The findings of one changed file, in milliseconds: its own checks, its references and texts against
        the pack's last symbols, and the pack-wide findings the last full check made there. None when the change
        touches the symbols (a new id, a kind...) or no full check was made yet: then only a full check will do."""
        with self.lock:
            root = self.pack_root(path)
            state = self.packs.get(root) if root is not None else None
            if state is None and root is not None:  # no full check yet: the file's own findings, now
                return self._suppressed(path, list(self.result(path).diagnostics))
            if state is None or state.checker is None or path.endswith(MANIFEST):
                return None
            result = self.result(path)
            if state.signatures.get(path) != signature(result):
                return None
            full = state.checker
            if not hasattr(full, "symbols"):  # the last full check stopped early (a broken base)
                return None
            elsewhere = [doc for doc in full.broken if doc[0] != path]
            one = _OneFile(full, result, elsewhere)
            loaded = self.loaded_file(path)
            lines = loaded.text.splitlines()
            found = [locate(d, loaded, lines) for d in one.run_one()]
            found = [d for d in found if d.file == path]
            diags = list(
                {runner._same(d): d for d in list(result.diagnostics) + found + state.kept.get(path, [])}.values()
            )
            return self._suppressed(path, diags)

    def _suppressed(self, path: str, diags: list[Diagnostic]) -> list[Diagnostic]:
        positions = runner.Positions()
        positions.remember(self.loaded_file(path))
        return sorted(apply_suppressions(diags, positions), key=lambda d: d.sort_key)

    def _by_file(self, found, files: set[str], positions) -> dict[str, list[Diagnostic]]:
        kept = sorted(apply_suppressions(found, positions), key=lambda d: d.sort_key)
        by_file: dict[str, list[Diagnostic]] = {f: [] for f in files}
        for d in kept:
            by_file.setdefault(d.file, []).append(d)
        return by_file

    # symbols
    def checker_for(self, path: str) -> PackChecker | None:
        root = self.pack_root(path)
        state = self.packs.get(root) if root is not None else None
        return state.checker if state is not None else None

    def symbols_for(self, path: str) -> dsl.Symbols:
        checker = self.checker_for(path)
        return getattr(checker, "symbols", None) or dsl.Symbols()

    def family(self, path: str) -> list[Path]:
        """The pack of `path`, the packs it extends and the workspace's packs that extend it: where an id's
        definition and uses are looked for."""
        root = self.pack_root(path)
        if root is None:
            return []
        family = {root}
        changed = True
        while changed:
            changed = False
            for state in list(self.packs.values()):
                checker = state.checker
                if checker is None:
                    continue
                linked = {b.root for b in checker.base_list if b.root is not None}
                if state.root in family and not linked <= family:
                    family |= linked
                    changed = True
                if linked & family and state.root not in family:
                    family.add(state.root)
                    changed = True
        return sorted(family)

    def details(self, path: str) -> dict[str, str]:
        """id -> one line saying what it is (its printed name; a parameter's description)."""
        root = self.pack_root(path)
        state = self.packs.get(root) if root is not None else None
        if state is None or state.checker is None:
            return {}
        if state.details is None:
            details = {}
            for _, _, data in state.checker.docs + state.checker.broken:
                if isinstance(data.get("id"), str):
                    name = data.get("name")
                    details[data["id"]] = name if isinstance(name, str) else ""
            parameters = (state.checker.manifest or {}).get("parameters") or {}
            for name, spec in parameters.items() if isinstance(parameters, dict) else ():
                if isinstance(spec, dict):
                    details[name] = str(spec.get("description", "")).split("\n")[0]
            state.details = details
        return state.details

    def family_ids(self, path: str) -> dict[str, str]:
        """Every id of the pack family (a variant's removed ids are still its base's)."""
        ids: dict[str, str] = {}
        for root in self.family(path):
            state = self.packs.get(root)
            symbols = getattr(state.checker, "symbols", None) if state is not None else None
            if symbols is not None:
                for name, category in symbols.ids.items():
                    ids.setdefault(name, category)
        ids.update(self.symbols_for(path).ids)
        return ids

    def family_files(self, path: str) -> list[str]:
        return [display(f) for root in self.family(path) for f in self.pack(root).files]


def signature(result: FileResult) -> tuple:
    """What a file gives its pack's symbols and pack-wide checks: a change that keeps it needs no full check
    before the file's own findings are right (its kinds and ids, and the names its cards and counters make)."""
    parts = []
    for index, data in result.documents:
        kind = data.get("kind")
        part = [index, kind, data.get("id"), index in result.invalid]
        if kind == "card":
            part += [
                sorted(k for k in data.get("stats") or {} if isinstance(k, str))
                if isinstance(data.get("stats"), dict)
                else None,
                sorted(k for k in data.get("refs") or {} if isinstance(k, str))
                if isinstance(data.get("refs"), dict)
                else None,
                repr(data.get("tags")),
                repr(data.get("type")),
                repr(data.get("back")),
                repr(data.get("deck")),
                repr(data.get("copies")),
                repr(data.get("requires")),
                repr(data.get("cost")),
                repr(data.get("generate")),
            ]
        elif kind in ("card", "pack", "patch"):
            part.append(repr(data))
        else:  # zones, counters, flags, functions, actions...: everything but their texts
            texts = {path for path, _, _ in dsl_texts(data)} if kind in schema_check.kinds() else set()
            part.append(repr({k: v for k, v in data.items() if (k,) not in texts}))
        parts.append(tuple(map(str, part)))
    return tuple(parts)


def _check_files(paths: list[str], positions: runner.Positions, jobs: int | None, reader: confine.Root):
    """lint's per-file checks (runner._check_files), on every core for a large batch. The server runs threads
    (its reader, the full check's), and a process forked from a threaded one may hang on a lock another
    thread held; so the workers come from a fork server (a fresh single-threaded process), else are spawned.
    One core is left to the editor: on two cores the files are checked in the server's own thread."""
    workers = min(jobs or (os.cpu_count() or 1) - 1, 8)
    if len(paths) < runner.PARALLEL_FROM or workers < 2:
        yield from runner._check_files(paths, positions, 1, reader)
        return
    if "forkserver" in multiprocessing.get_all_start_methods():
        forkserver = multiprocessing.get_context("forkserver")
        forkserver.set_forkserver_preload(["engine.lint.runner"])
        context: multiprocessing.context.BaseContext = forkserver
    else:
        context = multiprocessing.get_context("spawn")
    chunk = max(16, len(paths) // (workers * 8))
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        yield from pool.map(runner._check_path, paths, [reader.folder] * len(paths), chunksize=chunk)


def cache_folder(root: Path) -> Path | None:
    """Where the server keeps lint's cache for a workspace: the `.knap_cache` folder `knap lint` uses by
    default at the workspace's root, unless that folder is someone else's (then none)."""
    folder = root / ".knap_cache"
    return None if lint_cache.owned(folder) is False else folder


def uri_of(path: str) -> str:
    return Path(os.path.abspath(path)).as_uri()
