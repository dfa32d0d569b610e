"""The runtime's primitives for games where everyone acts at once (docs/runtime.md): `turns: rounds`,
per-player card sets, `choose_secretly` (hidden simultaneous choices), `oracle` with outcomes and a
pack's weights, and `knap play --oracle ask` (a person at the table answers the oracles)."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import knap_process

from engine.runtime import session
from engine.runtime.errors import ContentError
from engine.runtime.game import CHANCE, Game, GameError
from engine.runtime.rules import load

REPO = Path(__file__).resolve().parent.parent

MANIFEST = """kind: pack
id: demo
name: Demo
version: 0.1.0
players: {min: 2, max: 4}
turns: rounds
"""

RULES = """kind: zone
id: hand
name: Hand
type: hand
owner: player
visibility: owner
---
kind: zone
id: played
name: Played
type: pile
owner: player
visibility: public
---
kind: counter
id: vp
name: Points
owner: player
---
kind: card
id: rock
name: Rock
type: move
deck: hand
stats: {beats: 3}
---
kind: card
id: paper
name: Paper
type: move
deck: hand
stats: {beats: 1}
---
kind: card
id: shears
name: Shears
type: move
deck: hand
stats: {beats: 2}
---
kind: phase
id: play_round
name: Everyone plays
when: round_start
effect: |
  choose_secretly players from hand(me) as picks with "Which card do you show?"
  choose_secretly players from opponents as aims with "At whom?"
  let n = 0
  for each p in players:
      let n = n + 1
      move picks[n] to played for p
  oracle "How did the tower land?" among ["stands", "wobbles", "falls"] with [6, 3, 1] as landing
  if landing = "stands":
      gain 1 vp for aims[1]
---
kind: phase
id: take_back
name: Cards back to hand
when: round_end
effect: |
  for each p in players:
      move played(p) to hand for p
---
kind: end
id: enough
name: Enough points
trigger: me.vp >= 3
then: immediate
result: win
"""


@pytest.fixture
def pack(make_pack):
    return make_pack({"rules.yaml": RULES}, manifest=MANIFEST)


def hand(game, player):
    return sorted(game.rules.instances[c] for c in game.state["zones"][f"hand:{player}"])


def test_each_player_gets_a_set_and_absent_seats_stay_in_the_box(pack):
    """A card whose deck is a player's zone is a set every player has (once per seat)."""
    rules = load(pack)
    assert len(rules.instances) == 3 * 4
    game = Game.new(rules, 3, 0)
    for player in ("P1", "P2", "P3"):
        assert hand(game, player) == ["paper", "rock", "shears"]
    assert len(game.state["zones"]["_removed"]) == 3


def test_a_secret_choice_shows_each_player_only_their_own_until_all_have_chosen(pack):
    """`choose_secretly`: one decision for everyone at once; each player's options are their own cards;
    an answer stays out of the others' views and logs (and of what an agent may imagine) until the last
    player has answered; then the choices are revealed together."""
    game = Game.new(load(pack), 3, 0)
    decision = game.decision
    assert decision.kind == "secret" and decision.players == ["P1", "P2", "P3"]
    own = {p: {game.state["pending"]["options"][k] for k in game.legal(p)} for p in ("P1", "P2", "P3")}
    for p, options in own.items():
        assert options == set(game.state["zones"][f"hand:{p}"])
    view = game.view("P2")["decision"]
    assert [o["label"].split(" (")[0] for o in view["options"]] == ["Rock", "Paper", "Shears"]
    rock = next(k for k in game.legal("P1") if game.rules.instances[game.state["pending"]["options"][k]] == "rock")
    before = {p: json.dumps(game.view(p)) for p in ("P2", "P3")}
    game.apply(rock, "P1")
    for p in ("P2", "P3"):
        after = game.view(p)
        assert "Rock" not in json.dumps(after["log"]) and after["decision"]["prompt"] == "Which card do you show?"
        assert json.loads(before[p])["log"] == after["log"]
    imagined = game.determinized("P2", 7)
    assert imagined.state["pending"]["answers"] == {} and sorted(imagined.state["pending"]["by"]) == ["P1", "P2", "P3"]
    assert game.view("P1")["decision"]["waiting_for"] == ["P2", "P3"]
    with pytest.raises(GameError) as caught:
        game.apply(rock, "P2")  # P1's card is not P2's to play
    assert caught.value.code == "X204"  # illegal-answer
    for p in ("P2", "P3"):
        game.apply(game.legal(p)[0], p)
    # cards from hands the others cannot see stay "a card" to them; each player reads their own
    assert game.view("P3")["log"][-1].startswith("Chosen together: P1 a card, P2 a card, P3 ")
    assert game.view("P1")["log"][-1].startswith("Chosen together: P1 Rock, P2 a card, P3 a card")
    assert "Rock" not in game.view("P3")["log"][-1].split("P3 ")[0]
    assert game.decision.prompt == "At whom?"
    assert {game.state["pending"]["options"][k] for k in game.legal("P1")} == {"P2", "P3"}


def test_rounds_have_no_menu_and_the_oracle_weights_come_from_the_pack(pack):
    """`turns: rounds`: the round's phases run and the next round starts, with no turn menu. `oracle ...
    among [...] with [6, 3, 1]`: three outcomes with those weights, decided from the game's stream. With two
    players each has one possible target: that secret choice answers itself."""
    game = Game.new(load(pack), 2, 1)
    for _ in range(2):
        for p in ("P1", "P2"):
            game.apply(game.legal(p)[0], p)
        decision = game.decision
        assert decision.kind == "oracle" and decision.players == [CHANCE]
        assert [round(x, 2) for x in decision.probabilities] == [0.6, 0.3, 0.1]
        game.apply(0, CHANCE)  # "stands": P1 aimed at P2
    assert game.state["counters"]["P2"]["vp"] == 2 and game.state["turn"]["number"] == 3
    assert "Round 3" in game.view("P1")["log"] and game.decision.kind == "secret"
    assert hand(game, "P1") == ["paper", "rock", "shears"]  # round_end took them back


def test_random_round_games_end_and_replay(pack):
    rules = load(pack)
    for seed in range(5):
        game = Game.new(rules, 3, seed)
        session.play_randomly(game, random.Random(seed))
        assert game.over and game.state["result"]["reason"] == "enough"
        assert session.replay(rules, session.game_log(game)).state_hash() == game.state_hash()


def test_oracle_weights_that_make_no_sense_are_a_located_error(make_pack):
    rules_text = RULES.replace("with [6, 3, 1]", "with [6, 3]")
    rules = load(make_pack({"rules.yaml": rules_text}, manifest=MANIFEST))
    game = Game.new(rules, 2, 0)
    with pytest.raises(ContentError) as caught:
        session.play_randomly(game, random.Random(0), limit=4)
    assert caught.value.code == "X116" and rules.describe(caught.value).startswith(str(rules.root))


def test_knap_play_asks_the_person_at_the_table_for_oracles(pack):
    """`knap play PACK --oracle ask`: bots play every seat, the person answers each oracle (here: the
    tower always stands, so P1's target, P2, scores each round and wins after three)."""
    answers = io.StringIO("1\n" * 40)
    result = knap_process(
        "play",
        str(pack),
        "--players",
        "2",
        "--agents",
        "random",
        "--oracle",
        "ask",
        "--log",
        str(pack / "game.json"),
        stdin=answers.getvalue(),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "At the table: How did the tower land?" in result.stdout and "3. falls" in result.stdout
    log = json.loads((pack / "game.json").read_text())
    oracles = [answer for player, answer in log["decisions"] if player == CHANCE]
    assert oracles == [0, 0, 0] and log["result"]["winners"] == ["P2"]
    replayed = subprocess.run(
        [sys.executable, "-m", "engine.commands.cli", "replay", str(pack / "game.json")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        check=False,
    )
    assert replayed.returncode == 0, replayed.stderr
