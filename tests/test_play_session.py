"""`knap play` as a session: quit (q, end of input, Ctrl-C) saves the game and prints how to resume it,
`--resume` finishes it with a log of the whole game that `knap replay` checks, every game gets a fresh
seed unless one is given, a bad agent name is a usage error, `knap replay --show` tells what happened to
a game that failed or stalled, and the log says what each answer answered and what setup did."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import sys

import pytest
from conftest import write_tree
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from scenario import ruleset
from test_bad_logs import _mutate, _text

from engine.commands.cli import main
from engine.runtime import session
from engine.runtime.game import Game
from engine.runtime.rules import load

PACK = """kind: pack
id: toy_session
name: Toy session
version: 1.0.0
players: {min: 1, max: 2}
"""
RULES = """kind: counter
id: vp
name: VP
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
kind: function
id: deep
params: [n]
body: deep(n + 1)
---
kind: action
id: act
name: Act
limit: once_per_turn
effect: |
  choose 1 from numbers(1, 2) as n with "How many points do you take?"
  roll 1 of 6 as faces
  gain n vp
%s"""
FAILS = """  if me.vp >= 3:
      gain deep(1) vp
"""
RESUME = re.compile(r"knap play --resume (\S+)")


def toy(tmp_path, failing: bool = False):
    """A one-action pack: take 1 or 2 points (a numbered question, then a die); 6 points win. The failing
    variant stops with a content error once a player has 3 points."""
    return write_tree(tmp_path / "toy_session", {"pack.yaml": PACK, "rules.yaml": RULES % (FAILS if failing else "")})


@pytest.fixture
def knap(capsys, monkeypatch, tmp_path):
    """`knap ARGS...` in-process, in `tmp_path`, with `stdin` as the keyboard: (exit code, out, err)."""
    monkeypatch.chdir(tmp_path)

    def run(*argv, stdin: str = ""):
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        assert "Traceback" not in err and "internal error" not in err, err
        return code, out, err

    return run


def resume_path(out: str):
    found = RESUME.search(out)
    assert found, out
    return found.group(1)


# ------------------------------------------------------------------------------------ save and resume
@pytest.mark.parametrize("keys", ["1\n1\nq\n", "1\n1\n"], ids=["q", "end-of-input"])
def test_quitting_saves_the_game_and_resume_finishes_it_with_a_log_that_replays(tmp_path, knap, keys):
    """`q` and the end of standard input both save (next to the log, `knap-game-SEED.save.json`) and print
    the exact command that resumes; the resumed game keeps the seats and the seed, and its log holds the
    whole game, so `knap replay` checks it."""
    pack = toy(tmp_path)
    code, out, err = knap(
        "play", pack, "--players", "2", "--human", "1", "--agents", "random", "--seed", "5", stdin=keys
    )
    assert code == 0, err
    saved = resume_path(out)
    assert saved == "knap-game-5.save.json" and (tmp_path / saved).is_file()
    assert not (tmp_path / "knap-game-5.json").exists()  # no log yet: the game is not over
    before = json.loads((tmp_path / saved).read_text())
    answered = len(before["game"]["history"])
    assert answered >= 2

    code, out, err = knap("play", "--resume", saved, stdin="1\n" * 60)
    assert code == 0, err
    assert "Winner(s)" in out and "you are P1" in out  # the person still plays seat 1
    log = json.loads((tmp_path / "knap-game-5.json").read_text())
    assert log["seed"] == 5 and log["agents"] == ["human", "random"]
    assert log["decisions"][:answered] == before["game"]["history"]  # the whole game, from its first answer
    code, out, err = knap("replay", "knap-game-5.json")
    assert code == 0 and "final state matches" in out, err


def test_a_game_of_bots_only_saves_on_ctrl_c_and_resumes(tmp_path, knap, monkeypatch):
    """Ctrl-C (KeyboardInterrupt) in a bots-only game saves it too; `--log` puts the save beside the log."""
    from engine.runtime import agents

    pack = toy(tmp_path)
    real = agents.RandomAgent.act
    calls = []

    def act(self, view, legal, model=None):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(self, view, legal, model)

    monkeypatch.setattr(agents.RandomAgent, "act", act)
    (tmp_path / "games").mkdir()
    code, out, err = knap(
        "play", pack, "--players", "2", "--agents", "random", "--seed", "8", "--log", "games/mine.json"
    )
    assert code == 0, err
    assert resume_path(out) == "games/mine.save.json"
    monkeypatch.setattr(agents.RandomAgent, "act", real)
    code, out, err = knap("play", "--resume", "games/mine.save.json")
    assert code == 0 and "Winner(s)" in out, err
    assert (tmp_path / "games" / "mine.json").is_file()
    assert knap("replay", "games/mine.json")[0] == 0


def test_the_resume_command_names_the_pack_when_the_save_alone_would_not_find_it(tmp_path, knap, monkeypatch):
    """A pack folder outside the working folder and the save's folder is not read on the save's word (a
    save may come from anyone): the printed command names it, and works as printed."""
    import shlex

    pack = toy(tmp_path / "elsewhere")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    code, out, err = knap("play", pack, "--players", "2", "--human", "1", "--seed", "4", stdin="q\n")
    assert code == 0, err
    command = re.search(r"Resume it with: (knap play .*)", out).group(1)
    assert shlex.split(command) == ["knap", "play", "--resume", "knap-game-4.save.json", str(pack)], command
    code, _, err = knap("play", "--resume", "knap-game-4.save.json")  # the save's folder is not read
    assert code == 2 and "not read" in err and "toy_session" in err, err
    code, out, err = knap(*shlex.split(command)[1:], stdin="1\n" * 60)
    assert code == 0 and "Winner(s)" in out, err
    assert knap("replay", "knap-game-4.json", "--pack", pack)[0] == 0


def test_an_interrupt_during_an_answer_waits_until_the_answer_is_applied(tmp_path, monkeypatch):
    """A real Ctrl-C can arrive while the game applies an answer: it is held until the answer is done,
    so the game saved on the way out is whole (it loads, and its log replays)."""
    rules = load(toy(tmp_path))
    game = Game.new(rules, 2, 3)
    original = Game._advance
    sent = []

    def advance(self):
        if not sent and self.state["history"]:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGINT)  # delivered here, half-way through `apply`
        original(self)

    monkeypatch.setattr(Game, "_advance", advance)
    from engine.runtime.agents import RandomAgent

    with pytest.raises(KeyboardInterrupt):
        session.play_out(game, [RandomAgent(1), RandomAgent(2)], interruptible=True)
    assert sent and game.decision is not None
    loaded = Game.from_save(rules, json.loads(game.save()))
    assert loaded.state_hash() == game.state_hash()
    assert session.replay(rules, session.game_log(game)).state_hash() == game.state_hash()


def test_a_bad_save_is_one_line_and_resume_options_cannot_change_the_seats(tmp_path, knap):
    pack = toy(tmp_path)
    code, out, _ = knap("play", pack, "--players", "2", "--human", "1", "--seed", "5", stdin="q\n")
    saved = tmp_path / resume_path(out)
    data = json.loads(saved.read_text())
    data["seats"] = ["human", "smart"]
    bad = tmp_path / "bad.save.json"
    bad.write_text(json.dumps(data))
    code, _, err = knap("play", "--resume", bad)
    assert code == 1 and err.startswith(f"knap: {bad}: /seats/1: X416 ") and err.count("\n") == 2, err
    data["seats"], data["game"]["turn"]["player"] = ["human", "random"], "P7"
    bad.write_text(json.dumps(data))
    code, _, err = knap("play", "--resume", bad)
    assert code == 1 and err.startswith(f"knap: {bad}: /game/turn/player: X415 ") and err.count("\n") == 2, err
    code, _, err = knap("play", "--resume", tmp_path / "missing.save.json")
    assert code == 2 and "no such file" in err
    code, _, err = knap("play", "--resume", saved, "--seed", "3")
    assert code == 2 and "--seed" in err
    # `knap replay` checks a saved session like any save
    code, out, err = knap("replay", saved)
    assert code == 0 and "it loads" in out, err


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.data())
def test_a_damaged_save_resumes_or_is_refused_in_one_line(tmp_path, knap, data):
    """A save is a file anyone may have written: damaged anywhere (the seats, the game in it, the format),
    `knap play --resume` plays on or refuses it in one line naming the file, never with a traceback."""
    base = tmp_path / "base.save.json"
    if not base.exists():
        code, out, err = knap(
            "play",
            toy(tmp_path),
            "--players",
            "2",
            "--human",
            "1",
            "--seed",
            "6",
            "--log",
            "base.json",
            stdin="1\n1\nq\n",
        )
        assert code == 0, err
    document = json.loads(base.read_text())
    for _ in range(data.draw(st.integers(1, 2), label="changes")):
        _mutate(data, document, within=("game", "seats"))
    damaged = tmp_path / "damaged.save.json"
    damaged.write_bytes(_text(document).encode("utf-8", "surrogatepass"))  # a lone surrogate: not UTF-8
    code, out, err = knap("play", "--resume", damaged)  # the person at seat 1 leaves at once: saved again
    if code == 0:
        event("resumed")
        assert "Game saved to" in out or "Winner(s)" in out
    else:
        event(f"refused with exit {code}")
        assert err.startswith("knap: ") and err.strip(), err


# ------------------------------------------------------------------------------------ seeds and agents
def test_every_game_gets_a_fresh_seed_printed_with_how_to_replay_it(tmp_path, knap):
    pack = toy(tmp_path)
    seeds = []
    for _ in range(2):
        code, out, err = knap("play", pack, "--players", "2", "--agents", "random")
        assert code == 0, err
        found = re.search(r"Seed (\d+) — replay with --seed (\d+)", out)
        assert found and found.group(1) == found.group(2), out
        seeds.append(int(found.group(1)))
        assert (tmp_path / f"knap-game-{seeds[-1]}.json").is_file()
    assert seeds[0] != seeds[1] and all(0 <= s < 1_000_000 for s in seeds)
    code, out, _ = knap("play", pack, "--players", "2", "--agents", "random", "--seed", "42")
    assert "Seed 42 — replay with --seed 42" in out and (tmp_path / "knap-game-42.json").is_file()


@pytest.mark.parametrize("option", ["--agents", "--bots"])
def test_an_unknown_agent_is_a_usage_error_listing_the_agents(tmp_path, knap, option):
    code, _, err = knap("play", toy(tmp_path), option, "smart")
    assert code == 2 and "smart" in err and "random" in err and "greedy" in err, err


# ------------------------------------------------------------------------------------ replay --show
def test_replay_show_tells_what_happened_to_a_failed_game(tmp_path, knap):
    """A game that fails writes its log; `knap replay --show` prints the log up to the failure and the
    failure (the pack's file and line), exit 1."""
    pack = toy(tmp_path, failing=True)
    code, out, err = knap("play", pack, "--players", "2", "--agents", "random", "--seed", "1", "--log", "fail.json")
    assert code == 1 and "cannot go on" in err and "knap replay fail.json --show" in err, err
    code, out, err = knap("replay", "fail.json", "--show")
    assert code == 1
    assert "P1: Act" in out and "gains" in out, out
    assert "rules.yaml:" in err and "call each other" in err, err


def test_replay_show_tells_that_a_stalled_game_did_not_end(tmp_path, knap):
    pack = toy(tmp_path)
    write_tree(
        pack,
        {
            "rules.yaml": RULES.replace("limit: once_per_turn", "limit: unlimited").replace(
                "me.vp >= 6", "me.vp >= 600"
            )
            % ""
        },
    )
    code, _, err = knap(
        "play",
        pack,
        "--players",
        "2",
        "--agents",
        "random",
        "--seed",
        "1",
        "--log",
        "stall.json",
        "--max-answers-per-turn",
        "20",
    )
    assert code == 1 and "stalled" in err
    code, out, err = knap("replay", "stall.json", "--show")
    assert code == 0, err
    assert "P1: Act" in out and "did not end" in out, out


# ------------------------------------------------------------------------------------ the log's words
def test_the_log_of_an_answer_says_what_was_asked(tmp_path):
    rules = load(toy(tmp_path))
    game = Game.new(rules, 1, 0)
    game.apply(game.decision.options.index("act"), "P1")
    game.apply(1, "P1")  # 2 points
    assert any("How many points do you take?" in line and line.rstrip().endswith("2") for line in game.log_for("P1")), (
        game.log_for("P1")
    )


def test_setup_is_logged_as_setup_not_as_the_first_players_act():
    """Cro-Magnon's setup deals the settlements: that is nobody's act."""
    game = Game.new(ruleset("cro-magnon"), 3, 5)
    lines = game.log_for(None)
    setup = lines[: lines.index("Turn 1: P1")]
    assert setup and all(line.startswith("Setup") for line in setup), setup
    assert not any(line.startswith("Setup: P1") for line in setup), setup
