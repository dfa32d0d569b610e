"""The greedy bot (engine/runtime/agents.py) does not throw turns away (issue 11: "Greedy bots pass whole
turns (11 of 61 turns in one 3-player game)").

The cause: the bot scores each option by the game's "if it ended now" score after a random rollout of its
own turn; what an action gathers (a card, a resource) scores only later, so acting and ending the turn
tie, and a blind tie-break ended the turn half of the time. Now a tie never ends the turn.
"""

from __future__ import annotations

import functools
import random

import pytest
from scenario import ruleset

from engine.runtime import session
from engine.runtime.agents import GreedyAgent
from engine.runtime.errors import ContentError
from engine.runtime.game import DECIDED, END_TURN, Game, GameError
from engine.runtime.rules import load

_PACK = """kind: pack
id: gather
name: Gather
version: 1.0.0
players: {min: 2, max: 2}
"""
_RULES = """kind: counter
id: vp
name: Victory points
owner: player
---
kind: counter
id: wood
name: Wood
owner: player
---
kind: end
id: goal
name: Goal
trigger: me.vp >= 3
then: immediate
result: most
counter: vp
---
kind: action
id: gather
name: Gather wood
limit: once_per_turn
effect: gain 1 wood
---
kind: action
id: build
name: Build
available: me.wood >= 3
effect: |
  pay 3 wood
  gain 1 vp
"""
_FIDGET = """
---
kind: action
id: fidget
name: Fidget
effect: gain 0 wood
"""


def _menu_choice(game, seed):
    player = game.decision.players[0]
    legal = game.legal(player)
    option = GreedyAgent(seed).act({"you": player}, legal, lambda: game.determinized(player, seed))
    return game.decision.options[option]


def test_when_acting_and_ending_the_turn_score_alike_the_bot_acts(make_pack):
    """Gathering wood scores nothing yet (3 wood build 1 VP later): it ties with ending the turn, and the
    bot gathers, whatever its seed (before: it ended the turn at about half of the seeds)."""
    rules = load(make_pack({"rules.yaml": _RULES}, manifest=_PACK))
    game = Game.new(rules, 2, 0)
    assert game.decision.options == ["gather", END_TURN]
    assert [_menu_choice(game, seed) for seed in range(20)] == ["gather"] * 20


def test_a_free_action_that_changes_nothing_is_not_taken_for_ever(make_pack):
    """A tie keeps the turn going only for `TIED_ACTIONS` actions: an endless free action (lint's D007)
    does not stall a game of bots."""
    rules = load(make_pack({"rules.yaml": _RULES + _FIDGET}, manifest=_PACK))
    game = Game.new(rules, 2, 1, max_rounds=30, max_answers_per_turn=200)
    session.play_out(game, [GreedyAgent(1), GreedyAgent(2)])  # raises Stalled on a turn of 200 answers
    assert game.over


def _whole_turn_passes(game, seats) -> tuple[int, int]:
    """(turns a player ended without acting although an action was offered, turns)."""
    passes = turns = 0
    while not game.over:
        decision = game.decision
        if decision.is_chance:
            game.apply_chance()
            continue
        player = decision.players[0]
        legal = game.legal(player)
        seed = len(game.state["history"])
        option = seats[player].act({"you": player}, legal, functools.partial(game.determinized, player, seed))
        if decision.kind == "action" and decision.options[option] == END_TURN:
            turns += 1
            passes += not game.state["turn"]["acted"] and len(legal) > 1
        game.apply(option, player)
    return passes, turns


def test_greedy_bots_do_not_pass_whole_turns_in_cro_magnon():
    """One seeded 3-player Cro-Magnon game of greedy bots: before, 8 of its 61 turns were passed with
    actions on offer (14 of 169 turns over seeds 0-2); now none or almost none (a pass stays legal when
    every action scores worse)."""
    game = Game.new(ruleset(), 3, 0)
    seats = {p: GreedyAgent(i) for i, p in enumerate(game.state["players"])}
    passes, turns = _whole_turn_passes(game, seats)
    assert turns > 20 and passes <= 1, (passes, turns)


# ---------------------------------------------------------------- the look-ahead, cheaper (issue 16)
# The bot ends each imagined game's projection in place (`projected_margin(..., in_place=True)`) and lets
# the last option use up the imagined deal itself: one copy of the game per option fewer, and one fewer per
# decision, with the same numbers and so the same choices as the plain look-ahead below.


class PlainLookAhead(GreedyAgent):
    """The look-ahead as it was before issue 16: a fresh copy per option, and the margin taken on a copy."""

    def act(self, view, legal, model=None):
        if model is None or len(legal) == 1:
            return legal[self.rng.randrange(len(legal))]
        me = view["you"]
        best, best_value = [], None
        imagined = model()
        pending = imagined.state["pending"]
        for option in legal:
            game = imagined.clone()
            game.apply(option, me)
            self._rollout(game, me)
            value = game.projected_margin(me)
            if best_value is None or value > best_value:
                best, best_value = [option], value
            elif value == best_value:
                best.append(option)
        if (
            len(best) > 1
            and pending["kind"] == "action"
            and sum(imagined.state["turn"]["used"].values()) < self.TIED_ACTIONS
        ):
            best = [o for o in best if pending["options"][o] != END_TURN]
        return best[self.rng.randrange(len(best))]


@pytest.mark.parametrize("pack, decisions", [("cro-magnon", 50), ("neolithibum", 30)])
def test_the_cheaper_look_ahead_chooses_what_the_plain_one_chooses(pack, decisions):
    """Both bots, seeded alike, answer every decision of one 3-player game (played by the first's answers):
    the same option each time, so their random streams stay in step too."""
    game = Game.new(ruleset(pack), 3, 5)
    cheap = {p: GreedyAgent(i) for i, p in enumerate(game.state["players"])}
    plain = {p: PlainLookAhead(i) for i, p in enumerate(game.state["players"])}
    asked = 0
    while not game.over and asked < decisions:
        decision = game.decision
        if decision.is_chance:
            game.apply_chance()
            continue
        player = decision.players[0]
        legal = game.legal(player)
        seed = len(game.state["history"])
        model = functools.partial(game.determinized, player, seed)
        option = cheap[player].act({"you": player}, legal, model)
        assert plain[player].act({"you": player}, legal, model) == option, (pack, asked, decision.kind)
        game.apply(option, player)
        asked += len(legal) > 1
    assert asked == decisions


def test_the_look_ahead_copies_the_game_at_most_once_per_option(monkeypatch):
    """Before: one copy for the imagined deal, then two per option (the option's game and the projection's
    copy): 1 + 2 x options. Now the deal and one copy per option but the last."""
    game = Game.new(ruleset(), 3, 2)
    copies = []
    real_clone = Game.clone
    monkeypatch.setattr(Game, "clone", lambda self, **how: copies.append(1) or real_clone(self, **how))
    checked = 0
    for seed in range(40):
        decision = game.decision
        player = decision.players[0]
        legal = game.legal(player)
        copies.clear()
        option = GreedyAgent(seed).act({"you": player}, legal, functools.partial(game.determinized, player, seed))
        if len(legal) > 1:
            assert len(copies) <= len(legal), (len(copies), len(legal))
            checked += 1
        game.apply(option, player)
    assert checked > 10


def _sampled_states(pack, players, seed, answers, every=25):
    """Copies of every `every`th state of a random game, for `answers` answers (None: to its end, included)."""
    game = Game.new(ruleset(pack), players, seed)
    rnd, states = random.Random(seed), []
    while not game.over and (answers is None or len(game.state["history"]) < answers):
        if len(game.state["history"]) % every == 0:
            states.append(game.clone())
        decision = game.decision
        if decision.is_chance:
            game.apply_chance()
            continue
        legal = game.legal(decision.players[0])
        game.apply(legal[rnd.randrange(len(legal))], decision.players[0])
    return states + [game] if game.over else states


def _margin_as_before(game, player):
    """Game.projected_margin before issue 16, word for word: always on a copy, ended even with no score
    counter (whose ended game has no scores, so the progress of the game as it stands was used)."""
    if not game.over:
        finished = game.clone()
        state = finished.state
        state["stack"], state["pending"], state["attempt"] = [], None, None
        state["ending"] = state["ending"] or {"rule": "projection", "by": None, "queue": []}
        state["stage"] = "game_end"
        try:
            finished._advance()
        except (ContentError, GameError):
            finished = game
    else:
        finished = game
    counter = game.rules.score_counter
    scores = (finished.state["result"] or {}).get("scores") or (
        {p: game.counter(p, counter) for p in game.state["players"]} if counter else game.progress()
    )
    others = [v for p, v in scores.items() if p != player]
    margin = scores.get(player, 0) - (max(others) if others else 0)
    if game.over:
        winners = game.state["result"]["winners"]
        margin += DECIDED if player in winners else -DECIDED if winners or not scores else 0
    return margin


@pytest.mark.parametrize(
    "pack, players, answers",
    [("cro-magnon", 3, None), ("cro-magnon-solo", 1, None), ("neolithibum", 3, 250), ("stone-age", 2, 250)],
)
def test_a_margin_taken_in_place_is_the_margin_taken_on_a_copy(pack, players, answers):
    """States across a random game and its end, every player: ending the game itself gives the number that
    ending a copy gives, and both give what the projection gave before (packs with a score counter, and
    without one, where nothing is ended and the progress is read)."""
    states = _sampled_states(pack, players, 1, answers, every=40 if answers is None and players > 1 else 20)
    assert len(states) >= 4 and (answers is not None or states[-1].over)
    for state in states:
        before = state.state_hash()
        for player in state.state["players"]:
            on_a_copy = state.projected_margin(player)
            assert state.state_hash() == before  # the plain call leaves the game alone
            assert on_a_copy == _margin_as_before(state, player)
            assert state.clone().projected_margin(player, in_place=True) == on_a_copy


_UNFINISHED_SCORING = """
---
kind: scoring
id: broken
name: Broken scoring
effect: |
  gain 5 vp
  let nothing = 0
  gain 10 / nothing vp
"""


def test_a_margin_whose_end_scoring_fails_is_the_score_before_it_either_way(make_pack):
    """An end scoring that fails half-way (here after giving P1 5 VP) is ignored: the score as it stood
    counts, whether the projection ran on a copy or on the game itself."""
    rules = load(make_pack({"rules.yaml": _RULES + _UNFINISHED_SCORING}, manifest=_PACK))
    game = Game.new(rules, 2, 0)
    game.state["counters"]["P1"]["vp"] = 2
    assert game.projected_margin("P1") == 2 == _margin_as_before(game, "P1")
    assert game.clone().projected_margin("P1", in_place=True) == 2


# ---------------------------------------------------------------- several imagined deals (`greedy:N`)
def test_greedy_n_tries_every_option_on_n_imagined_deals():
    """`greedy:4` asks the game for 4 imagined deals of the same decision (`model(k)`, each seeded apart) and
    adds up each option's margins over them; `greedy` imagines one, as before."""
    from engine.runtime import agents

    game = Game.new(ruleset(), 2, 5)
    player = game.decision.players[0]
    asked = []

    def model(k=0):
        asked.append(k)
        return game.determinized(player, 11 + k * 7919)

    assert agents.make("greedy:4", 1).act({"you": player}, game.legal(player), model) in game.legal(player)
    assert asked == [0, 1, 2, 3]
    asked.clear()
    agents.make("greedy", 1).act({"you": player}, game.legal(player), model)
    assert asked == [0]


@pytest.mark.parametrize(
    ("name", "known"),
    [("greedy", True), ("greedy:4", True), ("greedy:64", True), ("greedy:0", False), ("greedy:65", False)]
    + [("greedy:x", False), ("greedy:", False), ("random:3", False), ("clever", False)],
)
def test_agent_names_with_a_setting(name, known):
    from engine.runtime import agents

    assert agents.known(name) is known
    if known:
        assert agents.make(name, 0).rollouts == (int(name.partition(":")[2] or 1))
    else:
        with pytest.raises(ValueError, match="greedy\\[:ROLLOUTS 1-64\\]"):
            agents.make(name, 0)


def test_sim_plays_greedy_n_and_refuses_a_bad_setting(knap):
    code, out, _ = knap("sim", "cro-magnon", "-n", "1", "--players", "2", "--agents", "greedy:2,random", "--jobs", "1")
    assert code == 0 and "greedy:2" in out
    code, _, err = knap("sim", "cro-magnon", "-n", "1", "--agents", "greedy:0", "--jobs", "1")
    assert code == 2 and "unknown agent `greedy:0`" in err
