"""Where a greedy decision's time goes: the imagined deal (`model()`, Game.determinized), the copies per
option (Game.clone), trying each option (Game.apply), the rollouts (GreedyAgent._rollout) and the
projection (Game.projected_margin), in ms a decision and in per cent, over seeded games of greedy bots.

    python tools/bench/greedy_parts.py PACK PLAYERS GAMES

Each part is timed where the bot calls it (a clone made inside the projection or the deal counts there,
the answers a rollout gives count as the rollout), by the process's CPU time; the rest of `act` (the
bookkeeping of the best options) is "other". The wrappers cost a little: compare runs, not absolutes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.content.packs import resolve_target
from engine.runtime import rules as rules_module
from engine.runtime.agents import GreedyAgent
from engine.runtime.game import Game
from engine.runtime.session import play_out

clock = time.process_time
PARTS = {
    "model": (Game, "determinized"),
    "clone": (Game, "clone"),
    "apply": (Game, "apply"),
    "rollout": (GreedyAgent, "_rollout"),
    "margin": (Game, "projected_margin"),
}


class Meter:
    """Seconds spent in each part, counted only for the outermost timed call inside `act`."""

    def __init__(self):
        self.seconds = dict.fromkeys(["act", *PARTS], 0.0)
        self.decisions = 0
        self.inside_act = False
        self.depth = 0

    def wrap(self, part, function):
        def timed(*args, **kwargs):
            if not self.inside_act or self.depth:
                return function(*args, **kwargs)
            self.depth += 1
            started = clock()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[part] += clock() - started
                self.depth -= 1

        return timed

    def wrap_act(self, act):
        def timed(agent, view, legal, model=None):
            if model is None or len(legal) == 1:
                return act(agent, view, legal, model)
            self.inside_act, started = True, clock()
            try:
                return act(agent, view, legal, model)
            finally:
                self.seconds["act"] += clock() - started
                self.inside_act = False
                self.decisions += 1

        return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pack")
    parser.add_argument("players", type=int)
    parser.add_argument("games", type=int)
    args = parser.parse_args()
    rules = rules_module.load(resolve_target(args.pack))
    meter = Meter()
    originals = {part: getattr(owner, name) for part, (owner, name) in PARTS.items()}
    original_act = GreedyAgent.act
    try:
        for part, (owner, name) in PARTS.items():
            setattr(owner, name, meter.wrap(part, originals[part]))
        GreedyAgent.act = meter.wrap_act(original_act)
        for seed in range(args.games):
            game = Game.new(rules, args.players, seed)
            play_out(game, [GreedyAgent(seed * 31 + i) for i in range(args.players)])
    finally:
        for part, (owner, name) in PARTS.items():
            setattr(owner, name, originals[part])
        GreedyAgent.act = original_act
    total, count = meter.seconds["act"], max(1, meter.decisions)
    print(
        f"{rules.pack_id}, {args.players} players, {args.games} greedy games: {meter.decisions} decisions looked "
        f"ahead, {total / count * 1e3:.2f} ms each"
    )
    other = total - sum(meter.seconds[p] for p in PARTS)
    for part, seconds in [*((p, meter.seconds[p]) for p in PARTS), ("other", other)]:
        print(f"  {part:8s} {seconds / count * 1e3:7.2f} ms  {seconds / total * 100 if total else 0:5.1f} %")


if __name__ == "__main__":
    main()
