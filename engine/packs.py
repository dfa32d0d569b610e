"""Finding packs: which folders are packs, which YAML files belong to which pack."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from . import resources

MANIFEST = "pack.yaml"
YAML_SUFFIXES = (".yaml", ".yml")
_SKIP_DIRS = {".git", "node_modules", ".knap_cache", "__pycache__", ".venv", "venv"}


@dataclass
class PackFiles:
    root: Path
    files: list[Path] = field(default_factory=list)   # the manifest first, then the rest sorted

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST


def _yaml_files(folder: Path, *, own_only: bool = False) -> list[Path]:
    """YAML files under `folder`; with `own_only`, not those of packs nested inside it."""
    found = []
    for current, dirs, files in os.walk(folder):
        here = Path(current)
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith(".")
                         and not (own_only and (here / d / MANIFEST).is_file()))
        found.extend(here / f for f in sorted(files) if f.endswith(YAML_SUFFIXES) and not f.startswith("."))
    return found


def pack_root_of(path: Path) -> Path | None:
    for parent in [path.parent, *path.parent.parents]:
        if (parent / MANIFEST).is_file():
            return parent
    return None


def resolve_target(target: str) -> Path | None:
    """A path as given, or the id of a built-in pack (`my-game` or `my_game`)."""
    path = Path(target)
    return path if path.exists() else _builtin(target)


def _builtin(pack_id: str) -> Path | None:
    """A built-in pack by id, `-` and `_` alike."""
    for candidate in (pack_id, pack_id.replace("_", "-"), pack_id.replace("-", "_")):
        builtin = resources.builtin_pack(candidate)
        if builtin is not None:
            return builtin
    return None


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
    """The folder of the pack `pack_id`: a sibling of `near` (by folder name, `-` and `_` alike), else a
    built-in pack. Packs never reach outside their packs root."""
    wanted = pack_id.replace("-", "_")
    for sibling in sorted(near.parent.iterdir()) if near.parent.is_dir() else []:
        if sibling.name.replace("-", "_") == wanted and (sibling / MANIFEST).is_file():
            return sibling.resolve()
    builtin = _builtin(pack_id)
    return builtin.resolve() if builtin is not None else None


def discover(paths: list[Path]) -> tuple[list[PackFiles], list[Path], set[Path] | None]:
    """Packs touched by `paths`, YAML files outside any pack, and — when only files were named —
    the set of files whose diagnostics should be shown (None: show all). A named file is linted
    with its whole pack, since references cross files. Each folder is walked once."""
    members: dict[Path, list[Path]] = {}
    loose: set[Path] = set()
    named: set[Path] = set()
    any_folder = False
    for path in paths:
        path = path.resolve()
        if path.is_dir():
            any_folder = True
            files = _yaml_files(path)
            roots = {f.parent for f in files if f.name == MANIFEST}
            enclosing = None if path in roots else pack_root_of(path / MANIFEST)
            if enclosing is not None:   # a folder inside a pack: lint the whole pack
                members.setdefault(enclosing, pack_files(enclosing))
            for f in files:
                root = _deepest_root(f, roots)
                if root is not None:
                    members.setdefault(root, []).append(f)
                elif enclosing is None:
                    loose.add(f)
        else:
            named.add(path)
            root = pack_root_of(path)
            if root is None:
                loose.add(path)
            elif root not in members:
                members[root] = pack_files(root)
    packs = []
    for root in sorted(members):
        packs.append(PackFiles(root, pack_order(root, members[root])))
    only = None if any_folder or not named else named
    return packs, sorted(loose), only


def display(path) -> str:
    """A path as shown in diagnostics: relative to the working folder when inside it."""
    path = str(path)
    here = _CWD[0] if _CWD and _CWD[1] == os.getcwd() else _remember_cwd()
    if path.startswith(here):
        return path[len(here):]
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
    from .yamlload import load_file
    found = []
    for path in pack_files(root):
        loaded = load_file(display(path))
        found.extend((loaded.path, doc.index, doc.data) for doc in loaded.documents)
    return found


def pack_cards(root: Path) -> dict[str, dict]:
    """The card documents of a pack by id (the first one when an id repeats)."""
    cards = {}
    for _, _, data in pack_documents(root):
        if data.get("kind") == "card" and isinstance(data.get("id"), str):
            cards.setdefault(data["id"], data)
    return cards
