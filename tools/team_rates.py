"""How often a team of bots wins a cooperative pack, random team against greedy team, at each player count.

    python tools/team_rates.py content/paleo content/paleo-scenario-i -n 20 --players 1,2,3,4

Prints one line per pack and player count: the team win rate of each agent with its 95 % Wilson interval,
and whether the intervals overlap (issue 15: "a team of greedy agents wins clearly more often than a random
team"). The games are `knap sim`'s (engine/runtime/sim.py), same seeds for both teams."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.runtime import rules as rules_module
from engine.runtime import sim


def rates(pack: Path, players: int, games: int, agents: list[str], seed: int, jobs: int | None, max_rounds: int):
    rules = rules_module.load(pack)
    if not rules.cooperative:
        raise SystemExit(f"{pack}: not a cooperative pack (`cooperative: true` in pack.yaml)")
    return {name: sim.run(rules, games, players, [name], seed, jobs, max_rounds)["team"] for name in agents}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packs", nargs="+", type=Path)
    parser.add_argument("-n", "--games", type=int, default=20)
    parser.add_argument("--players", default="1,2,3,4", help="player counts, comma-separated")
    parser.add_argument("--agents", default="random,greedy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--max-rounds", type=int, default=100)
    args = parser.parse_args(argv)
    agents = args.agents.split(",")
    for pack in args.packs:
        for players in (int(n) for n in args.players.split(",")):
            found = rates(pack, players, args.games, agents, args.seed, args.jobs, args.max_rounds)
            cells = [
                f"{name} {row['win_rate']:6.1%} [{row['ci95'][0]:.0%}–{row['ci95'][1]:.0%}]"
                for name, row in found.items()
            ]
            lows = [row["ci95"][0] for row in found.values()]
            highs = [row["ci95"][1] for row in found.values()]
            apart = len(found) == 2 and (lows[1] > highs[0] or lows[0] > highs[1])
            print(f"{pack.name:28} {players}p  " + "  ".join(cells) + ("  (apart)" if apart else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
