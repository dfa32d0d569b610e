"""Many games for balance: seeded, in parallel, summarised with confidence intervals.

Game `i` uses seed `seed + i` whatever the number of workers, so a summary is reproducible.
"""

from __future__ import annotations

import heapq
import math
import multiprocessing
import os
import signal
import statistics
from collections import Counter
from collections.abc import Generator, Iterable
from fractions import Fraction

from . import agents as agent_table
from .budget import MAX_ANSWERS_PER_TURN
from .collector import bulk_play
from .game import Game, Stalled
from .records import GameRecorder
from .session import game_log, imagined_in, play_out, write_logs

STALLED = "turn_limit"  # the reason a game capped at --max-rounds ends with

_RULES = None  # the pack, shared with forked workers


def _one(args):
    """One game's outcome. `record` (a run kept in a folder): the outcome also holds the agents by seat and what
    `GameRecorder` gathers, which costs a little at every answer, so only such runs pay for it."""
    index, seed, players, names, max_rounds, max_answers, keep_logs, record = args
    seats = [agent_table.make(names[i % len(names)], seed * 31 + i) for i in range(players)]
    game = None
    recorder = None
    try:
        game = Game.new(_RULES, players, seed, max_rounds=max_rounds, max_answers_per_turn=max_answers)
        if record:
            recorder = GameRecorder(game)
            play_out(game, seats, on_step=recorder.step)
        else:
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
        return _recorded(outcome, game, recorder, names, players) if record else outcome
    except Exception as exc:  # noqa: BLE001 -- one broken game is counted and reported, not fatal
        outcome = {
            "index": index,
            "seed": seed,
            "error": imagined_in(exc) + _RULES.describe(exc),
            "code": getattr(exc, "code", None),
        }
        if keep_logs and game is not None:
            outcome["log"] = game_log(game, agents=names)
        return _recorded(outcome, game, recorder, names, players) if record else outcome
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
    return _recorded(outcome, game, recorder, names, players) if record else outcome


def _recorded(outcome: dict, game, recorder, names, players) -> dict:
    """The outcome as a run's record keeps it: the agents by seat, and the recorder's keys when the game was made
    (a game whose setup failed has none). A recorder that fails leaves `record_error` instead: never a lost run."""
    outcome["agents"] = [names[i % len(names)] for i in range(players)]
    if recorder is not None:
        try:
            outcome.update(recorder.finish(game))
        except Exception as exc:  # noqa: BLE001 -- a record's extras never stop a run
            outcome.setdefault("record_error", f"{type(exc).__name__}: {exc}")
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
    """The outcome of each game, in seed order."""
    results = []
    keep_logs = logs_dir is not None
    for outcome in stream(
        rules, range(games), players, names, seed, jobs, max_rounds, max_answers_per_turn, keep_logs=keep_logs
    ):
        results.append(outcome)
        if progress:
            progress()
    results.sort(key=lambda r: r["index"])
    if logs_dir is not None:
        write_logs(logs_dir, results)  # a log that cannot be written is noted (`log_error`), not fatal
    return results


def stream(
    rules,
    indices: Iterable[int],
    players: int,
    names: list[str],
    seed: int,
    jobs: int | None,
    max_rounds: int,
    max_answers_per_turn: int = MAX_ANSWERS_PER_TURN,
    *,
    keep_logs: bool = False,
    record: bool = False,
    count: int | None = None,
) -> Generator[dict, None, None]:
    """The outcomes of the games `indices` names (game i plays seed + i) as they finish, so that a caller may keep
    none of them: in finishing order with several workers. `indices` is read as the workers need it; `count`, how
    many it names (its length by default), sizes their chunks. One pack at a time: forked workers read `_RULES`."""
    global _RULES
    _RULES = rules
    if count is None:
        count = len(indices)  # type: ignore[arg-type]  # a sized iterable when no count is given
    work = ((i, seed + i, players, names, max_rounds, max_answers_per_turn, keep_logs, record) for i in indices)
    jobs = jobs or os.cpu_count() or 1
    with bulk_play():  # the pack is left out of the collector's walks, in this process and the forked workers
        if jobs > 1 and count > 1:
            with multiprocessing.get_context("fork").Pool(jobs, initializer=_leave_interrupts) as pool:
                yield from pool.imap_unordered(_one, work, chunksize=max(1, min(16, count // (jobs * 8) or 1)))
        else:
            for item in work:
                yield _one(item)


def _leave_interrupts() -> None:
    """In a worker: Ctrl-C is the driver's to handle (it stops the pool); a worker would die with a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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


def _spread(values) -> dict:
    """Mean, standard deviation, min, median and max of the values (a list, or a Counter: value -> how often),
    exactly as `statistics.fmean`, `statistics.pstdev` and sorting the values one by one give them."""
    counts = values if isinstance(values, Counter) else Counter(values)
    if not counts:
        return {}
    ordered = sorted(counts)
    mean: float | None
    sd: float | None
    try:
        mean, sd = round(_counted_mean(counts), 2), round(_counted_pstdev(counts), 2)
    except OverflowError:  # numbers beyond a float: the exact ones are still shown
        mean = sd = None
    return {"mean": mean, "sd": sd, "min": ordered[0], "median": _counted_median(ordered, counts), "max": ordered[-1]}


def _counted_mean(counts: Counter) -> float:
    """`statistics.fmean` of the values: the sum of each as a float, correctly rounded (as `math.fsum`), over n."""
    total = sum(Fraction(float(value)) * times for value, times in counts.items())
    return float(total) / sum(counts.values())


def _counted_pstdev(counts: Counter) -> float:
    """`statistics.pstdev` of the values: the exact population variance, its square root correctly rounded."""
    n = sum(counts.values())
    sx = sum(Fraction(value) * times for value, times in counts.items())
    sxx = sum(Fraction(value) ** 2 * times for value, times in counts.items())
    variance = Fraction(n * sxx - sx * sx, n) / n
    return _float_sqrt_of_frac(variance.numerator, variance.denominator)


def _float_sqrt_of_frac(n: int, m: int) -> float:
    """The square root of n/m as a float, correctly rounded: the standard library's own (statistics.py, Python
    3.11+), which `pstdev` uses and does not export; see https://bugs.python.org/msg407078."""
    q = (n.bit_length() - m.bit_length() - 109) // 2  # 109: twice a double's 53 bits of mantissa, plus 3
    if q >= 0:
        numerator = _isqrt_frac_rto(n, m << 2 * q) << q
        denominator = 1
    else:
        numerator = _isqrt_frac_rto(n << -2 * q, m)
        denominator = 1 << -q
    return numerator / denominator


def _isqrt_frac_rto(n: int, m: int) -> int:
    """The square root of n/m rounded to an integer, to odd."""
    a = math.isqrt(n // m)
    return a | (a * a * m != n)


def _counted_median(ordered: list, counts: Counter) -> int | float:
    """The middle value, or the mean of the two middle values of an even count (as `statistics.median`), whole
    when it is whole and exact for numbers too large for a float; found by walking the distinct values."""
    n = sum(counts.values())
    wanted = [n // 2] if n % 2 else [n // 2 - 1, n // 2]  # positions in the values sorted one by one
    found, seen = [], 0
    for value in ordered:
        seen += counts[value]
        while wanted and wanted[0] < seen:
            found.append(value)
            wanted.pop(0)
        if not wanted:
            break
    if n % 2:
        return found[0]
    total = found[0] + found[1]
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
    """The summary of a run's outcomes (see `Summary`)."""
    summary = Summary(rules, players, names, seed)
    for outcome in results:
        summary.add(outcome)
    return summary.result()


STALLED_SEEDS, SAMPLES = 50, 10  # how many stalled seeds (the smallest) and samples (the first games) a summary shows


class Summary:
    """A run's summary, taken in one outcome at a time, in any order: the same outcomes give the same summary, to
    the byte, however they arrive (from workers, from a run's folder after a resume). It keeps counts of distinct
    values, not outcomes, so a run of a million games costs no more memory than one of a thousand: each seat's wins
    by how many shared them (summed as exact fractions: a float sum would depend on the order), scores, lengths
    and decisions as Counters, the smallest stalled seeds and the first samples by game index in bounded heaps.
    `result()` is what `summarise` has always given for a list in seed order."""

    def __init__(self, rules, players: int, names: list[str], seed: int):
        self.rules, self.players, self.names, self.seed = rules, players, names, seed
        self.games = self.played = self.errors = self.team_wins = self.stalled = 0
        self.shares: list[Counter] = [Counter() for _ in range(players)]  # seat -> {winners: games won among them}
        self.seat_scores: list[Counter] = [Counter() for _ in range(players)]
        self.all_scores: Counter = Counter()
        self.turns: Counter = Counter()
        self.decisions: Counter = Counter()
        self.endings: dict = {}  # reason -> [games, the first game's index]: the JSON lists them in that order
        self._stalled_seeds: list = []  # the smallest seeds, negated: a heap's top is the largest kept
        self._stall_samples: list = []  # (-index, arrival, sample): the first games by index
        self._error_samples: list = []
        self._log_errors: list[tuple[int, int, str]] = []  # only when --log-dir fails: every one is reported
        self._arrivals = 0

    def add(self, outcome: dict) -> None:
        """Count one game's outcome (its extra keys, such as a run's record adds, are ignored)."""
        self.games += 1
        self._arrivals += 1
        index = outcome["index"]
        if "log_error" in outcome:
            self._log_errors.append((index, self._arrivals, outcome["log_error"]))
        if "error" in outcome:
            self.errors += 1
            sample = {"seed": outcome["seed"], "code": outcome.get("code") or None, "error": outcome["error"]}
            self._first(self._error_samples, index, sample)
            return
        if "stalled" in outcome:
            self._stall(outcome["seed"])
            sample = {"seed": outcome["seed"], "code": outcome.get("code"), "why": outcome["stalled"]}
            self._first(self._stall_samples, index, sample)
            return
        self.played += 1
        winners, scores = outcome["winners"], outcome["scores"]
        for i in range(self.players):
            if f"P{i + 1}" in winners:
                self.shares[i][len(winners)] += 1
            if scores:
                self.seat_scores[i][scores.get(f"P{i + 1}", 0)] += 1
        self.all_scores.update((scores or {}).values())
        if winners:
            self.team_wins += 1
        self.turns[outcome["turns"]] += 1
        self.decisions[outcome["decisions"]] += 1
        reason = outcome["reason"]
        ending = self.endings.get(reason)
        if ending is None:
            self.endings[reason] = [1, index]
        else:
            ending[0] += 1
            ending[1] = min(ending[1], index)
        if reason == STALLED:
            self._stall(outcome["seed"])

    def _stall(self, seed) -> None:
        self.stalled += 1
        heapq.heappush(self._stalled_seeds, -seed)
        if len(self._stalled_seeds) > STALLED_SEEDS:
            heapq.heappop(self._stalled_seeds)

    def _first(self, heap: list, index: int, sample: dict) -> None:
        heapq.heappush(heap, (-index, -self._arrivals, sample))  # of one index twice, the first to arrive
        if len(heap) > SAMPLES:
            heapq.heappop(heap)

    def result(self) -> dict:
        rules, players, names, done = self.rules, self.players, self.names, self.played
        seat_rows = []
        agent_wins: Counter = Counter()
        agent_games: Counter = Counter()
        for i in range(players):
            agent = names[i % len(names)]
            # exact (a float sum would depend on the order); a seat that never shared a win has 0, a whole number,
            # as the sum of no shares always was
            shares = self.shares[i]
            wins = float(sum(Fraction(games, winners) for winners, games in shares.items())) if shares else 0
            seat_rows.append(
                {
                    "seat": f"P{i + 1}",
                    "agent": agent,
                    **_win_rate(wins, done),
                    "score": _spread(self.seat_scores[i]),
                }
            )
            agent_wins[agent] += wins  # type: ignore[assignment]  # a Counter of wins that may be fractions (ties)
            agent_games[agent] += done
        per_agent = {}
        for agent in agent_games:
            per_agent[agent] = {"seat_games": agent_games[agent], **_win_rate(agent_wins[agent], agent_games[agent])}
        # one team: a game is won by all or by none, so the seats' split shares say little
        team = _win_rate(self.team_wins, done) if rules.cooperative else None
        endings = sorted(self.endings.items(), key=lambda item: item[1][1])
        return {
            "pack": rules.pack_id,
            "players": players,
            "agents": [names[i % len(names)] for i in range(players)],
            "seed": self.seed,
            "games": self.games,
            "played": done,
            "errors": self.errors,
            "score_counter": rules.score_counter,
            "seats": seat_rows,
            "per_agent": per_agent,
            "team": team,
            "score_distribution": {str(k): self.all_scores[k] for k in sorted(self.all_scores)},
            "turns": _spread(self.turns),
            "decisions": _spread(self.decisions),
            "length_unit": "rounds" if rules.in_rounds else "turns",  # what `turns` counts
            "endings": {reason: games for reason, (games, _) in endings},
            "stalled": {"count": self.stalled, "seeds": sorted(-s for s in self._stalled_seeds)},
            "stall_samples": _in_order(self._stall_samples),
            "error_samples": _in_order(self._error_samples),
            "log_errors": [text for _, _, text in sorted(self._log_errors)],
        }


def _in_order(heap: list) -> list[dict]:
    return [sample for _, _, sample in sorted(heap, key=lambda item: (-item[0], -item[1]))]


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
