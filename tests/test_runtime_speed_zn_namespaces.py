"""The code a pack generates runs in namespaces whose keys CPython knows are all text (`codegen.text_keyed`), so that its
reads of globals and builtins specialise (3.11: LOAD_GLOBAL_MODULE, LOAD_GLOBAL_BUILTIN). A dict literal of more than 8
entries in a module compiled by Cython is made by `_PyDict_NewPresized`, whose keys may be of any kind, and a copy
made by `dict(...)` keeps that kind: the code run in such a copy read every global by name (in the compiled build,
6.6 % of a Neolithibum game's instructions). Here a dict of that kind is made in Python (a dict that once held a
number as a key, then grew) and stands in for the compiled `_HELPERS`; the oracle is the copy made before."""

from __future__ import annotations

import dis
import gc
import random
import sys
import types
from pathlib import Path

import pytest

from engine.runtime import ahead, codegen
from engine.runtime.game import Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

CONTENT = Path(__file__).resolve().parents[1] / "content"

pytestmark = pytest.mark.skipif(
    sys.implementation.name != "cpython" or sys.version_info < (3, 11),
    reason="the specialising interpreter of CPython 3.11 and later",
)


def of_any_kind(names: dict) -> dict:
    """A dict holding `names`, whose keys CPython no longer takes for all text: it once held a number (the kind stays
    through the growth that drops the number's place), as `_PyDict_NewPresized` makes them in compiled modules."""
    mixed: dict = {0: None}
    del mixed[0]
    for name, value in names.items():
        mixed[name] = value
    for n in range(16):  # grown: its keys copied to a table of the same kind, without the number's empty place
        mixed[f"_grown{n}"] = n
    for n in range(16):
        del mixed[f"_grown{n}"]
    return dict(mixed)  # (a copy holds no empty place either: `dict` copies it whole, kind and all)


def specialises(namespace: dict) -> bool:
    """Whether code run in `namespace` reads a global and a builtin the specialised way, once warmed up: a probe made
    for it (its own code object, so that no other namespace shares its caches), run without adding to the namespace."""
    name = next(iter(namespace))
    code = compile(f"def _probe():\n    return {name}, len\n", "<probe>", "exec").co_consts[0]
    probe = types.FunctionType(code, namespace)
    for _ in range(200):
        probe()
    loads = [i.opname for i in dis.get_instructions(code, adaptive=True) if i.opname.startswith("LOAD_GLOBAL")]
    return loads == ["LOAD_GLOBAL_MODULE", "LOAD_GLOBAL_BUILTIN"]


def test_a_dict_of_any_kind_of_keys_is_read_by_name_and_its_text_keyed_copy_is_not():
    names = {f"name{n}": n for n in range(20)}
    mixed = of_any_kind(names)
    assert mixed == names
    assert specialises(names)
    assert not specialises(mixed)  # the oracle: what generated code ran in
    assert not specialises(dict(mixed))  # the copy made before (`dict(_HELPERS)`) keeps the kind
    copy = codegen.text_keyed(mixed)
    assert copy == names and copy is not mixed
    assert specialises(copy)


@pytest.fixture
def helpers_of_any_kind(monkeypatch):
    """`codegen._HELPERS` as the compiled module makes it."""
    monkeypatch.setattr(codegen, "_HELPERS", of_any_kind(codegen._HELPERS))
    ahead.compiled.cache_clear()  # (code objects warmed up by other tests would hide nothing: made afresh all the same)
    with ahead.switched_off():  # (the functions made by factories compiled ahead have no namespace of their own)
        yield
    ahead.compiled.cache_clear()


def test_every_function_a_pack_generates_reads_its_globals_the_specialised_way(helpers_of_any_kind):
    """Neolithibum loaded and played with `_HELPERS` of any kind of keys: the expressions, pack functions and lowered
    effects it generated all run in text-keyed namespaces."""
    rules = load(CONTENT / "neolithibum")
    game = Game.new(rules, 4, 3)
    play_randomly(game, random.Random(3), limit=300)
    namespaces = {}
    for function in gc.get_objects():
        if isinstance(function, types.FunctionType) and function.__code__.co_filename.startswith(
            ("<lowered ", "<direct ", "<phase/", "<action/", "<end/")
        ):
            namespaces[id(function.__globals__)] = function.__globals__
    assert len(namespaces) > 100
    assert all(specialises(namespace) for namespace in namespaces.values())
