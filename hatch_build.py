"""The wheel's build hook: the runtime's modules compiled by Cython, beside their Python source.

The runtime (engine/runtime/) is plain Python that Cython compiles unchanged: no .pyx, no type declarations, the same
code run by C instead of the interpreter. Every game plays the same, byte for byte (the test suite runs on what this
builds); Cro-Magnon plays about 1.3x as many decisions a second (issue 16, docs/runtime.md "Compiled").

The C compiler is guided by a profile of games played (gcc's profile-guided optimisation): the modules are compiled
once counting what runs, that build plays random and greedy games of every shipped pack (`train`), and they are
compiled again knowing which branches are taken and which code is hot: hot paths laid out straight, error handling
moved out of their way. The games are seeded, as any other. When the training cannot run, the build says so, compiles
without it and records why (`BUILT_WITH`); `KNAPPER_NO_TRAINING` set skips it (a build half as long, a slower runtime).

The effect code the shipped packs run most is compiled too (`compile_ahead`, engine/runtime/ahead.py): the build
plays their games once more on the runtime's source, keeps the generated sources that ran the most lines (up to
`AHEAD_LINES`), and compiles each into `engine/runtime/_ahead_*`, quickly (`AHEAD_FLAGS`: it is many lines, and its
speed comes from being compiled at all). When that fails the wheel goes without it, which plays the same games.

Only the wheel is compiled; an editable install (`pip install -e .`) stays pure Python, and so does any build where
Cython or a C compiler is missing (it says so and goes on) or `KNAPPER_PURE_PYTHON` is set. Which modules are compiled
is set once, in pyproject.toml (`[tool.hatch.build.targets.wheel.hooks.custom]`, `modules`).

    python hatch_build.py --inplace   # compile a checkout in place (.so beside each .py), to measure it
    python hatch_build.py --clean     # and back to pure Python
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PURE_PYTHON = "KNAPPER_PURE_PYTHON"  # set (to anything but empty): nothing is compiled, nor loaded compiled
NO_TRAINING = "KNAPPER_NO_TRAINING"  # set: compiled without the profile of played games
TRAINING_GAMES = 2  # random games of each shipped pack at each seating, played by the build counting what runs
TRAINING_ANSWERS = 30  # ... and greedy answers of each pack at its fewest seats (but one: a single seat plays itself)
TRAINING_SECONDS = 900  # the most the training may take before the build gives up on it
RESOURCES = ("content", "schemas", "grammar")  # what the engine reads beside itself: the packs and their checks
BUILT_WITH = "compiled_with.json"  # beside the compiled modules in the wheel: how they were built (a test reads it)
COMPILED_PACKAGE = "engine/runtime"
AHEAD_LINES = 30_000  # the most lines of generated source compiled ahead (the hottest first)
# as fast as -O3 for this code (measured), in a quarter of the time; without debug data, a sixth the size
AHEAD_FLAGS = ["-O1", "-g0"]
AHEAD_CHUNKS = 4  # modules the sources are split into, compiled side by side
DIRECTIVES = {"binding": True}  # functions bound as methods (`Game._advance = interpreter.advance`) stay methods


def compiled_sources(root: Path, modules: list[str]) -> list[Path]:
    """The source files of the runtime's `modules` (names), each of which must exist."""
    sources = [root / COMPILED_PACKAGE / f"{name}.py" for name in sorted(modules)]
    missing = [str(p) for p in sources if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"pyproject.toml names modules to compile that are not there: {', '.join(missing)}")
    return sources


def compile_modules(
    root: Path,
    sources: list[Path],
    build_dir: Path,
    *,
    inplace: bool = False,
    profile: tuple[str, Path] | None = None,
    flags: tuple[str, ...] = (),
) -> list[Path]:
    """Compile `sources` (under `root`) into extension modules; the built files, under `build_dir` (or beside their
    sources when `inplace`). `profile`: ("generate", folder) counts what the modules run into the folder, ("use",
    folder) compiles them again, in the same `build_dir`, guided by those counts; `flags`, the C compiler's besides.
    Raises whatever Cython or the C compiler raise."""
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension

    compiler_flags = [*([] if profile is None else _profile_flags(*profile)), *flags]
    extensions = [
        Extension(".".join(p.relative_to(root).with_suffix("").parts), [str(p.relative_to(root))]) for p in sources
    ]
    jobs = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
    for built in (build_dir / "lib").rglob("*"):  # (built again in the same folder, the counts' objects' paths kept)
        if built.is_file():
            built.unlink()
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
        for module in modules:  # (set after Cython, which keeps an extension's options in its C file for next time)
            module.extra_compile_args = module.extra_link_args = compiler_flags
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


def _profile_flags(kind: str, folder: Path) -> list[str]:
    """gcc's flags to count what runs into `folder` ("generate") or to compile guided by those counts ("use"). The
    counts are found by the objects' paths, the same in both builds; a function the games never ran is compiled as
    without a profile (`-fprofile-partial-training`), not for size as cold code."""
    if kind == "generate":
        return [f"-fprofile-generate={folder}"]
    if kind == "use":
        return [f"-fprofile-use={folder}", "-fprofile-partial-training", "-fprofile-correction", "-Wno-missing-profile"]
    raise ValueError(f"no such profile step: {kind}")


def compile_trained(root: Path, sources: list[Path], build_dir: Path, *, inplace: bool = False) -> tuple[list, dict]:
    """Compile `sources` guided by a profile of games played (the module's docstring): the built files, and how they
    were built (`BUILT_WITH`). When the counting build, its games or the guided build fail (a compiler without gcc's
    flags, a pack that does not load), the modules are compiled without a profile and the reason is kept; a failure
    of that plain compile is raised, as `compile_modules` raises it."""
    if os.environ.get(NO_TRAINING):
        return compile_modules(root, sources, build_dir, inplace=inplace), {"profile": None, "why": NO_TRAINING}
    counts = build_dir / "profile"
    try:
        counting = compile_modules(root, sources, build_dir, profile=("generate", counts))
        played = _train_on(root, counting, build_dir / "training")
        built = compile_modules(root, sources, build_dir, inplace=inplace, profile=("use", counts))
    except (*_missing_tools(), subprocess.SubprocessError, ValueError) as exc:  # type: ignore[misc]
        why = str(getattr(exc, "stderr", None) or exc).strip()[-2000:]  # (the training's own traceback, if it has one)
        built = compile_modules(root, sources, build_dir, inplace=inplace)
        return built, {"profile": None, "why": f"{type(exc).__name__}: {why}"}
    return built, {"profile": "played games", **played}


def _train_on(root: Path, counting: list[Path], folder: Path) -> dict:
    """Play the training games (`train`) on a copy of the checkout's engine with the counting modules beside their
    source, in a process of its own; what it played."""
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(root / "engine", folder / "engine", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    for beside in RESOURCES:  # (where engine/files/resources.py finds them in a checkout: beside `engine/`)
        shutil.copytree(root / beside, folder / beside)
    for path in counting:
        shutil.copy2(path, folder / COMPILED_PACKAGE / path.name)
    done = _this_script(folder, "--train", str(folder), str(folder / "content"), source=False)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _this_script(engine_root: Path, *args: str, source: bool) -> subprocess.CompletedProcess:
    """This script run with `args` in a child process, in `engine_root`, whose engine it imports first; then what the
    build's own environment can import (pip's isolated one is found by PYTHONPATH). `source`: the runtime run as its
    source (`PURE_PYTHON`), else as the compiled modules beside it. Raises when it fails or takes too long."""
    env = {k: v for k, v in os.environ.items() if k != PURE_PYTHON}
    if source:
        env[PURE_PYTHON] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(engine_root), os.environ.get("PYTHONPATH")]))
    command = [sys.executable, str(Path(__file__).resolve()), *args]
    return subprocess.run(
        command, env=env, cwd=engine_root, capture_output=True, text=True, check=True, timeout=TRAINING_SECONDS
    )


def compile_ahead(root: Path, build_dir: Path, *, inplace: bool = False) -> tuple[list[Path], dict]:
    """The hottest effect code of the shipped packs compiled ahead (the module's docstring): the built modules (copied
    beside the runtime's sources when `inplace`) and what was compiled. Raises what the games, Cython or the C compiler
    raise."""
    gathered = build_dir / "gathered.json"
    _this_script(root, "--gather", str(root), str(root / "content"), str(gathered), source=True)
    ahead = _ahead_of(root)
    sources = json.loads(gathered.read_text())
    chosen = ahead.hot_sources(sources, AHEAD_LINES)
    folder = build_dir / "ahead"
    package = folder / COMPILED_PACKAGE
    package.mkdir(parents=True, exist_ok=True)
    chunks: list[list[tuple[str, str]]] = [[] for _ in range(AHEAD_CHUNKS)]
    for number, entry in enumerate(chosen):  # (the hottest first: dealt round the chunks, of about equal size)
        chunks[number % AHEAD_CHUNKS].append(entry)
    modules = []
    for number, chunk in enumerate(chunks):
        path = package / f"{ahead.PREFIX}{number}.pyx"
        path.write_text(ahead.module_source(chunk), encoding="utf-8")
        modules.append(path)
    built = compile_modules(folder, modules, build_dir / "ahead_build", flags=tuple(AHEAD_FLAGS))
    if inplace:
        built = [Path(shutil.copy2(path, root / COMPILED_PACKAGE / path.name)) for path in built]
    lines = sum(ahead.source_lines(source) for source, _ in chosen)
    return built, {"sources": len(chosen), "lines": lines, "of": len(sources)}


def _ahead_of(root: Path):
    """engine/runtime/ahead.py of the checkout at `root`, by itself (the build's environment has none of what the
    engine imports; its build side needs nothing of it)."""
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("knapper_ahead", root / COMPILED_PACKAGE / "ahead.py")
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def gather(engine_root: Path, content: Path, out: Path, games: int = TRAINING_GAMES) -> None:
    """The effect sources the engine at `engine_root` (run as its source) defines while playing `games` random games
    of every pack in `content` at each seating, each with the lines of it that ran, written to `out` as JSON
    ({digest: [source, file name, {pack: lines run}]}) for `compile_ahead`."""
    sys.path.insert(0, str(engine_root))
    import random

    from engine.runtime import ahead
    from engine.runtime import rules as rules_module
    from engine.runtime.game import Game
    from engine.runtime.session import play_randomly

    found: dict[str, list] = {}
    of_code: dict = {}  # each code object of a source (its functions' too): the source's entry
    compile_now = ahead.compiled

    def compiled(source: str, filename: str):
        code = compile_now(source, filename)  # (`define` compiles every source through it: all are gathered)
        entry = found.setdefault(ahead.digest(source), [source, filename, {}])
        codes = [code]
        while codes:
            one = codes.pop()
            of_code[one] = entry
            codes.extend(c for c in one.co_consts if isinstance(c, type(code)))
        return code

    def counting(frame, event, arg):  # (sys.settrace: a local tracer for the generated code's frames only)
        entry = of_code.get(frame.f_code)
        if entry is None:
            return None

        ran = entry[2]

        def line(frame, event, arg):
            if event == "line":
                ran[playing] = ran.get(playing, 0) + 1
            return line

        return line

    ahead.compiled = compiled  # type: ignore[assignment]
    playing = ""
    for pack in sorted(p for p in content.iterdir() if p.is_dir()):
        playing = pack.name
        rules = rules_module.load(pack)
        fewest, most = rules.players
        sys.settrace(counting)
        try:
            for players in range(fewest, most + 1):
                for seed in range(games):
                    play_randomly(Game.new(rules, players, seed), random.Random(seed))
        finally:
            sys.settrace(None)
    out.write_text(json.dumps(found), encoding="utf-8")


class _Trained(Exception):
    """A greedy training game has given its answers (`train`): it stops there, unfinished."""


def train(
    engine_root: Path,
    content: Path,
    games: int = TRAINING_GAMES,
    answers: int = TRAINING_ANSWERS,
    *,
    compiled_only: bool = True,
) -> dict:
    """The games a profile-guided build plays: `games` random games of every pack in `content` at each seating, and
    `answers` greedy answers at its fewest seats but one, all seeded, as `knap sim` asks them; what was played.
    Raises ValueError when the engine it imports is not the compiled one of `engine_root` (unless not
    `compiled_only`: a test's)."""
    sys.path.insert(0, str(engine_root))
    import random

    from engine.runtime import compiled_modules
    from engine.runtime import rules as rules_module
    from engine.runtime.agents import GreedyAgent
    from engine.runtime.game import Game
    from engine.runtime.session import play_out, play_randomly

    runtime = Path(sys.modules["engine.runtime"].__file__ or "").parent
    if compiled_only and (runtime != engine_root.resolve() / COMPILED_PACKAGE or not compiled_modules()):
        raise ValueError(f"the training would play a runtime that is not the one compiled: {runtime}")
    played = {"packs": 0, "games": 0, "greedy_answers": 0}
    for pack in sorted(p for p in content.iterdir() if p.is_dir()):
        rules = rules_module.load(pack)
        fewest, most = rules.players
        for players in range(fewest, most + 1):
            for seed in range(games):
                play_randomly(Game.new(rules, players, seed), random.Random(seed))
                played["games"] += 1
        players = min(max(fewest, 2), most)
        answered: list = []

        def enough(_game, answered=answered) -> None:  # (`play_out` calls it after each player's answer)
            answered.append(True)
            if len(answered) == answers:
                raise _Trained

        with contextlib.suppress(_Trained):
            play_out(Game.new(rules, players, 1), [GreedyAgent(31 + s) for s in range(players)], on_step=enough)
        played["greedy_answers"] += len(answered)
        played["packs"] += 1
    return played


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
            built, how = compile_trained(root, sources, build_dir)
        except _missing_tools() as exc:  # no Cython, no C compiler: the pure-Python wheel, which plays the same games
            self.app.display_warning(f"knapper: the runtime stays pure Python, as it could not be compiled: {exc}")
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for path, source in zip(built, sources, strict=True):
            target = source.relative_to(root).with_name(path.name)
            build_data["force_include"][str(path)] = target.as_posix()
        try:
            ahead, how["ahead"] = compile_ahead(root, build_dir)
        except Exception as exc:  # noqa: BLE001 -- only speed is lost: the wheel plays the same games without it
            why = str(getattr(exc, "stderr", None) or exc).strip()[-2000:]
            ahead, how["ahead"] = [], {"sources": 0, "why": f"{type(exc).__name__}: {why}"}
            self.app.display_warning(f"knapper: no effect code compiled ahead: {how['ahead']['why']}")
        for path in ahead:
            build_data["force_include"][str(path)] = f"{COMPILED_PACKAGE}/{path.name}"
        record = build_dir / BUILT_WITH
        record.write_text(json.dumps(how, sort_keys=True) + "\n")
        build_data["force_include"][str(record)] = f"{COMPILED_PACKAGE}/{BUILT_WITH}"
        if how["profile"] is None:
            self.app.display_warning(f"knapper: the runtime is compiled without a profile of games: {how['why']}")
        self.app.display_info(f"knapper: {len(built)} runtime modules compiled by Cython ({how})")

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
    if len(argv) == 4 and argv[0] == "--gather":  # the effect sources, in the process `compile_ahead` starts
        gather(Path(argv[1]), Path(argv[2]), Path(argv[3]))
        return 0
    if len(argv) == 3 and argv[0] == "--train":  # the training games, in the process `_train_on` starts
        print(json.dumps(train(Path(argv[1]), Path(argv[2]))))
        return 0
    if argv != ["--inplace"]:
        print(__doc__.split("\n\n")[-1].rstrip())
        return 2
    sources = compiled_sources(root, modules_to_compile(root))
    with tempfile.TemporaryDirectory(prefix="knapper-compiled-") as build_dir:
        built, how = compile_trained(root, sources, Path(build_dir), inplace=True)
        ahead, how["ahead"] = compile_ahead(root, Path(build_dir), inplace=True)
    print(
        f"{len(built)} modules compiled in place, and {len(ahead)} of effect code ahead ({how}): an edited .py is "
        "ignored until `--clean` or `--inplace`"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
