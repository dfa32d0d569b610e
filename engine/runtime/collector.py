"""Python's cycle collector while many games are played in one process (`knap sim`, the benchmarks).

A loaded pack is tens of thousands of long-lived containers (its cards, tables and compiled code), and each full
collection walks every one of them again to find garbage that is never there; meanwhile a game's growing log and
history set off a young collection every 700 new containers. Over a run of random games the collector took 3-5 % of
the time, and under 1 % inside `bulk_play` (issue 16; tools/bench/collector.py times it with `gc.callbacks`).

Inside `bulk_play`, what was alive when it opened (the pack, the engine's modules) sits in the collector's permanent
generation (`gc.freeze`: also the standard library's advice before `fork`, so that forked workers do not write to
the pages they share with their parent) and the young generation holds `YOUNG_THRESHOLD` containers before it is
collected. Cycles of garbage made during the run are still collected; on leaving, the collector is as it was.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 10_000  # new containers between two young collections (Python's default: 700)


@contextmanager
def bulk_play() -> Iterator[None]:
    """Play many games inside: see the module's docstring. Inside another `bulk_play`, or in a host that froze its
    own heap, it changes nothing (the one that froze unfreezes)."""
    if gc.get_freeze_count():
        yield
        return
    thresholds = gc.get_threshold()
    gc.collect()  # only what is alive is frozen: garbage frozen now would never be freed
    gc.freeze()
    gc.set_threshold(max(thresholds[0], YOUNG_THRESHOLD), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
