"""The runtime's shape (issue 16, item 4): modules that do not import each other in a circle, a protocol
module that imports none of the game, and a typed state that says every key the state really has."""

from __future__ import annotations

import ast
import functools
import json
import random
import typing
from pathlib import Path

import networkx as nx
import pytest

from engine.runtime import rules as rules_module
from engine.runtime import state as state_module
from engine.runtime.game import Game
from engine.runtime.session import play_randomly

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ROOT / "engine" / "runtime"
PACKS = sorted(p.parent.name for p in (ROOT / "content").glob("*/pack.yaml"))


def relative_imports(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module a relative import in `source` may name (`from .x import y` names `.x` and `.x.y`;
    `from . import x` names `.x`), at any depth and level, inside functions too."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            if node.module:
                found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def import_graph(directory: Path, package: str = "engine.runtime") -> nx.DiGraph:
    """The modules of `directory` (the package `package`), an edge for each import of one by another."""
    files = sorted(directory.glob("*.py"))
    name = {p: package if p.stem == "__init__" else f"{package}.{p.stem}" for p in files}
    modules = set(name.values())
    graph = nx.DiGraph()
    for path in files:
        me = name[path]
        graph.add_node(me)
        for target in relative_imports(path.read_text(encoding="utf-8"), me, path.name == "__init__.py"):
            if target in modules and target != me:
                graph.add_edge(me, target)
    return graph


def test_the_import_finder_sees_every_kind_of_relative_import():
    source = (
        "from .a import x\nfrom . import b, c\nfrom ..d import e\n"
        "def f():\n    from .g import h\n    if True:\n        from . import i\n"
    )
    found = relative_imports(source, "engine.runtime.m")
    assert {
        "engine.runtime.a",
        "engine.runtime.b",
        "engine.runtime.c",
        "engine.d",
        "engine.runtime.g",
        "engine.runtime.i",
    } <= found


def test_a_cycle_is_found_and_named(tmp_path):
    (tmp_path / "a.py").write_text("from .b import x\n")
    (tmp_path / "b.py").write_text("def f():\n    from . import a\n")
    (tmp_path / "c.py").write_text("from . import a\n")
    graph = import_graph(tmp_path, "pkg")
    cycles = list(nx.simple_cycles(graph))
    assert len(cycles) == 1 and sorted(cycles[0]) == ["pkg.a", "pkg.b"]


def test_no_runtime_module_imports_itself_in_a_circle():
    """game -> driver -> game and the like made the order of imports matter and every module need every
    other: each module now imports only those below it (imports inside functions count too)."""
    graph = import_graph(RUNTIME)
    assert graph.number_of_edges() > 30  # the finder sees the runtime's imports
    cycles = sorted((c for c in nx.simple_cycles(graph)), key=len)
    named = [" -> ".join(m.rsplit(".", 1)[-1] for m in c + c[:1]) for c in cycles[:5]]
    assert not cycles, f"{len(cycles)} import cycles in engine/runtime, e.g.: " + "; ".join(named)


def test_the_protocol_imports_nothing_of_the_runtime():
    """protocol.py is what everyone speaking the protocol imports: it must sit below all of them."""
    graph = import_graph(RUNTIME)
    assert list(graph.successors("engine.runtime.protocol")) == []


# ---------------------------------------------------------------- the typed state (engine/runtime/state.py)
def _typed_dict(hint):
    """The TypedDict a field's type names (`Pending`, `Pending | None`, `list[Frame]`), and whether it is a
    list of them; (None, False) for anything else."""
    if typing.is_typeddict(hint):
        return hint, False
    args = typing.get_args(hint)
    if typing.get_origin(hint) is list and args and typing.is_typeddict(args[0]):
        return args[0], True
    found = [a for a in args if typing.is_typeddict(a)]
    return (found[0], False) if found else (None, False)


@functools.cache
def _fields(typed) -> tuple[frozenset, list]:
    """A TypedDict's keys, and (key, TypedDict, is a list of them) for its fields that are TypedDicts."""
    hints = typing.get_type_hints(typed)
    return frozenset(hints), [(key, *_typed_dict(hint)) for key, hint in hints.items() if _typed_dict(hint)[0]]


def undeclared(value, typed, where="state") -> list[str]:
    """Every key of `value` its TypedDict does not declare, every required key it lacks, at any depth."""
    if not isinstance(value, dict):
        return [f"{where} is {type(value).__name__}, not a {typed.__name__}"]
    keys, nested = _fields(typed)
    problems = [f"{where}[{key!r}] is not declared in state.{typed.__name__}" for key in value.keys() - keys]
    problems += [
        f"{where} lacks {key!r}, required by state.{typed.__name__}" for key in typed.__required_keys__ - value.keys()
    ]
    for key, inner, many in nested:
        if value.get(key) is None:
            continue
        for i, item in enumerate(value[key] if many else [value[key]]):
            problems += undeclared(item, inner, f"{where}[{key!r}]" + (f"[{i}]" if many else ""))
    return problems


@pytest.fixture(scope="module")
def packs():
    return {name: rules_module.load(ROOT / "content" / name) for name in PACKS}


def _each_state(rules, players, seed, answers, look):
    """`look(state)` on a new game's state, then after every decision of a seeded random game (up to
    `answers` answers), played as `session.play_randomly` plays (the soak's and the benchmark's games)."""
    game = Game.new(rules, players, seed)
    look(game.state)
    play_randomly(game, random.Random(seed), after=lambda g: look(g.state), limit=answers)


def test_every_state_of_seeded_games_has_the_keys_its_types_declare(packs):
    """A new game of every shipped pack and seat count, then the state at every decision of a seeded random
    game, to its end: only keys the TypedDicts declare, and every required key, down to the frames, the
    pending decision, the attempt and its snapshot. Fails when a key is added to the state without its type."""
    seen = {"kinds": set(), "frames": 0, "attempts": 0, "answers": 0, "over": 0, "ending": 0}

    def look(state, where):
        problems = undeclared(state, state_module.State)
        assert not problems, f"{where}, answer {len(state['history'])}: {problems[:3]}"
        pending = state["pending"]
        seen["kinds"].add(pending["kind"] if pending else None)
        seen["frames"] += bool(state["stack"])
        seen["attempts"] += state["attempt"] is not None
        seen["answers"] += bool(pending and pending.get("answers"))
        seen["ending"] += state["ending"] is not None
        seen["over"] += state["result"] is not None

    for name, rules in packs.items():
        low, high = rules.players
        for players in range(low, high + 1):
            _each_state(rules, players, players, 1_500, functools.partial(look, where=f"{name}, {players} players"))
    kinds = set(typing.get_args(typing.get_type_hints(state_module.Pending)["kind"]))
    assert kinds <= seen["kinds"], seen["kinds"]  # every kind of decision was checked
    assert all(seen[k] for k in ("frames", "attempts", "answers", "ending", "over")), seen


def test_the_state_check_fails_on_a_key_without_its_type(packs):
    game = Game.new(packs["cro-magnon"], 2, 1)
    assert undeclared(game.state, state_module.State) == []
    game.state["new_thing"] = 1
    game.state["turn"]["extra"] = True
    del game.state["stack"]
    problems = undeclared(game.state, state_module.State)
    assert len(problems) == 3 and any("new_thing" in p for p in problems) and any("extra" in p for p in problems)


SCHEMA_OF = {  # each TypedDict and where the save schema describes the same object
    "State": (),
    "Snapshot": ("$defs", "snapshot"),
    "Turn": ("properties", "turn"),
    "Frame": ("$defs", "frame"),
    "Pending": ("$defs", "pending"),
    "Ending": ("$defs", "ending"),
    "Result": ("$defs", "result"),
    "Attempt": ("$defs", "attempt"),
}


@pytest.mark.parametrize("typed_name", sorted(SCHEMA_OF))
def test_the_typed_state_agrees_with_the_save_schema(typed_name):
    """The save schema (schemas/runtime/save.schema.json) and the TypedDicts name the same keys, and the
    same required ones: adding a key to one and not the other fails here."""
    schema = json.loads((ROOT / "schemas" / "runtime" / "save.schema.json").read_text(encoding="utf-8"))
    for part in SCHEMA_OF[typed_name]:
        schema = schema[part]
    typed = getattr(state_module, typed_name)
    assert schema.get("additionalProperties") is False
    assert set(typing.get_type_hints(typed)) == set(schema["properties"]), typed_name
    assert set(typed.__required_keys__) == set(schema.get("required", [])), typed_name
