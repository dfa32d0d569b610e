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


def test_the_measured_games_are_played_as_knap_sim_plays_them_and_the_warm_up_is_not(bench, monkeypatch):
    """Inside `collector.bulk_play` (the pack frozen out of the collector's walks), as sim.py plays its games."""
    import gc

    from engine.runtime import session

    frozen = {}
    plain = session.play_randomly

    def watched(game, rnd, **options):
        frozen[game.seed] = gc.get_freeze_count() > 0
        return plain(game, rnd, **options)

    monkeypatch.setattr(session, "play_randomly", watched)
    monkeypatch.setitem(bench.WORKLOADS, "tiny", ("cro-magnon", 2, 2, 1, 0))
    bench.play(REPO, "tiny", load_only=False)
    assert frozen == {1000: False, 0: True, 1: True}
    assert gc.get_freeze_count() == 0


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


def test_an_edit_to_a_checkout_while_it_is_counted_voids_the_count(bench, tmp_path, monkeypatch, capsys):
    """A child started after an edit compiles the edited code and counts that as play, so a count taken across an
    edit must never be printed as a result."""
    root = tmp_path / "checkout"
    (root / "engine").mkdir(parents=True)
    (root / "content" / "pack").mkdir(parents=True)
    code = root / "engine" / "step.py"
    code.write_text("x = 1\n")
    monkeypatch.setattr(bench.subprocess, "run", lambda *args, **kwargs: None)  # the warm-up child
    monkeypatch.setattr(bench, "count", lambda *run, cache=False: 0)
    assert bench.measure([root], ["cro-magnon"], 1) == {(str(root), "cro-magnon"): 0}  # untouched: counted

    def count_while_editing(*run, cache=False):
        code.write_text("x = 22\n")  # an edit in the middle of the counts
        return 0

    monkeypatch.setattr(bench, "count", count_while_editing)
    with pytest.raises(bench.EditedWhileCounted, match=r"engine/step\.py.*void"):
        bench.measure([root], ["cro-magnon"], 1)
    monkeypatch.setattr(bench.shutil, "which", lambda name: "/usr/bin/valgrind")
    monkeypatch.setattr(bench, "ROOT", root)
    assert bench.main(["--packs", "cro-magnon"]) == 1
    assert "counts are void" in capsys.readouterr().err


def test_cachegrinds_instructions_and_misses_are_read_from_its_summary(bench):
    """`--cache` reads cachegrind's summary at exit (the numbers with thousands' commas), the last of each line."""
    output = (
        "==9== Cachegrind, a cache and branch-prediction profiler\n"
        "==9== I   refs:      4,203,826,578\n==9== I1  misses:       14,696,598\n"
        "==9== LLi misses:           44,997\n==9== I1  miss rate:          0.35%\n"
        "==9== D   refs:      1,952,673,774  (1,301,594,856 rd   + 651,078,918 wr)\n"
        "==9== D1  misses:       30,345,927  (   25,467,786 rd   +   4,878,141 wr)\n"
    )
    assert bench.simulated(output) == {"instructions": 4_203_826_578, "i1_misses": 14_696_598, "d1_misses": 30_345_927}
    with pytest.raises(RuntimeError, match="no i1 misses count"):
        bench.simulated("==9== I   refs:      12\n")


def test_the_cache_table_gives_each_count_a_thousand_instructions_and_its_change(bench):
    """Play alone is the played run less the dealt one, count by count; the table gives misses a thousand
    instructions, so that two checkouts running different numbers of instructions compare."""
    played = {"instructions": 3_000_000, "i1_misses": 40_000, "d1_misses": 10_000}
    dealt = {"instructions": 1_000_000, "i1_misses": 10_000, "d1_misses": 5_000}
    alone = bench._less(played, dealt)
    assert alone == {"instructions": 2_000_000, "i1_misses": 30_000, "d1_misses": 5_000}
    assert bench._less(5, 3) == 2
    newer = {"instructions": 1_000_000, "i1_misses": 30_000, "d1_misses": 2_500}
    results = {("old", "neolithibum"): alone, ("new", "neolithibum"): newer}
    lines = bench.cache_table(results, [Path("old"), Path("new")], ["neolithibum"]).splitlines()
    assert lines[0] == "| workload | count | old | new | change |"
    assert lines[2] == "| neolithibum | instructions | 2.0 M | 1.0 M | -50.00 % |"
    assert lines[3] == "| neolithibum | I1 misses | 0.03 M (15.0/k) | 0.03 M (30.0/k) | +0.00 % |"
    assert lines[4] == "| neolithibum | D1 misses | 0.01 M (2.5/k) | 0.00 M (2.5/k) | -50.00 % |"


def test_a_checkout_from_before_packs_were_named_by_target_is_measured_by_its_folder(bench, monkeypatch):
    """9c282aa, issue 16's baseline, has no `engine.content.packs` nor `agents.make`: its packs are loaded by folder and
    its greedy bot made by its class, as then.py does."""
    from engine.content import packs
    from engine.runtime import agents

    monkeypatch.delattr(agents, "make")
    monkeypatch.delattr(packs, "resolve_target")  # (importing it by name then raises ImportError)
    monkeypatch.setitem(bench.WORKLOADS, "tiny", ("cro-magnon", 2, 1, 0, 0))
    monkeypatch.setitem(bench.WORKLOADS, "tiny greedy", ("cro-magnon", 2, 1, 0, 2))
    assert bench.play(REPO, "tiny", load_only=False) > 0
    assert bench.play(REPO, "tiny greedy", load_only=False) == 2
