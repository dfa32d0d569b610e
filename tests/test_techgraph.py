"""The prerequisite graph: cycles as paths, reachability from the starting cards, what is unlockable."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.lint import graph as techgraph


def cards(**requires):
    return {name: {"name": name.title(), "requires": needs} for name, needs in requires.items()}


def test_cycles_are_reported_as_paths():
    graph = techgraph.build(cards(a=[], b=["a", "d"], c=["b"], d=["c"], e=["e"]))
    assert techgraph.cycles(graph) == [["b", "c", "d", "b"], ["e", "e"]]


def test_reachability_needs_every_prerequisite():
    graph = techgraph.build(cards(a=[], b=["a"], c=["b", "x"], d=["c"], e=["a", "b"]))
    assert techgraph.reachable(graph) == {"a", "b", "e"}
    assert graph.nodes["x"]["missing"]


def test_unlockable_given_what_is_mastered():
    graph = techgraph.build(cards(a=[], b=["a"], c=["a", "b"], d=["c"]))
    assert techgraph.unlockable(graph, {"a"}) == {"b"}
    assert techgraph.unlockable(graph, {"a", "b"}) == {"c"}
    assert techgraph.unlockable(graph, set()) == {"a"}


def test_exports_name_every_edge():
    graph = techgraph.build(cards(axe=[], spear=["axe"]))
    assert '"axe" -> "spear";' in techgraph.to_dot(graph, "t")
    assert "axe --> spear" in techgraph.to_mermaid(graph)
    assert '"from": "axe"' in techgraph.to_json(graph)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from("abcdefgh"), st.lists(st.sampled_from("abcdefghz"), max_size=3), max_size=8))
def test_reachable_cards_never_sit_on_or_behind_a_cycle(spec):
    graph = techgraph.build(cards(**spec))
    available = techgraph.reachable(graph)
    on_cycles = {node for cycle in techgraph.cycles(graph) for node in cycle}
    assert not available & on_cycles
    for node in available:
        assert all(pre in available for pre in graph.predecessors(node))


_QUOTED = r'"(?:[^"\\]|\\.)*"'


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='ab "\\\n', max_size=8), st.text(alphabet='ab "\\', max_size=6))
def test_dot_strings_stay_strings_whatever_the_names(name, title):
    """A name ending in a backslash used to escape the closing quote, so the rest of the graph was read as
    the label; every string of the DOT output must be one well-formed quoted string whose text is the name."""
    graph = techgraph.build({"axe": {"name": name, "requires": []}, "spear": {"name": "Spear", "requires": ["axe"]}})
    lines = techgraph.to_dot(graph, title).splitlines()
    import re

    assert re.fullmatch(rf"digraph {_QUOTED} {{", lines[0]), lines[0]
    node = next(line for line in lines if line.startswith('  "axe" ['))
    match = re.fullmatch(rf'  "axe" \[label=({_QUOTED})\];', node)
    assert match, node
    unescaped = re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), match.group(1)[1:-1])
    assert unescaped == name
    assert '  "axe" -> "spear";' in lines
