"""Where the compiled runtime spends its time: `perf` samples charged to the nearest engine function on the stack.

    python hatch_build.py --inplace                                   # the checkout compiled, as the wheel is
    perf record -F 1000 -e cpu-clock --call-graph dwarf,16384 -o /tmp/games.data \\
        python -m engine.commands.cli sim content/neolithibum -n 200 --players 4 --no-progress
    perf script -i /tmp/games.data | python tools/bench/compiled_profile.py [--top 40]

cProfile and py-spy see Python frames only, so under the compiled build they see neither the modules Cython compiled
nor what those modules do in CPython's C (dict look-ups, attribute reads, allocation). `perf` sees every C function.
Each sample is charged to the innermost frame that is a function of a compiled engine module (a Cython function,
`__pyx_pw_6engine_7runtime_5verbs_...`), with all that CPython did below it; a sample whose innermost owner is the
interpreter's loop is charged to "<python>": the code the engine generates per pack (lowered effects, expressions)
and the standard library's Python. The software clock (`-e cpu-clock`) works where hardware counters are not
offered; `--call-graph dwarf` is needed because neither CPython nor the compiled modules keep frame pointers.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from collections.abc import Iterable

PYTHON = "<python>"
OTHER = "<other>"
# a frame line of `perf script`: an address, the symbol (maybe +offset), the object file in parentheses
_FRAME = re.compile(r"\s+[0-9a-f]+\s+(?P<symbol>.*?)\s+\((?P<object>.*)\)\s*$")
_CLONE_SUFFIX = re.compile(r"\.(?:constprop|isra|part|cold)\.\d+|\.cold$")  # gcc's copies of one function
_ENGINE_OBJECT = re.compile(r"/engine/[^()]*\.(?:so|pyd)$")
_EVAL_LOOP = "_PyEval_EvalFrameDefault"


# a Python function of a compiled engine module: its wrapper (pw), its body (pf) or a generator's body (gb), named
# `__pyx_pw_6engine_7runtime_5verbs_14ChooseSecretly_3run` (a part's length, then the part; a method's number)
_FUNCTION = re.compile(r"__pyx_(?:pw|pf|gb)_6engine_7runtime_(?P<rest>\w+)")


def owner(frames: list[tuple[str, str]]) -> str:
    """The function a sample is charged to, from its frames innermost first: (symbol, object file). Cython's own
    helpers in a compiled module (`__Pyx_PyDict_GetItem`) are charged to the engine function that called them."""
    for symbol, obj in frames:
        if symbol.startswith(_EVAL_LOOP):
            return PYTHON
        if _ENGINE_OBJECT.search(obj):
            found = _FUNCTION.match(_CLONE_SUFFIX.sub("", symbol.split("+", 1)[0]))
            if found:
                return readable(found["rest"])
    return OTHER


def readable(rest: str) -> str:
    """`5verbs_14ChooseSecretly_3run` as `verbs.ChooseSecretly.run`, `11interpreter_15advance` as
    `interpreter.advance`: Cython writes a name's length before it, and a number before a function's name."""
    length = re.match(r"\d+", rest)
    if length is None:
        return rest
    start = length.end()
    module, rest = rest[start : start + int(length[0])], rest[start + int(length[0]) + 1 :]
    number = re.match(r"\d+", rest)
    if number is None:
        return f"{module}.{rest}"
    size, name = int(number[0]), rest[number.end() :]
    method = re.match(r"_(\d+)", name[size:])
    if len(name) > size and method:  # a class's name of that length, then the method's number and name
        return f"{module}.{name[:size]}.{name[size + method.end() :]}"
    return f"{module}.{name}"


def samples(lines: Iterable[str]) -> Iterable[list[tuple[str, str]]]:
    """Each sample's frames, innermost first, from `perf script`'s text (a header line, frame lines, a blank line)."""
    frames: list[tuple[str, str]] = []
    in_sample = False
    for line in lines:
        if not line.strip():
            if in_sample:
                yield frames
            frames, in_sample = [], False
            continue
        found = _FRAME.match(line)
        if found:
            frames.append((found["symbol"], found["object"]))
        else:  # a sample's header line: the process, the time, the event
            if in_sample:
                yield frames
            frames, in_sample = [], True
    if in_sample:
        yield frames


def shares(lines: Iterable[str]) -> tuple[int, list[tuple[str, int]]]:
    """(samples read, [(owner, samples)] most first)."""
    counted = collections.Counter(owner(frames) for frames in samples(lines))
    return sum(counted.values()), counted.most_common()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=40, help="how many owners to print")
    args = parser.parse_args(argv)
    total, owners = shares(sys.stdin)
    if not total:
        print("compiled_profile.py: no samples read (pipe `perf script` in)", file=sys.stderr)
        return 2
    print(f"{total} samples, by the nearest compiled engine function on the stack")
    for name, count in owners[: args.top]:
        print(f"{100 * count / total:6.2f} %  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
