"""A decision the engine answers itself (one option, one player who is not chance, no dead end known, no answers kept)
is answered in the lowered run that asked it, as `interpreter.answer` and `resume_verb` would answer it, and the run
goes on at the next step (`lowering.FORCED_AT_ONCE`, `lowering.answered_at_once`) instead of stopping for
`advance` to answer it and run the frame again (Neolithibum answers about 230 such a game). The oracle is the same
code with the switch off: the same state (`steps`, the attempt's path and its dead ends included) and work at every
decision, and the same log ("only one option")."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree
from lowered_code import assert_same_games, both_ways, every_decision, forget, lowered_sources

from engine.runtime import interpreter
from engine.runtime.game import Game
from engine.runtime.rules import load

CONTENT = Path(__file__).resolve().parents[1] / "content"
PACKS = sorted(p.name for p in CONTENT.iterdir() if (p / "pack.yaml").exists())

SWITCH = "FORCED_AT_ONCE"  # off for the oracle: every decision stops the run, and `advance` answers the forced ones


def _rules(tmp_path, effect: str):
    text = one_action_rules(effect, goal=99)
    return load(write_tree(tmp_path / "forced", {"pack.yaml": tiny_manifest("forced"), "rules.yaml": text}))


def _random_answers(rules, seed: int = 3, answers: int = 40):
    game = Game.new(rules, 2, 0)
    seen = []
    rnd = random.Random(seed)
    for _ in range(answers):
        if game.over:
            break
        player = game.decision.players[0]
        legal = game.legal(player)
        game.apply(legal[rnd.randrange(len(legal))], player)
        seen.append((json.dumps(game.state), game.work))
    return seen


@pytest.mark.parametrize("pack", PACKS)
def test_seeded_games_of_every_pack_play_as_when_advance_answers_the_forced_decisions(pack):
    """Every decision of a seeded random game of every pack: the same state (`steps` included) and work left."""
    rules = load(CONTENT / pack)
    reference, at_once = both_ways(rules, SWITCH, lambda rules: every_decision(rules, 11, fewest=2))
    assert_same_games(reference, at_once, pack)


def test_forced_picks_in_an_action_with_dead_ends_play_as_before(tmp_path):
    """Forced choices before and after a real one, two forced picks of one `choose`, and an answer that fails (undone:
    its path a dead end, after which the forced choices go through `advance`'s live options as before)."""
    effect = """choose 1 from numbers(1, 1) as one
choose 2 from numbers(4, 5) as both
choose 1 from numbers(1, 3) as n
choose 1 from numbers(7, 7) as seven
require n != 2
gain one + n + seven vp"""
    rules = _rules(tmp_path, effect)
    reference, at_once = both_ways(rules, SWITCH, _random_answers)
    assert any("takes back" in state for state, _ in at_once)  # the failure was met
    assert any('"dead": [[' in state for state, _ in at_once)  # and a dead end was known after it
    assert at_once == reference


def test_a_choice_among_several_after_forced_picks_stops_as_before(tmp_path):
    """Forced picks of a `choose` with a least that leaves a choice once it is reached ("done", or another pick): the
    forced picks answered at once, the run stopped at the first real one, its wait as `advance` would have left it."""
    effect = (
        "choose 1 from numbers(3, 3) as three\nchoose between(1, 2) from numbers(1, 2) as picked\ngain count(picked) vp"
    )
    rules = _rules(tmp_path, effect)
    reference, at_once = both_ways(rules, SWITCH, _random_answers)
    assert at_once == reference


def test_a_forced_decision_is_answered_in_the_run_that_asked_it(tmp_path, monkeypatch):
    """Fails without the fast path: `advance` never answers the forced choices (no call of `answer` for them), and
    the effect runs once, from its start (no entry made for the step after either of them)."""
    rules = _rules(
        tmp_path, "choose 1 from numbers(1, 1) as one\ngain one vp\nchoose 1 from numbers(2, 2) as two\ngain two vp"
    )
    source = lowered_sources(rules, monkeypatch)
    assert "answered_at_once(g, frame, c, " in source
    forget(rules)
    answered = []
    original = interpreter.answer
    monkeypatch.setattr(
        Game, "_answer", lambda g, player, option: answered.append(option) or original(g, player, option)
    )
    game = Game.new(rules, 2, 0)
    answered.clear()
    game.apply(game.decision.options.index("act"), game.decision.players[0])
    assert answered == [game.state["history"][-1][1]]  # the menu's answer alone
    assert set(rules.code["action/act/effect"].entries) == {0}
    assert game.state["counters"][game.state["players"][0]]["vp"] == 3
    assert any("only one option" in str(line) for line in game.log_for(game.state["players"][0]))
