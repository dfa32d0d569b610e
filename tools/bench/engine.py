"""How fast the runtime plays, against a hand-written yardstick (issue 16), in one run on one core.

First, as before: decisions/s and games/s for random games of a pack, and `Game.clone()` against
`copy.deepcopy` of the same states. Then `--rounds` interleaved rounds, each measuring in turn:
random 4-player Cro-Magnon by the engine and by the hand-written program (tools/bench/
handcoded_cromagnon.py: games/s, decisions/s, the ratios per game and per decision), random 4-player
Neolithibum games/s, greedy decisions/s (GreedyAgent, engine), and clone()/deepcopy; the median of the
rounds is reported. Last, memory: resident memory after each quarter of `--memory-games` engine games.

Run: python tools/bench/engine.py [PACK] [--games N] [--rounds 3] [--json FILE]. Use --quick for a short run;
the issue's targets are judged at the default sizes (--quick plays 3 Cro-Magnon games a round, whose shorter games
give a lower ratio per game than the default 30).
"""

from __future__ import annotations

import argparse
import copy
import gc
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.append(str(Path(__file__).resolve().parent))  # after the checkout: engine is the package

import handcoded_cromagnon as handcoded
import then

from engine.content.packs import resolve_target
from engine.runtime import PURE_PYTHON, compiled_modules
from engine.runtime import rules as rules_module
from engine.runtime.agents import GreedyAgent
from engine.runtime.collector import bulk_play
from engine.runtime.game import Game
from engine.runtime.session import play_randomly

ROOT = Path(__file__).resolve().parents[2]
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]  # --clock: one single-threaded process on one core, so CPU time is wall time on an
# idle machine, and on a busy one it leaves out the time others had the core


def play(rules, players, seed, keep=None):
    game = Game.new(rules, players, seed)

    def sample(g):  # a copy of every 29th state, to time copying
        if len(g.state["history"]) % 29 == 0:
            keep.append(g.clone())

    return play_randomly(game, random.Random(seed), after=sample if keep is not None else None)


def timed_copies(samples, rounds=20):
    """Median time a state of `samples` takes to copy with clone() and with deepcopy."""

    def timed(copier):
        runs = []
        for _ in range(rounds):
            started = clock()
            for game in samples:
                copier(game)
            runs.append((clock() - started) / len(samples))
        return statistics.median(runs)

    return timed(lambda g: g.clone()), timed(lambda g: Game(g.rules, copy.deepcopy(g.state)))


def legacy(args):
    """The benchmark's original output, unchanged: random games of PACK, then clone() against deepcopy."""
    rules = rules_module.load(resolve_target(args.pack))
    samples = []
    play(rules, args.players, 10_000, samples)  # warm-up, and states to copy
    started = clock()
    decisions = sum(play(rules, args.players, seed) for seed in range(args.games))
    elapsed = clock() - started
    print(
        f"{args.games} random {args.players}-player games of {rules.pack_id}: {elapsed:.2f} s, "
        f"{args.games / elapsed:.1f} games/s, {decisions / elapsed:,.0f} decisions/s "
        f"({decisions / args.games:.0f} decisions a game)"
    )
    clone, deep = timed_copies(samples)
    print(
        f"clone(): {clone * 1e6:.0f} µs a state; copy.deepcopy: {deep * 1e6:.0f} µs; "
        f"ratio clone/deepcopy {clone / deep:.3f} ({len(samples)} states from one game)"
    )
    return {
        "pack": rules.pack_id,
        "players": args.players,
        "games": args.games,
        "seconds": elapsed,
        "games_per_s": args.games / elapsed,
        "decisions_per_s": decisions / elapsed,
        "clone_us": clone * 1e6,
        "deepcopy_us": deep * 1e6,
        "clone_ratio": clone / deep,
    }


# ------------------------------------------------------------------ the interleaved rounds
def engine_games(rules, players, games):
    gc.collect()  # a collection of an earlier section's garbage would land in this one's time
    started = clock()
    decisions = sum(play(rules, players, seed) for seed in range(games))
    return clock() - started, decisions


def handcoded_games(pack, players, games):
    gc.collect()
    started = clock()
    decisions = sum(handcoded.play_random(pack, players, seed) for seed in range(games))
    return clock() - started, decisions


def greedy_decisions(rules, players, decisions, seed=1):
    """Seconds for `decisions` greedy answers (every seat greedy), as sim.py's play_out asks them."""
    return then.greedy_answers(Game, GreedyAgent, rules, decisions, players, seed, clock=clock)


AGAINST_SOURCE = "source"  # `--against source`: this checkout, its runtime run as Python source (KNAPPER_PURE_PYTHON)


def runtime_text() -> str:
    compiled = compiled_modules()
    return f"the runtime compiled by Cython ({len(compiled)} modules)" if compiled else "the runtime as Python source"


def against_round(args) -> dict:
    """Neolithibum and greedy of the `--against` checkout and of this one, each in a child process of
    tools/bench/then.py (the same driver for both), this one first, on the core this process is pinned to."""
    numbers = {}
    for name, root in (("this", ROOT), ("then", args.against)):
        env = None
        if name == "then" and str(root) == AGAINST_SOURCE:  # this checkout's runtime run from its Python source
            root, env = ROOT, {**os.environ, PURE_PYTHON: "1"}
        command = then.command(root, args.neo_games, args.greedy_decisions, args.clock)
        done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
        if done.returncode != 0:
            raise SystemExit(f"engine.py: measuring {root} failed:\n{done.stderr[-2000:]}")
        numbers[name] = then.numbers_of(done.stdout)
    this, earlier = numbers["this"], numbers["then"]
    numbers["neolithibum_decisions_ratio"] = (
        this["neolithibum_decisions_per_s"] / earlier["neolithibum_decisions_per_s"]
    )
    numbers["neolithibum_games_ratio"] = this["neolithibum_games_per_s"] / earlier["neolithibum_games_per_s"]
    numbers["greedy_ratio"] = earlier["greedy_ms_a_decision"] / this["greedy_ms_a_decision"]
    return numbers


def against_text(numbers: dict, then_name) -> str:
    this, then = numbers["this"], numbers["then"]
    return (
        f"against {then_name}: Neolithibum {this['neolithibum_decisions_per_s']:,.0f} against "
        f"{then['neolithibum_decisions_per_s']:,.0f} decisions/s ({numbers['neolithibum_decisions_ratio']:.2f}x), "
        f"{this['neolithibum_games_per_s']:.2f} against {then['neolithibum_games_per_s']:.2f} games/s "
        f"({this['neolithibum_decisions_a_game']:.0f} and {then['neolithibum_decisions_a_game']:.0f} decisions a game: "
        f"{numbers['neolithibum_games_ratio']:.2f}x); greedy {this['greedy_ms_a_decision']:.2f} against "
        f"{then['greedy_ms_a_decision']:.2f} ms a decision ({numbers['greedy_ratio']:.2f}x faster)"
    )


def one_round(number, args, cro, neo, pack, samples, stone=None):
    seconds, decisions = engine_games(cro, 4, args.engine_games)
    engine = {
        "games_per_s": args.engine_games / seconds,
        "decisions_per_s": decisions / seconds,
        "decisions_a_game": decisions / args.engine_games,
    }
    seconds, decisions = handcoded_games(pack, 4, args.hand_games)
    written = {
        "games_per_s": args.hand_games / seconds,
        "decisions_per_s": decisions / seconds,
        "decisions_a_game": decisions / args.hand_games,
    }
    seconds, decisions = engine_games(neo, 4, args.neo_games)
    stone_s = engine_games(stone, 4, args.stone_games)[0] if stone is not None and args.stone_games else None
    greedy_s = greedy_decisions(cro, 4, args.greedy_decisions)
    clone, deep = timed_copies(samples, rounds=5)
    row = {
        "round": number,
        "engine": engine,
        "handcoded": written,
        "ratio_per_game": written["games_per_s"] / engine["games_per_s"],
        "ratio_per_decision": written["decisions_per_s"] / engine["decisions_per_s"],
        "neolithibum_games_per_s": args.neo_games / seconds,
        "neolithibum_decisions_a_game": decisions / args.neo_games,
        "neolithibum_decisions_per_s": decisions / seconds,
        "stone_age_games_per_s": args.stone_games / stone_s if stone_s else None,
        "greedy_decisions_per_s": args.greedy_decisions / greedy_s,
        "greedy_ms_a_decision": greedy_s / args.greedy_decisions * 1e3,
        "clone_ratio": clone / deep,
    }
    stone_text = f"Stone Age {row['stone_age_games_per_s']:.2f} games/s | " if stone_s else ""
    print(
        f"round {number}: engine {engine['games_per_s']:.1f} games/s, {engine['decisions_per_s']:,.0f} dec/s "
        f"({engine['decisions_a_game']:.0f} a game) | hand-written {written['games_per_s']:.0f} games/s, "
        f"{written['decisions_per_s']:,.0f} dec/s ({written['decisions_a_game']:.0f} a game) | "
        f"ratio {row['ratio_per_game']:.1f}x per game, {row['ratio_per_decision']:.1f}x per decision | "
        f"Neolithibum {row['neolithibum_games_per_s']:.2f} games/s ({row['neolithibum_decisions_a_game']:.0f} "
        f"decisions a game) | {stone_text}greedy "
        f"{row['greedy_decisions_per_s']:.0f} dec/s ({row['greedy_ms_a_decision']:.1f} ms) | "
        f"clone/deepcopy {row['clone_ratio']:.3f}",
        flush=True,
    )
    if args.against:
        row["against"] = against_round(args)
        print("         " + against_text(row["against"], args.against), flush=True)
    return row


def median_of(rows, *path):
    values = []
    for row in rows:
        for key in path:
            row = row[key]
        values.append(row)
    return statistics.median(values)


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def memory_per_game(rules, games):
    """Resident memory after each quarter of `games` random games (after a full collection): flat when the
    runtime keeps nothing from one game to the next."""
    gc.collect()
    marks = [rss_bytes()]
    quarter = max(1, games // 4)
    for seed in range(4 * quarter):
        play(rules, 4, 50_000 + seed)
        if (seed + 1) % quarter == 0:
            gc.collect()
            marks.append(rss_bytes())
    growth = [(b - a) / quarter for a, b in itertools.pairwise(marks)]
    return {
        "games": 4 * quarter,
        "rss_mb": [m / 2**20 for m in marks],
        "bytes_a_game_by_quarter": growth,
        "flat": growth[-1] <= 1024 and growth[-2] <= 1024,
    }


def pin_to_one_core(core):
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    core = allowed[0] if core is None or core not in allowed else core
    os.sched_setaffinity(0, {core})
    return core


def main():
    parser = argparse.ArgumentParser(description="Engine speed against a hand-written Cro-Magnon (issue 16).")
    parser.add_argument("pack", nargs="?", default="cro-magnon")
    parser.add_argument("--games", type=int, default=100, help="games of PACK in the first section")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the comparison")
    parser.add_argument("--engine-games", type=int, default=30, help="engine Cro-Magnon games a round")
    parser.add_argument("--hand-games", type=int, default=300, help="hand-written Cro-Magnon games a round")
    parser.add_argument("--neo-games", type=int, default=5, help="Neolithibum games a round")
    parser.add_argument("--stone-games", type=int, default=3, help="Stone Age games a round (0: skip)")
    parser.add_argument("--greedy-decisions", type=int, default=100, help="greedy answers a round")
    parser.add_argument("--memory-games", type=int, default=400, help="games for the memory trend (0: skip)")
    parser.add_argument("--core", type=int, default=None, help="the core to run on (default: the first allowed)")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="time by the process's CPU time (default) or by the wall clock",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small counts, for a smoke run (the targets are judged at the default sizes)",
    )
    parser.add_argument(
        "--against",
        type=Path,
        metavar="DIR",
        help="another checkout (e.g. `git worktree add ../then 9c282aa`, the engine of the day issue 16 was filed): its "
        "Neolithibum and greedy speed measured in each round beside this one's, with the ratios; `--against source`: "
        "this checkout's runtime run as Python source (KNAPPER_PURE_PYTHON), against it compiled (hatch_build.py)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write every number to FILE")
    args = parser.parse_args()
    if args.quick:
        args.games, args.engine_games, args.hand_games, args.neo_games, args.stone_games = 5, 3, 30, 2, 1
        args.greedy_decisions, args.memory_games = 10, 8
    global clock
    clock = CLOCKS[args.clock]
    core = pin_to_one_core(args.core)
    print(
        f"one process on core {core}, timed by the {args.clock} clock; load average {os.getloadavg()[0]:.1f} "
        f"(other work on the machine slows every number down); {runtime_text()}"
    )
    report = {"core": core, "clock": args.clock, "load_average": os.getloadavg()[0], "first": legacy(args)}

    cro = rules_module.load(ROOT / "content" / "cro-magnon")
    neo = rules_module.load(ROOT / "content" / "neolithibum")
    stone = rules_module.load(ROOT / "content" / "stone-age")
    pack = handcoded.Pack()
    samples = []
    play(cro, 4, 10_000, samples)
    engine_games(neo, 4, 1)
    engine_games(stone, 4, 1)
    handcoded_games(pack, 4, 10)
    print(
        f"\n{args.rounds} interleaved rounds, random 4-player games: {args.engine_games} engine and "
        f"{args.hand_games} hand-written Cro-Magnon, {args.neo_games} Neolithibum, {args.stone_games} Stone Age; "
        f"{args.greedy_decisions} greedy answers (Cro-Magnon); games in bulk as `knap sim` plays them (collector.py)"
    )
    with bulk_play():  # both sides of the comparison, the hand-written program too
        rows = [one_round(number, args, cro, neo, pack, samples, stone) for number in range(1, args.rounds + 1)]
    medians = {
        "engine_games_per_s": median_of(rows, "engine", "games_per_s"),
        "engine_decisions_per_s": median_of(rows, "engine", "decisions_per_s"),
        "engine_decisions_a_game": median_of(rows, "engine", "decisions_a_game"),
        "handcoded_games_per_s": median_of(rows, "handcoded", "games_per_s"),
        "handcoded_decisions_per_s": median_of(rows, "handcoded", "decisions_per_s"),
        "handcoded_decisions_a_game": median_of(rows, "handcoded", "decisions_a_game"),
        "ratio_per_game": median_of(rows, "ratio_per_game"),
        "ratio_per_decision": median_of(rows, "ratio_per_decision"),
        "neolithibum_games_per_s": median_of(rows, "neolithibum_games_per_s"),
        "stone_age_games_per_s": median_of(rows, "stone_age_games_per_s") if args.stone_games else None,
        "greedy_decisions_per_s": median_of(rows, "greedy_decisions_per_s"),
        "greedy_ms_a_decision": median_of(rows, "greedy_ms_a_decision"),
        "clone_ratio": median_of(rows, "clone_ratio"),
    }
    m = medians
    print(
        f"median: Cro-Magnon engine {m['engine_games_per_s']:.1f} games/s, {m['engine_decisions_per_s']:,.0f} "
        f"decisions/s ({m['engine_decisions_a_game']:.0f} a game); hand-written {m['handcoded_games_per_s']:.0f} "
        f"games/s, {m['handcoded_decisions_per_s']:,.0f} decisions/s ({m['handcoded_decisions_a_game']:.0f} a game)"
    )
    print(
        f"median: the engine is {m['ratio_per_game']:.1f}x slower per game and {m['ratio_per_decision']:.1f}x "
        f"per decision (targets: <= 10x and <= 5x"
        + (", judged at the default sizes: this --quick run only smoke-tests)" if args.quick else ")")
    )
    if m["stone_age_games_per_s"]:
        print(f"median: Stone Age {m['stone_age_games_per_s']:.2f} games/s (4 players)")
    print(
        f"median: Neolithibum {m['neolithibum_games_per_s']:.2f} games/s; greedy {m['greedy_decisions_per_s']:.0f} "
        f"decisions/s ({m['greedy_ms_a_decision']:.1f} ms a decision); clone/deepcopy {m['clone_ratio']:.3f} "
        f"(target <= 0.1)"
    )
    if args.against:
        ratios = {
            key: median_of(rows, "against", key)
            for key in ("neolithibum_decisions_ratio", "neolithibum_games_ratio", "greedy_ratio")
        }
        medians["against"] = ratios
        print(
            f"median against {args.against}: Neolithibum {ratios['neolithibum_decisions_ratio']:.2f}x its decisions/s "
            f"and {ratios['neolithibum_games_ratio']:.2f}x its games/s; greedy {ratios['greedy_ratio']:.2f}x faster"
            + (
                " (what compiling the runtime gains)"
                if str(args.against) == AGAINST_SOURCE
                else " (targets, against the engine of the day issue 16 was filed: >= 5x, >= 5x)"
            )
        )
    report.update(rounds=rows, median=medians)
    if args.memory_games > 0:
        memory = memory_per_game(cro, args.memory_games)
        report["memory"] = memory
        print(
            f"memory: resident {' -> '.join(f'{mb:.1f}' for mb in memory['rss_mb'])} MB over "
            f"{memory['games']} games (each quarter: "
            f"{', '.join(f'{b / 1024:+.1f}' for b in memory['bytes_a_game_by_quarter'])} KiB a game): "
            f"{'flat' if memory['flat'] else 'growing'}"
        )
    report["load_average_at_end"] = os.getloadavg()[0]
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        print(f"numbers written to {args.json}")


if __name__ == "__main__":
    main()
