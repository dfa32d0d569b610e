"""The checks themselves: per file (YAML, schemas) and per pack (ids, references, DSL texts, decks,
components, the prerequisite graph). `lint.py` decides what to run and caches the results."""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine import dsl, fixes, suggestions
from engine.content import compose
from engine.content import schema as schema_check
from engine.content.packs import PackFiles, display
from engine.content.yamlload import LoadedFile, position, text_position
from engine.diagnostics import Diagnostic

from . import graph as techgraph
from . import suppressions, unread_fields
from .stats import PROVENANCE, PackStats


@dataclass
class FileResult:
    """What one file yields on its own: its diagnostics (positions resolved), its documents, and the
    parsed instructions of its DSL texts, keyed by document index and path (None: did not parse)."""

    path: str
    diagnostics: list[Diagnostic]
    documents: list[tuple[int, dict]]  # (index in file, data)
    texts: dict[tuple, list | None] = field(default_factory=dict)
    invalid: set[int] = field(default_factory=set)  # documents that break their schema

    def to_json(self):
        return {
            "d": [d.to_json() for d in self.diagnostics],
            "docs": self.documents,
            "texts": [[index, list(path), ir] for (index, path), ir in self.texts.items()],
            "invalid": sorted(self.invalid),
        }

    @classmethod
    def from_json(cls, path, data):
        diags = [Diagnostic.from_json(d) for d in data["d"]]
        texts = {(index, tuple(text_path)): ir for index, text_path, ir in data["texts"]}
        return cls(path, diags, [(i, doc) for i, doc in data["docs"]], texts, set(data["invalid"]))


def dsl_texts(data: dict):
    """(path, mode, text) for every DSL text of a document (of a known kind); a field's plain words
    (`x-dsl-words`: `end_turn: never`) are not DSL."""
    words = schema_check.dsl_words(data["kind"])
    for pattern, role, mode in schema_check.field_roles(data["kind"]):
        if role == "dsl":
            for path, text in schema_check.values_at(data, pattern):
                if isinstance(text, str) and text not in words.get(pattern, ()):
                    yield path, mode, text


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
        diag.line, diag.col = position(doc.node, diag.path, key=diag.at_key and bool(diag.path))
    return diag


# ------------------------------------------------------------------------------ per file
def check_file(loaded: LoadedFile) -> FileResult:
    """The checks that need only this file: YAML and schemas. Positions are resolved here, while the
    composed nodes are at hand."""
    diags = list(loaded.diagnostics)
    docs = []
    lines = loaded.text.splitlines()
    if "knap:" in loaded.text:
        for line, col, code in suppressions.parse(lines)[2]:
            diags.append(
                Diagnostic(
                    "L001",
                    f"the suppression names an unknown rule code `{code}`",
                    loaded.path,
                    line,
                    col,
                    "see `knap lint --explain all`",
                )
            )
    texts = {}
    invalid = set()
    for doc in loaded.documents:
        problems = schema_check.validate(doc.data, loaded.path, doc.index)
        diags.extend(locate(d, loaded, lines) for d in problems)
        docs.append((doc.index, doc.data))
        if problems:
            invalid.add(doc.index)
        if doc.data.get("kind") not in schema_check.kinds():
            continue
        for path, mode, text in dsl_texts(doc.data):  # syntax is file-local: parse here, check names later
            ir, problem = dsl.parse(text, mode)
            texts[(doc.index, path)] = ir
            if problem is not None:
                diags.append(
                    locate(
                        Diagnostic(
                            problem.code,
                            problem.message,
                            loaded.path,
                            hint=problem.hint,
                            doc_index=doc.index,
                            path=path,
                            offset=problem.offset,
                        ),
                        loaded,
                        lines,
                    )
                )
    for index, data in loaded.recovered:  # a document a YAML error left out: its names only, as a broken one
        docs.append((index, data))
        invalid.add(index)
    return FileResult(loaded.path, diags, docs, texts, invalid)


def _texts(value) -> list[str]:
    """The texts of a value that should be a text or a list of texts, whatever shape it has."""
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _lost_params(data: dict) -> bool:
    """A function or action whose `params` is there but not a list (S003): its parameters' names and count are not
    known, so the names its text uses and the arguments its callers give are not checked."""
    return data["kind"] in ("function", "action") and "params" in data and not isinstance(data["params"], list)


def _nodes(ir):
    """Every node (list) of an effect's instructions, at any depth."""
    pending = [ir]
    while pending:
        node = pending.pop()
        if isinstance(node, (list, tuple)):
            yield node
            pending.extend(x for x in node if isinstance(x, (list, tuple)))


def _verbs_in(ir) -> set[str]:
    """The names of the verbs an effect's instructions use, at any depth."""
    return {node[2] for node in _nodes(ir) if len(node) > 2 and node[0] == "verb" and isinstance(node[2], str)}


def _flag_uses(ir, set_: set[str], read: set[str]):
    """Add the flags an effect sets (`flag X`, `set X to ...`) to `set_` and those it reads (`flagged(X ...)`) to
    `read`: words only, so a name that is not a flag is harmless here."""
    for node in _nodes(ir):
        if len(node) <= 3 or not node[3]:
            continue
        sets = node[0] == "verb" and node[2] in ("flag", "set")
        if sets or (node[0] == "call" and node[2] == "flagged"):
            first = node[3][0]
            if isinstance(first, (list, tuple)) and first and first[0] == "name":
                (set_ if sets else read).add(first[2])


# ------------------------------------------------------------------------------ per pack
_CATEGORY_OF_REF = {
    "card": {"card"},
    "prerequisite": {"card"},
    "zone": {"zone"},
    "counter": {"counter"},
    "parameter": {"parameter"},
    "any": None,
    "value": None,
}


@dataclass
class Base:
    """A pack named in `extends`, as the lint layer found it."""

    position: int  # in the manifest's `extends` list
    pack_id: str
    root: Path | None = None  # its folder, when found
    effective: compose.Effective | None = None  # None: not found, or in a cycle
    errors: int = 0  # its own errors
    cycle: list[str] | None = None  # pack ids around a cycle of `extends` through this pack


class PackChecker:
    """The cross-file checks of one pack: ids, references, DSL texts, decks, the graph. A pack that
    extends others is checked as it is played: its effective documents (compose.py)."""

    def __init__(self, pack: PackFiles, results: list[FileResult], bases: Sequence[Base] = ()):
        self.pack = pack
        self.results = results
        self.base_list = list(bases)
        self.diags: list[Diagnostic] = []
        self.docs: list[tuple[str, int, dict]] = []  # (file, index, data) of schema-valid documents
        self.broken: list[tuple[str, int, dict]] = []  # schema-invalid documents: ids and DSL texts only
        self.broken_manifest: dict | None = None  # a manifest the schema refused: its names only
        self.name_indexes: dict = {}  # allowed categories -> ids, for "did you mean"
        self.manifest: dict | None = None
        self.manifest_at: tuple[str, int] | None = None
        self.effective: compose.Effective | None = None
        self.own_files = {r.path for r in results}
        self.stats = PackStats(pack.root.name)

    def add(self, code, message, file, index, path, hint="", offset=None, at_key=False, explained=False, fix=None):
        """`explained`: the hint already tells a pack that extends this one what to do. `fix`: a
        fixes maker, given the place the finding is written at; fixes are made in this pack's own files."""
        if self.effective is not None:
            file, index, path = self.effective.locate(file, index, tuple(path))
            if file not in self.own_files and not explained:
                hint = (
                    (hint + "; " if hint else "") + f"found while checking `{self.effective.pack_id}`, "
                    "which extends this pack: see what it removes, replaces or patches"
                )
        fix = fix(index, tuple(path)) if fix is not None and file in self.own_files else None
        self.diags.append(
            Diagnostic(
                code, message, file, hint=hint, doc_index=index, path=tuple(path), offset=offset, at_key=at_key, fix=fix
            )
        )

    def inherited(self, file, index, path) -> bool:
        """Whether the field `path` of a document was written by a pack this one extends."""
        assert self.effective is not None  # asked by the checks that run after compose()
        return self.effective.locate(file, index, tuple(path))[0] not in self.own_files

    def broken_ids(self):
        """The ids of the schema-invalid documents, where they are ids at all."""
        return (data["id"] for _, _, data in self.broken if isinstance(data.get("id"), str))

    def nameless_kinds(self) -> set[str]:
        """Kinds of the schema-invalid documents that have no usable id: any unknown name of such a kind may
        be the one the document lost, so it is not reported again (its S001/S003 says what to fix)."""
        return {data["kind"] for _, _, data in self.broken if not isinstance(data.get("id"), str)}

    def run(self) -> tuple[list[Diagnostic], PackStats]:
        self.collect()
        self.compose()
        if any(base.errors or base.cycle for base in self.base_list):
            return self.diags, self.stats  # a broken base: checking on top of it would only echo it
        symbols = self.collect_ids()
        self.check_references(symbols)
        self.check_dsl(symbols)
        self.check_decks()
        self.check_components()
        self.check_player_counts()
        self.check_endless_actions()
        self.check_unread_fields()
        self.check_graph()
        self.count_stats()
        return self.diags, self.stats

    def collect(self):
        """The pack's own documents, sorted into the manifest, valid and broken ones."""
        manifest_path = display(self.pack.manifest)
        if not self.pack.manifest.is_file():
            self.diags.append(Diagnostic("P001", "this folder has no pack.yaml", str(self.pack.root), 1, 1))
        manifest_seen = False
        for result in self.results:
            for index, data in result.documents:
                kind = data.get("kind")
                if kind not in schema_check.kinds():
                    continue
                manifest_seen |= kind == "pack" and result.path == manifest_path
                if index in result.invalid:
                    # Cross-file checks trust the shape the schema promises, so a broken document takes
                    # part only with its id: references to it should not pile more errors on the first.
                    if kind not in ("pack", "patch"):
                        self.broken.append((result.path, index, data))
                    elif kind == "pack" and result.path == manifest_path and self.broken_manifest is None:
                        self.broken_manifest = data
                    continue
                if kind == "pack":
                    if result.path != manifest_path:
                        self.add(
                            "P002",
                            "a `kind: pack` document belongs only in pack.yaml",
                            result.path,
                            index,
                            ("kind",),
                            "move it to pack.yaml, or change its kind",
                        )
                        continue
                    if self.manifest is not None:
                        self.add(
                            "P002",
                            "pack.yaml holds more than one `kind: pack` document",
                            result.path,
                            index,
                            ("kind",),
                            "keep one manifest per pack",
                        )
                        continue
                    self.manifest, self.manifest_at = data, (result.path, index)
                    continue
                elif result.path == manifest_path:
                    self.add(
                        "P002",
                        f"pack.yaml holds a `{kind}` document; only the manifest goes there",
                        result.path,
                        index,
                        ("kind",),
                        "move it to another file of the pack",
                    )
                self.docs.append((result.path, index, data))
        if (
            not manifest_seen
            and self.pack.manifest.is_file()
            and not any(
                r.path == manifest_path and any(d.code.startswith("Y") for d in r.diagnostics) for r in self.results
            )
        ):
            self.diags.append(
                Diagnostic(
                    "P002",
                    "pack.yaml has no `kind: pack` document",
                    manifest_path,
                    1,
                    1,
                    "start it with `kind: pack`, `id:`, `name:`, `version:`, `players:`",
                )
            )
        if (
            self.manifest is not None
            and self.manifest.get("id")
            and self.manifest["id"].replace("_", "-") != self.pack.root.name.replace("_", "-")
        ):
            self.add(
                "P004",
                f"the pack id `{self.manifest['id']}` differs from its folder `{self.pack.root.name}`",
                *self.manifest_at,
                ("id",),
                f"rename the folder or set `id: {self.pack.root.name.replace('-', '_')}`",
            )

    def compose(self) -> compose.Effective:
        """The effective pack: this pack's documents on top of those of the packs it extends."""
        pack_id = (self.manifest or {}).get("id") or self.pack.root.name.replace("-", "_")
        found = []
        for base in self.base_list:
            at = ("extends", base.position)
            if not (base.cycle or base.effective is None or base.errors):
                found.append((base.position, base.pack_id, base.effective))
            elif self.manifest_at is None:
                continue  # the schema refused the manifest (a path in `extends`?): its S findings come first
            elif base.cycle:
                self.add(
                    "P005",
                    "packs extend each other in a cycle: " + " -> ".join(base.cycle),
                    *self.manifest_at,
                    at,
                    "a pack cannot extend, even indirectly, itself; remove one `extends` of the cycle",
                )
            elif base.effective is None:
                self.add(
                    "P003",
                    f"the pack `{base.pack_id}` that this pack extends is not found",
                    *self.manifest_at,
                    at,
                    "a pack is found among its sibling folders, then as `knap list` shows",
                )
            else:  # base.errors
                self.add(
                    "P008",
                    f"the pack `{base.pack_id}` that this pack extends has {base.errors} error(s)",
                    *self.manifest_at,
                    at,
                    f"fix them first (`knap lint {base.pack_id}`): this pack is checked only on top of a clean base",
                )
        # else what is inherited is not known (or the manifest is broken): no conflicts
        usable = len(found) == len(self.base_list) and self.manifest_at is not None
        effective = compose.compose(
            pack_id,
            self.manifest,
            self.manifest_at,
            self.docs,
            found,
            self.add if usable else lambda *args, **kwargs: None,
        )
        self.broken += effective.refused  # a `replace: true` of nothing: like a broken document, its id and texts
        broken_ids = set(self.broken_ids())  # a broken document stands in for its id
        effective.documents = [
            doc for doc in effective.documents if doc[0] in self.own_files or doc[2].get("id") not in broken_ids
        ]
        self.effective = effective
        self.manifest = effective.manifest if self.manifest is not None else None
        self.docs = effective.all_documents() if self.manifest is not None else effective.documents
        return effective

    # ids and symbols
    def collect_ids(self) -> dsl.Symbols:
        symbols = dsl.Symbols()
        first: dict[str, tuple[str, int]] = {}
        for file, index, data in self.docs + self.broken:
            doc_id = data.get("id")
            kind = data["kind"]
            if not isinstance(doc_id, str) or kind == "pack":
                continue
            if doc_id in first:
                where = first[doc_id]
                self.add(
                    "R002",
                    f"the id `{doc_id}` is already used (in {where[0]})",
                    file,
                    index,
                    ("id",),
                    "ids are unique within a pack, whatever the kind",
                )
                continue
            first[doc_id] = (file, index)
            symbols.ids[doc_id] = kind
            # broken documents too, as far as their shape allows, so one mistake is reported once
            if kind == "zone":
                owner = data.get("owner")
                symbols.zone_owner[doc_id] = owner if owner in ("table", "player") else "table"
            elif kind == "counter":
                owner = data.get("owner")
                symbols.counter_owner[doc_id] = owner if owner in ("table", "player", "card") else "table"
                if data.get("visibility") in ("owner", "hidden"):
                    symbols.unread.add(doc_id)
                if data.get("keys") is not None:
                    symbols.keyed.add(doc_id)
                if owner == "card":
                    symbols.on_card.add(doc_id)
            elif kind == "flag" and data.get("owner") == "table":
                symbols.table_flags.add(doc_id)
            elif kind in ("function", "action"):
                # a `params` the schema refused: how many arguments it takes is not known (None)
                taken = (
                    len(data["params"]) if isinstance(data.get("params"), list) else None if _lost_params(data) else 0
                )
                (symbols.functions if kind == "function" else symbols.action_params)[doc_id] = taken
        # every card's stats, tags and type, a broken one's too (one without a usable id: a broken `generate`), as
        # far as their shape allows
        for _, _, data in self.docs + self.broken:
            if data["kind"] == "card":
                for group in ("stats", "refs"):
                    if isinstance(data.get(group), dict):
                        symbols.card_stats.update(k for k in data[group] if isinstance(k, str))
                for tag in _texts(data.get("tags")):
                    symbols.ids.setdefault(tag, "tag")
                for card_type in _texts(data.get("type")):
                    symbols.ids.setdefault(card_type, "type")
                for back in _texts(data.get("back")):  # `where back = danger`: a back is a word rules name
                    symbols.ids.setdefault(back, "type")
        for group in ("card_stats", "card_refs"):  # declared in pack.yaml ahead of the cards that print them
            symbols.card_stats.update(n for n in (self.manifest or {}).get(group) or () if isinstance(n, str))
        for name in (self.manifest or {}).get("parameters") or {}:
            if name in symbols.ids and symbols.ids[name] not in ("tag", "type"):
                assert self.manifest_at is not None  # set with the manifest (collect)
                self.add(
                    "R002",
                    f"the parameter `{name}` has the same name as a {symbols.ids[name]}",
                    *self.manifest_at,
                    ("parameters", name),
                    "rename the parameter",
                    at_key=True,
                )
                continue
            symbols.ids[name] = "parameter"
        if self.manifest is None:  # a broken manifest: its parameters and the inherited ones keep their names
            for spec in (self.effective.manifest if self.effective else {}, self.broken_manifest or {}):
                params = spec.get("parameters")
                for name in params if isinstance(params, dict) else ():
                    if isinstance(name, str):
                        symbols.ids.setdefault(name, "parameter")
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
                        if isinstance(name, str):
                            self.check_ref(file, index, at, name, target, symbols, at_key=role == "refkey")
        self.check_card_counters(symbols)

    def check_card_counters(self, symbols: dsl.Symbols):
        """A counter kept on cards (`owner: card`) is read as a card's field: its `max_from` names a stat of
        the cards, and its id is no stat's name (`card.NAME` would read one of the two)."""
        for file, index, data in self.docs:
            if data["kind"] != "counter" or data.get("owner") != "card":
                continue
            stat = data.get("max_from")
            if isinstance(stat, str) and stat not in symbols.card_stats:
                self.add(
                    "R001",
                    f"cards have no stat `{stat}`",
                    file,
                    index,
                    ("max_from",),
                    suggestions.suggest(stat, symbols.card_stats) or "name a stat the cards print",
                )
            if data["id"] in symbols.card_stats:
                self.add(
                    "R002",
                    f"`{data['id']}` is also a stat of cards: `card.{data['id']}` would read one of the two",
                    file,
                    index,
                    ("id",),
                    "rename the counter or the stat",
                )

    def check_ref(self, file, index, path, name, target, symbols, at_key=False):
        allowed = _CATEGORY_OF_REF.get(target)
        category = symbols.ids.get(name)
        # an action's cost, an end rule's score: one number, the table's or a player's
        if target == "counter" and (name in symbols.on_card or name in symbols.keyed):
            what, hint = (
                ("is a number on each card", "use a counter of the table or of each player")
                if name in symbols.on_card
                else ("holds a number per key", "use a counter without `keys`")
            )
            self.add(
                "R001",
                f"`{name}` {what}; a counter of one number is expected here",
                file,
                index,
                path,
                hint,
                at_key=at_key,
            )
            return
        if category is not None and (allowed is None or category in allowed):
            return
        nameless = self.nameless_kinds()
        if category is None and nameless and (allowed is None or nameless & allowed):
            return  # perhaps the id a broken document lost
        hint = suggestions.suggest(name, self.names_for(target, symbols))
        close = bool(hint)
        fix = None
        if close and category is None:  # an unknown id with one close match: replace it
            fix = (
                functools.partial(fixes.key_fix, names=self.names_for(target, symbols))
                if at_key
                else functools.partial(fixes.value_fix, old=name, names=self.names_for(target, symbols))
            )
        hint = hint or f"define a {target} with `id: {name}`"
        if target == "value":  # a parameter's value: the runtime reads a text as an id
            code, message = "R001", f"the parameter value `{name}` is neither a number nor an id of this pack"
            hint = (
                hint
                if close
                else "a parameter's value is a whole number, true or false, an id of the pack "
                "(a card, zone, counter, tag...) or a list of these"
            )
        elif target == "prerequisite":
            code, message = "G001", f"the prerequisite `{name}` is not a card of this pack"
        elif category is not None:
            code, message = "R001", f"`{name}` is a {category}, but a {target} is expected here"
        else:
            code, message = "R001", f"unknown {target if target != 'any' else 'id'} `{name}`"
        self.add(code, message, file, index, path, hint, at_key=at_key, fix=fix)

    def names_for(self, target, symbols) -> suggestions.NameIndex:
        """The ids a reference to a `target` may name, indexed once per pack for "did you mean"."""
        allowed = _CATEGORY_OF_REF.get(target)
        key = frozenset(allowed) if allowed is not None else None
        if key not in self.name_indexes:
            self.name_indexes[key] = suggestions.index(
                i for i, c in symbols.ids.items() if allowed is None or c in allowed
            )
        return self.name_indexes[key]

    def check_dsl(self, symbols: dsl.Symbols):
        """Names, arity and types of the texts each file parsed (syntax errors were reported there), and
        of texts from other places: the packs this one extends, and what its patches wrote."""
        parsed = {(r.path, index, path): ir for r in self.results for (index, path), ir in r.texts.items()}
        nameless = self.nameless_kinds()
        flags_set: set[str] = set()
        flags_read: set[str] = set()
        for file, index, data in self.docs + self.broken:
            params = data.get("params") if data["kind"] in ("function", "action") else None
            local = {p: "any" for p in params if isinstance(p, str)} if isinstance(params, list) else None
            lost = _lost_params(data)
            for path, mode, text in dsl_texts(data):
                self.stats.effects += 1
                key = (file, index, path)
                if key in parsed:
                    ir = parsed[key]
                else:
                    ir, problem = dsl.parse(text, mode)
                    if problem is not None:
                        self.add(problem.code, problem.message, file, index, path, problem.hint, problem.offset)
                if ir is None:
                    continue
                _flag_uses(ir, flags_set, flags_read)
                for problem in dsl.check(ir, mode, symbols, local):
                    if nameless and problem.unknown:
                        continue  # perhaps the id a broken document lost
                    if lost and problem.unknown == "name":
                        continue  # perhaps one of the parameters the function's broken `params` lost
                    self.add(problem.code, problem.message, file, index, path, problem.hint, problem.offset)
        self.check_flags(flags_set, flags_read)

    def check_flags(self, flags_set: set[str], flags_read: set[str]):
        """D009/D010: a declared flag no effect sets (a test of it is always false) or none reads (setting it
        changes nothing). Only on a pack whose documents are all known, and only for this pack's own flags."""
        if self.broken:
            return
        declared = [d["id"] for _, _, d in self.docs if d["kind"] == "flag" and isinstance(d.get("id"), str)]
        # a misspelt flag (D002, "did you mean") is what leaves the flag it means unset or unread: said once
        meant = {suggestions.closest(word, declared) for word in (flags_set | flags_read) - set(self.symbols.ids)}
        for file, index, data in self.docs:
            if data["kind"] != "flag" or not isinstance(data.get("id"), str) or self.inherited(file, index, ("id",)):
                continue
            flag = data["id"]
            if flag in meant:
                continue
            if flag not in flags_set:
                self.add(
                    "D009",
                    f"the flag `{flag}` is never set: no effect of the pack says `flag {flag}`",
                    file,
                    index,
                    ("id",),
                    f"set it where it happens (`flag {flag}`), or remove the flag and the tests of it",
                )
            elif flag not in flags_read:
                self.add(
                    "D010",
                    f"the flag `{flag}` is set but never read: no effect tests `flagged({flag})`",
                    file,
                    index,
                    ("id",),
                    f"test it where it matters (`flagged({flag}, me)`), or remove it",
                )

    # decks, components
    def cards(self):
        return [(f, i, d) for f, i, d in self.docs if d["kind"] == "card" and isinstance(d.get("id"), str)]

    def check_decks(self):
        if not self.manifest:
            return
        by_deck: dict[str, Counter] = defaultdict(Counter)
        written: dict[str, tuple[str, int]] = {}
        for file, index, card in self.cards():
            by_deck[card.get("deck")][card["id"]] += card.get("copies", 1) if isinstance(card.get("copies"), int) else 1
            written[card["id"]] = (file, index)
        unsure_ids, unsure_decks = self.unsure_cards()
        for deck, declared in (self.manifest.get("decks") or {}).items():
            if not isinstance(declared, dict):
                continue
            composition = declared.get("composition") or {}
            actual = by_deck.get(deck, Counter())
            path = ("decks", deck)
            size = declared.get("size")
            if isinstance(size, int) and size != sum(v for v in composition.values() if isinstance(v, int)):
                self.add(
                    "R003",
                    f"deck `{deck}` declares {size} cards but its composition adds up to "
                    f"{sum(v for v in composition.values() if isinstance(v, int))}",
                    *self.manifest_at,
                    path + ("size",),
                    "make `size` the sum of the composition",
                )
            for card_id in sorted(set(composition) | set(actual)):
                want, have = composition.get(card_id, 0), actual.get(card_id, 0)
                if want == have or card_id in unsure_ids or deck in unsure_decks or None in unsure_decks:
                    continue  # a broken card may make up the difference: its own finding says what to fix
                if card_id not in composition:
                    message = f"deck `{deck}` holds {have} `{card_id}`, which its composition does not list"
                else:
                    message = f"deck `{deck}` should hold {want} `{card_id}`, but the cards give {have}"
                at = (*self.manifest_at, path + ("composition", card_id) if card_id in composition else path)
                hint = (
                    f"set `copies: {want}` on `{card_id}`"
                    if card_id in composition
                    else f"add `{card_id}: {have}` to the composition, or move the card"
                )
                if self.inherited(*at) and written.get(card_id, ("",))[0] in self.own_files:
                    # an inherited deck, this pack's card: say it at the card
                    at = (*written[card_id], ("deck",))
                    total = size + have - want if isinstance(size, int) else "N"
                    hint = (
                        f"in this pack's pack.yaml, `decks: {{{deck}: {{size: {total}, composition: "
                        f"{{{card_id}: {have}}}}}}}` adds it to the inherited deck"
                    )
                self.add("R003", message, *at, hint)

    def unsure_cards(self) -> tuple[set[str], set[str | None]]:
        """What the schema-invalid cards leave unknown: the ids whose copies are not counted, and the decks
        that may hold a card that lost its id (None: any deck)."""
        ids, decks = set(), set()
        for _, _, card in self.broken:
            if card["kind"] != "card":
                continue
            if isinstance(card.get("id"), str):
                ids.add(card["id"])
            else:
                decks.add(card["deck"] if isinstance(card.get("deck"), str) else None)
        return ids, decks

    def check_components(self):
        if any(data["kind"] == "card" for _, _, data in self.broken):
            return  # a count is checked only against cards that are all known
        cards = [c for _, _, c in self.cards()]
        for file, index, data in self.docs:
            if data["kind"] != "component" or not isinstance(data.get("cards_of"), dict):
                continue
            sel = data["cards_of"]
            total = sum(
                c.get("copies", 1)
                for c in cards
                if ("zone" not in sel or c.get("deck") == sel["zone"])
                and ("type" not in sel or c.get("type") == sel["type"])
                and ("tag" not in sel or sel["tag"] in (c.get("tags") or []))
                and isinstance(c.get("copies", 1), int)
            )
            if isinstance(data.get("count"), int) and total != data["count"]:
                hint = "fix the count or the cards' `copies`"
                inherited = self.inherited(file, index, ("count",))
                if inherited:
                    hint = (
                        f"a count `{self.effective.pack_id}` inherits: a patch in it changes it (`kind: patch`, "
                        f"`target: {data['id']}`, `changes: {{count: {total}}}`)"
                    )
                self.add(
                    "R004",
                    f"`{data['id']}` counts {data['count']}, but the matching cards have {total} copies",
                    file,
                    index,
                    ("count",),
                    hint,
                    explained=inherited,
                )

    # verbs after which an action may not be taken again: they end the turn, or may fail (and with them the action)
    _LIMITING_VERBS = frozenset(
        {"require", "pay", "pay_cost", "end_turn", "end_game", "win", "choose", "perform", "resolve"}
    )

    def check_endless_actions(self):
        """D007: an action a player can take again and again in one turn, at no cost. Such a turn only ends when
        the player chooses to end it: bots that like the action never do, and `knap sim` reports the stall.
        What limits an action (the action schema): a cost, a `limit`, `whole_turn`, an `available` condition,
        or an effect that ends the turn or may fail. A pack played in rounds offers no actions."""
        if not self.manifest or self.manifest.get("turns") == "rounds":
            return
        for file, index, data in self.docs:
            if data["kind"] != "action" or data.get("subroutine") or not isinstance(data.get("effect"), str):
                continue
            cost = data.get("cost") or {}
            if (
                data.get("limit", "unlimited") != "unlimited"
                or data.get("whole_turn")
                or "available" in data
                or not isinstance(cost, dict)
                or any(amount != 0 for amount in cost.values())
            ):
                continue
            ir, _problem = dsl.parse(data["effect"], dsl.EFFECT)
            if ir is None or _verbs_in(ir) & self._LIMITING_VERBS:
                continue
            self.add(
                "D007",
                f"the action `{data['id']}` can be taken again and again in one turn: it has no cost, "
                "no limit and no `available` condition, and its effect neither ends the turn nor can fail",
                file,
                index,
                ("id",),
                "add `limit: once_per_turn`, a `cost`, an `available` condition or "
                "`whole_turn: true`; otherwise a bot that likes it never ends its turn",
            )

    def check_unread_fields(self):
        """D008: behaviour written where nothing reads it (engine/lint/unread_fields.py). Only on a pack whose
        documents are all known: a broken one might hold the `resolve` or `perform` that runs it."""
        if not self.manifest or self.broken:
            return
        parameters = set(self.manifest.get("parameters") or {})
        where = {id(data): (file, index) for file, index, data in self.docs}
        parsed = {}  # the texts the files parsed (a cached result has them too): parsed once, not twice
        for result in self.results:
            for index, data in result.documents:
                if data.get("kind") in schema_check.kinds():
                    for path, mode, text in dsl_texts(data):
                        if (index, path) in result.texts:
                            parsed[(text, mode)] = result.texts[(index, path)]
        for finding in unread_fields.unread((data for _, _, data in self.docs), parameters, parsed):
            file, index = where[id(finding.document)]
            self.add("D008", finding.message, file, index, finding.path, finding.hint, at_key=True)

    def check_player_counts(self):
        """A parameter given by player count needs a value for every count the pack allows (or a default):
        a missing one is `none` at play, and an end rule comparing with it never triggers."""
        players = (self.manifest or {}).get("players") or {}
        low, high = players.get("min"), players.get("max")
        if not isinstance(low, int) or not isinstance(high, int):
            return
        for name, spec in ((self.manifest or {}).get("parameters") or {}).items():
            if not isinstance(spec, dict) or not isinstance(spec.get("by_player_count"), dict) or "default" in spec:
                continue
            missing = [n for n in range(low, high + 1) if str(n) not in spec["by_player_count"]]
            if missing:
                counts = ", ".join(map(str, missing))
                self.add(
                    "R005",
                    f"the parameter `{name}` has no value for {counts} player(s), which the pack "
                    f"allows ({low} to {high})",
                    *self.manifest_at,
                    ("parameters", name, "by_player_count"),
                    f"add {', '.join(f'`{chr(34)}{n}{chr(34)}: ...`' for n in missing)} to the table, or a `default`",
                    at_key=True,
                )

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
                    self.add(
                        "G004",
                        f"`{req}` is listed twice in `requires`",
                        file,
                        index,
                        ("requires", position_),
                        "remove the repetition",
                    )
        graph = techgraph.build(cards)
        in_cycle = set()
        for cycle in techgraph.cycles(graph):
            in_cycle.update(cycle)
            start = cycle[0]
            file, index = where[start]
            needed = cycle[-2] if len(cycle) > 1 else start
            reqs = cards[start].get("requires") or []
            path = ("requires", reqs.index(needed)) if needed in reqs else ("requires",)
            chain = " -> ".join(reversed(cycle))
            self.add(
                "G002",
                f"prerequisites form a cycle: {chain} (each requires the next)",
                file,
                index,
                path,
                "a card cannot require, even indirectly, itself; remove one link of the cycle",
            )
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
            self.add(
                "G003",
                f"`{card_id}` can never become available: it requires `{blocker}`, which {why}",
                file,
                index,
                ("requires",),
                "fix the cycle or the requirement upstream",
            )

    def count_stats(self):
        for _, _, data in self.docs:
            self.stats.documents[data["kind"]] += 1
            if data["kind"] == "card":
                self.stats.cards += 1
                copies = data.get("copies", 1)
                self.stats.card_copies += copies if isinstance(copies, int) else 1
            status = data.get("provenance")
            if status in PROVENANCE:
                self.stats.provenance[status] += 1
            if data["kind"] == "pack":
                for param in (data.get("parameters") or {}).values():
                    if isinstance(param, dict) and param.get("provenance") in PROVENANCE:
                        self.stats.provenance[param["provenance"]] += 1
