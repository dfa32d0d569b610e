"""How a choice is logged (docs/runtime.md, "Questions, one small pick at a time"): every seat reads that the
choice was made; the chooser reads the cards they chose by name, the others read "a card" for those they
cannot see. The chooser's own line used to hide their own card too."""

from __future__ import annotations

from conftest import one_action_rules, tiny_manifest, write_tree

from engine.runtime.game import Game
from engine.runtime.rules import load

ZONES = """kind: zone
id: hand
name: Hand
type: hand
owner: player
visibility: owner
---
kind: zone
id: deck
name: Deck
type: deck
visibility: hidden
---
kind: card
id: amber
name: Amber
type: gem
deck: deck
copies: 4
---
kind: card
id: basalt
name: Basalt
type: gem
deck: deck
copies: 4
"""

EFFECT = """draw 2 from deck to hand
choose 1 from hand(me) as kept with "Which gem do you keep?"
gain 1 vp"""


def test_the_chooser_reads_their_own_card_and_the_others_a_card(tmp_path):
    rules = one_action_rules(EFFECT, action="limit: once_per_turn", before=ZONES)
    game = Game.new(load(write_tree(tmp_path / "tiny", {"pack.yaml": tiny_manifest(), "rules.yaml": rules})), 2, 0)
    game.apply(game.decision.options.index("act"), "P1")
    if game.decision.kind == "choose":  # two different gems: P1 picks the first
        game.apply(game.decision.options[0], "P1")
    own = [line for line in game.log_for("P1") if "Which gem" in line]
    other = [line for line in game.log_for("P2") if "Which gem" in line]
    assert len(own) == len(other) == 1
    assert own[0].split("chooses ")[1].split(" (")[0] in ("Amber", "Basalt")
    assert other[0] == 'P1, asked "Which gem do you keep?", chooses a card'
