"""`knap lint`: run the front half of the pipeline (load, schema, DSL, references, graph) and
collect diagnostics. Per-file work is cached by file content; a pack whose files are all unchanged
reuses its whole result.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import json
import multiprocessing
import os
import stat
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine import dsl
from engine.content import schema as schema_check
from engine.content.packs import PackFiles, discover, display, find_pack, pack_files
from engine.content.yamlload import MAX_FILE_BYTES, LoadedFile, load_file, read_regular
from engine.diagnostics import INTERNAL, Diagnostic
from engine.files import confine

from .cache import Cache
from .checks import Base, FileResult, PackChecker, check_file, locate
from .stats import PackStats
from .suppressions import apply_suppressions

if TYPE_CHECKING:
    from engine.content.compose import Effective


@dataclass
class LintResult:
    diagnostics: list[Diagnostic]
    stats: list  # PackStats, one per pack
    files: int
    positions: Positions  # the source lines already read, for quoting them in reports
    # pack root -> its effective pack (compose.Effective), when it was checked rather than read from the
    # cache: the runtime plays from these instead of reading the files a second time
    effective: dict = field(default_factory=dict)


# ------------------------------------------------------------------------------ positions
class Positions:
    """Resolves diagnostics that carry a document path to a line and column, re-reading a file only
    when it has such a diagnostic and was not parsed in this run (cache hits)."""

    def __init__(self):
        self.loaded: dict[str, LoadedFile] = {}
        self.lines: dict[str, list[str]] = {}
        self.roots: dict[str, confine.Root] = {}  # pack folder (absolute) -> its files' Root

    def root(self, path: str) -> confine.Root | None:
        """The Root of the pack holding `path` (the deepest one), looked up only for a file that is quoted;
        None for a file of no pack checked in this run (the reader then finds its pack or folder)."""
        absolute = os.path.abspath(path)
        holders = [folder for folder in self.roots if absolute.startswith(folder.rstrip(os.sep) + os.sep)]
        return self.roots[max(holders, key=len)] if holders else None

    def remember(self, loaded: LoadedFile):
        self.loaded[loaded.path] = loaded

    def source_lines(self, path: str) -> list[str]:
        if path not in self.lines:
            loaded = self.loaded.get(path)
            if loaded is not None and loaded.text:
                text = loaded.text
            else:
                raw = read_regular(path, self.root(path))
                text = raw.decode("utf-8", "replace") if raw is not None and len(raw) <= MAX_FILE_BYTES else ""
            self.lines[path] = text.splitlines()
        return self.lines[path]

    def resolve(self, diag: Diagnostic) -> Diagnostic:
        if diag.path is None or diag.line:
            return diag
        loaded = self.loaded.get(diag.file)
        if loaded is None:
            loaded = self.loaded[diag.file] = load_file(diag.file, self.root(diag.file))

        return locate(diag, loaded, self.source_lines(diag.file))


# ------------------------------------------------------------------------------ entry point
def lint(
    paths: list[Path],
    cache_dir: Path | None = None,
    jobs: int | None = None,
    exclude: Sequence[str] = (),
    base: Path | None = None,
    with_bases: bool = False,
) -> LintResult:
    """Lint `paths`; `jobs` caps the worker processes for large packs (default: one per core);
    `exclude` holds glob patterns (relative to `base`) of folders and files that folder scans skip.
    `with_bases`: `effective` also holds the packs the linted ones extend (checked on the way)."""
    packs, loose = discover(paths)  # a named file stands for its whole pack: all its findings are shown
    if exclude:
        targets = [p.resolve() for p in paths]
        packs = [p for p in packs if not _excluded(p.root, exclude, base, targets)]
        loose = [f for f in loose if not _excluded(f, exclude, base, targets)]
    cache = Cache(cache_dir)
    positions = Positions()
    diagnostics: list[Diagnostic] = []
    stats = []
    effective = {}
    linter = _Packs(cache, positions, jobs)
    count = 0
    for path in loose:
        count += 1
        if path.is_symlink() and path.is_dir():
            diagnostics.append(
                Diagnostic(
                    "P009",
                    "this folder is a link leading out of the folder being checked; knap does not follow it",
                    display(path),
                    1,
                    1,
                    "name the linked pack's own folder on the command line to check it",
                )
            )
            continue
        diagnostics.append(
            Diagnostic(
                "P001",
                "this YAML file is not inside a pack (no pack.yaml in its folders)",
                display(path),
                1,
                1,
                "add a pack.yaml to the folder that holds the pack",
            )
        )
    for pack in packs:
        try:
            try:
                outcome = linter.lint(pack)
            except Exception:
                if not (linter.cache.directory and linter.cache.reads):
                    raise
                # a cache entry passed its checks and still broke something: believe none, rewrite them
                linter = _Packs(Cache(cache_dir, reads=False), positions, jobs)
                outcome = linter.lint(pack)
            pack_diags, pack_stats = outcome.diagnostics, outcome.stats
            if outcome.effective is not None:
                effective[pack.root] = outcome.effective
        except Exception as exc:  # noqa: BLE001 -- a bug must not hide the other packs' findings
            pack_diags = [
                Diagnostic(
                    INTERNAL,
                    f"internal error while checking this pack: {type(exc).__name__}: {exc}",
                    display(pack.manifest),
                    1,
                    1,
                    "this is a bug in Knapper; please report it with the pack",
                )
            ]
            pack_stats = PackStats(pack.root.name)
        diagnostics.extend(pack_diags)
        stats.append(pack_stats)
        count += len(pack.files)
    if with_bases:
        for root, pack_effective in linter.effectives.items():
            effective.setdefault(root, pack_effective)
    diagnostics = sorted(apply_suppressions(diagnostics, positions), key=lambda d: d.sort_key)
    return LintResult(diagnostics, stats, count, positions, effective)


def _excluded(path: Path, patterns, base: Path | None, targets: list[Path]) -> bool:
    """Whether `path`, or a folder between it and the target it was found under, matches an exclude
    pattern (`tests/bad_content`, `*/drafts`). What was named on the command line is never excluded."""
    root = (base or Path.cwd()).resolve()
    path = path.resolve()
    if path in targets:
        return False
    above = next((t for t in targets if path.is_relative_to(t)), None)
    candidates = [p for p in [path, *path.parents] if above is None or (p.is_relative_to(above) and p != above)]
    for candidate in candidates:
        try:
            relative = candidate.relative_to(root).as_posix()
        except ValueError:
            continue
        if any(fnmatch.fnmatch(relative, pattern.rstrip("/")) for pattern in patterns):
            return True
    return False


def _fingerprints(pack: PackFiles, known: dict, reader: confine.Root) -> dict[str, dict]:
    """path -> {size, mtime, hash}; a file is read and hashed only when its stat changed. A link is
    hashed through every time (its own stat says nothing of its target); one leading out of the pack
    is not read at all."""
    prints: dict[str, dict] = {}
    for path in pack.files:
        shown = display(path)
        try:
            info = os.lstat(path)
        except OSError as exc:
            prints[shown] = {"hash": f"unreadable:{exc.errno}"}
            continue
        if stat.S_ISLNK(info.st_mode):
            prints[shown] = {"hash": _content_hash(reader, path)}
            continue
        if not stat.S_ISREG(info.st_mode):  # a FIFO or device would block or never end
            prints[shown] = {"hash": "not-a-file"}
            continue
        before = known.get(shown)
        if before and before.get("size") == info.st_size and before.get("mtime") == info.st_mtime_ns:
            prints[shown] = before
            continue
        prints[shown] = {"size": info.st_size, "mtime": info.st_mtime_ns, "hash": _content_hash(reader, path)}
    return prints


def _content_hash(reader: confine.Root, path) -> str:
    """The hash of what lint reads of a file: at most one byte past the size limit, and its size."""
    try:
        raw = reader.read(path, MAX_FILE_BYTES + 1)
    except confine.LinkOutside:
        return "link-outside"
    if raw is None:
        return "unreadable"
    size = os.path.getsize(path) if len(raw) > MAX_FILE_BYTES else len(raw)
    return f"{hashlib.blake2b(raw, digest_size=16).hexdigest()}:{size}"


@dataclass
class _Outcome:
    diagnostics: list[Diagnostic]
    stats: PackStats
    key: str  # changes when any file of the pack or of its bases changes
    errors: int
    effective: Effective | None = None  # None when the verdict came from the cache


class _Packs:
    """Lints packs and, through `extends`, the packs they build on, each once per run. A pack that
    extends others is checked on top of their effective documents; its cache key covers theirs."""

    def __init__(self, cache: Cache, positions: Positions, jobs: int | None):
        self.cache, self.positions, self.jobs = cache, positions, jobs
        self.outcomes: dict[Path, _Outcome] = {}
        self.effectives: dict[Path, Effective] = {}
        self.summaries: dict[Path, dict] = {}
        self.prints: dict[Path, dict] = {}
        self.bases_of: dict[Path, list[tuple[str, Path | None]]] = {}
        self.packs: dict[Path, PackFiles] = {}
        self.readers: dict[Path, confine.Root] = {}

    def reader(self, pack: PackFiles) -> confine.Root:
        """The folder a pack's files are read under (confine.py); Positions learns it too."""
        reader = self.readers.get(pack.root)
        if reader is None:
            reader = self.readers[pack.root] = confine.Root(pack.root)
            self.positions.roots[reader.folder] = reader
        return reader

    def pack(self, root: Path) -> PackFiles:
        if root not in self.packs:
            self.packs[root] = PackFiles(root, pack_files(root))
        return self.packs[root]

    def summary(self, root: Path) -> dict:
        if root not in self.summaries:
            self.summaries[root] = self.cache.load(root, "pack")
        return self.summaries[root]

    def fingerprints(self, pack: PackFiles) -> dict:
        if pack.root not in self.prints:
            self.prints[pack.root] = (
                _fingerprints(pack, self.summary(pack.root).get("files", {}), self.reader(pack))
                if self.cache.directory
                else {}
            )
        return self.prints[pack.root]

    def bases(self, pack: PackFiles) -> list[tuple[str, Path | None]]:
        """(id, folder or None) of each pack the manifest extends, from the cache while the manifest is
        unchanged."""
        root = pack.root
        if root in self.bases_of:
            return self.bases_of[root]
        shown = display(pack.manifest)
        manifest_hash = self.fingerprints(pack).get(shown, {}).get("hash")
        cached = self.summary(root).get("extends")
        if manifest_hash and cached and cached[0] == manifest_hash:
            ids = cached[1]
        else:
            ids = []
            if pack.manifest.is_file():
                for doc in load_file(shown, self.reader(pack)).documents:
                    if doc.data.get("kind") == "pack" and isinstance(doc.data.get("extends"), list):
                        ids = [x for x in doc.data["extends"] if isinstance(x, str)]
                        break

        self.bases_of[root] = [(base_id, find_pack(base_id, root)) for base_id in ids]
        return self.bases_of[root]

    def cycle(self, root: Path, base: Path) -> list[str] | None:
        """The ids around a cycle of `extends` from `root` through `base`, if there is one."""
        paths = {base: [base]}
        queue = [base]
        while queue:
            node = queue.pop(0)
            if node == root:
                return [_pack_name(p) for p in [root] + paths[node]]
            for _, nxt in self.bases(self.pack(node)):
                if nxt is not None and nxt not in paths:
                    paths[nxt] = paths[node] + [nxt]
                    queue.append(nxt)
        return None

    def base_infos(self, pack: PackFiles):
        infos = []
        for position, (base_id, base_root) in enumerate(self.bases(pack)):
            info = Base(position, base_id, base_root)
            if base_root is not None:
                info.cycle = self.cycle(pack.root, base_root)
                if info.cycle is None:
                    outcome = self.lint(self.pack(base_root))
                    info.errors = outcome.errors
                    info.effective = outcome.effective or self.effective(base_root)
            infos.append(info)
        return infos

    def key(self, pack: PackFiles) -> str:
        parts = sorted((k, v["hash"]) for k, v in self.fingerprints(pack).items())
        for base_id, base_root in self.bases(pack):
            if base_root is None or self.cycle(pack.root, base_root):
                parts.append((base_id, None))
            else:
                parts.append((base_id, self.lint(self.pack(base_root)).key))
        return hashlib.blake2b(json.dumps(parts).encode(), digest_size=16).hexdigest()

    def lint(self, pack: PackFiles) -> _Outcome:
        if pack.root in self.outcomes:
            return self.outcomes[pack.root]
        self.packs.setdefault(pack.root, pack)
        summary = self.summary(pack.root)
        key = self.key(pack) if self.cache.directory else ""
        if key and summary.get("key") == key:
            diags = [Diagnostic.from_json(d) for d in summary["diagnostics"]]
            outcome = _Outcome(diags, PackStats.from_json(summary["stats"]), key, _errors(diags))
        else:
            results = self.file_results(pack)
            bases = self.base_infos(pack)
            checker = PackChecker(pack, results, bases)
            cross, pack_stats = checker.run()
            # what a base reports about its own files is its finding, not this pack's: said once, by the base
            known = {
                _same(d)
                for base in bases
                if base.effective is not None
                for d in self.lint(self.pack(base.root)).diagnostics
            }
            cross = [d for d in map(self.positions.resolve, cross) if _same(d) not in known]
            # one finding once: the cards one document generates share its lines (content/generate.py)
            diags = list({_same(d): d for d in [d for r in results for d in r.diagnostics] + cross}.values())
            assert checker.effective is not None  # run() composed it
            outcome = _Outcome(diags, pack_stats, key, _errors(diags), checker.effective)
            self.effectives[pack.root] = checker.effective
            if self.cache.directory:
                prints = self.fingerprints(pack)
                manifest = display(pack.manifest)
                self.cache.save(
                    pack.root,
                    "pack",
                    {
                        "key": key,
                        "files": prints,
                        "diagnostics": [d.to_json() for d in diags],
                        "stats": pack_stats.to_json(),
                        "extends": [prints.get(manifest, {}).get("hash"), [b for b, _ in self.bases(pack)]],
                    },
                )
        self.outcomes[pack.root] = outcome
        return outcome

    def effective(self, root: Path) -> Effective:
        """The effective documents of a pack whose verdict came from the cache: its files' results (from
        the file cache) composed again, without the cross-file checks."""
        if root not in self.effectives:
            pack = self.pack(root)
            checker = PackChecker(pack, self.file_results(pack), self.base_infos(pack))
            checker.collect()
            self.effectives[root] = checker.compose()  # the checker's effective pack
        return self.effectives[root]

    def file_results(self, pack: PackFiles) -> list:
        """Each file's own results (load, schema, DSL syntax), from the file cache when unchanged."""
        if not self.cache.directory:
            return list(
                _check_files([display(path) for path in pack.files], self.positions, self.jobs, self.reader(pack))
            )

        prints = self.fingerprints(pack)
        stored = self.cache.load(pack.root, "files").get("results", {})
        results: dict[str, FileResult] = {}
        todo = []
        for path in pack.files:
            shown = display(path)
            entry = stored.get(shown)
            if entry and entry.get("hash") == prints[shown]["hash"]:
                results[shown] = FileResult.from_json(shown, entry["result"])
            else:
                todo.append(shown)
        for result in _check_files(todo, self.positions, self.jobs, self.reader(pack)):
            results[result.path] = result
        ordered = [results[display(path)] for path in pack.files]
        if todo:
            self.cache.save(
                pack.root,
                "files",
                {"results": {r.path: {"hash": prints[r.path]["hash"], "result": r.to_json()} for r in ordered}},
            )
        return ordered


def _same(diag: Diagnostic) -> tuple:
    """What makes two findings one: the same words at the same place."""
    return (diag.code, diag.file, diag.line, diag.col, diag.message)


def _errors(diags) -> int:
    return sum(1 for d in diags if d.severity.value == "error")


def _pack_name(root: Path) -> str:
    return root.name.replace("-", "_")


PARALLEL_FROM = 400  # files; below this a process pool costs more than it saves


def _check_files(paths: list[str], positions: Positions, jobs: int | None, reader: confine.Root):
    """Load and schema-check files, on every core for large batches. Positions are resolved where the
    file was parsed, so results travel as plain data."""
    workers = min(jobs or os.cpu_count() or 1, 8)
    if len(paths) < PARALLEL_FROM or workers < 2:
        for shown in paths:
            loaded = load_file(shown, reader)
            positions.remember(loaded)
            yield _checked(loaded)
        return

    for kind in schema_check.kinds():  # build once, before forking, so the workers inherit them
        schema_check.validator(kind)
    dsl.parser()
    context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    chunk = max(16, len(paths) // (workers * 8))
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        yield from pool.map(_check_path, paths, [reader.folder] * len(paths), chunksize=chunk)


def _check_path(shown: str, root: str):
    return _checked(load_file(shown, _worker_root(root)))


@functools.lru_cache(maxsize=16)
def _worker_root(folder: str) -> confine.Root:
    """One Root per pack in each worker process (the parent never calls this, so a fork starts empty)."""
    return confine.Root(folder)


def _checked(loaded: LoadedFile):
    return check_file(loaded)
