"""`knap play`, `knap sim` and `knap replay` as users run them."""

from __future__ import annotations

import json
import subprocess
import sys

from scenario import ROOT

from engine.commands import cli


def _knap(*args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "engine.commands.cli", *args],
        cwd=ROOT,
        input=stdin,
        text=True,
        capture_output=True,
        timeout=600,
        check=False,
    )


def test_sim_prints_a_summary_and_writes_json(tmp_path, capsys):
    out = tmp_path / "summary.json"
    code = cli.main(
        [
            "sim",
            "cro-magnon",
            "-n",
            "6",
            "--players",
            "3",
            "--agents",
            "random",
            "--seed",
            "4",
            "--jobs",
            "2",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "Win rate by seat" in printed and "How games ended" in printed
    summary = json.loads(out.read_text())
    assert summary["games"] == 6 and summary["played"] == 6 and summary["errors"] == 0
    assert [row["seat"] for row in summary["seats"]] == ["P1", "P2", "P3"]
    assert all(0 <= row["ci95"][0] <= row["win_rate"] <= row["ci95"][1] <= 1 for row in summary["seats"])
    # the same seeds give the same summary, whatever the number of workers
    again = tmp_path / "again.json"
    cli.main(["sim", "cro-magnon", "-n", "6", "--players", "3", "--seed", "4", "--jobs", "1", "--json", str(again)])
    assert json.loads(again.read_text()) == summary


def test_sim_refuses_unknown_agents_and_player_counts(capsys):
    assert cli.main(["sim", "cro-magnon", "--agents", "clever"]) == 2
    assert cli.main(["sim", "cro-magnon", "--players", "9"]) == 2
    assert "for 2 to 4 players" in capsys.readouterr().err


def test_play_with_bots_writes_a_log_that_replays(tmp_path):
    log = tmp_path / "game.json"
    result = _knap("play", "cro-magnon", "--players", "2", "--agents", "random", "--seed", "3", "--log", str(log))
    assert result.returncode == 0, result.stderr
    assert "Winner(s)" in result.stdout
    replayed = _knap("replay", str(log))
    assert replayed.returncode == 0, replayed.stderr
    assert "final state matches" in replayed.stdout
    data = json.loads(log.read_text())
    data["decisions"][5][1] = 99
    log.write_text(json.dumps(data))
    broken = _knap("replay", str(log))
    assert broken.returncode == 1 and " X405 " in broken.stderr and "Traceback" not in broken.stderr


def test_replay_notices_a_changed_final_hash(tmp_path):
    log = tmp_path / "game.json"
    assert _knap("play", "cro-magnon", "--players", "2", "--agents", "random", "--log", str(log)).returncode == 0
    data = json.loads(log.read_text())
    data["final_hash"] = "0" * 64
    log.write_text(json.dumps(data))
    result = _knap("replay", str(log))
    assert result.returncode == 1 and "differs" in result.stderr


def test_a_person_plays_seat_one_from_standard_input(tmp_path):
    """The person always answers 1 (the first legal option) until quitting: the board and the options
    are shown, bots play the other seats, and `q` leaves (saving the game) without a traceback."""
    answers = "x\n" + "1\n" * 60 + "q\n"
    result = _knap(
        "play",
        "cro-magnon",
        "--players",
        "3",
        "--human",
        "1",
        "--seed",
        "2",
        "--log",
        str(tmp_path / "g.json"),
        stdin=answers,
    )
    assert result.returncode == 0, result.stderr
    assert "you are P1" in result.stdout
    assert "Choose an action, or end your turn" in result.stdout
    assert "Type a number from 1 to" in result.stdout
    assert "Game saved to" in result.stdout and "knap play --resume" in result.stdout
    assert "Traceback" not in result.stderr


def test_play_refuses_a_pack_with_errors(tmp_path):
    pack = tmp_path / "broken"
    pack.mkdir()
    (pack / "pack.yaml").write_text("kind: pack\nid: broken\nname: Broken\nversion: 1.0.0\nplayers: {min: 1}\n")
    (pack / "cards.yaml").write_text("kind: card\nid: x\nname: X\ntype: thing\neffect: |\n  gian 1 vp\n")
    result = _knap("play", str(pack))
    assert result.returncode == 1  # a content error (exit 2 is for usage errors)
    assert "cards.yaml:6:3" in result.stderr and "before playing" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_python_example_of_docs_playing_runs():
    text = (ROOT / "docs" / "playing.md").read_text(encoding="utf-8")
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    code = code.replace('Path("content/cro-magnon")', 'ROOT / "content" / "cro-magnon"')
    namespace = {"ROOT": ROOT}
    exec("from pathlib import Path\n" + code, namespace)  # noqa: S102 -- our own documentation
    assert namespace["g"].over and namespace["same"].state_hash() == namespace["g"].state_hash()


def test_sim_reports_stalled_games_with_seeds_and_logs_that_replay(tmp_path, capsys):
    """DESIGN "Stalls are content bugs": capped games are reported as stalled with their seeds, and their
    logs replay the exact game."""
    logs = tmp_path / "logs"
    out = tmp_path / "summary.json"
    code = cli.main(
        [
            "sim",
            "cro-magnon",
            "-n",
            "3",
            "--players",
            "2",
            "--max-rounds",
            "3",
            "--seed",
            "10",
            "--jobs",
            "1",
            "--log-dir",
            str(logs),
            "--json",
            str(out),
        ]
    )
    assert code == 0
    assert "3 game(s) stalled" in capsys.readouterr().out
    summary = json.loads(out.read_text())
    assert summary["stalled"] == {"count": 3, "seeds": [10, 11, 12]} and summary["endings"] == {"turn_limit": 3}
    assert sorted(p.name for p in logs.iterdir()) == ["seed-10.json", "seed-11.json", "seed-12.json"]
    assert cli.main(["replay", str(logs / "seed-11.json")]) == 0
