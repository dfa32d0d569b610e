"""The shipped packs' generated code compiled when the wheel is built (engine/runtime/precompiled.py, issue 16).

The factories the build writes are plain Python as well as Cython's input, so these tests run them as Python: the same
texts, their globals bound as closures, play the very same games as the texts run in their namespaces."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest

from engine.runtime import compiled_modules, effects_build, precompiled
from engine.runtime import rules as rules_module
from engine.runtime.game import Game
from engine.runtime.session import play_randomly

ROOT = Path(__file__).resolve().parents[1]
CONTENT = ROOT / "content"
PACKS = ("neolithibum", "cro-magnon", "stone-age-mammoth-herd", "paleo-a-new-beginning")


def _played(pack: str, players: int, seed: int) -> Game:
    rules = rules_module.load(CONTENT / pack)
    game = Game.new(rules, players, seed)
    play_randomly(game, random.Random(seed))
    return game


@functools.cache
def _texts() -> dict[str, int]:
    """Every text the shipped packs run in the build's games, and how often."""
    return effects_build.gather(CONTENT)


@functools.cache
def _python_factories() -> dict:
    """The factory modules the build would compile, for every gathered text, run as Python."""
    table: dict = {}
    for source in effects_build.factory_modules(sorted(_texts())):
        namespace: dict = {}
        exec(compile(source, "<factories>", "exec"), namespace)  # noqa: S102 -- the test's own generated module
        table.update(namespace["TABLE"])
    return table


@pytest.fixture
def factories_as_python(monkeypatch):
    made: list = []
    table = _python_factories()

    def counted() -> dict:
        return table

    monkeypatch.setattr(precompiled, "factories", counted)
    real_define = precompiled.define

    def define(source, filename, namespace, name, compiled):
        function = real_define(source, filename, namespace, name, compiled)
        made.append((function, namespace))
        return function

    monkeypatch.setattr(precompiled, "define", define)
    return made


@pytest.mark.slow
@pytest.mark.parametrize("pack", PACKS)
def test_factories_play_the_same_games(pack, factories_as_python, monkeypatch):
    """Every text run through its factory (its globals as closure variables) plays the same games, state hash for
    state hash, as the texts run in their namespaces."""
    low, high = rules_module.load(CONTENT / pack).players
    seatings = [(players, seed) for players in range(low, high + 1) for seed in (0, 7)]
    with_factories = [_played(pack, players, seed).state_hash() for players, seed in seatings]
    assert any("generated_globals" in vars(f) for f, _ in factories_as_python)  # the factories were used
    monkeypatch.setattr(precompiled, "factories", dict)
    as_text = [_played(pack, players, seed).state_hash() for players, seed in seatings]
    assert with_factories == as_text


@pytest.mark.slow
def test_a_factory_binds_what_the_namespace_holds_for_good(factories_as_python):
    """A factory reads its text's globals once: right only if nothing binds another value to those names later. After
    loading and playing every pack, each closure still holds what its namespace holds."""
    for pack in PACKS:
        _played(pack, rules_module.load(CONTENT / pack).players[0], 3)
    checked = 0
    for function, namespace in factories_as_python:
        if "generated_globals" not in vars(function):
            continue
        for name, cell in zip(function.__code__.co_freevars, function.__closure__ or (), strict=True):
            assert cell.cell_contents is namespace[name], name
            checked += 1
    assert checked > 1000


def test_a_factory_declines_a_namespace_it_cannot_read_alike():
    """A namespace without a name the text reads, or with one shadowing a builtin it reads, runs the text as Python."""
    source = "def _expression(c):\n    return len(c) + OFFSET\n"
    table: dict = {}
    for module in effects_build.factory_modules([source]):
        namespace: dict = {}
        exec(compile(module, "<factories>", "exec"), namespace)  # noqa: S102
        table.update(namespace["TABLE"])
    factory = table[precompiled.digest(source)]
    assert factory({"OFFSET": 1})([1, 2]) == 3
    assert factory({}) is None
    assert factory({"OFFSET": 1, "len": lambda c: 0}) is None


def test_define_runs_the_text_when_no_factory_holds_it(monkeypatch):
    monkeypatch.setattr(precompiled, "factories", dict)
    namespace = {"OFFSET": 2}
    source = "def _expression(c):\n    return c + OFFSET\n"
    function = precompiled.define(source, "<test>", namespace, "_expression", compile_exec)
    assert function(1) == 3 and namespace["_expression"] is function
    assert precompiled.namespace_of(function) is namespace


def compile_exec(source, filename):
    return compile(source, filename, "exec")


def test_the_hottest_texts_fit_the_budget():
    calls = {"a" * 10: 5, "b" * 10: 50, "c" * 10: 0, "d" * 30: 40}
    assert effects_build.hottest(calls, budget=25) == ["a" * 10, "b" * 10]  # b first, d too long, then a
    assert effects_build.hottest(calls, budget=45) == ["b" * 10, "d" * 30]


@pytest.mark.skipif(not compiled_modules(), reason="the runtime runs from source here: no compiled packs' code")
def test_the_compiled_runtime_carries_the_packs_hottest_code(monkeypatch):
    """A compiled install holds factories, and a shipped pack's effects run through them."""
    assert precompiled.factories()
    made: list = []
    real_define = precompiled.define

    def define(*args):
        made.append(real_define(*args))
        return made[-1]

    monkeypatch.setattr(precompiled, "define", define)
    _played("neolithibum", 4, 1)
    compiled = [f for f in made if "generated_globals" in vars(f)]
    assert len(compiled) >= 40 and type(compiled[0]).__name__ == "cython_function_or_method"
