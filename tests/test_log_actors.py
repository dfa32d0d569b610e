"""Who the log says acted (docs/authoring.md "Turn order and rounds"): phases that are nobody's turn (setup,
a round's start and end, the game's end) are nobody's act, though `me` there is the round's first player; a
move done `for` a player is the acting player's."""

from __future__ import annotations

import random
import re

import pytest
from conftest import write_tree
from scenario import ruleset

from engine.runtime import session
from engine.runtime.game import Game
from engine.runtime.rules import load

MANIFEST = "kind: pack\nid: actors\nname: Actors\nversion: 1.0.0\nplayers: {min: 2, max: 3}\n"

RULES = """{kind: zone, id: deck, name: Deck, type: deck, discard: discard}
---
{kind: zone, id: discard, name: Discard, type: pile, visibility: public}
---
{kind: zone, id: hand, name: Hand, type: hand, owner: player, visibility: public}
---
{kind: zone, id: tableau, name: Tableau, type: pile, owner: player, visibility: public}
---
{kind: card, id: dumpling, name: Dumpling, type: food, deck: deck, copies: 12}
---
{kind: counter, id: vp, name: VP, owner: player}
---
{kind: counter, id: first_seen, name: First seen, owner: table}
---
kind: phase
id: deal
name: Deal
when: setup
effect: |
  for each p in players:
      draw 2 from deck to hand for p
---
kind: phase
id: tidy
name: Tidy up
when: round_end
effect: |
  if me = "P1":
      set first_seen to 1
  else:
      set first_seen to 2
  for each p in players:
      discard first(hand(p))
  move first(deck) to tableau for next_player(me)
---
kind: action
id: give
name: Give a dumpling
whole_turn: true
effect: |
  move first(hand(me)) to tableau for next_player(me)
---
{kind: end, id: late, name: Late, trigger: turn_number > 6, then: immediate, result: most, counter: vp}
"""


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    rules = load(write_tree(tmp_path_factory.mktemp("packs") / "actors", {"pack.yaml": MANIFEST, "rules.yaml": RULES}))
    game = Game.new(rules, 2, 0)
    for _ in range(2):  # P1 and P2 each give a dumpling: round 1 ends
        game.apply(game.state["pending"]["options"].index("give"), game.turn_player)
    return game


def test_a_move_done_for_a_player_is_the_acting_players(game):
    log = game.view("P1")["log"]
    assert "P1 moves Dumpling from P1's hand to P2's tableau" in log
    assert "P2 moves Dumpling from P2's hand to P1's tableau" in log
    assert not any(line.startswith("P2 moves Dumpling from P1's") for line in log)


def test_a_round_end_phase_is_nobodys_act(game):
    log = game.view("P2")["log"]
    assert "Dumpling is discarded from P1's hand to Discard" in log
    assert "Dumpling is discarded from P2's hand to Discard" in log
    assert "Dumpling is moved from Deck to P2's tableau" in log
    assert not any(line.startswith(("P1 discards", "P2 discards")) for line in log)


def test_me_in_a_round_end_phase_is_the_rounds_first_player(game):
    assert game.state["counters"]["table"]["first_seen"] == 1


def test_setup_is_nobodys_act(game):
    log = game.view("P1")["log"]
    assert "Setup: Dumpling drawn from Deck to P1's hand" in log
    assert not any(line.startswith("Setup: P1 draws") for line in log)


def test_neolithibum_round_phases_are_nobodys_act():
    """The issue's example: everything a round phase did was logged as the first player's ("P1 moves ... to
    P2's played card"); the round phase lays out everyone's cards, nobody's act."""
    rules = ruleset("neolithibum")
    game = Game.new(rules, 3, 0)
    session.play_randomly(game, random.Random(0), limit=60)
    log = game.view("P3")["log"]
    assert any(line.endswith("is moved from P2's action cards to P2's played card") for line in log)
    assert not any(re.match(r"P\d (moves|discards|draws) .* to P\d's (played card|handicaps)$", line) for line in log)
