"""The shipped packs' generated code, compiled to C when the wheel is built (hatch_build.py).

A pack's expressions and effects become Python source when it loads (codegen.py, lowering.py, exists.py): the same
text at every load. When the wheel is built, the texts of every pack under content/ are gathered by playing a few
random games, and Cython compiles each one into a factory: `factory(namespace)` reads from the namespace the names the
text reads as globals, and returns the function the text defines, those names bound as its closure. At load time a
text whose digest is in the factories' table runs compiled; any other text (a modder's pack, an edited card) is
compiled by Python as before. The table answers only for the exact text, so a compiled function does what its text
says: the same work charged, the same errors, the same games (tests/test_precompiled.py). The code is the wheel's own,
built from the packs it ships: nothing a pack, a save or a cache holds is ever loaded as code.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from typing import Any

from . import PURE_PYTHON

CHUNKS = 4  # modules the factories are split into: compiled side by side, each small enough for the C compiler
MODULE_PREFIX = "_effects_"  # engine/runtime/_effects_0 ... : only ever built, never in the source tree

_gathered: dict | None = None  # while the build gathers texts (effects_build.py): each function's code -> its text


def factories() -> dict[bytes, Callable]:
    """Digest of a text -> its compiled factory; empty in a checkout, a pure-Python wheel or under KNAPPER_PURE_PYTHON
    (asked at every load: a process may set it after a first load)."""
    if os.environ.get(PURE_PYTHON):
        return {}
    return _compiled_factories()


@functools.lru_cache(maxsize=1)
def _compiled_factories() -> dict[bytes, Callable]:
    table: dict[bytes, Callable] = {}
    for chunk in range(CHUNKS):
        try:
            module = __import__(f"{__package__}.{MODULE_PREFIX}{chunk}", fromlist=["TABLE"])
        except ImportError:
            continue
        table.update(module.TABLE)
    return table


def define(source: str, filename: str, namespace: dict, name: str, compiled: Callable) -> Any:
    """The function named `name` that `source` defines in `namespace`: compiled C when the wheel holds this very text,
    else `source` compiled by `compiled` and run in `namespace`. Either way `namespace[name]` is that function."""
    table = factories()
    factory = table.get(digest(source)) if table and _gathered is None else None
    if factory is not None:
        function = factory(namespace)  # None: the namespace lacks a name or shadows a builtin the text reads
        if function is not None:
            function.generated_globals = namespace
            namespace[name] = function
            return function
    exec(compiled(source, filename), namespace)  # noqa: S102 -- generated; content only via repr
    function = namespace[name]
    if _gathered is not None:
        _gathered.setdefault(function.__code__, source)
    return function


def namespace_of(function) -> dict | None:
    """The namespace generated code reads its names from, compiled or not."""
    held = getattr(function, "generated_globals", None)
    return held if held is not None else getattr(function, "__globals__", None)


def digest(source: str) -> bytes:
    return hashlib.sha256(source.encode()).digest()
