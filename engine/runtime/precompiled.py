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

import builtins
import functools
import hashlib
import os
import random
import symtable
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import PURE_PYTHON

CHUNKS = 4  # modules the factories are split into: compiled side by side, each small enough for the C compiler
MODULE_PREFIX = "_effects_"  # engine/runtime/_effects_0 ... : only ever built, never in the source tree
GAMES_PER_SEATING = 2  # random games played per pack and number of players to gather the texts a game runs
SOURCE_BUDGET = 1_000_000  # characters of generated source compiled: the hottest texts first (`hottest`)

_gathered: dict | None = None  # while gathering: the code object of each function defined -> its text


@functools.lru_cache(maxsize=1)
def factories() -> dict[bytes, Callable]:
    """Digest of a text -> its compiled factory; empty in a checkout, a pure-Python wheel or under KNAPPER_PURE_PYTHON."""
    if os.environ.get(PURE_PYTHON):
        return {}
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
    factory = factories().get(digest(source)) if factories() and _gathered is None else None
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


# ---------------------------------------------------------------- at build time
def gather(content: Path) -> dict[str, float]:
    """Each text of generated code the packs under `content` define in a few random games of each seating, and the
    largest share of one pack's calls of generated code it took (Python's profile hook counting the calls of each
    text's function: run with the source, pure). Shares, not counts: a pack of short games counts as much as any."""
    global _gathered
    from . import rules as rules_module
    from .game import Game
    from .session import play_randomly

    _gathered = {}
    texts_of = _gathered
    calls: Counter = Counter()

    def count(frame, event, arg):
        if event == "call":
            text = texts_of.get(frame.f_code)
            if text is not None:
                calls[text] += 1

    share: dict[str, float] = {}
    try:
        for pack in sorted(p for p in content.iterdir() if (p / "pack.yaml").is_file()):
            rules = rules_module.load(pack)
            low, high = rules.players
            calls.clear()
            sys.setprofile(count)
            for players in range(low, high + 1):
                for seed in range(GAMES_PER_SEATING):
                    play_randomly(Game.new(rules, players, seed), random.Random(seed))
            sys.setprofile(None)
            total = sum(calls.values()) or 1
            for text, n in calls.items():
                share[text] = max(share.get(text, 0.0), n / total)
    finally:
        sys.setprofile(None)
        _gathered = None
    return {text: share.get(text, 0.0) for text in texts_of.values()}


def hottest(calls: dict[str, float], budget: int = SOURCE_BUDGET) -> list[str]:
    """The texts run most often (`gather`'s shares), as many as fit in `budget` characters: what compiling pays for
    most, in a build that stays a few minutes long (every text of every pack would take the C compiler half an hour)."""
    chosen, size = [], 0
    for text in sorted(calls, key=lambda t: (-calls[t], t)):
        if calls[text] == 0 or size + len(text) > budget:
            continue
        chosen.append(text)
        size += len(text)
    return sorted(chosen)


def factory_modules(texts: list[str]) -> list[str]:
    """The source of the `CHUNKS` modules of factories for `texts`, for Cython to compile."""
    chunks: list[list[str]] = [[] for _ in range(CHUNKS)]
    for number, source in enumerate(texts):
        lines = _factory(number, source)
        if lines:
            chunks[number % CHUNKS].extend(lines)
    head = [
        '"""Generated by engine/runtime/precompiled.py when the wheel is built: do not edit."""',
        "",
        "TABLE = {}",
        "",
    ]
    return ["\n".join(head + lines) + "\n" for lines in chunks]


def _factory(number: int, source: str) -> list[str]:
    """A factory for one text: its globals bound from the namespace, then the text itself; none for a text that does
    not define exactly one name."""
    top = symtable.symtable(source, "<generated>", "exec")
    defined = [s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_namespace()]
    if len(defined) != 1 or [s.get_name() for s in top.get_symbols()] != defined:
        return []
    name = defined[0]
    read = sorted(_globals_read(top) - {name})
    shadowable = [word for word in read if hasattr(builtins, word)]
    lines = [f"def _f{number}(ns):"]
    if shadowable:  # a namespace holding a builtin's name would change what the text reads: Python runs it then
        lines.append(f"    if not ns.keys().isdisjoint({tuple(shadowable)!r}):")
        lines.append("        return None")
    bound = [word for word in read if word not in shadowable]
    if bound:
        lines.append("    try:")
        lines.extend(f"        {word} = ns[{word!r}]" for word in bound)
        lines.append("    except KeyError:")
        lines.append("        return None")
    lines.extend(f"    {line}" if line else "" for line in source.rstrip("\n").split("\n"))
    lines.append(f"    return {name}")
    lines.append(f"TABLE[{digest(source)!r}] = _f{number}")
    lines.append("")
    return lines


def _globals_read(table: symtable.SymbolTable) -> set[str]:
    names: set[str] = set()
    for child in table.get_children():
        names.update(s.get_name() for s in child.get_symbols() if s.is_global() and s.is_referenced())
        names |= _globals_read(child)
    return names


def write_factories(content: Path, tree: Path) -> list[Path]:
    """The factory modules of the hottest texts of the packs under `content`, written under `tree` as the runtime's
    package (`engine/runtime/_effects_N.py`): what the wheel's build hook compiles."""
    package = tree / "engine" / "runtime"
    package.mkdir(parents=True, exist_ok=True)
    written = []
    for chunk, text in enumerate(factory_modules(hottest(gather(content)))):
        path = package / f"{MODULE_PREFIX}{chunk}.py"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
