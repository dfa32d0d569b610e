"""Finding packs: which folders are packs, which YAML files belong to which pack."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from engine.files import confine, resources

from . import pack_search
from .roots import MANIFEST, pack_root_of
from .yamlload import load_file, read_regular

YAML_SUFFIXES = (".yaml", ".yml")
_SKIP_DIRS = {".git", "node_modules", ".knap_cache", "__pycache__", ".venv", "venv"}


@dataclass
class PackFiles:
    root: Path
    files: list[Path] = field(default_factory=list)  # the manifest first, then the rest sorted

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST


def _yaml_files(folder: Path, *, own_only: bool = False, _seen: set[str] | None = None) -> list[Path]:
    """YAML files under `folder`; with `own_only`, not those of packs nested inside it.

    Links are never walked out of a pack (confine.py reads every file): a file link is listed, and
    reading it checks where it leads; a folder link leading out of its pack is listed as it is, so that
    lint reports it (P009) without reading it; one that stays inside leads to files the walk reaches
    under their own names. A folder link to a pack folder is walked (unless `own_only`) only when it
    stays inside `folder`: the same rule as looking a pack up by id (pack_search.pack_in). A pack
    folder named on the command line may itself be a link: that is the user's own word."""
    seen = _seen if _seen is not None else {os.path.realpath(folder)}
    found = []
    pack_of: dict[str, str | None] = {}  # folder -> the root of the pack it is in
    top = str(folder)
    for current, dirs, files in os.walk(folder):
        here = Path(current)
        if os.path.isfile(os.path.join(current, MANIFEST)):
            pack_of[current] = current
            seen.add(os.path.realpath(current))  # a link back to a pack walked already is not walked again
        elif current == top:
            enclosing = None if own_only else pack_root_of(folder / MANIFEST)
            pack_of[current] = top if own_only else (str(enclosing) if enclosing is not None else None)
        else:
            pack_of[current] = pack_of.get(os.path.dirname(current))
        kept = []
        for name in sorted(dirs):
            path = here / name
            if name in _SKIP_DIRS or name.startswith("."):
                continue
            is_pack = (path / MANIFEST).is_file()
            if own_only and is_pack:
                continue
            if not os.path.islink(path):
                kept.append(name)
            elif is_pack:
                real = os.path.realpath(path)
                if not confine.Root(top).contains(real):
                    found.append(path)  # a pack linked in from outside the folder given: P009, unread
                elif real not in seen:
                    seen.add(real)
                    found.extend(_yaml_files(path, _seen=seen))
            elif pack_of[current] is not None and not confine.Root(pack_of[current]).contains(os.path.realpath(path)):
                found.append(path)
        dirs[:] = kept
        found.extend(here / f for f in sorted(files) if f.endswith(YAML_SUFFIXES) and not f.startswith("."))
    return found


def resolve_target(target: str) -> Path | None:
    """A path as given, else a pack id looked up where the user works, then among the built-in packs
    (pack_search.py; `my-game` and `my_game` alike)."""
    path = Path(target)
    if path.exists():
        return path

    return pack_search.lookup(target)


def pack_files(root: Path) -> list[Path]:
    """The YAML files of one pack (its folder, less any nested pack folders), in pack order."""
    return pack_order(root, _yaml_files(root, own_only=True))


def pack_order(root: Path, files) -> list[Path]:
    """The one order of a pack's files everywhere (lint, the runtime): the manifest first, then by path."""
    return sorted(set(files), key=lambda f: (f != root / MANIFEST, str(f)))


def _deepest_root(path: Path, roots: set[Path]) -> Path | None:
    for parent in path.parents:
        if parent in roots:
            return parent
    return None


def find_pack(pack_id: str, near: Path) -> Path | None:
    """The folder of the pack an `extends` entry of the pack at `near` names: a sibling folder (by name,
    `-` and `_` alike), else the first pack root that has it (pack_search.py). An entry that is not a
    pack id (a path) finds nothing: packs never reach outside the roots knap was given."""
    return pack_search.find_base(pack_id, near)


_CONTENT_MARK = re.compile(
    rb"^kind[ \t]*:|^#[ \t]*yaml-language-server:[ \t]*\$schema=\S*?([a-z_]+)\.schema\.json", re.MULTILINE
)


def looks_like_content(path: Path) -> bool:
    """Whether a YAML file outside any pack is meant as Knapper content (so P001 applies): a top-level
    `kind:` key, or an editor modeline naming one of Knapper's schemas. Anything else (CI configs, the
    pre-commit config) is not Knapper's business. A file that cannot be read counts as content."""
    raw = read_regular(str(path))
    if raw is None:
        return True
    schemas = {p.name.removesuffix(".schema.json") for p in resources.root("schemas").glob("*.schema.json")}
    return any(m.group(1) is None or m.group(1).decode() in schemas for m in _CONTENT_MARK.finditer(raw))


def discover(paths: list[Path]) -> tuple[list[PackFiles], list[Path]]:
    """Packs touched by `paths` and the YAML files outside any pack that look like content. A named file
    stands for its whole pack: references cross files, and a change in one file (a `decks:` entry deleted
    from pack.yaml) can break another. Each folder is walked once."""
    members: dict[Path, list[Path]] = {}
    loose: set[Path] = set()
    for path in paths:
        # a named file that is a link stays the link: reading it checks where it leads (confine.py)
        path = path.resolve() if path.is_dir() else path.parent.resolve() / path.name
        if path.is_dir():
            files = _yaml_files(path)
            roots = {f.parent for f in files if f.name == MANIFEST}
            enclosing = None if path in roots else pack_root_of(path / MANIFEST)
            if enclosing is not None:  # a folder inside a pack: lint the whole pack
                members.setdefault(enclosing, pack_files(enclosing))
            for f in files:
                root = _deepest_root(f, roots)
                if root is not None:
                    members.setdefault(root, []).append(f)
                elif enclosing is None:
                    loose.add(f)
        else:
            root = pack_root_of(path)
            if root is None:
                loose.add(path)
            elif root not in members:
                members[root] = pack_files(root)
    packs = []
    for root in sorted(members):
        packs.append(PackFiles(root, pack_order(root, members[root])))
    return packs, sorted(f for f in loose if looks_like_content(f))


def display(path) -> str:
    """A path as shown in diagnostics: relative to the working folder when inside it."""
    path = str(path)
    here = _CWD[0] if _CWD and _CWD[1] == os.getcwd() else _remember_cwd()
    if path.startswith(here):
        return path[len(here) :]
    if not os.path.isabs(path):
        return path
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


_CWD: list[str] = []


def _remember_cwd() -> str:
    cwd = os.getcwd()
    _CWD[:] = [cwd.rstrip(os.sep) + os.sep, cwd]
    return _CWD[0]


def pack_documents(root: Path) -> list[tuple[str, int, dict]]:
    """Every mapping document of the pack at `root`, as (file, index, data); broken files contribute nothing."""
    found: list[tuple[str, int, dict]] = []
    for path in pack_files(root):
        loaded = load_file(display(path))
        found.extend((loaded.path, doc.index, doc.data) for doc in loaded.documents)
    return found


def pack_cards(root: Path) -> dict[str, dict]:
    """The card documents of a pack by id (the first one when an id repeats)."""
    cards: dict[str, dict] = {}
    for _, _, data in pack_documents(root):
        if data.get("kind") == "card" and isinstance(data.get("id"), str):
            cards.setdefault(data["id"], data)
    return cards


def pack_summary(root: Path) -> dict:
    """A pack's name and players (a variant's from the packs it extends) from the manifests alone."""

    def manifest_of(folder: Path) -> dict:
        docs = load_file(display(folder / MANIFEST)).documents
        return next((d.data for d in docs if d.data.get("kind") == "pack"), {})

    manifest = manifest_of(root)
    name = manifest.get("name") if isinstance(manifest.get("name"), str) else None
    seen, queue, players = {root.resolve()}, [(root, manifest)], None
    while queue and players is None:
        folder, data = queue.pop(0)
        given = data.get("players")
        if isinstance(given, dict) and all(isinstance(given.get(k), int) for k in ("min", "max")):
            players = [given["min"], given["max"]]
            break
        extends = data.get("extends")
        for base_id in extends if isinstance(extends, list) else []:
            base = find_pack(base_id, folder)
            if base is not None and base not in seen:
                seen.add(base)
                queue.append((base, manifest_of(base)))
    return {"name": name, "players": players}
