"""`cooperative: true` in pack.yaml: the players are one team. A bot that looks ahead weighs the team's position
rather than its lead over partners (whose position is its own), and `knap sim` reports the team's win rate."""

from __future__ import annotations

import json

from conftest import write_tree

from engine.runtime import rules as rules_module
from engine.runtime.game import Game

# a shared storage that the players fill together; they all win at 3 (a team), and progress is the storage
TEAM_RULES = """kind: counter
id: food
name: Food
owner: table
---
kind: end
id: full
name: Full storage
trigger: food >= 3
then: immediate
result: win
progress: 5 * food
---
kind: phase
id: shared_outcome
name: All win
when: game_end
effect: |
  win all_players
---
kind: action
id: gather
name: Gather
effect: |
  gain 1 food
"""


def _pack(tmp_path, cooperative: bool):
    manifest = "kind: pack\nid: team\nname: Team\nversion: 1.0.0\nplayers: {min: 1, max: 3}\n"
    if cooperative:
        manifest += "cooperative: true\n"
    return write_tree(
        tmp_path / ("coop" if cooperative else "plain"), {"pack.yaml": manifest, "rules.yaml": TEAM_RULES}
    )


def test_a_cooperative_pack_weighs_the_team_position_not_a_lead_over_partners(tmp_path):
    """Without the setting, two players with the same (shared) progress both see a margin of 0, whatever the
    storage holds: a bot cannot tell a good move from a bad one. With it, the margin is the team's progress."""
    for cooperative, expected in ((False, [0, 0]), (True, [10, 10])):
        rules = rules_module.load(_pack(tmp_path, cooperative))
        assert rules.cooperative is cooperative
        game = Game.new(rules, 2, 0)
        game.state["counters"]["table"]["food"] = 2
        assert [game.projected_margin(p) for p in game.state["players"]] == expected


def test_the_setting_is_inherited_by_a_pack_that_extends_it(tmp_path):
    """A variant of a cooperative game is cooperative too, unless it says otherwise (a rule setting, as `turns`)."""
    base = _pack(tmp_path, True)
    write_tree(tmp_path, {"variant/pack.yaml": "kind: pack\nid: variant\nname: V\nversion: 1.0.0\nextends: [team]\n"})
    (tmp_path / "team").symlink_to(base, target_is_directory=True)
    assert rules_module.load(tmp_path / "variant").cooperative is True


def test_sim_reports_the_team_win_rate(tmp_path, knap):
    """The summary of a cooperative pack has the team's wins (a game won by all counts once), with its interval."""
    code, out, _ = knap(
        "sim",
        str(_pack(tmp_path, True)),
        "-n",
        "4",
        "--players",
        "2",
        "--jobs",
        "1",
        "--format",
        "json",
        "--no-progress",
    )
    assert code == 0
    summary = json.loads(out)
    assert summary["team"]["wins"] == 4 and summary["team"]["win_rate"] == 1.0
    assert summary["seats"][0]["wins"] == 2  # the seats split the shared wins
    code, out, _ = knap(
        "sim", str(_pack(tmp_path, False)), "-n", "2", "--jobs", "1", "--format", "json", "--no-progress"
    )
    assert json.loads(out)["team"] is None
