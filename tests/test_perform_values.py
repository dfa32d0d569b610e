"""`perform ACTION(VALUE, ...)`: a subroutine action declares `params` and is given their values when performed,
instead of a working counter set before the `perform` and read (and reset) inside it."""

from __future__ import annotations

import random

from conftest import vp_and_goal, write_tree
from scenario import saved_and_loaded

from engine.runtime import rules as rules_module
from engine.runtime import session
from engine.runtime.game import Game

MANIFEST = "kind: pack\nid: hurt\nname: Hurt\nversion: 1.0.0\nplayers: {min: 1, max: 2}\n"

RULES = (
    vp_and_goal("30")
    + """---
kind: counter
id: wounds
name: Wounds
owner: player
---
kind: action
id: suffer
name: Suffer
subroutine: true
params: [n, why]
effect: |
  ask me "Take {n} wound(s) ({why})?" as taking
  if taking:
      gain n wounds
      gain n * 2 vp
---
kind: action
id: brave
name: Be brave
effect: |
  let k = 2
  perform suffer(k + 1, "a bear")
  perform suffer(1, "a thorn") for me
"""
)


def _pack(tmp_path, rules=RULES):
    return write_tree(tmp_path / "hurt", {"pack.yaml": MANIFEST, "rules.yaml": rules})


def _lint(knap, path):
    import json

    # --no-cache: no entry written into the .knap_cache of the working folder, the repository, which the
    # test processes share
    code, out, _ = knap("lint", str(path), "--no-cache", "--format", "json")
    return code, [(d["code"], d["message"]) for d in json.loads(out)["diagnostics"]]


def test_the_values_are_the_performed_actions_locals_across_a_decision_and_a_save(tmp_path):
    """The values are bound for the whole effect, before and after a question, and a game saved while the
    action waits for the answer keeps them (they are plain data in its frame)."""
    game = Game.new(rules_module.load(_pack(tmp_path)), 1, 0)
    game.apply(next(o for o in game.legal("P1") if "brave" in str(game.state["pending"]["options"][o])), "P1")
    assert "3 wound(s) (a bear)" in game.state["pending"]["prompt"]
    game = saved_and_loaded(game)
    game.apply(game.legal("P1")[game.state["pending"]["options"].index(True)], "P1")
    assert game.counter("P1", "wounds") == 3 and game.counter("P1", "vp") == 6
    assert "1 wound(s) (a thorn)" in game.state["pending"]["prompt"]


def test_random_games_with_values_replay(tmp_path):
    rules = rules_module.load(_pack(tmp_path))
    game = Game.new(rules, 2, 4, max_rounds=20)
    session.play_randomly(game, random.Random(4))
    assert session.replay(rules, session.game_log(game)).state_hash() == game.state_hash()


def test_lint_checks_the_values_against_the_params(tmp_path, knap):
    """Too many or too few values, or none for an action that takes some, is D003; a value is checked as any
    expression (an unknown name in it is D002)."""
    assert _lint(knap, _pack(tmp_path))[0] == 0
    wrong = RULES.replace('perform suffer(1, "a thorn") for me', "perform suffer(1) for me").replace(
        "perform suffer(k + 1,", "perform suffer(kk + 1,"
    )
    code, found = _lint(
        knap, _pack(tmp_path / "a", wrong + "---\nkind: action\nid: lazy\nname: Lazy\neffect: |\n  perform suffer\n")
    )
    assert code == 1
    codes = sorted(c for c, _ in found)
    assert codes == ["D002", "D003", "D003"], found
    assert any("`suffer` takes 2 values (its `params`), got 1" in m for _, m in found)
    assert any("got none" in m for _, m in found)


def test_an_action_on_the_menu_cannot_take_values(tmp_path, knap):
    """Only a subroutine is performed by other effects; an action on the menu is started by a player, who gives
    it nothing (the schema says so)."""
    menu = RULES.replace("subroutine: true\nparams: [n, why]", "params: [n, why]")
    code, found = _lint(knap, _pack(tmp_path, menu))
    assert code == 1 and any(c.startswith("S") and "subroutine" in m for c, m in found), found
