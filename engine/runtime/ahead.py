"""Effect code compiled ahead of time: the generated functions that the shipped packs run most, compiled by Cython into
the wheel, used wherever a pack generates the very same source.

lowering.py and codegen.py write Python source for each effect and pack function and run it in a namespace of its
helpers (DESIGN §6: the hot path is plain Python). A wheel's build (hatch_build.py) plays the packs it ships, keeps the
sources that ran the most lines, and compiles each as a *factory*: a function of the namespace that reads from it
every name the source reads as a global, then defines the source's functions inside itself, so that Cython compiles
them as closures (a read of a helper is a field of the closure, the code C, not bytecode). `define` looks a source up
by its digest: found, the factory makes its functions; not found (a pack of one's own, a checkout's new code), the
source is compiled and run as it always was. Only the exact text the engine generated can be found, and its factory is
that text compiled: a pack gets no other code than its own effects, and plays the same games either way.

Nothing here knows a pack: which sources are compiled is what the build's games ran (`hot_sources`).
"""

from __future__ import annotations

import builtins
import functools
import hashlib
import importlib
import re
import symtable
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import NamedTuple

PREFIX = "_ahead_"  # the compiled modules, beside this one: _ahead_0, _ahead_1, ...
_BUILTINS = frozenset(dir(builtins))
# a lowered function's `pc` (where its errors are placed) is only ever set to a number written in the code: a C long
_LOWERED_HEAD = re.compile(r"^(?P<pad> *)def run_from_\d+\(g, frame, c\):$")


class Factory(NamedTuple):
    """A compiled source: `make(namespace)` gives its functions by name; `reads`, the names it takes from the namespace;
    `builtins`, the built-ins it reads (which a namespace must not hide, as the compiled code reads the built-in)."""

    make: Callable[[dict], dict]
    reads: tuple[str, ...]
    builtins: tuple[str, ...]


@functools.lru_cache(maxsize=4096)
def compiled(source: str, filename: str):
    """Generated source compiled once per process: a pack compiles to the same source at every load (tests
    load the shipped packs again and again), and compiling is most of loading."""
    return compile(source, filename, "exec")


def digest(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


def define(source: str, filename: str, namespace: dict) -> None:
    """Run the generated `source` in `namespace` (its functions defined there): compiled ahead when the wheel has it,
    else compiled now, as `exec` would."""
    table = _table() if _TABLE_ON else None
    factory = table.get(digest(source)) if table else None  # (no digest taken where there is no table: a checkout's)
    if factory is not None and _fits(factory, namespace):
        namespace.update(factory.make(namespace))
        namespace.setdefault("__builtins__", builtins.__dict__)  # (as `exec` leaves it, for code run there later)
    else:
        exec(compiled(source, filename), namespace)  # noqa: S102 -- the engine's own generated source


def _fits(factory: Factory, namespace: dict) -> bool:
    """Whether the factory's functions are the source's in this namespace: every name it reads is there now (the
    factory reads them once; the engine never rebinds a helper a generated function reads), none of its built-ins
    hidden by one of the namespace's."""
    return all(name in namespace for name in factory.reads) and not any(name in namespace for name in factory.builtins)


_TABLE_ON = True


@contextmanager
def switched_off() -> Iterator[None]:
    """Every source compiled now, as if the wheel had none ahead (tests and benchmarks compare the two)."""
    global _TABLE_ON
    before, _TABLE_ON = _TABLE_ON, False
    try:
        yield
    finally:
        _TABLE_ON = before


@functools.cache
def _table() -> dict[str, Factory]:
    """The factories of the compiled modules beside this one (none when the runtime runs as its source)."""
    from . import extension_modules

    table: dict[str, Factory] = {}
    for name in extension_modules():
        if not name.startswith(PREFIX):
            continue
        module = importlib.import_module(f"{__package__}.{name}")
        table.update((key, Factory(*entry)) for key, entry in module.TABLE.items())
    return table


def sources_ahead() -> int:
    """How many generated sources the wheel carries compiled ahead."""
    return len(_table())


# ------------------------------------------------------------------------------------------- the build's side
def names_read(source: str, filename: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """What the module-level code `source` defines, the globals its functions read that it does not define, and the
    built-ins among those."""
    table = symtable.symtable(source, filename, "exec")
    defined = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    read: set[str] = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    scopes = list(table.get_children())
    while scopes:
        scope = scopes.pop()
        read.update(s.get_name() for s in scope.get_symbols() if s.is_global() and s.is_referenced())
        scopes.extend(scope.get_children())
    read -= defined
    return tuple(sorted(defined)), tuple(sorted(read - _BUILTINS)), tuple(sorted(read & _BUILTINS))


def factory_source(number: int, source: str, filename: str, *, typed: bool = True) -> str:
    """The factory `_factory_<number>` of `source`, as Cython text (`typed`: a lowered function's `pc` a C long) or
    as Python (not `typed`: what the tests run), and its entry in the module's TABLE."""
    defined, reads, built_ins = names_read(source, filename)
    lines = [f"def _factory_{number}(_namespace):"]
    lines += [f"    {name} = _namespace[{name!r}]" for name in reads]
    for line in source.splitlines():
        lines.append(f"    {line}" if line else "")
        head = _LOWERED_HEAD.match(line)
        if typed and head is not None:
            lines.append(f"    {head['pad']}    cdef long pc")
    lines.append("    return {" + ", ".join(f"{name!r}: {name}" for name in defined) + "}")
    lines.append(f"TABLE[{digest(source)!r}] = (_factory_{number}, {reads!r}, {built_ins!r})")
    return "\n".join(lines) + "\n"


def module_source(sources: Iterable[tuple[str, str]], *, typed: bool = True) -> str:
    """A module of the factories of `sources` ((source, file name) each) and their TABLE, by digest."""
    parts = ["# cython: language_level=3, binding=True\n", "TABLE = {}\n"]
    parts += [factory_source(n, source, filename, typed=typed) for n, (source, filename) in enumerate(sources)]
    return "\n".join(parts)


def source_lines(source: str) -> int:
    return source.count("\n") + 1


def hot_sources(sources: dict[str, tuple[str, str, dict[str, int]]], most_lines: int) -> list[tuple[str, str]]:
    """The sources to compile ahead: of `sources` (digest: (source, file name, lines run by the build's games of each
    pack)), those that ran the largest share of some pack's lines first (every pack's hottest code, however long its
    games), until `most_lines` lines of source; a source no game ran is not among them."""
    totals: dict[str, int] = {}
    for _, _, ran in sources.values():
        for pack, lines in ran.items():
            totals[pack] = totals.get(pack, 0) + lines

    ranked = []  # (-share, file name, source): the largest share of some pack's lines first
    for source, filename, ran in sources.values():
        share = max((lines / totals[pack] for pack, lines in ran.items() if lines), default=0.0)
        if share > 0:
            ranked.append((-share, filename, source))
    chosen, size = [], 0
    for _, filename, source in sorted(ranked):
        length = source_lines(source)
        if size + length <= most_lines:
            chosen.append((source, filename))
            size += length
    return chosen
