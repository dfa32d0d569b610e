"""Where a pack id is looked up: where the user works first, then the built-in packs.

The pack roots, in order: the project's `content/` (the project is the folder of the nearest
pyproject.toml, else the working folder), the folders of `KNAP_PACKS` (os.pathsep-separated), the folders
of `[tool.knap] packs = [...]` in that pyproject.toml (relative to it), then the built-in packs. A root is a
folder of pack folders, or a pack folder itself. A pack id is never a path: it names a folder directly
inside a root, and a folder that is a link leading out of its root is not a pack. Every command that takes
a pack id and every `extends` entry (after the siblings of the pack that extends) use this one lookup.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from engine.files import resources
from engine.suggestions import suggest

from .roots import MANIFEST

# the form of an `extends` entry in schemas/pack.schema.json: an id, `-` and `_` alike
PACK_ID = re.compile(r"[a-z][a-z0-9_-]{0,63}")


class SearchPathError(Exception):
    """A folder named in KNAP_PACKS or `[tool.knap] packs` that is not there: a usage error."""


@dataclass(frozen=True)
class Root:
    folder: Path  # resolved
    origin: str  # "project", "KNAP_PACKS", "config" or "built-in"


@dataclass
class Found:
    """A pack folder in a root, as `knap list` shows it."""

    id: str  # its folder name: what one types
    folder: Path
    origin: str
    used: bool = True  # False: an earlier root has a pack with the same id
    hidden_by: str | None = None  # the origin of the one used instead


def is_pack_id(text) -> bool:
    return isinstance(text, str) and PACK_ID.fullmatch(text) is not None


def _same_id(a: str, b: str) -> bool:
    return a.replace("-", "_") == b.replace("-", "_")


def project_file() -> Path | None:
    """The nearest pyproject.toml above the working folder."""
    here = Path.cwd()
    for folder in [here, *here.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def project_folder() -> Path:
    found = project_file()
    return found.parent if found is not None else Path.cwd()


def _position(text: str, needle: str) -> tuple[int, int]:
    """Line and column of the first `needle` in `text` (1, 1 when absent): where a config value is written."""
    at = text.find(needle)
    if at < 0:
        return 1, 1
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def _config_folders(pyproject: Path) -> list[Path]:
    """The folders of `[tool.knap] packs`; a value that is not a list of existing folders is an error."""
    try:
        text = pyproject.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []  # `knap lint` reads the same file for its settings; a broken one is not ours to report
    tool = data.get("tool", {}).get("knap", {})
    if not isinstance(tool, dict) or "packs" not in tool:
        return []
    shown = os.path.relpath(pyproject) if pyproject.is_relative_to(Path.cwd()) else str(pyproject)
    entries = tool["packs"]
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        line, col = _position(text, "packs")
        raise SearchPathError(
            f'{shown}:{line}:{col}: `[tool.knap] packs` must be a list of folders, like `packs = ["packs"]`'
        )
    folders = []
    for entry in entries:
        folder = (pyproject.parent / entry).resolve()
        if not folder.is_dir():
            line, col = _position(text, f"'{entry}'") if f"'{entry}'" in text else _position(text, f'"{entry}"')
            raise SearchPathError(
                f"{shown}:{line}:{col}: `[tool.knap] packs` names `{entry}`, which is not a "
                f"folder ({folder}); create it or remove it from the list"
            )
        folders.append(folder)
    return folders


def _env_folders() -> list[Path]:
    folders = []
    for entry in os.environ.get("KNAP_PACKS", "").split(os.pathsep):
        if not entry.strip():
            continue
        folder = Path(entry).expanduser().resolve()
        if not folder.is_dir():
            raise SearchPathError(
                f"KNAP_PACKS names `{entry}`, which is not a folder; fix or unset the environment variable KNAP_PACKS"
            )
        folders.append(folder)
    return folders


def search_roots(strict: bool = True) -> list[Root]:
    """The pack roots in lookup order, each folder once (under its first origin). With `strict`, a
    configured folder that is missing raises SearchPathError; without, it is skipped."""
    roots: list[Root] = []

    def add(folder: Path, origin: str):
        if folder.is_dir() and all(r.folder != folder for r in roots):
            roots.append(Root(folder, origin))

    add((project_folder() / "content").resolve(), "project")
    for origin, folders in (("KNAP_PACKS", _env_folders), ("config", _configured)):
        try:
            for folder in folders():
                add(folder, origin)
        except SearchPathError:
            if strict:
                raise
    add(resources.root("content").resolve(), "built-in")
    return roots


def _configured() -> list[Path]:
    pyproject = project_file()
    return _config_folders(pyproject) if pyproject is not None else []


def pack_in(folder: Path, pack_id: str) -> Path | None:
    """The pack `pack_id` directly inside `folder` (or `folder` itself, when it is that pack), or None.
    The id is never a path, and a link out of `folder` is not followed."""
    if not is_pack_id(pack_id):
        return None
    folder = folder.resolve()
    if _same_id(folder.name, pack_id) and (folder / MANIFEST).is_file():
        return folder
    for name in dict.fromkeys((pack_id, pack_id.replace("_", "-"), pack_id.replace("-", "_"))):
        candidate = folder / name
        if (candidate / MANIFEST).is_file():
            resolved = candidate.resolve()
            if resolved.parent == folder:
                return resolved
    return None


def lookup(pack_id: str, strict: bool = False) -> Path | None:
    """The folder of the pack `pack_id` in the first root that has it."""
    if not is_pack_id(pack_id):
        return None
    for root in search_roots(strict):
        found = pack_in(root.folder, pack_id)
        if found is not None:
            return found
    return None


def find_base(pack_id: str, near: Path) -> Path | None:
    """The pack an `extends` entry of the pack at `near` names: a sibling folder, else the lookup."""
    if not is_pack_id(pack_id):
        return None
    return pack_in(near.resolve().parent, pack_id) or lookup(pack_id)


def known_packs(strict: bool = True) -> list[Found]:
    """Every pack folder of every root, in lookup order; `used` is False for one an earlier root hides."""
    found: list[Found] = []
    first: dict[str, Found] = {}
    for root in search_roots(strict):
        if (root.folder / MANIFEST).is_file():
            candidates = [root.folder]
        else:
            try:
                names = sorted(p.name for p in root.folder.iterdir() if is_pack_id(p.name))
            except OSError:
                names = []  # an unreadable folder holds no pack we can use
            candidates = [
                folder for name in names if (folder := pack_in(root.folder, name)) is not None and folder.name == name
            ]
        for folder in candidates:
            entry = Found(folder.name, folder, root.origin)
            winner = first.setdefault(entry.id.replace("-", "_"), entry)
            if winner is not entry:
                entry.used, entry.hidden_by = False, winner.origin
            found.append(entry)
    return found


def unknown_message(target: str) -> str:
    """Why `target` names no pack, with the known ids and the nearest one."""
    if not is_pack_id(target):
        return f"`{target}` is not a pack folder or a pack id: no such file or folder"
    try:
        ids = sorted({f.id for f in known_packs(strict=False) if f.used})
    except OSError:
        ids = []
    close = suggest(target, ids)
    message = f"`{target}` is neither a file, a folder nor a known pack id" + (f"; {close}" if close else ".")
    return message + (
        f" Known packs: {', '.join(ids)} (`knap list` shows where each comes from)"
        if ids
        else " No packs were found (`knap list` shows where knap looks)"
    )


def builtin_pack(pack_id: str) -> Path | None:
    """The built-in pack `pack_id` (`-` and `_` alike); an id that is not a pack id (a path) finds nothing."""
    return pack_in(resources.root("content"), pack_id)
