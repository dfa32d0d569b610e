"""D012: inside `where`, a bare name that is both an id of the pack and a field cards print reads the id (ids come
first), so `tools(me) where flute = 1` never tests the stat `flute` when a card is also called `flute`. It bit the
author of a pack; lint now says so."""

from __future__ import annotations

import json

from conftest import vp_and_goal, write_tree

MANIFEST = "kind: pack\nid: band\nname: Band\nversion: 1.0.0\nplayers: {min: 1, max: 2}\n"
RULES = (
    """kind: zone
id: tools
name: Tools
type: tableau
owner: player
visibility: public
---
kind: card
id: flute
name: Flute
type: tool
deck: tools
stats: {flute: 1}
---
"""
    + vp_and_goal()
    + """---
kind: action
id: play
name: Play
whole_turn: true
effect: |
  gain count(tools(me) where TEST) vp
"""
)


def _codes(knap, tmp_path, test):
    folder = tmp_path / test.encode().hex()
    pack = write_tree(folder / "band", {"pack.yaml": MANIFEST, "rules.yaml": RULES.replace("TEST", test)})
    # --no-cache: no entry written into the .knap_cache of the working folder, the repository, which the
    # test processes share
    _, out, _ = knap("lint", str(pack), "--no-cache", "--format", "json")
    return [(d["code"], d["severity"]) for d in json.loads(out)["diagnostics"]]


def test_a_stat_named_like_an_id_compared_bare_is_flagged(tmp_path, knap):
    assert _codes(knap, tmp_path, "flute = 1") == [("D012", "warning")]
    assert _codes(knap, tmp_path, "1 = flute") == [("D012", "warning")]


def test_the_field_read_through_card_or_an_id_compared_with_id_is_not(tmp_path, knap):
    for test in ("card.flute = 1", "item.flute = 1", "id = flute", "flute = id", "tag = flute"):
        assert _codes(knap, tmp_path, test) == [], test
