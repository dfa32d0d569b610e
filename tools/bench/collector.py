"""The cycle collector's share of a run of games, with Python's defaults and inside `collector.bulk_play` (as `knap
sim` plays), in one run: each workload is played once each way in its own child process, and the time spent in
collections is read from `gc.callbacks` (a share of the same process's play, so it holds up better than two times
measured minutes apart on a busy machine).

Run: python tools/bench/collector.py [--games 20] [--greedy-decisions 300]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKLOADS = ("cro-magnon", "neolithibum", "stone-age-mammoth-herd", "greedy")


def child(workload: str, bulk: bool, games: int, greedy_decisions: int) -> dict:
    """Play `workload` after one warm-up game, timing the collector's every pass."""
    import contextlib
    import gc
    import random
    import types

    sys.path.insert(0, str(ROOT))
    sys.path.append(str(Path(__file__).resolve().parent))
    import then

    from engine.runtime import rules as rules_module
    from engine.runtime.agents import GreedyAgent
    from engine.runtime.collector import bulk_play
    from engine.runtime.game import Game
    from engine.runtime.session import play_randomly

    pack = "cro-magnon" if workload == "greedy" else workload
    rules = rules_module.load(ROOT / "content" / pack)
    play_randomly(Game.new(rules, 4, 999), random.Random(999))
    spent, passes, started = [0.0], [0, 0, 0], [0.0]

    def timed(phase, info):
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            spent[0] += time.perf_counter() - started[0]
            passes[info["generation"]] += 1

    with bulk_play() if bulk else contextlib.nullcontext():
        gc.callbacks.append(timed)
        begun = time.perf_counter()
        if workload == "greedy":  # without the full collection greedy_answers starts with: not the run's own
            then.gc = types.SimpleNamespace(collect=lambda: 0)
            then.greedy_answers(Game, GreedyAgent, rules, greedy_decisions, clock=time.perf_counter)
        else:
            for seed in range(games):
                play_randomly(Game.new(rules, 4, seed), random.Random(seed))
        total = time.perf_counter() - begun
        gc.callbacks.remove(timed)
    return {"seconds": total, "collector_seconds": spent[0], "passes": passes}


def measure(workload: str, bulk: bool, args) -> dict:
    command = [sys.executable, __file__, "--child", workload, f"--games={args.games}"]
    command += [f"--greedy-decisions={args.greedy_decisions}"] + (["--bulk"] if bulk else [])
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"collector.py: {workload} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="random 4-player games a workload")
    parser.add_argument("--greedy-decisions", type=int, default=300, help="greedy answers (4-player Cro-Magnon)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--bulk", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.bulk, args.games, args.greedy_decisions)))
        return 0
    print("| workload | collector's share, Python's defaults | inside bulk_play | passes (young, middle, old) |")
    print("|---|---|---|---|")
    for workload in WORKLOADS:
        plain, bulk = measure(workload, False, args), measure(workload, True, args)
        shares = [f"{100 * run['collector_seconds'] / run['seconds']:.1f} %" for run in (plain, bulk)]
        passes = " against ".join("/".join(map(str, run["passes"])) for run in (plain, bulk))
        print(f"| {workload} | {shares[0]} | {shares[1]} | {passes} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
