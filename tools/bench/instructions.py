"""Machine instructions that seeded games cost, counted by valgrind's callgrind: unlike time, the count does not
move with the machine's load (the same binary, inputs and environment give the same count), and unlike a count of
Python calls or bytecodes it includes the work done in C (a `marshal` round trip, a dict copy).

    python tools/bench/instructions.py                          # this checkout, every pack below
    python tools/bench/instructions.py --rev HEAD~3             # and HEAD~3, side by side, with the change
    python tools/bench/instructions.py --against ../old --packs cro-magnon,greedy
    python tools/bench/instructions.py --against ../old --packs neolithibum --cache   # and cache misses

Each number is the play alone, in a steady state: one run loads the pack, plays `--warm` games (so that code compiled
on first use is compiled), then plays the measured games; a second run does the same but deals the measured games
without playing them. The difference is what playing them cost. `--against DIR` measures another checkout (e.g.
`git worktree add ../old REV`); `--rev REV` makes such a checkout beside this one, at a path as long as this checkout's
(so that the two differ in their code alone), and removes it afterwards. Both run in their own processes
with this file's driver, importing the engine of the checkout measured; `PYTHONHASHSEED` is fixed and bytecode is
written once before counting: a checkout whose engine or packs change while it is counted gets no numbers (its
children would count compiling the edit as play), so copy a checkout you go on editing and measure the copy.

`--cache` counts with cachegrind's cache simulation instead (some times slower): each workload's instructions, and
how often they missed the first-level instruction cache and data cache, a thousand instructions. Time does not
follow the instructions alone (tools/bench/README.md, on this file): the misses tell whether a change's code ran out
of the caches. The simulated caches take this machine's sizes: compare counts made on one machine.

Needs valgrind (its callgrind, or cachegrind for `--cache`). A run of every pack takes several minutes a checkout;
`--jobs` runs that many counts at once (the counts do not depend on it). The counts are not exact from run to run:
the same checkout gave Cro-Magnon 482.3 M and 483.6 M (one process's total moves by about 0.25 M, with or without
address randomisation), so a change under about 0.3 % of Cro-Magnon's count wants repeated runs.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# name: (pack folder, players, measured seeds, warm-up games, greedy answers a game: 0 plays random)
WORKLOADS = {
    "cro-magnon": ("cro-magnon", 4, 2, 1, 0),
    "neolithibum": ("neolithibum", 4, 2, 1, 0),
    "stone-age-mammoth-herd": ("stone-age-mammoth-herd", 4, 2, 1, 0),
    "paleo-a-new-beginning": ("paleo-a-new-beginning", 4, 3, 5, 0),  # its first games still compile code
    "greedy": ("cro-magnon", 2, 2, 1, 40),  # GreedyAgent at every seat, as tools/bench/engine.py asks it
}
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")
# cachegrind's summary lines at exit: "==7== I   refs:      4,203,826,578", "==7== I1  misses:  14,696,598",
# "==7== D1  misses:  30,345,927  (25,467,786 rd + 4,878,141 wr)"
_SIMULATED = {
    "instructions": re.compile(r"I\s+refs:\s*([\d,]+)"),
    "i1_misses": re.compile(r"I1\s+misses:\s*([\d,]+)"),
    "d1_misses": re.compile(r"D1\s+misses:\s*([\d,]+)"),
}


def play(root: Path, workload: str, load_only: bool) -> int:
    """The child's work (run under valgrind): load the pack, warm up, then play (or only deal) the measured games, in
    `bulk_play` as `knap sim` plays them where the checkout has it. Returns the decisions played."""
    sys.path.insert(0, str(root))
    import functools
    import random

    from engine.runtime import agents
    from engine.runtime import rules as rules_module
    from engine.runtime.game import Game
    from engine.runtime.session import play_randomly

    try:  # the measured games as the checkout's `knap sim` plays them: with its collector's settings, if it has them
        from engine.runtime.collector import bulk_play
    except ImportError:
        bulk_play = contextlib.nullcontext

    folder, players, seeds, warm, greedy = WORKLOADS[workload]
    try:  # (a checkout from before packs were named by target, such as 9c282aa, issue 16's baseline: the folder)
        from engine.content.packs import resolve_target
    except ImportError:
        rules = rules_module.load(root / "content" / folder)
    else:
        rules = rules_module.load(resolve_target(str(root / "content" / folder)))
    for seed in range(1000, 1000 + warm):
        play_randomly(Game.new(rules, players, seed), random.Random(seed))
    decisions = 0
    with bulk_play():
        for seed in range(seeds):
            game = Game.new(rules, players, seed)
            if load_only:
                continue
            if not greedy:
                decisions += play_randomly(game, random.Random(seed))
                continue
            bots = {p: agents.GreedyAgent(seed * 31 + i) for i, p in enumerate(game.state["players"])}
            answered = 0
            while not game.over and answered < greedy:
                decision = game.decision
                if decision.is_chance:
                    game.apply_chance()
                    continue
                player = decision.players[0]
                legal = game.legal(player)
                model = functools.partial(game.determinized, player, len(game.state["history"]))
                game.apply(bots[player].act({"you": player}, legal, model), player)
                answered += 1
            decisions += answered
    return decisions


def collected(output: str) -> int:
    """The instruction count callgrind prints at exit ("==123== Collected : 456")."""
    found = _COLLECTED.findall(output)
    if not found:
        raise RuntimeError("callgrind printed no instruction count:\n" + output[-2000:])
    return int(found[-1])


def simulated(output: str) -> dict[str, int]:
    """Instructions and first-level cache misses from cachegrind's summary at exit (its last, the process's own)."""
    found = {name: pattern.findall(output) for name, pattern in _SIMULATED.items()}
    missing = [name for name, values in found.items() if not values]
    if missing:
        raise RuntimeError(f"cachegrind printed no {missing[0].replace('_', ' ')} count:\n" + output[-2000:])
    return {name: int(values[-1].replace(",", "")) for name, values in found.items()}


def count(root: Path, workload: str, load_only: bool, cache: bool = False) -> int | dict[str, int]:
    """Instructions of one child run under callgrind; with `cache`, under cachegrind: its instructions and misses."""
    if cache:
        tool = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=/dev/null"]
    else:
        tool = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    command = [*tool, sys.executable, __file__, "--child", str(root), workload] + (["--load-only"] if load_only else [])
    done = subprocess.run(command, capture_output=True, text=True, env=_child_env(), check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return simulated(done.stderr) if cache else collected(done.stderr)


def _child_env() -> dict:
    env = dict(os.environ, PYTHONHASHSEED="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # without bytecode on disk, compiling the engine swamps the count
    return env


class EditedWhileCounted(RuntimeError):
    """A checkout's code changed while it was measured: a child started after the edit compiles it again (its
    bytecode on disk is stale), and that compiling is counted as play. Seen: Paleo 247 M instead of 160 M."""


def code_stamps(root: Path) -> dict[str, tuple[int, int]]:
    """The engine's and the packs' files under `root`, each with its change time and size."""
    stamps = {}
    for folder in ("engine", "content"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in (".py", ".yaml", ".yml", ".lark") and "__pycache__" not in path.parts:
                status = path.stat()
                stamps[str(path.relative_to(root))] = (status.st_mtime_ns, status.st_size)
    return stamps


def check_unchanged(root: Path, before: dict[str, tuple[int, int]]):
    after = code_stamps(root)
    changed = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    if changed:
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        raise EditedWhileCounted(
            f"{root} changed while it was measured ({shown}): its counts are void. Measure a checkout nobody"
            " edits (a copy at a path as long as this one, or `--rev`)."
        )


def measure(roots: list[Path], workloads: list[str], jobs: int, cache: bool = False) -> dict[tuple[str, str], Any]:
    """(checkout, workload) -> instructions of the play alone (the run that plays less the run that only deals); with
    `cache`, a dict of the instructions and the misses of play alone (`simulated`'s names).
    Raises EditedWhileCounted if a checkout's code changes from the first compile to the last count."""
    stamps = {root: code_stamps(root) for root in roots}
    for root in roots:  # bytecode written, and every workload seen to run, before anything is counted
        for workload in workloads:
            subprocess.run([sys.executable, __file__, "--child", str(root), workload], env=_child_env(), check=True)
    runs = [(root, workload, load_only) for root in roots for workload in workloads for load_only in (False, True)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        counted = dict(zip(runs, pool.map(lambda run: count(*run, cache=cache), runs), strict=True))
    for root in roots:
        check_unchanged(root, stamps[root])
    return {
        (str(root), workload): _less(counted[root, workload, False], counted[root, workload, True])
        for root in roots
        for workload in workloads
    }


def _less(played, dealt):
    """What playing cost: the played run's count less the dealt one's (each count, for cachegrind's several)."""
    if isinstance(played, dict):
        return {name: played[name] - dealt[name] for name in played}
    return played - dealt


def change(before: int, after: int) -> str:
    """The relative change, as a signed percentage with two decimals."""
    return f"{(after - before) / before * 100:+.2f} %" if before else "n/a"


def table(results: dict, roots: list[Path], workloads: list[str]) -> str:
    """A markdown table: a row per workload, a column per checkout (the first is the baseline) and the change."""
    names = [str(root) for root in roots]
    rows = []
    for workload in workloads:
        numbers = [results[name, workload] for name in names]
        rows.append([workload, *(f"{n / 1e6:,.1f} M" for n in numbers), *_change_of(numbers)])
    return _markdown(["workload", *names, *_change_of(names, "change")], rows)


# a count made with `--cache` (`simulated`'s names) and its words in `cache_table`
_CACHE_ROWS = (("instructions", "instructions"), ("i1_misses", "I1 misses"), ("d1_misses", "D1 misses"))


def cache_table(results: dict, roots: list[Path], workloads: list[str]) -> str:
    """`table` for counts made with `--cache`: a row per workload and count, the misses of each first-level cache also
    a thousand instructions, so that checkouts running different numbers of instructions compare."""
    names = [str(root) for root in roots]
    rows = []
    for workload in workloads:
        counts = [results[name, workload] for name in names]
        for key, label in _CACHE_ROWS:
            cells = [_cache_cell(c, key) for c in counts]
            rows.append([workload, label, *cells, *_change_of([c[key] for c in counts])])
    return _markdown(["workload", "count", *names, *_change_of(names, "change")], rows)


def _cache_cell(counts: dict[str, int], key: str) -> str:
    """One count of a `--cache` run, in millions; a count of misses also a thousand instructions."""
    if key == "instructions":
        return f"{counts[key] / 1e6:,.1f} M"
    per = counts[key] / counts["instructions"] * 1000 if counts["instructions"] else 0.0
    return f"{counts[key] / 1e6:,.2f} M ({per:.1f}/k)"


def _change_of(numbers: list, heading: str | None = None) -> list[str]:
    """The change column's cell (or its `heading`) when two checkouts are compared; nothing for one."""
    if len(numbers) != 2:
        return []
    return [heading if heading is not None else change(*numbers)]


def _markdown(head: list[str], rows: list[list[str]]) -> str:
    """A markdown table of `rows` under `head`."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(cells) + " |" for cells in rows])


def _baseline_folder(root: Path) -> Path:
    """A new folder for the baseline's checkout, at a path as long as `root`'s: beside it, its name's last three
    letters replaced, where that can be; else a temporary folder."""
    name = root.name
    if len(name) >= 4 and os.access(root.parent, os.W_OK):
        for number in range(256):
            folder = root.parent / f"{name[:-3]}~{number:02x}"
            if not folder.exists():
                return folder
    return Path(tempfile.mkdtemp(prefix="knap-rev-")) / "checkout"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packs", default=",".join(WORKLOADS), help=f"comma-separated, of: {', '.join(WORKLOADS)}")
    parser.add_argument("--against", type=Path, help="another checkout, measured as the baseline")
    parser.add_argument("--rev", help="a git revision of this checkout, measured as the baseline")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="counts run at once")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument("--cache", action="store_true", help="count cache misses too (cachegrind; slower)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("workload", nargs="?", help=argparse.SUPPRESS)
    parser.add_argument("--load-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        play(args.child, args.workload, args.load_only)
        return 0
    workloads = [w for w in args.packs.split(",") if w]
    unknown = [w for w in workloads if w not in WORKLOADS]
    if unknown or (args.against and args.rev):
        parser.error(f"unknown workload {unknown[0]}" if unknown else "give --against or --rev, not both")
    if shutil.which("valgrind") is None:
        print("instructions.py: valgrind is not installed (Debian: apt install valgrind)", file=sys.stderr)
        return 2
    made = None
    baseline = args.against
    if args.rev:
        made = baseline = _baseline_folder(ROOT)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(made), args.rev], check=True)
    roots = [baseline.resolve(), ROOT] if baseline else [ROOT]
    try:
        results = measure(roots, workloads, max(1, args.jobs), cache=args.cache)
    except EditedWhileCounted as edited:
        print(f"instructions.py: {edited}", file=sys.stderr)
        return 1
    finally:
        if made is not None:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(made)], check=False)
            shutil.rmtree(made.parent if made.parent.name.startswith("knap-rev-") else made, ignore_errors=True)
    if args.cache:
        print("instructions and first-level cache misses of play alone (cachegrind; the first column is the baseline):")
        print(cache_table(results, roots, workloads))
    else:
        print("instructions of play alone (callgrind; the first column is the baseline):")
        print(table(results, roots, workloads))
    if args.json:
        args.json.write_text(
            json.dumps({f"{root} {w}": n for (root, w), n in results.items()}, indent=2) + "\n", encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
