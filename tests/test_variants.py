"""Packs that extend packs (DESIGN section 2, engine/content/compose.py): what a variant inherits, adds,
replaces, patches and removes; the errors with their positions; the cache across packs; the runtime
playing the effective pack; `knap diff`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import MINIMAL_RULES
from conftest import write_tree as write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.rules import PackError, load

BASE = {
    "pack.yaml": """kind: pack
id: base
name: Base
version: 1.0.0
players: {min: 1, max: 3}
parameters:
  goal:
    description: Points that end the game.
    default: 3
    provenance: assumption
    reason: The rules leave it open.
  hand_limit:
    description: Cards kept.
    by_player_count: {"1": 4, "2": 5, "3": 6}
decks:
  deck: {size: 3, composition: {stone: 2, bone: 1}}
""",
    "rules.yaml": MINIMAL_RULES
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
""",
    "cards.yaml": """kind: card
id: stone
name: Stone
type: resource
deck: deck
copies: 2
stats: {weight: 2}
---
kind: card
id: bone
name: Bone
type: resource
deck: deck
stats: {weight: 1}
""",
}

VARIANT_MANIFEST = """kind: pack
id: variant
name: Variant
version: 1.0.0
extends: [base]
"""


@pytest.fixture
def packs(tmp_path):
    """`packs(variant_files)`: the base pack and a variant of it, side by side; returns the variant's folder."""
    write(tmp_path / "base", BASE)

    def make(files: dict[str, str], manifest_extra: str = "", name: str = "variant") -> Path:
        manifest = VARIANT_MANIFEST.replace("id: variant", f"id: {name}") + manifest_extra
        return write(tmp_path / name, {"pack.yaml": manifest, **files})

    return make


def found(lint_json, root) -> list[tuple]:
    code, diags = lint_json(root)
    return code, [(file, line, col, rule) for file, line, col, rule, _ in diags]


# ------------------------------------------------------------------------------------------ what is inherited
def test_a_variant_inherits_everything_and_overrides_a_parameter(packs):
    """A parameter with an inherited name overrides the value; the description stays; the old value's
    provenance goes with it. Players come from the base when the variant does not say."""
    root = packs({}, "parameters:\n  goal: {default: 5}\n")
    rules = load(root)
    assert rules.players == (1, 3)
    assert rules.parameters(2)["goal"] == 5 and rules.parameters(2)["hand_limit"] == 5
    spec = rules.manifest["parameters"]["goal"]
    assert spec == {"description": "Points that end the game.", "default": 5}
    assert set(rules.actions) == {"score"} and {"stone", "bone"} <= set(rules.cards)
    assert rules.pack_id == "variant"


def test_an_override_of_a_table_by_player_count_replaces_the_table(packs):
    root = packs({}, "parameters:\n  hand_limit: {default: 9}\n")
    rules = load(root)
    assert [rules.parameters(n)["hand_limit"] for n in (1, 2, 3)] == [9, 9, 9]


def test_replace_puts_a_document_in_the_place_of_the_inherited_one(packs):
    root = packs(
        {
            "cards.yaml": "kind: card\nid: stone\nreplace: true\nname: Flint stone\ntype: resource\n"
            "deck: deck\ncopies: 2\nstats: {weight: 5}\n"
        }
    )
    rules = load(root)
    assert rules.cards["stone"]["name"] == "Flint stone" and rules.cards["stone"]["stats"] == {"weight": 5}
    assert "replace" not in rules.cards["stone"]
    assert rules.instances.count("stone") == 2


def test_a_patch_merges_fields_and_null_deletes_one(packs):
    """`changes` is a JSON Merge Patch: the effect is replaced, `limit` deleted, other fields kept."""
    root = packs({"rules.yaml": "kind: patch\ntarget: score\nchanges:\n  effect: |\n    gain 2 vp\n  limit: null\n"})
    rules = load(root)
    action = rules.actions["score"]
    assert action["effect"] == "gain 2 vp\n" and "limit" not in action and action["name"] == "Score"
    game = Game.new(rules, 1, 0)
    game.apply(game.decision.options.index("score"), "P1")
    assert game.state["counters"]["P1"]["vp"] == 2
    assert "score" in [game.decision.options[k] for k in game.legal("P1")]  # no longer once per turn


def test_remove_takes_inherited_documents_out(packs):
    root = packs(
        {"rules.yaml": 'kind: action\nid: pass_time\nname: Pass time\neffect: |\n  log "waiting"\n'},
        "remove:\n  score: Nobody scores in this variant.\n",
    )
    rules = load(root)
    assert set(rules.actions) == {"pass_time"}


def test_decks_merge_with_the_inherited_ones(packs, lint_json):
    """A card added to an inherited deck is listed in the variant's `decks` (a merge patch): the rest of
    the composition is inherited."""
    card = "kind: card\nid: antler\nname: Antler\ntype: resource\ndeck: deck\n"
    root = packs({"cards.yaml": card}, "decks:\n  deck: {size: 4, composition: {antler: 1}}\n")
    assert found(lint_json, root) == (0, [])
    assert load(root).manifest["decks"]["deck"] == {"size": 4, "composition": {"stone": 2, "bone": 1, "antler": 1}}


def test_a_card_missing_from_an_inherited_deck_is_reported_at_the_card(packs, lint_json):
    """R003 on an inherited deck points at the variant's card (its `deck:`), not into the base's files,
    and the hint says what to add to the variant's pack.yaml."""
    root = packs({"cards.yaml": "kind: card\nid: antler\nname: Antler\ntype: resource\ndeck: deck\n"})
    code, diags = lint_json(root)
    assert code == 1 and [d[:4] for d in diags] == [("cards.yaml", 5, 7, "R003")]
    _, out, _ = _text(root)
    assert "decks: {deck: {size: 4, composition: {antler: 1}}}" in out


def _text(root):
    import contextlib
    import io

    from engine.commands.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["lint", str(root), "--no-cache"])
    return code, out.getvalue(), err.getvalue()


def test_variants_of_variants_stack(packs):
    """A pack may extend a variant: it sees the base's documents as the variant left them, and its own
    patch applies on top of the variant's."""
    packs(
        {"rules.yaml": "kind: patch\ntarget: score\nchanges:\n  effect: |\n    gain 2 vp\n"},
        "parameters:\n  goal: {default: 5}\n",
    )
    top = (
        packs(
            {"rules.yaml": "kind: patch\ntarget: score\nchanges:\n  name: Score twice\n"},
            "parameters:\n  goal: {default: 7}\n",
            name="top",
        ).parent
        / "top"
    )
    (top / "pack.yaml").write_text((top / "pack.yaml").read_text().replace("[base]", "[variant]"))
    rules = load(top)
    assert rules.actions["score"]["effect"] == "gain 2 vp\n" and rules.actions["score"]["name"] == "Score twice"
    assert rules.parameters(1)["goal"] == 7


def test_two_variants_of_one_base_can_be_combined(packs, lint_json):
    """Extending two packs that share a base: the shared documents are one; a document one of them changed
    is taken from it, and one both changed is a conflict (P006) at the `extends` entry (tests/test_compose_merge.py)."""
    packs({"a.yaml": 'kind: action\nid: rest\nname: Rest\neffect: |\n  log "rest"\n'}, name="left")
    packs({"b.yaml": 'kind: action\nid: run\nname: Run\neffect: |\n  log "run"\n'}, name="right")
    both = packs({}, name="both")
    (both / "pack.yaml").write_text((both / "pack.yaml").read_text().replace("[base]", "[left, right]"))
    assert found(lint_json, both) == (0, [])
    assert set(load(both).actions) == {"score", "rest", "run"}
    right = both.parent / "right"
    (right / "b.yaml").write_text("kind: patch\ntarget: score\nchanges:\n  name: Score more\n")
    assert found(lint_json, both) == (0, []) and load(both).actions["score"]["name"] == "Score more"
    (both.parent / "left" / "a.yaml").write_text("kind: patch\ntarget: score\nchanges:\n  name: Score less\n")
    assert found(lint_json, both) == (1, [("pack.yaml", 5, 17, "P006")])


# ------------------------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    "files,extra,expected",
    [
        (
            {"c.yaml": "kind: card\nid: bone\nname: Bone\ntype: resource\ndeck: deck\n"},
            "",
            [("c.yaml", 2, 5, "P006")],
        ),  # conflict: no replace
        (
            {"c.yaml": "kind: zone\nid: bone\nreplace: true\nname: Bone pile\ntype: pile\n"},
            "",
            [("c.yaml", 1, 7, "P006")],
        ),  # replace by another kind
        (
            {"r.yaml": "kind: patch\ntarget: scor\nchanges: {name: Score!}\n"},
            "",
            [("r.yaml", 2, 9, "P007")],
        ),  # patch of an unknown rule
        ({}, "remove:\n  bones: Gone.\n", [("pack.yaml", 7, 3, "P007")]),  # removal of a missing id
        (
            {"c.yaml": "kind: zone\nid: pit\nreplace: true\nname: Pit\ntype: pile\n"},
            "",
            [("c.yaml", 3, 1, "P007")],
        ),  # replacement of nothing
        (
            {
                "r.yaml": "kind: patch\ntarget: score\nchanges: {name: Again}\n---\n"
                "kind: patch\ntarget: score\nchanges: {limit: null}\n"
            },
            "",
            [("r.yaml", 6, 9, "P006")],
        ),  # patched twice
        (
            {"r.yaml": "kind: patch\ntarget: score\nchanges:\n  cost: {ap: lots}\n"},
            "",
            [("r.yaml", 4, 14, "S003")],
        ),  # a patch breaking the schema
        (
            {"r.yaml": "kind: patch\ntarget: score\nchanges:\n  effect: |\n    gain 1 vpp\n"},
            "",
            [("r.yaml", 5, 12, "D002")],
        ),  # a patched text, checked
        (
            {"r.yaml": "kind: patch\ntarget: score\nchanges:\n  id: other\n"},
            "",
            [("r.yaml", 4, 3, "S005")],
        ),  # ids are not patched
    ],
)
def test_each_variant_error_is_reported_at_its_position(packs, lint_json, files, extra, expected):
    root = packs(files, extra)
    code, diags = found(lint_json, root)
    assert code == 1 and diags == expected


def test_a_patch_in_a_pack_that_extends_nothing(tmp_path, lint_json):
    root = write(tmp_path / "base", {**BASE, "patch.yaml": "kind: patch\ntarget: score\nchanges: {name: X}\n"})
    code, diags = lint_json(root)
    assert code == 1 and [d[:4] for d in diags] == [("patch.yaml", 2, 9, "P007")]
    assert "add `extends:`" in _text(root)[1]


def test_a_cycle_of_three_packs_is_reported_by_each(tmp_path, lint_json):
    """P005 names the cycle from the pack reporting it; every pack of the cycle reports it."""
    for name, base in (("a", "b"), ("b", "c"), ("c", "a")):
        write(tmp_path / name, {"pack.yaml": VARIANT_MANIFEST.replace("variant", name).replace("[base]", f"[{base}]")})
    code, diags = lint_json(tmp_path / "a", tmp_path / "b", tmp_path / "c")
    assert code == 1 and {(d[0], d[1], d[2], d[3]) for d in diags} == {("pack.yaml", 5, 11, "P005")}
    assert sorted(d[4] for d in diags) == [
        "packs extend each other in a cycle: a -> b -> c -> a",
        "packs extend each other in a cycle: b -> c -> a -> b",
        "packs extend each other in a cycle: c -> a -> b -> c",
    ]


def test_a_broken_base_is_one_error_of_the_variant(packs, lint_json, tmp_path):
    """The base's own errors are reported when the base is linted; the variant says once that its base is
    broken (P008) instead of echoing them."""
    root = packs({})
    (tmp_path / "base" / "cards.yaml").write_text(BASE["cards.yaml"].replace("deck: deck", "deck: dekc", 1))
    code, diags = lint_json(root)
    assert code == 1 and [d[:4] for d in diags] == [("pack.yaml", 5, 11, "P008")]
    code, diags = lint_json(tmp_path)  # both: each problem once
    assert sorted(d[3] for d in diags) == ["P008", "R001", "R003"]


def test_an_error_a_variant_causes_in_inherited_text_names_the_variant(packs, lint_json):
    """Removing a counter the base's texts use: the error is in the base's file (where the text is), and
    says which variant caused it."""
    root = packs({}, "remove:\n  vp: No points.\n")
    code, out, _ = _text(root)
    assert code == 1 and "D002" in out and "base/rules.yaml" in out
    assert "found while checking `variant`, which extends this pack" in out


def test_the_cache_sees_a_change_in_the_base(packs, knap, tmp_path):
    """The variant's cached verdict depends on its base's files: renaming the patched action in the base
    turns the variant's patch into a P007 on the next (warm) run."""
    root = packs({"r.yaml": "kind: patch\ntarget: score\nchanges: {name: Score!}\n"})
    cache = tmp_path / "cache"
    assert knap("lint", root, "--cache-dir", cache)[0] == 0
    assert knap("lint", root, "--cache-dir", cache)[0] == 0
    rules = tmp_path / "base" / "rules.yaml"
    rules.write_text(rules.read_text().replace("id: score", "id: tally"))
    code, out, _ = knap("lint", root, "--cache-dir", cache, "--format", "json")
    assert code == 1 and [d["code"] for d in json.loads(out)["diagnostics"]] == ["P007"]


def test_a_runtime_error_in_patched_text_points_into_the_patch(packs):
    root = packs(
        {
            "r.yaml": "kind: patch\ntarget: score\nchanges:\n  effect: |\n    repeat 1000000000 times:\n"
            "        gain 1 vp\n"
        }
    )
    rules = load(root)
    game = Game.new(rules, 1, 0)
    with pytest.raises(ContentError) as caught:
        game.apply(game.decision.options.index("score"), "P1")
    assert rules.describe(caught.value).startswith(str(root / "r.yaml") + ":6:9: ")


def test_the_runtime_refuses_a_variant_with_errors(packs):
    root = packs({}, "remove:\n  nothing_here: Typo.\n")
    with pytest.raises(PackError) as caught:
        load(root)
    assert [d.code for d in caught.value.diagnostics] == ["P007"]


# ------------------------------------------------------------------------------------------ knap diff
def test_knap_diff_says_what_the_solo_variant_changes(knap):
    """`knap diff` compares the effective packs: players, parameters, removed, changed (field by field,
    and how) and added documents — in words and as JSON."""
    code, out, _ = knap("diff", "cro-magnon-solo", "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["pack"] == "cro_magnon_solo" and report["base"] == ["cro_magnon"]
    assert report["players"] == {"from": {"min": 2, "max": 4}, "to": {"min": 1, "max": 1}}
    assert report["parameters"] == {
        "action_points": {"from": 2, "to": 4},
        "victory_points": {"from": {"by_player_count": {"2": 30, "3": 24, "4": 22}}},
    }
    assert {r["id"] for r in report["removed"]} == {
        "attack",
        "improve_dwelling",
        "additional_exploration",
        "victory_point_goal",
        "cards_in_hand",
        "predator_figures",
    }
    solo = load(Path(__file__).resolve().parent.parent / "content" / "cro-magnon-solo")
    assert "victory_points" not in solo.manifest["parameters"]
    changed = {c["id"]: c for c in report["changed"]}
    assert changed["found_settlement"]["how"] == "patched"
    fields = changed["found_settlement"]["fields"]
    assert fields["cost.ap"] == {"to": 4} and "whole_turn" not in fields  # the solo game keeps the whole turn
    assert changed["vp"]["fields"] == {"max": {"to": 0}}
    assert {a["id"] for a in report["added"]} >= {"winter", "storm", "events", "resolve_event", "winter_comes"}
    code, out, _ = knap("diff", "cro-magnon-solo")
    assert code == 0
    assert "players: 2 to 4 -> 1" in out and "  action_points: 2 -> 4" in out
    # the built-in pack lies in the repository, or inside the installed package (`pip install .`)
    assert re.search(
        r"^  action found_settlement \(patched in \S*cro-magnon-solo/rules/solo\.yaml\):$", out, re.MULTILINE
    )
    assert "    cost.ap: (none) -> 4" in out


def test_knap_diff_of_a_replacement(packs, knap):
    root = packs(
        {
            "cards.yaml": "kind: card\nid: stone\nreplace: true\nname: Stone\ntype: resource\n"
            "deck: deck\ncopies: 2\nstats: {weight: 5}\n"
        }
    )
    code, out, _ = knap("diff", root, "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["changed"] == [
        {
            "id": "stone",
            "kind": "card",
            "name": "Stone",
            "how": "replaced",
            "file": str(root / "cards.yaml"),
            "fields": {"stats.weight": {"from": 2, "to": 5}},
        }
    ]
    assert report["added"] == report["removed"] == [] and "parameters" not in report


def test_knap_diff_refuses_a_pack_that_extends_nothing_or_has_errors(packs, knap, tmp_path):
    code, _, err = knap("diff", tmp_path / "base")
    assert code == 2 and "extends no pack" in err
    root = packs({}, "remove:\n  nothing_here: Typo.\n")
    code, _, err = knap("diff", root)
    assert code == 1 and "P007" in err


# ------------------------------------------------------------------------------------------ fuzzing

_IDS = ["score", "goal_reached", "vp", "deck", "hand", "stone", "bone", "missing_id"]
_FIELDS = ["name", "effect", "limit", "cost", "stats", "trigger", "copies", "owner", "min", "text", "type"]
_VALUES = st.one_of(
    st.none(),
    st.integers(-3, 5),
    st.sampled_from(["gain 1 vp\n", 'log "x"\n', "once_per_turn", "me.vp >= 1", "player", "", "deck", "vp >"]),
    st.dictionaries(st.sampled_from(["ap", "weight", "vp"]), st.integers(0, 3), max_size=2),
    st.lists(st.sampled_from(["stone", "bone"]), max_size=2),
)


@st.composite
def _variants(draw):
    files = {}
    patches = draw(
        st.lists(
            st.tuples(
                st.sampled_from(_IDS), st.dictionaries(st.sampled_from(_FIELDS), _VALUES, min_size=1, max_size=3)
            ),
            max_size=3,
        )
    )
    docs = [json.dumps({"kind": "patch", "target": target, "changes": changes}) for target, changes in patches]
    for card_id in draw(st.lists(st.sampled_from(["stone", "bone", "antler"]), max_size=2)):
        docs.append(
            json.dumps(
                {
                    "kind": "card",
                    "id": card_id,
                    "replace": draw(st.booleans()),
                    "name": "X",
                    "type": "resource",
                    "deck": "deck",
                }
            )
        )
    if docs:
        files["more.yaml"] = "\n---\n".join(docs) + "\n"
    removed = draw(st.lists(st.sampled_from(_IDS), max_size=3, unique=True))
    extra = ("remove:\n" + "".join(f"  {r}: gone\n" for r in removed)) if removed else ""
    if draw(st.booleans()):
        extra += f"parameters:\n  goal: {{default: {draw(st.integers(1, 4))}}}\n"
    return files, extra


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(variant=_variants())
def test_any_variant_lints_to_located_diagnostics_and_a_clean_one_plays(tmp_path_factory, variant):
    """Whatever a variant adds, replaces, patches or removes: lint gives diagnostics with positions in the
    variant's or the base's files (never an internal error), and a variant that lints clean loads and plays
    to its end, or stops with a located content error."""
    import random

    from engine import lint
    from engine.runtime import session
    from engine.runtime.errors import ContentError

    root_dir = tmp_path_factory.mktemp("fuzz")
    write(root_dir / "base", BASE)
    files, extra = variant
    root = write(root_dir / "variant", {"pack.yaml": VARIANT_MANIFEST + extra, **files})
    result = lint.lint([root], None)
    assert not [d for d in result.diagnostics if d.code == "E000"], result.diagnostics
    for d in result.diagnostics:
        assert d.line >= 1 and d.col >= 1 and Path(d.file).resolve().parent.parent == root_dir.resolve(), d
    if any(d.severity.value == "error" for d in result.diagnostics):
        return
    rules = load(root)
    game = Game.new(rules, 1, 0, max_rounds=20)
    try:
        session.play_randomly(game, random.Random(0))
    except ContentError as exc:
        assert ":" in rules.describe(exc)


def test_a_finding_of_the_base_is_reported_once_by_the_base(packs, lint_json, tmp_path):
    """A warning in the base's own text (a bound name hiding a card id, D006) is the base's finding: linting
    the variant alone is clean, linting both reports it once."""
    rules = tmp_path / "base" / "rules.yaml"
    root = packs({})
    rules.write_text(
        rules.read_text().replace("effect: |\n  gain 1 vp\n", "effect: |\n  let stone = 1\n  gain stone vp\n")
    )
    assert lint_json(root) == (0, [])
    code, diags = lint_json(tmp_path / "base", root)
    assert code == 1 and [d[:4] for d in diags] == [("rules.yaml", 30, 7, "D006")]
