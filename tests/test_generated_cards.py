"""Many cards from one document: `generate:` (docs/authoring.md, "Many cards at once"; engine/content/generate.py).

A range or a table makes one card per value; `{n}` in the document's texts is replaced, `"{n}"` alone is the
value itself; the ids are usable in deck compositions; every problem of a generated card is reported once, at
the generating document.
"""

from __future__ import annotations

import re

from conftest import REPO, goal_end, write_tree

from engine.runtime.game import Game
from engine.runtime.rules import load


def doc_block(heading: str) -> str:
    """The first YAML example under a heading of docs/authoring.md."""
    text = (REPO / "docs" / "authoring.md").read_text(encoding="utf-8")
    section = text[text.index(f"### {heading}\n") :]
    return re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)


CARDS = doc_block("Many cards at once")
COMPOSITION = ", ".join(f"number_{n}: 1" for n in range(3, 36))
MANIFEST = f"""kind: pack
id: tiny
name: Tiny
version: 1.0.0
players: {{min: 1, max: 2}}
decks:
  number_deck: {{size: 33, composition: {{{COMPOSITION}}}}}
  chips: {{size: 4, composition: {{red_chip: 2, blue_chip: 2}}}}
"""
RULES = """kind: zone
id: number_deck
name: Numbers
type: deck
---
kind: zone
id: chips
name: Chips
type: supply
---
kind: zone
id: hand
name: Hand
type: hand
owner: player
---
kind: counter
id: vp
name: VP
owner: player
---
kind: action
id: act
name: Act
limit: once_per_turn
effect: |
  draw 1 from number_deck to hand as drawn
  gain drawn.value vp
  gain sum(chips where tag = blue, worth) vp
---
""" + goal_end("1000")


def _pack(tmp_path, cards=CARDS, rules=RULES, manifest=MANIFEST):
    return write_tree(tmp_path / "tiny", {"pack.yaml": manifest, "rules.yaml": rules, "cards.yaml": cards})


def test_the_documented_example_lints_clean(tmp_path, lint_json):
    code, found = lint_json(_pack(tmp_path))
    assert code == 0 and found == [], found


def test_cards_3_to_35_each_with_its_value(tmp_path):
    rules = load(_pack(tmp_path))
    numbers = {i: c for i, c in rules.cards.items() if c["type"] == "number"}
    assert sorted(numbers) == sorted(f"number_{n}" for n in range(3, 36))
    for n in range(3, 36):
        card = numbers[f"number_{n}"]
        assert card["stats"] == {"value": n} and card["name"] == f"Number {n}" and "generate" not in card
    chips = [rules.cards[i] for i in rules.instances if rules.cards[i]["type"] == "chip"]
    assert sorted(c["id"] for c in chips) == ["blue_chip", "blue_chip", "red_chip", "red_chip"]  # copies: 2 each
    assert rules.cards["blue_chip"]["tags"] == ["blue"] and rules.cards["blue_chip"]["stats"] == {"worth": 5}


def test_generated_cards_play(tmp_path):
    game = Game.new(load(_pack(tmp_path)), 1, 0)
    game.apply(game.decision.options.index("act"), "P1")
    [drawn] = game.state["zones"]["hand:P1"]
    value = game.rules.cards[game.rules.instances[drawn]]["stats"]["value"]
    assert 3 <= value <= 35
    assert game.state["counters"]["P1"]["vp"] == value + 10  # two blue chips worth 5


def test_a_duplicate_generated_id_is_reported_once_at_the_generating_document(tmp_path, lint_json):
    cards = CARDS.replace("id: number_{n}            # number_3 ... number_35: ids must differ", "id: number")
    _code, found = lint_json(_pack(tmp_path, cards))
    assert [f[:4] for f in found if f[3] == "R002"] == [("cards.yaml", 2, 5, "R002")], found


def test_a_key_generate_does_not_give_is_reported_at_its_text(tmp_path, lint_json):
    cards = CARDS.replace("name: Number {n}", "name: Number {colour}")
    code, found = lint_json(_pack(tmp_path, cards))
    assert code == 1
    assert found == [
        ("cards.yaml", 3, 7, "S008", "`{colour}` is not a key of `generate` (its keys: `{n}`)"),
    ], found  # the deck's composition names cards the broken document would have made: not reported


def test_a_generated_cards_mistake_points_at_the_generating_document_once(tmp_path, lint_json):
    cards = CARDS.replace("type: chip\n", "type: chip\n# knap: ignore[D008]\neffect: gain card.worth vpp\n")
    _code, found = lint_json(_pack(tmp_path, cards))
    assert found == [("cards.yaml", 14, 25, "D002", "unknown name `vpp`")], found


def test_a_bad_range_is_a_finding_and_nothing_more(tmp_path, lint_json):
    cards = CARDS.replace("generate: {n: {from: 3, to: 35}}", "generate: {n: {from: 35, to: 3}}")
    _code, found = lint_json(_pack(tmp_path, cards))
    assert [(f[1], f[3]) for f in found] == [(6, "S006")], found
    cards = CARDS.replace("generate: {n: {from: 3, to: 35}}", "generate: {n: [3, 35]}")
    _code, found = lint_json(_pack(tmp_path, cards))
    assert [(f[1], f[3]) for f in found] == [(6, "S003")], found
