"""How many Python function calls seeded random games make, by function: a measure of the runtime's work that,
unlike time, does not move with the machine's load. Compare two checkouts to see what a change added to a hot path
(a lint fix that put `contextlib.suppress` in a loop cost three calls an item).

    python tools/bench/calls.py                      # this checkout: total calls for each pack
    python tools/bench/calls.py --against ../old     # and the functions whose call counts differ most

`--against DIR`: another checkout (e.g. `git worktree add ../old HEAD~3`), run in its own process.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAMES = {"cro-magnon": (4, 5), "neolithibum": (4, 3), "stone-age": (4, 2)}  # pack: (players, games)


def counts(root: Path) -> dict[str, dict[str, int]]:
    """pack -> function ("file:name") -> calls, for the seeded random games of GAMES, played by `root`'s engine."""
    sys.path.insert(0, str(root))
    from engine.runtime import rules as rules_module
    from engine.runtime.game import Game
    from engine.runtime.session import play_randomly

    found = {}
    for pack, (players, games) in GAMES.items():
        rules = rules_module.load(root / "content" / pack)
        profile = cProfile.Profile()
        profile.enable()
        for seed in range(games):
            play_randomly(Game.new(rules, players, seed), random.Random(seed))
        profile.disable()
        stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
        per_function: dict[str, int] = {}
        for (file, _line, name), (_primitive, calls, *_rest) in stats.items():
            key = f"{Path(file).name}:{name}"
            per_function[key] = per_function.get(key, 0) + calls
        found[pack] = per_function
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument("--most", type=int, default=8, help="how many differing functions to list per pack")
    args = parser.parse_args(argv)
    mine = counts(ROOT)
    theirs = None
    if args.against:
        script = Path(__file__).resolve()
        done = subprocess.run(
            [sys.executable, "-c", _RUN_ELSEWHERE, str(script), str(args.against.resolve())],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 1
        theirs = json.loads(done.stdout)
    for pack, calls in mine.items():
        total = sum(calls.values())
        if theirs is None:
            print(f"{pack}: {total:,} calls")
            continue
        before = theirs[pack]
        old_total = sum(before.values())
        print(f"{pack}: {total:,} calls here, {old_total:,} there ({(total - old_total) / old_total:+.1%})")
        changes = sorted(
            ((calls.get(f, 0) - before.get(f, 0), f) for f in set(calls) | set(before)), key=lambda c: -abs(c[0])
        )
        for change, function in changes[: args.most]:
            if change:
                print(f"  {change:+,} {function}")
    return 0


# Runs this file's `counts` against another checkout: its engine, its packs (ROOT replaced before anything loads).
_RUN_ELSEWHERE = """
import json, runpy, sys
from pathlib import Path
module = runpy.run_path(sys.argv[1], run_name="calls")
print(json.dumps(module["counts"](Path(sys.argv[2]))))
"""

if __name__ == "__main__":
    sys.exit(main())
