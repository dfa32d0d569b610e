"""What the language server reads under a cursor (engine/lsp/language.py), without a server: where an effect text's
characters are, which words are an id's uses (never prose or comments), and a half-typed document's kind."""

from __future__ import annotations

from engine.content.yamlload import load_text
from engine.lsp import language

CARDS = """\
kind: card
id: axe
name: Axe for the axe fight  # axe in a comment
type: technology
deck: tools
cost: [wood, axe_head]
text: "An axe."
effect: |
  gain 1 axe
  if count(hand(me) where id = axe) > 0:
      log "axe"
provenance: placeholder
reason: the axe is invented
---
kind: card
id: saw
name: Saw
type: technology
deck: tools
requires: [axe]
effect: "gain   card.axe axe"
"""


def _at(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    before = text[:offset]
    return before.count("\n"), offset - (before.rfind("\n") + 1)


def test_a_cursor_in_an_effect_text_knows_its_offset_in_the_text():
    loaded = load_text(CARDS, "cards.yaml")
    line, character = _at(CARDS, "count(")
    cursor = language.cursor_at(loaded, line, character + 2)
    assert (cursor.kind, cursor.path, cursor.mode) == ("card", ("effect",), "effect")
    assert cursor.text[cursor.offset - 2 : cursor.offset + 4] == "count("
    line, character = _at(CARDS, "card.axe")
    cursor = language.cursor_at(loaded, line, character + 5)  # in a double-quoted text
    assert cursor.text[cursor.offset :].startswith("axe axe")


def test_a_cursor_on_a_key_or_in_a_reference_field():
    loaded = load_text(CARDS, "cards.yaml")
    line, _ = _at(CARDS, "provenance")
    cursor = language.cursor_at(loaded, line, 2)
    assert cursor.at_key and cursor.path == ()
    line, character = _at(CARDS, "axe_head")
    cursor = language.cursor_at(loaded, line, character + 1)
    assert cursor.path == ("cost", 1) and language.reference_target("card", cursor.path) == ("ref", "card")


def test_an_ids_uses_are_its_definition_references_and_names_in_texts_not_prose_or_comments():
    loaded = load_text(CARDS, "cards.yaml")
    spans = language.occurrences(loaded, "axe", {"axe": "card"})
    lines = CARDS.split("\n")
    found = [(s.line, lines[s.line][: s.start].strip()) for s in spans]
    assert all(lines[s.line][s.start : s.end] == "axe" for s in spans)
    assert found == [
        (1, "id:"),
        (8, "gain 1"),
        (9, "if count(hand(me) where id ="),
        (19, "requires: ["),
        (20, 'effect: "gain   card.axe'),
    ]  # not the name, the comment, the text, the string "axe", the reason, `axe_head` or the field `card.axe`


def test_a_half_typed_document_still_says_its_kind_and_field():
    text = "kind: zone\nid: pile\nvisi\n---\nkind: card\nid: x\neffect: |\n  gai\n"
    cursor = language.guess_cursor(text, 2, 4)
    assert cursor.kind == "zone" and cursor.at_key
    cursor = language.guess_cursor(text, 7, 5)
    assert cursor.kind == "card" and cursor.mode == "effect"


def test_hover_texts_come_from_the_one_registry():
    assert language.builtin_hover("count").startswith("```\ncount(")
    assert "draw" in language.builtin_hover("draw")
    assert language.builtin_hover("no_such_word") is None
