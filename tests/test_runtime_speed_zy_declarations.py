"""Cython's declarations for the compiled runtime (issue 16): a `.pxd` beside a runtime module (functions.pxd) makes
the functions that module calls itself `cpdef`, called in C when compiled; the `.py` stays plain Python, run as it
is without Cython. Local annotations of exact types (`zones: dict = ...`, table.py, functions.py) let the compiled
code call a dict's `get` in C: they must hold only values of exactly that type."""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.runtime import compiled_modules, functions

REPO = Path(__file__).resolve().parent.parent
RUNTIME = REPO / "engine" / "runtime"


def _declarations() -> dict[str, list[str]]:
    """Each runtime module with a .pxd: the functions it declares `cpdef` (or `cdef`)."""
    found = {}
    for pxd in sorted(RUNTIME.glob("*.pxd")):
        text = pxd.read_text()
        found[pxd.stem] = re.findall(r"^c(?:p)?def\s+(?:[\w.]+\s+)?(\w+)\(", text, flags=re.MULTILINE)
    return found


def _patched_in_tests() -> set[tuple[str, str]]:
    """(module, name) of every `monkeypatch.setattr(module, "name", ...)` in the tests."""
    patched = set()
    for test in (REPO / "tests").glob("*.py"):
        patched |= set(re.findall(r"setattr\((\w+), \"(\w+)\"", test.read_text()))
    return patched


def test_the_runtime_has_declarations_and_each_names_a_function_of_a_compiled_module():
    """Fails without functions.pxd."""
    declared = _declarations()
    assert "_items" in declared.get("functions", [])
    compiled = set(_hook_modules())
    for module_name, names in declared.items():
        assert module_name in compiled, f"{module_name}.pxd beside a module pyproject.toml does not compile"
        module = importlib.import_module(f"engine.runtime.{module_name}")
        for name in names:
            assert callable(getattr(module, name)), f"{module_name}.pxd declares {name}, not a function there"


def test_no_declared_function_is_one_a_test_patches():
    """A cpdef function called in its own module is called in C, where a patch of the module's name is not seen."""
    patched = _patched_in_tests()
    for module_name, names in _declarations().items():
        assert not {(module_name, name) for name in names} & patched


def test_the_least_or_greatest_of_no_numbers_raises_as_before():
    """`_extreme` (cpdef: no generator in it) gives the error the generator gave for no numbers."""
    for pick in (min, max):
        with pytest.raises(ValueError) as before:
            pick(int(x or 0) for x in ())
        with pytest.raises(ValueError) as now:
            functions._extreme(pick, ())
        assert str(now.value) == str(before.value)
    assert functions._extreme(max, (None, 3, "2")) == 3 and functions._extreme(min, (4, False)) == 0


@pytest.mark.skipif("functions" not in compiled_modules(), reason="functions.py runs from its source")
def test_the_compiled_functions_module_was_built_with_its_declarations():
    """Fails if the build ignores functions.pxd: Cython exports a .pxd's functions in `__pyx_capi__`."""
    exported = getattr(functions, "__pyx_capi__", {})
    assert set(_declarations()["functions"]) <= set(exported)


def test_the_build_compiles_a_module_with_the_pxd_beside_it(tmp_path):
    """hatch_build.py's compile reads a module's .pxd: its cpdef function is exported, and called in C."""
    pytest.importorskip("Cython", reason="Cython compiles the wheel in pip's build environment only")
    package = tmp_path / "engine" / "runtime"
    package.mkdir(parents=True)
    (tmp_path / "engine" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "tiny.py").write_text("def pair(x):\n    return [x, x]\n\n\ndef twice(x):\n    return pair(x)\n")
    (package / "tiny.pxd").write_text("cpdef pair(x)\n")
    _hook().compile_modules(tmp_path, [package / "tiny.py"], tmp_path / "build", inplace=True)
    check = "import engine.runtime.tiny as t; print(sorted(t.__pyx_capi__), t.twice(2))"
    done = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['pair'] [2, 2]"


def test_the_sdist_carries_the_declarations():
    """A wheel built from the sdist compiles with them (`pip install` of the sdist: its build reads the .pxd)."""
    sdist = pytest.importorskip("hatchling.builders.sdist", reason="hatchling builds in pip's build environment only")
    shipped = {f.distribution_path for f in sdist.SdistBuilder(str(REPO)).recurse_included_files()}
    assert {f"engine/runtime/{name}.pxd" for name in _declarations()} <= shipped


def _hook():
    spec = importlib.util.spec_from_file_location("knapper_hatch_build_zy", REPO / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _hook_modules() -> list[str]:
    return _hook().modules_to_compile(REPO)
