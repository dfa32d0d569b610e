"""Another checkout's Neolithibum and greedy speed, for `engine.py --against DIR` (issue 16 asks for 5× "today's"
numbers: measured on another day, on another machine, they say nothing; measured in the same run, they do).

    python tools/bench/then.py DIR --neo-games 5 --greedy-decisions 100

Runs in its own process with DIR's engine and DIR's packs (the games are the ones that checkout plays), on the
core its parent was pinned to; prints one JSON line. It asks of that engine only what it has had since before issue
16 (`rules.load`, `Game.new`, `session.play_randomly`, `agents.GreedyAgent`, `Game.determinized`), so a checkout as
old as 9c282aa, the engine of the day the issue was filed (before any speed work), can be measured; and, where the
checkout has it, `collector.bulk_play`, inside which its `knap sim` plays.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import json
import random
import sys
import time
from pathlib import Path

CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def measure(root: Path, neo_games: int, greedy_decisions: int, clock=time.process_time) -> dict:
    sys.path[0] = str(root)  # this folder holds a file named engine.py: the checkout's package must win
    from engine.runtime import rules as rules_module
    from engine.runtime.agents import GreedyAgent
    from engine.runtime.game import Game
    from engine.runtime.session import play_randomly

    try:  # games in bulk as that checkout's `knap sim` plays them: with the collector it sets (if it has one)
        from engine.runtime.collector import bulk_play
    except ImportError:
        bulk_play = contextlib.nullcontext

    neo = rules_module.load(root / "content" / "neolithibum")
    cro = rules_module.load(root / "content" / "cro-magnon")
    play_randomly(Game.new(neo, 4, 10_000), random.Random(10_000))  # warm-up: code compiled on first use
    play_randomly(Game.new(cro, 4, 10_000), random.Random(10_000))  # (and Cro-Magnon's, for the greedy answers timed
    greedy_answers(Game, GreedyAgent, cro, 10, seed=10_000)  # below: their speed a game after game, not a first use)
    with bulk_play():
        gc.collect()
        started = clock()
        neo_decisions = sum(play_randomly(Game.new(neo, 4, seed), random.Random(seed)) for seed in range(neo_games))
        neo_seconds = clock() - started
        greedy_seconds = greedy_answers(Game, GreedyAgent, cro, greedy_decisions, clock=clock)
    return {
        "neolithibum_games_per_s": neo_games / neo_seconds,
        "neolithibum_decisions_per_s": neo_decisions / neo_seconds,
        "neolithibum_decisions_a_game": neo_decisions / neo_games,
        "greedy_ms_a_decision": greedy_seconds / greedy_decisions * 1e3 if greedy_decisions else None,  # (0: none)
    }


def greedy_answers(
    game_class, agent_class, rules, decisions: int, players: int = 4, seed: int = 1, clock=time.process_time
):
    """Seconds for `decisions` greedy answers (every seat greedy), as sim.py's play_out asks them; the classes are
    the measured checkout's (engine.py passes its own)."""
    game = game_class.new(rules, players, seed)
    agents = {p: agent_class(seed * 31 + i) for i, p in enumerate(game.state["players"])}
    gc.collect()
    made, started = 0, clock()
    while made < decisions:
        if game.over:
            game = game_class.new(rules, players, seed + made)
        decision = game.decision
        if decision.is_chance:
            game.apply_chance()
            continue
        player = decision.players[0]
        legal = game.legal(player)
        model = functools.partial(game.determinized, player, len(game.state["history"]))
        game.apply(agents[player].act({"you": player}, legal, model), player)
        made += 1
    return clock() - started


def command(root: Path, neo_games: int, greedy_decisions: int, clock: str = "cpu") -> list[str]:
    """This script measuring `root`, for a child process (engine.py --against, paired.py); `numbers_of` reads what it
    prints."""
    options = [f"--neo-games={neo_games}", f"--greedy-decisions={greedy_decisions}", f"--clock={clock}"]
    return [sys.executable, str(Path(__file__).resolve()), str(root), *options]


def numbers_of(printed: str) -> dict:
    """The numbers a run of `command` printed (its last line)."""
    return json.loads(printed.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--neo-games", type=int, default=5)
    parser.add_argument("--greedy-decisions", type=int, default=100)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    args = parser.parse_args(argv)
    numbers = measure(args.root.resolve(), args.neo_games, args.greedy_decisions, CLOCKS[args.clock])
    print(json.dumps(numbers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
