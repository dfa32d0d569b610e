"""A pack and the packs it extends, as bytes: hashed into a run's record (a resume on a changed pack is refused) and
shipped to workers that do not have the caller's files (a Ray cluster), which lay them out in a folder of their own
and load the pack from there.

The packs are laid out side by side, each under its folder's name, which is how a pack finds the packs it extends
first (`extends: [base_game]` finds a sibling folder `base-game`: pack_search.find_base), so the copy loads the
same packs the original did. Only each pack's own YAML files travel (content.packs.pack_files: no nested packs),
read through the pack's confinement (a link out of a pack is never followed).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from engine.content.packs import display, find_pack, pack_files
from engine.content.roots import MANIFEST
from engine.content.yamlload import MAX_FILE_BYTES, load_file, read_regular
from engine.files.confine import Root


class BundleError(Exception):
    """The pack's files cannot be gathered; the message says which and why, in one line."""


@dataclass(frozen=True)
class Bundle:
    top: str  # the folder name the pack itself is laid out under
    files: tuple[tuple[str, bytes], ...]  # ("folder/relative/path.yaml", bytes), sorted
    digest: str  # "sha256:..." of the files: what a run's record compares
    # folder name -> the folder as the caller's diagnostics show it (content.packs.display): error texts from a copy
    # name the caller's files
    shown: dict[str, str] = field(default_factory=dict, compare=False)
    root: str = field(default="", compare=False)  # the pack's folder as the caller named it (a game log's pack_path)

    def unpack(self, into: Path) -> Path:
        """Write the files under `into` (an empty folder of the caller's); returns the pack's own folder there. A name
        that is absolute or climbs out of `into` is refused before anything is written: a bundle comes from another
        process (a Ray driver), and a worker writes only inside its own folder."""
        inside = Root(into)
        for name, _ in self.files:
            if not inside.contains(os.path.realpath(into / name)):
                raise BundleError(f"the shipped file `{name}` would be written outside the pack's folder: refused")
        for name, data in self.files:
            path = into / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return into / self.top


def gather(root: Path) -> Bundle:
    """The bundle of the pack at `root` (as the caller loaded it) and of the packs it extends, all the way down.
    Raises BundleError when a file cannot be read or two packs of the chain share a folder name."""
    folders: dict[str, Path] = {}  # name -> folder, the pack first
    queue = [Path(root)]
    seen: set[str] = set()
    while queue:
        folder = queue.pop(0)
        real = os.path.realpath(folder)
        if real in seen:
            continue
        seen.add(real)
        name = Path(real).name
        if name in folders:
            raise BundleError(
                f"the packs at {display(folders[name])} and {display(folder)} have the same folder name `{name}`; "
                "rename one to play this pack on workers that load it from a copy"
            )
        folders[name] = folder
        for base_id in _extends(folder):
            base = find_pack(base_id, folder)
            if base is not None:  # a base not found is the loader's error, reported before any run starts
                queue.append(base)
    files = []
    for name, folder in folders.items():
        confined = Root(folder)
        for path in pack_files(folder):
            data = read_regular(str(path), confined)
            if data is None or len(data) > MAX_FILE_BYTES:
                raise BundleError(f"cannot read {display(path)} as a regular file of its pack")
            files.append((f"{name}/{path.relative_to(folder).as_posix()}", data))
    files.sort()
    top = Path(os.path.realpath(root)).name
    digest = hashlib.sha256()
    for name, data in files:
        owner, _, rest = name.partition("/")
        named = rest if owner == top else name  # the pack's own folder may be renamed; its bases are found by name
        digest.update(f"{named}\0{len(data)}\0".encode())
        digest.update(data)
    return Bundle(
        top,
        tuple(files),
        f"sha256:{digest.hexdigest()}",
        {name: display(folder) for name, folder in folders.items()},
        str(root),
    )


def _extends(folder: Path) -> list[str]:
    """The ids the manifest at `folder` extends (what the loader reads; a broken manifest is its to report)."""
    for doc in load_file(display(folder / MANIFEST)).documents:
        if doc.data.get("kind") == "pack":
            extends = doc.data.get("extends")
            return [x for x in extends if isinstance(x, str)] if isinstance(extends, list) else []
    return []
