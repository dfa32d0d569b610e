"""Behaviour written where no rule reads it: a card's `effect` that no `resolve` of the pack reaches, a card's
`playable` (read by nothing), a subroutine action that nothing performs. The schema accepts such fields and
the DSL checks find them well-formed, yet at play they never happen, silently; lint says so (D008).

Which cards a `resolve` reaches is worked out from what the pack's DSL texts say, never from game words: a
`where type = X` / `tag = X` / `id = X` narrows it, followed through the names a text binds (`let`, `for
each`, `choose ... from ... as`). Anything else may be any card, so the check stays silent rather than
guess: it reports only what certainly never runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import dsl
from engine.content import schema as schema_check

# The card fields that hold behaviour (x-dsl in the card schema), and the verb whose run reads them.
# None: no verb or rule of the engine reads the field at all. A new x-dsl card field must be added here
# (tests/test_unread_fields.py checks it), saying what runs it.
CARD_FIELD_READERS: dict[str, str | None] = {"effect": "resolve", "playable": None}

ANY = None  # a selection of cards that may be any card
_NARROWING_FIELDS = ("type", "tag", "id")
_SUBSETS = ("first", "last", "without", "top")  # functions whose value is part of their first argument's
_CHOOSING = ("choose", "choose_secretly")  # verbs that bind some of their `from` options


@dataclass
class Reach:
    """What the pack's DSL texts run: which cards `resolve` may reach, which actions `perform` may run."""

    resolves: list  # one selection per `resolve`: ANY, or a frozenset of (field, value)
    performed: set  # action ids named by `perform`
    performs_any: bool  # a `perform` names its action by a value worked out at play

    def resolves_card(self, card: dict) -> bool:
        return any(selection is ANY or _matches(selection, card) for selection in self.resolves)

    def narrowings(self) -> list[str]:
        """What the pack's `resolve`s are narrowed to, in words, for a hint."""
        return sorted(
            {f"{field} = {value}" for selection in self.resolves if selection is not ANY for field, value in selection}
        )


def _matches(selection, card: dict) -> bool:
    for field, value in selection:
        if (
            field == "type"
            and card.get("type") == value
            or field == "id"
            and card.get("id") == value
            or field == "tag"
            and value in (card.get("tags") or [])
        ):
            return True
    return False


def _statements(block):
    """Every statement of an effect, at any depth (an expression or condition text has none)."""
    pending = [block]
    while pending:
        node = pending.pop()
        op = node[0]
        if op == "block":
            pending.extend(reversed(node[2]))
            continue
        yield node
        if op == "if":
            pending.extend(body for _, body in node[2])
            if node[3] is not None:
                pending.append(node[3])
        elif op == "repeat":
            pending.append(node[3])
        elif op == "for":
            pending.append(node[4])


class _Text:
    """The card selections of one DSL text, following the names it binds (wherever in the text: a name bound
    twice may hold either value)."""

    def __init__(self, ir, values: dict[str, set]):
        self.values = values  # field -> the values the pack's cards have for it
        self.bindings: dict[str, list] = {}
        for node in _statements(ir):
            if node[0] == "let" or node[0] == "for":
                self.bindings.setdefault(node[2], []).append(node[3])
            elif node[0] == "verb":
                for prep, _, value in node[4]:
                    if prep == "as" and value[0] == "name":
                        source = next((v for p, _, v in node[4] if p == "from"), None) if node[2] in _CHOOSING else None
                        self.bindings.setdefault(value[2], []).append(source)
        self.visiting: set[str] = set()

    def selection(self, node):
        """ANY, or a frozenset of (field, value): the cards `node` may hold match one of them."""
        if node is None:
            return ANY
        op = node[0]
        if op == "where":
            narrowed = self.condition(node[3])
            return narrowed if narrowed is not ANY else self.selection(node[2])
        if op == "name":
            name = node[2]
            if name not in self.bindings or name in self.visiting:
                return ANY
            self.visiting.add(name)
            try:
                return self.union(self.selection(bound) for bound in self.bindings[name])
            finally:
                self.visiting.discard(name)
        if op == "op" and node[2] == "+":
            return self.union([self.selection(node[3]), self.selection(node[4])])
        if op == "list":
            return self.union(self.selection(item) for item in node[2])
        if op == "call" and node[2] in _SUBSETS and node[3]:
            return self.selection(node[3][0])
        return ANY

    @staticmethod
    def union(selections):
        out = set()
        for selection in selections:
            if selection is ANY:
                return ANY
            out |= selection
        return frozenset(out)

    def condition(self, node):
        """The cards a `where` condition lets through, when it says so plainly."""
        op = node[0]
        if op == "cmp" and node[2] == "==":
            for tested, value in ((node[3], node[4]), (node[4], node[3])):
                field = self.tested_field(tested)
                if field and value[0] == "name" and value[2] not in self.bindings and value[2] in self.values[field]:
                    return frozenset({(field, value[2])})
            return ANY
        if op == "and":
            return next((s for s in map(self.condition, node[2]) if s is not ANY), ANY)
        if op == "or":
            return self.union(self.condition(part) for part in node[2])
        return ANY

    def tested_field(self, node):
        if node[0] == "name" and node[2] in _NARROWING_FIELDS and node[2] not in self.bindings:
            return node[2]
        if node[0] == "field" and node[3] in _NARROWING_FIELDS and node[2][0] == "name" and node[2][2] == "card":
            return node[3]
        return None


def reach(documents, parameters=(), parsed=None) -> Reach:
    """What the DSL texts of `documents` (data dicts of one composed pack) resolve and perform. `parsed`:
    (text, mode) -> its instructions, as the files' own checks (or the cache) already have them."""
    parsed = parsed or {}
    cards = [d for d in documents if d.get("kind") == "card"]
    values = {
        "type": {c.get("type") for c in cards},
        "id": {c.get("id") for c in cards},
        "tag": {t for c in cards for t in (c.get("tags") or []) if isinstance(t, str)},
    }
    for field, raw in values.items():
        values[field] = {v for v in raw if isinstance(v, str) and v not in parameters}
    found = Reach([], set(), False)
    for data in documents:
        if data.get("kind") not in schema_check.kinds():
            continue
        for pattern, role, mode in schema_check.field_roles(data["kind"]):
            if role != "dsl":
                continue
            for _, text in schema_check.values_at(data, pattern):
                if not isinstance(text, str):
                    ir = None
                else:
                    ir = parsed[(text, mode)] if (text, mode) in parsed else dsl.parse(text, mode)[0]
                if ir is None:  # a text that does not parse may say anything: assume the most
                    found.resolves.append(ANY)
                    found.performs_any = True
                    continue
                local = None
                for node in _statements(ir) if ir[0] == "block" else ():
                    if node[0] != "verb" or node[2] not in ("resolve", "perform"):
                        continue
                    local = local or _Text(ir, values)
                    target = node[3][0] if node[3] else None
                    if node[2] == "resolve":
                        found.resolves.append(local.selection(target))
                    elif target is not None and target[0] in ("name", "call") and target[2] not in local.bindings:
                        found.performed.add(target[2])  # `perform suffer` or `perform suffer(2)`
                    else:
                        found.performs_any = True
    return found


@dataclass
class Unread:
    """One finding: the document, the field, and words for the message and hint."""

    document: dict
    path: tuple
    message: str
    hint: str


def unread(documents, parameters=(), parsed=None) -> list[Unread]:
    """The behaviour fields of `documents` (one composed pack) that nothing of the pack ever runs."""
    documents = list(documents)
    found = reach(documents, parameters, parsed)
    out = []
    for data in documents:
        kind = data.get("kind")
        if kind == "card":
            out.extend(_unread_card_fields(data, found))
        elif (
            kind == "action"
            and data.get("subroutine") is True
            and isinstance(data.get("effect"), str)
            and not found.performs_any
            and data.get("id") not in found.performed
        ):
            out.append(
                Unread(
                    data,
                    ("subroutine",),
                    f"the action `{data['id']}` never runs: it is a subroutine, and no rule of the pack performs it",
                    f"write `perform {data['id']}` where it should happen, or remove `subroutine: true` "
                    "to offer it to the players",
                )
            )
    return out


def _unread_card_fields(card: dict, found: Reach):
    kind_word = card.get("type") if isinstance(card.get("type"), str) else "card"
    for field, reader in CARD_FIELD_READERS.items():
        if not isinstance(card.get(field), str) or not card[field].strip():
            continue
        if reader is None:
            yield Unread(
                card,
                (field,),
                f"the `{field}` of {kind_word} `{card['id']}` is never read: no rule or "
                f"verb of knap uses a card's `{field}`",
                "write the condition where the card is used: in the `available` of the action that plays "
                "it, or as `require ...` in that action's effect",
            )
        elif reader == "resolve" and not found.resolves_card(card):
            reached = found.narrowings()
            hint = (
                "a card's effect runs only when a rule resolves the card: write `resolve CARDS` in the action "
                "or phase where it should happen (`resolve card` in an action performed `with` the card)"
            )
            if reached:
                hint += "; the pack's `resolve`s reach only cards where " + " or ".join(f"`{w}`" for w in reached)
            else:
                hint += "; if the words are for the players only, move them to `text:`"
            yield Unread(
                card,
                (field,),
                f"the `{field}` of {kind_word} `{card['id']}` never runs: no rule of the "
                f"pack resolves the effect of {kind_word} cards",
                hint,
            )
