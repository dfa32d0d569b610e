"""Many games for balance: seeded, in parallel, summarised with confidence intervals.

Game `i` uses seed `seed + i` whatever the number of workers, so a summary is reproducible.
"""
from __future__ import annotations

import math
import os
import statistics
from collections import Counter

from . import agents as agent_table
from .game import Game
from .session import game_log, play_out

STALLED = "turn_limit"   # the reason a game capped at --max-rounds ends with

_RULES = None   # the pack, shared with forked workers


def _one(args):
    index, seed, players, names, max_rounds, keep_logs = args
    seats = [agent_table.make(names[i % len(names)], seed * 31 + i) for i in range(players)]
    game = Game.new(_RULES, players, seed, max_rounds=max_rounds)
    try:
        play_out(game, seats)
    except Exception as exc:  # noqa: BLE001 -- one broken game is counted and reported, not fatal
        outcome = {"index": index, "seed": seed, "error": _RULES.describe(exc)}
        if keep_logs:
            outcome["log"] = game_log(game, agents=names)
        return outcome
    result = game.state["result"]
    outcome = {"index": index, "seed": seed, "winners": result["winners"], "scores": result["scores"],
               "reason": result["reason"], "turns": result["turns"], "decisions": len(game.state["history"])}
    if keep_logs and result["reason"] == STALLED:
        outcome["log"] = game_log(game, agents=names)
    return outcome


def run(rules, games: int, players: int, names: list[str], seed: int = 0, jobs: int | None = None,
        max_rounds: int = 500, progress=None, logs_dir=None) -> dict:
    """Play `games` games; with `logs_dir`, the logs of stalled games and of games that ended in an
    error are written there (`seed-N.json`), so that `knap replay` shows exactly what happened."""
    global _RULES
    _RULES = rules
    work = [(i, seed + i, players, names, max_rounds, logs_dir is not None) for i in range(games)]
    jobs = jobs or os.cpu_count() or 1
    results = []
    if jobs > 1 and games > 1:
        import multiprocessing
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for outcome in pool.imap_unordered(_one, work, chunksize=max(1, min(16, games // (jobs * 8) or 1))):
                results.append(outcome)
                if progress:
                    progress()
    else:
        for item in work:
            results.append(_one(item))
            if progress:
                progress()
    results.sort(key=lambda r: r["index"])
    if logs_dir is not None:
        import json
        from pathlib import Path
        Path(logs_dir).mkdir(parents=True, exist_ok=True)
        for outcome in results:
            if "log" in outcome:
                path = Path(logs_dir) / f"seed-{outcome['seed']}.json"
                path.write_text(json.dumps(outcome.pop("log"), indent=1) + "\n", encoding="utf-8")
    return summarise(rules, results, players, names, seed)


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a rate (sound for rates near 0 or 1, unlike p ± 2σ)."""
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _spread(values):
    if not values:
        return {}
    ordered = sorted(values)
    return {"mean": round(statistics.fmean(values), 2), "sd": round(statistics.pstdev(values), 2),
            "min": ordered[0], "median": ordered[len(ordered) // 2], "max": ordered[-1]}


def summarise(rules, results, players, names, seed) -> dict:
    done = [r for r in results if "error" not in r]
    errors = [r for r in results if "error" in r]
    seats = [f"P{i}" for i in range(1, players + 1)]
    seat_rows = []
    agent_wins: Counter = Counter()
    agent_games: Counter = Counter()
    for i, seat in enumerate(seats):
        agent = names[i % len(names)]
        wins = sum(1 / len(r["winners"]) for r in done if seat in r["winners"])
        low, high = wilson(wins, len(done))
        scores = [r["scores"].get(seat, 0) for r in done if r["scores"]]
        seat_rows.append({"seat": seat, "agent": agent, "wins": round(wins, 2),
                          "win_rate": round(wins / len(done), 4) if done else 0.0,
                          "ci95": [round(low, 4), round(high, 4)], "score": _spread(scores)})
        agent_wins[agent] += wins
        agent_games[agent] += len(done)
    per_agent = {}
    for agent in agent_games:
        low, high = wilson(agent_wins[agent], agent_games[agent])
        per_agent[agent] = {"seat_games": agent_games[agent], "wins": round(agent_wins[agent], 2),
                            "win_rate": round(agent_wins[agent] / agent_games[agent], 4) if agent_games[agent]
                            else 0.0, "ci95": [round(low, 4), round(high, 4)]}
    all_scores = Counter(v for r in done for v in (r["scores"] or {}).values())
    return {
        "pack": rules.pack_id, "players": players, "agents": [names[i % len(names)] for i in range(players)],
        "seed": seed, "games": len(results), "played": len(done), "errors": len(errors),
        "score_counter": rules.score_counter, "seats": seat_rows, "per_agent": per_agent,
        "score_distribution": {str(k): all_scores[k] for k in sorted(all_scores)},
        "turns": _spread([r["turns"] for r in done]), "decisions": _spread([r["decisions"] for r in done]),
        "endings": dict(Counter(r["reason"] for r in done)),
        "stalled": {"count": sum(1 for r in done if r["reason"] == STALLED),
                    "seeds": [r["seed"] for r in done if r["reason"] == STALLED][:50]},
        "error_samples": [{"seed": r["seed"], "error": r["error"]} for r in errors[:10]],
    }
