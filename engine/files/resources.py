"""Where the built-in packs, schemas and grammar live: beside `engine/` in a checkout, inside the
package (`engine/_bundled/`) when installed from a wheel."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_ENGINE = Path(__file__).resolve().parent.parent  # the `engine` package


@cache
def root(name: str) -> Path:
    """The folder `content`, `schemas` or `grammar`."""
    bundled = _ENGINE / "_bundled" / name
    if bundled.is_dir():
        return bundled
    return _ENGINE.parent / name


@cache
def read_text(folder: str, filename: str) -> str:
    return (root(folder) / filename).read_text(encoding="utf-8")


def builtin_pack(pack_id: str) -> Path | None:
    """The built-in pack `pack_id` (`-` and `_` alike); an id that is not a pack id (a path) finds nothing."""
    from engine.content.pack_search import pack_in

    return pack_in(root("content"), pack_id)
