"""Players out of the game or the round (`eliminate`), and the order of turns (`next_turn`, rounds):
docs/authoring.md "Players out of the game" and "Turn order and rounds"."""

from __future__ import annotations

import json

import pytest
from conftest import write_tree

from engine.runtime.game import Game
from engine.runtime.persist import check_save_schema
from engine.runtime.rules import load
from engine.runtime.terminal import _marked, _title

MANIFEST = "kind: pack\nid: out\nname: Out\nversion: 1.0.0\nplayers: {min: 1, max: 4}\n"

RULES = """{kind: counter, id: vp, name: VP, owner: player}
---
{kind: counter, id: seen, name: Seen, owner: player}
---
kind: action
id: knock_out
name: Knock out
whole_turn: true
effect: |
  choose 1 from opponents as target
  eliminate target
---
{kind: action, id: sit_out, name: Sit out, whole_turn: true, effect: "eliminate me until round_end"}
---
{kind: action, id: score, name: Score, whole_turn: true, effect: "gain 5 vp"}
---
{kind: action, id: again, name: Again, whole_turn: true, effect: "next_turn me"}
---
kind: action
id: count_them
name: Count them
limit: once_per_turn
effect: |
  set seen to count(players) * 100 + count(opponents) * 10 + count(all_players)
  if eliminated(next_player(me)):
      gain 1000 seen
---
kind: phase
id: greet
name: A round begins
when: round_start
effect: |
  log "A round begins for {me}"
---
{kind: end, id: late, name: Late, trigger: turn_number > 40, then: immediate, result: most, counter: vp}
"""


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    return load(write_tree(tmp_path_factory.mktemp("packs") / "out", {"pack.yaml": MANIFEST, "rules.yaml": RULES}))


def act(game, action, *answers):
    game.apply(game.state["pending"]["options"].index(action), game.turn_player)
    for answer in answers:
        pending = game.state["pending"]
        game.apply(pending["options"].index(answer), pending["by"][0])


def turns(game) -> list[str]:
    return [line for line in game.view("P1")["log"] if line.startswith("Turn ")]


def test_a_player_out_of_the_game_loses_their_turns_and_is_left_out_of_players(rules):
    game = Game.new(rules, 3, 0)
    act(game, "knock_out", "P2")
    assert game.turn_player == "P3"  # P2's turn is skipped
    assert "P2 is out of the game" in game.view("P3")["log"]
    act(game, "count_them")
    assert game.state["counters"]["P3"]["seen"] == 2 * 100 + 1 * 10 + 3
    act(game, "end_turn")
    assert game.turn_player == "P1"
    act(game, "count_them")  # P1's next player is P2, who is out
    assert game.state["counters"]["P1"]["seen"] == 1000 + 2 * 100 + 1 * 10 + 3
    view = game.view("P3")
    assert view["out"] == {"P2": "game"}
    assert _marked(view, "P2", False).plain == "P2 (out of the game)"  # the terminal's player lines
    assert turns(game) == ["Turn 1: P1", "Turn 2: P3", "Turn 3: P1"]


def test_a_player_out_of_the_round_is_back_when_it_ends(rules):
    game = Game.new(rules, 3, 0)
    act(game, "score")  # P1
    act(game, "sit_out")  # P2 sits out the rest of round 1
    assert "P2 is out of the round" in game.view("P1")["log"]
    act(game, "score")  # P3: the round ends
    assert game.turn_player == "P1" and game.view("P1")["out"] == {}
    act(game, "score")  # P1
    assert game.turn_player == "P2"  # back
    log = game.view("P1")["log"]
    assert log.index("P2 is back in the game") < log.index("A round begins for P1", log.index("P2 is out of the round"))
    assert game.view("P1")["turn"]["round"] == 2


def test_a_player_out_never_wins_on_most_unless_everyone_is_out(rules):
    game = Game.new(rules, 2, 0)
    act(game, "score")  # P1 has 5
    act(game, "knock_out")  # P2 knocks P1 out (the only one to choose)
    while not game.over:
        act(game, "end_turn")  # P2 alone plays on, with 0 vp, to the turn limit of the end rule
    assert game.result["scores"] == {"P1": 5, "P2": 0}
    assert game.result["winners"] == ["P2"]


def test_when_everyone_is_out_the_game_ends(rules):
    game = Game.new(rules, 1, 0)
    act(game, "score")
    act(game, "sit_out")  # the only player sits out the round: the round ends, they are back
    assert not game.over and game.turn_player == "P1"
    game = Game.new(rules, 2, 0)
    act(game, "score")
    act(game, "knock_out")
    game.state["out"]["P2"] = "game"  # as if P2 went out too
    act(game, "end_turn")
    assert game.over and game.result["reason"] == "everyone_out"
    assert game.result["winners"] == ["P1"]  # everyone is out: the score decides among all


def test_next_turn_me_plays_again_and_the_round_goes_on(rules):
    game = Game.new(rules, 3, 0)
    act(game, "again")
    assert game.turn_player == "P1"  # P1 again, still in round 1
    act(game, "score")
    act(game, "score")  # P2
    act(game, "score")  # P3: round 1 ends
    assert turns(game) == ["Turn 1: P1", "Turn 2: P1", "Turn 3: P2", "Turn 4: P3", "Turn 5: P1"]
    assert game.view("P1")["turn"]["round"] == 2
    assert "Round 2 · Turn 5 — P1 to play" in _title(game.view("P1"), False, 120).plain


def test_next_turn_back_to_an_earlier_seat_starts_a_new_round(rules):
    game = Game.new(rules, 3, 0)
    act(game, "score")  # P1
    act(game, "score")  # P2
    game.state["turn"]["next"] = "P2"  # as `next_turn P2` in P3's turn
    act(game, "score")  # P3
    assert game.turn_player == "P2" and game.view("P2")["turn"]["round"] == 2
    assert "A round begins for P2" in game.view("P1")["log"]


def test_a_save_with_players_out_is_valid_and_loads(rules):
    game = Game.new(rules, 3, 0)
    act(game, "knock_out", "P3")
    act(game, "again")
    state = json.loads(game.save())
    check_save_schema(state)
    assert Game.load(rules, game.save()).state["out"] == {"P3": "game"}


def test_lint_knows_the_new_words(tmp_path, lint_json):
    bad = RULES.replace('"eliminate me until round_end"', '"eliminate me until turn_end"')
    root = write_tree(tmp_path / "out", {"pack.yaml": MANIFEST, "rules.yaml": bad})
    code, findings = lint_json(root)
    assert code == 1 and [f[3] for f in findings] == ["D004"] and "`round_end`" in findings[0][4]


ROUNDS = """{kind: counter, id: vp, name: VP, owner: player}
---
kind: phase
id: first_scores
name: The first player scores
when: round_start
effect: |
  gain 1 vp
---
{kind: phase, id: pass_on, name: Pass on, when: round_end, effect: "next_turn next_player(me)"}
---
{kind: end, id: three, name: Three, trigger: turn_number >= 5, then: immediate, result: most, counter: vp}
"""


def test_in_a_rounds_pack_next_turn_passes_the_first_player_on(tmp_path):
    manifest = MANIFEST.replace("id: out", "id: rounds") + "turns: rounds\n"
    rules = load(write_tree(tmp_path / "rounds", {"pack.yaml": manifest, "rules.yaml": ROUNDS}))
    game = Game.new(rules, 3, 0)
    assert game.over
    assert {p: game.state["counters"][p]["vp"] for p in game.players} == {"P1": 2, "P2": 2, "P3": 1}
