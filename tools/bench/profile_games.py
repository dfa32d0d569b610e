"""Where a pack's random games spend their time: cProfile over seeded games, the top functions by own time.

    python tools/bench/profile_games.py PACK PLAYERS GAMES [--sort cumulative] [--top 25] [--agent greedy]

`--agent greedy` seats greedy bots (as `knap sim --agents greedy` does) instead of random answers.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.content.packs import resolve_target
from engine.runtime import agents
from engine.runtime import rules as rules_module
from engine.runtime.game import Game
from engine.runtime.session import play_out, play_randomly


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pack")
    parser.add_argument("players", type=int)
    parser.add_argument("games", type=int)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument(
        "--agent",
        choices=sorted(agents.AGENTS),
        default="random",
        help="who answers: random answers (the soak's games) or bots of this kind at every seat",
    )
    args = parser.parse_args()
    rules = rules_module.load(resolve_target(args.pack))
    profile = cProfile.Profile()
    profile.enable()
    for seed in range(args.games):
        game = Game.new(rules, args.players, seed)
        if args.agent == "random":
            play_randomly(game, random.Random(seed))
        else:
            play_out(game, [agents.make(args.agent, seed * 31 + i) for i in range(args.players)])
    profile.disable()
    pstats.Stats(profile).sort_stats(args.sort).print_stats(args.top)


if __name__ == "__main__":
    main()
