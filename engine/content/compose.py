"""Packs that extend packs: the effective documents of a pack, from its bases' and its own.

A pack with `extends` inherits every document, parameter and deck of the packs it names, then says
what it changes: a new id adds a document; `replace: true` puts a document in the place of the
inherited one with its id; a `kind: patch` document changes fields of an inherited one (a JSON Merge
Patch, RFC 7386: mappings merge, `null` deletes, anything else replaces); `remove:` in the manifest
takes inherited documents (or parameters) out; parameters and decks in the manifest override inherited ones,
and so do the rule settings of the manifest (`players`, `turns`, `end_turn`, `menu`, `cooperative`), which are inherited when left out.

Every effective document remembers the layers it was written in (`Layer`), newest first, so a
problem found in it is reported where the text that caused it was written.

A pack that extends several packs joins them by a three-way merge: every document, parameter and deck
remembers the pack that last wrote it (its origin: the pack that added, replaced, patched or removed it),
and every pack the packs it extends, transitively (its ancestry). When two bases carry different
versions of one, the version written by a pack that extends the other version's origin is a change of
what the other base inherited unchanged, and is taken; two versions neither of which derives from the
other were both changed, and are a conflict (P006).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from engine.suggestions import suggest

from . import schema as schema_check

VALUE_KEYS = ("default", "by_player_count")  # what a parameter override replaces whole
# the manifest's rule settings: inherited unless restated
SETTINGS = ("players", "turns", "end_turn", "menu", "cooperative")
CARD_FIELDS = ("card_stats", "card_refs")  # names cards may print, declared ahead of them: joined, never replaced
_DROPPED_WITH_VALUE = VALUE_KEYS + ("provenance", "reason")  # the old value's provenance goes with it


@dataclass(frozen=True)
class Layer:
    """One place a document's fields were written: the fields (`data`) sit at `prefix` in the
    document at `file`/`index` (`("changes",)` for a patch)."""

    file: str
    index: int
    prefix: tuple
    data: dict


@dataclass
class Effective:
    """A pack as it is played: its manifest merged with its bases', and every document in force."""

    pack_id: str
    manifest: dict
    manifest_at: tuple[str, int] | None
    documents: list[tuple[str, int, dict]]  # (file, index, data), manifest excluded
    layers: dict[tuple[str, int], list[Layer]] = field(default_factory=dict)
    bases: list[str] = field(default_factory=list)  # the packs it extends, directly
    removals: dict[str, str] = field(default_factory=dict)  # what it removes from them, with the reasons
    # documents left out: a `replace: true` that replaces nothing (P007) was meant to stand in for an inherited
    # document, not to add one, so it is not in force (lint checks only its id and texts, as of a broken one)
    refused: list[tuple[str, int, dict]] = field(default_factory=list)
    # the pack that last wrote each ("document" | "parameter" | "deck", name) of this pack's tree, those it
    # removed included (a name in `origins` that the pack lacks was removed by its origin)
    origins: dict[tuple[str, str], str] = field(default_factory=dict)
    # every pack of this pack's tree, itself included -> the packs it extends, directly or not
    ancestry: dict[str, frozenset[str]] = field(default_factory=dict)

    def locate(self, file: str, index: int, path: tuple) -> tuple[str, int, tuple]:
        """Where the field `path` of the effective document written at `file`/`index` was written."""
        for layer in self.layers.get((file, index), ()):
            if _has(layer.data, path):
                return layer.file, layer.index, layer.prefix + tuple(path)
        return file, index, tuple(path)

    def all_documents(self) -> list[tuple[str, int, dict]]:
        """The manifest first, then the documents: what the runtime reads."""
        head = [(*self.manifest_at, self.manifest)] if self.manifest_at else []
        return head + self.documents

    def by_id(self) -> dict[str, dict]:
        return {data["id"]: data for _, _, data in self.documents if isinstance(data.get("id"), str)}


def _has(data, path) -> bool:
    node = data
    for step in path:
        inside = (
            step in node
            if isinstance(node, dict)
            else isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node)
        )
        if inside:
            node = node[step]
        else:
            return False
    return True


def merge_patch(target, patch):
    """RFC 7386: a mapping patch merges key by key, `null` deletes, any other value replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def override_parameter(base, spec):
    """A parameter override: a new value (`default`/`by_player_count`) replaces the old value and its
    provenance whole; other keys (the description) are kept unless given."""
    if not isinstance(base, dict) or not isinstance(spec, dict):
        return copy.deepcopy(spec)
    new_value = any(key in spec for key in VALUE_KEYS)
    kept = {k: v for k, v in base.items() if not (new_value and k in _DROPPED_WITH_VALUE)}
    return {**kept, **copy.deepcopy(spec)}


_GONE = object()  # what a base's tree removed, as a version of it


@dataclass(frozen=True, eq=False)
class _Version:
    """One base's version of a document (file, index, data), parameter or deck (its spec), or `_GONE`;
    `origin` is the pack that last wrote it."""

    value: Any
    origin: str
    base_id: str  # the `extends` entry that brought it
    base: Effective

    def compared(self):
        """What two versions are compared by: a document's data, not where it was written."""
        return self.value[2] if isinstance(self.value, tuple) else self.value

    def named(self) -> str:
        return f"`{self.base_id}`" + ("" if self.origin == self.base.pack_id else f" (from `{self.origin}`)")


def _versions(base: Effective, base_id: str) -> dict[tuple[str, str], _Version]:
    """What a base carries under each ("document" | "parameter" | "deck", name), what its tree removed included."""
    found: dict[tuple[str, str], object] = {("document", doc[2]["id"]): doc for doc in base.documents}
    for what in ("parameter", "deck"):
        for name, spec in (base.manifest.get(what + "s") or {}).items():
            found[(what, name)] = spec
    for key in base.origins:
        found.setdefault(key, _GONE)
    return {key: _Version(value, base.origins.get(key, base.pack_id), base_id, base) for key, value in found.items()}


def _join(bases, ancestry, conflict) -> dict[tuple[str, str], _Version]:
    """The three-way merge of the bases: the version taken of each name. A version whose origin extends
    the other's origin changed what the other base inherited unchanged, and is taken; two different
    versions neither of which derives from the other go to `conflict(position in extends, message)`,
    and the first stays."""
    held: dict[tuple[str, str], _Version] = {}
    for position, base_id, base in bases:
        for key, version in _versions(base, base_id).items():
            kept = held.get(key)
            if kept is None or (version.origin != kept.origin and kept.origin in ancestry.get(version.origin, ())):
                held[key] = version
            elif kept.compared() != version.compared() and version.origin not in ancestry.get(kept.origin, ()):
                conflict(position, _conflict(key, kept, version))
    return held


def _conflict(key: tuple[str, str], first: _Version, second: _Version) -> str:
    what, name = key
    label = f"`{name}`" if what == "document" else f"the {what} `{name}`"
    if _GONE in (first.value, second.value):
        remover, changer = (first, second) if first.value is _GONE else (second, first)
        return f"{remover.named()} removes {label}, which {changer.named()} changes"
    return f"{first.named()} and {second.named()} both change {label}, differently"


def compose(
    pack_id: str,
    manifest: dict | None,
    manifest_at: tuple[str, int] | None,
    own,
    bases: list[tuple[int, str, Effective]],
    add,
) -> Effective:
    """The effective pack of a pack whose own documents are `own` ((file, index, data), schema-valid,
    manifest excluded) and which extends `bases` ((position in `extends`, base id, Effective)).
    Problems go to `add(code, message, file, index, path, hint, at_key=...)`."""
    manifest = manifest or {}
    # where the problems of `extends` and `remove` are reported; no manifest (a pack without one, or `knap diff`
    # joining a variant's bases, which reports nothing) reports them nowhere in particular
    reported_at: tuple[str, int] = manifest_at or ("", 0)
    ancestry: dict[str, frozenset[str]] = {}
    for _, _, base in bases:
        ancestry.update(base.ancestry)
    ancestry[pack_id] = frozenset(
        name for _, _, base in bases for name in {base.pack_id} | base.ancestry.get(base.pack_id, frozenset())
    )
    held = _join(
        bases,
        ancestry,
        lambda position, message: add(
            "P006",
            message,
            *reported_at,
            ("extends", position),
            "extend only one of them, or change it in only one of them",
        ),
    )
    documents: list[tuple[str, int, dict]] = []
    position_of: dict[str, int] = {}  # inherited id -> its place in `documents`
    owner: dict[str, str] = {}  # inherited id -> the base that brought it
    layers: dict[tuple[str, int], list[Layer]] = {}
    for _, _, base in bases:
        layers.update(base.layers)
    parameters: dict = {}
    decks: dict = {}
    origins: dict[tuple[str, str], str] = {}
    for (what, name), version in held.items():
        origins[(what, name)] = version.origin
        value = version.value
        if value is _GONE:
            continue
        if what == "document":
            position_of[name] = len(documents)
            owner[name] = version.base_id
            documents.append(value)
            if value[:2] in version.base.layers:  # where the taken version's fields were written
                layers[value[:2]] = version.base.layers[value[:2]]
        elif what == "parameter":
            parameters[name] = value
        else:
            decks[name] = value
    settings: dict[str, tuple[str, object]] = {}  # setting -> (the base that gave it, its value)
    manifest_layers = [Layer(*manifest_at, (), manifest)] if manifest_at else []
    for position, base_id, base in bases:
        for name in SETTINGS:
            if name not in base.manifest:
                continue
            if name in settings and settings[name][1] != base.manifest[name] and name not in manifest:
                add(
                    "P006",
                    f"`{base_id}` and `{settings[name][0]}` set `{name}` differently",
                    *reported_at,
                    ("extends", position),
                    f"say `{name}:` in this pack, or extend only one of them",
                )
            settings.setdefault(name, (base_id, base.manifest[name]))
        if base.manifest_at:
            manifest_layers += base.layers.get(base.manifest_at, [Layer(*base.manifest_at, (), base.manifest)])

    def where(doc_id):
        file, _, data = documents[position_of[doc_id]]
        return f"{data['kind']} of `{owner[doc_id]}` ({file})"

    replaced: dict[str, tuple[str, int]] = {}
    patched: dict[str, tuple[str, int]] = {}
    patches = []
    refused: list[tuple[str, int, dict]] = []
    for file, index, data in own:
        kind = data["kind"]
        if kind == "patch":
            patches.append((file, index, data))
            continue
        doc_id = data.get("id")
        clean = {k: v for k, v in data.items() if k != "replace"}
        if doc_id not in position_of:
            if data.get("replace") is True:
                hint = suggest(doc_id, position_of) or "leave out `replace: true` to add it as a new document"
                add(
                    "P007",
                    f"`{doc_id}` replaces nothing: no pack this one extends defines it",
                    file,
                    index,
                    ("replace",),
                    hint,
                    at_key=True,
                )
                refused.append((file, index, clean))
            else:
                documents.append((file, index, clean))
                origins[("document", doc_id)] = pack_id
            continue
        if doc_id in replaced:
            continue  # a second definition in this pack: R002 says so
        if data.get("replace") is not True:
            add(
                "P006",
                f"`{doc_id}` is already a {where(doc_id)}",
                file,
                index,
                ("id",),
                "add `replace: true` to replace it, or choose another id",
            )
            continue
        inherited = documents[position_of[doc_id]][2]
        if inherited["kind"] != kind:
            add(
                "P006",
                f"`{doc_id}` is a {where(doc_id)}; a {kind} cannot replace it",
                file,
                index,
                ("kind",),
                f"make this a {inherited['kind']}, or choose another id",
            )
            continue
        replaced[doc_id] = (file, index)
        documents[position_of[doc_id]] = (file, index, clean)
        origins[("document", doc_id)] = pack_id
    for file, index, data in patches:
        target = data["target"]
        if target not in position_of:
            hint = suggest(target, position_of) or (
                "a patch changes a document of a pack this one extends"
                if bases
                else "add `extends:` to pack.yaml: only inherited documents can be patched"
            )
            add(
                "P007",
                f"the patch targets `{target}`, which no pack this one extends defines",
                file,
                index,
                ("target",),
                hint,
            )
            continue
        if target in replaced or target in patched:
            first = replaced.get(target) or patched[target]
            add(
                "P006",
                f"`{target}` is already {'replaced' if target in replaced else 'patched'} by this pack ({first[0]})",
                file,
                index,
                ("target",),
                "make all the changes to one document in one place",
            )
            continue
        base_file, base_index, inherited = documents[position_of[target]]
        changed = merge_patch(inherited, data["changes"])
        problems = schema_check.validate(changed, file, index)
        if problems:
            for problem in problems:
                path = tuple(problem.path or ())
                at = ("changes",) + path if _has(data["changes"], path) else ("changes",)
                add(
                    problem.code,
                    f"after this patch, {problem.message}",
                    file,
                    index,
                    at,
                    problem.hint,
                    at_key=problem.at_key and at != ("changes",),
                )
            continue
        patched[target] = (file, index)
        documents[position_of[target]] = (base_file, base_index, changed)
        origins[("document", target)] = pack_id
        layers[(base_file, base_index)] = [Layer(file, index, ("changes",), data["changes"])] + layers.get(
            (base_file, base_index), []
        )
    removed = set()
    for doc_id in manifest.get("remove") or {}:
        if doc_id in parameters and doc_id not in (manifest.get("parameters") or {}):
            del parameters[doc_id]  # an inherited parameter the variant does without
            origins[("parameter", doc_id)] = pack_id
            continue
        if doc_id not in position_of:
            own_ids = {d.get("id") for _, _, d in own}
            hint = (
                "delete its document instead: it is this pack's own"
                if doc_id in own_ids
                else suggest(doc_id, position_of)
            )
            add(
                "P007",
                f"`{doc_id}` cannot be removed: no pack this one extends defines it",
                *reported_at,
                ("remove", doc_id),
                hint,
                at_key=True,
            )
        elif doc_id in replaced or doc_id in patched:
            add(
                "P006",
                f"`{doc_id}` is removed, and also {'replaced' if doc_id in replaced else 'patched'} by this pack",
                *reported_at,
                ("remove", doc_id),
                "keep one of the two",
                at_key=True,
            )
        else:
            removed.add(position_of[doc_id])
            origins[("document", doc_id)] = pack_id
    effective = {k: v for k, v in manifest.items() if k != "remove"}
    for name, spec in (manifest.get("parameters") or {}).items():
        parameters[name] = override_parameter(parameters[name], spec) if name in parameters else spec
        origins[("parameter", name)] = pack_id
    if parameters:
        effective["parameters"] = parameters
    merged_decks = merge_patch(decks, manifest.get("decks") or {})
    if merged_decks:
        effective["decks"] = merged_decks
    origins.update({("deck", name): pack_id for name in manifest.get("decks") or {}})
    for name, (_, value) in settings.items():
        effective.setdefault(name, copy.deepcopy(value))
    for name in CARD_FIELDS:  # names of fields cards may print: the bases' and the pack's own, together
        joined = [n for _, _, base in bases for n in base.manifest.get(name) or ()] + list(manifest.get(name) or ())
        if joined:
            effective[name] = list(dict.fromkeys(joined))
    if manifest_at:
        layers[manifest_at] = manifest_layers
    kept = [doc for n, doc in enumerate(documents) if n not in removed]
    removals = dict(manifest.get("remove") or {})
    return Effective(
        pack_id,
        effective,
        manifest_at,
        kept,
        layers,
        [b for _, b, _ in bases],
        removals,
        refused,
        origins,
        ancestry,
    )
