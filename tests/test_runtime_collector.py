"""The cycle collector during a run of games (engine/runtime/collector.py, issue 16): `knap sim` plays with the pack
frozen out of the collector's walks and a larger young generation, in its own process and in its forked workers,
and leaves the collector as it found it."""

from __future__ import annotations

import gc
import weakref

import pytest
from conftest import REPO

from engine.runtime import rules as rules_module
from engine.runtime import sim
from engine.runtime.collector import YOUNG_THRESHOLD, bulk_play


@pytest.fixture(scope="module")
def cro_magnon():
    return rules_module.load(REPO / "content" / "cro-magnon")


def _collector() -> tuple[int, int]:
    return gc.get_freeze_count(), gc.get_threshold()[0]


def test_sim_plays_its_games_with_the_pack_frozen_and_restores_the_collector(cro_magnon):
    before = _collector()
    assert before[0] == 0  # nothing else froze the test process's heap
    seen = []
    summary = sim.run(cro_magnon, 2, 2, ["random"], jobs=1, progress=lambda: seen.append(_collector()))
    assert summary["games"] == 2
    assert len(seen) == 2
    assert all(frozen > 0 and young == YOUNG_THRESHOLD for frozen, young in seen)
    assert _collector() == before


def _collector_in_worker(args):
    index = args[0]
    return {"index": index, "collector": _collector()}


def test_forked_workers_inherit_the_frozen_pack(cro_magnon, monkeypatch):
    """Python's advice before `fork`: frozen, the parent's objects are not written to by the workers' collections."""
    monkeypatch.setattr(sim, "_one", _collector_in_worker)
    results = sim._play(cro_magnon, 4, 2, ["random"], 0, 2, 500, None, None)
    assert [r["index"] for r in results] == [0, 1, 2, 3]
    assert all(r["collector"][0] > 0 and r["collector"][1] == YOUNG_THRESHOLD for r in results)


class _Node:
    def __init__(self):
        self.other = self  # a cycle: only the collector frees it


def test_garbage_cycles_made_inside_are_still_collected():
    with bulk_play():
        cycle = _Node()
        gone = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert gone() is None


def test_objects_alive_when_it_opens_are_frozen_and_thawed_after():
    kept = [_Node() for _ in range(10)]
    with bulk_play():
        assert gc.get_freeze_count() >= len(kept)
    assert gc.get_freeze_count() == 0
    assert kept


def test_inside_another_it_leaves_the_outer_in_charge():
    default = gc.get_threshold()
    with bulk_play():
        frozen = gc.get_freeze_count()
        with bulk_play():
            pass
        assert gc.get_freeze_count() == frozen
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    assert gc.get_threshold() == default
    assert gc.get_freeze_count() == 0


def test_an_error_inside_leaves_the_collector_as_it_was():
    before = (gc.get_freeze_count(), gc.get_threshold())
    with pytest.raises(RuntimeError), bulk_play():
        raise RuntimeError("a game failed")
    assert (gc.get_freeze_count(), gc.get_threshold()) == before
