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
    monkeypatch.setattr(bench, "count", lambda *run: 0)
    assert bench.measure([root], ["cro-magnon"], 1) == {(str(root), "cro-magnon"): 0}  # untouched: counted

    def count_while_editing(*run):
        code.write_text("x = 22\n")  # an edit in the middle of the counts
        return 0

    monkeypatch.setattr(bench, "count", count_while_editing)
    with pytest.raises(bench.EditedWhileCounted, match=r"engine/step\.py.*void"):
        bench.measure([root], ["cro-magnon"], 1)
    monkeypatch.setattr(bench.shutil, "which", lambda name: "/usr/bin/valgrind")
    monkeypatch.setattr(bench, "ROOT", root)
    assert bench.main(["--packs", "cro-magnon"]) == 1
    assert "counts are void" in capsys.readouterr().err
