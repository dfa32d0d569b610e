"""`knap lint`: run the front half of the pipeline (load, schema, DSL, references, graph) and
collect diagnostics. Per-file work is cached by file content; a pack whose files are all unchanged
reuses its whole result.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__, dsl, resources, schema_check, techgraph
from .diagnostics import RULES, Diagnostic
from .packs import MANIFEST, PackFiles, discover
from .yamlload import MAX_FILE_BYTES, LoadedFile, load_bytes, oversize, position, text_position

CACHE_FORMAT = 1


@dataclass
class FileResult:
    """What one file yields on its own: its diagnostics (positions resolved) and its documents."""
    path: str
    diagnostics: list[Diagnostic]
    documents: list[tuple[int, dict]]          # (index in file, data)

    def to_json(self):
        return {"d": [d.to_json() for d in self.diagnostics], "docs": self.documents}

    @classmethod
    def from_json(cls, path, data):
        diags = [Diagnostic(**{k: v for k, v in d.items() if k != "name"}) for d in data["d"]]
        return cls(path, diags, [(i, doc) for i, doc in data["docs"]])


@dataclass
class PackStats:
    pack: str
    documents: Counter = field(default_factory=Counter)
    cards: int = 0
    card_copies: int = 0
    effects: int = 0
    provenance: Counter = field(default_factory=Counter)

    def to_json(self):
        return {"pack": self.pack, "documents": dict(sorted(self.documents.items())), "cards": self.cards,
                "card_copies": self.card_copies, "dsl_texts": self.effects,
                "provenance": {k: self.provenance.get(k, 0) for k in ("placeholder", "assumption", "reference")}}


@dataclass
class LintResult:
    diagnostics: list[Diagnostic]
    stats: list[PackStats]
    files: int


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
                try:
                    with open(path, "rb") as handle:
                        text = handle.read().decode("utf-8", "replace")
                except OSError:
                    text = ""
            self.lines[path] = text.splitlines()
        return self.lines[path]

    def resolve(self, diag: Diagnostic) -> Diagnostic:
        if diag.path is None or diag.line:
            return diag
        loaded = self.loaded.get(diag.file)
        if loaded is None:
            try:
                with open(diag.file, "rb") as handle:
                    loaded = load_bytes(handle.read(), diag.file)
            except OSError:
                loaded = LoadedFile(diag.file, "")
            self.loaded[diag.file] = loaded
        return locate(diag, loaded, self.source_lines(diag.file))


def locate(diag: Diagnostic, loaded: LoadedFile, lines: list[str]) -> Diagnostic:
    """Fill in the line and column of a diagnostic that carries a path into one of `loaded`'s documents."""
    if diag.path is None or diag.line:
        return diag
    doc = next((d for d in loaded.documents if d.index == diag.doc_index), None)
    if doc is None or doc.node is None:
        diag.line, diag.col = 1, 1
    elif diag.offset is not None:
        diag.line, diag.col = text_position(doc.node, diag.path, lines, diag.offset)
    else:
        key = bool(diag.path) and diag.code == "S002"   # an unknown key: point at the key itself
        diag.line, diag.col = position(doc.node, diag.path, key=key)
    return diag


# ------------------------------------------------------------------------------ per file
def check_file(loaded: LoadedFile) -> FileResult:
    """The checks that need only this file: YAML and schemas. Positions are resolved here, while the
    composed nodes are at hand."""
    diags = list(loaded.diagnostics)
    docs = []
    lines = loaded.text.splitlines()
    if "knap:" in loaded.text:
        for line, col, code in _suppressions(lines)[2]:
            diags.append(Diagnostic("L001", f"the suppression names an unknown rule code `{code}`", loaded.path,
                                    line, col, "see `knap lint --explain all`"))
    for doc in loaded.documents:
        diags.extend(locate(d, loaded, lines) for d in schema_check.validate(doc.data, loaded.path, doc.index))
        docs.append((doc.index, doc.data))
    return FileResult(loaded.path, diags, docs)


# ------------------------------------------------------------------------------ per pack
_CATEGORY_OF_REF = {"card": {"card"}, "prerequisite": {"card"}, "zone": {"zone"}, "counter": {"counter"},
                    "parameter": {"parameter"}, "any": None}


class PackChecker:
    """The cross-file checks of one pack: ids, references, DSL texts, decks, the graph."""

    def __init__(self, pack: PackFiles, results: list[FileResult]):
        self.pack = pack
        self.results = results
        self.diags: list[Diagnostic] = []
        self.docs: list[tuple[str, int, dict]] = []      # (file, index, data) of schema-known kinds
        self.manifest: dict | None = None
        self.manifest_at: tuple[str, int] | None = None
        self.stats = PackStats(pack.root.name)

    def add(self, code, message, file, index, path, hint="", offset=None):
        self.diags.append(Diagnostic(code, message, file, hint=hint, doc_index=index, path=tuple(path),
                                     offset=offset))

    def run(self) -> tuple[list[Diagnostic], PackStats]:
        manifest_path = _display(self.pack.manifest)
        if not self.pack.manifest.is_file():
            self.diags.append(Diagnostic("P001", "this folder has no pack.yaml", str(self.pack.root), 1, 1))
        for result in self.results:
            for index, data in result.documents:
                kind = data.get("kind")
                if kind not in schema_check.kinds():
                    continue
                if kind == "pack":
                    if result.path != manifest_path:
                        self.add("P002", "a `kind: pack` document belongs only in pack.yaml", result.path, index,
                                 ("kind",), "move it to pack.yaml, or change its kind")
                        continue
                    if self.manifest is not None:
                        self.add("P002", "pack.yaml holds more than one `kind: pack` document", result.path, index,
                                 ("kind",), "keep one manifest per pack")
                        continue
                    self.manifest, self.manifest_at = data, (result.path, index)
                elif result.path == manifest_path:
                    self.add("P002", f"pack.yaml holds a `{kind}` document; only the manifest goes there",
                             result.path, index, ("kind",), "move it to another file of the pack")
                self.docs.append((result.path, index, data))
        if self.manifest is None and self.pack.manifest.is_file() and not any(
                r.path == manifest_path and any(d.code.startswith("Y") for d in r.diagnostics) for r in self.results):
            self.diags.append(Diagnostic("P002", "pack.yaml has no `kind: pack` document", manifest_path, 1, 1,
                                         "start it with `kind: pack`, `id:`, `name:`, `version:`, `players:`"))
        if self.manifest is not None and self.manifest.get("id") and \
                self.manifest["id"].replace("_", "-") != self.pack.root.name.replace("_", "-"):
            self.add("P004", f"the pack id `{self.manifest['id']}` differs from its folder `{self.pack.root.name}`",
                     *self.manifest_at, ("id",), f"rename the folder or set `id: {self.pack.root.name.replace('-', '_')}`")
        symbols = self.collect_ids()
        self.check_references(symbols)
        self.check_dsl(symbols)
        self.check_decks()
        self.check_components()
        self.check_graph()
        self.count_stats()
        return self.diags, self.stats

    # ids and symbols
    def collect_ids(self) -> dsl.Symbols:
        symbols = dsl.Symbols()
        first: dict[str, tuple[str, int]] = {}
        for file, index, data in self.docs:
            doc_id = data.get("id")
            kind = data["kind"]
            if not isinstance(doc_id, str) or kind == "pack":
                continue
            if doc_id in first:
                where = first[doc_id]
                self.add("R002", f"the id `{doc_id}` is already used (in {_short(where[0])})", file, index, ("id",),
                         "ids are unique within a pack, whatever the kind")
                continue
            first[doc_id] = (file, index)
            symbols.ids[doc_id] = kind
            if kind == "zone":
                symbols.zone_owner[doc_id] = data.get("owner", "table")
            elif kind == "counter":
                symbols.counter_owner[doc_id] = data.get("owner", "table")
            elif kind == "function":
                symbols.functions[doc_id] = len(data.get("params") or [])
            elif kind == "card":
                symbols.card_stats.update((data.get("stats") or {}).keys())
                symbols.card_stats.update((data.get("refs") or {}).keys())
        for file, index, data in self.docs:
            if data["kind"] == "card":
                for tag in data.get("tags") or []:
                    symbols.ids.setdefault(tag, "tag")
                if isinstance(data.get("type"), str):
                    symbols.ids.setdefault(data["type"], "type")
        for name in (self.manifest or {}).get("parameters") or {}:
            if name in symbols.ids and symbols.ids[name] not in ("tag", "type"):
                self.add("R002", f"the parameter `{name}` has the same name as a {symbols.ids[name]}",
                         *self.manifest_at, ("parameters", name), "rename the parameter")
            symbols.ids[name] = "parameter"
        self.symbols = symbols
        return symbols

    def check_references(self, symbols: dsl.Symbols):
        for file, index, data in self.docs:
            for pattern, role, target in schema_check.field_roles(data["kind"]):
                if role not in ("ref", "refkey"):
                    continue
                for path, value in schema_check.values_at(data, pattern):
                    names = [(path, value)] if role == "ref" else [(path + (k,), k) for k in (value or {})]
                    for at, name in names:
                        if not isinstance(name, str):
                            continue
                        self.check_ref(file, index, at, name, target, symbols)

    def check_ref(self, file, index, path, name, target, symbols):
        allowed = _CATEGORY_OF_REF.get(target)
        category = symbols.ids.get(name)
        if category is not None and (allowed is None or category in allowed):
            return
        pool = [i for i, c in symbols.ids.items() if allowed is None or c in allowed]
        close = difflib.get_close_matches(name, pool, n=1, cutoff=0.7)
        hint = f"did you mean `{close[0]}`?" if close else f"define a {target} with `id: {name}`"
        if target == "prerequisite":
            self.add("G001", f"the prerequisite `{name}` is not a card of this pack", file, index, path, hint)
        elif category is not None:
            self.add("R001", f"`{name}` is a {category}, but a {target} is expected here", file, index, path, hint)
        else:
            self.add("R001", f"unknown {target if target != 'any' else 'id'} `{name}`", file, index, path, hint)

    def check_dsl(self, symbols: dsl.Symbols):
        for file, index, data in self.docs:
            local = {p: "any" for p in data.get("params") or []} if data["kind"] == "function" else None
            for pattern, role, mode in schema_check.field_roles(data["kind"]):
                if role != "dsl":
                    continue
                for path, text in schema_check.values_at(data, pattern):
                    if not isinstance(text, str):
                        continue
                    self.stats.effects += 1
                    _, problems = dsl.compile_text(text, mode, symbols, local)
                    for problem in problems:
                        self.add(problem.code, problem.message, file, index, path, problem.hint, problem.offset)

    # decks, components
    def cards(self):
        return [(f, i, d) for f, i, d in self.docs if d["kind"] == "card" and isinstance(d.get("id"), str)]

    def check_decks(self):
        if not self.manifest:
            return
        by_deck: dict[str, Counter] = defaultdict(Counter)
        for _, _, card in self.cards():
            by_deck[card.get("deck")][card["id"]] += card.get("copies", 1) if isinstance(card.get("copies"), int) else 1
        for deck, declared in (self.manifest.get("decks") or {}).items():
            if not isinstance(declared, dict):
                continue
            composition = declared.get("composition") or {}
            actual = by_deck.get(deck, Counter())
            path = ("decks", deck)
            size = declared.get("size")
            if isinstance(size, int) and size != sum(v for v in composition.values() if isinstance(v, int)):
                self.add("R003", f"deck `{deck}` declares {size} cards but its composition adds up to "
                         f"{sum(v for v in composition.values() if isinstance(v, int))}", *self.manifest_at,
                         path + ("size",), "make `size` the sum of the composition")
            for card_id in sorted(set(composition) | set(actual)):
                want, have = composition.get(card_id, 0), actual.get(card_id, 0)
                if want == have:
                    continue
                if card_id not in composition:
                    message = f"deck `{deck}` holds {have} `{card_id}`, which its composition does not list"
                else:
                    message = f"deck `{deck}` should hold {want} `{card_id}`, but the cards give {have}"
                self.add("R003", message, *self.manifest_at, path + ("composition", card_id)
                         if card_id in composition else path,
                         f"set `copies: {want}` on `{card_id}`" if card_id in composition else
                         f"add `{card_id}: {have}` to the composition, or move the card")

    def check_components(self):
        cards = [c for _, _, c in self.cards()]
        for file, index, data in self.docs:
            if data["kind"] != "component" or not isinstance(data.get("cards_of"), dict):
                continue
            sel = data["cards_of"]
            total = sum(c.get("copies", 1) for c in cards
                        if ("zone" not in sel or c.get("deck") == sel["zone"])
                        and ("type" not in sel or c.get("type") == sel["type"])
                        and ("tag" not in sel or sel["tag"] in (c.get("tags") or []))
                        and isinstance(c.get("copies", 1), int))
            if isinstance(data.get("count"), int) and total != data["count"]:
                self.add("R004", f"`{data['id']}` counts {data['count']}, but the matching cards have {total} copies",
                         file, index, ("count",), "fix the count or the cards' `copies`")

    # the prerequisite graph
    def check_graph(self):
        cards = {}
        where = {}
        for file, index, data in self.cards():
            if data["id"] not in cards:
                cards[data["id"]] = data
                where[data["id"]] = (file, index)
            reqs = [r for r in data.get("requires") or [] if isinstance(r, str)]
            for position_, req in enumerate(reqs):
                if req in reqs[:position_]:
                    self.add("G004", f"`{req}` is listed twice in `requires`", file, index, ("requires", position_),
                             "remove the repetition")
        graph = techgraph.build(cards)
        in_cycle = set()
        for cycle in techgraph.cycles(graph):
            in_cycle.update(cycle)
            start = cycle[0]
            file, index = where[start]
            needed = cycle[-2] if len(cycle) > 1 else start
            reqs = cards[start].get("requires") or []
            path = ("requires", reqs.index(needed)) if needed in reqs else ("requires",)
            self.add("G002", "prerequisites form a cycle: " + " -> ".join(reversed(cycle)), file, index, path,
                     "a card cannot require, even indirectly, itself; remove one link of the cycle")
        available = techgraph.reachable(graph)
        for card_id in sorted(cards):
            if card_id in available or card_id in in_cycle:
                continue
            blockers = [p for p in graph.predecessors(card_id) if p not in available]
            if all(graph.nodes[p].get("missing") for p in blockers):
                continue  # G001 already says why
            blocker = next(p for p in blockers if not graph.nodes[p].get("missing"))
            why = "is in a prerequisite cycle" if blocker in in_cycle else "can never become available either"
            file, index = where[card_id]
            self.add("G003", f"`{card_id}` can never become available: it requires `{blocker}`, which {why}",
                     file, index, ("requires",), "fix the cycle or the requirement upstream")

    def count_stats(self):
        for file, index, data in self.docs:
            self.stats.documents[data["kind"]] += 1
            if data["kind"] == "card":
                self.stats.cards += 1
                copies = data.get("copies", 1)
                self.stats.card_copies += copies if isinstance(copies, int) else 1
            status = data.get("provenance")
            if status in ("placeholder", "assumption", "reference"):
                self.stats.provenance[status] += 1
            if data["kind"] == "pack":
                for param in (data.get("parameters") or {}).values():
                    if isinstance(param, dict) and param.get("provenance") in ("placeholder", "assumption",
                                                                                 "reference"):
                        self.stats.provenance[param["provenance"]] += 1


def _short(path: str) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


# ------------------------------------------------------------------------------ suppressions
_SUPPRESS = re.compile(r"#\s*knap:\s*ignore(-file)?(?:\[([A-Za-z0-9, ]*)\])?")


def _suppressions(lines: list[str]):
    """(line -> codes or None for all) and file-wide codes, from `# knap: ignore[CODE]` comments.
    A comment alone on its line covers the next line; at the end of a line it covers that line."""
    per_line: dict[int, set[str] | None] = {}
    whole: set[str] | None = set()
    unknown: list[tuple[int, int, str]] = []
    for number, text in enumerate(lines, start=1):
        if "knap:" not in text:
            continue
        match = _SUPPRESS.search(text)
        if not match:
            continue
        codes = {c.strip().upper() for c in (match.group(2) or "").split(",") if c.strip()} or None
        for code in codes or ():
            if not any(r.startswith(code) for r in RULES):
                unknown.append((number, match.start() + 1, code))
        if match.group(1):
            whole = None if codes is None or whole is None else whole | codes
            continue
        target = number + 1 if text.lstrip().startswith("#") else number
        previous = per_line.get(target, set())
        per_line[target] = None if codes is None or previous is None else previous | codes
    return per_line, whole, unknown


def _covered(code: str, codes: set[str] | None) -> bool:
    return codes is None or any(code.startswith(c) for c in codes)


def apply_suppressions(diags: list[Diagnostic], positions: Positions) -> list[Diagnostic]:
    by_file = defaultdict(list)
    for d in diags:
        by_file[d.file].append(d)
    kept = []
    for file, items in by_file.items():
        lines = positions.source_lines(file)
        if not any("knap:" in line for line in lines):
            kept.extend(items)
            continue
        per_line, whole, _ = _suppressions(lines)
        for d in items:
            if whole is None or (whole and _covered(d.code, whole)):
                continue
            if d.line in per_line and _covered(d.code, per_line[d.line]):
                continue
            kept.append(d)
    return kept


# ------------------------------------------------------------------------------ cache
def _engine_key() -> str:
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{__version__}/{CACHE_FORMAT}".encode())
    for folder in ("schemas", "grammar"):
        for path in sorted(resources.root(folder).glob("*")):
            if path.is_file():
                digest.update(path.name.encode())
                digest.update(path.read_bytes())
    for module in ("dsl_builtins.py", "dsl.py", "lint.py", "schema_check.py", "yamlload.py", "techgraph.py"):
        digest.update((Path(__file__).parent / module).read_bytes())
    return digest.hexdigest()


class Cache:
    def __init__(self, directory: Path | None):
        self.directory = directory
        self.engine = _engine_key() if directory else ""

    def _file_for(self, root: Path) -> Path:
        name = hashlib.blake2b(str(root).encode(), digest_size=10).hexdigest()
        return self.directory / f"pack-{name}.json"

    def load(self, root: Path) -> dict:
        if not self.directory:
            return {}
        try:
            with open(self._file_for(root), encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            return {}
        return data if data.get("engine") == self.engine else {}

    def save(self, root: Path, data: dict):
        if not self.directory:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            gitignore = self.directory / ".gitignore"
            if not gitignore.exists():
                gitignore.write_text("*\n")
            target = self._file_for(root)
            temp = target.with_suffix(f".{os.getpid()}.tmp")
            with open(temp, "w", encoding="utf-8") as handle:
                json.dump({"engine": self.engine, **data}, handle, separators=(",", ":"))
            os.replace(temp, target)
        except OSError:
            pass  # a read-only folder only costs speed


# ------------------------------------------------------------------------------ entry point
def lint(paths: list[Path], cache_dir: Path | None = None) -> LintResult:
    packs, loose, only = discover(paths)
    cache = Cache(cache_dir)
    positions = Positions()
    diagnostics: list[Diagnostic] = []
    stats: list[PackStats] = []
    count = 0
    for path in loose:
        count += 1
        diagnostics.append(Diagnostic("P001", "this YAML file is not inside a pack (no pack.yaml in its folders)",
                                      _display(path), 1, 1, "add a pack.yaml to the folder that holds the pack"))
    for pack in packs:
        pack_diags, pack_stats, n = _lint_pack(pack, cache, positions)
        diagnostics.extend(pack_diags)
        stats.append(pack_stats)
        count += n
    if only is not None:
        wanted = {_display(p) for p in only}
        diagnostics = [d for d in diagnostics if d.file in wanted]
    diagnostics = sorted(apply_suppressions(diagnostics, positions), key=lambda d: d.sort_key)
    return LintResult(diagnostics, stats, count)


def _display(path: Path | str) -> str:
    path = str(path)
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _lint_pack(pack: PackFiles, cache: Cache, positions: Positions):
    stored = cache.load(pack.root)
    stored_files = stored.get("files", {})
    raw_by_file: dict[str, bytes] = {}
    hashes = {}
    for path in pack.files:
        shown = _display(path)
        try:
            with open(path, "rb") as handle:
                raw = handle.read(_read_limit())
        except OSError as exc:
            raw = b""
            hashes[shown] = "unreadable:" + str(exc.errno)
            continue
        raw_by_file[shown] = raw
        hashes[shown] = hashlib.blake2b(raw, digest_size=16).hexdigest()
    pack_key = hashlib.blake2b(json.dumps(sorted(hashes.items())).encode(), digest_size=16).hexdigest()
    whole = stored.get("pack")
    if whole and whole.get("key") == pack_key:
        diags = [Diagnostic(**{k: v for k, v in d.items() if k != "name"}) for d in whole["diagnostics"]]
        pack_stats = PackStats(whole["stats"]["pack"], Counter(whole["stats"]["documents"]), whole["stats"]["cards"],
                               whole["stats"]["card_copies"], whole["stats"]["dsl_texts"],
                               Counter(whole["stats"]["provenance"]))
        return diags, pack_stats, len(pack.files)

    results: list[FileResult] = []
    new_files = {}
    for path in pack.files:
        shown = _display(path)
        entry = stored_files.get(shown)
        if entry and entry.get("hash") == hashes.get(shown):
            result = FileResult.from_json(shown, entry["result"])
        else:
            raw = raw_by_file.get(shown)
            if raw is None:
                result = FileResult(shown, [Diagnostic("P003", "cannot read the file", shown, 1, 1)], [])
            else:
                loaded = _load(raw, shown)
                positions.remember(loaded)
                result = check_file(loaded)
        new_files[shown] = {"hash": hashes.get(shown), "result": result.to_json()}
        results.append(result)
    cross, pack_stats = PackChecker(pack, results).run()
    file_diags = [d for r in results for d in r.diagnostics]
    diags = file_diags + [positions.resolve(d) for d in cross]
    cache.save(pack.root, {"files": new_files, "pack": {"key": pack_key, "diagnostics": [d.to_json() for d in diags],
                                                        "stats": pack_stats.to_json()}})
    return diags, pack_stats, len(pack.files)


def _read_limit() -> int:
    return MAX_FILE_BYTES + 1   # enough to tell that a file is too large, never the whole of a huge one


def _load(raw: bytes, shown: str) -> LoadedFile:
    if len(raw) > MAX_FILE_BYTES:
        return oversize(shown, os.path.getsize(shown) if os.path.exists(shown) else len(raw))
    return load_bytes(raw, shown)


def pack_documents(root: Path) -> list[tuple[str, int, dict]]:
    """Every mapping document of a pack, as (file, index, data); broken files contribute nothing."""
    packs, _, _ = discover([root])
    found = []
    for pack in packs:
        if pack.root != root.resolve():
            continue
        for path in pack.files:
            with open(path, "rb") as handle:
                raw = handle.read(_read_limit())
            loaded = _load(raw, _display(path))
            found.extend((loaded.path, doc.index, doc.data) for doc in loaded.documents)
    return found


def pack_cards(root: Path) -> dict[str, dict]:
    cards = {}
    for _, _, data in pack_documents(root):
        if data.get("kind") == "card" and isinstance(data.get("id"), str):
            cards.setdefault(data["id"], data)
    return cards
