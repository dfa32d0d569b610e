"""Benchmark "did you mean": engine/suggestions.py against difflib's one-by-one comparison (the old way).

Usage (from anywhere; the project is found relative to this file)::

    python tools/bench/suggest.py [--ids 30000] [--misses 2500] [--lint] [--json FILE]

1. Generates, seeded, N ids like the ones of a large pack (`amber_stone_axe`, `wolf_17`...) and M
   near-misses: an id of the set with one letter changed, dropped, added or two swapped, that is no
   id itself.
2. Times, in this process, the closest id of every near-miss both ways: the old way
   (`difflib.get_close_matches(word, ids, n=1, cutoff)` over every id, as the checks did) and
   `suggestions.closest` (its index is built inside the timed part), checks that the two give the
   same answer for every near-miss, and prints both times and their ratio. Also times `closest` asked
   with a new set for every word (the ids and a bound name), as the DSL checker asks.
3. With `--lint`: writes a pack of N cards (files of 1,000) in which M cards cost a near-miss of
   another card's id, lints it (no cache) once as it is and once with the old way patched in, and
   prints both times, their ratio, and the time of the same pack with correct references.

The script measures and never asserts: it exits 0 unless it could not run (exit 2). `--json FILE`
also writes the numbers. Standard library and the project only.
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import string
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from engine import suggestions

SEED = 20261210
_SYLLABLES = ["ka", "ro", "mi", "tan", "gor", "el", "u", "bri", "sha", "dun", "ve", "lo", "th", "ar", "is", "on"]
_WORDS = [
    "stone",
    "axe",
    "wolf",
    "bear",
    "fire",
    "river",
    "amber",
    "bone",
    "hunt",
    "cave",
    "spear",
    "flint",
    "moss",
    "reed",
    "hide",
    "clay",
    "owl",
    "elk",
    "ash",
    "oak",
    "salt",
    "ochre",
    "horn",
    "shell",
]


def make_ids(count: int, rng: random.Random) -> list[str]:
    """`count` distinct snake_case ids: two or three words or made-up words, sometimes a number."""
    ids: set[str] = set()
    while len(ids) < count:
        parts = []
        for _ in range(rng.choice((2, 2, 3))):
            parts.append(
                rng.choice(_WORDS)
                if rng.random() < 0.5
                else "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3)))
            )
        if rng.random() < 0.3:
            parts.append(str(rng.randint(1, 99)))
        ids.add("_".join(parts))
    return sorted(ids)


def near_miss(word: str, rng: random.Random) -> str:
    """One typing mistake: a letter changed, dropped, added, or two neighbours swapped."""
    i = rng.randrange(len(word))
    edit = rng.choice(("change", "drop", "add", "swap"))
    letter = rng.choice(string.ascii_lowercase)
    if edit == "change":
        return word[:i] + letter + word[i + 1 :]
    if edit == "drop" and len(word) > 3:
        return word[:i] + word[i + 1 :]
    if edit == "swap" and i + 1 < len(word):
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word[:i] + letter + word[i:]


def make_misses(ids: list[str], count: int, rng: random.Random) -> list[str]:
    known = set(ids)
    misses = []
    while len(misses) < count:
        word = near_miss(rng.choice(ids), rng)
        if word not in known and word[:1].isalpha():
            misses.append(word)
    return misses


def old_way(word: str, ids) -> str | None:
    """What the checks did before: every id compared with difflib."""
    found = difflib.get_close_matches(word, ids, n=1, cutoff=suggestions.CUTOFF)
    return found[0] if found else None


def time_functions(ids: list[str], misses: list[str]) -> dict:
    start = time.perf_counter()
    old = [old_way(word, ids) for word in misses]
    old_seconds = time.perf_counter() - start
    suggestions._indexes.clear()
    start = time.perf_counter()
    index = suggestions.index(ids)
    built = time.perf_counter() - start
    new = [suggestions.closest(word, index) for word in misses]
    new_seconds = time.perf_counter() - start
    # the DSL checker asks with a new set each time: the pack's ids and the names the text binds
    suggestions._indexes.clear()
    start = time.perf_counter()
    fresh = [suggestions.closest(word, set(ids) | {f"local_{n % 7}"}) for n, word in enumerate(misses)]
    fresh_seconds = time.perf_counter() - start
    return {
        "old_seconds": old_seconds,
        "new_seconds": new_seconds,
        "index_seconds": built,
        "ratio": old_seconds / new_seconds,
        "same_answers": sum(a == b for a, b in zip(old, new, strict=True)),
        "answers": len(misses),
        "found": sum(a is not None for a in new),
        "fresh_set_seconds": fresh_seconds,
        "fresh_same_answers": sum(a == b for a, b in zip(old, fresh, strict=True)),
    }


# ------------------------------------------------------------------------------ a pack to lint
_MANIFEST = "kind: pack\nid: {id}\nname: Suggestion benchmark\nversion: 1.0.0\nplayers: {{min: 2, max: 4}}\n"
_ZONES = "kind: zone\nid: deck\nname: Deck\ntype: deck\n"


def write_pack(folder: Path, pack_id: str, ids: list[str], misses: list[str], per_file: int = 1000) -> Path:
    """A pack of one card per id; the first len(misses) cards cost a near-miss (or, if `misses` holds
    ids, a correct id)."""
    root = folder / pack_id
    (root / "cards").mkdir(parents=True)
    (root / "pack.yaml").write_text(_MANIFEST.format(id=pack_id), encoding="utf-8")
    (root / "zones.yaml").write_text(_ZONES, encoding="utf-8")
    for start in range(0, len(ids), per_file):
        docs = []
        for n in range(start, min(start + per_file, len(ids))):
            cost = f"cost: [{misses[n]}]\n" if n < len(misses) else ""
            docs.append(f"kind: card\nid: {ids[n]}\nname: Card {n}\ntype: thing\ndeck: deck\n{cost}")
        (root / "cards" / f"cards_{start // per_file:03}.yaml").write_text("---\n".join(docs), encoding="utf-8")
    return root


def lint_seconds(root: Path) -> tuple[float, int]:
    from engine import lint

    start = time.perf_counter()
    result = lint.lint([root], None, jobs=1)
    return time.perf_counter() - start, len(result.diagnostics)


def time_lint(ids: list[str], misses: list[str]) -> dict:
    import unittest.mock

    rng = random.Random(SEED + 1)
    with tempfile.TemporaryDirectory(prefix="knap-suggest-") as folder:
        bad = write_pack(Path(folder), "near_misses", ids, misses)
        good = write_pack(Path(folder), "correct", ids, [rng.choice(ids) for _ in misses])
        clean, clean_findings = lint_seconds(good)
        new, findings = lint_seconds(bad)
        with unittest.mock.patch.object(
            suggestions.NameIndex, "closest", lambda self, word, cutoff=suggestions.CUTOFF: old_way(word, self.names)
        ):
            old, old_findings = lint_seconds(bad)
    return {
        "lint_correct_seconds": clean,
        "lint_new_seconds": new,
        "lint_old_seconds": old,
        "lint_ratio": old / new,
        "findings": findings,
        "old_findings": old_findings,
        "correct_findings": clean_findings,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ids", type=int, default=30000)
    parser.add_argument("--misses", type=int, default=2500)
    parser.add_argument("--lint", action="store_true", help="also lint a generated pack both ways")
    parser.add_argument("--json", type=Path, help="write the numbers to this file")
    args = parser.parse_args(argv)
    if args.ids < 1 or not 0 < args.misses <= args.ids:
        parser.error("need 1 <= --misses <= --ids")
    rng = random.Random(SEED)
    ids = make_ids(args.ids, rng)
    misses = make_misses(ids, args.misses, rng)
    numbers = {"ids": args.ids, "misses": args.misses, **time_functions(ids, misses)}
    print(f"{args.ids} ids, {args.misses} near-misses, cutoff {suggestions.CUTOFF}")
    print(f"  old way (difflib over every id): {numbers['old_seconds']:8.2f} s")
    print(
        f"  suggestions.closest:             {numbers['new_seconds']:8.2f} s "
        f"(index built in {numbers['index_seconds']:.2f} s)"
    )
    print(f"  ratio old / new:                 {numbers['ratio']:8.0f} x")
    print(
        f"  same answer:                     {numbers['same_answers']} of {numbers['answers']} "
        f"({numbers['found']} with a suggestion)"
    )
    print(
        f"  a new set for each word:         {numbers['fresh_set_seconds']:8.2f} s "
        f"(as the DSL checker asks; same answer for {numbers['fresh_same_answers']})"
    )
    if args.lint:
        numbers.update(time_lint(ids, misses))
        print(f"knap lint of {args.ids} cards, {args.misses} costing a near-miss (one process, no cache)")
        print(f"  with correct references:         {numbers['lint_correct_seconds']:8.2f} s")
        print(
            f"  near-misses, suggestions:        {numbers['lint_new_seconds']:8.2f} s ({numbers['findings']} findings)"
        )
        print(
            f"  near-misses, old way:            {numbers['lint_old_seconds']:8.2f} s "
            f"({numbers['old_findings']} findings)"
        )
        print(f"  ratio old / new:                 {numbers['lint_ratio']:8.1f} x")
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
