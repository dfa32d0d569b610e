"""tools/sim_chunks.py: a long `knap sim` run played in chunks of seeds adds up to the same run played at once
(docs/calibration.md's 1,000-game runs were played so, over sittings)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import REPO

sys.path.insert(0, str(REPO / "tools"))
import sim_chunks


def _chunks(out: Path) -> subprocess.CompletedProcess:
    """`tools/sim_chunks.py`: 6 random 2-player Cro-Magnon games in chunks of 4 seeds, summaries into `out`."""
    command = ["cro-magnon", "--players", "2", "--agents", "random", "-n", "6", "--chunk", "4", "--out", str(out)]
    return subprocess.run(
        [sys.executable, "tools/sim_chunks.py", *command],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_chunks_add_up_to_the_whole_run(tmp_path, knap):
    chunks = tmp_path / "chunks"
    done = _chunks(chunks)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in chunks.glob("*.json")) == ["random-2-0.json", "random-2-4.json"]
    again = _chunks(chunks)
    assert again.returncode == 0 and "done" not in again.stderr  # every chunk was there: nothing played
    whole = tmp_path / "whole.json"
    code, _, _ = knap(
        "sim",
        "cro-magnon",
        "-n",
        "6",
        "--players",
        "2",
        "--agents",
        "random",
        "--jobs",
        "1",
        "--format",
        "json",
        "--output",
        str(whole),
    )
    assert code == 0
    expected = json.loads(whole.read_text())
    (run,) = sim_chunks.summary(chunks)["runs"]
    assert run["games"] == run["played"] == 6 and run["seeds"] == [[0, 5]] and run["chunks"] == 2
    assert run["endings"] == expected["endings"] and run["errors"] == expected["errors"] == 0
    mean_score = sum(seat["score"]["mean"] for seat in expected["seats"]) / 2
    assert run["per_agent"]["random"]["seat_games"] == 12
    assert run["per_agent"]["random"]["wins"] == expected["per_agent"]["random"]["wins"]
    assert abs(run["per_agent"]["random"]["mean_score"] - mean_score) < 0.11
    assert run["max"] == expected["turns"]["max"] and run["min"] == expected["turns"]["min"]
    assert abs(run["mean"] - expected["turns"]["mean"]) < 0.06


def test_seed_spans_merge_where_they_meet():
    assert sim_chunks._ranges([(50, 99), (0, 49), (200, 249)]) == [[0, 99], [200, 249]]
