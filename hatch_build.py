"""The wheel's build hook: the runtime's modules compiled by Cython, beside their Python source.

The runtime (engine/runtime/) is plain Python that Cython compiles unchanged: no .pyx, no type declarations, the same
code run by C instead of the interpreter. Every game plays the same, byte for byte (the test suite runs on what this
builds); Cro-Magnon plays about 1.3x as many decisions a second (issue 16, docs/runtime.md "Compiled").

Only the wheel is compiled; an editable install (`pip install -e .`) stays pure Python, and so does any build where
Cython or a C compiler is missing (it says so and goes on) or `KNAPPER_PURE_PYTHON` is set. Which modules are compiled
is set once, in pyproject.toml (`[tool.hatch.build.targets.wheel.hooks.custom]`, `modules`).

    python hatch_build.py --inplace   # compile a checkout in place (.so beside each .py), to measure it
    python hatch_build.py --clean     # and back to pure Python
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

PURE_PYTHON = "KNAPPER_PURE_PYTHON"  # set (to anything but empty): nothing is compiled, nor loaded compiled
COMPILED_PACKAGE = "engine/runtime"
DIRECTIVES = {"binding": True}  # functions bound as methods (`Game._advance = interpreter.advance`) stay methods


def compiled_sources(root: Path, modules: list[str]) -> list[Path]:
    """The source files of the runtime's `modules` (names), each of which must exist."""
    sources = [root / COMPILED_PACKAGE / f"{name}.py" for name in sorted(modules)]
    missing = [str(p) for p in sources if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"pyproject.toml names modules to compile that are not there: {', '.join(missing)}")
    return sources


def compile_modules(root: Path, sources: list[Path], build_dir: Path, *, inplace: bool = False) -> list[Path]:
    """Compile `sources` (under `root`) into extension modules; the built files, under `build_dir` (or beside their
    sources when `inplace`). Raises whatever Cython or the C compiler raise."""
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension

    extensions = [
        Extension(".".join(p.relative_to(root).with_suffix("").parts), [str(p.relative_to(root))]) for p in sources
    ]
    jobs = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
    here = Path.cwd()
    os.chdir(root)  # the extensions' sources are named from the root, as their modules are
    try:
        modules = cythonize(
            extensions,
            build_dir=str(build_dir / "c"),
            compiler_directives=DIRECTIVES,
            language_level=3,
            nthreads=jobs,
            quiet=True,
        )
        distribution = Distribution({"name": "knapper-runtime", "ext_modules": modules})
        command = distribution.get_command_obj("build_ext")
        command.build_lib = str(build_dir / "lib")
        command.build_temp = str(build_dir / "temp")
        command.inplace = inplace
        command.parallel = jobs
        command.ensure_finalized()
        command.run()
        return [Path(command.get_ext_fullpath(e.name)).resolve() for e in modules]
    finally:
        os.chdir(here)


def remove_compiled(root: Path) -> list[Path]:
    """The compiled modules beside the runtime's sources, removed (a checkout back to pure Python)."""
    from importlib.machinery import EXTENSION_SUFFIXES

    removed = [p for p in (root / COMPILED_PACKAGE).iterdir() if any(p.name.endswith(s) for s in EXTENSION_SUFFIXES)]
    for path in removed:
        path.unlink()
    return removed


def _missing_tools() -> tuple[type[BaseException], ...]:
    """What a build without Cython or a working C compiler raises (Cython rejecting the source is no such thing)."""
    try:
        from setuptools import errors
    except ImportError:
        return (ImportError, OSError)
    return (ImportError, OSError, errors.CCompilerError, errors.ExecError, errors.PlatformError)


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script, outside a build
    BuildHookInterface = object  # type: ignore[assignment,misc]


class CompiledRuntime(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Adds the compiled runtime to the wheel, which then names this Python and platform in its tag."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel" or version == "editable" or os.environ.get(PURE_PYTHON):
            return
        root = Path(self.root)
        sources = compiled_sources(root, list(self.config["modules"]))
        build_dir = Path(tempfile.mkdtemp(prefix="knapper-compiled-"))
        self._build_dir = build_dir
        try:
            built = compile_modules(root, sources, build_dir)
        except _missing_tools() as exc:  # no Cython, no C compiler: the pure-Python wheel, which plays the same games
            self.app.display_warning(f"knapper: the runtime stays pure Python, as it could not be compiled: {exc}")
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for path, source in zip(built, sources, strict=True):
            target = source.relative_to(root).with_name(path.name)
            build_data["force_include"][str(path)] = target.as_posix()
        self.app.display_info(f"knapper: {len(built)} runtime modules compiled by Cython")

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        build_dir = getattr(self, "_build_dir", None)
        if build_dir is not None:
            shutil.rmtree(build_dir, ignore_errors=True)


def modules_to_compile(root: Path) -> list[str]:
    """The `modules` pyproject.toml names for the build hook."""
    import tomllib

    with open(root / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)
    return list(project["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]["modules"])


def main(argv: list[str]) -> int:
    root = Path(__file__).resolve().parent
    if argv == ["--clean"]:
        removed = remove_compiled(root)
        print(f"{len(removed)} compiled modules removed: {COMPILED_PACKAGE} runs as pure Python")
        return 0
    if argv != ["--inplace"]:
        print(__doc__.split("\n\n")[-1].rstrip())
        return 2
    sources = compiled_sources(root, modules_to_compile(root))
    with tempfile.TemporaryDirectory(prefix="knapper-compiled-") as build_dir:
        built = compile_modules(root, sources, Path(build_dir), inplace=True)
    print(f"{len(built)} modules compiled in place: edit a .py and it is ignored until `--clean` or `--inplace` again")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
