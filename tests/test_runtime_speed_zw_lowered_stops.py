"""A lowered effect stops its run without calling `lowering.stopped` when a verb pushed an effect ("yield": `perform`)
or asks a decision (a pending decision), the commonest ways a run stops (Neolithibum stops about once a decision):
the same steps counted, the same step to go on from, the same decision. A verb that fails still goes through
`stopped` (the undo and its words). The oracle is the same effect lowered with the call (`lowering.INLINED_STOPS`
off): the same state, `steps` included, and the same work at every decision, and the same errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree
from lowered_code import assert_same_games, both_ways, every_decision, forget

from engine.runtime import ahead
from engine.runtime.game import Game
from engine.runtime.rules import load

CONTENT = Path(__file__).resolve().parents[1] / "content"
PACKS = sorted(p.name for p in CONTENT.iterdir() if (p / "pack.yaml").exists())


SWITCH = "INLINED_STOPS"  # off for the oracle: every stop of a lowered run through `stopped`, as before


@pytest.mark.parametrize("pack", PACKS)
def test_seeded_games_of_every_pack_stop_as_with_the_call(pack):
    """Every decision of a seeded random game: the same state (`steps` included) and work left."""
    rules = load(CONTENT / pack)
    reference, inlined = both_ways(rules, SWITCH, lambda rules: every_decision(rules, 5))
    assert_same_games(reference, inlined, pack)


EFFECT = """require me.vp < 2
gain 1 vp
choose 1 from numbers(1, 3) as n
perform helper
require n != 2
gain n vp"""
HELPER = """
---
kind: action
id: helper
name: Helper
subroutine: true
effect: |
  gain 1 vp
"""


def _rules(tmp_path):
    text = one_action_rules(EFFECT, goal=99) + HELPER
    return load(write_tree(tmp_path / "stops", {"pack.yaml": tiny_manifest("stops"), "rules.yaml": text}))


def test_a_decision_an_effect_pushed_and_a_failure_stop_as_with_the_call(tmp_path):
    """An action that asks (`choose`), performs another effect ("yield") and fails (`require`: undone, its answer a
    dead end), every answer in turn: the same state and work after each."""
    rules = _rules(tmp_path)

    def play(rules):
        game = Game.new(rules, 2, 0)
        seen = []
        for _ in range(12):
            if game.over:
                break
            decision = game.decision
            option = decision.options.index("act") if "act" in decision.options else len(decision.legal) - 1
            option = option if option in decision.legal else decision.legal[-1]
            game.apply(option, decision.players[0])
            seen.append((json.dumps(game.state), game.work))
        return seen

    reference, inlined = both_ways(rules, SWITCH, play)
    assert any("takes back" in state for state, _ in inlined)  # the failure was met
    assert inlined == reference


def test_the_lowered_code_stops_without_the_call_unless_a_verb_fails(tmp_path, monkeypatch):
    """Fails if the fast path goes: `stopped` is called only for "fail"."""
    rules = _rules(tmp_path)
    made = []

    def recorded(source, filename):
        made.append(source)
        return compile(source, filename, "exec")

    monkeypatch.setattr(ahead, "compiled", recorded)
    forget(rules)
    game = Game.new(rules, 2, 0)
    game.apply(game.decision.options.index("act"), game.decision.players[0])
    source = "\n".join(made)
    assert "run_from_0" in source
    assert "return stopped(" in source
    lines = source.splitlines()
    calls = [n for n, line in enumerate(lines) if "return stopped(" in line]
    assert calls and all(lines[n - 1].strip() == "elif out == 'fail':" for n in calls)
    assert "state['pending'] = out" in source and "if out == 'yield':" in source
