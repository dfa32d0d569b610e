"""Benchmark `knap lsp`: time from a change notification to its published diagnostics (issue 18).

Usage (from anywhere; the project is found relative to this file)::

    python tools/bench/lsp.py [--cards 10000] [--changes 20] [--json FILE] [--keep]

It starts the server as an editor does (`python -m engine.lsp` over stdio, tests/lsp_client.py), on two
workspaces in a temporary folder: a copy of the Cro-Magnon pack, and the pack of N cards, one card per file,
that tools/bench/lint.py generates. For each it prints:

- first: from opening one file to its first published diagnostics (the file's own findings, before the
  pack's first full check ends);
- open: from opening one file to the end of the first full check of its pack (every file read and checked),
  in a fresh workspace (no cache yet);
- warm open: the same, from a second server started on the same workspace (lint's cache in `.knap_cache`,
  written by the first, holds every file's result);
- change -> diagnostics: from a `didChange` of one card file (an effect text edited, alternately right and
  wrong) to the `publishDiagnostics` for that file: median, 90th percentile and worst of `--changes` changes,
  sent 0.1 s apart (typing speed: the full check waits for a pause);
- change -> settled: from the last change to the end of the full check of the pack that follows the pause
  (`knap/checked`), which publishes exactly what `knap lint` says.

Goal: change -> diagnostics under 100 ms for one card file of the 10,000-card pack. The script measures and
never asserts; it exits 0 unless it could not run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from lsp_client import Client  # the tests' client, found through the path set just above


def _generator():
    spec = importlib.util.spec_from_file_location("bench_lint", Path(__file__).with_name("lint.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(root: Path, card: Path, old: str, new: str, changes: int) -> dict:
    client = Client(root)
    try:
        started = time.perf_counter()
        client.open(card)
        at, _ = client.wait_for("textDocument/publishDiagnostics", timeout=600, uri=card.as_uri())
        first = at - started
        client.wait_for("knap/checked", timeout=600)
        opened = time.perf_counter() - started
        text = card.read_text(encoding="utf-8")
        assert old in text, f"{card} does not hold {old!r}"
        times = []
        counts = []
        for number in range(changes):
            edited = text.replace(old, new, 1) if number % 2 == 0 else text
            client.drain()
            sent = time.perf_counter()
            client.change(card, edited, version=number + 2)
            at, params = client.wait_for("textDocument/publishDiagnostics", timeout=600, uri=card.as_uri())
            times.append(at - sent)
            counts.append(sum(1 for d in params["diagnostics"] if d.get("severity") == 1))  # errors
            time.sleep(0.1)
        settled_from = time.perf_counter()
        at, _ = client.wait_for("knap/checked", timeout=600)
        settled = at - settled_from + 0.1
        assert max(counts) > 0 and min(counts) == 0, "the wrong edit's error was not found, or the right one had one"
    finally:
        client.close()
    client = Client(root)
    try:
        started = time.perf_counter()
        client.open(card)
        client.wait_for("knap/checked", timeout=600)
        warm = time.perf_counter() - started
    finally:
        client.close()
    times.sort()
    return {
        "first_s": round(first, 3),
        "open_s": round(opened, 3),
        "warm_open_s": round(warm, 3),
        "change_median_ms": round(statistics.median(times) * 1000, 1),
        "change_p90_ms": round(times[int(len(times) * 0.9) - 1] * 1000, 1),
        "change_max_ms": round(times[-1] * 1000, 1),
        "settled_s": round(settled, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="knap-lsp-bench-"))
    figures = {}
    try:
        small = work / "cro"
        shutil.copytree(REPO / "content" / "cro-magnon", small / "cro-magnon")
        figures["cro-magnon"] = measure(
            small,
            small / "cro-magnon" / "cards" / "weapons.yaml",
            "stats: {vp: 1}",
            "stats: {vp: 1}\neffect: gainn 1 vp",
            args.changes,
        )
        large = work / "large"
        _generator().write_pack(large / "bench_pack", args.cards)
        figures[f"{args.cards} cards"] = measure(
            large,
            large / "bench_pack" / "cards" / "card_00042.yaml",
            'log "card 42"',
            'logg "card 42"',
            args.changes,
        )
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(
        f"{'workspace':<14} {'first (s)':>9} {'open (s)':>9} {'warm (s)':>9} {'change median':>14} {'p90':>8} "
        f"{'max':>8} {'settled (s)':>12}"
    )
    for name, row in figures.items():
        print(
            f"{name:<14} {row['first_s']:>9} {row['open_s']:>9} {row['warm_open_s']:>9} "
            f"{row['change_median_ms']:>11} ms {row['change_p90_ms']:>5} ms {row['change_max_ms']:>5} ms "
            f"{row['settled_s']:>12}"
        )
    large_row = figures.get(f"{args.cards} cards")
    if large_row:
        met = large_row["change_median_ms"] < 100
        print(f"goal: change -> diagnostics < 100 ms on {args.cards} cards: {'met' if met else 'NOT met'}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
