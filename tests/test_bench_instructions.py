"""tools/bench/instructions.py counts instructions under valgrind, which CI does not run; what it does around the
count is checked here: the workloads play what they say (and only deal when asked), callgrind's total is read, and the
table puts the baseline first with the change."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_instructions", REPO / "tools" / "bench" / "instructions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_workload_plays_its_games_and_load_only_plays_none(bench, monkeypatch):
    """The count is the played run less the dealt one: the second must deal the same games and play nothing."""
    monkeypatch.setitem(bench.WORKLOADS, "tiny", ("cro-magnon", 2, 1, 0, 0))
    assert bench.play(REPO, "tiny", load_only=False) > 0
    assert bench.play(REPO, "tiny", load_only=True) == 0


def test_the_greedy_workload_answers_as_many_decisions_as_it_says(bench, monkeypatch):
    monkeypatch.setitem(bench.WORKLOADS, "tiny greedy", ("cro-magnon", 2, 1, 0, 3))
    assert bench.play(REPO, "tiny greedy", load_only=False) == 3


def test_callgrinds_total_is_read_from_its_last_report(bench):
    output = (
        "==7== Callgrind, a call-graph generating cache profiler\n==7== Events    : Ir\n==7== Collected : 123456789\n"
    )
    assert bench.collected(output) == 123_456_789
    with pytest.raises(RuntimeError, match="no instruction count"):
        bench.collected("valgrind: command not found")


def test_the_table_puts_the_baseline_first_and_gives_the_change(bench):
    results = {("old", "cro-magnon"): 200_000_000, ("new", "cro-magnon"): 190_000_000}
    text = bench.table(results, [Path("old"), Path("new")], ["cro-magnon"])
    assert text.splitlines()[0] == "| workload | old | new | change |"
    assert text.splitlines()[2] == "| cro-magnon | 200.0 M | 190.0 M | -5.00 % |"
    assert "change" not in bench.table({("new", "x"): 5}, [Path("new")], ["x"])


def test_the_baselines_checkout_goes_beside_this_one_at_a_path_as_long(bench, tmp_path):
    """The two checkouts should differ in their code alone, not in the length of the paths the engine's files and
    packs are read from."""
    root = tmp_path / "checkout"
    root.mkdir()
    folder = bench._baseline_folder(root)
    assert folder.parent == root.parent and len(str(folder)) == len(str(root)) and not folder.exists()
    folder.mkdir()
    assert bench._baseline_folder(root) != folder  # a folder already there is never taken
