"""`knap sim --compare PACK_A PACK_B`: two variants of a game played with the same seeds, side by side."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from types import SimpleNamespace

import pytest
from rich.console import Console
from scenario import ROOT

from engine.commands import play as play_cli
from engine.content.packs import resolve_target
from engine.runtime import sim

PACK = "cro-magnon"
DIFFERENCE_KEYS = ["packs", "players", "agents", "seeds", "seats", "turns", "final", "endings", "stalled", "errors"]


def _variant(tmp_path, pattern: str, replacement: str):
    """A copy of the built-in pack with one change to its pack.yaml; the folder keeps its name."""
    copy = tmp_path / "variant" / PACK
    shutil.copytree(resolve_target(PACK), copy)
    manifest = copy / "pack.yaml"
    text, changed = re.subn(pattern, replacement, manifest.read_text(encoding="utf-8"))
    assert changed == 1, pattern
    manifest.write_text(text, encoding="utf-8")
    return copy


@pytest.fixture
def more_action_points(tmp_path):
    """The built-in pack with 3 action points a turn instead of 2."""
    return _variant(tmp_path, r"(action_points:\n(?:    .*\n)*?    default: )2\n", r"\g<1>3\n")


def _all_differences(value):
    """Every `difference` in the comparison, wherever it sits."""
    if isinstance(value, dict):
        found = [value["difference"]] if "difference" in value else []
        return found + [d for v in value.values() for d in _all_differences(v)]
    if isinstance(value, list):
        return [d for v in value for d in _all_differences(v)]
    return []


def test_compare_prints_both_packs_side_by_side_and_writes_json(knap, tmp_path, more_action_points):
    out = tmp_path / "comparison.json"
    code, printed, _ = knap(
        "sim", "--compare", PACK, more_action_points, "-n", "20", "--players", "2", "--jobs", "2", "--json", out
    )
    assert code == 0
    assert f"A = {PACK}" in printed and f"B = {more_action_points}" in printed
    assert "seeds 0–19 for both" in printed
    header = next(line for line in printed.splitlines() if "B − A" in line and "95 % CI" in line)
    assert header.split() == ["A", "B", "B", "−", "A", "95", "%", "CI", "*"]
    for row in ("P1 win %", "P2 win %", "turns (mean)", "final vp (mean/player)", "ended: ", "stalled", "errors"):
        assert row in printed, row
    assert "* the 95 % interval of B − A excludes 0" in printed

    comparison = json.loads(out.read_text())
    assert list(comparison) == ["a", "b", "differences"]
    differences = comparison["differences"]
    assert list(differences) == DIFFERENCE_KEYS
    assert comparison["a"]["games"] == comparison["b"]["games"] == 20
    assert differences["seeds"] == [0, 19] and differences["players"] == 2
    assert differences["packs"]["b"]["path"] == str(more_action_points)
    # one more action point a turn changes the games: their length above all
    turns = differences["turns"]
    assert turns["a"]["mean"] != turns["b"]["mean"]
    assert turns["difference"] == pytest.approx(turns["b"]["mean"] - turns["a"]["mean"], abs=1e-3)
    assert turns["ci95"][0] <= turns["difference"] <= turns["ci95"][1]
    assert turns["significant"] == (turns["ci95"][0] > 0 or turns["ci95"][1] < 0)
    assert differences["final"]["measure"] == "mean_score" and differences["final"]["counter"] == {"a": "vp", "b": "vp"}
    for seat in differences["seats"]:
        assert seat["difference"] == pytest.approx(seat["b"]["rate"] - seat["a"]["rate"], abs=1e-3)
        assert -1 <= seat["ci95"][0] <= seat["difference"] <= seat["ci95"][1] <= 1


def test_the_same_pack_twice_plays_the_same_games(knap, tmp_path):
    """Same seeds, same agents, same pack: identical summaries and every difference exactly 0; and each
    side is what plain `knap sim` reports for that pack."""
    out, plain = tmp_path / "comparison.json", tmp_path / "plain.json"
    code, _, _ = knap(
        "sim", "--compare", PACK, PACK, "-n", "20", "--seed", "5", "--agents", "random", "--jobs", "2", "--json", out
    )
    assert code == 0
    comparison = json.loads(out.read_text())
    assert comparison["a"] == comparison["b"]
    differences = _all_differences(comparison["differences"])
    assert differences and all(d == 0 for d in differences)
    assert not any(s["significant"] for s in comparison["differences"]["seats"])
    assert not comparison["differences"]["turns"]["significant"]
    assert knap("sim", PACK, "-n", "20", "--seed", "5", "--agents", "random", "--jobs", "1", "--json", plain)[0] == 0
    assert json.loads(plain.read_text()) == comparison["a"]


def test_stalled_games_are_counted_per_pack_with_their_logs(knap, tmp_path, more_action_points):
    logs = tmp_path / "logs"
    code, printed, _ = knap(
        "sim",
        "--compare",
        PACK,
        more_action_points,
        "-n",
        "2",
        "--max-rounds",
        "2",
        "--jobs",
        "1",
        "--log-dir",
        logs,
        "--json",
        tmp_path / "c.json",
    )
    assert code == 0
    differences = json.loads((tmp_path / "c.json").read_text())["differences"]
    assert differences["stalled"] == {"a": 2, "b": 2, "difference": 0}
    assert differences["endings"] == {sim.STALLED: {"a": 2, "b": 2, "difference": 0}}
    assert sorted(p.relative_to(logs).as_posix() for p in logs.rglob("*.json")) == [
        "a/seed-0.json",
        "a/seed-1.json",
        "b/seed-0.json",
        "b/seed-1.json",
    ]
    assert "A: 2 game(s) stalled" in printed and "B: 2 game(s) stalled" in printed


def test_newcombe_interval_of_two_rates():
    # 10/20 against 15/20, by hand: Wilson intervals [0.29930, 0.70070] and [0.53130, 0.88814], so
    # 0.25 - sqrt(0.21870² + 0.20070²) = -0.0468 and 0.25 + sqrt(0.13814² + 0.20070²) = 0.4936
    d, low, high = sim.newcombe(10, 20, 15, 20)
    assert (d, round(low, 4), round(high, 4)) == (0.25, -0.0468, 0.4936)
    # Newcombe (1998), Statistics in Medicine 17:873, example (a), method 10: 56/70 - 48/80 = 0.2,
    # interval 0.0524 to 0.3339 (here as B - A, so B = 56/70)
    d, low, high = sim.newcombe(48, 80, 56, 70)
    assert (round(d, 4), round(low, 4), round(high, 4)) == (0.2, 0.0524, 0.3339)
    # swapping the packs mirrors the interval
    d, low, high = sim.newcombe(56, 70, 48, 80)
    assert (round(d, 4), round(low, 4), round(high, 4)) == (-0.2, -0.3339, -0.0524)
    # degenerate cases: no trials on a side says nothing; rates of 0 or 1 stay within [-1, 1]
    assert sim.newcombe(0, 0, 5, 10) is None and sim.newcombe(3, 10, 0, 0) is None
    d, low, high = sim.newcombe(0, 10, 0, 10)
    assert d == 0 and -1 <= low < 0 < high <= 1
    d, low, high = sim.newcombe(0, 5, 5, 5)
    assert d == 1 and 0 < low < high == 1
    d, low, high = sim.newcombe(1.5, 3, 1.5, 3)  # shared wins count as fractions
    assert d == 0 and low == -high


def test_welch_interval_of_two_means():
    # means 2.5 and 4, variances 5/3 and 2.5: se = sqrt(5/12 + 1/2) = 0.957427, 1.96·se = 1.876557
    d, low, high = sim.mean_difference([1, 2, 3, 4], [2, 3, 4, 5, 6])
    assert d == 1.5 and low == pytest.approx(-0.376557, abs=1e-6) and high == pytest.approx(3.376557, abs=1e-6)
    assert sim.mean_difference([7, 7], [7, 7]) == (0, 0, 0)
    assert sim.mean_difference([], [1, 2]) is None and sim.mean_difference([1], [1, 2]) is None


def _rules(counter):
    return SimpleNamespace(pack_id="variant", root=ROOT, score_counter=counter, in_rounds=False, cooperative=False)


def _game(seed, winners, scores=None, reason="goal", turns=10):
    return {
        "index": seed,
        "seed": seed,
        "winners": winners,
        "scores": scores or {},
        "reason": reason,
        "turns": turns,
        "decisions": turns * 3,
    }


def test_without_a_score_counter_the_share_of_games_won_is_compared():
    """A pack whose end is a win or a loss (no score counter): the share of games with a winner."""
    a = [_game(0, ["P1"]), _game(1, []), _game(2, []), _game(3, ["P1"], turns=12)]
    b = [_game(0, ["P1"]), _game(1, ["P1"]), _game(2, ["P1"]), {"index": 3, "seed": 3, "error": "boom"}]
    differences = sim.differences(_rules(None), a, _rules(None), b, 1, ["greedy"])
    final = differences["final"]
    assert final["measure"] == "any_winner" and final["counter"] == {"a": None, "b": None}
    assert (final["a"]["successes"], final["a"]["n"], final["b"]["successes"], final["b"]["n"]) == (2, 4, 3, 3)
    assert final["difference"] == 0.5 and final["ci95"] == [round(x, 4) for x in sim.newcombe(2, 4, 3, 3)[1:]]
    assert differences["errors"] == {"a": 0, "b": 1, "difference": 1}
    assert differences["turns"]["difference"] == -0.5
    # a counter on one side only is no common score either
    assert sim.differences(_rules("vp"), a, _rules(None), b, 1, ["greedy"])["final"]["measure"] == "any_winner"


def test_no_game_played_on_either_side_does_not_crash():
    broken = [{"index": i, "seed": i, "error": "boom"} for i in range(3)]
    differences = sim.differences(_rules("vp"), broken, _rules("vp"), broken, 2, ["random"])
    assert differences["seats"][0]["difference"] is None and differences["seats"][0]["a"]["rate"] is None
    assert differences["turns"]["difference"] is None and differences["final"]["ci95"] is None
    assert differences["errors"] == {"a": 3, "b": 3, "difference": 0}
    summary = sim.summarise(_rules("vp"), broken, 2, ["random"], 0)
    console = Console(file=io.StringIO(), width=100)
    play_cli.print_comparison({"a": summary, "b": summary, "differences": differences}, ["x", "y"], console)
    assert "P1 win %" in console.file.getvalue()


def test_usage_errors_exit_2_without_a_traceback(knap, tmp_path):
    code, _, err = knap("sim")
    assert code == 2 and "needs a PACK, or --compare PACK_A PACK_B" in err
    code, _, err = knap("sim", PACK, "--compare", PACK, PACK)
    assert code == 2 and "not both" in err
    assert knap("sim", "--compare", PACK)[0] == 2
    code, _, err = knap("sim", "--compare", PACK, PACK, "--players", "5")
    assert code == 2 and "for 2 to 4 players, not 5" in err
    code, _, err = knap("sim", "--compare", PACK, tmp_path / "nowhere")
    assert code == 2 and "not a pack folder" in err
    code, _, err = knap("sim", "--compare", PACK, "cro-magnon-solo")  # 2 to 4 players, and 1
    assert code == 2 and "no player count in common" in err
    assert len(err.strip().splitlines()) == 1
    # and as users run it
    done = subprocess.run(
        [sys.executable, "-m", "engine.commands.cli", "sim"],
        cwd=ROOT,
        text=True,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr and done.stderr.startswith("knap: ")


def test_games_that_end_in_an_error_exit_1_and_are_shown(knap, tmp_path, monkeypatch, more_action_points):
    """As plain `knap sim`: exit 1 when any game of either pack ended in an error."""
    played = sim.play_out

    def broken_b(game, seats):
        if game.rules.root == more_action_points:
            raise RuntimeError("a bug in B")
        return played(game, seats)

    monkeypatch.setattr(sim, "play_out", broken_b)
    code, printed, _ = knap(
        "sim",
        "--compare",
        PACK,
        more_action_points,
        "-n",
        "2",
        "--max-rounds",
        "2",
        "--jobs",
        "1",
        "--json",
        tmp_path / "c.json",
    )
    assert code == 1
    assert "B, seed 0: RuntimeError: a bug in B" in printed
    comparison = json.loads((tmp_path / "c.json").read_text())
    assert comparison["differences"]["errors"] == {"a": 0, "b": 2, "difference": 2}
    assert comparison["b"]["played"] == 0 and comparison["differences"]["turns"]["difference"] is None


@pytest.mark.parametrize(
    "values, median",
    [
        ([11, 20, 80, 86], 50),
        ([86, 11, 80, 20], 50),
        ([1, 2], 1.5),
        ([7], 7),
        ([3, 1, 2], 2),
        ([10**400, 10**400 + 2], 10**400 + 1),
    ],
)
def test_the_median_of_an_even_count_is_the_mean_of_the_two_middle_values(values, median):
    """A summary's median is what `statistics.median` says (4 games of 11, 20, 80 and 86 rounds: 50, not 80),
    and stays exact for numbers too large for a float."""
    assert sim._spread(values)["median"] == median


def test_the_summary_counts_a_game_played_in_rounds_in_rounds_and_gives_the_median(knap, tmp_path):
    """A pack played in rounds (Neolithibum) is measured in rounds, not turns, as docs/calibration.md counts
    it, and the text gives the median beside the mean; the JSON says which unit `turns` counts."""
    out = tmp_path / "neo.json"
    code, printed, _ = knap(
        "sim", "neolithibum", "-n", "2", "--players", "3", "--jobs", "1", "--format", "json", "--output", out
    )
    assert code == 0 and json.loads(out.read_text())["length_unit"] == "rounds"
    code, printed, _ = knap("sim", "neolithibum", "-n", "2", "--players", "3", "--jobs", "1")
    assert code == 0 and re.search(r"Game length: [\d.]+ rounds on average \(median [\d.]+, sd", printed), printed
    code, printed, _ = knap("sim", PACK, "-n", "2", "--players", "2", "--jobs", "1")
    assert code == 0 and re.search(r"Game length: [\d.]+ turns on average \(median [\d.]+, sd", printed), printed
