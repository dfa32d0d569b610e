"""Does the search agent beat greedy? Games of a pack with the two agents in alternate seats, the same seeds played
with the seats swapped (so neither agent profits from a seat), each agent's win rate with its 95 % Wilson interval.

In a game for one (a solo mode) the two cannot meet: each plays the same seeds alone, and each one's rate of won
games (and mean score) is compared.

    python tools/bench/search_vs_greedy.py cro-magnon --players 2 -n 100 --search ismcts:200
    python tools/bench/search_vs_greedy.py cro-magnon-solo --players 1 -n 200 --search ismcts:200

Prints a table and, with --json FILE, writes every number. The intervals not overlapping is what the issue asks
(issue 17: "ISMCTS beats greedy in each pack, intervals not overlapping").
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.commands.targets import pack_target
from engine.runtime import sim
from engine.runtime.rules import load


def seatings(players: int, search: str, greedy: str) -> list[list[str]]:
    """The agents by seat, then swapped: search in the odd seats, then in the even ones (one seating alone)."""
    if players == 1:
        return [[search], [greedy]]
    first = [search if i % 2 == 0 else greedy for i in range(players)]
    return [first, [greedy if name == search else search for name in first]]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pack")
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("-n", "--games", type=int, default=100, help="seeds, each played in every seating")
    parser.add_argument("--search", default="ismcts:200")
    parser.add_argument("--greedy", default="greedy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    rules = load(pack_target(args.pack) or Path(args.pack))
    wins = {args.search: 0.0, args.greedy: 0.0}
    seat_games = {args.search: 0, args.greedy: 0}
    scores: dict[str, list] = {args.search: [], args.greedy: []}
    started = time.perf_counter()
    runs = []
    for names in seatings(args.players, args.search, args.greedy):
        summary = sim.run(rules, args.games, args.players, names, args.seed, args.jobs)
        runs.append(summary)
        for row in summary["seats"]:
            wins[row["agent"]] += row["wins"]
            seat_games[row["agent"]] += summary["played"]
            if row["score"].get("mean") is not None:
                scores[row["agent"]].append(row["score"]["mean"])
    seconds = time.perf_counter() - started
    result = {"pack": rules.pack_id, "players": args.players, "games": args.games, "seconds": round(seconds, 1)}
    result["agents"] = {}
    for name in (args.search, args.greedy):
        low, high = sim.wilson(wins[name], seat_games[name])
        result["agents"][name] = {
            "seat_games": seat_games[name],
            "wins": round(wins[name], 2),
            "win_rate": round(wins[name] / seat_games[name], 4) if seat_games[name] else None,
            "ci95": [round(low, 4), round(high, 4)],
            "mean_score": round(statistics.fmean(scores[name]), 2) if scores[name] else None,
        }
    a, b = (result["agents"][n] for n in (args.search, args.greedy))
    result["separated"] = a["ci95"][0] > b["ci95"][1]
    result["errors"] = sum(r["errors"] for r in runs)
    result["stalled"] = sum(r["stalled"]["count"] for r in runs)
    for name, row in result["agents"].items():
        print(
            f"{rules.pack_id} {args.players}p  {name:>14}: {row['wins']:>7} wins of {row['seat_games']} seat-games, "
            f"{100 * row['win_rate']:.1f}% [{100 * row['ci95'][0]:.1f}–{100 * row['ci95'][1]:.1f}], "
            f"mean score {row['mean_score']}"
        )
    print(
        f"{'separated' if result['separated'] else 'NOT separated'}; {result['errors']} errors, "
        f"{result['stalled']} stalled; {seconds:.0f} s"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
