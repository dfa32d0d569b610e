"""The prerequisite graph: every card that `requires` others, as a networkx DiGraph.

An edge `a -> b` reads "a is needed for b". Lint finds unknown ids, cycles and cards that can never
become available. `unlockable` answers what a set of mastered cards opens, for content tests; at play the
rules ask the DSL (`requires_met`), not this graph.
"""

from __future__ import annotations

import json

import networkx as nx


def build(cards: dict[str, dict]) -> nx.DiGraph:
    """`cards`: id -> card data. Nodes carry the card's name, type and tags; unknown prerequisites
    become nodes marked `missing`."""
    graph: nx.DiGraph[str] = nx.DiGraph()
    for card_id, card in cards.items():
        graph.add_node(
            card_id, name=card.get("name", card_id), type=card.get("type", ""), tags=list(card.get("tags", []))
        )
    for card_id, card in cards.items():
        for needed in card.get("requires") or []:
            if needed not in cards:
                graph.add_node(needed, missing=True)
            graph.add_edge(needed, card_id)
    return graph


def involved(graph: nx.DiGraph) -> nx.DiGraph:
    """Only the cards that take part in prerequisites (for display)."""
    return graph.subgraph([n for n in graph if graph.degree(n) > 0]).copy()


def cycles(graph: nx.DiGraph) -> list[list[str]]:
    """One cycle per strongly connected component that has one, each as a path `a, b, ..., a`."""
    found = []
    for component in sorted(nx.strongly_connected_components(graph), key=min):
        start = min(component)  # deterministic whatever the hash seed
        if len(component) == 1:
            if graph.has_edge(start, start):
                found.append([start, start])
            continue
        cycle = nx.find_cycle(graph.subgraph(component), source=start)
        found.append([edge[0] for edge in cycle] + [cycle[0][0]])
    return sorted(found)


def reachable(graph: nx.DiGraph, start: set[str] | None = None) -> set[str]:
    """Cards that can be mastered in some order: a card becomes available once all its
    prerequisites are. Without `start`, cards with no prerequisites are available from the start."""
    needs = {node: set(graph.predecessors(node)) for node in graph if not graph.nodes[node].get("missing")}
    done = set(start) if start is not None else {n for n, pre in needs.items() if not pre}
    frontier = list(done)
    while frontier:
        node = frontier.pop()
        for nxt in graph.successors(node):
            if nxt not in done and nxt in needs and needs[nxt] <= done:
                done.add(nxt)
                frontier.append(nxt)
    return done


def unlockable(graph: nx.DiGraph, mastered: set[str]) -> set[str]:
    """Cards not yet mastered whose prerequisites are all mastered."""
    return {
        n
        for n in graph
        if n not in mastered and not graph.nodes[n].get("missing") and set(graph.predecessors(n)) <= mastered
    }


def _dot_quoted(text: str) -> str:
    """A DOT quoted string: a backslash or a quote in a name must not end the string or start an escape;
    a line break is DOT's own `\\n`."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(graph: nx.DiGraph, title: str) -> str:
    lines = [f"digraph {_dot_quoted(title)} {{", "  rankdir=LR;", "  node [shape=box];"]
    for node, attrs in sorted(graph.nodes(data=True)):
        style = ", style=dashed, color=red" if attrs.get("missing") else ""
        lines.append(f"  {_dot_quoted(node)} [label={_dot_quoted(attrs.get('name', node))}{style}];")
    for a, b in sorted(graph.edges()):
        lines.append(f"  {_dot_quoted(a)} -> {_dot_quoted(b)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_mermaid(graph: nx.DiGraph) -> str:
    lines = ["flowchart LR"]
    for node, attrs in sorted(graph.nodes(data=True)):
        label = attrs.get("name", node).replace('"', "'")
        lines.append(f'  {node}["{label}"]')
    for a, b in sorted(graph.edges()):
        lines.append(f"  {a} --> {b}")
    return "\n".join(lines) + "\n"


def to_json(graph: nx.DiGraph) -> str:
    data = {
        "nodes": [{"id": n, **{k: v for k, v in a.items()}} for n, a in sorted(graph.nodes(data=True))],
        "edges": [{"from": a, "to": b} for a, b in sorted(graph.edges())],
    }
    return json.dumps(data, indent=2) + "\n"
