"""`card_stats` and `card_refs` in pack.yaml: names of fields cards may print, declared ahead of the cards that
print them (rules written for a third action no card has yet, a field a variant's cards bring). Before, a pack
had to print every such name on some card (the Paleo expansion kept a blank card printing 190 zeros)."""

from __future__ import annotations

import json

from conftest import vp_and_goal, write_tree

from engine import dsl
from engine.runtime import rules as rules_module
from engine.runtime.compiler import compile_text
from engine.runtime.context import Ctx
from engine.runtime.game import Game

MANIFEST = "kind: pack\nid: {id}\nname: N\nversion: 1.0.0\nplayers: {{min: 1, max: 2}}\n"
RULES = (
    """kind: zone
id: deck
name: Deck
type: deck
---
kind: card
id: axe
name: Axe
type: tool
deck: deck
stats: {a_food: 2}
---
"""
    + vp_and_goal()
    + """---
kind: action
id: act
name: Act
whole_turn: true
effect: |
  let c = top(deck)
  gain c.a_food + c.c_food vp
  if c.c_needs = none:
      gain 1 vp
"""
)


def _lint(knap, path):
    # --no-cache: no entry written into the .knap_cache of the working folder, the repository, which the
    # test processes share
    code, out, _ = knap("lint", str(path), "--no-cache", "--format", "json")
    return code, [(d["code"], d["message"]) for d in json.loads(out)["diagnostics"]]


def test_a_declared_field_reads_0_or_none_and_lint_knows_it(tmp_path, knap):
    undeclared = write_tree(tmp_path / "plain", {"pack.yaml": MANIFEST.format(id="plain"), "rules.yaml": RULES})
    code, found = _lint(knap, undeclared)
    assert code == 1 and {m for _, m in found} == {"cards have no field `c_food`", "cards have no field `c_needs`"}, (
        found
    )
    manifest = MANIFEST.format(id="ahead") + "card_stats: [c_food]\ncard_refs: [c_needs]\n"
    ahead = write_tree(tmp_path / "ahead", {"pack.yaml": manifest, "rules.yaml": RULES})
    assert _lint(knap, ahead) == (0, [])
    game = Game.new(rules_module.load(ahead), 1, 0)
    top = game.state["zones"]["deck"][-1]
    read = compile_text(game.rules, "t", "[top(deck).c_food, top(deck).c_needs, top(deck).a_food]", dsl.EXPRESSION)
    assert read(Ctx(game, {}, "P1", None)) == [0, None, 2] and game.rules.instances[top] == "axe"
    game.apply(game.legal("P1")[0], "P1")
    assert game.over and game.counter("P1", "vp") == 3


def test_a_variant_adds_its_names_to_its_base(tmp_path):
    base = MANIFEST.format(id="base") + "card_stats: [c_food]\ncard_refs: [c_needs]\n"
    write_tree(tmp_path, {"base/pack.yaml": base, "base/rules.yaml": RULES})
    variant = MANIFEST.format(id="variant") + "extends: [base]\ncard_stats: [d_food, c_food]\n"
    write_tree(tmp_path, {"variant/pack.yaml": variant})
    rules = rules_module.load(tmp_path / "variant")
    assert rules.manifest["card_stats"] == ["c_food", "d_food"] and rules.manifest["card_refs"] == ["c_needs"]
