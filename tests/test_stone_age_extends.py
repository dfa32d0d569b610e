"""What a pack that extends another inherits and reports (engine/content/compose.py, `knap diff`, `knap lint --stats`),
first on a toy pair of packs, then on Stone Age and The Mammoth Herd: the manifest's rule settings
(`players`, `turns`) are inherited unless restated; `knap diff stone-age-mammoth-herd` lists exactly the
documents, parameters and decks the expansion adds and changes; `knap lint --stats` counts the reference,
placeholder and assumption values of both packs."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from conftest import write_tree as write

from engine.runtime.rules import load

REPO = Path(__file__).resolve().parent.parent
BASE, EXPANSION = REPO / "content" / "stone-age", REPO / "content" / "stone-age-mammoth-herd"

TOY_RULES = """kind: zone
id: pool
name: Pool
type: supply
---
kind: counter
id: vp
name: Points
owner: player
---
kind: phase
id: score
name: Score
when: round_start
effect: |
  for each p in players:
      gain 1 vp for p
---
kind: end
id: enough
name: Enough
trigger: me.vp >= 3
then: immediate
result: most
counter: vp
---
kind: action
id: shout
name: Shout
effect: |
  log "a shout"
"""


def toy(tmp_path, manifest_extra="", name="variant", extends="[base]", base_extra="turns: rounds\n"):
    """A base played in rounds (`turns: rounds`) and a pack extending it that does not restate that."""
    if not (tmp_path / "base").exists():
        write(
            tmp_path / "base",
            {
                "pack.yaml": "kind: pack\nid: base\nname: Base\nversion: 1.0.0\n"
                "players: {min: 1, max: 2}\n" + base_extra,
                "rules.yaml": TOY_RULES,
            },
        )
    return write(
        tmp_path / name,
        {"pack.yaml": f"kind: pack\nid: {name}\nname: V\nversion: 1.0.0\nextends: {extends}\n" + manifest_extra},
    )


def test_a_pack_that_extends_a_pack_played_in_rounds_is_played_in_rounds(tmp_path, lint_json):
    """`turns` is inherited like `players`: the variant plays in rounds, and lint judges it as a pack played in
    rounds (no D007 about the inherited action, which a pack played in rounds never offers)."""
    variant = toy(tmp_path)
    assert load(variant).in_rounds and load(variant).players == (1, 2)
    assert lint_json(variant) == (0, [])


def test_a_pack_that_restates_a_setting_overrides_it(tmp_path):
    variant = toy(tmp_path, "turns: players\nplayers: {min: 2, max: 2}\n")
    rules = load(variant)
    assert not rules.in_rounds and rules.players == (2, 2)


def test_two_bases_that_disagree_on_a_setting_are_a_conflict(tmp_path, lint_json):
    """Extending two packs that set `turns` differently: which one holds is not guessed (P006 at `extends`),
    unless the pack says it itself."""
    toy(tmp_path, name="left")
    toy(tmp_path, "turns: players\n", name="right")
    both = toy(tmp_path, name="both", extends="[left, right]")
    code, found = lint_json(both)
    assert code == 1 and [(f, line, rule) for f, line, _, rule, _ in found] == [("pack.yaml", 5, "P006")]
    assert "set `turns` differently" in found[0][4]
    both = toy(tmp_path, "turns: rounds\n", name="both", extends="[left, right]")
    assert lint_json(both) == (0, []) and load(both).in_rounds


def test_knap_diff_names_a_changed_setting(tmp_path, knap):
    variant = toy(tmp_path, "turns: players\n")
    code, out, _ = knap("diff", variant, "--format", "json")
    assert code == 0 and json.loads(out)["turns"] == {"from": "rounds", "to": "players"}
    code, out, _ = knap("diff", variant)
    assert "turns: rounds -> players" in out
    code, out, _ = knap("diff", toy(tmp_path, name="same"), "--format", "json")
    assert "turns" not in json.loads(out)


def test_knap_diff_of_a_variant_of_two_bases_that_disagree_on_a_setting_it_restates(tmp_path, knap):
    """The variant settles the bases' disagreement itself, so lint passes; `knap diff` joins the bases to compare
    with and must not fail on the disagreement (it did: an internal error)."""
    toy(tmp_path, name="left")
    toy(tmp_path, "turns: players\n", name="right")
    both = toy(tmp_path, "turns: rounds\n", name="both", extends="[left, right]")
    code, out, err = knap("diff", both, "--format", "json")
    assert code == 0, err
    assert "internal error" not in err and isinstance(json.loads(out), dict)


# ------------------------------------------------------------------------------------------ the real packs
def _documents(root: Path) -> list[dict]:
    return [doc for path in sorted(root.rglob("*.yaml")) for doc in yaml.safe_load_all(path.read_text()) if doc]


def test_the_expansion_inherits_the_rounds_without_restating_them():
    """The Mammoth Herd's manifest says nothing about `turns`: it is played in rounds as the base game."""
    manifest = yaml.safe_load((EXPANSION / "pack.yaml").read_text())
    assert "turns" not in manifest and "players" not in manifest
    rules = load(EXPANSION)
    assert rules.in_rounds and rules.players == (2, 4)


def test_knap_diff_lists_exactly_what_the_expansion_adds_and_changes(knap):
    """Every document of the expansion is in the report, as added (its own ids) or changed (the base documents
    it patches), and nothing else: no removal, no setting, only its own parameter and deck."""
    own = _documents(EXPANSION)
    added = {d["id"] for d in own if d["kind"] not in ("pack", "patch")}
    patched = {d["target"] for d in own if d["kind"] == "patch"}
    code, out, _ = knap("diff", "stone-age-mammoth-herd", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["base"] == ["stone_age"]
    # 36 documents and its flag (flags.yaml)
    assert {a["id"] for a in report["added"]} == added and len(report["added"]) == len(added) == 37
    assert (
        {c["id"] for c in report["changed"]}
        == patched
        == {"placement", "actions", "feeding", "open_places", "take_actions"}
    )
    assert all(c["how"] == "patched" and c["file"].endswith("herd.yaml") for c in report["changed"])
    assert report["removed"] == [] and "players" not in report and "turns" not in report
    assert report["parameters"] == {"herd_points": {"to": 10}} and set(report["decks"]) == {"herd"}
    order = {c["id"]: c["fields"] for c in report["changed"]}
    assert order["placement"] == {"order": {"from": 2, "to": 3}} and order["feeding"] == {"order": {"from": 4, "to": 6}}


def _marks(documents: list[dict]) -> dict[str, int]:
    """Provenance marks of documents and of the manifest's parameters, counted from the YAML itself."""
    counts = {"placeholder": 0, "assumption": 0, "reference": 0}
    for doc in documents:
        for spec in [doc] + list((doc.get("parameters") or {}).values() if doc["kind"] == "pack" else []):
            if isinstance(spec, dict) and spec.get("provenance") in counts:
                counts[spec["provenance"]] += 1
    return counts


def test_lint_stats_count_the_provenance_of_both_packs(knap):
    """`knap lint --stats`: the base counts its own marks; the expansion counts the game it plays — the base's
    documents and parameters (not the base's manifest mark, which is the base's) plus its own, the 16 bonus
    tiles being placeholders (their contents are not printed)."""
    code, out, _ = knap("lint", "--stats", "--no-cache", "--format", "json", "stone-age", "stone-age-mammoth-herd")
    assert code == 0
    stats = {s["pack"]: s["provenance"] for s in json.loads(out)["stats"]}
    base, own = _documents(BASE), _documents(EXPANSION)
    assert stats["stone-age"] == _marks(base)
    inherited = [d for d in base if d["kind"] != "pack"] + [
        {"kind": "pack", "parameters": d.get("parameters")} for d in base if d["kind"] == "pack"
    ]
    expected = {k: _marks(inherited)[k] + _marks(own)[k] for k in stats["stone-age"]}
    assert stats["stone-age-mammoth-herd"] == expected
    assert stats["stone-age-mammoth-herd"]["placeholder"] - stats["stone-age"]["placeholder"] >= 16
    assert all(stats["stone-age"][k] > 0 for k in ("placeholder", "assumption", "reference"))
