"""The prerequisite graph: cycles as paths, reachability from the starting cards, what is unlockable."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from engine import techgraph


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
