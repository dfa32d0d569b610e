"""Who wins (docs/runtime.md "Who wins"): `result: least`, tie-breakers as a list, and `win` inside the
end-of-game phases and scorings, which run exactly once before `win` decides."""

from __future__ import annotations

import pytest
from conftest import tiny_manifest, write_tree

from engine.runtime.game import Game
from engine.runtime.rules import load

COUNTERS = """kind: counter
id: vp
name: VP
owner: player
---
kind: counter
id: tools
name: Tools
owner: player
---
kind: counter
id: food
name: Food
owner: player
---
kind: counter
id: scored
name: Times scored
owner: table
"""

# P1 scores 2 a turn, P2 1 a turn: the game ends once P1 has 4 (P1's second turn)
ACT = """kind: action
id: act
name: Act
effect: |
  if me = "P1":
    gain 2 vp
  else:
    gain 1 vp
  end_turn
"""


def _pack(tmp_path, end: str, extra: str = ""):
    rules = COUNTERS + "---\n" + ACT + "---\n" + end + (f"---\n{extra}" if extra else "")
    return load(write_tree(tmp_path / "tiny", {"pack.yaml": tiny_manifest(), "rules.yaml": rules}))


def _play(rules, players=2) -> Game:
    game = Game.new(rules, players, 0)
    for _ in range(100):
        if game.over:
            break
        game.apply(game.decision.options.index("act"), game.decision.players[0])
    assert game.over
    return game


END = """kind: end
id: goal
name: Goal
trigger: me.vp >= 4
then: {then}
result: {result}
counter: vp
"""


def test_result_least_makes_the_fewest_the_winner(tmp_path):
    """docs/runtime.md, "Who wins": `result: least`."""
    game = _play(_pack(tmp_path, END.format(then="finish_round", result="least")))
    assert game.result["scores"] == {"P1": 4, "P2": 2}
    assert game.result["winners"] == ["P2"]


def test_bots_that_look_ahead_count_a_least_score_down(tmp_path):
    """greedy's measure (scoring.projected_margin): with `result: least`, fewer points are the better margin."""
    game = Game.new(_pack(tmp_path, END.format(then="finish_round", result="least")), 2, 0)
    game.apply(game.decision.options.index("act"), "P1")  # P1 2, P2 0
    assert game.projected_margin("P1") == -2 and game.projected_margin("P2") == 2


def test_result_most_still_makes_the_most_the_winner(tmp_path):
    game = _play(_pack(tmp_path, END.format(then="finish_round", result="most")))
    assert game.result["winners"] == ["P1"]


TIED = """kind: end
id: goal
name: Goal
trigger: turn_number >= 2
then: immediate
result: most
counter: food
tiebreak:
{tiebreak}
"""

SETUP_TIE = """kind: phase
id: deal
name: Deal
when: setup
effect: |
  for each p in players:
    gain 5 food for p
    if p = "P1":
      gain 3 tools for p
    else:
      gain 1 tools for p
"""


@pytest.mark.parametrize(
    ("tiebreak", "winners"),
    [
        ("  - me.tools", ["P1"]),  # an expression: more is better
        ("  - {least: me.tools}", ["P2"]),
        ("  - {most: me.tools}", ["P1"]),
        ("  - {least: me.food}\n  - {least: me.vp}", ["P2"]),  # food ties again: the second entry decides
    ],
)
def test_tiebreak_lists_are_applied_in_order(tmp_path, tiebreak, winners):
    """The game ends at the start of turn 2: P1 has 2 vp, P2 none; both have 5 food (the counter
    compared), P1 3 tools, P2 1."""
    game = _play(_pack(tmp_path, TIED.format(tiebreak=tiebreak), SETUP_TIE))
    assert game.result["scores"] == {"P1": 5, "P2": 5}
    assert game.result["winners"] == winners


def test_a_single_tiebreak_expression_works_as_before(tmp_path):
    rules = _pack(tmp_path, TIED.format(tiebreak="  me.tools").replace("tiebreak:\n", "tiebreak: "), SETUP_TIE)
    assert _play(rules).result["winners"] == ["P1"]


def test_a_tiebreak_entry_is_checked_by_lint_with_its_position(tmp_path, knap):
    write_tree(
        tmp_path / "tiny",
        {
            "pack.yaml": tiny_manifest(),
            "rules.yaml": COUNTERS
            + "---\n"
            + ACT
            + "---\n"
            + TIED.format(tiebreak="  - me.tools\n  - {least: me.nope}"),
        },
    )
    text = (tmp_path / "tiny" / "rules.yaml").read_text().splitlines()
    row = next(i for i, ln in enumerate(text, 1) if "me.nope" in ln)
    col = text[row - 1].index("me.nope") + 1
    # --no-cache: no entry written into the .knap_cache of the working folder, the repository, which the
    # test processes share
    code, out, _err = knap("lint", str(tmp_path / "tiny"), "--no-cache")
    assert code != 0
    assert f"rules.yaml:{row}:{col}:" in out and "nope" in out


GAME_END_WIN = """kind: phase
id: final
name: Final
when: game_end
effect: |
  gain 1 scored
  win players where item = "P2"
"""

SCORING_WIN = """kind: scoring
id: count_up
name: Count up
order: 1
effect: |
  gain 1 scored
  for each p in players:
    gain 10 vp for p
  if me.scored >= 1:
    win players where item = "P2"
---
kind: scoring
id: after
name: After
order: 2
effect: |
  for each p in players where item = "P1":
    gain 1 vp for p
"""


def test_win_in_a_game_end_phase_runs_the_phases_once_and_decides(tmp_path):
    """The bug: `win` inside a game_end phase re-ran the end of the game until the step limit."""
    game = _play(_pack(tmp_path, END.format(then="immediate", result="most"), GAME_END_WIN))
    assert game.state["counters"]["table"]["scored"] == 1
    assert game.result["winners"] == ["P2"]


def test_win_in_a_scoring_lets_every_scoring_run_exactly_once(tmp_path):
    """`win` in a scoring does not cut the scorings short nor re-run them: scores count once."""
    game = _play(_pack(tmp_path, END.format(then="immediate", result="most"), SCORING_WIN))
    assert game.state["counters"]["table"]["scored"] == 1
    assert game.result["scores"] == {"P1": 4 + 10 + 1, "P2": 1 + 10}
    assert game.result["winners"] == ["P2"]
