"""`knap lint`: run the front half of the pipeline (load, schema, DSL, references, graph) and
collect diagnostics. Per-file work is cached by file content; a pack whose files are all unchanged
reuses its whole result.
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__, resources
from .diagnostics import INTERNAL, Diagnostic
from .packs import PackFiles, discover, display
from .stats import PackStats
from .suppressions import apply_suppressions
from .yamlload import MAX_FILE_BYTES, LoadedFile, load_file, read_regular

CACHE_FORMAT = 1


@dataclass
class LintResult:
    diagnostics: list[Diagnostic]
    stats: list          # PackStats, one per pack
    files: int
    positions: "Positions"   # the source lines already read, for quoting them in reports
    # pack root -> (file, index, data) of every document, when the pack was checked without the cache:
    # the runtime plays from these instead of reading the files a second time
    documents: dict = field(default_factory=dict)


# ------------------------------------------------------------------------------ positions
class Positions:
    """Resolves diagnostics that carry a document path to a line and column, re-reading a file only
    when it has such a diagnostic and was not parsed in this run (cache hits)."""

    def __init__(self):
        self.loaded: dict[str, LoadedFile] = {}
        self.lines: dict[str, list[str]] = {}

    def remember(self, loaded: LoadedFile):
        self.loaded[loaded.path] = loaded

    def source_lines(self, path: str) -> list[str]:
        if path not in self.lines:
            loaded = self.loaded.get(path)
            if loaded is not None and loaded.text:
                text = loaded.text
            else:
                raw = read_regular(path)
                text = raw.decode("utf-8", "replace") if raw is not None and len(raw) <= MAX_FILE_BYTES else ""
            self.lines[path] = text.splitlines()
        return self.lines[path]

    def resolve(self, diag: Diagnostic) -> Diagnostic:
        if diag.path is None or diag.line:
            return diag
        loaded = self.loaded.get(diag.file)
        if loaded is None:
            loaded = self.loaded[diag.file] = load_file(diag.file)
        from .checks import locate
        return locate(diag, loaded, self.source_lines(diag.file))


# ------------------------------------------------------------------------------ cache
def _engine_key() -> str:
    """Anything that can change a verdict: the version, the schemas, the grammar and the checking code."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{__version__}/{CACHE_FORMAT}".encode())
    for folder in ("schemas", "grammar"):
        for path in sorted(resources.root(folder).glob("*")):
            if path.is_file():
                digest.update(path.name.encode())
                digest.update(path.read_bytes())
    for module in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(module.read_bytes())
    return digest.hexdigest()


class Cache:
    """Two files per pack: a small one with the pack's verdict and each file's stat and content hash,
    and a large one with each file's own results, read only when some file changed. A file whose size
    and modification time are unchanged keeps its recorded hash without being read (as git's index does)."""

    def __init__(self, directory: Path | None):
        self.directory = directory
        self.engine = _engine_key() if directory else ""

    def _path(self, root: Path, part: str) -> Path:
        name = hashlib.blake2b(str(root).encode(), digest_size=10).hexdigest()
        return self.directory / f"{part}-{name}.json"

    def load(self, root: Path, part: str) -> dict:
        if not self.directory:
            return {}
        try:
            with open(self._path(root, part), encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) and data.get("engine") == self.engine else {}

    def save(self, root: Path, part: str, data: dict):
        if not self.directory:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            gitignore = self.directory / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text("*\n")
            target = self._path(root, part)
            temp = target.with_suffix(f".{os.getpid()}.tmp")
            with open(temp, "w", encoding="utf-8") as handle:
                json.dump({"engine": self.engine, **data}, handle, separators=(",", ":"))
            os.replace(temp, target)
        except OSError:
            pass  # a read-only folder only costs speed


# ------------------------------------------------------------------------------ entry point
def lint(paths: list[Path], cache_dir: Path | None = None, jobs: int | None = None,
         exclude: list[str] = (), base: Path | None = None) -> LintResult:
    """Lint `paths`; `jobs` caps the worker processes for large packs (default: one per core);
    `exclude` holds glob patterns (relative to `base`) of folders and files that folder scans skip."""
    packs, loose, only = discover(paths)
    if exclude:
        targets = [p.resolve() for p in paths]
        packs = [p for p in packs if not _excluded(p.root, exclude, base, targets)]
        loose = [f for f in loose if not _excluded(f, exclude, base, targets)]
    cache = Cache(cache_dir)
    positions = Positions()
    diagnostics: list[Diagnostic] = []
    stats = []
    documents = {}
    count = 0
    for path in loose:
        count += 1
        diagnostics.append(Diagnostic("P001", "this YAML file is not inside a pack (no pack.yaml in its folders)",
                                      display(path), 1, 1, "add a pack.yaml to the folder that holds the pack"))
    for pack in packs:
        try:
            pack_diags, pack_stats, checked = _lint_pack(pack, cache, positions, jobs)
            if checked is not None:
                documents[pack.root] = [(r.path, index, data) for r in checked for index, data in r.documents]
        except Exception as exc:  # noqa: BLE001 -- a bug must not hide the other packs' findings
            pack_diags = [Diagnostic(INTERNAL, f"internal error while checking this pack: {type(exc).__name__}: "
                                     f"{exc}", display(pack.manifest), 1, 1, "this is a bug in Knapper; please "
                                     "report it with the pack")]
            pack_stats = PackStats(pack.root.name)
        diagnostics.extend(pack_diags)
        stats.append(pack_stats)
        count += len(pack.files)
    if only is not None:
        wanted = {display(p) for p in only}
        diagnostics = [d for d in diagnostics if d.file in wanted]
    diagnostics = sorted(apply_suppressions(diagnostics, positions), key=lambda d: d.sort_key)
    return LintResult(diagnostics, stats, count, positions, documents)


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


def _fingerprints(pack: PackFiles, known: dict) -> dict[str, dict]:
    """path -> {size, mtime, hash}; a file is read and hashed only when its stat changed."""
    prints = {}
    for path in pack.files:
        shown = display(path)
        try:
            info = os.stat(path)
        except OSError as exc:
            prints[shown] = {"hash": f"unreadable:{exc.errno}"}
            continue
        if not stat.S_ISREG(info.st_mode):   # a FIFO or device would block or never end
            prints[shown] = {"hash": "not-a-file"}
            continue
        before = known.get(shown)
        if before and before.get("size") == info.st_size and before.get("mtime") == info.st_mtime_ns:
            prints[shown] = before
            continue
        try:
            with open(path, "rb") as handle:
                digest = hashlib.blake2b(handle.read(), digest_size=16).hexdigest()
        except OSError as exc:
            digest = f"unreadable:{exc.errno}"
        prints[shown] = {"size": info.st_size, "mtime": info.st_mtime_ns, "hash": digest}
    return prints


def _lint_pack(pack: PackFiles, cache: Cache, positions: Positions, jobs: int | None):
    if cache.directory is None:   # no cache: nothing to fingerprint, check everything
        from .checks import PackChecker
        results = list(_check_files([display(path) for path in pack.files], positions, jobs))
        cross, pack_stats = PackChecker(pack, results).run()
        return [d for r in results for d in r.diagnostics] + [positions.resolve(d) for d in cross], pack_stats, \
            results
    summary = cache.load(pack.root, "pack")
    prints = _fingerprints(pack, summary.get("files", {}))
    pack_key = hashlib.blake2b(json.dumps(sorted((k, v["hash"]) for k, v in prints.items())).encode(),
                               digest_size=16).hexdigest()
    if summary.get("key") == pack_key:
        diags = [Diagnostic.from_json(d) for d in summary["diagnostics"]]
        return diags, PackStats.from_json(summary["stats"]), None

    from .checks import FileResult, PackChecker   # the checking machinery is loaded only on a miss

    stored = cache.load(pack.root, "files").get("results", {})
    results: dict[str, FileResult] = {}
    todo = []
    for path in pack.files:
        shown = display(path)
        entry = stored.get(shown)
        if entry and entry.get("hash") == prints[shown]["hash"]:
            results[shown] = FileResult.from_json(shown, entry["result"])
        else:
            todo.append(shown)
    for result in _check_files(todo, positions, jobs):
        results[result.path] = result
    ordered = [results[display(path)] for path in pack.files]
    cross, pack_stats = PackChecker(pack, ordered).run()
    diags = [d for r in ordered for d in r.diagnostics] + [positions.resolve(d) for d in cross]
    cache.save(pack.root, "files", {"results": {r.path: {"hash": prints[r.path]["hash"], "result": r.to_json()}
                                                for r in ordered}})
    cache.save(pack.root, "pack", {"key": pack_key, "files": prints, "diagnostics": [d.to_json() for d in diags],
                                   "stats": pack_stats.to_json()})
    return diags, pack_stats, ordered


PARALLEL_FROM = 400      # files; below this a process pool costs more than it saves


def _check_files(paths: list[str], positions: Positions, jobs: int | None):
    """Load and schema-check files, on every core for large batches. Positions are resolved where the
    file was parsed, so results travel as plain data."""
    workers = min(jobs or os.cpu_count() or 1, 8)
    if len(paths) < PARALLEL_FROM or workers < 2:
        for shown in paths:
            loaded = load_file(shown)
            positions.remember(loaded)
            yield _checked(loaded)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from . import dsl, schema_check
    for kind in schema_check.kinds():   # build once, before forking, so the workers inherit them
        schema_check.validator(kind)
    dsl.parser()
    context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    chunk = max(16, len(paths) // (workers * 8))
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        yield from pool.map(_check_path, paths, chunksize=chunk)


def _check_path(shown: str):
    return _checked(load_file(shown))


def _checked(loaded: LoadedFile):
    from .checks import check_file
    return check_file(loaded)
