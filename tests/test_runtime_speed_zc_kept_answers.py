"""The answer path of a decision answered by several players at once, made cheaper (issue 16), each part held to
what it replaced:

- an answer that is only kept (others still to answer the same decision) runs no `advance` when `advance` last
  stopped at that very decision with nobody to answer at once (`Game.settled`): it would stop again at once, so
  only its first line (`state["steps"] = 0`) is done; a decision it has not stopped at (a loaded save) and a lone
  player left who would be answered at once (`interpreter.settled_alone`) still go the long way;
- `session.play_randomly` gives its random answer through `Game._take`, the checks `apply` makes holding by the
  answer's making, and reads the legal answers without a copy; with an answer limit it still goes through `apply`;
- `advance` asks whether the game is over once on entry and after each step of the driver (only the driver ends a
  game: driver._result), not at every frame it runs or decision it looks at.
"""

from __future__ import annotations

import json
import random

import pytest
from scenario import ruleset

from engine.runtime import interpreter
from engine.runtime.errors import Stalled
from engine.runtime.game import WORK_BUDGET, Game
from engine.runtime.protocol import CHANCE
from engine.runtime.session import play_randomly


class AlwaysAdvancing(Game):
    """The oracle: `_take` as it was, every answer followed by a whole run of `_advance`."""

    def _take(self, player, option):
        self.work = WORK_BUDGET
        self.state["history"].append([player, option])
        self._answer(player, option)
        self._advance()


def old_play_randomly(game, rnd, *, after=None, limit=None) -> int:
    """`session.play_randomly` as it was: the legal answers copied by `legal`, the answer given through `apply`."""
    made = 0
    while game.state["stage"] != "over" and (limit is None or made < limit):
        pending = game.state["pending"]
        if pending["by"] == [CHANCE]:
            game.apply_chance()
        else:
            player = pending["by"][0]
            legal = game.legal(player)
            game.apply(legal[rnd.randrange(len(legal))], player)
            made += 1
        if after is not None:
            after(game)
    return made


def _states(game_class, play, pack, seed, players=4, limit=400):
    """The state (as JSON, `steps` included) after every answer of a seeded random game."""
    seen = []
    game = game_class.new(ruleset(pack), players, seed)
    play(game, random.Random(seed), after=lambda g: seen.append(json.dumps(g.state, sort_keys=True)), limit=limit)
    return seen


@pytest.mark.parametrize(("pack", "seed"), [("neolithibum", 0), ("neolithibum", 1), ("cro-magnon", 2)])
def test_kept_answers_leave_every_state_as_a_run_of_advance_would(pack, seed):
    """Neolithibum's secrets and bids, Cro-Magnon's invitations: the same state after every answer, with the run of
    `advance` after each kept answer or without it (its `steps` included)."""
    fast = _states(Game, play_randomly, pack, seed)
    assert fast == _states(AlwaysAdvancing, play_randomly, pack, seed)
    assert len(fast) > 100


@pytest.mark.parametrize(("pack", "seed"), [("neolithibum", 3), ("cro-magnon", 0), ("stone-age-mammoth-herd", 1)])
def test_play_randomly_plays_the_games_it_played(pack, seed):
    """The same answers, states and results as the old loop through `legal` and `apply`."""
    assert _states(Game, play_randomly, pack, seed) == _states(Game, old_play_randomly, pack, seed)


def _at_a_secret_of_four(seed=0) -> Game:
    game = Game.new(ruleset("neolithibum"), 4, seed)
    pending = game.state["pending"]
    assert pending["kind"] == "secret" and len(pending["by"]) == 4
    return game


def test_a_kept_answer_runs_no_advance(monkeypatch):
    """The first three answers of a secret of four players are only kept: no `_advance` (the fast path); the fourth
    resolves the secret, and `_advance` runs. Without the fast path, every answer runs it."""
    game = _at_a_secret_of_four()
    runs = []
    real = Game._advance
    monkeypatch.setattr(Game, "_advance", lambda g: runs.append(g.state["pending"]) or real(g))
    pending = game.state["pending"]
    for answered, player in enumerate(list(pending["by"]), 1):
        game.state["steps"] = 7  # as a run of effects left it
        game.apply(game.legal(player)[0], player)
        if answered < 4:
            assert game.state["pending"] is pending and not runs
            assert game.state["steps"] == 0  # what `advance`'s first line leaves
    assert len(runs) == 1 and game.state["pending"] is not pending


def test_a_decision_advance_has_not_stopped_at_goes_the_long_way():
    """A loaded save whose secret has a player left with one answer alone: `advance` never stopped at it in this
    game (`settled`), so the next kept answer runs it, and it gives that player's answer at once, as before."""
    game = _at_a_secret_of_four()
    first, forced = game.state["pending"]["by"][0], game.state["pending"]["by"][-1]
    game.apply(game.legal(first)[0], first)
    saved = json.loads(game.save())
    own = saved["pending"]["allowed"][forced]
    saved["pending"]["allowed"][forced] = own[:1]
    fast, oracle = (
        Game.from_save(game.rules, saved),
        AlwaysAdvancing.from_save(game.rules, json.loads(json.dumps(saved))),
    )
    assert fast.settled is None
    for played in (fast, oracle):
        second = played.state["pending"]["by"][0]
        played.apply(played.legal(second)[0], second)
    assert forced not in fast.state["pending"]["by"]
    assert fast.state["pending"]["answers"][forced] == own[0]
    assert fast.state == oracle.state


def test_a_lone_player_answered_at_once_goes_the_long_way():
    """`settled_alone`: a lone player left is answered by `advance` itself when the decision has one live option
    (unless it is one always asked, or chance's): only then does a kept answer run it."""
    game = _at_a_secret_of_four()
    pending = game.state["pending"]
    pending["by"] = pending["by"][-1:]
    assert interpreter.settled_alone(game, pending)  # 24 options
    one = dict(pending, options=pending["options"][:1], by=list(pending["by"]))
    assert not interpreter.settled_alone(game, one)
    assert interpreter.settled_alone(game, dict(one, kind="invite"))
    assert interpreter.settled_alone(game, dict(one, by=[CHANCE]))


def test_an_answer_limit_is_still_counted_and_enforced():
    """With `max_answers_per_turn`, `play_randomly` goes through `apply`: the limit raises Stalled as before."""
    histories = []
    for play in (play_randomly, old_play_randomly):
        game = Game.new(ruleset("neolithibum"), 4, 0, max_answers_per_turn=3)
        with pytest.raises(Stalled):
            play(game, random.Random(0))
        histories.append(game.state["history"])
    assert histories[0] == histories[1] and len(histories[0]) == 3


def test_apply_still_refuses_what_it_refused():
    """The fast path is after `apply`'s checks: an answer of a player who has answered, or an illegal one, is
    refused with the same codes while others are still to answer."""
    game = _at_a_secret_of_four()
    first, second = game.state["pending"]["by"][:2]
    game.apply(game.legal(first)[0], first)
    with pytest.raises(Exception) as refused:
        game.apply(game.legal(second)[0], first)
    assert getattr(refused.value, "code", None) == "X203"
    illegal = next(o for o in range(len(game.state["pending"]["options"])) if o not in game.legal(second))
    with pytest.raises(Exception) as refused:
        game.apply(illegal, second)
    assert getattr(refused.value, "code", None) == "X204"


def test_play_randomly_answers_without_apply_or_a_copy(monkeypatch):
    """With no answer limit, neither `apply` nor `legal` is called (the fast path): their checks hold by the answer's
    making."""
    game = Game.new(ruleset("neolithibum"), 4, 0)
    for name in ("apply", "legal"):
        monkeypatch.setattr(Game, name, lambda *args, name=name: pytest.fail(f"{name} called"))
    assert play_randomly(game, random.Random(0), limit=60) == 60


def test_a_lone_player_with_one_live_option_is_answered_at_once_as_before():
    """A secret of one option that nobody may give (each player's own answers empty; answers given past `apply`, as
    a tool may): when one player is left, `advance` gives them that option at once, with the fast path as without."""
    states = []
    for game_class in (Game, AlwaysAdvancing):
        game = _at_a_secret_of_four()
        game.__class__ = game_class
        pending = game.state["pending"]
        by = list(pending["by"])
        made = dict(pending, options=pending["options"][:1], allowed={p: [] for p in by}, by=by, answers={})
        game.state["pending"] = made
        game._advance()  # stops at it: nobody has one answer alone
        assert game.state["pending"] is made and game.settled is made
        for player in by[:-1]:
            game._take(player, 0)
        assert made["answers"] == dict.fromkeys(by, 0) and game.state["pending"] is not made
        states.append(json.dumps(game.state, sort_keys=True))
    assert states[0] == states[1]


def test_advance_asks_whether_the_game_is_over_where_it_can_have_ended(monkeypatch):
    """A whole game ends as before, the driver never stepped once the game is over; a finished game's `advance` only
    sets `steps` to 0, as it did."""
    real = interpreter.driver_step

    def step(g):
        assert g.state["stage"] != "over"
        real(g)

    monkeypatch.setattr(interpreter, "driver_step", step)
    game = Game.new(ruleset("cro-magnon"), 2, 0)
    play_randomly(game, random.Random(0))
    assert game.over and game.state["result"] is not None
    game.state["steps"] = 5
    before = json.dumps({**game.state, "steps": 0}, sort_keys=True)
    monkeypatch.setattr(interpreter, "driver_step", lambda g: pytest.fail("a step after the end"))
    game._advance()
    assert game.state["steps"] == 0 and json.dumps(game.state, sort_keys=True) == before
