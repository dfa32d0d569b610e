"""Many games for balance: seeded, in parallel, summarised with confidence intervals.

Game `i` uses seed `seed + i` whatever the number of workers, so a summary is reproducible.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import statistics
from collections import Counter

from . import agents as agent_table
from .budget import MAX_ANSWERS_PER_TURN
from .collector import bulk_play
from .game import Game, Stalled
from .session import game_log, imagined_in, play_out, write_logs

STALLED = "turn_limit"  # the reason a game capped at --max-rounds ends with

_RULES = None  # the pack, shared with forked workers


def _one(args):
    index, seed, players, names, max_rounds, max_answers, keep_logs = args
    seats = [agent_table.make(names[i % len(names)], seed * 31 + i) for i in range(players)]
    game = None
    try:
        game = Game.new(_RULES, players, seed, max_rounds=max_rounds, max_answers_per_turn=max_answers)
        play_out(game, seats)
    except Stalled as exc:  # a turn that never ends: reported with the seed, like a capped game
        outcome = {
            "index": index,
            "seed": seed,
            "stalled": str(exc),
            "code": exc.code,
            "turns": exc.turn,
            "decisions": len(game.history),
        }
        if keep_logs:
            outcome["log"] = game_log(game, agents=names)
        return outcome
    except Exception as exc:  # noqa: BLE001 -- one broken game is counted and reported, not fatal
        outcome = {
            "index": index,
            "seed": seed,
            "error": imagined_in(exc) + _RULES.describe(exc),
            "code": getattr(exc, "code", None),
        }
        if keep_logs and game is not None:
            outcome["log"] = game_log(game, agents=names)
        return outcome
    result = game.result
    outcome = {
        "index": index,
        "seed": seed,
        "winners": result["winners"],
        "scores": result["scores"],
        "reason": result["reason"],
        "turns": result["turns"],
        "decisions": len(game.history),
    }
    if keep_logs and result["reason"] == STALLED:
        outcome["log"] = game_log(game, agents=names)
    return outcome


def run(
    rules,
    games: int,
    players: int,
    names: list[str],
    seed: int = 0,
    jobs: int | None = None,
    max_rounds: int = 500,
    progress=None,
    logs_dir=None,
    max_answers_per_turn: int = MAX_ANSWERS_PER_TURN,
) -> dict:
    """Play `games` games; with `logs_dir`, the logs of stalled games and of games that ended in an
    error are written there (`seed-N.json`), so that `knap replay` shows exactly what happened. A game
    stalls when it reaches `max_rounds` (it is scored as it stands) or when one turn goes on for more than
    `max_answers_per_turn` answers (it stops there, unscored)."""
    results = _play(rules, games, players, names, seed, jobs, max_rounds, progress, logs_dir, max_answers_per_turn)
    return summarise(rules, results, players, names, seed)


def _play(
    rules, games, players, names, seed, jobs, max_rounds, progress, logs_dir, max_answers_per_turn=MAX_ANSWERS_PER_TURN
) -> list[dict]:
    """The outcome of each game, in seed order. One pack at a time: forked workers read `_RULES`."""
    global _RULES
    _RULES = rules
    work = [(i, seed + i, players, names, max_rounds, max_answers_per_turn, logs_dir is not None) for i in range(games)]
    jobs = jobs or os.cpu_count() or 1
    results = []
    with bulk_play():  # the pack is left out of the collector's walks, in this process and the forked workers
        if jobs > 1 and games > 1:
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
        write_logs(logs_dir, results)  # a log that cannot be written is noted (`log_error`), not fatal
    return results


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a rate (sound for rates near 0 or 1, unlike p ± 2σ)."""
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _mean(values) -> float | None:
    """The mean, or None when the numbers are too large for a float (a content bug shows elsewhere)."""
    try:
        return statistics.fmean(values)
    except OverflowError:
        return None


def _spread(values):
    if not values:
        return {}
    ordered = sorted(values)
    try:
        mean, sd = round(statistics.fmean(values), 2), round(statistics.pstdev(values), 2)
    except OverflowError:  # numbers beyond a float: the exact ones are still shown
        mean = sd = None
    return {"mean": mean, "sd": sd, "min": ordered[0], "median": _median(ordered), "max": ordered[-1]}


def _median(ordered: list[int]) -> int | float:
    """The middle value, or the mean of the two middle values of an even count (as `statistics.median`),
    whole when it is whole; exact for numbers too large for a float."""
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    total = ordered[middle - 1] + ordered[middle]
    if total % 2 == 0:
        return total // 2
    try:
        return total / 2
    except OverflowError:
        return total // 2


def _stalls(results, done) -> dict:
    """Games capped at the round limit (scored as they stood) and games stopped in a turn that never ended."""
    seeds = sorted([r["seed"] for r in done if r["reason"] == STALLED] + [r["seed"] for r in results if "stalled" in r])
    return {"count": len(seeds), "seeds": seeds[:50]}


def _win_rate(wins: float, games: int) -> dict:
    """Wins out of games, their rate and its 95 % Wilson interval, as the summary reports each."""
    low, high = wilson(wins, games)
    return {
        "wins": round(wins, 2),
        "win_rate": round(wins / games, 4) if games else 0.0,
        "ci95": [round(low, 4), round(high, 4)],
    }


def summarise(rules, results, players, names, seed) -> dict:
    done = [r for r in results if "error" not in r and "stalled" not in r]
    errors = [r for r in results if "error" in r]
    stuck = [r for r in results if "stalled" in r]
    seats = [f"P{i}" for i in range(1, players + 1)]
    seat_rows = []
    agent_wins: Counter = Counter()
    agent_games: Counter = Counter()
    for i, seat in enumerate(seats):
        agent = names[i % len(names)]
        wins = sum(1 / len(r["winners"]) for r in done if seat in r["winners"])
        scores = [r["scores"].get(seat, 0) for r in done if r["scores"]]
        seat_rows.append({"seat": seat, "agent": agent, **_win_rate(wins, len(done)), "score": _spread(scores)})
        agent_wins[agent] += wins  # type: ignore[assignment]  # a Counter of wins that may be fractions (ties)
        agent_games[agent] += len(done)
    per_agent = {}
    for agent in agent_games:
        per_agent[agent] = {"seat_games": agent_games[agent], **_win_rate(agent_wins[agent], agent_games[agent])}
    all_scores = Counter(v for r in done for v in (r["scores"] or {}).values())
    # one team: a game is won by all or by none, so the seats' split shares say little
    team = _win_rate(sum(1 for r in done if r["winners"]), len(done)) if rules.cooperative else None
    return {
        "pack": rules.pack_id,
        "players": players,
        "agents": [names[i % len(names)] for i in range(players)],
        "seed": seed,
        "games": len(results),
        "played": len(done),
        "errors": len(errors),
        "score_counter": rules.score_counter,
        "seats": seat_rows,
        "per_agent": per_agent,
        "team": team,
        "score_distribution": {str(k): all_scores[k] for k in sorted(all_scores)},
        "turns": _spread([r["turns"] for r in done]),
        "decisions": _spread([r["decisions"] for r in done]),
        "length_unit": "rounds" if rules.in_rounds else "turns",  # what `turns` counts
        "endings": dict(Counter(r["reason"] for r in done)),
        "stalled": _stalls(results, done),
        "stall_samples": [{"seed": r["seed"], "code": r.get("code"), "why": r["stalled"]} for r in stuck[:10]],
        "error_samples": [{"seed": r["seed"], "code": r.get("code") or None, "error": r["error"]} for r in errors[:10]],
        "log_errors": [r["log_error"] for r in results if "log_error" in r],
    }


# --- two variants side by side ---------------------------------------------------------------------------


def newcombe(
    successes_a: float, n_a: int, successes_b: float, n_b: int, z: float = 1.96
) -> tuple[float, float, float] | None:
    """The difference of two rates, B − A, with its 95 % interval: Newcombe's hybrid score interval.

    With p_a = successes_a / n_a, p_b = successes_b / n_b and their Wilson intervals [l_a, u_a] and
    [l_b, u_b] (see `wilson`), the difference d = p_b − p_a has the interval

        lower = d − sqrt((p_b − l_b)² + (u_a − p_a)²)
        upper = d + sqrt((u_b − p_b)² + (p_a − l_a)²)

    (Newcombe 1998, "Interval estimation for the difference between independent proportions", method 10:
    each side takes the distance from each rate to the near end of its own Wilson interval.) It behaves
    near 0 and 1 where the textbook d ± z·sqrt(p_a·q_a/n_a + p_b·q_b/n_b) gives nonsense, and it stays
    within [−1, 1]. Returns (d, lower, upper), or None when either side has no trials (n = 0): nothing
    can be said about a rate without trials.
    """
    if n_a <= 0 or n_b <= 0:
        return None
    p_a, p_b = successes_a / n_a, successes_b / n_b
    low_a, high_a = wilson(successes_a, n_a, z)
    low_b, high_b = wilson(successes_b, n_b, z)
    d = p_b - p_a
    lower = d - math.sqrt((p_b - low_b) ** 2 + (high_a - p_a) ** 2)
    upper = d + math.sqrt((high_b - p_b) ** 2 + (p_a - low_a) ** 2)
    return d, max(-1.0, lower), min(1.0, upper)


def mean_difference(values_a: list[float], values_b: list[float], z: float = 1.96) -> tuple[float, float, float] | None:
    """The difference of two means, B − A, with its 95 % interval from the normal approximation and
    Welch's standard error (the two samples may have different spreads and sizes):

        d = mean_b − mean_a,   se = sqrt(s_a² / n_a + s_b² / n_b),   interval d ± z·se

    where s is the sample standard deviation (divisor n − 1). With hundreds of games the normal
    approximation is close to Welch's t. Returns (d, lower, upper), or None when either side has fewer
    than 2 values (no spread to estimate).
    """
    if len(values_a) < 2 or len(values_b) < 2:
        return None
    d = statistics.fmean(values_b) - statistics.fmean(values_a)
    se = math.sqrt(statistics.variance(values_a) / len(values_a) + statistics.variance(values_b) / len(values_b))
    return d, d - z * se, d + z * se


def _estimate(estimate) -> dict:
    if estimate is None:
        return {"difference": None, "ci95": None, "significant": False}
    d, low, high = estimate
    return {"difference": round(d, 4), "ci95": [round(low, 4), round(high, 4)], "significant": low > 0 or high < 0}


def _rate(successes: float, n: int) -> dict:
    low, high = wilson(successes, n)
    return {
        "successes": round(successes, 2),
        "n": n,
        "rate": round(successes / n, 4) if n else None,
        "ci95": [round(low, 4), round(high, 4)],
    }


def _rates(successes_a, n_a, successes_b, n_b) -> dict:
    return {
        "a": _rate(successes_a, n_a),
        "b": _rate(successes_b, n_b),
        **_estimate(newcombe(successes_a, n_a, successes_b, n_b)),
    }


def _sample(values) -> dict:
    return {
        "n": len(values),
        "mean": round(statistics.fmean(values), 4) if values else None,
        "sd": round(statistics.stdev(values), 4) if len(values) > 1 else None,
    }


def _means(values_a, values_b) -> dict:
    row = {"a": _sample(values_a), "b": _sample(values_b), **_estimate(mean_difference(values_a, values_b))}
    if row["difference"] is None and values_a and values_b:  # a difference, but no spread to bound it
        row["difference"] = round(statistics.fmean(values_b) - statistics.fmean(values_a), 4)
    return row


def _counts(a: int, b: int) -> dict:
    return {"a": a, "b": b, "difference": b - a}


def differences(rules_a, results_a, rules_b, results_b, players: int, names: list[str]) -> dict:
    """B compared with A, from the outcomes of the same seeds: win rate per seat (shared wins split, as in
    `summarise`) and game length in turns, each with the 95 % interval of B − A; the final score (the mean
    over players of each game's final score counter, when both packs have one) or, when either has none,
    the share of games with at least one winner; how games ended, stalls and errors as counts. Only played
    games (not those that ended in an error) enter rates and means. `significant` means that the
    interval of B − A excludes 0."""
    done_a = [r for r in results_a if "error" not in r and "stalled" not in r]
    done_b = [r for r in results_b if "error" not in r and "stalled" not in r]
    seats = []
    for i in range(players):
        seat = f"P{i + 1}"
        wins_a = sum(1 / len(r["winners"]) for r in done_a if seat in r["winners"])
        wins_b = sum(1 / len(r["winners"]) for r in done_b if seat in r["winners"])
        seats.append({"seat": seat, "agent": names[i % len(names)], **_rates(wins_a, len(done_a), wins_b, len(done_b))})
    counter_a, counter_b = rules_a.score_counter, rules_b.score_counter
    if counter_a and counter_b:

        def per_game(done):
            means = [_mean(r["scores"].values()) for r in done if r["scores"]]
            return [m for m in means if m is not None]

        final = {"measure": "mean_score", **_means(per_game(done_a), per_game(done_b))}
    else:
        final = {
            "measure": "any_winner",
            **_rates(
                sum(1 for r in done_a if r["winners"]), len(done_a), sum(1 for r in done_b if r["winners"]), len(done_b)
            ),
        }
    final["counter"] = {"a": counter_a, "b": counter_b}
    endings_a = Counter(r["reason"] for r in done_a)
    endings_b = Counter(r["reason"] for r in done_b)
    reasons = sorted(set(endings_a) | set(endings_b), key=str)
    first = min((r["seed"] for r in [*results_a, *results_b]), default=None)
    last = max((r["seed"] for r in [*results_a, *results_b]), default=None)
    return {
        "packs": {
            "a": {"id": rules_a.pack_id, "path": str(rules_a.root)},
            "b": {"id": rules_b.pack_id, "path": str(rules_b.root)},
        },
        "players": players,
        "agents": [names[i % len(names)] for i in range(players)],
        "seeds": [first, last],
        "seats": seats,
        "turns": _means([r["turns"] for r in done_a], [r["turns"] for r in done_b]),
        "final": final,
        "endings": {str(reason): _counts(endings_a[reason], endings_b[reason]) for reason in reasons},
        "stalled": _counts(_stalls(results_a, done_a)["count"], _stalls(results_b, done_b)["count"]),
        "errors": _counts(sum("error" in r for r in results_a), sum("error" in r for r in results_b)),
    }


def compare(
    rules_a,
    rules_b,
    games: int,
    players: int,
    names: list[str],
    seed: int = 0,
    jobs: int | None = None,
    max_rounds: int = 500,
    progress=None,
    logs_dir=None,
    max_answers_per_turn: int = MAX_ANSWERS_PER_TURN,
) -> dict:
    """Play both packs with the same seeds (`seed` … `seed + games − 1`), agents and player count, one pack
    after the other (forked workers read the pack from a module global), and compare them:
    `{"a": summary A, "b": summary B, "differences": ...}` (see `summarise` and `differences`).
    `progress`, when given, is called with "a" or "b" after each game; with `logs_dir`, the logs of
    stalled games and of games that ended in an error go to `logs_dir/a` and `logs_dir/b`."""
    outcomes = {}
    for side, rules in (("a", rules_a), ("b", rules_b)):
        tick = (lambda side=side: progress(side)) if progress else None
        folder = None if logs_dir is None else os.path.join(logs_dir, side)
        outcomes[side] = _play(rules, games, players, names, seed, jobs, max_rounds, tick, folder, max_answers_per_turn)
    return {
        "a": summarise(rules_a, outcomes["a"], players, names, seed),
        "b": summarise(rules_b, outcomes["b"], players, names, seed),
        "differences": differences(rules_a, outcomes["a"], rules_b, outcomes["b"], players, names),
    }
