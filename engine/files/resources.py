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
