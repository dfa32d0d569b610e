"""Runs of many games kept in a folder (`knap sim --out DIR`, engine/balance/runs.py) and the summary they are
counted into one outcome at a time (sim.Summary), in any order, to the byte what the list-based summary gave."""

from __future__ import annotations

import contextlib
import json
import math
import random
import statistics
from collections import Counter
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.runtime import sim

PACK = "cro-magnon"


# ------------------------------------------------------------------------------ the summary, one game at a time
def _old_summarise(rules, results, players, names, seed) -> dict:
    """The summary as sim.summarise made it from a list in seed order before the accumulator (commit f522de7),
    kept here as the reference the accumulator must equal."""

    def spread(values):
        if not values:
            return {}
        ordered = sorted(values)
        try:
            mean, sd = round(statistics.fmean(values), 2), round(statistics.pstdev(values), 2)
        except OverflowError:
            mean = sd = None
        return {"mean": mean, "sd": sd, "min": ordered[0], "median": median(ordered), "max": ordered[-1]}

    def median(ordered):
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

    def win_rate(wins, games):
        low, high = sim.wilson(wins, games)
        return {
            "wins": round(wins, 2),
            "win_rate": round(wins / games, 4) if games else 0.0,
            "ci95": [round(low, 4), round(high, 4)],
        }

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
        seat_rows.append({"seat": seat, "agent": agent, **win_rate(wins, len(done)), "score": spread(scores)})
        agent_wins[agent] += wins
        agent_games[agent] += len(done)
    per_agent = {a: {"seat_games": agent_games[a], **win_rate(agent_wins[a], agent_games[a])} for a in agent_games}
    all_scores = Counter(v for r in done for v in (r["scores"] or {}).values())
    team = win_rate(sum(1 for r in done if r["winners"]), len(done)) if rules.cooperative else None
    stalled = sorted([r["seed"] for r in done if r["reason"] == sim.STALLED] + [r["seed"] for r in stuck])
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
        "turns": spread([r["turns"] for r in done]),
        "decisions": spread([r["decisions"] for r in done]),
        "length_unit": "rounds" if rules.in_rounds else "turns",
        "endings": dict(Counter(r["reason"] for r in done)),
        "stalled": {"count": len(stalled), "seeds": stalled[:50]},
        "stall_samples": [{"seed": r["seed"], "code": r.get("code"), "why": r["stalled"]} for r in stuck[:10]],
        "error_samples": [{"seed": r["seed"], "code": r.get("code") or None, "error": r["error"]} for r in errors[:10]],
        "log_errors": [r["log_error"] for r in results if "log_error" in r],
    }


def _rules(cooperative=False):
    return SimpleNamespace(pack_id="x", score_counter="vp", cooperative=cooperative, in_rounds=False, root="x")


def _outcome(draw, index: int, players: int, seed: int, ties: int) -> dict:
    """A made-up outcome of game `index`: played (with up to `ties` winners), stalled or failed."""
    seats = [f"P{i + 1}" for i in range(players)]
    kind = draw(st.sampled_from(["done", "done", "done", "stalled", "error"]))
    outcome: dict = {"index": index, "seed": seed + index}
    if kind == "stalled":
        outcome |= {"stalled": f"turn {index} never ends", "code": "X310", "turns": 3, "decisions": 7}
    elif kind == "error":
        outcome |= {"error": f"boom {index}", "code": draw(st.sampled_from([None, "", "X101"]))}
    else:
        winners = draw(st.lists(st.sampled_from(seats), unique=True, max_size=ties))
        scored = draw(st.booleans())
        scores = {s: draw(st.integers(-3, 40) | st.just(10**30)) for s in seats} if scored else {}
        outcome |= {
            "winners": winners,
            "scores": scores,
            "reason": draw(st.sampled_from(["goal", "deck_out", sim.STALLED])),
            "turns": draw(st.integers(1, 60)),
            "decisions": draw(st.integers(1, 900)),
        }
    if draw(st.integers(0, 9)) == 0:
        outcome["log_error"] = f"cannot write seed-{seed + index}.json: no room"
    return outcome


@st.composite
def _runs(draw, ties: int = 3):
    players = draw(st.integers(1, 4))
    seed = draw(st.integers(-5, 1000))
    count = draw(st.integers(0, 80))
    outcomes = [_outcome(draw, i, players, seed, ties) for i in range(count)]
    names = draw(st.sampled_from([["random"], ["greedy", "random"], ["a", "b", "c"]]))
    return players, seed, names, outcomes, draw(st.randoms())


def _accumulated(rules, outcomes, players, names, seed) -> str:
    summary = sim.Summary(rules, players, names, seed)
    for outcome in outcomes:
        summary.add(outcome)
    return json.dumps(summary.result(), indent=2)


@settings(max_examples=150, deadline=None)
@given(_runs(), st.booleans())
def test_the_summary_is_the_same_whatever_order_the_games_arrive_in(run, cooperative):
    players, seed, names, outcomes, shuffler = run
    rules = _rules(cooperative)
    in_order = _accumulated(rules, outcomes, players, names, seed)
    shuffled = list(outcomes)
    shuffler.shuffle(shuffled)
    assert _accumulated(rules, shuffled, players, names, seed) == in_order
    assert json.dumps(sim.summarise(rules, shuffled, players, names, seed), indent=2) == in_order


@settings(max_examples=150, deadline=None)
@given(_runs(ties=2))
def test_the_summary_equals_the_list_based_one(run):
    """Shares of one or two winners add up exactly in floats too: there the old sum in seed order is exact."""
    players, seed, names, outcomes, _ = run
    for cooperative in (False, True):
        rules = _rules(cooperative)
        expected = json.dumps(_old_summarise(rules, outcomes, players, names, seed), indent=2)
        assert _accumulated(rules, outcomes, players, names, seed) == expected


def test_shares_of_three_winners_are_counted_exactly():
    """A float sum of thirds depends on its order; the exact sum does not, and it rounds as the old one did."""
    outcomes = [
        {
            "index": i,
            "seed": i,
            "winners": ["P1", "P2", "P3"],
            "scores": {},
            "reason": "goal",
            "turns": 1,
            "decisions": 1,
        }
        for i in range(30)
    ]
    summary = sim.summarise(_rules(), outcomes, 3, ["random"], 0)
    assert summary["seats"][0]["wins"] == 10.0 and summary["per_agent"]["random"]["wins"] == 30.0
    assert json.dumps(summary) == json.dumps(_old_summarise(_rules(), outcomes, 3, ["random"], 0))


def test_memory_is_bounded_by_distinct_values():
    """Many stalled and failed games: the summary keeps 50 seeds and 10 samples of each, whatever the count."""
    summary = sim.Summary(_rules(), 2, ["random"], 0)
    order = list(range(5000))
    random.Random(3).shuffle(order)
    for i in order:
        if i % 2:
            summary.add({"index": i, "seed": i, "stalled": "never ends", "code": "X310", "turns": 1, "decisions": 2})
        else:
            summary.add({"index": i, "seed": i, "error": "boom", "code": None})
    assert len(summary._stalled_seeds) == 50 and len(summary._stall_samples) == len(summary._error_samples) == 10
    result = summary.result()
    assert result["stalled"] == {"count": 2500, "seeds": list(range(1, 100, 2))}
    assert [s["seed"] for s in result["error_samples"]] == list(range(0, 20, 2))


@pytest.mark.parametrize("values", [[3], [1, 2], [5, 1, 4, 4], [10**400, 2, 10**400], [2.5, 1, 7.25]])
def test_spread_of_a_counter_is_that_of_its_values(values):
    expected_mean = None
    with contextlib.suppress(OverflowError):
        expected_mean = round(statistics.fmean(values), 2)
    spread = sim._spread(Counter(values))
    assert spread == sim._spread(values) and spread["mean"] == expected_mean
    assert spread["median"] == (statistics.median(values) if expected_mean is not None else spread["median"])
    assert spread["sd"] is None or math.isclose(spread["sd"], round(statistics.pstdev(values), 2))


def test_the_summary_of_real_games_equals_the_list_based_one():
    """Random Cro-Magnon games (2 and 3 players): the accumulator in any order gives the old summary's bytes."""
    from engine.commands.play import _load_pack

    rules = _load_pack(PACK)
    for players in (2, 3):
        outcomes = sim._play(rules, 12, players, ["random", "greedy"], 7, 1, 500, None, None)
        expected = json.dumps(_old_summarise(rules, outcomes, players, ["random", "greedy"], 7), indent=2)
        random.Random(players).shuffle(outcomes)
        assert json.dumps(sim.summarise(rules, outcomes, players, ["random", "greedy"], 7), indent=2) == expected
