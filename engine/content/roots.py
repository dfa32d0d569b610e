"""Where a pack begins: the folder that holds its manifest. Below every other module of content/, so that
reading a file (yamlload) and finding packs (packs, pack_search) can both ask it."""

from __future__ import annotations

import os
from pathlib import Path

from engine.files.confine import Root

MANIFEST = "pack.yaml"


def pack_root_of(path: Path) -> Path | None:
    """The pack folder `path` lies in (the nearest folder above it with a manifest), or None."""
    for parent in [path.parent, *path.parent.parents]:
        if (parent / MANIFEST).is_file():
            return parent
    return None


def read_root(path) -> Root:
    """The root a file is read under when no caller said: its pack's folder, else its own folder."""
    absolute = os.path.abspath(path)
    pack = pack_root_of(Path(absolute))
    return Root(pack if pack is not None else os.path.dirname(absolute))
