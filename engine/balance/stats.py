"""The statistics a designer reads from a run: who wins, how long games last, and which cards and actions go with
winning (docs/balance.md).

`Stats` takes the games' records one at a time (`add`) and keeps only tallies: whole numbers by seat, agent, card,
action and value, so its memory grows with the distinct cards and values, never with the games, and its `result` is
the same whatever order the records came in (a shared win counts 1/k for each of its k winners: kept as counts by k
and summed as fractions at the end; every list is sorted at the end).

What counts:
- A game is *played* when it has an outcome (not `stalled`, not an `error`); only played games enter the rates.
  Games capped at the round limit (`turn_limit`) are played games, scored as they stood, as `knap sim` counts them.
- Win rates are per *seat-game* (one seat in one played game) with their 95 % Wilson interval (sim.wilson).
- First-player advantage: the win rate of the seat that took the first turn (the record's `first`) against 1/players;
  the interval of the difference is the Wilson interval shifted by 1/players.
- A card's *impact*: the win rate of the seat-games that took the card (at least once) minus that of the seat-games
  that did not, with Newcombe's interval (sim.newcombe); in a pack where no card is ever taken, those that drew it.
  Cards in fewer than `min_games` seat-games on either side are marked `few` and left out of the ranking. An impact
  is an association, not a cause: a seat that takes more cards may win for other reasons.
- An action's *impact*: the win rate of the seat-games that took it more often than the median seat-game (zeros
  included) minus that of the others.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

from engine.runtime.sim import newcombe, wilson

MIN_GAMES = 30  # seat-games on each side below which a card's or an action's impact is marked `few`


class Stats:
    """The tallies of a run's records; `result()` any time for the statistics so far."""

    def __init__(self, *, min_games: int = MIN_GAMES):
        self.min_games = min_games
        self.games = 0
        self.stalled = 0
        self.errors: Counter = Counter()  # error code (or "") -> games
        self.players: Counter = Counter()  # seats -> played games
        self.endings: Counter = Counter()
        self.length: Counter = Counter()  # turns (or rounds) -> played games
        self.decisions: Counter = Counter()
        self.margins: Counter = Counter()
        self.seat_games: Counter = Counter()  # seat -> seat-games
        self.seat_wins: Counter = Counter()  # (seat, k) -> wins shared by k
        self.agent_games: Counter = Counter()
        self.agent_wins: Counter = Counter()
        self.first_games: Counter = Counter()  # (players, first seat) -> games
        self.first_wins: Counter = Counter()  # (players, k) -> wins of the first seat shared by k
        self.all_wins: Counter = Counter()  # k -> seat wins shared by k
        self.round_sums: Counter = Counter()  # (round, seat index) -> the sum of its scores
        self.round_games: Counter = Counter()  # round -> games that reached it
        self.card_times: dict[str, Counter] = {kind: Counter() for kind in CARD_KINDS}  # card -> times in all games
        self.card_games: Counter = Counter()  # card -> played games in which any seat drew, took or used it
        self.had_games: dict[str, Counter] = {kind: Counter() for kind in HAD_KINDS}  # card -> seat-games with it
        self.had_wins: dict[str, Counter] = {kind: Counter() for kind in HAD_KINDS}  # (card, k) -> their wins
        self.action_counts: Counter = Counter()  # (action, times > 0) -> seat-games
        self.action_wins: Counter = Counter()  # (action, times, k) -> wins

    # ---------------------------------------------------------------------------------------- taking records
    def add(self, record: dict) -> None:
        """Count one game's record (sim._one's outcome, its `agents` and runtime.records' keys)."""
        self.games += 1
        if "error" in record:
            self.errors[str(record.get("code") or "")] += 1
            return
        if "stalled" in record:
            self.stalled += 1
            return
        winners = record.get("winners") or []
        k = len(winners)
        seats = _seats(record)
        agents = _agents(record, seats)
        self.players[len(seats)] += 1
        self.endings[str(record.get("reason"))] += 1
        self.length[_whole(record.get("turns"))] += 1
        self.decisions[_whole(record.get("decisions"))] += 1
        margin = record.get("margin")
        if isinstance(margin, int) and not isinstance(margin, bool):
            self.margins[margin] += 1
        first = record.get("first")
        if first in seats:
            self.first_games[(len(seats), first)] += 1
            if first in winners:
                self.first_wins[(len(seats), k)] += 1
        for number, row in enumerate(record.get("track") or ()):
            self.round_games[number + 1] += 1
            for index, value in enumerate(row):
                if isinstance(value, int):
                    self.round_sums[(number + 1, index)] += value
        seen: set[str] = set()
        for kind in CARD_KINDS:
            times = self.card_times[kind]
            for cards in (record.get(kind) or {}).values():
                times.update(cards)
                seen.update(cards)
        self.card_games.update(seen)
        actions = record.get("actions") or {}
        for seat, agent in zip(seats, agents, strict=True):
            won = seat in winners
            self.seat_games[seat] += 1
            self.agent_games[agent] += 1
            if won:
                self.seat_wins[(seat, k)] += 1
                self.agent_wins[(agent, k)] += 1
                self.all_wins[k] += 1
            for kind in HAD_KINDS:
                had = (record.get(kind) or {}).get(seat) or {}
                self.had_games[kind].update(had.keys())
                if won:
                    self.had_wins[kind].update((card, k) for card in had)
            for action, times in (actions.get(seat) or {}).items():
                if times:
                    self.action_counts[(action, times)] += 1
                    if won:
                        self.action_wins[(action, times, k)] += 1

    # ---------------------------------------------------------------------------------------- the statistics
    def result(self) -> dict:
        played = sum(self.players.values())
        seat_games = sum(self.seat_games.values())
        all_wins = _shares(self.all_wins.items())
        return {
            "games": self.games,
            "played": played,
            "stalled": self.stalled,
            "errors": sum(self.errors.values()),
            "error_codes": {code: self.errors[code] for code in sorted(self.errors)},
            "players": {str(n): self.players[n] for n in sorted(self.players)},
            "seats": [
                {"seat": seat, **_rate(_shares(_by(self.seat_wins, seat)), self.seat_games[seat])}
                for seat in sorted(self.seat_games, key=_seat_order)
            ],
            "agents": [
                {"agent": agent, **_rate(_shares(_by(self.agent_wins, agent)), self.agent_games[agent])}
                for agent in sorted(self.agent_games)
            ],
            "first_player": self._first_player(),
            "length": _spread(self.length),
            "decisions": _spread(self.decisions),
            "margin": _spread(self.margins),
            "endings": {reason: self.endings[reason] for reason in sorted(self.endings)},
            "score_by_round": self._score_by_round(),
            "cards": self._cards(played, seat_games, all_wins),
            "actions": self._actions(played, seat_games, all_wins),
        }

    def _first_player(self) -> dict:
        games = sum(self.first_games.values())
        if not games:
            return {"games": 0, "win_rate": None, "ci95": None, "expected": None, "advantage": None}
        wins = _shares((k, n) for (_players, k), n in self.first_wins.items())
        expected = sum((Fraction(n, players) for (players, _seat), n in self.first_games.items()), Fraction(0)) / games
        low, high = wilson(float(wins), games)
        rate = float(wins / games)
        return {
            "games": games,
            "wins": round(float(wins), 2),
            "win_rate": round(rate, 4),
            "ci95": [round(low, 4), round(high, 4)],
            "expected": round(float(expected), 4),
            "advantage": round(rate - float(expected), 4),
            "advantage_ci95": [round(low - float(expected), 4), round(high - float(expected), 4)],
            "significant": low > expected or high < expected,
            "first_seats": {
                seat: n for (_p, seat), n in sorted(self.first_games.items(), key=lambda x: _seat_order(x[0][1]))
            },
        }

    def _score_by_round(self) -> dict:
        rounds = sorted(self.round_games)
        indexes = sorted({index for _round, index in self.round_sums})
        return {
            "rounds": rounds,
            "games": [self.round_games[r] for r in rounds],
            "seats": {
                f"P{index + 1}": [round(self.round_sums[(r, index)] / self.round_games[r], 3) for r in rounds]
                for index in indexes
            },
        }

    def _cards(self, played: int, seat_games: int, all_wins: Fraction) -> dict:
        basis = "taken" if self.had_games["taken"] else "drawn"
        had_games, had_wins = self.had_games[basis], self.had_wins[basis]
        wins_by_card: dict[str, Counter] = {}
        for (card, k), n in had_wins.items():
            wins_by_card.setdefault(card, Counter())[k] += n
        rows = []
        for card in sorted(set(self.card_games) | set(had_games)):
            with_n = had_games[card]
            with_wins = _shares(wins_by_card.get(card, Counter()).items())
            row = {
                "card": card,
                "games": self.card_games[card],
                **{f"{kind}_per_game": _per(self.card_times[kind][card], played) for kind in CARD_KINDS},
                **_impact(with_wins, with_n, all_wins - with_wins, seat_games - with_n, self.min_games),
            }
            rows.append(row)
        ranked = sorted((r for r in rows if r["impact"] is not None and not r["few"]), key=_by_impact)
        return {
            "basis": basis,
            "min_games": self.min_games,
            "table": rows,
            "ranking": [r["card"] for r in ranked],
        }

    def _actions(self, played: int, seat_games: int, all_wins: Fraction) -> list[dict]:
        counts: dict[str, Counter] = {}
        for (action, times), n in self.action_counts.items():
            counts.setdefault(action, Counter())[times] += n
        wins: dict[str, Counter] = {}
        for (action, times, k), n in self.action_wins.items():
            wins.setdefault(action, Counter())[(times, k)] += n
        rows = []
        for action in sorted(counts):
            by_times = counts[action]
            by_times[0] = seat_games - sum(by_times.values())  # the seat-games that never took it
            median = _median(by_times)
            above = sum(n for times, n in by_times.items() if times > median)
            above_wins = _shares((k, n) for (times, k), n in wins.get(action, Counter()).items() if times > median)
            rows.append(
                {
                    "action": action,
                    "times": sum(times * n for times, n in by_times.items()),
                    "per_game": _per(sum(times * n for times, n in by_times.items()), played),
                    "seat_games": seat_games - by_times[0],
                    "median": median,
                    **_impact(above_wins, above, all_wins - above_wins, seat_games - above, self.min_games),
                }
            )
        return rows


CARD_KINDS = ("drawn", "taken", "used")
HAD_KINDS = ("drawn", "taken")  # what may count as having had a card (the impact's basis)


def aggregate(records, *, min_games: int = MIN_GAMES) -> dict:
    """The statistics of `records` (any iterable of them, read once)."""
    stats = Stats(min_games=min_games)
    for record in records:
        stats.add(record)
    return stats.result()


# -------------------------------------------------------------------------------------------- helpers
def _seats(record: dict) -> list[str]:
    """The seats of a game, in order: as many as it has agents (else scores, else track columns)."""
    agents = record.get("agents")
    count = len(agents) if isinstance(agents, (list, dict)) and agents else 0
    if not count:
        count = len(record.get("scores") or {}) or len((record.get("track") or [[]])[0] or [])
    return [f"P{i}" for i in range(1, count + 1)]


def _agents(record: dict, seats: list[str]) -> list[str]:
    agents = record.get("agents")
    if isinstance(agents, dict):
        return [str(agents.get(seat, "?")) for seat in seats]
    if isinstance(agents, list) and len(agents) == len(seats):
        return [str(a) for a in agents]
    return ["?"] * len(seats)


def _seat_order(seat: str):
    return (0, int(seat[1:])) if seat[:1] == "P" and seat[1:].isdigit() else (1, seat)


def _whole(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _by(wins: Counter, key) -> list[tuple[int, int]]:
    return [(k, n) for (owner, k), n in wins.items() if owner == key]


def _shares(counts) -> Fraction:
    """Wins from (k, games won shared by k) pairs: each counts 1/k."""
    return sum((Fraction(n, k) for k, n in counts if k), Fraction(0))


def _per(times: int, games: int) -> float | None:
    return round(times / games, 4) if games else None


def _rate(wins: Fraction, n: int) -> dict:
    low, high = wilson(float(wins), n)
    return {
        "games": n,
        "wins": round(float(wins), 2),
        "win_rate": round(float(wins / n), 4) if n else None,
        "ci95": [round(low, 4), round(high, 4)],
    }


def _impact(with_wins: Fraction, with_n: int, without_wins: Fraction, without_n: int, min_games: int) -> dict:
    """The win rate with and without something, and with minus without with Newcombe's 95 % interval."""
    estimate = newcombe(float(without_wins), without_n, float(with_wins), with_n)
    d, low, high = estimate if estimate is not None else (None, None, None)
    return {
        "with": _rate(with_wins, with_n),
        "without": _rate(without_wins, without_n),
        "impact": None if d is None else round(d, 4),
        "impact_ci95": None if low is None or high is None else [round(low, 4), round(high, 4)],
        "significant": low is not None and high is not None and (low > 0 or high < 0),
        "few": min(with_n, without_n) < min_games,
    }


def _by_impact(row: dict):
    return (-row["impact"], row["card"])


def _median(counts: Counter) -> int | float:
    """The median of values given as value -> how many (the lower middle of an even count, halved when they differ)."""
    total = sum(counts.values())
    if not total:
        return 0
    ordered = sorted(counts.items())
    low = _nth(ordered, (total - 1) // 2)
    high = _nth(ordered, total // 2)
    return low if low == high else (low + high) / 2


def _nth(ordered: list, index: int):
    """The value at `index` (from 0) of the values given in order as (value, how many)."""
    seen = 0
    for value, n in ordered:
        seen += n
        if index < seen:
            return value
    return ordered[-1][0]


def _spread(counts: Counter) -> dict:
    """A distribution of whole numbers: how many of each, and its mean, spread and quantiles (nearest rank)."""
    total = sum(counts.values())
    if not total:
        return {"n": 0, "counts": {}}
    ordered = sorted(counts.items())
    mean = Fraction(sum(v * n for v, n in ordered), total)
    variance = sum((n * (v - mean) ** 2 for v, n in ordered), Fraction(0)) / total
    return {
        "n": total,
        "counts": {str(v): n for v, n in ordered},
        "mean": round(float(mean), 3),
        "sd": round(math.sqrt(variance), 3),
        "min": ordered[0][0],
        "p10": _nth(ordered, max(0, math.ceil(0.1 * total) - 1)),
        "median": _median(counts),
        "p90": _nth(ordered, max(0, math.ceil(0.9 * total) - 1)),
        "max": ordered[-1][0],
    }
