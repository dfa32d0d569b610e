"""A pack, read once and made ready to play: card definitions and instances, zones, counters,
parameters for a player count, actions, phases, end conditions, scoring, and their compiled code.

Nothing here changes during a game; the game state refers to it by ids and card numbers.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from engine import lint
from engine.content.packs import display
from engine.content.yamlload import load_file, text_position

from . import compiler
from .error_codes import coded, hint_for
from .errors import ContentError, GameError


class PackError(Exception):
    """The pack does not lint clean, so it cannot be played."""

    code = "X501"

    def __init__(self, diagnostics, positions=None):
        super().__init__(f"{len(diagnostics)} problem(s) in the pack")
        self.diagnostics = diagnostics
        self.positions = positions

    @property
    def hint(self) -> str:
        return hint_for(self.code)


@dataclass
class Source:
    """Where a piece of code came from, for runtime errors that point into the YAML."""

    file: str
    index: int
    path: tuple  # of the text in its document: `("effect",)`, or `("changes", "effect")` in a patch


@dataclass
class Ruleset:
    root: Path
    pack_id: str
    manifest: dict
    cards: dict[str, dict] = field(default_factory=dict)  # def id -> card document
    instances: list[str] = field(default_factory=list)  # card number -> def id
    # card number -> (zone, slot, seat): seat is the player a card of a per-player set belongs to, else None
    start: list[tuple[str, int | None, int | None]] = field(default_factory=list)
    zones: dict[str, dict] = field(default_factory=dict)
    counters: dict[str, dict] = field(default_factory=dict)
    actions: dict[str, dict] = field(default_factory=dict)  # in file order
    phases: dict[str, list[dict]] = field(default_factory=dict)  # when -> documents in order
    ends: list[dict] = field(default_factory=list)
    scorings: list[dict] = field(default_factory=list)
    functions: dict[str, dict] = field(default_factory=dict)
    flags: dict[str, dict] = field(default_factory=dict)  # flag id -> its `kind: flag` document
    table_flags: frozenset = frozenset()  # the flags declared `owner: table`
    categories: dict[str, str] = field(default_factory=dict)  # id -> kind (card, zone, tag, ...)
    code: dict[str, object] = field(default_factory=dict)  # "action/explore" -> compiled code
    fingerprint: str = ""  # changes whenever any document changes
    sources: dict[str, Source] = field(default_factory=dict)
    # `turns: rounds`: the table plays round after round, driven by phases, with no turn menus. Read from the
    # manifest once, as the pack is built (a pack is never edited after): the turn driver reads it at every turn.
    in_rounds: bool = field(init=False)

    def __post_init__(self):
        self.in_rounds = self.manifest.get("turns") == "rounds"

    @property
    def players(self) -> tuple[int, int]:
        spec = self.manifest.get("players") or {}
        return int(spec.get("min", 1)), int(spec.get("max", spec.get("min", 8)))

    def parameters(self, player_count: int) -> dict:
        values = {}
        for name, spec in (self.manifest.get("parameters") or {}).items():
            if isinstance(spec, dict) and "by_player_count" in spec:
                table = spec["by_player_count"]
                values[name] = table.get(str(player_count), spec.get("default"))
            elif isinstance(spec, dict):
                values[name] = spec.get("default")
            else:
                values[name] = spec
        return values

    @cached_property
    def score_counter(self) -> str | None:
        """The counter that decides who wins, as the end rules declare it (agents and the driver read it too):
        worked out at the first read, once the pack is loaded (`load` sets the end rules before anything reads it)."""
        for end in self.ends:
            if end.get("counter"):
                return end["counter"]
        return None

    def describe(self, exc) -> str:
        """An error of a game in words: a content error as `file:line:col: CODE message`, pointing into the
        YAML that caused it; a refused answer as `CODE message`; anything else (a bug) with its type."""
        if not isinstance(exc, (ContentError, GameError)):
            return f"{type(exc).__name__}: {exc}"

        message = coded(exc.code, getattr(exc, "message", str(exc)))
        source = self.sources.get(getattr(exc, "code_key", ""))
        if source is None:
            return message
        place = self.position(exc)
        if place is None:
            return f"{source.file}: {message}"
        return f"{source.file}:{place[1]}:{place[2]}: {message}"

    def position(self, exc) -> tuple[str, int, int, str] | None:
        """Where in the pack's YAML a content error points: (file, line, column, that line's text), or None."""
        source = self.sources.get(getattr(exc, "code_key", ""))
        if source is None:
            return None

        loaded = load_file(source.file)
        doc = next((d for d in loaded.documents if d.index == source.index), None)
        if doc is None or doc.node is None:
            return None
        lines = loaded.text.splitlines()
        line, col = text_position(doc.node, source.path, lines, getattr(exc, "offset", 0))
        return source.file, line, col, lines[line - 1] if 0 < line <= len(lines) else ""

    def def_values(self, name: str) -> dict:
        """The stat or ref `name` of every card id (0 for a stat a card lacks, None for a ref)."""
        cache: dict[str, dict] = self.__dict__.setdefault("_def_values", {})
        values = cache.get(name)
        if values is None:
            is_stat = name in (self.manifest.get("card_stats") or ()) or any(
                name in (c.get("stats") or {}) for c in self.cards.values()
            )
            values = cache[name] = {}
            for def_id, card in self.cards.items():
                stats, refs = card.get("stats") or {}, card.get("refs") or {}
                values[def_id] = stats[name] if name in stats else refs.get(name, 0 if is_stat else None)
        return values

    def card_values(self, name: str) -> list:
        """`def_values` by card number, built once per name: reading `card.vp` is one list index."""
        cache = self.__dict__.setdefault("_card_values", {})
        values = cache.get(name)
        if values is None:
            per_def = self.def_values(name)
            values = cache[name] = [per_def[def_id] for def_id in self.instances]
        return values

    def flag_holder(self, flag, player):
        """Whose flag `flag` is: the table's for a flag declared `owner: table`, else `player`'s (a hot path:
        one set lookup, the set made once per pack)."""
        return "table" if type(flag) is str and flag in self.table_flags else player

    @property
    def cooperative(self) -> bool:
        """`cooperative: true`: the players are one team that wins or loses together, so a bot that looks
        ahead weighs the team's position, not its lead over the others (who are its partners)."""
        return self.manifest.get("cooperative") is True


def load(root: Path) -> Ruleset:
    """Read and compile the pack at `root`, with what it inherits through `extends`. Refuses a pack with
    lint errors: the runtime trusts the checks. Plays from the documents lint has just read."""
    result = lint.lint([root], None)
    errors = [d for d in result.diagnostics if d.severity.value == "error"]
    if errors:
        raise PackError(errors, result.positions)
    effective = next(iter(result.effective.values()))
    docs = effective.all_documents()
    digest = hashlib.sha256(json.dumps([d for _, _, d in docs], sort_keys=True, default=str).encode())
    manifest: dict = next((d for _, _, d in docs if d.get("kind") == "pack"), {})
    rules = Ruleset(
        root=root, pack_id=manifest.get("id", root.name), manifest=manifest, fingerprint=digest.hexdigest()[:16]
    )
    ordered: dict[str, list] = {}
    for file, index, data in docs:
        kind = data.get("kind")
        doc_id = data.get("id")
        if kind == "pack" or not isinstance(doc_id, str):
            continue
        rules.categories.setdefault(doc_id, kind)
        ordered.setdefault(kind, []).append((file, index, data))
    for name in manifest.get("parameters") or {}:
        rules.categories[name] = "parameter"
    for kind, target in (
        ("zone", rules.zones),
        ("counter", rules.counters),
        ("function", rules.functions),
        ("action", rules.actions),
        ("flag", rules.flags),
    ):
        for _, _, data in ordered.get(kind, []):
            target[data["id"]] = data
    rules.table_flags = frozenset(f for f, spec in rules.flags.items() if spec.get("owner") == "table")
    seats = range(1, rules.players[1] + 1)
    for _, _, data in ordered.get("card", []):
        rules.cards[data["id"]] = data
        for tag in data.get("tags") or []:
            rules.categories.setdefault(tag, "tag")
        rules.categories.setdefault(data.get("type"), "type")
        if data.get("back"):  # `where back = danger`: a back is a word, as a type is
            rules.categories.setdefault(data["back"], "type")
        # a card whose deck is a player's zone is a set each player has: its copies once per seat
        per_player = rules.zones.get(data.get("deck"), {}).get("owner") == "player"
        for seat in seats if per_player else [None]:
            for _ in range(int(data.get("copies", 1))):
                rules.instances.append(data["id"])
                rules.start.append((data.get("deck"), data.get("slot"), seat))
    for _, _, data in sorted(ordered.get("phase", []), key=lambda d: d[2].get("order", 0)):
        rules.phases.setdefault(data.get("when"), []).append(data)
    rules.ends = [d for _, _, d in ordered.get("end", [])]
    rules.scorings = [d for _, _, d in sorted(ordered.get("scoring", []), key=lambda d: d[2].get("order", 0))]
    manifests = [(f, i, d) for f, i, d in docs if d is manifest and isinstance(d.get("id"), str)]
    for kind, docs_of_kind in [*ordered.items(), ("pack", manifests)]:
        for file, index, data in docs_of_kind:
            for path, _mode, _text in compiler.behaviour_texts(kind, data):
                at_file, at_index, at_path = effective.locate(file, index, path)
                rules.sources[compiler.code_key(kind, data["id"], path)] = Source(display(at_file), at_index, at_path)
    compiler.compile_rules(rules)
    return rules
