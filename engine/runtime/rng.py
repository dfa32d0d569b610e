"""Random numbers whose whole state is two integers kept inside the game state.

Each source of randomness (a deck's shuffles, dice, an oracle's model) has its own stream, so adding
a die roll to one rule does not change how every deck is shuffled afterwards. SplitMix64 is small,
fast enough for shuffles and serialises as plain data.
"""

from __future__ import annotations

import hashlib

_MASK = (1 << 64) - 1


def stream_seed(seed: int, name: str) -> int:
    """The starting state of stream `name` in a game seeded with `seed` (stable across Python versions)."""
    digest = hashlib.blake2b(f"{seed}:{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _next(x: int) -> tuple[int, int]:
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return x, z ^ (z >> 31)


class Streams:
    """The random streams of one game, reading and writing `state["rng"]` (stream name -> integer state)."""

    def __init__(self, table: dict, seed: int):
        self.table = table
        self.seed = seed

    def below(self, stream: str, n: int) -> int:
        """A uniform integer in [0, n)."""
        x = self.table.get(stream)
        if x is None:
            x = stream_seed(self.seed, stream)
        limit = _MASK - (_MASK % n)  # reject the uneven top end so every value is equally likely
        while True:
            x, value = _next(x)
            if value < limit:
                break
        self.table[stream] = x
        return value % n

    def shuffle(self, stream: str, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(stream, i + 1)
            items[i], items[j] = items[j], items[i]

    def weighted(self, stream: str, weights: list[float]) -> int:
        """An index drawn with the given probabilities (they need not sum to 1)."""
        total = sum(weights)
        point = self.below(stream, 1 << 53) / (1 << 53) * total
        for index, weight in enumerate(weights):
            point -= weight
            if point < 0:
                return index
        return len(weights) - 1
