"""Two checkouts' runtimes timed side by side: is a change faster, and by how much beyond the noise?

    python tools/bench/paired.py BEFORE AFTER [--rounds 6] [--neo-games 40] [--greedy-decisions 0] [--json FILE]

Each round measures both checkouts at once with then.py (Neolithibum games/s, and greedy answers when asked), each in
its own process pinned to its own core, and swaps the cores at the next round; a machine with one core measures them
one after the other. Played at the same time, both see the same load, so the ratio of a round holds even when the
machine's speed drifts between rounds, which single measurements a minute apart do not (issue 16: ±3 % from one day
to the next, more than most single changes). A compiled checkout is timed as compiled: `python hatch_build.py
--inplace` in each first (`KNAPPER_NO_TRAINING=1` for a build in two minutes). Prints each round's ratio AFTER over
BEFORE (above 1: AFTER is faster), their median and range, and whether both played the same games (the same
decisions a game).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent))  # then.py, beside it

import then


def _cores() -> list[int]:
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_setaffinity") else []
    return cores[:2]


def _measure(root: Path, core: int | None, neo_games: int, greedy: int) -> subprocess.Popen:
    child = subprocess.Popen(then.command(root, neo_games, greedy), stdout=subprocess.PIPE, text=True)
    if core is not None:  # pinned as it starts up: it loads the packs and warms up before it times anything
        os.sched_setaffinity(child.pid, {core})
    return child


def _numbers(child: subprocess.Popen, root: Path) -> dict:
    out, _ = child.communicate()
    if child.returncode != 0:
        raise SystemExit(f"then.py failed on {root} (exit code {child.returncode}): is it a checkout of Knapper?")
    return then.numbers_of(out)


def one_round(before: Path, after: Path, number: int, neo_games: int, greedy: int) -> tuple[dict, dict]:
    """Both checkouts measured: at once on two cores (swapped every other round), else one after the other."""
    cores = _cores()
    if len(cores) < 2:
        first = _numbers(_measure(before, None, neo_games, greedy), before)
        return first, _numbers(_measure(after, None, neo_games, greedy), after)
    a_core, b_core = cores if number % 2 == 0 else cores[::-1]
    a, b = _measure(before, a_core, neo_games, greedy), _measure(after, b_core, neo_games, greedy)
    return _numbers(a, before), _numbers(b, after)


def summary(rounds: list[tuple[dict, dict]]) -> dict:
    """The ratios AFTER over BEFORE of every round (speed: above 1 is faster), their median and range."""

    def spread(ratios: list[float]) -> dict:
        return {"ratios": ratios, "median": statistics.median(ratios), "low": min(ratios), "high": max(ratios)}

    result = {
        "neolithibum": spread([b["neolithibum_games_per_s"] / a["neolithibum_games_per_s"] for a, b in rounds]),
        "same_games": all(a["neolithibum_decisions_a_game"] == b["neolithibum_decisions_a_game"] for a, b in rounds),
    }
    if all(a.get("greedy_ms_a_decision") for a, _ in rounds):  # (a time a decision: the ratio of speeds is BEFORE's)
        result["greedy"] = spread([a["greedy_ms_a_decision"] / b["greedy_ms_a_decision"] for a, b in rounds])
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--neo-games", type=int, default=40)
    parser.add_argument("--greedy-decisions", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    before, after = args.before.resolve(), args.after.resolve()
    rounds = []
    for number in range(args.rounds):
        a, b = one_round(before, after, number, args.neo_games, args.greedy_decisions)
        rounds.append((a, b))
        line = (
            f"round {number + 1}: Neolithibum {a['neolithibum_games_per_s']:.2f} -> {b['neolithibum_games_per_s']:.2f}"
            f" games/s ({b['neolithibum_games_per_s'] / a['neolithibum_games_per_s']:.3f}x)"
        )
        if a.get("greedy_ms_a_decision"):
            line += f"; greedy {a['greedy_ms_a_decision']:.2f} -> {b['greedy_ms_a_decision']:.2f} ms a decision"
        print(line, flush=True)
    result = summary(rounds)
    for name in ("neolithibum", "greedy"):
        if name in result:
            r = result[name]
            print(
                f"{name}: {r['median']:.3f}x faster (median of {len(r['ratios'])} rounds; {r['low']:.3f}-{r['high']:.3f})"
            )
    if not result["same_games"]:
        print("the two checkouts played different games (decisions a game differ): the ratio compares different work")
    if args.json:
        args.json.write_text(json.dumps({"rounds": rounds, **result}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
