"""What a game's record costs: random games played as `knap sim` plays them (sim._one: Game.new, then play_out with
the seats' agents), with and without runtime.records.GameRecorder watching, the same seeds in turn.

    python tools/bench/records.py [PACK] [--games 200] [--players 3] [--rounds 3]

Each round plays every seed once bare and once recorded, alternating which goes first, and times them by the process's
CPU clock (other work on the machine slows both alike). Prints each round's cost (recorded time over bare time, minus
one) and their median; the aim is below 10 %. It only measures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.runtime import agents
from engine.runtime import rules as rules_module
from engine.runtime.game import Game
from engine.runtime.records import GameRecorder
from engine.runtime.session import play_out


def play(rules, players: int, seed: int, recorded: bool) -> float:
    """One game's CPU seconds, from Game.new to the record (when `recorded`)."""
    start = time.process_time()
    game = Game.new(rules, players, seed)
    seats = [agents.make("random", seed * 31 + i) for i in range(players)]
    if recorded:
        recorder = GameRecorder(game)
        play_out(game, seats, on_step=recorder.step)
        recorder.finish(game)
    else:
        play_out(game, seats)
    return time.process_time() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pack", nargs="?", default="cro-magnon")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    rules = rules_module.load(ROOT / "content" / args.pack)
    for seed in range(3):  # warm up: the pack's functions are made at their first call
        play(rules, args.players, seed, True)
    costs = []
    for number in range(args.rounds):
        bare = recorded = 0.0
        for seed in range(args.games):
            first = (seed + number) % 2 == 0
            for with_record in (first, not first):
                spent = play(rules, args.players, seed, with_record)
                if with_record:
                    recorded += spent
                else:
                    bare += spent
        costs.append(recorded / bare - 1)
        print(f"round {number + 1}: bare {bare:.2f} s, recorded {recorded:.2f} s, cost {costs[-1]:+.1%}", flush=True)
    print(f"{args.pack}, {args.games} random games of {args.players}: the record costs {statistics.median(costs):+.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
