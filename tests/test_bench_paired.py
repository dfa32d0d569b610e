"""tools/bench/paired.py times two checkouts side by side (issue 16's changes are judged by it): its ratios must be
the right way round (above 1: the second checkout is faster), and it must say when the two played different games."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAIRED = REPO / "tools" / "bench" / "paired.py"


def _module():
    spec = importlib.util.spec_from_file_location("bench_paired", PAIRED)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _side(games_per_s: float, decisions: float = 1580.0, greedy_ms: float | None = None) -> dict:
    return {
        "neolithibum_games_per_s": games_per_s,
        "neolithibum_decisions_a_game": decisions,
        "greedy_ms_a_decision": greedy_ms,
    }


def test_a_faster_second_checkout_has_a_ratio_above_one():
    result = _module().summary([(_side(40.0, greedy_ms=0.4), _side(44.0, greedy_ms=0.2)), (_side(42.0), _side(42.0))])
    assert result["neolithibum"]["ratios"] == [1.1, 1.0]
    assert result["neolithibum"]["median"] == 1.05
    assert (result["neolithibum"]["low"], result["neolithibum"]["high"]) == (1.0, 1.1)
    assert result["same_games"] is True
    assert "greedy" not in result  # not timed in every round: no ratio made of the rounds that did


def test_greedy_ratios_are_speeds_too():
    result = _module().summary([(_side(40.0, greedy_ms=0.4), _side(40.0, greedy_ms=0.2))])
    assert result["greedy"]["median"] == 2.0  # half the time a decision: twice as fast


def test_different_games_are_told():
    assert _module().summary([(_side(40.0), _side(40.0, decisions=1500.0))])["same_games"] is False


def test_a_checkout_against_itself_plays_the_same_games(tmp_path):
    out = tmp_path / "paired.json"
    done = subprocess.run(
        [sys.executable, str(PAIRED), str(REPO), str(REPO), "--rounds", "1", "--neo-games", "1", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "round 1: Neolithibum" in done.stdout
    assert "neolithibum: " in done.stdout and "x faster (median of 1 rounds" in done.stdout
    numbers = json.loads(out.read_text(encoding="utf-8"))
    assert numbers["same_games"] is True
    assert len(numbers["rounds"]) == 1


def test_a_folder_that_is_no_checkout_is_one_line_and_a_non_zero_exit(tmp_path):
    done = subprocess.run(
        [sys.executable, str(PAIRED), str(tmp_path), str(REPO), "--rounds", "1", "--neo-games", "1"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode != 0
    assert f"then.py failed on {tmp_path}" in done.stderr
