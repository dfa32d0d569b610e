"""For the tests that read the runtime's Python source or watch its Python calls: where the runtime runs compiled
(a wheel built by hatch_build.py), the source is read from its .py file and such a test runs on the source, in a
child process under `KNAPPER_PURE_PYTHON`."""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
from pathlib import Path

from engine.runtime import PURE_PYTHON, compiled_modules

REPO = Path(__file__).resolve().parent.parent


def source_of(obj) -> str:
    """`inspect.getsource(obj)` of a class or function, compiled or not: its text in its module's .py file, found by
    its qualified name."""
    module = sys.modules[obj.__module__]
    path = Path(module.__file__).with_name(module.__name__.rpartition(".")[2] + ".py")
    text = path.read_text(encoding="utf-8")
    scope: list[ast.stmt] = ast.parse(text).body
    node = None
    for name in obj.__qualname__.split("."):
        node = next(n for n in scope if isinstance(n, ast.ClassDef | ast.FunctionDef) and n.name == name)
        scope = node.body
    segment = ast.get_source_segment(text, node, padded=True)
    assert segment is not None
    return "\n".join(line.removeprefix(" " * node.col_offset) for line in segment.splitlines()) + "\n"


def on_python_source(test):
    """Run `test` on the runtime's Python source: as it is where nothing is compiled; otherwise the same test, in a
    child pytest with `KNAPPER_PURE_PYTHON` set, must pass (its output shown when it does not)."""

    @functools.wraps(test)
    def run(*args, **kwargs):
        if not compiled_modules():
            return test(*args, **kwargs)
        node = os.environ["PYTEST_CURRENT_TEST"].rsplit(" ", 1)[0]
        child = subprocess.run(
            # one test, in one process: not the process per core of addopts' `-n auto` (pytest-xdist)
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", node],
            env={**os.environ, PURE_PYTHON: "1"},
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert child.returncode == 0, child.stdout[-4000:] + child.stderr[-2000:]
        return None

    return run
