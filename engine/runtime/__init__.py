"""The runtime: games played from a loaded pack.

An installed wheel carries most of these modules compiled by Cython beside their source (hatch_build.py); they play
the same games. `KNAPPER_PURE_PYTHON=1` in the environment runs the source instead, for the tools that see only
Python frames (profilers, tracers, debuggers, the tests that count calls)."""

from __future__ import annotations

import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec
from importlib.util import spec_from_file_location
from pathlib import Path

PURE_PYTHON = "KNAPPER_PURE_PYTHON"
_HERE = Path(__file__).resolve().parent


class _SourceFirst:
    """Finds this package's modules as their .py files, ahead of a compiled module beside them."""

    @staticmethod
    def find_spec(name: str, path=None, target=None) -> ModuleSpec | None:
        package, _, module = name.rpartition(".")
        source = _HERE / f"{module}.py"
        if package != __name__ or not source.is_file():
            return None
        return spec_from_file_location(name, source)


if os.environ.get(PURE_PYTHON) and not any(finder is _SourceFirst for finder in sys.meta_path):
    sys.meta_path.insert(0, _SourceFirst)


def extension_modules() -> list[str]:
    """The compiled modules beside this package's sources that this process may load (none under
    `KNAPPER_PURE_PYTHON`): the runtime's own, and the effect code compiled ahead (ahead.py)."""
    if os.environ.get(PURE_PYTHON):
        return []
    return sorted({p.name.split(".")[0] for p in _HERE.iterdir() if p.name.endswith(tuple(EXTENSION_SUFFIXES))})


def compiled_modules() -> list[str]:
    """The runtime's modules this process loads compiled (none under `KNAPPER_PURE_PYTHON`, nor from a checkout)."""
    return [name for name in extension_modules() if (_HERE / f"{name}.py").is_file()]
