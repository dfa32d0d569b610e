"""The run of a frame that `advance` makes just after `resume_verb` finished that frame's verb takes the context
the verb was given (interpreter.RESUMED), not a new one (issue 16): a frame's context holds only what the frame does
(its locals, player and card; its depth is back to 0 after every call), so either is the other. The oracle is the
engine with the switch off (`interpreter.CONTEXT_KEPT`): every shipped pack plays the same games both ways, state
and work equal at every decision."""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

import pytest
from lowered_code import assert_same_games, every_decision, switched_off

from engine.runtime import interpreter
from engine.runtime.context import Ctx
from engine.runtime.game import Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

CONTENT = Path(__file__).resolve().parents[1] / "content"
PACKS = sorted(p.name for p in CONTENT.iterdir() if (p / "pack.yaml").exists())


@contextlib.contextmanager
def contexts_made_anew():
    interpreter.RESUMED[0] = None  # (none kept from before, for a run to take)
    with switched_off("CONTEXT_KEPT", module=interpreter):
        yield


def _contexts_made(monkeypatch, rules, seed: int = 1) -> int:
    made = [0]
    init = Ctx.__init__

    def counted(self, *args):
        made[0] += 1
        init(self, *args)

    monkeypatch.setattr(Ctx, "__init__", counted)
    play_randomly(Game.new(rules, 4, seed), random.Random(seed))
    monkeypatch.setattr(Ctx, "__init__", init)
    return made[0]


def test_a_frame_resumed_runs_on_with_the_context_its_verb_was_given(monkeypatch):
    """A Neolithibum game makes hundreds of contexts fewer (it fails with the context made anew at each run)."""
    rules = load(CONTENT / "neolithibum")
    with contexts_made_anew():
        before = _contexts_made(monkeypatch, rules)
    after = _contexts_made(monkeypatch, rules)
    assert after < before - 100, (before, after)


def test_another_frames_or_games_context_is_never_taken():
    """The kept context is taken only by its own frame of its own game: a frame equal to it but another dict, and
    the same frame with another game's context, both get a new one (the identity checks, not equality)."""
    rules = load(CONTENT / "neolithibum")
    code = rules.code["phase/play_round/effect"]
    for mine in (False, True):
        game = Game.new(rules, 4, 0)
        frame = {"code": code.key, "pc": len(code.steps), "env": {}, "me": "P1", "card": None, "wait": None}
        if mine:  # this game's context, of an equal frame that is another dict
            interpreter.RESUMED[0] = (dict(frame), Ctx(game, frame["env"], "P1", None))
        else:  # this very frame, another game's context
            interpreter.RESUMED[0] = (frame, Ctx(game.clone(), frame["env"], "P1", None))
        kept = interpreter.RESUMED[0][1]
        seen = []
        entries, code.entries = (
            code.entries,
            {frame["pc"]: lambda g, f, c, seen=seen: seen.append(c) or g.state["stack"].pop()},
        )
        try:
            game.state["stack"].append(frame)
            game.state["pending"] = None
            game._advance()
        finally:
            code.entries = entries
        assert seen and seen[0] is not kept and seen[0].g is game and seen[0].env is frame["env"]


@pytest.mark.parametrize("pack", PACKS)
def test_every_pack_plays_the_same_games_with_the_context_kept(pack):
    with contexts_made_anew():
        reference = every_decision(load(CONTENT / pack), seed=5, answers=250)
    assert_same_games(reference, every_decision(load(CONTENT / pack), seed=5, answers=250), pack)
