"""The search agent (engine/runtime/search.py, issue 17): information-set MCTS from the player's own view, within a
budget of iterations or milliseconds, knowing no game.

Whether it beats greedy is measured, not asserted here (tools/bench/search_vs_greedy.py, figures in
tools/bench/README.md); these tests hold what the measurement rests on: it searches only imagined games, reads its
budget as given, plays the same game for the same seed, meets chance, oracles, bids and choices made at once in the
shipped packs, and prefers what wins."""

from __future__ import annotations

import random
import time

import pytest
from scenario import ruleset

from engine.runtime import agents, session
from engine.runtime.game import Game
from engine.runtime.rules import load
from engine.runtime.search import SearchAgent

_PACK = """kind: pack
id: race
name: Race
version: 1.0.0
players: {min: 2, max: 2}
"""
# one good action and one that looks as good for a turn (a point either way) but gives the other player three: only
# a search that weighs the margin over the others, not its own score, tells them apart
_RULES = """kind: counter
id: vp
name: Victory points
owner: player
---
kind: end
id: goal
name: Goal
trigger: me.vp >= 6
then: immediate
result: most
counter: vp
---
kind: action
id: honest
name: Honest work
limit: once_per_turn
effect: gain 1 vp
---
kind: action
id: bribe
name: Bribe
limit: once_per_turn
effect: |
  gain 1 vp
  for each rival in opponents:
    gain 3 vp for rival
"""


@pytest.fixture(scope="module")
def race(tmp_path_factory):
    folder = tmp_path_factory.mktemp("race")
    (folder / "pack.yaml").write_text(_PACK)
    (folder / "rules.yaml").write_text(_RULES)
    return load(folder)


def test_the_budget_is_read_from_the_agents_name():
    assert agents._parsed("ismcts") == (SearchAgent, {})
    assert agents._parsed("ismcts:500") == (SearchAgent, {"iterations": 500})
    assert agents._parsed("ismcts:250ms") == (SearchAgent, {"milliseconds": 250})
    for bad in ("ismcts:0", "ismcts:ms", "ismcts:0ms", "ismcts:2x", "ismcts:100001", "greedy:4ms"):
        assert agents._parsed(bad) is None, bad
    assert "ismcts[:ITERATIONS 1-100000|MILLISECONDS 1-600000ms]" in agents.names()
    made = agents.make("ismcts:7", seed=3)
    assert (made.iterations, made.milliseconds) == (7, None)


def _decision_of(game: Game):
    """Play on at random until a player (not chance) must choose among several answers."""
    rnd = random.Random(5)
    while True:
        decision = game.decision
        if decision.is_chance:
            game.apply_chance()
            continue
        player = decision.players[0]
        legal = game.legal(player)
        if len(legal) > 1:
            return player, legal
        game.apply(legal[rnd.randrange(len(legal))], player)


def test_it_searches_imagined_games_only_and_spends_its_budget():
    game = Game.new(ruleset("cro-magnon"), 2, 4)
    player, legal = _decision_of(game)
    before = game.state_hash()
    made = []

    def model(k=0):
        made.append(k)
        return game.determinized(player, 100 + k)

    agent = SearchAgent(seed=1, iterations=30)
    choice = agent.act({"you": player}, legal, model)
    assert choice in legal
    assert game.state_hash() == before  # the real game is never touched
    assert made == list(range(30))  # a fresh imagined deal for every iteration
    tried = agent.tree.edges[player]
    assert sum(edge.visits for edge in tried.values()) == 30
    # the answer is the one tried most
    most = max(tried.values(), key=lambda edge: edge.visits).visits
    assert tried[agent.root_keys[choice]].visits == most


def test_a_single_answer_is_given_without_a_search():
    agent = SearchAgent(seed=0, iterations=50)
    assert agent.act({"you": "P1"}, [3], lambda k=0: pytest.fail("no model for one answer")) == 3


def test_a_budget_in_milliseconds_stops_in_time():
    game = Game.new(ruleset("cro-magnon"), 2, 6)
    player, legal = _decision_of(game)
    agent = SearchAgent(seed=0, milliseconds=40)
    started = time.perf_counter()
    agent.act({"you": player}, legal, lambda k=0: game.determinized(player, k))
    assert time.perf_counter() - started < 2.0  # 40 ms and the one iteration under way (a loaded machine: slack)
    assert agent.iterations_done >= 1


def _played(pack: str, players: int, seed: int, names: list[str]) -> Game:
    seats = [agents.make(names[i % len(names)], seed * 31 + i) for i in range(players)]
    return session.play(ruleset(pack), players, seed, seats)


def test_the_same_seed_plays_the_same_game():
    first = _played("cro-magnon", 2, 3, ["ismcts:6", "random"])
    again = _played("cro-magnon", 2, 3, ["ismcts:6", "random"])
    assert first.over and first.state_hash() == again.state_hash()


@pytest.mark.parametrize(
    ("pack", "players"),
    [
        ("neolithibum", 2),  # cards chosen by everyone at once, a dexterity act answered by its model, sealed bids
        ("stone-age-mammoth-herd", 2),  # dice
        ("cro-magnon-solo", 1),
        ("paleo-a-new-beginning", 1),  # cooperative: the margin is the team's score
    ],
)
def test_it_plays_whole_games_of_every_kind_of_decision(pack, players):
    game = _played(pack, players, 1, ["ismcts:3"])
    assert game.over and game.result["reason"]


def test_answers_given_at_once_are_chosen_without_seeing_each_other():
    """Decoupled UCT: at a decision several players answer at once, every player's edges hang from the same node, and
    the child is their answers together."""
    game = Game.new(ruleset("neolithibum"), 2, 2)
    while not (game.pending["kind"] in ("secret", "invite", "bid") and len(game.pending["by"]) == 2):
        if game.decision.is_chance:
            game.apply_chance()
        else:
            player = game.decision.players[0]
            game.apply(game.legal(player)[0], player)
    me = game.pending["by"][0]
    agent = SearchAgent(seed=2, iterations=40)
    agent.act({"you": me}, game.legal(me), lambda k=0: game.determinized(me, k))
    root = agent.tree
    assert set(root.edges) == set(game.pending["by"])
    assert all(len(joint) == 2 and {p for p, _ in joint} == set(game.pending["by"]) for joint in root.children)


def test_it_weighs_the_margin_over_the_others(race):
    """Both actions score a point for the one who takes it; the bribe gives the other three. The search, scoring
    every player's margin, takes honest work, and wins the race."""
    game = Game.new(race, 2, 0)
    player, legal = _decision_of(game)
    options = game.pending["options"]
    agent = SearchAgent(seed=0, iterations=60)
    assert options[agent.act({"you": player}, legal, lambda k=0: game.determinized(player, k))] == "honest"
    played = session.play(race, 2, 0, [SearchAgent(0, iterations=30), agents.RandomAgent(1)])
    assert played.result["winners"] == ["P1"]


def test_a_walk_through_endless_dice_stops(tmp_path):
    """Chance answers in the tree's walk are bounded as the play-on's are: an action that rolls a hundred times in a
    row (a pack may roll for ever) ends the walk after `rollout_steps` draws, not after the last roll."""
    (tmp_path / "pack.yaml").write_text(_PACK.replace("id: race", "id: rolling"))
    rules = (
        _RULES
        + """---
kind: action
id: gamble
name: Gamble
limit: once_per_turn
effect: |
  repeat 100 times:
    roll 1 as faces
"""
    )
    (tmp_path / "rules.yaml").write_text(rules)
    game = Game.new(load(tmp_path), 2, 0)
    player, legal = _decision_of(game)
    draws = []
    real = Game.apply_chance

    def counted(self):
        draws.append(self)
        return real(self)

    agent = SearchAgent(seed=0, iterations=12, rollout_steps=5)
    Game.apply_chance = counted
    try:
        agent.act({"you": player}, legal, lambda k=0: game.determinized(player, k))
    finally:
        Game.apply_chance = real
    per_game = {id(g): draws.count(g) for g in draws}
    assert draws and max(per_game.values()) <= 5 + 5  # the walk's bound and the play-on's
