"""The packs `knap serve` offers, and the pack browser: every card with its data and provenance, the
prerequisite graph drawn as SVG (each node a link to its card), and the linter's findings beside the files.

A pack's `stamp` (its files' names, sizes and times) tells when a file was edited: the page polls it, and a
new stamp means a new lint (cached per stamp) and a new page. Rules for play are loaded once per stamp too.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx

from engine.content.packs import display, pack_files, pack_summary
from engine.lint import graph as techgraph

from .pages import card, esc, page

NODE_W, NODE_H, GAP_X, GAP_Y = 150, 34, 40, 14


@dataclass
class Pack:
    id: str
    root: Path
    name: str = ""
    players: tuple[int, int] = (1, 1)
    _lint: tuple = ()  # (stamp, result)
    _rules: tuple = ()  # (stamp, rules)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def stamp(self) -> str:
        parts = []
        for path in pack_files(self.root):
            try:
                info = path.stat()
            except OSError:
                continue
            parts.append(f"{path}:{info.st_size}:{info.st_mtime_ns}")  # the path: two folders may hold one name
        return str(hash(tuple(sorted(parts))))

    def lint(self):
        """The linter's result for the pack as its files are now (with what it extends)."""
        from engine import lint

        return self._fresh("_lint", lambda: lint.lint([self.root], None))

    def rules(self):
        """The pack ready to play (engine.runtime.rules.load), as its files are now; raises PackError."""
        from engine.runtime import rules as pack_rules

        return self._fresh("_rules", lambda: pack_rules.load(self.root))

    def _fresh(self, slot: str, make):
        """What `make()` gives for the pack's files as they are now: kept in `slot` with the stamp it was made at."""
        stamp = self.stamp()
        with self.lock:
            kept = getattr(self, slot)
            if not kept or kept[0] != stamp:
                kept = (stamp, make())
                setattr(self, slot, kept)
            return kept[1]


def pack_of(root: Path) -> Pack:
    summary = pack_summary(root)
    players = summary.get("players") or [1, 1]
    return Pack(root.name, root, summary.get("name") or root.name, (players[0], players[1]))


def provenance_of(cards: dict) -> dict:
    """Each card id's provenance and reason, when its document says one."""
    return {
        card_id: {k: doc[k] for k in ("provenance", "reason") if doc.get(k)}
        for card_id, doc in cards.items()
        if doc.get("provenance")
    }


# ---------------------------------------------------------------------------------------------- the graph
def layout(graph: nx.DiGraph) -> dict[str, tuple[int, int]]:
    """Each node's column (how many prerequisites deep) and row: a card stands right of all it needs."""
    try:
        generations = list(nx.topological_generations(graph))
    except nx.NetworkXUnfeasible:  # a cycle (lint says so): fall back to one column per step from the roots
        generations = [sorted(graph.nodes)]
    places: dict[str, tuple[int, int]] = {}

    def beside_needs(node) -> tuple:
        """Rows in the order of what each node needs (the mean row of its prerequisites): fewer crossings."""
        rows = [places[p][1] for p in graph.predecessors(node) if p in places]
        return (sum(rows) / len(rows) if rows else 0.0, str(node))

    for column, nodes in enumerate(generations):
        for row, node in enumerate(sorted(nodes, key=beside_needs)):
            places[node] = (column, row)
    return places


def graph_svg(graph: nx.DiGraph) -> str:
    if not graph.nodes:
        return "<p>No card of this pack needs another.</p>"
    places = layout(graph)
    width = max(c for c, _ in places.values()) + 1
    height = max(r for _, r in places.values()) + 1

    def at(node):
        column, row = places[node]
        return column * (NODE_W + GAP_X) + 4, row * (NODE_H + GAP_Y) + 4

    lines = []
    for a, b in graph.edges:
        (x1, y1), (x2, y2) = at(a), at(b)
        lines.append(
            f"<line x1='{x1 + NODE_W}' y1='{y1 + NODE_H // 2}' x2='{x2}' y2='{y2 + NODE_H // 2}' "
            f"data-from='{esc(a)}' data-to='{esc(b)}'/>"
        )
    nodes = []
    for node, attrs in graph.nodes(data=True):
        x, y = at(node)
        missing = " missing" if attrs.get("missing") else ""
        name = str(attrs.get("name") or node)
        short = name if len(name) <= 20 else name[:19] + "…"
        nodes.append(
            f"<a href='#card-{esc(node)}' class='node{missing}' data-node='{esc(node)}'><title>{esc(name)}</title>"
            f"<rect x='{x}' y='{y}' width='{NODE_W}' height='{NODE_H}' rx='6'/>"
            f"<text x='{x + 8}' y='{y + 21}'>{esc(short)}</text></a>"
        )
    w = width * (NODE_W + GAP_X) + 8
    h = height * (NODE_H + GAP_Y) + 8
    return (
        f"<svg id='graph' xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' viewBox='0 0 {w} {h}'>"
        f"<g class='edges'>{''.join(lines)}</g><g class='nodes'>{''.join(nodes)}</g></svg>"
    )


# ---------------------------------------------------------------------------------------------- the page
def browser_page(pack: Pack) -> str:
    result = pack.lint()
    effective = next(iter(result.effective.values()), None)
    documents = effective.by_id() if effective is not None else {}
    cards = {i: d for i, d in documents.items() if d.get("kind") == "card"}
    provenance = provenance_of(cards)
    graph = techgraph.involved(techgraph.build(cards))
    findings: dict[str, list] = {}
    for d in result.diagnostics:
        findings.setdefault(d.file, []).append(d)
    files = []
    for path in pack_files(pack.root):
        shown = display(path)
        found = findings.pop(shown, [])
        items = "".join(
            f"<li class='finding {esc(d.severity.value)}'><code>{esc(d.code)}</code> {esc(d.line)}:{esc(d.col)} "
            f"{esc(d.message)}</li>"
            for d in sorted(found, key=lambda d: d.sort_key)
        )
        files.append(
            f"<li class='file' data-file='{esc(shown)}'><b>{esc(shown)}</b> "
            f"<span class='n'>{len(found)} finding(s)</span><ul>{items}</ul></li>"
        )
    for shown, found in findings.items():  # a finding in a file of a pack this one extends
        items = "".join(f"<li class='finding'><code>{esc(d.code)}</code> {esc(d.message)}</li>" for d in found)
        files.append(f"<li class='file'><b>{esc(shown or pack.id)}</b><ul>{items}</ul></li>")
    total = len(result.diagnostics)
    drawn = []
    counts = {"placeholder": 0, "assumption": 0, "reference": 0}
    for card_id, doc in sorted(cards.items()):
        kind = provenance.get(card_id, {}).get("provenance")
        if kind in counts:
            counts[kind] += 1
        details = {
            "name": doc.get("name") or card_id,
            "type": doc.get("type", ""),
            "tags": [str(t) for t in doc.get("tags") or []],
            "cost": [cards.get(c, {}).get("name", c) for c in doc.get("cost") or []],
            "requires": [cards.get(c, {}).get("name", c) for c in doc.get("requires") or []],
            "stats": doc.get("stats") or {},
            "text": doc.get("text", ""),
        }
        extra = {"id": card_id}
        for name in ("deck", "count", "back"):
            if doc.get(name) is not None:
                extra[name] = doc[name]
        drawn.append(
            f"<div id='card-{esc(card_id)}' class='entry'>{card(details, provenance.get(card_id), extra=extra)}</div>"
        )
    summary = ", ".join(f"{n} {k}" for k, n in counts.items())
    body = (
        f"<main class='browser'><h1>{esc(pack.name)} <small>({esc(pack.id)})</small></h1>"
        f"<p id='lint-summary'>{total} finding(s) · {len(cards)} cards ({esc(summary)})</p>"
        f"<section id='files'><h2>Files and findings</h2><ul>{''.join(files)}</ul></section>"
        f"<section id='graph-box'><h2>Prerequisites</h2>{graph_svg(graph)}</section>"
        f"<section id='cards'><h2>Cards</h2><div class='cards'>{''.join(drawn)}</div></section></main>"
    )
    data = f"data-version='{esc(pack.stamp())}' data-poll='/pack/{esc(pack.id)}/stamp'"
    return page(f"{pack.id} — pack", body, script="knap.js", data=data)


def list_page(packs: list[Pack]) -> str:
    items = "".join(
        f"<li><a href='/pack/{esc(p.id)}'>{esc(p.id)}</a> — {esc(p.name)} ({p.players[0]}–{p.players[1]} players)</li>"
        for p in packs
    )
    return page("Packs", f"<main><h1>Packs</h1><ul id='packs'>{items}</ul></main>")
