"""How fast the runtime plays: decisions/s and games/s for random 4-player games of a pack, and
`Game.clone()` against `copy.deepcopy` of the same states, measured in one run.

Run: python tools/bench/engine.py [PACK] [--games N]. One process, one core.
"""
from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.packs import resolve_target  # noqa: E402
from engine.runtime import rules as rules_module  # noqa: E402
from engine.runtime.game import Game  # noqa: E402
from engine.runtime.session import play_randomly  # noqa: E402


def play(rules, players, seed, keep=None):
    game = Game.new(rules, players, seed)

    def sample(g):   # a copy of every 29th state, to time copying
        if len(g.state["history"]) % 29 == 0:
            keep.append(g.clone())
    return play_randomly(game, random.Random(seed), after=sample if keep is not None else None)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pack", nargs="?", default="cro-magnon")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    rules = rules_module.load(resolve_target(args.pack))
    samples = []
    play(rules, args.players, 10_000, samples)          # warm-up, and states to copy
    started = time.perf_counter()
    decisions = sum(play(rules, args.players, seed) for seed in range(args.games))
    elapsed = time.perf_counter() - started
    print(f"{args.games} random {args.players}-player games of {rules.pack_id}: {elapsed:.2f} s, "
          f"{args.games / elapsed:.1f} games/s, {decisions / elapsed:,.0f} decisions/s "
          f"({decisions / args.games:.0f} decisions a game)")

    def timed(copier, rounds=20):
        runs = []
        for _ in range(rounds):
            started = time.perf_counter()
            for game in samples:
                copier(game)
            runs.append((time.perf_counter() - started) / len(samples))
        return statistics.median(runs)

    clone = timed(lambda g: g.clone())
    deep = timed(lambda g: Game(g.rules, copy.deepcopy(g.state)))
    print(f"clone(): {clone * 1e6:.0f} µs a state; copy.deepcopy: {deep * 1e6:.0f} µs; "
          f"ratio clone/deepcopy {clone / deep:.3f} ({len(samples)} states from one game)")


if __name__ == "__main__":
    main()
