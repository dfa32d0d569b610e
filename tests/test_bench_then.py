"""tools/bench/then.py measures another checkout's Neolithibum and greedy speed for `engine.py --against`: the
numbers issue 16's "5× today's" targets are judged by, so its driver must run a checkout and report what it
played, and engine.py must print the ratios the right way round."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
THEN = REPO / "tools" / "bench" / "then.py"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(THEN.parent))  # engine.py imports its yardstick beside it
    try:
        spec = importlib.util.spec_from_file_location("bench_engine", THEN.with_name("engine.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(THEN.parent))
    return module


def test_a_checkout_is_measured_in_its_own_process_with_its_own_engine():
    """Run from the bench's folder, which holds a file named engine.py: the checkout's package must be the one
    imported, and the numbers must come from games really played."""
    done = subprocess.run(
        [sys.executable, str(THEN), str(REPO), "--neo-games", "1", "--greedy-decisions", "2"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    numbers = json.loads(done.stdout.strip().splitlines()[-1])
    assert numbers["neolithibum_decisions_a_game"] > 100  # a whole 4-player game of seed 0
    assert numbers["neolithibum_decisions_per_s"] == pytest.approx(
        numbers["neolithibum_games_per_s"] * numbers["neolithibum_decisions_a_game"]
    )
    assert numbers["greedy_ms_a_decision"] > 0


def test_the_ratios_say_how_many_times_faster_this_checkout_is(bench, monkeypatch):
    """Faster means more decisions a second but fewer milliseconds a greedy decision: each ratio is > 1 when this
    checkout is the faster one."""
    children = iter(
        [
            {
                "neolithibum_games_per_s": 10.0,
                "neolithibum_decisions_per_s": 16_000.0,
                "neolithibum_decisions_a_game": 1600.0,
                "greedy_ms_a_decision": 1.0,
            },
            {
                "neolithibum_games_per_s": 2.0,
                "neolithibum_decisions_per_s": 4_000.0,
                "neolithibum_decisions_a_game": 2000.0,
                "greedy_ms_a_decision": 3.0,
            },
        ]
    )

    class Done:
        returncode = 0
        stderr = ""

        def __init__(self):
            self.stdout = json.dumps(next(children)) + "\n"

    monkeypatch.setattr(bench.subprocess, "run", lambda *args, **kwargs: Done())
    args = type("Args", (), {"against": Path("then"), "neo_games": 1, "greedy_decisions": 1, "clock": "cpu"})
    numbers = bench.against_round(args)
    assert numbers["neolithibum_decisions_ratio"] == 4.0
    assert numbers["neolithibum_games_ratio"] == 5.0
    assert numbers["greedy_ratio"] == 3.0
    text = bench.against_text(numbers, Path("then"))
    assert text.startswith("against then:") and "(4.00x)" in text and "3.00x faster" in text
