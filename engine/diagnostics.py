"""One shape for every problem any stage finds, and the table of rule codes.

Every stage (load, schema, DSL, references, graph) reports `Diagnostic`s, so `knap lint` is just
"run the front half and print them". The `RULES` table is the single source for `--explain`, the
SARIF rule list and docs/lint-rules.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    stage: str
    severity: Severity
    summary: str
    explanation: str


STAGES = {
    "Y": "load: reading YAML safely",
    "P": "pack: manifests, file layout and packs that extend packs",
    "S": "schema: document shapes",
    "D": "dsl: effect, condition and expression texts",
    "R": "references: ids, decks and parameters across documents",
    "G": "graph: technology prerequisites",
    "V": "provenance: values not taken from the rulebook",
    "L": "lint: suppressions and configuration",
}


def _rule(code, name, severity, summary, explanation):
    return Rule(code, name, STAGES[code[0]].split(":")[0], Severity(severity), summary, explanation)


RULES: dict[str, Rule] = {
    r.code: r
    for r in [
        _rule(
            "Y001",
            "yaml-syntax",
            "error",
            "The file is not valid YAML.",
            "The YAML parser stopped at this position. Check indentation, unclosed quotes or brackets, and "
            "a `:` missing after a key.",
        ),
        _rule(
            "Y002",
            "duplicate-key",
            "error",
            "A mapping has the same key twice.",
            "YAML silently keeps the last of two equal keys, so the first value would be lost. Remove or "
            "rename one of them.",
        ),
        _rule(
            "Y003",
            "non-string-key",
            "error",
            "A mapping key is not a string.",
            "Keys such as `1`, `yes`, `on` or `null` are read as numbers, booleans or nothing. Quote the key "
            '(`"on":`) so it stays text.',
        ),
        _rule(
            "Y004",
            "forbidden-tag",
            "error",
            "The YAML uses a tag that content may not use.",
            "Content is plain data: only strings, numbers, booleans, null, lists and mappings. Tags such as "
            "`!!python/object` or `!custom` could construct objects and are refused.",
        ),
        _rule(
            "Y005",
            "alias-expansion",
            "error",
            "Anchors and aliases expand to too much data.",
            "Aliases (`*name`) may repeat an anchored value, but the expanded document is capped so that a "
            '"billion laughs" file cannot exhaust memory. Write the data out or reduce the repetition.',
        ),
        _rule(
            "Y006",
            "file-too-large",
            "error",
            "The file is larger than the size limit.",
            "Content files are capped (1 MiB by default) so that linting stays fast and bounded. Split the "
            "file into several smaller ones.",
        ),
        _rule(
            "Y007",
            "nesting-too-deep",
            "error",
            "The document nests deeper than the limit.",
            "Mappings and lists may nest at most 64 levels. Deeper structures are almost always a mistake or an "
            "attack on the parser.",
        ),
        _rule(
            "Y008",
            "encoding",
            "error",
            "The file is not UTF-8 text.",
            "Save the file as UTF-8. Binary files do not belong in a pack.",
        ),
        _rule(
            "Y009",
            "not-a-mapping",
            "error",
            "A document is not a mapping.",
            "Every YAML document in a pack is a mapping with a `kind` field (`kind: card`, `kind: zone`, ...).",
        ),
        _rule(
            "P001",
            "no-manifest",
            "error",
            "YAML files lie outside any pack.",
            "A pack is a folder with a `pack.yaml` manifest. Move the file into a pack, or add a manifest. Only a "
            "file that looks like content (a top-level `kind:`, or an editor modeline naming one of Knapper's "
            "schemas) is reported: other YAML files (CI configs, `.pre-commit-config.yaml`) are left alone.",
        ),
        _rule(
            "P002",
            "manifest-kind",
            "error",
            "`pack.yaml` must hold exactly one `kind: pack` document.",
            "The manifest names the pack, its version and its parameters. Other kinds of documents go in the "
            "pack's other files; a `kind: pack` document belongs only in `pack.yaml`.",
        ),
        _rule(
            "P003",
            "unknown-pack",
            "error",
            "A pack, file or path cannot be found or read.",
            "A pack named in `extends` must be a sibling folder of the pack, a pack of the project's `content/`, "
            "of KNAP_PACKS or of `[tool.knap] packs`, or a built-in pack (`knap list` shows them); an entry is a "
            "pack id, never a path. A file of a pack must be a readable regular file.",
        ),
        _rule(
            "P004",
            "pack-id-mismatch",
            "warning",
            "The pack id differs from its folder name.",
            "Packs are found by folder name when one pack extends another; keep the two the same.",
        ),
        _rule(
            "P005",
            "extends-cycle",
            "error",
            "Packs extend each other in a cycle.",
            "A pack builds on the packs it extends, so `a` extending `b` extending `a` has nothing to start from. "
            "Remove one `extends` of the cycle the message prints.",
        ),
        _rule(
            "P006",
            "extension-conflict",
            "error",
            "A pack defines, replaces, patches or removes an inherited id in two ways at once.",
            "A document whose id a base already uses needs `replace: true` (and the same kind) to take its place; "
            "one id is replaced, patched or removed once per pack; two extended packs may not both change one "
            "document, parameter or deck (what only one of them changed, the other inheriting it unchanged, is "
            "taken from it), nor set `players` or `turns` differently unless the pack sets it itself.",
        ),
        _rule(
            "P007",
            "unknown-target",
            "error",
            "A removal, patch or replacement names an id no extended pack defines.",
            "`remove:`, `kind: patch` (`target:`) and `replace: true` change documents inherited through "
            "`extends`; the id must be one of theirs. The hint suggests a close id.",
        ),
        _rule(
            "P008",
            "broken-base",
            "error",
            "A pack this pack extends has errors of its own.",
            "A variant is checked on top of its base, so the base's errors are fixed first; `knap lint BASE` "
            "shows them.",
        ),
        _rule(
            "P009",
            "link-outside-pack",
            "error",
            "A file or folder of a pack is a link leading out of the pack.",
            "knap never follows a link out of a pack's folder: a pack may come from a stranger, and a file of it "
            "linked to a private file of the machine would otherwise have lint quote that file in a public log. "
            "The link is not read and the finding says nothing of where it leads. Copy the file into the pack; a "
            "link that stays inside the pack is fine, and a whole pack folder may be a link (its files are then "
            "checked against the folder it leads to).",
        ),
        _rule(
            "S001",
            "missing-property",
            "error",
            "A required property is missing.",
            "The document's kind requires this property. See the schema (`knap schema export`) for what it means.",
        ),
        _rule(
            "S002",
            "unknown-property",
            "error",
            "A property is not known for this kind of document.",
            "Misspelt keys are caught here: the schema lists every property a kind may have.",
        ),
        _rule(
            "S003",
            "wrong-type",
            "error",
            "A value has the wrong type.",
            "For example a list where a number was expected. The message names the expected type.",
        ),
        _rule(
            "S004",
            "value-not-allowed",
            "error",
            "A value is not one of the allowed values.",
            "The property accepts a fixed set of words; the message lists them.",
        ),
        _rule(
            "S005",
            "bad-format",
            "error",
            "A value does not have the required form.",
            "Ids are lower-case snake_case (`stone_knife`); versions are `1.2.3`.",
        ),
        _rule(
            "S006",
            "out-of-range",
            "error",
            "A value is outside its allowed range or size.",
            "Counts and copies are at least 0 or 1, lists may have a minimum or maximum length.",
        ),
        _rule(
            "S007",
            "unknown-kind",
            "error",
            "The `kind` of a document is missing or unknown.",
            "Every document says what it is with `kind:`; the message lists the kinds there are.",
        ),
        _rule(
            "S008",
            "schema-violation",
            "error",
            "A document breaks a rule of its schema.",
            "A catch-all for schema constraints that have no code of their own.",
        ),
        _rule(
            "D001",
            "dsl-syntax",
            "error",
            "An effect, condition or expression text cannot be parsed.",
            "The message shows the line with a caret and says what was expected there. See docs/dsl.md.",
        ),
        _rule(
            "D002",
            "dsl-unknown-name",
            "error",
            "A name in a DSL text is not defined.",
            "Names are verbs, functions, ids of the pack (cards, zones, counters, tags, parameters) or names "
            "bound earlier with `let`, `choose` or `for each`.",
        ),
        _rule(
            "D003",
            "dsl-arity",
            "error",
            "A verb or function gets the wrong number or kind of arguments.",
            "Every verb and function declares its arguments in docs/dsl.md.",
        ),
        _rule(
            "D004",
            "dsl-type",
            "error",
            "A DSL value has the wrong type for where it is used.",
            "For example a number where a zone is expected.",
        ),
        _rule(
            "D005",
            "dsl-limit",
            "error",
            "A DSL text is too long or nests too deeply.",
            "Texts are capped in length and nesting so that untrusted content cannot stall the engine.",
        ),
        _rule(
            "D006",
            "dsl-hidden-id",
            "warning",
            "A name bound in a text is also an id of the pack.",
            "`let`, `for each` and `as` give a value a name; if that name is a card, tag, zone, counter or other "
            "id of the pack, the id cannot be used for the rest of the text: `has(card, carrier)` would read "
            "the bound value. Choose another name.",
        ),
        _rule(
            "D007",
            "endless-free-action",
            "warning",
            "An action can be taken again and again in one turn at no cost.",
            "An action with no cost, no `limit`, no `whole_turn` and no `available` condition, whose effect neither "
            "ends the turn (`end_turn`) nor can fail (`require`, `pay`, `choose`, ...), stays on the menu for the "
            "rest of the turn: the turn ends only when the player chooses to end it. A bot that likes the action "
            "takes it for ever; `knap sim` and `knap play` stop such a game after `--max-answers-per-turn` answers "
            "and report it as stalled. Give the action a limit, a cost or a condition.",
        ),
        _rule(
            "D008",
            "behaviour-never-runs",
            "warning",
            "Behaviour is written where no rule of the pack reads it.",
            "A card's `effect` runs only when a rule resolves the card (`resolve CARDS`); a subroutine action runs "
            "only when a rule performs it (`perform ACTION`); a card's `playable` is read by nothing. Lint looks at "
            "every `resolve` and `perform` of the pack (and of the packs it extends): when none can reach the card "
            "or action, what it says never happens at play, without a word. A `resolve` is narrowed by "
            "`where type = ...`, `tag = ...` or `id = ...`, followed through the names its text binds; any other "
            "`resolve` may reach every card. Write the `resolve` or `perform` where it should happen, or move words "
            "meant for the players to `text:`. Bad: a technology with `effect: gain 2 vp` in a pack whose only "
            "`resolve` is `resolve drawn where type = event`. Good: the action that masters technologies ends with "
            "`resolve tech` (`tech` being the technology it chose), so the effect runs when one is mastered.",
        ),
        _rule(
            "D009",
            "flag-never-set",
            "warning",
            "A declared flag is never set by any effect of the pack.",
            "A flag (`kind: flag`) is set by `flag NAME` (or `set NAME to ...`) and read by `flagged(NAME, PLAYER)`. "
            "When no effect of the pack (with the packs it extends) sets it, every `flagged` test of it is false "
            "and what it guards never happens. Set it where it happens, or remove the flag and its tests.",
        ),
        _rule(
            "D010",
            "flag-never-read",
            "warning",
            "A declared flag is set but never read.",
            "No effect of the pack (with the packs it extends) tests it with `flagged(NAME ...)`, so setting it "
            "changes nothing: a misspelt test elsewhere, or a rule left out. Test it where it matters, or remove it.",
        ),
        _rule(
            "D011",
            "hidden-value-logged",
            "warning",
            "A log line shows the value of a counter that not every player may read.",
            "Every player reads a `log` line. A counter with `visibility: owner` or `hidden` shows `?` to the others, "
            'and its changes are logged without amounts; a value put into a log line (`log "{me.chips} left"`) '
            'tells them anyway. Bad: `log "{me} has {me.chips} chips"` with `chips` owner-only. Good: `log '
            '"{me} pays a chip"`, and the owner reads the amount in their own view.',
        ),
        _rule(
            "D012",
            "field-hidden-by-id",
            "warning",
            "Inside `where` or `map`, a bare name is both an id of the pack and a field cards print.",
            "Inside `where`, `map`, `sort` and `showing`, a card's fields are bare names (`where vp > 1`), but an id "
            "of the pack comes first: with a card `flute` and a stat `flute`, `where flute = 1` compares the id "
            "`flute` with 1, never the stat. Bad: `tools(me) where flute = 1` when `flute` is also a card. Good: "
            "`tools(me) where card.flute = 1`, or a stat named `plays_music`.",
        ),
        _rule(
            "R001",
            "unknown-reference",
            "error",
            "A field refers to an id that does not exist.",
            "Every id used in a field (a card's deck, a cost, a zone's reshuffle pile, ...) must be defined in "
            "the pack or a pack it extends.",
        ),
        _rule(
            "R002",
            "duplicate-id",
            "error",
            "Two documents of a pack have the same id.",
            "Ids are unique within a pack, whatever their kind, so that effects can name them.",
        ),
        _rule(
            "R003",
            "deck-composition",
            "error",
            "A deck's cards do not match the composition the manifest declares.",
            "The manifest's `decks` section states how many copies of each card a deck holds; the card "
            "documents must add up to exactly that.",
        ),
        _rule(
            "R004",
            "component-count",
            "error",
            "A component's declared count does not match its cards.",
            "A component that says it is made of cards (`cards_of`) must count exactly the copies of those cards.",
        ),
        _rule(
            "R005",
            "missing-player-count",
            "error",
            "A parameter given by player count lacks a count the pack allows.",
            "A `by_player_count` table without a `default` must give a value for every player count from "
            "`players.min` to `players.max`; at play a missing one has no value, and a rule comparing with it "
            "(an end goal) would never hold.",
        ),
        _rule(
            "G001",
            "unknown-prerequisite",
            "error",
            "A prerequisite names a card that does not exist.",
            "`requires:` lists ids of cards that must be mastered first.",
        ),
        _rule(
            "G002",
            "prerequisite-cycle",
            "error",
            "Prerequisites form a cycle.",
            "A cycle `a -> b -> a` means none of its cards can ever be mastered. Break the cycle.",
        ),
        _rule(
            "G003",
            "unreachable",
            "error",
            "A card can never become available.",
            "Starting from the cards with no prerequisites, no order of mastering reaches this one, because one "
            "of its prerequisites is itself unreachable.",
        ),
        _rule(
            "G004",
            "repeated-prerequisite",
            "warning",
            "A prerequisite is listed twice.",
            "Listing a prerequisite twice changes nothing; remove the repetition.",
        ),
        _rule(
            "V001",
            "provenance-reason",
            "error",
            "A placeholder or assumption has no reason.",
            "Every value not taken from the rulebook is marked `provenance: placeholder|assumption|reference` "
            "and carries a one-line `reason:` so that a reviewer knows what to check.",
        ),
        _rule(
            "L001",
            "unknown-code",
            "warning",
            "A suppression or option names an unknown rule code.",
            "See `knap lint --explain` for the list of codes.",
        ),
    ]
}

# Raised as exit 2, never shown as a traceback.
INTERNAL = "E000"


@dataclass
class Diagnostic:
    code: str
    message: str
    file: str = ""
    line: int = 0  # 1-based; 0 means "the whole file"
    col: int = 0  # 1-based
    hint: str = ""
    # None (or the text of a severity) is only the constructor's "not given": __post_init__ puts in the rule's
    severity: Severity = None  # type: ignore[assignment]  # never None once made (__post_init__)
    source: str = ""  # the quoted source line, filled in by the reporter
    # Where the position is not known yet: a path into the document, resolved lazily (lint/checks.py `locate`).
    doc_index: int | None = field(default=None, compare=False)
    path: tuple | None = field(default=None, compare=False)
    offset: int | None = field(default=None, compare=False)  # offset inside a DSL text at `path`
    at_key: bool = field(default=False, compare=False)  # point at the key of `path`, not its value
    # The one sure fix, when there is one (lint_fix.py): plain data, kept by the cache and printed in json/SARIF
    fix: dict | None = field(default=None, compare=False)

    def __post_init__(self):
        if self.severity is None:
            rule = RULES.get(self.code)
            self.severity = rule.severity if rule else Severity.ERROR
        elif not isinstance(self.severity, Severity):
            self.severity = Severity(self.severity)

    @property
    def sort_key(self):
        return (self.file, self.line, self.col, self.code, self.message)

    @classmethod
    def from_json(cls, data: dict) -> Diagnostic:
        return cls(**{k: v for k, v in data.items() if k != "name"})

    def to_json(self) -> dict:
        d = asdict(self)
        for k in ("doc_index", "path", "offset", "at_key"):
            d.pop(k)
        if d["fix"] is None:
            d.pop("fix")
        d["severity"] = self.severity.value
        rule = RULES.get(self.code)
        d["name"] = rule.name if rule else "internal"
        return d
