"""The lint benchmark's generated pack must lint clean: tools/bench/lint.py refuses to time a pack with findings,
and a new lint rule once made it refuse every run (D008: the cards' effects were never resolved)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from engine import lint

REPO = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_lint", REPO / "tools" / "bench" / "lint.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_benchmark_pack_lints_clean(tmp_path):
    bench = _bench()
    root = tmp_path / "bench_pack"
    files = bench.write_pack(root, 60)
    assert len(files) == 60
    result = lint.lint([root], None, jobs=1)
    assert [f"{d.code} {d.message}" for d in result.diagnostics] == []
