"""The greedy bot's look-ahead made cheaper (issue 16), each part held to what it replaced:

- `imagine.clone` gives the copy its source's zone and card tables (`Game._take_tables`) and the zone masks worked out
  so far, instead of looking them up again (`Table.bind_tables`): the very tables a fresh bind finds;
- a projection (`scoring.projected_margin`) ends its game with `Game.scores_only`: `driver._result` reads the scores
  and works out no winners nor a log line, which nothing reads of a game thrown away; the margins are those of before;
- `session.play_randomly` reads the stage and the pending decision from the state, not through a property call each.
"""

from __future__ import annotations

import functools
import random

import pytest
from scenario import ruleset
from test_greedy_agent import _margin_as_before, _sampled_states

from engine.runtime import game as game_module
from engine.runtime import session
from engine.runtime.agents import GreedyAgent
from engine.runtime.game import Game
from engine.runtime.log_words import seen_by
from engine.runtime.state import copy_state

PACKS = [("cro-magnon", 3), ("neolithibum", 3), ("stone-age-mammoth-herd", 2), ("paleo", 2)]


# ---------------------------------------------------------------- a clone takes its source's tables
def _bound_fresh(g) -> Game:
    """A game on a copy of `g`'s state that binds its tables itself (Game.__init__ with no source)."""
    return Game(g.rules, copy_state(g.state))


def test_the_tables_carried_are_every_table_bind_tables_sets():
    """`_BOUND_TABLES` names all that `Table.bind_tables` sets but the zone masks (shared apart: _take_tables): a table
    added there and not here would be missing from every clone."""
    source = Game.new(ruleset("cro-magnon"), 2, 0)
    bare = object.__new__(Game)
    bare.rules, bare.state = source.rules, source.state
    bare.bind_tables()
    assert set(vars(bare)) - {"rules", "state", "sight_masks"} == set(game_module._BOUND_TABLES)


@pytest.mark.parametrize("pack, players", PACKS)
def test_a_clone_has_the_tables_a_fresh_bind_finds(pack, players):
    """Across a random game: each clone's tables are the very objects a fresh bind looks up; its zone masks are its
    source's (shared: a mask is the seating's and the zone's alone, tests/test_runtime_speed_zh_imagined_deal.py)
    and say what `seen_by` works out for every card."""
    for source in _sampled_states(pack, players, 1, 120, every=30):
        cards = range(len(source.state["loc"]))
        fresh = _bound_fresh(source)
        expected = [seen_by(fresh, card) for card in cards]
        assert [seen_by(source, card) for card in cards] == expected  # the source's masks, all worked out
        copy = source.clone()
        for name in game_module._BOUND_TABLES:
            assert getattr(copy, name) is getattr(fresh, name), name
        assert copy.sight_masks == source.sight_masks  # carried, not found again
        assert fresh.sight_masks.items() <= copy.sight_masks.items() and fresh.sight_masks
        assert copy.sight_masks is source.sight_masks
        assert [seen_by(copy, card) for card in cards] == expected


def test_a_clone_of_a_state_with_other_zones_binds_its_own_tables():
    """A state edited by hand to other zones than its game's tables were bound for: the clone looks its tables up
    for the zones it has, as every clone did before."""
    source = Game.new(ruleset("cro-magnon"), 2, 0)
    source.state["zones"]["extra"] = []
    copy = source.clone()
    assert copy.layout is not source.layout and copy.layout.order == tuple(copy.state["zones"])
    assert copy.sight_masks == {}


# ---------------------------------------------------------------- a projection reads only the scores
@pytest.mark.parametrize(
    "pack, players, answers",
    [("cro-magnon", 3, None), ("cro-magnon-solo", 1, None), ("neolithibum", 3, 250), ("stone-age", 2, 250)],
)
def test_a_projection_scores_as_before(pack, players, answers):
    """States across a random game and its end, every player: the margin is the one before (`_margin_as_before`,
    which ends a copy the whole way, winners and log included), on a copy and in place."""
    for state in _sampled_states(pack, players, 3, answers, every=25):
        for player in state.state["players"]:
            assert state.projected_margin(player) == _margin_as_before(state, player)
            assert state.clone().projected_margin(player, in_place=True) == _margin_as_before(state, player)


def test_a_projection_works_out_no_winners_and_logs_nothing():
    """A game ended by a projection has its final scores and is over, with no winners worked out and no line
    logged (the fast path removed, the game ends in full); a game that really ends works them out as before."""
    game = _sampled_states("cro-magnon", 2, 0, 60)[-1]
    expected = _bound_fresh(game)
    expected.state["stack"], expected.state["pending"], expected.state["attempt"] = [], None, None
    expected.state["ending"] = {"rule": "projection", "by": None, "queue": []}
    expected.state["stage"] = "game_end"
    expected._advance()
    assert not expected.scores_only and expected.state["result"]["winners"]
    assert expected.state["log"][-1][0].startswith("The game ends.")
    lines = len(game.state["log"])
    game.projected_margin("P1", in_place=True)
    assert game.scores_only and game.over
    assert game.state["result"]["scores"] == expected.state["result"]["scores"]
    assert game.state["result"]["winners"] == []
    assert len(game.state["log"]) == len(expected.state["log"]) - 1 > lines
    assert not game.clone().scores_only  # a copy of it is a game like any other


def test_the_greedy_bot_chooses_as_before(monkeypatch):
    """Greedy bots through the first answers of seeded games choose the same options whether the projections end in
    full (scores_only held off) or not."""

    def chosen(full: bool) -> list:
        if full:
            monkeypatch.setattr(Game, "scores_only", property(lambda self: False, lambda self, value: None))
        answers = []
        for seed in range(2):
            game = Game.new(ruleset("cro-magnon"), 2, seed)
            bots = {p: GreedyAgent(seed * 31 + i) for i, p in enumerate(game.players)}
            while not game.over and len(answers) < 15 * (seed + 1):
                pending = game.pending
                if pending["by"] == ["chance"]:
                    game.apply_chance()
                    continue
                player = pending["by"][0]
                legal = game.legal(player)
                model = functools.partial(game.determinized, player, len(game.history))
                answers.append(bots[player].act({"you": player}, legal, model))
                game.apply(answers[-1], player)
        monkeypatch.undo()
        return answers

    assert chosen(False) == chosen(True)


# ---------------------------------------------------------------- random play reads the state directly
def _play_randomly_as_before(game, rnd) -> int:
    """session.play_randomly before this step, word for word (no `after`, no `limit`)."""
    made = 0
    while not game.over:
        pending = game.pending
        if pending["by"] == ["chance"]:
            game.apply_chance()
        else:
            player = pending["by"][0]
            legal = game.legal(player)
            game.apply(legal[rnd.randrange(len(legal))], player)
            made += 1
    return made


@pytest.mark.parametrize("pack, players", PACKS[:3])
def test_random_play_plays_the_games_of_before(pack, players):
    """Seeded random games played to their end: the same answers, the same final state, as the loop of before."""
    for seed in range(2):
        now, before = Game.new(ruleset(pack), players, seed), Game.new(ruleset(pack), players, seed)
        assert session.play_randomly(now, random.Random(seed)) == _play_randomly_as_before(before, random.Random(seed))
        assert now.state_hash() == before.state_hash() and now.history == before.history


def test_random_play_calls_no_property_of_the_game(monkeypatch):
    """The loop reads the stage and the pending decision from the state, not through `Game.over` and `Game.pending`
    (a call each, at every answer): with both made to fail, a game is still played to its end."""
    game = Game.new(ruleset("cro-magnon"), 2, 0)

    def unread(self):
        raise AssertionError("read through the property")

    monkeypatch.setattr(Game, "over", property(unread))
    monkeypatch.setattr(Game, "pending", property(unread))
    assert session.play_randomly(game, random.Random(0)) > 50
    assert game.state["stage"] == "over"
