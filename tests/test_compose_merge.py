"""A pack that extends several variants of one base (engine/content/compose.py, docs/authoring.md "Variants
and expansions"): a three-way merge. What one variant changed and the others inherited unchanged is taken;
what two of them changed differently is a conflict (P006) at the combination's `extends`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import MINIMAL_RULES, tiny_manifest
from conftest import write_tree as write

from engine.runtime.rules import load

BASE_MANIFEST = (
    tiny_manifest("base")
    + """parameters:
  goal:
    description: Points that end the game.
    default: 3
    provenance: assumption
    reason: A small test pack.
decks:
  deck: {size: 2, composition: {stone: 2}}
"""
)

BASE_RULES = (
    MINIMAL_RULES
    + """---
kind: end
id: goal_reached
name: Goal reached
trigger: me.vp >= goal
then: immediate
result: most
counter: vp
---
kind: action
id: score
name: Score
limit: once_per_turn
effect: |
  gain 1 vp
---
kind: action
id: rest
name: Rest
limit: once_per_turn
effect: |
  log "rest"
---
kind: card
id: stone
name: Stone
type: resource
deck: deck
copies: 2
"""
)

REPLACE_SCORE = (
    "kind: action\nid: score\nreplace: true\nname: Score big\nlimit: once_per_turn\neffect: |\n  gain 2 vp\n"
)
PATCH_REST = "kind: patch\ntarget: rest\nchanges:\n  name: Rest well\n"
PATCH_SCORE = "kind: patch\ntarget: score\nchanges:\n  name: Score often\n"


def action(action_id: str) -> str:
    """A new action, once a turn."""
    return f'kind: action\nid: {action_id}\nname: {action_id.title()}\nlimit: once_per_turn\neffect: |\n  log "{action_id}"\n'


@pytest.fixture
def tree(tmp_path):
    """`tree(name, extends, files, manifest_extra)` writes a pack extending others, beside the base pack
    `base`; returns its folder."""
    write(tmp_path / "base", {"pack.yaml": BASE_MANIFEST, "rules.yaml": BASE_RULES})

    def make(name: str, extends: list[str], files: dict[str, str] | None = None, manifest_extra: str = "") -> Path:
        manifest = f"kind: pack\nid: {name}\nname: {name.title()}\nversion: 1.0.0\nextends: [{', '.join(extends)}]\n"
        return write(tmp_path / name, {"pack.yaml": manifest + manifest_extra, **(files or {})})

    return make


def findings(lint_json, root) -> tuple[int, list[tuple]]:
    code, diags = lint_json(root)
    return code, [(file, line, col, rule) for file, line, col, rule, _ in diags]


BOTH_ORDERS = pytest.mark.parametrize("order", [["left", "right"], ["right", "left"]])


# ------------------------------------------------------------------------------------------ taken silently
@BOTH_ORDERS
def test_two_variants_changing_different_documents_combine(tree, lint_json, order):
    """One variant replaces `score`, the other patches `rest`: the combination plays both changes, whichever
    base comes first, and there is nothing to report."""
    tree("left", ["base"], {"rules.yaml": REPLACE_SCORE})
    tree("right", ["base"], {"rules.yaml": PATCH_REST})
    both = tree("both", order)
    assert findings(lint_json, both) == (0, [])
    rules = load(both)
    assert rules.actions["score"]["name"] == "Score big" and rules.actions["score"]["effect"] == "gain 2 vp\n"
    assert rules.actions["rest"]["name"] == "Rest well"
    assert set(rules.actions) == {"score", "rest"}


@BOTH_ORDERS
def test_a_removal_by_one_variant_is_kept(tree, lint_json, order):
    """`rest` removed by one variant and inherited unchanged by the other stays removed."""
    tree("left", ["base"], manifest_extra="remove:\n  rest: Nobody rests here.\n")
    tree("right", ["base"], {"rules.yaml": PATCH_SCORE})
    both = tree("both", order)
    assert findings(lint_json, both) == (0, [])
    rules = load(both)
    assert set(rules.actions) == {"score"} and rules.actions["score"]["name"] == "Score often"


@BOTH_ORDERS
def test_a_parameter_and_a_deck_changed_by_one_variant_only_take_its_values(tree, lint_json, order):
    """The variant that overrides `goal` and adds a card to the deck wins over the one that inherited them,
    also when it comes second in `extends` (the first base's values used to win)."""
    tree("left", ["base"], {"rules.yaml": REPLACE_SCORE})
    antler = "kind: card\nid: antler\nname: Antler\ntype: resource\ndeck: deck\n"
    tree(
        "right",
        ["base"],
        {"cards.yaml": antler},
        "parameters:\n  goal: {default: 5}\ndecks:\n  deck: {size: 3, composition: {antler: 1}}\n",
    )
    both = tree("both", order)
    assert findings(lint_json, both) == (0, [])
    rules = load(both)
    assert rules.parameters(2)["goal"] == 5
    assert rules.manifest["decks"]["deck"] == {"size": 3, "composition": {"stone": 2, "antler": 1}}


def test_three_variants_each_changing_one_thing_combine(tree, lint_json):
    """Like a scenario of three modules: a replacement, a patch and a parameter, each from one variant."""
    tree("left", ["base"], {"rules.yaml": REPLACE_SCORE})
    tree("right", ["base"], {"rules.yaml": PATCH_REST})
    tree("third", ["base"], {"a.yaml": action("hop")}, "parameters:\n  goal: {default: 6}\n")
    trio = tree("trio", ["third", "left", "right"])
    assert findings(lint_json, trio) == (0, [])
    rules = load(trio)
    assert rules.actions["score"]["name"] == "Score big" and rules.actions["rest"]["name"] == "Rest well"
    assert set(rules.actions) == {"score", "rest", "hop"} and rules.parameters(1)["goal"] == 6


def test_a_variant_and_its_own_base_together_take_the_variant(tree, lint_json):
    """A pack extending a base and a variant of it: the variant's patch is a change of the base's version."""
    tree("left", ["base"], {"rules.yaml": PATCH_SCORE}, "parameters:\n  goal: {default: 4}\n")
    both = tree("both", ["base", "left"])
    assert findings(lint_json, both) == (0, [])
    rules = load(both)
    assert rules.actions["score"]["name"] == "Score often" and rules.parameters(2)["goal"] == 4


def test_the_same_base_reached_twice_unchanged_is_one(tree, lint_json):
    """Two variants that only add documents share the base's: nothing to report (as before the merge)."""
    tree("left", ["base"], {"a.yaml": action("run")})
    tree("right", ["base"], {"b.yaml": action("hop")})
    both = tree("both", ["left", "right"])
    assert findings(lint_json, both) == (0, [])
    assert set(load(both).actions) == {"score", "rest", "run", "hop"}


def test_a_change_two_packs_deep_is_taken_over_the_base_reached_directly(tree, lint_json):
    """A variant of a variant patched `rest`; combined with the base's other child and the base itself,
    its patch is the change, whatever the depth."""
    tree("left", ["base"], {"a.yaml": action("run")})
    tree("right", ["base"], {"b.yaml": action("hop")})
    tree("deeper", ["left"], {"rules.yaml": PATCH_REST})
    mixed = tree("mixed", ["deeper", "right", "base"])
    assert findings(lint_json, mixed) == (0, [])
    assert load(mixed).actions["rest"]["name"] == "Rest well"


def test_a_combination_of_combinations_keeps_the_merged_changes(tree, lint_json):
    """A merge is itself a base: its taken changes keep their origin, so combining it again with an
    unchanged variant takes them too."""
    tree("left", ["base"], {"rules.yaml": REPLACE_SCORE})
    tree("right", ["base"], {"rules.yaml": PATCH_REST})
    tree("both", ["left", "right"])
    tree("plain", ["base"], {"p.yaml": action("hop")})
    top = tree("top", ["plain", "both"])
    assert findings(lint_json, top) == (0, [])
    rules = load(top)
    assert rules.actions["score"]["name"] == "Score big" and rules.actions["rest"]["name"] == "Rest well"


# ------------------------------------------------------------------------------------------ conflicts
@BOTH_ORDERS
def test_two_variants_changing_one_document_conflict(tree, lint_json, order):
    """Both variants change `score` (a replacement and a patch): which one holds is not guessed, P006 at the
    second `extends` entry, naming both."""
    tree("left", ["base"], {"rules.yaml": REPLACE_SCORE})
    tree("right", ["base"], {"rules.yaml": PATCH_SCORE})
    both = tree("both", order)
    code, diags = lint_json(both)
    assert code == 1 and [d[:4] for d in diags] == [("pack.yaml", 5, 17 if order[0] == "left" else 18, "P006")]
    assert "`left`" in diags[0][4] and "`right`" in diags[0][4] and "`score`" in diags[0][4]


@BOTH_ORDERS
def test_a_removal_and_a_change_of_one_document_conflict(tree, lint_json, order):
    tree("left", ["base"], manifest_extra="remove:\n  rest: Nobody rests here.\n")
    tree("right", ["base"], {"rules.yaml": PATCH_REST})
    both = tree("both", order)
    code, diags = lint_json(both)
    assert code == 1 and [d[3] for d in diags] == ["P006"] and "`rest`" in diags[0][4]
    assert "removes" in diags[0][4]


def test_a_parameter_set_differently_by_two_variants_conflicts(tree, lint_json):
    tree("left", ["base"], manifest_extra="parameters:\n  goal: {default: 4}\n")
    tree("right", ["base"], manifest_extra="parameters:\n  goal: {default: 5}\n")
    both = tree("both", ["left", "right"])
    code, diags = lint_json(both)
    assert code == 1 and [d[:4] for d in diags] == [("pack.yaml", 5, 17, "P006")] and "`goal`" in diags[0][4]


# ------------------------------------------------------------------------------------------ reports and diff
@BOTH_ORDERS
def test_a_problem_in_a_patched_document_is_reported_in_the_variant(tree, lint_json, knap, order):
    """The combination takes `left`'s patch of `score`; the name it reads, defined in `left`, is removed by the
    combination: D002 is reported at the patch in left's file, not in the base's. Both variants extend `core`,
    which patched `score` too: where its fields were written is the taken version's account (left's), not
    right's, whichever comes last."""
    tree("core", ["base"], {"rules.yaml": PATCH_SCORE})
    counter = "kind: counter\nid: bonus\nname: Bonus\nowner: player\n---\n"
    patch = "kind: patch\ntarget: score\nchanges:\n  effect: |\n    gain 1 bonus\n"
    left = tree("left", ["core"], {"rules.yaml": counter + patch})
    tree("right", ["core"], {"rules.yaml": PATCH_REST})
    assert findings(lint_json, left) == (0, [])
    both = tree("both", order, manifest_extra="remove:\n  bonus: Not in this game.\n")
    code, diags = lint_json(both)
    assert code == 1 and [d[:4] for d in diags] == [("rules.yaml", 10, 12, "D002")]
    _, out, _ = knap("lint", both, "--no-cache", "--format", "json")
    assert [d["file"] for d in json.loads(out)["diagnostics"]] == [str(left / "rules.yaml")]


def test_knap_diff_of_a_combination_compares_with_the_merged_bases(tree, knap):
    """`knap diff` joins the bases with the same merge: what the combination changes itself, and nothing of
    what its variants changed."""
    tree("left", ["base"], {"rules.yaml": REPLACE_SCORE})
    tree("right", ["base"], {"rules.yaml": PATCH_REST})
    both = tree("both", ["left", "right"], {"r.yaml": "kind: patch\ntarget: rest\nchanges:\n  name: Nap\n"})
    code, out, _ = knap("diff", both, "--format", "json")
    assert code == 0, out
    report = json.loads(out)
    assert [(c["id"], c["how"], c["fields"]) for c in report["changed"]] == [
        ("rest", "patched", {"name": {"from": "Rest well", "to": "Nap"}})
    ]
    assert report["added"] == report["removed"] == [] and "parameters" not in report
