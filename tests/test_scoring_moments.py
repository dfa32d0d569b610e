"""A `scoring` runs at the moment its `when` names (schemas/scoring.schema.json): at the game's end, or after
the phases of every round's end or every turn's end — a game scored round by round. Before, a scoring with
`when: round_end` or `turn_end` passed lint and never ran."""

from __future__ import annotations

import pytest
from conftest import tiny_manifest, write_tree

from engine.runtime.game import Game
from engine.runtime.rules import load

RULES = """kind: counter
id: vp
name: VP
owner: player
---
kind: counter
id: scored
name: Times scored
owner: table
---
kind: end
id: goal
name: Goal
trigger: me.vp >= 100
then: immediate
result: most
counter: vp
---
kind: action
id: act
name: Act
effect: |
  gain 1 vp
  end_turn
---
kind: phase
id: count_phase
name: Counts first
when: {when}
effect: |
  set scored to scored * 10
---
kind: scoring
id: counted
name: Counted
when: {when}
effect: |
  gain 1 scored
"""


def _turns(game: Game, n: int) -> Game:
    for _ in range(n):
        game.apply(game.decision.options.index("act"), game.decision.players[0])
    return game


@pytest.mark.parametrize(("when", "turns", "expected"), [("turn_end", 3, 111), ("round_end", 4, 11)])
def test_a_scoring_runs_after_the_phases_of_its_moment(tmp_path, when, turns, expected):
    """A scoring `when: turn_end` runs at every turn's end, `round_end` at every round's end (2 players: every
    second turn), each after that moment's phases (x10, then +1)."""
    rules = load(write_tree(tmp_path / "tiny", {"pack.yaml": tiny_manifest(), "rules.yaml": RULES.format(when=when)}))
    game = _turns(Game.new(rules, 2, 0), turns)
    assert game.counter("table", "scored") == expected


def test_a_game_end_scoring_does_not_run_between_turns(tmp_path):
    """The default moment stays the game's end: nothing is scored while the game goes on."""
    rules = load(
        write_tree(tmp_path / "tiny", {"pack.yaml": tiny_manifest(), "rules.yaml": RULES.format(when="game_end")})
    )
    game = _turns(Game.new(rules, 2, 0), 4)
    assert game.counter("table", "scored") == 0
