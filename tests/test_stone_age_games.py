"""Whole games of Stone Age (content/stone-age): seeded random games at 2, 3 and 4 players keep the
invariants after every decision — every card (figures included) in exactly one place, no place over its
capacity, the per-area and village limits, counters (food, resources, agriculture) within bounds — end by
one of the two end rules, replay exactly from their logs, and a game saved, loaded and continued ends as
the game continued without saving. The greedy bot beats random ones; the terminal plays a whole game.
tools/soak.py plays many more of the same games (2,000 per player count) outside CI."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import knap_process
from invariants import Watch

from engine.runtime import session
from engine.runtime.game import Game
from engine.runtime.rules import load

REPO = Path(__file__).resolve().parent.parent
PACK = REPO / "content" / "stone-age"
GAMES_PER_COUNT = 3  # tools/soak.py plays 2,000 per player count
ENDS = ("display_cannot_refill", "building_pile_empty")


@pytest.fixture(scope="module")
def rules():
    return load(PACK)


StoneAgeWatch = Watch  # the places' limits of the reference are checked for this pack: pack_invariants.py


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_the_invariants_replay_and_resume(rules, players):
    for seed in range(GAMES_PER_COUNT):
        game = Game.new(rules, players, seed)
        rnd = random.Random(seed)
        watch = StoneAgeWatch(game)
        session.play_randomly(game, rnd, after=watch, limit=40 + 37 * seed)
        saved, rnd_state = game.save(), rnd.getstate()
        session.play_randomly(game, rnd, after=watch)
        result = game.state["result"]
        assert game.over and result["reason"] in ENDS, result
        log = json.loads(json.dumps(session.game_log(game)))
        assert session.replay(rules, log).state_hash() == game.state_hash()
        loaded = Game.load(rules, saved)
        again = random.Random()
        again.setstate(rnd_state)
        session.play_randomly(loaded, again)
        assert loaded.save() == game.save(), "save, load and continue differs from continuing"


def test_the_watch_catches_a_figure_too_many(rules):
    """The figure count check is real: a figure moved out of the game by hand breaks it."""
    game = Game.new(rules, 2, 0)
    watch = StoneAgeWatch(game)
    game.move(game.state["zones"]["home:P1"][0], "_removed")
    with pytest.raises(AssertionError, match="P1 has 9 figures"):
        watch(game)


@pytest.mark.slow
def test_greedy_beats_random(knap, tmp_path):
    """`knap sim stone-age` with a greedy bot against a random one: greedy wins (it buys what scores)."""
    out_json = tmp_path / "summary.json"
    code, out, _ = knap(
        "sim", "stone-age", "-n", "1", "--players", "2", "--agents", "greedy,random", "--jobs", "1", "--json", out_json
    )
    summary = json.loads(out_json.read_text())
    assert code == 0 and summary["errors"] == 0 and summary["played"] == 1
    assert "Win rate by seat" in out and set(summary["endings"]) <= set(ENDS)
    greedy, rnd = summary["seats"]
    assert greedy["wins"] == 1 and greedy["score"]["mean"] > rnd["score"]["mean"] + 30, summary["seats"]


def test_knap_play_with_a_person_at_the_terminal(tmp_path):
    """`knap play stone-age --players 3 --human 1`: the person plays seat 1, typing 2, 1, 3, 4, 5, 6 over
    and over (a number the question does not take is asked again: a die's face, how many figures); bots
    play the rest; the game ends and its log replays."""
    answers = "2\n1\n3\n4\n5\n6\n" * 1000 + "q\n"
    result = knap_process(
        "play",
        "stone-age",
        "--players",
        "3",
        "--human",
        "1",
        "--seed",
        "2",
        "--agents",
        "random",
        "--log",
        str(tmp_path / "g.json"),
        stdin=answers,
        timeout=600,
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    out = result.stdout
    assert "Where do you place figures?" in out and "Hunting grounds" in out
    assert "Which die do you take?" in out or "The dice are rolled" in out or "Buy this" in out
    assert "The game ends. Winner(s)" in out
    replayed = subprocess.run(
        [sys.executable, "-m", "engine.commands.cli", "replay", str(tmp_path / "g.json")],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
        check=False,
    )
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
