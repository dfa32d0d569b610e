"""The runtime compiled by Cython (hatch_build.py, docs/runtime.md "Compiled"): the wheel carries it, it plays the
games its source plays, and `KNAPPER_PURE_PYTHON` runs the source instead."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import engine
from engine.runtime import PURE_PYTHON, ahead, compiled_modules
from engine.runtime import rules as rules_module

REPO = Path(__file__).resolve().parent.parent


@functools.cache
def _hook():
    spec = importlib.util.spec_from_file_location("knapper_hatch_build", REPO / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _modules_named() -> list[str]:
    return _hook().modules_to_compile(REPO)


def test_the_modules_pyproject_names_for_compiling_are_runtime_modules_and_the_hot_ones_among_them():
    names = _modules_named()
    assert len(_hook().compiled_sources(REPO, names)) == len(names) == len(set(names))
    assert {"interpreter", "verbs", "table", "functions", "driver", "game", "agents", "imagine"} <= set(names)
    assert not {"__init__", "state", "terminal"} & set(names)  # the package, types, a person's pace


def test_a_module_named_for_compiling_that_is_not_there_stops_the_build(tmp_path):
    with pytest.raises(FileNotFoundError, match="not there"):
        _hook().compiled_sources(REPO, ["verbs", "no_such_module"])


@pytest.mark.skipif(
    Path(engine.__file__).resolve().parent.parent == REPO or bool(os.environ.get(PURE_PYTHON)),
    reason="the engine runs from this checkout's source (an editable install): only a wheel is compiled",
)
def test_the_installed_wheel_runs_every_module_compiled_that_pyproject_names():
    """Fails if the wheel was built pure Python (no Cython or no compiler in the build), which `pip` only warns of:
    the speed issue 16 measures is the compiled runtime's."""
    assert compiled_modules() == sorted(_modules_named())


@pytest.mark.skipif(
    Path(engine.__file__).resolve().parent.parent == REPO or bool(os.environ.get(PURE_PYTHON)),
    reason="the engine runs from this checkout's source (an editable install): only a wheel is compiled",
)
def test_the_installed_wheel_was_compiled_guided_by_the_training_games():
    """Fails if the build fell back to compiling without its profile of played games (it only warns): every shipped
    pack was played, and so were greedy answers (hatch_build.py `train`)."""
    built_with = Path(sys.modules["engine.runtime"].__file__ or "").parent / _hook().BUILT_WITH
    how = json.loads(built_with.read_text())
    packs = [p for p in (REPO / "content").iterdir() if p.is_dir()]
    assert how["profile"] == "played games", how
    assert how["packs"] == len(packs) and how["games"] >= 2 * len(packs) and how["greedy_answers"] >= 20 * len(packs)
    modules = [p for p in built_with.parent.iterdir() if p.name.endswith(tuple(EXTENSION_SUFFIXES))]
    runtime = [p for p in modules if not p.name.startswith(ahead.PREFIX)]  # (effects compiled ahead: apart)
    assert sorted(p.name.split(".")[0] for p in runtime) == sorted(_modules_named())
    assert not [p.name for p in modules if b"__gcov" in p.read_bytes()]  # the guided build, not the counting one


def test_the_training_games_play_every_shipped_pack_at_every_seating():
    """What a profile-guided build plays (hatch_build.py `train`), here on the runtime as installed: random games
    at each seating of each pack, greedy answers of each."""
    packs = sorted(p for p in (REPO / "content").iterdir() if p.is_dir())
    path = list(sys.path)
    try:
        played = _hook().train(REPO, REPO / "content", games=1, answers=3, compiled_only=False)
    finally:
        sys.path[:] = path
    seatings = 0
    for pack in packs:
        fewest, most = rules_module.load(pack).players
        seatings += most - fewest + 1
    assert played == {"packs": len(packs), "games": seatings, "greedy_answers": 3 * len(packs)}


def test_the_training_refuses_a_runtime_that_is_not_compiled():
    """The training games refuse a runtime run as source, which would count nothing: the build then compiles
    without a profile, and says why."""
    done = subprocess.run(
        [sys.executable, str(REPO / "hatch_build.py"), "--train", str(REPO), str(REPO / "content")],
        env={**os.environ, PURE_PYTHON: "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0 and "not the one compiled" in done.stderr


def test_pure_python_switch_loads_every_runtime_module_from_its_source():
    script = (
        "import importlib, pkgutil, engine.runtime as r\n"
        # (the effect code compiled ahead, `_ahead_*`, has no source: unused as such)
        "names = [m.name for m in pkgutil.iter_modules(r.__path__) if m.name != 'terminal'"
        " and not m.name.startswith('_ahead_')]\n"
        "files = [importlib.import_module('engine.runtime.' + n).__file__ for n in names]\n"
        "print(r.compiled_modules(), len(files), all(f.endswith('.py') for f in files))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, PURE_PYTHON: "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    listed, count, all_source = done.stdout.split()[-3:]
    assert listed == "[]" and int(count) > 20 and all_source == "True", done.stdout


def test_the_runtime_plays_the_recorded_games_whether_compiled_or_not():
    """Seed 0 of every pack and player count, and the greedy games, end as tools/same_games.py recorded them (from
    the source): here with the runtime as installed, compiled in a wheel."""
    spec = importlib.util.spec_from_file_location("knapper_same_games", REPO / "tools" / "same_games.py")
    assert spec is not None and spec.loader is not None
    same_games = importlib.util.module_from_spec(spec)
    path = list(sys.path)
    try:
        spec.loader.exec_module(same_games)  # (it puts the checkout first on sys.path: `engine` is imported already)
    finally:
        sys.path[:] = path  # (and the checkout stays off it for the tests after this one)
    recorded = json.loads((REPO / "tools" / "bench" / "same_games.json").read_text())
    played = 0
    for name, rules, players, seed, agent in same_games.games():
        if seed != 0 or name not in recorded:
            continue
        assert same_games._record(same_games.play(rules, players, seed, agent)) == recorded[name], name
        played += 1
    assert played >= 20


def test_a_checkout_compiles_in_place_and_cleans_back_to_source(tmp_path):
    """hatch_build.py's own compile, on a module of one function in a copy of the package's layout."""
    pytest.importorskip("Cython", reason="Cython compiles the wheel in pip's build environment only")
    package = tmp_path / "engine" / "runtime"
    package.mkdir(parents=True)
    (tmp_path / "engine" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "tiny.py").write_text("def double(x):\n    return [x, x]\n")
    hook = _hook()
    built = hook.compile_modules(tmp_path, [package / "tiny.py"], tmp_path / "build", inplace=True)
    assert [p.parent for p in built] == [package] and built[0].name.startswith("tiny.")
    check = "import engine.runtime.tiny as t; print(t.__file__.endswith('.py'), t.double(2))"

    def run() -> str:
        done = subprocess.run([sys.executable, "-c", check], cwd=tmp_path, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    assert run() == "False [2, 2]"  # the compiled module, loaded ahead of its source
    assert hook.remove_compiled(tmp_path) == built
    assert run() == "True [2, 2]"
