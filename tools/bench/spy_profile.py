"""Where a compiled runtime's games spend their time, by py-spy's samples: engine functions and each effect's code.

    python hatch_build.py --inplace                           # the checkout compiled, as the wheel is
    python tools/bench/spy_profile.py neolithibum --games 150 [--players 4] [--top 40] [--raw FILE]
    python tools/bench/spy_profile.py --from FILE [--top 40] [--only lowered]

Runs py-spy (`pip install py-spy`; not a dependency of the project) over a child that plays `--games` random games
in bulk, as the benchmark plays them, after one game untimed, and prints each function's share of the samples,
inclusive and its own (the innermost engine or effect frame of a sample: what CPython does for it counts as its own).
`--native` sampling sees the modules Cython compiled as well as the Python code the engine generates per pack;
that code is named by its text here (`[lowered action.escape_cowardice.effect]`, `[phase.play_round.effect]`):
py-spy keeps a file name's last part after a "/", which would name every effect `effect>`. `compiled_profile.py`
does the same with `perf`, which sees the C but names all generated code `<python>`.
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# a frame of py-spy's raw output: `name (file:line)`, or a bare address
_FRAME = re.compile(r"(?P<name>.*?) \((?P<file>[^()]*?)(?::\d+)?\)$")
# frames that are CPython's or Cython's own machinery (or inlined helpers): never a sample's owner
_MACHINERY = re.compile(r"^(?:Py|_Py|__Pyx|PyObject|0x|list_|dict_|unicode|long_|tuple)")
# a header's inlined helpers (`object.h`) and the shared libraries: matched as a file name's end or part, never a mere
# ".h" inside it (an effect's name such as `[lowered action.hardest_club.effect]` holds one)
_MACHINERY_FILE = re.compile(r"(?:[.]h$|libpython|libc[.]so|ld-linux)")


def frame_key(frame: str) -> str:
    """`name (file)` of one raw frame, its line dropped and a compiled module's `.c` with it."""
    found = _FRAME.match(frame)
    if found is None:
        return frame
    return f"{found['name']} ({re.sub(r'[.]c$', '', found['file'])})"


def owned(frame: str) -> bool:
    """Whether a sample in `frame` is charged to it: an engine function or generated code, not machinery."""
    found = _FRAME.match(frame)
    if found is None or _MACHINERY.match(found["name"]):
        return False
    return _MACHINERY_FILE.search(found["file"]) is None


def shares(lines) -> tuple[int, collections.Counter, collections.Counter]:
    """py-spy's raw lines (`frame;frame;... count`, outermost first): the samples, and each function's samples
    inclusive (once a sample however often it is on the stack) and its own."""
    total = 0
    inclusive: collections.Counter = collections.Counter()
    own: collections.Counter = collections.Counter()
    for line in lines:
        stack, _, count = line.rstrip().rpartition(" ")
        if not stack or not count.isdigit():
            continue
        samples = int(count)
        total += samples
        frames = stack.split(";")
        for key in {frame_key(frame) for frame in frames}:
            inclusive[key] += samples
        for frame in reversed(frames):
            if owned(frame):
                own[frame_key(frame)] += samples
                break
    return total, inclusive, own


def report(lines, top: int, only: str = "") -> str:
    total, inclusive, own = shares(lines)
    if not total:
        return "no samples"
    rows = [f"{total} samples; inclusive, own, function (file)"]
    shown = 0
    for key, samples in inclusive.most_common():
        if only not in key or not owned(key):
            continue
        rows.append(f"{100 * samples / total:6.2f} % {100 * own[key] / total:6.2f} %  {key}")
        shown += 1
        if shown == top:
            break
    return "\n".join(rows)


def play(pack: str, games: int, players: int) -> None:
    """The child py-spy samples: generated code named by its text, one game untimed, then `games` in bulk."""
    sys.path.insert(0, str(ROOT))
    from engine.content.packs import resolve_target
    from engine.runtime import ahead
    from engine.runtime import rules as rules_module
    from engine.runtime.collector import bulk_play
    from engine.runtime.game import Game
    from engine.runtime.session import play_randomly

    compile_source = ahead.compiled

    def named(source: str, filename: str):
        return compile_source(source, filename.replace("/", ".").replace("<", "[").replace(">", "]"))

    ahead.compiled = named  # (read by name at each call; the sources compiled ahead run as C, named by their module)
    rules = rules_module.load(resolve_target(pack))
    play_randomly(Game.new(rules, players, 10_000), random.Random(10_000))
    with bulk_play():
        for seed in range(games):
            play_randomly(Game.new(rules, players, seed), random.Random(seed))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pack", nargs="?", default="neolithibum")
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--rate", type=int, default=500, help="samples a second")
    parser.add_argument("--raw", type=Path, help="keep py-spy's raw samples in this file")
    parser.add_argument("--from", dest="source", type=Path, help="report on raw samples kept before")
    parser.add_argument("--only", default="", help="only the functions whose `name (file)` holds this")
    parser.add_argument("--play", action="store_true", help=argparse.SUPPRESS)  # (the child)
    args = parser.parse_args(argv)
    if args.play:
        play(args.pack, args.games, args.players)
        return 0
    if args.source is not None:
        print(report(args.source.read_text().splitlines(), args.top, args.only))
        return 0
    spy = shutil.which("py-spy")
    if spy is None:
        print("spy_profile: py-spy is not installed (pip install py-spy)", file=sys.stderr)
        return 1
    raw = args.raw or Path(tempfile.mkdtemp(prefix="spy-")) / "samples.raw"
    child = [sys.executable, __file__, args.pack, "--play", "--games", str(args.games), "--players", str(args.players)]
    command = [spy, "record", "--native", "-r", str(args.rate), "-f", "raw", "-o", str(raw), "--", *child]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(report(raw.read_text().splitlines(), args.top, args.only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
